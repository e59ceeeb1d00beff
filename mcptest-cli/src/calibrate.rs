//! `mcptest calibrate`: write a copy of a suite whose declared gates carry explicit floors and
//! ceilings taken from the suite's recorded cassettes.
//!
//! The suite and its cassettes load exactly as `mcptest run` loads them ([`crate::replay`]);
//! the bounds come from [`mcptest_core::calibrate`]; the copy is the suite's document with the
//! bounds written in, emitted with serde-saphyr. YAML comments are not kept (the document model
//! has none), and the output's header comment says so.

use crate::replay::{load, read_cassette};
use mcptest_core::calibrate::{Bound, Margins, Side, apply_to_yaml_agent, calibrate_agent};
use mcptest_core::spec::AgentSpec;
use mcptest_core::suite::{Suite, cell_label, resolve_cassette, suite_document};
use mcptest_core::trace::Cassette;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `mcptest calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// The suite whose recordings set the bounds.
    #[arg(long, short = 'c', value_name = "SUITE.yml")]
    pub config: PathBuf,
    /// Write the calibrated suite to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `mcptest calibrate`; returns the exit code.
pub fn run(args: &CalibrateArgs) -> u8 {
    let path = &args.config;
    let file = path.display().to_string();
    let suite = match load(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut doc = match std::fs::read_to_string(path)
        .map_err(|e| format!("{file}: cannot read the suite: {e}"))
        .and_then(|text| suite_document(&file, &text).map_err(|e| e.to_string()))
    {
        Ok(doc) => doc,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };

    // Every cassette first: a missing one stops the calibration before anything is written.
    let mut cassettes: Vec<(&AgentSpec, Cassette)> = Vec::new();
    let mut errors = Vec::new();
    for spec in &suite.agents {
        match read_cassette(path, &file, spec).1 {
            Ok(c) => cassettes.push((spec, c)),
            Err(e) => errors.push(format!("{}: {e}", cell_label(spec))),
        }
    }
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("error: {e}");
        }
        eprintln!(
            "calibration reads the recordings: record the missing cassettes first, then run \
             mcptest calibrate again"
        );
        return 2;
    }

    let margins = Margins::default();
    let mut summary = Vec::new();
    let mut still_failing = Vec::new();
    let mut notes = Vec::new();
    if let Some(Value::Array(agents)) = doc.get_mut("agents") {
        for agent in agents.iter_mut().filter_map(Value::as_object_mut) {
            let Some(name) = agent
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                continue;
            };
            let models: Vec<(&AgentSpec, &Cassette)> = cassettes
                .iter()
                .filter(|(spec, _)| spec.name == name)
                .map(|(spec, c)| (*spec, c))
                .collect();
            if models.is_empty() {
                continue;
            }
            let calibration = calibrate_agent(&models, &margins);
            apply_to_yaml_agent(agent, &calibration.bounds);
            let label = models
                .iter()
                .map(|(s, _)| cell_label(s))
                .collect::<Vec<_>>()
                .join(", ");
            let mut cassette_line = None;
            // A default cassette path follows the suite's file name, which the copy does not
            // share: name the recordings explicitly.
            if !agent.contains_key("cassette") {
                match models.as_slice() {
                    [(spec, _)] => {
                        let written = cassette_for_copy(path, args.output.as_deref(), spec);
                        cassette_line = Some(format!("  cassette: {written}"));
                        agent.insert("cassette".into(), Value::String(written));
                    }
                    _ => notes.push(format!(
                        "{label}: several models, so no single `cassette:` can name the \
                         recordings; keep the copy's file name `{}` (in another folder) or \
                         copy cassettes/{}/ to the copy's cassette folder",
                        path.file_name()
                            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
                        suite.stem
                    )),
                }
            }
            if !calibration.bounds.is_empty() || cassette_line.is_some() {
                summary.push(format!("{label}:"));
                summary.extend(calibration.bounds.iter().map(bound_line));
                summary.extend(cassette_line);
            }
            still_failing.extend(
                calibration
                    .still_failing
                    .iter()
                    .map(|row| format!("  {label} {row}")),
            );
        }
    }

    let yaml = match serde_saphyr::to_string(&doc) {
        Ok(y) => y,
        Err(e) => {
            eprintln!("error: cannot write the calibrated suite as YAML: {e}");
            return 2;
        }
    };
    let text = format!("{}{yaml}", header(&file, &margins));
    // The copy must load as the original did; anything else is a bug, reported, never written.
    if let Err(e) = Suite::from_yaml_str(&file, &text) {
        eprintln!("error: the calibrated suite does not load (please report this): {e}");
        return 2;
    }

    if summary.is_empty() {
        eprintln!(
            "no declared gate has a numeric target to calibrate in {file} (declare stability:, \
             golden_path:, trajectory_axes:, narrative: or reliability: on an agent)"
        );
    } else {
        eprintln!("calibrated from the recordings of {file} (observed -> bound written):");
        for line in &summary {
            eprintln!("  {line}");
        }
    }
    for note in &notes {
        eprintln!("note: {note}");
    }
    if !still_failing.is_empty() {
        eprintln!(
            "these rows still fail on the recordings: calibration does not loosen trajectory \
             pins, the narrative's claimed-but-absent check, recovery budgets or missing runs:"
        );
        for line in &still_failing {
            eprintln!("{line}");
        }
    }

    match &args.output {
        Some(out) => {
            if let Err(e) = std::fs::write(out, text.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", out.display());
                return 2;
            }
            eprintln!("wrote {}", out.display());
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
        }
    }
    0
}

/// The agent's cassette as the copy must name it: relative to the copy's folder when the copy
/// sits next to the suite (or goes to stdout), else the absolute path.
fn cassette_for_copy(suite: &Path, output: Option<&Path>, spec: &AgentSpec) -> String {
    let rel = spec.cassettes.first().cloned().unwrap_or_default();
    let folder = |p: &Path| {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        dir.canonicalize().ok()
    };
    match output {
        Some(out) if folder(out) != folder(suite) || folder(suite).is_none() => {
            let resolved = resolve_cassette(suite, &rel);
            resolved
                .canonicalize()
                .unwrap_or(resolved)
                .display()
                .to_string()
        }
        _ => rel,
    }
}

/// `  stability.weakest_score 0.412 -> minimum 0.362`.
fn bound_line(b: &Bound) -> String {
    let (side, written) = match (b.block, b.side) {
        ("narrative", _) => ("max_divergence_score", b.value),
        (_, Side::Floor) => ("minimum", b.value),
        (_, Side::Ceiling) => ("maximum", b.value),
    };
    format!("  {} {} -> {side} {written}", b.target, trim(b.observed))
}

/// A number without float noise: 3 decimals, trailing zeros dropped.
fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// The comment at the top of the calibrated suite.
fn header(file: &str, m: &Margins) -> String {
    format!(
        "# Calibrated by `mcptest calibrate --config {file}` from its recorded cassettes.\n\
         # Floors: the lowest observed score minus {}, rounded down to 3 decimals (integer\n\
         # percents: minus {} points); ceilings: the highest observed value plus the same margin.\n\
         # Comments of the original suite are not kept; every other field is.\n",
        m.score, m.percent
    )
}
