#[mcptest::agent(
    cassettes = "tests/cassettes/weather/*.json",
    golden_path([get_weather]),
    golden_path([get_weather, get_forecast]),
)]
fn weather() {}

fn main() {}
