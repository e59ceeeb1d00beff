//! Target selection: fields, indexes (negative from the end), wildcards, quoted keys.

use mcptest_core::select::{Step, Target, select};
use serde_json::json;

fn trace() -> serde_json::Value {
    json!({
        "tool_calls": [
            {"name": "search", "args": {"q": "rust", "tags": ["a", "b"]}},
            {"name": "open", "args": {"url": "https://x", "a.b": 1}},
            {"name": "summarize", "args": {}}
        ],
        "tool_results": [{"is_error": false}, {"is_error": true}],
        "stability": {"weakest_score": 0.5}
    })
}

#[test]
fn fields_and_indexes() {
    let t = trace();
    assert_eq!(select(&t, "tool_calls[0].args.q"), vec![&json!("rust")]);
    assert_eq!(select(&t, "tool_calls[-1].name"), vec![&json!("summarize")]);
    assert_eq!(select(&t, "tool_calls[-3].name"), vec![&json!("search")]);
    assert_eq!(select(&t, "tool_calls[0].args.tags[-1]"), vec![&json!("b")]);
    assert_eq!(select(&t, "stability.weakest_score"), vec![&json!(0.5)]);
    assert_eq!(select(&t, "$.tool_results[1].is_error"), vec![&json!(true)]);
    assert_eq!(select(&t, r#"tool_calls[1].args["a.b"]"#), vec![&json!(1)]);
}

#[test]
fn wildcards_take_every_element() {
    let t = trace();
    assert_eq!(
        select(&t, "tool_calls[*].name"),
        vec![&json!("search"), &json!("open"), &json!("summarize")]
    );
    assert_eq!(select(&t, "tool_calls[*].args.q"), vec![&json!("rust")]);
    assert_eq!(select(&t, "tool_calls[*].args.tags[*]").len(), 2);
}

#[test]
fn names_nothing_without_panicking() {
    let t = trace();
    for target in [
        "tool_calls[3].name",
        "tool_calls[-4].name",
        "tool_calls.name",
        "tool_calls[0].args.q.deeper",
        "nope",
        "tool_calls[0][0]",
        "tool_calls[9223372036854775807]",
        "tool_calls[-9223372036854775808]",
    ] {
        assert!(select(&t, target).is_empty(), "{target}");
    }
}

#[test]
fn malformed_targets_are_errors_with_a_position() {
    for (bad, at) in [
        ("tool_calls[0", 11),
        ("tool_calls[x]", 12),
        ("tool_calls..name", 12),
        ("tool_calls.", 11),
        ("a]", 2),
        ("tool_calls[0]name", 14),
    ] {
        let err = Target::parse(bad).unwrap_err();
        assert_eq!(err.offset + 1, at, "{bad}: {err}");
        assert!(err.to_string().contains("targets look like"), "{err}");
        assert!(select(&trace(), bad).is_empty());
    }
}

#[test]
fn resolve_gives_matchers_one_value_or_an_array() {
    let t = trace();
    let one = Target::parse("tool_calls[0].name").unwrap();
    assert_eq!(one.resolve(&t), Some(json!("search")));
    let many = Target::parse("tool_calls[*].name").unwrap();
    assert!(many.is_multi());
    assert_eq!(
        many.resolve(&t),
        Some(json!(["search", "open", "summarize"]))
    );
    let empty = json!({"tool_calls": []});
    assert_eq!(
        many.resolve(&empty),
        Some(json!([])),
        "an empty collection is an empty array"
    );
    assert_eq!(
        many.resolve(&json!({})),
        None,
        "no collection at all names nothing"
    );
    assert_eq!(Target::parse("tool_calls[7]").unwrap().resolve(&t), None);
}

#[test]
fn pointers_of_selected_values() {
    let t = trace();
    let target = Target::parse(r#"tool_calls[*].args["a.b"]"#).unwrap();
    let sel = target.select_pointed(&t);
    assert_eq!(sel.len(), 1);
    assert_eq!(sel[0].pointer, "/tool_calls/1/args/a.b");
    assert_eq!(
        Target::parse("tool_calls[-1]").unwrap().select_pointed(&t)[0].pointer,
        "/tool_calls/2"
    );
    assert_eq!(
        Target::parse("a[*].b[-2]").unwrap().steps(),
        &[
            Step::Field("a".into()),
            Step::Each,
            Step::Field("b".into()),
            Step::Index(-2)
        ]
    );
}

#[test]
fn unicode_fields() {
    let v = json!({"résultat": {"東京": [1, 2]}});
    assert_eq!(select(&v, "résultat.東京[-1]"), vec![&json!(2)]);
}
