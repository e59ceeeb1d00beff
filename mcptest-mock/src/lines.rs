//! The JSON-RPC line layer under rmcp: one message per line, checked before rmcp sees it, so
//! every line a client sends gets the protocol's answer.
//!
//! * A line that is not JSON (or not UTF-8, or nested past the parser's limit) gets a Parse
//!   error (-32700) with a null id.
//! * JSON that is not a JSON-RPC 2.0 message gets an Invalid Request error (-32600) carrying
//!   the message's `id` when one is readable (`{"jsonrpc":"1.0","id":101,...}` is answered
//!   with id 101); a batch (a JSON array) too, as MCP has no batches since 2025-06-18.
//! * A line longer than [`MAX_LINE`] is read to its end, not kept, and answered with an
//!   Invalid Request error (its id cannot be read without keeping it).
//! * A notification that rmcp cannot read is dropped (a notification is never answered).
//! * A last line without its `\n` is read like any other.
//!
//! Each reply is written under the same lock as rmcp's own messages, so lines never
//! interleave; each such decision is logged.

use crate::log::{LogLevel, log};
use crate::tools::cut;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::service::{RoleServer, RxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

/// The longest line kept (bytes), as in the official SDKs.
pub(crate) const MAX_LINE: usize = 16 << 20;

/// What one line is.
#[derive(Debug)]
pub(crate) enum Checked {
    /// A JSON-RPC message rmcp can read.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An error response to write back, and why (for the log).
    Reply(Value, String),
    /// Nothing to do (an empty line, an unreadable notification); the reason, if any.
    Skip(Option<String>),
}

/// An error response with `id` (null when unreadable).
pub(crate) fn error_reply(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Reads one line (without its `\n`) as the mock's protocol layer does.
pub(crate) fn check(line: &[u8]) -> Checked {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Skip(None);
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let why = format!("a line that is not JSON ({e})");
            return Checked::Reply(
                error_reply(Value::Null, -32700, format!("Parse error: {e}")),
                why,
            );
        }
    };
    let Some(object) = value.as_object() else {
        let (message, why) = if value.is_array() {
            (
                "Invalid Request: batches are not part of MCP (since 2025-06-18); send one \
                 message per line",
                "a batch",
            )
        } else {
            (
                "Invalid Request: a JSON-RPC message is an object",
                "JSON that is no object",
            )
        };
        return Checked::Reply(
            error_reply(Value::Null, -32600, message.to_string()),
            why.to_string(),
        );
    };
    let id = match object.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        _ => None,
    };
    let is_notification = !object.contains_key("id") && object.contains_key("method");
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        if is_notification {
            return Checked::Skip(Some(
                "ignored a notification without `\"jsonrpc\": \"2.0\"`".to_string(),
            ));
        }
        return Checked::Reply(
            error_reply(
                id.unwrap_or(Value::Null),
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\"".to_string(),
            ),
            "a message without `\"jsonrpc\": \"2.0\"`".to_string(),
        );
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(message) => Checked::Message(Box::new(message)),
        Err(e) if is_notification => Checked::Skip(Some(format!(
            "ignored a notification it cannot read ({})",
            cut(&e.to_string(), 200)
        ))),
        Err(e) => Checked::Reply(
            error_reply(
                id.unwrap_or(Value::Null),
                -32600,
                format!("Invalid Request: {}", cut(&e.to_string(), 200)),
            ),
            "a message that is no JSON-RPC request, response or notification".to_string(),
        ),
    }
}

/// How reading a line ended.
enum Read {
    Line,
    /// The line was longer than [`MAX_LINE`]: its bytes were skipped.
    Oversized(usize),
    Eof,
    Io(io::Error),
}

/// The transport: lines in, lines out.
pub(crate) struct Lines<R, W> {
    read: BufReader<R>,
    /// The line being read; kept across cancelled reads, so no byte is lost.
    line: Vec<u8>,
    /// Bytes of the current line skipped because it is over the limit.
    skipped: usize,
    write: Arc<Mutex<W>>,
    /// Replies the layer itself is writing.
    replies: Vec<JoinHandle<()>>,
    log: LogLevel,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(read: R, write: W, log: LogLevel) -> Self {
        Lines {
            read: BufReader::new(read),
            line: Vec::new(),
            skipped: 0,
            write: Arc::new(Mutex::new(write)),
            replies: Vec::new(),
            log,
        }
    }

    /// Writes `reply` as one line. The write runs on its own, so a receive that is dropped
    /// midway cannot cut a line short.
    pub(crate) fn reply(&mut self, reply: &Value) {
        let mut bytes = reply.to_string().into_bytes();
        bytes.push(b'\n');
        let write = self.write.clone();
        self.replies.retain(|r| !r.is_finished());
        self.replies.push(tokio::spawn(async move {
            let mut w = write.lock().await;
            if w.write_all(&bytes).await.is_ok() {
                let _ = w.flush().await;
            }
        }));
    }

    /// Reads up to the next `\n` (or the end of input). Each step appends what one buffer
    /// fill holds, so a read that is dropped midway resumes where it stopped.
    async fn read_line(&mut self) -> Read {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(b) => b,
                Err(e) => return Read::Io(e),
            };
            if available.is_empty() {
                // A last line without its `\n` is still a line: nothing sent is lost.
                let skipped = std::mem::take(&mut self.skipped);
                return if skipped > 0 {
                    Read::Oversized(skipped)
                } else if self.line.is_empty() {
                    Read::Eof
                } else {
                    Read::Line
                };
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            let content = if done { take - 1 } else { take };
            if self.skipped > 0 || self.line.len() + content > MAX_LINE {
                self.skipped += self.line.len() + content;
                self.line.clear();
            } else {
                self.line.extend_from_slice(&available[..content]);
            }
            self.read.consume(take);
            if done {
                let skipped = std::mem::take(&mut self.skipped);
                return if skipped > 0 {
                    Read::Oversized(skipped)
                } else {
                    Read::Line
                };
            }
        }
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        let bytes = serde_json::to_vec(&item);
        async move {
            let mut bytes = bytes.map_err(io::Error::other)?;
            bytes.push(b'\n');
            let mut w = write.lock().await;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Read::Line => {}
                Read::Oversized(n) => {
                    log(
                        self.log,
                        LogLevel::Calls,
                        format_args!("a line of {n} bytes is over the {MAX_LINE}-byte limit"),
                    );
                    self.reply(&error_reply(
                        Value::Null,
                        -32600,
                        format!(
                            "Invalid Request: a line of {n} bytes is over this server's limit \
                             of {MAX_LINE} bytes; it was not read"
                        ),
                    ));
                    continue;
                }
                Read::Eof => {
                    // The layer's own replies are written before the session ends.
                    for r in self.replies.drain(..) {
                        let _ = r.await;
                    }
                    return None;
                }
                Read::Io(e) => {
                    log(
                        self.log,
                        LogLevel::Faults,
                        format_args!("cannot read the input: {e}"),
                    );
                    return None;
                }
            }
            let checked = check(&self.line);
            self.line.clear();
            match checked {
                Checked::Message(m) => return Some(*m),
                Checked::Reply(reply, why) => {
                    log(
                        self.log,
                        LogLevel::Calls,
                        format_args!("answered {why} with error {}", reply["error"]["code"]),
                    );
                    self.reply(&reply);
                }
                Checked::Skip(Some(why)) => log(self.log, LogLevel::Calls, format_args!("{why}")),
                Checked::Skip(None) => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        for r in self.replies.drain(..) {
            let _ = r.await;
        }
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match check(line.as_bytes()) {
            Checked::Reply(v, _) => v,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn lines_that_are_not_json_get_parse_error_with_null_id() {
        for line in [
            "garbage",
            "{",
            "[1, 2",
            "\"open",
            "{\"id\": 5, \"method\": \"x\"",
        ] {
            let r = reply(line);
            assert_eq!(r["error"]["code"], -32700, "{line}");
            assert_eq!(r["id"], Value::Null, "{line}");
        }
        let bytes = b"\xff\xfe binary";
        assert!(matches!(check(bytes), Checked::Reply(v, _) if v["error"]["code"] == -32700));
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(reply(&deep)["error"]["code"], -32700);
    }

    #[test]
    fn invalid_requests_carry_their_readable_id() {
        let r = reply(r#"{"jsonrpc":"1.0","id":101,"method":"ping"}"#);
        assert_eq!(r["error"]["code"], -32600);
        assert_eq!(r["id"], 101);
        let r = reply(r#"{"id":"a-7","method":"ping"}"#);
        assert_eq!(r["id"], "a-7");
        let r = reply(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#);
        assert_eq!(r["error"]["code"], -32600);
        assert_eq!(r["id"], Value::Null);
        for line in [
            "42",
            "[]",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"foo":1}"#,
        ] {
            let r = reply(line);
            assert_eq!(r["error"]["code"], -32600, "{line}");
            assert_eq!(r["id"], Value::Null, "{line}");
        }
    }

    #[test]
    fn messages_pass_and_notifications_are_never_answered() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(matches!(check(ok.as_bytes()), Checked::Message(_)));
        // A BOM and a carriage return are tolerated.
        let bom = format!("\u{feff}{ok}\r");
        assert!(matches!(check(bom.as_bytes()), Checked::Message(_)));
        assert!(matches!(check(b"   "), Checked::Skip(None)));
        let bad_note = r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#;
        assert!(matches!(check(bad_note.as_bytes()), Checked::Skip(Some(_))));
    }
}
