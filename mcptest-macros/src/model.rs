//! What the attribute declares, after parsing and before code generation.
//!
//! Tokens that hold JSON are kept as tokens (already checked to be JSON): code generation
//! hands them to `serde_json::json!`.

use proc_macro2::{Span, TokenStream};

/// The parsed agent function.
pub struct AgentFn {
    /// The function's name.
    pub ident: syn::Ident,
    /// Where the return type is written, when there is one.
    pub returns: Option<Span>,
}

/// Everything `#[mcptest::agent(...)]` declares.
#[derive(Default)]
pub struct Declared {
    pub cassettes: Option<(Vec<String>, Span)>,
    /// `cassettes` was written, even if its value was refused (no second error about it).
    pub cassettes_written: bool,
    pub runs: Option<(u32, Span)>,
    pub snapshots: Option<bool>,
    pub trajectory: Option<Trajectory>,
    pub golden_path: Option<GoldenPath>,
    pub axes: Option<Axes>,
    pub stability: Option<Gate>,
    pub narrative: Option<Narrative>,
    pub reliability: Option<Gate>,
    pub recovery: Option<Recovery>,
    pub inject: Vec<Inject>,
    pub expect: Vec<Expect>,
}

/// `trajectory(mode, [calls])`.
pub struct Trajectory {
    /// The constructor of `mcptest::prelude::Trajectory` (`subsequence`, ...).
    pub mode: String,
    pub calls: Vec<Call>,
}

/// One expected call.
pub struct Call {
    pub tool: String,
    pub shape: Shape,
}

/// An expected call's argument shape.
pub enum Shape {
    Any,
    Ignore,
    Exact(TokenStream),
    Subset(TokenStream),
    Schema(TokenStream),
}

/// `golden_path([tools], flags)`.
pub struct GoldenPath {
    pub tools: Vec<String>,
    /// `(flag, value)` in the order written.
    pub flags: Vec<(String, bool)>,
}

/// `axes(dependencies = [a -> b], order = [c -> d])`.
#[derive(Default)]
pub struct Axes {
    pub dependencies: Vec<(String, String)>,
    pub order: Vec<(String, String)>,
}

/// A cross-run gate: `stability`, `reliability` (bare, or with comparisons).
pub struct Gate {
    /// The keyword, for errors about the gate as a whole.
    pub span: Span,
    pub comparisons: Vec<Comparison>,
    /// `reliability(min_pass_rate = 0.9, confidence = 0.95, inconclusive = fail)`.
    pub pass_rate: PassRate,
}

/// The pass-rate decision of a reliability gate.
#[derive(Default)]
pub struct PassRate {
    pub min_pass_rate: Option<f64>,
    pub confidence: Option<f64>,
    pub inconclusive_fails: bool,
}

/// `metric OP number`.
pub struct Comparison {
    pub metric: String,
    pub op: Op,
    pub value: Number,
}

/// A comparison operator.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Ge,
    Le,
    Gt,
    Lt,
    Eq,
    Ne,
}

/// A number as written.
#[derive(Clone)]
pub struct Number {
    /// The value.
    pub value: f64,
    /// Written without a decimal point or exponent.
    pub integer: bool,
    /// The tokens as written (sign included), for `json!`.
    pub tokens: TokenStream,
}

/// `narrative` (bare, or with settings and comparisons).
pub struct Narrative {
    pub mutating_tools: Vec<String>,
    pub readonly_tools: Vec<String>,
    pub max_divergence_score: Option<Number>,
    pub llm_assisted: Option<bool>,
    pub comparisons: Vec<Comparison>,
}

/// `recovery(max_detection_ms = .., max_recovery_ms = .., require_clean_timeout)`.
pub struct Recovery {
    pub span: Span,
    pub max_detection_ms: u64,
    pub max_recovery_ms: Option<u64>,
    pub require_clean_timeout: Option<bool>,
}

/// `inject(name = .., kind = .., tool = .., server = .., delay_ms = .., failures = ..)`.
pub struct Inject {
    pub name: String,
    pub kind: String,
    pub tool: Option<String>,
    pub server: Option<String>,
    pub delay_ms: u64,
    pub failures: u32,
}

/// `expect("target", matcher [, advisory])`.
pub struct Expect {
    pub target: String,
    /// Where the target is written.
    pub span: Span,
    pub matcher: Matcher,
    pub advisory: bool,
}

/// A matcher.
pub enum Matcher {
    Exact(TokenStream),
    Contains(TokenStream),
    Schema(TokenStream),
    Regex(String),
    Not(Box<Matcher>),
    All(Vec<Matcher>),
    Any(Vec<Matcher>),
    /// A model-graded matcher (only under `advisory`): its YAML key and configuration.
    ModelGraded(String, TokenStream),
}
