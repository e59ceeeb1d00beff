#[mcptest::agent(
    cassettes = "tests/cassettes/search/*.json",
    trajectory(strict, [search(subsett = {"q": "rust"}), open(ignore = true)]),
)]
fn search_agent() {}

fn main() {}
