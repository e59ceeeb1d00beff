//! Secrets in cassettes: removing them at record time and finding any that survive.
//!
//! A cassette is meant to be committed, so nothing secret may reach it. Two kinds of secret
//! are recognised:
//!
//! * **Known values**: the values of secret environment variables (the model API key, every
//!   variable a suite's `servers:` entry passes to a server, any variable whose name says it
//!   holds a key, token, secret or password). Each occurrence, anywhere in any string, becomes
//!   the placeholder `<redacted:NAME>`. Values shorter than [`MIN_SECRET_LEN`] characters are
//!   left alone: they are too short to be a credential and too common (`1`, `info`) to replace
//!   safely.
//! * **Patterns**: credentials recognisable by their shape ([`PATTERNS`]): Anthropic keys
//!   (`sk-ant-...`), OpenAI-style keys (`sk-...`), GitHub tokens (`ghp_...`, `github_pat_...`),
//!   `Bearer ...` tokens, AWS access key ids, Slack tokens and PEM private keys. Each match
//!   becomes `<redacted:KIND>`.
//!
//! [`Redactor`] does the replacing (the recorder runs it over every cassette before writing);
//! [`scan`] finds what survives and names its JSON path (what `mcptest cassette lint` reports).
//! Both are pure: the caller collects the environment.
//!
//! ```
//! use mcptest_core::secrets::{Redactor, SecretValue, scan};
//! use serde_json::json;
//!
//! let key = SecretValue::new("ANTHROPIC_API_KEY", "k-live-0123456789");
//! let redactor = Redactor::new(vec![key.clone()]);
//! let mut cassette = json!({"note": "key k-live-0123456789, token ghp_abcdefghijklmnopqrstuvwx"});
//! redactor.redact(&mut cassette);
//! assert_eq!(
//!     cassette["note"],
//!     "key <redacted:ANTHROPIC_API_KEY>, token <redacted:github-token>"
//! );
//! assert!(scan(&cassette, &[key]).is_empty());
//!
//! let leaked = json!({"runs": [{"headers": {"authorization": "Bearer abc.def.ghi.jkl"}}]});
//! let found = scan(&leaked, &[]);
//! assert_eq!(found[0].path, "runs[0].headers.authorization");
//! assert_eq!(found[0].what, "a bearer token");
//! ```

use crate::trace::{JsonPath, PathSegment};
use regex::Regex;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::OnceLock;

/// Known secret values shorter than this many characters are not replaced or reported.
pub const MIN_SECRET_LEN: usize = 8;

/// One recognisable credential shape.
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    /// The kind, used in the placeholder (`<redacted:anthropic-key>`).
    pub kind: &'static str,
    /// What a report calls it (`an Anthropic API key`).
    pub description: &'static str,
    /// The regular expression.
    pub regex: &'static str,
}

/// The credential shapes every cassette is scanned for, most specific first.
pub const PATTERNS: &[Pattern] = &[
    Pattern {
        kind: "anthropic-key",
        description: "an Anthropic API key (sk-ant-...)",
        regex: r"sk-ant-[A-Za-z0-9_\-]{8,}",
    },
    Pattern {
        kind: "api-key",
        description: "an API key (sk-...)",
        regex: r"\bsk-[A-Za-z0-9_\-]{16,}",
    },
    Pattern {
        kind: "github-token",
        description: "a GitHub token",
        regex: r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    },
    Pattern {
        kind: "bearer-token",
        description: "a bearer token",
        regex: r"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{8,}=*",
    },
    Pattern {
        kind: "aws-access-key",
        description: "an AWS access key id",
        regex: r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    },
    Pattern {
        kind: "slack-token",
        description: "a Slack token",
        regex: r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
    },
    Pattern {
        kind: "private-key",
        description: "a PEM private key",
        regex: r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    },
];

fn compiled() -> &'static [(Pattern, Regex)] {
    static COMPILED: OnceLock<Vec<(Pattern, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        PATTERNS
            .iter()
            .filter_map(|p| Regex::new(p.regex).ok().map(|r| (*p, r)))
            .collect()
    })
}

/// The placeholder a redacted secret becomes: `<redacted:NAME>`.
pub fn placeholder(name: &str) -> String {
    format!("<redacted:{name}>")
}

/// True when an environment variable's name says it holds a credential: one of its
/// `_`-separated words is `KEY`, `APIKEY`, `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`,
/// `CREDENTIAL(S)`, `AUTH`, `PAT`, `COOKIE` or `SESSION` (any case).
///
/// ```
/// use mcptest_core::secrets::is_secret_name;
/// assert!(is_secret_name("ANTHROPIC_API_KEY"));
/// assert!(is_secret_name("github_token"));
/// assert!(!is_secret_name("PATH"));
/// assert!(!is_secret_name("KEYBOARD_LAYOUT"));
/// ```
pub fn is_secret_name(name: &str) -> bool {
    name.split(['_', '-', '.']).any(|word| {
        matches!(
            word.to_ascii_uppercase().as_str(),
            "KEY"
                | "APIKEY"
                | "TOKEN"
                | "SECRET"
                | "PASSWORD"
                | "PASSWD"
                | "CREDENTIAL"
                | "CREDENTIALS"
                | "AUTH"
                | "PAT"
                | "COOKIE"
                | "SESSION"
        )
    })
}

/// A secret value and the name of the environment variable that held it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretValue {
    /// The variable's name (it names the placeholder).
    pub name: String,
    /// Its value.
    pub value: String,
}

impl SecretValue {
    /// A named secret value.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        SecretValue {
            name: name.into(),
            value: value.into(),
        }
    }

    fn usable(&self) -> bool {
        self.value.trim().chars().count() >= MIN_SECRET_LEN
    }
}

/// Replaces known secret values and credential patterns in JSON values.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    values: Vec<SecretValue>,
}

impl Redactor {
    /// A redactor for these known values (values shorter than [`MIN_SECRET_LEN`] are ignored)
    /// and every pattern of [`PATTERNS`].
    pub fn new(values: Vec<SecretValue>) -> Self {
        let mut values: Vec<SecretValue> = values.into_iter().filter(SecretValue::usable).collect();
        // Longest first, so a value containing another is replaced whole.
        values.sort_by(|a, b| b.value.len().cmp(&a.value.len()).then(a.name.cmp(&b.name)));
        values.dedup_by(|a, b| a.value == b.value);
        Redactor { values }
    }

    /// The known values this redactor replaces.
    pub fn values(&self) -> &[SecretValue] {
        &self.values
    }

    /// `s` with every secret replaced; borrowed when nothing was found.
    pub fn redact_str<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for v in &self.values {
            if out.contains(v.value.as_str()) {
                out = Cow::Owned(out.replace(v.value.as_str(), &placeholder(&v.name)));
            }
        }
        for (p, re) in compiled() {
            if re.is_match(&out) {
                let replaced = re.replace_all(&out, |caps: &regex::Captures<'_>| {
                    let whole = caps.get(0).map_or("", |m| m.as_str());
                    if p.kind == "bearer-token" {
                        // Keep the scheme word so the text still reads as a header.
                        let scheme: String =
                            whole.chars().take_while(|c| c.is_alphabetic()).collect();
                        format!("{scheme} {}", placeholder(p.kind))
                    } else {
                        placeholder(p.kind)
                    }
                });
                out = Cow::Owned(replaced.into_owned());
            }
        }
        out
    }

    /// Replaces secrets in every string of `value`, object keys included.
    pub fn redact(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Cow::Owned(new) = self.redact_str(s) {
                    *s = new;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact(v)),
            Value::Object(map) => {
                let needs_key_change = map
                    .keys()
                    .any(|k| matches!(self.redact_str(k), Cow::Owned(_)));
                if needs_key_change {
                    let old = std::mem::take(map);
                    let mut new = Map::with_capacity(old.len());
                    for (k, mut v) in old {
                        self.redact(&mut v);
                        new.insert(self.redact_str(&k).into_owned(), v);
                    }
                    *map = new;
                } else {
                    map.values_mut().for_each(|v| self.redact(v));
                }
            }
            _ => {}
        }
    }
}

/// A secret found in a value: where, and what it looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The JSON path of the string holding it (`runs[0].exchanges[1].request.headers.x-api-key`).
    pub path: String,
    /// What was found (`an Anthropic API key (sk-ant-...)`, `the value of GITHUB_TOKEN`).
    pub what: String,
}

/// Every secret in `value`: known values (at least [`MIN_SECRET_LEN`] characters) and
/// [`PATTERNS`], in document order, one finding per string and kind. Placeholders never match.
pub fn scan(value: &Value, known: &[SecretValue]) -> Vec<Finding> {
    let known: Vec<&SecretValue> = known.iter().filter(|v| v.usable()).collect();
    let mut out = Vec::new();
    let mut path = Vec::new();
    scan_into(value, &known, &mut path, &mut out);
    out
}

fn scan_into(
    value: &Value,
    known: &[&SecretValue],
    path: &mut Vec<PathSegment>,
    out: &mut Vec<Finding>,
) {
    match value {
        Value::String(s) => scan_str(s, known, path, out),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(PathSegment::Index(i));
                scan_into(v, known, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(PathSegment::Key(k.clone()));
                scan_str(k, known, path, out);
                scan_into(v, known, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn scan_str(s: &str, known: &[&SecretValue], path: &[PathSegment], out: &mut Vec<Finding>) {
    let at = || {
        JsonPath {
            segments: path.to_vec(),
        }
        .to_string()
    };
    for v in known {
        if s.contains(v.value.as_str()) {
            out.push(Finding {
                path: at(),
                what: format!("the value of {}", v.name),
            });
        }
    }
    // A match inside one already found (an `sk-ant-` key is also `sk-...`-shaped) is the
    // same secret: report it once, under the most specific kind.
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for (p, re) in compiled() {
        let mut found = false;
        for m in re.find_iter(s) {
            if taken.iter().any(|&(a, b)| m.start() < b && a < m.end()) {
                continue;
            }
            taken.push((m.start(), m.end()));
            found = true;
        }
        if found {
            out.push(Finding {
                path: at(),
                what: p.description.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patterns_compile() {
        assert_eq!(compiled().len(), PATTERNS.len());
    }

    #[test]
    fn redacts_patterns_and_values() {
        let r = Redactor::new(vec![
            SecretValue::new("SHORT", "abc"),
            SecretValue::new("DB_PASSWORD", "hunter2hunter2"),
        ]);
        let mut v = json!({
            "a": "sk-ant-api03-AAAAAAAAAAAAAAAA and sk-proj-BBBBBBBBBBBBBBBBBBBB",
            "b": ["Authorization: Bearer eyJhbGciOi.payload.sig", "abc stays"],
            "hunter2hunter2": "key with a secret",
            "c": "AKIAABCDEFGHIJKLMNOP xoxb-1234567890-abc",
        });
        r.redact(&mut v);
        assert_eq!(v["a"], "<redacted:anthropic-key> and <redacted:api-key>");
        assert_eq!(v["b"][0], "Authorization: Bearer <redacted:bearer-token>");
        assert_eq!(v["b"][1], "abc stays");
        assert_eq!(v["<redacted:DB_PASSWORD>"], "key with a secret");
        assert_eq!(v["c"], "<redacted:aws-access-key> <redacted:slack-token>");
        assert!(
            scan(&v, r.values()).is_empty(),
            "{:?}",
            scan(&v, r.values())
        );
    }

    #[test]
    fn ordinary_text_is_not_a_secret() {
        let v = json!({"text": "task-runner desk-lamp sk-short bearer of news a_key"});
        assert!(scan(&v, &[]).is_empty());
        let r = Redactor::default();
        assert!(matches!(r.redact_str("task-runner sk-1"), Cow::Borrowed(_)));
    }

    #[test]
    fn scan_names_paths_and_kinds() {
        let known = [SecretValue::new("SERVICE_TOKEN", "tok-0123456789")];
        let v = json!({"runs": [{"meta": {"env": "tok-0123456789"}, "x": ["ghp_0123456789abcdefghijKLMN"]}]});
        let found = scan(&v, &known);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].path, "runs[0].meta.env");
        assert_eq!(found[0].what, "the value of SERVICE_TOKEN");
        assert_eq!(found[1].path, "runs[0].x[0]");
        assert_eq!(found[1].what, "a GitHub token");
        let one = scan(&json!("sk-ant-api03-abcdefghijklmnopqrstu"), &[]);
        assert_eq!(one.len(), 1, "{one:?}");
    }

    #[test]
    fn longest_value_wins() {
        let r = Redactor::new(vec![
            SecretValue::new("A", "abcdefgh"),
            SecretValue::new("B", "abcdefgh-longer"),
        ]);
        assert_eq!(r.redact_str("x abcdefgh-longer y"), "x <redacted:B> y");
    }
}
