//! Nothing a client sends crashes the mock: each case gets the protocol's answer or a clean
//! exit, and the session goes on. Driven as a raw JSON-RPC peer over the binary's stdio.

mod common;

use common::{RawServer, call, request};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(10);

fn tools_list_still_answers(s: &mut RawServer, id: i64) {
    s.send(&request(id, "tools/list"));
    let a = s.answer(json!(id), T);
    assert_eq!(
        a["result"]["tools"].as_array().map(Vec::len),
        Some(5),
        "{a}"
    );
}

#[test]
fn lines_that_are_not_json_get_a_parse_error_and_the_session_goes_on() {
    let mut s = RawServer::start(&["--log", "calls"]);
    s.handshake();
    for (i, junk) in [
        &b"garbage"[..],
        b"{",
        b"[1, 2",
        b"\"unterminated",
        b"\xff\xfe\x00binary",
        b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/list\"",
    ]
    .iter()
    .enumerate()
    {
        s.send_raw(junk);
        let a = s
            .recv(T)
            .unwrap_or_else(|| panic!("no answer to junk line {i}"));
        assert_eq!(a["error"]["code"], -32700, "line {i}: {a}");
        assert_eq!(a["id"], Value::Null, "line {i}: {a}");
    }
    tools_list_still_answers(&mut s, 2);
    let log = s.finish();
    assert_eq!(
        log.matches("answered a line that is not JSON").count(),
        6,
        "{log}"
    );
}

#[test]
fn json_that_is_not_a_json_rpc_message_gets_invalid_request() {
    let mut s = RawServer::start(&[]);
    s.handshake();
    for (i, (bad, id)) in [
        (json!({"foo": 1}), Value::Null),
        (json!([]), Value::Null),
        (json!(42), Value::Null),
        // The id is readable: the error carries it.
        (
            json!({"jsonrpc": "1.0", "id": 101, "method": "ping"}),
            json!(101),
        ),
        (
            json!({"id": "req-7", "method": "tools/list"}),
            json!("req-7"),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 9, "result": 1, "error": 2}),
            json!(9),
        ),
        (
            json!([{"jsonrpc": "2.0", "id": 4, "method": "tools/list"}]),
            Value::Null,
        ),
    ]
    .iter()
    .enumerate()
    {
        s.send(bad);
        let a = s
            .recv(T)
            .unwrap_or_else(|| panic!("no answer to bad message {i}"));
        assert_eq!(a["error"]["code"], -32600, "message {i}: {a}");
        assert_eq!(&a["id"], id, "message {i}: {a}");
    }
    tools_list_still_answers(&mut s, 2);
    s.finish();
}

#[test]
fn methods_of_capabilities_the_mock_does_not_declare_are_not_found() {
    let mut s = RawServer::start(&[]);
    let init = s.handshake();
    let declared = init["result"]["capabilities"].as_object().unwrap();
    assert!(!declared.contains_key("prompts") && !declared.contains_key("completions"));
    for (id, method, params) in [
        (2, "prompts/list", json!({})),
        (3, "prompts/get", json!({"name": "x"})),
        (
            4,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}}),
        ),
        (5, "logging/setLevel", json!({"level": "info"})),
        (
            6,
            "resources/subscribe",
            json!({"uri": "docs://guides/install"}),
        ),
    ] {
        s.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let a = s.answer(json!(id), T);
        assert_eq!(a["error"]["code"], -32601, "{method}: {a}");
        assert!(
            a["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("`{method}`")),
            "{a}"
        );
    }
    // Resources are declared (the example file has some): their methods are served.
    s.send(&request(7, "resources/templates/list"));
    assert!(s.answer(json!(7), T)["result"]["resourceTemplates"].is_array());
    tools_list_still_answers(&mut s, 8);
    s.finish();
}

#[test]
fn a_request_that_reuses_an_id_in_flight_is_refused() {
    let mut s = RawServer::start(&["--fault", "slow:400", "--log", "calls"]);
    s.handshake();
    s.send(&call(2, "get_weather", json!({"city": "Oslo"})));
    s.send(&call(2, "get_weather", json!({"city": "Lima"})));
    let refused = s.answer(json!(2), T);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("id 2 is already used"),
        "{refused}"
    );
    // The first call still gets its own answer, and once answered its id is free again.
    let first = s.answer(json!(2), T);
    assert_eq!(
        first["result"]["structuredContent"]["city"], "Oslo",
        "{first}"
    );
    s.send(&call(2, "get_weather", json!({"city": "Sacramento"})));
    let again = s.answer(json!(2), T);
    assert_eq!(
        again["result"]["structuredContent"]["city"], "Sacramento",
        "{again}"
    );
    let log = s.finish();
    assert!(
        log.contains("request 2: refused, its id is in flight"),
        "{log}"
    );
}

#[test]
fn unknown_methods_get_method_not_found_and_bad_params_get_invalid_params() {
    let mut s = RawServer::start(&[]);
    s.handshake();
    s.send(&request(2, "tools/frobnicate"));
    let a = s.answer(json!(2), T);
    assert_eq!(a["error"]["code"], -32601, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`tools/frobnicate`")
    );

    s.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}}));
    let a = s.answer(json!(3), T);
    assert_eq!(a["error"]["code"], -32602, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("{name: string, arguments?: object}")
    );

    s.send(&call(4, "create_ticket", json!(["not", "an", "object"])));
    assert_eq!(s.answer(json!(4), T)["error"]["code"], -32602);

    s.send(&call(5, "no_such_tool", json!({})));
    let a = s.answer(json!(5), T);
    assert_eq!(a["error"]["code"], -32602, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown tool `no_such_tool`")
    );

    // A notification the server does not know, a cancel for nothing, a stray response.
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": 1}}));
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}}));
    s.send(&json!({"jsonrpc": "2.0", "id": 77, "result": {}}));
    s.send(&json!({"jsonrpc": "2.0", "id": 78, "error": {"code": 1, "message": "x"}}));
    tools_list_still_answers(&mut s, 6);
    s.finish();
}

#[test]
fn messages_before_initialize_do_not_end_the_session() {
    let mut s = RawServer::start(&["--log", "calls"]);
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    );
    s.send(&json!({"jsonrpc": "2.0", "id": 50, "result": {}}));
    s.send(&request(51, "tools/list"));
    let a = s.answer(json!(51), T);
    assert!(
        a["error"].is_object(),
        "a request before initialize is refused: {a}"
    );
    // What to do, in the terms of the handshake a 2025-era client knows.
    let message = a["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(a["error"]["code"], -32600, "{a}");
    assert!(
        message.contains("send `initialize`") && message.contains("notifications/initialized"),
        "{a}"
    );
    // A ping is allowed before the handshake.
    s.send(&request(52, "ping"));
    assert_eq!(s.answer(json!(52), T)["result"], json!({}));
    let init = s.handshake();
    assert_eq!(init["result"]["serverInfo"]["name"], "weather-and-docs");
    tools_list_still_answers(&mut s, 2);
    let log = s.finish();
    assert!(
        log.contains("ignored a notification sent before `initialize`"),
        "{log}"
    );
    assert!(
        log.contains("request 51: refused, the session is not initialized"),
        "{log}"
    );
}

#[test]
fn huge_arguments_are_answered_without_echoing_them() {
    let mut s = RawServer::start(&[]);
    s.handshake();
    let big = "x".repeat(4 << 20);
    // Passes the schema: the default answer.
    s.send(&call(2, "get_weather", json!({"city": big})));
    let a = s.answer(json!(2), T);
    assert_eq!(a["result"]["isError"], true);
    assert!(a.to_string().len() < 1000, "{}", a.to_string().len());
    // Fails the schema: the reason quotes a cut value.
    s.send(&call(
        3,
        "get_weather",
        json!({"city": "Oslo", "units": big}),
    ));
    let a = s.answer(json!(3), T);
    let text = a["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("invalid arguments for tool `get_weather`: at /units"),
        "{}",
        &text[..100]
    );
    assert!(a.to_string().len() < 2000, "{}", a.to_string().len());
    // Many keys, deep but legal nesting.
    let many: serde_json::Map<String, Value> =
        (0..50_000).map(|i| (format!("k{i}"), json!(i))).collect();
    s.send(&call(4, "get_weather", Value::Object(many)));
    let a = s.answer(json!(4), T);
    assert_eq!(a["result"]["isError"], true, "additionalProperties: false");
    assert!(a.to_string().len() < 4000, "{}", a.to_string().len());
    let mut deep = json!("leaf");
    for _ in 0..100 {
        deep = json!([deep]);
    }
    s.send(&call(
        5,
        "get_weather",
        json!({"city": "Oslo", "extra": deep}),
    ));
    assert_eq!(s.answer(json!(5), T)["result"]["isError"], true);
    tools_list_still_answers(&mut s, 6);
    s.finish();
}

#[test]
fn a_line_over_the_size_limit_is_answered_and_the_session_goes_on() {
    let mut s = RawServer::start(&[]);
    s.handshake();
    let over = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"get_weather\",\"arguments\":{{\"city\":\"{}\"}}}}}}",
        "y".repeat(17 << 20)
    );
    s.send_raw(over.as_bytes());
    let a = s.recv(T).expect("the over-long line is answered");
    assert_eq!(a["error"]["code"], -32600, "{a}");
    assert_eq!(a["id"], Value::Null, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over this server's limit"),
        "{a}"
    );
    // Nesting past serde_json's recursion limit is unparsable.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    s.send_raw(deep.as_bytes());
    assert_eq!(s.recv(T).expect("answered")["error"]["code"], -32700);
    tools_list_still_answers(&mut s, 3);
    s.finish();
}

#[test]
fn stdout_carries_only_json_rpc_and_the_log_goes_to_stderr() {
    let mut s = RawServer::start(&["--log", "calls", "--fault", "slow:10"]);
    s.handshake();
    s.send(&call(2, "create_ticket", json!({"title": "abc"})));
    let a = s.answer(json!(2), T);
    assert_eq!(a["jsonrpc"], "2.0");
    assert_eq!(a["result"]["structuredContent"]["id"], "T-1042");
    s.send(&call(3, "nope", json!({})));
    s.answer(json!(3), T);
    let log = s.finish();
    assert!(log.contains("mcptest mock: serving 5 tools from"), "{log}");
    assert!(log.contains("(fault slow:10)"), "{log}");
    assert!(
        log.contains("request 2: tools/call `create_ticket` is delayed"),
        "{log}"
    );
    assert!(log.contains("unknown tool `nope`"), "{log}");
    assert!(log.contains("session ended"), "{log}");
}

#[test]
fn end_of_input_stops_a_hanging_mock_at_once() {
    let mut s = RawServer::start(&["--fault", "hang", "--log", "faults"]);
    s.handshake();
    for id in 2..102 {
        s.send(&call(id, "get_weather", json!({"city": "Oslo"})));
    }
    tools_list_still_answers(&mut s, 200);
    let start = Instant::now();
    s.close_stdin();
    let (status, _) = s.wait(T);
    let took = start.elapsed();
    assert!(status.expect("exits").success());
    assert!(
        took < Duration::from_millis(1000),
        "no drain wait: {took:?}"
    );
    // The hung calls are never answered, not even with an error, and the log says so.
    if let Some(m) = s.recv(Duration::from_millis(200)) {
        panic!("nothing is written for calls the fault held: {m}");
    }
    let log = s.stderr();
    assert_eq!(
        log.matches("was held by fault hang when the input ended; cancelled, not answered")
            .count(),
        100,
        "{log}"
    );
}

#[test]
fn a_client_that_disconnects_mid_call_gets_a_clean_exit() {
    for fault in [
        "slow:3000",
        "reply-after-cancel:3000",
        "recover-after:5",
        "none",
    ] {
        let mut s = RawServer::start(&["--fault", fault]);
        s.handshake();
        s.send(&call(2, "get_weather", json!({"city": "Oslo"})));
        std::thread::sleep(Duration::from_millis(50));
        let start = Instant::now();
        s.close_stdin();
        let (status, _) = s.wait(T);
        assert!(status.expect("exits").success(), "{fault}: {}", s.stderr());
        assert!(
            start.elapsed() < Duration::from_millis(1000),
            "{fault}: {:?}",
            start.elapsed()
        );
    }
}

#[test]
fn a_cancelled_slow_call_is_never_answered() {
    let mut s = RawServer::start(&["--fault", "slow:300", "--log", "calls"]);
    s.handshake();
    s.send(&call(2, "get_weather", json!({"city": "Oslo"})));
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 2, "reason": "timeout"}}),
    );
    s.send(&call(3, "get_weather", json!({"city": "Sacramento"})));
    let a = s.answer(json!(3), T);
    assert_eq!(a["result"]["structuredContent"]["city"], "Sacramento");
    assert!(s.recv(Duration::from_millis(400)).is_none());
    let log = s.finish();
    assert!(
        log.contains("request 2: cancelled by the client; stopped"),
        "{log}"
    );
}

#[test]
fn a_last_request_without_a_newline_is_answered() {
    let mut s = RawServer::start(&[]);
    s.handshake();
    s.send_unterminated(&request(2, "tools/list"));
    s.close_stdin();
    let a = s.answer(json!(2), T);
    assert_eq!(
        a["result"]["tools"].as_array().map(Vec::len),
        Some(5),
        "{a}"
    );
    s.finish();
}

#[test]
fn requests_piped_in_are_all_answered_before_exit() {
    let mut s = RawServer::start(&[]);
    s.send(&common::initialize());
    for id in 2..12 {
        s.send(&call(
            id,
            "get_forecast",
            json!({"city": "Sacramento", "days": 2}),
        ));
    }
    s.close_stdin();
    let mut answered = Vec::new();
    while let Some(m) = s.recv(Duration::from_secs(5)) {
        answered.push(m["id"].as_i64().unwrap_or(-1));
    }
    answered.sort();
    assert_eq!(answered, (1..12).collect::<Vec<_>>());
    let (status, _) = s.wait(T);
    assert!(status.expect("exits").success());
}

#[test]
fn bad_command_lines_and_tools_files_exit_2_with_the_reason() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcptest-mock"))
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&[]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(err.contains("--tools-from <FILE> is required"), "{err}");

    let tools = common::examples_tools();
    let tools = tools.to_str().unwrap();
    let (code, _, err) = run(&["--tools-from", tools, "--fault", "hnag"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean `hang`?"), "{err}");

    let (code, out, err) = run(&["--tools-from", "/nonexistent/tools.yml"]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(
        err.starts_with("/nonexistent/tools.yml: cannot read the tools file:"),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("mcptest-mock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yml");
    std::fs::write(&bad, "tools:\n  - name: a\n    result: {txet: hi}\n").unwrap();
    let (code, out, err) = run(&["--tools-from", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(
        err.contains("bad.yml:3:14: unknown key `txet` in `result:`; did you mean `text`?"),
        "{err}"
    );
    let latin = dir.join("latin.yml");
    std::fs::write(&latin, b"tools: []\n# caf\xe9\n").unwrap();
    let (code, _, err) = run(&["--tools-from", latin.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("latin.yml: the tools file is not UTF-8 text"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
