//! YAML text as a tree of nodes that remember where they were written, for the loaders that
//! read YAML: suites ([`crate::suite`]) and the mock server's tools files.
//!
//! `serde-saphyr` parses the text, with YAML 1.2 core booleans only (so `no` stays a string).
//! Every node keeps its 1-based line and column, which is what lets a load error point at the
//! key or value it is about. Duplicate keys are passed through for the loader to report, with
//! both positions. Hostile input gets an error, never a stack overflow: the text is capped at
//! [`Limits::max_bytes`], nesting at [`Limits::max_depth`] levels (checked iteratively, before
//! any recursive decoding; an alias counts with the height of what it repeats), and the node
//! count at 250,000 by the parser's budget.
//!
//! The errors say what is wrong ([`Reason`], [`NotJson`]), not how to put it: each loader words
//! them for its own kind of file.
//!
//! Why `serde-saphyr`: it is pure Rust without `unsafe`, maintained, and the one candidate that
//! hands out the position of every value (`Spanned`), which the loaders need to report problems
//! found after parsing. Its syntax messages also name the cause where it is (`unclosed bracket
//! '['` at the bracket, `tabs disallowed` at the tab), where the libyaml-based `serde_norway`
//! reports the symptom (`did not find expected ',' or ']'` on the next line).
//!
//! ```
//! use mcptest_core::yaml::{self, Kind, Limits, Pos, Reason};
//!
//! let limits = Limits { max_depth: 8, max_bytes: 1024 };
//! let root = yaml::parse("name: weather\nenabled: no\n", limits).unwrap();
//! let Kind::Map(entries) = &root.kind else { unreachable!() };
//! assert_eq!(entries[1].1.kind, Kind::Str("no".into()));
//! assert_eq!(entries[1].1.pos, Pos { line: 2, column: 10 });
//!
//! let err = yaml::parse("a: [1, 2\n", limits).unwrap_err();
//! assert!(matches!(err.reason, Reason::Invalid { .. }), "{err:?}");
//! ```

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;
use std::collections::HashMap;
use std::fmt;

pub mod read;

/// The limits a loader sets on the YAML text it parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The deepest nesting of lists and maps accepted. The recursive decoding needs stack in
    /// proportion to it, so keep it to what the format needs.
    pub max_depth: usize,
    /// The longest text accepted, in bytes.
    pub max_bytes: usize,
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Pos {
    const START: Pos = Pos { line: 1, column: 1 };
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One YAML node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Where the node starts.
    pub pos: Pos,
    /// What it holds.
    pub kind: Kind,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `null`, `~`, or nothing at all.
    Null,
    /// `true` or `false` (`yes`, `no`, `on` and `off` are strings in YAML 1.2).
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (always so beyond `i64::MAX`).
    UInt(u64),
    /// A floating-point number. The parser refuses `.inf` and `.nan`, so a parsed one is
    /// finite.
    Float(f64),
    /// A string.
    Str(String),
    /// A list, its items in order.
    Seq(Vec<Node>),
    /// A map, its entries in the order written, duplicate keys included.
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// A short name of the node's type, for "expected X, found Y" messages.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "nothing (null)",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) | Kind::UInt(_) => "an integer",
            Kind::Float(_) => "a number",
            Kind::Str(_) => "a string",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a map",
        }
    }

    /// The node as a scalar's text (keys, names, messages), or `None` for a list or map.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.kind {
            Kind::Null => Some("null".into()),
            Kind::Bool(b) => Some(b.to_string()),
            Kind::Int(i) => Some(i.to_string()),
            Kind::UInt(u) => Some(u.to_string()),
            Kind::Float(f) => Some(f.to_string()),
            Kind::Str(s) => Some(s.clone()),
            Kind::Seq(_) | Kind::Map(_) => None,
        }
    }

    /// The node as JSON; `Err` names the first node that JSON cannot hold.
    pub fn to_json(&self) -> Result<Value, NotJson> {
        Ok(match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::UInt(u) => Value::from(*u),
            Kind::Float(f) => Value::Number(Number::from_f64(*f).ok_or(NotJson::NonFinite {
                pos: self.pos,
                value: *f,
            })?),
            Kind::Str(s) => Value::String(s.clone()),
            Kind::Seq(items) => Value::Array(
                items
                    .iter()
                    .map(Node::to_json)
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Kind::Map(entries) => {
                let mut m = Map::new();
                for (k, v) in entries {
                    let key = k.scalar_text().ok_or(NotJson::CollectionKey {
                        pos: k.pos,
                        found: k.type_name(),
                    })?;
                    m.insert(key, v.to_json()?);
                }
                Value::Object(m)
            }
        })
    }
}

/// A node JSON cannot hold, as [`Node::to_json`] reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum NotJson {
    /// A number that is not finite (only in a node built by hand: [`parse`] refuses `.inf` and
    /// `.nan`).
    NonFinite {
        /// Where it is written.
        pos: Pos,
        /// The number.
        value: f64,
    },
    /// A list or map used as a map key (JSON keys are strings).
    CollectionKey {
        /// Where the key is written.
        pos: Pos,
        /// The key's [`Node::type_name`].
        found: &'static str,
    },
}

/// A problem with the YAML text itself, found before any decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where it is (`1:1` when it is about the text as a whole).
    pub pos: Pos,
    /// What it is.
    pub reason: Reason,
}

/// What is wrong with YAML text, for the loader to word for its kind of file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The text is longer than [`Limits::max_bytes`].
    TooLarge {
        /// Its length, in bytes.
        bytes: usize,
    },
    /// Lists and maps nest deeper than [`Limits::max_depth`].
    TooDeep,
    /// The text holds more than the parser's budget of 250,000 nodes.
    TooManyNodes {
        /// The parser's account of the breach.
        detail: String,
    },
    /// Another of the parser's budgets is breached.
    OverBudget {
        /// The parser's account of the breach.
        detail: String,
    },
    /// The text holds more than one YAML document (a `---` separator).
    MultipleDocuments,
    /// The text is not valid YAML.
    Invalid {
        /// The parser's message, without its snippet and position (`unclosed bracket '['`).
        message: String,
    },
}

/// Parses YAML text into a node tree, within `limits`.
pub fn parse(text: &str, limits: Limits) -> Result<Node, SyntaxError> {
    if text.len() > limits.max_bytes {
        return Err(SyntaxError {
            pos: Pos::START,
            reason: Reason::TooLarge { bytes: text.len() },
        });
    }
    check_depth(text, limits.max_depth)?;
    let mut options = serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
    };
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = limits.max_depth;
    options.budget = Some(budget);
    match serde_saphyr::from_str_with_options::<Raw>(text, options) {
        Ok(raw) => Ok(raw.into_node()),
        Err(e) => {
            let pos = e
                .location()
                .map(|l| Pos {
                    line: (l.line() as usize).max(1),
                    column: (l.column() as usize).max(1),
                })
                .unwrap_or(Pos::START);
            Err(SyntaxError {
                pos,
                reason: reason(&e),
            })
        }
    }
}

/// Refuses nesting deeper than `max_depth` before the recursive decoding sees it, walking the
/// parser's events without recursion. An alias counts with the height of the anchored node it
/// repeats. Syntax errors are left to the decoding pass, which reports them with its own
/// message.
fn check_depth(text: &str, max_depth: usize) -> Result<(), SyntaxError> {
    use serde_saphyr::granit_parser::{Event, Parser};
    // Open collections: (anchor id or 0, height of what is inside so far, itself included).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut heights: HashMap<usize, usize> = HashMap::new();
    let too_deep = |line: usize, col: usize| SyntaxError {
        pos: Pos {
            line: line.max(1),
            column: col + 1,
        },
        reason: Reason::TooDeep,
    };
    for event in Parser::new_from_str(text) {
        let Ok((event, span)) = event else {
            return Ok(());
        };
        let close = |open: &mut Vec<(usize, usize)>, height: usize| {
            if let Some(parent) = open.last_mut() {
                parent.1 = parent.1.max(height + 1);
            }
        };
        match event {
            Event::SequenceStart(_, id, _) | Event::MappingStart(_, id, _) => {
                open.push((id, 1));
                if open.len() > max_depth {
                    return Err(too_deep(span.start.line(), span.start.col()));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((id, height)) = open.pop() {
                    if id != 0 {
                        heights.insert(id, height);
                    }
                    close(&mut open, height);
                }
            }
            Event::Alias(id) => {
                let height = heights.get(&id).copied().unwrap_or(0);
                if open.len() + height > max_depth {
                    return Err(too_deep(span.start.line(), span.start.col()));
                }
                close(&mut open, height);
            }
            _ => {}
        }
    }
    Ok(())
}

/// What the parser's error is about, its message stripped of the parser's own snippet and
/// position suffix.
fn reason(e: &serde_saphyr::Error) -> Reason {
    let full = e.without_snippet().to_string();
    let msg = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    };
    if msg.contains("recursion limit exceeded") || msg.contains("nesting limit") {
        return Reason::TooDeep;
    }
    if let Some(rest) = msg.strip_prefix("budget breached: ") {
        let detail = rest.to_string();
        return if rest.starts_with("Depth") {
            Reason::TooDeep
        } else if rest.starts_with("Nodes") {
            Reason::TooManyNodes { detail }
        } else {
            Reason::OverBudget { detail }
        };
    }
    if msg.starts_with("multiple YAML documents") {
        return Reason::MultipleDocuments;
    }
    Reason::Invalid { message: msg }
}

// ---------------------------------------------------------------------------------------------
// The raw tree serde-saphyr fills in, converted to `Node` once parsed.

struct Raw(Spanned<RawKind>);

enum RawKind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Raw>),
    Map(Vec<(Raw, Raw)>),
}

impl Raw {
    fn into_node(self) -> Node {
        let l = self.0.referenced;
        let pos = Pos {
            line: (l.line() as usize).max(1),
            column: (l.column() as usize).max(1),
        };
        let kind = match self.0.value {
            RawKind::Null => Kind::Null,
            RawKind::Bool(b) => Kind::Bool(b),
            RawKind::Int(i) => Kind::Int(i),
            RawKind::UInt(u) => Kind::UInt(u),
            RawKind::Float(f) => Kind::Float(f),
            RawKind::Str(s) => Kind::Str(s),
            RawKind::Seq(items) => Kind::Seq(items.into_iter().map(Raw::into_node).collect()),
            RawKind::Map(entries) => Kind::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.into_node(), v.into_node()))
                    .collect(),
            ),
        };
        Node { pos, kind }
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Raw(Spanned::<RawKind>::deserialize(d)?))
    }
}

impl<'de> Deserialize<'de> for RawKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawKind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<RawKind, E> {
        Ok(RawKind::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<RawKind, E> {
        Ok(RawKind::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<RawKind, D::Error> {
        RawKind::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawKind, E> {
        Ok(RawKind::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawKind, E> {
        Ok(RawKind::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawKind, E> {
        Ok(RawKind::UInt(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<RawKind, E> {
        Ok(i64::try_from(v)
            .map(RawKind::Int)
            .or_else(|_| u64::try_from(v).map(RawKind::UInt))
            .unwrap_or(RawKind::Float(v as f64)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<RawKind, E> {
        Ok(u64::try_from(v)
            .map(RawKind::UInt)
            .unwrap_or(RawKind::Float(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawKind, E> {
        Ok(RawKind::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawKind, E> {
        Ok(RawKind::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<RawKind, E> {
        Ok(RawKind::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<RawKind, E> {
        Ok(RawKind::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawKind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Raw>()? {
            items.push(item);
        }
        Ok(RawKind::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawKind, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<Raw, Raw>()? {
            entries.push(entry);
        }
        Ok(RawKind::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_depth: 24,
        max_bytes: 1024,
    };

    #[test]
    fn nodes_keep_positions_and_yaml_12_booleans() {
        let n = parse("a:\n  b: no\n  c: [1, -2, 1.5, true, ~]\n", LIMITS).unwrap();
        let Kind::Map(top) = &n.kind else {
            panic!("{n:?}")
        };
        let Kind::Map(inner) = &top[0].1.kind else {
            panic!("{n:?}")
        };
        assert_eq!(inner[0].1.kind, Kind::Str("no".into()));
        assert_eq!(inner[0].1.pos, Pos { line: 2, column: 6 });
        assert_eq!(
            top[0].1.to_json().unwrap(),
            serde_json::json!({"b": "no", "c": [1, -2, 1.5, true, null]})
        );
    }

    #[test]
    fn what_json_cannot_hold_is_named_where_it_is() {
        let e = parse("a: [1, .inf]\n", LIMITS).unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, column: 8 });
        assert!(matches!(e.reason, Reason::Invalid { .. }), "{e:?}");
        let pos = Pos { line: 3, column: 4 };
        let n = Node {
            pos,
            kind: Kind::Float(f64::INFINITY),
        };
        assert_eq!(
            n.to_json().unwrap_err(),
            NotJson::NonFinite {
                pos,
                value: f64::INFINITY
            }
        );
        let n = parse("a:\n  ? [1]\n  : 2\n", LIMITS).unwrap();
        assert_eq!(
            n.to_json().unwrap_err(),
            NotJson::CollectionKey {
                pos: Pos { line: 2, column: 5 },
                found: "a list"
            }
        );
    }

    #[test]
    fn hostile_inputs_are_errors_not_panics() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        assert_eq!(parse(&deep, LIMITS).unwrap_err().reason, Reason::TooDeep);
        let e = parse("a: [1, 2\n", LIMITS).unwrap_err();
        assert!(matches!(e.reason, Reason::Invalid { .. }), "{e:?}");
        assert_eq!(
            parse("a: 1\n---\nb: 2\n", LIMITS).unwrap_err().reason,
            Reason::MultipleDocuments
        );
        assert_eq!(
            parse(&"#".repeat(1025), LIMITS).unwrap_err(),
            SyntaxError {
                pos: Pos::START,
                reason: Reason::TooLarge { bytes: 1025 }
            }
        );
        assert_eq!(parse("", LIMITS).unwrap().kind, Kind::Null);
    }

    #[test]
    fn an_alias_counts_with_the_height_of_what_it_repeats() {
        let limits = Limits {
            max_depth: 32,
            ..LIMITS
        };
        let alias = format!(
            "a: &x {}1{}\nb: [[[[[[[[[[[[[[*x]]]]]]]]]]]]]]\n",
            "[".repeat(25),
            "]".repeat(25)
        );
        let e = parse(&alias, limits).unwrap_err();
        assert_eq!((e.pos.line, &e.reason), (2, &Reason::TooDeep), "{e:?}");
    }
}
