#[mcptest::agent(
    cassettes = "tests/cassettes/weather/*.json",
    expect("tool_calls[0.name", exact("get_weather")),
    expect("stability.score", schema({"minimum": 0.7})),
)]
fn weather() {}

fn main() {}
