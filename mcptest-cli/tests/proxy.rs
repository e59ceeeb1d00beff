//! `mcptest proxy`: a client that is not mcptest's own (the official MCP Python SDK) talks to
//! a server through the proxy; the session becomes a cassette run that a strict trajectory
//! suite grades, appended runs accumulate, and bad input says what to do.

#[path = "record_support/mod.rs"]
mod record_support;

use assert_cmd::Command;
use record_support::sdk_python;
use serde_json::Value;
use std::path::Path;

const TOOLS: &str = r#"
server:
  instructions: Ask for the weather by city.
tools:
  - name: get_weather
    description: Current weather for a city.
    input_schema:
      type: object
      properties: { city: { type: string } }
      required: [city]
    answers:
      - when: { city: Sacramento }
        text: "Sacramento: 31 C, clear"
      - text: "Oslo: -4 C"
"#;

/// `mcptest run --config SUITE`, to assert on.
fn grade(suite: &Path) -> assert_cmd::assert::Assert {
    Command::cargo_bin("mcptest")
        .unwrap()
        .args(["run", "--config"])
        .arg(suite)
        .assert()
}

/// One client session through the proxy into `cassette`; returns what the client printed.
fn session(dir: &Path, cassette: &Path) -> Vec<Value> {
    let tools = dir.join("tools.yml");
    std::fs::write(&tools, TOOLS).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/proxy_client.py");
    let out = std::process::Command::new(sdk_python())
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcptest"))
        .arg(cassette)
        .arg(&tools)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_foreign_clients_session_becomes_a_run_that_a_strict_suite_grades() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cassettes/session.json");
    let seen = session(dir.path(), &cassette);
    assert_eq!(seen[1]["text"], "Sacramento: 31 C, clear", "{seen:?}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let run = &doc["runs"][0];
    let calls = run["trace"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["args"], serde_json::json!({"city": "Sacramento"}));
    assert_eq!(calls[0]["server"], "mcptest");
    assert!(calls[0]["ended_ms"].as_u64() >= calls[0]["started_ms"].as_u64());
    assert_eq!(
        run["trace"]["tool_results"][1]["content"][0]["text"],
        "Oslo: -4 C"
    );
    assert_eq!(run["meta"]["tools"]["mcptest"][0]["name"], "get_weather");
    assert!(
        run["meta"]["server_info"]["mcptest"]
            .to_string()
            .contains("Ask for the weather"),
        "{}",
        run["meta"]
    );
    assert!(run["trace"].get("conversation").is_none());

    // A strict trajectory pins both calls with their arguments, in order: exit 0.
    let suite = dir.path().join("suite.yml");
    std::fs::write(
        &suite,
        "agents:\n  - name: weather client\n    model: any\n    cassette: cassettes/session.json\n    \
         trajectory:\n      mode: strict\n      calls:\n        - {name: get_weather, args: {exact: {city: Sacramento}}}\n        \
         - {name: get_weather, args: {exact: {city: Oslo}}}\n",
    )
    .unwrap();
    grade(&suite).code(0);

    // The narrative check needs what the agent said, which a proxy never sees: it says so
    // and fails rather than passing a story it could not read.
    let narrative = dir.path().join("narrative.yml");
    std::fs::write(
        &narrative,
        "agents:\n  - name: weather client\n    model: any\n    cassette: cassettes/session.json\n    \
         narrative: {}\n",
    )
    .unwrap();
    grade(&narrative).code(1).stdout(predicates::str::contains(
        "narrative: no closing message to read: the run has no conversation",
    ));

    // A second session is appended as the second run.
    session(dir.path(), &cassette);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    assert_eq!(doc["runs"].as_array().unwrap().len(), 2);
}

/// Runs `mcptest proxy --output OUT ARGS...` with an empty input; asserts exit 2 and that
/// standard error says `message`.
fn proxy_fails(out: &Path, args: &[&str], message: &str) {
    Command::cargo_bin("mcptest")
        .unwrap()
        .args(["proxy", "--output"])
        .arg(out)
        .args(args)
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(message));
}

#[test]
fn a_server_that_does_not_start_or_a_file_that_is_not_a_cassette_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    proxy_fails(
        &out,
        &["--", "/nonexistent/mcp-server"],
        "could not start `/nonexistent/mcp-server`",
    );
    assert!(!out.exists());

    std::fs::write(&out, "[1, 2]").unwrap();
    proxy_fails(&out, &["--", "true"], "the proxy appends to a cassette");
    proxy_fails(&out, &[], "COMMAND");
}

/// The lines of a client that starts a session and asks the mock something.
const HANDSHAKE: [&str; 2] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

/// Starts `mcptest proxy [flags] --output CASSETTE -- mcptest mock` and sends it the handshake
/// and `lines`; returns the proxy, its open input, and its output lines.
fn raw_session(
    dir: &Path,
    flags: &[&str],
    cassette: &Path,
    lines: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
) {
    use std::io::{BufRead, Write};
    let tools = dir.join("tools.yml");
    std::fs::write(&tools, TOOLS).unwrap();
    let exe = env!("CARGO_BIN_EXE_mcptest");
    let mut proxy = std::process::Command::new(exe)
        .arg("proxy")
        .args(flags)
        .arg("--output")
        .arg(cassette)
        .args(["--", exe, "mock", "--log", "off", "--tools-from"])
        .arg(&tools)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = proxy.stdin.take().unwrap();
    for line in HANDSHAKE.iter().chain(lines) {
        writeln!(input, "{line}").unwrap();
    }
    input.flush().unwrap();
    let output = std::io::BufReader::new(proxy.stdout.take().unwrap()).lines();
    (proxy, input, output)
}

#[test]
fn a_proxy_killed_mid_session_keeps_every_answered_call() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("s.json");
    let (mut proxy, _input, mut lines) = raw_session(
        dir.path(),
        &[],
        &cassette,
        &[
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Sacramento"}}}"#,
        ],
    );
    let answer = lines
        .find(|l| l.as_ref().is_ok_and(|l| l.contains(r#""id":2"#)))
        .expect("the call is answered")
        .unwrap();
    assert!(answer.contains("Sacramento: 31 C"), "{answer}");
    // The client ends the session the hard way, with the input still open.
    proxy.kill().unwrap();
    proxy.wait().unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let calls = &doc["runs"][0]["trace"]["tool_calls"];
    assert_eq!(calls[0]["args"]["city"], "Sacramento", "{doc}");
    assert_eq!(
        doc["runs"][0]["trace"]["tool_results"][0]["content"][0]["text"],
        "Sacramento: 31 C, clear"
    );
}

#[test]
fn an_injected_hang_holds_back_the_targeted_tool_only() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("s.json");
    let (mut proxy, input, mut lines) = raw_session(
        dir.path(),
        &["--fault", "hang", "--fault-tool", "get_weather"],
        &cassette,
        &[
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        ],
    );
    let listed = lines
        .find(|l| l.as_ref().is_ok_and(|l| l.contains(r#""id":3"#)))
        .expect("tools/list is answered")
        .unwrap();
    assert!(listed.contains("get_weather"), "{listed}");
    drop(input);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        rest.iter().all(|l| !l.contains(r#""id":2"#)),
        "the held-back call was answered: {rest:?}"
    );
    assert!(proxy.wait().unwrap().success());
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let run = &doc["runs"][0];
    assert_eq!(run["trace"]["tool_calls"][0]["args"]["city"], "Oslo");
    assert_eq!(
        run["trace"]["tool_results"][0]["content"][0]["text"],
        "no answer: the proxy held the call back (injected fault `hang`)"
    );
    assert_eq!(run["trace"]["tool_results"][0]["isError"], true);
}

/// Runs one of the Node.js clients in `tests/node` with `args`; asserts it succeeded and
/// returns its standard output, and all it printed (for messages).
fn node_client(script: &str, args: &[&std::ffi::OsStr]) -> (String, String) {
    let out = std::process::Command::new("node")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/node")
                .join(script),
        )
        .arg(record_support::npm_ref_dir())
        .args(args)
        .output()
        .expect("node runs (Node.js 20 or newer on PATH)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let shown = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{shown}");
    (stdout, shown)
}

/// The official TypeScript SDK's client talks to the reference "everything" server (both
/// pinned from npm) through `mcptest proxy -- node everything stdio`; the session becomes a run
/// that a strict trajectory suite grades with exit 0.
#[test]
fn the_typescript_sdk_through_the_proxy_to_the_everything_server() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("cassettes/everything.json");
    let (stdout, shown) = node_client(
        "proxy_client.cjs",
        &[env!("CARGO_BIN_EXE_mcptest").as_ref(), cassette.as_os_str()],
    );
    let seen: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        seen[0]["tools"]
            .as_array()
            .is_some_and(|t| t.contains(&Value::from("get-sum"))),
        "{shown}"
    );
    assert_eq!(seen[2]["text"], "The sum of 2 and 3 is 5.", "{shown}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let run = &doc["runs"][0];
    let calls = run["trace"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{run}");
    assert_eq!(calls[0]["server"], "everything");
    assert_eq!(
        run["trace"]["tool_results"][0]["content"][0]["text"],
        "Echo: hello from the TypeScript SDK"
    );
    assert_eq!(
        run["meta"]["server_info"]["everything"]["serverInfo"]["name"], "mcp-servers/everything",
        "{}",
        run["meta"]
    );

    let suite = dir.path().join("suite.yml");
    let echo = "- {name: echo, args: {exact: {message: hello from the TypeScript SDK}}}";
    let sum = "- {name: get-sum, args: {exact: {a: 2, b: 3}}}";
    let strict = |first: &str, second: &str| {
        format!(
            "agents:\n  - name: ts client\n    model: any\n    cassette: cassettes/everything.json\n    \
             trajectory:\n      mode: strict\n      calls:\n        {first}\n        {second}\n"
        )
    };
    std::fs::write(&suite, strict(echo, sum)).unwrap();
    grade(&suite).code(0);
    // The same suite with the calls swapped fails: the grade reads the recorded order.
    std::fs::write(&suite, strict(sum, echo)).unwrap();
    grade(&suite).code(1);
}

/// A child process whose standard error is read line by line until a line has `marker`; the
/// rest is kept draining (and returned by `finish`).
struct Logged {
    child: std::process::Child,
    first: String,
    rest: std::sync::mpsc::Receiver<String>,
}

impl Logged {
    fn start(mut cmd: std::process::Command, marker: &str) -> Logged {
        use std::io::BufRead;
        let mut child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let mut first = String::new();
        for line in lines.by_ref() {
            let line = line.unwrap();
            first.push_str(&line);
            first.push('\n');
            if line.contains(marker) {
                break;
            }
        }
        assert!(first.contains(marker), "never said `{marker}`:\n{first}");
        let (tx, rest) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Logged { child, first, rest }
    }

    /// The first `http://...` its log names.
    fn url(&self) -> String {
        let at = self.first.find("http://").unwrap();
        self.first[at..]
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
            .next()
            .unwrap()
            .to_string()
    }

    /// Stops it with SIGTERM; its exit code and the rest of its log.
    fn terminate(mut self) -> (Option<i32>, String) {
        std::process::Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        let status = self.child.wait().unwrap();
        let rest: Vec<String> = self.rest.try_iter().collect();
        (status.code(), rest.join("\n"))
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mcptest proxy --listen ADDR --upstream URL`: the official TypeScript SDK's Streamable HTTP
/// client talks to the HTTP mock through the proxy; each client session becomes one run, an
/// injected `slow` fault delays the targeted tool's answers only, and a strict suite grades
/// the recording.
#[cfg(unix)]
#[test]
fn the_http_proxy_records_each_client_session_as_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.yml");
    std::fs::write(&tools, TOOLS).unwrap();
    let exe = env!("CARGO_BIN_EXE_mcptest");
    let mut mock = std::process::Command::new(exe);
    mock.args(["mock", "--http", "127.0.0.1:0", "--tools-from"])
        .arg(&tools);
    let mock = Logged::start(mock, "http://");
    let cassette = dir.path().join("cassettes/http.json");
    let mut proxy = std::process::Command::new(exe);
    proxy
        .args(["proxy", "--listen", "127.0.0.1:0", "--name", "weather"])
        .args([
            "--fault",
            "slow:300",
            "--fault-tool",
            "get_weather",
            "--upstream",
        ])
        .arg(mock.url())
        .arg("--output")
        .arg(&cassette);
    let proxy = Logged::start(proxy, "listening on");
    let client = |city: &str| {
        let calls =
            format!("[{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{city}\"}}}}]");
        let url = proxy.url();
        node_client("http_client.cjs", &[url.as_ref(), calls.as_ref()]).1
    };
    assert!(client("Sacramento").contains("Sacramento: 31 C, clear"));
    assert!(client("Oslo").contains("Oslo: -4 C"));
    let (code, log) = proxy.terminate();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("2 session(s) recorded"), "{log}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "one run per client session: {doc}");
    for (run, city) in runs.iter().zip(["Sacramento", "Oslo"]) {
        let call = &run["trace"]["tool_calls"][0];
        assert_eq!(call["args"]["city"], city);
        assert_eq!(call["server"], "weather");
        let took = call["ended_ms"].as_u64().unwrap() - call["started_ms"].as_u64().unwrap();
        assert!(
            took >= 300,
            "the injected delay is in the recorded time: {took} ms"
        );
        assert_eq!(run["meta"]["upstream"], mock.url().as_str());
        assert!(run["meta"]["session_id"].is_string(), "{}", run["meta"]);
        let injected = run["mcp_exchanges"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["method"] == "tools/call")
            .map(|e| e["injected"].clone());
        assert_eq!(
            injected.and_then(|i| i["delay_ms"].as_u64()),
            Some(300),
            "{run}"
        );
    }
    let suite = dir.path().join("suite.yml");
    std::fs::write(
        &suite,
        "agents:\n  - name: http client\n    model: any\n    cassette: cassettes/http.json\n    \
         trajectory:\n      mode: strict\n      calls: [get_weather]\n",
    )
    .unwrap();
    grade(&suite).code(0);
}

#[test]
fn the_http_proxy_refuses_a_bad_upstream_or_a_missing_half() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.json");
    proxy_fails(
        &out,
        &[
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "ftp://example.com/mcp",
        ],
        "is not an HTTP URL",
    );
    Command::cargo_bin("mcptest")
        .unwrap()
        .args(["proxy", "--output"])
        .arg(&out)
        .args(["--listen", "127.0.0.1:0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--upstream"));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    proxy_fails(
        &out,
        &["--listen", &addr, "--upstream", "http://127.0.0.1:9/mcp"],
        "cannot listen on",
    );
}

/// The HTTP proxy in front of a real Streamable HTTP server: the reference "everything" server
/// (pinned from npm), driven by the official TypeScript SDK's HTTP client.
#[cfg(unix)]
#[test]
fn the_http_proxy_in_front_of_the_everything_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = record_support::EverythingHttp::start().unwrap();
    let cassette = dir.path().join("everything.json");
    let mut proxy = std::process::Command::new(env!("CARGO_BIN_EXE_mcptest"));
    proxy
        .args(["proxy", "--listen", "127.0.0.1:0", "--output"])
        .arg(&cassette)
        .arg("--upstream")
        .arg(&server.url);
    let proxy = Logged::start(proxy, "listening on");
    let calls = r#"[{"name": "echo", "arguments": {"message": "through the proxy"}},
                    {"name": "get-sum", "arguments": {"a": 20, "b": 22}}]"#;
    let url = proxy.url();
    let (stdout, shown) = node_client("http_client.cjs", &[url.as_ref(), calls.as_ref()]);
    assert!(stdout.contains("The sum of 20 and 22 is 42."), "{shown}");
    let (code, log) = proxy.terminate();
    drop(server);
    assert_eq!(code, Some(0), "{log}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let run = &doc["runs"][0];
    let calls = run["trace"]["tool_calls"].as_array().unwrap();
    let names: Vec<&str> = calls.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["echo", "get-sum"], "{run}");
    assert_eq!(
        calls[0]["server"], "127.0.0.1",
        "the server is named by the upstream host"
    );
    assert_eq!(
        run["trace"]["tool_results"][1]["content"][0]["text"],
        "The sum of 20 and 22 is 42."
    );
    assert_eq!(
        run["meta"]["server_info"]["127.0.0.1"]["serverInfo"]["name"],
        "mcp-servers/everything"
    );
    assert!(
        run["meta"]["tools"]["127.0.0.1"]
            .as_array()
            .is_some_and(|t| t.len() > 5),
        "the tool list is kept: {}",
        run["meta"]
    );
}
