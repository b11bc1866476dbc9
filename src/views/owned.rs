//! Owned copies: a borrowed [`Value`] (or any view) as a
//! [`serde_json::Value`] that outlives the line, for callers who keep events
//! or re-emit them as normalized JSON.

use super::Answer;
use crate::json::{Number, Value, ValueKind};

/// An owned copy of `v`.
///
/// - Objects keep the first of duplicated keys (as [`Value::get`] does);
///   their keys come out sorted (serde_json's map without `preserve_order`).
/// - Integers that fit u64 or i64 and finite floats are JSON numbers.
/// - A number beyond those ranges ([`Number::Big`], e.g. `18446744073709551616`
///   or `1e400`) becomes a JSON **string** holding the number's exact
///   original text: serde_json is built without `arbitrary_precision`, and a
///   string keeps every digit where an f64 would round or overflow.
///
/// ```
/// use cctape::SliceEvents;
/// use cctape::views::to_json;
///
/// let mut events = SliceEvents::new(br#"{"type":"system","n":18446744073709551616,"a":[1,-2,0.5,null,true]}"#);
/// let ev = events.next_event().unwrap().unwrap();
/// let owned = to_json(ev.root());
/// assert_eq!(owned["n"], "18446744073709551616");
/// assert_eq!(owned["a"], serde_json::json!([1, -2, 0.5, null, true]));
/// ```
pub fn to_json(v: Value<'_>) -> serde_json::Value {
    use serde_json::Value as J;
    match v.kind() {
        ValueKind::Null => J::Null,
        ValueKind::Bool => J::Bool(v.as_bool().unwrap_or_default()),
        ValueKind::String => J::String(v.as_str().unwrap_or_default().to_owned()),
        ValueKind::Number => match v.number() {
            Some(Number::U64(n)) => J::from(n),
            Some(Number::I64(n)) => J::from(n),
            Some(Number::F64(f)) => serde_json::Number::from_f64(f).map_or(J::Null, J::Number),
            Some(Number::Big(text)) => J::String(text.to_owned()),
            None => J::Null,
        },
        ValueKind::Array => J::Array(v.elements().map(to_json).collect()),
        ValueKind::Object => {
            let mut m = serde_json::Map::new();
            for (k, x) in v.entries() {
                if !m.contains_key(k) {
                    m.insert(k.to_owned(), to_json(x));
                }
            }
            J::Object(m)
        }
    }
}

/// Turn any view (or accessor result) into an owned [`serde_json::Value`];
/// absent readings become `null`.
pub trait ToOwnedJson {
    /// The owned copy.
    fn to_owned_json(&self) -> serde_json::Value;
}

impl<'d, T: Answer<'d>> ToOwnedJson for T {
    fn to_owned_json(&self) -> serde_json::Value {
        self.to_json().unwrap_or(serde_json::Value::Null)
    }
}
