//! The trace model and cassette format: shapes, round-trips, wire names, and load errors.

use mcptest_core::trace::{
    Cassette, CassetteErrorKind, CassetteShape, ConversationTrace, ToolCall, split_wire_name,
    tool_calls_from_envelope, wire_name,
};
use serde_json::{Value, json};

fn envelope() -> Value {
    json!({
        "tool_calls": [
            {"name": "github__search_issues", "args": {"q": "flaky test", "state": "open"},
             "started_ms": 0, "ended_ms": 180},
            {"name": "create_comment", "server": "github", "args": {"issue": 412, "body": "Triaged."},
             "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01"},
             "started_ms": 200, "ended_ms": 260},
            {"name": "add_label", "server": "github", "args": {"issue": 412, "label": "flaky"},
             "caller": {"type": "direct"}}
        ],
        "tool_results": [
            {"is_error": false, "content": [{"type": "text", "text": "1 issue"}], "status": 200},
            {"isError": false, "content": [], "structuredContent": {"id": 9}},
            {"is_error": true, "content": [{"type": "text", "text": "403"}], "timed_out": false, "status": 403}
        ],
        "conversation": {
            "tokens": {"total": 5120, "input": 4000, "output": 620, "cache_read": 500},
            "turns": [
                {"role": "user", "content": "Triage the CI flake issue."},
                {"role": "assistant", "content": [{"type": "text", "text": "Labelled and commented."},
                                                   {"type": "tool_use", "id": "t1"}]}
            ]
        },
        "recorded_by": "mcptest 0.1.0"
    })
}

#[test]
fn bare_envelope_reads_as_one_run() {
    let text = serde_json::to_string_pretty(&envelope()).unwrap();
    let c = Cassette::from_json_str("triage.json", &text).unwrap();
    assert_eq!(c.shape, CassetteShape::Envelope);
    assert_eq!(c.runs.len(), 1);
    let t = &c.runs[0].trace;
    // The wire prefix goes to `server`.
    assert_eq!(t.tool_calls[0].name, "search_issues");
    assert_eq!(t.tool_calls[0].server.as_deref(), Some("github"));
    assert_eq!(
        (t.tool_calls[0].started_ms, t.tool_calls[0].ended_ms),
        (Some(0), Some(180))
    );
    // caller kept as opaque JSON; a direct caller reads as none.
    assert_eq!(
        t.tool_calls[1].caller.as_ref().unwrap()["tool_id"],
        "srvtoolu_01"
    );
    assert!(t.tool_calls[1].is_programmatic());
    assert!(t.tool_calls[2].caller.is_none());
    // Results line up with calls; camelCase MCP keys are read too.
    assert_eq!(t.tool_results[1].structured_content, Some(json!({"id": 9})));
    assert!(t.tool_results[2].is_error);
    assert_eq!(t.tool_results[2].status, Some(403));
    assert_eq!(t.conversation.tokens.total, Some(5120));
    assert_eq!(
        t.final_text(),
        "Labelled and commented.",
        "last assistant turn's text blocks"
    );
}

#[test]
fn single_run_and_full_cassette_shapes() {
    let run = json!({"trace": envelope(), "exchanges": [{"request": {}, "response": {}}],
                     "meta": {"model": "claude-sonnet-4-5"}});
    let c = Cassette::from_value(&run).unwrap();
    assert_eq!(c.shape, CassetteShape::SingleRun);
    assert_eq!(c.runs[0].meta["model"], "claude-sonnet-4-5");
    assert_eq!(c.runs[0].exchanges.len(), 1);

    let full = json!({"mcptest_cassette": 1, "runs": [run.clone(), run], "suite": "triage"});
    let c = Cassette::from_value(&full).unwrap();
    assert_eq!(c.shape, CassetteShape::Cassette);
    assert_eq!(c.runs.len(), 2);
    assert_eq!(c.extra["suite"], "triage");
}

#[test]
fn round_trip_keeps_unknown_fields() {
    let c = Cassette::from_value(&envelope()).unwrap();
    let trace = &c.runs[0].trace;
    let out = trace.to_envelope();
    assert_eq!(out["recorded_by"], "mcptest 0.1.0");
    assert_eq!(out["conversation"]["tokens"]["cache_read"], 500);
    assert_eq!(out["tool_calls"][0]["name"], "search_issues");
    assert_eq!(out["tool_calls"][0]["server"], "github");
    assert_eq!(ConversationTrace::from_envelope(&out).unwrap(), *trace);
    // Cassette -> JSON -> Cassette is the identity on the model.
    let again = Cassette::from_value(&c.to_value()).unwrap();
    assert_eq!(again.runs, c.runs);
    let text = serde_json::to_string(&c.to_value()).unwrap();
    assert_eq!(Cassette::from_json_str("x", &text).unwrap().runs, c.runs);
}

#[test]
fn wire_names_split_at_the_first_separator() {
    assert_eq!(split_wire_name("fs__read_file"), (Some("fs"), "read_file"));
    assert_eq!(
        split_wire_name("fs__read__file"),
        (Some("fs"), "read__file")
    );
    assert_eq!(split_wire_name("__x"), (None, "__x"));
    assert_eq!(split_wire_name("x__"), (None, "x__"));
    assert_eq!(wire_name("fs", "read_file"), "fs__read_file");
    // A recorded server that disagrees with the prefix keeps the name as written.
    let c = ConversationTrace::from_envelope(&json!({"tool_calls": [
        {"name": "a__b", "server": "other"}
    ]}))
    .unwrap();
    assert_eq!(c.tool_calls[0].name, "a__b");
}

#[test]
fn tool_calls_from_cassette_run_root_or_neither() {
    let run = json!({"trace": {"tool_calls": [{"name": "a"}]}, "tool_calls": [{"name": "root"}]});
    assert_eq!(
        tool_calls_from_envelope(&run)[0].name,
        "a",
        "trace.tool_calls first"
    );
    let root = json!({"tool_calls": [{"name": "root"}, {"name": "docs__open"}]});
    let calls = tool_calls_from_envelope(&root);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1], ToolCall::new("open").with_server("docs"));
    assert!(tool_calls_from_envelope(&json!({"conversation": {}})).is_empty());
    assert!(tool_calls_from_envelope(&json!([1, 2])).is_empty());
    assert!(tool_calls_from_envelope(&json!({"tool_calls": "nope"})).is_empty());
}

#[test]
fn parallel_calls_keep_their_order_and_results() {
    let env = json!({
        "tool_calls": [{"name": "get_weather", "args": {"city": "Sacramento"}},
                       {"name": "get_weather", "args": {"city": "Reno"}},
                       {"name": "delete_file", "args": {"path": "/etc/hosts"}}],
        "tool_results": [{"is_error": false}, {"is_error": false}, {"is_error": true}]
    });
    let t = ConversationTrace::from_envelope(&env).unwrap();
    assert_eq!(t.tool_calls[2].name, "delete_file");
    assert!(t.tool_results[2].is_error);
}

// ---- errors -------------------------------------------------------------------------------

#[test]
fn empty_file_is_an_error() {
    for text in ["", "  \n\t "] {
        let err = Cassette::from_json_str("cassettes/empty.json", text).unwrap_err();
        assert_eq!(err.kind, CassetteErrorKind::Empty);
        assert!(
            err.to_string()
                .starts_with("cassettes/empty.json:1:1: the cassette file is empty")
        );
    }
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let text = "{\n  \"tool_calls\": [\n    {\"name\": \"a\",}\n  ]\n}";
    let err = Cassette::from_json_str("weather.json", text).unwrap_err();
    assert!(matches!(err.kind, CassetteErrorKind::Syntax(_)));
    assert_eq!((err.line, err.column), (3, 18));
    let msg = err.to_string();
    assert!(
        msg.starts_with("weather.json:3:18: not valid JSON"),
        "{msg}"
    );
    assert!(
        !msg.contains(" at line "),
        "position is not repeated: {msg}"
    );
}

#[test]
fn truncated_after_a_newline_has_a_one_based_column() {
    let err = Cassette::from_json_str("m.json", "{\"tool_calls\": [\n").unwrap_err();
    assert_eq!((err.line, err.column), (2, 1), "{err}");
}

#[test]
fn truncated_file_is_an_error() {
    let full = serde_json::to_string_pretty(&envelope()).unwrap();
    for cut in [1, full.len() / 3, full.len() - 1] {
        let err = Cassette::from_json_str("t.json", &full[..cut]).unwrap_err();
        assert!(
            matches!(err.kind, CassetteErrorKind::Syntax(_)),
            "cut at {cut}"
        );
    }
}

#[test]
fn wrong_type_names_the_json_path_and_position() {
    let text = r#"{
  "mcptest_cassette": 1,
  "runs": [
    {"trace": {"tool_calls": [{"name": "ok"}]}},
    {"trace": {"tool_calls": [
      {"name": "search", "started_ms": "soon"}
    ]}}
  ]
}"#;
    let err = Cassette::from_json_str("search.json", text).unwrap_err();
    assert_eq!(err.path, "runs[1].trace.tool_calls[0].started_ms");
    assert_eq!((err.line, err.column), (6, 40));
    let msg = err.to_string();
    assert!(
        msg.contains("search.json:6:40: at `runs[1].trace.tool_calls[0].started_ms`: expected a non-negative whole number of milliseconds, found string \"soon\""),
        "{msg}"
    );
}

#[test]
fn shape_errors_for_each_known_field() {
    let cases: Vec<(Value, &str)> = vec![
        (json!([]), ""),
        (json!({"tool_calls": {}}), "tool_calls"),
        (json!({"tool_calls": [7]}), "tool_calls[0]"),
        (json!({"tool_calls": [{"args": {}}]}), "tool_calls[0]"),
        (json!({"tool_calls": [{"name": 3}]}), "tool_calls[0].name"),
        (
            json!({"tool_calls": [{"name": "a", "caller": "code"}]}),
            "tool_calls[0].caller",
        ),
        (
            json!({"tool_results": [{"is_error": "no"}]}),
            "tool_results[0].is_error",
        ),
        (
            json!({"tool_results": [{"status": 70000}]}),
            "tool_results[0].status",
        ),
        (
            json!({"conversation": {"turns": [{"content": "x"}]}}),
            "conversation.turns[0]",
        ),
        (
            json!({"conversation": {"tokens": {"total": -1}}}),
            "conversation.tokens.total",
        ),
        (json!({"final_response": ["x"]}), "final_response"),
        (json!({"mcptest_cassette": 1}), ""),
        (json!({"mcptest_cassette": 2, "runs": []}), ""),
        (
            json!({"mcptest_cassette": "1", "runs": []}),
            "mcptest_cassette",
        ),
        (
            json!({"mcptest_cassette": 1, "runs": [{"exchanges": []}]}),
            "runs[0]",
        ),
        (json!({"trace": {}, "meta": []}), "meta"),
    ];
    for (v, path) in cases {
        let text = serde_json::to_string(&v).unwrap();
        let err = Cassette::from_json_str("bad.json", &text).unwrap_err();
        assert_eq!(err.path, path, "{v}: {err}");
        assert!(matches!(err.kind, CassetteErrorKind::Shape(_)), "{v}");
    }
}

#[test]
fn deep_nesting_and_huge_traces_do_not_panic() {
    // Deeper than serde_json's recursion limit: a clean syntax error.
    let deep = format!(
        "{{\"tool_calls\": [{{\"name\": \"a\", \"args\": {}{}}}]}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let err = Cassette::from_json_str("deep.json", &deep).unwrap_err();
    assert!(matches!(err.kind, CassetteErrorKind::Syntax(_)), "{err}");
    // Deep but legal args are kept as opaque JSON.
    let ok = format!(
        "{{\"tool_calls\": [{{\"name\": \"a\", \"args\": {}1{}}}]}}",
        "[".repeat(100),
        "]".repeat(100)
    );
    assert!(Cassette::from_json_str("ok.json", &ok).is_ok());
    // A 50,000-call trace loads.
    let calls: Vec<Value> = (0..50_000)
        .map(|i| json!({"name": format!("t{}", i % 13), "args": {"i": i}}))
        .collect();
    let big = serde_json::to_string(&json!({"tool_calls": calls})).unwrap();
    assert_eq!(
        Cassette::from_json_str("big.json", &big).unwrap().runs[0]
            .trace
            .tool_calls
            .len(),
        50_000
    );
}

#[test]
fn unicode_content_counts_and_positions() {
    let text = "{\"final_response\": \"Réservé à Zürich ☀️\", \"tool_calls\": [{\"name\": \"réserver\", \"started_ms\": -1}]}";
    let err = Cassette::from_json_str("u.json", text).unwrap_err();
    assert_eq!(err.path, "tool_calls[0].started_ms");
    // Columns count characters, not bytes.
    let col = text[..text.find("-1").unwrap()].chars().count() + 1;
    assert_eq!(err.column, col);
}

/// The trace types round-trip through serde as the envelope JSON, unknown fields included, and
/// a wrong type is a serde error naming its JSON path.
#[test]
fn trace_types_round_trip_through_serde() {
    use mcptest_core::trace::{Cassette, ConversationTrace, Run, ToolCall};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cassettes");
    let mut checked = 0;
    for entry in walk(&dir) {
        let text = std::fs::read_to_string(&entry).unwrap();
        let cassette = Cassette::from_json_str(&entry.display().to_string(), &text).unwrap();
        let json = serde_json::to_string(&cassette).unwrap();
        let back: Cassette = serde_json::from_str(&json).unwrap();
        assert_eq!(back, cassette, "{}", entry.display());
        for run in &cassette.runs {
            let r: Run = serde_json::from_value(serde_json::to_value(run).unwrap()).unwrap();
            assert_eq!(&r, run);
            let t: ConversationTrace =
                serde_json::from_value(serde_json::to_value(&run.trace).unwrap()).unwrap();
            assert_eq!(t, run.trace);
        }
        checked += 1;
    }
    assert!(checked > 5, "{checked} cassettes");
    let call: ToolCall =
        serde_json::from_str(r#"{"name": "github__create_issue", "args": {}, "x-kept": 1}"#)
            .unwrap();
    assert_eq!(call.name, "create_issue");
    assert_eq!(call.server.as_deref(), Some("github"));
    assert_eq!(serde_json::to_value(&call).unwrap()["x-kept"], 1);
    let err = serde_json::from_str::<ConversationTrace>(r#"{"tool_calls": [{"name": 7}]}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("tool_calls[0].name"), "{err}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    out
}
