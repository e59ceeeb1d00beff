#[mcptest::agent(trajectory(subsequence, [get_weather]))]
fn no_cassettes() {}

#[mcptest::agent(cassettes = "tests/cassettes/search/*.json", recovery(max_detection_ms = 3000))]
fn no_fault() {}

#[mcptest::agent(cassettes = "tests/cassettes/search/*.json", inject(name = "slow-search", kind = slow))]
fn no_delay() {}

fn main() {}
