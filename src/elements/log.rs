//! Logs whose lines carry a logger's prefix, read as the JSON values in
//! them ([`LogValues`]), and JSON compacted to one line ([`compact_into`]).

use crate::framing::DEFAULT_READ_SIZE;
use std::io::Read;

/// How many bytes of a line are looked at for a logger prefix.
const PREFIX_LOOK: usize = 160;

/// A log whose lines carry a logger's prefix (`[2025-10-13T01:16:00Z]
/// [INFO] {...`), read as the JSON values in it: the same bytes, with each
/// prefix, and each line of the log's own text between values, replaced by
/// spaces. Lines and byte offsets stay those of the log, so
/// [`ElementReader`](super::ElementReader) over it finds every value (pretty-printed or on one
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
    state: LogState,
}

/// Where a log's reading is between two bytes: what [`LogValues`] and a
/// logged [`ElementDecoder`](super::ElementDecoder) (bytes pushed, as
/// `watch` reads a live log) share, so that both blank the same bytes.
#[derive(Clone, Debug)]
pub(crate) struct LogState {
    /// The next byte starts a line.
    line_start: bool,
    /// The rest of the current line is the log's own text.
    text: bool,
    depth: u64,
    in_string: bool,
    escaped: bool,
}

impl LogState {
    /// The state at a log's first byte.
    pub(crate) fn new() -> LogState {
        LogState {
            line_start: true,
            text: false,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    /// Whether a line starting at `rest`'s first byte can be told yet: its
    /// first [`PREFIX_LOOK`] bytes or its LF are there, or no more will come.
    fn line_is_seen(rest: &[u8], eof: bool) -> bool {
        eof || rest.len() >= PREFIX_LOOK || memchr::memchr(b'\n', rest).is_some()
    }

    /// At a line start: blank the line's prefix (looked for in its first
    /// [`PREFIX_LOOK`] bytes, never past its LF), and mark the line as the
    /// log's own text when, between values, it does not start one.
    fn start_line(&mut self, line: &mut [u8]) {
        let head = &line[..line.len().min(PREFIX_LOOK)];
        let head = memchr::memchr(b'\n', head).map_or(head, |i| &head[..=i]);
        let prefix = crate::sniff::logger_prefix_len(head).unwrap_or(0);
        line[..prefix].fill(b' ');
        if self.depth == 0 && !self.in_string {
            let rest = &line[prefix..];
            let first = rest.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\r'));
            self.text = !matches!(first, Some(b'{' | b'[') | Some(b'\n') | None);
        }
        self.line_start = false;
    }

    /// Pass over `bytes` up to the end of the current line (its LF
    /// included) at most, blanking the log's own text: how many bytes were
    /// passed. The log's text and a string's plain bytes are crossed with
    /// `memchr` (a log line of JSON is mostly strings); the bytes between
    /// strings one at a time.
    #[inline]
    fn pass(&mut self, bytes: &mut [u8]) -> usize {
        let len = bytes.len();
        let mut n = 0;
        while n < len {
            if self.text {
                let end = memchr::memchr(b'\n', &bytes[n..]).map_or(len, |i| n + i);
                bytes[n..end].fill(b' ');
                n = end;
                if n == len {
                    break;
                }
            } else if self.in_string && !self.escaped {
                match memchr::memchr3(b'"', b'\\', b'\n', &bytes[n..]) {
                    Some(i) => n += i,
                    None => return len,
                }
            }
            let b = bytes[n];
            n += 1;
            if b == b'\n' {
                self.text = false;
                self.line_start = true;
                break;
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
        n
    }

    /// Blank the prefixes and the log's own text in `bytes`, as far as they
    /// can be told (a line start waits for its first bytes unless `eof`):
    /// how many bytes from the first are done.
    pub(crate) fn strip(&mut self, bytes: &mut [u8], eof: bool) -> usize {
        let mut done = 0;
        while done < bytes.len() {
            if self.line_start {
                if !LogState::line_is_seen(&bytes[done..], eof) {
                    break;
                }
                self.start_line(&mut bytes[done..]);
            }
            done += self.pass(&mut bytes[done..]);
        }
        done
    }
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
            state: LogState::new(),
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
}

impl<R: Read> Read for LogValues<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.start == self.end && (self.eof || !self.fill()?) {
            return Ok(0);
        }
        if self.state.line_start {
            // Enough of the line to see its prefix and what follows it.
            while !LogState::line_is_seen(&self.buf[self.start..self.end], self.eof) {
                if !self.fill()? {
                    break;
                }
            }
            self.state.start_line(&mut self.buf[self.start..self.end]);
        }
        let take = (self.end - self.start).min(out.len());
        let avail = &mut self.buf[self.start..self.start + take];
        let n = self.state.pass(avail);
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
