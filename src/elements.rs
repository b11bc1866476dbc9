//! JSON elements: cutting a JSON array, or JSON values one after another,
//! into its elements, at the framing layer.
//!
//! `claude -p --output-format json --verbose` writes a whole run as one JSON
//! array (often on one line of megabytes); claude-code-action and people's
//! fixtures keep pretty-printed arrays and pretty-printed objects one after
//! another. This module hands out each element's bytes with its position,
//! the way [`crate::framing`] hands out lines, so that each element is then
//! read exactly as a line would be ([`Element::as_line`] feeds the same
//! [`Scanner`](crate::json::Scanner) and [`parse_event`](crate::event::parse_event),
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
//!   [`ErrorKind::InvalidJson`](crate::error::ErrorKind::InvalidJson) for the whole run of such lines, reading
//!   again at the next line that starts with `{` or `[`;
//! - a missing or doubled comma, a comma before `]`, a stray `]`: one error
//!   each, at its byte, and the elements around it are kept;
//! - the input ending inside an element: that element with
//!   [`Element::complete`] false (read as a line, it is
//!   [`ErrorKind::Truncated`](crate::error::ErrorKind::Truncated)); ending inside the array after an element: one
//!   [`ErrorKind::Truncated`](crate::error::ErrorKind::Truncated) error at the end;
//! - an element longer than the maximum (default 256 MiB, as for lines):
//!   [`ErrorKind::LineTooLong`](crate::error::ErrorKind::LineTooLong) at its start, skipped to its end.
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

use crate::error::{Error, Position};
use crate::framing::{DEFAULT_MAX_LINE, DEFAULT_READ_SIZE, Line};
use std::io::Read;

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
    /// ([`Scanner::scan`](crate::json::Scanner::scan),
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
    /// use cctape::json::Scanner;
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

mod log;
mod split;

use log::LogState;
pub use log::{LogValues, compact_into};
use split::{Splitter, Step};

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
    /// [`ErrorKind::LineTooLong`](crate::error::ErrorKind::LineTooLong), as the reader does (default 256 MiB), so
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
    /// The bytes before this are the splitter's to read: all of them, but
    /// in a log, whose line starts wait for their prefix to be seen.
    ready: usize,
    /// A log's prefixes are blanked as bytes come ([`logged`](ElementDecoder::logged)).
    log: Option<LogState>,
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
    /// [`ErrorKind::LineTooLong`](crate::error::ErrorKind::LineTooLong) instead of buffering them.
    pub fn with_max(max: usize) -> ElementDecoder {
        ElementDecoder {
            buf: Vec::new(),
            end: 0,
            ready: 0,
            log: None,
            base: 0,
            split: Splitter::new(max),
            eof: false,
        }
    }

    /// The decoder for a log whose lines carry a logger's prefix: the JSON
    /// values in it, as [`LogValues`] reads them from a [`Read`] (the same
    /// elements, lines and offsets, whatever the chunking).
    ///
    /// ```
    /// use cctape::elements::ElementDecoder;
    ///
    /// let log = b"[2025-10-13T01:16:00Z] [INFO] starting\n[2025-10-13T01:16:01Z] [INFO] {\"type\":\"result\",\n[2025-10-13T01:16:01Z] [INFO] \"subtype\":\"success\"}\n";
    /// let mut dec = ElementDecoder::new().logged();
    /// let mut got = Vec::new();
    /// for chunk in log.chunks(7) {
    ///     dec.push(chunk);
    ///     while let Some(el) = dec.next_element() {
    ///         let el = el.unwrap();
    ///         got.push((el.line, el.offset));
    ///     }
    /// }
    /// dec.finish();
    /// assert!(dec.next_element().is_none());
    /// assert_eq!(got, [(2, 69)]);
    /// ```
    pub fn logged(mut self) -> ElementDecoder {
        self.log = Some(LogState::new());
        self
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
        self.strip();
    }

    /// Say that no more bytes will come.
    pub fn finish(&mut self) {
        self.eof = true;
        self.strip();
    }

    /// Hand the bytes committed to the splitter: in a log, once their
    /// prefixes are blanked.
    fn strip(&mut self) {
        match &mut self.log {
            None => self.ready = self.end,
            Some(log) => self.ready += log.strip(&mut self.buf[self.ready..self.end], self.eof),
        }
    }

    /// True once [`finish`](ElementDecoder::finish) was called and every
    /// item was taken.
    pub fn is_done(&self) -> bool {
        self.split.finished
    }

    fn compact(&mut self) {
        let keep = self.split.keep_from().min(self.base + self.ready as u64);
        if keep <= self.base {
            return;
        }
        self.split.count_lines(
            &self.buf[..self.ready],
            self.base,
            keep.max(self.split.counted),
        );
        let drop = (keep - self.base) as usize;
        self.buf.copy_within(drop..self.end, 0);
        self.end -= drop;
        self.ready -= drop;
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
        let eof = self.eof && self.ready == self.end;
        match self.split.step(&self.buf[..self.ready], self.base, eof) {
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
    /// longer than `max` as [`ErrorKind::LineTooLong`](crate::error::ErrorKind::LineTooLong).
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
mod tests;
