//! The reading kit both YAML loaders use (suites and the mock server's tools files): a map's
//! keys checked against the keys it may hold, and the words of every reading mistake, so a
//! misspelled key, a duplicate or a wrong type reads the same in either file.
//!
//! Each function returns what it read and the problems it found, as [`Found`] values; the
//! loader records them with its own file name and path.
//!
//! ```
//! use mcptest_core::yaml::{self, Limits, read};
//! let limits = Limits { max_depth: 8, max_bytes: 1024 };
//! let root = yaml::parse("nmae: x\nname: y\nname: z\n", limits).unwrap();
//! let (fields, found) = read::map(&root, "a tool", &["name", "title"], |_, _| None).unwrap();
//! assert_eq!(fields.get("name").unwrap().1.kind, yaml::Kind::Str("y".into()));
//! assert_eq!(found[0].message, "unknown key `nmae` in a tool; did you mean `name`?");
//! assert!(found[1].message.starts_with("duplicate key `name` in a tool (first written at 2:1)"));
//! assert_eq!(fields.typos, ["name"]);
//! ```

use super::{Kind, Node, NotJson, Pos};
use mcptest_rules::suggest::did_you_mean;
use serde_json::Value;

/// A reading mistake: where, the key it is about (when it is about one), and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Where it is.
    pub pos: Pos,
    /// The key it is about, for the loader's path (`None`: the node itself).
    pub key: Option<String>,
    /// What is wrong and what to do.
    pub message: String,
}

impl Found {
    fn at(pos: Pos, key: Option<&str>, message: String) -> Found {
        Found {
            pos,
            key: key.map(str::to_string),
            message,
        }
    }
}

/// The known entries of a map node, in the order written.
#[derive(Debug, Clone)]
pub struct Fields<'n> {
    /// `(key, key node, value node)` of every known key, first occurrence only.
    pub entries: Vec<(&'n str, &'n Node, &'n Node)>,
    /// The known key each unknown key was taken for, when it looked like a typo of one: a
    /// loader does not also report that key as missing.
    pub typos: Vec<&'static str>,
    /// Where the map starts.
    pub pos: Pos,
}

impl<'n> Fields<'n> {
    /// The key and value nodes of `key`, if written.
    pub fn get(&self, key: &str) -> Option<(&'n Node, &'n Node)> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, k, v)| (*k, *v))
    }

    /// True when `key` is written.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// True when `key` is missing and not because it was misspelled (which is reported).
    pub fn missing(&self, key: &str) -> bool {
        self.get(key).is_none() && !self.typos.contains(&key)
    }
}

/// `` `a`, `b`, `c` ``.
pub fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a node is, for "found ..." (`a string `five``, `a list`).
pub fn found(node: &Node) -> String {
    match (&node.kind, node.scalar_text()) {
        (Kind::Null | Kind::Seq(_) | Kind::Map(_), _) | (_, None) => node.type_name().to_string(),
        (_, Some(t)) => format!("{} `{t}`", node.type_name()),
    }
}

/// "`{label}` must be {expected}, found {found}; {hint}".
pub fn wrong_type(label: &str, node: &Node, expected: &str, hint: &str) -> String {
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!("; {hint}")
    };
    format!("{label} must be {expected}, found {}{hint}", found(node))
}

/// The known entries of a map node. `what` names the map in messages ("a tool", "agent
/// `weather`"); `known` are the keys it may hold; `advice` may say more about an unknown key
/// than a did-you-mean (a loader's spelling rules), given the key and `known`.
///
/// A null node reads as an empty map. Unknown keys (with a guess), duplicates (with the first
/// position) and keys that are not names are reported, and left out of the fields.
///
/// # Errors
///
/// The node is not a map: one [`Found`] that lists the keys it may hold.
pub fn map<'n>(
    node: &'n Node,
    what: &str,
    known: &[&'static str],
    advice: impl Fn(&str, &[&'static str]) -> Option<String>,
) -> Result<(Fields<'n>, Vec<Found>), Found> {
    let entries = match &node.kind {
        Kind::Map(e) => e.as_slice(),
        Kind::Null => &[],
        _ => {
            return Err(Found::at(
                node.pos,
                None,
                format!(
                    "{what} is a map of keys ({}), found {}",
                    quoted_list(known),
                    found(node)
                ),
            ));
        }
    };
    let mut fields = Fields {
        entries: Vec::new(),
        typos: Vec::new(),
        pos: node.pos,
    };
    let mut problems = Vec::new();
    let mut seen: Vec<(&str, Pos)> = Vec::new();
    for (k, v) in entries {
        let Kind::Str(key) = &k.kind else {
            problems.push(Found::at(
                k.pos,
                None,
                format!(
                    "a key of {what} is a name, found {}; the keys are {}",
                    k.type_name(),
                    quoted_list(known)
                ),
            ));
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == key.as_str()) {
            problems.push(Found::at(
                k.pos,
                Some(key),
                format!("duplicate key `{key}` in {what} (first written at {first}); keep one"),
            ));
            continue;
        }
        seen.push((key, k.pos));
        if !known.contains(&key.as_str()) {
            let message = match (advice(key, known), did_you_mean(key, known)) {
                (Some(advice), _) => format!("unknown key `{key}` in {what}; {advice}"),
                (None, Some(g)) => {
                    fields.typos.push(g);
                    format!("unknown key `{key}` in {what}; did you mean `{g}`?")
                }
                (None, None) => format!(
                    "unknown key `{key}` in {what}; the keys are {}",
                    quoted_list(known)
                ),
            };
            problems.push(Found::at(k.pos, Some(key), message));
            continue;
        }
        fields.entries.push((key.as_str(), k, v));
    }
    Ok((fields, problems))
}

/// A node as JSON.
///
/// # Errors
///
/// A number that is not finite, or a map key that is a collection.
pub fn json(node: &Node) -> Result<Value, Found> {
    node.to_json().map_err(|e| match e {
        NotJson::NonFinite { pos, value } => Found::at(
            pos,
            None,
            format!("{value} is not a JSON number; write a finite number"),
        ),
        NotJson::CollectionKey { pos, found } => {
            Found::at(pos, None, format!("a JSON key is a string, found {found}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse};

    fn node(text: &str) -> Node {
        parse(
            text,
            Limits {
                max_depth: 8,
                max_bytes: 4096,
            },
        )
        .unwrap()
    }

    #[test]
    fn keys_are_checked_once_with_the_same_words() {
        let n = node("a: 1\n? [x]\n: 2\nzzz: 3\nb: 4\n");
        let (f, found) = map(&n, "a block", &["a", "b"], |_, _| None).unwrap();
        assert_eq!(f.entries.len(), 2);
        assert!(f.missing("c"));
        assert!(!f.missing("a"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0]
                .message
                .starts_with("a key of a block is a name, found a list")
        );
        assert_eq!(
            found[1].message,
            "unknown key `zzz` in a block; the keys are `a`, `b`"
        );
        let advice = |k: &str, _: &[&'static str]| (k == "zzz").then(|| "write `a`".to_string());
        let (_, found) = map(&n, "a block", &["a", "b"], advice).unwrap();
        assert_eq!(found[1].message, "unknown key `zzz` in a block; write `a`");
        let err = map(&node("[1]"), "a block", &["a"], |_, _| None).unwrap_err();
        assert_eq!(err.message, "a block is a map of keys (`a`), found a list");
        let null = node("null");
        let (f, found) = map(&null, "a block", &["a"], |_, _| None).unwrap();
        assert!(f.entries.is_empty() && found.is_empty());
    }

    #[test]
    fn types_and_json() {
        assert_eq!(
            wrong_type("`runs`", &node("five"), "a whole number", "write `runs: 5`"),
            "`runs` must be a whole number, found a string `five`; write `runs: 5`"
        );
        assert_eq!(found(&node("[1]")), "a list");
        assert_eq!(
            json(&node("{a: [1, 2.5]}")).unwrap(),
            serde_json::json!({"a": [1, 2.5]})
        );
        let err = json(&node("{[1]: 2}")).unwrap_err();
        assert!(err.message.starts_with("a JSON key is a string"), "{err:?}");
    }
}
