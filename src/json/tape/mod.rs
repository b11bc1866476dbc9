//! The tape backend: one line into a simd-json tape, with every buffer
//! reused (opt in: owned documents, whole-document filters, differential
//! tests; the default reading is the structural index, [`super::Index`]).
//!
//! This module owns the [`Parser`] (a padded scratch buffer, simd-json's
//! buffers and the tape's storage, all kept from line to line) and the
//! crate-private value that reads a parsed line behind the one value type,
//! [`crate::json::Value`] ([`Document::value`]). simd-json's own types stay
//! inside: its tape and errors change between 0.x releases.
//!
//! **Why a copy.** simd-json unescapes strings in place, so it needs mutable
//! input, and its SIMD stage reads 64 bytes past the end. The parser copies
//! each line into a reused scratch buffer with that padding and parses there
//! with `fill_tape_padded`. The copy runs at memory speed (tens of GB/s
//! against the parser's 1-2 GB/s), it keeps the caller's bytes untouched (so
//! [`Document::raw`] is the line exactly as read, which `filter` prints), and
//! it lets the same code serve a shared slice, a read-only memory map and a
//! reader's buffer. Parsing in place in the reader's buffer would save the
//! copy but destroy the raw bytes; plain `fill_tape` copies internally anyway.
//!
//! **What simd-json rejects that we accept.** JavaScript writes these
//! streams; it emits escaped lone surrogates (`"\ud83d"`) when it cuts a
//! string between the halves of an emoji, and JSON allows numbers of any size.
//! When simd-json rejects a line for either reason, the parser copies the
//! line again, rewrites each lone surrogate escape to `\uFFFD` (same length)
//! and each out-of-range number to a same-length placeholder string whose
//! position it records, and parses once more. The value's
//! [`number`](crate::json::Value::number) then returns
//! [`Number::Big`](crate::json::Number::Big) with the number's original
//! text. This path runs only on lines that need it.

mod batch;
mod repair;
mod value;

pub use batch::ParsedLines;
pub(crate) use value::{ArrayElements, Entries, Value};

use super::MAX_DEPTH;
use crate::error::{Error, ErrorKind, Position};
use crate::framing::Line;
use repair::{map_error, repair_line};
use simd_json::{Buffers, ErrorType, INPUT_PADDING, Node, Tape};
use std::cell::Cell;
use std::fmt;

/// Parses lines into tapes, reusing every buffer.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::tape::Parser;
///
/// let mut parser = Parser::new();
/// for line in Lines::new(b"{\"type\":\"user\",\"n\":[1,2]}\n") {
///     let doc = parser.parse(&line).unwrap();
///     assert_eq!(doc.value().get("type").and_then(|v| v.as_str()), Some("user"));
///     assert_eq!(doc.value().get_path("n.1").and_then(|v| v.as_u64()), Some(2));
/// }
/// ```
pub struct Parser {
    scratch: Vec<u8>,
    repair: Vec<u8>,
    buffers: Buffers,
    tape: Tape<'static>,
    bigs: Vec<u32>,
    containers: Vec<bool>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser::new()
    }
}

impl fmt::Debug for Parser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Parser")
            .field("scratch_capacity", &self.scratch.capacity())
            .field("tape_capacity", &self.tape.0.capacity())
            .finish()
    }
}

impl Parser {
    /// A parser with small initial buffers; they grow to the longest line
    /// seen and stay.
    pub fn new() -> Parser {
        Parser {
            scratch: Vec::new(),
            repair: Vec::new(),
            buffers: Buffers::with_max_depth(4096, MAX_DEPTH),
            tape: Tape(Vec::new()),
            bigs: Vec::new(),
            containers: Vec::new(),
        }
    }

    /// Parse one line. The returned document borrows the parser (its tape and
    /// scratch) and the line's bytes; drop it before the next call.
    ///
    /// Errors: [`ErrorKind::InvalidJson`], [`ErrorKind::InvalidUtf8`],
    /// [`ErrorKind::TooDeep`], [`ErrorKind::NotAnObject`], and
    /// [`ErrorKind::Truncated`] for an unterminated last line that does not
    /// parse. Each carries the line's position and, where the parser said,
    /// the byte within the line.
    pub fn parse<'t>(&'t mut self, line: &Line<'t>) -> Result<Document<'t>, Error> {
        let Filled {
            tape,
            base,
            result,
            home,
            bigs,
        } = self.fill(line.bytes);
        if let Err(e) = result
            .map_err(|e| map_error(&e, line))
            .and_then(|()| check_object(&tape, line))
        {
            *home = tape.reset();
            return Err(e);
        }
        Ok(Document {
            nodes: Nodes::Owned { tape, home },
            ctx: Ctx {
                raw: line.bytes,
                base,
                bigs,
                line: line.number,
                offset: line.offset,
                mismatches: Cell::new(0),
            },
        })
    }

    /// What [`parse`](Parser::parse) says of a line it rejects (kind,
    /// position, reason), without boxing an error: `None` when it takes
    /// the line. How the index path tells a bad line as the tape does, in
    /// the allocation its own error already made.
    pub(crate) fn tell(&mut self, line: &Line<'_>) -> Option<(ErrorKind, Position, &'static str)> {
        let Filled {
            tape, result, home, ..
        } = self.fill(line.bytes);
        let told = match result {
            Err(e) => Some(repair::error_parts(&e, line)),
            Ok(()) if !matches!(tape.0.first(), Some(Node::Object { .. })) => {
                let mut pos = line.position();
                pos.column = Some(first_non_ws(line.bytes) as u64);
                Some((
                    ErrorKind::NotAnObject,
                    pos,
                    "expected a JSON object, found another JSON value",
                ))
            }
            Ok(()) => None,
        };
        *home = tape.reset();
        told
    }

    /// Fill a tape from `raw`, padded into the scratch, and again from a
    /// repaired copy when simd-json rejects what [`repair_line`] mends.
    fn fill<'t>(&'t mut self, raw: &[u8]) -> Filled<'t> {
        let len = raw.len();
        let Parser {
            scratch,
            repair,
            buffers,
            tape: home,
            bigs,
            containers,
        } = self;
        fill_padded(scratch, raw);
        bigs.clear();
        let mut base = scratch.as_ptr() as usize;
        let mut tape: Tape<'t> = std::mem::replace(home, Tape(Vec::new())).reset();
        let first = simd_json::fill_tape_padded(scratch, len, buffers, &mut tape);
        let result = match first {
            Err(e) if repairable(&e) => {
                fill_padded(repair, raw);
                if repair_line(&mut repair[..len], bigs, containers) {
                    base = repair.as_ptr() as usize;
                    simd_json::fill_tape_padded(repair, len, buffers, &mut tape)
                } else {
                    Err(e)
                }
            }
            other => other,
        };
        Filled {
            tape,
            base,
            result,
            home,
            bigs,
        }
    }
}

/// A tape [`Parser::fill`] made: the tape, where its strings are,
/// simd-json's verdict, and where the tape's storage goes back.
struct Filled<'t> {
    tape: Tape<'t>,
    base: usize,
    result: Result<(), simd_json::Error>,
    home: &'t mut Tape<'static>,
    bigs: &'t [u32],
}

/// simd-json rejected the line for what [`repair_line`] rewrites (a lone
/// surrogate escape, a number out of range): worth a second parse.
pub(super) fn repairable(e: &simd_json::Error) -> bool {
    matches!(
        e.error(),
        ErrorType::InvalidNumber | ErrorType::InvalidUnicodeCodepoint
    )
}

/// The root of a parsed line must be an object.
fn check_object(tape: &Tape<'_>, line: &Line<'_>) -> Result<(), Error> {
    if matches!(tape.0.first(), Some(Node::Object { .. })) {
        Ok(())
    } else {
        Err(not_an_object(line))
    }
}

pub(super) fn not_an_object(line: &Line<'_>) -> Error {
    let mut pos = line.position();
    pos.column = Some(first_non_ws(line.bytes) as u64);
    Error::new(
        ErrorKind::NotAnObject,
        pos,
        "expected a JSON object, found another JSON value",
    )
}

pub(super) fn fill_padded(dst: &mut Vec<u8>, src: &[u8]) {
    dst.clear();
    dst.reserve(src.len() + INPUT_PADDING);
    dst.extend_from_slice(src);
    dst.resize(src.len() + INPUT_PADDING, b' ');
}

pub(super) fn first_non_ws(b: &[u8]) -> usize {
    b.iter()
        .position(|&c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(0)
}

/// Shared facts about the parsed line that every [`Value`] may need.
pub(super) struct Ctx<'t> {
    pub(super) raw: &'t [u8],
    pub(super) base: usize,
    pub(super) bigs: &'t [u32],
    pub(super) line: u64,
    pub(super) offset: u64,
    pub(super) mismatches: Cell<u32>,
}

/// One parsed line: its tape, its raw bytes and its position.
///
/// Dropping it hands the tape's storage back to the [`Parser`].
pub struct Document<'t> {
    pub(super) nodes: Nodes<'t>,
    pub(super) ctx: Ctx<'t>,
}

/// A document's tape: the parser's, handed back on drop, or a part of a
/// [`ParsedLines`] batch.
pub(super) enum Nodes<'t> {
    Owned {
        tape: Tape<'t>,
        home: &'t mut Tape<'static>,
    },
    Borrowed(&'t [Node<'t>]),
}

impl Drop for Document<'_> {
    fn drop(&mut self) {
        if let Nodes::Owned { tape, home } = &mut self.nodes {
            **home = std::mem::replace(tape, Tape(Vec::new())).reset();
        }
    }
}

impl fmt::Debug for Document<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("line", &self.ctx.line)
            .field("offset", &self.ctx.offset)
            .field("raw", &String::from_utf8_lossy(self.ctx.raw))
            .finish()
    }
}

impl<'t> Document<'t> {
    /// The root object, as the tape's own value (behind
    /// [`crate::json::Value`] outside this module).
    pub(crate) fn root(&self) -> Value<'_> {
        Value {
            nodes: self.nodes(),
            ctx: &self.ctx,
        }
    }

    /// The root object as the one lazy value type, [`crate::json::Value`],
    /// read through this tape.
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::tape::Parser;
    ///
    /// let mut parser = Parser::new();
    /// let line = Lines::new(br#"{"type":"user","n":[1,2]}"#).next().unwrap();
    /// let doc = parser.parse(&line).unwrap();
    /// assert_eq!(doc.value().get_path("n.1").and_then(|v| v.as_u64()), Some(2));
    /// ```
    pub fn value(&self) -> crate::json::Value<'_> {
        self.root().into()
    }

    fn nodes(&self) -> &[Node<'t>] {
        match &self.nodes {
            Nodes::Owned { tape, .. } => &tape.0,
            Nodes::Borrowed(n) => n,
        }
    }

    /// The line exactly as read, without its LF.
    pub fn raw(&self) -> &'t [u8] {
        self.ctx.raw
    }

    /// 1-based line number.
    pub fn line(&self) -> u64 {
        self.ctx.line
    }

    /// 0-based byte offset of the line in its input.
    pub fn offset(&self) -> u64 {
        self.ctx.offset
    }

    /// The line's position.
    pub fn position(&self) -> Position {
        Position::new(self.ctx.line, self.ctx.offset)
    }

    /// How many typed reads on this line found a value of the wrong JSON
    /// type (and so answered "absent"). Views count here.
    pub fn type_mismatches(&self) -> u32 {
        self.ctx.mismatches.get()
    }

    /// Number of tape nodes (a measure of the line's structure).
    pub fn node_count(&self) -> usize {
        self.nodes().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Number, NumberError, ValueKind};

    fn line(b: &[u8]) -> Line<'_> {
        Line {
            bytes: b,
            number: 3,
            offset: 100,
            terminated: true,
        }
    }

    #[test]
    fn reads_strings_numbers_and_paths() {
        let mut p = Parser::new();
        let l = line(br#"{"a":"x\ny","n":[1,-2,2.5,{"k":true}],"z":null}"#);
        let d = p.parse(&l).unwrap();
        let r = d.value();
        assert_eq!(r.get("a").unwrap().as_str(), Some("x\ny"));
        assert_eq!(r.get_path("n.0").unwrap().as_u64(), Some(1));
        assert_eq!(r.get_path("n.1").unwrap().as_i64(), Some(-2));
        assert_eq!(r.get_path("n.2").unwrap().as_f64(), Some(2.5));
        assert_eq!(r.get_path("n.3.k").unwrap().as_bool(), Some(true));
        assert!(r.get("z").unwrap().is_null());
        assert!(r.get("missing").is_none());
        let keys: Vec<_> = r.entries().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "n", "z"]);
        assert_eq!(r.get("n").unwrap().elements().count(), 4);
    }

    #[test]
    fn first_duplicate_key_wins() {
        let mut p = Parser::new();
        let l = line(br#"{"a":1,"a":2}"#);
        let d = p.parse(&l).unwrap();
        assert_eq!(d.root().get("a").unwrap().as_u64(), Some(1));
    }

    #[test]
    fn big_numbers_are_kept_as_text() {
        let mut p = Parser::new();
        let l = line(br#"{"a":18446744073709551616,"b":1e400,"c":-99999999999999999999,"s":"\ud83d\ude00","d":5}"#);
        let d = p.parse(&l).unwrap();
        let r = d.root();
        let a = r.get("a").unwrap();
        assert_eq!(a.kind(), ValueKind::Number);
        assert_eq!(a.number(), Some(Number::Big("18446744073709551616")));
        assert_eq!(a.as_str(), None);
        assert_eq!(a.number().unwrap().to_u64(), Err(NumberError::DoesNotFit));
        assert_eq!(r.get("b").unwrap().number(), Some(Number::Big("1e400")));
        assert!(r.get("b").unwrap().as_f64().unwrap().is_infinite());
        assert_eq!(
            r.get("c").unwrap().number(),
            Some(Number::Big("-99999999999999999999"))
        );
        assert_eq!(r.get("s").unwrap().as_str(), Some("😀"));
        assert_eq!(r.get("d").unwrap().as_u64(), Some(5));
        assert_eq!(d.raw(), l.bytes);
    }

    #[test]
    fn lone_surrogates_read_as_replacement() {
        let mut p = Parser::new();
        let l = line(br#"{"a":"x\ud83d","b":"\udc00y","c":"\\ud800","d":"\ud83d\ude00"}"#);
        let d = p.parse(&l).unwrap();
        let r = d.root();
        assert_eq!(r.get("a").unwrap().as_str(), Some("x\u{FFFD}"));
        assert_eq!(r.get("b").unwrap().as_str(), Some("\u{FFFD}y"));
        assert_eq!(r.get("c").unwrap().as_str(), Some("\\ud800"));
        assert_eq!(r.get("d").unwrap().as_str(), Some("😀"));
    }

    #[test]
    fn errors_have_kinds_and_positions() {
        let mut p = Parser::new();
        let e = p.parse(&line(b"[1,2]")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotAnObject);
        assert_eq!(e.position().line, 3);
        assert_eq!(e.position().offset, 100);
        let e = p.parse(&line(b"{\"a\":}")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidJson);
        let e = p.parse(&line(b"{\"a\":\"\xff\"}")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
        let mut cut = line(b"{\"a\":\"hel");
        cut.terminated = false;
        let e = p.parse(&cut).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated);
        let e = p.parse(&line(b"{\"a\":1e}")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidJson);
    }

    #[test]
    fn depth_limit_counts_the_root_as_level_one() {
        let mut p = Parser::new();
        let ok = format!("{{\"a\":{}{}}}", "[".repeat(1023), "]".repeat(1023));
        assert!(p.parse(&line(ok.as_bytes())).is_ok());
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(1024), "]".repeat(1024));
        assert_eq!(
            p.parse(&line(deep.as_bytes())).unwrap_err().kind(),
            ErrorKind::TooDeep
        );
        let very = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            p.parse(&line(very.as_bytes())).unwrap_err().kind(),
            ErrorKind::TooDeep
        );
    }
}
