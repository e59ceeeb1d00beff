//! `mcptest mutate`: how many planted misbehaviours a suite's gates catch.

use crate::replay::{emit, in_parallel, load, read_cassette};
use mcptest_core::mutate::{MutationReport, mutation_test};
use mcptest_core::spec::AgentSpec;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `mcptest mutate`.
#[derive(Debug, Clone, clap::Args)]
pub struct MutateArgs {
    /// The suite file(s); repeat the flag for several suites.
    #[arg(long, short = 'c', value_name = "SUITE.yml", required = true)]
    pub config: Vec<PathBuf>,
    /// How to report: readable text, or one JSON document.
    #[arg(long, value_enum, default_value_t = MutateReporter::Pretty)]
    pub reporter: MutateReporter,
    /// Exit 1 when an agent's mutation score is below X (0 to 1).
    #[arg(long, value_name = "X", value_parser = parse_score)]
    pub min_score: Option<f64>,
    /// Only agents whose name or model contains PATTERN (case-insensitive).
    #[arg(long, short = 'f', value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Write the report to FILE instead of standard output (a one-line summary still prints).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The report formats of `mcptest mutate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MutateReporter {
    /// Readable text.
    Pretty,
    /// One JSON document.
    Json,
}

fn parse_score(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number; write a score from 0 to 1, such as 0.8"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside 0..=1; write a score such as 0.8"))
    }
}

/// One agent's result.
struct AgentMutation {
    file: String,
    name: String,
    model: String,
    outcome: Result<MutationReport, String>,
}

/// Runs `mcptest mutate`; returns the exit code.
pub fn run(args: &MutateArgs) -> u8 {
    let filter = args.filter.clone().unwrap_or_default();
    let mut agents = Vec::new();
    let mut load_errors = 0;
    for path in &args.config {
        let file = path.display().to_string();
        let suite = match load(path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}\n");
                load_errors += 1;
                continue;
            }
        };
        let specs: Vec<&AgentSpec> = suite.filter(&filter).collect();
        agents.extend(grade_all(path, &file, &specs));
    }
    if load_errors == 0 && agents.is_empty() {
        eprintln!(
            "error: no agent to mutate{}",
            if filter.is_empty() {
                String::new()
            } else {
                format!(" matches --filter {filter:?}")
            }
        );
        return 2;
    }
    let text = match args.reporter {
        MutateReporter::Pretty => pretty(&agents, args.min_score),
        MutateReporter::Json => json_report(&agents, args.min_score),
    };
    let (mutants, caught) = totals(&agents);
    let errors = load_errors + agents.iter().filter(|a| a.outcome.is_err()).count();
    let below = below(&agents, args.min_score);
    if !emit(
        &text,
        args.output.as_deref(),
        &format!("{caught} of {mutants} mutant(s) caught"),
    ) {
        return 2;
    }
    if errors > 0 {
        2
    } else if !below.is_empty() {
        1
    } else {
        0
    }
}

/// Mutates every agent of one suite, on every core, keeping suite order.
fn grade_all(path: &Path, file: &str, specs: &[&AgentSpec]) -> Vec<AgentMutation> {
    let entry = |spec: &AgentSpec, outcome| AgentMutation {
        file: file.to_string(),
        name: spec.name.clone(),
        model: spec.model.clone().unwrap_or_default(),
        outcome,
    };
    in_parallel(
        specs,
        |spec| {
            entry(
                spec,
                read_cassette(path, file, spec)
                    .1
                    .map(|c| mutation_test(spec, &c)),
            )
        },
        |spec| {
            entry(
                spec,
                Err(
                    "internal error while mutating this agent; please report it with the \
                     suite and cassette"
                        .into(),
                ),
            )
        },
    )
}

fn totals(agents: &[AgentMutation]) -> (usize, usize) {
    agents
        .iter()
        .filter_map(|a| a.outcome.as_ref().ok())
        .fold((0, 0), |(m, c), r| (m + r.mutants, c + r.caught))
}

/// The agents whose score is below `min`.
fn below(agents: &[AgentMutation], min: Option<f64>) -> Vec<&AgentMutation> {
    let Some(min) = min else { return vec![] };
    agents
        .iter()
        .filter(|a| a.outcome.as_ref().is_ok_and(|r| r.score < min))
        .collect()
}

fn pretty(agents: &[AgentMutation], min: Option<f64>) -> String {
    let mut out = String::new();
    let mut last_file = None;
    for a in agents {
        if last_file != Some(&a.file) {
            if last_file.is_some() {
                out.push('\n');
            }
            let _ = writeln!(out, "{}", a.file);
            last_file = Some(&a.file);
        }
        let label = format!("{} [{}]", a.name, a.model);
        match &a.outcome {
            Err(e) => {
                let _ = writeln!(out, "  ERROR  {label}");
                for line in e.lines() {
                    let _ = writeln!(out, "         {line}");
                }
            }
            Ok(r) => {
                let _ = writeln!(
                    out,
                    "  {:.3}  {label}  ({} of {} mutant(s) caught)",
                    r.score, r.caught, r.mutants
                );
                let kinds: Vec<String> = r
                    .kinds
                    .iter()
                    .map(|(k, c)| format!("{k} {}/{}", c.caught, c.mutants))
                    .collect();
                if !kinds.is_empty() {
                    let _ = writeln!(out, "         caught by kind: {}", kinds.join(", "));
                }
                if !r.already_failing.is_empty() {
                    let _ = writeln!(
                        out,
                        "         note: {} already fail(s) on the recorded runs and cannot catch \
                         a mutant; fix the suite or the recording first (mcptest run)",
                        r.already_failing.join(", ")
                    );
                }
                if !r.survivors.is_empty() {
                    let _ = writeln!(out, "         survivors (no gate failed):");
                    for s in &r.survivors {
                        let _ = writeln!(
                            out,
                            "           {:<6} {:<17} {}",
                            s.run,
                            s.kind.as_str(),
                            s.description
                        );
                    }
                }
            }
        }
    }
    let (mutants, caught) = totals(agents);
    let score = if mutants == 0 {
        0.0
    } else {
        caught as f64 / mutants as f64
    };
    let _ = writeln!(
        out,
        "\nmutation score {score:.3}: {caught} of {mutants} mutant(s) caught over {} agent(s)",
        agents.len()
    );
    if let Some(min) = min {
        let low = below(agents, Some(min));
        if low.is_empty() {
            let _ = writeln!(out, "every agent scores at least --min-score {min}");
        } else {
            let _ = writeln!(out, "below --min-score {min}:");
            for a in low {
                let s = a.outcome.as_ref().map_or(0.0, |r| r.score);
                let _ = writeln!(
                    out,
                    "  {} [{}]: {s:.3}; add gates that would fail on its survivors",
                    a.name, a.model
                );
            }
        }
    }
    out
}

fn json_report(agents: &[AgentMutation], min: Option<f64>) -> String {
    let (mutants, caught) = totals(agents);
    let items: Vec<Value> = agents
        .iter()
        .map(|a| match &a.outcome {
            Ok(r) => json!({
                "name": a.name, "model": a.model, "file": a.file,
                "mutants": r.mutants, "caught": r.caught, "score": r.score,
                "kinds": r.kinds, "survivors": r.survivors,
                "already_failing": r.already_failing, "error": null,
            }),
            Err(e) => json!({
                "name": a.name, "model": a.model, "file": a.file,
                "mutants": 0, "caught": 0, "score": 0.0, "kinds": {}, "survivors": [],
                "already_failing": [], "error": e,
            }),
        })
        .collect();
    let doc = json!({
        "mcptest_mutate": 1,
        "mutants": mutants,
        "caught": caught,
        "score": if mutants == 0 { 0.0 } else { caught as f64 / mutants as f64 },
        "min_score": min,
        "agents": items,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
