//! `mcptest proxy`: a transparent MCP proxy on stdio that records a client's session.
//!
//! Any MCP client (a team's own agent, an IDE, an SDK) starts `mcptest proxy --output F --
//! SERVER COMMAND...` instead of the server. Every JSON-RPC line is passed through unchanged in
//! both directions; each request is paired with its answer by id and timed from the start of
//! the session. When the client ends the session (its input closes) and the server exits, the
//! session becomes one run appended to the cassette `F`: every `tools/call` with its arguments,
//! result, start and end; the server's `initialize` answer and tool list in `meta`; every MCP
//! exchange in `mcp_exchanges`; secrets redacted. The proxy sees MCP traffic only, so the run
//! has no conversation: the gates that read calls and results grade it.

#[cfg(feature = "record")]
mod http;

use crate::lint::known_values;
use mcptest_core::secrets::Redactor;
use mcptest_core::trace::Cassette;
use mcptest_mock::Fault;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `mcptest proxy`.
#[derive(Debug, clap::Args)]
pub struct ProxyArgs {
    /// The cassette the session is appended to as one run (created when missing).
    #[arg(long, short = 'o', value_name = "CASSETTE.json")]
    pub output: PathBuf,
    /// The server's name in the cassette (each call's `server`); default: the command's name,
    /// or the upstream URL's host.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// A fault injected into `tools/call` on the way: `hang` and `wedged` (the call is held
    /// back and never answered), `recover-after:<n>` (the first n calls of each tool are held
    /// back), `slow:<ms>` (the answer is passed on ms later), `reply-after-cancel:<ms>` (the
    /// same, and the client's cancellation is not passed on).
    #[arg(long, value_name = "KIND", default_value = "none")]
    pub fault: mcptest_mock::Fault,
    /// Inject the fault only into calls of this tool (default: every tool).
    #[arg(long, value_name = "NAME")]
    pub fault_tool: Option<String>,
    /// Listen for MCP clients over Streamable HTTP on this address (`127.0.0.1:8932`; port 0
    /// picks a free one) instead of starting a stdio server; needs `--upstream`.
    #[arg(
        long,
        value_name = "ADDR",
        requires = "upstream",
        conflicts_with = "command"
    )]
    pub listen: Option<String>,
    /// The MCP endpoint of the Streamable HTTP server the clients of `--listen` are passed to.
    #[arg(long, value_name = "URL", requires = "listen")]
    pub upstream: Option<String>,
    /// The MCP server to start (stdio), with its arguments, after `--`.
    #[arg(
        last = true,
        required_unless_present = "listen",
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
}

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Client,
    Server,
}

impl Side {
    fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }
}

/// What the proxy saw of one session.
#[derive(Default, Clone)]
struct Session {
    /// Requests and notifications, in the order they were sent, with their answers.
    exchanges: Vec<Map<String, Value>>,
    /// Unanswered requests: (sender, id as JSON text) -> index into `exchanges`.
    pending: HashMap<(Side, String), usize>,
    /// The fault to inject, and the tool it is limited to.
    fault: Fault,
    fault_tool: Option<String>,
    /// Calls seen per tool (for `recover-after`).
    calls_of: HashMap<String, u64>,
    /// Client requests (id as JSON text) whose answer is delayed, by how many ms.
    delayed: HashMap<String, u64>,
    /// Client requests (id as JSON text) whose cancellation is not passed on.
    keep_cancelled: Vec<String>,
}

/// What the proxy does with one line from the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Passes it on to the server.
    On,
    /// Holds it back (an injected hang, or a cancellation a fault ignores).
    Back,
}

/// What noting a server line found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Noted {
    /// No exchange was completed.
    Nothing,
    /// An answer completed an exchange; pass it on after this many ms.
    Answer { delay_ms: u64 },
}

impl Session {
    /// Notes every JSON-RPC message of a line (one message or a batch; `None` for a line that
    /// is not JSON), sent by `from` at `ms`.
    fn note(&mut self, from: Side, line: Option<&Value>, ms: u64) -> Noted {
        let mut noted = Noted::Nothing;
        let messages = match line {
            None => &[][..],
            Some(Value::Array(batch)) => batch.as_slice(),
            Some(one) => std::slice::from_ref(one),
        };
        for m in messages {
            let Value::Object(m) = m else { continue };
            let id = m.get("id").filter(|id| !id.is_null()).map(Value::to_string);
            match (m.get("method").and_then(Value::as_str), id) {
                (Some(method), id) => {
                    let mut e = Map::new();
                    e.insert("from".into(), from.as_str().into());
                    e.insert("method".into(), method.into());
                    if let Some(p) = m.get("params") {
                        e.insert("params".into(), p.clone());
                    }
                    e.insert("started_ms".into(), ms.into());
                    if let Some(id) = id {
                        e.insert("id".into(), m["id"].clone());
                        self.pending.insert((from, id), self.exchanges.len());
                    }
                    self.exchanges.push(e);
                }
                (None, Some(id)) => {
                    // An answer goes the other way from its request.
                    let asker = match from {
                        Side::Client => Side::Server,
                        Side::Server => Side::Client,
                    };
                    let delay_ms = match asker {
                        Side::Client => self.delayed.remove(&id).unwrap_or(0),
                        Side::Server => 0,
                    };
                    if let Some(i) = self.pending.remove(&(asker, id)) {
                        let e = &mut self.exchanges[i];
                        for key in ["result", "error"] {
                            if let Some(v) = m.get(key) {
                                e.insert(key.into(), v.clone());
                            }
                        }
                        // When the client got it: a delayed answer arrives later.
                        e.insert("ended_ms".into(), ms.saturating_add(delay_ms).into());
                        noted = Noted::Answer { delay_ms };
                    }
                }
                (None, None) => {}
            }
        }
        noted
    }

    /// Decides what happens to a line from the client that [`note`](Self::note) has seen: a
    /// `tools/call` the fault applies to is held back or has its answer delayed (a batch is
    /// passed on untouched).
    fn intercept(&mut self, line: Option<&Value>) -> Pass {
        let Some(Value::Object(m)) = line.filter(|_| self.fault != Fault::None) else {
            return Pass::On;
        };
        let method = m.get("method").and_then(Value::as_str);
        if method == Some("notifications/cancelled") {
            let id = m
                .get("params")
                .and_then(|p| p.get("requestId"))
                .map(Value::to_string);
            return match id {
                Some(id) if self.keep_cancelled.contains(&id) => Pass::Back,
                _ => Pass::On,
            };
        }
        let tool = m
            .get("params")
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str);
        let (Some("tools/call"), Some(tool), Some(id)) = (method, tool, m.get("id")) else {
            return Pass::On;
        };
        if self.fault_tool.as_deref().is_some_and(|t| t != tool) {
            return Pass::On;
        }
        let id = id.to_string();
        let seen = self.calls_of.entry(tool.to_string()).or_insert(0);
        *seen += 1;
        let (pass, injected) = match self.fault {
            Fault::None => return Pass::On,
            Fault::Hang | Fault::Wedged => (Pass::Back, json!({"sent": false})),
            Fault::RecoverAfter { calls } if *seen <= calls => {
                (Pass::Back, json!({"sent": false, "failures": calls}))
            }
            Fault::RecoverAfter { .. } => return Pass::On,
            Fault::Slow { ms } => {
                self.delayed.insert(id.clone(), ms);
                (Pass::On, json!({"sent": true, "delay_ms": ms}))
            }
            Fault::ReplyAfterCancel { ms } => {
                self.delayed.insert(id.clone(), ms);
                self.keep_cancelled.push(id.clone());
                (Pass::On, json!({"sent": true, "delay_ms": ms}))
            }
        };
        if let Some(&i) = self.pending.get(&(Side::Client, id)) {
            let mut injected = injected;
            injected["fault"] = self.fault.to_string().into();
            self.exchanges[i].insert("injected".into(), injected);
        }
        pass
    }
}

/// Runs the proxy; returns the exit code.
pub fn run(args: &ProxyArgs) -> u8 {
    let outcome = match (&args.listen, &args.upstream) {
        (Some(listen), Some(upstream)) => proxy_over_http(args, listen, upstream),
        _ => proxy(args),
    };
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

#[cfg(feature = "record")]
fn proxy_over_http(args: &ProxyArgs, listen: &str, upstream: &str) -> Result<(), String> {
    http::proxy_http(args, listen, upstream)
}

#[cfg(not(feature = "record"))]
fn proxy_over_http(_: &ProxyArgs, _: &str, _: &str) -> Result<(), String> {
    Err(
        "this build of mcptest has no HTTP proxy (it is part of the `record` feature); \
         build it with default features"
            .into(),
    )
}

fn proxy(args: &ProxyArgs) -> Result<(), String> {
    let (program, rest) = args
        .command
        .split_first()
        .ok_or("name the server to start after `--`: mcptest proxy --output F -- COMMAND")?;
    let name = args.name.clone().unwrap_or_else(|| {
        Path::new(program)
            .file_stem()
            .map_or("server".into(), |s| s.to_string_lossy().into_owned())
    });
    // Fail before the session, not after it: the cassette must be one this run can join.
    let existing = read_existing(&args.output)?;
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("could not start `{program}`: {e}"))?;
    let start = Instant::now();
    let ms = move || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let session = Arc::new(Mutex::new(Session {
        fault: args.fault,
        fault_tool: args.fault_tool.clone(),
        ..Session::default()
    }));

    // Client -> server, on a thread: it may still be reading when the server exits.
    let mut to_server = child
        .stdin
        .take()
        .ok_or("the server's input is not a pipe")?;
    let up = session.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let message = serde_json::from_str::<Value>(&line).ok();
            let pass = up.lock().map_or(Pass::On, |mut s| {
                s.note(Side::Client, message.as_ref(), ms());
                s.intercept(message.as_ref())
            });
            if pass == Pass::Back {
                continue;
            }
            if writeln!(to_server, "{line}")
                .and_then(|()| to_server.flush())
                .is_err()
            {
                break;
            }
        }
        // Dropping the pipe closes the server's input: the session is over.
    });

    // Server -> client, here. The cassette is rewritten after each answer, so a client that
    // ends the session by killing the proxy still leaves every completed exchange recorded.
    let redactor = Redactor::new(known_values(&[]));
    let save = |session: Session, exit: Option<i32>| {
        let mut run = assemble(&name, &args.command, session, ms(), exit);
        redactor.redact(&mut run);
        write_runs(&args.output, existing.clone(), vec![run])
    };
    let from_server = child
        .stdout
        .take()
        .ok_or("the server's output is not a pipe")?;
    let mut warned = false;
    for line in BufReader::new(from_server).lines() {
        let Ok(line) = line else { break };
        // Saved before it is passed on: once the client has an answer, so has the cassette.
        let message = serde_json::from_str::<Value>(&line).ok();
        let answered = session.lock().ok().and_then(|mut s| {
            match s.note(Side::Server, message.as_ref(), ms()) {
                Noted::Answer { delay_ms } => Some((delay_ms, s.clone())),
                Noted::Nothing => None,
            }
        });
        let mut delay_ms = 0;
        if let Some((d, snapshot)) = answered {
            delay_ms = d;
            // Written outside the lock, so the client's next messages are not held up.
            if let Err(e) = save(snapshot, None)
                && !warned
            {
                // The session goes on; the last save at its end reports the error for good.
                eprintln!("mcptest proxy: warning: {e}");
                warned = true;
            }
        }
        if delay_ms > 0 {
            // An injected delay: this answer waits; everything else flows.
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(delay_ms));
                let _ = pass_on(&line);
            });
        } else if pass_on(&line).is_err() {
            break;
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for `{program}`: {e}"))?;
    let session = std::mem::take(&mut *session.lock().map_err(|_| "the session log broke")?);
    save(session, status.code())
}

/// Writes one line to the client (standard output is shared with delayed answers' threads).
fn pass_on(line: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}

/// The cassette at `path`, when there is one (a file that is not a cassette is an error).
fn read_existing(path: &Path) -> Result<Option<Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    Cassette::from_json_str(&path.display().to_string(), &text).map_err(|e| {
        format!("{e}; the proxy appends to a cassette: give a new file or a cassette")
    })?;
    let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    Ok(Some(v))
}

/// One cassette run from a session.
fn assemble(
    name: &str,
    command: &[String],
    session: Session,
    duration_ms: u64,
    exit: Option<i32>,
) -> Value {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut meta = Map::new();
    let mut exchanges = Vec::with_capacity(session.exchanges.len());
    for mut e in session.exchanges {
        let from_client = e.get("from").and_then(Value::as_str) == Some("client");
        match e.get("method").and_then(Value::as_str) {
            Some("tools/call") if from_client => {
                let params = e.get("params").cloned().unwrap_or(Value::Null);
                let mut call = Map::new();
                call.insert(
                    "name".into(),
                    params.get("name").cloned().unwrap_or_else(|| "".into()),
                );
                call.insert("server".into(), name.into());
                if let Some(a) = params.get("arguments") {
                    call.insert("args".into(), a.clone());
                }
                for key in ["started_ms", "ended_ms", "id"] {
                    if let Some(v) = e.get(key) {
                        call.insert(key.into(), v.clone());
                    }
                }
                calls.push(Value::Object(call));
                results.push(result_of(&e));
            }
            // `server/discover` is how newer clients ask what `initialize` answered.
            Some("initialize" | "server/discover") if from_client => {
                if let Some(info) = e.get("params").and_then(|p| p.get("clientInfo")) {
                    meta.insert("client_info".into(), info.clone());
                }
                if let Some(r) = e.get("result") {
                    meta.insert("server_info".into(), json!({ name: r }));
                }
            }
            Some("tools/list") if from_client => {
                if let Some(tools) = e.get("result").and_then(|r| r.get("tools")) {
                    let all = meta.entry("tools").or_insert_with(|| json!({ name: [] }));
                    if let Some(list) = all.get_mut(name).and_then(Value::as_array_mut) {
                        list.extend(tools.as_array().into_iter().flatten().cloned());
                    }
                }
            }
            _ => {}
        }
        e.insert("server".into(), name.into());
        exchanges.push(Value::Object(e));
    }
    meta.insert(
        "recorded_with".into(),
        concat!("mcptest proxy ", env!("CARGO_PKG_VERSION")).into(),
    );
    meta.insert("servers".into(), json!([name]));
    meta.insert("command".into(), json!(command));
    meta.insert("duration_ms".into(), duration_ms.into());
    meta.insert("server_exit_code".into(), json!(exit));
    json!({
        "trace": {"tool_calls": calls, "tool_results": results},
        "meta": meta,
        "mcp_exchanges": exchanges,
    })
}

/// The trace result of one `tools/call` exchange: the server's result, a JSON-RPC error as an
/// error result, or an error result saying no answer came before the session ended.
fn result_of(e: &Map<String, Value>) -> Value {
    if let Some(Value::Object(r)) = e.get("result") {
        let mut out = r.clone();
        if !out.contains_key("isError") {
            out.insert("isError".into(), false.into());
        }
        return Value::Object(out);
    }
    let held_back = e
        .get("injected")
        .filter(|i| i["sent"] == false)
        .and_then(|i| i["fault"].as_str());
    let text = match (e.get("error"), held_back) {
        (Some(err), _) => format!(
            "the server refused the call: {}",
            err.get("message")
                .and_then(Value::as_str)
                .unwrap_or("an error")
        ),
        (None, Some(fault)) => {
            format!("no answer: the proxy held the call back (injected fault `{fault}`)")
        }
        (None, None) => "no answer before the session ended".to_string(),
    };
    let mut out = json!({"isError": true, "content": [{"type": "text", "text": text}]});
    if let Some(err) = e.get("error") {
        out["error"] = err.clone();
    }
    out
}

/// Appends `new` runs to `existing` (or starts a cassette) and writes it in one step.
fn write_runs(path: &Path, existing: Option<Value>, new: Vec<Value>) -> Result<(), String> {
    let mut cassette = existing.unwrap_or_else(|| json!({"mcptest_cassette": 1, "runs": []}));
    match cassette.get_mut("runs").and_then(Value::as_array_mut) {
        Some(runs) => runs.extend(new),
        None => {
            // A bare run or envelope: keep it as the first run.
            let first = std::mem::take(&mut cassette);
            let first = if first.get("trace").is_some() {
                first
            } else {
                json!({ "trace": first })
            };
            let mut runs = vec![first];
            runs.extend(new);
            cassette = json!({"mcptest_cassette": 1, "runs": runs});
        }
    }
    Cassette::from_value(&cassette)
        .map_err(|e| format!("the session did not make a cassette: {e}"))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut text = serde_json::to_string_pretty(&cassette).map_err(|e| e.to_string())?;
    text.push('\n');
    let tmp = path.with_extension("json.partial");
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Notes one line as the proxy reads it.
    fn note(s: &mut Session, from: Side, line: &str, ms: u64) -> Noted {
        s.note(from, serde_json::from_str(line).ok().as_ref(), ms)
    }

    #[test]
    fn requests_pair_with_answers_by_sender_and_id_in_batches_too() {
        let mut s = Session::default();
        note(
            &mut s,
            Side::Client,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            1,
        );
        // The server asks the client something with the same id: a separate exchange.
        note(
            &mut s,
            Side::Server,
            r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#,
            2,
        );
        note(
            &mut s,
            Side::Client,
            r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}"#,
            3,
        );
        note(
            &mut s,
            Side::Client,
            r#"[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}},
                {"jsonrpc":"2.0","method":"notifications/progress"}]"#,
            4,
        );
        note(&mut s, Side::Server, "not json", 5);
        note(
            &mut s,
            Side::Server,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            6,
        );
        note(
            &mut s,
            Side::Server,
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad"}}"#,
            7,
        );
        let methods: Vec<&str> = s
            .exchanges
            .iter()
            .map(|e| e["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "tools/list",
                "roots/list",
                "tools/call",
                "notifications/progress"
            ]
        );
        assert_eq!(s.exchanges[0]["ended_ms"], 6);
        assert_eq!(s.exchanges[1]["ended_ms"], 3);
        assert_eq!(s.exchanges[2]["error"]["code"], -32602);
        assert!(s.exchanges[3].get("ended_ms").is_none());
        assert!(s.pending.is_empty());

        let run = assemble("srv", &["srv".into()], s, 10, Some(0));
        let result = &run["trace"]["tool_results"][0];
        assert_eq!(result["isError"], true);
        assert_eq!(
            result["content"][0]["text"],
            "the server refused the call: bad"
        );
        assert!(Cassette::from_value(&json!({"mcptest_cassette": 1, "runs": [run]})).is_ok());
    }

    fn call(id: u32, tool: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}"}}}}"#
        )
    }

    /// Notes and intercepts each client line; returns what the proxy does with each.
    fn passes(s: &mut Session, lines: &[String]) -> Vec<Pass> {
        lines
            .iter()
            .map(|l| {
                note(s, Side::Client, l, 0);
                s.intercept(serde_json::from_str(l).ok().as_ref())
            })
            .collect()
    }

    #[test]
    fn faults_hold_back_or_delay_the_calls_they_target() {
        use Pass::{Back, On};
        let session = |fault: &str, tool: Option<&str>| Session {
            fault: fault.parse().unwrap(),
            fault_tool: tool.map(str::to_string),
            ..Session::default()
        };
        let lines = [call(1, "a"), call(2, "b"), call(3, "a"), call(4, "a")];

        let mut s = session("hang", Some("a"));
        assert_eq!(passes(&mut s, &lines), [Back, On, Back, Back]);
        let run = assemble("srv", &[], s.clone(), 9, None);
        assert_eq!(
            run["trace"]["tool_results"][0]["content"][0]["text"],
            "no answer: the proxy held the call back (injected fault `hang`)"
        );
        assert_eq!(run["mcp_exchanges"][0]["injected"]["sent"], false);
        assert!(run["mcp_exchanges"][1].get("injected").is_none());

        let mut s = session("recover-after:2", None);
        assert_eq!(passes(&mut s, &lines), [Back, Back, Back, On]);

        let mut s = session("slow:300", None);
        assert_eq!(passes(&mut s, &lines[..1]), [On]);
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        assert_eq!(
            note(&mut s, Side::Server, answer, 10),
            Noted::Answer { delay_ms: 300 }
        );
        assert_eq!(s.exchanges[0]["ended_ms"], 310);

        // reply-after-cancel: the client's cancellation of the delayed call is not passed on.
        let cancel = |id: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
            )
        };
        let mut s = session("reply-after-cancel:50", Some("a"));
        let lines = [call(1, "a"), call(2, "b"), cancel(1), cancel(2)];
        assert_eq!(passes(&mut s, &lines), [On, On, Back, On]);
        let mut s = session("slow:50", None);
        assert_eq!(passes(&mut s, &[call(1, "a"), cancel(1)]), [On, On]);
    }

    #[test]
    fn an_unanswered_call_is_an_error_result_that_says_so() {
        let mut s = Session::default();
        note(
            &mut s,
            Side::Client,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#,
            1,
        );
        let run = assemble("srv", &[], s, 10, None);
        assert_eq!(
            run["trace"]["tool_results"][0]["content"][0]["text"],
            "no answer before the session ended"
        );
        assert_eq!(run["trace"]["tool_calls"][0]["args"], json!({}));
    }
}
