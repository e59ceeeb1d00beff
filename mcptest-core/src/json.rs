//! JSON helpers with the data-model semantics every check shares.
//!
//! * [`json_eq`]: deep equality where numbers compare by value (`1 == 1.0`), but types never mix
//!   (`1 != true`, `1 != "1"`), and a `null` value is not a missing key.
//! * [`canonical`]: a canonical text of a value (object keys sorted, numbers normalized), used
//!   wherever arguments are compared or hashed, so key order never matters.

use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Compares two JSON numbers by their mathematical value.
///
/// Integers compare exactly (no loss above 2^53); a float against anything compares as `f64`.
pub fn number_eq(a: &Number, b: &Number) -> bool {
    number_cmp(a, b) == Some(Ordering::Equal)
}

fn number_cmp(a: &Number, b: &Number) -> Option<Ordering> {
    match (exact_int(a), exact_int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// The number as an exact integer: an integer, or an integral float within range (so that
/// `1.0` compares exactly with `1`, and a float never equals a nearby large integer by rounding).
fn exact_int(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 1.0e38).then_some(f as i128)
}

/// Deep equality with JSON number semantics.
///
/// ```
/// use mcptest_core::json::json_eq;
/// use serde_json::json;
/// assert!(json_eq(&json!({"n": 1}), &json!({"n": 1.0})));
/// assert!(!json_eq(&json!(1), &json!(true)));
/// assert!(!json_eq(&json!({"a": null}), &json!({})));
/// ```
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => false,
    }
}

/// The name of a value's JSON type, for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A canonical text of `v`: object keys sorted, no whitespace, integral floats written as
/// integers (`1.0` -> `1`), so equal values (under [`json_eq`]) give equal text.
///
/// ```
/// use mcptest_core::json::canonical;
/// use serde_json::json;
/// assert_eq!(canonical(&json!({"b": 1.0, "a": [true, "x"]})), r#"{"a":[true,"x"],"b":1}"#);
/// ```
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(n) => match exact_int(n) {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&n.to_string()),
        },
        Value::String(s) => write_string(s, out),
        other => out.push_str(&other.to_string()),
    }
}

/// Writes `s` as a JSON string literal (the same escapes serde_json uses).
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_text_agrees_with_equality() {
        let pairs = [
            (json!(1), json!(1.0), true),
            (json!(-0.0), json!(0), true),
            (json!(1.5), json!(1.5), true),
            (json!(10000000000000000001u64), json!(1e19), false),
            (json!(1), json!(true), false),
            (json!("a\"b\n\u{1}"), json!("a\"b\n\u{1}"), true),
            (json!({"b": [1.0], "a": null}), json!({"a": null, "b": [1]}), true),
        ];
        for (a, b, eq) in pairs {
            assert_eq!(json_eq(&a, &b), eq, "{a} {b}");
            assert_eq!(canonical(&a) == canonical(&b), eq, "{a} {b}");
        }
        let s = json!("quote\" back\\ nl\n tab\t ctl\u{1f} é");
        assert_eq!(canonical(&s), s.to_string());
    }
}
