//! Every message the attribute can print, in one place. Each says what is wrong and what to
//! write instead. The mistakes every front end can make (a bad target, an unknown name, a gate
//! that cannot decide) are worded by the rulebook, `mcptest_rules::mistakes`, so they read the
//! same here as in a YAML suite or from the builder; this module words what only the
//! attribute's syntax can get wrong.

pub use mcptest_rules::mistakes::unknown;
use mcptest_rules::mistakes::{self, Front};

/// The keys `#[mcptest::agent(...)]` accepts.
pub const KEYS: &[&str] = &[
    "cassettes",
    "runs",
    "snapshots",
    "trajectory",
    "golden_path",
    "axes",
    "trajectory_axes",
    "stability",
    "narrative",
    "reliability",
    "recovery",
    "inject",
    "expect",
];

/// The keys of `axes(...)`.
pub const AXES_KEYS: &[&str] = &["dependencies", "order"];

/// The settings of `reliability(...)` (besides metric comparisons).
pub const PASS_RATE_KEYS: &[&str] = &["min_pass_rate", "confidence", "inconclusive"];

/// The settings of `narrative(...)` (besides metric comparisons).
pub const NARRATIVE_KEYS: &[&str] = &[
    "mutating_tools",
    "readonly_tools",
    "max_divergence_score",
    "llm_assisted",
];

/// The keys of `recovery(...)`.
pub const RECOVERY_KEYS: &[&str] = &[
    "max_detection_ms",
    "max_recovery_ms",
    "require_clean_timeout",
];

/// The keys of `inject(...)`.
pub const INJECT_KEYS: &[&str] = &["name", "kind", "tool", "server", "delay_ms", "failures"];

pub fn not_on_a_function() -> String {
    "#[mcptest::agent] goes on a function: `fn weather() {}` (everything declared in the \
     attribute) or `fn weather() -> Agent { Agent::new()... }`"
        .into()
}

pub fn fn_qualifier(word: &str) -> String {
    format!(
        "an agent function cannot be `{word}`: the harness calls it once, synchronously, to read \
         the declaration; remove `{word}`"
    )
}

pub fn fn_generics() -> String {
    "an agent function cannot be generic: remove the generic parameters".into()
}

pub fn fn_params() -> String {
    "an agent function takes no arguments: remove the parameters (the harness calls it with \
     none)"
        .into()
}

pub fn ignored_body() -> String {
    "this body would never be used: an agent function either has an empty body `{}` (the \
     attribute declares everything) or returns the builder: `-> Agent { Agent::new()... }`"
        .into()
}

pub fn misplaced_test_target() -> String {
    "#[mcptest::agent] needs a test target with `harness = false` whose main is \
     `mcptest::main!();`: add `[[test]] name = \"<file stem>\" harness = false` to Cargo.toml"
        .into()
}

pub fn declared_twice(key: &str) -> String {
    format!("`{key}` is declared twice; keep one")
}

pub fn expected_eq(key: &str, example: &str) -> String {
    format!("`{key}` takes a value: write `{example}`")
}

pub fn expected_group(key: &str, example: &str) -> String {
    format!("`{key}` takes its settings in parentheses: write `{example}`")
}

pub fn wrong_type(key: &str, wanted: &str, example: &str) -> String {
    format!("`{key}` takes {wanted}, like `{example}`")
}

pub fn no_cassettes() -> String {
    "this agent names no cassette: add `cassettes = \"tests/cassettes/<agent>/*.json\"` (a path \
     or glob relative to the crate root)"
        .into()
}

pub fn missing_mode() -> String {
    "`trajectory` starts with its match mode: `trajectory(subsequence, [search, open])`; modes: \
     strict, exact_sequence, subsequence, unordered, superset, subset"
        .into()
}

pub fn missing_calls() -> String {
    "`trajectory` lists its calls in brackets after the mode: `trajectory(subsequence, [search, \
     open(subset = {\"url\": \"https://...\"})])`"
        .into()
}

pub fn tool_name() -> String {
    "expected a tool name: an identifier (`search`) or a string (`\"get-weather\"`)".into()
}

pub fn shape_value(shape: &str) -> String {
    format!("`{shape}` takes a JSON value: `{shape} = {{\"city\": \"Sacramento\"}}`")
}

pub fn shape_bare(shape: &str) -> String {
    format!("`{shape}` takes no value: write `{shape}` alone")
}

pub fn golden_needs_list() -> String {
    "`golden_path` starts with the ideal tools in order: `golden_path([search, open, summarize])`"
        .into()
}

pub fn edge() -> String {
    "an edge is written `producer -> consumer` (or `first -> second`), like `search -> open`".into()
}

pub fn comparison(gate: &str, example: &str) -> String {
    format!(
        "expected a comparison on a {gate} metric, like `{example}` (operators: >=, <=, >, <, \
         ==, !=)"
    )
}

pub fn integer_metric(gate: &str, metric: &str) -> String {
    format!(
        "`{gate}.{metric}` is a whole number (counts, and percents from 0 to 100): compare it \
         with an integer"
    )
}

pub fn reversed_operator(written: &str, meant: &str) -> String {
    format!("`{written}` is not a comparison; did you mean `{meant}`?")
}

pub fn number() -> String {
    "expected a number, like `0.7` or `3`".into()
}

pub fn missing_detection() -> String {
    "`recovery` needs its per-call timeout budget: `recovery(max_detection_ms = 3000)`".into()
}

pub fn inject_missing(key: &str) -> String {
    format!(
        "`inject` needs `{key}`: `inject(name = \"hung-search\", kind = hang, tool = \"search\")`"
    )
}

pub fn expect_shape() -> String {
    "`expect` takes a target and a matcher: `expect(\"tool_results[0].is_error\", exact(false))`, \
     optionally followed by `advisory`"
        .into()
}

/// A stability gate on fewer than two runs.
pub fn stability_single_run(runs: u32) -> String {
    mistakes::stability_needs_runs(runs, Front::Attribute)
}

/// A recovery gate with nothing injected.
pub fn recovery_without_fault() -> String {
    mistakes::recovery_without_fault(Front::Attribute)
}

/// A fault of `kind` without the setting `key` it needs.
pub fn inject_needs(kind: &str, key: &str) -> String {
    format!(
        "{}: add `{key} = ...` to `inject(...)`",
        mistakes::fault_needs(kind, key)
    )
}

/// A list metric (`decay_curve`) in a comparison.
pub fn list_metric(gate: &str, metric: &str) -> String {
    format!(
        "`{gate}.{metric}` is a list and cannot be compared with a number; compare one of the \
         gate's numeric metrics"
    )
}

pub fn expect_flag(word: &str) -> String {
    unknown("flag", word, &["advisory"])
}

pub fn matcher_arg(name: &str, example: &str) -> String {
    format!("`{name}` takes {example}")
}

pub fn json_key() -> String {
    "JSON object keys are quoted strings: write `\"city\": ...`".into()
}

pub fn json_colon() -> String {
    "expected `:` between a JSON key and its value".into()
}

pub fn json_value(found: &str) -> String {
    let hint = match found {
        "True" | "TRUE" => " (did you mean `true`?)",
        "False" | "FALSE" => " (did you mean `false`?)",
        "None" | "Null" | "NULL" | "nil" => " (did you mean `null`?)",
        _ => "",
    };
    format!(
        "expected a JSON value (a \"string\", a number, true, false, null, [...] or {{...}}), \
         found `{found}`{hint}"
    )
}

pub fn json_single_quotes() -> String {
    "JSON strings use double quotes: write \"...\"".into()
}

pub fn json_suffix(lit: &str) -> String {
    format!("JSON numbers have no type suffix: write `{lit}` without it")
}

pub fn json_trailing() -> String {
    "unexpected tokens after the JSON value: separate values with `,` inside [...] or {...}".into()
}
