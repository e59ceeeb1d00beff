//! YAML text as a tree of nodes that remember their line and column.
//!
//! `serde-saphyr` (the YAML crate the suites use) parses the text with YAML 1.2 core booleans,
//! so `no` stays a string. Every node keeps its 1-based position, which is what lets a load
//! error point at the key or value it is about. Hostile input gets an error, never a crash:
//! the text is capped at [`MAX_TOOLS_FILE_BYTES`], nesting at [`MAX_DEPTH`] levels (aliases
//! count with the height of what they repeat), and the node count by the parser's budget.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;
use std::collections::HashMap;
use std::fmt;

/// The deepest nesting accepted. A tools file needs about six levels plus what an input
/// schema adds; the cap keeps the recursive decoding well inside a thread's stack.
pub const MAX_DEPTH: usize = 32;

/// The largest tools file accepted, in bytes (16 MiB).
pub const MAX_TOOLS_FILE_BYTES: usize = 16 * 1024 * 1024;

/// A 1-based line and column in a tools file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Pos {
    pub(crate) const START: Pos = Pos { line: 1, column: 1 };
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

    /// The node as a scalar's text (keys, names), or `None` for a list or map.
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

    /// The node as JSON; `Err` names the first node JSON cannot hold.
    pub fn to_json(&self) -> Result<Value, (Pos, String)> {
        Ok(match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::UInt(u) => Value::from(*u),
            Kind::Float(f) => Value::Number(Number::from_f64(*f).ok_or_else(|| {
                (
                    self.pos,
                    format!("{f} is not a JSON number; write a finite number"),
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

/// A YAML syntax or size problem, found before any decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

/// Parses YAML text into a node tree.
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    if text.len() > MAX_TOOLS_FILE_BYTES {
        return Err(SyntaxError {
            pos: Pos::START,
            message: format!(
                "the tools file is {} bytes, more than the {MAX_TOOLS_FILE_BYTES} a tools file may \
                 hold; keep large payloads out of it",
                text.len()
            ),
        });
    }
    check_depth(text)?;
    let mut options = serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
    };
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
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
                message: plain_message(&e),
            })
        }
    }
}

fn too_deep() -> String {
    format!(
        "the YAML nests deeper than {MAX_DEPTH} levels; a tools file is a list of tools a few \
         levels deep: flatten the input schema or the answer"
    )
}

/// Refuses nesting deeper than [`MAX_DEPTH`] before the recursive decoding sees it, walking
/// the parser's events without recursion. An alias counts with the height of the anchored
/// node it repeats. Syntax errors are left to the decoding pass and its message.
fn check_depth(text: &str) -> Result<(), SyntaxError> {
    use serde_saphyr::granit_parser::{Event, Parser};
    // Open collections: (anchor id or 0, height of what is inside so far, itself included).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut heights: HashMap<usize, usize> = HashMap::new();
    let error = |line: usize, col: usize| SyntaxError {
        pos: Pos {
            line: line.max(1),
            column: col + 1,
        },
        message: too_deep(),
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
                if open.len() > MAX_DEPTH {
                    return Err(error(span.start.line(), span.start.col()));
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
                if open.len() + height > MAX_DEPTH {
                    return Err(error(span.start.line(), span.start.col()));
                }
                close(&mut open, height);
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
        return too_deep();
    }
    if let Some(rest) = msg.strip_prefix("budget breached: ") {
        if rest.starts_with("Depth") {
            return too_deep();
        }
        return format!("the YAML is too large ({rest}); keep large payloads out of a tools file");
    }
    if msg.starts_with("multiple YAML documents") {
        return "a tools file holds one YAML document; remove the `---` separator".into();
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

    #[test]
    fn nodes_keep_positions_and_yaml_12_booleans() {
        let n = parse("a:\n  b: no\n  c: [1, -2, 1.5, true, ~]\n").unwrap();
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
    fn hostile_inputs_are_errors() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        assert!(parse(&deep).unwrap_err().message.contains("deeper than 32"));
        let alias = format!(
            "a: &x {}1{}\nb: [[[[[[[[[[[[[[*x]]]]]]]]]]]]]]\n",
            "[".repeat(25),
            "]".repeat(25)
        );
        let e = parse(&alias).unwrap_err();
        assert_eq!(e.pos.line, 2, "{e:?}");
        assert!(
            parse("a: [1, 2\n")
                .unwrap_err()
                .message
                .starts_with("invalid YAML")
        );
        assert!(
            parse("a: 1\n---\nb: 2\n")
                .unwrap_err()
                .message
                .contains("one YAML document")
        );
        assert_eq!(parse("").unwrap().kind, Kind::Null);
    }
}
