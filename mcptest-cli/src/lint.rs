//! `mcptest cassette lint`: find secrets that survive in cassette files.

use mcptest_core::secrets::{MIN_SECRET_LEN, SecretValue, is_secret_name, scan};
use serde_json::Value;
use std::path::PathBuf;

/// `mcptest cassette lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The cassette files to check.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Also look for the value of this environment variable; repeat for several.
    #[arg(long, value_name = "NAME")]
    pub secret_env: Vec<String>,
}

/// The known secret values to look for: the model API keys, every `--secret-env` variable,
/// and every credential-named variable of the environment.
pub(crate) fn known_values(extra: &[String]) -> Vec<SecretValue> {
    let mut names: Vec<String> = vec!["ANTHROPIC_API_KEY".into(), "OPENAI_API_KEY".into()];
    names.extend(extra.iter().cloned());
    names.extend(
        std::env::vars()
            .map(|(k, _)| k)
            .filter(|k| is_secret_name(k)),
    );
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter_map(|n| std::env::var(&n).ok().map(|v| SecretValue::new(n, v)))
        .collect()
}

/// Runs the lint; returns the exit code.
pub fn run(args: &LintArgs) -> u8 {
    for name in &args.secret_env {
        match std::env::var(name) {
            Err(_) => eprintln!(
                "warning: --secret-env {name}: the variable is not set, so its value cannot be looked for"
            ),
            Ok(v) if v.trim().chars().count() < MIN_SECRET_LEN => eprintln!(
                "warning: --secret-env {name}: the value is shorter than {MIN_SECRET_LEN} characters and is not looked for"
            ),
            Ok(_) => {}
        }
    }
    let known = known_values(&args.secret_env);
    let mut found = 0usize;
    let mut files_with = 0usize;
    let mut unreadable = 0usize;
    for file in &args.files {
        let shown = file.display();
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {shown}: cannot read the cassette: {e}");
                unreadable += 1;
                continue;
            }
        };
        let value: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("error: {shown}: not valid JSON: {e}");
                unreadable += 1;
                continue;
            }
        };
        let findings = scan(&value, &known);
        if !findings.is_empty() {
            files_with += 1;
        }
        for f in findings {
            found += 1;
            println!("{shown}: {}: {}", display_path(&f.path), f.what);
        }
    }
    if found > 0 {
        eprintln!(
            "error: {found} secret(s) in {files_with} cassette file(s): remove them and rotate \
             the credentials (`mcptest run --record` redacts at record time; a hand-edited or \
             foreign cassette may not be)"
        );
        return 1;
    }
    if unreadable > 0 {
        return 2;
    }
    println!(
        "{} cassette file(s) checked: no secret found",
        args.files.len()
    );
    0
}

fn display_path(p: &str) -> &str {
    if p.is_empty() { "(root)" } else { p }
}
