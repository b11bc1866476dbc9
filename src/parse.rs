//! Parse: one line into a simd-json tape, with every buffer reused.
//!
//! This module owns the [`Parser`] (a padded scratch buffer, simd-json's
//! buffers and the tape's storage, all kept from line to line) and the
//! borrowed [`Value`] that reads a parsed line. simd-json's own types stay
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
//! position it records, and parses once more. [`Value::number`] then returns
//! [`Number::Big`] with the number's original text. This path runs only on
//! lines that need it.

use crate::error::{Error, ErrorKind, Position};
use crate::framing::Line;
use simd_json::{Buffers, ErrorType, INPUT_PADDING, Node, StaticNode, Tape};
use std::cell::Cell;
use std::fmt;

/// The deepest nesting accepted; the root object is level 1.
pub const MAX_DEPTH: usize = 1024;

/// Parses lines into tapes, reusing every buffer.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::parse::Parser;
///
/// let mut parser = Parser::new();
/// for line in Lines::new(b"{\"type\":\"user\",\"n\":[1,2]}\n") {
///     let doc = parser.parse(&line).unwrap();
///     assert_eq!(doc.root().get("type").and_then(|v| v.as_str()), Some("user"));
///     assert_eq!(doc.root().get_path("n.1").and_then(|v| v.as_u64()), Some(2));
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
        let raw = line.bytes;
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
                raw,
                base,
                bigs,
                line: line.number,
                offset: line.offset,
                mismatches: Cell::new(0),
            },
        })
    }
}

/// simd-json rejected the line for what [`repair_line`] rewrites (a lone
/// surrogate escape, a number out of range): worth a second parse.
fn repairable(e: &simd_json::Error) -> bool {
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

impl Parser {
    /// Parse one line into `batch`, as [`parse`](Parser::parse) does (same
    /// errors, same repairs), and keep its tape there: the line is read
    /// back with [`ParsedLines::document`] once this thread or another
    /// holds the batch. Returns the line's index in the batch.
    pub fn parse_into(&mut self, line: &Line<'_>, batch: &mut ParsedLines) -> Result<usize, Error> {
        let raw = line.bytes;
        let len = raw.len();
        let Parser {
            buffers,
            tape: home,
            containers,
            bigs: found,
            ..
        } = self;
        let ParsedLines {
            nodes,
            segments,
            current,
            bigs,
            lines,
        } = batch;
        let slot = slot_for(segments, current, raw);
        let base = slot.as_ptr() as usize;
        let big_start = bigs.len();
        let start = nodes.len();
        let mut result = keep_tape(slot, len, buffers, home, nodes);
        if let Err(e) = &result
            && repairable(e)
        {
            // The first try unescaped part of the slot: start again from
            // the line's bytes.
            slot[..len].copy_from_slice(raw);
            found.clear();
            if repair_line(&mut slot[..len], found, containers) {
                bigs.extend_from_slice(found);
                result = keep_tape(slot, len, buffers, home, nodes);
            }
        }
        let checked = match result {
            Ok(true) => Ok(()),
            Ok(false) => Err(not_an_object(line)),
            Err(e) => Err(map_error(&e, line)),
        };
        if let Err(e) = checked {
            bigs.truncate(big_start);
            return Err(e);
        }
        lines.push(BatchLine {
            nodes: (start, nodes.len()),
            base,
            bigs: (big_start, bigs.len()),
            line: line.number,
            offset: line.offset,
        });
        Ok(lines.len() - 1)
    }
}

/// Parse the padded `slot` and, when its root is an object, append its
/// tape to `nodes` (`Ok(false)`: another JSON value, nothing appended).
/// The parser's tape storage goes back to `home` either way.
#[allow(unsafe_code)]
fn keep_tape(
    slot: &mut [u8],
    len: usize,
    buffers: &mut Buffers,
    home: &mut Tape<'static>,
    nodes: &mut Vec<Node<'static>>,
) -> Result<bool, simd_json::Error> {
    let mut tape: Tape<'_> = std::mem::replace(home, Tape(Vec::new())).reset();
    let result = simd_json::fill_tape_padded(slot, len, buffers, &mut tape);
    let object = result.is_ok() && matches!(tape.0.first(), Some(Node::Object { .. }));
    if object {
        // SAFETY: the nodes' strings point into `slot`, a part of one of a
        // `ParsedLines`' segments (see `slot_for`). A segment's heap buffer
        // is never written, grown or freed while the batch's `nodes` holds
        // anything: `slot_for` only writes past the last slot handed out
        // and within the buffer's capacity, `ParsedLines::clear` empties
        // `nodes` first, and a move of the batch moves the `Vec` headers,
        // not the bytes. The nodes are only handed out as `&'a [Node<'a>]`
        // borrowed from the batch (`ParsedLines::document`), so no string
        // is read after its bytes are gone. A slot whose first parse failed
        // is parsed again before anything from it is appended.
        let kept: &[Node<'static>] = unsafe {
            std::slice::from_raw_parts(tape.0.as_ptr().cast::<Node<'static>>(), tape.0.len())
        };
        nodes.extend_from_slice(kept);
    }
    *home = tape.reset();
    result.map(|()| object)
}

fn not_an_object(line: &Line<'_>) -> Error {
    let mut pos = line.position();
    pos.column = Some(first_non_ws(line.bytes) as u64);
    Error::new(
        ErrorKind::NotAnObject,
        pos,
        "expected a JSON object, found another JSON value",
    )
}

/// A padded copy of `raw` (`INPUT_PADDING` spaces after it) in a batch's
/// segments: past the last copy in the current segment when it fits within
/// its capacity, else in the next segment (made, or grown while empty, to
/// fit). Never grows a segment that holds a copy.
fn slot_for<'s>(segments: &'s mut Vec<Vec<u8>>, current: &mut usize, raw: &[u8]) -> &'s mut [u8] {
    let need = raw.len() + INPUT_PADDING;
    let fits = |seg: &Vec<u8>| seg.capacity() - seg.len() >= need;
    if !segments.get(*current).is_some_and(fits) {
        if !segments.is_empty() {
            *current += 1;
        }
        if *current == segments.len() {
            segments.push(Vec::new());
        }
        let seg = &mut segments[*current];
        // Empty: nothing points into it yet, so it may move.
        seg.clear();
        seg.reserve(need.max(SEGMENT));
    }
    let seg = &mut segments[*current];
    let at = seg.len();
    seg.extend_from_slice(raw);
    seg.resize(at + need, b' ');
    &mut seg[at..]
}

/// The size of one of a batch's buffers of line copies.
const SEGMENT: usize = 1 << 20;

/// Where one line of a [`ParsedLines`] batch is.
#[derive(Clone, Copy, Debug)]
struct BatchLine {
    nodes: (usize, usize),
    base: usize,
    bigs: (usize, usize),
    line: u64,
    offset: u64,
}

/// Many lines' tapes in one owned batch, made by
/// [`Parser::parse_into`] on one thread and read on another (`cctape stats`
/// parses the chunks of a large file ahead on a pool while one thread folds
/// them in order). Every buffer is kept from batch to batch.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::parse::{ParsedLines, Parser};
///
/// let input = b"{\"type\":\"user\",\"n\":1}\n{\"type\":\"result\",\"n\":2}\n";
/// let mut parser = Parser::new();
/// let mut batch = ParsedLines::new();
/// let lines: Vec<_> = Lines::new(input).collect();
/// for line in &lines {
///     parser.parse_into(line, &mut batch).unwrap();
/// }
/// let batch = std::thread::spawn(move || batch).join().unwrap();
/// let doc = batch.document(1, lines[1].bytes);
/// assert_eq!(doc.root().get("n").and_then(|v| v.as_u64()), Some(2));
/// assert_eq!(doc.line(), 2);
/// ```
#[derive(Default)]
pub struct ParsedLines {
    /// Declared first: dropped before the bytes they point into.
    nodes: Vec<Node<'static>>,
    segments: Vec<Vec<u8>>,
    current: usize,
    bigs: Vec<u32>,
    lines: Vec<BatchLine>,
}

impl fmt::Debug for ParsedLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParsedLines")
            .field("lines", &self.lines.len())
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

impl ParsedLines {
    /// An empty batch.
    pub fn new() -> ParsedLines {
        ParsedLines::default()
    }

    /// Forget every line, keeping the buffers.
    pub fn clear(&mut self) {
        // The nodes first: nothing may point into a segment once it is
        // written again.
        self.nodes.clear();
        self.lines.clear();
        self.bigs.clear();
        for seg in &mut self.segments {
            seg.clear();
        }
        self.current = 0;
    }

    /// How many lines the batch holds.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when the batch holds no line.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Line `i` as a document; `raw` is the line's bytes as they were
    /// parsed (its [`Document::raw`]).
    ///
    /// # Panics
    ///
    /// When `i` is not below [`len`](ParsedLines::len).
    pub fn document<'a>(&'a self, i: usize, raw: &'a [u8]) -> Document<'a> {
        let l = self.lines[i];
        Document {
            nodes: Nodes::Borrowed(&self.nodes[l.nodes.0..l.nodes.1]),
            ctx: Ctx {
                raw,
                base: l.base,
                bigs: &self.bigs[l.bigs.0..l.bigs.1],
                line: l.line,
                offset: l.offset,
                mismatches: Cell::new(0),
            },
        }
    }
}

fn fill_padded(dst: &mut Vec<u8>, src: &[u8]) {
    dst.clear();
    dst.reserve(src.len() + INPUT_PADDING);
    dst.extend_from_slice(src);
    dst.resize(src.len() + INPUT_PADDING, b' ');
}

fn first_non_ws(b: &[u8]) -> usize {
    b.iter()
        .position(|&c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(0)
}

fn map_error(e: &simd_json::Error, line: &Line<'_>) -> Error {
    let (kind, reason) = match e.error() {
        // Cut in the middle of a multi-byte character: the input ended, the
        // bytes before the cut are fine.
        ErrorType::InvalidUtf8 if !line.terminated && ends_mid_char(line.bytes) => (
            ErrorKind::Truncated,
            "the input ended in the middle of a line",
        ),
        ErrorType::InvalidUtf8 => (ErrorKind::InvalidUtf8, "invalid UTF-8"),
        ErrorType::DepthLimitExceeded => (
            ErrorKind::TooDeep,
            "nesting deeper than 1024 levels (the root object is level 1)",
        ),
        ErrorType::Eof | ErrorType::UnterminatedString | ErrorType::ExpectedMapEnd
            if !line.terminated =>
        {
            (
                ErrorKind::Truncated,
                "the input ended in the middle of a line",
            )
        }
        other => {
            let reason = reason_for(other);
            if !line.terminated {
                (
                    ErrorKind::Truncated,
                    "the input ended in the middle of a line",
                )
            } else {
                (ErrorKind::InvalidJson, reason)
            }
        }
    };
    let mut pos = line.position();
    // simd-json's index is not always the offending byte (0 for bad UTF-8,
    // a bad escape, a control character): read again on this rare path.
    let idx = e.index();
    pos.column = crate::column::error_column(line.bytes)
        .or_else(|| (idx <= line.bytes.len()).then_some(idx as u64))
        .filter(|_| !line.bytes.iter().all(|b| b.is_ascii_whitespace()));
    Error::new(kind, pos, reason)
}

/// True when `b` is valid UTF-8 but for an incomplete character at its end.
fn ends_mid_char(b: &[u8]) -> bool {
    match std::str::from_utf8(b) {
        Ok(_) => false,
        Err(e) => e.error_len().is_none(),
    }
}

fn reason_for(e: &ErrorType) -> &'static str {
    match e {
        ErrorType::Eof => "unexpected end of line",
        ErrorType::UnterminatedString => "expected a closing quote",
        ErrorType::ExpectedMapEnd => "expected `}` or `,`",
        ErrorType::ExpectedMapComma => "expected `,` or `}` after an object value",
        ErrorType::ExpectedObjectColon => "expected `:` after an object key",
        ErrorType::ExpectedObjectKey | ErrorType::KeyMustBeAString => {
            "expected a string key in an object"
        }
        ErrorType::ExpectedArrayComma => "expected `,` or `]` after an array element",
        ErrorType::ExpectedArrayContent | ErrorType::ExpectedObjectContent => "expected a value",
        ErrorType::InvalidEscape => "invalid escape in a string",
        ErrorType::InvalidUnicodeEscape => "invalid \\u escape in a string",
        ErrorType::InvalidUnicodeCodepoint => "invalid unicode code point in a string",
        ErrorType::InvalidNumber | ErrorType::InvalidExponent => "invalid number",
        ErrorType::TrailingData => "expected the end of the line after the JSON value",
        ErrorType::UnexpectedCharacter => "unexpected character",
        ErrorType::NoStructure => "expected a JSON value",
        ErrorType::ExpectedNull => "expected `null`",
        ErrorType::ExpectedTrue => "expected `true`",
        ErrorType::ExpectedFalse => "expected `false`",
        ErrorType::InputTooLarge => "line too large for the parser (4 GiB)",
        _ => "invalid JSON",
    }
}

/// Rewrites lone surrogate escapes to `\uFFFD` and out-of-range numbers to
/// placeholder strings of the same length (recording where they start).
/// Returns false when it found nothing to rewrite.
///
/// Only numbers where a value may stand are rewritten: a number in a key's
/// place must stay an error, not become a string key.
fn repair_line(b: &mut [u8], bigs: &mut Vec<u32>, objects: &mut Vec<bool>) -> bool {
    let mut changed = false;
    let mut i = 0;
    let n = b.len();
    // Open containers (true for an object) and whether a key comes next;
    // the stack is the parser's, reused from line to line.
    objects.clear();
    let mut key_next = false;
    while i < n {
        match b[i] {
            b'{' => {
                objects.push(true);
                key_next = true;
                i += 1;
            }
            b'[' => {
                objects.push(false);
                key_next = false;
                i += 1;
            }
            b'}' | b']' => {
                objects.pop();
                key_next = false;
                i += 1;
            }
            b',' => {
                key_next = objects.last() == Some(&true);
                i += 1;
            }
            b'"' => {
                key_next = false;
                i += 1;
                while i < n {
                    match b[i] {
                        b'"' => break,
                        b'\\' if i + 1 < n && b[i + 1] == b'u' => {
                            let Some(cp) = hex4(b, i + 2) else {
                                i += 2;
                                continue;
                            };
                            if (0xD800..0xDC00).contains(&cp) {
                                let paired = i + 12 <= n
                                    && b[i + 6] == b'\\'
                                    && b[i + 7] == b'u'
                                    && hex4(b, i + 8)
                                        .is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                                if paired {
                                    i += 12;
                                    continue;
                                }
                                b[i + 2..i + 6].copy_from_slice(b"FFFD");
                                changed = true;
                            } else if (0xDC00..0xE000).contains(&cp) {
                                b[i + 2..i + 6].copy_from_slice(b"FFFD");
                                changed = true;
                            }
                            i += 6;
                        }
                        b'\\' => i += 2,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' if !key_next => {
                let start = i;
                let end = number_end(b, i);
                if end > start && number_out_of_range(&b[start..end]) && end - start >= 3 {
                    b[start] = b'"';
                    for c in &mut b[start + 1..end - 1] {
                        *c = b'0';
                    }
                    b[end - 1] = b'"';
                    bigs.push(start as u32);
                    changed = true;
                }
                i = end.max(start + 1);
            }
            _ => i += 1,
        }
    }
    changed
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// End of a JSON number token starting at `i`, or `i` when the grammar fails.
fn number_end(b: &[u8], mut i: usize) -> usize {
    let start = i;
    let digits = |b: &[u8], mut i: usize| {
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - s)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i).0,
        _ => return start,
    }
    if b.get(i) == Some(&b'.') {
        let (j, n) = digits(b, i + 1);
        if n == 0 {
            return start;
        }
        i = j;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let (k, n) = digits(b, j);
        if n == 0 {
            return start;
        }
        i = k;
    }
    i
}

fn number_out_of_range(t: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(t) else {
        return false;
    };
    let is_int = !t.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
    if is_int {
        s.parse::<i64>().is_err() && s.parse::<u64>().is_err()
    } else {
        s.parse::<f64>().map(|f| !f.is_finite()).unwrap_or(false)
    }
}

/// Shared facts about the parsed line that every [`Value`] may need.
struct Ctx<'t> {
    raw: &'t [u8],
    base: usize,
    bigs: &'t [u32],
    line: u64,
    offset: u64,
    mismatches: Cell<u32>,
}

/// One parsed line: its tape, its raw bytes and its position.
///
/// Dropping it hands the tape's storage back to the [`Parser`].
pub struct Document<'t> {
    nodes: Nodes<'t>,
    ctx: Ctx<'t>,
}

/// A document's tape: the parser's, handed back on drop, or a part of a
/// [`ParsedLines`] batch.
enum Nodes<'t> {
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
    /// The root object.
    pub fn root(&self) -> Value<'_> {
        Value {
            nodes: self.nodes(),
            ctx: &self.ctx,
        }
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

/// The JSON type of a [`Value`].
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

/// A borrowed JSON value inside a parsed line. Cheap to copy.
///
/// Strings are already unescaped (a lone surrogate escape reads as U+FFFD).
/// In an object with a key given twice, lookups find the first occurrence.
#[derive(Clone, Copy)]
pub struct Value<'d> {
    nodes: &'d [Node<'d>],
    ctx: &'d Ctx<'d>,
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

#[inline]
fn span(node: &Node<'_>) -> usize {
    match node {
        Node::Object { count, .. } | Node::Array { count, .. } => count + 1,
        _ => 1,
    }
}

impl<'d> Value<'d> {
    #[inline]
    fn head(&self) -> &'d Node<'d> {
        // Every Value is built from a non-empty slice: the root of a parsed
        // object, or a child located by walking the tape.
        &self.nodes[0]
    }

    #[inline]
    fn at(&self, i: usize) -> Value<'d> {
        let n = span(&self.nodes[i]);
        Value {
            nodes: &self.nodes[i..i + n],
            ctx: self.ctx,
        }
    }

    /// The JSON type of this value.
    pub fn kind(&self) -> ValueKind {
        match self.head() {
            Node::String(_) if self.big_text().is_some() => ValueKind::Number,
            Node::String(_) => ValueKind::String,
            Node::Object { .. } => ValueKind::Object,
            Node::Array { .. } => ValueKind::Array,
            Node::Static(StaticNode::Null) => ValueKind::Null,
            Node::Static(StaticNode::Bool(_)) => ValueKind::Bool,
            Node::Static(_) => ValueKind::Number,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.head(), Node::Static(StaticNode::Null))
    }

    /// The text of an out-of-range number that the parser stored as a
    /// placeholder string.
    fn big_text(&self) -> Option<&'d str> {
        if self.ctx.bigs.is_empty() {
            return None;
        }
        let Node::String(s) = self.head() else {
            return None;
        };
        let start = (s.as_ptr() as usize)
            .checked_sub(self.ctx.base)?
            .checked_sub(1)?;
        self.ctx.bigs.binary_search(&(start as u32)).ok()?;
        let text = self.ctx.raw.get(start..start + s.len() + 2)?;
        std::str::from_utf8(text).ok()
    }

    /// The string, if this is a string.
    #[inline]
    pub fn as_str(&self) -> Option<&'d str> {
        match self.head() {
            Node::String(s) if self.ctx.bigs.is_empty() || self.big_text().is_none() => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is `true` or `false`.
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match self.head() {
            Node::Static(StaticNode::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub fn number(&self) -> Option<Number<'d>> {
        match self.head() {
            Node::Static(StaticNode::U64(v)) => Some(Number::U64(*v)),
            Node::Static(StaticNode::I64(v)) if *v >= 0 => Some(Number::U64(*v as u64)),
            Node::Static(StaticNode::I64(v)) => Some(Number::I64(*v)),
            Node::Static(StaticNode::F64(v)) => Some(Number::F64(*v)),
            Node::String(_) => self.big_text().map(Number::Big),
            _ => None,
        }
    }

    /// The number as u64, if it is an integer that fits.
    #[inline]
    pub fn as_u64(&self) -> Option<u64> {
        match self.head() {
            Node::Static(StaticNode::U64(v)) => Some(*v),
            Node::Static(StaticNode::I64(v)) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// The number as i64, if it is an integer that fits.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match self.head() {
            Node::Static(StaticNode::U64(v)) => i64::try_from(*v).ok(),
            Node::Static(StaticNode::I64(v)) => Some(*v),
            _ => None,
        }
    }

    /// Any number as f64.
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        match self.head() {
            Node::Static(StaticNode::F64(v)) => Some(*v),
            Node::Static(StaticNode::U64(v)) => Some(*v as f64),
            Node::Static(StaticNode::I64(v)) => Some(*v as f64),
            _ => self.number().map(Number::to_f64),
        }
    }

    /// Number of elements (array) or entries (object); 0 otherwise.
    pub fn len(&self) -> usize {
        match self.head() {
            Node::Object { len, .. } | Node::Array { len, .. } => *len,
            _ => 0,
        }
    }

    /// True when [`len`](Value::len) is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `key` in this object (the first, if given twice).
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'d>> {
        let Node::Object { len, .. } = self.head() else {
            return None;
        };
        let mut i = 1;
        for _ in 0..*len {
            let k = match self.nodes.get(i)? {
                Node::String(k) => *k,
                _ => return None,
            };
            let n = span(self.nodes.get(i + 1)?);
            if k == key {
                return Some(Value {
                    nodes: &self.nodes[i + 1..i + 1 + n],
                    ctx: self.ctx,
                });
            }
            i += 1 + n;
        }
        None
    }

    /// The `i`th element of this array.
    pub fn index(&self, idx: usize) -> Option<Value<'d>> {
        let Node::Array { len, .. } = self.head() else {
            return None;
        };
        if idx >= *len {
            return None;
        }
        self.elements().nth(idx)
    }

    /// Follow a dotted path: object keys, and array indexes as numbers
    /// (`"message.content.0.type"`). A key that itself holds a dot cannot be
    /// reached this way; use [`get`](Value::get).
    pub fn get_path(&self, path: &str) -> Option<Value<'d>> {
        let mut v = *self;
        if path.is_empty() {
            return Some(v);
        }
        for part in path.split('.') {
            v = match v.head() {
                Node::Array { .. } => v.index(part.parse().ok()?)?,
                _ => v.get(part)?,
            };
        }
        Some(v)
    }

    /// Follow a path given as separate keys.
    pub fn pointer(&self, keys: &[&str]) -> Option<Value<'d>> {
        let mut v = *self;
        for k in keys {
            v = match v.head() {
                Node::Array { .. } => v.index(k.parse().ok()?)?,
                _ => v.get(k)?,
            };
        }
        Some(v)
    }

    /// The entries of this object in their order (duplicates included);
    /// empty for anything else.
    pub fn entries(&self) -> Entries<'d> {
        let (left, i) = match self.head() {
            Node::Object { len, .. } => (*len, 1),
            _ => (0, 1),
        };
        Entries { v: *self, i, left }
    }

    /// The elements of this array; empty for anything else.
    pub fn elements(&self) -> ArrayElements<'d> {
        let left = match self.head() {
            Node::Array { len, .. } => *len,
            _ => 0,
        };
        ArrayElements {
            v: *self,
            i: 1,
            left,
        }
    }

    /// The largest nesting depth inside this value (a scalar is 0, `{}` 1).
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut ends: Vec<usize> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            while ends.last().is_some_and(|&e| e <= i) {
                ends.pop();
            }
            if let Node::Object { count, .. } | Node::Array { count, .. } = n {
                ends.push(i + count + 1);
                max = max.max(ends.len());
            }
        }
        max
    }

    /// Note that a typed read found the wrong JSON type here. Views call
    /// this; [`Document::type_mismatches`] reports the count.
    pub fn note_mismatch(&self) {
        self.ctx
            .mismatches
            .set(self.ctx.mismatches.get().saturating_add(1));
    }

    /// The line this value was read from, exactly as read.
    pub fn raw_line(&self) -> &'d [u8] {
        self.ctx.raw
    }
}

/// Iterator over an object's `(key, value)` pairs; from [`Value::entries`].
#[derive(Clone)]
pub struct Entries<'d> {
    v: Value<'d>,
    i: usize,
    left: usize,
}

impl<'d> Iterator for Entries<'d> {
    type Item = (&'d str, Value<'d>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = match self.v.nodes.get(self.i)? {
            Node::String(k) => *k,
            _ => return None,
        };
        let val = self.v.at(self.i + 1);
        self.i += 1 + val.nodes.len();
        Some((key, val))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

/// Iterator over the elements of a parsed array; from [`Value::elements`]
/// (the elements of an array still in bytes are [`crate::elements::Elements`]).
#[derive(Clone)]
pub struct ArrayElements<'d> {
    v: Value<'d>,
    i: usize,
    left: usize,
}

impl<'d> Iterator for ArrayElements<'d> {
    type Item = Value<'d>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 || self.i >= self.v.nodes.len() {
            return None;
        }
        self.left -= 1;
        let val = self.v.at(self.i);
        self.i += val.nodes.len();
        Some(val)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = d.root();
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
        assert_eq!(r.depth(), 3);
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
