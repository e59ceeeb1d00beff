#[mcptest::agent(
    cassettes = "tests/cassettes/weather/*.json",
    runs = 3,
    stability(weakest >= 0.5, score => 0.7),
    reliability(passhat_k >= 0.9),
    narrative(claimed_but_abscent <= 0, max_divergence_score = 2),
)]
fn weather() {}

fn main() {}
