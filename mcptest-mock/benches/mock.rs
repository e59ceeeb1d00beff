//! What the mock costs: start-up time to a served `initialize`, and calls per second on a
//! healthy tool from one client (sequential calls, each waiting for its answer).
//!
//! `cargo bench -p mcptest-mock` measures; `cargo test --benches` runs each once as a smoke
//! test.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcptest_mock::{LogLevel, Mock};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

fn tools_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/tools.yml")
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Proc {
    fn spawn() -> Proc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcptest-mock"))
            .arg("--tools-from")
            .arg(tools_file())
            .args(["--log", "off"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcptest-mock");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Proc {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }

    fn round_trip(&mut self, message: &str) -> usize {
        let stdin = self.stdin.as_mut().expect("stdin");
        stdin.write_all(message.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("read")
    }

    fn stop(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn startup(c: &mut Criterion) {
    c.bench_function("startup_to_served_initialize", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let mut p = Proc::spawn();
                let n = p.round_trip(INITIALIZE);
                total += start.elapsed();
                assert!(n > 0 && p.line.contains("\"serverInfo\""), "{}", p.line);
                p.stop();
            }
            total
        })
    });
}

fn calls(c: &mut Criterion) {
    let mut group = c.benchmark_group("calls_one_client");
    group.throughput(Throughput::Elements(1));

    // A child process over stdio, spoken to as raw JSON-RPC lines.
    let mut p = Proc::spawn();
    p.round_trip(INITIALIZE);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"city": "Sacramento"}}})
    .to_string();
    group.bench_function("child_process_stdio", |b| {
        b.iter(|| black_box(p.round_trip(&call)))
    });
    p.stop();

    // In-process, through rmcp's client.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (mock, client) = runtime.block_on(async {
        let (mock, stream) = Mock::from_file(tools_file())
            .expect("tools file")
            .log(LogLevel::Off)
            .start()
            .expect("start");
        let client = ().serve(stream).await.expect("initialize");
        (mock, client)
    });
    let mut arguments = Map::new();
    arguments.insert("city".into(), Value::from("Sacramento"));
    let params = CallToolRequestParams::new("get_weather").with_arguments(arguments);
    group.bench_function("in_process_rmcp_client", |b| {
        b.iter(|| {
            runtime.block_on(async {
                black_box(client.call_tool(params.clone()).await.expect("call"));
            })
        })
    });
    runtime.block_on(async {
        drop(client);
        let _ = mock.shutdown().await;
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = startup, calls
}
criterion_main!(benches);
