#[mcptest::agent(cassettes = 5, runs = "five", snapshots = 1)]
fn search_agent() {}

fn main() {}
