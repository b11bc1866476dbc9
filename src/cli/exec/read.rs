//! Reading one input (or one chunk of it) on this thread: lines, JSON
//! elements or a finding, each line counted and handed to the sink, each
//! bad line told through [`Out::bad`], the one place where what the
//! command says about it is decided ([`super::super::said`]).

use super::{Done, FLUSH_AT, Msg, Piece, Sink};
use crate::cli::said::{self, BadLine, SAID_PER_INPUT};
use cctape::elements::{Element, ElementReader};
use cctape::error::{Error, ErrorKind};
use cctape::event::parse_event;
use cctape::framing::{Line, LineReader, Lines};
use cctape::json::IndexDepth;
use cctape::json::{ScanMode, Scanner};
use cctape::report::Shape;
use cctape::sniff::Format;
use cctape::sniff::Reading;
use cctape::source::EndReport;
use cctape::stream::{Counts, EventReader, SliceEvents};
use cctape::transcript::Record;
use std::io::Read;

/// What one piece has for the printer: its output, and what is said about
/// its bad lines, in blocks of about [`FLUSH_AT`] bytes.
pub struct Out<'n> {
    /// Output for stdout, in order.
    pub bytes: Vec<u8>,
    /// Messages about bad lines, one a line, without `cctape: `.
    said: Vec<u8>,
    /// Bad lines past [`SAID_PER_INPUT`], counted, not written out.
    unsaid: u64,
    /// Bad lines that are errors of the command ([`BadLine::Error`]).
    errors: u64,
    /// Messages written by this reader, over every block.
    written: u64,
    /// The input's name for people.
    name: &'n str,
    /// Messages are said (not `-s`).
    messages: bool,
    /// The input is live (a stream, `-F`, `--line-buffered`): output is
    /// handed on whenever the reader has no line left to take, so that a
    /// record reaches stdout as soon as its line was read.
    pub live: bool,
    /// Output is handed on after every record (`--line-buffered`).
    pub each: bool,
}

impl<'n> Out<'n> {
    /// An empty block for input `name`.
    pub fn new(name: &'n str, messages: bool) -> Out<'n> {
        Out {
            bytes: Vec::new(),
            said: Vec::new(),
            unsaid: 0,
            errors: 0,
            written: 0,
            name,
            messages,
            live: false,
            each: false,
        }
    }

    /// What was gathered so far, handed on; this one goes on empty.
    pub fn block(&mut self) -> Out<'n> {
        let mut b = Out::new(self.name, self.messages);
        (b.live, b.each) = (self.live, self.each);
        std::mem::swap(&mut b.bytes, &mut self.bytes);
        std::mem::swap(&mut b.said, &mut self.said);
        b.unsaid = std::mem::take(&mut self.unsaid);
        b.errors = std::mem::take(&mut self.errors);
        b
    }

    /// True once the block is worth handing on.
    pub fn full(&self) -> bool {
        self.bytes.len() + self.said.len() >= FLUSH_AT
    }

    /// True when the block is full, or the input is live, there is
    /// something to hand on, and `caught_up()` says the reader holds no
    /// line to take (it is about to wait for the writer); asked only then.
    pub fn due(&self, caught_up: impl FnOnce() -> bool) -> bool {
        self.full()
            || ((self.each || self.live)
                && !(self.bytes.is_empty() && self.said.is_empty())
                && (self.each || caught_up()))
    }

    /// A per-line error: told to the sink and, by what the sink's output
    /// does with it ([`Sink::bad_line`]), said and counted as an error. A
    /// fatal one (the input broke off) goes to the sink only: it is the
    /// input's failure, said once by the printer.
    pub fn bad<S: Sink>(
        &mut self,
        sink: &mut S,
        piece: &Piece<'_>,
        e: &Error,
        line: Option<&[u8]>,
    ) {
        let rule = sink.bad_line(e, line);
        sink.error(piece, e, line, &mut self.bytes);
        if e.is_fatal() || rule == BadLine::Listed {
            return;
        }
        if rule == BadLine::Error {
            self.errors += 1;
        }
        if !self.messages {
        } else if self.written < SAID_PER_INPUT {
            said::message(self.name, e, &mut self.said);
            self.written += 1;
        } else {
            self.unsaid += 1;
        }
    }

    /// The printer's side: the output, the messages, the unsaid count and
    /// the errors.
    pub fn parts(&mut self) -> (&mut Vec<u8>, &[u8], u64, u64) {
        (&mut self.bytes, &self.said, self.unsaid, self.errors)
    }
}

/// What became of one line handed to a sink.
pub(super) enum Taken {
    /// Longer than the maximum: not read.
    TooLong,
    /// Spaces, tabs and CRs only.
    Blank,
    /// Read: an event, or why not.
    Read(Result<(), Error>),
}

/// One line counted, and its error (if any) told to the sink with its
/// bytes, as every line reader does.
pub(super) fn count_line<S: Sink>(
    sink: &mut S,
    piece: &Piece<'_>,
    counts: &mut Counts,
    line: &Line<'_>,
    taken: Taken,
    out: &mut Out<'_>,
) {
    counts.lines += 1;
    match taken {
        Taken::TooLong => {
            counts.errors += 1;
            let e = cctape::stream::line_too_long(line);
            out.bad(sink, piece, &e, None);
        }
        Taken::Blank => counts.blank_lines += 1,
        Taken::Read(Ok(())) => counts.events += 1,
        Taken::Read(Err(e)) => {
            counts.errors += 1;
            let e = explain(e, Some(line.bytes));
            out.bad(sink, piece, &e, Some(line.bytes));
        }
    }
}

pub(super) fn piece_done<S>(
    piece: &Piece<'_>,
    sink: S,
    counts: Counts,
    bytes: u64,
    format: Format,
) -> Done<S> {
    Done {
        input: piece.input,
        last: false,
        sink,
        counts,
        bytes,
        failure: None,
        unreadable: false,
        format: Some(format),
    }
}

// Why an input ended early, and CR line ends named in a line's error: the
// library's (`cctape::inputs`), so that every front end says the same.
pub use cctape::inputs::CR_LINE_ENDS;
pub(super) use cctape::inputs::ended_early;
pub(super) use cctape::inputs::explain_line_error as explain;
// How an input's format is told (its first bytes) and read after it: the
// library's, so that every front end sniffs the same bytes.
pub(super) use cctape::inputs::{Prefixed, read_prefix};

/// How a [`LineTaker`] hands a line to its sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Take {
    /// Scanned by the lazy scanner: [`Sink::scanned`].
    Scan(ScanMode),
    /// As it is: [`Sink::line`].
    Line,
    /// Scanned and validated as a transcript record: [`Sink::record`].
    Record,
    /// Parsed as an event: [`Sink::event`] (elements only; lines of this
    /// kind go through the event readers).
    Event,
}

impl Take {
    /// How `sink` takes the lines of an input in `format`; `None` for the
    /// event readers.
    pub(super) fn of<S: Sink>(sink: &S, format: Format) -> Option<Take> {
        if format.reading() == Reading::TranscriptLines && sink.reads_records() {
            Some(Take::Record)
        } else if let Some(mode) = sink.scan_mode() {
            Some(Take::Scan(mode))
        } else if sink.reads_lines() {
            Some(Take::Line)
        } else {
            None
        }
    }
}

/// Hands lines (or elements read as lines) to a sink that reads lines
/// itself, with the scanner, as transcript records or as events: blank
/// lines are counted and skipped, events and errors counted, errors passed
/// to the sink with the line's bytes.
struct LineTaker<'p, 'n, S> {
    sink: S,
    scanner: Scanner,
    parser: Scanner,
    take: Take,
    piece: &'p Piece<'n>,
    max_line: usize,
    counts: Counts,
}

impl<'p, 'n, S: Sink> LineTaker<'p, 'n, S> {
    fn new(sink: S, take: Take, piece: &'p Piece<'n>, max_line: usize) -> Self {
        // The scanner's sinks read type, subtype and hot fields: the top
        // level indexed, the rest read from its validated bytes. Events and
        // transcript records are read through the full index (`parser`).
        let mut scanner = Scanner::new();
        scanner.set_index_depth(IndexDepth::TopLevel);
        LineTaker {
            sink,
            scanner,
            parser: Scanner::new(),
            take,
            piece,
            max_line,
            counts: Counts::default(),
        }
    }

    /// Read one non-blank line (or element) the sink's way.
    fn read(&mut self, line: &Line<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
        let (sink, piece) = (&mut self.sink, self.piece);
        let scanned = match self.take {
            Take::Scan(mode) => self
                .scanner
                .scan_with(line, mode)
                .map(|s| sink.scanned(piece, &s, out)),
            Take::Line => return sink.line(piece, line, out),
            // Records are read through the full index (the fold's reads
            // jump through it: issue 23 step 3).
            Take::Record => self
                .parser
                .scan(line)
                .map(|s| sink.record(piece, &Record::new(s), out)),
            Take::Event => {
                return parse_event(&mut self.parser, line).map(|ev| sink.event(piece, &ev, out));
            }
        };
        // The scanner names invalid JSON without saying what was expected;
        // the parser says it, as every other command's reading does (only
        // bad lines come here).
        scanned.map_err(|e| match e.kind() {
            ErrorKind::InvalidJson => parse_event(&mut self.parser, line).err().unwrap_or(e),
            _ => e,
        })
    }

    /// One line, counted.
    fn take(&mut self, line: &Line<'_>, out: &mut Out<'_>) {
        // The same limit as the reader's, so a chunk and a stream agree.
        let taken = if line.bytes.len() > self.max_line {
            Taken::TooLong
        } else if line.is_blank() {
            Taken::Blank
        } else {
            Taken::Read(self.read(line, &mut out.bytes))
        };
        count_line(
            &mut self.sink,
            self.piece,
            &mut self.counts,
            line,
            taken,
            out,
        );
    }

    /// One JSON element, read as a line; an error in it is restated at its
    /// physical line, with the element's index.
    fn take_element(&mut self, el: &Element<'_>, out: &mut Out<'_>) {
        match self.read(&el.as_line(), &mut out.bytes) {
            Ok(()) => self.counts.events += 1,
            Err(e) => {
                self.counts.errors += 1;
                out.bad(&mut self.sink, self.piece, &el.locate(e), Some(el.bytes));
            }
        }
    }
}

/// One chunk of a plain file, in memory.
pub(super) fn read_slice<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    bytes: &[u8],
    // Where the slice starts in its input: byte offset, line number.
    (offset, first_line): (u64, u64),
    max_line: usize,
    format: Format,
    out: &mut Out<'_>,
) -> Done<S> {
    let lines = if offset == 0 {
        Lines::new(bytes)
    } else {
        Lines::with_start(bytes, first_line, offset)
    };
    if let Some(take) = Take::of(&sink, format) {
        let mut taker = LineTaker::new(sink, take, piece, max_line);
        for line in lines {
            taker.take(&line, out);
        }
        return piece_done(piece, taker.sink, taker.counts, bytes.len() as u64, format);
    }
    let counts = {
        let mut events = SliceEvents::with_parser(lines, Scanner::new()).with_max_line(max_line);
        loop {
            let e = match events.next_event() {
                None => break,
                Some(Ok(ev)) => {
                    sink.event(piece, &ev, &mut out.bytes);
                    continue;
                }
                Some(Err(e)) => e,
            };
            let line = events.last_line().map(|l| l.bytes);
            let line = line.filter(|_| e.kind() != ErrorKind::LineTooLong);
            out.bad(&mut sink, piece, &explain(e, line), line);
        }
        events.counts()
    };
    piece_done(piece, sink, counts, bytes.len() as u64, format)
}

/// The end of an input read to its end on this thread: a source that ended
/// early is reported, and the finished piece handed out.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish_input<'n, S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    mut counts: Counts,
    bytes: u64,
    mut failure: Option<Error>,
    report: &EndReport,
    format: Format,
    mut out: Out<'n>,
    emit: &mut dyn FnMut(Msg<'n, S>),
) {
    if failure.is_none()
        && let Some(e) = report.take()
    {
        counts.errors += 1;
        let e = ended_early(e, counts.lines + 1, bytes);
        out.bad(&mut sink, piece, &e, None);
        failure = Some(e);
    }
    let mut done = piece_done(piece, sink, counts, bytes, format);
    done.last = true;
    done.unreadable = failure.is_some() && counts.lines == 0 && bytes == 0;
    done.failure = failure;
    emit(Msg::Done(done, out));
}

/// One input read as a stream from start to end on this thread, its output
/// handed to `emit` in blocks as it grows.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_stream<'n, S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    rdr: impl Read,
    report: &EndReport,
    max_line: usize,
    format: Format,
    mut out: Out<'n>,
    emit: &mut dyn FnMut(Msg<'n, S>),
) {
    let read_size = cctape::framing::DEFAULT_READ_SIZE;
    let mut failure = None;
    let (counts, bytes) = if let Some(take) = Take::of(&sink, format) {
        let mut taker = LineTaker::new(sink, take, piece, max_line);
        let mut lines = LineReader::with_capacity(rdr, read_size, max_line);
        loop {
            match lines.next_span() {
                None => break,
                Some(Ok(span)) => {
                    taker.take(&lines.line(span), &mut out);
                    if taker.sink.has_enough() {
                        break;
                    }
                }
                Some(Err(e)) => {
                    let c = &mut taker.counts;
                    c.errors += 1;
                    if !e.is_fatal() {
                        c.lines += 1;
                        out.bad(&mut taker.sink, piece, &e, None);
                    } else {
                        if c.lines > 0 || lines.bytes_read() > 0 {
                            out.bad(&mut taker.sink, piece, &e, None);
                        }
                        failure = Some(e);
                    }
                }
            }
            if out.due(|| !lines.has_line()) {
                emit(Msg::Out(out.block()));
            }
        }
        sink = taker.sink;
        (taker.counts, lines.bytes_read())
    } else {
        let mut events = EventReader::with_capacity(rdr, read_size, max_line);
        loop {
            let err = match events.next_event() {
                None => break,
                Some(Ok(ev)) => {
                    sink.event(piece, &ev, &mut out.bytes);
                    if sink.has_enough() {
                        break;
                    }
                    None
                }
                Some(Err(e)) => Some(e),
            };
            if let Some(e) = err {
                if e.is_fatal() {
                    let c = events.counts();
                    if c.lines > 0 || events.bytes_read() > 0 {
                        out.bad(&mut sink, piece, &e, None);
                    }
                    failure = Some(e);
                } else {
                    let line = events.last_line().map(|l| l.bytes);
                    out.bad(&mut sink, piece, &explain(e, line), line);
                }
            }
            if out.due(|| !events.has_line()) {
                emit(Msg::Out(out.block()));
            }
        }
        (events.counts(), events.bytes_read())
    };
    finish_input(
        piece, sink, counts, bytes, failure, report, format, out, emit,
    );
}

/// A JSON array (one line or pretty) or JSON values one after another,
/// read element by element as events from a stream, in memory bounded by
/// the read size and the largest element (`--max-line` is the largest
/// element). An input with no element at all (a log with no JSON in it) is
/// one finding.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_elements<'n, S: Sink>(
    piece: &Piece<'_>,
    sink: S,
    rdr: impl Read,
    report: &EndReport,
    max_line: usize,
    prefix: &[u8],
    format: Format,
    mut out: Out<'n>,
    emit: &mut dyn FnMut(Msg<'n, S>),
) {
    let read_size = cctape::framing::DEFAULT_READ_SIZE;
    let take = match Take::of(&sink, format) {
        Some(Take::Record) | None => Take::Event,
        Some(t) => t,
    };
    let mut taker = LineTaker::new(sink, take, piece, max_line);
    let mut els = ElementReader::with_capacity(rdr, read_size, max_line);
    let mut failure = None;
    loop {
        match els.next_span() {
            None => break,
            Some(Ok(span)) => {
                taker.take_element(&els.element(span), &mut out);
                if taker.sink.has_enough() {
                    break;
                }
            }
            Some(Err(e)) => {
                taker.counts.errors += 1;
                if e.is_fatal() {
                    if els.lines() > 0 || els.bytes_read() > 0 {
                        out.bad(&mut taker.sink, piece, &e, None);
                    }
                    failure = Some(e);
                } else {
                    out.bad(&mut taker.sink, piece, &e, None);
                }
            }
        }
        if out.full() {
            emit(Msg::Out(out.block()));
        }
    }
    let mut counts = taker.counts;
    counts.lines = els.lines();
    if counts.events == 0 && counts.errors == 0 {
        let shape = Shape::of_input(prefix, format, None);
        taker.sink.not_events(piece, &shape, &mut out.bytes);
    }
    finish_input(
        piece,
        taker.sink,
        counts,
        els.bytes_read(),
        failure,
        report,
        format,
        out,
        emit,
    );
}

/// The longest last line kept for a finding.
const LAST_LINE_KEPT: usize = 4 << 10;

/// An input that holds no events, read to its end for its lines and its
/// last non-blank line, then handed to the sink as one finding.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_not_events<'n, S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    rdr: impl Read,
    report: &EndReport,
    max_line: usize,
    prefix: &[u8],
    format: Format,
    mut out: Out<'n>,
    emit: &mut dyn FnMut(Msg<'n, S>),
) {
    let read_size = cctape::framing::DEFAULT_READ_SIZE;
    let mut lines = LineReader::with_capacity(rdr, read_size, max_line);
    let mut counts = Counts::default();
    let mut last: Vec<u8> = Vec::new();
    let mut failure = None;
    while let Some(item) = lines.next_span() {
        match item {
            Ok(span) => {
                counts.lines += 1;
                let line = lines.line(span);
                if line.is_blank() {
                    counts.blank_lines += 1;
                } else {
                    last.clear();
                    last.extend_from_slice(&line.bytes[..line.bytes.len().min(LAST_LINE_KEPT)]);
                }
            }
            // A line past the maximum: its bytes are not seen (a limit,
            // reported as everywhere).
            Err(e) if !e.is_fatal() => {
                counts.lines += 1;
                counts.errors += 1;
                out.bad(&mut sink, piece, &e, None);
            }
            Err(e) => {
                counts.errors += 1;
                failure = Some(e);
                break;
            }
        }
    }
    let shape = Shape::of_input(prefix, format, (!last.is_empty()).then_some(&last[..]));
    sink.not_events(piece, &shape, &mut out.bytes);
    let bytes = lines.bytes_read();
    if let Some(e) = &failure
        && (counts.lines > 0 || bytes > 0)
    {
        out.bad(&mut sink, piece, e, None);
    }
    finish_input(
        piece, sink, counts, bytes, failure, report, format, out, emit,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_line_ends_are_named() {
        let line = b"{\"type\":\"user\"}\r{\"type\":\"user\"}\r";
        let e = Error::new(
            ErrorKind::Truncated,
            cctape::Position::new(1, 0),
            "the input ended in the middle of a line",
        );
        assert_eq!(explain(e, Some(line)).reason(), CR_LINE_ENDS);
        let crlf = b"{\"type\":\"user\",\"x\":}\r";
        let e = Error::new(ErrorKind::InvalidJson, cctape::Position::new(1, 0), "x");
        assert_eq!(explain(e, Some(crlf)).reason(), "x");
    }
}
