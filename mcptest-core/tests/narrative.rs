//! Narrative-vs-trace divergence: the fixture corpus, the report's shape, and properties.

use mcptest_core::eval::{
    Divergence, DivergenceCategory, MUTATING_VERBS, NarrativeConfig, NarrativeReport,
    check_narrative, narrative_tokens, state_changing_verb, tool_is_mutating, tool_name_tokens,
};
use mcptest_core::trace::{ToolCall, tool_calls_from_envelope};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------------
// The corpus: tests/fixtures/narrative/*.json, each `{"about": ..., "cases": [CASE, ...]}` with
// CASE = {name, narrative, tool_calls, config?, expect: {claimed_but_absent,
// present_but_unclaimed, arg_mismatch, gate_passed, divergence_score?, claimed_actions?,
// mutating_unclaimed?}, known_limit?}.

struct Case {
    file: String,
    name: String,
    narrative: String,
    calls: Vec<ToolCall>,
    config: NarrativeConfig,
    expect: Value,
    known_limit: Option<String>,
}

fn corpus() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/narrative");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture dir")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for c in doc["cases"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}: no cases"))
        {
            let name = c["name"].as_str().unwrap().to_string();
            let raw_calls = c["tool_calls"].as_array().unwrap();
            let calls = tool_calls_from_envelope(&json!({"tool_calls": raw_calls}));
            assert_eq!(
                calls.len(),
                raw_calls.len(),
                "{file}/{name}: a call did not decode"
            );
            let config = match c.get("config") {
                Some(v) => serde_json::from_value(v.clone())
                    .unwrap_or_else(|e| panic!("{file}/{name}: config: {e}")),
                None => NarrativeConfig::default(),
            };
            out.push(Case {
                file: file.clone(),
                name,
                narrative: c["narrative"].as_str().unwrap().to_string(),
                calls,
                config,
                expect: c["expect"].clone(),
                known_limit: c
                    .get("known_limit")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
        }
    }
    out
}

fn check_case(case: &Case, report: &NarrativeReport) -> Vec<String> {
    let mut errs = Vec::new();
    let e = &case.expect;
    let mut want = |key: &str, got: Value| {
        if let Some(w) = e.get(key) {
            let same = match (w.as_f64(), got.as_f64()) {
                (Some(a), Some(b)) if w.is_f64() || got.is_f64() => (a - b).abs() < 1e-9,
                _ => *w == got,
            };
            if !same {
                errs.push(format!("{key}: expected {w}, got {got}"));
            }
        }
    };
    want("claimed_but_absent", json!(report.claimed_but_absent));
    want("present_but_unclaimed", json!(report.present_but_unclaimed));
    want("arg_mismatch", json!(report.arg_mismatch));
    want("gate_passed", json!(report.gate_passed));
    want("divergence_score", json!(report.divergence_score));
    want("claimed_actions", json!(report.claimed_actions));
    let mutating_unclaimed = report
        .items
        .iter()
        .filter(|d| d.category == DivergenceCategory::PresentButUnclaimed && d.mutating)
        .count();
    want("mutating_unclaimed", json!(mutating_unclaimed));
    for key in [
        "claimed_but_absent",
        "present_but_unclaimed",
        "arg_mismatch",
        "gate_passed",
    ] {
        if e.get(key).is_none() {
            errs.push(format!("the fixture does not pin `{key}`"));
        }
    }
    errs
}

#[test]
fn corpus_counts_and_verdicts() {
    let cases = corpus();
    assert!(cases.len() >= 40, "the corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let report = check_narrative(&case.narrative, &case.calls, &case.config);
        for err in check_case(case, &report) {
            failures.push(format!(
                "{}/{}: {err}\n    narrative: {:?}\n    {report}",
                case.file, case.name, case.narrative
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_covers_what_it_must() {
    let cases = corpus();
    let names: Vec<String> = cases
        .iter()
        .map(|c| format!("{}/{}", c.file, c.name))
        .collect();
    for required in [
        "inflections.json/created",
        "inflections.json/sent",
        "inflections.json/wrote_and_written",
        "plurals.json/issues_entries_boxes",
        "names.json/camel_case",
        "names.json/kebab_case",
        "silent.json/silent_delete",
        "args.json/quoted_title_disagrees",
        "args.json/agrees_with_different_case",
        "overrides.json/readonly_wins_over_mutating",
        "ceiling.json/ceiling_fails_a_high_score",
        "ceiling.json/no_ceiling_high_score_passes",
        "edges.json/empty_narrative",
        "edges.json/empty_trace",
        "edges.json/unicode_text",
        "known_limits.json/paraphrase_filed_a_ticket",
        "known_limits.json/paraphrase_got_rid_of",
    ] {
        assert!(
            names.iter().any(|n| n == required),
            "missing corpus case {required}"
        );
    }
    // Every case in known_limits.json says what a reader would expect instead.
    let limits: Vec<&Case> = cases
        .iter()
        .filter(|c| c.file == "known_limits.json")
        .collect();
    assert!(limits.len() >= 6);
    // Limits the clause rules resolved stay in the corpus with their new verdicts.
    for resolved in [
        "resolved_limits.json/negation",
        "resolved_limits.json/intent",
        "resolved_limits.json/participle_as_adjective",
        "resolved_limits.json/qualifier_between_verb_and_noun",
    ] {
        assert!(
            names.iter().any(|n| n == resolved),
            "missing corpus case {resolved}"
        );
    }
    assert!(
        limits
            .iter()
            .all(|c| c.known_limit.as_deref().is_some_and(|t| t.len() > 20))
    );
    // And the module documentation lists them, not only the fixtures.
    let source = include_str!("../src/eval/narrative.rs");
    let doc_limits = source
        .split("# Known limits")
        .nth(1)
        .expect("a Known limits section");
    for phrase in [
        "I filed a ticket",
        "got rid of the branch",
        "Bluetooth Speaker",
        "the body explains",
        "Fresno",
        "tells of the `develop` branch",
    ] {
        assert!(
            doc_limits.contains(phrase),
            "Known limits does not mention {phrase:?}"
        );
    }
}

#[test]
fn corpus_is_deterministic_and_llm_assisted_is_advisory() {
    for case in corpus() {
        let a = check_narrative(&case.narrative, &case.calls, &case.config);
        let b = check_narrative(&case.narrative, &case.calls, &case.config);
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        let flipped = case.config.clone().llm_assisted(!case.config.llm_assisted);
        let mut c = check_narrative(&case.narrative, &case.calls, &flipped);
        assert_eq!(c.llm_assisted, !a.llm_assisted, "the flag is recorded");
        assert_eq!(
            c.gate_passed, a.gate_passed,
            "{}: llm_assisted changed the gate",
            case.name
        );
        c.llm_assisted = a.llm_assisted;
        assert_eq!(c, a, "{}: llm_assisted changed the report", case.name);
    }
}

// ---------------------------------------------------------------------------------------------
// The report's shape.

#[test]
fn items_carry_what_a_person_needs() {
    let calls = vec![
        ToolCall::new("get_user"),
        ToolCall::new("create_issue")
            .with_args(json!({"title": "Fix logout bug", "repo": "acme/web"})),
        ToolCall::new("delete_branch").with_args(json!({"branch": "tmp"})),
    ];
    let text = "I got the user. I created the issues with title: \"Fix login bug\" in repo acme/web. \
                Then I sent the summary.";
    let r = check_narrative(text, &calls, &NarrativeConfig::default());
    assert_eq!(
        (
            r.claimed_but_absent,
            r.present_but_unclaimed,
            r.arg_mismatch
        ),
        (1, 1, 1)
    );
    assert_eq!(r.claimed_actions, 2);
    assert_eq!(r.recorded_calls, 3);
    assert!(!r.gate_passed);
    assert_eq!(r.reasons.len(), 1);
    assert!(r.reasons[0].contains("send_summary"), "{:?}", r.reasons);

    let cats: Vec<DivergenceCategory> = r.items.iter().map(|d| d.category).collect();
    assert_eq!(
        cats,
        [
            DivergenceCategory::ClaimedButAbsent,
            DivergenceCategory::ArgMismatch,
            DivergenceCategory::PresentButUnclaimed
        ],
        "documented order"
    );

    let absent = &r.items[0];
    assert_eq!(absent.action.as_deref(), Some("send_summary"));
    assert_eq!(absent.claimed.as_deref(), Some("sent the summary"));
    assert_eq!(absent.sentence.as_deref(), Some("Then I sent the summary."));
    assert!(absent.mutating);

    let mismatch = &r.items[1];
    assert_eq!(mismatch.action.as_deref(), Some("create_issue"));
    assert_eq!(mismatch.claimed.as_deref(), Some("created the issues"));
    assert_eq!(mismatch.call_index, Some(1));
    assert_eq!(mismatch.tool.as_deref(), Some("create_issue"));
    assert_eq!(mismatch.arg_key.as_deref(), Some("title"));
    assert_eq!(mismatch.stated_value.as_deref(), Some("Fix login bug"));
    assert_eq!(mismatch.recorded_value, Some(json!("Fix logout bug")));
    assert!(
        mismatch
            .sentence
            .as_deref()
            .unwrap()
            .starts_with("I created the issues")
    );
    assert!(
        mismatch.message().contains("call #1"),
        "{}",
        mismatch.message()
    );

    let silent = &r.items[2];
    assert_eq!(silent.call_index, Some(2));
    assert_eq!(silent.tool.as_deref(), Some("delete_branch"));
    assert!(silent.mutating);
    assert!(
        silent
            .message()
            .contains("call #2 `delete_branch` (a write)")
    );

    // Serialized categories and skipped empty fields.
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["items"][0]["category"], json!("claimed-but-absent"));
    assert_eq!(v["items"][1]["category"], json!("arg-mismatch"));
    assert_eq!(v["items"][2]["category"], json!("present-but-unclaimed"));
    assert!(v["items"][2].get("arg_key").is_none());
    // A silent call's message is told from its fields, and written out in full.
    assert_eq!(
        v["items"][2]["message"],
        json!("call #2 `delete_branch` (a write) is never mentioned in the narrative")
    );
    let debug = format!("{:?}", r.items[2]);
    assert!(
        debug.starts_with("Divergence {") && debug.contains("is never mentioned"),
        "{debug}"
    );
    let back: NarrativeReport = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.items[2].message(), r.items[2].message());
    // Items differ when their messages do.
    let mut other = v;
    other["items"][2]["message"] = json!("another line");
    let other: NarrativeReport = serde_json::from_value(other).unwrap();
    assert_ne!(other, r);
    assert_eq!(other.items[2].message(), "another line");

    let shown = r.to_string();
    assert!(
        shown.starts_with("narrative: FAIL (divergence 0.600;"),
        "{shown}"
    );
    assert_eq!(shown.lines().count(), 4);
}

#[test]
fn categories_round_trip() {
    for (cat, s) in [
        (DivergenceCategory::ClaimedButAbsent, "claimed-but-absent"),
        (
            DivergenceCategory::PresentButUnclaimed,
            "present-but-unclaimed",
        ),
        (DivergenceCategory::ArgMismatch, "arg-mismatch"),
    ] {
        assert_eq!(serde_json::to_value(cat).unwrap(), json!(s));
        assert_eq!(
            serde_json::from_value::<DivergenceCategory>(json!(s)).unwrap(),
            cat
        );
        assert_eq!(cat.to_string(), s);
    }
}

#[test]
fn config_yaml_keys() {
    let cfg: NarrativeConfig = serde_json::from_value(json!({
        "mutating_tools": ["run_job"],
        "readonly_tools": ["post_search"],
        "max_divergence_score": 0.25,
        "llm_assisted": true
    }))
    .unwrap();
    assert_eq!(
        cfg,
        NarrativeConfig::default()
            .mutating_tools(["run_job"])
            .readonly_tools(["post_search"])
            .max_divergence_score(0.25)
            .llm_assisted(true)
    );
    let empty: NarrativeConfig = serde_json::from_value(json!({})).unwrap();
    assert_eq!(empty, NarrativeConfig::default());
    assert!(empty.mutating_tools.is_empty() && empty.readonly_tools.is_empty());
    assert_eq!(empty.max_divergence_score, None);
    assert!(!empty.llm_assisted);

    let typo = serde_json::from_value::<NarrativeConfig>(json!({"mutating_tool": ["x"]}));
    assert!(typo.unwrap_err().to_string().contains("mutating_tool"));

    assert!(cfg.validate().is_ok());
    assert!(
        NarrativeConfig::default()
            .max_divergence_score(1.5)
            .validate()
            .is_err()
    );
    assert!(
        NarrativeConfig::default()
            .max_divergence_score(-0.1)
            .validate()
            .is_err()
    );
    assert!(
        NarrativeConfig::default()
            .max_divergence_score(f64::NAN)
            .validate()
            .is_err()
    );
}

#[test]
fn nan_ceiling_fails_closed() {
    let calls = vec![ToolCall::new("create_issue")];
    let cfg = NarrativeConfig::default().max_divergence_score(f64::NAN);
    let r = check_narrative("I created the issue.", &calls, &cfg);
    assert_eq!(r.divergence_score, 0.0);
    assert!(!r.gate_passed);
}

#[test]
fn tokens_and_mutability_helpers() {
    assert_eq!(tool_name_tokens("createIssue"), ["create", "issue"]);
    assert_eq!(tool_name_tokens("create-issue"), ["create", "issue"]);
    assert_eq!(
        tool_name_tokens("github.create_issue"),
        ["github", "create", "issue"]
    );
    assert_eq!(tool_name_tokens("a/b"), ["a", "b"]);
    assert_eq!(
        narrative_tokens("She wrote, sent and CANCELLED the entries."),
        ["she", "write", "send", "and", "cancel", "the", "entry"]
    );
    // A possessive's `s` is no token.
    assert_eq!(
        narrative_tokens("Maria's order, tomorrow\u{2019}s meeting, the USER'S key"),
        [
            "maria", "order", "tomorrow", "meeting", "the", "user", "key"
        ]
    );
    assert_eq!(MUTATING_VERBS.len(), 22);

    let cfg = NarrativeConfig::default()
        .mutating_tools(["run_job", "ops__kick"])
        .readonly_tools(["post_search", "run_job"]);
    assert!(tool_is_mutating(&ToolCall::new("delete_user"), &cfg));
    assert!(tool_is_mutating(&ToolCall::new("sendEmail"), &cfg));
    assert!(
        !tool_is_mutating(&ToolCall::new("get_updates"), &cfg),
        "whole base verb only"
    );
    assert!(!tool_is_mutating(&ToolCall::new("get_settings"), &cfg));
    assert!(
        !tool_is_mutating(&ToolCall::new("post_search"), &cfg),
        "readonly"
    );
    assert!(
        !tool_is_mutating(&ToolCall::new("run_job"), &cfg),
        "readonly wins"
    );
    assert!(tool_is_mutating(
        &ToolCall::new("kick").with_server("ops"),
        &cfg
    ));
    assert!(!tool_is_mutating(
        &ToolCall::new("kick").with_server("dev"),
        &cfg
    ));
}

#[test]
fn the_narrative_can_only_fail_a_run() {
    // Whatever the text says, a run with no calls and a claim-free text passes; adding prose
    // only ever adds divergence.
    let calls = vec![ToolCall::new("refund_order").with_args(json!({"order": "A-1"}))];
    let quiet = check_narrative("", &calls, &NarrativeConfig::default());
    let boast = check_narrative(
        "Done! I refunded order A-1, created a ticket, sent the email and updated the CRM.",
        &calls,
        &NarrativeConfig::default(),
    );
    assert!(quiet.gate_passed);
    assert!(!boast.gate_passed);
    assert_eq!(boast.claimed_but_absent, 3, "{boast}");
}

#[test]
fn large_inputs_finish() {
    let calls: Vec<ToolCall> = (0..1000)
        .map(|i| {
            ToolCall::new(format!(
                "{}_item{}",
                ["create", "get", "delete", "list"][i % 4],
                i % 97
            ))
            .with_args(json!({"id": i, "title": format!("Title {i}")}))
        })
        .collect();
    let sentence = "I created the item42 with title: Title 7 and id 3, then listed everything. ";
    let text = sentence.repeat(10_000 / 14);
    let r = check_narrative(&text, &calls, &NarrativeConfig::default());
    assert!(r.divergence_score <= 1.0);
    assert!(
        r.arg_mismatch <= 2,
        "identical sentences are reported once: {}",
        r.arg_mismatch
    );
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "I",
            "the",
            "issue",
            "issues",
            "created",
            "sent",
            "wrote",
            "deleted",
            "branch",
            "to",
            "title",
            ":",
            "=",
            "\"Fix CI\"",
            "`create_issue`",
            "it",
            "and",
            ",",
            ".",
            "\n",
            "status",
            "42",
            "3.5",
            "résumé",
            "已完成",
            "🎉",
            "createIssue",
            "a",
            "the update",
            "didn't",
            "'quoted'",
            "set",
            "settings",
            "priority",
            "high",
            "-",
            "(",
            ")",
            // Words the readings of abbreviations, `where`, `or`, `as`, labels and states
            // turn on.
            "vs.",
            "etc.",
            "e.g.",
            "where",
            "or",
            "no",
            "as",
            "fine",
            "Installed",
            "functioning",
            "Tests Conducted:",
            "contains:",
            "performance",
            "attempt",
        ])
        .prop_map(str::to_string),
        "\\PC{0,12}",
        ".{0,6}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 0..40).prop_map(|w| w.join(" "))
}

/// Words with no form of a mutating verb (random strings may still hold one; those are skipped).
fn verbless_text() -> impl Strategy<Value = String> {
    let w = prop_oneof![
        prop::sample::select(vec![
            "I",
            "the",
            "issue",
            "issues",
            "listed",
            "searched",
            "got",
            "read",
            "branch",
            "to",
            "title",
            ":",
            "=",
            "\"Fix CI\"",
            "`create_issue`",
            "it",
            "and",
            ",",
            ".",
            "\n",
            "status",
            "42",
            "résumé",
            "已完成",
            "🎉",
            "createIssue",
            "a",
            "the update",
            "didn't",
            "'quoted'",
            "settings",
            "priority",
            "high",
            "-",
            "refunded",
            "emailed",
            "filed",
        ])
        .prop_map(str::to_string),
        "\\PC{0,8}",
    ];
    prop::collection::vec(w, 0..40).prop_map(|w| w.join(" "))
}

fn calls() -> impl Strategy<Value = Vec<ToolCall>> {
    let name = prop_oneof![
        prop::sample::select(vec![
            "create_issue",
            "createIssue",
            "delete-branch",
            "github.create_issue",
            "get_user",
            "send_email",
            "post_search",
            "run_job",
            "",
            "__",
            "list_issues",
        ])
        .prop_map(str::to_string),
        "\\PC{0,16}",
    ];
    let args = prop_oneof![
        Just(None),
        Just(Some(json!({"title": "Fix CI", "priority": "high"}))),
        Just(Some(
            json!({"to": "bob@example.com", "n": 3, "ok": true, "tags": ["a", 1, null]})
        )),
        "\\PC{0,8}".prop_map(|k| Some(json!({ k: "v" }))),
        Just(Some(json!([1, 2]))),
    ];
    prop::collection::vec((name, args), 0..12).prop_map(|v| {
        v.into_iter()
            .map(|(n, a)| ToolCall {
                args: a,
                ..ToolCall::new(n)
            })
            .collect()
    })
}

fn config() -> impl Strategy<Value = NarrativeConfig> {
    (
        prop::collection::vec("[a-z_]{0,12}", 0..3),
        prop::collection::vec("[a-z_]{0,12}", 0..3),
        prop::option::of(0.0f64..=1.0),
        any::<bool>(),
    )
        .prop_map(|(m, r, c, l)| NarrativeConfig {
            mutating_tools: m,
            readonly_tools: r,
            max_divergence_score: c,
            llm_assisted: l,
        })
}

/// `text` with every word that is a state-changing verb form replaced by `x`.
fn without_state_verbs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if state_changing_verb(word).is_some() {
            out.push('x');
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn count(items: &[Divergence], cat: DivergenceCategory) -> usize {
    items.iter().filter(|d| d.category == cat).count()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        // About one generated text in five holds a state-changing verb that the verbless
        // property rejects: room for that at any case count (`PROPTEST_CASES`).
        max_global_rejects: 1 << 20,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn score_in_range_and_counts_consistent(t in text(), c in calls(), cfg in config()) {
        let r = check_narrative(&t, &c, &cfg);
        prop_assert!((0.0..=1.0).contains(&r.divergence_score), "{}", r.divergence_score);
        prop_assert_eq!(r.claimed_but_absent, count(&r.items, DivergenceCategory::ClaimedButAbsent));
        prop_assert_eq!(r.present_but_unclaimed, count(&r.items, DivergenceCategory::PresentButUnclaimed));
        prop_assert_eq!(r.arg_mismatch, count(&r.items, DivergenceCategory::ArgMismatch));
        prop_assert!(r.claimed_but_absent <= r.claimed_actions);
        prop_assert!(r.present_but_unclaimed <= c.len());
        prop_assert_eq!(r.recorded_calls, c.len());
        prop_assert_eq!(r.gate_passed, r.reasons.is_empty());
    }

    #[test]
    fn never_panics_on_arbitrary_strings(t in "\\PC{0,200}", names in prop::collection::vec(".{0,20}", 0..6)) {
        let calls: Vec<ToolCall> = names.into_iter().map(ToolCall::new).collect();
        let r = check_narrative(&t, &calls, &NarrativeConfig::default());
        prop_assert!(r.divergence_score.is_finite());
        let _ = narrative_tokens(&t);
    }

    #[test]
    fn llm_assisted_never_changes_the_gate(t in text(), c in calls(), cfg in config()) {
        let on = check_narrative(&t, &c, &cfg.clone().llm_assisted(true));
        let off = check_narrative(&t, &c, &cfg.llm_assisted(false));
        prop_assert_eq!(on.gate_passed, off.gate_passed);
        prop_assert_eq!(&on.items, &off.items);
        prop_assert_eq!(on.divergence_score, off.divergence_score);
    }

    #[test]
    fn no_mutating_verb_no_claimed_but_absent(t in verbless_text(), c in calls(), cfg in config()) {
        let t = without_state_verbs(&t);
        let toks = narrative_tokens(&t);
        prop_assume!(!toks.iter().any(|w| MUTATING_VERBS.contains(&w.as_str())));
        let r = check_narrative(&t, &c, &cfg);
        prop_assert_eq!(r.claimed_but_absent, 0);
        prop_assert_eq!(r.claimed_actions, 0);
    }

    #[test]
    fn mentioning_every_call_leaves_nothing_unclaimed(c in calls()) {
        // A text that spells out every call's name in running prose mentions all of them. The
        // names follow a label, so that a name such as `0.` is not the marker of a numbered list
        // (which mentions nothing: `numbered_list_markers_mention_no_tool`).
        let text: String = c.iter().fold("Tools: ".to_string(), |mut text, call| {
            text.push_str(&call.name);
            text.push(' ');
            text
        });
        let r = check_narrative(&text, &c, &NarrativeConfig::default());
        let unnamed = c.iter().filter(|call| tool_name_tokens(&call.name).is_empty()).count();
        prop_assert_eq!(r.present_but_unclaimed, unnamed);
    }
}

// ---------------------------------------------------------------------------------------------
// The server's own word: MCP tool annotations recorded in the cassette.

fn run_with_tools_list(tools: Value, calls: Value, text: &str) -> mcptest_core::trace::Run {
    let doc = json!({
        "mcptest_cassette": 1,
        "runs": [{
            "trace": {
                "tool_calls": calls,
                "conversation": {"turns": [{"role": "assistant", "content": text}]},
                "final_response": text
            },
            "mcp_exchanges": [
                {"server": "git", "method": "tools/list", "tools": tools}
            ]
        }]
    });
    mcptest_core::trace::Cassette::from_value(&doc)
        .expect("cassette")
        .runs
        .remove(0)
}

#[test]
fn annotations_decide_before_the_name() {
    use mcptest_core::eval::{ToolHint, ToolHints, check_narrative_with};
    let run = run_with_tools_list(
        json!([
            {"name": "delete_preview", "annotations": {"readOnlyHint": true}},
            {"name": "sync_mirror", "annotations": {"readOnlyHint": false, "destructiveHint": true}},
            {"name": "get_branch"},
            "list_tags"
        ]),
        json!([
            {"name": "delete_preview", "server": "git", "args": {"branch": "old"}},
            {"name": "sync_mirror", "server": "git"}
        ]),
        "I deleted the branch old.",
    );
    let hints = ToolHints::from_run(&run);
    let preview = ToolCall::new("delete_preview").with_server("git");
    assert_eq!(
        hints.get(&preview),
        Some(ToolHint {
            read_only: Some(true),
            destructive: None
        })
    );
    assert_eq!(
        hints.get(&ToolCall::new("get_branch")),
        None,
        "no annotations: no hint"
    );
    let text = run.trace.final_text();
    let cfg = NarrativeConfig::default();
    // By name alone, delete_preview backs the claim.
    let by_name = check_narrative(&text, &run.trace.tool_calls, &cfg);
    assert!(by_name.gate_passed, "{by_name}");
    // The server says delete_preview only reads: the claim has nothing behind it, and the
    // silent sync_mirror is a write although its name has no writing verb.
    let hinted = check_narrative_with(&text, &run.trace.tool_calls, &cfg, &hints);
    assert!(!hinted.gate_passed, "{hinted}");
    assert_eq!(hinted.claimed_but_absent, 1);
    let silent: Vec<&Divergence> = hinted
        .items
        .iter()
        .filter(|d| d.category == DivergenceCategory::PresentButUnclaimed)
        .collect();
    assert!(
        silent
            .iter()
            .any(|d| d.tool.as_deref() == Some("sync_mirror") && d.mutating),
        "{hinted}"
    );
    // The suite's word still wins over the server's.
    let forced = NarrativeConfig::default().mutating_tools(["delete_preview"]);
    let overridden = check_narrative_with(&text, &run.trace.tool_calls, &forced, &hints);
    assert!(overridden.gate_passed, "{overridden}");
}

#[test]
fn a_tool_hint_is_its_servers_then_the_first_recorded() {
    use mcptest_core::eval::{ToolHint, ToolHints};
    let reads = ToolHint {
        read_only: Some(true),
        destructive: None,
    };
    let writes = ToolHint {
        read_only: Some(false),
        destructive: Some(true),
    };
    let mut hints = ToolHints::new();
    hints.insert(Some("a"), "sync", reads);
    hints.insert(Some("b"), "sync", writes);
    // The call's own server, named by the call or by its wire name.
    assert_eq!(
        hints.get(&ToolCall::new("sync").with_server("b")),
        Some(writes)
    );
    assert_eq!(hints.get(&ToolCall::new("b__sync")), Some(writes));
    assert_eq!(
        hints.get(&ToolCall::new("sync").with_server("a")),
        Some(reads)
    );
    // A server that recorded no list, or none: the first list that names the tool.
    assert_eq!(
        hints.get(&ToolCall::new("sync").with_server("c")),
        Some(reads)
    );
    assert_eq!(hints.get(&ToolCall::new("sync")), Some(reads));
    assert_eq!(hints.get(&ToolCall::new("other")), None);
    // A second word on one server replaces the first.
    hints.insert(Some("a"), "sync", writes);
    assert_eq!(hints.get(&ToolCall::new("sync")), Some(writes));
}

#[test]
fn the_gate_reads_the_cassettes_annotations() {
    use mcptest_core::gate::evaluate_run;
    use mcptest_core::spec::AgentSpec;
    let run = run_with_tools_list(
        json!([{"name": "delete_preview", "annotations": {"readOnlyHint": true}}]),
        json!([{"name": "delete_preview", "server": "git", "args": {"branch": "old"}}]),
        "I deleted the branch old.",
    );
    let spec = AgentSpec::new("a").narrative(Default::default());
    let report = evaluate_run(&spec, "run_1", &run);
    assert!(!report.passed(), "{}", report.render());
    assert!(report.render().contains("delete"), "{}", report.render());
}

/// A call the server answered with an error did not do what it asked for: a claim only it
/// would back is claimed-but-absent, and says which call tried. A retry that succeeded backs it.
#[test]
fn a_call_answered_with_an_error_backs_no_claim() {
    use mcptest_core::eval::{ToolHints, check_narrative_with};
    let text = "I created the file `docs/setup.md` on the branch.";
    let calls = vec![
        ToolCall::new("get_branch").with_args(json!({"branch": "main"})),
        ToolCall::new("create_file").with_args(json!({"path": "docs/setup.md"})),
    ];
    let cfg = NarrativeConfig::default();
    let mut failed = ToolHints::new();
    failed.mark_failed(1);
    assert!(failed.failed(1) && !failed.failed(0) && !failed.failed(7));
    assert_eq!(failed.failed_calls().collect::<Vec<_>>(), [1]);

    let ok = check_narrative_with(text, &calls, &cfg, &ToolHints::new());
    assert_eq!(ok.claimed_but_absent, 0, "{ok}");
    assert!(ok.gate_passed);

    let r = check_narrative_with(text, &calls, &cfg, &failed);
    assert_eq!(r.claimed_but_absent, 1, "{r}");
    assert!(!r.gate_passed);
    let absent = r
        .items
        .iter()
        .find(|d| d.category == DivergenceCategory::ClaimedButAbsent)
        .expect("an absent claim");
    assert!(
        absent
            .message()
            .ends_with("; call #1 `create_file` does it and was answered with an error"),
        "{}",
        absent.message()
    );
    assert!(
        r.reasons[0].ends_with("call #1 `create_file` does it and was answered with an error"),
        "{:?}",
        r.reasons
    );

    // Tried, failed, tried again: the retry backs the claim.
    let mut retried = calls.clone();
    retried.push(ToolCall::new("create_file").with_args(json!({"path": "docs/setup.md"})));
    let r = check_narrative_with(text, &retried, &cfg, &failed);
    assert_eq!(r.claimed_but_absent, 0, "{r}");

    // Telling of the failure claims nothing.
    let told = "I could not create the file `docs/setup.md`: the server refused.";
    let r = check_narrative_with(told, &calls, &cfg, &failed);
    assert_eq!(r.claimed_but_absent, 0, "{r}");
    assert!(r.gate_passed);
}

/// The gate reads which calls failed from the cassette's results.
#[test]
fn the_gate_reads_failed_results_from_the_cassette() {
    use mcptest_core::gate::evaluate_run;
    use mcptest_core::spec::AgentSpec;
    let doc = |is_error: bool| {
        json!({
            "mcptest_cassette": 1,
            "runs": [{"trace": {
                "tool_calls": [{"name": "create_file", "args": {"path": "docs/setup.md"}}],
                "tool_results": [{"is_error": is_error, "content": [{"type": "text", "text": "404"}]}],
                "final_response": "I created the file `docs/setup.md`."
            }}]
        })
    };
    let spec = AgentSpec::new("a").narrative(Default::default());
    for (is_error, passes) in [(false, true), (true, false)] {
        let run = mcptest_core::trace::Cassette::from_value(&doc(is_error))
            .expect("cassette")
            .runs
            .remove(0);
        let report = evaluate_run(&spec, "run_1", &run);
        assert_eq!(report.passed(), passes, "{}", report.render());
        if !passes {
            assert!(
                report.render().contains("was answered with an error"),
                "{}",
                report.render()
            );
        }
    }
}

/// A thread keeps the buffers of the narrative it checked last for the next one: a check
/// reads nothing of the one before it, whichever is longer.
#[test]
fn checks_in_sequence_on_one_thread_read_only_their_own_text() {
    let long: String = (0..400)
        .map(|i| format!("I created issue {i} and deleted branch b{i}. "))
        .collect();
    let long_calls: Vec<ToolCall> = (0..50).map(|_| ToolCall::new("create_issue")).collect();
    let short = "Done: sent the email.";
    let short_calls = vec![ToolCall::new("list_issues")];
    let cfg = NarrativeConfig::default();
    let first_short = check_narrative(short, &short_calls, &cfg);
    let first_long = check_narrative(&long, &long_calls, &cfg);
    let again_short = check_narrative(short, &short_calls, &cfg);
    let again_long = check_narrative(&long, &long_calls, &cfg);
    assert_eq!(first_short.items, again_short.items);
    assert_eq!(first_long.items, again_long.items);
    assert_eq!(again_short.claimed_but_absent, 1, "{again_short}");
    assert_eq!(again_short.claimed_actions, 1, "{again_short}");
    // Its 400 deletions are one claim, `delete_branch`, that no call backs; its creations
    // are backed.
    assert_eq!(again_long.claimed_but_absent, 1, "{again_long}");
    assert_eq!(again_long.claimed_actions, 2, "{again_long}");
    // What the short text claims is what a thread that checked nothing before reads.
    let fresh = std::thread::spawn(move || {
        check_narrative(short, &short_calls, &NarrativeConfig::default()).items
    })
    .join()
    .expect("the check runs");
    assert_eq!(fresh, again_short.items);
}

#[test]
fn one_long_unpunctuated_sentence_is_read_whole() {
    // 20,000 claims in one sentence: every clause rule reads a bounded stretch, so this is
    // linear; all claims are the same action, backed by one call.
    let text = "I created the issue and ".repeat(20_000);
    let r = check_narrative(
        &text,
        &[ToolCall::new("create_issue")],
        &NarrativeConfig::default(),
    );
    assert!(r.gate_passed, "{r}");
    assert_eq!(r.claimed_actions, 1);
    let lies = check_narrative(&text, &[], &NarrativeConfig::default());
    assert_eq!(lies.claimed_but_absent, 1);
}

/// The marker of a numbered list (`1.` at the start of a line) is layout, not a word: it
/// mentions no tool, even one whose name is that number. The same spelling in running prose
/// does.
#[test]
fn numbered_list_markers_mention_no_tool() {
    for name in ["0.", "1.", "12."] {
        let c = vec![ToolCall::new(name)];
        let at_line_start = check_narrative(&format!("{name} "), &c, &NarrativeConfig::default());
        assert_eq!(
            at_line_start.present_but_unclaimed, 1,
            "{name}: {at_line_start}"
        );
        let listed = check_narrative(
            &format!("Done:\n{name} Checked the logs."),
            &c,
            &NarrativeConfig::default(),
        );
        assert_eq!(listed.present_but_unclaimed, 1, "{name}: {listed}");
        let in_prose = check_narrative(
            &format!("I ran step {name} "),
            &c,
            &NarrativeConfig::default(),
        );
        assert_eq!(in_prose.present_but_unclaimed, 0, "{name}: {in_prose}");
    }
}

/// A possessive's `s` is dropped from names and text alike, so a name is still mentioned by
/// its own spelling whatever its apostrophes.
#[test]
fn names_with_apostrophes_are_mentioned_by_their_own_text() {
    for name in [
        "x's", "'s", "a’s_b", "S's", "é's", "ab'S", "a's's", "'s's", "x'ś", "a'", "'",
    ] {
        let c = vec![ToolCall::new(name)];
        let text = format!("{name} ");
        let r = check_narrative(&text, &c, &NarrativeConfig::default());
        let unnamed = usize::from(tool_name_tokens(name).is_empty());
        assert_eq!(r.present_but_unclaimed, unnamed, "{name}: {r}");
    }
}

#[test]
fn a_claim_told_again_is_checked_where_it_is_told_again() {
    // Two claims told twice each, in turn (create, update, create, update): each statement is
    // read at the telling that makes it, and its item quotes that telling.
    let calls = vec![
        ToolCall::new("create_issue").with_args(json!({"title": "Fix login bug"})),
        ToolCall::new("update_issue").with_args(json!({"priority": "low"})),
    ];
    let text = "I created the issue. Then I updated the issue. \
                Later I created the issue with title: \"Fix logout bug\". \
                Finally I updated the issue with priority: high.";
    let r = check_narrative(text, &calls, &NarrativeConfig::default());
    assert_eq!(
        r.claimed_actions,
        2,
        "{:#?}",
        r.items.iter().map(|d| d.message()).collect::<Vec<_>>()
    );
    let mismatches: Vec<(Option<&str>, Option<&str>, Option<&str>)> = r
        .items
        .iter()
        .filter(|d| d.category == DivergenceCategory::ArgMismatch)
        .map(|d| {
            (
                d.action.as_deref(),
                d.arg_key.as_deref(),
                d.sentence.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        mismatches,
        [
            (
                Some("create_issue"),
                Some("title"),
                Some("Later I created the issue with title: \"Fix logout bug\".")
            ),
            (
                Some("update_issue"),
                Some("priority"),
                Some("Finally I updated the issue with priority: high.")
            ),
        ]
    );
}
