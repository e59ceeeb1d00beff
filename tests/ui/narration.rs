#[mcptest::agent(
    cassettes = "tests/cassettes/triage/*.json",
    expect("final_response", contains("created a comment")),
    expect("conversation.turns[3].content", regex("comment")),
)]
fn triage() {}

fn main() {}
