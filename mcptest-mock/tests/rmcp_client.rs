//! The mock driven by rmcp's client side: as a child process (rmcp's own child-process
//! transport, and this crate's `MockCommand`), and in-process (`Mock::start`).

mod common;

use mcptest_mock::{Fault, LogLevel, Mock, MockCommand, ToolsFile};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

type Client = RunningService<RoleClient, ()>;

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn weather(city: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("get_weather").with_arguments(args(json!({ "city": city })))
}

async fn call_within(
    client: &Client,
    params: CallToolRequestParams,
    deadline: Duration,
) -> Option<Result<Value, ServiceError>> {
    tokio::time::timeout(deadline, client.call_tool(params))
        .await
        .ok()
        .map(|r| r.map(|r| serde_json::to_value(r).unwrap_or_default()))
}

fn mock(fault: Fault) -> Mock {
    Mock::from_file(common::examples_tools())
        .unwrap_or_else(|e| panic!("{e}"))
        .fault(fault)
        .log(LogLevel::Off)
}

fn child(fault: Fault) -> tokio::process::Command {
    let cmd = MockCommand::new(env!("CARGO_BIN_EXE_mcptest-mock"), common::examples_tools())
        .fault(fault)
        .log(LogLevel::Off)
        .to_command();
    tokio::process::Command::from(cmd)
}

#[tokio::test]
async fn a_child_process_serves_rmcps_client() {
    let transport = TokioChildProcess::new(child(Fault::None)).expect("spawn");
    let client: Client = ().serve(transport).await.expect("initialize");
    let info = client.peer_info().expect("server info");
    let name = info.server_info.as_ref().map(|s| s.name.as_str());
    assert_eq!(name, Some("weather-and-docs"));
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 5);
    assert_eq!(tools[0].name, "get_weather");

    let r = call_within(&client, weather("Oslo"), Duration::from_secs(5))
        .await
        .expect("answered")
        .expect("ok");
    assert_eq!(r["structuredContent"]["temperature"], -4);
    assert_eq!(r["isError"], false);

    let r = call_within(&client, weather(""), Duration::from_secs(5))
        .await
        .expect("answered")
        .expect("ok");
    assert_eq!(r["isError"], true, "minLength 1: {r}");

    let unknown = client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .expect_err("unknown tool");
    match unknown {
        ServiceError::McpError(e) => assert_eq!(e.code.0, -32602),
        other => panic!("{other:?}"),
    }

    let res = client.list_all_resources().await.expect("resources/list");
    assert_eq!(res.len(), 2);
    let page = client
        .read_resource(ReadResourceRequestParams::new("docs://guides/install"))
        .await
        .expect("resources/read");
    assert!(format!("{page:?}").contains("Download the installer"));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn hang_seen_from_rmcp_a_timeout_cancels_and_the_rest_stays_responsive() {
    let transport = TokioChildProcess::new(child(Fault::Hang)).expect("spawn");
    let client: Client = ().serve(transport).await.expect("initialize");
    let start = Instant::now();
    assert!(
        call_within(&client, weather("Oslo"), Duration::from_millis(300))
            .await
            .is_none(),
        "a hung call times out"
    );
    assert!(start.elapsed() < Duration::from_secs(2));
    let start = Instant::now();
    assert_eq!(client.list_all_tools().await.expect("tools/list").len(), 5);
    assert!(start.elapsed() < Duration::from_millis(500));
    let start = Instant::now();
    client.cancel().await.expect("close");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "stops without a drain wait: {:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn every_fault_in_process() {
    // slow: answers after the delay.
    let (m, stream) = mock(Fault::Slow { ms: 200 }).start().expect("start");
    let client: Client = ().serve(stream).await.expect("initialize");
    let start = Instant::now();
    let r = call_within(&client, weather("Oslo"), Duration::from_secs(5)).await;
    assert!(matches!(r, Some(Ok(_))), "{r:?}");
    assert!(start.elapsed() >= Duration::from_millis(200));
    client.cancel().await.expect("close");
    m.shutdown().await.expect("shutdown");

    // recover-after:2: two hangs, then answers.
    let (m, stream) = mock(Fault::RecoverAfter { calls: 2 })
        .start()
        .expect("start");
    let client: Client = ().serve(stream).await.expect("initialize");
    for _ in 0..2 {
        let r = call_within(&client, weather("Oslo"), Duration::from_millis(200)).await;
        assert!(r.is_none(), "hangs: {r:?}");
    }
    let r = call_within(&client, weather("Oslo"), Duration::from_secs(5)).await;
    assert!(matches!(r, Some(Ok(_))), "{r:?}");
    client.cancel().await.expect("close");
    m.shutdown().await.expect("shutdown");

    // wedged: like hang; shutdown ends the held call at once.
    let (m, stream) = mock(Fault::Wedged).start().expect("start");
    let client: Client = ().serve(stream).await.expect("initialize");
    let pending = tokio::spawn({
        let peer = client.peer().clone();
        async move { peer.call_tool(weather("Oslo")).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!pending.is_finished());
    let start = Instant::now();
    m.shutdown().await.expect("shutdown");
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    let outcome = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .expect("the client sees the connection close");
    assert!(matches!(outcome, Ok(Err(_))), "{outcome:?}");
    drop(client);
}

#[tokio::test]
async fn reply_after_cancel_from_rmcp_the_client_ignores_the_late_answer() {
    let (m, stream) = mock(Fault::ReplyAfterCancel { ms: 300 })
        .start()
        .expect("start");
    let client: Client = ().serve(stream).await.expect("initialize");
    let r = call_within(&client, weather("Oslo"), Duration::from_millis(100)).await;
    assert!(r.is_none(), "times out and cancels: {r:?}");
    tokio::time::sleep(Duration::from_millis(400)).await;
    // The late answer arrived and was dropped by the client, which keeps working.
    let r = call_within(&client, weather("Sacramento"), Duration::from_secs(5)).await;
    let r = r.expect("answered").expect("ok");
    assert_eq!(r["structuredContent"]["city"], "Sacramento");
    client.cancel().await.expect("close");
    m.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn per_tool_faults_touch_only_their_tool() {
    let m = mock(Fault::None)
        .tool_fault("search_docs", Fault::Hang)
        .expect("known tool");
    assert!(mock(Fault::None).tool_fault("nope", Fault::Hang).is_err());
    let (m, stream) = m.start().expect("start");
    let client: Client = ().serve(stream).await.expect("initialize");
    let search =
        CallToolRequestParams::new("search_docs").with_arguments(args(json!({"query": "x"})));
    assert!(
        call_within(&client, search, Duration::from_millis(200))
            .await
            .is_none()
    );
    let r = call_within(&client, weather("Oslo"), Duration::from_secs(5)).await;
    assert!(matches!(r, Some(Ok(_))), "{r:?}");
    drop(client);
    m.wait().await.expect("ends when the client leaves");
}

#[tokio::test]
async fn mock_command_spawns_and_shuts_down_cleanly() {
    let mut child = MockCommand::new(env!("CARGO_BIN_EXE_mcptest-mock"), common::examples_tools())
        .fault(Fault::Hang)
        .log(LogLevel::Off)
        .spawn()
        .expect("spawn");
    assert!(child.id().is_some());
    let (out, input) = child.take_stdio().expect("stdio");
    let client: Client = ().serve((out, input)).await.expect("initialize");
    assert!(
        call_within(&client, weather("Oslo"), Duration::from_millis(200))
            .await
            .is_none()
    );
    drop(client);
    let start = Instant::now();
    let status = child.shutdown(Duration::from_secs(5)).await.expect("wait");
    assert!(status.success(), "{status}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn start_outside_a_runtime_says_what_to_do() {
    let e = mock(Fault::None).start().unwrap_err();
    assert!(e.to_string().contains("inside a tokio runtime"), "{e}");
}

#[test]
fn the_in_process_and_file_apis_agree() {
    let file = ToolsFile::load(common::examples_tools()).unwrap_or_else(|e| panic!("{e}"));
    let m = Mock::new(file.clone());
    assert_eq!(m.tools_file().tools.len(), file.tools.len());
}

#[tokio::test]
async fn annotations_from_the_tools_file_reach_rmcps_client() {
    let file = ToolsFile::from_yaml_str(
        "t.yml",
        r#"
tools:
  - name: lookup
    title: Look up
    annotations:
      title: Look up a record
      readOnlyHint: true
      openWorldHint: false
    result: { text: found }
  - name: purge
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
    result: { text: gone }
  - name: plain
    result: { text: hi }
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (m, stream) = Mock::new(file).log(LogLevel::Off).start().expect("start");
    let client: Client = ().serve(stream).await.expect("initialize");
    let tools = client.list_all_tools().await.expect("tools/list");
    let wire: Vec<Value> = tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap_or_default())
        .collect();
    assert_eq!(wire.len(), 3);
    assert_eq!(wire[0]["title"], "Look up");
    assert_eq!(
        wire[0]["annotations"],
        json!({"title": "Look up a record", "readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        wire[1]["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true})
    );
    assert!(wire[2].get("annotations").is_none(), "{}", wire[2]);
    let read_only = tools[0].annotations.as_ref().and_then(|a| a.read_only_hint);
    assert_eq!(read_only, Some(true));
    client.cancel().await.expect("close");
    m.shutdown().await.expect("shutdown");
}
