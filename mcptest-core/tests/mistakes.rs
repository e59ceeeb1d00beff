//! The shared mistake corpus (`tests/mistakes/corpus.json` at the workspace root), through the
//! YAML front end: every case is a load error at its line and column, in the rulebook's words.
//! The builder and the attribute run the same corpus (`tests/mistakes.rs` in the facade, the
//! macro crate's `corpus` test).

use mcptest_core::suite::Suite;
use serde_json::Value;

fn corpus() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mistakes/corpus.json");
    let text = std::fs::read_to_string(path).expect("the mistake corpus");
    let doc: Value = serde_json::from_str(&text).expect("the corpus is JSON");
    doc["cases"].as_array().expect("a list of cases").clone()
}

#[test]
fn every_mistake_is_a_located_load_error_in_the_rulebooks_words() {
    let cases = corpus();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let words = case["words"].as_str().unwrap();
        let at = case["yaml_at"].as_str().unwrap();
        let yaml = case["yaml"].as_str().unwrap();
        match Suite::from_yaml_str("suite.yml", yaml) {
            Ok(_) => failures.push(format!("{id}: loaded")),
            Err(e) => {
                let hit = e.problems.iter().find(|p| p.message.contains(words));
                match hit {
                    Some(p) if format!("{}:{}", p.line, p.column) == at => {}
                    Some(p) => failures.push(format!(
                        "{id}: at {}:{} instead of {at}:\n{e}",
                        p.line, p.column
                    )),
                    None => failures.push(format!("{id}: no problem says {words:?}:\n{e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
