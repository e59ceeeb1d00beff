//! Matchers: exact, contains (multiset arrays), schema, regex, not, all, any, model-graded.

use mcptest_core::matchers::{Matcher, MatcherError, ModelGradedKind, contains};
use serde_json::{Value, json};

fn m(v: Value) -> Matcher {
    serde_json::from_value(v).expect("valid matcher")
}

fn passes(matcher: &Matcher, actual: Value) -> bool {
    matcher
        .check(&actual)
        .expect("no structural error")
        .is_empty()
}

#[test]
fn exact_json_number_semantics() {
    let one = Matcher::exact(json!(1));
    assert!(passes(&one, json!(1.0)));
    assert!(!passes(&one, json!(true)));
    assert!(!passes(&one, json!("1")));
    assert!(passes(&Matcher::exact(json!(10)), json!(10)));
    assert!(!passes(&Matcher::exact(json!(10)), json!("10")));
    // Big integers compare exactly, beyond f64 precision.
    assert!(!passes(
        &Matcher::exact(json!(9007199254740993u64)),
        json!(9007199254740992u64)
    ));
    assert!(passes(&Matcher::exact(json!(-0.0)), json!(0)));
}

#[test]
fn exact_null_is_not_missing_and_diffs_point_at_keys() {
    let e = Matcher::exact(json!({"a": null, "b": [1, 2]}));
    let diffs = e.check(&json!({"b": [1, 3], "c": true})).unwrap();
    let pointers: Vec<&str> = diffs.iter().map(|d| d.pointer.as_str()).collect();
    assert_eq!(pointers, vec!["/a", "/b/1", "/c"]);
    assert!(diffs[0].message.contains("missing key `a`"));
    assert!(diffs[2].message.contains("unexpected key `c`"));
    assert_eq!(diffs[1].expected, Some(json!(2)));
    assert_eq!(diffs[1].actual, Some(json!(3)));
}

#[test]
fn exact_type_mismatch_names_both_types() {
    let d = Matcher::exact(json!({"n": 1}))
        .check(&json!({"n": "1"}))
        .unwrap();
    assert_eq!(d[0].message, r#"expected number 1, recorded string "1""#);
}

#[test]
fn contains_is_object_subset_with_multiset_arrays() {
    let c = Matcher::contains(json!({"user": {"id": 7}, "tags": ["b", "a"]}));
    assert!(passes(
        &c,
        json!({"user": {"id": 7, "name": "Ada"}, "tags": ["a", "x", "b"], "z": 1})
    ));
    assert!(!passes(&c, json!({"user": {"id": 8}, "tags": ["a", "b"]})));
    // Multiset: two expected "a" need two distinct recorded "a".
    let twice = Matcher::contains(json!(["a", "a"]));
    assert!(!passes(&twice, json!(["a", "b"])));
    assert!(passes(&twice, json!(["b", "a", "a"])));
    // Scalars are exact: no substring semantics.
    assert!(!passes(
        &Matcher::contains(json!("rust")),
        json!("rust async")
    ));
    assert!(passes(&Matcher::contains(json!(1)), json!(1.0)));
}

#[test]
fn contains_arrays_are_solved_by_matching_not_greedily() {
    // Expected [{k:1}, {k:1, v:2}] against recorded [{k:1, v:2}, {k:1, v:3}]: a greedy pass
    // gives {k:1, v:2} to {k:1} and strands the second expected element.
    let c = Matcher::contains(json!([{"k": 1}, {"k": 1, "v": 2}]));
    assert!(passes(&c, json!([{"k": 1, "v": 2}, {"k": 1, "v": 3}])));
    assert!(contains(&json!([[1], [1, 2]]), &json!([[1, 2], [1, 3]])));
}

#[test]
fn contains_diffs_point_into_arrays() {
    let d = Matcher::contains(json!({"items": [{"sku": "A-1", "qty": 2}]}))
        .check(&json!({"items": [{"sku": "A-1", "qty": 3}]}))
        .unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].pointer, "/items/0/qty");
    let d = Matcher::contains(json!(["x", "y"]))
        .check(&json!(["x", "q", "r"]))
        .unwrap();
    assert_eq!(d[0].pointer, "");
    assert!(d[0].message.contains("multiset"), "{}", d[0].message);
}

#[test]
fn schema_is_compiled_once_and_errors_point_into_the_value() {
    let s = m(
        json!({"schema": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}}),
    );
    assert!(passes(&s, json!({"n": 3})));
    let d = s.check(&json!({"n": 9})).unwrap();
    assert_eq!(d[0].pointer, "/n");
    assert_eq!(d[0].actual, Some(json!(9)));
    // The documents' metric gates: { schema: { minimum: 0.7 } }.
    let min = m(json!({"schema": {"minimum": 0.7}}));
    assert!(passes(&min, json!(0.7)));
    assert!(!passes(&min, json!(0.69)));
    // Compiled once: the same Arc is handed out twice.
    if let Matcher::Schema(sm) = &s {
        assert!(std::sync::Arc::ptr_eq(
            &sm.compile().unwrap(),
            &sm.compile().unwrap()
        ));
    } else {
        panic!("schema matcher expected");
    }
}

#[test]
fn malformed_schema_and_regex_are_errors_not_failures() {
    let s = m(json!({"schema": {"type": 12}}));
    assert!(matches!(s.check(&json!(1)), Err(MatcherError::Schema(_))));
    assert!(s.validate().is_err());
    let r = Matcher::regex("([unclosed");
    assert!(matches!(r.check(&json!("x")), Err(MatcherError::Regex(_))));
    // Hidden inside `any` after an alternative that would pass: still an error.
    let any = Matcher::any([Matcher::exact(json!(1)), Matcher::regex("(")]);
    assert!(any.check(&json!(1)).is_err());
    let not = Matcher::not(m(json!({"schema": {"type": "nope"}})));
    assert!(not.check(&json!(1)).is_err());
}

#[test]
fn regex_searches_strings_only() {
    let r = Matcher::regex(r"^INC-\d{4}$");
    assert!(passes(&r, json!("INC-2041")));
    assert!(!passes(&r, json!("see INC-2041")));
    assert!(passes(
        &Matcher::regex("refund"),
        json!("issued a refund today")
    ));
    let d = r.check(&json!(2041)).unwrap();
    assert!(d[0].message.contains("regex needs a string, found number"));
    assert!(passes(&Matcher::regex("Zürich|東京"), json!("東京都")));
}

#[test]
fn not_all_any_compose() {
    let no_refund = m(json!({"not": {"contains": ["refund_order"]}}));
    assert!(passes(&no_refund, json!(["get_invoice"])));
    assert!(!passes(&no_refund, json!(["get_invoice", "refund_order"])));
    let between = m(json!({"all": [{"schema": {"minimum": 0}}, {"schema": {"maximum": 1}}]}));
    assert!(passes(&between, json!(0.5)));
    let d = between.check(&json!(2)).unwrap();
    assert_eq!(d.len(), 1);
    let either = m(json!({"any": [{"exact": "open"}, {"regex": "^close"}]}));
    assert!(passes(&either, json!("closed")));
    assert!(!passes(&either, json!("opened")));
    assert!(
        !passes(&Matcher::any([]), json!(1)),
        "any of nothing never passes"
    );
    assert!(passes(&Matcher::all([]), json!(1)), "all of nothing passes");
}

#[test]
fn model_graded_matchers_parse_but_never_decide() {
    for key in ["llm-judge", "llm-jury", "similar"] {
        let mg = m(json!({ key: {"rubric": "is it polite?"} }));
        assert_eq!(mg.key(), key);
        let err = mg.check(&json!("hello")).unwrap_err();
        assert!(matches!(err, MatcherError::ModelGraded(_)));
        assert!(err.to_string().contains("model-graded"), "{err}");
    }
    let nested = m(json!({"all": [{"exact": 1}, {"not": {"llm-judge": "x"}}]}));
    assert_eq!(nested.model_graded(), Some(ModelGradedKind::LlmJudge));
    assert!(nested.check(&json!(1)).is_err());
}

#[test]
fn matcher_syntax_errors_are_clear() {
    let err = serde_json::from_value::<Matcher>(json!({"exactly": 1}))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown matcher `exactly`") && err.contains("did you mean `exact`"),
        "{err}"
    );
    let err = serde_json::from_value::<Matcher>(json!({"exact": 1, "regex": "x"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("exactly one key"), "{err}");
    let err = serde_json::from_value::<Matcher>(json!({}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("empty matcher"), "{err}");
    assert!(serde_json::from_value::<Matcher>(json!("exact")).is_err());
    assert!(serde_json::from_value::<Matcher>(json!({"regex": 5})).is_err());
}

#[test]
fn matchers_round_trip_through_serde() {
    let src = json!({"all": [
        {"exact": {"a": [1, 2]}}, {"contains": {"b": 1}}, {"schema": {"type": "object"}},
        {"regex": "^x"}, {"not": {"any": [{"exact": null}]}}, {"llm-jury": {"n": 3}}
    ]});
    let parsed = m(src.clone());
    assert_eq!(serde_json::to_value(&parsed).unwrap(), src);
}
