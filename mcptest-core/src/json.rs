//! JSON helpers with the data-model semantics every check shares.
//!
//! * [`json_eq`]: deep equality where numbers compare by value (`1 == 1.0`), but types never mix
//!   (`1 != true`, `1 != "1"`), and a `null` value is not a missing key.
//! * [`canonical`]: a canonical text of a value (object keys sorted, numbers normalized), used
//!   wherever arguments are compared or hashed, so key order never matters.

use crate::fasthash::FastHasher;
use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::hash::Hasher;

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

/// Deep equality with JSON number semantics: `{"n": 1}` equals `{"n": 1.0}`, `1` is not
/// `true`, and `{"a": null}` is not `{}`.
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
/// integers (`1.0` -> `1`), so equal values (under [`json_eq`]) give equal text:
/// `{"b": 1.0, "a": [true, "x"]}` is `{"a":[true,"x"],"b":1}`.
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
            Some(i) => {
                let _ = write!(out, "{i}");
            }
            None => {
                let _ = write!(out, "{n}");
            }
        },
        Value::String(s) => write_string(s, out),
        other => out.push_str(&other.to_string()),
    }
}

/// A 64-bit hash consistent with [`json_eq`]: equal values hash equally, whatever their key
/// order or number spelling (`1` and `1.0`). Object entries are combined order-independently,
/// so nothing is sorted or allocated.
pub fn hash_value(v: &Value) -> u64 {
    match v {
        Value::Null => 0x6e75_6c6c,
        Value::Bool(b) => mix(0xb001 + u64::from(*b)),
        Value::Number(n) => match exact_int(n) {
            Some(i) => mix(0x1_0000 ^ (i as u64) ^ ((i >> 64) as u64).rotate_left(17)),
            None => mix(0x2_0000 ^ n.as_f64().map_or(0, f64::to_bits)),
        },
        Value::String(s) => hash_str(0x5354_5200, s),
        Value::Array(items) => {
            let mut h = mix(0xa11a_0000 + items.len() as u64);
            for item in items {
                h = mix(h ^ hash_value(item)).wrapping_add(0x9e37_79b9_7f4a_7c15);
            }
            h
        }
        Value::Object(map) => {
            let mut sum = 0u64;
            for (k, v) in map {
                sum = sum.wrapping_add(mix(hash_str(0x6b00, k) ^ hash_value(v).rotate_left(29)));
            }
            mix(sum ^ (0x0b1e_c700 + map.len() as u64))
        }
    }
}

fn hash_str(seed: u64, s: &str) -> u64 {
    let mut h = FastHasher::default();
    h.write_u64(seed);
    h.write(s.as_bytes());
    h.finish()
}

/// A 64-bit finalizer (splitmix64).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
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

/// The values of `keys` in `obj`, found in one pass over its entries instead of one hashed
/// lookup per key: on the small objects of a trace (a call, a turn) this is several times
/// cheaper.
pub(crate) fn fields<'a, const N: usize>(
    obj: &'a Map<String, Value>,
    keys: [&str; N],
) -> [Option<&'a Value>; N] {
    let mut found = [None; N];
    let mut missing = N;
    for (key, value) in obj {
        // Compared inline (a short key is one or two loads), not by a call into the C library.
        let same = |k: &&str| crate::fasthash::same_bytes(k.as_bytes(), key.as_bytes());
        if let Some(i) = keys.iter().position(same) {
            found[i] = Some(value);
            missing -= 1;
            // An object's keys are distinct: once every key is found, no entry left matters.
            if missing == 0 {
                break;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_examples() {
        use serde_json::json;
        assert!(json_eq(&json!({"n": 1}), &json!({"n": 1.0})));
        assert!(!json_eq(&json!(1), &json!(true)));
        assert!(!json_eq(&json!({"a": null}), &json!({})));
        assert_eq!(
            canonical(&json!({"b": 1.0, "a": [true, "x"]})),
            r#"{"a":[true,"x"],"b":1}"#
        );
    }
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
            (
                json!({"b": [1.0], "a": null}),
                json!({"a": null, "b": [1]}),
                true,
            ),
        ];
        for (a, b, eq) in pairs {
            assert_eq!(json_eq(&a, &b), eq, "{a} {b}");
            assert_eq!(canonical(&a) == canonical(&b), eq, "{a} {b}");
            if eq {
                assert_eq!(hash_value(&a), hash_value(&b), "{a} {b}");
            }
        }
        assert_ne!(
            hash_value(&json!({"a": 1, "b": 2})),
            hash_value(&json!({"a": 2, "b": 1}))
        );
        assert_ne!(hash_value(&json!([1, 2])), hash_value(&json!([2, 1])));
        let s = json!("quote\" back\\ nl\n tab\t ctl\u{1f} é");
        assert_eq!(canonical(&s), s.to_string());
    }
}
