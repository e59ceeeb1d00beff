//! `mcptest mock`: the mock MCP server (`mcptest_mock`) behind the CLI. The server itself is
//! tested in mcptest-mock; these check the subcommand's wiring.

use assert_cmd::Command;
use predicates::prelude::*;

fn tools() -> String {
    format!("{}/../examples/tools.yml", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn mock_serves_json_rpc_on_stdio_and_exits_at_end_of_input() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}"#,
        "\n",
    );
    let out = Command::cargo_bin("mcptest")
        .expect("binary")
        .args(["mock", "--tools-from", &tools(), "--log", "calls"])
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("stdout is JSON-RPC only"))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["result"]["serverInfo"]["name"], "weather-and-docs");
    assert_eq!(lines[1]["result"]["structuredContent"]["city"], "Oslo");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(fault none)"), "{stderr}");
    assert!(stderr.contains("tools/call `get_weather`"), "{stderr}");
}

#[test]
fn mock_rejects_a_bad_fault_and_a_bad_tools_file_with_exit_2() {
    Command::cargo_bin("mcptest")
        .expect("binary")
        .args(["mock", "--tools-from", &tools(), "--fault", "hnag"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `hang`?"));
    Command::cargo_bin("mcptest")
        .expect("binary")
        .args(["mock", "--tools-from", "no/such/tools.yml"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "no/such/tools.yml: cannot read the tools file",
        ));
}

#[test]
fn mock_help_lists_the_fault_kinds() {
    Command::cargo_bin("mcptest")
        .expect("binary")
        .args(["mock", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("reply-after-cancel:<ms>"))
        .stdout(predicate::str::contains("--tools-from"));
}
