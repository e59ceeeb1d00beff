//! Compile-error tests for `#[mcptest::agent]`: every kind of mistake is an error spanned at
//! the offending token, with a hint. The expected messages are in `tests/ui/*.stderr`.
//!
//! Compiler output changes between releases, so the expectations are pinned to the toolchain
//! CI uses (rustc 1.95); on another toolchain this test says so and checks nothing.
//! Regenerate the expectations with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn attribute_mistakes_are_spanned_compile_errors() {
    let version =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
    if !version.starts_with("rustc 1.95.") {
        eprintln!(
            "skipping the UI tests: they are pinned to rustc 1.95, this is `{}`",
            version.trim()
        );
        return;
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
