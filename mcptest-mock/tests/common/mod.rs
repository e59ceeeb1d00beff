//! Helpers shared by the mock's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The example tools file the project ships.
pub fn examples_tools() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/tools.yml")
}

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `mcptest-mock` binary, spoken to line by line as a raw JSON-RPC peer.
pub struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

/// An `initialize` request (legacy handshake) with id 1.
pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"}}})
}

/// A `tools/call` request.
pub fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

/// A request without params.
pub fn request(id: i64, method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method})
}

impl RawServer {
    /// Starts the binary on the example tools file with `args` after it.
    pub fn start(args: &[&str]) -> RawServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcptest-mock"))
            .arg("--tools-from")
            .arg(examples_tools())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start mcptest-mock");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = channel();
        let out = std::thread::spawn(move || {
            for line in BufReader::new(stdout).split(b'\n') {
                let Ok(line) = line else { break };
                if tx
                    .send(String::from_utf8_lossy(&line).into_owned())
                    .is_err()
                {
                    break;
                }
            }
        });
        let log = Arc::new(Mutex::new(String::new()));
        let err = {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut l) = log.lock() {
                        l.push_str(&String::from_utf8_lossy(&buf[..n]));
                    }
                }
            })
        };
        RawServer {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: log,
            readers: vec![out, err],
        }
    }

    /// Writes raw bytes followed by a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("write to the mock");
        stdin.write_all(b"\n").expect("write to the mock");
        stdin.flush().expect("flush");
    }

    /// Writes one JSON-RPC message without the newline that ends a line.
    pub fn send_unterminated(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin
            .write_all(message.to_string().as_bytes())
            .expect("write to the mock");
        stdin.flush().expect("flush");
    }

    /// Writes one JSON-RPC message.
    pub fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// The next line from the mock's stdout, parsed; `None` after `timeout` or at its end.
    /// Panics when a line is not JSON: stdout carries JSON-RPC only.
    pub fn recv(&self, timeout: Duration) -> Option<Value> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Some(serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("stdout carried a line that is not JSON ({e}): {line:?}")
            })),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The answer to request `id`, skipping other messages; panics after `timeout`.
    pub fn answer(&self, id: Value, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left) {
                Some(m) if m["id"] == id => return m,
                Some(_) => continue,
                None => panic!(
                    "no answer to request {id} within {timeout:?}; stderr:\n{}",
                    self.stderr()
                ),
            }
        }
    }

    /// Sends `initialize` and `notifications/initialized`; returns the initialize result.
    pub fn handshake(&mut self) -> Value {
        self.send(&initialize());
        let answer = self.answer(json!(1), Duration::from_secs(10));
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    /// Closes the mock's standard input (end of input).
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits for the process to exit (killing it after `timeout`); returns its status and
    /// how long the wait took.
    pub fn wait(&mut self, timeout: Duration) -> (Option<ExitStatus>, Duration) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return (Some(status), start.elapsed());
            }
            if start.elapsed() > timeout {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return (None, start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Everything the mock wrote to standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Closes the input, waits for a clean exit, and returns the stderr log.
    pub fn finish(mut self) -> String {
        self.close_stdin();
        let (status, took) = self.wait(Duration::from_secs(10));
        let status = status.expect("the mock exits at end of input");
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        assert!(
            status.success(),
            "exit {status}; stderr:\n{}",
            self.stderr()
        );
        assert!(took < Duration::from_secs(2), "exit took {took:?}");
        self.stderr()
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
