//! Structural equality of JSON values (a streamed tool input and the one
//! its assistant event carries), between two borrowed [`Value`]s or between
//! a `serde_json` value and a borrowed one, and conversion to `serde_json`
//! (for the few fields kept as JSON).
//!
//! Both equalities follow the same rules: `serde_json`'s reading of the
//! first value (an object keeps the last of a key given twice), compared
//! with every entry of the second.

use crate::json::{Number, Value, ValueKind};
use serde_json::Value as J;

/// True when `a` and `b` hold the same JSON: same kinds, equal scalars
/// (numbers compared exactly when both are integers, as f64 otherwise),
/// arrays element by element, objects with the same keys and values.
pub(crate) fn same_json(a: &J, b: &Value<'_>) -> bool {
    match (a, b.kind()) {
        (J::Null, ValueKind::Null) => true,
        (J::Bool(x), ValueKind::Bool) => b.as_bool() == Some(*x),
        (J::String(s), ValueKind::String) => b.as_str() == Some(s.as_str()),
        (J::Number(n), ValueKind::Number) => {
            same_number((n.as_u64(), n.as_i64(), n.as_f64()), b.number())
        }
        (J::Array(xs), ValueKind::Array) => {
            xs.len() == b.len() && xs.iter().zip(b.elements()).all(|(x, y)| same_json(x, &y))
        }
        (J::Object(m), ValueKind::Object) => {
            m.len() == b.len()
                && b.entries()
                    .all(|(k, v)| m.get(k).is_some_and(|x| same_json(x, &v)))
        }
        _ => false,
    }
}

/// A number as `serde_json` reads it (its `as_u64`, `as_i64`, `as_f64`)
/// against a parsed one: integers exactly when both are u64 or both i64,
/// as f64 otherwise.
fn same_number(a: (Option<u64>, Option<i64>, Option<f64>), b: Option<Number<'_>>) -> bool {
    match (a, b) {
        ((Some(x), _, _), Some(Number::U64(y))) => x == y,
        ((_, Some(x), _), Some(Number::I64(y))) => x == y,
        ((_, _, x), Some(y)) => x == Some(y.to_f64()),
        _ => false,
    }
}

/// Rewrites of a streamed tool input's top-level object undone before
/// comparing it (see `run::partial`): an entry `"replace_all": false` added,
/// the `command` entry replaced.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rewrite<'s> {
    /// The object gains `"replace_all": false` (it has no such key).
    pub(crate) replace_all: bool,
    /// The object's `command` reads as this string.
    pub(crate) command: Option<&'s str>,
}

/// True when `a` holds the same JSON as `b`, read as [`same_json`] reads
/// `serde_json`'s reading of `a`'s text. `a` must hold no big number
/// (see [`Value::number`]); the caller checks.
pub(crate) fn same_value(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (ValueKind::Null, ValueKind::Null) => true,
        (ValueKind::Bool, ValueKind::Bool) => a.as_bool() == b.as_bool(),
        (ValueKind::String, ValueKind::String) => same_str(a, b),
        (ValueKind::Number, ValueKind::Number) => {
            let x = match a.number() {
                Some(Number::U64(x)) => (Some(x), i64::try_from(x).ok(), Some(x as f64)),
                Some(Number::I64(x)) => (None, Some(x), Some(x as f64)),
                Some(Number::F64(x)) => (None, None, Some(x)),
                Some(Number::Big(_)) | None => return false,
            };
            same_number(x, b.number())
        }
        (ValueKind::Array, ValueKind::Array) => {
            a.len() == b.len()
                && a.elements()
                    .zip(b.elements())
                    .all(|(x, y)| same_value(&x, &y))
        }
        (ValueKind::Object, ValueKind::Object) => same_entries(a, b, Rewrite::default()),
        _ => false,
    }
}

/// Two strings with the same text, compared as written where that decides
/// it (the same bytes with the same escaping, or neither escaped), decoded
/// only otherwise: a long tool input is not unescaped to be compared.
fn same_str(a: &Value<'_>, b: &Value<'_>) -> bool {
    let (Some(x), Some(y)) = (a.as_raw_str(), b.as_raw_str()) else {
        return false;
    };
    match (x.has_escapes(), y.has_escapes()) {
        (false, false) => x.raw() == y.raw(),
        (true, true) if x.raw() == y.raw() => true,
        (true, false) => y.as_str().is_some_and(|t| x.str_eq(t)),
        (false, true) => x.as_str().is_some_and(|t| y.str_eq(t)),
        (true, true) => a.as_str() == b.as_str(),
    }
}

/// Two objects equal (after undoing `rewrite` on `a`): as many distinct keys
/// in `a` as entries in `b`, and each entry of `b` equal to the last entry
/// of `a` with its key. Quadratic in the number of keys: callers bound it.
pub(crate) fn same_entries(a: &Value<'_>, b: &Value<'_>, rewrite: Rewrite<'_>) -> bool {
    if a.kind() != ValueKind::Object || b.kind() != ValueKind::Object {
        return false;
    }
    let distinct = a
        .entries()
        .enumerate()
        .filter(|&(i, (k, _))| !a.entries().skip(i + 1).any(|(l, _)| l == k))
        .count();
    if distinct + usize::from(rewrite.replace_all) != b.len() {
        return false;
    }
    b.entries().all(|(k, v)| match (k, rewrite.command) {
        ("replace_all", _) if rewrite.replace_all => v.as_bool() == Some(false),
        ("command", Some(c)) => v.as_str() == Some(c),
        (k, _) => last_entry(a, k).is_some_and(|x| same_value(&x, &v)),
    })
}

/// The value of the last entry of object `a` with key `key` (the one
/// `serde_json` keeps).
pub(crate) fn last_entry<'d>(a: &Value<'d>, key: &str) -> Option<Value<'d>> {
    a.entries()
        .filter(|(k, _)| *k == key)
        .last()
        .map(|(_, v)| v)
}

/// A borrowed value as an owned `serde_json::Value` (numbers beyond u64,
/// i64 and f64 become their text as a string).
pub(crate) fn to_serde(v: &Value<'_>) -> J {
    match v.kind() {
        ValueKind::Null => J::Null,
        ValueKind::Bool => J::Bool(v.as_bool().unwrap_or_default()),
        ValueKind::String => J::String(v.as_str().unwrap_or_default().to_string()),
        ValueKind::Number => match v.number() {
            Some(Number::U64(n)) => J::from(n),
            Some(Number::I64(n)) => J::from(n),
            Some(Number::F64(f)) => serde_json::Number::from_f64(f).map_or(J::Null, J::Number),
            Some(Number::Big(s)) => J::String(s.to_string()),
            None => J::Null,
        },
        ValueKind::Array => J::Array(v.elements().map(|e| to_serde(&e)).collect()),
        ValueKind::Object => J::Object(
            v.entries()
                .map(|(k, e)| (k.to_string(), to_serde(&e)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::Lines;
    use crate::json::Scanner;

    #[test]
    fn equality_and_conversion() {
        let mut p = Scanner::new();
        let src = br#"{"a":[1,-2,2.5,"x",null,true,{"k":{}}],"b":18446744073709551616}"#;
        let line = Lines::new(src).next().unwrap();
        let root = p.validate(&line).unwrap();
        let a = root.get("a").unwrap();
        let j: J = serde_json::from_str(r#"[1,-2,2.5,"x",null,true,{"k":{}}]"#).unwrap();
        assert!(same_json(&j, &a));
        let k: J = serde_json::from_str(r#"[1,-2,2.5,"x",null,true,{"k":[]}]"#).unwrap();
        assert!(!same_json(&k, &a));
        assert_eq!(to_serde(&a), j);
        assert_eq!(
            to_serde(&root.get("b").unwrap()),
            J::from("18446744073709551616")
        );
    }
}
