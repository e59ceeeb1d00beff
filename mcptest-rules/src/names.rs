//! The names a declaration may use: match modes, argument shapes, matchers, model-graded
//! kinds and fault kinds. Each list is the one every front end checks against and offers in
//! its "unknown ... expected one of" message.
//!
//! ```
//! use mcptest_rules::names;
//! assert_eq!(names::mode("exact-sequence"), Some("strict"));
//! assert_eq!(names::fault_kind("recover-after"), Some("recover_after"));
//! assert_eq!(names::model_graded("llm_judge"), Some("llm-judge"));
//! assert_eq!(names::mode("fuzzy"), None);
//! ```

/// The five match modes of a trajectory, from strictest to loosest order.
pub const MODES: &[&str] = &["strict", "subsequence", "unordered", "superset", "subset"];

/// Other spellings of a mode, and the mode each one means.
pub const MODE_ALIASES: &[(&str, &str)] =
    &[("exact_sequence", "strict"), ("exact-sequence", "strict")];

/// Every way a mode may be written: the modes, then the aliases (what a "did you mean" may
/// offer).
pub const MODE_SPELLINGS: &[&str] = &[
    "strict",
    "exact_sequence",
    "exact-sequence",
    "subsequence",
    "unordered",
    "superset",
    "subset",
];

/// The mode `word` names (its canonical name), if it names one.
pub fn mode(word: &str) -> Option<&'static str> {
    MODES.iter().copied().find(|m| *m == word).or_else(|| {
        MODE_ALIASES
            .iter()
            .find(|(alias, _)| *alias == word)
            .map(|(_, m)| *m)
    })
}

/// The argument shapes of an expected call: `any` and `ignore` stand alone; `exact`,
/// `subset` and `schema` take a JSON value.
pub const SHAPES: &[&str] = &["any", "ignore", "exact", "subset", "schema"];

/// The shapes that stand alone, without a value.
pub const BARE_SHAPES: &[&str] = &["any", "ignore"];

/// The deterministic matchers: the only ones that may decide a gate.
pub const MATCHERS: &[&str] = &["exact", "contains", "schema", "regex", "not", "all", "any"];

/// The model-graded matchers, by their YAML key. They may only be advisory.
pub const MODEL_GRADED: &[&str] = &["llm-judge", "llm-jury", "similar"];

/// Every matcher key a YAML assertion may hold: the deterministic ones, then the
/// model-graded ones.
pub const MATCHER_KEYS: &[&str] = &[
    "exact",
    "contains",
    "schema",
    "regex",
    "not",
    "all",
    "any",
    "llm-judge",
    "llm-jury",
    "similar",
];

/// The model-graded kind `word` names (its YAML key), also when written with `_` as in Rust
/// (`llm_judge`).
pub fn model_graded(word: &str) -> Option<&'static str> {
    MODEL_GRADED
        .iter()
        .copied()
        .find(|k| *k == word || k.replace('-', "_") == word)
}

/// The kinds of fault a suite can inject into `tools/call`.
pub const FAULT_KINDS: &[&str] = &["hang", "wedged", "slow", "recover_after"];

/// The fault kind `word` names (its canonical name), also written with `-` (`recover-after`).
pub fn fault_kind(word: &str) -> Option<&'static str> {
    FAULT_KINDS
        .iter()
        .copied()
        .find(|k| *k == word || k.replace('_', "-") == word)
}

/// What a fault kind needs besides where it applies: `slow` its `delay_ms`, `recover_after`
/// its `failures`.
pub fn fault_needs(kind: &str) -> Option<&'static str> {
    match kind {
        "slow" => Some("delay_ms"),
        "recover_after" => Some("failures"),
        _ => None,
    }
}

/// The flags of a golden path.
pub const GOLDEN_FLAGS: &[&str] = &[
    "allow_extra_steps",
    "penalize_backtracking",
    "penalize_repeated_tools",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_cover_modes_and_aliases() {
        for m in MODES {
            assert_eq!(mode(m), Some(*m));
            assert!(MODE_SPELLINGS.contains(m));
        }
        for (alias, m) in MODE_ALIASES {
            assert_eq!(mode(alias), Some(*m));
            assert!(MODE_SPELLINGS.contains(alias));
        }
        assert_eq!(MODE_SPELLINGS.len(), MODES.len() + MODE_ALIASES.len());
        assert_eq!(
            MATCHER_KEYS,
            &[MATCHERS, MODEL_GRADED].concat()[..],
            "the matcher keys are the deterministic then the model-graded ones"
        );
        for k in FAULT_KINDS {
            assert_eq!(fault_kind(k), Some(*k));
        }
        assert_eq!(fault_kind("hung"), None);
        assert_eq!(fault_needs("slow"), Some("delay_ms"));
        assert_eq!(fault_needs("hang"), None);
        for s in BARE_SHAPES {
            assert!(SHAPES.contains(s));
        }
    }
}
