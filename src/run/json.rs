//! Between cctape's borrowed [`Value`] and `serde_json`: structural
//! equality and conversion (for the few fields kept as JSON).

use crate::parse::{Number, Value, ValueKind};
use serde_json::Value as J;

/// True when `a` and `b` hold the same JSON: same kinds, equal scalars
/// (numbers compared exactly when both are integers, as f64 otherwise),
/// arrays element by element, objects with the same keys and values.
pub(crate) fn same_json(a: &J, b: &Value<'_>) -> bool {
    match (a, b.kind()) {
        (J::Null, ValueKind::Null) => true,
        (J::Bool(x), ValueKind::Bool) => b.as_bool() == Some(*x),
        (J::String(s), ValueKind::String) => b.as_str() == Some(s.as_str()),
        (J::Number(n), ValueKind::Number) => match (n.as_u64(), n.as_i64(), b.number()) {
            (Some(x), _, Some(Number::U64(y))) => x == y,
            (_, Some(x), Some(Number::I64(y))) => x == y,
            (_, _, Some(y)) => n.as_f64() == Some(y.to_f64()),
            _ => false,
        },
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
    use crate::parse::Parser;

    #[test]
    fn equality_and_conversion() {
        let mut p = Parser::new();
        let src = br#"{"a":[1,-2,2.5,"x",null,true,{"k":{}}],"b":18446744073709551616}"#;
        let line = Lines::new(src).next().unwrap();
        let d = p.parse(&line).unwrap();
        let root = d.root();
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
