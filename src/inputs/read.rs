//! The one place that decides how an input is read: its format told from
//! its first bytes ([`Sniffed`]), then each line or JSON element read the
//! way that format is read ([`LineRead`]), whether the bytes come from a
//! `Read` ([`Sniffed::read`]), from memory ([`read_slice`]) or are pushed
//! as they arrive (a caller's decoder handing lines to [`LineRead`]). Every
//! front end (the command, `cctape::runs`, the Python package, `watch`)
//! reads through it, so a line is counted, read and told bad the same way
//! in all of them.
//!
//! What is read goes to an [`Items`]: any `FnMut(Item) -> ControlFlow<()>`,
//! or a caller's type that also wants to know when the reader has no
//! complete line left ([`Items::pause`]), as grep-searcher's `Sink` hears
//! of each match.

use super::{
    InputEnd, Item, Prefixed, RUNAWAY_FACTOR, ReadOptions, ended_early, explain_line_error,
    read_prefix,
};
use crate::elements::{Element, ElementReader, LogValues};
use crate::error::{Error, ErrorKind, Position};
use crate::event::{Event, parse_event};
use crate::framing::{DEFAULT_READ_SIZE, Line, LineReader, Lines};
use crate::json::{ScanMode, Scanner};
use crate::report::Shape;
use crate::sniff::{Format, FormatChoice, Reading};
use crate::source::{EndReport, FileMap, LfWatch, Source};
use crate::stream::{Counts, line_too_long};
use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;

/// Where the items of an input go, in input order.
///
/// Any closure `FnMut(Item) -> ControlFlow<()>` is one. A type of the
/// caller's may also hear when the reader is about to wait for more bytes
/// ([`pause`](Items::pause)), to hand on what it holds then (`tail -f`'s
/// promptness without a flush per line).
pub trait Items {
    /// One item; [`ControlFlow::Break`] stops the reading there.
    fn item(&mut self, item: Item<'_, '_>) -> ControlFlow<()>;

    /// Called after each line or element read; `buffered()` says whether a
    /// complete line is already held (false: the next one needs a read,
    /// which may wait on a pipe or a growing file). Asked only when
    /// wanted. By default nothing is done.
    fn pause(&mut self, buffered: impl FnOnce() -> bool) {
        let _ = buffered;
    }
}

impl<F: FnMut(Item<'_, '_>) -> ControlFlow<()>> Items for F {
    fn item(&mut self, item: Item<'_, '_>) -> ControlFlow<()> {
        self(item)
    }
}

/// How the lines of an input are read, decided once from its format and
/// the [`ReadOptions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Take {
    /// Parsed: [`Item::Event`].
    Event,
    /// Scanned: [`Item::Scanned`].
    Scan(ScanMode),
    /// Scanned, validated, as a transcript record: [`Item::Record`].
    Record,
    /// Counted, the last non-blank one kept: an input without events.
    NotEvents,
}

/// The longest last line kept for a finding.
const LAST_LINE_KEPT: usize = 4 << 10;

/// Each line (or JSON element) of one input read the way its format is
/// read, counted, and handed to an [`Items`]: blank lines counted and
/// skipped, a line past the maximum an error without its bytes, a bad line
/// an error with its position and bytes (the tape parser's error whichever
/// way it was read, and CR line ends named: [`explain_line_error`]).
///
/// The framing is the caller's: [`Sniffed::read`] and [`read_slice`] use
/// one; a caller whose bytes are pushed to it (a `LineDecoder`) hands each
/// line to [`line`](LineRead::line) and each framing error to
/// [`framing_error`](LineRead::framing_error), then calls
/// [`finish`](LineRead::finish).
pub struct LineRead {
    take: Take,
    elements: bool,
    format: Format,
    max_line: usize,
    /// Scans ([`ReadOptions::scan`]), indexed as deep as
    /// [`ReadOptions::scan_depth`] says.
    scanner: Scanner,
    /// Events and records: the full index.
    parser: Scanner,
    counts: Counts,
    /// The last non-blank line of an input without events.
    last: Vec<u8>,
    failure: Option<Error>,
}

impl LineRead {
    /// The reading of an input in `format`, as `opts` asks: a transcript's
    /// lines as records with [`ReadOptions::records`], lines scanned with
    /// [`ReadOptions::scan`], else as events; JSON elements likewise, never
    /// as records; an input that holds no events line by line, for its
    /// finding.
    pub fn new(opts: &ReadOptions, format: Format) -> LineRead {
        let reading = format.reading();
        let elements = matches!(reading, Reading::StreamElements | Reading::LoggedElements);
        let take = if reading == Reading::NotEvents {
            Take::NotEvents
        } else if reading == Reading::TranscriptLines && opts.records {
            Take::Record
        } else if let Some(mode) = opts.scan {
            Take::Scan(mode)
        } else {
            Take::Event
        };
        let mut scanner = Scanner::new();
        scanner.set_index_depth(opts.scan_depth);
        LineRead {
            take,
            elements,
            format,
            max_line: opts.max_line.max(1),
            scanner,
            parser: Scanner::new(),
            counts: Counts::default(),
            last: Vec::new(),
            failure: None,
        }
    }

    /// Lines, blank lines, events and errors so far.
    pub(crate) fn counts(&self) -> Counts {
        self.counts
    }

    /// One line: counted, read, handed out.
    // Always inlined, as `read` is: fat LTO left both as calls, about 50
    // instructions a line on token-dense streams (BENCHMARKS.md, "One
    // kind, one event type, one reader").
    #[inline(always)]
    pub fn line(&mut self, line: &Line<'_>, items: &mut impl Items) -> ControlFlow<()> {
        self.counts.lines += 1;
        if line.bytes.len() > self.max_line {
            return self.bad(line_too_long(line), None, items);
        }
        if line.is_blank() {
            self.counts.blank_lines += 1;
            return ControlFlow::Continue(());
        }
        if self.take == Take::NotEvents {
            self.keep_last(line);
            return ControlFlow::Continue(());
        }
        match self.read(line, items) {
            Ok(flow) => {
                self.counts.events += 1;
                flow
            }
            Err(e) => self.bad(e, Some(line.bytes), items),
        }
    }

    /// A bad line, counted and handed out with its bytes when they are
    /// kept (CR line ends named). Out of the way of the lines that read.
    #[cold]
    #[inline(never)]
    fn bad(&mut self, e: Error, bytes: Option<&[u8]>, items: &mut impl Items) -> ControlFlow<()> {
        self.counts.errors += 1;
        let e = explain_line_error(e, bytes);
        items.item(Item::Error { error: &e, bytes })
    }

    /// A line of an input without events: the last kept for its finding.
    #[cold]
    fn keep_last(&mut self, line: &Line<'_>) {
        self.last.clear();
        let n = line.bytes.len().min(LAST_LINE_KEPT);
        self.last.extend_from_slice(&line.bytes[..n]);
    }

    /// One line read elsewhere (on another thread, ahead of this one) as
    /// an event, or why not: counted and handed out as [`line`] would.
    ///
    /// [`line`]: LineRead::line
    pub fn read_ahead(
        &mut self,
        line: &Line<'_>,
        read: Result<Event<'_>, Error>,
        items: &mut impl Items,
    ) -> ControlFlow<()> {
        self.counts.lines += 1;
        match read {
            Ok(ev) => {
                self.counts.events += 1;
                items.item(Item::Event(&ev))
            }
            Err(e) => self.bad(e, Some(line.bytes), items),
        }
    }

    /// `n` lines read elsewhere as events, and handed to a fold apart
    /// from this reading (a chunk's runs folded on another thread, see
    /// [`RunFolder::append`](crate::run::RunFolder::append)): counted as
    /// [`read_ahead`](LineRead::read_ahead) counts them.
    pub fn events_apart(&mut self, n: u64) {
        self.counts.lines += n;
        self.counts.events += n;
    }

    /// One JSON element, read as a line is; an error in it is restated at
    /// its physical line, with the element's index. Lines are the
    /// framing's to count (physical lines, not elements).
    pub fn element(&mut self, el: &Element<'_>, items: &mut impl Items) -> ControlFlow<()> {
        match self.read(&el.as_line(), items) {
            Ok(flow) => {
                self.counts.events += 1;
                flow
            }
            Err(e) => self.bad(el.locate(e), Some(el.bytes), items),
        }
    }

    /// The physical lines an element framing has seen.
    pub(crate) fn set_lines(&mut self, lines: u64) {
        self.counts.lines = lines;
    }

    /// An error of the framing: a line (or element) past the maximum is
    /// counted and handed out; a fatal one (the input broke off) is kept
    /// for [`finish`](LineRead::finish).
    pub fn framing_error(&mut self, e: Error, items: &mut impl Items) -> ControlFlow<()> {
        self.counts.errors += 1;
        if e.is_fatal() {
            self.failure = Some(e);
            return ControlFlow::Break(());
        }
        if !self.elements {
            self.counts.lines += 1;
        }
        items.item(Item::Error {
            error: &e,
            bytes: None,
        })
    }

    /// The end of the input: an input without events gives its finding
    /// (`shown` is its first bytes, [`super::Prefix::shown`]), and so does
    /// an element reading that found no element. Gives the counts and the
    /// fatal error kept, which the caller hands out
    /// ([`Sniffed::read`] does).
    pub fn finish(self, shown: &[u8], items: &mut impl Items) -> (Counts, Option<Error>) {
        let c = self.counts;
        let found = if self.take == Take::NotEvents {
            Some((!self.last.is_empty()).then_some(&self.last[..]))
        } else if self.elements && c.events == 0 && c.errors == 0 {
            Some(None)
        } else {
            None
        };
        if let Some(last) = found {
            let _ = items.item(Item::NotEvents(&Shape::of_input(shown, self.format, last)));
        }
        (self.counts, self.failure)
    }

    /// The end of the input, `bytes` read: [`finish`](LineRead::finish)
    /// unless `items` stopped the reading, then the fatal error kept
    /// (unless the input failed before its first byte), then why `report`
    /// says the input ended early, if it did, as the last item.
    pub fn end(
        mut self,
        shown: &[u8],
        bytes: u64,
        stopped: bool,
        report: &EndReport,
        items: &mut impl Items,
    ) -> InputEnd {
        let format = self.format;
        let (mut counts, mut failure) = if stopped {
            (self.counts, self.failure.take())
        } else {
            self.finish(shown, items)
        };
        let unreadable = counts.lines == 0 && bytes == 0;
        if let Some(e) = &failure
            && !unreadable
        {
            let _ = items.item(Item::Error {
                error: e,
                bytes: None,
            });
        }
        if failure.is_none()
            && let Some(e) = report.take()
        {
            counts.errors += 1;
            let e = ended_early(e, counts.lines + 1, bytes);
            let _ = items.item(Item::Error {
                error: &e,
                bytes: None,
            });
            failure = Some(e);
        }
        InputEnd {
            counts,
            bytes,
            format: Some(format),
            unreadable: failure.is_some() && unreadable,
            failure,
            stopped,
        }
    }

    /// A non-blank line read the way this input's lines are, handed out.
    #[inline(always)]
    fn read(&mut self, line: &Line<'_>, items: &mut impl Items) -> Result<ControlFlow<()>, Error> {
        let scanned = match self.take {
            Take::Event | Take::NotEvents => {
                return parse_event(&mut self.parser, line).map(|ev| items.item(Item::Event(&ev)));
            }
            Take::Scan(mode) => self
                .scanner
                .scan_with(line, mode)
                .map(|s| items.item(Item::Scanned(&s))),
            Take::Record => self
                .parser
                .scan(line)
                .map(|s| items.item(Item::Record(&s.record()))),
        };
        // A bad line reads the same whichever way it was read: the scanner
        // names invalid JSON without saying what was expected, so that
        // error is the tape parser's (its reason and column); the
        // scanner's other errors already are (tests/one_reader.rs).
        scanned.map_err(|e| match e.kind() {
            ErrorKind::InvalidJson => parse_event(&mut self.parser, line).err().unwrap_or(e),
            _ => e,
        })
    }
}

/// An input opened and its format told from its first decoded bytes
/// ([`read_prefix`]), those bytes kept to be read again: what
/// [`read_source`](super::read_source) does first. A caller that reads
/// some inputs its own way (in chunks on a pool) decides with
/// [`format`](Sniffed::format) and takes the bytes back with
/// [`into_reader`](Sniffed::into_reader).
pub struct Sniffed<'a> {
    rdr: Prefixed<Box<dyn Read + 'a>>,
    format: Format,
    shown: Vec<u8>,
    report: EndReport,
    /// The plain file the bytes come from, and its size when opened, when
    /// it may be mapped ([`Source::mappable`]).
    file: Option<(File, u64)>,
}

impl<'a> Sniffed<'a> {
    /// Read `src`'s first bytes and tell its format as `choice` asks.
    pub fn new(mut src: Source<'a>, choice: FormatChoice) -> Sniffed<'a> {
        let stream = src.kind().size().is_none();
        let report = src.report().clone();
        let file = src.take_file();
        let mut raw = src.into_reader();
        let prefix = read_prefix(&mut raw, stream);
        let format = prefix.decide(choice);
        // Kept to say what an input without events is.
        let shown = match format.reading() {
            Reading::StreamElements | Reading::LoggedElements | Reading::NotEvents => {
                prefix.shown()
            }
            _ => Vec::new(),
        };
        // A prefix that ended (the file is shorter than it was) or failed is
        // read as reading tells it.
        let file = file.filter(|_| prefix.error.is_none() && !prefix.whole);
        Sniffed {
            rdr: Prefixed::new(prefix, raw),
            format,
            shown,
            report,
            file,
        }
    }

    /// The format the input is read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The input's bytes from its first, and where why it ended early is
    /// told.
    pub fn into_reader(self) -> (Prefixed<Box<dyn Read + 'a>>, EndReport) {
        (self.rdr, self.report)
    }

    /// The input mapped, when `opts` asks for maps ([`ReadOptions::map`])
    /// and it is a plain file of lines worth mapping: for a reader that
    /// cuts it into chunks itself. Its bytes start at the input's first
    /// byte (a UTF-8 BOM included).
    pub fn take_map(&mut self, opts: &ReadOptions) -> Option<FileMap> {
        map_of(self.file.take(), self.format, opts, &self.report)
    }

    /// Read the input to its end (or until `items` stops it), each item
    /// handed out in input order; see [`read_source`](super::read_source).
    pub fn read(self, opts: &ReadOptions, items: &mut impl Items) -> InputEnd {
        let Sniffed {
            rdr,
            format,
            shown,
            report,
            file,
        } = self;
        let mut taker = LineRead::new(opts, format);
        let max_line = taker.max_line;
        // An endless line (/dev/zero) ends a line-read input instead of
        // being skipped for ever; elements have their own limit.
        let lf_limit = (max_line as u64).saturating_mul(RUNAWAY_FACTOR);
        let map = map_of(file, format, opts, &report);
        let (stopped, bytes) = match format.reading() {
            Reading::StreamElements => elements(rdr, &mut taker, items),
            Reading::LoggedElements => elements(LogValues::new(rdr), &mut taker, items),
            _ => match map {
                Some(map) => {
                    drop(rdr);
                    mapped_lines(&map, &mut taker, items)
                }
                None => lines(LfWatch::new(rdr, lf_limit), &mut taker, items),
            },
        };
        taker.end(&shown, bytes, stopped, &report, items)
    }
}

/// `file` mapped, when `opts` asks for maps and `format` is read in lines.
fn map_of(
    file: Option<(File, u64)>,
    format: Format,
    opts: &ReadOptions,
    report: &EndReport,
) -> Option<FileMap> {
    let lines = !matches!(
        format.reading(),
        Reading::StreamElements | Reading::LoggedElements
    );
    let (file, len) = file.filter(|_| opts.map && lines)?;
    FileMap::new(file, len, report.clone())
}

/// The lines of a mapped plain file, each to `taker` as [`lines`] hands
/// them out, without a byte copied. From a line the map cannot vouch for
/// (found past a zeroed page, or without LF while the file is shorter
/// than the map: [`FileMap::whole_to`]) or one past the longest allowed
/// line, the rest of the file is read with `read` by [`lines`]: the
/// shrinking and the line's error are then told exactly as reading tells
/// them.
fn mapped_lines(map: &FileMap, taker: &mut LineRead, items: &mut impl Items) -> (bool, u64) {
    let b = map.bytes();
    let mut lines = Lines::new(b);
    // The number of the next line.
    let mut number = 1;
    // Where reading takes over: a line's offset and number.
    let resume = loop {
        let Some(line) = lines.next() else {
            if map.whole_to(b.len() as u64) {
                return (false, b.len() as u64);
            }
            break (b.len() as u64, number);
        };
        let end = line.offset + line.bytes.len() as u64;
        // Found past a zeroed page, or without LF where the file may have
        // lost its end, or longer than allowed: read from here.
        if map.cut()
            || line.bytes.len() > taker.max_line
            || (!line.terminated && !map.whole_to(end))
        {
            break (line.offset, line.number);
        }
        let flow = taker.line(&line, items);
        let read = (end + u64::from(line.terminated)) as usize;
        if flow.is_break() {
            return (taker.failure.is_none(), read as u64);
        }
        number = line.number + 1;
        items.pause(|| true);
        map.release(read);
    };
    taker.read_rest(map, resume, items)
}

impl LineRead {
    /// The rest of a mapped file, from byte `offset` (a line's start, on
    /// line `number`) to its end, read with `read` and each line handed
    /// out: where a reader of the map stops trusting it (the file was cut
    /// under it; [`FileMap::whole_to`]). The shrinking is then told as a
    /// reading from the start tells it. Whether `items` stopped the
    /// reading, and the bytes read (from the file's start).
    pub fn read_rest(
        &mut self,
        map: &FileMap,
        (offset, number): (u64, u64),
        items: &mut impl Items,
    ) -> (bool, u64) {
        let lf_limit = (self.max_line as u64).saturating_mul(RUNAWAY_FACTOR);
        match map.reader_at(offset) {
            Ok(rdr) => {
                let lines = LineReader::with_capacity(
                    LfWatch::new(rdr, lf_limit),
                    DEFAULT_READ_SIZE,
                    self.max_line,
                )
                .numbered_from(offset, number);
                read_lines(lines, self, items)
            }
            Err(e) => {
                let _ = self.framing_error(Error::io(e, Position::new(number, offset)), items);
                (false, offset)
            }
        }
    }
}

/// The lines of a `Read`, each to `taker`: whether `items` stopped the
/// reading, and the bytes read.
fn lines(rdr: impl Read, taker: &mut LineRead, items: &mut impl Items) -> (bool, u64) {
    read_lines(
        LineReader::with_capacity(rdr, DEFAULT_READ_SIZE, taker.max_line),
        taker,
        items,
    )
}

/// [`lines`] through a reader made already.
fn read_lines(
    mut lines: LineReader<impl Read>,
    taker: &mut LineRead,
    items: &mut impl Items,
) -> (bool, u64) {
    loop {
        let flow = match lines.next_span() {
            None => return (false, lines.bytes_read()),
            Some(Ok(span)) => taker.line(&lines.line(span), items),
            Some(Err(e)) => taker.framing_error(e, items),
        };
        if flow.is_break() {
            // A fatal error ends the input, told at its end.
            return (taker.failure.is_none(), lines.bytes_read());
        }
        items.pause(|| lines.has_line());
    }
}

/// The JSON elements of a `Read`, each to `taker`, in memory bounded by
/// the read size and the largest element: whether `items` stopped the
/// reading, and the bytes read.
fn elements(rdr: impl Read, taker: &mut LineRead, items: &mut impl Items) -> (bool, u64) {
    let mut els = ElementReader::with_capacity(rdr, DEFAULT_READ_SIZE, taker.max_line);
    let stopped = loop {
        let flow = match els.next_span() {
            None => break false,
            Some(Ok(span)) => taker.element(&els.element(span), items),
            Some(Err(e)) => taker.framing_error(e, items),
        };
        taker.set_lines(els.lines());
        if flow.is_break() {
            break taker.failure.is_none();
        }
        items.pause(|| true);
    };
    taker.set_lines(els.lines());
    (stopped, els.bytes_read())
}

/// One piece of a plain file held in memory, starting at byte `offset`
/// and line `first_line` of its input, read line by line as
/// [`Sniffed::read`] reads a line-read input (the caller has cut it at
/// line ends): its counts.
pub fn read_slice(
    bytes: &[u8],
    (offset, first_line): (u64, u64),
    opts: &ReadOptions,
    format: Format,
    items: &mut impl Items,
) -> Counts {
    let lines = if offset == 0 {
        Lines::new(bytes)
    } else {
        Lines::with_start(bytes, first_line, offset)
    };
    let mut taker = LineRead::new(opts, format);
    for line in lines {
        if taker.line(&line, items).is_break() {
            break;
        }
    }
    taker.counts()
}
