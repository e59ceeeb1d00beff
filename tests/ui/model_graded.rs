#[mcptest::agent(
    cassettes = "tests/cassettes/weather/*.json",
    expect("tool_calls[0].args", llm_judge({"rubric": "asks for the right city"})),
    expect("tool_results[0]", not(any(exact(null), similar({"to": "sunny"})))),
)]
fn weather() {}

fn main() {}
