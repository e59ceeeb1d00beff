//! The YAML text as a tree of nodes that remember where they were written.
//!
//! `serde-saphyr` parses the text, with YAML 1.2 core booleans only (so `no` stays a string).
//! Every node keeps its 1-based line and column, which is what lets a load error point at the
//! key or value it is about. Duplicate keys are passed through and reported by the decoder,
//! with both positions. Nesting is capped at [`MAX_DEPTH`] levels (checked iteratively, before
//! any recursive decoding), the node count at 250,000 by the parser's budget, and the text at
//! [`MAX_SUITE_BYTES`]: a hostile file gets an error, never a stack overflow.
//!
//! Why `serde-saphyr`: it is pure Rust without `unsafe`, maintained, and the one candidate that
//! hands out the position of every value (`Spanned`), which the loader needs to report problems
//! found after parsing. Its syntax messages also name the cause where it is (`unclosed bracket
//! '['` at the bracket, `tabs disallowed` at the tab), where the libyaml-based `serde_norway`
//! reports the symptom (`did not find expected ',' or ']'` on the next line).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;
use std::collections::HashMap;
use std::fmt;

/// The deepest nesting of lists and maps accepted. A suite needs about eight levels, plus what
/// a JSON Schema inside an assertion adds; the cap keeps the recursive decoding well inside a
/// test thread's stack.
pub const MAX_DEPTH: usize = 24;

/// The largest suite text accepted, in bytes (16 MiB).
pub const MAX_SUITE_BYTES: usize = 16 * 1024 * 1024;

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One YAML node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub pos: Pos,
    pub kind: Kind,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
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

    /// The node as a scalar's text, for keys and messages.
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

    /// The node as JSON; `Err` names the first node that JSON cannot hold (a non-finite number,
    /// a list or map used as a key).
    pub fn to_json(&self) -> Result<Value, (Pos, String)> {
        Ok(match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::UInt(u) => Value::from(*u),
            Kind::Float(f) => Value::Number(Number::from_f64(*f).ok_or_else(|| {
                (
                    self.pos,
                    format!("{f} is not a JSON number: write a finite number"),
                )
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
                    let key = k.scalar_text().ok_or_else(|| {
                        (
                            k.pos,
                            format!("a JSON key is a string, found {}", k.type_name()),
                        )
                    })?;
                    m.insert(key, v.to_json()?);
                }
                Value::Object(m)
            }
        })
    }
}

/// A YAML syntax (or budget) problem, before any decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

/// Parses YAML text into a node tree.
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    if text.len() > MAX_SUITE_BYTES {
        return Err(SyntaxError {
            pos: Pos { line: 1, column: 1 },
            message: format!(
                "the suite is {} bytes, more than the {} bytes a suite may hold; split it into \
                 several suite files",
                text.len(),
                MAX_SUITE_BYTES
            ),
        });
    }
    let mut options = serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
    };
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    options.budget = Some(budget);
    check_depth(text)?;
    match serde_saphyr::from_str_with_options::<Raw>(text, options) {
        Ok(raw) => Ok(raw.into_node()),
        Err(e) => {
            let pos = e
                .location()
                .map(|l| Pos {
                    line: (l.line() as usize).max(1),
                    column: (l.column() as usize).max(1),
                })
                .unwrap_or(Pos { line: 1, column: 1 });
            Err(SyntaxError {
                pos,
                message: plain_message(&e),
            })
        }
    }
}

/// Refuses nesting deeper than [`MAX_DEPTH`] (aliases count with the depth of what they
/// repeat) before the recursive decoding sees it, walking the parser's events iteratively.
/// Syntax errors are left to the decoding pass, which reports them with its own message.
fn check_depth(text: &str) -> Result<(), SyntaxError> {
    use serde_saphyr::granit_parser::{Event, Parser};
    // Open containers: (anchor id, 0 for none; height of what is inside so far, itself included).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut heights: HashMap<usize, usize> = HashMap::new();
    let too_deep = |line: usize, col: usize| SyntaxError {
        pos: Pos {
            line: line.max(1),
            column: col + 1,
        },
        message: format!(
            "the YAML nests deeper than {MAX_DEPTH} levels; a suite is a list of agents, each a \
             few levels deep: simplify it"
        ),
    };
    for event in Parser::new_from_str(text) {
        let Ok((event, span)) = event else {
            return Ok(());
        };
        let height_in = |open: &mut Vec<(usize, usize)>, h: usize| {
            if let Some(parent) = open.last_mut() {
                parent.1 = parent.1.max(h + 1);
            }
        };
        match event {
            Event::SequenceStart(_, id, _) | Event::MappingStart(_, id, _) => {
                open.push((id, 1));
                if open.len() > MAX_DEPTH {
                    return Err(too_deep(span.start.line(), span.start.col()));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((id, h)) = open.pop() {
                    if id != 0 {
                        heights.insert(id, h);
                    }
                    height_in(&mut open, h);
                }
            }
            Event::Alias(id) => {
                let h = heights.get(&id).copied().unwrap_or(0);
                if open.len() + h > MAX_DEPTH {
                    return Err(too_deep(span.start.line(), span.start.col()));
                }
                height_in(&mut open, h);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The parser's message without its own snippet and position suffix, made readable.
fn plain_message(e: &serde_saphyr::Error) -> String {
    let full = e.without_snippet().to_string();
    let msg = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    };
    if msg.contains("recursion limit exceeded") || msg.contains("nesting limit") {
        return "the YAML nests deeper than 24 levels; a suite is a list of agents, each a few \
                levels deep: simplify it"
            .into();
    }
    if let Some(rest) = msg.strip_prefix("budget breached: ") {
        let what = if rest.starts_with("Depth") {
            "the YAML nests deeper than 24 levels".to_string()
        } else if rest.starts_with("Nodes") {
            "the YAML holds more than 250,000 nodes".to_string()
        } else {
            format!("the YAML is too large ({rest})")
        };
        return format!("{what}; a suite is a list of agents, each a few levels deep: simplify it");
    }
    if msg.starts_with("multiple YAML documents") {
        return "a suite file holds one YAML document; remove the `---` separator or split the \
                documents into several suite files"
            .into();
    }
    format!("invalid YAML: {msg}")
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
        i64::try_from(v)
            .map(RawKind::Int)
            .or_else(|_| u64::try_from(v).map(RawKind::UInt))
            .or(Ok(RawKind::Float(v as f64)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<RawKind, E> {
        u64::try_from(v)
            .map(RawKind::UInt)
            .or(Ok(RawKind::Float(v as f64)))
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

    #[test]
    fn nodes_keep_positions_and_yaml_12_booleans() {
        let n = parse("a:\n  b: no\n  c: [1, -2, 1.5, true, ~]\n").unwrap();
        let Kind::Map(top) = &n.kind else { panic!() };
        let Kind::Map(inner) = &top[0].1.kind else {
            panic!()
        };
        assert_eq!(inner[0].1.kind, Kind::Str("no".into()));
        assert_eq!(inner[0].1.pos, Pos { line: 2, column: 6 });
        let v = top[0].1.to_json().unwrap();
        assert_eq!(
            v,
            serde_json::json!({"b": "no", "c": [1, -2, 1.5, true, null]})
        );
    }

    #[test]
    fn hostile_inputs_are_errors_not_panics() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        assert!(parse(&deep).unwrap_err().message.contains("deeper than 24"));
        let e = parse("a: [1, 2\n").unwrap_err();
        assert!(e.message.starts_with("invalid YAML"), "{e:?}");
        assert!(
            parse("a: 1\n---\nb: 2\n")
                .unwrap_err()
                .message
                .contains("one YAML document")
        );
        assert_eq!(parse("").unwrap().kind, Kind::Null);
    }
}

#[cfg(test)]
mod depth {
    #[test]
    fn the_deepest_accepted_suite_fits_a_small_thread_stack() {
        let ok = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(|| {
                let depth = super::MAX_DEPTH - 1;
                let block: String = (0..depth)
                    .map(|i| format!("{}a:\n", "  ".repeat(i)))
                    .collect();
                let flow = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                let block_ok = super::parse(&block).is_ok();
                let flow_ok = super::parse(&flow).is_ok();
                let over: String = (0..100)
                    .map(|i| format!("{}a:\n", "  ".repeat(i)))
                    .collect();
                let over_err = super::parse(&over).unwrap_err();
                let flow_over = format!("{}1{}", "[".repeat(40), "]".repeat(40));
                let flow_err = super::parse(&flow_over).unwrap_err();
                let alias = format!(
                    "a: &x {}1{}\nb: [[[[[[*x]]]]]]\n",
                    "[".repeat(20),
                    "]".repeat(20)
                );
                let alias_err = super::parse(&alias).unwrap_err();
                assert_eq!(
                    over_err.pos,
                    super::Pos {
                        line: 25,
                        column: 49
                    }
                );
                assert_eq!(
                    flow_err.pos,
                    super::Pos {
                        line: 1,
                        column: 25
                    }
                );
                assert_eq!(alias_err.pos.line, 2);
                (block_ok, flow_ok, over_err.message)
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(ok.0 && ok.1, "{ok:?}");
        assert!(ok.2.contains("deeper than 24"), "{ok:?}");
    }
}
