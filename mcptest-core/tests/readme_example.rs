//! The mismatch report shown in the README, pinned.

use mcptest_core::eval::{ExpectedCall, ExpectedTrace, validate_trace};
use mcptest_core::trace::ToolCall;
use serde_json::json;

#[test]
fn readme_mismatch_report() {
    let calls = vec![
        ToolCall::new("search").with_args(json!({"q": "rust async"})),
        ToolCall::new("open").with_args(json!({"url": "https://tokio.rs"})),
    ];
    let expected = ExpectedTrace::strict(vec![
        ExpectedCall::by_name("search").args_subset(json!({"q": "rust"})),
        ExpectedCall::by_name("summarize"),
    ]);
    let text = validate_trace(&calls, &expected).unwrap().to_string();
    let readme = include_str!("../../README.md");
    assert!(
        readme.contains(&text),
        "README shows a stale report; current:\n{text}"
    );
}
