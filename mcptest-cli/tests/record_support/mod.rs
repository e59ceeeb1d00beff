//! Test support for the recording tests: a scripted model API on a local port.
//!
//! [`FakeModel`] is a small HTTP/1.1 server on 127.0.0.1 (std only) that answers every POST
//! with whatever its script returns for the request body, and keeps each request (path,
//! headers, body) for assertions. It serves until dropped.
//!
//! Shared by the recording tests of `mcptest-cli` and `mcptest-record`; each uses a part.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request the fake model received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Header names lowercased.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

type Script = dyn Fn(&Value) -> (u16, Value) + Send + Sync;

/// A scripted model API.
pub struct FakeModel {
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl FakeModel {
    /// Serves `script` (request body -> status and response body).
    pub fn start(script: impl Fn(&Value) -> (u16, Value) + Send + Sync + 'static) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let addr = listener.local_addr().expect("local address");
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Script> = Arc::new(script);
        let thread = {
            let received = received.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                // Bounded: a test sends a few dozen requests at most.
                for stream in listener.incoming().take(1000) {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(s) = stream {
                        let _ = serve_one(s, &*script, &received);
                    }
                }
            })
        };
        FakeModel {
            base_url: format!("http://{addr}"),
            received,
            stop,
            addr,
            thread: Some(thread),
        }
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve_one(
    stream: TcpStream,
    script: &Script,
    received: &Mutex<Vec<Received>>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, answer) = script(&body);
    if let Ok(mut r) = received.lock() {
        r.push(Received {
            path,
            headers,
            body,
        });
    }
    let text = answer.to_string();
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nrequest-id: req_test\r\n\
         set-cookie: session=abcdefghijklmnop\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    )?;
    out.flush()
}

/// The messages of a request body.
pub fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The Python interpreter of the official MCP Python SDK's virtual environment: `target/py-mcp-venv`
/// (made by `mcptest-mock/tests/python/setup-venv.sh`, which the test script runs), or
/// `$MCPTEST_PY_VENV`. Missing, it panics and says how to make it.
pub fn sdk_python() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = std::env::var_os("MCPTEST_PY_VENV")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target/py-mcp-venv"));
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

/// The folder holding the pinned npm packages the tests drive (the reference "everything" MCP
/// server and the official TypeScript SDK): `target/npm-ref` (made by
/// `mcptest-cli/tests/node/setup-npm.sh`, which the test script runs), or `$MCPTEST_NPM_DIR`.
/// Missing, it panics and says how to make it.
pub fn npm_ref_dir() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::var_os("MCPTEST_NPM_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target/npm-ref"));
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything")
            .exists(),
        "the pinned npm reference servers are not installed in {}: run \
         `mcptest-cli/tests/node/setup-npm.sh` (it installs them from the lock file beside it), \
         or point MCPTEST_NPM_DIR at a folder where it did",
        dir.display()
    );
    dir
}

/// The reference "everything" server's entry point in [`npm_ref_dir`].
pub fn everything_server() -> std::path::PathBuf {
    npm_ref_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// The reference "memory" server's entry point in [`npm_ref_dir`].
pub fn memory_server() -> std::path::PathBuf {
    npm_ref_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js")
}

/// The reference "everything" server (pinned from npm), started in its Streamable HTTP mode.
pub struct EverythingHttp {
    child: std::process::Child,
    /// Its MCP endpoint.
    pub url: String,
}

impl EverythingHttp {
    pub fn start() -> Result<EverythingHttp, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free local port: {e}"))?
            .port();
        let child = std::process::Command::new("node")
            .arg(everything_server())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("node (Node.js 20 or newer on PATH): {e}"))?;
        let server = EverythingHttp {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed().as_secs() > 20 {
                return Err("the everything server did not listen within 20 s".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(server)
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
