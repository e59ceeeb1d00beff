#[mcptest::agent(
    cassettes = "tests/cassettes/search/*.json",
    axes(dependencies = [search => open], orders = [login -> search]),
    golden_path([search, open], allow_extra_step),
)]
fn search_agent() {}

fn main() {}
