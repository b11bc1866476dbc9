//! Reading one input (or one chunk of it) on this thread: lines, JSON
//! elements or a finding, each line counted and handed to the sink, each
//! bad line told through [`Out::bad`], the one place where what the
//! command says about it is decided ([`super::super::said`]).

use super::{Done, FLUSH_AT, Msg, Piece, Reads, Sink};
use crate::cli::said::{self, BadLine, SAID_PER_INPUT};
use cctape::error::Error;
use cctape::inputs::{InputEnd, Item, Items, ReadOptions, Sniffed};
use cctape::json::IndexDepth;
use cctape::sniff::{Format, FormatChoice, Reading};
use cctape::stream::Counts;
use std::ops::ControlFlow;

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
        let item = Item::Error {
            error: e,
            bytes: line,
        };
        sink.item(piece, item, &mut self.bytes);
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

/// A sink, its input and its output, as the library's reader hands items
/// to them ([`cctape::inputs::Items`]): the one place where an item
/// becomes a sink's call.
pub(super) struct Route<'r, 'n, S: Sink> {
    pub(super) sink: &'r mut S,
    pub(super) piece: &'r Piece<'r>,
    pub(super) out: &'r mut Out<'n>,
    /// Where output is handed on as the reading goes (`None`: a chunk,
    /// whose output is handed on when it is done).
    pub(super) emit: Option<&'r mut dyn FnMut(Msg<'n, S>)>,
}

impl<S: Sink> Items for Route<'_, '_, S> {
    #[inline(always)]
    fn item(&mut self, item: Item<'_, '_>) -> ControlFlow<()> {
        match item {
            Item::Error { error, bytes } => bad(self.out, self.sink, self.piece, error, bytes),
            item => self.sink.item(self.piece, item, &mut self.out.bytes),
        }
        // Only an input read in order on one worker stops early
        // ([`Sink::has_enough`]).
        if self.emit.is_some() && self.sink.has_enough() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    #[inline(always)]
    fn pause(&mut self, buffered: impl FnOnce() -> bool) {
        if let Some(emit) = &mut self.emit
            && self.out.due(|| !buffered())
        {
            emit(Msg::Out(self.out.block()));
        }
    }
}

/// A bad line to the sink and the messages, out of the way of the lines
/// that read.
#[cold]
#[inline(never)]
fn bad<S: Sink>(
    out: &mut Out<'_>,
    sink: &mut S,
    piece: &Piece<'_>,
    e: &Error,
    line: Option<&[u8]>,
) {
    out.bad(sink, piece, e, line);
}

/// How a sink reads an input, in the library's terms.
pub(super) fn read_options(reads: Reads, format: FormatChoice, max_line: usize) -> ReadOptions {
    ReadOptions {
        format,
        max_line,
        scan: reads.scan,
        records: reads.records,
        // The scanner's sinks read type, subtype and top-level fields; the
        // rest is read from its validated bytes.
        scan_depth: IndexDepth::TopLevel,
        // Large plain files read on one thread are mapped (a truncation
        // under the map is survived: `ReadOptions::map`).
        map: true,
    }
}

/// True when a sink reads an input in `format` as events (not scanned,
/// not as records): what reading ahead gives.
pub(super) fn reads_events(reads: Reads, format: Format) -> bool {
    reads.scan.is_none() && !(format.reading() == Reading::TranscriptLines && reads.records)
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

/// One chunk of a plain file, in memory.
pub(super) fn read_slice<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    bytes: &[u8],
    // Where the slice starts in its input: byte offset, line number.
    start: (u64, u64),
    opts: &ReadOptions,
    format: Format,
    out: &mut Out<'_>,
) -> Done<S> {
    let mut route = Route {
        sink: &mut sink,
        piece,
        out,
        emit: None,
    };
    let counts = cctape::inputs::read_slice(bytes, start, opts, format, &mut route);
    piece_done(piece, sink, counts, bytes.len() as u64, format)
}

/// The end of an input read on this thread (as the library's reader
/// ended it, [`cctape::inputs::LineRead::end`]): the finished piece, handed out.
pub(super) fn finish_input<'n, S: Sink>(
    piece: &Piece<'_>,
    sink: S,
    end: InputEnd,
    out: Out<'n>,
    emit: &mut dyn FnMut(Msg<'n, S>),
) {
    let done = Done {
        input: piece.input,
        last: true,
        sink,
        counts: end.counts,
        bytes: end.bytes,
        unreadable: end.unreadable,
        failure: end.failure,
        format: end.format,
    };
    emit(Msg::Done(done, out));
}

/// One input read whole on this thread by the library's reader, its output
/// handed to `emit` in blocks as it grows.
pub(super) fn read_sniffed<'n, S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    sniffed: Sniffed<'_>,
    opts: &ReadOptions,
    mut out: Out<'n>,
    emit: &mut dyn FnMut(Msg<'n, S>),
) {
    let end = sniffed.read(
        opts,
        &mut Route {
            sink: &mut sink,
            piece,
            out: &mut out,
            emit: Some(&mut *emit),
        },
    );
    finish_input(piece, sink, end, out, emit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctape::error::ErrorKind;

    #[test]
    fn cr_line_ends_are_named() {
        let line = b"{\"type\":\"user\"}\r{\"type\":\"user\"}\r";
        let e = Error::new(
            ErrorKind::Truncated,
            cctape::Position::new(1, 0),
            "the input ended in the middle of a line",
        );
        let explain = cctape::inputs::explain_line_error;
        assert_eq!(explain(e, Some(line)).reason(), CR_LINE_ENDS);
        let crlf = b"{\"type\":\"user\",\"x\":}\r";
        let e = Error::new(ErrorKind::InvalidJson, cctape::Position::new(1, 0), "x");
        assert_eq!(explain(e, Some(crlf)).reason(), "x");
    }
}
