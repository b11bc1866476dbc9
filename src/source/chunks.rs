//! Cutting a stream into chunks that end after an LF ([`ChunkReader`]),
//! for reading one input on several threads in order: every byte read
//! once, the lines and errors the line reader gives.

use crate::error::{Error, ErrorKind, Position};
use crate::framing::DEFAULT_MAX_LINE;
use std::io::{self, Read};

/// A piece of an input that ends after an LF (or at the end of the input),
/// with the position of its first byte; see [`ChunkReader`].
#[derive(Debug)]
pub struct Chunk {
    /// Storage; the chunk is `buf[..len]` (the rest is initialized spare
    /// room, kept so that a reused buffer is never zero-filled again).
    buf: Vec<u8>,
    len: usize,
    /// The 1-based number of its first line.
    pub first_line: u64,
    /// The input offset of its first byte.
    pub offset: u64,
}

impl Chunk {
    /// The bytes: whole lines, the last one without LF only at the end of
    /// the input.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The storage, to pass to the next [`ChunkReader::next_chunk`].
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }
}

/// Cuts a stream into chunks of about `target` bytes that end after an LF,
/// reading every byte once: the partial line at the end of a read is carried
/// to the next chunk. For reading one input on several threads in order.
///
/// Lines are the ones [`crate::framing::LineReader`] gives: a line longer
/// than the maximum is a [`ErrorKind::LineTooLong`] item (its bytes are not
/// kept) and reading goes on after its LF; an I/O error ends the input
/// after the chunk of complete lines before it. Buffers passed back in are
/// reused as they are (never zero-filled again), so reading allocates only
/// while the first chunks are in flight.
///
/// ```
/// use cctape::source::ChunkReader;
/// let input = &b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}"[..];
/// let mut r = ChunkReader::new(input, 16);
/// let mut got = Vec::new();
/// while let Some(c) = r.next_chunk(Vec::new()) {
///     let c = c.unwrap();
///     got.push((c.first_line, c.offset, c.bytes().to_vec()));
/// }
/// assert_eq!(got[0], (1, 0, b"{\"a\":1}\n{\"b\":2}\n".to_vec()));
/// assert_eq!(got[1], (3, 16, b"{\"c\":3}".to_vec()));
/// ```
#[derive(Debug)]
pub struct ChunkReader<R> {
    rdr: R,
    target: usize,
    max_line: usize,
    /// The start of the next line, carried from the last read.
    /// (`carry[..carried]`; the buffer becomes the next chunk's, so a
    /// partial line is copied once, into the buffer it is handed out in).
    carry: Vec<u8>,
    carried: usize,
    /// The LFs of the chunks handed out are counted (see
    /// [`ChunkReader::without_line_count`]).
    counting: bool,
    /// Input offset of `carry[0]`, and the number of that line.
    offset: u64,
    number: u64,
    /// Dropping an over-long line up to its LF.
    skipping: bool,
    eof: bool,
    /// An I/O error, handed out after the complete lines before it.
    pending: Option<io::Error>,
    /// Bytes read from the input.
    read: u64,
    done: bool,
}

impl<R: Read> ChunkReader<R> {
    /// Chunks of about `target` bytes, lines up to the default maximum.
    pub fn new(rdr: R, target: usize) -> ChunkReader<R> {
        ChunkReader::with_max_line(rdr, target, DEFAULT_MAX_LINE)
    }

    /// Chunks of about `target` bytes; lines longer than `max_line` are
    /// [`ErrorKind::LineTooLong`] items.
    pub fn with_max_line(rdr: R, target: usize, max_line: usize) -> ChunkReader<R> {
        ChunkReader {
            rdr,
            target: target.max(1),
            max_line: max_line.max(1),
            carry: Vec::new(),
            carried: 0,
            counting: true,
            offset: 0,
            number: 1,
            skipping: false,
            eof: false,
            pending: None,
            read: 0,
            done: false,
        }
    }

    /// Chunks whose LFs are not counted, for a caller that splits them into
    /// lines anyway and so counts them there: [`Chunk::first_line`], the
    /// lines of this reader's errors and [`line_number`](Self::line_number)
    /// then count only the lines this reader numbers itself (those past the
    /// maximum, skipped), and the caller adds the LF-ended lines of the
    /// chunks handed out before. Spares the reading thread a pass over
    /// every byte.
    pub fn without_line_count(mut self) -> ChunkReader<R> {
        self.counting = false;
        self
    }

    /// A reader whose first byte is byte `offset` of the input, the start
    /// of line `number`: for reading on where the input's first bytes were
    /// read otherwise (a map). Offsets, line numbers and
    /// [`bytes_read`](Self::bytes_read) count from the input's start.
    pub fn starting_at(mut self, offset: u64, number: u64) -> ChunkReader<R> {
        self.offset = offset;
        self.read = offset;
        self.number = number.max(1);
        self
    }

    /// Bytes handed out or dropped so far (the input offset reached).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes read from the input so far: the chunks handed out, the lines
    /// past the maximum dropped, and the partial line before an I/O error
    /// (what [`crate::framing::LineReader::bytes_read`] counts).
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The number of the next line to hand out.
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// Read into `buf[*len..]` until `*len` reaches `want` or the input
    /// ends; an I/O error is kept for after the complete lines. `buf` grows
    /// (zero-filled) only when it is shorter than `want`.
    fn fill(&mut self, buf: &mut Vec<u8>, len: &mut usize, want: usize) {
        if buf.len() < want {
            buf.resize(want, 0);
        }
        while *len < want && !self.eof && self.pending.is_none() {
            match self.rdr.read(&mut buf[*len..want]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    *len += n;
                    self.read += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.pending = Some(e),
            }
        }
    }

    /// The next chunk, a per-line error ([`ErrorKind::LineTooLong`]), or a
    /// final error; `None` at the end. `fresh` (a new buffer, or one given
    /// back by [`Chunk::into_buffer`]) is storage for the reader: it holds
    /// the partial line this chunk ends before, and then the next chunk.
    pub fn next_chunk(&mut self, fresh: Vec<u8>) -> Option<Result<Chunk, Error>> {
        // The buffer that holds the carried partial line is this chunk's;
        // `fresh` takes the next chunk's partial line.
        let mut buf = std::mem::replace(&mut self.carry, fresh);
        let mut len = std::mem::take(&mut self.carried);
        loop {
            if self.done {
                return None;
            }
            if self.skipping {
                // Drop the over-long line up to its LF.
                self.fill(&mut buf, &mut len, self.target.max(64 << 10));
                match memchr::memchr(b'\n', &buf[..len]) {
                    Some(i) => {
                        self.skipping = false;
                        self.offset += i as u64 + 1;
                        self.number += 1;
                        buf.copy_within(i + 1..len, 0);
                        len -= i + 1;
                    }
                    None => {
                        self.offset += len as u64;
                        len = 0;
                        if self.eof || self.pending.is_some() {
                            self.skipping = false;
                            // The line ended with the input; an I/O error
                            // is put on the line it cut, as the line reader
                            // puts it.
                            if self.pending.is_none() {
                                self.number += 1;
                            }
                            return self.finish();
                        }
                    }
                }
                continue;
            }
            self.fill(&mut buf, &mut len, self.target);
            let mut searched = 0;
            loop {
                if let Some(i) = memchr::memrchr(b'\n', &buf[searched..len]) {
                    let cut = searched + i + 1;
                    self.keep(&buf[cut..len]);
                    return Some(Ok(self.hand_out(buf, cut)));
                }
                // `buf[..len]` holds no LF: it is one partial line. Past the
                // maximum, it is an error at its start before anything
                // else, also when the input ends or fails right after it
                // (the line reader says it so), and its bytes are dropped
                // and counted; the skip ends it.
                // A BOM at the input's start is not part of its first line
                // (the line reader drops it first).
                let bom = if self.offset == 0 && buf[..len].starts_with(b"\xEF\xBB\xBF") {
                    3
                } else {
                    0
                };
                if len - bom > self.max_line {
                    let e = Error::new(
                        ErrorKind::LineTooLong,
                        Position::new(self.number, self.offset + bom as u64),
                        "line longer than the maximum; skipped to the next LF",
                    );
                    self.offset += len as u64;
                    self.skipping = true;
                    return Some(Err(e));
                }
                if self.eof || self.pending.is_some() {
                    if len == 0 || self.pending.is_some() {
                        // A partial line before an I/O error is dropped, as
                        // the line reader drops it.
                        return self.finish();
                    }
                    self.done = true;
                    let last = self.hand_out(buf, len);
                    // Its last line has no LF: the next line's number is
                    // past it, as the line reader numbers it (where a
                    // shrinking found after it is said).
                    if self.counting {
                        self.number += 1;
                    }
                    return Some(Ok(last));
                }
                // One line longer than the target: read on to its LF.
                searched = len;
                let want = (len + self.target.max(64 << 10))
                    .min(self.max_line.saturating_add(1))
                    .max(len + 1);
                self.fill(&mut buf, &mut len, want);
            }
        }
    }

    /// Keep the partial line at a chunk's end for the next chunk, in the
    /// buffer that chunk is read into.
    fn keep(&mut self, tail: &[u8]) {
        if self.carry.len() < tail.len() {
            self.carry.resize(tail.len(), 0);
        }
        self.carry[..tail.len()].copy_from_slice(tail);
        self.carried = tail.len();
    }

    fn hand_out(&mut self, buf: Vec<u8>, len: usize) -> Chunk {
        let c = Chunk {
            buf,
            len,
            first_line: self.number,
            offset: self.offset,
        };
        self.offset += len as u64;
        if self.counting {
            self.number += memchr::memchr_iter(b'\n', c.bytes()).count() as u64;
        }
        c
    }

    fn finish(&mut self) -> Option<Result<Chunk, Error>> {
        self.done = true;
        // Where the line reader puts it: the next line, the bytes read.
        let at = Position::new(self.number, self.read);
        self.pending.take().map(|e| Err(Error::io(e, at)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::LfWatch;

    /// Chunks against the naive split, at every target from 1 to 40.
    #[test]
    fn chunks_end_after_lf_and_number_lines_like_the_line_reader() {
        let input = b"{\"a\":1}\n\n{\"b\":22}\r\nlong line here\n{\"c\":3}";
        for target in 1..40 {
            let mut r = ChunkReader::new(&input[..], target);
            let mut all = Vec::new();
            let mut lines = Vec::new();
            // Buffers come back longer than their chunk: reused as they are.
            let mut buf = vec![b'#'; 3];
            while let Some(c) = r.next_chunk(buf) {
                let c = c.unwrap();
                assert_eq!(c.offset as usize, all.len());
                assert!(
                    c.bytes().ends_with(b"\n")
                        || c.offset as usize + c.bytes().len() == input.len()
                );
                for l in crate::framing::Lines::with_start(c.bytes(), c.first_line, c.offset) {
                    lines.push((l.number, l.offset, l.bytes.to_vec()));
                }
                all.extend_from_slice(c.bytes());
                buf = c.into_buffer();
            }
            assert_eq!(all, input);
            let want: Vec<_> = crate::framing::Lines::new(input)
                .map(|l| (l.number, l.offset, l.bytes.to_vec()))
                .collect();
            assert_eq!(lines, want, "target {target}");
            // The next line's number, after a last line without LF, is
            // the line reader's (where a shrinking found then is said).
            assert_eq!(r.line_number(), want.len() as u64 + 1, "target {target}");
        }
    }

    #[test]
    fn chunk_reader_reports_lines_past_the_maximum_and_goes_on() {
        let input = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxx\n{\"b\":2}\n";
        for target in 1..12 {
            let mut r = ChunkReader::with_max_line(&input[..], target, 10);
            let mut items = Vec::new();
            while let Some(c) = r.next_chunk(Vec::new()) {
                match c {
                    Ok(c) => {
                        for l in
                            crate::framing::Lines::with_start(c.bytes(), c.first_line, c.offset)
                        {
                            items.push(format!(
                                "{} {} {}",
                                l.number,
                                l.offset,
                                String::from_utf8_lossy(l.bytes)
                            ));
                        }
                    }
                    Err(e) => items.push(format!("{} {}", e.kind(), e.position())),
                }
            }
            assert_eq!(
                items,
                [
                    "1 0 {\"a\":1}",
                    "line_too_long line 2, byte 8",
                    "3 29 {\"b\":2}"
                ],
                "target {target}"
            );
        }
        // No LF for longer than the watch allows: an I/O error ends it.
        let endless = [0u8; 100];
        let mut r = ChunkReader::with_max_line(LfWatch::new(&endless[..], 40), 4, 10);
        let kinds: Vec<_> = std::iter::from_fn(|| r.next_chunk(Vec::new()))
            .map(|c| c.err().map(|e| (e.kind(), e.to_string())))
            .collect();
        assert_eq!(kinds.len(), 2, "{kinds:?}");
        assert_eq!(kinds[0].as_ref().map(|k| k.0), Some(ErrorKind::LineTooLong));
        let last = kinds[1].as_ref().expect("an error");
        assert_eq!(last.0, ErrorKind::Io);
        assert!(last.1.contains("no LF in more than 40 bytes"), "{}", last.1);
    }

    /// What a reader gives, as text: lines (number, offset, bytes) and
    /// errors (kind, position).
    fn item(r: Result<crate::framing::Line<'_>, &Error>) -> String {
        match r {
            Ok(l) => format!(
                "{} {} {}",
                l.number,
                l.offset,
                String::from_utf8_lossy(l.bytes)
            ),
            Err(e) => format!("{} {}", e.kind(), e.position()),
        }
    }

    /// A BOM at the start is not part of the first line's length or
    /// offset, for the chunk reader as for the line reader (found by the
    /// `chunk_reader` fuzz target: a first line within the maximum only
    /// without its BOM was too long, and a too-long one was put at byte 0).
    #[test]
    fn chunk_reader_leaves_a_bom_out_of_the_first_line() {
        for body in [
            &b"\xEF\xBB\xBFabc"[..],
            b"\xEF\xBB\xBFabcdef",
            b"\xEF\xBB\xBFab\ncd",
        ] {
            let mut lines = crate::framing::LineReader::with_capacity(body, 7, 3);
            let mut want = Vec::new();
            while let Some(l) = lines.next_line() {
                want.push(match l {
                    Ok(l) => item(Ok(l)),
                    Err(e) => item(Err(&e)),
                });
            }
            for target in [1, 2, 64] {
                let mut r = ChunkReader::with_max_line(body, target, 3);
                let mut got = Vec::new();
                while let Some(c) = r.next_chunk(Vec::new()) {
                    match c {
                        Ok(c) => {
                            let ls = if c.offset == 0 {
                                crate::framing::Lines::new(c.bytes())
                            } else {
                                crate::framing::Lines::with_start(c.bytes(), c.first_line, c.offset)
                            };
                            got.extend(ls.map(|l| item(Ok(l))));
                        }
                        Err(e) => got.push(item(Err(&e))),
                    }
                }
                assert_eq!(got, want, "{body:?}, target {target}");
            }
        }
    }

    /// A run without LF past the runaway limit (4 times the longest line,
    /// as the command sets it), or past the longest line only, at the end
    /// or in the middle: the chunk reader gives the line reader's lines and
    /// errors, in its order, and reads (and accounts for) as many bytes,
    /// whatever the chunk size.
    #[test]
    fn chunk_reader_matches_the_line_reader_on_runs_without_lf() {
        let max_line = 30;
        let limit = 4 * max_line as u64;
        let head = b"{\"a\":1}\n{\"b\":2}\n";
        for run in [29, 30, 31, 100, 119, 120, 121, 122, 200] {
            for tail in [&b""[..], b"\n{\"c\":3}\n"] {
                let mut input = head.to_vec();
                input.extend(std::iter::repeat_n(b'x', run));
                input.extend_from_slice(tail);
                let mut lines = crate::framing::LineReader::with_capacity(
                    LfWatch::new(&input[..], limit),
                    7,
                    max_line,
                );
                let mut want = Vec::new();
                while let Some(l) = lines.next_line() {
                    want.push(match l {
                        Ok(l) => item(Ok(l)),
                        Err(e) => item(Err(&e)),
                    });
                }
                for target in [1, 5, 16, 17, 40, 1000] {
                    let what = format!("run {run}, tail {tail:?}, target {target}");
                    let src = LfWatch::new(&input[..], limit);
                    let mut r = ChunkReader::with_max_line(src, target, max_line);
                    let mut got = Vec::new();
                    // Buffers handed back with their old bytes, as the
                    // command hands them back.
                    let mut spare: Vec<Vec<u8>> = Vec::new();
                    while let Some(c) = r.next_chunk(spare.pop().unwrap_or_default()) {
                        match c {
                            Ok(c) => {
                                let ls = crate::framing::Lines::with_start(
                                    c.bytes(),
                                    c.first_line,
                                    c.offset,
                                );
                                got.extend(ls.map(|l| {
                                    if l.bytes.len() > max_line {
                                        // Read apart, the chunk's reader
                                        // reports it (read_slice does).
                                        format!(
                                            "line_too_long line {}, byte {}",
                                            l.number, l.offset
                                        )
                                    } else {
                                        item(Ok(l))
                                    }
                                }));
                                spare.push(c.into_buffer());
                            }
                            Err(e) => got.push(item(Err(&e))),
                        }
                    }
                    assert_eq!(got, want, "{what}");
                    assert_eq!(r.bytes_read(), lines.bytes_read(), "{what}");
                    // Every byte read is handed out in a chunk or dropped
                    // with the line past the maximum: none goes unaccounted.
                    assert_eq!(r.offset(), r.bytes_read(), "{what}");
                }
            }
        }
    }
}
