//! The `mcptest` command line.
//!
//! * `mcptest run --config S.yml` replays every agent of a YAML suite against its recorded
//!   cassette, with no model and no network, and reports each (agent, model) cell and its gate
//!   rows (`--reporter pretty|json|junit`, `--output FILE`, `--filter PATTERN`).
//! * `mcptest runs --half-width 0.05 --confidence 0.95` sizes a run count.
//!
//! Exit codes: 0 every cell passed, 1 a quality failure (a gate failed), 2 an infrastructure or
//! load error (a suite that does not load, a missing or malformed cassette, a usage error).
//! Recording (`--record`) is not part of this build; it says so and exits 2.

mod replay;
mod report;
mod runs;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Grade recorded AI-agent runs against MCP servers, deterministically: no model in the loop.
#[derive(Debug, Parser)]
#[command(
    name = "mcptest",
    version,
    propagate_version = true,
    after_help = "Examples:\n  \
        mcptest run --config examples/offline-trace-validation.yml\n  \
        mcptest run --config examples/agent-stability.yml --reporter junit --output report.xml\n  \
        mcptest runs --half-width 0.05 --confidence 0.95\n\n\
        Exit codes: 0 all cells passed, 1 a gate failed, 2 a load or infrastructure error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay a suite's cassettes and grade every agent (no model, no network).
    #[command(after_help = "Examples:\n  \
        mcptest run --config examples/offline-trace-validation.yml\n  \
        mcptest run --config examples/failing-on-purpose.yml --reporter json --output report.json\n  \
        mcptest run --config examples/narrative.yml --filter triage\n  \
        mcptest run --config a.yml --config b.yml --reporter junit --output junit.xml\n\n\
        Cassettes live at <suite dir>/cassettes/<suite stem>/<agent slug>/<model>.json unless an\n\
        agent names `cassette:` (relative to the suite file's folder).\n\n\
        Exit codes: 0 all cells passed, 1 a gate failed, 2 a load or infrastructure error\n\
        (a suite that does not load, a missing or malformed cassette).")]
    Run(RunArgs),
    /// How many runs a pass rate needs, and the worst-case band a run count buys.
    #[command(after_help = "Examples:\n  \
        mcptest runs --half-width 0.05 --confidence 0.95     # 385 runs\n  \
        mcptest runs --half-width 0.10                       # 97 runs at 95%\n  \
        mcptest runs --runs 100 --confidence 0.95            # the band 100 runs buy")]
    Runs(runs::RunsArgs),
}

/// `mcptest run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The suite file(s) to run; repeat the flag for several suites.
    #[arg(long, short = 'c', value_name = "SUITE.yml", required = true)]
    pub config: Vec<PathBuf>,
    /// How to report: readable text, a JSON document, or JUnit XML for CI.
    #[arg(long, value_enum, default_value_t = Reporter::Pretty)]
    pub reporter: Reporter,
    /// Write the report to FILE instead of standard output (a one-line summary still prints).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Only agents whose name or model contains PATTERN (case-insensitive).
    #[arg(long, short = 'f', value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Record new cassettes with a real model and the suite's MCP servers (not in this build).
    #[arg(long)]
    pub record: bool,
    /// Colour in the pretty report: auto (a terminal, and NO_COLOR unset), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// The report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Reporter {
    /// Readable text for a terminal.
    Pretty,
    /// One JSON document (`mcptest_report: 1`), stable for tools.
    Json,
    /// JUnit XML (testsuites/testsuite/testcase) for CI systems.
    Junit,
}

/// When to colour the pretty report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Run(args) => replay::run(&args),
        Command::Runs(args) => runs::run(&args),
    };
    ExitCode::from(code)
}
