//! Starting the mock: on this process's standard input and output, in-process on a tokio
//! runtime, or as a child process.

use crate::fault::{Fault, Faults};
use crate::load::LoadError;
use crate::log::{LogLevel, log};
use crate::server::{self, Ended, Session};
use crate::tools::{ToolsFile, UnknownTool};
use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Why the mock could not serve.
#[derive(Debug)]
#[non_exhaustive]
pub enum MockError {
    /// The tools file does not load.
    Load(LoadError),
    /// No tokio runtime could be built or found.
    Runtime(String),
    /// The session did not start: the client's first message was refused (for example an
    /// `initialize` asking for a protocol version the server does not speak). The client got
    /// the protocol's error answer.
    Refused(String),
    /// The server task ended abnormally.
    Task(String),
    /// The HTTP address could not be listened on (in use, not an address, not permitted).
    Bind(String),
}

impl fmt::Display for MockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MockError::Load(e) => write!(f, "{e}"),
            MockError::Runtime(e) => write!(f, "cannot run the mock: {e}"),
            MockError::Refused(e) => write!(f, "the client's session was refused: {e}"),
            MockError::Task(e) => write!(f, "the mock's server task failed: {e}"),
            MockError::Bind(e) => write!(
                f,
                "cannot listen on {e}; give `--http` a free address such as 127.0.0.1:8931 \
                 (port 0 picks one)"
            ),
        }
    }
}

impl std::error::Error for MockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MockError::Load(e) => Some(e),
            _ => None,
        }
    }
}

impl From<LoadError> for MockError {
    fn from(e: LoadError) -> Self {
        MockError::Load(e)
    }
}

/// A mock MCP server: a tools file, the faults on `tools/call`, and how much to log.
///
/// Each session (each `serve*` or [`Mock::start`]) has its own call counters, so
/// `recover-after` starts over per session, as it does per process.
#[derive(Debug, Clone)]
pub struct Mock {
    file: Arc<ToolsFile>,
    fault: Fault,
    tool_faults: HashMap<String, Fault>,
    log: LogLevel,
}

impl Mock {
    /// A healthy mock serving `file`, logging faults to standard error.
    pub fn new(file: ToolsFile) -> Mock {
        Mock {
            file: Arc::new(file),
            fault: Fault::None,
            tool_faults: HashMap::new(),
            log: LogLevel::default(),
        }
    }

    /// A healthy mock serving the tools file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Mock, LoadError> {
        ToolsFile::load(path).map(Mock::new)
    }

    /// The fault every tool's calls get (unless [`Mock::tool_fault`] sets one for it).
    pub fn fault(mut self, fault: Fault) -> Mock {
        self.fault = fault;
        self
    }

    /// A fault for one tool's calls only; `Err` when the file has no such tool.
    pub fn tool_fault(mut self, tool: &str, fault: Fault) -> Result<Mock, UnknownTool> {
        if self.file.tool(tool).is_none() {
            return Err(UnknownTool {
                name: tool.to_string(),
                known: self.file.tools.iter().map(|t| t.name.clone()).collect(),
            });
        }
        self.tool_faults.insert(tool.to_string(), fault);
        Ok(self)
    }

    /// How much to log to standard error.
    pub fn log(mut self, level: LogLevel) -> Mock {
        self.log = level;
        self
    }

    /// The tools file served.
    pub fn tools_file(&self) -> &ToolsFile {
        &self.file
    }

    #[cfg(feature = "http")]
    pub(crate) fn log_level(&self) -> LogLevel {
        self.log
    }

    pub(crate) fn session(&self, stop: CancellationToken) -> Result<Arc<Session>, MockError> {
        let faults = Faults::new(self.fault, self.tool_faults.clone());
        Session::new(self.file.clone(), faults, self.log, stop)
            .map(Arc::new)
            .map_err(MockError::Task)
    }

    pub(crate) fn announce(&self, on: &str) {
        let n = self.file.tools.len();
        let mut faults = format!("fault {}", self.fault);
        for (tool, fault) in &self.tool_faults {
            faults.push_str(&format!(", `{tool}`: {fault}"));
        }
        log(
            self.log,
            LogLevel::Faults,
            format_args!(
                "serving {n} tool{} from {} ({faults}) on {on}",
                if n == 1 { "" } else { "s" },
                self.file.name
            ),
        );
    }

    /// Serves one MCP session on this process's standard input and output until the client
    /// closes its end. Builds its own single-threaded runtime; blocks until done. This is what
    /// `mcptest mock` runs.
    pub fn serve_stdio(&self) -> Result<(), MockError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| MockError::Runtime(e.to_string()))?;
        let result = runtime.block_on(async {
            let (read, write) = rmcp_stdio();
            self.announce("stdio");
            self.serve(read, write).await
        });
        // A blocking standard-input reader (when stdin is not a pipe) must not hold the exit.
        runtime.shutdown_timeout(Duration::from_millis(100));
        result
    }

    /// Serves one MCP session on a byte stream pair (newline-delimited JSON-RPC, as on stdio)
    /// until end of input.
    pub async fn serve<R, W>(&self, read: R, write: W) -> Result<(), MockError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_until(read, write, CancellationToken::new())
            .await
    }

    async fn serve_until<R, W>(
        &self,
        read: R,
        write: W,
        shutdown: CancellationToken,
    ) -> Result<(), MockError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let session = self.session(CancellationToken::new())?;
        let level = self.log;
        match server::serve(session, read, write, shutdown).await {
            Ended::Closed => {
                log(level, LogLevel::Faults, format_args!("session ended"));
                Ok(())
            }
            Ended::Refused(why) => {
                log(
                    level,
                    LogLevel::Faults,
                    format_args!("session refused: {why}"),
                );
                Err(MockError::Refused(why))
            }
        }
    }

    /// Starts the mock in-process on the current tokio runtime and returns it with the
    /// client's end of the connection: an in-memory stream that carries newline-delimited
    /// JSON-RPC both ways, usable as any MCP client's transport. Must be called from inside a
    /// tokio runtime.
    ///
    /// The session ends when the client drops its stream, or on [`InProcessMock::shutdown`];
    /// dropping the handle shuts the mock down too.
    pub fn start(&self) -> Result<(InProcessMock, DuplexStream), MockError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| {
            MockError::Runtime(format!(
                "{e}; call Mock::start inside a tokio runtime (for example in a #[tokio::test])"
            ))
        })?;
        let (client, server) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server);
        let shutdown = CancellationToken::new();
        let mock = self.clone();
        self.announce("an in-process stream");
        let task = {
            let shutdown = shutdown.clone();
            runtime.spawn(async move { mock.serve_until(read, write, shutdown).await })
        };
        Ok((
            InProcessMock {
                task: Some(task),
                shutdown,
            },
            client,
        ))
    }
}

#[cfg(target_os = "linux")]
fn rmcp_stdio() -> (rmcp::transport::StdioReader, rmcp::transport::StdioWriter) {
    rmcp::transport::stdio_pipes()
}

#[cfg(not(target_os = "linux"))]
fn rmcp_stdio() -> (tokio::io::Stdin, tokio::io::Stdout) {
    rmcp::transport::stdio()
}

/// A mock running in-process (see [`Mock::start`]).
#[derive(Debug)]
pub struct InProcessMock {
    task: Option<JoinHandle<Result<(), MockError>>>,
    shutdown: CancellationToken,
}

impl InProcessMock {
    /// Stops the mock at once: calls a fault is holding end unanswered, and the session
    /// closes. Returns how the session ended.
    pub async fn shutdown(mut self) -> Result<(), MockError> {
        self.shutdown.cancel();
        self.join().await
    }

    /// Waits until the session ends by itself (the client dropped its stream).
    pub async fn wait(mut self) -> Result<(), MockError> {
        self.join().await
    }

    async fn join(&mut self) -> Result<(), MockError> {
        match self.task.take() {
            Some(task) => task.await.map_err(|e| MockError::Task(e.to_string()))?,
            None => Ok(()),
        }
    }
}

impl Drop for InProcessMock {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// How to launch the mock as a child process: a program that serves it (`mcptest` with its
/// `mock` subcommand, or the `mcptest-mock` binary) and its options.
///
/// ```
/// use mcptest_mock::{Fault, MockCommand};
///
/// let cmd = MockCommand::new("mcptest", "tools.yml")
///     .subcommand("mock")
///     .fault(Fault::Slow { ms: 200 });
/// let args: Vec<String> = cmd
///     .to_command()
///     .get_args()
///     .map(|a| a.to_string_lossy().into_owned())
///     .collect();
/// assert_eq!(args, ["mock", "--tools-from", "tools.yml", "--fault", "slow:200", "--log", "faults"]);
/// ```
#[derive(Debug, Clone)]
pub struct MockCommand {
    program: PathBuf,
    subcommand: Option<OsString>,
    tools_from: PathBuf,
    fault: Fault,
    log: LogLevel,
}

impl MockCommand {
    /// `program --tools-from <tools_from>`, healthy, logging faults.
    pub fn new(program: impl Into<PathBuf>, tools_from: impl Into<PathBuf>) -> MockCommand {
        MockCommand {
            program: program.into(),
            subcommand: None,
            tools_from: tools_from.into(),
            fault: Fault::None,
            log: LogLevel::default(),
        }
    }

    /// A subcommand put before the options (`mock` for the `mcptest` program).
    pub fn subcommand(mut self, name: impl Into<OsString>) -> MockCommand {
        self.subcommand = Some(name.into());
        self
    }

    /// The fault (`--fault`).
    pub fn fault(mut self, fault: Fault) -> MockCommand {
        self.fault = fault;
        self
    }

    /// The log level (`--log`).
    pub fn log(mut self, level: LogLevel) -> MockCommand {
        self.log = level;
        self
    }

    /// The command line, with standard input, output and error left as the caller sets them.
    pub fn to_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.program);
        if let Some(sub) = &self.subcommand {
            cmd.arg(sub);
        }
        cmd.arg("--tools-from")
            .arg(&self.tools_from)
            .arg("--fault")
            .arg(self.fault.to_string())
            .arg("--log")
            .arg(self.log.to_string());
        cmd
    }

    /// Starts the child with piped standard input and output (the MCP connection) and an
    /// inherited standard error (the log). Must be called from inside a tokio runtime.
    pub fn spawn(&self) -> std::io::Result<ChildMock> {
        let mut cmd = tokio::process::Command::from(self.to_command());
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        Ok(ChildMock {
            child,
            stdin,
            stdout,
        })
    }
}

/// A mock running as a child process (see [`MockCommand::spawn`]). Dropping it kills the
/// child; [`ChildMock::shutdown`] stops it cleanly.
#[derive(Debug)]
pub struct ChildMock {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
}

impl ChildMock {
    /// The connection to the mock: `(read its output, write its input)`, for an MCP client.
    /// `None` once taken.
    pub fn take_stdio(&mut self) -> Option<(ChildStdout, ChildStdin)> {
        Some((self.stdout.take()?, self.stdin.take()?))
    }

    /// The child's process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Closes the mock's standard input (if this handle still holds it; a client holding it
    /// must drop its transport first), waits up to `grace` for the mock to exit, and kills it
    /// after that. The mock exits at once on end of input, even with calls hanging.
    pub async fn shutdown(mut self, grace: Duration) -> std::io::Result<ExitStatus> {
        drop(self.stdin.take());
        match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                self.child.kill().await?;
                self.child.wait().await
            }
        }
    }
}

/// Serves the tools file at `tools_from` on standard input and output with `fault`, and
/// returns the process exit code: 0 when the client ended the session, 2 when the tools file
/// does not load or the mock cannot serve (the reason is printed to standard error). This is
/// `mcptest mock` and the `mcptest-mock` binary.
pub fn run(tools_from: &Path, fault: Fault, log_level: LogLevel) -> u8 {
    let mock = match Mock::from_file(tools_from) {
        Ok(m) => m.fault(fault).log(log_level),
        Err(e) => {
            eprint_error(&format!("{e}"));
            return 2;
        }
    };
    match mock.serve_stdio() {
        Ok(()) => 0,
        Err(e) => {
            eprint_error(&format!("error: {e}"));
            2
        }
    }
}

/// Serves the tools file at `tools_from` over Streamable HTTP on `addr` with `fault` until the
/// process is interrupted, and returns the exit code: 0 after an interrupt, 2 when the tools
/// file does not load or the address cannot be listened on. This is `mcptest mock --http`.
#[cfg(feature = "http")]
pub fn run_http(tools_from: &Path, fault: Fault, log_level: LogLevel, addr: &str) -> u8 {
    let mock = match Mock::from_file(tools_from) {
        Ok(m) => m.fault(fault).log(log_level),
        Err(e) => {
            eprint_error(&format!("{e}"));
            return 2;
        }
    };
    match mock.serve_http(addr) {
        Ok(()) => 0,
        Err(e) => {
            eprint_error(&format!("error: {e}"));
            2
        }
    }
}

fn eprint_error(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}
