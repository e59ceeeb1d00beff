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

use crate::lint::known_values;
use mcptest_core::secrets::Redactor;
use mcptest_core::trace::Cassette;
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
    /// The server's name in the cassette (each call's `server`); default: the command's name.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The MCP server to start (stdio), with its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
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
}

impl Session {
    /// Notes every JSON-RPC message in `line` (one message or a batch), sent by `from` at `ms`;
    /// true when an answer completed an exchange.
    fn note(&mut self, from: Side, line: &str, ms: u64) -> bool {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        let mut answered = false;
        let messages = match v {
            Value::Array(batch) => batch,
            other => vec![other],
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
                    if let Some(i) = self.pending.remove(&(asker, id)) {
                        let e = &mut self.exchanges[i];
                        for key in ["result", "error"] {
                            if let Some(v) = m.get(key) {
                                e.insert(key.into(), v.clone());
                            }
                        }
                        e.insert("ended_ms".into(), ms.into());
                        answered = true;
                    }
                }
                (None, None) => {}
            }
        }
        answered
    }
}

/// Runs the proxy; returns the exit code.
pub fn run(args: &ProxyArgs) -> u8 {
    match proxy(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
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
    let session = Arc::new(Mutex::new(Session::default()));

    // Client -> server, on a thread: it may still be reading when the server exits.
    let mut to_server = child
        .stdin
        .take()
        .ok_or("the server's input is not a pipe")?;
    let up = session.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if let Ok(mut s) = up.lock() {
                s.note(Side::Client, &line, ms());
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
        write_appended(&args.output, existing.clone(), run)
    };
    let from_server = child
        .stdout
        .take()
        .ok_or("the server's output is not a pipe")?;
    let mut out = std::io::stdout().lock();
    let mut warned = false;
    for line in BufReader::new(from_server).lines() {
        let Ok(line) = line else { break };
        // Saved before it is passed on: once the client has an answer, so has the cassette.
        let snapshot = session.lock().ok().and_then(|mut s| {
            let answered = s.note(Side::Server, &line, ms());
            answered.then(|| s.clone())
        });
        if let Some(s) = snapshot
            && let Err(e) = save(s, None)
            && !warned
        {
            // The session goes on; the last save at its end reports the error for good.
            eprintln!("mcptest proxy: warning: {e}");
            warned = true;
        }
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for `{program}`: {e}"))?;
    let session = std::mem::take(&mut *session.lock().map_err(|_| "the session log broke")?);
    save(session, status.code())
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
    let text = match e.get("error") {
        Some(err) => format!(
            "the server refused the call: {}",
            err.get("message")
                .and_then(Value::as_str)
                .unwrap_or("an error")
        ),
        None => "no answer before the session ended".to_string(),
    };
    let mut out = json!({"isError": true, "content": [{"type": "text", "text": text}]});
    if let Some(err) = e.get("error") {
        out["error"] = err.clone();
    }
    out
}

/// Appends `run` to `existing` (or starts a cassette) and writes it in one step.
fn write_appended(path: &Path, existing: Option<Value>, run: Value) -> Result<(), String> {
    let mut cassette = existing.unwrap_or_else(|| json!({"mcptest_cassette": 1, "runs": []}));
    match cassette.get_mut("runs").and_then(Value::as_array_mut) {
        Some(runs) => runs.push(run),
        None => {
            // A bare run or envelope: keep it as the first run.
            let first = std::mem::take(&mut cassette);
            let first = if first.get("trace").is_some() {
                first
            } else {
                json!({ "trace": first })
            };
            cassette = json!({"mcptest_cassette": 1, "runs": [first, run]});
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

    #[test]
    fn requests_pair_with_answers_by_sender_and_id_in_batches_too() {
        let mut s = Session::default();
        s.note(
            Side::Client,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            1,
        );
        // The server asks the client something with the same id: a separate exchange.
        s.note(
            Side::Server,
            r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#,
            2,
        );
        s.note(
            Side::Client,
            r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}"#,
            3,
        );
        s.note(
            Side::Client,
            r#"[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}},
                {"jsonrpc":"2.0","method":"notifications/progress"}]"#,
            4,
        );
        s.note(Side::Server, "not json", 5);
        s.note(
            Side::Server,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            6,
        );
        s.note(
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

    #[test]
    fn an_unanswered_call_is_an_error_result_that_says_so() {
        let mut s = Session::default();
        s.note(
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
