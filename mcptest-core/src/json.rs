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
    let int = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
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
                out.push_str(&Value::String(k.clone()).to_string());
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
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                out.push_str(&(f as i64).to_string())
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}
