//! The progress line on standard error while recording: agent, run, turn. Shown only when
//! standard error is a terminal; silent otherwise (CI logs, pipes, tests).

use std::io::{IsTerminal, Write};

/// A one-line progress display.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    enabled: bool,
}

impl Progress {
    /// Shows progress when `wanted` and standard error is a terminal.
    pub fn new(wanted: bool) -> Self {
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    /// A display that never shows anything.
    pub fn off() -> Self {
        Progress { enabled: false }
    }

    /// Replaces the line with `text`.
    pub fn show(&self, text: &str) {
        if self.enabled {
            let shown: String = text.chars().take(120).collect();
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{shown}");
            let _ = err.flush();
        }
    }

    /// Clears the line.
    pub fn clear(&self) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}
