#[mcptest::agent(
    cassettes = "tests/cassettes/weather/*.json",
    expect("tool_results[0].is_error", exactly(false)),
    expect("tool_calls[0].name", regex(42)),
)]
fn weather() {}

fn main() {}
