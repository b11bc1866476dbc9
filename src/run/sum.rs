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

/// Add (or subtract, `neg`) the two words `part` at word `at` of an inline
/// sum whose words start at `lo`, in place, when they land inside its
/// words with a word to spare and the result still fits them; false (and
/// `w` untouched) otherwise, for the wide path. A sum of costs takes this
/// path for all but its first values: 30 instructions, not 800 (the
/// transcript fold adds each request to six or seven totals).
#[inline]
fn add_inline(lo: usize, w: &mut [u64; INLINE], at: usize, part: [u64; 2], neg: bool) -> bool {
    if at < lo || at + 2 >= lo + INLINE {
        return false;
    }
    // The part as a signed number of the inline words (negated in two's
    // complement to subtract), then one addition with its carries.
    let mut add = [0u64; INLINE];
    add[at - lo] = part[0];
    add[at - lo + 1] = part[1];
    if neg {
        let mut carry = true;
        for a in &mut add {
            let (s, c) = (!*a).overflowing_add(u64::from(carry));
            *a = s;
            carry = c;
        }
    }
    add_words(w, &add)
}

/// `w += add` on inline words, both two's complement, when the sum fits
/// them; false (and `w` untouched) on an overflow.
#[inline]
fn add_words(w: &mut [u64; INLINE], add: &[u64; INLINE]) -> bool {
    let mut out = [0u64; INLINE];
    let mut carry = false;
    for i in 0..INLINE {
        let (s1, c1) = w[i].overflowing_add(add[i]);
        let (s2, c2) = s1.overflowing_add(u64::from(carry));
        out[i] = s2;
        carry = c1 | c2;
    }
    // Two's complement overflow: two operands of one sign gave a sum of
    // the other.
    let sign = |x: &[u64; INLINE]| x[INLINE - 1] >> 63 == 1;
    if sign(w) == sign(add) && sign(&out) != sign(w) {
        return false;
    }
    *w = out;
    true
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
    #[inline]
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
        if let Words::Inline { lo, w: words } = &mut self.words
            && add_inline(usize::from(*lo), words, w, [part[0], part[1]], x < 0.0)
        {
            return;
        }
        self.add_wide(w, &part, x < 0.0);
    }

    /// [`add`](ExactSum::add)'s part at word `w`, through every word.
    #[inline(never)]
    fn add_wide(&mut self, w: usize, part: &[u64; 3], neg: bool) {
        let mut m = self.wide();
        if neg {
            sub_at(&mut m, w, part);
        } else {
            add_at(&mut m, w, part);
        }
        self.words = Words::of(&m);
    }

    /// Add another sum (exactly).
    pub(crate) fn merge(&mut self, o: &ExactSum) {
        self.count += o.count;
        self.skipped += o.skipped;
        // Inline sums of one window add in place; a zero one takes the
        // other's words.
        if let (Words::Inline { lo, w }, Words::Inline { lo: olo, w: ow }) =
            (&mut self.words, &o.words)
        {
            if *w == [0; INLINE] {
                (*lo, *w) = (*olo, *ow);
                return;
            }
            if lo == olo && add_words(w, ow) {
                return;
            }
        }
        self.merge_wide(o);
    }

    /// [`merge`](ExactSum::merge)'s words through every word (the counts
    /// are the caller's).
    fn merge_wide(&mut self, o: &ExactSum) {
        let mut m = self.wide();
        add_at(&mut m, 0, &o.wide());
        self.words = Words::of(&m);
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

    /// The sum as an `f64`: [`value`](ExactSum::value), infinite (of the
    /// sum's sign) beyond the largest `f64`, as `f64` arithmetic has it.
    pub(crate) fn to_f64(&self) -> f64 {
        match self.value() {
            SumValue::Finite(f) => f,
            SumValue::Beyond(_) if self.is_negative() => f64::NEG_INFINITY,
            SumValue::Beyond(_) => f64::INFINITY,
        }
    }

    /// True when the sum is beyond the largest `f64` (read as
    /// [`SumValue::Beyond`]); cheap while the sum is far below it.
    pub(crate) fn beyond_f64(&self) -> bool {
        // 2^1024 is bit 2098 of the accumulator (word 32): a sum whose
        // words all lie below word 32 is below 2^974.
        match &self.words {
            Words::Inline { lo, .. } if usize::from(*lo) + INLINE <= 32 => false,
            _ => matches!(self.value(), SumValue::Beyond(_)),
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
            // Bits lo..=p: from word lo / 64, and the next when they
            // cross into it.
            let (w, b) = (lo / 64, lo % 64);
            let mut mant = m[w] >> b;
            if b > 11 {
                mant |= m[w + 1] << (64 - b);
            }
            mant &= (1u64 << 53) - 1;
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

    /// Marsaglia's xorshift64 from `seed` (not 0).
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The in-place path (`add_inline`) against the wide one
    /// (`merge_wide`), after every addition: costs of both signs over
    /// twelve decades, exact cancellations to zero, carries across words
    /// and sums that change sign.
    #[test]
    fn inline_additions_equal_wide_ones() {
        let mut next = xorshift(11);
        let mut fast = ExactSum::new();
        let mut wide = ExactSum::new();
        let mut inline_steps = 0;
        let mut seen: Vec<f64> = Vec::new();
        for step in 0..20_000 {
            let r = next();
            let x = match r % 8 {
                // Undo an earlier value exactly.
                0 if !seen.is_empty() => -seen[(r >> 8) as usize % seen.len()],
                // Every mantissa bit set, at costs' scales: long carries.
                1 => ((1u64 << 53) - 1) as f64 * 2f64.powi((r >> 8) as i32 % 40 - 80),
                _ => {
                    let mag = (r >> 11) as f64 / (1u64 << 53) as f64;
                    let v = mag * 10f64.powi((r % 12) as i32 - 8);
                    if next().is_multiple_of(3) { -v } else { v }
                }
            };
            seen.push(x);
            let before = fast.is_inline();
            fast.add(x);
            inline_steps += usize::from(before && fast.is_inline());
            let mut one = ExactSum::new();
            one.add(x);
            wide.merge_wide(&one);
            wide.count += 1;
            assert_eq!(fast.wide(), wide.wide(), "step {step}: {x:e}");
            assert_eq!(fast.value(), wide.value(), "step {step}");
            assert_eq!(fast.count(), wide.count());
        }
        assert!(inline_steps > 15_000, "{inline_steps}");
    }

    /// Merges in place (`add_words`, or a zero sum taking the other's
    /// words) against merges through every word, on sums of costs of both
    /// signs, of one window and of others.
    #[test]
    fn inline_merges_equal_wide_ones() {
        let mut next = xorshift(5);
        let mut in_place = 0;
        for _ in 0..2_000 {
            let mut a = ExactSum::new();
            let mut b = ExactSum::new();
            for s in [&mut a, &mut b] {
                for _ in 0..(next() % 4) {
                    let r = next();
                    let v = (r >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((r % 8) as i32 - 6);
                    s.add(if next().is_multiple_of(4) { -v } else { v });
                }
            }
            let mut fast = a.clone();
            fast.merge(&b);
            let mut wide = a.clone();
            wide.merge_wide(&b);
            wide.count += b.count;
            assert_eq!(fast.wide(), wide.wide());
            assert_eq!(fast.value(), wide.value());
            assert_eq!(fast.count(), a.count() + b.count());
            in_place += usize::from(a.is_inline() && b.is_inline() && fast.is_inline());
        }
        assert!(in_place > 1_500, "{in_place}");
    }

    /// `add_inline` declines what would not fit its four words: a carry
    /// into the top word's sign bit, a borrow out of it, a part at the top
    /// or below the words.
    #[test]
    fn inline_additions_that_do_not_fit_go_wide() {
        let top = i64::MAX as u64;
        let mut w = [0, !0, !0, top];
        assert!(!add_inline(16, &mut w, 17, [1, 0], false));
        assert_eq!(w, [0, !0, !0, top]);
        assert!(add_inline(16, &mut w, 17, [1, 0], true));
        assert_eq!(w, [0, !0 - 1, !0, top]);
        let mut n = [0, 0, 0, 1 << 63];
        assert!(!add_inline(16, &mut n, 17, [1, 0], true));
        assert!(add_inline(16, &mut n, 17, [1, 0], false));
        assert_eq!(n, [0, 1, 0, 1 << 63]);
        assert!(!add_inline(16, &mut n, 18, [1, 0], false));
        assert!(!add_inline(16, &mut n, 15, [1, 0], false));
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
        assert_eq!(m.to_f64(), f64::INFINITY);
        let mut n = ExactSum::new();
        n.add(-f64::MAX);
        n.add(-f64::MAX);
        assert_eq!(n.to_f64(), f64::NEG_INFINITY);
        n.add(f64::MAX);
        assert_eq!(n.to_f64(), -f64::MAX);
    }
}
