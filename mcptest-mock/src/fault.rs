//! The fault kinds and what each does to a `tools/call`.
//!
//! | Kind | Effect on `tools/call` |
//! |---|---|
//! | `none` | Healthy server (the default). |
//! | `hang` | Every call never returns: reachable but unresponsive, the "dead but connected" fault. |
//! | `wedged` | The same effect as `hang`, under a name that records a different intent (a deadlocked backend rather than a stalled network). |
//! | `slow:<ms>` | The call answers, but only after `<ms>` milliseconds. |
//! | `recover-after:<n>` | The first `<n>` calls of each tool hang, then that tool answers. |
//! | `reply-after-cancel:<ms>` | The call answers after `<ms>` even when the client cancelled it. |
//!
//! Faults touch `tools/call` only: `initialize`, `tools/list` and the resources stay
//! responsive. A call the client cancels (`notifications/cancelled`) stops waiting at once,
//! except under `reply-after-cancel`, which answers anyway on purpose: that is the
//! non-conformant cancel-after-completion race the fault exists to test. Every wait also ends
//! when the client goes away (end of input), so stopping a hung mock is immediate.
//!
//! `recover-after` counts calls per tool, for the life of one server (one process, or one
//! in-process mock); a cancelled or timed-out call counts too.
//!
//! ```
//! use mcptest_mock::Fault;
//!
//! let fault: Fault = "recover-after:2".parse()?;
//! assert_eq!(fault, Fault::RecoverAfter { calls: 2 });
//! assert_eq!(fault.to_string(), "recover-after:2");
//!
//! let err = "slow".parse::<Fault>().unwrap_err();
//! assert!(err.to_string().contains("slow:<ms>"), "{err}");
//! # Ok::<(), mcptest_mock::FaultParseError>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

/// The longest delay `slow:` and `reply-after-cancel:` accept: one day, in milliseconds.
pub const MAX_DELAY_MS: u64 = 86_400_000;

/// A fault injected into `tools/call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Fault {
    /// Healthy: every call is answered at once.
    #[default]
    None,
    /// Every call never returns.
    Hang,
    /// Like [`Fault::Hang`]; the name records a deadlocked backend.
    Wedged,
    /// Every call answers after `ms` milliseconds.
    Slow {
        /// The delay, in milliseconds.
        ms: u64,
    },
    /// The first `calls` calls of each tool hang; later calls answer.
    RecoverAfter {
        /// How many calls of each tool hang.
        calls: u64,
    },
    /// Every call answers after `ms` milliseconds, even when the client cancelled it.
    ReplyAfterCancel {
        /// The delay, in milliseconds.
        ms: u64,
    },
}

/// The kinds as written on the command line, for messages.
const KINDS: &str = "none, hang, wedged, slow:<ms>, recover-after:<n>, reply-after-cancel:<ms>";
const NAMES: &[&str] = &[
    "none",
    "hang",
    "wedged",
    "slow",
    "recover-after",
    "reply-after-cancel",
];

/// A fault that does not parse: the message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultParseError {
    message: String,
}

impl fmt::Display for FaultParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FaultParseError {}

fn parse_error(message: String) -> FaultParseError {
    FaultParseError { message }
}

impl FromStr for Fault {
    type Err = FaultParseError;

    fn from_str(s: &str) -> Result<Fault, FaultParseError> {
        let s = s.trim();
        let (name, value) = match s.split_once(':') {
            Some((n, v)) => (n, Some(v)),
            None => (s, None),
        };
        let number = |what: &str, example: &str| -> Result<u64, FaultParseError> {
            let Some(v) = value else {
                return Err(parse_error(format!(
                    "`{name}` needs {what}: write `{name}:<{}>`, e.g. `{example}`",
                    if what.contains("milli") { "ms" } else { "n" }
                )));
            };
            v.trim().parse::<u64>().map_err(|_| {
                parse_error(format!(
                    "`{s}`: `{v}` is not {what} (a whole number); write e.g. `{example}`"
                ))
            })
        };
        let delay = |example: &str| -> Result<u64, FaultParseError> {
            let ms = number("a delay in milliseconds", example)?;
            if ms > MAX_DELAY_MS {
                return Err(parse_error(format!(
                    "`{s}`: the delay is at most {MAX_DELAY_MS} ms (a day); for a call that never \
                     returns, use `hang`"
                )));
            }
            Ok(ms)
        };
        let no_value = |fault: Fault| -> Result<Fault, FaultParseError> {
            match value {
                None => Ok(fault),
                Some(_) => Err(parse_error(format!(
                    "`{name}` takes no value; write `{name}`"
                ))),
            }
        };
        match name {
            "none" => no_value(Fault::None),
            "hang" => no_value(Fault::Hang),
            "wedged" => no_value(Fault::Wedged),
            "slow" => Ok(Fault::Slow {
                ms: delay("slow:200")?,
            }),
            "recover-after" => Ok(Fault::RecoverAfter {
                calls: number("a number of calls", "recover-after:2")?,
            }),
            "reply-after-cancel" => Ok(Fault::ReplyAfterCancel {
                ms: delay("reply-after-cancel:500")?,
            }),
            other => {
                let hint = match mcptest_core::rules::suggest::did_you_mean(
                    &other.replace('_', "-").to_ascii_lowercase(),
                    NAMES,
                ) {
                    Some(close) => format!("did you mean `{close}`? "),
                    None => String::new(),
                };
                Err(parse_error(format!(
                    "unknown fault `{s}`; {hint}expected one of: {KINDS}"
                )))
            }
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::None => f.write_str("none"),
            Fault::Hang => f.write_str("hang"),
            Fault::Wedged => f.write_str("wedged"),
            Fault::Slow { ms } => write!(f, "slow:{ms}"),
            Fault::RecoverAfter { calls } => write!(f, "recover-after:{calls}"),
            Fault::ReplyAfterCancel { ms } => write!(f, "reply-after-cancel:{ms}"),
        }
    }
}

/// What to do with one call, decided when it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Answer now.
    Answer,
    /// Never answer (until cancelled or the client goes away).
    Hang,
    /// Answer after the delay unless cancelled first.
    Delay(Duration),
    /// Answer after the delay, cancelled or not.
    DelayIgnoringCancel(Duration),
}

/// The faults of one server and its per-tool call counters.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    default: Fault,
    per_tool: HashMap<String, Fault>,
    calls: Mutex<HashMap<String, u64>>,
}

impl Faults {
    pub fn new(default: Fault, per_tool: HashMap<String, Fault>) -> Self {
        Faults {
            default,
            per_tool,
            calls: Mutex::new(HashMap::new()),
        }
    }

    /// The fault that applies to `tool`.
    pub fn fault_for(&self, tool: &str) -> Fault {
        self.per_tool.get(tool).copied().unwrap_or(self.default)
    }

    /// Counts the call and decides what to do with it.
    pub fn plan(&self, tool: &str) -> Plan {
        let n = {
            let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
            let n = calls.entry(tool.to_string()).or_insert(0);
            *n = n.saturating_add(1);
            *n
        };
        match self.fault_for(tool) {
            Fault::None => Plan::Answer,
            Fault::Hang | Fault::Wedged => Plan::Hang,
            Fault::Slow { ms } => Plan::Delay(Duration::from_millis(ms)),
            Fault::RecoverAfter { calls } if n <= calls => Plan::Hang,
            Fault::RecoverAfter { .. } => Plan::Answer,
            Fault::ReplyAfterCancel { ms } => Plan::DelayIgnoringCancel(Duration::from_millis(ms)),
        }
    }

    /// Whether any tool answers after a cancel (the transport then lets such cancels pass
    /// unseen by the service loop).
    pub fn ignores_cancel(&self, tool: &str) -> bool {
        matches!(self.fault_for(tool), Fault::ReplyAfterCancel { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        for s in [
            "none",
            "hang",
            "wedged",
            "slow:200",
            "recover-after:2",
            "reply-after-cancel:300",
            "slow:0",
        ] {
            let f: Fault = s.parse().unwrap();
            assert_eq!(f.to_string(), s);
        }
        assert_eq!(" hang ".parse::<Fault>().unwrap(), Fault::Hang);
    }

    #[test]
    fn mistakes_say_what_to_write() {
        let msg = |s: &str| s.parse::<Fault>().unwrap_err().to_string();
        assert_eq!(
            msg("hnag"),
            "unknown fault `hnag`; did you mean `hang`? expected one of: none, hang, wedged, \
             slow:<ms>, recover-after:<n>, reply-after-cancel:<ms>"
        );
        assert!(msg("recover_after:2").contains("did you mean `recover-after`?"));
        assert_eq!(
            msg("slow"),
            "`slow` needs a delay in milliseconds: write `slow:<ms>`, e.g. `slow:200`"
        );
        assert_eq!(
            msg("recover-after"),
            "`recover-after` needs a number of calls: write `recover-after:<n>`, e.g. \
             `recover-after:2`"
        );
        assert!(msg("slow:2s").contains("`2s` is not a delay in milliseconds"));
        assert!(msg("slow:-1").contains("not a delay"));
        assert!(msg("hang:5").contains("takes no value"));
        assert!(msg("slow:999999999999").contains("use `hang`"));
        assert!(msg("").contains("unknown fault"));
    }

    #[test]
    fn recover_after_counts_per_tool() {
        let faults = Faults::new(Fault::RecoverAfter { calls: 2 }, HashMap::new());
        let plans: Vec<Plan> = (0..3).map(|_| faults.plan("a")).collect();
        assert_eq!(plans, [Plan::Hang, Plan::Hang, Plan::Answer]);
        assert_eq!(faults.plan("b"), Plan::Hang);
        assert_eq!(faults.plan("a"), Plan::Answer);
    }

    #[test]
    fn per_tool_faults_override_the_default() {
        let faults = Faults::new(
            Fault::None,
            HashMap::from([("search".to_string(), Fault::ReplyAfterCancel { ms: 5 })]),
        );
        assert_eq!(faults.plan("weather"), Plan::Answer);
        assert_eq!(
            faults.plan("search"),
            Plan::DelayIgnoringCancel(Duration::from_millis(5))
        );
        assert!(faults.ignores_cancel("search"));
        assert!(!faults.ignores_cancel("weather"));
    }
}
