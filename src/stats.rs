//! Stats: counting what a set of streams holds, by kind, with the first
//! errors and their positions.
//!
//! [`Stats`] is what `cctape stats` prints. Counting an event costs an array
//! increment for the kinds with fixed names; kinds whose name comes from the
//! line (unknown types, unknown system or result subtypes) go to a map keyed
//! by `"type/subtype"`, which allocates only the first time a name is seen.

use crate::error::Error;
use crate::event::{Event, EventKind, parse_event};
use crate::framing::{Line, Lines};
use crate::json::IndexDepth;
use crate::parse::{ParsedLines, Parser};
use crate::scan::{Scanner, prune_into};
use crate::stream::Counts;
use std::collections::BTreeMap;

/// How many errors [`Stats`] keeps with their positions (all are counted).
pub const MAX_ERRORS_KEPT: usize = 100;

/// One error kept with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorRecord {
    /// Index of the file in the order files were given (see [`Stats::files`]).
    pub file: usize,
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line's start in its file.
    pub offset: u64,
    /// Byte within the line where reading stopped, if known.
    pub column: Option<u64>,
    /// The error kind's name (`invalid_json`, `truncated`, ...).
    pub kind: &'static str,
    /// What was expected or found.
    pub message: String,
}

/// Counts over one or more streams.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Files (or streams) read.
    pub files: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Lines, blank lines, events, errors.
    pub counts: Counts,
    by_kind: [u64; EventKind::ALL.len()],
    named: BTreeMap<String, u64>,
    /// The first [`MAX_ERRORS_KEPT`] errors, in order.
    pub errors: Vec<ErrorRecord>,
    key: String,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            files: 0,
            bytes: 0,
            counts: Counts::default(),
            by_kind: [0; EventKind::ALL.len()],
            named: BTreeMap::new(),
            errors: Vec::new(),
            key: String::new(),
        }
    }
}

impl Stats {
    /// Empty stats.
    pub fn new() -> Stats {
        Stats::default()
    }

    /// Count one event.
    #[inline]
    pub fn record_event(&mut self, ev: &Event<'_>) {
        let kind = ev.kind();
        if kind.name().is_some() {
            self.by_kind[kind.index()] += 1;
            return;
        }
        self.key.clear();
        self.key.push_str(ev.raw_type());
        if let Some(sub) = ev.raw_subtype() {
            self.key.push('/');
            self.key.push_str(sub);
        }
        match self.named.get_mut(self.key.as_str()) {
            Some(n) => *n += 1,
            None => {
                self.named.insert(self.key.clone(), 1);
            }
        }
    }

    /// Keep an error (the first [`MAX_ERRORS_KEPT`]) from file number `file`.
    pub fn record_error(&mut self, file: usize, e: &Error) {
        if self.errors.len() < MAX_ERRORS_KEPT {
            let p = e.position();
            let message = match e.io_error() {
                Some(io) => format!("{}: {io}", e.reason()),
                None => e.reason().to_string(),
            };
            self.errors.push(ErrorRecord {
                file,
                line: p.line,
                offset: p.offset,
                column: p.column,
                kind: e.kind().name(),
                message,
            });
        }
    }

    /// Give back the memory kept for reading (the key buffer, spare room
    /// in the error list): for stats that are kept, one per input.
    pub fn shrink(&mut self) {
        self.key = String::new();
        self.errors.shrink_to_fit();
    }

    /// Events by `"type/subtype"` (or `"type"` when there is no string
    /// subtype), all kinds.
    pub fn by_type(&self) -> BTreeMap<String, u64> {
        let mut m = self.named.clone();
        for k in EventKind::ALL {
            let n = self.by_kind[k.index()];
            if let (Some(name), true) = (k.name(), n > 0) {
                *m.entry(name.to_string()).or_default() += n;
            }
        }
        m
    }

    /// Events of kinds without a typed view (unknown types, unknown system
    /// subtypes), by `"type/subtype"`.
    pub fn unknown(&self) -> BTreeMap<String, u64> {
        self.named
            .iter()
            .filter(|(k, _)| !(k.as_str() == "result" || k.starts_with("result/")))
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    }

    /// Events of one kind with a fixed name.
    pub fn count_of(&self, kind: EventKind) -> u64 {
        self.by_kind[kind.index()]
    }

    /// Add another set of stats; its errors' file numbers are shifted by
    /// `file_base`.
    pub fn merge(&mut self, o: &Stats, file_base: usize) {
        self.files += o.files;
        self.bytes += o.bytes;
        self.counts.add(&o.counts);
        for (a, b) in self.by_kind.iter_mut().zip(o.by_kind.iter()) {
            *a += b;
        }
        for (k, v) in &o.named {
            *self.named.entry(k.clone()).or_default() += v;
        }
        for e in &o.errors {
            if self.errors.len() >= MAX_ERRORS_KEPT {
                break;
            }
            let mut e = e.clone();
            e.file += file_base;
            self.errors.push(e);
        }
    }

    /// Read all of `bytes` (one file in memory) into these stats, as file
    /// number `file`.
    pub fn read_slice(&mut self, file: usize, bytes: &[u8]) {
        let mut events = crate::stream::SliceEvents::new(bytes);
        while let Some(item) = events.next_event() {
            match item {
                Ok(ev) => self.record_event(&ev),
                Err(e) => self.record_error(file, &e),
            }
        }
        self.files += 1;
        self.bytes += bytes.len() as u64;
        self.counts.add(&events.counts());
    }

    /// Read a stream into these stats, as file number `file`. Returns the I/O
    /// error that ended it, if one did (it is also recorded).
    pub fn read_stream<R: std::io::Read>(&mut self, file: usize, rdr: R) -> Option<Error> {
        let mut events = crate::stream::EventReader::new(rdr);
        let mut fatal = None;
        while let Some(item) = events.next_event() {
            match item {
                Ok(ev) => self.record_event(&ev),
                Err(e) => {
                    self.record_error(file, &e);
                    if e.is_fatal() {
                        fatal = Some(e);
                    }
                }
            }
        }
        self.files += 1;
        self.bytes += events.bytes_read();
        self.counts.add(&events.counts());
        fatal
    }
}

/// Lines at least this long are scanned first and, when they carry long
/// tool payloads, read from a pruned copy by [`PrunedReader`].
pub const PRUNE_MIN: usize = 4096;
/// How much of each long payload string [`PrunedReader`]'s copy keeps.
pub const PRUNE_KEEP: usize = 256;

/// The read `cctape stats` does by default (without `--exact`): a line of
/// at least [`PRUNE_MIN`] bytes is validated by the [`Scanner`] and, when
/// [`prune_into`] cuts something, its event is built from the pruned copy
/// (long tool payload strings cut to [`PRUNE_KEEP`] bytes); every other line
/// is parsed whole. Once a `stream_event` has been read, the input carries
/// partial messages, whose assistant tool inputs the run fold compares with
/// their deltas: assistant lines are then read whole.
///
/// The promise is that [`Stats`] and the run summaries `cctape stats`
/// prints are the same as from [`parse_event`] on every line; the
/// `stats_path` fuzz target checks it.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::parse::Parser;
/// use cctape::stats::PrunedReader;
///
/// let long = "x".repeat(5000);
/// let input = format!(r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t1","content":"{long}"}}]}}}}"#);
/// let mut reader = PrunedReader::new();
/// let mut parser = Parser::new();
/// let line = Lines::new(input.as_bytes()).next().unwrap();
/// let ev = reader.read(&mut parser, &line).unwrap();
/// assert_eq!(ev.tool_result_id(), Some("t1"));
/// assert!(ev.raw().len() < 400);
/// ```
#[derive(Debug)]
pub struct PrunedReader {
    scanner: Scanner,
    pruned: Vec<u8>,
    partial: bool,
    pruned_lines: u64,
}

impl Default for PrunedReader {
    fn default() -> PrunedReader {
        // The prune reads the line's bytes and its top-level fields: the
        // index below the top level would be written and never read.
        let mut scanner = Scanner::new();
        scanner.set_index_depth(IndexDepth::TopLevel);
        PrunedReader {
            scanner,
            pruned: Vec::new(),
            partial: false,
            pruned_lines: 0,
        }
    }
}

impl PrunedReader {
    /// A reader that has seen no line yet.
    pub fn new() -> PrunedReader {
        PrunedReader::default()
    }

    /// Read one non-blank line as `cctape stats` does: the event of the
    /// pruned copy when pruning applies, of the line itself otherwise (and
    /// then the line's own error when it is not an event).
    pub fn read<'a>(
        &'a mut self,
        parser: &'a mut Parser,
        line: &Line<'a>,
    ) -> Result<Event<'a>, Error> {
        if self.cut(line) {
            self.pruned_lines += 1;
            let copy = Line {
                bytes: &self.pruned[..],
                ..*line
            };
            return parse_event(parser, &copy);
        }
        let ev = parse_event(parser, line)?;
        self.partial |= ev.kind() == EventKind::StreamEvent;
        Ok(ev)
    }

    /// True when `line` is read from a pruned copy, which is then in
    /// `self.pruned`: a long line, valid, with something to cut, and not an
    /// assistant line of a stream with partial messages.
    fn cut(&mut self, line: &Line<'_>) -> bool {
        if line.bytes.len() < PRUNE_MIN {
            return false;
        }
        match self.scanner.scan(line) {
            Ok(s) if self.partial && s.kind() == EventKind::Assistant => false,
            Ok(s) => prune_into(&s, PRUNE_KEEP, &mut self.pruned),
            // The tape's reading of a bad line is the one reported.
            Err(_) => false,
        }
    }

    /// Take an event that a [`ReadAhead`] read from `line` on another
    /// thread (`pruned`: from a pruned copy), as [`read`](PrunedReader::read)
    /// would have read it here: the same event, or `line` parsed again whole
    /// when it is an assistant line that the chunk's reader pruned before it
    /// knew that this input carries partial messages (a chunk is read
    /// without the lines before it).
    pub fn take_ahead<'a>(
        &'a mut self,
        parser: &'a mut Parser,
        line: &Line<'a>,
        ahead: Event<'a>,
        pruned: bool,
    ) -> Result<Event<'a>, Error> {
        if pruned && self.partial && ahead.kind() == EventKind::Assistant {
            return parse_event(parser, line);
        }
        if pruned {
            self.pruned_lines += 1;
        } else {
            self.partial |= ahead.kind() == EventKind::StreamEvent;
        }
        Ok(ahead)
    }

    /// True once a `stream_event` was read (assistant lines are then read
    /// whole).
    pub fn partial_messages(&self) -> bool {
        self.partial
    }

    /// How many lines were read from a pruned copy.
    pub fn pruned_lines(&self) -> u64 {
        self.pruned_lines
    }
}

/// What [`ReadAhead`] made of one line.
#[derive(Debug)]
enum Ahead {
    Blank,
    TooLong,
    Event {
        index: usize,
        kind: EventKind,
        /// Where the pruned copy is in `pruned`, when the line was pruned.
        pruned: Option<(usize, usize)>,
    },
    Failed(Error),
}

/// One line of a chunk read ahead, as [`ReadAhead::lines`] hands it out:
/// every way a line can end (exhaustive, so that a reader counts each).
#[derive(Debug)]
pub enum AheadLine<'a> {
    /// Spaces, tabs and CRs only.
    Blank,
    /// Longer than the maximum the chunk was read with.
    TooLong,
    /// An event: from a pruned copy when `pruned` (pass both to
    /// [`PrunedReader::take_ahead`]).
    Event {
        /// The event.
        event: Event<'a>,
        /// Read from a pruned copy of the line.
        pruned: bool,
    },
    /// Not an event: why.
    Failed(Error),
}

/// The lines of one chunk of an input read the way `cctape stats` reads
/// them ([`PrunedReader`], or whole with `exact`), on any thread, into owned
/// buffers (tapes in a [`ParsedLines`] batch, pruned copies) that another
/// thread then reads in order ([`lines`](ReadAhead::lines)). This is how
/// `cctape stats` uses two cores on one file without reading a byte twice:
/// a pool parses the chunks ahead, one thread folds the runs in input
/// order, so the result is the one-thread result by construction. Every
/// buffer is kept from chunk to chunk.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::parse::Parser;
/// use cctape::stats::{AheadLine, PrunedReader, ReadAhead};
///
/// let chunk = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\nnot json\n";
/// let mut ahead = ReadAhead::new(false);
/// ahead.read(chunk, (0, 1), 1 << 20);
/// let mut ahead = std::thread::spawn(move || ahead).join().unwrap();
/// let (mut reader, mut parser) = (PrunedReader::new(), Parser::new());
/// let mut seen = Vec::new();
/// for (line, item) in ahead.lines(chunk) {
///     match item {
///         AheadLine::Event { event, pruned } => {
///             let ev = reader.take_ahead(&mut parser, &line, event, pruned).unwrap();
///             seen.push(format!("{} {}", line.number, ev.raw_type()));
///         }
///         AheadLine::Blank => seen.push(format!("{} blank", line.number)),
///         AheadLine::Failed(e) => seen.push(format!("{} {:?}", line.number, e.kind())),
///         AheadLine::TooLong => seen.push(format!("{} too long", line.number)),
///     }
/// }
/// assert_eq!(seen, ["1 system", "2 blank", "3 InvalidJson"]);
/// ```
#[derive(Debug)]
pub struct ReadAhead {
    exact: bool,
    reader: PrunedReader,
    parser: Parser,
    batch: ParsedLines,
    pruned: Vec<u8>,
    /// Each line's place in the chunk (so that the folding thread does not
    /// look for the line ends again) and what was made of it.
    items: Vec<(Span, Ahead)>,
}

impl ReadAhead {
    /// A reader with empty buffers; `exact` parses every line whole (as
    /// `cctape stats --exact`).
    pub fn new(exact: bool) -> ReadAhead {
        ReadAhead {
            exact,
            reader: PrunedReader::new(),
            parser: Parser::new(),
            batch: ParsedLines::new(),
            pruned: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Read the lines of `chunk`, which starts at byte `offset` of its input
    /// on line `first_line` (offset 0 skips a BOM as an input's start
    /// does); lines longer than `max_line` are not read. What an earlier
    /// chunk held is forgotten.
    pub fn read(&mut self, chunk: &[u8], (offset, first_line): (u64, u64), max_line: usize) {
        self.batch.clear();
        self.pruned.clear();
        self.items.clear();
        // Each chunk is read as if nothing came before it: take_ahead
        // mends what that changes.
        self.reader.partial = false;
        for line in chunk_lines(chunk, (offset, first_line)) {
            let item = if line.bytes.len() > max_line {
                Ahead::TooLong
            } else if line.is_blank() {
                Ahead::Blank
            } else {
                match self.read_line(&line) {
                    Ok(item) => item,
                    Err(e) => Ahead::Failed(e),
                }
            };
            let at = line.bytes.as_ptr() as usize - chunk.as_ptr() as usize;
            self.items.push((
                Span {
                    at,
                    len: line.bytes.len(),
                    number: line.number,
                    offset: line.offset,
                    terminated: line.terminated,
                },
                item,
            ));
        }
    }

    fn read_line(&mut self, line: &Line<'_>) -> Result<Ahead, Error> {
        let ReadAhead {
            exact,
            reader,
            parser,
            batch,
            pruned,
            ..
        } = self;
        if !*exact && reader.cut(line) {
            let from = pruned.len();
            pruned.extend_from_slice(&reader.pruned);
            let copy = Line {
                bytes: &pruned[from..],
                ..*line
            };
            let (index, kind) = crate::event::parse_event_into(parser, &copy, batch)?;
            return Ok(Ahead::Event {
                index,
                kind,
                pruned: Some((from, pruned.len())),
            });
        }
        let (index, kind) = crate::event::parse_event_into(parser, line, batch)?;
        reader.partial |= kind == EventKind::StreamEvent;
        Ok(Ahead::Event {
            index,
            kind,
            pruned: None,
        })
    }

    /// The lines of `chunk` (the same bytes given to
    /// [`read`](ReadAhead::read)) with what was made of each, in order
    /// (once: the errors are handed over).
    pub fn lines<'a>(
        &'a mut self,
        chunk: &'a [u8],
    ) -> impl Iterator<Item = (Line<'a>, AheadLine<'a>)> {
        let ReadAhead {
            batch,
            pruned: copies,
            items,
            ..
        } = self;
        let (batch, copies) = (&*batch, &*copies);
        items.iter_mut().map(move |(span, item)| {
            let line = Line {
                bytes: chunk.get(span.at..span.at + span.len).unwrap_or_default(),
                number: span.number,
                offset: span.offset,
                terminated: span.terminated,
            };
            let got = match std::mem::replace(item, Ahead::Blank) {
                Ahead::Blank => AheadLine::Blank,
                Ahead::TooLong => AheadLine::TooLong,
                Ahead::Failed(e) => AheadLine::Failed(e),
                Ahead::Event {
                    index,
                    kind,
                    pruned,
                } => {
                    let raw = match pruned {
                        Some((a, b)) => &copies[a..b],
                        None => line.bytes,
                    };
                    AheadLine::Event {
                        event: Event::in_batch(batch, index, raw, kind),
                        pruned: pruned.is_some(),
                    }
                }
            };
            (line, got)
        })
    }
}

/// Where a line of a chunk read ahead is.
#[derive(Clone, Copy, Debug)]
struct Span {
    at: usize,
    len: usize,
    number: u64,
    offset: u64,
    terminated: bool,
}

fn chunk_lines(chunk: &[u8], (offset, first_line): (u64, u64)) -> Lines<'_> {
    if offset == 0 {
        Lines::new(chunk)
    } else {
        Lines::with_start(chunk, first_line, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_type_unknown_and_errors() {
        let input = b"{\"type\":\"system\",\"subtype\":\"init\"}\n\
{\"type\":\"system\",\"subtype\":\"local_command\"}\n\
{\"type\":\"progress\"}\n\
{\"type\":\"result\"}\n\
\t\r\n\
oops\n\
{\"type\":\"user\"}\n\
{\"type\":\"user\"";
        let mut s = Stats::new();
        s.read_slice(0, input);
        let by = s.by_type();
        assert_eq!(by.get("system/init"), Some(&1));
        assert_eq!(by.get("system/local_command"), Some(&1));
        assert_eq!(by.get("progress"), Some(&1));
        assert_eq!(by.get("result"), Some(&1));
        assert_eq!(by.get("user"), Some(&1));
        let unknown = s.unknown();
        assert_eq!(unknown.len(), 2);
        assert_eq!(s.counts.lines, 8);
        assert_eq!(s.counts.blank_lines, 1);
        assert_eq!(s.counts.events, 5);
        assert_eq!(s.counts.errors, 2);
        assert_eq!(s.errors[0].kind, "invalid_json");
        assert_eq!(s.errors[0].line, 6);
        assert_eq!(s.errors[1].kind, "truncated");
        assert_eq!(s.errors[1].line, 8);
        let mut t = Stats::new();
        assert!(t.read_stream(0, &input[..]).is_none());
        assert_eq!(t.by_type(), s.by_type());
        assert_eq!(t.counts, s.counts);
        assert_eq!(t.errors, s.errors);
        assert_eq!(t.bytes, s.bytes);
    }
}
