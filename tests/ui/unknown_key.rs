#[mcptest::agent(cassettes = "tests/cassettes/search/*.json", trajectroy(subsequence, [search]))]
fn search_agent() {}

fn main() {}
