//! The `mcptest` command line.
//!
//! * `mcptest run --config S.yml` replays every agent of a YAML suite against its recorded
//!   cassette, with no model and no network, and reports each (agent, model) cell and its gate
//!   rows (`--reporter pretty|json|junit`, `--output FILE`, `--filter PATTERN`).
//! * `mcptest run --record --config S.yml` records the cassettes first: a real model against
//!   the suite's MCP servers, `runs` times per agent and model, faults injected in virtual time,
//!   secrets redacted; then grades them as replay does. Needs the `record` feature (on by
//!   default); a build without it replays only and says so.
//! * `mcptest cassette lint FILES...` fails when a secret (an API key, a bearer token, the value
//!   of a secret environment variable) survives in a cassette.
//! * `mcptest calibrate --config S.yml [--output FILE]` writes a copy of the suite whose
//!   declared gates carry floors and ceilings taken from its recorded cassettes.
//! * `mcptest mutate --config S.yml [--min-score X]` plants misbehaviours in the recorded runs
//!   (a dropped, swapped or repeated call, a changed argument, an error result, an unused tool,
//!   a false claim, a call past its deadline) and reports how many the suite's gates catch.
//! * `mcptest runs --half-width 0.05 --confidence 0.95` sizes a run count.
//! * `mcptest mock --tools-from tools.yml [--fault KIND]` serves a mock MCP server on stdio, its
//!   tools from a YAML file, with a fault injected into `tools/call` (`mcptest_mock`).
//!
//! Exit codes: 0 every cell passed, 1 a quality failure (a gate failed), 2 an infrastructure or
//! load error (a suite that does not load, a missing, malformed or stale cassette, a usage
//! error, a recording that could not be made).

mod calibrate;
mod lint;
mod mutate;
mod proxy;
#[cfg(feature = "record")]
mod record;
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
        mcptest run --record --config examples/fault-injection-recovery.yml\n  \
        mcptest calibrate --config suite.yml --output suite.calibrated.yml\n  \
        mcptest mutate --config examples/offline-trace-validation.yml --min-score 0.5\n  \
        mcptest cassette lint examples/cassettes/**/*.json\n  \
        mcptest runs --half-width 0.05 --confidence 0.95\n  \
        mcptest mock --tools-from examples/tools.yml --fault hang\n  \
        mcptest proxy --output session.json -- npx -y @modelcontextprotocol/server-memory\n\n\
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
        mcptest run --config a.yml --config b.yml --reporter junit --output junit.xml\n  \
        ANTHROPIC_API_KEY=... mcptest run --record --config suite.yml     # record, then grade\n  \
        OPENAI_BASE_URL=http://127.0.0.1:8080/v1 mcptest run --record --provider openai --config suite.yml\n\n\
        Recording starts the servers of the suite's `servers:` block, runs each agent `runs` times,\n\
        injects its `inject:` faults in virtual time, removes secrets, and writes one cassette per\n\
        agent and model; replay then needs neither the key nor the servers.\n\n\
        Cassettes live at <suite dir>/cassettes/<suite stem>/<agent slug>/<model>.json unless an\n\
        agent names `cassette:` (relative to the suite file's folder).\n\n\
        Exit codes: 0 all cells passed, 1 a gate failed, 2 a load or infrastructure error\n\
        (a suite that does not load, a missing, malformed or stale cassette, a failed recording).")]
    Run(RunArgs),
    /// Write a copy of a suite whose declared gates carry floors and ceilings taken from its
    /// recorded cassettes.
    #[command(after_help = "Examples:\n  \
        mcptest calibrate --config suite.yml --output suite.calibrated.yml\n  \
        mcptest calibrate --config examples/agent-stability.yml          # to stdout\n  \
        mcptest run --config suite.calibrated.yml                       # passes on the same recordings\n\n\
        Each numeric target of a declared gate gets an explicit bound a little looser than the\n\
        recordings: scores where higher is better get `minimum` = the lowest observed value\n\
        minus 0.05 (rounded down to 3 decimals, at least 0); where lower is better, `maximum` =\n\
        the highest plus 0.05 (at most 1); integer percents move by 5 points; 0/1 flags keep the\n\
        worst observed value. Targets: stability.* (all six, in `stability: expect:`),\n\
        golden_path.passed and .penalty and trajectory.dependency_satisfaction and\n\
        .order_satisfaction (in the agent's `expect:`), narrative.divergence_score (as\n\
        `max_divergence_score`; the claimed-but-absent check stays), reliability.* (in\n\
        `reliability: expect:`). Assertions already on those targets are replaced; the rest of\n\
        the suite is kept, but not its YAML comments (the output starts with a comment that\n\
        says so). Trajectory pins, recovery budgets and the narrative check are never loosened.\n\n\
        A summary (agent, target, observed value, bound written) goes to stderr.\n\n\
        Exit codes: 0 written, 2 the suite does not load (file:line:column) or a cassette is\n\
        missing, malformed or stale (record it with mcptest run --record).")]
    Calibrate(calibrate::CalibrateArgs),
    /// Measure what a suite catches: plant misbehaviours in its recorded runs and count the
    /// mutants its gates fail.
    #[command(after_help = "Examples:\n  \
        mcptest mutate --config examples/offline-trace-validation.yml\n  \
        mcptest mutate --config suite.yml --reporter json --output mutants.json\n  \
        mcptest mutate --config suite.yml --min-score 0.8          # exit 1 below 0.8\n\n\
        Every recorded run of every agent yields mutants, each kind at up to 8 positions:\n\
        drop_call, swap_calls, duplicate_call, perturb_argument (first scalar argument),\n\
        error_result, insert_call (a tool the run never used), false_claim (the closing\n\
        message claims an action no call performed), stretch_call (a call past its deadline:\n\
        recovery.max_detection_ms, else 30000 ms). A mutant is caught when a cell that passes\n\
        on the recorded runs (the run's own, or the cassette's stability and reliability\n\
        cells) fails with the mutant in its run's place. score = caught / mutants; a suite\n\
        whose gates catch nothing scores 0. Every surviving mutant is listed.\n\n\
        Exit codes: 0 done (and every agent at least --min-score), 1 an agent below\n\
        --min-score, 2 a suite that does not load or a missing or malformed cassette.")]
    Mutate(mutate::MutateArgs),
    /// How many runs a pass rate needs, and the worst-case band a run count buys.
    #[command(after_help = "Examples:\n  \
        mcptest runs --half-width 0.05 --confidence 0.95     # 385 runs\n  \
        mcptest runs --half-width 0.10                       # 97 runs at 95%\n  \
        mcptest runs --runs 100 --confidence 0.95            # the band 100 runs buy")]
    Runs(runs::RunsArgs),
    /// Work with cassette files.
    #[command(subcommand)]
    Cassette(CassetteCommand),
    /// Serve a mock MCP server on stdin/stdout (or Streamable HTTP with --http): tools from a
    /// YAML file, a fault on tools/call.
    #[command(after_help = "Examples:\n  \
        mcptest mock --tools-from examples/tools.yml                        # healthy\n  \
        mcptest mock --tools-from examples/tools.yml --http 127.0.0.1:8931  # http://127.0.0.1:8931/mcp\n  \
        mcptest mock --tools-from examples/tools.yml --fault hang           # calls never return\n  \
        mcptest mock --tools-from examples/tools.yml --fault slow:200       # answers after 200 ms\n  \
        mcptest mock --tools-from examples/tools.yml --fault recover-after:2\n  \
        mcptest mock --tools-from examples/tools.yml --fault reply-after-cancel:500\n\n\
        Faults touch tools/call only: initialize, tools/list and resources stay responsive.\n\
        The log goes to stderr; stdout carries JSON-RPC only. The mock exits when its input ends.\n\
        With --http it serves Streamable HTTP at http://ADDR/mcp to any number of clients, which\n\
        share the call counters, until interrupted (Ctrl-C); the endpoint is logged on stderr.\n\n\
        Exit codes: 0 the client ended the session (or the HTTP server was interrupted), 2 the\n\
        tools file does not load or the address cannot be listened on.")]
    Mock(MockArgs),
    /// Record any MCP client's session with a server: a transparent proxy (stdio, or
    /// Streamable HTTP with --listen/--upstream) that appends each session to a cassette as a run.
    #[command(after_help = "Examples:\n  \
        mcptest proxy --output cassettes/session.json -- node my-server.js\n  \
        mcptest proxy --output s.json --name memory -- npx -y @modelcontextprotocol/server-memory\n  \
        mcptest proxy --output s.json --fault hang --fault-tool search -- node my-server.js\n  \
        mcptest proxy --output s.json --listen 127.0.0.1:8932 --upstream http://127.0.0.1:3001/mcp\n\n\
        Configure your agent, IDE or SDK to start this command instead of the server (stdio), or\n\
        to connect to http://ADDR/mcp instead of the server's URL (--listen). Every JSON-RPC\n\
        message passes through unchanged. Each client session is appended to the cassette as one\n\
        run: each tools/call with its arguments, result, start and end (ms from the session's\n\
        start), the server's initialize answer and tool list in `meta`, every exchange in\n\
        `mcp_exchanges`, secrets redacted. The cassette is rewritten after every answer. The run\n\
        has no conversation (the proxy sees MCP traffic only): trajectory, golden-path, axes,\n\
        expect and stability gates grade it.\n\n\
        Over stdio the session ends when the client closes it and the server exits. Over HTTP\n\
        the proxy serves any number of clients, one run per Mcp-Session-Id (requests without a\n\
        session share one run), until interrupted (Ctrl-C or SIGTERM); request headers, such as\n\
        credentials, are passed on and never recorded.\n\n\
        Exit codes: 0 the session(s) were recorded, 2 the server did not start, the address\n\
        cannot be listened on, or the cassette could not be read or written.")]
    Proxy(proxy::ProxyArgs),
}

/// `mcptest mock`.
#[derive(Debug, clap::Args)]
pub struct MockArgs {
    /// The tools file: each tool's name, description, input schema and answers.
    #[arg(long, value_name = "TOOLS.yml")]
    pub tools_from: PathBuf,
    /// The fault on tools/call: `none`, `hang`, `wedged`, `slow:<ms>`, `recover-after:<n>`,
    /// `reply-after-cancel:<ms>`.
    #[arg(
        long,
        value_name = "KIND",
        default_value = "none",
        help = "The fault on tools/call: none, hang, wedged, slow:<ms>, recover-after:<n>, \
                reply-after-cancel:<ms>."
    )]
    pub fault: mcptest_mock::Fault,
    /// What to log to stderr: off, faults, calls.
    #[arg(long, value_name = "LEVEL", default_value = "faults")]
    pub log: mcptest_mock::LogLevel,
    /// Serve Streamable HTTP on this address (`127.0.0.1:8931`; port 0 picks a free one)
    /// at `/mcp`, instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
}

/// `mcptest cassette ...`.
#[derive(Debug, Subcommand)]
enum CassetteCommand {
    /// Fail when a secret survives in a cassette: an API key (sk-ant-..., sk-...), a GitHub
    /// token, a bearer token, or the value of a secret environment variable.
    #[command(after_help = "Examples:\n  \
        mcptest cassette lint examples/cassettes/**/*.json\n  \
        mcptest cassette lint --secret-env MY_SERVICE_CREDENTIAL tests/cassettes/*.json\n\n\
        The values checked are those of ANTHROPIC_API_KEY, OPENAI_API_KEY, every variable named\n\
        with --secret-env, and every variable of the environment whose name says it holds a key,\n\
        token, secret or password (values of at least 8 characters).\n\n\
        Exit codes: 0 no secret found, 1 a secret found (each named by file and JSON path),\n\
        2 a file that cannot be read or is not JSON.")]
    Lint(lint::LintArgs),
}

/// `mcptest run`.
#[derive(Debug, Clone, clap::Args)]
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
    /// Record the cassettes first: run each agent with a real model against the suite's MCP
    /// servers (`servers:`), then grade the new cassettes.
    #[arg(long)]
    pub record: bool,
    /// With --record: the model API. anthropic reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL;
    /// openai (any OpenAI-compatible server) reads OPENAI_BASE_URL and OPENAI_API_KEY.
    #[arg(long, value_enum, default_value_t = ProviderChoice::Anthropic, requires = "record")]
    pub provider: ProviderChoice,
    /// With --record, Anthropic only: offer the code-execution tool of this type (such as
    /// code_execution_20250825) so the model may call the MCP tools from code.
    #[arg(long, value_name = "TYPE", requires = "record")]
    pub code_execution: Option<String>,
    /// With --record: the deadline of a tool call for agents without a `recovery:` block (whose
    /// max_detection_ms is the deadline otherwise), in milliseconds. Default 30000.
    #[arg(long, value_name = "MS", requires = "record")]
    pub call_timeout_ms: Option<u64>,
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

/// The model APIs `--record` can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderChoice {
    /// The Anthropic Messages API.
    Anthropic,
    /// An OpenAI-compatible chat-completions endpoint (a local model server too).
    Openai,
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

#[cfg(feature = "record")]
fn record_then_replay(args: &RunArgs) -> u8 {
    record::run(args)
}

/// A replay-only build: `replay::run` explains that recording is not available.
#[cfg(not(feature = "record"))]
fn record_then_replay(args: &RunArgs) -> u8 {
    replay::run(args)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Run(args) if args.record => record_then_replay(&args),
        Command::Run(args) => replay::run(&args),
        Command::Calibrate(args) => calibrate::run(&args),
        Command::Mutate(args) => mutate::run(&args),
        Command::Runs(args) => runs::run(&args),
        Command::Cassette(CassetteCommand::Lint(args)) => lint::run(&args),
        Command::Mock(args) => match &args.http {
            None => mcptest_mock::run(&args.tools_from, args.fault, args.log),
            Some(addr) => mcptest_mock::run_http(&args.tools_from, args.fault, args.log, addr),
        },
        Command::Proxy(args) => proxy::run(&args),
    };
    ExitCode::from(code)
}
