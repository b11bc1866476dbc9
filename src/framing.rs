//! Framing: cutting bytes into lines at LF, and nothing else.
//!
//! This module owns line boundaries, line numbers and byte offsets. A line
//! ends at LF (0x0A) only; CR, U+2028, U+2029, U+0085, VT and FF are ordinary
//! bytes of the line. A UTF-8 byte order mark at the very start of an input is
//! skipped (offsets still count it). The last line of an input may lack its
//! LF; it is then handed out with [`Line::terminated`] false and the layer
//! above decides whether it is complete.
//!
//! Three sources behave the same:
//! - [`Lines`], an iterator over a byte slice already in memory (a file read
//!   whole, or a memory map: see [`crate::source`]);
//! - [`LineDecoder`], a push decoder for bytes that arrive in chunks (sockets,
//!   log shippers): [`LineDecoder::push`] a chunk, then take every line whose
//!   LF has arrived with [`LineDecoder::next_line`];
//! - [`LineReader`], a refilling reader over any [`std::io::Read`], built on
//!   the decoder and reading straight into its buffer.
//!
//! The decoder and the reader reuse one buffer; it grows only to hold a line
//! longer than itself, up to a maximum (default 256 MiB). Past the maximum the
//! line is reported as [`ErrorKind::LineTooLong`] and skipped up to its LF.

use crate::error::{Error, ErrorKind, Position};
use std::io::Read;
use std::task::Poll;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The default longest line the decoder and the reader will buffer: 256 MiB.
pub const DEFAULT_MAX_LINE: usize = 256 << 20;

/// One line of input, without its LF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'b> {
    /// The bytes of the line, LF excluded (a CR before the LF is kept).
    pub bytes: &'b [u8],
    /// 1-based line number in the input.
    pub number: u64,
    /// 0-based byte offset of the line's first byte in the input.
    pub offset: u64,
    /// False only for a last line that the input ended without an LF.
    pub terminated: bool,
}

impl<'b> Line<'b> {
    /// True when the line holds only spaces, tabs and CRs (or nothing).
    ///
    /// ```
    /// use cctape::framing::Line;
    /// let l = Line { bytes: b" \t\r", number: 1, offset: 0, terminated: true };
    /// assert!(l.is_blank());
    /// ```
    pub fn is_blank(&self) -> bool {
        self.bytes
            .iter()
            .all(|&b| b == b' ' || b == b'\t' || b == b'\r')
    }

    /// The position of the start of this line.
    pub fn position(&self) -> Position {
        Position::new(self.number, self.offset)
    }
}

/// An iterator over the lines of a byte slice, found with memchr.
///
/// Equivalent to `bytes.split(|&b| b == b'\n')` with the empty piece after a
/// final LF dropped, a leading BOM removed, and numbers and offsets attached.
///
/// ```
/// use cctape::framing::Lines;
/// let lines: Vec<_> = Lines::new(b"{\"a\":1}\n\n{\"b\":2}").collect();
/// assert_eq!(lines.len(), 3);
/// assert_eq!(lines[2].offset, 9);
/// assert_eq!(lines[2].number, 3);
/// assert!(!lines[2].terminated);
/// ```
#[derive(Clone, Debug)]
pub struct Lines<'b> {
    bytes: &'b [u8],
    pos: usize,
    base: u64,
    number: u64,
}

impl<'b> Lines<'b> {
    /// Lines of `bytes`, skipping a UTF-8 BOM at its very start.
    pub fn new(bytes: &'b [u8]) -> Lines<'b> {
        let pos = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        Lines {
            bytes,
            pos,
            base: 0,
            number: 0,
        }
    }

    /// Lines of a piece of a larger input: `bytes` starts at byte
    /// `first_offset` of the input, on line `first_number`. No BOM is
    /// skipped. This is how a large input is cut into chunks read in
    /// parallel, each keeping the true positions.
    pub fn with_start(bytes: &'b [u8], first_number: u64, first_offset: u64) -> Lines<'b> {
        Lines {
            bytes,
            pos: 0,
            base: first_offset,
            number: first_number.saturating_sub(1),
        }
    }

    /// The bytes not yet handed out.
    pub fn remaining(&self) -> &'b [u8] {
        &self.bytes[self.pos.min(self.bytes.len())..]
    }
}

impl<'b> Iterator for Lines<'b> {
    type Item = Line<'b>;

    #[inline]
    fn next(&mut self) -> Option<Line<'b>> {
        let rest = self.bytes.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        self.number += 1;
        let offset = self.base + self.pos as u64;
        match memchr::memchr(b'\n', rest) {
            Some(i) => {
                self.pos += i + 1;
                Some(Line {
                    bytes: &rest[..i],
                    number: self.number,
                    offset,
                    terminated: true,
                })
            }
            None => {
                self.pos = self.bytes.len();
                Some(Line {
                    bytes: rest,
                    number: self.number,
                    offset,
                    terminated: false,
                })
            }
        }
    }
}

/// A push decoder: feed it chunks of any size, take complete lines out.
///
/// Lines are handed out as soon as their LF has been pushed. Whatever the
/// chunking, the lines (bytes, numbers, offsets) are the same as [`Lines`]
/// gives for the whole input, except that a line longer than the maximum is
/// replaced by a [`ErrorKind::LineTooLong`] error.
///
/// Lines are lent from the decoder's buffer, which the next push may move,
/// so it is not an [`Iterator`]: take them with `while let` after each push
/// (see [`crate::stream`] for why).
///
/// ```
/// use cctape::framing::LineDecoder;
/// let mut dec = LineDecoder::new();
/// let mut got = Vec::new();
/// for chunk in [&b"{\"a\""[..], b":1}\n{\"b", b"\":2}"] {
///     dec.push(chunk);
///     while let Some(line) = dec.next_line() {
///         got.push(line.unwrap().bytes.to_vec());
///     }
/// }
/// dec.finish();
/// while let Some(line) = dec.next_line() {
///     let line = line.unwrap();
///     assert!(!line.terminated);
///     got.push(line.bytes.to_vec());
/// }
/// assert_eq!(got, vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]);
/// ```
#[derive(Debug)]
pub struct LineDecoder {
    /// Initialised storage; the data is `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes of `buf[..scanned]` hold no LF at or after `start`.
    scanned: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// Number of the next line.
    number: u64,
    max_line: usize,
    /// Discarding an over-long line up to its LF.
    skipping: bool,
    bom_checked: bool,
    eof: bool,
}

impl Default for LineDecoder {
    fn default() -> Self {
        LineDecoder::new()
    }
}

/// Buffers kept for the next decoder when one is dropped: at most this
/// large.
const KEPT_BUFFER: usize = 4 << 20;

thread_local! {
    /// The buffer of this thread's last dropped decoder, taken by its next
    /// one: a walk over many small files (a transcript tree) then zeroes a
    /// fresh buffer once per thread, not once per file (it was 6% of the
    /// instructions of `cctape stats` over such a tree, and its page
    /// faults). Its bytes are initialised; a decoder reads only what it
    /// wrote.
    static KEPT: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Drop for LineDecoder {
    fn drop(&mut self) {
        if self.buf.len() <= KEPT_BUFFER {
            let buf = std::mem::take(&mut self.buf);
            // At thread exit the slot may be gone: the buffer is then freed.
            let _ = KEPT.try_with(|k| {
                let old = k.take();
                k.set(if buf.len() >= old.len() { buf } else { old });
            });
        }
    }
}

impl LineDecoder {
    /// A decoder with the default maximum line length (256 MiB).
    pub fn new() -> LineDecoder {
        LineDecoder::with_max_line(DEFAULT_MAX_LINE)
    }

    /// A decoder that reports lines longer than `max_line` bytes as
    /// [`ErrorKind::LineTooLong`] instead of buffering them.
    pub fn with_max_line(max_line: usize) -> LineDecoder {
        LineDecoder {
            buf: KEPT.try_with(|k| k.take()).unwrap_or_default(),
            start: 0,
            end: 0,
            scanned: 0,
            base: 0,
            number: 1,
            max_line: max_line.max(1),
            skipping: false,
            bom_checked: false,
            eof: false,
        }
    }

    /// The longest line this decoder buffers.
    pub fn max_line(&self) -> usize {
        self.max_line
    }

    /// Bytes pushed so far (the stream offset of the end of the data).
    pub fn bytes_pushed(&self) -> u64 {
        self.base + self.end as u64
    }

    /// Bytes held for a line whose LF has not arrived yet.
    pub fn pending(&self) -> usize {
        self.end - self.start
    }

    /// True when a line (or an error) can be taken without pushing more:
    /// an LF is held past the lines taken, or the input ended with bytes
    /// left. A live reader hands its output on when this is false, before
    /// it waits for more input.
    pub(crate) fn has_line(&self) -> bool {
        let from = self.scanned.max(self.start);
        (self.eof && self.start < self.end)
            || memchr::memchr(b'\n', &self.buf[from..self.end]).is_some()
    }

    /// Append a chunk. Lines it completes are taken with [`next_line`].
    ///
    /// [`next_line`]: LineDecoder::next_line
    pub fn push(&mut self, chunk: &[u8]) {
        let dst = self.spare(chunk.len());
        dst[..chunk.len()].copy_from_slice(chunk);
        self.commit(chunk.len());
    }

    /// Free space of at least `min` bytes at the end of the buffer, to read
    /// into directly; follow with [`commit`](LineDecoder::commit).
    pub fn spare(&mut self, min: usize) -> &mut [u8] {
        self.compact();
        if self.buf.len() - self.end < min {
            // Double, but never far past what the longest allowed line
            // needs: a line near the maximum must not take twice the maximum.
            let cap = self.max_line.saturating_add(min);
            let want = (self.end + min).max((self.buf.len() * 2).min(cap));
            self.buf.resize(want, 0);
        }
        &mut self.buf[self.end..]
    }

    /// Mark `n` bytes written into [`spare`](LineDecoder::spare) as data.
    pub fn commit(&mut self, n: usize) {
        self.end = (self.end + n).min(self.buf.len());
    }

    /// Say that no more bytes will come: the next calls to
    /// [`next_line`](LineDecoder::next_line) also hand out a last line that
    /// has no LF.
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// True once [`finish`](LineDecoder::finish) was called and every line was
    /// taken.
    pub fn is_done(&self) -> bool {
        self.eof && self.start == self.end
    }

    fn compact(&mut self) {
        if self.start == 0 {
            return;
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.base += self.start as u64;
        self.end -= self.start;
        self.scanned = self.scanned.saturating_sub(self.start);
        self.start = 0;
    }

    /// The next complete line, or an error for a line past the maximum, or
    /// `None` when more input is needed (or, after `finish`, when all is
    /// done).
    pub fn next_line(&mut self) -> Option<Result<Line<'_>, Error>> {
        match self.next_span()? {
            Ok(span) => Some(Ok(self.line(span))),
            Err(e) => Some(Err(e)),
        }
    }

    /// Like [`next_line`](LineDecoder::next_line), but returns where the line
    /// is instead of borrowing it, so the caller may keep the decoder
    /// mutable until it asks for the bytes with [`line`](LineDecoder::line).
    pub fn next_span(&mut self) -> Option<Result<LineSpan, Error>> {
        if !self.bom_checked {
            if self.end - self.start < BOM.len()
                && !self.eof
                && memchr::memchr(b'\n', &self.buf[self.start..self.end]).is_none()
            {
                // A BOM could still be split across chunks; an LF in the first
                // bytes settles it early.
                return None;
            }
            self.bom_checked = true;
            if self.base == 0 && self.buf[self.start..self.end].starts_with(BOM) {
                self.start += BOM.len();
            }
        }
        loop {
            let from = self.scanned.max(self.start);
            match memchr::memchr(b'\n', &self.buf[from..self.end]) {
                Some(i) => {
                    let lf = from + i;
                    let line_start = self.start;
                    self.start = lf + 1;
                    self.scanned = self.start;
                    let number = self.number;
                    self.number += 1;
                    if self.skipping {
                        self.skipping = false;
                        continue;
                    }
                    if lf - line_start > self.max_line {
                        // The whole line arrived at once, but the limit is
                        // the same whatever the chunking.
                        return Some(Err(Error::new(
                            ErrorKind::LineTooLong,
                            Position::new(number, self.base + line_start as u64),
                            "line longer than the maximum; skipped to the next LF",
                        )));
                    }
                    return Some(Ok(LineSpan {
                        start: line_start,
                        end: lf,
                        number,
                        offset: self.base + line_start as u64,
                        terminated: true,
                    }));
                }
                None => {
                    self.scanned = self.end;
                    if self.skipping {
                        // Drop what we hold of the over-long line.
                        self.start = self.end;
                        if self.eof {
                            self.skipping = false;
                            self.number += 1;
                        }
                        return None;
                    }
                    if self.end - self.start > self.max_line {
                        let pos = Position::new(self.number, self.base + self.start as u64);
                        self.skipping = true;
                        self.start = self.end;
                        if self.eof {
                            self.skipping = false;
                            self.number += 1;
                        }
                        return Some(Err(Error::new(
                            ErrorKind::LineTooLong,
                            pos,
                            "line longer than the maximum; skipped to the next LF",
                        )));
                    }
                    if self.eof && self.start < self.end {
                        let line_start = self.start;
                        self.start = self.end;
                        let number = self.number;
                        self.number += 1;
                        return Some(Ok(LineSpan {
                            start: line_start,
                            end: self.end,
                            number,
                            offset: self.base + line_start as u64,
                            terminated: false,
                        }));
                    }
                    return None;
                }
            }
        }
    }

    /// The next span, reading `read_size` bytes at a time through `read`
    /// whenever the decoder needs more: the loop of [`LineReader`] and of the
    /// async reader (`aio`), which differ only in how a read is made. `read`
    /// returns `Poll::Pending` when no bytes are ready yet (then so does this,
    /// and calling again resumes). After a failed read `failed` is set and
    /// the error, positioned, is the last item.
    pub(crate) fn poll_span(
        &mut self,
        read_size: usize,
        failed: &mut bool,
        mut read: impl FnMut(&mut [u8]) -> Poll<std::io::Result<usize>>,
    ) -> Poll<Option<Result<LineSpan, Error>>> {
        if *failed {
            return Poll::Ready(None);
        }
        loop {
            if let Some(r) = self.next_span() {
                return Poll::Ready(Some(r));
            }
            if self.eof {
                return Poll::Ready(None);
            }
            let Poll::Ready(result) = read(self.spare(read_size)) else {
                return Poll::Pending;
            };
            match result {
                Ok(0) => self.finish(),
                Ok(n) => self.commit(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    *failed = true;
                    let pos = Position::new(self.number, self.bytes_pushed());
                    return Poll::Ready(Some(Err(Error::io(e, pos))));
                }
            }
        }
    }

    /// The line at `span`, which the last [`next_span`](LineDecoder::next_span)
    /// returned (spans are invalidated by the next `push`, `spare` or
    /// `next_span`).
    pub fn line(&self, span: LineSpan) -> Line<'_> {
        Line {
            bytes: self.buf.get(span.start..span.end).unwrap_or_default(),
            number: span.number,
            offset: span.offset,
            terminated: span.terminated,
        }
    }
}

/// Where a line lies in a [`LineDecoder`]'s buffer; see
/// [`LineDecoder::next_span`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpan {
    start: usize,
    end: usize,
    /// 1-based line number.
    pub number: u64,
    /// 0-based byte offset of the line in the input.
    pub offset: u64,
    /// False for a last line without LF.
    pub terminated: bool,
}

impl LineSpan {
    /// Length of the line in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// True for an empty line.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A refilling line reader over any [`Read`], built on [`LineDecoder`].
///
/// It reads straight into the decoder's buffer (no second copy), hands out
/// only complete lines, and reuses its buffer: reading a stream of lines no
/// longer than the buffer allocates nothing after the first fill.
///
/// Not an [`Iterator`] for that reason: each line is lent from the buffer
/// the next read refills, so loop with `while let` (see
/// [`crate::stream`] for the pattern); [`Lines`] over bytes in memory is one.
///
/// ```
/// use cctape::framing::LineReader;
/// let input = &b"{\"type\":\"user\"}\r\n{\"type\":\"result\"}\n"[..];
/// let mut r = LineReader::new(input);
/// let mut n = 0;
/// while let Some(line) = r.next_line() {
///     let line = line.unwrap();
///     n += 1;
///     assert!(line.terminated);
/// }
/// assert_eq!(n, 2);
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    rdr: R,
    dec: LineDecoder,
    read_size: usize,
    failed: bool,
    /// A read that fails with `WouldBlock` or `TimedOut` (a socket with a
    /// read timeout, a [`crate::follow::FollowReader`] with one) is "nothing
    /// yet", not the end (see [`crate::run::RunReader::idle_for`]).
    pub(crate) wait_on_timeout: bool,
}

/// The default size of one read into the reader's buffer: 256 KiB.
pub const DEFAULT_READ_SIZE: usize = 256 << 10;

impl<R: Read> LineReader<R> {
    /// A reader with the default maximum line (256 MiB) and read size.
    pub fn new(rdr: R) -> LineReader<R> {
        LineReader::with_capacity(rdr, DEFAULT_READ_SIZE, DEFAULT_MAX_LINE)
    }

    /// A reader that reads `read_size` bytes at a time and reports lines
    /// longer than `max_line` as [`ErrorKind::LineTooLong`].
    pub fn with_capacity(rdr: R, read_size: usize, max_line: usize) -> LineReader<R> {
        LineReader {
            rdr,
            dec: LineDecoder::with_max_line(max_line),
            read_size: read_size.max(1),
            failed: false,
            wait_on_timeout: false,
        }
    }

    /// Bytes read from the underlying reader so far.
    pub fn bytes_read(&self) -> u64 {
        self.dec.bytes_pushed()
    }

    /// A reader whose first byte is byte `offset` of the input, on line
    /// `number`: for reading on where the input's first lines were read
    /// otherwise (a map). Positions count from the input's start, and no
    /// BOM is looked for.
    pub(crate) fn numbered_from(mut self, offset: u64, number: u64) -> LineReader<R> {
        self.dec.base = offset;
        self.dec.number = number;
        self.dec.bom_checked = true;
        self
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.rdr
    }

    /// True when a line can be taken without reading (see
    /// [`LineDecoder::has_line`]).
    pub(crate) fn has_line(&self) -> bool {
        self.dec.has_line()
    }

    /// The next span, or `Pending` when the read timed out and
    /// [`wait_on_timeout`](LineReader::wait_on_timeout) is set.
    pub(crate) fn poll_next_span(&mut self) -> Poll<Option<Result<LineSpan, Error>>> {
        let (rdr, wait) = (&mut self.rdr, self.wait_on_timeout);
        self.dec.poll_span(self.read_size, &mut self.failed, |buf| {
            match rdr.read(buf) {
                Err(e)
                    if wait
                        && matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) =>
                {
                    Poll::Pending
                }
                r => Poll::Ready(r),
            }
        })
    }

    /// The next line, an error for a line past the maximum, or an I/O error
    /// (after which `None` follows). `None` at the end of the input.
    pub fn next_line(&mut self) -> Option<Result<Line<'_>, Error>> {
        match self.next_span()? {
            Ok(span) => Some(Ok(self.dec.line(span))),
            Err(e) => Some(Err(e)),
        }
    }

    /// Like [`next_line`](LineReader::next_line) but returns where the line is;
    /// take its bytes with [`line`](LineReader::line).
    pub fn next_span(&mut self) -> Option<Result<LineSpan, Error>> {
        let rdr = &mut self.rdr;
        match self.dec.poll_span(self.read_size, &mut self.failed, |buf| {
            Poll::Ready(rdr.read(buf))
        }) {
            Poll::Ready(r) => r,
            // A blocking read is never pending.
            Poll::Pending => None,
        }
    }

    /// The line at `span` (from the last [`next_span`](LineReader::next_span)).
    pub fn line(&self, span: LineSpan) -> Line<'_> {
        self.dec.line(span)
    }
}
