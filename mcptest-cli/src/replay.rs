//! `mcptest run`: load each suite, find each agent's cassette, grade it, report.

use crate::report::{AgentOutcome, AgentReport, Report, SuiteReport};
use crate::{ColorChoice, Reporter, RunArgs};
use mcptest_core::fingerprint::check_cassette;
use mcptest_core::spec::AgentSpec;
use mcptest_core::suite::{
    MAX_SUITE_BYTES, Suite, SuiteError, evaluate_cassette, resolve_cassette, stale_cassette_message,
};
use mcptest_core::trace::Cassette;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

/// Runs `mcptest run`; returns the exit code.
pub fn run(args: &RunArgs) -> u8 {
    if args.record {
        eprintln!(
            "error: recording is not available in this build of mcptest: it replays existing \
             cassettes only.\n  replay instead:  mcptest run --config {}\n  recording drives a \
             real model against the suite's MCP servers and needs a build with the `record` \
             feature.",
            args.config
                .first()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "S.yml".into())
        );
        return 2;
    }
    let filter = args.filter.clone().unwrap_or_default();
    let mut report = Report::default();
    for path in &args.config {
        report.suites.push(run_suite(path, &filter));
    }
    if !filter.is_empty()
        && report.suites.iter().all(|s| s.load_error.is_none())
        && report.suites.iter().all(|s| s.agents.is_empty())
    {
        let names: Vec<String> = args
            .config
            .iter()
            .filter_map(|p| load(p).ok())
            .flat_map(|s| s.agents.into_iter().map(|a| format!("  {}", a.name)))
            .collect();
        eprintln!(
            "error: no agent matches --filter {filter:?}; the suite's agents are:\n{}",
            names.join("\n")
        );
        return 2;
    }
    for s in &report.suites {
        if let Some(e) = &s.load_error {
            eprintln!("error: {e}\n");
        }
    }
    let text = match args.reporter {
        Reporter::Pretty => {
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    args.output.is_none()
                        && std::io::stdout().is_terminal()
                        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                }
            };
            crate::report::pretty::render(&report, color)
        }
        Reporter::Json => crate::report::json::render(&report),
        Reporter::Junit => crate::report::junit::render(&report),
    };
    if !emit(&text, args.output.as_deref(), &report.summary_line()) {
        return 2;
    }
    report.exit_code()
}

/// Writes a report to `output` (then prints `summary` and where it went) or to standard
/// output; false when the file cannot be written (said on stderr).
pub(crate) fn emit(text: &str, output: Option<&Path>, summary: &str) -> bool {
    match output {
        Some(file) => {
            if let Err(e) = std::fs::write(file, text.as_bytes()) {
                eprintln!("error: cannot write the report to {}: {e}", file.display());
                return false;
            }
            println!("{summary} (report written to {})", file.display());
        }
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`mcptest run ... | head`) is not an error of the run.
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }
    true
}

/// Reads and parses one suite file.
pub(crate) fn load(path: &Path) -> Result<Suite, SuiteError> {
    let name = path.display().to_string();
    match std::fs::metadata(path) {
        Ok(m) if m.len() > MAX_SUITE_BYTES as u64 => {
            return Err(SuiteError::whole_file(
                &name,
                format!(
                    "the suite is {} bytes, more than the {MAX_SUITE_BYTES} bytes a suite may \
                     hold; split it into several suite files",
                    m.len()
                ),
            ));
        }
        Ok(m) if m.is_dir() => {
            return Err(SuiteError::whole_file(
                &name,
                "this is a folder; pass a suite file: --config path/to/suite.yml",
            ));
        }
        _ => {}
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        let what = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file; check the path given to --config".into(),
            std::io::ErrorKind::InvalidData => "the file is not UTF-8 text".into(),
            _ => format!("cannot read the suite: {e}"),
        };
        SuiteError::whole_file(&name, what)
    })?;
    Suite::from_yaml_str(&name, &text)
}

fn run_suite(path: &Path, filter: &str) -> SuiteReport {
    let file = path.display().to_string();
    let suite = match load(path) {
        Ok(s) => s,
        Err(e) => {
            return SuiteReport {
                file,
                stem: mcptest_core::suite::suite_stem(&path.display().to_string()),
                agents: vec![],
                load_error: Some(e),
            };
        }
    };
    let specs: Vec<&AgentSpec> = suite.filter(filter).collect();
    let agents = in_parallel(
        &specs,
        |spec| grade_agent(path, &file, spec),
        // Grading never panics on any input; should it ever, the agents say so instead of
        // disappearing from the report.
        |spec| AgentReport {
            name: spec.name.clone(),
            model: spec.model.clone().unwrap_or_default(),
            cassette: spec.cassettes.first().cloned().unwrap_or_default(),
            outcome: AgentOutcome::Error(
                "internal error while grading this agent; please report it with the suite \
                 and cassette"
                    .into(),
            ),
            seconds: 0.0,
        },
    );
    SuiteReport {
        file,
        stem: suite.stem,
        agents,
        load_error: None,
    }
}

/// Maps `work` over `items` on every core, keeping their order; an item whose work panicked
/// (which no input should cause) gets `on_panic` instead of vanishing.
pub(crate) fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    on_panic: impl Fn(&T) -> R,
) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    let chunk = items.len().div_ceil(workers).max(1);
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                (
                    part,
                    scope.spawn(move || part.iter().map(work).collect::<Vec<R>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(part, handle)| {
                handle
                    .join()
                    .unwrap_or_else(|_| part.iter().map(&on_panic).collect())
            })
            .collect()
    })
}

/// Reads one agent's cassette and grades it; a missing or malformed cassette is an error
/// outcome that says what to do.
fn grade_agent(path: &Path, file: &str, spec: &AgentSpec) -> AgentReport {
    let started = Instant::now();
    let (shown, cassette) = read_cassette(path, file, spec);
    let outcome = match cassette {
        Ok(c) => AgentOutcome::Graded(evaluate_cassette(spec, &c)),
        Err(e) => AgentOutcome::Error(e),
    };
    AgentReport {
        name: spec.name.clone(),
        model: spec.model.clone().unwrap_or_default(),
        cassette: shown,
        outcome,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Reads one agent's cassette, resolved against the suite file at `path` (shown as `file`),
/// and checks it is not stale. Returns the cassette's path as shown, and the cassette or an
/// error that says what to do (how to record it).
pub(crate) fn read_cassette(
    path: &Path,
    file: &str,
    spec: &AgentSpec,
) -> (String, Result<Cassette, String>) {
    let rel = spec.cassettes.first().cloned().unwrap_or_default();
    let cassette_path = resolve_cassette(path, &rel);
    let shown = cassette_path.display().to_string();
    let cassette = match std::fs::read_to_string(&cassette_path) {
        Ok(text) => match Cassette::from_json_str(&shown, &text) {
            Ok(c) => match check_cassette(spec, &c) {
                Ok(()) => Ok(c),
                Err(stale) => Err(stale_cassette_message(spec, &shown, &stale, Some(file))),
            },
            Err(e) => Err(format!(
                "malformed cassette: {e}\n  record it again with: mcptest run --record \
                 --config {file} --filter {:?}",
                spec.name
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "cassette not found: {shown}\n  record one with: mcptest run --record --config \
             {file} --filter {:?}\n  (or point the agent at an existing file with \
             `cassette:`, relative to the suite file's folder)",
            spec.name
        )),
        Err(e) => Err(format!("cannot read the cassette {shown}: {e}")),
    };
    (shown, cassette)
}
