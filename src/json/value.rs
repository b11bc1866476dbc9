//! The lazy value: one type for a JSON value of a line, whichever stage
//! holds the line.
//!
//! A [`Value`] reads, by default, the structural index the validating
//! scanner wrote ([`Index`](super::Index)): [`get`](Value::get) steps from
//! member to member of an object through the index (never through the
//! bytes of the members it passes), a string is borrowed from the line and
//! unescaped only when it holds an escape, a number is read from its text
//! only when asked for. Two other stages hold lines behind the same type: a
//! simd-json tape ([`tape::Document::value`](super::tape::Document::value),
//! opt in: owned documents, whole-document filters, differential tests) and
//! the unchecked bytes of a line scanned in trusting mode
//! ([`ScanMode::Trusting`](super::ScanMode::Trusting)), where a malformed
//! value reads as absent. Every answer is the same whichever stage holds
//! the line. Nothing here allocates but [`Value::as_str`] on a string with
//! escapes.

use super::index::{FLAG, Node, is_container, key_end};
use super::number::{Number, ValueKind, kind_of_first, number_of_text};
use super::paths::Paths;
use super::raw::{RawElements, RawEntries, RawStr, RawValue};
use super::strings::Strings;
use super::tape;
use std::fmt;
use std::ops::Range;

mod members;
pub(crate) use members::{Members, Tabled};

/// A JSON value of a line, read lazily. Cheap to copy.
///
/// In an object with a key given twice, lookups find the first occurrence.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::{Number, Scanner, ValueKind};
///
/// let input = br#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"a\nb"}],"usage":{"output_tokens":7}},"cost":1e400}"#;
/// let mut scanner = Scanner::new();
/// let line = Lines::new(input).next().unwrap();
/// let ev = scanner.scan(&line).unwrap();
/// let root = ev.value();
/// assert_eq!(root.kind(), ValueKind::Object);
/// assert_eq!(root.get_path("message.usage.output_tokens").and_then(|v| v.as_u64()), Some(7));
/// let text = root.get_path("message.content.0.text").unwrap();
/// assert_eq!(text.as_str(), Some("a\nb"));
/// assert_eq!(text.raw(), Some(&br#""a\nb""#[..]));
/// assert_eq!(root.get("cost").and_then(|v| v.number()), Some(Number::Big("1e400")));
/// ```
#[derive(Clone, Copy)]
pub struct Value<'a> {
    repr: Repr<'a>,
}

#[derive(Clone, Copy)]
enum Repr<'a> {
    Index(Indexed<'a>),
    Tape(tape::Value<'a>),
    Bytes(RawValue<'a>, &'a Strings),
}

/// A node of an index, with the line it indexes and the arena its escaped
/// strings are unescaped into.
#[derive(Clone, Copy)]
struct Indexed<'a> {
    b: &'a [u8],
    nodes: &'a [Node],
    at: usize,
    strings: &'a Strings,
}

/// A node and what it reads: the default for lines read through an
/// [`Index`](super::Index).
impl<'a> Indexed<'a> {
    #[inline(always)]
    fn node(&self) -> Node {
        // Every Indexed is made for a value's node of its slice (the root,
        // or a node reached through the links inside its container).
        self.nodes.get(self.at).copied().unwrap_or(Node::EMPTY)
    }

    #[inline(always)]
    fn first(&self) -> u8 {
        self.b.get(self.node().start as usize).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn kind(&self) -> ValueKind {
        kind_of_first(self.first())
    }

    #[inline(always)]
    fn at(&self, at: usize) -> Indexed<'a> {
        Indexed { at, ..*self }
    }

    #[inline(always)]
    fn raw(&self) -> &'a [u8] {
        let n = self.node();
        self.b.get(n.start as usize..n.end()).unwrap_or_default()
    }

    #[inline(always)]
    fn raw_str(&self) -> Option<RawStr<'a>> {
        let n = self.node();
        if self.first() != b'"' {
            return None;
        }
        let inner = self.b.get(n.start as usize + 1..n.end().checked_sub(1)?)?;
        Some(RawStr::new(inner, n.escaped()))
    }

    /// The node after node `j` and its subtree.
    #[inline(always)]
    fn after(&self, j: usize) -> usize {
        match self.nodes.get(j) {
            Some(m) if is_container(self.b.get(m.start as usize).copied().unwrap_or(0)) => {
                m.next as usize
            }
            Some(_) => j + 1,
            None => usize::MAX,
        }
    }

    /// The children of a container: from two nodes past it (its own and
    /// its parent's) to its `next`.
    #[inline(always)]
    fn children(&self) -> (usize, usize) {
        (self.at + 2, self.node().next as usize)
    }

    /// Member `j`'s key.
    #[inline(always)]
    fn key(&self, m: &Node) -> RawStr<'a> {
        let ks = m.key_start();
        let ke = key_end(self.b, m.start as usize);
        RawStr::new(self.b.get(ks..ke).unwrap_or_default(), m.key_escaped())
    }

    #[inline]
    fn get(&self, key: &str) -> Option<Indexed<'a>> {
        if self.first() != b'{' {
            return None;
        }
        let want = key.as_bytes();
        let n = want.len();
        // An unescaped key holds no quote: a member whose first key bytes
        // are `want` with a quote after them is a candidate (most members
        // fail at their first byte), and where the key ends is found for
        // candidates only (it ends there unless `want` holds a quote).
        let lead = want.first().copied().unwrap_or(b'"');
        let (mut j, end) = self.children();
        while j < end {
            let m = self.nodes.get(j)?;
            let (ks, start) = (m.key_start(), m.start as usize);
            if !m.key_escaped() {
                let found = self.b.get(ks) == Some(&lead)
                    && self.b.get(ks + n) == Some(&b'"')
                    && self.b.get(ks..ks + n) == Some(want)
                    && key_end(self.b, start) == ks + n;
                if found {
                    return Some(self.at(j));
                }
            } else if RawStr::new(self.b.get(ks..key_end(self.b, start))?, true).str_eq(key) {
                return Some(self.at(j));
            }
            j = if is_container(self.b.get(start).copied().unwrap_or(0)) {
                m.next as usize
            } else {
                j + 1
            };
        }
        None
    }

    #[inline]
    fn index(&self, i: usize) -> Option<Indexed<'a>> {
        if self.first() != b'[' {
            return None;
        }
        let (mut j, end) = self.children();
        for _ in 0..i {
            if j >= end {
                return None;
            }
            j = self.after(j);
        }
        (j < end).then(|| self.at(j))
    }

    fn count(&self) -> usize {
        let (mut j, end) = self.children();
        let mut n = 0;
        while j < end {
            n += 1;
            j = self.after(j);
        }
        n
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            ValueKind::Null => f.write_str("null"),
            ValueKind::Bool => write!(f, "{}", self.as_bool().unwrap_or_default()),
            ValueKind::Number => write!(f, "{:?}", self.number()),
            ValueKind::String => write!(f, "{:?}", self.as_str().unwrap_or_default()),
            ValueKind::Array => f.debug_list().entries(self.elements()).finish(),
            ValueKind::Object => f.debug_map().entries(self.entries()).finish(),
        }
    }
}

impl<'a> From<tape::Value<'a>> for Value<'a> {
    /// The tape backend: a value of a line parsed into a simd-json tape
    /// (made by [`tape::Document::value`]).
    fn from(v: tape::Value<'a>) -> Value<'a> {
        Value {
            repr: Repr::Tape(v),
        }
    }
}

impl<'a> Value<'a> {
    /// The value at node `at` of an index of `b`.
    #[inline]
    pub(crate) fn indexed(
        b: &'a [u8],
        nodes: &'a [Node],
        at: usize,
        strings: &'a Strings,
    ) -> Value<'a> {
        Value {
            repr: Repr::Index(Indexed {
                b,
                nodes,
                at,
                strings,
            }),
        }
    }

    /// The value at an index's node: read through the index, or from its
    /// validated bytes when it is a container the index does not reach
    /// ([`IndexDepth::TopLevel`](super::IndexDepth::TopLevel) seals the
    /// top-level containers: their end carries [`FLAG`]).
    #[inline(always)]
    fn of(x: Indexed<'a>) -> Value<'a> {
        let n = x.node();
        if n.end & FLAG != 0 && is_container(x.first()) {
            return Value::unchecked(RawValue::exact(x.raw(), false), x.strings);
        }
        Value {
            repr: Repr::Index(x),
        }
    }

    /// The whole index of `line`, when this is its root read through one
    /// from those very bytes.
    pub(crate) fn root_nodes(&self, line: &[u8]) -> Option<&'a [Node]> {
        match self.repr {
            Repr::Index(x) if x.at == 0 && std::ptr::eq(x.b, line) => Some(x.nodes),
            _ => None,
        }
    }

    /// A value read from unchecked bytes (trusting mode).
    #[inline]
    pub(crate) fn unchecked(v: RawValue<'a>, strings: &'a Strings) -> Value<'a> {
        Value {
            repr: Repr::Bytes(v, strings),
        }
    }

    /// The text of a string of this value's line (a key from
    /// [`entries`](Value::entries)): borrowed when it holds no escape,
    /// unescaped into the line's arena when it does.
    #[inline]
    pub(crate) fn text(&self, s: RawStr<'a>) -> &'a str {
        match &self.repr {
            Repr::Index(x) => x.strings.text(s),
            Repr::Bytes(_, strings) => strings.text(s),
            // Tape strings are unescaped already.
            Repr::Tape(_) => s.as_str().unwrap_or_default(),
        }
    }

    /// Note that a typed read found the wrong JSON type here (the views
    /// call it). Counted on a tape's document
    /// ([`tape::Document::type_mismatches`]); nothing is kept otherwise.
    #[inline]
    pub(crate) fn note_mismatch(&self) {
        if let Repr::Tape(v) = &self.repr {
            v.note_mismatch();
        }
    }

    /// True when this is a string whose text, its leading whitespace
    /// skipped when `trim` (what [`str::trim_start`] skips), starts with
    /// `prefix`: decoded only as far as that takes, not the whole string
    /// (see [`RawStr::starts_with`]). Does not allocate.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","t":"\n  <tool_use_error>no such file"}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// let t = root.get("t").unwrap();
    /// assert!(t.str_starts_with("<tool_use_error>", true));
    /// assert!(!t.str_starts_with("<tool_use_error>", false));
    /// assert!(!root.get("type").unwrap().str_starts_with("<", true));
    /// ```
    #[inline]
    pub fn str_starts_with(&self, prefix: &str, trim: bool) -> bool {
        match &self.repr {
            Repr::Tape(v) => v
                .as_str()
                .is_some_and(|s| if trim { s.trim_start() } else { s }.starts_with(prefix)),
            _ => self
                .as_raw_str()
                .is_some_and(|s| s.starts_with(prefix, trim)),
        }
    }

    /// The JSON type.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","n":[1]}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// use cctape::json::ValueKind;
    /// assert_eq!(root.get("n").unwrap().kind(), ValueKind::Array);
    /// ```
    #[inline]
    pub fn kind(&self) -> ValueKind {
        match &self.repr {
            Repr::Index(x) => x.kind(),
            Repr::Tape(v) => v.kind(),
            // Values whose bytes start no JSON value are never handed out.
            Repr::Bytes(r, _) => r.kind().unwrap_or(ValueKind::Null),
        }
    }

    /// True for `null`.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","p":null}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert!(root.get("p").unwrap().is_null());
    /// assert!(!root.get("type").unwrap().is_null());
    /// ```
    #[inline]
    pub fn is_null(&self) -> bool {
        match &self.repr {
            Repr::Index(x) => x.first() == b'n',
            Repr::Tape(v) => v.is_null(),
            Repr::Bytes(r, _) => r.is_null(),
        }
    }

    /// The boolean, if this is `true` or `false`.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","is_error":false}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("is_error").and_then(|v| v.as_bool()), Some(false));
    /// assert_eq!(root.get("type").and_then(|v| v.as_bool()), None);
    /// ```
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match &self.repr {
            Repr::Index(x) => match x.first() {
                b't' => Some(true),
                b'f' => Some(false),
                _ => None,
            },
            Repr::Tape(v) => v.as_bool(),
            Repr::Bytes(r, _) => r.as_bool(),
        }
    }

    /// The string, if this is a string: borrowed from the line when it holds
    /// no escape, unescaped (once) into the arena of the line's buffer
    /// ([`Strings`]) when it does (a lone surrogate escape reads as U+FFFD).
    /// Allocates nothing once that arena has grown. To compare without
    /// unescaping, use [`as_raw_str`](Value::as_raw_str) or
    /// [`str_eq`](Value::str_eq).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","a":"plain","b":"tab\there"}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("a").unwrap().as_str(), Some("plain"));
    /// assert_eq!(root.get("b").unwrap().as_str(), Some("tab\there"));
    /// ```
    #[inline]
    pub fn as_str(&self) -> Option<&'a str> {
        match &self.repr {
            Repr::Index(x) => x.raw_str().map(|s| x.strings.text(s)),
            Repr::Tape(v) => v.as_str(),
            Repr::Bytes(r, strings) => r.as_raw_str().map(|s| strings.text(s)),
        }
    }

    /// The string as written between its quotes, if this is a string: its
    /// raw bytes, whether it holds escapes, comparisons and unescaping into a
    /// buffer of the caller's, none of which allocates. Over a tape the
    /// string is already unescaped (and reads as holding no escape).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","b":"tab\there"}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// let s = root.get("b").unwrap().as_raw_str().unwrap();
    /// assert_eq!(s.raw(), br"tab\there");
    /// assert!(s.has_escapes() && s.str_eq("tab\there"));
    /// let mut buf = String::new();
    /// assert_eq!(s.to_str_in(&mut buf), "tab\there");
    /// ```
    #[inline]
    pub fn as_raw_str(&self) -> Option<RawStr<'a>> {
        match &self.repr {
            Repr::Index(x) => x.raw_str(),
            Repr::Tape(v) => v.as_str().map(|s| RawStr::new(s.as_bytes(), false)),
            Repr::Bytes(r, _) => r.as_raw_str(),
        }
    }

    /// True when this is a string whose unescaped text equals `s`. Does not
    /// allocate.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"tool_\u0075se"}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert!(root.get("type").unwrap().str_eq("tool_use"));
    /// ```
    #[inline]
    pub fn str_eq(&self, s: &str) -> bool {
        self.as_raw_str().is_some_and(|r| r.str_eq(s))
    }

    /// The number, if this is a number: an integer that fits u64 or i64, a
    /// fraction or exponent that fits f64, or, beyond those, its text
    /// ([`Number::Big`]), exactly as the tape reads it.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","n":[7,-2,0.5,18446744073709551616]}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// use cctape::json::Number;
    /// let n: Vec<_> = root.get("n").unwrap().elements().filter_map(|v| v.number()).collect();
    /// assert_eq!(n, [Number::U64(7), Number::I64(-2), Number::F64(0.5), Number::Big("18446744073709551616")]);
    /// ```
    #[inline]
    pub fn number(&self) -> Option<Number<'a>> {
        match &self.repr {
            Repr::Tape(v) => v.number(),
            // A short integer (token counts, durations) read in one pass
            // over its digits, with no check of its text first.
            Repr::Index(x) if x.kind() == ValueKind::Number => {
                super::number::short_integer(x.raw())
                    .or_else(|| self.number_text().map(number_of_text))
            }
            _ => self.number_text().map(number_of_text),
        }
    }

    /// The number's text as written, if this is a number.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","c":1.50}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("c").unwrap().number_text(), Some("1.50"));
    /// ```
    #[inline]
    pub fn number_text(&self) -> Option<&'a str> {
        match &self.repr {
            Repr::Index(x) => {
                if x.kind() != ValueKind::Number {
                    return None;
                }
                super::simd::ascii_str(x.raw())
            }
            Repr::Tape(_) => None,
            Repr::Bytes(r, _) => r.number_text(),
        }
    }

    /// The number as u64, if it is an integer that fits (`1.0` and `1e2`
    /// are not integers; `-0` is 0).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","a":3,"b":-3,"c":3.0}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("a").and_then(|v| v.as_u64()), Some(3));
    /// assert_eq!(root.get("b").and_then(|v| v.as_u64()), None);
    /// assert_eq!(root.get("c").and_then(|v| v.as_u64()), None);
    /// ```
    #[inline]
    pub fn as_u64(&self) -> Option<u64> {
        match &self.repr {
            Repr::Tape(v) => v.as_u64(),
            _ => self.number()?.to_u64().ok(),
        }
    }

    /// The number as i64, if it is an integer that fits.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","b":-3}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("b").and_then(|v| v.as_i64()), Some(-3));
    /// ```
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match &self.repr {
            Repr::Tape(v) => v.as_i64(),
            _ => self.number()?.to_i64().ok(),
        }
    }

    /// Any number as f64 (one beyond f64 as infinity, as on the tape).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","c":0.25,"d":2}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("c").and_then(|v| v.as_f64()), Some(0.25));
    /// assert_eq!(root.get("d").and_then(|v| v.as_f64()), Some(2.0));
    /// ```
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        match &self.repr {
            Repr::Tape(v) => v.as_f64(),
            _ => self.number().map(Number::to_f64),
        }
    }

    /// Number of members (object) or elements (array); 0 otherwise.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","n":[1,[2,3],{}]}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.len(), 2);
    /// assert_eq!(root.get("n").unwrap().len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Index(x) if is_container(x.first()) => x.count(),
            Repr::Index(_) => 0,
            Repr::Tape(v) => v.len(),
            Repr::Bytes(..) => match self.kind() {
                ValueKind::Object => self.entries().raw().count(),
                ValueKind::Array => self.elements().count(),
                _ => 0,
            },
        }
    }

    /// True when [`len`](Value::len) is 0.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","n":[]}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert!(root.get("n").unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `key` in this object (the first, if given twice): over
    /// the index, a step from member to member that compares keys as raw
    /// bytes and never reads the members' values.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","a":1,"a":2}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("a").and_then(|v| v.as_u64()), Some(1));
    /// assert!(root.get("b").is_none());
    /// ```
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        match &self.repr {
            Repr::Index(x) => x.get(key).map(Value::of),
            Repr::Tape(v) => v.get(key).map(Value::from),
            Repr::Bytes(r, strings) => r
                .get(key)
                .filter(|v| v.kind().is_some())
                .map(|v| Value::unchecked(v, strings)),
        }
    }

    /// The `i`th element of this array.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","n":[10,20]}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// let n = root.get("n").unwrap();
    /// assert_eq!(n.index(1).and_then(|v| v.as_u64()), Some(20));
    /// assert!(n.index(2).is_none());
    /// ```
    pub fn index(&self, i: usize) -> Option<Value<'a>> {
        match &self.repr {
            Repr::Index(x) => x.index(i).map(Value::of),
            Repr::Tape(v) => v.index(i).map(Value::from),
            Repr::Bytes(..) => self.elements().nth(i),
        }
    }

    /// One step of a path: a key in an object, an index in an array.
    #[inline]
    pub(crate) fn step(&self, part: &str) -> Option<Value<'a>> {
        match self.kind() {
            ValueKind::Array => self.index(part.parse().ok()?),
            _ => self.get(part),
        }
    }

    /// Follow a dotted path: object keys, and array indexes as numbers
    /// (`"message.content.0.type"`); the empty path is this value. A key
    /// that holds a dot cannot be reached this way; use
    /// [`pointer`](Value::pointer) or [`get`](Value::get).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","message":{"usage":{"output_tokens":5}}}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get_path("message.usage.output_tokens").and_then(|v| v.as_u64()), Some(5));
    /// assert!(root.get_path("message.model").is_none());
    /// ```
    pub fn get_path(&self, path: &str) -> Option<Value<'a>> {
        if path.is_empty() {
            return Some(*self);
        }
        let mut v = *self;
        for part in path.split('.') {
            v = v.step(part)?;
        }
        Some(v)
    }

    /// Follow a path given as separate steps (numbers index arrays).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","a.b":{"c":[true]}}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.pointer(&["a.b", "c", "0"]).and_then(|v| v.as_bool()), Some(true));
    /// ```
    pub fn pointer(&self, steps: &[&str]) -> Option<Value<'a>> {
        let mut v = *self;
        for s in steps {
            v = v.step(s)?;
        }
        Some(v)
    }

    /// The values at many paths at once, in one walk: `out[k]` becomes the
    /// value at the `k`th path of `paths` (or `None`). Each object on the
    /// way is crossed once for every path below it, not once a path, and
    /// the walk leaves an object as soon as every key wanted there is found
    /// (sonic-rs's `get_many` over a `PointerTree`). Answers are those of
    /// [`get_path`](Value::get_path), duplicate keys included.
    ///
    /// # Panics
    ///
    /// When `out` is shorter than [`Paths::len`].
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":3,"output_tokens":5}},"session_id":"s"}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// use cctape::json::Paths;
    /// let paths = Paths::new(["message.id", "message.usage.output_tokens", "session_id", "uuid"]);
    /// let mut out = [None; 4];
    /// root.get_many(&paths, &mut out);
    /// assert!(out[0].unwrap().str_eq("m1"));
    /// assert_eq!(out[1].and_then(|v| v.as_u64()), Some(5));
    /// assert!(out[2].unwrap().str_eq("s"));
    /// assert!(out[3].is_none());
    /// ```
    pub fn get_many(&self, paths: &Paths, out: &mut [Option<Value<'a>>]) {
        paths.fill(*self, out);
    }

    /// The members of this object in their order (duplicates included);
    /// empty for anything else.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","u":{"a":1,"b":2}}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// let keys: Vec<_> = root.get("u").unwrap().entries().map(|(k, v)| (k, v.as_u64())).collect();
    /// assert_eq!(keys, [("a".into(), Some(1)), ("b".into(), Some(2))]);
    /// ```
    pub fn entries(&self) -> Entries<'a> {
        let repr = match &self.repr {
            Repr::Index(x) if x.first() == b'{' => {
                let (j, end) = x.children();
                EntriesRepr::Index(*x, j, end)
            }
            Repr::Index(_) => EntriesRepr::Empty,
            Repr::Tape(v) => EntriesRepr::Tape(v.entries()),
            Repr::Bytes(r, strings) => EntriesRepr::Bytes(r.entries(), strings),
        };
        Entries { repr }
    }

    /// The elements of this array; empty for anything else.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","n":[1,"two",null]}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("n").unwrap().elements().count(), 3);
    /// assert_eq!(root.elements().count(), 0);
    /// ```
    pub fn elements(&self) -> Elements<'a> {
        let repr = match &self.repr {
            Repr::Index(x) if x.first() == b'[' => {
                let (j, end) = x.children();
                ElementsRepr::Index(*x, j, end)
            }
            Repr::Index(_) => ElementsRepr::Empty,
            Repr::Tape(v) => ElementsRepr::Tape(v.elements()),
            Repr::Bytes(r, strings) => ElementsRepr::Bytes(r.elements(), strings),
        };
        Elements { repr }
    }

    /// The value's bytes exactly as written; `None` over a tape, which
    /// keeps none.
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x","u":{"a": [1, 2]}}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("u").unwrap().raw(), Some(&br#"{"a": [1, 2]}"#[..]));
    /// ```
    pub fn raw(&self) -> Option<&'a [u8]> {
        match &self.repr {
            Repr::Index(x) => Some(x.raw()),
            Repr::Tape(_) => None,
            Repr::Bytes(r, _) => Some(r.raw()),
        }
    }

    /// Where the value is in its line, as byte offsets (over the index
    /// only; `None` otherwise).
    ///
    /// ```
    /// # use cctape::{framing::Lines, json::Scanner};
    /// # let mut scanner = Scanner::new();
    /// # let line = Lines::new(br#"{"type":"x"}"#).next().unwrap();
    /// # let root = scanner.scan(&line).unwrap().value();
    /// assert_eq!(root.get("type").unwrap().span(), Some(8..11));
    /// ```
    pub fn span(&self) -> Option<Range<usize>> {
        match &self.repr {
            Repr::Index(x) => {
                let n = x.node();
                Some(n.start as usize..n.end())
            }
            _ => None,
        }
    }
}

/// Iterator over an object's `(key, value)` pairs; from [`Value::entries`].
#[derive(Clone)]
pub struct Entries<'a> {
    repr: EntriesRepr<'a>,
}

#[derive(Clone)]
enum EntriesRepr<'a> {
    Empty,
    Index(Indexed<'a>, usize, usize),
    Tape(tape::Entries<'a>),
    Bytes(RawEntries<'a>, &'a Strings),
}

impl fmt::Debug for Entries<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entries").finish_non_exhaustive()
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, Value<'a>);

    /// The next member, its key read as [`Value::as_str`] reads a string.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (k, v) = self.next_raw()?;
        Some((v.text(k), v))
    }
}

impl<'a> Entries<'a> {
    /// The next member with its key as written (compared without
    /// unescaping).
    #[inline]
    pub(crate) fn next_raw(&mut self) -> Option<(RawStr<'a>, Value<'a>)> {
        match &mut self.repr {
            EntriesRepr::Empty => None,
            EntriesRepr::Index(x, j, end) => {
                if *j >= *end {
                    return None;
                }
                let m = x.nodes.get(*j)?;
                let key = x.key(m);
                let v = Value::of(x.at(*j));
                *j = x.after(*j);
                Some((key, v))
            }
            EntriesRepr::Tape(t) => t
                .next()
                .map(|(k, v)| (RawStr::new(k.as_bytes(), false), Value::from(v))),
            EntriesRepr::Bytes(r, strings) => r
                .find(|(_, v)| v.kind().is_some())
                .map(|(k, v)| (k, Value::unchecked(v, strings))),
        }
    }

    /// The members with their keys as written.
    #[inline]
    pub(crate) fn raw(self) -> impl Iterator<Item = (RawStr<'a>, Value<'a>)> {
        let mut e = self;
        std::iter::from_fn(move || e.next_raw())
    }
}

/// Iterator over an array's elements; from [`Value::elements`].
#[derive(Clone)]
pub struct Elements<'a> {
    repr: ElementsRepr<'a>,
}

#[derive(Clone)]
enum ElementsRepr<'a> {
    Empty,
    Index(Indexed<'a>, usize, usize),
    Tape(tape::ArrayElements<'a>),
    Bytes(RawElements<'a>, &'a Strings),
}

impl fmt::Debug for Elements<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Elements").finish_non_exhaustive()
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.repr {
            ElementsRepr::Empty => None,
            ElementsRepr::Index(x, j, end) => {
                if *j >= *end {
                    return None;
                }
                let v = Value::of(x.at(*j));
                *j = x.after(*j);
                Some(v)
            }
            ElementsRepr::Tape(t) => t.next().map(Value::from),
            // A malformed element ends the array (as it ends RawElements).
            ElementsRepr::Bytes(r, strings) => r
                .next()
                .filter(|v| v.kind().is_some())
                .map(|v| Value::unchecked(v, strings)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::framing::Lines;
    use crate::json::Scanner;

    /// `get` through the index: keys of every shape, including wanted keys
    /// holding a quote (which an unescaped key cannot) and the empty key.
    #[test]
    fn get_finds_keys_of_every_shape() {
        let src = br#"{"a":"\"b","":1,"a\":":2,"ab":3,"b\u0063":4,"x" : 5,"a\"":6}"#;
        let mut sc = Scanner::new();
        let line = Lines::new(src).next().unwrap();
        let root = sc.validate(&line).unwrap();
        let n = |k: &str| root.get(k).and_then(|v| v.as_u64());
        assert_eq!(root.get("a").and_then(|v| v.as_str()), Some("\"b"));
        assert_eq!(n(""), Some(1));
        assert_eq!(n("a\":"), Some(2));
        assert_eq!(n("ab"), Some(3));
        assert_eq!(n("bc"), Some(4));
        assert_eq!(n("x"), Some(5));
        assert_eq!(n("a\""), Some(6));
        assert_eq!(n("a\":\""), None);
        assert_eq!(n("b"), None);
        assert_eq!(n("abc"), None);
    }
}
