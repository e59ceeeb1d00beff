//! Serving the mock over Streamable HTTP (feature `http`): one endpoint, `/mcp`, on a TCP
//! address, HTTP/1.1.

use crate::log::{LogLevel, log};
use crate::mock::{Mock, MockError};
use crate::server::HttpService;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// A mock serving Streamable HTTP (see [`Mock::start_http`]).
#[derive(Debug)]
pub struct HttpMock {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl HttpMock {
    /// The address it listens on (with the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its MCP endpoint, `http://ADDR/mcp`, what a client's `url:` names.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// Stops serving: held calls end unanswered, open streams close, the port is released.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for HttpMock {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl Mock {
    /// Starts serving Streamable HTTP on `addr` (`127.0.0.1:0` picks a free port) on the
    /// current tokio runtime and returns at once; [`HttpMock::url`] is the endpoint.
    ///
    /// Every client and session shares one set of call counters, so `recover-after` counts
    /// the calls of every client of this server. `Host` headers are checked against loopback
    /// names when `addr` is a loopback address (the protection against DNS rebinding that
    /// local MCP servers need); a server bound to another address accepts any `Host`.
    pub async fn start_http(&self, addr: &str) -> Result<HttpMock, MockError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| MockError::Bind(format!("{addr}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| MockError::Bind(format!("{addr}: {e}")))?;
        let shutdown = CancellationToken::new();
        let session = self.session(shutdown.child_token())?;
        let service = Arc::new(HttpService::new(session, !local.ip().is_loopback()));
        let level = self.log_level();
        self.announce(&format!("http://{local}{MCP_PATH}"));
        let stop = shutdown.clone();
        let task = tokio::spawn(async move {
            loop {
                let stream = tokio::select! {
                    _ = stop.cancelled() => break,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(e) => {
                            log(level, LogLevel::Faults, format_args!("accept failed: {e}"));
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    },
                };
                let service = service.clone();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let handler = service_fn(move |request| {
                        let service = service.clone();
                        async move {
                            if request.uri().path() != MCP_PATH {
                                return Ok::<_, Infallible>(not_found(request.uri().path()));
                            }
                            Ok(service.handle(request).await)
                        }
                    });
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler);
                    tokio::pin!(connection);
                    tokio::select! {
                        _ = connection.as_mut() => {}
                        _ = stop.cancelled() => connection.as_mut().graceful_shutdown(),
                    }
                });
            }
        });
        Ok(HttpMock {
            addr: local,
            shutdown,
            task: Some(task),
        })
    }

    /// Serves Streamable HTTP on `addr` until the process is interrupted (Ctrl-C), on its
    /// own runtime; prints the endpoint to standard error first. This is `mcptest mock --http`.
    pub fn serve_http(&self, addr: &str) -> Result<(), MockError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| MockError::Runtime(e.to_string()))?;
        runtime.block_on(async {
            let server = self.start_http(addr).await?;
            let _ = tokio::signal::ctrl_c().await;
            server.shutdown().await;
            Ok(())
        })
    }
}

fn not_found(
    path: &str,
) -> http::Response<http_body_util::combinators::BoxBody<bytes::Bytes, Infallible>> {
    use http_body_util::BodyExt;
    let text = format!(
        "no MCP endpoint at {}; this mock serves MCP at {MCP_PATH}\n",
        crate::tools::cut(path, 200)
    );
    let mut response =
        http::Response::new(http_body_util::Full::new(bytes::Bytes::from(text)).boxed());
    *response.status_mut() = http::StatusCode::NOT_FOUND;
    response
}
