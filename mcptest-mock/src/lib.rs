//! # mcptest-mock
//!
//! A mock MCP server for testing agents and clients: its tools come from a YAML file, and a
//! fault can be injected into `tools/call` to see how an agent copes with a tool that hangs,
//! is slow, recovers after a few calls, or answers a call it was told to cancel.
//!
//! It is a real MCP server (on rmcp, the official Rust SDK) speaking newline-delimited
//! JSON-RPC on standard input and output: `mcptest mock --tools-from tools.yml --fault hang`
//! serves it from the command line, and this crate starts it from Rust, in-process or as a
//! child process.
//!
//! ## The tools file
//!
//! ```yaml
//! server:                        # optional: how the server introduces itself
//!   name: weather
//!   version: 1.0.0
//!   instructions: Ask for the weather by city.
//!
//! tools:
//!   - name: get_weather
//!     description: Current weather for a city.
//!     input_schema:              # JSON Schema of the arguments (default: {type: object})
//!       type: object
//!       properties:
//!         city: { type: string }
//!         units: { enum: [C, F] }
//!       required: [city]
//!     answers:                   # tried in order; the first whose `when:` matches answers
//!       - when: { city: Sacramento }
//!         json: { city: Sacramento, temp_c: 31, sky: clear }  # structured content (+ its text)
//!       - when: { city: Atlantis }
//!         error: No weather station in Atlantis.              # an isError result
//!       - text: No data for that city yet.                     # no `when:`: the default
//!
//!   - name: search_docs
//!     description: Full-text search over the documentation.
//!     annotations:               # optional MCP tool annotations, served in tools/list
//!       readOnlyHint: true
//!       openWorldHint: false
//!     input_schema:
//!       type: object
//!       properties: { query: { type: string, minLength: 1 } }
//!       required: [query]
//!     result:                    # one answer to every call
//!       content:                 # MCP content blocks, as on the wire
//!         - { type: text, text: "2 results" }
//!         - { type: resource_link, uri: "docs://install", name: install }
//!
//! resources:                     # optional static text resources
//!   - uri: docs://install
//!     name: install
//!     mime_type: text/markdown
//!     text: "# Install\nRun the installer."
//! ```
//!
//! An answer holds any of `text:` (a text block), `error:` (a text block and `isError:
//! true`), `json:` (structured content, a JSON object, sent also as a text block unless the
//! answer has other content), `content:` (MCP content blocks: text, image, audio,
//! resource_link, resource) and `is_error:`. `when:` matches when the arguments *contain* it:
//! each key present with a containing value (objects are subsets, lists match in any order,
//! `1 == 1.0`). A tool with an `output_schema` must give every non-error answer `json:` that
//! fits it.
//!
//! A tool's `annotations:` ([`Annotations`]) are MCP's hints about it, under MCP's own
//! (camelCase) names: `title` (a string), `readOnlyHint`, `destructiveHint`, `idempotentHint`
//! and `openWorldHint` (true or false). Hints not written are not sent. A recorder keeps them,
//! and mcptest's narrative check reads `readOnlyHint` and `destructiveHint` to tell whether a
//! tool mutates state.
//!
//! Arguments that fail a tool's input schema get an `isError` result that says why; a call to
//! a tool the file does not declare is a JSON-RPC error (-32602). A tools file that cannot be
//! served does not load: [`LoadError`] lists every problem as `file:line:column: what is
//! wrong; what to do` (unknown keys with a did-you-mean, wrong types, duplicate tools, invalid
//! schemas, an answer that can never be chosen, a `when:` naming an argument the schema does
//! not have).
//!
//! ## Choosing an answer, without a server
//!
//! ```
//! use mcptest_mock::ToolsFile;
//! use serde_json::json;
//!
//! let file = ToolsFile::from_yaml_str("tools.yml", r#"
//! tools:
//!   - name: get_weather
//!     input_schema:
//!       type: object
//!       properties: { city: { type: string } }
//!       required: [city]
//!     answers:
//!       - when: { city: Sacramento }
//!         json: { temp_c: 31 }
//!       - error: No data for that city.
//! "#)?;
//!
//! let hot = file.call("get_weather", Some(&json!({"city": "Sacramento"})))?;
//! assert_eq!(hot.structured_content, Some(json!({"temp_c": 31})));
//! assert!(!hot.is_error);
//!
//! let other = file.call("get_weather", Some(&json!({"city": "Paris"})))?;
//! assert!(other.is_error);
//!
//! let invalid = file.call("get_weather", Some(&json!({"city": 42})))?;
//! assert!(invalid.is_error);
//! assert!(invalid.joined_text().contains("at /city"), "{}", invalid.joined_text());
//!
//! assert!(file.call("get_wether", None).unwrap_err().to_string().contains("did you mean `get_weather`?"));
//!
//! let err = mcptest_mock::ToolsFile::from_yaml_str("bad.yml", "tools:\n  - name: a\n    reslut: {text: hi}\n")
//!     .unwrap_err();
//! assert!(err.to_string().starts_with("bad.yml:3:5: unknown key `reslut` in a tool; did you mean `result`?"), "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Faults
//!
//! [`Fault`] has the kinds `none`, `hang`, `wedged`, `slow:<ms>`, `recover-after:<n>` and
//! `reply-after-cancel:<ms>`; [`fault`] describes each. They touch `tools/call` only.
//!
//! ## Starting the mock from Rust
//!
//! * [`Mock::serve_stdio`] serves this process's standard input and output (what
//!   `mcptest mock` does).
//! * [`Mock::start`] runs it in-process on the current tokio runtime and hands back the
//!   client's end of an in-memory stream; [`InProcessMock::shutdown`] stops it.
//! * [`MockCommand::spawn`] runs it as a child process; [`ChildMock::shutdown`] stops it.
//! * With the feature `http`, `Mock::start_http` serves Streamable HTTP at `http://ADDR/mcp`
//!   on the current tokio runtime (what `mcptest mock --http ADDR` does): any number of
//!   clients, sharing one set of call counters.
//!
//! ```no_run
//! use mcptest_mock::{Fault, Mock};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let (mock, stream) = Mock::from_file("examples/tools.yml")?
//!     .fault(Fault::Hang)
//!     .start()?;
//! // Connect any MCP client to `stream` (newline-delimited JSON-RPC), e.g. rmcp's
//! // `().serve(stream)`, then drive the agent under test.
//! drop(stream);
//! mock.shutdown().await?;
//! # Ok(()) }
//! ```
//!
//! ## Logging
//!
//! The mock logs to standard error only (start-up, every fault applied, cancellations, the
//! end; [`LogLevel::Calls`] adds a line per call). Standard output carries JSON-RPC and
//! nothing else.
//!
//! ## Limitations
//!
//! * Answers are static: a result cannot quote the arguments it answers.
//! * Over stdio, one session per process. Over HTTP, every client shares the call counters,
//!   and a `reply-after-cancel` answer is not delivered (the transport drops the answer to a
//!   request its client cancelled); the fault still ignores the cancellation.
//! * A line that is not JSON gets no answer (rmcp ignores it, as the other official SDKs do),
//!   and a message longer than 16 MiB is discarded unanswered.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fault;
#[cfg(feature = "http")]
mod http;
mod lines;
mod load;
mod log;
mod mock;
mod server;
mod tools;

/// Entry points for the fuzz targets in `fuzz/` (built only by `cargo fuzz`).
#[cfg(fuzzing)]
pub mod fuzzing {
    /// Reads one line as the mock's JSON-RPC layer does (parse, check, or the error to send).
    pub fn json_rpc_line(line: &[u8]) -> bool {
        matches!(crate::lines::check(line), crate::lines::Checked::Message(_))
    }
}

pub use fault::{Fault, FaultParseError};
#[cfg(feature = "http")]
pub use http::{HttpMock, MCP_PATH};
pub use load::{LoadError, MAX_TOOLS_FILE_BYTES, Problem};
pub use log::LogLevel;
pub use mcptest_core::yaml::Pos;
#[cfg(feature = "http")]
pub use mock::run_http;
pub use mock::{ChildMock, InProcessMock, Mock, MockCommand, MockError, run};
pub use tools::{
    Annotations, Answer, Resource, ServerInfo, Tool, ToolResult, ToolsFile, UnknownTool,
};
