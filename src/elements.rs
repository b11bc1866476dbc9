//! JSON elements: cutting a JSON array, or JSON values one after another,
//! into its elements, at the framing layer.
//!
//! `claude -p --output-format json --verbose` writes a whole run as one JSON
//! array (often on one line of megabytes); claude-code-action and people's
//! fixtures keep pretty-printed arrays and pretty-printed objects one after
//! another. This module hands out each element's bytes with its position,
//! the way [`crate::framing`] hands out lines, so that each element is then
//! read exactly as a line would be ([`Element::as_line`] feeds the same
//! [`Scanner`](crate::scan::Scanner) and [`parse_event`](crate::event::parse_event),
//! with the same errors).
//!
//! The input is a sequence of top-level values separated by whitespace: an
//! array gives its elements (one level: an array inside it is one element),
//! an object is one element. So one array, pretty objects one after another,
//! concatenated arrays and plain NDJSON are all read the same way. Elements
//! are found by a structural scan (strings crossed with `memchr2` for the
//! quote and the backslash, brackets counted outside strings); it checks the
//! array's own punctuation and nothing inside an element, which the
//! validating scan of the layer above checks as it does any line.
//!
//! What is not JSON is reported, and reading goes on:
//! - text where a top-level value should start: one
//!   [`ErrorKind::InvalidJson`] for the whole run of such lines, reading
//!   again at the next line that starts with `{` or `[`;
//! - a missing or doubled comma, a comma before `]`, a stray `]`: one error
//!   each, at its byte, and the elements around it are kept;
//! - the input ending inside an element: that element with
//!   [`Element::complete`] false (read as a line, it is
//!   [`ErrorKind::Truncated`]); ending inside the array after an element: one
//!   [`ErrorKind::Truncated`] error at the end;
//! - an element longer than the maximum (default 256 MiB, as for lines):
//!   [`ErrorKind::LineTooLong`] at its start, skipped to its end.
//!
//! Three sources behave the same (same elements, errors and positions for
//! any chunking): [`Elements`] over a slice (a file read whole or a memory
//! map: no copy), [`ElementDecoder`] for pushed chunks, and [`ElementReader`]
//! over any [`Read`], in memory bounded by the read size and the largest
//! element (no whole-array buffer).
//!
//! ```
//! use cctape::elements::Elements;
//!
//! let input = b"[{\"type\":\"system\",\"subtype\":\"init\"},\n {\"type\":\"result\"}]\n";
//! let els: Vec<_> = Elements::new(input).map(|e| e.unwrap()).collect();
//! assert_eq!(els.len(), 2);
//! assert_eq!(els[1].bytes, b"{\"type\":\"result\"}");
//! assert_eq!((els[1].index, els[1].line, els[1].offset), (1, 2, 38));
//! ```

use crate::error::{Error, ErrorKind, Position};
use crate::framing::{DEFAULT_MAX_LINE, DEFAULT_READ_SIZE, Line};
use std::io::Read;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One element of a JSON array (or one top-level value), with where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element<'b> {
    /// The element's bytes, from its first byte to its last (no comma or
    /// surrounding whitespace).
    pub bytes: &'b [u8],
    /// 0-based index among the elements of the input (in a single array,
    /// what jq calls `.[index]`).
    pub index: u64,
    /// 1-based line where the element starts.
    pub line: u64,
    /// 0-based byte offset of the element's first byte in the input.
    pub offset: u64,
    /// 0-based byte of the element's first byte within line `line` (the
    /// column errors on that line are counted from).
    pub column: u64,
    /// False only when the input ended inside the element.
    pub complete: bool,
}

impl<'b> Element<'b> {
    /// The element as a line, for the layers that read lines
    /// ([`Scanner::scan`](crate::scan::Scanner::scan),
    /// [`parse_event`](crate::event::parse_event)): its number is the line
    /// where the element starts, its offset the element's first byte, and it
    /// is unterminated when the element is not complete.
    pub fn as_line(&self) -> Line<'b> {
        Line {
            bytes: self.bytes,
            number: self.line,
            offset: self.offset,
            terminated: self.complete,
        }
    }

    /// The element at `span` of `buf`.
    fn in_buffer(buf: &'b [u8], span: ElementSpan) -> Element<'b> {
        Element {
            bytes: buf.get(span.start..span.end).unwrap_or_default(),
            index: span.index,
            line: span.line,
            offset: span.offset,
            column: span.column,
            complete: span.complete,
        }
    }

    /// Where the element starts, with its index.
    pub fn position(&self) -> Position {
        let mut p = Position::new(self.line, self.offset);
        p.element = Some(self.index);
        p
    }

    /// The element on one line: its bytes with the whitespace outside
    /// strings removed (what `jq -c` prints for a pretty element, keys and
    /// values as written), appended to `out`. An element already on one
    /// line is copied as it is.
    ///
    /// ```
    /// use cctape::elements::Elements;
    /// let el = Elements::new(b"[\n  {\n    \"a\": \"x y\",\n    \"b\": [1, 2]\n  }\n]").next().unwrap().unwrap();
    /// let mut out = Vec::new();
    /// el.compact_into(&mut out);
    /// assert_eq!(out, br#"{"a":"x y","b":[1,2]}"#);
    /// ```
    pub fn compact_into(&self, out: &mut Vec<u8>) {
        compact_into(self.bytes, out);
    }

    /// Restate an error from reading [`as_line`](Element::as_line) at the
    /// physical line it is on: a pretty-printed element spans lines, and the
    /// column the scanner gives is a byte within the element. The result
    /// names that line (its offset is where that line starts), the column
    /// of the offending byte in it, and the element's index.
    ///
    /// ```
    /// use cctape::elements::Elements;
    /// use cctape::scan::Scanner;
    ///
    /// let input = b"[\n  {\n    \"type\": \"user\",\n    \"n\": tru\n  }\n]\n";
    /// let el = Elements::new(input).next().unwrap().unwrap();
    /// let mut scanner = Scanner::new();
    /// let err = el.locate(scanner.scan(&el.as_line()).unwrap_err());
    /// let p = err.position();
    /// // The offending byte is the LF after `tru`: the end of line 4.
    /// assert_eq!((p.line, p.column, p.element), (4, Some(12), Some(0)));
    /// assert_eq!(p.byte(), 38);
    /// ```
    pub fn locate(&self, err: Error) -> Error {
        let was = err.position();
        let mut p = self.position();
        if let Some(col) = was.column {
            let col = usize::try_from(col)
                .unwrap_or(usize::MAX)
                .min(self.bytes.len());
            let before = &self.bytes[..col];
            match memchr::memrchr(b'\n', before) {
                Some(last) => {
                    p.line += memchr::memchr_iter(b'\n', before).count() as u64;
                    p.offset = self.offset + last as u64 + 1;
                    p.column = Some((col - last - 1) as u64);
                }
                None => {
                    // On the element's first line: counted from that line's
                    // start, as on every other line.
                    p.offset = self.offset - self.column;
                    p.column = Some(self.column + col as u64);
                }
            }
        }
        err.relocated(p)
    }
}

/// How many bytes of a line are looked at for a logger prefix.
const PREFIX_LOOK: usize = 160;

/// A log whose lines carry a logger's prefix (`[2025-10-13T01:16:00Z]
/// [INFO] {...`), read as the JSON values in it: the same bytes, with each
/// prefix, and each line of the log's own text between values, replaced by
/// spaces. Lines and byte offsets stay those of the log, so
/// [`ElementReader`] over it finds every value (pretty-printed or on one
/// line) at its own line and offset.
///
/// A value written on one line that the logger cut into chunks (each with
/// its prefix) is joined back where the cut fell between tokens; where it
/// fell inside a string, the string holds a line end and the value is an
/// error at its line, as it should be: the bytes are damaged.
///
/// ```
/// use cctape::elements::{ElementReader, LogValues};
///
/// let log = b"[2025-10-13T01:16:00Z] [INFO] starting\n[2025-10-13T01:16:01Z] [INFO] {\n  \"type\": \"user\"\n}\n[2025-10-13T01:16:02Z] [INFO] {\"type\":\"result\",\n[2025-10-13T01:16:02Z] [INFO] \"subtype\":\"success\"}\n";
/// let mut r = ElementReader::new(LogValues::new(&log[..]));
/// let mut got = Vec::new();
/// while let Some(el) = r.next_element() {
///     let el = el.unwrap();
///     got.push((el.line, el.offset));
/// }
/// assert_eq!(got, [(2, 69), (5, 120)]);
/// ```
#[derive(Debug)]
pub struct LogValues<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// The next byte starts a line.
    line_start: bool,
    /// The rest of the current line is the log's own text.
    text: bool,
    depth: u64,
    in_string: bool,
    escaped: bool,
}

impl<R: Read> LogValues<R> {
    /// The JSON values of the log `inner`.
    pub fn new(inner: R) -> LogValues<R> {
        LogValues {
            inner,
            buf: vec![0; DEFAULT_READ_SIZE.max(PREFIX_LOOK * 2)],
            start: 0,
            end: 0,
            eof: false,
            line_start: true,
            text: false,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    /// Read more into the buffer, keeping what is not yet handed out.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            return Ok(true);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// At a line start: blank its prefix, and the whole line when, between
    /// values, it does not start one.
    fn start_line(&mut self) -> std::io::Result<()> {
        // Enough of the line to see its prefix and what follows it.
        loop {
            let seen = &self.buf[self.start..self.end];
            let enough = seen.len() >= PREFIX_LOOK || memchr::memchr(b'\n', seen).is_some();
            if enough || self.eof || !self.fill()? {
                break;
            }
        }
        let line = &mut self.buf[self.start..self.end];
        let head = &line[..line.len().min(PREFIX_LOOK)];
        let prefix = crate::sniff::logger_prefix_len(head).unwrap_or(0);
        line[..prefix].fill(b' ');
        if self.depth == 0 && !self.in_string {
            let rest = &line[prefix..];
            let first = rest.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\r'));
            self.text = !matches!(first, Some(b'{' | b'[') | Some(b'\n') | None);
        }
        self.line_start = false;
        Ok(())
    }
}

impl<R: Read> Read for LogValues<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.start == self.end && (self.eof || !self.fill()?) {
            return Ok(0);
        }
        if self.line_start {
            self.start_line()?;
        }
        let avail = &mut self.buf[self.start..self.end];
        let mut n = 0;
        while n < avail.len().min(out.len()) {
            let b = avail[n];
            n += 1;
            if b == b'\n' {
                self.text = false;
                self.line_start = true;
                break;
            }
            if self.text {
                avail[n - 1] = b' ';
                continue;
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        out[..n].copy_from_slice(&avail[..n]);
        self.start += n;
        Ok(n)
    }
}

/// JSON bytes with the whitespace outside strings removed, appended to
/// `out`; bytes without an LF (a line) are copied as they are.
pub fn compact_into(bytes: &[u8], out: &mut Vec<u8>) {
    if memchr::memchr(b'\n', bytes).is_none() {
        out.extend_from_slice(bytes);
        return;
    }
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                in_string = true;
                out.push(b);
            }
            _ => out.push(b),
        }
    }
}

/// What the splitter expects between values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Outside any array: a top-level `[` or `{`.
    Top,
    /// Just after `[`: an element or `]`.
    ArrayOpen,
    /// After an element: `,` or `]`.
    ArrayValue,
    /// After a comma: an element.
    ArrayComma,
}

/// One step of the splitter.
#[derive(Debug)]
enum Step {
    /// An element was found.
    Element(Found),
    /// A problem outside any element, or an element past the maximum.
    Error(Error),
    /// The bytes given end before the next item.
    More,
    /// The input is over.
    Done,
}

/// An element found: `start..end` are absolute offsets.
#[derive(Clone, Copy, Debug)]
struct Found {
    start: u64,
    end: u64,
    index: u64,
    line: u64,
    column: u64,
    complete: bool,
}

impl Found {
    /// Where it lies in a buffer that starts at absolute offset `base`.
    fn span(self, base: u64) -> ElementSpan {
        ElementSpan {
            start: (self.start - base) as usize,
            end: (self.end - base) as usize,
            index: self.index,
            line: self.line,
            offset: self.start,
            column: self.column,
            complete: self.complete,
        }
    }
}

/// The resumable state machine shared by the three sources. It sees the
/// input through a window `buf` that starts at absolute offset `base`, and
/// keeps only absolute offsets, so that the decoder can drop bytes it no
/// longer needs between calls.
#[derive(Debug)]
struct Splitter {
    /// Next byte to look at.
    pos: u64,
    mode: Mode,
    in_value: bool,
    value_start: u64,
    value_line: u64,
    /// Where the value in progress starts within its line.
    value_column: u64,
    depth: u64,
    /// One bit per open container up to 1024 levels: 1 for an object.
    kinds: [u64; 16],
    in_str: bool,
    esc: bool,
    scalar: bool,
    /// The value in progress is past the maximum (already reported).
    oversize: bool,
    /// Skipping text at top level, to the next line that starts a value.
    junk: bool,
    /// Skipping text, and an LF was passed since the last look.
    junk_line_start: bool,
    /// LFs before this offset are counted in `line`.
    counted: u64,
    line: u64,
    line_start: u64,
    index: u64,
    bom_checked: bool,
    max: usize,
    finished: bool,
}

impl Splitter {
    fn new(max: usize) -> Splitter {
        Splitter {
            pos: 0,
            mode: Mode::Top,
            in_value: false,
            value_start: 0,
            value_line: 0,
            value_column: 0,
            depth: 0,
            kinds: [0; 16],
            in_str: false,
            esc: false,
            scalar: false,
            oversize: false,
            junk: false,
            junk_line_start: false,
            counted: 0,
            line: 1,
            line_start: 0,
            index: 0,
            bom_checked: false,
            max: max.max(1),
            finished: false,
        }
    }

    /// The first absolute offset the splitter may still need.
    fn keep_from(&self) -> u64 {
        if self.in_value && !self.oversize {
            self.value_start
        } else {
            self.pos
        }
    }

    /// Count the LFs up to `to` (which must be in the window).
    fn count_lines(&mut self, buf: &[u8], base: u64, to: u64) {
        if to <= self.counted {
            return;
        }
        let from = (self.counted - base) as usize;
        let bytes = &buf[from..(to - base) as usize];
        if let Some(last) = memchr::memrchr(b'\n', bytes) {
            self.line += memchr::memchr_iter(b'\n', bytes).count() as u64;
            self.line_start = self.counted + last as u64 + 1;
        }
        self.counted = to;
    }

    /// Physical lines seen so far, as [`crate::framing`] counts them (LFs,
    /// plus one if bytes follow the last LF), once the window reaches `end`.
    fn lines(&self, end: u64) -> u64 {
        self.line - 1 + u64::from(end > self.line_start)
    }

    /// A position at absolute offset `at`, on its physical line.
    fn position_at(&mut self, buf: &[u8], base: u64, at: u64) -> Position {
        self.count_lines(buf, base, at);
        let mut p = Position::new(self.line, self.line_start);
        p.column = Some(at - self.line_start);
        p
    }

    fn error(
        &mut self,
        buf: &[u8],
        base: u64,
        at: u64,
        kind: ErrorKind,
        why: &'static str,
    ) -> Step {
        let p = self.position_at(buf, base, at);
        Step::Error(Error::new(kind, p, why))
    }

    fn start_value(&mut self, buf: &[u8], base: u64, c: u8) {
        self.in_value = true;
        self.value_start = self.pos;
        self.count_lines(buf, base, self.pos);
        self.value_line = self.line;
        self.value_column = self.pos - self.line_start;
        self.depth = 0;
        self.in_str = false;
        self.esc = false;
        self.scalar = false;
        self.oversize = false;
        match c {
            b'{' | b'[' => {
                self.open(c == b'{');
                self.pos += 1;
            }
            b'"' => {
                self.in_str = true;
                self.pos += 1;
            }
            _ => self.scalar = true,
        }
    }

    fn open(&mut self, object: bool) {
        if let Some(w) = self.kinds.get_mut((self.depth / 64) as usize) {
            let bit = 1u64 << (self.depth % 64);
            if object {
                *w |= bit;
            } else {
                *w &= !bit;
            }
        }
        self.depth += 1;
    }

    /// Close a container with `b`; true when the element ends here: its
    /// last container closed, or a bracket of the wrong kind (the element
    /// ends at it, the layer above reports it invalid, and what follows is
    /// read as more elements instead of being swallowed).
    fn close(&mut self, b: u8) -> bool {
        let top = self.depth - 1;
        let was_object = self
            .kinds
            .get((top / 64) as usize)
            .map(|w| w & (1u64 << (top % 64)) != 0);
        if was_object.is_some_and(|o| o != (b == b'}')) {
            self.depth = 0;
            return true;
        }
        self.depth = top;
        top == 0
    }

    /// Scan the value in progress; its end when found.
    fn scan_value(&mut self, buf: &[u8], base: u64) -> Option<u64> {
        let end = base + buf.len() as u64;
        loop {
            if self.pos >= end {
                return None;
            }
            let rel = (self.pos - base) as usize;
            if self.esc {
                self.esc = false;
                self.pos += 1;
                continue;
            }
            if self.in_str {
                match memchr::memchr2(b'"', b'\\', &buf[rel..]) {
                    None => {
                        self.pos = end;
                        return None;
                    }
                    Some(i) => {
                        self.pos += i as u64 + 1;
                        if buf[rel + i] == b'\\' {
                            self.esc = true;
                        } else {
                            self.in_str = false;
                            if self.depth == 0 {
                                return Some(self.pos);
                            }
                        }
                    }
                }
                continue;
            }
            if self.scalar {
                let stop = buf[rel..].iter().position(|&b| {
                    matches!(
                        b,
                        b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}' | b'[' | b'{' | b'"'
                    )
                });
                return match stop {
                    Some(i) => {
                        self.pos += i as u64;
                        Some(self.pos)
                    }
                    None => {
                        self.pos = end;
                        None
                    }
                };
            }
            // Inside a container, outside strings: only brackets and quotes
            // matter.
            let mut i = rel;
            let found = loop {
                let Some(&b) = buf.get(i) else {
                    break None;
                };
                match b {
                    b'"' => break Some(b),
                    b'{' | b'[' => self.open(b == b'{'),
                    b'}' | b']' if self.close(b) => break Some(b),
                    _ => {}
                }
                i += 1;
            };
            self.pos = base + i as u64;
            match found {
                None => return None,
                Some(b'"') => {
                    self.in_str = true;
                    self.pos += 1;
                }
                Some(_) => {
                    self.pos += 1;
                    return Some(self.pos);
                }
            }
        }
    }

    /// End the value in progress: its element, or nothing (`More`) for a
    /// value past the maximum, already reported.
    fn emit(&mut self, end: u64, complete: bool) -> Step {
        self.in_value = false;
        let index = self.index;
        self.index += 1;
        if self.mode != Mode::Top {
            self.mode = Mode::ArrayValue;
        }
        if self.oversize {
            return Step::More;
        }
        Step::Element(Found {
            start: self.value_start,
            end,
            index,
            line: self.value_line,
            column: self.value_column,
            complete,
        })
    }

    fn too_long(&mut self) -> Step {
        self.oversize = true;
        let mut p = Position::new(self.value_line, self.value_start);
        p.element = Some(self.index);
        Step::Error(Error::new(
            ErrorKind::LineTooLong,
            p,
            "JSON element longer than the maximum; skipped to its end",
        ))
    }

    /// The next step on the window `buf` (absolute offset `base`), which
    /// holds everything from [`keep_from`](Splitter::keep_from) on; `eof`
    /// when no byte will follow the window.
    fn step(&mut self, buf: &[u8], base: u64, eof: bool) -> Step {
        let end = base + buf.len() as u64;
        if !self.bom_checked {
            if base == 0 && buf.len() < BOM.len() && !eof && BOM.starts_with(buf) {
                return Step::More;
            }
            self.bom_checked = true;
            if base == 0 && buf.starts_with(BOM) {
                self.pos = BOM.len() as u64;
                self.counted = self.pos;
                self.line_start = self.pos;
            }
        }
        loop {
            if self.in_value {
                let done = self.scan_value(buf, base);
                let reached = done.unwrap_or(end);
                if !self.oversize && reached - self.value_start > self.max as u64 {
                    let s = self.too_long();
                    if let Some(e) = done {
                        self.emit(e, true);
                    } else if eof {
                        self.emit(end, false);
                        self.mode = Mode::Top;
                    }
                    return s;
                }
                let s = match done {
                    Some(e) => self.emit(e, true),
                    None if eof => {
                        // A scalar ends with the input; anything else was
                        // cut. A cut element is reported truncated, and the
                        // array it was in is not reported again.
                        let complete = self.scalar;
                        let s = self.emit(end, complete);
                        if !complete {
                            self.mode = Mode::Top;
                        }
                        s
                    }
                    None => return Step::More,
                };
                if let Step::Element(_) = s {
                    return s;
                }
                continue;
            }
            if self.junk && !self.junk_line_start {
                let rel = (self.pos - base) as usize;
                match memchr::memchr(b'\n', &buf[rel..]) {
                    Some(i) => {
                        self.pos += i as u64 + 1;
                        self.junk_line_start = true;
                    }
                    None => {
                        self.pos = end;
                        if !eof {
                            return Step::More;
                        }
                    }
                }
            }
            let rel = (self.pos - base) as usize;
            let ws = buf[rel..]
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            let Some(ws) = ws else {
                self.pos = end;
                if !eof {
                    return Step::More;
                }
                return self.finish(buf, base);
            };
            self.pos += ws as u64;
            let c = buf[rel + ws];
            if self.junk {
                if matches!(c, b'{' | b'[') {
                    self.junk = false;
                } else {
                    self.junk_line_start = false;
                    continue;
                }
            }
            let at = self.pos;
            match self.mode {
                Mode::Top => match c {
                    b'[' => {
                        self.mode = Mode::ArrayOpen;
                        self.pos += 1;
                    }
                    b'{' => self.start_value(buf, base, c),
                    b']' | b'}' | b',' => {
                        self.pos += 1;
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "unexpected `]`, `}` or `,` outside any array or object",
                        );
                    }
                    _ => {
                        self.junk = true;
                        self.junk_line_start = false;
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "expected a JSON array or object (`[` or `{`): not JSON; reading again at the next \
                             line that starts with `[` or `{`",
                        );
                    }
                },
                Mode::ArrayOpen | Mode::ArrayComma if c == b']' => {
                    self.pos += 1;
                    let trailing = self.mode == Mode::ArrayComma;
                    self.mode = Mode::Top;
                    if trailing {
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "a comma before `]` (expected another element)",
                        );
                    }
                }
                Mode::ArrayOpen | Mode::ArrayComma if c == b',' || c == b'}' => {
                    self.pos += 1;
                    self.mode = Mode::ArrayComma;
                    return self.error(
                        buf,
                        base,
                        at,
                        ErrorKind::InvalidJson,
                        "expected an array element",
                    );
                }
                Mode::ArrayOpen | Mode::ArrayComma => self.start_value(buf, base, c),
                Mode::ArrayValue => match c {
                    b',' => {
                        self.mode = Mode::ArrayComma;
                        self.pos += 1;
                    }
                    b']' => {
                        self.mode = Mode::Top;
                        self.pos += 1;
                    }
                    _ => {
                        // Read on as if the comma were there.
                        self.mode = Mode::ArrayComma;
                        return self.error(
                            buf,
                            base,
                            at,
                            ErrorKind::InvalidJson,
                            "expected `,` or `]` after an array element",
                        );
                    }
                },
            }
        }
    }

    fn finish(&mut self, buf: &[u8], base: u64) -> Step {
        let end = base + buf.len() as u64;
        self.count_lines(buf, base, end);
        if self.mode != Mode::Top {
            self.mode = Mode::Top;
            return self.error(
                buf,
                base,
                end,
                ErrorKind::Truncated,
                "the input ended inside a JSON array (no closing `]`)",
            );
        }
        self.finished = true;
        Step::Done
    }
}

/// The elements of a byte slice (a file read whole, or a memory map): each
/// borrows the slice, nothing is copied.
///
/// Equivalent to reading the slice with [`ElementDecoder`] in one push.
#[derive(Debug)]
pub struct Elements<'b> {
    bytes: &'b [u8],
    split: Splitter,
}

impl<'b> Elements<'b> {
    /// The elements of `bytes`, skipping a UTF-8 BOM at its very start.
    pub fn new(bytes: &'b [u8]) -> Elements<'b> {
        Elements::with_max(bytes, DEFAULT_MAX_LINE)
    }

    /// Report elements longer than `max` bytes as
    /// [`ErrorKind::LineTooLong`], as the reader does (default 256 MiB), so
    /// that a file gives the same items whether it is mapped or streamed.
    pub fn with_max(bytes: &'b [u8], max: usize) -> Elements<'b> {
        Elements {
            bytes,
            split: Splitter::new(max),
        }
    }

    /// Physical lines seen so far (all of them once the iterator is done).
    pub fn lines(&self) -> u64 {
        self.split.lines(self.split.counted)
    }
}

impl<'b> Iterator for Elements<'b> {
    type Item = Result<Element<'b>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.split.finished {
            return None;
        }
        match self.split.step(self.bytes, 0, true) {
            Step::Element(found) => Some(Ok(Element::in_buffer(self.bytes, found.span(0)))),
            Step::Error(e) => Some(Err(e)),
            Step::More | Step::Done => None,
        }
    }
}

/// Where an element lies in an [`ElementDecoder`]'s buffer; see
/// [`ElementDecoder::next_span`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementSpan {
    start: usize,
    end: usize,
    /// 0-based index of the element.
    pub index: u64,
    /// 1-based line where it starts.
    pub line: u64,
    /// 0-based byte offset of its first byte in the input.
    pub offset: u64,
    /// 0-based byte of its first byte within line `line`.
    pub column: u64,
    /// False when the input ended inside it.
    pub complete: bool,
}

impl ElementSpan {
    /// Length of the element in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// True for an empty element (never handed out; for completeness).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A push decoder: feed it chunks of any size, take complete elements out.
///
/// Whatever the chunking, the elements and errors are those [`Elements`]
/// gives for the whole input. The buffer holds the element being read and
/// the last chunk, and is reused.
///
/// ```
/// use cctape::elements::ElementDecoder;
///
/// let mut dec = ElementDecoder::new();
/// let mut got = Vec::new();
/// for chunk in [&b"[{\"a\":"[..], b"1},{\"b\"", b":2}]"] {
///     dec.push(chunk);
///     while let Some(el) = dec.next_element() {
///         got.push(el.unwrap().bytes.to_vec());
///     }
/// }
/// dec.finish();
/// assert!(dec.next_element().is_none());
/// assert_eq!(got, [b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]);
/// ```
#[derive(Debug)]
pub struct ElementDecoder {
    buf: Vec<u8>,
    end: usize,
    /// Absolute offset of `buf[0]`.
    base: u64,
    split: Splitter,
    eof: bool,
}

impl Default for ElementDecoder {
    fn default() -> Self {
        ElementDecoder::new()
    }
}

impl ElementDecoder {
    /// A decoder with the default maximum element size (256 MiB).
    pub fn new() -> ElementDecoder {
        ElementDecoder::with_max(DEFAULT_MAX_LINE)
    }

    /// A decoder that reports elements longer than `max` bytes as
    /// [`ErrorKind::LineTooLong`] instead of buffering them.
    pub fn with_max(max: usize) -> ElementDecoder {
        ElementDecoder {
            buf: Vec::new(),
            end: 0,
            base: 0,
            split: Splitter::new(max),
            eof: false,
        }
    }

    /// Bytes pushed so far.
    pub fn bytes_pushed(&self) -> u64 {
        self.base + self.end as u64
    }

    /// Physical lines seen so far (all of them once the decoder is done).
    pub fn lines(&self) -> u64 {
        self.split.lines(self.split.counted)
    }

    /// The buffer's capacity: what the decoder holds in memory.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Append a chunk.
    pub fn push(&mut self, chunk: &[u8]) {
        let dst = self.spare(chunk.len());
        dst[..chunk.len()].copy_from_slice(chunk);
        self.commit(chunk.len());
    }

    /// Free space of at least `min` bytes at the end of the buffer, to read
    /// into directly; follow with [`commit`](ElementDecoder::commit).
    pub fn spare(&mut self, min: usize) -> &mut [u8] {
        self.compact();
        if self.buf.len() - self.end < min {
            let cap = self.split.max.saturating_add(min);
            let want = (self.end + min).max((self.buf.len() * 2).min(cap));
            self.buf.resize(want, 0);
        }
        &mut self.buf[self.end..]
    }

    /// Mark `n` bytes written into [`spare`](ElementDecoder::spare) as data.
    pub fn commit(&mut self, n: usize) {
        self.end = (self.end + n).min(self.buf.len());
    }

    /// Say that no more bytes will come.
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// True once [`finish`](ElementDecoder::finish) was called and every
    /// item was taken.
    pub fn is_done(&self) -> bool {
        self.split.finished
    }

    fn compact(&mut self) {
        let keep = self.split.keep_from().min(self.bytes_pushed());
        if keep <= self.base {
            return;
        }
        self.split.count_lines(
            &self.buf[..self.end],
            self.base,
            keep.max(self.split.counted),
        );
        let drop = (keep - self.base) as usize;
        self.buf.copy_within(drop..self.end, 0);
        self.end -= drop;
        self.base = keep;
    }

    /// The next element, or an error outside (or about) an element, or
    /// `None` when more input is needed (or, after `finish`, when all is
    /// done).
    pub fn next_element(&mut self) -> Option<Result<Element<'_>, Error>> {
        match self.next_span()? {
            Ok(span) => Some(Ok(self.element(span))),
            Err(e) => Some(Err(e)),
        }
    }

    /// Like [`next_element`](ElementDecoder::next_element) but returns where
    /// the element is; take its bytes with [`element`](ElementDecoder::element).
    pub fn next_span(&mut self) -> Option<Result<ElementSpan, Error>> {
        if self.split.finished {
            return None;
        }
        if self.split.oversize {
            // Nothing of an element past the maximum is kept.
            self.compact();
        }
        match self.split.step(&self.buf[..self.end], self.base, self.eof) {
            Step::Element(found) => Some(Ok(found.span(self.base))),
            Step::Error(e) => Some(Err(e)),
            Step::More | Step::Done => None,
        }
    }

    /// The element at `span`, which the last
    /// [`next_span`](ElementDecoder::next_span) returned (spans are
    /// invalidated by the next `push`, `spare` or `next_span`).
    pub fn element(&self, span: ElementSpan) -> Element<'_> {
        Element::in_buffer(&self.buf, span)
    }
}

/// Elements from any [`Read`] (stdin, pipes, decompressors), in memory
/// bounded by the read size and the largest element.
///
/// ```
/// use cctape::elements::ElementReader;
///
/// let input = &b"[\n  {\"type\": \"user\"},\n  {\"type\": \"result\"}\n]\n"[..];
/// let mut r = ElementReader::new(input);
/// let mut lines = Vec::new();
/// while let Some(el) = r.next_element() {
///     lines.push(el.unwrap().line);
/// }
/// assert_eq!(lines, [2, 3]);
/// assert_eq!(r.lines(), 4);
/// ```
#[derive(Debug)]
pub struct ElementReader<R> {
    rdr: R,
    dec: ElementDecoder,
    read_size: usize,
    failed: bool,
}

impl<R: Read> ElementReader<R> {
    /// A reader with the default maximum element (256 MiB) and read size.
    pub fn new(rdr: R) -> ElementReader<R> {
        ElementReader::with_capacity(rdr, DEFAULT_READ_SIZE, DEFAULT_MAX_LINE)
    }

    /// A reader that reads `read_size` bytes at a time and reports elements
    /// longer than `max` as [`ErrorKind::LineTooLong`].
    pub fn with_capacity(rdr: R, read_size: usize, max: usize) -> ElementReader<R> {
        ElementReader {
            rdr,
            dec: ElementDecoder::with_max(max),
            read_size: read_size.max(1),
            failed: false,
        }
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.dec.bytes_pushed()
    }

    /// Physical lines seen so far.
    pub fn lines(&self) -> u64 {
        self.dec.lines()
    }

    /// The decoder's buffer capacity.
    pub fn capacity(&self) -> usize {
        self.dec.capacity()
    }

    /// The next element or error; an I/O error is the last item.
    pub fn next_element(&mut self) -> Option<Result<Element<'_>, Error>> {
        match self.next_span()? {
            Ok(span) => Some(Ok(self.dec.element(span))),
            Err(e) => Some(Err(e)),
        }
    }

    /// Like [`next_element`](ElementReader::next_element) but returns where
    /// the element is; take its bytes with [`element`](ElementReader::element).
    pub fn next_span(&mut self) -> Option<Result<ElementSpan, Error>> {
        if self.failed {
            return None;
        }
        loop {
            if let Some(r) = self.dec.next_span() {
                return Some(r);
            }
            if self.dec.eof {
                return None;
            }
            let spare = self.dec.spare(self.read_size);
            match self.rdr.read(spare) {
                Ok(0) => self.dec.finish(),
                Ok(n) => self.dec.commit(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.failed = true;
                    let pos = Position::new(self.dec.split.line, self.dec.bytes_pushed());
                    return Some(Err(Error::io(e, pos)));
                }
            }
        }
    }

    /// The element at `span`.
    pub fn element(&self, span: ElementSpan) -> Element<'_> {
        self.dec.element(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An element owned (bytes, index, line, offset, complete), or an error.
    type Item = Result<(Vec<u8>, u64, u64, u64, bool), (ErrorKind, Position)>;

    fn items(input: &[u8]) -> Vec<Item> {
        Elements::new(input)
            .map(|r| {
                r.map(|e| (e.bytes.to_vec(), e.index, e.line, e.offset, e.complete))
                    .map_err(|e| (e.kind(), e.position()))
            })
            .collect()
    }

    fn chunked(input: &[u8], size: usize, max: usize) -> Vec<Item> {
        let mut dec = ElementDecoder::with_max(max);
        let mut out = Vec::new();
        let mut take = |dec: &mut ElementDecoder| {
            while let Some(r) = dec.next_element() {
                out.push(
                    r.map(|e| (e.bytes.to_vec(), e.index, e.line, e.offset, e.complete))
                        .map_err(|e| (e.kind(), e.position())),
                );
            }
        };
        for c in input.chunks(size.max(1)) {
            dec.push(c);
            take(&mut dec);
        }
        dec.finish();
        take(&mut dec);
        out
    }

    #[test]
    fn arrays_objects_and_errors_give_the_same_items_at_every_chunking() {
        let cases: &[&[u8]] = &[
            b"[{\"a\":1},{\"b\":[1,{\"c\":\"]}\\\"\"}]}]",
            b"\xEF\xBB\xBF[\n  {\n    \"a\": 1\n  },\n  {\n    \"b\": 2\n  }\n]\n",
            b"{\"a\":1}\n{\"b\":2}\n",
            b"{\n \"a\": 1\n}\n{\n \"b\": \"x\\\\\"\n}",
            b"[{\"a\":1} {\"b\":2},,{\"c\":3},]",
            b"[{\"a\":1},{\"b\":",
            b"[{\"a\":1},",
            b"[{\"a\":[1,},{\"b\":2}]",
            b"{\"a\":[1}\n{\"b\":2}\n",
            b"API Error: Unable to connect\nstill text\n{\"a\":1}\n]",
            b"[1, \"s\", true, null, [2]]",
            b"[]\n[]\n",
            b"",
            b"   \n",
        ];
        for input in cases {
            let whole = items(input);
            for size in 1..=17 {
                assert_eq!(
                    chunked(input, size, DEFAULT_MAX_LINE),
                    whole,
                    "{:?} at {size}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn elements_of_an_array_on_one_line_and_pretty() {
        let got = items(b"[{\"a\":1},{\"b\":2}]");
        assert_eq!(
            got,
            [
                Ok((b"{\"a\":1}".to_vec(), 0, 1, 1, true)),
                Ok((b"{\"b\":2}".to_vec(), 1, 1, 9, true))
            ]
        );
        let got = items(b"[\n  {\n    \"a\": 1\n  },\n  {\"b\": 2}\n]\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].as_ref().unwrap().2, 2);
        assert_eq!(got[1].as_ref().unwrap().2, 5);
    }

    #[test]
    fn wrapper_errors_keep_the_elements_around_them() {
        let got = items(b"[{\"a\":1} {\"b\":2},,{\"c\":3},]");
        let kinds: Vec<_> = got
            .iter()
            .map(|r| match r {
                Ok((b, ..)) => String::from_utf8_lossy(b).into_owned(),
                Err((k, p)) => format!("{k}@{}", p.byte()),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "{\"a\":1}",
                "invalid_json@9",
                "{\"b\":2}",
                "invalid_json@17",
                "{\"c\":3}",
                "invalid_json@26"
            ]
        );
    }

    #[test]
    fn a_mismatched_bracket_ends_its_element_and_the_rest_is_read() {
        let got = items(b"[{\"a\":[1,},{\"b\":2}]");
        assert_eq!(got[0], Ok((b"{\"a\":[1,}".to_vec(), 0, 1, 1, true)));
        assert_eq!(got[1], Ok((b"{\"b\":2}".to_vec(), 1, 1, 11, true)));
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn a_truncated_array_is_truncated_at_its_position() {
        let got = items(b"[{\"a\":1},{\"b\":");
        assert_eq!(got[0].as_ref().unwrap().0, b"{\"a\":1}");
        assert_eq!(got[1], Ok((b"{\"b\":".to_vec(), 1, 1, 9, false)));
        assert_eq!(got.len(), 2);
        let got = items(b"[{\"a\":1},\n");
        assert_eq!(got.len(), 2);
        let (k, p) = got[1].clone().unwrap_err();
        assert_eq!((k, p.line, p.byte()), (ErrorKind::Truncated, 2, 10));
    }

    #[test]
    fn text_is_one_error_until_a_line_starts_a_value() {
        let got = items(
            b"API Error: Unable to connect to API (ConnectionRefused)\nmore\ntext\n{\"a\":1}\n",
        );
        assert_eq!(got.len(), 2);
        let (k, p) = got[0].clone().unwrap_err();
        assert_eq!((k, p.line, p.byte()), (ErrorKind::InvalidJson, 1, 0));
        assert_eq!(got[1], Ok((b"{\"a\":1}".to_vec(), 0, 4, 66, true)));
    }

    #[test]
    fn an_element_past_the_maximum_is_skipped_with_one_error() {
        let input = b"[{\"a\":\"xxxxxxxxxxxxxxxxxxxx\"},{\"b\":1}]";
        let whole: Vec<_> = Elements::with_max(input, 10)
            .map(|r| {
                r.map(|e| e.bytes.to_vec())
                    .map_err(|e| (e.kind(), e.position()))
            })
            .collect();
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].clone().unwrap_err().0, ErrorKind::LineTooLong);
        assert_eq!(whole[1], Ok(b"{\"b\":1}".to_vec()));
        for size in 1..=9 {
            let got: Vec<_> = chunked(input, size, 10)
                .into_iter()
                .map(|r| r.map(|e| e.0))
                .collect();
            assert_eq!(got, whole, "chunk {size}");
        }
    }

    #[test]
    fn locate_names_the_physical_line_of_an_error() {
        let input = b"[\n  {\n    \"type\": \"user\",\n    \"n\": tru\n  }\n]\n";
        let el = Elements::new(input).next().unwrap().unwrap();
        let mut scanner = crate::scan::Scanner::new();
        let err = el.locate(scanner.scan(&el.as_line()).unwrap_err());
        let p = err.position();
        assert_eq!(err.kind(), ErrorKind::InvalidJson);
        assert_eq!((p.line, p.element), (4, Some(0)));
        let line4_start = input
            .split(|&b| b == b'\n')
            .take(3)
            .map(|l| l.len() + 1)
            .sum::<usize>() as u64;
        assert_eq!(p.offset, line4_start);
        // The offending byte: the LF where `true` should go on.
        let at = p.byte() as usize;
        assert_eq!((&input[at - 3..at], input[at]), (&b"tru"[..], b'\n'));
        assert_eq!(p.column, Some(12));
    }
}
