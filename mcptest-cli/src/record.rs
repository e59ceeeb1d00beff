//! `mcptest run --record`: record every selected agent's cassette, then grade them.
//!
//! Recording notes go to standard error (standard output carries the report, which may be
//! JSON or JUnit); the progress line shows only on a terminal.

use crate::{ProviderChoice, RunArgs};
use mcptest_core::fingerprint::Provider;
use mcptest_core::suite::cell_label;
use mcptest_record::{ProviderConfig, RecordOptions, Recorder};

/// Records, then replays; returns the exit code (2 when a recording could not be made).
pub fn run(args: &RunArgs) -> u8 {
    let provider = match args.provider {
        ProviderChoice::Anthropic => Provider::Anthropic,
        ProviderChoice::Openai => Provider::OpenAi,
    };
    let config = match ProviderConfig::from_env(provider) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if args.code_execution.is_some() && provider != Provider::Anthropic {
        eprintln!(
            "error: --code-execution is an Anthropic tool; drop it or use --provider anthropic"
        );
        return 2;
    }
    let mut options = RecordOptions::new(config);
    options.code_execution = args.code_execution.clone();
    if let Some(ms) = args.call_timeout_ms {
        options.call_timeout_ms = ms.max(1);
    }
    let recorder = match Recorder::new(options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let filter = args.filter.clone().unwrap_or_default();
    let mut failed = 0usize;
    for path in &args.config {
        // A suite that does not load is reported by the replay below, with the others.
        let Ok(suite) = crate::replay::load(path) else {
            failed += 1;
            continue;
        };
        for spec in suite.filter(&filter) {
            let label = cell_label(spec);
            match recorder
                .record_agent(path, &suite, spec)
                .and_then(|r| r.write().map(|()| r))
            {
                Ok(r) => {
                    let skipped = match r.virtual_ms() {
                        0 => String::new(),
                        ms => format!(" (+{ms} ms of injected faults in virtual time)"),
                    };
                    eprintln!(
                        "recorded {label}: {} run(s), {} tool call(s), {} ms{skipped} -> {}",
                        r.runs.len(),
                        r.calls(),
                        r.wall_ms(),
                        r.path.display()
                    );
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("error: recording {label}: {e}");
                }
            }
        }
    }
    let replay = RunArgs {
        record: false,
        ..args.clone()
    };
    let code = crate::replay::run(&replay);
    if failed > 0 { 2 } else { code }
}
