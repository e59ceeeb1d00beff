//! What the mock tells its standard error. Standard output carries JSON-RPC and nothing else.

use std::fmt;
use std::io::Write;
use std::str::FromStr;

/// How much the mock logs to standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum LogLevel {
    /// Nothing.
    Off,
    /// Start-up, every fault applied to a call, cancellations and the end (the default).
    #[default]
    Faults,
    /// All of that and one line per `tools/call`.
    Calls,
}

impl FromStr for LogLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<LogLevel, String> {
        match s.trim() {
            "off" => Ok(LogLevel::Off),
            "faults" => Ok(LogLevel::Faults),
            "calls" => Ok(LogLevel::Calls),
            other => Err(format!(
                "unknown log level `{other}`; expected one of: off, faults, calls"
            )),
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogLevel::Off => "off",
            LogLevel::Faults => "faults",
            LogLevel::Calls => "calls",
        })
    }
}

/// Writes one line to standard error when `level` is at least `at`. A standard error that
/// cannot be written (closed by the parent) is ignored rather than fatal.
pub(crate) fn log(level: LogLevel, at: LogLevel, args: fmt::Arguments<'_>) {
    if level >= at && at != LogLevel::Off {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "mcptest mock: {args}");
    }
}
