#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json", stability(weakest_score >= 0.5))]
fn weather() {}

#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json", runs = 1, stability)]
fn weather_once() -> mcptest::prelude::Agent {
    mcptest::prelude::Agent::new()
}

fn main() {}
