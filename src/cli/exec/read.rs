//! Reading one input (or one chunk of it) on this thread: lines, JSON
//! elements or a finding, each line counted and handed to the sink.

use super::{Done, FLUSH_AT, Msg, Piece, Sink};
use cctape::elements::{Element, ElementReader};
use cctape::error::{Error, ErrorKind};
use cctape::event::parse_event;
use cctape::framing::{Line, LineReader, Lines};
use cctape::parse::Parser;
use cctape::report::Shape;
use cctape::scan::{ScanMode, Scanner};
use cctape::sniff::{Format, Reading};
use cctape::source::EndReport;
use cctape::stream::{Counts, EventReader, SliceEvents};
use cctape::transcript::Record;
use std::io::Read;

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
    out: &mut Vec<u8>,
) {
    counts.lines += 1;
    match taken {
        Taken::TooLong => {
            counts.errors += 1;
            let e = cctape::stream::line_too_long(line);
            sink.error(piece, &e, None, out);
        }
        Taken::Blank => counts.blank_lines += 1,
        Taken::Read(Ok(())) => counts.events += 1,
        Taken::Read(Err(e)) => {
            counts.errors += 1;
            let e = explain(e, Some(line.bytes));
            sink.error(piece, &e, Some(line.bytes), out);
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
    parser: Parser,
    take: Take,
    piece: &'p Piece<'n>,
    max_line: usize,
    counts: Counts,
}

impl<'p, 'n, S: Sink> LineTaker<'p, 'n, S> {
    fn new(sink: S, take: Take, piece: &'p Piece<'n>, max_line: usize) -> Self {
        LineTaker {
            sink,
            scanner: Scanner::new(),
            parser: Parser::new(),
            take,
            piece,
            max_line,
            counts: Counts::default(),
        }
    }

    /// Read one non-blank line (or element) the sink's way.
    fn read(&mut self, line: &Line<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
        let (sink, piece) = (&mut self.sink, self.piece);
        match self.take {
            Take::Scan(mode) => self
                .scanner
                .scan_with(line, mode)
                .map(|s| sink.scanned(piece, &s, out)),
            Take::Line => sink.line(piece, line, out),
            Take::Record => self
                .scanner
                .scan_with(line, ScanMode::Validated)
                .map(|s| sink.record(piece, &Record::new(s), out)),
            Take::Event => {
                parse_event(&mut self.parser, line).map(|ev| sink.event(piece, &ev, out))
            }
        }
    }

    /// One line, counted.
    fn take(&mut self, line: &Line<'_>, out: &mut Vec<u8>) {
        // The same limit as the reader's, so a chunk and a stream agree.
        let taken = if line.bytes.len() > self.max_line {
            Taken::TooLong
        } else if line.is_blank() {
            Taken::Blank
        } else {
            Taken::Read(self.read(line, out))
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
    fn take_element(&mut self, el: &Element<'_>, out: &mut Vec<u8>) {
        match self.read(&el.as_line(), out) {
            Ok(()) => self.counts.events += 1,
            Err(e) => {
                self.counts.errors += 1;
                self.sink
                    .error(self.piece, &el.locate(e), Some(el.bytes), out);
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
    out: &mut Vec<u8>,
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
        let mut events = SliceEvents::with_parser(lines, Parser::new()).with_max_line(max_line);
        loop {
            let e = match events.next_event() {
                None => break,
                Some(Ok(ev)) => {
                    sink.event(piece, &ev, out);
                    continue;
                }
                Some(Err(e)) => e,
            };
            let line = events.last_line().map(|l| l.bytes);
            let line = line.filter(|_| e.kind() != ErrorKind::LineTooLong);
            sink.error(piece, &explain(e, line), line, out);
        }
        events.counts()
    };
    piece_done(piece, sink, counts, bytes.len() as u64, format)
}

/// The end of an input read to its end on this thread: a source that ended
/// early is reported, and the finished piece handed out.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish_input<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    mut counts: Counts,
    bytes: u64,
    mut failure: Option<Error>,
    report: &EndReport,
    format: Format,
    mut out: Vec<u8>,
    emit: &mut dyn FnMut(Msg<S>),
) {
    if failure.is_none()
        && let Some(e) = report.take()
    {
        counts.errors += 1;
        let e = ended_early(e, counts.lines + 1, bytes);
        sink.error(piece, &e, None, &mut out);
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
pub(super) fn read_stream<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    rdr: impl Read,
    report: &EndReport,
    max_line: usize,
    format: Format,
    emit: &mut dyn FnMut(Msg<S>),
) {
    let read_size = cctape::framing::DEFAULT_READ_SIZE;
    let mut out = Vec::new();
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
                        taker.sink.error(piece, &e, None, &mut out);
                    } else {
                        if c.lines > 0 || lines.bytes_read() > 0 {
                            taker.sink.error(piece, &e, None, &mut out);
                        }
                        failure = Some(e);
                    }
                }
            }
            if out.len() >= FLUSH_AT {
                emit(Msg::Out(std::mem::take(&mut out)));
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
                    sink.event(piece, &ev, &mut out);
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
                        sink.error(piece, &e, None, &mut out);
                    }
                    failure = Some(e);
                } else {
                    let line = events.last_line().map(|l| l.bytes);
                    sink.error(piece, &explain(e, line), line, &mut out);
                }
            }
            if out.len() >= FLUSH_AT {
                emit(Msg::Out(std::mem::take(&mut out)));
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
pub(super) fn read_elements<S: Sink>(
    piece: &Piece<'_>,
    sink: S,
    rdr: impl Read,
    report: &EndReport,
    max_line: usize,
    prefix: &[u8],
    format: Format,
    emit: &mut dyn FnMut(Msg<S>),
) {
    let read_size = cctape::framing::DEFAULT_READ_SIZE;
    let take = match Take::of(&sink, format) {
        Some(Take::Record) | None => Take::Event,
        Some(t) => t,
    };
    let mut taker = LineTaker::new(sink, take, piece, max_line);
    let mut els = ElementReader::with_capacity(rdr, read_size, max_line);
    let mut out = Vec::new();
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
                        taker.sink.error(piece, &e, None, &mut out);
                    }
                    failure = Some(e);
                } else {
                    taker.sink.error(piece, &e, None, &mut out);
                }
            }
        }
        if out.len() >= FLUSH_AT {
            emit(Msg::Out(std::mem::take(&mut out)));
        }
    }
    let mut counts = taker.counts;
    counts.lines = els.lines();
    if counts.events == 0 && counts.errors == 0 {
        let shape = Shape::of_input(prefix, format, None);
        taker.sink.not_events(piece, &shape, &mut out);
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
pub(super) fn read_not_events<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    rdr: impl Read,
    report: &EndReport,
    max_line: usize,
    prefix: &[u8],
    format: Format,
    emit: &mut dyn FnMut(Msg<S>),
) {
    let read_size = cctape::framing::DEFAULT_READ_SIZE;
    let mut lines = LineReader::with_capacity(rdr, read_size, max_line);
    let mut counts = Counts::default();
    let mut last: Vec<u8> = Vec::new();
    let mut failure = None;
    let mut out = Vec::new();
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
                sink.error(piece, &e, None, &mut out);
            }
            Err(e) => {
                counts.errors += 1;
                failure = Some(e);
                break;
            }
        }
    }
    let shape = Shape::of_input(prefix, format, (!last.is_empty()).then_some(&last[..]));
    sink.not_events(piece, &shape, &mut out);
    let bytes = lines.bytes_read();
    if let Some(e) = &failure
        && (counts.lines > 0 || bytes > 0)
    {
        sink.error(piece, e, None, &mut out);
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
