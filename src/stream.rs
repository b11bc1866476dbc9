//! Streams of events: framing, parse and classification put together, with
//! counts.
//!
//! This module owns the loops that turn a source of bytes into a sequence of
//! `Result<Event, Error>`: [`SliceEvents`] over bytes in memory (a file read
//! whole or a memory map) and [`EventReader`] over any [`Read`]. Blank lines
//! (only spaces, tabs and CRs) are skipped and counted. A bad line is an
//! `Err` item and the next call reads on; only an I/O error ends the stream.
//!
//! Both hand out events through a lending `next_event(&mut self)`: an event
//! borrows the reader's parser and must be dropped before the next call.
//!
//! **Why not [`Iterator`].** A std iterator's items must outlive the next
//! call to `next`, so each event would need its own index: an allocation
//! per line, which the readers promise not to make. The readers here (and
//! [`LineReader`],
//! [`LineDecoder`](crate::framing::LineDecoder) and the element readers
//! of [`crate::elements`]) are lending instead: loop with
//! `while let Some(item) = reader.next_event()`, keep what you need out of
//! each event, and errors come as items as an iterator's would. Where the
//! items are owned the types are iterators: [`Lines`] and
//! [`Elements`](crate::elements::Elements) over bytes in memory, and
//! [`RunReader`](crate::run::RunReader) of whole runs.

use crate::error::Error;
use crate::event::{Event, parse_event};
use crate::framing::{DEFAULT_MAX_LINE, DEFAULT_READ_SIZE, Line, LineReader, LineSpan, Lines};
use crate::json::Scanner;
use std::io::Read;
use std::task::{Context, Poll, Waker};

/// What a stream has seen so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Lines seen: LFs, plus one if bytes follow the last LF.
    pub lines: u64,
    /// Lines holding only spaces, tabs and CRs.
    pub blank_lines: u64,
    /// Lines read as events.
    pub events: u64,
    /// Lines that were errors (and I/O errors).
    pub errors: u64,
}

impl Counts {
    /// Add another stream's counts.
    pub fn add(&mut self, o: &Counts) {
        self.lines += o.lines;
        self.blank_lines += o.blank_lines;
        self.events += o.events;
        self.errors += o.errors;
    }
}

/// Events from bytes in memory.
///
/// Not an [`Iterator`]: each event is lent from the reader's reused index
/// (see [the module](self) for why); loop with `while let` as below.
///
/// ```
/// use cctape::stream::SliceEvents;
/// use cctape::event::EventKind;
///
/// let input = b"{\"type\":\"system\",\"subtype\":\"init\"}\n  \nnot json\n{\"type\":\"user\"}\n";
/// let mut events = SliceEvents::new(input);
/// let mut kinds = Vec::new();
/// let mut errors = 0;
/// while let Some(item) = events.next_event() {
///     match item {
///         Ok(ev) => kinds.push(ev.kind()),
///         Err(_) => errors += 1,
///     }
/// }
/// assert_eq!(kinds, [EventKind::SystemInit, EventKind::User]);
/// assert_eq!(errors, 1);
/// assert_eq!(events.counts().blank_lines, 1);
/// ```
#[derive(Debug)]
pub struct SliceEvents<'b> {
    lines: Lines<'b>,
    parser: Scanner,
    counts: Counts,
    last: Option<Line<'b>>,
    max_line: usize,
}

impl<'b> SliceEvents<'b> {
    /// Events of `bytes`, with a new parser.
    pub fn new(bytes: &'b [u8]) -> SliceEvents<'b> {
        SliceEvents::with_parser(Lines::new(bytes), Scanner::new())
    }

    /// Events of the given lines, with a scanner whose buffers are reused.
    pub fn with_parser(lines: Lines<'b>, parser: Scanner) -> SliceEvents<'b> {
        SliceEvents {
            lines,
            parser,
            counts: Counts::default(),
            last: None,
            max_line: DEFAULT_MAX_LINE,
        }
    }

    /// Report lines longer than `max_line` bytes as
    /// [`ErrorKind::LineTooLong`](crate::ErrorKind::LineTooLong), as the
    /// reader does (default 256 MiB), so that a file gives the same items
    /// whether it is mapped or streamed.
    pub fn with_max_line(mut self, max_line: usize) -> SliceEvents<'b> {
        self.max_line = max_line.max(1);
        self
    }

    /// The next event or per-line error; `None` at the end.
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        loop {
            let line = self.lines.next()?;
            self.last = Some(line);
            self.counts.lines += 1;
            if line.bytes.len() > self.max_line {
                self.counts.errors += 1;
                return Some(Err(line_too_long(&line)));
            }
            if line.is_blank() {
                self.counts.blank_lines += 1;
                continue;
            }
            let r = parse_event(&mut self.parser, &line);
            match r {
                Ok(_) => self.counts.events += 1,
                Err(_) => self.counts.errors += 1,
            }
            return Some(r);
        }
    }

    /// Call `f` for every event and error, in order.
    pub fn for_each(&mut self, mut f: impl FnMut(Result<Event<'_>, Error>)) {
        while let Some(item) = self.next_event() {
            f(item);
        }
    }

    /// What was seen so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The line behind the item `next_event` returned last (for an error,
    /// the bad line's bytes).
    pub fn last_line(&self) -> Option<Line<'b>> {
        self.last
    }

    /// Give back the parser, to reuse its buffers.
    pub fn into_parser(self) -> Scanner {
        self.parser
    }
}

/// The error for a line past the maximum, at the line's position.
pub fn line_too_long(line: &Line<'_>) -> Error {
    Error::new(
        crate::ErrorKind::LineTooLong,
        line.position(),
        "line longer than the maximum; skipped to the next LF",
    )
}

/// Events from any reader (stdin, pipes, decompressors), in bounded memory.
///
/// Not an [`Iterator`]: each event is lent from the reader's reused index
/// (see [the module](self) for why); loop with `while let` as below.
///
/// ```
/// use cctape::stream::EventReader;
///
/// let input = &b"{\"type\":\"user\"}\n{\"type\":\"result\",\"subtype\":\"success\"}"[..];
/// let mut r = EventReader::new(input);
/// let mut n = 0;
/// while let Some(item) = r.next_event() {
///     item.unwrap();
///     n += 1;
/// }
/// assert_eq!(n, 2);
/// ```
#[derive(Debug)]
pub struct EventReader<R> {
    lines: LineReader<R>,
    parser: Scanner,
    counts: Counts,
    last: Option<LineSpan>,
}

impl<R: Read> EventReader<R> {
    /// A reader with the default buffer and maximum line (256 MiB).
    pub fn new(rdr: R) -> EventReader<R> {
        EventReader::with_capacity(rdr, DEFAULT_READ_SIZE, DEFAULT_MAX_LINE)
    }

    /// A reader that reads `read_size` bytes at a time and reports lines
    /// longer than `max_line` as errors.
    pub fn with_capacity(rdr: R, read_size: usize, max_line: usize) -> EventReader<R> {
        EventReader {
            lines: LineReader::with_capacity(rdr, read_size, max_line),
            parser: Scanner::new(),
            counts: Counts::default(),
            last: None,
        }
    }

    /// The next event or per-line error; an I/O error is the last item.
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        let mut cx = Context::from_waker(Waker::noop());
        let (spans, parser) = (&mut self.lines, &mut self.parser);
        match poll_event(spans, parser, &mut self.counts, &mut self.last, &mut cx) {
            Poll::Ready(r) => r,
            // A blocking read is never pending.
            Poll::Pending => None,
        }
    }

    /// Call `f` for every event and error, in order.
    pub fn for_each(&mut self, mut f: impl FnMut(Result<Event<'_>, Error>)) {
        while let Some(item) = self.next_event() {
            f(item);
        }
    }

    /// What was seen so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Bytes read from the underlying reader.
    pub fn bytes_read(&self) -> u64 {
        self.lines.bytes_read()
    }

    /// As [`next_event`](EventReader::next_event), `Pending` when a read
    /// timed out and the reader waits on timeouts (see
    /// [`crate::run::RunReader::idle_for`]).
    pub(crate) fn poll_next_event(&mut self) -> Poll<Option<Result<Event<'_>, Error>>> {
        let mut cx = Context::from_waker(Waker::noop());
        let (spans, parser) = (&mut self.lines, &mut self.parser);
        poll_event(spans, parser, &mut self.counts, &mut self.last, &mut cx)
    }

    /// Reads that time out are "nothing yet" (see
    /// [`poll_next_event`](EventReader::poll_next_event)).
    pub(crate) fn wait_on_timeout(&mut self) {
        self.lines.wait_on_timeout = true;
    }

    /// The line behind the item `next_event` returned last (for a per-line
    /// error, the bad line's bytes); `None` after a `line_too_long` or I/O
    /// error, whose bytes are not kept.
    pub fn last_line(&self) -> Option<Line<'_>> {
        self.last.map(|s| self.lines.line(s))
    }
}

/// A source of line spans for [`poll_event`]: a blocking [`LineReader`]
/// or the async reader (`aio`).
pub(crate) trait Spans {
    /// The next span; `Pending` only for a source that can wait.
    fn poll_next_span(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<LineSpan, Error>>>;
    /// The bytes of the span just returned.
    fn line(&self, span: LineSpan) -> Line<'_>;
}

impl<R: Read> Spans for LineReader<R> {
    fn poll_next_span(&mut self, _: &mut Context<'_>) -> Poll<Option<Result<LineSpan, Error>>> {
        LineReader::poll_next_span(self)
    }

    fn line(&self, span: LineSpan) -> Line<'_> {
        LineReader::line(self, span)
    }
}

/// The event loop of [`EventReader`] and of the async reader: the next
/// line to parse, then the event it is.
pub(crate) fn poll_event<'p, S: Spans>(
    spans: &'p mut S,
    parser: &'p mut Scanner,
    counts: &mut Counts,
    last: &mut Option<LineSpan>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Event<'p>, Error>>> {
    match poll_line_to_parse(spans, counts, last, cx) {
        Poll::Pending => Poll::Pending,
        Poll::Ready(None) => Poll::Ready(None),
        Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
        Poll::Ready(Some(Ok(span))) => {
            Poll::Ready(Some(parse_counted(&spans.line(span), parser, counts)))
        }
    }
}

/// Take spans until one is not blank, counting each line and error from the
/// line reader. `last` is the span behind the item returned (none for an
/// error from the line reader).
pub(crate) fn poll_line_to_parse<S: Spans>(
    spans: &mut S,
    counts: &mut Counts,
    last: &mut Option<LineSpan>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<LineSpan, Error>>> {
    *last = None;
    loop {
        let span = match spans.poll_next_span(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Ready(Some(Ok(span))) => span,
            Poll::Ready(Some(Err(e))) => {
                if !e.is_fatal() {
                    counts.lines += 1;
                }
                counts.errors += 1;
                return Poll::Ready(Some(Err(e)));
            }
        };
        counts.lines += 1;
        *last = Some(span);
        if spans.line(span).is_blank() {
            counts.blank_lines += 1;
            continue;
        }
        return Poll::Ready(Some(Ok(span)));
    }
}

/// Parse a line that is not blank, counting it as an event or an error.
pub(crate) fn parse_counted<'p>(
    line: &Line<'p>,
    parser: &'p mut Scanner,
    counts: &mut Counts,
) -> Result<Event<'p>, Error> {
    let r = parse_event(parser, line);
    match r {
        Ok(_) => counts.events += 1,
        Err(_) => counts.errors += 1,
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn slice_and_reader_agree_on_lines_past_the_maximum() {
        let input = b"{\"type\":\"user\",\"pad\":\"xxxxxxxx\"}\n{\"type\":\"a\"}\n";
        let mut s = SliceEvents::new(input).with_max_line(20);
        let first = s
            .next_event()
            .map(|r| r.map(|e| e.kind()).map_err(|e| (e.kind(), e.position())));
        assert_eq!(
            first,
            Some(Err((ErrorKind::LineTooLong, crate::Position::new(1, 0))))
        );
        let second = s
            .next_event()
            .map(|r| r.map(|e| (e.kind(), e.line(), e.offset())).ok());
        assert_eq!(second, Some(Some((crate::EventKind::Unknown, 2, 33))));
        let mut r = EventReader::with_capacity(&input[..], 4, 20);
        let first = r
            .next_event()
            .map(|r| r.map(|e| e.kind()).map_err(|e| (e.kind(), e.position())));
        assert_eq!(
            first,
            Some(Err((ErrorKind::LineTooLong, crate::Position::new(1, 0))))
        );
        let second = r
            .next_event()
            .map(|r| r.map(|e| (e.kind(), e.line(), e.offset())).ok());
        assert_eq!(second, Some(Some((crate::EventKind::Unknown, 2, 33))));
        assert_eq!(s.counts(), r.counts());
    }
}

/// An element read as an event, counted; an error restated at its physical
/// line with the element's index.
fn element_event<'t>(
    parser: &'t mut Scanner,
    el: crate::elements::Element<'t>,
    counts: &mut Counts,
) -> Result<Event<'t>, Error> {
    match parse_event(parser, &el.as_line()) {
        Ok(ev) => {
            counts.events += 1;
            Ok(ev)
        }
        Err(e) => {
            counts.errors += 1;
            Err(el.locate(e))
        }
    }
}

/// Events from the elements of a JSON array (or of JSON values one after
/// another) in memory: `--output-format json` captures and pretty-printed
/// files, read element by element with no copy (see [`crate::elements`]).
///
/// Each element is read exactly as a line would be, with the same
/// [`Event`] and the same errors; an error inside an element names the
/// physical line it is on and the element's index
/// ([`Position::element`](crate::Position::element)). [`Counts::lines`]
/// counts physical lines; blank lines are not counted apart.
///
/// Not an [`Iterator`]: each event is lent from the reader's reused index
/// (see [the module](self) for why); loop with `while let` as below.
///
/// ```
/// use cctape::stream::ElementEvents;
/// use cctape::EventKind;
///
/// let input = b"[{\"type\":\"system\",\"subtype\":\"init\"},{\"type\":\"result\",\"subtype\":\"success\"}]";
/// let mut events = ElementEvents::new(input);
/// let mut kinds = Vec::new();
/// while let Some(item) = events.next_event() {
///     kinds.push(item.unwrap().kind());
/// }
/// assert_eq!(kinds, [EventKind::SystemInit, EventKind::ResultSuccess]);
/// assert_eq!(events.last_element().map(|e| e.index), Some(1));
/// ```
#[derive(Debug)]
pub struct ElementEvents<'b> {
    elements: crate::elements::Elements<'b>,
    parser: Scanner,
    counts: Counts,
    last: Option<crate::elements::Element<'b>>,
}

impl<'b> ElementEvents<'b> {
    /// Events of the elements of `bytes`, with a new parser.
    pub fn new(bytes: &'b [u8]) -> ElementEvents<'b> {
        ElementEvents::with_parser(crate::elements::Elements::new(bytes), Scanner::new())
    }

    /// Events of the given elements, with a scanner whose buffers are reused.
    pub fn with_parser(
        elements: crate::elements::Elements<'b>,
        parser: Scanner,
    ) -> ElementEvents<'b> {
        ElementEvents {
            elements,
            parser,
            counts: Counts::default(),
            last: None,
        }
    }

    /// The next event or error; `None` at the end.
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        let item = self.elements.next();
        self.counts.lines = self.elements.lines();
        let el = match item? {
            Ok(el) => el,
            Err(e) => {
                self.last = None;
                self.counts.errors += 1;
                return Some(Err(e));
            }
        };
        self.last = Some(el);
        Some(element_event(&mut self.parser, el, &mut self.counts))
    }

    /// What was seen so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The element behind the item `next_event` returned last (`None`
    /// after an error outside any element).
    pub fn last_element(&self) -> Option<crate::elements::Element<'b>> {
        self.last
    }

    /// Give back the parser, to reuse its buffers.
    pub fn into_parser(self) -> Scanner {
        self.parser
    }
}

/// Events from the elements of a JSON array read from any [`Read`], in
/// memory bounded by the read size and the largest element; see
/// [`ElementEvents`].
///
/// Not an [`Iterator`]: each event is lent from the reader's reused index
/// (see [the module](self) for why); loop with `while let` as below.
///
/// ```
/// use cctape::stream::ElementEventReader;
///
/// let input = &b"[\n  {\"type\": \"user\"},\n  {\"type\": \"result\", \"subtype\": \"success\"}\n]\n"[..];
/// let mut r = ElementEventReader::new(input);
/// let mut n = 0;
/// while let Some(item) = r.next_event() {
///     item.unwrap();
///     n += 1;
/// }
/// assert_eq!((n, r.counts().lines), (2, 4));
/// ```
#[derive(Debug)]
pub struct ElementEventReader<R> {
    elements: crate::elements::ElementReader<R>,
    parser: Scanner,
    counts: Counts,
}

impl<R: Read> ElementEventReader<R> {
    /// A reader with the default read size and maximum element (256 MiB).
    pub fn new(rdr: R) -> ElementEventReader<R> {
        ElementEventReader::with_capacity(rdr, DEFAULT_READ_SIZE, DEFAULT_MAX_LINE)
    }

    /// A reader that reads `read_size` bytes at a time and reports elements
    /// longer than `max` as errors.
    pub fn with_capacity(rdr: R, read_size: usize, max: usize) -> ElementEventReader<R> {
        ElementEventReader {
            elements: crate::elements::ElementReader::with_capacity(rdr, read_size, max),
            parser: Scanner::new(),
            counts: Counts::default(),
        }
    }

    /// The next event or error; an I/O error is the last item.
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, Error>> {
        let item = self.elements.next_span();
        self.counts.lines = self.elements.lines();
        let span = match item? {
            Ok(span) => span,
            Err(e) => {
                self.counts.errors += 1;
                return Some(Err(e));
            }
        };
        let el = self.elements.element(span);
        Some(element_event(&mut self.parser, el, &mut self.counts))
    }

    /// What was seen so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Bytes read from the underlying reader.
    pub fn bytes_read(&self) -> u64 {
        self.elements.bytes_read()
    }

    /// The element buffer's capacity (what the reader holds in memory).
    pub fn capacity(&self) -> usize {
        self.elements.capacity()
    }
}
