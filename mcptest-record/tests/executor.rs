//! The recorder as a library: the fault executor in virtual time (`slow`, `recover_after`,
//! a delay past the deadline), a real hang cancelled at the deadline, unknown tools, wire
//! names that needed fitting, `max_turns` and `max_tokens`, and the tool annotations a
//! server lists kept in the cassette.
//!
//! The model is scripted on a local port; the suites' server is the mock MCP server, served
//! by this very executable when started as `executor --serve-mock TOOLS.yml [FAULT]`.

#[path = "../../mcptest-cli/tests/record_support/mod.rs"]
mod record_support;

use libtest_mimic::{Arguments, Failed, Trial};
use mcptest_core::fingerprint::Provider;
use mcptest_core::suite::Suite;
use mcptest_core::trace::Cassette;
use mcptest_record::{ProviderConfig, RecordOptions, Recorder, Recording, RetryPolicy};
use record_support::{FakeModel, messages};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve-mock") {
        let fault = match args.get(3).map(|f| f.parse::<mcptest_mock::Fault>()) {
            None => mcptest_mock::Fault::None,
            Some(Ok(f)) => f,
            Some(Err(e)) => {
                eprintln!("{e}");
                return std::process::ExitCode::from(2);
            }
        };
        let tools = args.get(2).map(String::as_str).unwrap_or("tools.yml");
        let code = mcptest_mock::run(Path::new(tools), fault, mcptest_mock::LogLevel::Off);
        return std::process::ExitCode::from(code);
    }
    let trials = vec![
        Trial::test(
            "slow_and_recover_after_in_virtual_time",
            slow_and_recover_after,
        ),
        Trial::test(
            "a_delay_past_the_deadline_is_a_timeout",
            delay_past_deadline,
        ),
        Trial::test("a_real_hang_is_cancelled_at_the_deadline", real_hang),
        Trial::test(
            "unknown_tools_wire_names_and_max_turns",
            unknown_tools_and_max_turns,
        ),
        Trial::test("max_tokens_ends_the_run", max_tokens_ends_the_run),
        Trial::test(
            "tool_annotations_are_kept_in_the_tools_list_exchange",
            tool_annotations_kept,
        ),
        Trial::test(
            "overload_is_retried_and_refusals_explained",
            retries_and_api_errors,
        ),
        Trial::test(
            "parallel_calls_sequential_runs_a_reply_one_call_at_a_time",
            parallel_calls,
        ),
        Trial::test(
            "the_system_prompt_and_server_instructions_reach_the_model",
            system_prompt_and_instructions,
        ),
        Trial::test(
            "roots_are_declared_and_sampling_and_elicitation_refused",
            client_capabilities,
        ),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

fn check(cond: bool, what: impl std::fmt::Display) -> Result<(), Failed> {
    if cond {
        Ok(())
    } else {
        Err(what.to_string().into())
    }
}

const TOOLS: &str = r#"
tools:
  - name: search.v2
    title: Search
    description: Search the documentation.
    annotations: { readOnlyHint: true, openWorldHint: false }
    input_schema:
      type: object
      properties: { q: { type: string } }
    answers:
      - text: "3 pages"
  - name: open
    description: Open a page.
    input_schema:
      type: object
      properties: { page: { type: string } }
    answers:
      - text: "Install: run the installer."
"#;

/// Writes the tools file and a suite whose `docs` server is this executable serving it
/// (with a server-side `fault` when given); `rest` is appended (faults and agents).
fn suite(
    dir: &Path,
    fault: Option<&str>,
    rest: &str,
) -> Result<(std::path::PathBuf, Suite), Failed> {
    suite_with_tools(dir, TOOLS, fault, rest)
}

/// [`suite`] with this tools file.
fn suite_with_tools(
    dir: &Path,
    tools_text: &str,
    fault: Option<&str>,
    rest: &str,
) -> Result<(std::path::PathBuf, Suite), Failed> {
    let tools = dir.join("tools.yml");
    std::fs::write(&tools, tools_text)?;
    let exe = std::env::current_exe()?;
    let q = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap_or_default();
    let mut args = format!("[--serve-mock, {}", q(&tools));
    if let Some(f) = fault {
        args.push_str(&format!(", {f}"));
    }
    args.push(']');
    let text = format!(
        "servers:\n  docs:\n    command: {}\n    args: {args}\n{rest}",
        q(&exe)
    );
    let path = dir.join("suite.yml");
    std::fs::write(&path, &text)?;
    let suite =
        Suite::from_yaml_str(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    Ok((path, suite))
}

fn recorder(model: &FakeModel, call_timeout_ms: u64) -> Result<Recorder, Failed> {
    recorder_with_retries(model, call_timeout_ms, 1)
}

fn recorder_with_retries(
    model: &FakeModel,
    call_timeout_ms: u64,
    attempts: u32,
) -> Result<Recorder, Failed> {
    let config = ProviderConfig::from_lookup(Provider::Anthropic, |k| match k {
        "ANTHROPIC_BASE_URL" => Some(model.base_url.clone()),
        "ANTHROPIC_API_KEY" => Some("test-key-not-secret".into()),
        _ => None,
    })?;
    let mut options = RecordOptions::new(config);
    options.progress = false;
    options.call_timeout_ms = call_timeout_ms;
    options.retry = RetryPolicy {
        attempts,
        base_delay: Duration::from_millis(10),
    };
    Ok(Recorder::new(options)?)
}

fn record(
    dir: &Path,
    model: &FakeModel,
    fault: Option<&str>,
    rest: &str,
) -> Result<(Recording, Cassette), Failed> {
    record_with_timeout(
        dir,
        model,
        fault,
        rest,
        mcptest_record::DEFAULT_CALL_TIMEOUT_MS,
    )
}

fn record_with_timeout(
    dir: &Path,
    model: &FakeModel,
    fault: Option<&str>,
    rest: &str,
    call_timeout_ms: u64,
) -> Result<(Recording, Cassette), Failed> {
    let (path, suite) = suite(dir, fault, rest)?;
    let recording =
        recorder(model, call_timeout_ms)?.record_agent(&path, &suite, &suite.agents[0])?;
    let cassette = Cassette::from_value(&recording.cassette).map_err(|e| e.to_string())?;
    Ok((recording, cassette))
}

/// The names of a run's calls, in order.
fn call_names(run: &mcptest_core::trace::Run) -> Vec<&str> {
    run.trace
        .tool_calls
        .iter()
        .map(|c| c.name.as_str())
        .collect()
}

/// The wire name the request offered for `tool`.
fn wire(body: &Value, tool: &str) -> String {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|n| n.contains(tool.split('.').next().unwrap_or(tool)))
        .unwrap_or("missing")
        .to_string()
}

fn tool_use(id: &str, name: &str, input: Value) -> (u16, Value) {
    (
        200,
        json!({"content": [{"type": "tool_use", "id": id, "name": name, "input": input}],
               "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

fn end(text: &str) -> (u16, Value) {
    (
        200,
        json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
               "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

/// search until it answers, then open, then stop.
fn persistent_script(body: &Value) -> (u16, Value) {
    let msgs = messages(body);
    let n = msgs.len();
    let search = wire(body, "search.v2");
    if n == 1 {
        return tool_use("t1", &search, json!({"q": "install"}));
    }
    let last_call = msgs[n - 2]["content"][0]["name"]
        .as_str()
        .unwrap_or_default();
    let failed = msgs[n - 1]["content"][0]["is_error"] == true;
    match (last_call == search, failed) {
        (true, true) => tool_use(&format!("t{n}"), &search, json!({"q": "install"})),
        (true, false) => tool_use(&format!("t{n}"), "docs__open", json!({"page": "install"})),
        _ => end("Opened the install page."),
    }
}

fn slow_and_recover_after() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(persistent_script);
    let started = Instant::now();
    let (recording, cassette) = record(
        dir.path(),
        &model,
        None,
        "faults:\n  - name: flaky-search\n    target: { tool: search.v2, server: docs }\n    \
         kind: recover_after\n    failures: 2\n  - name: slow-open\n    target: { tool: open }\n    \
         kind: slow\n    delay_ms: 1500\nagents:\n  - name: retries\n    model: m\n    \
         servers: [docs]\n    inject: [flaky-search, slow-open]\n    prompt: Open the install page.\n    \
         recovery: { max_detection_ms: 5000, max_recovery_ms: 20000 }\n",
    )?;
    let wall = started.elapsed();
    let run = &cassette.runs[0];
    let names = call_names(run);
    check(
        names == ["search.v2", "search.v2", "search.v2", "open"],
        format!("{names:?}"),
    )?;
    let spans: Vec<(u64, u64)> = run
        .trace
        .tool_calls
        .iter()
        .map(|c| (c.started_ms.unwrap_or(0), c.ended_ms.unwrap_or(0)))
        .collect();
    let timed_out: Vec<bool> = run.trace.tool_results.iter().map(|r| r.timed_out).collect();
    check(
        timed_out == [true, true, false, false],
        format!("{timed_out:?}"),
    )?;
    check(
        spans[0].1 - spans[0].0 == 5000 && spans[1].1 - spans[1].0 == 5000,
        format!("two timeouts of one budget each: {spans:?}"),
    )?;
    check(
        spans[1].0 >= spans[0].1,
        format!("calls follow each other: {spans:?}"),
    )?;
    check(
        spans[3].1 - spans[3].0 >= 1500 && spans[3].1 - spans[3].0 < 5000,
        format!("the slow call answers after its delay: {spans:?}"),
    )?;
    let faults: Vec<(String, u64)> = run.meta["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["name"].as_str().unwrap_or("").to_string(),
                f["call_index"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    check(
        faults
            == [
                ("flaky-search".to_string(), 0),
                ("flaky-search".to_string(), 1),
                ("slow-open".to_string(), 3),
            ],
        format!("{faults:?}"),
    )?;
    check(
        recording.virtual_ms() >= 11_000 && wall < Duration::from_secs(5),
        format!(
            "{} ms of virtual time took {} ms of wall time",
            recording.virtual_ms(),
            wall.as_millis()
        ),
    )?;
    Ok(())
}

fn delay_past_deadline() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(|body: &Value| match messages(body).len() {
        1 => tool_use("t1", "docs__open", json!({"page": "install"})),
        _ => end("It timed out."),
    });
    let (_, cassette) = record(
        dir.path(),
        &model,
        None,
        "faults:\n  - name: very-slow\n    target: { server: docs }\n    kind: slow\n    \
         delay_ms: 9000\nagents:\n  - name: a\n    model: m\n    servers: [docs]\n    \
         inject: [very-slow]\n    prompt: Open it.\n    recovery: { max_detection_ms: 4000 }\n",
    )?;
    let run = &cassette.runs[0];
    let call = &run.trace.tool_calls[0];
    check(
        run.trace.tool_results[0].timed_out
            && call.ended_ms.unwrap_or(0) - call.started_ms.unwrap_or(0) == 4000,
        format!("{call:?}"),
    )?;
    let mcp = run.extra["mcp_exchanges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let open = mcp
        .iter()
        .find(|m| m["method"] == "tools/call")
        .ok_or("logged")?;
    check(
        open["injected"]["sent"] == true
            && open["timed_out"] == true
            && open["late_result"].is_object(),
        format!("sent, answered, and still too late: {open}"),
    )?;
    Ok(())
}

fn real_hang() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(|body: &Value| match messages(body).len() {
        1 => tool_use("t1", "docs__open", json!({"page": "install"})),
        _ => end("The docs server does not answer."),
    });
    let started = Instant::now();
    // No `recovery:` block: the recorder's default per-call deadline applies.
    let (_, cassette) = record_with_timeout(
        dir.path(),
        &model,
        Some("hang"),
        "agents:\n  - name: a\n    model: m\n    servers: [docs]\n    prompt: Open it.\n    \
         max_turns: 4\n",
        300,
    )?;
    let wall = started.elapsed();
    let run = &cassette.runs[0];
    let call = &run.trace.tool_calls[0];
    let result = &run.trace.tool_results[0];
    check(
        result.timed_out && result.is_error,
        format!("a real timeout: {result:?}"),
    )?;
    check(
        call.ended_ms.unwrap_or(0) - call.started_ms.unwrap_or(0) == 300,
        format!("{call:?}"),
    )?;
    let mcp = run.extra["mcp_exchanges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let open = mcp
        .iter()
        .find(|m| m["method"] == "tools/call")
        .ok_or("logged")?;
    check(open["cancelled"] == true, format!("cancelled: {open}"))?;
    check(
        wall >= Duration::from_millis(300) && wall < Duration::from_secs(8),
        format!(
            "a real hang costs its deadline, no more: {} ms",
            wall.as_millis()
        ),
    )?;
    check(
        run.meta["stop_reason"] == "end_turn",
        "the run ends normally",
    )?;
    Ok(())
}

fn unknown_tools_and_max_turns() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(|body: &Value| {
        let n = messages(body).len();
        if n == 1 {
            tool_use("t1", "docs__nope", json!({}))
        } else {
            tool_use(
                &format!("t{n}"),
                &wire(body, "search.v2"),
                json!({"q": "again"}),
            )
        }
    });
    let (_, cassette) = record(
        dir.path(),
        &model,
        None,
        "agents:\n  - name: a\n    model: m\n    servers: [docs]\n    prompt: Search.\n    \
         max_turns: 3\n",
    )?;
    let received = model.received();
    let offered = wire(&received[0].body, "search.v2");
    check(
        offered.starts_with("docs__search_v2-") && offered.len() == "docs__search_v2-".len() + 8,
        format!("a wire name made to fit: {offered}"),
    )?;
    let run = &cassette.runs[0];
    check(
        received.len() == 3,
        format!("{} requests for max_turns 3", received.len()),
    )?;
    check(
        run.meta["stop_reason"] == "max_turns",
        &run.meta["stop_reason"],
    )?;
    check(
        run.meta["wire_names"][&offered] == json!({"server": "docs", "tool": "search.v2"}),
        format!("wire names kept: {}", run.meta["wire_names"]),
    )?;
    let first = &run.trace.tool_calls[0];
    check(
        first.name == "nope" && first.server.as_deref() == Some("docs"),
        format!("{first:?}"),
    )?;
    let text = run.trace.tool_results[0]
        .content
        .clone()
        .unwrap_or_default()[0]["text"]
        .clone();
    check(
        run.trace.tool_results[0].is_error
            && text
                .as_str()
                .is_some_and(|t| t.contains("there is no tool named `docs__nope`")),
        format!("{text}"),
    )?;
    check(
        run.trace.tool_calls[1].name == "search.v2" && !run.trace.tool_results[1].is_error,
        "the fitted wire name reaches the real tool",
    )?;
    let mcp = run.extra["mcp_exchanges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    check(
        mcp.iter().filter(|m| m["method"] == "tools/call").count() == 2,
        "the unknown tool was never sent",
    )?;
    Ok(())
}

fn tool_annotations_kept() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(|_: &Value| end("Nothing to do."));
    let (_, cassette) = record(
        dir.path(),
        &model,
        None,
        "agents:\n  - name: a\n    model: m\n    servers: [docs]\n    prompt: Hi.\n",
    )?;
    let run = &cassette.runs[0];
    let mcp = run.extra["mcp_exchanges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let list = mcp
        .iter()
        .find(|m| m["method"] == "tools/list")
        .ok_or("a tools/list exchange")?;
    check(list["server"] == "docs", format!("{list}"))?;
    // Name, title and annotations only: no description, no schema.
    check(
        list["tools"]
            == json!([
                {"name": "search.v2", "title": "Search",
                 "annotations": {"readOnlyHint": true, "openWorldHint": false}},
                {"name": "open"},
            ]),
        format!("the listed tools: {}", list["tools"]),
    )?;
    check(
        list["started_ms"].is_u64() && list["ended_ms"].is_u64(),
        format!("timed: {list}"),
    )?;
    Ok(())
}

fn max_tokens_ends_the_run() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(|_: &Value| {
        (
            200,
            json!({"content": [{"type": "text", "text": "Let me sear"}],
                   "stop_reason": "max_tokens", "usage": {"input_tokens": 5, "output_tokens": 16}}),
        )
    });
    let (_, cassette) = record(
        dir.path(),
        &model,
        None,
        "agents:\n  - name: a\n    model: m\n    servers: [docs]\n    prompt: Search.\n    \
         max_tokens: 16\n    runs: 2\n",
    )?;
    check(cassette.runs.len() == 2, "two runs")?;
    for run in &cassette.runs {
        check(
            run.meta["stop_reason"] == "max_tokens",
            &run.meta["stop_reason"],
        )?;
        check(run.trace.tool_calls.is_empty(), "no call")?;
        check(run.trace.conversation.tokens.total == Some(21), "tokens")?;
    }
    check(
        model.received()[0].body["max_tokens"] == 16,
        "max_tokens sent",
    )?;
    Ok(())
}

fn retries_and_api_errors() -> Result<(), Failed> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir()?;
    let seen = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let model = FakeModel::start(move |_: &Value| {
        if counter.fetch_add(1, Ordering::SeqCst) == 0 {
            (
                529,
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            )
        } else {
            end("Hello.")
        }
    });
    let (path, suite) = suite(
        dir.path(),
        None,
        "agents:\n  - name: a\n    model: m\n    servers: [docs]\n    prompt: Hi.\n",
    )?;
    let recording =
        recorder_with_retries(&model, 30_000, 3)?.record_agent(&path, &suite, &suite.agents[0])?;
    check(seen.load(Ordering::SeqCst) == 2, "one retry after 529")?;
    check(
        recording.cassette["runs"][0]["meta"]["stop_reason"] == "end_turn",
        "recorded after the retry",
    )?;

    let refusing = FakeModel::start(|_: &Value| {
        (
            401,
            json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        )
    });
    let err = recorder_with_retries(&refusing, 30_000, 3)?
        .record_agent(&path, &suite, &suite.agents[0])
        .err()
        .ok_or("a 401 fails the recording")?
        .to_string();
    check(
        err.contains("answered 401: invalid x-api-key; check the API key"),
        &err,
    )?;
    check(refusing.received().len() == 1, "a 401 is not retried")?;
    Ok(())
}

/// One reply asking for two calls (a search the suite slows by 1,500 virtual ms, then an
/// open), then the end.
fn two_calls_at_once(body: &Value) -> (u16, Value) {
    if messages(body).len() > 1 {
        return end("Searched and opened.");
    }
    let search = wire(body, "search.v2");
    (
        200,
        json!({"content": [
                  {"type": "tool_use", "id": "t1", "name": search, "input": {"q": "install"}},
                  {"type": "tool_use", "id": "t2", "name": "docs__open", "input": {"page": "install"}}
               ],
               "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

fn parallel_calls() -> Result<(), Failed> {
    let spans_of = |mode: Option<&str>| -> Result<(Vec<(u64, u64)>, Value), Failed> {
        let dir = tempfile::tempdir()?;
        let model = FakeModel::start(two_calls_at_once);
        let line = mode.map_or(String::new(), |m| format!("    parallel_calls: {m}\n"));
        let (_, cassette) = record(
            dir.path(),
            &model,
            None,
            &format!(
                "faults:\n  - name: slow-search\n    target: {{ tool: search.v2 }}\n    \
                 kind: slow\n    delay_ms: 1500\nagents:\n  - name: both\n    model: m\n    \
                 servers: [docs]\n    inject: [slow-search]\n{line}    prompt: Open the page.\n"
            ),
        )?;
        let run = &cassette.runs[0];
        let names = call_names(run);
        check(
            names == ["search.v2", "open"],
            format!("model order kept: {names:?}"),
        )?;
        let spans = run
            .trace
            .tool_calls
            .iter()
            .map(|c| (c.started_ms.unwrap_or(0), c.ended_ms.unwrap_or(0)))
            .collect();
        Ok((spans, run.meta["parallel_calls"].clone()))
    };
    // Concurrent (the default): both calls start with the turn; the slow one ends later.
    let (spans, meta) = spans_of(None)?;
    check(meta == "concurrent", format!("meta: {meta}"))?;
    check(
        spans[1].0 == spans[0].0 && spans[0].1 >= spans[0].0 + 1500 && spans[1].1 < spans[0].1,
        format!("concurrent: {spans:?}"),
    )?;
    // Sequential: the open is sent when the slow search has answered.
    let (spans, meta) = spans_of(Some("sequential"))?;
    check(meta == "sequential", format!("meta: {meta}"))?;
    check(
        spans[0].1 >= spans[0].0 + 1500 && spans[1].0 == spans[0].1 && spans[1].1 >= spans[1].0,
        format!("sequential: {spans:?}"),
    )?;

    // Against a server that really takes 300 ms per call, the calls are really sent one at a
    // time: the second is sent only when the first has answered.
    let wall_of = |mode: &str| -> Result<(u64, Vec<(u64, u64)>), Failed> {
        let dir = tempfile::tempdir()?;
        let model = FakeModel::start(two_calls_at_once);
        let (recording, cassette) = record(
            dir.path(),
            &model,
            Some("slow:300"),
            &format!(
                "agents:\n  - name: both\n    model: m\n    servers: [docs]\n    \
                 parallel_calls: {mode}\n    prompt: Open the page.\n"
            ),
        )?;
        let spans = cassette.runs[0]
            .trace
            .tool_calls
            .iter()
            .map(|c| (c.started_ms.unwrap_or(0), c.ended_ms.unwrap_or(0)))
            .collect();
        Ok((recording.wall_ms(), spans))
    };
    let (wall, spans) = wall_of("sequential")?;
    check(
        spans[0].1 >= spans[0].0 + 300
            && spans[1].0 >= spans[0].1
            && spans[1].1 >= spans[1].0 + 300,
        format!("sequential against a slow server: {spans:?}"),
    )?;
    check(
        wall >= 600,
        format!("sequential calls took {wall} ms of wall time"),
    )?;
    // Concurrent: both are sent at once, so both wait out the server's delay from the start.
    let (_, spans) = wall_of("concurrent")?;
    check(
        spans[1].0 == spans[0].0 && spans.iter().all(|(a, b)| *b >= a + 300),
        format!("concurrent against a slow server: {spans:?}"),
    )
}

fn system_prompt_and_instructions() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let model = FakeModel::start(|_| end("Done."));
    let tools = format!("server:\n  instructions: Search before you open.\n{TOOLS}");
    let (path, suite) = suite_with_tools(
        dir.path(),
        &tools,
        None,
        "system: Be brief.\nagents:\n  - name: a\n    model: m\n    servers: [docs]\n    \
         prompt: Open the install page.\n",
    )?;
    let spec = &suite.agents[0];
    check(
        spec.system.as_deref() == Some("Be brief."),
        "the suite's system: reaches the agent",
    )?;
    let recording = recorder(&model, 5_000)?.record_agent(&path, &suite, spec)?;
    let cassette = Cassette::from_value(&recording.cassette).map_err(|e| e.to_string())?;
    let expected = "Be brief.\n\nInstructions from the `docs` MCP server:\nSearch before you open.";
    let sent = model.received()[0].body["system"].clone();
    check(sent == expected, format!("first request's system: {sent}"))?;
    check(
        cassette.runs[0].meta["system"] == expected,
        format!("meta.system: {}", cassette.runs[0].meta["system"]),
    )?;
    // Replay: the same suite gives the recorded first request; another system prompt does not.
    check(
        mcptest_core::fingerprint::check_cassette(spec, &cassette).is_ok(),
        "the recording is not stale under its own suite",
    )?;
    let mut changed = spec.clone();
    changed.system = Some("Be thorough.".into());
    let stale = mcptest_core::fingerprint::check_cassette(&changed, &cassette)
        .err()
        .ok_or("a changed system prompt makes the cassette stale")?;
    check(stale.changed == ["system"], format!("{stale}"))?;
    Ok(())
}

/// A real server (official Python SDK) asks the recorder for its roots, a sampled message and
/// an elicited answer: the roots are the suite's, the other two are refused with a reason, and
/// all three requests are kept in the run's MCP exchanges.
fn client_capabilities() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("workspace"))?;
    let model = FakeModel::start(|body: &Value| {
        if messages(body).len() > 1 {
            return end("Done.");
        }
        let uses: Vec<Value> = ["where", "think", "ask"]
            .iter()
            .enumerate()
            .map(|(i, t)| {
                json!({"type": "tool_use", "id": format!("t{i}"),
                                 "name": format!("probe__{t}"), "input": {}})
            })
            .collect();
        (
            200,
            json!({"content": uses, "stop_reason": "tool_use",
                   "usage": {"input_tokens": 1, "output_tokens": 1}}),
        )
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/probe_server.py");
    let q = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap_or_default();
    let text = format!(
        "servers:\n  probe:\n    command: {}\n    args: [{}]\nroots: [workspace]\nagents:\n  \
         - name: probe\n    model: m\n    servers: [probe]\n    parallel_calls: sequential\n    \
         prompt: Probe the client.\n",
        q(&record_support::sdk_python()),
        q(&script)
    );
    let path = dir.path().join("suite.yml");
    std::fs::write(&path, &text)?;
    let suite =
        Suite::from_yaml_str(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    check(suite.roots == ["workspace"], format!("{:?}", suite.roots))?;
    let recording = recorder(&model, 10_000)?.record_agent(&path, &suite, &suite.agents[0])?;
    let cassette = Cassette::from_value(&recording.cassette).map_err(|e| e.to_string())?;
    let run = &cassette.runs[0];
    let texts: Vec<String> = run
        .trace
        .tool_results
        .iter()
        .map(|r| mcptest_core::trace::content_text(r.content.as_ref().unwrap_or(&Value::Null)))
        .collect();
    let workspace = std::fs::canonicalize(dir.path().join("workspace"))?;
    check(
        texts[0] == format!("roots: workspace file://{}", workspace.display()),
        format!("roots: {texts:?}"),
    )?;
    check(
        texts[1].starts_with("sampling refused")
            && texts[1].contains("sampling is not supported while recording"),
        format!("sampling: {texts:?}"),
    )?;
    check(
        texts[2].starts_with("elicitation refused") && texts[2].contains("no user to ask"),
        format!("elicitation: {texts:?}"),
    )?;
    let asked: Vec<&str> = run.extra["mcp_exchanges"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["from"] == "server")
        .filter_map(|e| e["method"].as_str())
        .collect();
    check(
        asked == ["roots/list", "sampling/createMessage", "elicitation/create"],
        format!("{asked:?}"),
    )?;

    // Without `roots:`, a server that needs them is told how to give them.
    let text = text.replace("roots: [workspace]\n", "");
    std::fs::write(&path, &text)?;
    let suite =
        Suite::from_yaml_str(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    let recording = recorder(&model, 10_000)?.record_agent(&path, &suite, &suite.agents[0])?;
    let cassette = Cassette::from_value(&recording.cassette).map_err(|e| e.to_string())?;
    let where_result = &cassette.runs[0].trace.tool_results[0];
    let said =
        mcptest_core::trace::content_text(where_result.content.as_ref().unwrap_or(&Value::Null));
    check(
        where_result.is_error && said.contains("add `roots: [./folder]`"),
        format!("a server asking for roots the suite lacks: {said}"),
    )
}
