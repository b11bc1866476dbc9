//! The scanner: validate a line, write its structural index and classify
//! it, without unescaping a string or building a tape.
//!
//! What holds a tape parser near 2 GB/s on these streams is not JSON
//! structure but the escapes inside long strings (tool results are source
//! code: about 40 backslashes a KB), all unescaped into the tape whether
//! read or not. The [`Scanner`] checks the same things the tape path checks
//! and reads nothing it is not asked for:
//!
//! - the whole line against RFC 8259: grammar, UTF-8, escapes (`\uXXXX` hex
//!   digits; lone surrogates accepted, as the tape path does), no control
//!   characters inside strings, numbers of any size, depth at most 1024 with
//!   the root object as level 1, nothing but whitespace after the root;
//! - strings 64 bytes at a time with SIMD masks (quote, backslash, control,
//!   high bit; escape classes where a block has a backslash), chosen at run
//!   time ([`Backend`]), never byte by byte;
//! - the structural index of the line ([`Index`]: every value's span, each
//!   member's key span, escape flags, each container's end and parent),
//!   written in the same pass, from which `type` and `subtype` give the
//!   [`EventKind`], with the same errors
//!   [`parse_event`](crate::event::parse_event) gives: a bad line fails with
//!   the same [`ErrorKind`].
//!
//! Fields are then read through the index by [`Value`]
//! ([`Scanned::value`]), which jumps from member to member and decodes only
//! what it returns. Build a tape ([`Parser`](crate::json::tape::Parser))
//! only for the lines a query needs whole.
//!
//! [`ScanMode::Trusting`] goes further for input known to be good: it reads
//! `type` (and `subtype` where the kind depends on it) and stops; the rest of
//! the line is never checked, no index is written, and fields are read from
//! bytes nobody validated. Off by default.
//!
//! ```
//! use cctape::framing::Lines;
//! use cctape::json::Scanner;
//! use cctape::EventKind;
//!
//! let input = br#"{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":3,"output_tokens":5}},"session_id":"s1"}"#;
//! let mut scanner = Scanner::new();
//! let line = Lines::new(input).next().unwrap();
//! let scanned = scanner.scan(&line).unwrap();
//! assert_eq!(scanned.kind(), EventKind::Assistant);
//! let ev = scanned.event();
//! assert_eq!(ev.session_id(), Some("s1"));
//! assert_eq!(ev.usage().unwrap().output_tokens, 5);
//! assert!(scanned.value().get_path("message.id").unwrap().str_eq("msg_1"));
//! ```

use super::index::{Index, Node, is_container, key_end};
use super::number::{ValueKind, kind_of_first};
use super::raw::{RawStr, RawValue};
use super::simd;
use super::strings::Strings;
use super::validate::{self, Outcome};
use super::value::Value;
use crate::error::{Error, ErrorKind, Position};
use crate::event::EventKind;
use crate::framing::Line;
use std::fmt;

/// Which instructions the scanner crosses strings with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// One byte at a time; every platform.
    Scalar,
    /// 16 bytes at a time (x86_64 baseline).
    Sse2,
    /// 32 bytes at a time (x86_64 with AVX2, detected at run time).
    Avx2,
    /// 64 bytes at a time (x86_64 with AVX-512 F and BW, detected at run
    /// time).
    Avx512,
}

impl Backend {
    /// The fastest backend this CPU runs, detected at run time.
    pub fn detect() -> Backend {
        [Backend::Avx512, Backend::Avx2, Backend::Sse2]
            .into_iter()
            .find(|b| b.is_available())
            .unwrap_or(Backend::Scalar)
    }

    /// True when this CPU can run this backend.
    pub(crate) fn is_available(self) -> bool {
        simd::available(self)
    }

    /// Every backend this CPU can run, slowest first.
    pub fn available() -> impl Iterator<Item = Backend> {
        [
            Backend::Scalar,
            Backend::Sse2,
            Backend::Avx2,
            Backend::Avx512,
        ]
        .into_iter()
        .filter(|b| b.is_available())
    }

    /// A short lowercase name (`avx2`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Sse2 => "sse2",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }
}

/// How much of a line the scanner checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanMode {
    /// Every byte checked as the tape path would; a bad line fails with the
    /// tape path's error kind. The default.
    #[default]
    Validated,
    /// Only what is needed to find `type` and `subtype` is read; the rest of
    /// the line is trusted to be JSON. Fields read later come from unchecked
    /// bytes (a malformed one reads as absent). For input known to be good.
    Trusting,
}

/// How deep the validating scan writes the structural index.
///
/// The index costs a few stores a value; a command that reads only
/// `type`, `subtype` and top-level fields (classification, `filter`)
/// indexes the top level and pays for nothing else. Every value is read
/// alike either way: a container the index does not reach is read from
/// its validated bytes.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::{IndexDepth, Scanner};
///
/// let mut scanner = Scanner::new();
/// scanner.set_index_depth(IndexDepth::TopLevel);
/// let line = Lines::new(br#"{"type":"result","usage":{"a":1,"b":[2,3]}}"#).next().unwrap();
/// let ev = scanner.scan(&line).unwrap();
/// assert_eq!(ev.value().get_path("usage.b.1").and_then(|v| v.as_u64()), Some(3));
/// // the root's two nodes, `"result"`, and `usage`'s two (its inside is
/// // read from its bytes)
/// assert_eq!(scanner.index().len(), 5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexDepth {
    /// Every value of the line (the default): a nested `get` jumps.
    #[default]
    Full,
    /// The root and its members only; what is inside a top-level
    /// container is validated but not indexed.
    TopLevel,
}

/// Buffers the validator fills.
#[derive(Default)]
pub(crate) struct Scratch {
    /// How deep the index goes.
    pub(crate) depth: IndexDepth,
    /// The line's structural index.
    pub(crate) index: Index,
    /// Where the validator saw the top-level keys `type` and `subtype`
    /// (node indexes), when [`Scratch::keys_plain`] holds.
    pub(crate) type_at: Option<u32>,
    /// As `type_at`, for `subtype`.
    pub(crate) subtype_at: Option<u32>,
    /// No top-level key was escaped and neither `type` nor `subtype` came
    /// twice: `type_at` and `subtype_at` are the whole answer, no need to
    /// compare every key again.
    pub(crate) keys_plain: bool,
}

/// Validates and indexes lines, reusing its buffers: after the first lines
/// it allocates nothing.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::Scanner;
/// use cctape::{ErrorKind, EventKind};
///
/// let mut scanner = Scanner::new();
/// let mut lines = Lines::new(b"{\"type\":\"result\",\"subtype\":\"success\",\"num_turns\":2}\n{\"type\":\"user\",\"x\":[1,}\n");
/// let ok = lines.next().unwrap();
/// let ev = scanner.scan(&ok).unwrap();
/// assert_eq!(ev.kind(), EventKind::ResultSuccess);
/// assert_eq!(ev.event().num_turns(), Some(2));
/// let bad = lines.next().unwrap();
/// assert_eq!(scanner.scan(&bad).unwrap_err().kind(), ErrorKind::InvalidJson);
/// ```
pub struct Scanner {
    scratch: Scratch,
    /// Where the line's strings with escapes are unescaped when read as
    /// `&str` (reset for every line).
    strings: Strings,
    backend: Backend,
    type_buf: String,
    subtype_buf: String,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner::new()
    }
}

impl fmt::Debug for Scanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scanner")
            .field("backend", &self.backend)
            .field("index_capacity", &self.scratch.index.capacity())
            .finish()
    }
}

impl Scanner {
    /// A scanner with the fastest backend this CPU runs.
    pub fn new() -> Scanner {
        Scanner {
            scratch: Scratch {
                index: Index::with_capacity(64),
                ..Scratch::default()
            },
            strings: Strings::new(),
            backend: Backend::detect(),
            type_buf: String::new(),
            subtype_buf: String::new(),
        }
    }

    /// A scanner with the given backend, or `None` when this CPU cannot run
    /// it (every backend gives the same answers; this is for tests and
    /// benchmarks).
    pub fn with_backend(backend: Backend) -> Option<Scanner> {
        if !backend.is_available() {
            return None;
        }
        let mut s = Scanner::new();
        s.backend = backend;
        Some(s)
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Index lines to `depth` from the next line on ([`IndexDepth::Full`]
    /// unless set).
    pub fn set_index_depth(&mut self, depth: IndexDepth) {
        self.scratch.depth = depth;
    }

    /// The structural index of the line scanned last (empty after a line
    /// scanned in trusting mode; partial after a line that failed).
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"result","usage":{"a":1,"b":[2,3]}}"#).next().unwrap();
    /// scanner.scan(&line).unwrap();
    /// // two nodes for each container (the root, `usage`, `b`), one for each
    /// // scalar (`"result"`, 1, 2 and 3)
    /// assert_eq!(scanner.index().len(), 10);
    /// ```
    pub fn index(&self) -> &Index {
        &self.scratch.index
    }

    /// Scan one line in `mode`.
    pub fn scan_with<'s>(
        &'s mut self,
        line: &Line<'s>,
        mode: ScanMode,
    ) -> Result<Scanned<'s>, Error> {
        match mode {
            ScanMode::Validated => self.scan(line),
            ScanMode::Trusting => self.scan_trusting(line),
        }
    }

    /// Validate one line, index its top-level object and classify it.
    ///
    /// Accepts exactly the lines [`parse_event`](crate::event::parse_event)
    /// accepts, with the same [`EventKind`]; a rejected line fails with the
    /// same [`ErrorKind`] (`invalid_json`, `invalid_utf8`, `not_an_object`,
    /// `missing_type`, `duplicate_key`, `too_deep`, or `truncated` for an
    /// unterminated last line that is not complete JSON). The result borrows
    /// the scanner and the line; drop it before the next call.
    pub fn scan<'s>(&'s mut self, line: &Line<'s>) -> Result<Scanned<'s>, Error> {
        let b = line.bytes;
        let Scanner {
            scratch,
            strings,
            backend,
            type_buf,
            subtype_buf,
        } = self;
        strings.reset();
        match simd::validate(*backend, scratch, b) {
            Outcome::Object => {}
            Outcome::NotObject => {
                let mut pos = line.position();
                pos.column = Some(validate::skip_ws(b, 0) as u64);
                return Err(Error::new(
                    ErrorKind::NotAnObject,
                    pos,
                    "expected a JSON object, found another JSON value",
                ));
            }
            Outcome::Invalid { depth, at } => return Err(invalid(line, depth, Some(at))),
            Outcome::TooLarge | Outcome::Full => return Err(invalid(line, false, None)),
        }
        let nodes = scratch.index.nodes();
        let pos = line.position();
        let mut ty: Option<&Node> = None;
        let mut sub: Option<&Node> = None;
        if scratch.keys_plain {
            // The validator noted where they are.
            ty = scratch.type_at.and_then(|k| nodes.get(k as usize));
            sub = scratch.subtype_at.and_then(|k| nodes.get(k as usize));
        } else {
            for e in top_level(b, nodes) {
                let raw = &b[e.key_start()..key_end(b, e.start as usize)];
                let slot = if e.key_escaped() {
                    let key = RawStr::new(raw, true);
                    if key.str_eq("type") {
                        &mut ty
                    } else if key.str_eq("subtype") {
                        &mut sub
                    } else {
                        continue;
                    }
                } else {
                    match raw {
                        b"type" => &mut ty,
                        b"subtype" => &mut sub,
                        _ => continue,
                    }
                };
                match slot {
                    None => *slot = Some(e),
                    Some(prev) => {
                        if !same_scalar(b, prev, e, subtype_buf) {
                            return Err(Error::new(
                                ErrorKind::DuplicateKey,
                                pos,
                                "top-level `type` or `subtype` given twice with different values",
                            ));
                        }
                    }
                }
            }
        }
        let Some(ty) = ty.filter(|e| kind_of(b, e) == ValueKind::String) else {
            return Err(Error::new(
                ErrorKind::MissingType,
                pos,
                "expected a string `type` in the object",
            ));
        };
        let ty = decoded(b, ty, type_buf);
        let subtype = sub
            .filter(|e| kind_of(b, e) == ValueKind::String)
            .map(|e| decoded(b, e, subtype_buf));
        Ok(Scanned {
            line: *line,
            nodes,
            strings,
            kind: EventKind::from_type(ty, subtype),
            ty,
            subtype,
            mode: ScanMode::Validated,
        })
    }

    /// Validate one line as any JSON value (an object or not, an event or
    /// not) and index it: its root as a lazy [`Value`] read through the
    /// index. The checks are [`scan`](Scanner::scan)'s, and so are the
    /// errors (`invalid_json`, `invalid_utf8`, `too_deep`, `truncated`).
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::{Scanner, ValueKind};
    /// use cctape::ErrorKind;
    ///
    /// let mut scanner = Scanner::new();
    /// let mut lines = Lines::new(b"[1,{\"a\":true}]\n{\"a\":[1,}\n");
    /// let v = scanner.validate(&lines.next().unwrap()).unwrap();
    /// assert_eq!(v.kind(), ValueKind::Array);
    /// assert_eq!(v.get_path("1.a").and_then(|v| v.as_bool()), Some(true));
    /// let bad = lines.next().unwrap();
    /// assert_eq!(scanner.validate(&bad).unwrap_err().kind(), ErrorKind::InvalidJson);
    /// ```
    pub fn validate<'s>(&'s mut self, line: &Line<'s>) -> Result<Value<'s>, Error> {
        let b = line.bytes;
        self.strings.reset();
        match simd::validate(self.backend, &mut self.scratch, b) {
            Outcome::Object | Outcome::NotObject => Ok(Value::indexed(
                b,
                self.scratch.index.nodes(),
                0,
                &self.strings,
            )),
            Outcome::Invalid { depth, at } => Err(invalid(line, depth, Some(at))),
            Outcome::TooLarge | Outcome::Full => Err(invalid(line, false, None)),
        }
    }

    /// Read `type` and, where the kind depends on it, `subtype`, trusting
    /// the line to be JSON: the rest of it is not checked (like a lazy `get`
    /// in sonic-rs). Errors only when what it had to read is not there:
    /// [`ErrorKind::NotAnObject`], [`ErrorKind::MissingType`], or
    /// [`ErrorKind::InvalidJson`] (or `truncated`) when the keys it walked
    /// are malformed.
    pub fn scan_trusting<'s>(&'s mut self, line: &Line<'s>) -> Result<Scanned<'s>, Error> {
        let b = line.bytes;
        let Scanner {
            scratch,
            strings,
            type_buf,
            subtype_buf,
            ..
        } = self;
        scratch.index.clear();
        strings.reset();
        let i = validate::skip_ws(b, 0);
        match b.get(i) {
            Some(b'{') => {}
            Some(b'"' | b'[' | b't' | b'f' | b'n' | b'-' | b'0'..=b'9') => {
                let mut pos = line.position();
                pos.column = Some(i as u64);
                return Err(Error::new(
                    ErrorKind::NotAnObject,
                    pos,
                    "expected a JSON object, found another JSON value",
                ));
            }
            _ => return Err(invalid(line, false, Some(i))),
        }
        let root = RawValue::starting(&b[i..]);
        // `type` as found (None inside when not a string), and `subtype`.
        let mut ty: Option<Option<RawStr<'s>>> = None;
        let mut sub: Option<Option<RawStr<'s>>> = None;
        for (k, v) in root.entries() {
            if ty.is_none() && k.str_eq("type") {
                ty = Some(v.as_raw_str());
            } else if sub.is_none() && k.str_eq("subtype") {
                sub = Some(v.as_raw_str());
            } else {
                continue;
            }
            match ty {
                Some(None) => break,
                Some(Some(t)) if sub.is_some() || !(t.str_eq("system") || t.str_eq("result")) => {
                    break;
                }
                _ => {}
            }
        }
        let Some(Some(ty)) = ty else {
            return Err(Error::new(
                ErrorKind::MissingType,
                line.position(),
                "expected a string `type` in the object",
            ));
        };
        let ty = decoded_raw(ty, type_buf);
        let subtype = sub.flatten().map(|s| decoded_raw(s, subtype_buf));
        Ok(Scanned {
            line: *line,
            nodes: &[],
            strings,
            kind: EventKind::from_type(ty, subtype),
            ty,
            subtype,
            mode: ScanMode::Trusting,
        })
    }
}

/// The JSON type of a node's value.
fn kind_of(b: &[u8], n: &Node) -> ValueKind {
    kind_of_first(b.get(n.start as usize).copied().unwrap_or(0))
}

/// The top-level members of an index: the root's children, each found from
/// the one before (past a container's subtree through its `next` link).
fn top_level<'n>(b: &'n [u8], nodes: &'n [Node]) -> impl Iterator<Item = &'n Node> {
    let end = nodes.first().map_or(0, |r| r.next as usize);
    let mut j = 2;
    std::iter::from_fn(move || {
        if j >= end {
            return None;
        }
        let n = nodes.get(j)?;
        j = if is_container(b.get(n.start as usize).copied().unwrap_or(0)) {
            n.next as usize
        } else {
            j + 1
        };
        Some(n)
    })
}

/// A string node's text: borrowed from the line, or unescaped into `buf`.
fn decoded<'s>(b: &'s [u8], e: &Node, buf: &'s mut String) -> &'s str {
    let raw = &b[e.start as usize + 1..e.end().saturating_sub(1)];
    decoded_raw(RawStr::new(raw, e.escaped()), buf)
}

fn decoded_raw<'s>(s: RawStr<'s>, buf: &'s mut String) -> &'s str {
    if !s.has_escapes()
        && let Some(t) = simd::ascii_str(s.raw())
    {
        return t;
    }
    if let Some(t) = s.as_str() {
        return t;
    }
    buf.clear();
    s.unescape_into(buf);
    buf
}

/// The tape path's notion of two duplicate values being the same.
fn same_scalar(b: &[u8], x: &Node, y: &Node, scratch: &mut String) -> bool {
    let kind = kind_of(b, x);
    if kind != kind_of(b, y) {
        return false;
    }
    let vx = RawValue::exact(&b[x.start as usize..x.end()], x.escaped());
    let vy = RawValue::exact(&b[y.start as usize..y.end()], y.escaped());
    match kind {
        ValueKind::String => match (vx.as_raw_str(), vy.as_raw_str()) {
            (Some(a), Some(c)) => match (a.as_str(), c.as_str()) {
                (Some(a), Some(c)) => a == c,
                (Some(a), None) => c.str_eq(a),
                (None, Some(c)) => a.str_eq(c),
                (None, None) => {
                    scratch.clear();
                    a.unescape_into(scratch);
                    c.str_eq(scratch)
                }
            },
            _ => false,
        },
        ValueKind::Null => true,
        ValueKind::Bool => vx.as_bool() == vy.as_bool(),
        ValueKind::Number => matches!((vx.as_f64(), vy.as_f64()), (Some(p), Some(q)) if p == q),
        ValueKind::Array | ValueKind::Object => false,
    }
}

/// The error the tape path gives for an invalid line. Its stage 1 looks at
/// the whole line first (an unclosed string or a control character inside
/// a string, then UTF-8), and only then parses in order; this replays that
/// order on the bytes (only failing lines come here).
fn invalid(line: &Line<'_>, depth: bool, at: Option<usize>) -> Error {
    let (kind, reason) = invalid_kind(line, depth);
    let mut pos = line.position();
    // The offending byte, read again on this rare path (crate::column);
    // where it finds nothing wrong (a limit), where the scan stopped.
    let b = line.bytes;
    pos.column = crate::column::error_column(b).or_else(|| {
        at.filter(|&a| a <= b.len() && !b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')))
            .map(|a| a as u64)
    });
    Error::new(kind, pos, reason)
}

fn invalid_kind(line: &Line<'_>, depth: bool) -> (ErrorKind, &'static str) {
    let b = line.bytes;
    let lexical = lexical_error(b);
    if !lexical && simdutf8::basic::from_utf8(b).is_err() {
        let err = simdutf8::compat::from_utf8(b).err();
        // Cut inside a multi-byte character: as on the tape, the input
        // ended; the bytes before the cut are fine.
        if !line.terminated && err.is_some_and(|e| e.error_len().is_none()) {
            return (
                ErrorKind::Truncated,
                "the input ended in the middle of a line",
            );
        }
        return (ErrorKind::InvalidUtf8, "invalid UTF-8");
    }
    if !lexical && depth {
        return (
            ErrorKind::TooDeep,
            "nesting deeper than 1024 levels (the root object is level 1)",
        );
    }
    if !line.terminated {
        return (
            ErrorKind::Truncated,
            "the input ended in the middle of a line",
        );
    }
    if b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
        return (ErrorKind::InvalidJson, "expected a JSON value");
    }
    (ErrorKind::InvalidJson, "invalid JSON")
}

/// True when the line has an error that a whole-line lexical pass finds:
/// nothing but whitespace, a string left open, or a control character
/// inside a string (quotes escaped by odd backslash runs, wherever they are).
fn lexical_error(b: &[u8]) -> bool {
    if b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
        return true;
    }
    let mut in_str = false;
    let mut esc = false;
    for &c in b {
        if in_str && c < 0x20 {
            return true;
        }
        if esc {
            esc = false;
            continue;
        }
        match c {
            b'\\' => esc = true,
            b'"' => in_str = !in_str,
            _ => {}
        }
    }
    in_str
}

/// A scanned line: its [`EventKind`], its structural index and lazy access
/// to every field.
///
/// Borrowed from the [`Scanner`] and the line; drop it before the next scan.
#[derive(Clone, Copy)]
pub struct Scanned<'s> {
    line: Line<'s>,
    /// The index (empty in trusting mode).
    nodes: &'s [Node],
    /// Where strings with escapes are unescaped.
    strings: &'s Strings,
    kind: EventKind,
    ty: &'s str,
    subtype: Option<&'s str>,
    mode: ScanMode,
}

impl fmt::Debug for Scanned<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scanned")
            .field("kind", &self.kind)
            .field("line", &self.line.number)
            .field("offset", &self.line.offset)
            .field("mode", &self.mode)
            .finish()
    }
}

impl<'s> Scanned<'s> {
    /// What this event is.
    #[inline]
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// `type`, unescaped.
    #[inline]
    pub fn raw_type(&self) -> &'s str {
        self.ty
    }

    /// `subtype`, unescaped, if it is a string. In trusting mode it is read
    /// only for `system` and `result` events.
    #[inline]
    pub fn raw_subtype(&self) -> Option<&'s str> {
        self.subtype
    }

    /// How the line was read.
    pub fn mode(&self) -> ScanMode {
        self.mode
    }

    /// The line exactly as read, without its LF.
    pub fn raw(&self) -> &'s [u8] {
        self.line.bytes
    }

    /// The line (bytes, number, offset).
    #[inline]
    pub fn line(&self) -> Line<'s> {
        self.line
    }

    /// The line's position.
    pub fn position(&self) -> Position {
        self.line.position()
    }

    /// The root object as a lazy [`Value`]: read through the structural
    /// index when the line was validated, from the unchecked bytes in
    /// trusting mode (where a malformed value reads as absent).
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"user","message":{"content":[{"type":"tool_result","is_error":true}]}}"#).next().unwrap();
    /// let ev = scanner.scan(&line).unwrap();
    /// let block = ev.value().get_path("message.content.0").unwrap();
    /// assert_eq!(block.get("is_error").and_then(|v| v.as_bool()), Some(true));
    /// ```
    #[inline]
    pub fn value(&self) -> Value<'s> {
        match self.mode {
            ScanMode::Validated => Value::indexed(self.line.bytes, self.nodes, 0, self.strings),
            ScanMode::Trusting => Value::unchecked(self.root(), self.strings),
        }
    }

    /// The line's index nodes (empty in trusting mode), for a batch that
    /// keeps them.
    #[inline]
    pub(crate) fn nodes(&self) -> &'s [Node] {
        self.nodes
    }

    /// The root object, as the byte navigator reads it (trusting mode's
    /// value).
    fn root(&self) -> RawValue<'s> {
        let b = self.line.bytes;
        RawValue::starting(&b[validate::skip_ws(b, 0).min(b.len())..])
    }

    /// Number of top-level entries in the index (0 in trusting mode, which
    /// builds none).
    pub fn index_len(&self) -> usize {
        top_level(self.line.bytes, self.nodes).count()
    }
}

#[doc(hidden)]
/// Masks of one 64-byte block as `(quote, backslash, ctrl, high, esc, hex,
/// u)` by `backend` (for tests comparing backends).
pub fn block_masks(backend: Backend, block: &[u8; 64]) -> [u64; 7] {
    let (m, e) = simd::block_masks(backend, block);
    [m.quote, m.backslash, m.ctrl, m.high, e.esc, e.hex, e.u]
}

#[doc(hidden)]
/// The escaped-byte mask of a backslash mask, with the carry (for tests).
pub fn find_escaped(backslash: u64, prev: &mut u64) -> u64 {
    validate::find_escaped(backslash, prev)
}
