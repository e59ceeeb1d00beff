//! The model APIs: where a request goes, how a reply reads, how tool results go back.
//!
//! Both providers are reduced to one vocabulary: a [`Reply`] holds the assistant message to
//! append to the conversation, the trace turn for it, the tool uses in order, why the model
//! stopped, and the token usage.

mod anthropic;
mod openai;

use crate::error::RecordError;
use mcptest_core::fingerprint::Provider;
use mcptest_core::trace::Turn;
use serde_json::{Map, Value};

/// Which API, where, and with what key.
#[derive(Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// The API.
    pub provider: Provider,
    /// The base URL (`https://api.anthropic.com`, `https://api.openai.com/v1`,
    /// `http://127.0.0.1:8080/v1` for a local server).
    pub base_url: String,
    /// The API key; `None` sends none (a local server that needs none).
    pub api_key: Option<String>,
    /// The environment variable the key came from (its placeholder name in cassettes).
    pub key_var: String,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("ProviderConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("key_var", &self.key_var)
            .finish()
    }
}

impl ProviderConfig {
    /// Reads the provider's settings from the environment:
    ///
    /// * Anthropic: `ANTHROPIC_BASE_URL` (default `https://api.anthropic.com`) and
    ///   `ANTHROPIC_API_KEY` (required).
    /// * OpenAI-compatible: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`) and
    ///   `OPENAI_API_KEY` (optional: a local model server may need none).
    pub fn from_env(provider: Provider) -> Result<Self, RecordError> {
        Self::from_lookup(provider, |k| std::env::var(k).ok())
    }

    /// [`from_env`](Self::from_env) with the variables looked up by `get`.
    pub fn from_lookup(
        provider: Provider,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, RecordError> {
        let (url_var, key_var, default_url, key_required) = match provider {
            Provider::Anthropic => (
                "ANTHROPIC_BASE_URL",
                "ANTHROPIC_API_KEY",
                "https://api.anthropic.com",
                true,
            ),
            Provider::OpenAi => (
                "OPENAI_BASE_URL",
                "OPENAI_API_KEY",
                "https://api.openai.com/v1",
                false,
            ),
        };
        let base_url = get(url_var)
            .filter(|v| !v.trim().is_empty())
            .unwrap_or_else(|| default_url.to_string());
        let base_url = base_url.trim().trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(RecordError::BadBaseUrl {
                var: url_var.into(),
                value: base_url,
            });
        }
        let api_key = get(key_var).filter(|v| !v.trim().is_empty());
        if key_required && api_key.is_none() {
            return Err(RecordError::MissingKey {
                var: key_var.into(),
            });
        }
        Ok(ProviderConfig {
            provider,
            base_url,
            api_key,
            key_var: key_var.into(),
        })
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        match self.provider {
            Provider::Anthropic => {
                if self.base_url.ends_with("/v1") {
                    format!("{}/messages", self.base_url)
                } else {
                    format!("{}/v1/messages", self.base_url)
                }
            }
            Provider::OpenAi => format!("{}/chat/completions", self.base_url),
        }
    }

    /// The headers of every request, the secret ones included.
    pub(crate) fn headers(&self) -> Vec<(&'static str, String)> {
        let mut h = Vec::new();
        match self.provider {
            Provider::Anthropic => {
                h.push(("anthropic-version", anthropic::API_VERSION.to_string()));
                if let Some(k) = &self.api_key {
                    h.push(("x-api-key", k.clone()));
                }
            }
            Provider::OpenAi => {
                if let Some(k) = &self.api_key {
                    h.push(("authorization", format!("Bearer {k}")));
                }
            }
        }
        h
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Done.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// A long server-side turn paused; send the conversation back as it is to continue.
    PauseTurn,
    /// The response hit the token limit.
    MaxTokens,
    /// Anything else (refusal, content filter, ...): the run ends.
    Other,
}

/// One tool use the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolUse {
    /// The provider's id for it (results answer it by id).
    pub id: String,
    /// The wire name the model used.
    pub wire_name: String,
    /// The arguments; `Err((raw, why))` when they were not a JSON object.
    pub input: Result<Value, (String, String)>,
    /// The provider's caller object (programmatic calls), kept as it came.
    pub caller: Option<Value>,
}

/// Token usage of one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
}

impl Usage {
    pub fn add(&mut self, o: Usage) {
        self.input += o.input;
        self.output += o.output;
        self.cache_creation += o.cache_creation;
        self.cache_read += o.cache_read;
    }

    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }
}

/// One model response, read.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    /// The message to append to the conversation.
    pub message: Value,
    /// The trace turn for it.
    pub turn: Turn,
    pub tool_uses: Vec<ToolUse>,
    pub stop: Stop,
    /// The provider's own stop reason (`end_turn`, `tool_calls`, ...).
    pub stop_reason: String,
    pub usage: Usage,
    /// A container id to send back (Anthropic code execution).
    pub container: Option<String>,
}

/// What one tool use returned, ready for the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub id: String,
    pub is_error: bool,
    /// MCP content blocks.
    pub content: Vec<Value>,
    pub structured: Option<Value>,
}

/// Reads a response body.
pub(crate) fn parse_reply(provider: Provider, body: &Value) -> Result<Reply, String> {
    match provider {
        Provider::Anthropic => anthropic::parse_reply(body),
        Provider::OpenAi => openai::parse_reply(body),
    }
}

/// The messages that carry a turn's tool results back (all of them, in order), and their
/// trace turns.
pub(crate) fn answer_messages(provider: Provider, answers: &[Answer]) -> (Vec<Value>, Vec<Turn>) {
    match provider {
        Provider::Anthropic => anthropic::answer_messages(answers),
        Provider::OpenAi => openai::answer_messages(answers),
    }
}

/// Sets the fields a continued request carries besides its messages.
pub(crate) fn set_continuation(provider: Provider, body: &mut Map<String, Value>, reply: &Reply) {
    if provider == Provider::Anthropic
        && let Some(c) = &reply.container
    {
        body.insert("container".into(), Value::String(c.clone()));
    }
}

/// The text of MCP content blocks for an API that takes text only: text blocks as they are,
/// any other block as its JSON; structured content when there is no content.
pub(crate) fn content_as_text(content: &[Value], structured: Option<&Value>) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(
            |b| match (b.get("type").and_then(Value::as_str), b.get("text")) {
                (Some("text"), Some(Value::String(t))) => t.clone(),
                _ => b.to_string(),
            },
        )
        .collect();
    if parts.is_empty() {
        return structured.map(Value::to_string).unwrap_or_default();
    }
    parts.join("\n")
}
