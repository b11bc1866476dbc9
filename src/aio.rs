//! Async pipelines on tokio (cargo feature `tokio`, off by default): the
//! framing and event readers of [`crate::framing`] and [`crate::stream`]
//! for bytes that arrive through an [`AsyncRead`], such as a child
//! process's stdout.
//!
//! This module owns only the waiting. Lines are cut by the same
//! [`LineDecoder`] and events are read by the same loop as the blocking
//! [`EventReader`](crate::EventReader), so positions, the line limit,
//! blank lines, counts and errors are the same whatever the chunking:
//!
//! - [`LineCodec`], a [`tokio_util::codec::Decoder`] over [`LineDecoder`],
//!   for `FramedRead` and other codec users: owned lines, a line past the
//!   maximum as an `Err` item the stream goes on after;
//! - [`AsyncEventReader`], events from any `AsyncRead` with a lending
//!   `next_event().await` that allocates nothing per line, like the
//!   blocking reader;
//! - [`EventStream`], a [`Stream`] of what a function makes of each event
//!   (events borrow the reader's parser, so a stream hands out owned
//!   values: the function picks what to keep).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use cctape::aio::AsyncEventReader;
//! use cctape::EventKind;
//!
//! // A child's stdout in real use:
//! //   let mut child = tokio::process::Command::new("claude")
//! //       .args(["-p", "...", "--output-format", "stream-json", "--verbose"])
//! //       .stdout(std::process::Stdio::piped())
//! //       .spawn()?;
//! //   let stdout = child.stdout.take().expect("piped");
//! let stdout = &b"{\"type\":\"assistant\",\"message\":{\"usage\":{\"output_tokens\":5}}}\nnot json\n"[..];
//! let mut events = AsyncEventReader::new(stdout);
//! let mut output_tokens = 0;
//! while let Some(item) = events.next_event().await {
//!     match item {
//!         Ok(ev) if ev.kind() == EventKind::Assistant => {
//!             output_tokens += ev.usage().unwrap_or_default().output_tokens
//!         }
//!         Ok(_) => {}
//!         Err(e) if e.is_fatal() => return Err(std::io::Error::other(e)),
//!         Err(e) => eprintln!("{e}"), // line 2, byte 61, column 1: invalid_json: expected `null`
//!     }
//! }
//! assert_eq!(output_tokens, 5);
//! assert_eq!(events.counts().errors, 1);
//! # Ok(())
//! # }
//! ```

use crate::error::Error;
use crate::event::Event;
use crate::framing::{DEFAULT_MAX_LINE, DEFAULT_READ_SIZE, Line, LineDecoder, LineSpan};
use crate::json::Scanner;
use crate::stream::{Counts, Spans, parse_counted, poll_event, poll_line_to_parse};
use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// A line that owns its bytes: what [`LineCodec`] hands out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedLine {
    /// The bytes of the line, LF excluded (a CR before the LF is kept).
    pub bytes: Bytes,
    /// 1-based line number in the input.
    pub number: u64,
    /// 0-based byte offset of the line's first byte in the input.
    pub offset: u64,
    /// False only for a last line that the input ended without an LF.
    pub terminated: bool,
}

impl OwnedLine {
    /// A copy of `line`.
    pub(crate) fn copy_of(line: &Line<'_>) -> OwnedLine {
        OwnedLine {
            bytes: Bytes::copy_from_slice(line.bytes),
            number: line.number,
            offset: line.offset,
            terminated: line.terminated,
        }
    }

    /// The line as the framing layer's borrowed [`Line`], to parse with
    /// [`parse_event`](crate::event::parse_event).
    pub fn as_line(&self) -> Line<'_> {
        Line {
            bytes: &self.bytes,
            number: self.number,
            offset: self.offset,
            terminated: self.terminated,
        }
    }
}

/// A [`Decoder`](tokio_util::codec::Decoder) that cuts bytes into lines at
/// LF, through a [`LineDecoder`]: the same numbers, offsets, BOM handling,
/// last line without LF and line limit as every other reader of the crate.
///
/// Items are `Result<OwnedLine, Error>`: a line longer than the maximum is
/// an `Err` item ([`ErrorKind::LineTooLong`](crate::ErrorKind::LineTooLong))
/// and the frames go on at the next line, as with the blocking reader. (A
/// codec's own error type would end a `FramedRead`; it is kept for I/O.)
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use cctape::aio::LineCodec;
/// use tokio_stream::StreamExt;
/// use tokio_util::codec::FramedRead;
///
/// let input = &b"{\"type\":\"user\"}\n{\"type\":\"result\"}"[..];
/// let mut lines = FramedRead::new(input, LineCodec::new());
/// let mut got = Vec::new();
/// while let Some(frame) = lines.next().await {
///     let line = frame.expect("no I/O error").expect("no line past the maximum");
///     got.push((line.number, line.offset, line.terminated));
/// }
/// assert_eq!(got, [(1, 0, true), (2, 16, false)]);
/// # }
/// ```
#[derive(Debug, Default)]
pub struct LineCodec {
    dec: LineDecoder,
}

impl LineCodec {
    /// A codec with the default maximum line (256 MiB).
    pub fn new() -> LineCodec {
        LineCodec::default()
    }

    /// A codec that reports lines longer than `max_line` bytes as errors.
    pub fn with_max_line(max_line: usize) -> LineCodec {
        LineCodec {
            dec: LineDecoder::with_max_line(max_line),
        }
    }

    /// The longest line this codec buffers.
    pub fn max_line(&self) -> usize {
        self.dec.max_line()
    }

    /// Move what the framed reader buffered into the decoder, which keeps
    /// the partial line.
    fn absorb(&mut self, src: &mut BytesMut) {
        if !src.is_empty() {
            self.dec.push(src);
            src.clear();
        }
    }

    /// The next line the decoder holds, copied out.
    fn take(&mut self) -> Option<Result<OwnedLine, Error>> {
        self.dec
            .next_line()
            .map(|r| r.map(|line| OwnedLine::copy_of(&line)))
    }
}

impl tokio_util::codec::Decoder for LineCodec {
    type Item = Result<OwnedLine, Error>;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> std::io::Result<Option<Self::Item>> {
        self.absorb(src);
        Ok(self.take())
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> std::io::Result<Option<Self::Item>> {
        self.absorb(src);
        self.dec.finish();
        Ok(self.take())
    }
}

/// The reading side of [`AsyncEventReader`]: the decoder filled from an
/// `AsyncRead` straight into its buffer.
#[derive(Debug)]
struct AsyncSpans<R> {
    rdr: R,
    dec: LineDecoder,
    read_size: usize,
    failed: bool,
}

impl<R: AsyncRead + Unpin> Spans for AsyncSpans<R> {
    fn poll_next_span(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<LineSpan, Error>>> {
        let rdr = &mut self.rdr;
        self.dec.poll_span(self.read_size, &mut self.failed, |buf| {
            let mut buf = ReadBuf::new(buf);
            Pin::new(&mut *rdr)
                .poll_read(cx, &mut buf)
                .map_ok(|()| buf.filled().len())
        })
    }

    fn line(&self, span: LineSpan) -> Line<'_> {
        self.dec.line(span)
    }
}

/// Events from any [`AsyncRead`] (a child's stdout, a socket, a file), in
/// bounded memory: the async twin of [`EventReader`](crate::EventReader),
/// with the same items, positions, counts and limits.
///
/// A reader that is not `Unpin` can be given as `Box::pin(reader)`.
#[derive(Debug)]
pub struct AsyncEventReader<R> {
    spans: AsyncSpans<R>,
    parser: Scanner,
    counts: Counts,
    last: Option<LineSpan>,
}

impl<R: AsyncRead + Unpin> AsyncEventReader<R> {
    /// A reader with the default read size (256 KiB) and maximum line
    /// (256 MiB).
    pub fn new(rdr: R) -> AsyncEventReader<R> {
        AsyncEventReader::with_capacity(rdr, DEFAULT_READ_SIZE, DEFAULT_MAX_LINE)
    }

    /// A reader that reads up to `read_size` bytes at a time and reports
    /// lines longer than `max_line` as errors.
    pub fn with_capacity(rdr: R, read_size: usize, max_line: usize) -> AsyncEventReader<R> {
        AsyncEventReader {
            spans: AsyncSpans {
                rdr,
                dec: LineDecoder::with_max_line(max_line),
                read_size: read_size.max(1),
                failed: false,
            },
            parser: Scanner::new(),
            counts: Counts::default(),
            last: None,
        }
    }

    /// The next event or per-line error; an I/O error is the last item.
    /// `None` at the end of the input.
    pub async fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        // Wait for a line without holding the parser, then parse it.
        let (spans, counts, last) = (&mut self.spans, &mut self.counts, &mut self.last);
        let span = match poll_fn(|cx| poll_line_to_parse(spans, counts, last, cx)).await? {
            Ok(span) => span,
            Err(e) => return Some(Err(e)),
        };
        let line = self.spans.line(span);
        Some(parse_counted(&line, &mut self.parser, &mut self.counts))
    }

    /// The next event or per-line error, or `Pending` (with `cx` woken when
    /// more bytes may have arrived).
    pub fn poll_next_event(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Event<'_>, Error>>> {
        poll_event(
            &mut self.spans,
            &mut self.parser,
            &mut self.counts,
            &mut self.last,
            cx,
        )
    }

    /// What was seen so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Bytes read from the underlying reader.
    pub fn bytes_read(&self) -> u64 {
        self.spans.dec.bytes_pushed()
    }

    /// The line behind the item returned last (for a per-line error, the bad
    /// line's bytes); `None` after a `line_too_long` or I/O error.
    pub fn last_line(&self) -> Option<Line<'_>> {
        self.last.map(|s| self.spans.dec.line(s))
    }

    /// A [`Stream`] of `f`'s value for each event (and each error, as it
    /// is): `f` sees the borrowed event and returns what to keep.
    pub fn into_stream<T, F>(self, f: F) -> EventStream<R, F>
    where
        F: FnMut(Event<'_>) -> T,
    {
        EventStream { reader: self, f }
    }
}

/// A [`Stream`] over an [`AsyncEventReader`], yielding `Result<T, Error>`
/// where `T` is what the function given to
/// [`AsyncEventReader::into_stream`] makes of each event.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use cctape::aio::AsyncEventReader;
/// use tokio_stream::StreamExt;
///
/// let input = &b"{\"type\":\"system\",\"subtype\":\"init\"}\n[1]\n{\"type\":\"result\",\"subtype\":\"success\"}\n"[..];
/// let kinds: Vec<_> = AsyncEventReader::new(input)
///     .into_stream(|ev| (ev.line(), ev.kind().name()))
///     .map(|item| item.map_err(|e| e.kind().name()))
///     .collect()
///     .await;
/// assert_eq!(
///     kinds,
///     [Ok((1, Some("system/init"))), Err("not_an_object"), Ok((3, Some("result/success")))]
/// );
/// # }
/// ```
#[derive(Debug)]
pub struct EventStream<R, F> {
    reader: AsyncEventReader<R>,
    f: F,
}

impl<R, F> EventStream<R, F> {
    /// The reader underneath, for its counts and position.
    pub fn reader(&self) -> &AsyncEventReader<R> {
        &self.reader
    }
}

impl<R, F, T> Stream for EventStream<R, F>
where
    R: AsyncRead + Unpin,
    F: FnMut(Event<'_>) -> T + Unpin,
{
    type Item = Result<T, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let f = &mut this.f;
        this.reader
            .poll_next_event(cx)
            .map(|item| item.map(|r| r.map(&mut *f)))
    }
}
