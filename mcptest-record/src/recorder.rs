//! Recording an agent of a suite: every run, redacted, into one cassette.

use crate::error::RecordError;
use crate::http::{HttpClient, RetryPolicy};
use crate::progress::Progress;
use crate::provider::ProviderConfig;
use crate::run::{RunSetup, RunStats, record_run};
use mcptest_core::fingerprint::DEFAULT_MAX_TOKENS;
use mcptest_core::secrets::{Redactor, SecretValue, is_secret_name, scan};
use mcptest_core::spec::AgentSpec;
use mcptest_core::suite::{ServerConfig, Suite, cell_label, resolve_cassette};
use mcptest_core::trace::{Cassette, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The per-call deadline when an agent has no `recovery:` block (whose `max_detection_ms`
/// is the deadline otherwise), in milliseconds. It is also the virtual length of an injected
/// `hang` for such an agent.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 30_000;

/// The model requests a run may send when an agent sets no `max_turns`.
pub const DEFAULT_MAX_TURNS: u32 = 20;

/// How to record.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The model API.
    pub provider: ProviderConfig,
    /// The per-call deadline for agents without `recovery:` ([`DEFAULT_CALL_TIMEOUT_MS`]).
    pub call_timeout_ms: u64,
    /// Offer Anthropic's code-execution tool of this type (`code_execution_20250825`) and let
    /// it call the MCP tools (programmatic tool calling); `None` offers plain tools.
    pub code_execution: Option<String>,
    /// Retries when the API is overloaded.
    pub retry: RetryPolicy,
    /// How long one model request may take.
    pub request_timeout: Duration,
    /// Secret values to redact besides those [`secrets_from_env`] finds.
    pub secrets: Vec<SecretValue>,
    /// Show progress on standard error (only when it is a terminal).
    pub progress: bool,
}

impl RecordOptions {
    /// Defaults for this provider.
    pub fn new(provider: ProviderConfig) -> Self {
        RecordOptions {
            provider,
            call_timeout_ms: DEFAULT_CALL_TIMEOUT_MS,
            code_execution: None,
            retry: RetryPolicy::default(),
            request_timeout: Duration::from_secs(600),
            secrets: Vec::new(),
            progress: true,
        }
    }
}

/// The secret values a recording of `suite` must not write: the API key, the values of every
/// environment variable a `servers:` entry passes through or builds a header from, and the
/// value of every variable in the environment whose name says it is a credential
/// ([`is_secret_name`]).
pub fn secrets_from_env(suite: &Suite, provider: &ProviderConfig) -> Vec<SecretValue> {
    let mut out = Vec::new();
    if let Some(k) = &provider.api_key {
        out.push(SecretValue::new(provider.key_var.clone(), k.clone()));
    }
    for s in &suite.servers {
        for var in s.secret_vars() {
            if let Ok(v) = std::env::var(var) {
                out.push(SecretValue::new(var.to_string(), v));
            }
        }
    }
    for (k, v) in std::env::vars() {
        if is_secret_name(&k) {
            out.push(SecretValue::new(k, v));
        }
    }
    out
}

/// Records agents.
pub struct Recorder {
    options: RecordOptions,
    http: HttpClient,
    runtime: Arc<tokio::runtime::Runtime>,
}

/// One agent's recording: its cassette (already redacted) and where it goes.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The agent.
    pub agent: String,
    /// The model.
    pub model: String,
    /// Where the cassette is written.
    pub path: PathBuf,
    /// The cassette JSON, with every secret replaced.
    pub cassette: Value,
    /// Numbers about each run.
    pub runs: Vec<RunStats>,
}

impl Recording {
    /// Writes the cassette (creating its folder), replacing any previous file only once the
    /// new one is complete.
    pub fn write(&self) -> Result<(), RecordError> {
        let err = |e: std::io::Error| RecordError::Write {
            path: self.path.display().to_string(),
            error: e.to_string(),
        };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut text =
            serde_json::to_string_pretty(&self.cassette).map_err(|e| RecordError::Write {
                path: self.path.display().to_string(),
                error: e.to_string(),
            })?;
        text.push('\n');
        let tmp = self.path.with_extension("json.partial");
        std::fs::write(&tmp, text).map_err(err)?;
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(e)
        })
    }

    /// Wall time of all runs.
    pub fn wall_ms(&self) -> u64 {
        self.runs.iter().map(|r| r.wall_ms).sum()
    }

    /// Virtual time the fault executor added across runs (time no one waited for).
    pub fn virtual_ms(&self) -> u64 {
        self.runs.iter().map(|r| r.virtual_ms).sum()
    }

    /// Tool calls across runs.
    pub fn calls(&self) -> usize {
        self.runs.iter().map(|r| r.calls).sum()
    }
}

impl Recorder {
    /// A recorder with these options.
    pub fn new(options: RecordOptions) -> Result<Self, RecordError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| RecordError::Runtime(e.to_string()))?;
        Ok(Recorder {
            http: HttpClient::new(options.retry, options.request_timeout),
            options,
            runtime: Arc::new(runtime),
        })
    }

    /// Records `spec` (an agent of `suite`, loaded from `suite_file`) `runs` times into one
    /// cassette at the agent's cassette path. Nothing is written: see [`Recording::write`].
    pub fn record_agent(
        &self,
        suite_file: &Path,
        suite: &Suite,
        spec: &AgentSpec,
    ) -> Result<Recording, RecordError> {
        let model = spec.model.as_deref().ok_or_else(|| RecordError::NoModel {
            agent: spec.name.clone(),
        })?;
        let prompt = spec
            .prompt
            .as_deref()
            .ok_or_else(|| RecordError::NoPrompt {
                agent: spec.name.clone(),
            })?;
        let servers = agent_servers(suite, spec)?;
        let suite_dir = suite_file
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let runs_asked = spec.run_count();
        let progress = Progress::new(self.options.progress);
        let mut runs: Vec<Run> = Vec::new();
        let mut stats = Vec::new();
        for i in 1..=runs_asked {
            let setup = RunSetup {
                provider: &self.options.provider,
                http: &self.http,
                runtime: self.runtime.clone(),
                spec,
                model,
                prompt,
                servers: servers.clone(),
                suite_dir: &suite_dir,
                roots: &suite.roots,
                call_timeout_ms: spec
                    .recovery
                    .as_ref()
                    .map_or(self.options.call_timeout_ms, |r| r.max_detection_ms),
                max_tokens: spec.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                max_turns: spec.max_turns.unwrap_or(DEFAULT_MAX_TURNS).max(1),
                code_execution: self.options.code_execution.as_deref(),
                progress,
                label: format!("recording {}, run {i}/{runs_asked}", cell_label(spec)),
            };
            let recorded = record_run(&setup);
            progress.clear();
            let (run, s) = recorded?;
            runs.push(run);
            stats.push(s);
        }
        let rel = spec.cassettes.first().cloned().unwrap_or_default();
        let path = resolve_cassette(suite_file, &rel);
        let mut cassette = Cassette::new(runs).to_value();
        let mut secrets = secrets_from_env(suite, &self.options.provider);
        secrets.extend(self.options.secrets.iter().cloned());
        let redactor = Redactor::new(secrets);
        redactor.redact(&mut cassette);
        if let Some(f) = scan(&cassette, redactor.values()).first() {
            return Err(RecordError::Write {
                path: path.display().to_string(),
                error: format!(
                    "a secret survived redaction at {} ({}); nothing was written",
                    f.path, f.what
                ),
            });
        }
        Ok(Recording {
            agent: spec.name.clone(),
            model: model.to_string(),
            path,
            cassette,
            runs: stats,
        })
    }
}

/// The suite's launch entries for the agent's servers, in the agent's order.
fn agent_servers<'a>(
    suite: &'a Suite,
    spec: &AgentSpec,
) -> Result<Vec<&'a ServerConfig>, RecordError> {
    spec.servers
        .iter()
        .map(|name| {
            suite
                .servers
                .iter()
                .find(|s| &s.name == name)
                .ok_or_else(|| RecordError::UnknownServer {
                    agent: spec.name.clone(),
                    server: name.clone(),
                    declared: suite.servers.iter().map(|s| s.name.clone()).collect(),
                })
        })
        .collect()
}
