//! The mock over Streamable HTTP (`Mock::start_http`, feature `http`), spoken to with raw
//! HTTP/1.1 requests: the handshake, a call under a fault, the session header, wrong paths and
//! foreign `Host` headers.

use mcptest_mock::{Fault, Mock, ToolsFile};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

const TOOLS: &str = r#"
server: {name: weather, instructions: Ask by city.}
tools:
  - name: get_weather
    input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
    answers:
      - text: "31 C"
"#;

/// One HTTP/1.1 POST (or another method); the status line, the headers (names lowercased)
/// and the body, read to the end of the connection.
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let host = headers
        .iter()
        .find(|(k, _)| *k == "host")
        .map_or(addr.to_string(), |(_, v)| v.to_string());
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers.iter().filter(|(k, _)| *k != "host") {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

/// The JSON-RPC message in a JSON or event-stream body.
fn message(body: &str) -> Value {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .find_map(|d| serde_json::from_str(d.trim()).ok())
        .or_else(|| serde_json::from_str(body.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body:?}"))
}

#[tokio::test]
async fn serves_a_session_over_streamable_http_with_the_fault() {
    let file = ToolsFile::from_yaml_str("tools.yml", TOOLS).unwrap();
    let server = Mock::new(file)
        .fault(Fault::Slow { ms: 250 })
        .start_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = server.local_addr();
    assert_eq!(server.url(), format!("http://{addr}/mcp"));

    let result = tokio::task::spawn_blocking(move || {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}});
        let (status, headers, body) = http(addr, "POST", "/mcp", &[], &init.to_string());
        assert_eq!(status, 200, "{body}");
        let answer = message(&body);
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "weather",
            "{answer}"
        );
        assert_eq!(answer["result"]["instructions"], "Ask by city.");
        let session = headers
            .iter()
            .find(|(k, _)| k == "mcp-session-id")
            .map(|(_, v)| v.clone())
            .expect("a session id");
        let with_session = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ];
        let (status, _, _) = http(
            addr,
            "POST",
            "/mcp",
            &with_session,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        assert_eq!(status, 202);

        let started = Instant::now();
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}});
        let (status, _, body) = http(addr, "POST", "/mcp", &with_session, &call.to_string());
        assert_eq!(status, 200, "{body}");
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "the slow fault applies"
        );
        assert_eq!(
            message(&body)["result"]["content"][0]["text"],
            "31 C",
            "{body}"
        );

        let (status, _, body) = http(addr, "POST", "/other", &[], &init.to_string());
        assert_eq!(status, 404);
        assert!(body.contains("serves MCP at /mcp"), "{body}");

        let (status, _, _) = http(
            addr,
            "POST",
            "/mcp",
            &[("host", "evil.example")],
            &init.to_string(),
        );
        assert!(
            status == 403 || status == 400 || status == 421,
            "a foreign Host is refused: {status}"
        );
    })
    .await;
    server.shutdown().await;
    result.unwrap();
}

#[tokio::test]
async fn an_address_in_use_says_so() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let file = ToolsFile::from_yaml_str("tools.yml", TOOLS).unwrap();
    let err = Mock::new(file).start_http(&addr).await.unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains("cannot listen on") && shown.contains("port 0 picks one"),
        "{shown}"
    );
}
