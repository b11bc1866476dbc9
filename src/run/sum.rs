//! Exact sums of `f64` values (costs), independent of the order of the
//! additions: what every total of cctape is summed with, so that the output
//! is the same for any `--jobs` and any machine.
//!
//! [`ExactSum`] holds the exact sum of the values added, as one wide
//! fixed-point integer in units of 2^-1074 (the smallest `f64` step), and
//! rounds it to the nearest `f64` (ties to even) only when read. The exact
//! sum does not depend on the order of the additions, so neither does the
//! rounded one: it is what Python's `math.fsum` returns for the same values
//! (correctly rounded). A sum beyond the largest `f64` is not infinity: it
//! is read as [`SumValue::Beyond`], its decimal text.
//!
//! The integer spans 35 words (2240 bits), but a sum of costs uses a few of
//! them: a sum keeps the [`INLINE`] words around its value inline (56 bytes
//! in all, no allocation), and all 35 on the heap only while its bits
//! spread wider (values of very different magnitudes, 1e-300 and 1e300). A
//! report keeps one sum per input and group and one per model in each, so
//! their size is the report's (issue 22: 10 to 33 KB per input before, most
//! of it in 296-byte sums).

use std::fmt;

/// Words of the accumulator: 2^-1074 .. 2^1024 needs 2098 bits; 35 words
/// (2240 bits) leave room for 2^100 additions and the sign.
const WORDS: usize = 35;

/// Words a sum keeps inline: 256 bits, room for costs from 2^-100 to 2^100
/// at once.
pub(super) const INLINE: usize = 4;

/// The accumulator: two's complement, little-endian words in units of
/// 2^-1074.
#[derive(Clone)]
enum Words {
    /// Words `lo .. lo + INLINE`: those below are 0, those above repeat the
    /// sign bit of the top one. Always the form when the value fits.
    Inline { lo: u8, w: [u64; INLINE] },
    /// Every word.
    Wide(Box<[u64; WORDS]>),
}

impl Words {
    /// The form of `m`: inline when its bits fit in [`INLINE`] words.
    fn of(m: &[u64; WORDS]) -> Words {
        let sign = if m[WORDS - 1] >> 63 == 1 { !0u64 } else { 0 };
        // The lowest word that is not 0 and the highest that is not the
        // sign's extension (with the sign bit of the word below it right).
        let lo = m.iter().position(|&w| w != 0).unwrap_or(0);
        let mut hi = WORDS - 1;
        while hi > lo && m[hi] == sign && (m[hi - 1] >> 63 == 1) == (sign != 0) {
            hi -= 1;
        }
        if hi - lo >= INLINE {
            return Words::Wide(Box::new(*m));
        }
        let lo = lo.min(WORDS - INLINE);
        let mut w = [0u64; INLINE];
        w.copy_from_slice(&m[lo..lo + INLINE]);
        Words::Inline { lo: lo as u8, w }
    }
}

/// Add `part` (unsigned) at word `w` of `m`, modulo 2^2240.
fn add_at(m: &mut [u64; WORDS], w: usize, part: &[u64]) {
    let mut carry = 0u64;
    for (j, word) in m[w..].iter_mut().enumerate() {
        let p = part.get(j).copied().unwrap_or(0);
        if p == 0 && carry == 0 && j >= part.len() {
            break;
        }
        let (s1, c1) = word.overflowing_add(p);
        let (s2, c2) = s1.overflowing_add(carry);
        *word = s2;
        carry = u64::from(c1) + u64::from(c2);
    }
}

/// Subtract `part` (unsigned) at word `w` of `m`, modulo 2^2240.
fn sub_at(m: &mut [u64; WORDS], w: usize, part: &[u64]) {
    let mut borrow = 0u64;
    for (j, word) in m[w..].iter_mut().enumerate() {
        let p = part.get(j).copied().unwrap_or(0);
        if p == 0 && borrow == 0 && j >= part.len() {
            break;
        }
        let (s1, b1) = word.overflowing_sub(p);
        let (s2, b2) = s1.overflowing_sub(borrow);
        *word = s2;
        borrow = u64::from(b1) + u64::from(b2);
    }
}

/// The exact sum of `f64` values, read correctly rounded.
///
/// ```
/// use cctape::run::{ExactSum, SumValue};
///
/// let mut a = ExactSum::new();
/// for x in [1e16, 1.0, -1e16, 0.1, 0.2] {
///     a.add(x);
/// }
/// // Left to right in f64 this is 0.30000000000000004; the exact sum of
/// // these five doubles, rounded once, is 1.3.
/// assert_eq!(a.value(), SumValue::Finite(1.3));
/// let mut b = ExactSum::new();
/// for x in [0.2, 0.1, 1.0, -1e16, 1e16] {
///     b.add(x);
/// }
/// assert_eq!(a, b);
/// // Small, and inline while the values are of like magnitudes.
/// assert!(std::mem::size_of::<ExactSum>() <= 56 && a.is_inline());
/// ```
#[derive(Clone)]
pub struct ExactSum {
    words: Words,
    /// Values added.
    count: u64,
    /// Values that could not be added (NaN or infinite).
    skipped: u64,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum {
            words: Words::Inline {
                lo: 0,
                w: [0; INLINE],
            },
            count: 0,
            skipped: 0,
        }
    }
}

impl PartialEq for ExactSum {
    fn eq(&self, o: &ExactSum) -> bool {
        self.count == o.count && self.skipped == o.skipped && self.wide() == o.wide()
    }
}

impl Eq for ExactSum {}

impl fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExactSum")
            .field("value", &self.value())
            .field("count", &self.count)
            .field("skipped", &self.skipped)
            .finish()
    }
}

/// A sum read from an [`ExactSum`].
#[derive(Clone, Debug, PartialEq)]
pub enum SumValue {
    /// The exact sum rounded to the nearest `f64`.
    Finite(f64),
    /// The sum is beyond the largest `f64`: its decimal value to 17
    /// significant digits (truncated), such as `3.5953862697246314e308`.
    Beyond(String),
}

impl SumValue {
    /// The value as an `f64` when it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            SumValue::Finite(f) => Some(*f),
            SumValue::Beyond(_) => None,
        }
    }

    /// The value as JSON: a number, or, beyond `f64`, a string holding its
    /// decimal text (never `null`: no `f64` holds it, and a reader given a
    /// bare number that large would get infinity).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            SumValue::Finite(f) => finite_json(*f),
            SumValue::Beyond(s) => serde_json::Value::String(s.clone()),
        }
    }
}

/// [`SumValue::to_json`]'s value, written as it is serialized.
impl serde::Serialize for SumValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            // `null` for what no JSON number holds, as `finite_json`.
            SumValue::Finite(f) => s.serialize_f64(*f),
            SumValue::Beyond(t) => s.serialize_str(t),
        }
    }
}

/// A finite `f64` as a JSON number.
pub(crate) fn finite_json(f: f64) -> serde_json::Value {
    serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

impl ExactSum {
    /// Zero.
    pub fn new() -> ExactSum {
        ExactSum::default()
    }

    /// Values added (not counting the skipped ones).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// NaN or infinite values passed to [`add`](ExactSum::add), which do not
    /// take part in the sum.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Add `x` exactly. NaN and infinities are not added; they are counted
    /// in [`skipped`](ExactSum::skipped).
    pub fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.skipped += 1;
            return;
        }
        self.count += 1;
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as u32;
        let frac = bits & ((1u64 << 52) - 1);
        let (mant, shift) = if exp == 0 {
            (frac, 0)
        } else {
            (frac | (1u64 << 52), exp - 1)
        };
        if mant == 0 {
            return;
        }
        let mut part = [0u64; 3];
        let (w, b) = ((shift / 64) as usize, shift % 64);
        part[0] = mant << b;
        if b > 0 {
            part[1] = mant >> (64 - b);
        }
        let mut m = self.wide();
        if x.is_sign_negative() {
            sub_at(&mut m, w, &part);
        } else {
            add_at(&mut m, w, &part);
        }
        self.words = Words::of(&m);
    }

    /// Add another sum (exactly).
    pub(crate) fn merge(&mut self, o: &ExactSum) {
        let mut m = self.wide();
        add_at(&mut m, 0, &o.wide());
        self.words = Words::of(&m);
        self.count += o.count;
        self.skipped += o.skipped;
    }

    /// Every word of the accumulator.
    fn wide(&self) -> [u64; WORDS] {
        match &self.words {
            Words::Wide(m) => **m,
            Words::Inline { lo, w } => {
                let lo = usize::from(*lo);
                let sign = if w[INLINE - 1] >> 63 == 1 { !0 } else { 0 };
                let mut m = [0u64; WORDS];
                m[lo..lo + INLINE].copy_from_slice(w);
                for x in &mut m[lo + INLINE..] {
                    *x = sign;
                }
                m
            }
        }
    }

    fn is_negative(&self) -> bool {
        match &self.words {
            Words::Wide(m) => m[WORDS - 1] >> 63 == 1,
            Words::Inline { w, .. } => w[INLINE - 1] >> 63 == 1,
        }
    }

    /// True when the sum is kept in its four inline words (`INLINE`; no
    /// allocation).
    pub fn is_inline(&self) -> bool {
        matches!(self.words, Words::Inline { .. })
    }

    /// The magnitude (two's complement negated when negative).
    fn magnitude(&self) -> [u64; WORDS] {
        let mut m = self.wide();
        if self.is_negative() {
            let mut carry = 1u64;
            for w in &mut m {
                let (s, c) = (!*w).overflowing_add(carry);
                *w = s;
                carry = u64::from(c);
            }
        }
        m
    }

    /// The sum, correctly rounded to the nearest `f64` (ties to even), or
    /// its decimal text when it is beyond the largest `f64`.
    pub fn value(&self) -> SumValue {
        let neg = self.is_negative();
        let m = self.magnitude();
        let Some(top) = (0..WORDS).rev().find(|&i| m[i] != 0) else {
            return SumValue::Finite(0.0);
        };
        let p = top * 64 + 63 - m[top].leading_zeros() as usize;
        let bit = |i: usize| (m[i / 64] >> (i % 64)) & 1;
        let f = if p < 53 {
            // Below 2^-1021: subnormal or the smallest normals, exact.
            f64::from_bits(m[0])
        } else {
            let lo = p - 52;
            let mut mant = 0u64;
            for i in (lo..=p).rev() {
                mant = (mant << 1) | bit(i);
            }
            let round = bit(lo - 1) == 1;
            // Any bit below the round bit.
            let k = lo - 1;
            let sticky = m[..k / 64].iter().any(|&w| w != 0)
                || (!k.is_multiple_of(64) && m[k / 64] & ((1u64 << (k % 64)) - 1) != 0);
            let mut exp = p - 51;
            if round && (sticky || mant & 1 == 1) {
                mant += 1;
                if mant == 1 << 53 {
                    mant >>= 1;
                    exp += 1;
                }
            }
            if exp >= 0x7ff {
                return SumValue::Beyond(beyond_text(&m, neg));
            }
            f64::from_bits(((exp as u64) << 52) | (mant & ((1u64 << 52) - 1)))
        };
        SumValue::Finite(if neg { -f } else { f })
    }
}

/// `m × 2^-1074` (at least 2^1024) to 17 significant decimal digits,
/// truncated: `d.dddddddddddddddde308`.
fn beyond_text(m: &[u64; WORDS], neg: bool) -> String {
    // The integer part: m >> 1074.
    let (ws, bs) = (1074 / 64, 1074 % 64);
    let mut int: Vec<u64> = (ws..WORDS)
        .map(|i| {
            let lo = m[i] >> bs;
            let hi = m.get(i + 1).map_or(0, |h| h << (64 - bs));
            lo | hi
        })
        .collect();
    // Decimal digits by repeated division by 10^19.
    const CHUNK: u64 = 10_000_000_000_000_000_000;
    let mut chunks: Vec<u64> = Vec::new();
    while int.iter().any(|&w| w != 0) {
        let mut rem: u128 = 0;
        for w in int.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*w);
            *w = (cur / u128::from(CHUNK)) as u64;
            rem = cur % u128::from(CHUNK);
        }
        chunks.push(rem as u64);
    }
    let mut digits = String::new();
    for (i, c) in chunks.iter().rev().enumerate() {
        if i == 0 {
            digits.push_str(&c.to_string());
        } else {
            digits.push_str(&format!("{c:019}"));
        }
    }
    let exp = digits.len() - 1;
    let sig: String = digits.chars().take(17).collect();
    let (first, rest) = sig.split_at(1);
    format!("{}{first}.{rest}e{exp}", if neg { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(xs: &[f64]) -> SumValue {
        let mut s = ExactSum::new();
        for &x in xs {
            s.add(x);
        }
        s.value()
    }

    #[test]
    fn exact_and_order_independent() {
        assert_eq!(sum(&[]), SumValue::Finite(0.0));
        assert_eq!(sum(&[0.1, 0.2, 0.3]), SumValue::Finite(0.6));
        assert_eq!(sum(&[1e100, 1.0, -1e100]), SumValue::Finite(1.0));
        assert_eq!(sum(&[-0.5, 0.25]), SumValue::Finite(-0.25));
        assert_eq!(
            sum(&[f64::MIN_POSITIVE / 4.0, f64::MIN_POSITIVE / 4.0]),
            SumValue::Finite(f64::MIN_POSITIVE / 2.0)
        );
        assert_eq!(sum(&[5e-324, 5e-324, 5e-324]), SumValue::Finite(1.5e-323));
        // Ties to even: 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
        assert_eq!(
            sum(&[9007199254740992.0, 1.0]),
            SumValue::Finite(9007199254740992.0)
        );
        assert_eq!(
            sum(&[9007199254740994.0, 1.0]),
            SumValue::Finite(9007199254740996.0)
        );
        // Just above the tie rounds up.
        assert_eq!(
            sum(&[9007199254740992.0, 1.0, 1e-300]),
            SumValue::Finite(9007199254740994.0)
        );
        assert_eq!(sum(&[f64::MAX, -f64::MAX, 3.5]), SumValue::Finite(3.5));
        let mut a = ExactSum::new();
        let mut b = ExactSum::new();
        for x in [0.1, 0.7, 1e-5, 123.456] {
            a.add(x);
        }
        for x in [-3.25, 1e-9] {
            b.add(x);
        }
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab.value(), ba.value());
        assert_eq!(ab.count(), 6);
    }

    #[test]
    fn beyond_f64_is_text_not_infinity() {
        let v = sum(&[f64::MAX, f64::MAX]);
        assert_eq!(v, SumValue::Beyond("3.5953862697246314e308".into()));
        assert_eq!(v.to_json().to_string(), "\"3.5953862697246314e308\"");
        assert_eq!(
            sum(&[-f64::MAX, -f64::MAX]),
            SumValue::Beyond("-3.5953862697246314e308".into())
        );
        let mut s = ExactSum::new();
        s.add(f64::INFINITY);
        s.add(f64::NAN);
        s.add(2.0);
        assert_eq!((s.value(), s.skipped()), (SumValue::Finite(2.0), 2));
    }

    #[test]
    fn inline_while_it_fits_wide_while_it_spreads() {
        let mut s = ExactSum::new();
        for x in [0.0125, 10.0, 3.5e-6, 1234.5678] {
            s.add(x);
        }
        assert!(s.is_inline());
        let small = s.value();
        // 1e300 and 1e-300 at once need every word ...
        s.add(1e300);
        s.add(1e-300);
        assert!(!s.is_inline());
        // ... and once they cancel, the sum is inline again, and equal to
        // one that never spread.
        s.add(-1e300);
        s.add(-1e-300);
        assert!(s.is_inline());
        assert_eq!(s.value(), small);
        let mut t = ExactSum::new();
        for x in [1234.5678, 3.5e-6, 10.0, 0.0125] {
            t.add(x);
        }
        t.count += 4;
        assert_eq!(s, t);
        // Negative sums keep their sign inline, at any magnitude.
        for x in [-1e-320, -0.5, -7e15, -1e250] {
            let mut n = ExactSum::new();
            n.add(x);
            assert!(n.is_inline(), "{x}");
            assert_eq!(n.value(), SumValue::Finite(x));
            n.merge(&n.clone());
            assert_eq!(n.value(), SumValue::Finite(2.0 * x));
        }
        // The top words: near f64::MAX, and beyond it.
        let mut m = ExactSum::new();
        m.add(f64::MAX);
        assert!(m.is_inline());
        m.add(f64::MAX);
        assert_eq!(m.value(), SumValue::Beyond("3.5953862697246314e308".into()));
    }
}
