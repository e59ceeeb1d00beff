// A pass-rate decision needs its floor, a floor in 0..=1, and `inconclusive` is `fail` or `pass`.

#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json", reliability(confidence = 0.95))]
fn no_floor() {}

#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json", reliability(min_pass_rate = 90))]
fn percent_floor() {}

#[mcptest::agent(
    cassettes = "tests/cassettes/weather/*.json",
    reliability(min_pass_rate = 0.9, inconclusive = maybe)
)]
fn unknown_policy() {}

fn main() {}
