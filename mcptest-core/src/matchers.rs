//! Deterministic matchers: the one assertion grammar shared by `expect:` gates, trajectory
//! argument shapes and metric gates.
//!
//! | matcher | passes when |
//! |---|---|
//! | `exact: V` | the value deep-equals `V` with JSON number semantics (`1 == 1.0`, `1 != true`, `null` is not a missing key) |
//! | `contains: V` | objects: every key of `V` is present with a contained value; arrays: a **multiset**, each element of `V` contained by a distinct element, any order, extras allowed; scalars: `exact` |
//! | `schema: S` | the value validates against JSON Schema `S` (compiled once) |
//! | `regex: R` | the value is a string in which `R` finds a match (anchor with `^...$` for a whole-string match) |
//! | `not: M` | `M` fails |
//! | `all: [M...]` | every `M` passes |
//! | `any: [M...]` | at least one `M` passes |
//!
//! `llm-judge`, `llm-jury` and `similar` parse, but they are **model-graded**: they can never
//! decide a deterministic gate, and [`Matcher::check`] refuses them with
//! [`MatcherError::ModelGraded`].
//!
//! [`Matcher::check`] returns the list of [`AssertionDiff`]s (empty = pass), and `Err` only for a
//! structural problem: a malformed schema or regex, or a model-graded matcher.
//!
//! ```
//! use mcptest_core::matchers::Matcher;
//! use serde_json::json;
//!
//! let m: Matcher = serde_json::from_value(json!({"contains": {"tags": ["b", "a"]}})).unwrap();
//! assert!(m.check(&json!({"tags": ["a", "c", "b"], "id": 7})).unwrap().is_empty());
//!
//! let diffs = Matcher::exact(json!({"city": "Sacramento"}))
//!     .check(&json!({"city": "Fresno"}))
//!     .unwrap();
//! assert_eq!(diffs[0].pointer, "/city");
//! ```

use crate::diff::{AssertionDiff, escape_pointer_token};
use crate::json::{hash_value, json_eq, type_name};
use crate::matching::{ClassGraph, expand, group, max_class_matching};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// A matcher over one JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Matcher {
    /// Deep equality with JSON number semantics.
    Exact(Value),
    /// Object subset with multiset arrays.
    Contains(Value),
    /// JSON Schema validation.
    Schema(SchemaMatcher),
    /// Regular-expression search in a string.
    Regex(RegexMatcher),
    /// Negation.
    Not(Box<Matcher>),
    /// Conjunction.
    All(Vec<Matcher>),
    /// Disjunction.
    Any(Vec<Matcher>),
    /// A model-graded matcher (`llm-judge`, `llm-jury`, `similar`): parsed, never run here.
    ModelGraded {
        /// The key it was written under.
        kind: ModelGradedKind,
        /// Its configuration, as written.
        config: Value,
    },
}

/// The model-graded matcher kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelGradedKind {
    /// `llm-judge`.
    LlmJudge,
    /// `llm-jury`.
    LlmJury,
    /// `similar`.
    Similar,
}

impl ModelGradedKind {
    /// The YAML key.
    pub fn key(self) -> &'static str {
        match self {
            ModelGradedKind::LlmJudge => "llm-judge",
            ModelGradedKind::LlmJury => "llm-jury",
            ModelGradedKind::Similar => "similar",
        }
    }
}

/// The keys a matcher may be written under (the rulebook's list).
pub use mcptest_rules::names::MATCHER_KEYS;

/// A structural problem with a matcher: it cannot decide anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatcherError {
    /// The JSON Schema does not compile.
    Schema(String),
    /// The regular expression does not compile.
    Regex(String),
    /// A model-graded matcher where a deterministic gate is required.
    ModelGraded(&'static str),
}

impl fmt::Display for MatcherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatcherError::Schema(m) => write!(f, "malformed JSON Schema: {m}"),
            MatcherError::Regex(m) => write!(f, "malformed regex: {m}"),
            MatcherError::ModelGraded(k) => {
                let m = mcptest_rules::mistakes::Mistake::ModelGraded { key: k.to_string() };
                f.write_str(&m.message(mcptest_rules::mistakes::Front::Yaml))
            }
        }
    }
}

impl std::error::Error for MatcherError {}

/// A JSON Schema matcher; the schema is compiled on first use and the compiled form reused.
#[derive(Clone)]
pub struct SchemaMatcher {
    schema: Value,
    compiled: Arc<OnceLock<Result<Arc<jsonschema::Validator>, String>>>,
}

impl SchemaMatcher {
    /// A matcher for `schema` (not compiled yet).
    pub fn new(schema: Value) -> Self {
        SchemaMatcher {
            schema,
            compiled: Arc::new(OnceLock::new()),
        }
    }

    /// The schema document.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Compiles the schema (once); `Err` when it is malformed.
    pub fn compile(&self) -> Result<Arc<jsonschema::Validator>, MatcherError> {
        self.compiled
            .get_or_init(|| compile_schema(&self.schema).map(Arc::new))
            .clone()
            .map_err(MatcherError::Schema)
    }

    /// Validates `actual`; one diff per schema error, pointing into `actual`.
    pub fn check(&self, actual: &Value) -> Result<Vec<AssertionDiff>, MatcherError> {
        Ok(schema_diffs(&*self.compile()?, actual))
    }
}

impl PartialEq for SchemaMatcher {
    fn eq(&self, other: &Self) -> bool {
        json_eq(&self.schema, &other.schema)
    }
}

impl fmt::Debug for SchemaMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SchemaMatcher").field(&self.schema).finish()
    }
}

/// Compiles a JSON Schema document; the message says what is wrong.
pub(crate) fn compile_schema(schema: &Value) -> Result<jsonschema::Validator, String> {
    if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
        return Err(format!(
            "a schema is an object or a boolean, found {}",
            type_name(schema)
        ));
    }
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

/// Compiled schemas shared by every expectation in the process, keyed by a structural hash
/// and checked by equality: a trajectory graded on many runs (or many cells) compiles each of
/// its schemas once. Bounded: past [`SCHEMA_CACHE_LIMIT`] entries the cache starts over.
static SCHEMA_CACHE: LazyLock<Mutex<SchemaCache>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Compiled schemas by structural hash, each with the schema it was compiled from.
type SchemaCache = HashMap<u64, Vec<(Value, Arc<jsonschema::Validator>)>>;

/// How many compiled schemas [`compiled_schema`] keeps.
const SCHEMA_CACHE_LIMIT: usize = 1024;

/// [`compile_schema`] through a process-wide cache (a malformed schema is not kept, and is an
/// error every time).
pub(crate) fn compiled_schema(schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
    let key = crate::json::hash_value(schema);
    let lookup = |cache: &SchemaCache| {
        cache.get(&key).and_then(|bucket| {
            bucket
                .iter()
                .find(|(v, _)| crate::json::json_eq(v, schema))
                .map(|(_, c)| c.clone())
        })
    };
    if let Ok(cache) = SCHEMA_CACHE.lock()
        && let Some(found) = lookup(&cache)
    {
        return Ok(found);
    }
    let compiled = Arc::new(compile_schema(schema)?);
    if let Ok(mut cache) = SCHEMA_CACHE.lock() {
        if cache.values().map(Vec::len).sum::<usize>() >= SCHEMA_CACHE_LIMIT {
            cache.clear();
        }
        cache
            .entry(key)
            .or_default()
            .push((schema.clone(), compiled.clone()));
    }
    Ok(compiled)
}

/// One diff per validation error of `actual` against a compiled schema.
pub(crate) fn schema_diffs(v: &jsonschema::Validator, actual: &Value) -> Vec<AssertionDiff> {
    v.iter_errors(actual)
        .map(|e| {
            let pointer = e.instance_path().to_string();
            let at = actual.pointer(&pointer).cloned();
            AssertionDiff::new(pointer, None, at, format!("schema: {e}"))
        })
        .collect()
}

/// A regex matcher; compiled on first use and reused.
#[derive(Clone)]
pub struct RegexMatcher {
    pattern: String,
    compiled: Arc<OnceLock<Result<regex::Regex, String>>>,
}

impl RegexMatcher {
    /// A matcher for `pattern` (not compiled yet).
    pub fn new(pattern: impl Into<String>) -> Self {
        RegexMatcher {
            pattern: pattern.into(),
            compiled: Arc::new(OnceLock::new()),
        }
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Compiles the pattern (once); `Err` when it is malformed.
    pub fn compile(&self) -> Result<&regex::Regex, MatcherError> {
        self.compiled
            .get_or_init(|| regex::Regex::new(&self.pattern).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| MatcherError::Regex(e.clone()))
    }
}

impl PartialEq for RegexMatcher {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl fmt::Debug for RegexMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RegexMatcher").field(&self.pattern).finish()
    }
}

impl Matcher {
    /// `exact: v`.
    pub fn exact(v: Value) -> Self {
        Matcher::Exact(v)
    }
    /// `contains: v`.
    pub fn contains(v: Value) -> Self {
        Matcher::Contains(v)
    }
    /// `schema: s`.
    pub fn schema(s: Value) -> Self {
        Matcher::Schema(SchemaMatcher::new(s))
    }
    /// `regex: r`.
    pub fn regex(r: impl Into<String>) -> Self {
        Matcher::Regex(RegexMatcher::new(r))
    }
    /// `not: m`.
    #[allow(clippy::should_implement_trait)] // named after the YAML key, not `!`
    pub fn not(m: Matcher) -> Self {
        Matcher::Not(Box::new(m))
    }
    /// `all: [..]`.
    pub fn all(ms: impl IntoIterator<Item = Matcher>) -> Self {
        Matcher::All(ms.into_iter().collect())
    }
    /// `any: [..]`.
    pub fn any(ms: impl IntoIterator<Item = Matcher>) -> Self {
        Matcher::Any(ms.into_iter().collect())
    }

    /// The key this matcher is written under.
    pub fn key(&self) -> &'static str {
        match self {
            Matcher::Exact(_) => "exact",
            Matcher::Contains(_) => "contains",
            Matcher::Schema(_) => "schema",
            Matcher::Regex(_) => "regex",
            Matcher::Not(_) => "not",
            Matcher::All(_) => "all",
            Matcher::Any(_) => "any",
            Matcher::ModelGraded { kind, .. } => kind.key(),
        }
    }

    /// The first model-graded matcher inside this one (itself included), if any.
    pub fn model_graded(&self) -> Option<ModelGradedKind> {
        match self {
            Matcher::ModelGraded { kind, .. } => Some(*kind),
            Matcher::Not(m) => m.model_graded(),
            Matcher::All(ms) | Matcher::Any(ms) => ms.iter().find_map(Matcher::model_graded),
            _ => None,
        }
    }

    /// Checks every structural precondition without matching anything: compiles every schema
    /// and regex and refuses model-graded matchers. [`check`](Self::check) does the same lazily.
    pub fn validate(&self) -> Result<(), MatcherError> {
        match self {
            Matcher::Exact(_) | Matcher::Contains(_) => Ok(()),
            Matcher::Schema(s) => s.compile().map(|_| ()),
            Matcher::Regex(r) => r.compile().map(|_| ()),
            Matcher::Not(m) => m.validate(),
            Matcher::All(ms) | Matcher::Any(ms) => ms.iter().try_for_each(Matcher::validate),
            Matcher::ModelGraded { kind, .. } => Err(MatcherError::ModelGraded(kind.key())),
        }
    }

    /// Matches `actual`: an empty list is a pass, each diff says where and why it failed.
    pub fn check(&self, actual: &Value) -> Result<Vec<AssertionDiff>, MatcherError> {
        match self {
            Matcher::Exact(e) => Ok(exact_diffs(e, actual)),
            Matcher::Contains(e) => Ok(contains_diffs(e, actual)),
            Matcher::Schema(s) => s.check(actual),
            Matcher::Regex(r) => {
                let re = r.compile()?;
                Ok(match actual {
                    Value::String(s) if re.is_match(s) => vec![],
                    Value::String(_) => vec![AssertionDiff::new(
                        "",
                        Some(Value::String(r.pattern.clone())),
                        Some(actual.clone()),
                        format!("string does not match regex `{}`", r.pattern),
                    )],
                    other => vec![AssertionDiff::new(
                        "",
                        None,
                        Some(other.clone()),
                        format!("regex needs a string, found {}", type_name(other)),
                    )],
                })
            }
            Matcher::Not(m) => {
                let inner = m.check(actual)?;
                Ok(if inner.is_empty() {
                    vec![AssertionDiff::new(
                        "",
                        None,
                        Some(actual.clone()),
                        format!("expected `not {}` to fail, but it matched", m.key()),
                    )]
                } else {
                    vec![]
                })
            }
            Matcher::All(ms) => {
                // Validate everything first so a malformed matcher is never hidden.
                self.validate()?;
                let mut out = Vec::new();
                for m in ms {
                    out.extend(m.check(actual)?);
                }
                Ok(out)
            }
            Matcher::Any(ms) => {
                self.validate()?;
                let mut out = Vec::new();
                for m in ms {
                    let d = m.check(actual)?;
                    if d.is_empty() {
                        return Ok(vec![]);
                    }
                    out.extend(d);
                }
                if ms.is_empty() {
                    out.push(AssertionDiff::new(
                        "",
                        None,
                        Some(actual.clone()),
                        "`any: []` has no alternative to match",
                    ));
                }
                Ok(out)
            }
            Matcher::ModelGraded { kind, .. } => Err(MatcherError::ModelGraded(kind.key())),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// exact

/// The diffs of `actual` against `expected` under deep equality (JSON number semantics).
pub fn exact_diffs(expected: &Value, actual: &Value) -> Vec<AssertionDiff> {
    let mut out = Vec::new();
    exact_walk(expected, actual, &mut String::new(), &mut out);
    out
}

fn exact_walk(expected: &Value, actual: &Value, at: &mut String, out: &mut Vec<AssertionDiff>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let len = at.len();
                at.push('/');
                at.push_str(&escape_pointer_token(k));
                match a.get(k) {
                    Some(av) => exact_walk(ev, av, at, out),
                    None => out.push(AssertionDiff::new(
                        at.clone(),
                        Some(ev.clone()),
                        None,
                        format!("missing key `{k}`"),
                    )),
                }
                at.truncate(len);
            }
            for (k, av) in a {
                if !e.contains_key(k) {
                    out.push(AssertionDiff::new(
                        format!("{at}/{}", escape_pointer_token(k)),
                        None,
                        Some(av.clone()),
                        format!("unexpected key `{k}`"),
                    ));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                exact_walk(ev, av, at, out);
                at.truncate(len);
            }
            for (i, ev) in e.iter().enumerate().skip(a.len()) {
                out.push(AssertionDiff::new(
                    format!("{at}/{i}"),
                    Some(ev.clone()),
                    None,
                    format!("missing array element {i} (recorded array has {})", a.len()),
                ));
            }
            for (i, av) in a.iter().enumerate().skip(e.len()) {
                out.push(AssertionDiff::new(
                    format!("{at}/{i}"),
                    None,
                    Some(av.clone()),
                    format!("unexpected array element {i} (expected {})", e.len()),
                ));
            }
        }
        _ if json_eq(expected, actual) => {}
        _ => out.push(mismatch(at, expected, actual)),
    }
}

fn mismatch(at: &str, expected: &Value, actual: &Value) -> AssertionDiff {
    let message = if type_name(expected) == type_name(actual) {
        format!("expected {expected}, recorded {actual}")
    } else {
        format!(
            "expected {} {expected}, recorded {} {actual}",
            type_name(expected),
            type_name(actual)
        )
    };
    AssertionDiff::new(at, Some(expected.clone()), Some(actual.clone()), message)
}

// ---------------------------------------------------------------------------------------------
// contains

/// True when `actual` contains `expected` (object subset, multiset arrays, exact scalars).
pub fn contains(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, ev)| a.get(k).is_some_and(|av| contains(ev, av))),
        (Value::Array(e), Value::Array(a)) => array_assignment(e, a).iter().all(Option::is_some),
        _ => json_eq(expected, actual),
    }
}

/// The diffs of `actual` against `expected` under `contains`.
pub fn contains_diffs(expected: &Value, actual: &Value) -> Vec<AssertionDiff> {
    let mut out = Vec::new();
    contains_walk(expected, actual, &mut String::new(), &mut out);
    out
}

fn contains_walk(expected: &Value, actual: &Value, at: &mut String, out: &mut Vec<AssertionDiff>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let len = at.len();
                at.push('/');
                at.push_str(&escape_pointer_token(k));
                match a.get(k) {
                    Some(av) => contains_walk(ev, av, at, out),
                    None => out.push(AssertionDiff::new(
                        at.clone(),
                        Some(ev.clone()),
                        None,
                        format!("missing key `{k}`"),
                    )),
                }
                at.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            let assignment = array_assignment(e, a);
            let unmatched: Vec<usize> = (0..e.len()).filter(|&i| assignment[i].is_none()).collect();
            if unmatched.is_empty() {
                return;
            }
            // A single unmatched element against a same-length array reads best position-wise.
            let used: Vec<bool> = {
                let mut u = vec![false; a.len()];
                assignment.iter().flatten().for_each(|&j| u[j] = true);
                u
            };
            for i in unmatched {
                let free: Vec<usize> = (0..a.len()).filter(|&j| !used[j]).collect();
                if free.len() == 1 {
                    let j = free[0];
                    let len = at.len();
                    at.push_str(&format!("/{j}"));
                    let before = out.len();
                    contains_walk(&e[i], &a[j], at, out);
                    if out.len() == before {
                        out.push(mismatch(at, &e[i], &a[j]));
                    }
                    at.truncate(len);
                } else {
                    out.push(AssertionDiff::new(
                        at.clone(),
                        Some(e[i].clone()),
                        None,
                        format!(
                            "no distinct recorded array element contains expected element {i} \
                             (arrays match as a multiset: each expected element needs its own \
                             recorded element, in any order)"
                        ),
                    ));
                }
            }
        }
        _ if json_eq(expected, actual) => {}
        _ => out.push(mismatch(at, expected, actual)),
    }
}

/// Maximum matching of expected elements to distinct actual elements that contain them.
fn array_assignment(e: &[Value], a: &[Value]) -> Vec<Option<usize>> {
    let e_hash: Vec<u64> = e.iter().map(hash_value).collect();
    let a_hash: Vec<u64> = a.iter().map(hash_value).collect();
    let e_members = group(e, |i| ("", e_hash[i]), json_eq);
    let a_members = group(a, |j| ("", a_hash[j]), json_eq);
    let edges: Vec<Vec<usize>> = e_members
        .iter()
        .map(|em| {
            a_members
                .iter()
                .enumerate()
                .filter(|(_, am)| contains(&e[em[0]], &a[am[0]]))
                .map(|(d, _)| d)
                .collect()
        })
        .collect();
    let g = ClassGraph {
        left: e_members.iter().map(Vec::len).collect(),
        right: a_members.iter().map(Vec::len).collect(),
        edges,
    };
    expand(&max_class_matching(&g), &e_members, &a_members, e.len())
}

// ---------------------------------------------------------------------------------------------
// serde: `{exact: ...}`, `{not: {...}}`, `{llm-judge: ...}`

impl Serialize for Matcher {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        match self {
            Matcher::Exact(v) | Matcher::Contains(v) => m.serialize_entry(self.key(), v)?,
            Matcher::Schema(sc) => m.serialize_entry("schema", &sc.schema)?,
            Matcher::Regex(r) => m.serialize_entry("regex", &r.pattern)?,
            Matcher::Not(inner) => m.serialize_entry("not", inner)?,
            Matcher::All(ms) | Matcher::Any(ms) => m.serialize_entry(self.key(), ms)?,
            Matcher::ModelGraded { kind, config } => m.serialize_entry(kind.key(), config)?,
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Matcher {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Matcher;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "a matcher: a map with one key, one of {}",
                    MATCHER_KEYS.join(", ")
                )
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Matcher, A::Error> {
                let key: String = map
                    .next_key()?
                    .ok_or_else(|| de::Error::custom("empty matcher: write one of `exact`, `contains`, `schema`, `regex`, `not`, `all`, `any`"))?;
                let m = match key.as_str() {
                    "exact" => Matcher::Exact(map.next_value()?),
                    "contains" => Matcher::Contains(map.next_value()?),
                    "schema" => Matcher::schema(map.next_value()?),
                    "regex" => Matcher::regex(map.next_value::<String>()?),
                    "not" => Matcher::not(map.next_value()?),
                    "all" => Matcher::All(map.next_value()?),
                    "any" => Matcher::Any(map.next_value()?),
                    "llm-judge" | "llm_judge" => Matcher::ModelGraded {
                        kind: ModelGradedKind::LlmJudge,
                        config: map.next_value()?,
                    },
                    "llm-jury" | "llm_jury" => Matcher::ModelGraded {
                        kind: ModelGradedKind::LlmJury,
                        config: map.next_value()?,
                    },
                    "similar" => Matcher::ModelGraded {
                        kind: ModelGradedKind::Similar,
                        config: map.next_value()?,
                    },
                    other => {
                        return Err(de::Error::custom(mcptest_rules::mistakes::unknown(
                            "matcher",
                            other,
                            MATCHER_KEYS,
                        )));
                    }
                };
                if let Some(extra) = map.next_key::<String>()? {
                    return Err(de::Error::custom(format!(
                        "a matcher has exactly one key, found `{key}` and `{extra}`; combine \
                         matchers with `all: [...]` or `any: [...]`"
                    )));
                }
                Ok(m)
            }
        }
        d.deserialize_map(V)
    }
}
