//! # mcptest-record
//!
//! Records the cassettes mcptest grades: a real model, driven against real MCP servers, run
//! the number of times a suite asks, saved once and replayed offline forever after.
//!
//! ## The loop
//!
//! ```text
//! mcptest run --record --config suite.yml     # once, online: writes the cassettes
//! mcptest run --config suite.yml              # every time after, offline: grades them
//! ```
//!
//! For each agent, each of its models, and each of its `runs`, the recorder:
//!
//! 1. starts the agent's servers from the suite's `servers:` block (stdio child processes,
//!    an MCP client on rmcp) and lists their tools;
//! 2. offers them to the model under wire names `<server>__<tool>` (made to fit what the API
//!    accepts: [`mcptest_core::fingerprint::wire_tool_name`]) and sends the prompt;
//! 3. executes every tool use of a reply against its server, concurrently (or one at a time
//!    with the agent's `parallel_calls: sequential`), each with a
//!    deadline (`recovery.max_detection_ms`, else [`DEFAULT_CALL_TIMEOUT_MS`]); returns all
//!    results of the reply in one message, in the order the model asked; keeps a call's
//!    `caller` (a call from model-written code) as it came;
//! 4. continues on `pause_turn`, and stops at `end_turn`, at `max_tokens`, on any other stop
//!    reason, or after `max_turns` model requests ([`DEFAULT_MAX_TURNS`]).
//!
//! ## Faults, in virtual time
//!
//! An agent's `inject:` faults never make anyone wait. A call that meets a `hang` or `wedged`
//! fault is not sent: its result is a synthesized timeout (`timed_out: true`,
//! `is_error: true`) that ends exactly one deadline after the call started. `slow` sends the
//! call and adds its `delay_ms` to when the answer arrives (a timeout when that passes the
//! deadline); `recover_after` hangs the first `failures` matching calls of each run. Every
//! call carries `started_ms`/`ended_ms` on the run's virtual clock (wall time plus the time
//! faults stood for), which is what the recovery gate reads. A run with a 30 s hang records
//! in the time the model takes to answer.
//!
//! ## Providers
//!
//! * Anthropic Messages API: `ANTHROPIC_API_KEY` (required), `ANTHROPIC_BASE_URL` (default
//!   `https://api.anthropic.com`), `anthropic-version: 2023-06-01`. Usage counts input,
//!   output, cache creation and cache read tokens; the trace's total is all four.
//! * OpenAI-compatible chat completions (a local model server too): `OPENAI_BASE_URL`
//!   (default `https://api.openai.com/v1`) and `OPENAI_API_KEY` (optional). Arguments that
//!   are not valid JSON are kept raw, with the parse error, and not sent to the server.
//!
//! ## The cassette
//!
//! One file per agent and model, at the suite's cassette path
//! (`<suite dir>/cassettes/<suite stem>/<agent slug>/<model>.json`, or the agent's
//! `cassette:`), all runs in it. Each run holds the normalized `trace`; the model
//! `exchanges` (each with the `request_fingerprint` of its request: the first request's body
//! whole, later ones as the messages they add, and the response); the MCP exchanges
//! (`mcp_exchanges`); and `meta` (provider, model, prompt, servers and their tool lists,
//! limits, stop reason, injected faults, virtual time). Replay recomputes the first request
//! from the suite and fails a cell whose cassette no longer matches it
//! ([`mcptest_core::fingerprint::check_cassette`]).
//!
//! `mcp_exchanges` holds, per server, its `initialize` and its `tools/list`, then every
//! `tools/call`. A `tools/list` keeps each tool's `name`, and its `title` and MCP
//! `annotations` (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`,
//! `title`) when the server sent them; descriptions and schemas are in `meta.tools`:
//!
//! ```json
//! {"server": "docs", "method": "tools/list", "started_ms": 0, "ended_ms": 4,
//!  "tools": [{"name": "search", "title": "Search", "annotations": {"readOnlyHint": true}},
//!            {"name": "delete_page"}]}
//! ```
//!
//! The narrative check reads these annotations to tell whether a tool mutates state. Cassettes
//! recorded before annotations were kept list plain names (`"tools": ["search"]`); they still
//! replay as fresh, since the stale-cassette check reads `meta.tools`, not this list.
//!
//! Secrets never reach the file: headers are stored by allow-list ([`http::STORED_HEADERS`]:
//! never `x-api-key`, `authorization` or cookies); the API key, every variable a server
//! entry passes through, and every credential-named variable of the environment are
//! replaced by `<redacted:NAME>` wherever they appear; and a pattern scan replaces anything
//! shaped like a key or token ([`mcptest_core::secrets`]). A cassette in which a secret
//! survives is not written.
//!
//! A recording that fails (a server that does not start, an API error after retries) writes
//! nothing: the agent's previous cassette stays as it was, and a new one replaces it only
//! once it is complete.
//!
//! ## Limitations
//!
//! * Servers are started over stdio only; each run starts them afresh.
//! * Calls that make the server ask the client for input, or that answer with a task to
//!   poll, are recorded as failed calls.
//! * Responses are not streamed.
//!
//! ## Example
//!
//! Configuration comes from the environment; every error says what to do:
//!
//! ```
//! use mcptest_core::fingerprint::Provider;
//! use mcptest_record::{ProviderConfig, RecordOptions};
//!
//! let env = |k: &str| match k {
//!     "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:8080".to_string()),
//!     _ => None,
//! };
//! let err = ProviderConfig::from_lookup(Provider::Anthropic, env).unwrap_err();
//! assert!(err.to_string().starts_with("ANTHROPIC_API_KEY is not set"));
//!
//! let local = ProviderConfig::from_lookup(Provider::OpenAi, |k| {
//!     (k == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:8080/v1".to_string())
//! })?;
//! assert_eq!(local.endpoint(), "http://127.0.0.1:8080/v1/chat/completions");
//! let options = RecordOptions::new(local);
//! assert_eq!(options.call_timeout_ms, mcptest_record::DEFAULT_CALL_TIMEOUT_MS);
//! # Ok::<(), mcptest_record::RecordError>(())
//! ```
//!
//! Recording an agent (this talks to a model and starts the suite's servers):
//!
//! ```no_run
//! use mcptest_core::fingerprint::Provider;
//! use mcptest_core::suite::Suite;
//! use mcptest_record::{ProviderConfig, RecordOptions, Recorder};
//! use std::path::Path;
//!
//! let file = Path::new("tests/suites/weather.yml");
//! let suite = Suite::from_yaml_str("tests/suites/weather.yml", &std::fs::read_to_string(file)?)?;
//! let recorder = Recorder::new(RecordOptions::new(ProviderConfig::from_env(Provider::Anthropic)?))?;
//! for agent in &suite.agents {
//!     let recording = recorder.record_agent(file, &suite, agent)?;
//!     recording.write()?;
//!     println!("{} -> {}", agent.name, recording.path.display());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod clock;
mod error;
mod faults;
pub mod http;
mod mcp;
mod progress;
mod provider;
mod recorder;
mod run;

pub use clock::VirtualClock;
pub use error::{ConnectFailure, RecordError};
pub use faults::{Directive, FaultPlan};
pub use http::RetryPolicy;
pub use mcp::BASE_ENV;
pub use progress::Progress;
pub use provider::ProviderConfig;
pub use recorder::{
    DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_TURNS, RecordOptions, Recorder, Recording,
    secrets_from_env,
};
pub use run::RunStats;
