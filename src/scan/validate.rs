//! The validating first stage: RFC 8259 grammar, UTF-8, escapes, depth,
//! without unescaping, indexing the top-level object on the way.
//!
//! One pass, left to right, with an explicit container stack of 1024 bits
//! (no allocation). Strings are crossed 64 bytes at a time with the masks of
//! [`super::simd`]: the first unescaped quote ends the string; within it,
//! control characters, bad escapes and non-hex `\u` digits are found with mask
//! arithmetic, not byte by byte. The masks of the last 64 bytes classified
//! are kept ([`Window`]): the strings that follow within them (keys, ids,
//! short values, as on lines of partial messages) end without another
//! classification. A string with bytes of 0x80 and above is
//! checked as UTF-8 once it ends; bytes outside strings must be ASCII grammar,
//! so a line that passes is valid UTF-8.
//!
//! On failure this says only that the line is bad (and whether the depth
//! limit was the first problem); [`super::Scanner`] then works out which kind
//! of error the tape path would report.

use super::simd::{Classify, Masks};
use super::{Entry, Scratch};
use crate::parse::{MAX_DEPTH, ValueKind};

/// What a validation found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A valid object; its entries are in the scratch index.
    Object,
    /// Valid JSON whose root is not an object.
    NotObject,
    /// Invalid; `depth` is true when the first problem met was nesting past
    /// the limit.
    Invalid {
        /// The first problem was the depth limit.
        depth: bool,
        /// Where the validator stopped.
        at: usize,
    },
    /// The line is longer than the index's 32-bit offsets allow (4 GiB).
    TooLarge,
}

const EVEN_BITS: u64 = 0x5555_5555_5555_5555;

/// Bits of the bytes escaped by a backslash (the byte after an odd run),
/// given the backslash mask and whether the block's first byte is escaped
/// (`prev`, 0 or 1, updated for the next block).
#[inline(always)]
pub(crate) fn find_escaped(backslash: u64, prev: &mut u64) -> u64 {
    let backslash = backslash & !*prev;
    let follows_escape = (backslash << 1) | *prev;
    let odd_sequence_starts = backslash & !EVEN_BITS & !follows_escape;
    let (sequences_starting_on_even_bits, overflow) =
        odd_sequence_starts.overflowing_add(backslash);
    *prev = overflow as u64;
    let invert_mask = sequences_starting_on_even_bits << 1;
    (EVEN_BITS ^ invert_mask) & follows_escape
}

/// A line with its last 64 bytes copied once into a zero-padded buffer, so
/// that every 64-byte block of it can be read without a copy per string.
/// Past the end come NULs: control characters, so a string running off the
/// end fails.
pub(crate) struct Input<'a> {
    pub b: &'a [u8],
    tail: &'a [u8; 128],
    base: usize,
}

impl<'a> Input<'a> {
    /// `tail` is the caller's zeroed buffer (the caller's, so that the
    /// 128 bytes are written once, not built here and moved).
    #[inline(always)]
    pub(crate) fn new(b: &'a [u8], tail: &'a mut [u8; 128]) -> Input<'a> {
        let base = b.len().saturating_sub(64);
        // A copy of constant length where the line allows it: inline moves,
        // not a call to `memcpy`, once per line.
        match b.last_chunk::<64>() {
            Some(last) => tail[..64].copy_from_slice(last),
            None => tail[..b.len()].copy_from_slice(b),
        }
        Input { b, tail, base }
    }

    /// The 64 bytes at `i` (NUL past the end).
    #[inline(always)]
    fn block(&self, i: usize) -> &[u8; 64] {
        if let Some(blk) = self.b.get(i..).and_then(|r| r.first_chunk::<64>()) {
            return blk;
        }
        let k = i.saturating_sub(self.base).min(64);
        match self.tail[k..].first_chunk::<64>() {
            Some(blk) => blk,
            None => &ZEROS,
        }
    }
}

static ZEROS: [u8; 64] = [0u8; 64];

/// The masks of the 64 bytes from `start`, kept from the string that last
/// needed them: the next strings often start and end within the same 64
/// bytes (a key, its value; ids, short deltas), and then their end is a
/// shift and a `tzcnt` away, not a load, compares and mask moves that the
/// next token waits on.
#[derive(Clone, Copy)]
pub(crate) struct Window {
    start: usize,
    /// Quotes.
    quote: u64,
    /// Backslashes, control characters, bytes of 0x80 and above: what the
    /// one-block fast path does not handle.
    special: u64,
}

impl Window {
    pub(crate) const EMPTY: Window = Window {
        start: usize::MAX,
        quote: 0,
        special: 0,
    };
}

/// Validate the string whose content starts at `start` (after its opening
/// quote). Returns the index after the closing quote and whether it holds a
/// backslash.
#[inline(always)]
pub(crate) fn string<C: Classify>(
    c: C,
    inp: &Input<'_>,
    w: &mut Window,
    start: usize,
) -> Option<(usize, bool)> {
    // Fast path: the closing quote within 64 bytes, nothing to check before
    // it (most keys and ids); first from the masks at hand.
    let off = start.wrapping_sub(w.start);
    if off < 64 {
        let q = w.quote >> off;
        let upto = q ^ q.wrapping_sub(1);
        if q != 0 && (w.special >> off) & upto == 0 {
            return Some((start + q.trailing_zeros() as usize + 1, false));
        }
    }
    let m = c.classify(inp.block(start));
    let special = m.backslash | m.ctrl | m.high;
    *w = Window {
        start,
        quote: m.quote,
        special,
    };
    let upto = m.quote ^ m.quote.wrapping_sub(1);
    if m.quote != 0 && special & upto == 0 {
        return Some((start + m.quote.trailing_zeros() as usize + 1, false));
    }
    string_slow(c, inp, start, m)
}

/// The string from `start` block by block; `first` holds the masks of the
/// first block (the fast path made them).
#[inline(always)]
fn string_slow<C: Classify>(
    c: C,
    inp: &Input<'_>,
    start: usize,
    first: Masks,
) -> Option<(usize, bool)> {
    let mut i = start;
    let mut prev = 0u64;
    let mut hex_carry = 0u64;
    let mut high = 0u64;
    let mut any_bs = 0u64;
    let mut m = first;
    loop {
        let blk = inp.block(i);
        if i != start {
            m = c.classify(blk);
        }
        let escaped = find_escaped(m.backslash, &mut prev);
        let q = m.quote & !escaped;
        let region = q ^ q.wrapping_sub(1);
        let mut bad = m.ctrl;
        let esc_here = escaped | hex_carry;
        if esc_here & region != 0 {
            let e = c.classify_esc(blk);
            let u = escaped & e.u;
            bad |= escaped & !e.esc;
            // `\u` is rare (text is UTF-8 here, not `\uXXXX`): the hex digits
            // are checked only where one is.
            if u | hex_carry != 0 {
                let need_hex = (u << 1) | (u << 2) | (u << 3) | (u << 4) | hex_carry;
                bad |= need_hex & !e.hex;
                hex_carry = (u >> 60) | (u >> 61) | (u >> 62) | (u >> 63);
            }
        } else {
            hex_carry = 0;
        }
        if bad & region != 0 {
            return None;
        }
        high |= m.high & region;
        any_bs |= m.backslash & region;
        if q != 0 {
            let end = i + q.trailing_zeros() as usize;
            if high != 0 && simdutf8::basic::from_utf8(inp.b.get(start..end)?).is_err() {
                return None;
            }
            return Some((end + 1, any_bs != 0));
        }
        i += 64;
    }
}

/// The 64 bytes at `i`, or the bytes left padded with NUL.
#[inline(always)]
fn block_at<'a>(b: &'a [u8], i: usize, tail: &'a mut [u8; 64]) -> &'a [u8; 64] {
    match b.get(i..).and_then(|r| r.first_chunk::<64>()) {
        Some(blk) => blk,
        None => {
            *tail = [0u8; 64];
            let rest = b.get(i..).unwrap_or_default();
            tail[..rest.len()].copy_from_slice(rest);
            tail
        }
    }
}

/// Find the end of a string whose content starts at `start`, trusting the
/// bytes: the first quote not escaped by a backslash. Returns the index
/// after it and whether a backslash came before it, or `None` when the line
/// ends first.
#[inline(always)]
pub(crate) fn skip_string<C: Classify>(c: C, b: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut i = start;
    let mut prev = 0u64;
    let mut any_bs = 0u64;
    let mut tail = [0u8; 64];
    while i < b.len() {
        let blk = block_at(b, i, &mut tail);
        let m = c.classify(blk);
        let escaped = find_escaped(m.backslash, &mut prev);
        let q = m.quote & !escaped;
        if q != 0 {
            let end = i + q.trailing_zeros() as usize;
            if end >= b.len() {
                return None;
            }
            any_bs |= m.backslash & (q ^ (q - 1));
            return Some((end + 1, any_bs != 0));
        }
        any_bs |= m.backslash;
        i += 64;
    }
    None
}

#[inline(always)]
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if c > b' ' || !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        }
        i += 1;
    }
    i
}

/// End of a JSON number starting at `i` (grammar checked, any size).
#[inline(always)]
pub(crate) fn number(b: &[u8], mut i: usize) -> Option<usize> {
    if at(b, i) == b'-' {
        i += 1;
    }
    match at(b, i) {
        b'0' => i += 1,
        b'1'..=b'9' => {
            i += 1;
            while at(b, i).is_ascii_digit() {
                i += 1;
            }
        }
        _ => return None,
    }
    if at(b, i) == b'.' {
        i += 1;
        if !at(b, i).is_ascii_digit() {
            return None;
        }
        while at(b, i).is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(at(b, i), b'e' | b'E') {
        i += 1;
        if matches!(at(b, i), b'+' | b'-') {
            i += 1;
        }
        if !at(b, i).is_ascii_digit() {
            return None;
        }
        while at(b, i).is_ascii_digit() {
            i += 1;
        }
    }
    Some(i)
}

/// The first byte at or after `i` that is not JSON whitespace, and its
/// index (0 past the end). Minified JSON has no whitespace between tokens:
/// one compare decides.
#[inline(always)]
fn next(b: &[u8], i: usize) -> (usize, u8) {
    match b.get(i) {
        Some(&c) if c > b' ' => (i, c),
        _ => {
            let i = skip_ws(b, i);
            (i, at(b, i))
        }
    }
}

/// Past the separator `sep` (`:` or `,`) expected at `i`, whitespace
/// allowed around it: the next token's index and first byte, or the index
/// of the byte found instead of `sep`. Minified JSON (`":"`, `","`) takes
/// one bounds check and two compares.
#[inline(always)]
fn past(b: &[u8], i: usize, sep: u8) -> Result<(usize, u8), usize> {
    if i < b.len().saturating_sub(1) && b[i] == sep && b[i + 1] > b' ' {
        return Ok((i + 1, b[i + 1]));
    }
    let (j, s) = next(b, i);
    if s != sep {
        return Err(j);
    }
    Ok(next(b, j + 1))
}

/// An invalid line, the walk stopped at `at`.
#[inline(always)]
fn bad(at: usize) -> Outcome {
    Outcome::Invalid { depth: false, at }
}

/// Validate the whole line `b` and index its top-level object into `s`.
///
/// The top-level object has a loop of its own (a key, a value, one entry
/// pushed with everything known); the values inside it are walked by
/// [`nested`], which keeps no index. Neither asks at every token which level
/// it is on.
#[inline(always)]
pub(crate) fn validate<C: Classify>(c: C, s: &mut Scratch, b: &[u8]) -> Outcome {
    s.entries.clear();
    s.type_at = None;
    s.subtype_at = None;
    s.keys_plain = true;
    if b.len() > u32::MAX as usize - 64 {
        return Outcome::TooLarge;
    }
    let Scratch {
        entries,
        type_at,
        subtype_at,
        keys_plain,
    } = s;
    let mut tail = [0u8; 128];
    let inp = Input::new(b, &mut tail);
    let mut win = Window::EMPTY;
    let mut stack = [0u64; MAX_DEPTH / 64];
    let (mut i, first) = next(b, 0);
    if first != b'{' {
        return match root_value(c, &inp, &mut win, &mut stack, i) {
            Ok(end) if skip_ws(b, end) == b.len() => Outcome::NotObject,
            Ok(end) => bad(end),
            Err(stop) => stop,
        };
    }
    let (j, mut t) = next(b, i + 1);
    i = j;
    if t == b'}' {
        i += 1;
    } else {
        loop {
            // A key.
            if t != b'"' {
                return bad(i);
            }
            let kstart = i + 1;
            let Some((kend, kesc)) = string(c, &inp, &mut win, kstart) else {
                return bad(i);
            };
            let (vstart, v) = match past(b, kend, b':') {
                Ok(next) => next,
                Err(j) => return bad(j),
            };
            i = vstart;
            // `type` and `subtype` noted on the way (the scanner reads
            // them next), unless a key needs unescaping or comes twice.
            let slot = match b.get(kstart..kend - 1) {
                _ if kesc => {
                    *keys_plain = false;
                    None
                }
                Some(b"type") => Some(&mut *type_at),
                Some(b"subtype") => Some(&mut *subtype_at),
                _ => None,
            };
            if let Some(slot) = slot {
                if slot.is_some() {
                    *keys_plain = false;
                }
                *slot = Some(entries.len() as u32);
            }
            macro_rules! entry {
                ($end:expr, $vesc:expr) => {
                    Entry {
                        key_start: kstart as u32,
                        key_end: (kend - 1) as u32,
                        val_start: vstart as u32,
                        val_end: $end as u32,
                        kind: kind_of_first(v),
                        key_escaped: kesc,
                        val_escaped: $vesc,
                    }
                };
            }
            // Its value, and its entry.
            match v {
                b'"' => {
                    let Some((end, esc)) = string(c, &inp, &mut win, i + 1) else {
                        return bad(i);
                    };
                    i = end;
                    entries.push(entry!(i, esc));
                }
                b'{' | b'[' => {
                    // The entry goes in before a container is walked, its
                    // end set after: nothing about the key stays live (in
                    // registers) through the walk.
                    entries.push(entry!(vstart, false));
                    i = match nested(c, &inp, &mut win, &mut stack, i, 1) {
                        Ok(end) => end,
                        Err(stop) => return stop,
                    };
                    if let Some(e) = entries.last_mut() {
                        e.val_end = i as u32;
                    }
                }
                _ => {
                    i = match scalar(b, i, v) {
                        Some(end) => end,
                        None => return bad(i),
                    };
                    entries.push(entry!(i, false));
                }
            }
            match past(b, i, b',') {
                Ok((j, k)) => {
                    i = j;
                    t = k;
                }
                Err(j) if at(b, j) == b'}' => {
                    i = j + 1;
                    break;
                }
                Err(j) => return bad(j),
            }
        }
    }
    if skip_ws(b, i) == b.len() {
        Outcome::Object
    } else {
        bad(i)
    }
}

/// A literal or a number starting with `v` at `i`: its end.
#[inline(always)]
fn scalar(b: &[u8], i: usize, v: u8) -> Option<usize> {
    match v {
        b't' => (b.get(i..i + 4) == Some(b"true")).then_some(i + 4),
        b'f' => (b.get(i..i + 5) == Some(b"false")).then_some(i + 5),
        b'n' => (b.get(i..i + 4) == Some(b"null")).then_some(i + 4),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

/// A root that is not an object (valid or not, the line fails; this only
/// tells which way): its end.
#[inline(never)]
fn root_value<C: Classify>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    stack: &mut [u64; MAX_DEPTH / 64],
    i: usize,
) -> Result<usize, Outcome> {
    match at(inp.b, i) {
        b'"' => string(c, inp, win, i + 1).map(|(end, _)| end).ok_or(bad(i)),
        b'[' => nested(c, inp, win, stack, i, 0),
        v => scalar(inp.b, i, v).ok_or(bad(i)),
    }
}

/// Validate the container opening at `i` (`{` or `[`) with `base` levels
/// already open; returns the index after its closing bracket. Whether the
/// innermost open container is an object is kept in a register and read
/// back from the bit stack only when one closes.
#[inline(always)]
fn nested<C: Classify>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    stack: &mut [u64; MAX_DEPTH / 64],
    mut i: usize,
    base: usize,
) -> Result<usize, Outcome> {
    let b = inp.b;
    let mut depth = base;
    let mut in_obj = false;

    // `"key"` `:` at `i` (the quote checked by the caller): `i` becomes the
    // index of the value.
    macro_rules! key {
        () => {{
            let Some((kend, _)) = string(c, inp, win, i + 1) else {
                return Err(bad(i));
            };
            i = match past(b, kend, b':') {
                Ok((j, _)) => j,
                Err(j) => return Err(bad(j)),
            };
        }};
    }
    // The container just closed (`i` past its bracket): back to its parent,
    // or done.
    macro_rules! close {
        () => {{
            depth -= 1;
            if depth == base {
                return Ok(i);
            }
            in_obj = stack[(depth - 1) / 64] & (1u64 << ((depth - 1) % 64)) != 0;
        }};
    }

    'value: loop {
        let v = at(b, i);
        if v == b'"' {
            let Some((end, _)) = string(c, inp, win, i + 1) else {
                return Err(bad(i));
            };
            i = end;
        } else if v == b'{' || v == b'[' {
            if depth >= MAX_DEPTH {
                return Err(Outcome::Invalid { depth: true, at: i });
            }
            in_obj = v == b'{';
            let (w, bit) = (depth / 64, 1u64 << (depth % 64));
            if in_obj {
                stack[w] |= bit;
            } else {
                stack[w] &= !bit;
            }
            depth += 1;
            let (j, t) = next(b, i + 1);
            i = j;
            if in_obj {
                if t == b'"' {
                    key!();
                    continue 'value;
                }
                if t != b'}' {
                    return Err(bad(i));
                }
            } else if t != b']' {
                continue 'value;
            }
            i += 1;
            close!();
        } else {
            i = match scalar(b, i, v) {
                Some(end) => end,
                None => return Err(bad(i)),
            };
        }
        // A value ends at `i`.
        loop {
            match past(b, i, b',') {
                Ok((j, t)) => {
                    i = j;
                    if in_obj {
                        if t != b'"' {
                            return Err(bad(i));
                        }
                        key!();
                    }
                    continue 'value;
                }
                Err(j) => {
                    i = j;
                    if at(b, i) != if in_obj { b'}' } else { b']' } {
                        return Err(bad(i));
                    }
                    i += 1;
                    close!();
                }
            }
        }
    }
}

#[inline(always)]
fn kind_of_first(c: u8) -> ValueKind {
    match c {
        b'"' => ValueKind::String,
        b'{' => ValueKind::Object,
        b'[' => ValueKind::Array,
        b't' | b'f' => ValueKind::Bool,
        b'n' => ValueKind::Null,
        _ => ValueKind::Number,
    }
}
