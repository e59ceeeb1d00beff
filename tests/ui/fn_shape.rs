#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json")]
async fn weather(city: &str) {}

#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json")]
fn forecast() {
    println!("never used");
}

#[mcptest::agent(cassettes = "tests/cassettes/weather/*.json")]
struct Weather;

fn main() {}
