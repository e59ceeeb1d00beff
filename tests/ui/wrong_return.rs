#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json")]
fn weather() -> String {
    String::from("get_weather")
}

fn main() {}
