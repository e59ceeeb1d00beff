//! `mcptest-mock`: the mock MCP server alone, as `mcptest mock` serves it.

use mcptest_mock::{Fault, LogLevel};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
Serve MCP tools from a YAML file on stdin/stdout, with a fault injected into tools/call.

Usage: mcptest-mock --tools-from <FILE> [--fault <KIND>] [--log <LEVEL>]

Options:
  --tools-from <FILE>  The tools file (see examples/tools.yml)
  --fault <KIND>       none (default), hang, wedged, slow:<ms>, recover-after:<n>,
                       reply-after-cancel:<ms>
  --log <LEVEL>        What to log to stderr: off, faults (default), calls
  -h, --help           Print this help
  -V, --version        Print the version

Example:
  mcptest-mock --tools-from examples/tools.yml --fault slow:200";

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut tools_from: Option<PathBuf> = None;
    let mut fault = Fault::None;
    let mut log = LogLevel::default();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let arg = arg.to_string_lossy().into_owned();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, ExitCode> {
            match inline
                .clone()
                .or_else(|| args.next().map(|v| v.to_string_lossy().into_owned()))
            {
                Some(v) => Ok(v),
                None => Err(usage_error(&format!("{name} needs a value"))),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "-V" | "--version" => {
                println!("mcptest-mock {}", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            "--tools-from" => match value("--tools-from") {
                Ok(v) => tools_from = Some(PathBuf::from(v)),
                Err(code) => return code,
            },
            "--fault" => match value("--fault").map(|v| v.parse::<Fault>()) {
                Ok(Ok(f)) => fault = f,
                Ok(Err(e)) => return usage_error(&format!("--fault: {e}")),
                Err(code) => return code,
            },
            "--log" => match value("--log").map(|v| v.parse::<LogLevel>()) {
                Ok(Ok(l)) => log = l,
                Ok(Err(e)) => return usage_error(&format!("--log: {e}")),
                Err(code) => return code,
            },
            other => return usage_error(&format!("unexpected argument `{other}`")),
        }
    }
    let Some(tools_from) = tools_from else {
        return usage_error("--tools-from <FILE> is required");
    };
    ExitCode::from(mcptest_mock::run(&tools_from, fault, log))
}
