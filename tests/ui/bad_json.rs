#[mcptest::agent(
    cassettes = "tests/cassettes/search/*.json",
    trajectory(subsequence, [
        search(subset = {q: "rust"}),
        open(exact = {"url" "https://docs.rs"}),
        summarize(schema = {"type": "object", "additionalProperties": False}),
    ]),
)]
fn search_agent() {}

fn main() {}
