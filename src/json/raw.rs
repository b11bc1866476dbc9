//! The lazy navigator: JSON values read from their raw bytes, where no
//! index was written (trusting mode, a format's sniffing), always behind
//! [`super::Value`] outside this module; and [`RawStr`], a string as the
//! line holds it, which `Value` hands out.
//!
//! Nothing is decoded until asked for: [`RawValue::get`] compares keys as
//! raw bytes and skips the values it passes over (strings 64 bytes at a
//! time), a string is returned as its raw bytes when it holds no escape, and
//! numbers are read from their text. Nothing here allocates.
//!
//! On a validated line every answer is the tape's answer. On a line read in
//! trusting mode the bytes past the wanted fields were never checked: a
//! malformed value reads as absent, never as a panic.

use super::number::ValueKind;
use super::simd::nav;
use super::validate::{number, skip_string, skip_ws};
use std::borrow::Cow;
use std::fmt;

#[inline(always)]
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// End of the value starting at `i` (trusting the bytes), or `None` when
/// the bytes do not hold one.
pub(crate) fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match at(b, i) {
        b'"' => skip_string(nav(), b, i + 1).map(|(e, _)| e),
        b'{' | b'[' => skip_container(b, i),
        b't' | b'n' => (i + 4 <= b.len()).then_some(i + 4),
        b'f' => (i + 5 <= b.len()).then_some(i + 5),
        b'-' | b'0'..=b'9' => Some(number_token_end(b, i)),
        _ => None,
    }
}

fn number_token_end(b: &[u8], mut i: usize) -> usize {
    while matches!(at(b, i), b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
        i += 1;
    }
    i
}

fn skip_container(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        // Jump to the next byte that matters.
        let rest = b.get(i..)?;
        let k = rest
            .iter()
            .position(|&c| matches!(c, b'"' | b'{' | b'[' | b'}' | b']'))?;
        i += k;
        match b[i] {
            b'"' => i = skip_string(nav(), b, i + 1)?.0,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            _ => {
                depth = depth.checked_sub(1)?;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
    }
}

/// A JSON string as written between its quotes, not yet unescaped.
///
/// [`as_str`](RawStr::as_str) borrows it as is when it holds no escape;
/// [`str_eq`](RawStr::str_eq) and [`unescape_into`](RawStr::unescape_into)
/// decode escapes (a lone surrogate escape reads as U+FFFD, as on the tape).
#[derive(Clone, Copy)]
pub struct RawStr<'s> {
    raw: &'s [u8],
    escaped: bool,
}

impl fmt::Debug for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawStr({:?})", String::from_utf8_lossy(self.raw))
    }
}

impl PartialEq<str> for RawStr<'_> {
    fn eq(&self, other: &str) -> bool {
        self.str_eq(other)
    }
}

impl PartialEq<&str> for RawStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.str_eq(other)
    }
}

impl<'s> RawStr<'s> {
    pub(crate) fn new(raw: &'s [u8], escaped: bool) -> RawStr<'s> {
        RawStr { raw, escaped }
    }

    /// The string when it holds no escape (and is UTF-8); `None` otherwise,
    /// in which case use [`unescape_into`](RawStr::unescape_into).
    #[inline]
    pub fn as_str(&self) -> Option<&'s str> {
        if self.escaped {
            return None;
        }
        simdutf8::basic::from_utf8(self.raw).ok()
    }

    /// The unescaped string: borrowed when it holds no escape, a new
    /// `String` when it does (the bytes that are not a valid JSON string,
    /// which only a line read in trusting mode holds, read as U+FFFD).
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    /// use std::borrow::Cow;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"abc","t":"a\u0062c"}"#).next().unwrap();
    /// let ev = scanner.scan(&line).unwrap();
    /// let plain = ev.value().get("type").unwrap().as_raw_str().unwrap();
    /// assert!(matches!(plain.to_cow(), Cow::Borrowed("abc")));
    /// let escaped = ev.value().get("t").unwrap().as_raw_str().unwrap();
    /// assert!(matches!(escaped.to_cow(), Cow::Owned(s) if s == "abc"));
    /// ```
    pub fn to_cow(&self) -> Cow<'s, str> {
        if let Some(s) = self.as_str() {
            return Cow::Borrowed(s);
        }
        let mut out = String::with_capacity(self.raw.len());
        if !self.unescape_into(&mut out) {
            out = String::from_utf8_lossy(self.raw).into_owned();
        }
        Cow::Owned(out)
    }

    /// The unescaped string, borrowed when it holds no escape, else
    /// unescaped into `buf` (cleared first): no allocation once `buf` has
    /// grown. A string that is not valid JSON (trusting mode only) reads as
    /// what could be decoded of it.
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"x","t":"tab\there","p":"plain"}"#).next().unwrap();
    /// let ev = scanner.scan(&line).unwrap();
    /// let mut buf = String::new();
    /// let t = ev.value().get("t").unwrap().as_raw_str().unwrap();
    /// assert_eq!(t.to_str_in(&mut buf), "tab\there");
    /// let p = ev.value().get("p").unwrap().as_raw_str().unwrap();
    /// assert_eq!(p.to_str_in(&mut buf), "plain");
    /// ```
    pub fn to_str_in<'b>(&self, buf: &'b mut String) -> &'b str
    where
        's: 'b,
    {
        if let Some(s) = self.as_str() {
            return s;
        }
        buf.clear();
        self.unescape_into(buf);
        buf
    }

    /// The bytes between the quotes, escapes as written.
    #[inline]
    pub fn raw(&self) -> &'s [u8] {
        self.raw
    }

    /// True when the string holds a backslash escape.
    #[inline]
    pub fn has_escapes(&self) -> bool {
        self.escaped
    }

    /// True when the unescaped string equals `s`. Does not allocate.
    pub fn str_eq(&self, s: &str) -> bool {
        if !self.escaped {
            return self.raw == s.as_bytes();
        }
        let mut rest = s.as_bytes();
        let ok = decode(self.raw, |piece| match rest.strip_prefix(piece) {
            Some(r) => {
                rest = r;
                true
            }
            None => false,
        });
        ok && rest.is_empty()
    }

    /// True when the unescaped string, its leading whitespace skipped when
    /// `trim` (what [`str::trim_start`] skips), starts with `prefix`: decoded
    /// only as far as that takes, never the whole string (a tool result's
    /// text is tested for a marker at its start). Does not allocate.
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"x","t":"\n\t \u2028<err> and much more"}"#).next().unwrap();
    /// let ev = scanner.scan(&line).unwrap();
    /// let t = ev.value().get("t").unwrap().as_raw_str().unwrap();
    /// assert!(t.starts_with("<err>", true));
    /// assert!(!t.starts_with("<err>", false));
    /// assert!(t.starts_with("\n\t", false));
    /// ```
    pub fn starts_with(&self, prefix: &str, trim: bool) -> bool {
        let mut rest = prefix.as_bytes();
        if rest.is_empty() {
            return true;
        }
        // Without an escape, the text is the bytes: compared at once, not
        // decoded piece by piece (a long prompt is not crossed).
        if !trim && !self.has_escapes() {
            return self.raw.starts_with(rest);
        }
        // The head, up to its first escape, is the text as written: most
        // texts are decided there, and the rest of a long text is never
        // searched for an escape.
        let head = &self.raw[..self.raw.len().min(rest.len() + 64)];
        let clean = match self.has_escapes() {
            true => memchr::memchr(b'\\', head).map_or(head, |i| &head[..i]),
            false => head,
        };
        let mut p = clean;
        // A character cut by the head's end is not known to be whitespace.
        let mut cut = false;
        if trim {
            loop {
                match first_char(p) {
                    Some((c, len)) if c.is_whitespace() => p = &p[len..],
                    Some(_) => break,
                    None => {
                        cut = !p.is_empty();
                        break;
                    }
                }
            }
        }
        let n = p.len().min(rest.len());
        if !cut && (n > 0 || clean.len() == self.raw.len()) {
            // Text before the escape (or the end): it decides unless it is
            // a start of the prefix that stops short of it.
            if p[..n] != rest[..n] {
                return false;
            }
            if n == rest.len() {
                return true;
            }
            if clean.len() == self.raw.len() {
                return false;
            }
        }
        let mut skipping = trim;
        let mut found = false;
        decode(self.raw, |piece| {
            let mut p = piece;
            if skipping {
                while let Some((c, len)) = first_char(p) {
                    if !c.is_whitespace() {
                        break;
                    }
                    p = &p[len..];
                }
                if p.is_empty() {
                    return true;
                }
                skipping = false;
            }
            let n = rest.len().min(p.len());
            if p[..n] != rest[..n] {
                return false;
            }
            rest = &rest[n..];
            if rest.is_empty() {
                found = true;
                return false;
            }
            true
        });
        found
    }

    /// Append the unescaped string to `out`. Returns false (and appends a
    /// prefix only) when the bytes are not a valid JSON string, which only a
    /// line read in trusting mode can hold.
    pub fn unescape_into(&self, out: &mut String) -> bool {
        let mut ok = true;
        // Pieces are mostly ASCII text between escapes: a few word compares
        // each, the UTF-8 validator only for the others.
        let done = decode(self.raw, |piece| match piece_text(piece) {
            Some(s) => {
                out.push_str(s);
                true
            }
            None => {
                ok = false;
                false
            }
        });
        done && ok
    }
}

/// A decoded piece as text (ASCII by a few word compares, else the UTF-8
/// validator).
#[inline]
fn piece_text(p: &[u8]) -> Option<&str> {
    super::simd::ascii_str(p).or_else(|| std::str::from_utf8(p).ok())
}

/// The first character of `b` and its length in bytes (`None` when `b` is
/// empty or does not start with one).
fn first_char(b: &[u8]) -> Option<(char, usize)> {
    let len = match *b.first()? {
        x if x < 0x80 => return Some((x as char, 1)),
        x if x >= 0xF0 => 4,
        x if x >= 0xE0 => 3,
        x if x >= 0xC0 => 2,
        _ => return None,
    };
    let c = std::str::from_utf8(b.get(..len)?).ok()?.chars().next()?;
    Some((c, len))
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Feed the unescaped bytes of `raw` to `f` in pieces; stops (returning
/// false) when `f` does or an escape is malformed.
fn decode(raw: &[u8], mut f: impl FnMut(&[u8]) -> bool) -> bool {
    let mut i = 0;
    while i < raw.len() {
        let run = memchr::memchr(b'\\', &raw[i..]).unwrap_or(raw.len() - i);
        if run > 0 && !f(&raw[i..i + run]) {
            return false;
        }
        i += run;
        if i >= raw.len() {
            break;
        }
        let simple = match at(raw, i + 1) {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return false,
        };
        if let Some(c) = simple {
            if !f(&[c]) {
                return false;
            }
            i += 2;
            continue;
        }
        let Some(cp) = hex4(raw, i + 2) else {
            return false;
        };
        let (ch, used) = if (0xD800..0xDC00).contains(&cp) {
            let lo = (at(raw, i + 6) == b'\\' && at(raw, i + 7) == b'u')
                .then(|| hex4(raw, i + 8))
                .flatten()
                .filter(|lo| (0xDC00..0xE000).contains(lo));
            match lo {
                Some(lo) => {
                    let c = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    (char::from_u32(c).unwrap_or('\u{FFFD}'), 12)
                }
                None => ('\u{FFFD}', 6),
            }
        } else {
            (char::from_u32(cp).unwrap_or('\u{FFFD}'), 6)
        };
        let mut buf = [0u8; 4];
        if !f(ch.encode_utf8(&mut buf).as_bytes()) {
            return false;
        }
        i += used;
    }
    true
}

/// A JSON value inside a scanned line, read lazily from its raw bytes.
/// Cheap to copy.
///
/// In an object with a key given twice, lookups find the first occurrence,
/// as on the tape.
#[derive(Clone, Copy)]
pub(crate) struct RawValue<'s> {
    /// Starts at the value's first byte; may run past its end (to the end of
    /// the enclosing value) unless `exact`.
    src: &'s [u8],
    exact: bool,
    escaped: Option<bool>,
}

impl fmt::Debug for RawValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawValue({})", String::from_utf8_lossy(self.raw()))
    }
}

impl<'s> RawValue<'s> {
    /// A value known to span exactly `src`, whose string escapes are known
    /// when it is a string.
    pub(crate) fn exact(src: &'s [u8], escaped: bool) -> RawValue<'s> {
        RawValue {
            src,
            exact: true,
            escaped: Some(escaped),
        }
    }

    /// A value starting at `src[0]`.
    pub(crate) fn starting(src: &'s [u8]) -> RawValue<'s> {
        RawValue {
            src,
            exact: false,
            escaped: None,
        }
    }

    /// The JSON type, from the first byte; `None` when the bytes do not
    /// start a JSON value (possible only in trusting mode).
    #[inline]
    pub(crate) fn kind(&self) -> Option<ValueKind> {
        Some(match at(self.src, 0) {
            b'"' => ValueKind::String,
            b'{' => ValueKind::Object,
            b'[' => ValueKind::Array,
            b't' | b'f' => ValueKind::Bool,
            b'n' => ValueKind::Null,
            b'-' | b'0'..=b'9' => ValueKind::Number,
            _ => return None,
        })
    }

    /// The value's bytes exactly as written.
    pub(crate) fn raw(&self) -> &'s [u8] {
        if self.exact {
            return self.src;
        }
        let end = skip_value(self.src, 0).unwrap_or(self.src.len());
        &self.src[..end.min(self.src.len())]
    }

    /// True for `null`.
    #[inline]
    pub(crate) fn is_null(&self) -> bool {
        self.src.starts_with(b"null")
    }

    /// The boolean, if this is `true` or `false`.
    #[inline]
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match at(self.src, 0) {
            b't' if self.src.starts_with(b"true") => Some(true),
            b'f' if self.src.starts_with(b"false") => Some(false),
            _ => None,
        }
    }

    /// The string, raw, if this is a string.
    #[inline]
    pub(crate) fn as_raw_str(&self) -> Option<RawStr<'s>> {
        if at(self.src, 0) != b'"' {
            return None;
        }
        if self.exact {
            let inner = self.src.get(1..self.src.len().checked_sub(1)?)?;
            let escaped = match self.escaped {
                Some(e) => e,
                None => memchr::memchr(b'\\', inner).is_some(),
            };
            return Some(RawStr::new(inner, escaped));
        }
        let (end, escaped) = skip_string(nav(), self.src, 1)?;
        Some(RawStr::new(&self.src[1..end - 1], escaped))
    }

    /// The number's text, if this is a number.
    pub(crate) fn number_text(&self) -> Option<&'s str> {
        if !matches!(at(self.src, 0), b'-' | b'0'..=b'9') {
            return None;
        }
        let end = if self.exact {
            self.src.len()
        } else {
            number(self.src, 0)?
        };
        std::str::from_utf8(self.src.get(..end)?).ok()
    }

    /// Any number as f64 (an out-of-range one as infinity, as on the tape).
    #[inline]
    pub(crate) fn as_f64(&self) -> Option<f64> {
        self.number_text()?.parse().ok()
    }

    /// The value of `key` in this object (the first, if given twice).
    pub(crate) fn get(&self, key: &str) -> Option<RawValue<'s>> {
        self.entries().find(|(k, _)| k.str_eq(key)).map(|(_, v)| v)
    }

    /// The entries of this object, in order (duplicates included); empty for
    /// anything else.
    pub(crate) fn entries(&self) -> RawEntries<'s> {
        let obj = at(self.src, 0) == b'{';
        RawEntries {
            src: self.src,
            i: if obj { 1 } else { self.src.len() },
            first: true,
        }
    }

    /// The elements of this array; empty for anything else.
    pub(crate) fn elements(&self) -> RawElements<'s> {
        let arr = at(self.src, 0) == b'[';
        RawElements {
            src: self.src,
            i: if arr { 1 } else { self.src.len() },
            first: true,
        }
    }
}

/// Iterator over an object's `(key, value)` pairs; from
/// [`RawValue::entries`].
#[derive(Clone, Debug)]
pub(crate) struct RawEntries<'s> {
    src: &'s [u8],
    i: usize,
    first: bool,
}

impl<'s> Iterator for RawEntries<'s> {
    type Item = (RawStr<'s>, RawValue<'s>);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.src;
        let mut i = self.i;
        if self.first {
            self.first = false;
            i = skip_ws(b, i);
        } else {
            // `i` is the start of the previous value: cross it now, so that a
            // lookup that stopped on it never did.
            i = match skip_value(b, i) {
                Some(e) => skip_ws(b, e),
                None => b.len(),
            };
            if at(b, i) != b',' {
                self.i = b.len();
                return None;
            }
            i = skip_ws(b, i + 1);
        }
        if at(b, i) != b'"' {
            self.i = b.len();
            return None;
        }
        let Some((kend, kesc)) = skip_string(nav(), b, i + 1) else {
            self.i = b.len();
            return None;
        };
        let key = RawStr::new(&b[i + 1..kend - 1], kesc);
        let mut j = skip_ws(b, kend);
        if at(b, j) != b':' {
            self.i = b.len();
            return None;
        }
        j = skip_ws(b, j + 1);
        if j >= b.len() {
            self.i = b.len();
            return None;
        }
        self.i = j;
        Some((key, RawValue::starting(&b[j..])))
    }
}

/// Iterator over an array's elements; from [`RawValue::elements`].
#[derive(Clone, Debug)]
pub(crate) struct RawElements<'s> {
    src: &'s [u8],
    i: usize,
    first: bool,
}

impl<'s> Iterator for RawElements<'s> {
    type Item = RawValue<'s>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.src;
        let mut i = self.i;
        if self.first {
            self.first = false;
            i = skip_ws(b, i);
            if at(b, i) == b']' {
                self.i = b.len();
                return None;
            }
        } else {
            i = match skip_value(b, i) {
                Some(e) => skip_ws(b, e),
                None => b.len(),
            };
            if at(b, i) != b',' {
                self.i = b.len();
                return None;
            }
            i = skip_ws(b, i + 1);
        }
        if i >= b.len() {
            self.i = b.len();
            return None;
        }
        self.i = i;
        Some(RawValue::starting(&b[i..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A JSON string body (between the quotes) from pieces: plain text,
    /// whitespace of every kind, escapes, multi-byte characters.
    fn body() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                " ",
                "\\n",
                "\\t",
                "\\r",
                "\\u2028",
                "\u{2028}",
                "\u{a0}",
                "\\u00a0",
                "<",
                ">",
                "tool_use_error",
                "[Request",
                "\\\"",
                "\\\\",
                "é",
                "😀",
                "\\ud83d\\ude00",
                "x",
                "\\ud800",
            ]),
            0..12,
        )
        .prop_map(|v| v.concat())
    }

    /// A longer body: a run of leading whitespace (raw or escaped), then
    /// a body, then plain text, then a body, so that the head read from
    /// the raw bytes ends before the text does, inside the whitespace or
    /// before an escape.
    fn long_body() -> impl Strategy<Value = String> {
        (
            prop::collection::vec(prop::sample::select(vec![" ", "\u{2028}"]), 0..60),
            prop::collection::vec(prop::sample::select(vec![" ", "\\t", "\\n"]), 0..4),
            body(),
            0usize..90,
            body(),
        )
            .prop_map(|(raw, esc, a, n, b)| {
                format!("{}{}{a}{}{b}", raw.concat(), esc.concat(), "y".repeat(n))
            })
    }

    /// `starts_with` of the body `b` (as written between quotes) against
    /// the unescaped text tested with `str`'s methods: for the prefix `p`
    /// and for every `step`th prefix of the text itself, and the whole.
    fn agrees(b: &str, p: &str, trim: bool, step: usize) -> Result<(), TestCaseError> {
        let raw = RawStr::new(b.as_bytes(), b.contains('\\'));
        let text = raw.to_cow();
        let prefix = RawStr::new(p.as_bytes(), p.contains('\\')).to_cow();
        let t = if trim { text.trim_start() } else { &text };
        prop_assert_eq!(raw.starts_with(&prefix, trim), t.starts_with(&*prefix));
        for (i, _) in t.char_indices().step_by(step) {
            prop_assert!(raw.starts_with(&t[..i], trim));
        }
        prop_assert!(raw.starts_with(t, trim));
        Ok(())
    }

    /// The head read from the raw bytes ends inside a run of whitespace,
    /// inside a character: the text is read on (the proptest's first
    /// shrunk case, kept in `proptest-regressions/json/raw.txt`).
    #[test]
    fn a_head_ending_inside_a_whitespace_character_reads_on() {
        let b = format!("{}{}x{}", " ".repeat(13), "\u{2028}".repeat(30), "\\n");
        let raw = RawStr::new(b.as_bytes(), true);
        assert!(raw.starts_with("x", true) && raw.starts_with("x\n", true));
        assert!(!raw.starts_with("x", false) && !raw.starts_with("y", true));
    }

    proptest! {
        #[test]
        fn starts_with_reads_a_long_text_as_its_unescaped_text(b in long_body(), p in body(), trim in any::<bool>()) {
            agrees(&b, &p, trim, 7)?;
        }

        #[test]
        fn starts_with_is_the_unescaped_text_tested(b in body(), p in body(), trim in any::<bool>()) {
            agrees(&b, &p, trim, 1)?;
        }
    }
}
