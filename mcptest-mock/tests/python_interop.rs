//! The mock driven by an independent client: the official MCP Python SDK (`mcp` 2.3.0), in
//! both protocol eras (`legacy`: the `initialize` handshake; `auto`: the 2026-07-28 probe).
//!
//! The SDK lives in a virtual environment made by `tests/python/setup-venv.sh`
//! (`target/py-mcp-venv`, or `$MCPTEST_PY_VENV`). When it is missing these tests fail and say
//! how to create it; they never skip.

mod common;

use common::examples_tools;
use serde_json::{Value, json};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn python() -> PathBuf {
    let venv = std::env::var_os("MCPTEST_PY_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/py-mcp-venv"));
    let python = venv.join("bin/python");
    assert!(
        python.exists(),
        "the official MCP Python SDK is not installed at {}: run \
         `mcptest-mock/tests/python/setup-venv.sh` (it creates that virtual environment with \
         mcp==2.3.0), or point MCPTEST_PY_VENV at a virtual environment that has it",
        venv.display()
    );
    python
}

/// Runs one driver scenario against the `mcptest-mock` binary and returns its JSON lines.
fn drive(scenario: &str, fault: &str, mode: &str) -> Vec<Value> {
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/driver.py");
    let mut child = Command::new(python())
        .arg(&driver)
        .args([scenario, env!("CARGO_BIN_EXE_mcptest-mock")])
        .arg(examples_tools())
        .args([fault, mode])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python driver");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the driver") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    match status {
        Some(s) if s.success() => {}
        Some(s) => panic!("the driver failed ({s}).\nstdout:\n{out}\nstderr:\n{err}"),
        None => panic!("the driver ran over 60 s.\nstdout:\n{out}\nstderr:\n{err}"),
    }
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{err}")))
        .collect();
    assert_eq!(lines[0]["version"], "2.3.0", "{lines:?}");
    lines
}

fn step<'a>(lines: &'a [Value], name: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["step"] == name)
        .unwrap_or_else(|| panic!("no `{name}` step in {lines:#?}"))
}

fn call<'a>(lines: &'a [Value], label: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["step"] == "call" && l["label"] == label)
        .unwrap_or_else(|| panic!("no call `{label}` in {lines:#?}"))
}

fn secs(v: &Value) -> f64 {
    v["elapsed"].as_f64().unwrap_or(f64::NAN)
}

fn text(call: &Value) -> String {
    call["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn assert_timed_out(call: &Value, deadline: f64) {
    assert_eq!(call["ok"], false, "{call}");
    assert_eq!(call["code"], -32001, "a client-side timeout: {call}");
    let t = secs(call);
    assert!(
        t >= deadline && t < deadline + 1.0,
        "timed out at the deadline: {call}"
    );
}

fn basic(mode: &str, protocol: &str) {
    let lines = drive("basic", "none", mode);
    let connected = step(&lines, "connected");
    assert_eq!(connected["protocol"], protocol);
    assert_eq!(connected["server"]["name"], "weather-and-docs");
    assert!(
        connected["capabilities"]["tools"].is_object(),
        "{connected}"
    );
    assert!(connected["capabilities"]["resources"].is_object());
    assert!(
        connected["instructions"]
            .as_str()
            .unwrap_or_default()
            .contains("get_weather")
    );

    let tools = step(&lines, "tools")["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "get_weather",
            "get_forecast",
            "search_docs",
            "open_doc",
            "create_ticket"
        ]
    );
    assert_eq!(tools[0]["inputSchema"]["required"][0], "city");
    assert!(tools[0]["outputSchema"].is_object());
    assert_eq!(tools[0]["title"], "Current weather");
    assert_eq!(
        tools[2]["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false}),
        "the Python SDK reads the annotations"
    );
    assert!(tools[0].get("annotations").is_none(), "{}", tools[0]);

    let c = call(&lines, "structured");
    assert_eq!(c["ok"], true);
    assert_eq!(c["result"]["isError"], false);
    assert_eq!(c["result"]["structuredContent"]["temperature"], 31);
    assert!(text(c).contains("\"temperature\":31"), "{c}");
    assert_eq!(
        call(&lines, "structured_f")["result"]["structuredContent"]["units"],
        "F"
    );

    let c = call(&lines, "error");
    assert_eq!(c["result"]["isError"], true);
    assert_eq!(
        text(c),
        "No weather station found for 'Atlantis'. Check the city name."
    );
    assert_eq!(call(&lines, "default")["result"]["isError"], true);

    let c = call(&lines, "text");
    assert_eq!(c["result"]["isError"], false);
    assert!(text(c).starts_with("Sacramento, next days:\nMon"), "{c}");

    let c = call(&lines, "links");
    let content = c["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 3);
    assert_eq!(content[1]["type"], "resource_link");
    assert_eq!(content[1]["uri"], "docs://guides/install");

    let c = call(&lines, "embedded");
    assert_eq!(c["result"]["content"][0]["type"], "resource");
    assert!(
        c["result"]["content"][0]["resource"]["text"]
            .as_str()
            .unwrap()
            .starts_with("# Install")
    );
    assert_eq!(
        call(&lines, "static")["result"]["structuredContent"]["id"],
        "T-1042"
    );

    for (label, why) in [
        ("invalid_type", "at /city: 42 is not of type \"string\""),
        ("invalid_missing", "\"days\" is a required property"),
        ("invalid_extra", "('when' was unexpected)"),
    ] {
        let c = call(&lines, label);
        assert_eq!(c["ok"], true, "schema errors are tool results: {c}");
        assert_eq!(c["result"]["isError"], true);
        let t = text(c);
        assert!(t.starts_with("invalid arguments for tool `"), "{t}");
        assert!(t.contains(why), "{t}");
    }

    let c = call(&lines, "unknown_tool");
    assert_eq!(c["ok"], false);
    assert_eq!(c["code"], -32602);
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `get_weather`?")
    );

    let resources = step(&lines, "resources")["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 2);
    assert_eq!(resources[0]["mimeType"], "text/markdown");
    let read = step(&lines, "read");
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("600 requests")
    );
    let missing = step(&lines, "read_missing");
    assert_eq!(missing["ok"], false);
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("no resource `docs://nowhere`")
    );
    let ping = step(&lines, "ping");
    if mode == "legacy" {
        assert_eq!(ping["ok"], true, "{ping}");
    } else {
        assert_eq!(ping["code"], -32601, "ping is gone from 2026-07-28: {ping}");
    }
    assert!(secs(step(&lines, "closed")) < 1.0);
}

#[test]
fn legacy_client_initializes_lists_and_calls_every_kind_of_tool() {
    basic("legacy", "2025-11-25");
}

#[test]
fn modern_client_discovers_lists_and_calls_every_kind_of_tool() {
    basic("auto", "2026-07-28");
}

fn hang(mode: &str, fault: &str) {
    let lines = drive("hang", fault, mode);
    assert_timed_out(call(&lines, "hung"), 0.3);
    let tools = step(&lines, "tools_after");
    assert_eq!(tools["count"], 5);
    assert!(secs(tools) < 0.5, "tools/list stays responsive: {tools}");
    let resources = step(&lines, "resources_after");
    assert_eq!(resources["count"], 2);
    assert!(secs(resources) < 0.5, "resources stay responsive");
    assert_timed_out(call(&lines, "hung_again"), 0.3);
    let closed = step(&lines, "closed");
    assert!(
        secs(closed) < 1.0,
        "the mock exits at end of input with calls hanging: {closed}"
    );
}

#[test]
fn hang_times_out_at_the_clients_deadline_while_tools_list_answers() {
    hang("legacy", "hang");
    hang("auto", "hang");
}

#[test]
fn wedged_looks_like_hang_to_the_client() {
    hang("auto", "wedged");
}

#[test]
fn slow_answers_after_its_delay_and_honours_cancel() {
    for mode in ["legacy", "auto"] {
        let lines = drive("slow", "slow:200", mode);
        for label in ["first", "second"] {
            let c = call(&lines, label);
            assert_eq!(c["ok"], true, "{c}");
            assert!(secs(c) >= 0.2, "answered after >= 200 ms: {c}");
            assert!(secs(c) < 1.5, "{c}");
        }
        assert_timed_out(call(&lines, "past_deadline"), 0.05);
        assert!(secs(step(&lines, "tools_after")) < 0.5);
    }
}

#[test]
fn recover_after_two_hangs_twice_then_answers() {
    for mode in ["legacy", "auto"] {
        let lines = drive("recover", "recover-after:2", mode);
        assert_timed_out(call(&lines, "first"), 0.3);
        assert_timed_out(call(&lines, "second"), 0.3);
        for label in ["third", "fourth"] {
            let c = call(&lines, label);
            assert_eq!(c["ok"], true, "{c}");
            assert_eq!(c["result"]["structuredContent"]["city"], "Oslo");
            assert!(secs(c) < 2.0, "answered, not held: {c}");
        }
        // The counter is per tool: another tool's first call still hangs.
        assert_timed_out(call(&lines, "other_tool_first"), 0.3);
    }
}

#[test]
fn reply_after_cancel_answers_a_cancelled_call() {
    for mode in ["legacy", "auto"] {
        let lines = drive("reply_after_cancel", "reply-after-cancel:400", mode);
        assert_timed_out(call(&lines, "cancelled"), 0.1);
        let late = step(&lines, "late_replies")["replies"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(late.len(), 1, "one late reply on the wire: {late:?}");
        assert!(late[0]["id"].is_number());
        assert!(
            late[0]["after"].as_f64().unwrap() >= 0.4,
            "the late reply came after the delay: {late:?}"
        );
        assert_eq!(late[0]["result"]["structuredContent"]["city"], "Oslo");
        // The client ignored it and keeps working.
        let after = call(&lines, "after");
        assert_eq!(after["ok"], true);
        assert!(secs(after) >= 0.4);
        assert_eq!(after["result"]["structuredContent"]["city"], "Sacramento");
        assert_eq!(step(&lines, "tools_after")["count"], 5);
    }
}
