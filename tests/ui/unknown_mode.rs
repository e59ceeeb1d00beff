#[mcptest::agent(cassettes = "tests/cassettes/search/*.json", trajectory(subsequnce, [search, open]))]
fn search_agent() {}

fn main() {}
