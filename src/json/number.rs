//! JSON types and numbers, as every backend reads them.

use std::fmt;

/// The JSON type of a [`Value`](crate::json::Value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// A number of any size.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A JSON number as read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number<'d> {
    /// A non-negative integer that fits u64.
    U64(u64),
    /// A negative integer that fits i64.
    I64(i64),
    /// A number with a fraction or exponent that fits f64.
    F64(f64),
    /// A number beyond u64/i64 (integers) or f64 (others): its text.
    Big(&'d str),
}

/// Why a number could not be read as the integer asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberError {
    /// The value is not a number.
    NotANumber,
    /// The number has a fraction or an exponent.
    NotAnInteger,
    /// The integer is outside the asked type's range.
    DoesNotFit,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberError::NotANumber => "not a number",
            NumberError::NotAnInteger => "not an integer",
            NumberError::DoesNotFit => "does not fit",
        })
    }
}

impl std::error::Error for NumberError {}

impl<'d> Number<'d> {
    /// The number as f64 (big numbers are parsed from their text; beyond
    /// f64 they read as infinite).
    pub fn to_f64(self) -> f64 {
        match self {
            Number::U64(v) => v as f64,
            Number::I64(v) => v as f64,
            Number::F64(v) => v,
            Number::Big(s) => s.parse::<f64>().unwrap_or(f64::NAN),
        }
    }

    /// The number as u64, or why not.
    pub fn to_u64(self) -> Result<u64, NumberError> {
        match self {
            Number::U64(v) => Ok(v),
            Number::I64(v) => u64::try_from(v).map_err(|_| NumberError::DoesNotFit),
            Number::F64(_) => Err(NumberError::NotAnInteger),
            Number::Big(s) if s.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) => {
                Err(NumberError::NotAnInteger)
            }
            Number::Big(_) => Err(NumberError::DoesNotFit),
        }
    }

    /// The number as i64, or why not.
    pub fn to_i64(self) -> Result<i64, NumberError> {
        match self {
            Number::U64(v) => i64::try_from(v).map_err(|_| NumberError::DoesNotFit),
            Number::I64(v) => Ok(v),
            Number::F64(_) => Err(NumberError::NotAnInteger),
            Number::Big(s) if s.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) => {
                Err(NumberError::NotAnInteger)
            }
            Number::Big(_) => Err(NumberError::DoesNotFit),
        }
    }
}

/// The JSON type of the value starting with byte `c` (what starts no value
/// reads as a number; only valid JSON is asked).
#[inline(always)]
pub(crate) fn kind_of_first(c: u8) -> ValueKind {
    match c {
        b'"' => ValueKind::String,
        b'{' => ValueKind::Object,
        b'[' => ValueKind::Array,
        b't' | b'f' => ValueKind::Bool,
        b'n' => ValueKind::Null,
        _ => ValueKind::Number,
    }
}

/// A validated number's bytes read as [`number_of_text`] reads them when
/// they are an integer of at most 18 digits (one pass, no overflow: below
/// 10^18 every value fits both u64 and i64); `None` for anything else.
#[inline]
pub(crate) fn short_integer(b: &[u8]) -> Option<Number<'static>> {
    let (neg, digits) = match b.split_first() {
        Some((b'-', d)) => (true, d),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v = 0u64;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    Some(match (neg, v) {
        (false, _) | (true, 0) => Number::U64(v),
        // v < 10^18 < 2^63.
        (true, _) => Number::I64(-(v as i64)),
    })
}

/// A number read from its text (valid JSON number grammar), as the tape
/// reads it: an integer as [`Number::U64`] when it is not negative (`-0`
/// included) and fits, [`Number::I64`] when negative and it fits; a
/// fraction or exponent as [`Number::F64`] when finite; anything beyond, its
/// text as [`Number::Big`].
#[inline]
pub(crate) fn number_of_text(t: &str) -> Number<'_> {
    let b = t.as_bytes();
    let (neg, digits) = match b.split_first() {
        Some((b'-', d)) => (true, d),
        _ => (false, b),
    };
    // Up to 19 digits cannot overflow u64: the common case, one pass.
    if digits.len() <= 19 && !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        let v = digits
            .iter()
            .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
        if !neg {
            return Number::U64(v);
        }
        if v == 0 {
            return Number::U64(0);
        }
        return match i64::try_from(v) {
            Ok(x) => Number::I64(-x),
            Err(_) if v == 1 << 63 => Number::I64(i64::MIN),
            Err(_) => Number::Big(t),
        };
    }
    if !b.iter().any(|c| matches!(c, b'.' | b'e' | b'E')) {
        return match (neg, t.parse::<u64>(), t.parse::<i64>()) {
            (false, Ok(v), _) => Number::U64(v),
            (true, _, Ok(v)) => Number::I64(v),
            _ => Number::Big(t),
        };
    }
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() => Number::F64(f),
        _ => Number::Big(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_integers_read_as_the_text_reader_reads_them() {
        for t in [
            "0",
            "-0",
            "7",
            "-7",
            "42",
            "999999999999999999",
            "-999999999999999999",
            "1000000000000000000",
            "-1000000000000000000",
            "18446744073709551615",
            "-9223372036854775808",
            "1.5",
            "-2e3",
            "1E2",
            "0.0",
            "-",
            "",
        ] {
            match short_integer(t.as_bytes()) {
                Some(n) => assert_eq!(n, number_of_text(t), "{t}"),
                // Only integers of 19 digits or more, and what is not an
                // integer, are left to the text reader.
                None => assert!(
                    t.trim_start_matches('-').len() > 18
                        || t.contains(['.', 'e', 'E'])
                        || t.trim_start_matches('-').is_empty(),
                    "{t}"
                ),
            }
        }
    }

    #[test]
    fn numbers_read_from_text_as_the_tape_reads_them() {
        assert_eq!(number_of_text("0"), Number::U64(0));
        assert_eq!(number_of_text("-0"), Number::U64(0));
        assert_eq!(number_of_text("-1"), Number::I64(-1));
        assert_eq!(
            number_of_text("18446744073709551615"),
            Number::U64(u64::MAX)
        );
        assert_eq!(
            number_of_text("18446744073709551616"),
            Number::Big("18446744073709551616")
        );
        assert_eq!(
            number_of_text("-9223372036854775808"),
            Number::I64(i64::MIN)
        );
        assert_eq!(
            number_of_text("-9223372036854775809"),
            Number::Big("-9223372036854775809")
        );
        assert_eq!(number_of_text("1.5"), Number::F64(1.5));
        assert_eq!(number_of_text("1e2"), Number::F64(100.0));
        assert_eq!(number_of_text("-0.0"), Number::F64(-0.0));
        assert_eq!(number_of_text("1e400"), Number::Big("1e400"));
        assert_eq!(number_of_text("1e-400"), Number::F64(0.0));
    }
}
