//! Attribute lists and ids: the small builders the span and metric
//! modules share.

use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};
use twox_hash::XxHash3_128;

/// A list of OTLP attributes under construction.
#[derive(Default)]
pub(super) struct Attrs(pub(super) Vec<KeyValue>);

impl Attrs {
    fn push(&mut self, key: &str, value: Value) {
        self.0.push(KeyValue {
            key: key.to_owned(),
            value: Some(AnyValue { value: Some(value) }),
            ..KeyValue::default()
        });
    }

    /// A string attribute.
    pub(super) fn str(&mut self, key: &str, v: &str) -> &mut Attrs {
        self.push(key, Value::StringValue(v.to_owned()));
        self
    }

    /// A string attribute when there is a value.
    pub(super) fn opt(&mut self, key: &str, v: Option<&str>) -> &mut Attrs {
        if let Some(v) = v {
            self.str(key, v);
        }
        self
    }

    /// An integer attribute (saturating at `i64::MAX`).
    pub(super) fn int(&mut self, key: &str, v: u64) -> &mut Attrs {
        self.push(key, Value::IntValue(i64::try_from(v).unwrap_or(i64::MAX)));
        self
    }

    /// A floating-point attribute when there is a finite value.
    pub(super) fn float(&mut self, key: &str, v: Option<f64>) -> &mut Attrs {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            self.push(key, Value::DoubleValue(v));
        }
        self
    }

    /// The attributes.
    pub(super) fn take(&mut self) -> Vec<KeyValue> {
        std::mem::take(&mut self.0)
    }
}

/// The XXH3-128 of the parts, each followed by a 0 byte (so that `("ab",
/// "c")` and `("a", "bc")` differ).
pub(super) fn hash(parts: &[&[u8]]) -> u128 {
    let mut h = XxHash3_128::new();
    for p in parts {
        h.write(p);
        h.write(&[0]);
    }
    h.finish_128()
}

/// A trace id (16 bytes, never all zero).
pub(super) fn trace_id(parts: &[&[u8]]) -> Vec<u8> {
    let h = hash(parts).max(1);
    h.to_be_bytes().to_vec()
}

/// A span id (8 bytes, never all zero).
pub(super) fn span_id(parts: &[&[u8]]) -> Vec<u8> {
    let h = (hash(parts) as u64).max(1);
    h.to_be_bytes().to_vec()
}

/// Milliseconds since the epoch as OTLP's nanoseconds (0 before 1970).
pub(super) fn nanos(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).saturating_mul(1_000_000)
}
