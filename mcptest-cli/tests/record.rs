//! End-to-end tests of `mcptest run --record` and `mcptest cassette lint`, with no internet:
//! a scripted model API on a local port ([`record_support::FakeModel`]) and the mock MCP
//! server as the suite's server: `mcptest mock --tools-from ...` itself.
//!
//! This target has its own `main`: started as `record --serve-mock TOOLS.yml` it serves the
//! same mock (`mcptest_mock`), for a build of the CLI without the `mock` subcommand.

mod record_support;

use libtest_mimic::{Arguments, Failed, Trial};
use mcptest_core::fingerprint::{check_cassette, expected_first_request, request_fingerprint};
use mcptest_core::suite::Suite;
use mcptest_core::trace::Cassette;
use record_support::{EverythingHttp, FakeModel, memory_server, messages};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

const API_KEY: &str = "sk-ant-api03-TESTKEY0123456789abcdefXYZ";
const STATION_CREDENTIAL: &str = "station-cred-5f1c9e27b3";
const BEARER_IN_TEXT: &str = "Bearer abcdefgh12345678";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve-mock") {
        let Some(tools) = args.get(2) else {
            eprintln!("usage: record --serve-mock TOOLS.yml");
            return std::process::ExitCode::from(2);
        };
        let code = mcptest_mock::run(
            Path::new(tools),
            mcptest_mock::Fault::None,
            mcptest_mock::LogLevel::Off,
        );
        return std::process::ExitCode::from(code);
    }
    let trials = vec![
        Trial::test(
            "anthropic_parallel_calls_caller_pause_and_replay",
            anthropic_e2e,
        ),
        Trial::test("hung_tool_is_recorded_in_virtual_time", hung_tool_e2e),
        Trial::test(
            "openai_compatible_endpoint_keeps_invalid_arguments",
            openai_e2e,
        ),
        Trial::test(
            "openai_compatible_endpoint_gets_images_as_image_parts",
            openai_images_e2e,
        ),
        Trial::test(
            "server_by_url_records_over_streamable_http_and_replays_without_it",
            url_server_e2e,
        ),
        Trial::test("server_by_url_errors_say_what_to_do", url_server_errors),
        Trial::test(
            "the_everything_reference_server_by_url_records_and_replays",
            everything_by_url_e2e,
        ),
        Trial::test(
            "sequential_calls_keep_a_write_before_its_read_on_the_memory_server",
            memory_sequential_e2e,
        ),
        Trial::test("lint_catches_planted_secrets", lint_catches_planted_secrets),
        Trial::test("recording_errors_say_what_to_do", recording_errors),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn check(cond: bool, what: impl std::fmt::Display) -> Result<(), Failed> {
    if cond {
        Ok(())
    } else {
        Err(what.to_string().into())
    }
}

fn mcptest() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcptest"));
    c.env_clear();
    for var in ["PATH", "HOME", "TMPDIR", "SYSTEMROOT"] {
        if let Some(v) = std::env::var_os(var) {
            c.env(var, v);
        }
    }
    c
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn quoted(p: &Path) -> String {
    serde_json::to_string(&p.display().to_string()).unwrap_or_default()
}

/// The `servers:` entry that starts the mock MCP server serving `tools`: `mcptest mock` when
/// this build of the CLI has it, else this executable (which serves the same mock).
fn mock_server(name: &str, tools: &Path, env: &[&str]) -> Result<String, Failed> {
    static CLI_HAS_MOCK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let cli_has_mock = *CLI_HAS_MOCK.get_or_init(|| {
        mcptest()
            .args(["mock", "--help"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let (command, args) = if cli_has_mock {
        (
            PathBuf::from(env!("CARGO_BIN_EXE_mcptest")),
            format!("[mock, --tools-from, {}]", quoted(tools)),
        )
    } else {
        (
            std::env::current_exe()?,
            format!("[--serve-mock, {}]", quoted(tools)),
        )
    };
    Ok(format!(
        "  {name}:\n    command: {}\n    args: {args}\n    env: [{}]\n",
        quoted(&command),
        env.join(", ")
    ))
}

/// `mcptest run --record --config SUITE` against `model`, with the test API key.
fn record_with(model: &FakeModel, suite: &Path) -> Command {
    let mut c = mcptest();
    c.args(["run", "--record", "--config"])
        .arg(suite)
        .env("ANTHROPIC_BASE_URL", &model.base_url)
        .env("ANTHROPIC_API_KEY", API_KEY);
    c
}

/// Replays `suite` as CI would: offline, no key, no servers; it must pass (exit 0).
fn replays_offline(suite: &Path) -> Result<(), Failed> {
    let out = mcptest().args(["run", "--config"]).arg(suite).output()?;
    check(out.status.code() == Some(0), text(&out))
}

fn read_cassette(path: &Path) -> Result<(String, Value, Cassette), Failed> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("the cassette {} was not written: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)?;
    let cassette =
        Cassette::from_json_str(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    Ok((text, value, cassette))
}

const WEATHER_TOOLS: &str = r#"
tools:
  - name: get_weather
    description: Current weather for a city.
    annotations: { readOnlyHint: true, destructiveHint: false }
    input_schema:
      type: object
      properties: { city: { type: string } }
      required: [city]
    answers:
      - when: { city: Sacramento }
        text: "Sacramento: 31 C, clear"
      - when: { city: Oslo }
        text: "Oslo: -4 C, light snow (station credential STATION_CREDENTIAL)"
      - error: No station for that city.
"#;

fn last_is_error(body: &Value) -> bool {
    messages(body)
        .last()
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|b| b.get("is_error"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn bad_request(why: &str) -> (u16, Value) {
    (
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": why}}),
    )
}

// ---------------------------------------------------------------------------------------------
// Anthropic: parallel tool uses (one from code execution), pause_turn, end_turn; replay; stale.

fn anthropic_script(body: &Value) -> (u16, Value) {
    let msgs = messages(body);
    match msgs.len() {
        1 => (
            200,
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                "content": [
                    {"type": "text", "text": "Checking both cities at once."},
                    {"type": "tool_use", "id": "toolu_a", "name": "weather__get_weather",
                     "input": {"city": "Sacramento"}},
                    {"type": "tool_use", "id": "toolu_b", "name": "weather__get_weather",
                     "input": {"city": "Oslo"},
                     "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_x1"}}
                ],
                "stop_reason": "tool_use",
                "container": {"id": "container_7", "expires_at": "2030-01-01T00:00:00Z"},
                "usage": {"input_tokens": 100, "output_tokens": 20,
                          "cache_creation_input_tokens": 50, "cache_read_input_tokens": 0}
            }),
        ),
        3 => {
            let results = msgs[2]["content"].as_array().cloned().unwrap_or_default();
            let ids: Vec<&str> = results
                .iter()
                .filter_map(|b| b["tool_use_id"].as_str())
                .collect();
            if msgs[2]["role"] != "user" || ids != ["toolu_a", "toolu_b"] {
                return bad_request(
                    "both tool results must come back in one user message, in order",
                );
            }
            if body.get("container") != Some(&json!("container_7")) {
                return bad_request("the container id must be sent back");
            }
            (
                200,
                json!({
                    "id": "msg_2", "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "Let me put that together."}],
                    "stop_reason": "pause_turn",
                    "usage": {"input_tokens": 150, "output_tokens": 5,
                              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 50}
                }),
            )
        }
        4 => (
            200,
            json!({
                "id": "msg_3", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": format!(
                    "Sacramento is 31 C and clear; Oslo is -4 C with light snow. \
                     (debug: Authorization: {BEARER_IN_TEXT})")}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 160, "output_tokens": 30,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 50}
            }),
        ),
        n => bad_request(&format!("unexpected conversation of {n} messages")),
    }
}

fn weather_suite(dir: &Path, prompt: &str) -> Result<PathBuf, Failed> {
    let tools = dir.join("weather-tools.yml");
    std::fs::write(
        &tools,
        WEATHER_TOOLS.replace("STATION_CREDENTIAL", STATION_CREDENTIAL),
    )?;
    let suite = format!(
        "servers:\n{}\nagents:\n  - name: weather lookup\n    model: claude-test-1\n    \
         servers: [weather]\n    prompt: {prompt} (region eu-west-1)\n    runs: 2\n    max_tokens: 512\n    \
         trajectory:\n      mode: unordered\n      calls:\n        - name: get_weather\n          \
         args: {{ subset: {{ city: Sacramento }} }}\n        - name: get_weather\n          \
         args: {{ subset: {{ city: Oslo }} }}\n    expect:\n      - target: \
         tool_results[1].is_error\n        matcher: {{ exact: false }}\n",
        // A secret passed through (`~`) and a plain value the suite writes.
        mock_server("weather", &tools, &[])?.replace(
            "env: []",
            "env: {WEATHER_STATION_CREDENTIAL: ~, INTEROP_REGION: eu-west-1}"
        ),
    );
    let path = dir.join("weather.yml");
    std::fs::write(&path, suite)?;
    Ok(path)
}

fn anthropic_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(anthropic_script);
    let suite_path = weather_suite(dir.path(), "What is the weather in Sacramento and in Oslo?")?;
    let out = record_with(&model, &suite_path)
        .env("WEATHER_STATION_CREDENTIAL", STATION_CREDENTIAL)
        .output()?;
    check(out.status.code() == Some(0), text(&out))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    check(
        stderr.contains("recorded weather lookup [claude-test-1]: 2 run(s), 4 tool call(s)"),
        text(&out),
    )?;

    // What the model API saw: the key and version headers, three requests per run.
    let received = model.received();
    check(received.len() == 6, format!("{} requests", received.len()))?;
    for r in &received {
        check(r.path == "/v1/messages", &r.path)?;
        check(
            r.headers.get("x-api-key").map(String::as_str) == Some(API_KEY),
            "x-api-key",
        )?;
        check(
            r.headers.get("anthropic-version").map(String::as_str) == Some("2023-06-01"),
            "anthropic-version",
        )?;
        check(r.body["max_tokens"] == 512, "max_tokens")?;
    }
    check(
        received[0].body["tools"][0]["name"] == "weather__get_weather",
        "wire name",
    )?;
    // pause_turn: the paused assistant turn goes back as it is, with no new user message.
    check(
        messages(&received[2].body).len() == 4
            && messages(&received[2].body)[3]["role"] == "assistant",
        "pause_turn continuation",
    )?;

    let cassette_path = dir
        .path()
        .join("cassettes/weather/weather-lookup/claude-test-1.json");
    let (raw, value, cassette) = read_cassette(&cassette_path)?;
    check(cassette.runs.len() == 2, "two runs")?;
    let suite = Suite::from_yaml_str(
        &suite_path.display().to_string(),
        &std::fs::read_to_string(&suite_path)?,
    )
    .map_err(|e| e.to_string())?;
    let spec = &suite.agents[0];
    for (i, run) in cassette.runs.iter().enumerate() {
        let calls = &run.trace.tool_calls;
        check(calls.len() == 2, format!("run {i}: {} calls", calls.len()))?;
        check(
            calls
                .iter()
                .all(|c| c.name == "get_weather" && c.server.as_deref() == Some("weather")),
            "names and servers split from the wire name",
        )?;
        check(
            calls[0].args == Some(json!({"city": "Sacramento"}))
                && calls[1].args == Some(json!({"city": "Oslo"})),
            "parallel calls keep their order",
        )?;
        check(calls[0].caller.is_none(), "a direct call has no caller")?;
        check(
            calls[1].caller
                == Some(json!({"type": "code_execution_20250825", "tool_id": "srvtoolu_x1"})),
            format!("caller kept as it came: {:?}", calls[1].caller),
        )?;
        check(
            calls
                .iter()
                .all(|c| matches!((c.started_ms, c.ended_ms), (Some(s), Some(e)) if e >= s)),
            "every call has started_ms <= ended_ms",
        )?;
        let results = &run.trace.tool_results;
        check(
            results.len() == 2 && results.iter().all(|r| !r.is_error && !r.timed_out),
            "two good results",
        )?;
        check(
            results[0].content.as_ref().map(|c| c[0]["text"].clone())
                == Some(json!("Sacramento: 31 C, clear")),
            "result content",
        )?;
        check(
            results[1].content.as_ref().map(|c| c[0]["text"].clone())
                == Some(json!(
                    "Oslo: -4 C, light snow (station credential <redacted:WEATHER_STATION_CREDENTIAL>)"
                )),
            format!("secret env value redacted: {:?}", results[1].content),
        )?;
        let tokens = &run.trace.conversation.tokens;
        check(
            tokens.total == Some(100 + 20 + 50 + 150 + 5 + 50 + 160 + 30 + 50),
            format!("token total with cache tokens: {:?}", tokens.total),
        )?;
        check(
            tokens.extra.get("cache_creation") == Some(&json!(50))
                && tokens.extra.get("cache_read") == Some(&json!(100)),
            "cache tokens counted apart",
        )?;
        // Exchanges: three, fingerprinted; the first is what the suite gives now.
        check(run.exchanges.len() == 3, "three model exchanges")?;
        for (j, e) in run.exchanges.iter().enumerate() {
            let fp = e["request_fingerprint"].as_str().unwrap_or_default();
            check(
                fp.starts_with("sha256:") && fp.len() == 71,
                format!("fingerprint {fp}"),
            )?;
            check(
                request_fingerprint(&received[i * 3 + j].body) == fp,
                format!("run {i} exchange {j}: the fingerprint is the sent body's"),
            )?;
            let headers = &e["request"]["headers"];
            check(
                headers.get("x-api-key").is_none() && headers["anthropic-version"] == "2023-06-01",
                format!("request headers by allow-list: {headers}"),
            )?;
            check(
                e["response_headers"].get("set-cookie").is_none()
                    && e["response_headers"]["request-id"] == "req_test",
                "response headers by allow-list",
            )?;
        }
        let expected = expected_first_request(spec, run).ok_or("the run carries the scheme")?;
        check(
            run.exchanges[0]["request_fingerprint"] == expected.fingerprint(),
            "the first fingerprint is recomputable from suite + recorded tools",
        )?;
        let delta = &run.exchanges[1]["request"]["body_delta"];
        check(
            delta["messages_from"] == 1
                && delta["messages"][1]["content"][1]["tool_use_id"] == "toolu_b",
            format!("later requests stored as deltas: {delta}"),
        )?;
        check(run.meta["stop_reason"] == "end_turn", "stop reason")?;
        check(
            run.meta["tools"]["weather"][0]["name"] == "get_weather",
            "tool list",
        )?;
        let mcp = run.extra["mcp_exchanges"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        check(
            mcp.iter().filter(|m| m["method"] == "tools/call").count() == 2,
            "two MCP tools/call exchanges",
        )?;
        // The mock's annotations reach the cassette, as the narrative check reads them.
        let list = mcp
            .iter()
            .find(|m| m["method"] == "tools/list")
            .ok_or("a tools/list exchange")?;
        check(
            list["server"] == "weather"
                && list["tools"]
                    == json!([{"name": "get_weather",
                               "annotations": {"readOnlyHint": true, "destructiveHint": false}}]),
            format!("the tools/list exchange keeps annotations: {list}"),
        )?;
    }
    check(
        check_cassette(spec, &cassette).is_ok(),
        "fresh cassette is not stale",
    )?;

    // No secret anywhere in the file.
    for secret in [
        API_KEY,
        STATION_CREDENTIAL,
        "abcdefgh12345678",
        "abcdefghijklmnop",
    ] {
        check(
            !raw.contains(secret),
            format!("{secret} reached the cassette"),
        )?;
    }
    check(
        value["runs"][0]["trace"]["final_response"]
            .as_str()
            .is_some_and(|t| t.ends_with("Authorization: Bearer <redacted:bearer-token>)")),
        "bearer token pattern redacted",
    )?;
    // A plain `env:` value is configuration, not a secret: it survives in the prompt and in
    // the recorded server command.
    check(
        value["runs"][0]["trace"]["conversation"]["turns"][0]["content"]
            .as_str()
            .is_some_and(|t| t.ends_with("(region eu-west-1)"))
            && value["runs"][0]["meta"]["server_commands"]["weather"]["env_values"]
                == json!({"INTEROP_REGION": "eu-west-1"}),
        format!(
            "a plain env value survives unredacted: {}",
            value["runs"][0]["meta"]["server_commands"]
        ),
    )?;
    let lint = mcptest()
        .args(["cassette", "lint"])
        .arg(&cassette_path)
        .env("ANTHROPIC_API_KEY", API_KEY)
        .env("WEATHER_STATION_CREDENTIAL", STATION_CREDENTIAL)
        .output()?;
    check(lint.status.code() == Some(0), text(&lint))?;

    // Replay: offline, no key, no servers.
    replays_offline(&suite_path)?;

    // Editing the prompt makes the cassette stale.
    let edited = std::fs::read_to_string(&suite_path)?.replace(
        "prompt: What is the weather in Sacramento and in Oslo?",
        "prompt: What is the weather in Oslo?",
    );
    std::fs::write(&suite_path, edited)?;
    let stale = mcptest()
        .args(["run", "--config"])
        .arg(&suite_path)
        .output()?;
    let shown = text(&stale);
    check(stale.status.code() == Some(2), &shown)?;
    check(
        shown.contains("cassette is stale: ")
            && shown.contains("Record it again with `mcptest run --record --config")
            && shown.contains("--filter \"weather lookup\"")
            && shown.contains("prompt changed since recording"),
        &shown,
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A hung tool: virtual time, recovery gate, wall time.

const REPORT_TOOLS: &str = r#"
tools:
  - name: search
    description: Full-text search over incident reports.
    input_schema:
      type: object
      properties: { q: { type: string } }
      required: [q]
    answers:
      - text: "INC-2291 Payment webhooks delayed"
  - name: list_reports
    description: Most recent incident reports, newest first.
    input_schema:
      type: object
      properties: { limit: { type: integer } }
    answers:
      - text: '[{"id": "INC-2291", "title": "Payment webhooks delayed"}]'
"#;

const DETECTION_MS: u64 = 20_000;
const FAULT_RUNS: u64 = 3;

fn routing_script(body: &Value) -> (u16, Value) {
    let msgs = messages(body);
    let usage = json!({"input_tokens": 40, "output_tokens": 10});
    match msgs.len() {
        1 => (
            200,
            json!({"content": [{"type": "tool_use", "id": "toolu_s", "name": "reports__search",
                                "input": {"q": "latest incident"}}],
                   "stop_reason": "tool_use", "usage": usage}),
        ),
        // The search timed out: route around it.
        3 if last_is_error(body) => (
            200,
            json!({"content": [
                      {"type": "text", "text": "The search timed out; listing reports instead."},
                      {"type": "tool_use", "id": "toolu_l", "name": "reports__list_reports",
                       "input": {"limit": 1}}],
                   "stop_reason": "tool_use", "usage": usage}),
        ),
        3 | 5 => (
            200,
            json!({"content": [{"type": "text", "text": "The latest incident is INC-2291."}],
                   "stop_reason": "end_turn", "usage": usage}),
        ),
        n => bad_request(&format!("unexpected conversation of {n} messages")),
    }
}

fn hung_tool_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(routing_script);
    let tools = dir.path().join("reports-tools.yml");
    std::fs::write(&tools, REPORT_TOOLS)?;
    let suite = format!(
        "servers:\n{}\nfaults:\n  - name: hung-search\n    target: {{ tool: search }}\n    \
         kind: hang\n\nagents:\n  - name: recovers from a hung search tool\n    model: \
         claude-test-1\n    servers: [reports]\n    inject: [hung-search]\n    prompt: Find the \
         latest incident report.\n    runs: {FAULT_RUNS}\n    recovery:\n      \
         max_detection_ms: {DETECTION_MS}\n      max_recovery_ms: 30000\n      \
         require_clean_timeout: true\n",
        mock_server("reports", &tools, &[])?
    );
    let suite_path = dir.path().join("faults.yml");
    std::fs::write(&suite_path, suite)?;

    let started = Instant::now();
    let out = record_with(&model, &suite_path).output()?;
    let wall_ms = started.elapsed().as_millis() as u64;
    // The recording is graded right after: exit 0 means the recovery gate passed.
    check(out.status.code() == Some(0), text(&out))?;
    let injected_ms = FAULT_RUNS * DETECTION_MS;
    eprintln!(
        "fault recording: {wall_ms} ms wall for {FAULT_RUNS} runs whose injected timeouts add \
         up to {injected_ms} ms ({:.1}% of it)",
        wall_ms as f64 * 100.0 / injected_ms as f64
    );
    check(
        wall_ms * 4 < injected_ms,
        format!("recording took {wall_ms} ms, the injected timeouts add up to {injected_ms} ms"),
    )?;

    let path = dir
        .path()
        .join("cassettes/faults/recovers-from-a-hung-search-tool/claude-test-1.json");
    let (_, _, cassette) = read_cassette(&path)?;
    check(cassette.runs.len() as u64 == FAULT_RUNS, "three runs")?;
    for run in &cassette.runs {
        let calls = &run.trace.tool_calls;
        let results = &run.trace.tool_results;
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        check(names == ["search", "list_reports"], format!("{names:?}"))?;
        let (s0, e0) = (
            calls[0].started_ms.unwrap_or(0),
            calls[0].ended_ms.unwrap_or(0),
        );
        check(
            e0 - s0 == DETECTION_MS,
            format!("the timeout ends one budget after the call: {s0}..{e0}"),
        )?;
        check(
            results[0].timed_out && results[0].is_error,
            "a synthesized timeout result",
        )?;
        check(
            calls[1].started_ms.unwrap_or(0) >= e0 && !results[1].is_error,
            "the agent routed around it after the timeout",
        )?;
        check(
            run.meta["faults"][0]["name"] == "hung-search"
                && run.meta["faults"][0]["call_index"] == 0
                && run.meta["virtual_ms"].as_u64().unwrap_or(0) > DETECTION_MS - 1_000,
            format!("fault log: {}", run.meta["faults"]),
        )?;
        let mcp = run.extra["mcp_exchanges"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let search = mcp
            .iter()
            .find(|m| m["params"]["name"] == "search")
            .ok_or("the hung call is logged")?;
        check(
            search["injected"]["sent"] == false && search["timed_out"] == true,
            format!("the hung call was never sent: {search}"),
        )?;
    }
    // The verdict in detail.
    let report = mcptest()
        .args(["run", "--reporter", "json", "--config"])
        .arg(&suite_path)
        .output()?;
    let report_text = String::from_utf8_lossy(&report.stdout);
    check(report.status.code() == Some(0), text(&report))?;
    check(
        report_text.contains(&format!("detected {DETECTION_MS} ms"))
            && report_text.contains("clean_timeout true"),
        &report_text,
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible chat completions.

fn openai_script(body: &Value) -> (u16, Value) {
    let msgs = messages(body);
    let usage = json!({"prompt_tokens": 100, "completion_tokens": 20,
                       "prompt_tokens_details": {"cached_tokens": 30}});
    match msgs.len() {
        1 => (
            200,
            json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "weather__get_weather", "arguments": "{\"city\": \"Sacramento\"}"}},
                    {"id": "call_2", "type": "function",
                     "function": {"name": "weather__get_weather", "arguments": "{city: Oslo"}}
                ]}}], "usage": usage}),
        ),
        4 => {
            let ok = msgs[2]["role"] == "tool"
                && msgs[2]["tool_call_id"] == "call_1"
                && msgs[3]["tool_call_id"] == "call_2"
                && msgs[3]["content"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("error: the arguments are not valid JSON"));
            if !ok {
                return bad_request("tool messages must answer both calls, in order");
            }
            openai_answer("Sacramento is 31 C.", usage)
        }
        n => bad_request(&format!("unexpected conversation of {n} messages")),
    }
}

/// A one-pixel PNG, base64.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAfbLI3wAAAABJRU5ErkJggg==";

/// Calls `chart`, then (given the image as an image part) answers.
fn openai_image_script(body: &Value) -> (u16, Value) {
    let msgs = messages(body);
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5});
    if msgs.len() == 1 {
        return (
            200,
            json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "call_1", "type": "function",
                                "function": {"name": "charts__chart", "arguments": "{}"}}]}}],
                   "usage": usage}),
        );
    }
    let image = &msgs[msgs.len() - 1]["content"][1];
    let ok = msgs[msgs.len() - 2]["role"] == "tool"
        && msgs[msgs.len() - 1]["role"] == "user"
        && image["type"] == "image_url"
        && image["image_url"]["url"] == format!("data:image/png;base64,{PIXEL}");
    if !ok {
        return bad_request("the image must follow the tool message as an image part");
    }
    openai_answer("A single pixel.", usage)
}

/// A chat-completions reply that ends the run with `text`.
fn openai_answer(text: &str, usage: Value) -> (u16, Value) {
    (
        200,
        json!({"choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text}}],
               "usage": usage}),
    )
}

fn openai_images_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(openai_image_script);
    let tools = dir.path().join("chart-tools.yml");
    std::fs::write(
        &tools,
        format!(
            "tools:\n  - name: chart\n    description: Draw the chart.\n    answers:\n      \
             - content:\n          - {{ type: text, text: the chart }}\n          \
             - {{ type: image, data: \"{PIXEL}\", mimeType: image/png }}\n"
        ),
    )?;
    let suite = format!(
        "servers:\n{}\nagents:\n  - name: chart\n    model: qwen-test\n    servers: [charts]\n    \
         prompt: Draw the chart.\n    expect:\n      - target: tool_calls[0].name\n        \
         matcher: {{ exact: chart }}\n",
        mock_server("charts", &tools, &[])?
    );
    let suite_path = dir.path().join("charts.yml");
    std::fs::write(&suite_path, suite)?;
    let out = mcptest()
        .args(["run", "--record", "--provider", "openai", "--config"])
        .arg(&suite_path)
        .env("OPENAI_BASE_URL", format!("{}/v1", model.base_url))
        .env("OPENAI_API_KEY", "sk-local-0123456789abcdefghij")
        .output()?;
    check(out.status.code() == Some(0), text(&out))?;
    let received = model.received();
    check(received.len() == 2, format!("{} requests", received.len()))?;
    let tool_text = messages(&received[1].body)
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    check(
        tool_text.contains("[image 1: image/png") && !tool_text.contains(PIXEL),
        format!("the tool message names the image, without its bytes: {tool_text}"),
    )?;
    // Image data is not mistaken for a secret.
    let cassette = dir.path().join("cassettes/charts/chart/qwen-test.json");
    let out = mcptest()
        .args(["cassette", "lint"])
        .arg(&cassette)
        .output()?;
    check(out.status.code() == Some(0), text(&out))?;
    // Replay, offline: the recording grades with no model.
    replays_offline(&suite_path)
}

fn openai_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(openai_script);
    let tools = dir.path().join("weather-tools.yml");
    std::fs::write(&tools, WEATHER_TOOLS.replace("STATION_CREDENTIAL", "x"))?;
    let suite = format!(
        "servers:\n{}\nagents:\n  - name: local weather\n    model: qwen-test\n    servers: \
         [weather]\n    prompt: Weather in Sacramento and Oslo?\n    expect:\n      - target: \
         tool_calls[0].name\n        matcher: {{ exact: get_weather }}\n",
        mock_server("weather", &tools, &[])?
    );
    let suite_path = dir.path().join("local.yml");
    std::fs::write(&suite_path, suite)?;
    let key = "sk-local-0123456789abcdefghij";
    let out = mcptest()
        .args(["run", "--record", "--provider", "openai", "--config"])
        .arg(&suite_path)
        .env("OPENAI_BASE_URL", format!("{}/v1", model.base_url))
        .env("OPENAI_API_KEY", key)
        .output()?;
    check(out.status.code() == Some(0), text(&out))?;
    let received = model.received();
    check(received.len() == 2, format!("{} requests", received.len()))?;
    check(
        received[0].path == "/v1/chat/completions",
        &received[0].path,
    )?;
    check(
        received[0].headers.get("authorization") == Some(&format!("Bearer {key}")),
        "bearer key sent",
    )?;
    check(
        received[0].body["tools"][0]["function"]["name"] == "weather__get_weather",
        "function tools",
    )?;
    let path = dir
        .path()
        .join("cassettes/local/local-weather/qwen-test.json");
    let (raw, _, cassette) = read_cassette(&path)?;
    check(!raw.contains(key), "the key never reaches the cassette")?;
    let run = &cassette.runs[0];
    let calls = &run.trace.tool_calls;
    check(calls.len() == 2, "two calls")?;
    check(
        calls[1].args.is_none()
            && calls[1].extra.get("raw_arguments") == Some(&json!("{city: Oslo"))
            && calls[1].extra["arguments_error"]
                .as_str()
                .is_some_and(|e| e.contains("not valid JSON")),
        format!("raw arguments and the parse error kept: {:?}", calls[1]),
    )?;
    check(
        run.trace.tool_results[1].is_error && !run.trace.tool_results[0].is_error,
        "the invalid call is an error result",
    )?;
    let mcp = run.extra["mcp_exchanges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    check(
        mcp.iter().filter(|m| m["method"] == "tools/call").count() == 1,
        "the invalid call was not sent to the server",
    )?;
    check(run.meta["provider"] == "openai", "provider recorded")?;
    check(
        run.trace.conversation.tokens.total == Some(240)
            && run.trace.conversation.tokens.extra["cache_read"] == 60,
        format!("tokens: {:?}", run.trace.conversation.tokens),
    )?;
    replays_offline(&suite_path)
}

// ---------------------------------------------------------------------------------------------
// cassette lint

fn lint_catches_planted_secrets() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let planted = json!({"mcptest_cassette": 1, "runs": [{
        "trace": {
            "tool_calls": [{"name": "search", "args": {"q": "x"}}],
            "tool_results": [{"is_error": false, "content": [
                {"type": "text", "text": "config: sk-ant-api03-PLANTEDPLANTEDPLANTED00"}]}]
        },
        "exchanges": [{"request": {"headers": {"authorization": "Bearer planted.token.value"}}}],
        "meta": {"note": "svc token tok-planted-123456789", "plain": "plain-value-123456"}
    }]});
    let dirty = dir.path().join("dirty.json");
    std::fs::write(&dirty, serde_json::to_string_pretty(&planted)?)?;
    let clean = dir.path().join("clean.json");
    std::fs::write(
        &clean,
        r#"{"tool_calls": [{"name": "search", "args": {"key": "<redacted:ANTHROPIC_API_KEY>"}}]}"#,
    )?;
    let out = mcptest()
        .args(["cassette", "lint"])
        .arg(&clean)
        .arg(&dirty)
        .env("MY_SERVICE_TOKEN", "tok-planted-123456789")
        .env("PLAIN_SETTING", "plain-value-123456")
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    check(out.status.code() == Some(1), text(&out))?;
    let d = dirty.display();
    for line in [
        format!(
            "{d}: runs[0].trace.tool_results[0].content[0].text: an Anthropic API key (sk-ant-...)"
        ),
        format!("{d}: runs[0].exchanges[0].request.headers.authorization: a bearer token"),
        format!("{d}: runs[0].meta.note: the value of MY_SERVICE_TOKEN"),
    ] {
        check(
            stdout.lines().any(|l| l == line),
            format!("missing {line:?} in\n{}", text(&out)),
        )?;
    }
    check(
        !stdout.contains(&clean.display().to_string()) && !stdout.contains("PLAIN_SETTING"),
        text(&out),
    )?;
    // A variable whose name does not say it is secret is checked when named.
    let named = mcptest()
        .args(["cassette", "lint", "--secret-env", "PLAIN_SETTING"])
        .arg(&dirty)
        .env("PLAIN_SETTING", "plain-value-123456")
        .output()?;
    check(
        String::from_utf8_lossy(&named.stdout)
            .contains("runs[0].meta.plain: the value of PLAIN_SETTING"),
        text(&named),
    )?;
    let ok = mcptest().args(["cassette", "lint"]).arg(&clean).output()?;
    check(ok.status.code() == Some(0), text(&ok))?;
    let missing = mcptest()
        .args(["cassette", "lint"])
        .arg(dir.path().join("nope.json"))
        .output()?;
    check(missing.status.code() == Some(2), text(&missing))?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Errors

fn recording_errors() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let suite_path = weather_suite(dir.path(), "Hi?")?;
    let no_key = mcptest()
        .args(["run", "--record", "--config"])
        .arg(&suite_path)
        .output()?;
    check(
        no_key.status.code() == Some(2)
            && String::from_utf8_lossy(&no_key.stderr).contains("ANTHROPIC_API_KEY is not set"),
        text(&no_key),
    )?;

    let unknown = dir.path().join("unknown.yml");
    std::fs::write(
        &unknown,
        "agents:\n  - name: a\n    model: m\n    servers: [nowhere]\n    prompt: Hi\n",
    )?;
    let model = FakeModel::start(anthropic_script);
    let out = record_with(&model, &unknown).output()?;
    let shown = text(&out);
    check(
        out.status.code() == Some(2)
            && shown.contains("uses server `nowhere`")
            && shown.contains("servers:\n    nowhere:\n      command:"),
        &shown,
    )?;

    let broken = dir.path().join("broken.yml");
    std::fs::write(
        &broken,
        "servers:\n  gone:\n    command: /nonexistent/mcp-server\nagents:\n  - name: a\n    \
         model: m\n    servers: [gone]\n    prompt: Hi\n",
    )?;
    let out = record_with(&model, &broken).output()?;
    let shown = text(&out);
    check(
        out.status.code() == Some(2)
            && shown.contains("server `gone` did not start")
            && !shown.contains(API_KEY),
        &shown,
    )?;
    check(
        model.received().is_empty(),
        "no model request before the servers run",
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A server reached by URL: `mcptest mock --http`, headers from the environment, replay with
// the server gone.

/// `mcptest mock --http 127.0.0.1:0` serving `tools`, and its endpoint (read from the line it
/// logs at start).
struct HttpMockProcess {
    child: std::process::Child,
    url: String,
}

impl HttpMockProcess {
    fn start(tools: &Path) -> Result<HttpMockProcess, Failed> {
        use std::io::BufRead;
        let mut child = mcptest()
            .args(["mock", "--http", "127.0.0.1:0", "--tools-from"])
            .arg(tools)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let mut lines = std::io::BufReader::new(stderr).lines();
        let mut seen = String::new();
        let url = loop {
            let Some(line) = lines.next().transpose()? else {
                let _ = child.kill();
                return Err(format!("the HTTP mock ended before serving:\n{seen}").into());
            };
            seen.push_str(&line);
            seen.push('\n');
            if let Some(at) = line.find("http://") {
                break line[at..].trim().to_string();
            }
        };
        // Keep draining its log so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Ok(HttpMockProcess { child, url })
    }
}

impl Drop for HttpMockProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP relay in front of `upstream` that keeps every byte clients send (to see the headers
/// that reached the server).
struct Tee {
    addr: std::net::SocketAddr,
    sent: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Tee {
    fn start(upstream: std::net::SocketAddr) -> Result<Tee, Failed> {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = sent.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().take(200) {
                let Ok(mut client) = client else { continue };
                let Ok(mut server) = std::net::TcpStream::connect(upstream) else {
                    continue;
                };
                let (Ok(mut client_w), Ok(mut server_r)) = (client.try_clone(), server.try_clone())
                else {
                    continue;
                };
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut server_r, &mut client_w);
                    let _ = client_w.shutdown(std::net::Shutdown::Write);
                });
                let keep = keep.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 8192];
                    while let Ok(n) = client.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        if let Ok(mut k) = keep.lock() {
                            k.extend_from_slice(&buf[..n]);
                        }
                        if server.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = server.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        Ok(Tee { addr, sent })
    }

    fn sent(&self) -> String {
        self.sent
            .lock()
            .map(|s| String::from_utf8_lossy(&s).into_owned())
            .unwrap_or_default()
    }
}

const URL_TOKEN: &str = "url-token-7d1e44c0a9";

/// The weather suite with its server reached at `url`, its token in a header.
fn url_suite(dir: &Path, url: &str) -> Result<PathBuf, Failed> {
    let stdio = weather_suite(dir, "What is the weather in Sacramento and in Oslo?")?;
    let text = std::fs::read_to_string(&stdio)?;
    let start = text.find("  weather:\n").ok_or("no server entry")?;
    let end = text.find("agents:").ok_or("no agents")?;
    let server = format!(
        "  weather:\n    url: {url}\n    headers:\n      Authorization: \"Bearer ${{WEATHER_TOKEN}}\"\n\n"
    );
    let path = dir.join("remote.yml");
    std::fs::write(&path, format!("{}{server}{}", &text[..start], &text[end..]))?;
    Ok(path)
}

fn url_server_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let tools = dir.path().join("weather-tools.yml");
    std::fs::write(
        &tools,
        WEATHER_TOOLS.replace("STATION_CREDENTIAL", STATION_CREDENTIAL),
    )?;
    let mock = HttpMockProcess::start(&tools)?;
    let mock_addr: std::net::SocketAddr = mock
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()?;
    let tee = Tee::start(mock_addr)?;
    let url = format!("http://127.0.0.1:{}/mcp", tee.addr.port());
    let suite_path = url_suite(dir.path(), &url)?;
    let model = FakeModel::start(anthropic_script);
    let out = record_with(&model, &suite_path)
        .env("WEATHER_TOKEN", URL_TOKEN)
        .env("WEATHER_STATION_CREDENTIAL", STATION_CREDENTIAL)
        .output()?;
    check(out.status.code() == Some(0), text(&out))?;
    check(
        String::from_utf8_lossy(&out.stderr)
            .contains("recorded weather lookup [claude-test-1]: 2 run(s), 4 tool call(s)"),
        text(&out),
    )?;
    let sent = tee.sent().to_ascii_lowercase();
    check(
        sent.contains(&format!(
            "authorization: bearer {}",
            URL_TOKEN.to_ascii_lowercase()
        )),
        format!("the header did not reach the server:\n{sent}"),
    )?;
    check(sent.contains("\"tools/call\""), "calls went over HTTP")?;

    let cassette_path = dir
        .path()
        .join("cassettes/remote/weather-lookup/claude-test-1.json");
    let (raw, value, cassette) = read_cassette(&cassette_path)?;
    check(
        !raw.contains(URL_TOKEN),
        "the header's token is not in the cassette",
    )?;
    check(
        !raw.contains(STATION_CREDENTIAL),
        "a value of the environment named like a credential is redacted",
    )?;
    check(cassette.runs.len() == 2, "two runs")?;
    for run in &cassette.runs {
        let calls = &run.trace.tool_calls;
        check(
            calls.len() == 2 && calls.iter().all(|c| c.name == "get_weather"),
            format!("{calls:?}"),
        )?;
    }
    let meta = &value["runs"][0]["meta"]["server_commands"]["weather"];
    check(
        meta["url"] == json!(url)
            && meta["headers"] == json!(["Authorization: Bearer ${WEATHER_TOKEN}"]),
        format!("how the server was reached: {meta}"),
    )?;

    // Replay: no server, no model, no token.
    drop(tee);
    drop(mock);
    replays_offline(&suite_path)
}

fn url_server_errors() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(anthropic_script);
    let record = |suite: &Path, token: Option<&str>| {
        let mut c = mcptest();
        c.args(["run", "--record", "--config"])
            .arg(suite)
            .env("ANTHROPIC_BASE_URL", &model.base_url)
            .env("ANTHROPIC_API_KEY", API_KEY);
        if let Some(t) = token {
            c.env("WEATHER_TOKEN", t);
        }
        c.output()
    };

    // Nothing listens at the URL.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let suite = url_suite(dir.path(), &format!("http://{closed}/mcp"))?;
    let out = record(&suite, Some(URL_TOKEN))?;
    let shown = text(&out);
    check(
        out.status.code() == Some(2)
            && shown.contains("server `weather` at http://")
            && shown.contains("does not answer")
            && shown.contains("servers.weather.url")
            && !shown.contains(URL_TOKEN),
        &shown,
    )?;

    // The header's variable is not set.
    let out = record(&suite, None)?;
    let shown = text(&out);
    check(
        out.status.code() == Some(2)
            && shown.contains("header Authorization from the environment variable WEATHER_TOKEN")
            && shown.contains("not set"),
        &shown,
    )?;

    // A server that wants other credentials.
    let refusing = FakeModel::start(|_| {
        (
            401,
            json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32001, "message": "unauthorized"}}),
        )
    });
    let suite = url_suite(dir.path(), &format!("{}/mcp", refusing.base_url))?;
    let out = record(&suite, Some(URL_TOKEN))?;
    let shown = text(&out);
    check(
        out.status.code() == Some(2)
            && shown.contains("refused the recorder as unauthorized")
            && shown.contains("headers:")
            && !shown.contains(URL_TOKEN),
        &shown,
    )?;
    check(
        model.received().is_empty(),
        "no model request before the servers answer",
    )?;
    Ok(())
}

fn everything_script(body: &Value) -> (u16, Value) {
    match messages(body).len() {
        1 => (
            200,
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "everything__echo",
                     "input": {"message": "over HTTP"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "everything__get-sum",
                     "input": {"a": 2, "b": 3}}
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 100, "output_tokens": 20}
            }),
        ),
        3 => (
            200,
            json!({
                "id": "msg_2", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "The server echoed it and the sum is 5."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 150, "output_tokens": 10}
            }),
        ),
        n => bad_request(&format!("unexpected conversation of {n} messages")),
    }
}

fn everything_by_url_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let server = EverythingHttp::start()?;
    let suite_path = dir.path().join("everything.yml");
    std::fs::write(
        &suite_path,
        format!(
            "servers:\n  everything:\n    url: {}\nagents:\n  - name: echo and sum\n    \
             model: claude-test-1\n    servers: [everything]\n    prompt: Echo a word, then add 2 and 3.\n    \
             trajectory:\n      mode: strict\n      calls:\n        \
             - {{name: echo, args: {{exact: {{message: over HTTP}}}}}}\n        \
             - {{name: get-sum, args: {{exact: {{a: 2, b: 3}}}}}}\n    expect:\n      \
             - target: tool_results[1].content[0].text\n        matcher: {{regex: \"is 5\\\\.$\"}}\n",
            server.url
        ),
    )?;
    let model = FakeModel::start(everything_script);
    let out = record_with(&model, &suite_path).output()?;
    check(out.status.code() == Some(0), text(&out))?;
    let received = model.received();
    let first = &received.first().ok_or("no model request")?.body;
    check(
        first["system"].to_string().contains("Everything Server"),
        format!(
            "the server's instructions reach the model: {}",
            first["system"]
        ),
    )?;
    check(
        first["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "everything__get-sum")),
        "the server's tools reach the model",
    )?;
    let (_, value, cassette) = read_cassette(
        &dir.path()
            .join("cassettes/everything/echo-and-sum/claude-test-1.json"),
    )?;
    let results = &value["runs"][0]["trace"]["tool_results"];
    check(
        results[0]["content"][0]["text"] == "Echo: over HTTP"
            && results[1]["content"][0]["text"] == "The sum of 2 and 3 is 5.",
        format!("results: {results}"),
    )?;
    check(cassette.runs.len() == 1, "one run")?;

    // Replay with the server gone: exit 0.
    drop(server);
    replays_offline(&suite_path)
}

/// One reply writes to the reference "memory" server and reads the graph back. With
/// `parallel_calls: sequential` the read is sent after the write answered, so it sees it.
fn memory_sequential_e2e() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let script = |body: &Value| match messages(body).len() {
        1 => (
            200,
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                "content": [
                    {"type": "tool_use", "id": "toolu_w", "name": "memory__create_entities",
                     "input": {"entities": [{"name": "deploy", "entityType": "event",
                                             "observations": ["on Friday"]}]}},
                    {"type": "tool_use", "id": "toolu_r", "name": "memory__read_graph",
                     "input": {}}
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "output_tokens": 10}
            }),
        ),
        _ => (
            200,
            json!({
                "id": "msg_2", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "The deploy is on Friday."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 10}
            }),
        ),
    };
    let model = FakeModel::start(script);
    let suite_path = dir.path().join("memory.yml");
    std::fs::write(
        &suite_path,
        format!(
            "servers:\n  memory:\n    command: node\n    args: [{}]\n    \
             env: {{MEMORY_FILE_PATH: {}}}\nagents:\n  - name: remembers\n    model: m\n    \
             servers: [memory]\n    parallel_calls: sequential\n    \
             prompt: Remember that the deploy is on Friday, then read it back.\n    \
             trajectory:\n      mode: strict\n      calls: [create_entities, read_graph]\n",
            quoted(&memory_server()),
            quoted(&dir.path().join("memory.jsonl")),
        ),
    )?;
    let out = record_with(&model, &suite_path).output()?;
    check(out.status.code() == Some(0), text(&out))?;
    let (_, value, _) = read_cassette(&dir.path().join("cassettes/memory/remembers/m.json"))?;
    let run = &value["runs"][0];
    let read = run["trace"]["tool_results"][1].to_string();
    check(
        read.contains("on Friday"),
        format!("the read sees the write: {read}"),
    )?;
    let calls = &run["trace"]["tool_calls"];
    check(
        calls[1]["started_ms"].as_u64() >= calls[0]["ended_ms"].as_u64(),
        format!("one at a time: {calls}"),
    )?;
    check(
        run["meta"]["parallel_calls"] == "sequential",
        "meta says so",
    )?;
    replays_offline(&suite_path)
}
