//! Stats: counting what a set of streams holds, by kind, with the first
//! errors and their positions.
//!
//! [`Stats`] is what `cctape stats` prints. Counting an event costs an array
//! increment for the kinds with fixed names; kinds whose name comes from the
//! line (unknown types, unknown system or result subtypes) go to a map keyed
//! by `"type/subtype"`, which allocates only the first time a name is seen.

use crate::error::Error;
use crate::event::{Event, EventKind};
use crate::framing::{Line, Lines};
use crate::json::{IndexedLines, Scanner};
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
    pub(crate) fn shrink(&mut self) {
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
    /// Add the events `o` counted by kind (not its lines, bytes or errors):
    /// for events of one input counted apart, as a chunk folded on another
    /// thread is.
    pub fn add_events(&mut self, o: &Stats) {
        for (a, b) in self.by_kind.iter_mut().zip(o.by_kind.iter()) {
            *a += b;
        }
        for (k, v) in &o.named {
            *self.named.entry(k.clone()).or_default() += v;
        }
    }

    pub(crate) fn merge(&mut self, o: &Stats, file_base: usize) {
        self.files += o.files;
        self.bytes += o.bytes;
        self.counts.add(&o.counts);
        self.add_events(o);
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

/// What [`ReadAhead`] made of one line.
#[derive(Debug)]
enum Ahead {
    Blank,
    TooLong,
    Event { index: usize, kind: EventKind },
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
    /// An event, read through the index its scan wrote.
    Event(Event<'a>),
    /// Not an event: why.
    Failed(Error),
}

/// The lines of one chunk of an input, validated and indexed on any thread
/// into owned buffers (each line's structural index appended to one
/// [`IndexedLines`] batch) that another thread then reads in order
/// ([`lines`](ReadAhead::lines)). This is how `cctape stats` uses two cores
/// on one file without reading a byte twice: a pool scans the chunks
/// ahead, one thread folds the runs in input order, so the result is the
/// one-thread result by construction. Every buffer is kept from chunk to
/// chunk.
///
/// The [`Scanner`] is the caller's, one per thread rather than one per
/// batch: a scanner's buffers grow with the lines it has scanned, a
/// batch's only with what its chunk holds. With a scanner in each of the
/// batches read ahead (and index slots for every 16 bytes of a line),
/// `stats -j2` over 256 MiB of archive touched 20 MiB more than one job.
///
/// ```
/// use cctape::json::Scanner;
/// use cctape::stats::{AheadLine, ReadAhead};
///
/// let chunk = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\nnot json\n";
/// let (mut scanner, mut ahead) = (Scanner::new(), ReadAhead::new());
/// ahead.read(&mut scanner, chunk, (0, 1), 1 << 20);
/// let mut ahead = std::thread::spawn(move || ahead).join().unwrap();
/// let mut seen = Vec::new();
/// for (line, item) in ahead.lines(chunk) {
///     match item {
///         AheadLine::Event(ev) => seen.push(format!("{} {}", line.number, ev.raw_type())),
///         AheadLine::Blank => seen.push(format!("{} blank", line.number)),
///         AheadLine::Failed(e) => seen.push(format!("{} {:?}", line.number, e.kind())),
///         AheadLine::TooLong => seen.push(format!("{} too long", line.number)),
///     }
/// }
/// assert_eq!(seen, ["1 system", "2 blank", "3 InvalidJson"]);
/// ```
#[derive(Debug, Default)]
pub struct ReadAhead {
    batch: IndexedLines,
    /// Each line's place in the chunk (so that the folding thread does not
    /// look for the line ends again) and what was made of it.
    items: Vec<(Span, Ahead)>,
    /// Of those lines, the ones that end with an LF.
    lf_lines: u64,
}

impl ReadAhead {
    /// A reader with empty buffers.
    pub fn new() -> ReadAhead {
        ReadAhead::default()
    }

    /// Read the lines of `chunk` with `scanner`; the chunk starts at byte
    /// `offset` of its input on line `first_line` (offset 0 skips a BOM as
    /// an input's start does); lines longer than `max_line` are not read.
    /// What an earlier chunk held is forgotten.
    pub fn read(
        &mut self,
        scanner: &mut Scanner,
        chunk: &[u8],
        (offset, first_line): (u64, u64),
        max_line: usize,
    ) {
        self.batch.clear();
        self.items.clear();
        self.lf_lines = 0;
        for line in chunk_lines(chunk, (offset, first_line)) {
            self.lf_lines += u64::from(line.terminated);
            let item = if line.bytes.len() > max_line {
                Ahead::TooLong
            } else if line.is_blank() {
                Ahead::Blank
            } else {
                match crate::event::parse_event_into(scanner, &line, &mut self.batch) {
                    Ok((index, kind)) => Ahead::Event { index, kind },
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

    /// The lines read that end with an LF: what a reader that does not
    /// count a chunk's lines ([`crate::source::ChunkReader::without_line_count`])
    /// adds to the number of the next chunk's first line.
    pub fn lf_lines(&self) -> u64 {
        self.lf_lines
    }

    /// Number the lines read `by` further on (their errors too): for a
    /// chunk read before the count of the lines before it was known.
    pub fn shift_lines(&mut self, by: u64) {
        if by == 0 {
            return;
        }
        for (span, item) in &mut self.items {
            span.number += by;
            if let Ahead::Failed(e) = item {
                e.shift_line(by);
            }
        }
    }

    /// The lines of `chunk` (the same bytes given to
    /// [`read`](ReadAhead::read)) with what was made of each, in order
    /// (once: the errors are handed over).
    pub fn lines<'a>(
        &'a mut self,
        chunk: &'a [u8],
    ) -> impl Iterator<Item = (Line<'a>, AheadLine<'a>)> {
        self.lines_in(chunk, 0..self.items.len())
    }

    /// The lines read.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when no line was read.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Where a run may begin that can be folded apart from what came
    /// before it: the first `system/init` or `system/hook_started` event of
    /// `chunk` (what a run's first lines are) whose `session_id` is not the
    /// one of the event before it, when every line from it to the chunk's
    /// end is an event. Whether that run is indeed a new one is the
    /// folder's to say ([`RunFolder::append`](crate::run::RunFolder::append)).
    pub fn run_start(&self, chunk: &[u8]) -> Option<usize> {
        let session = |i: usize| match self.items.get(i)? {
            (span, Ahead::Event { index, kind }) => {
                let ev = Event::in_batch(&self.batch, *index, span.line(chunk), *kind);
                Some(ev.get("session_id")?.as_raw_str()?.raw())
            }
            _ => None,
        };
        let mut from = None;
        for (i, (_, a)) in self.items.iter().enumerate() {
            match a {
                Ahead::Event {
                    kind: EventKind::SystemInit | EventKind::SystemHookStarted,
                    ..
                } if from.is_none() && i > 0 => {
                    if let (Some(s), Some(before)) = (session(i), session(i - 1))
                        && s != before
                    {
                        from = Some(i);
                    }
                }
                Ahead::Event { .. } => {}
                _ => from = None,
            }
        }
        from
    }

    /// The events of lines `range` of `chunk`, leaving them to be handed
    /// out again ([`lines_in`](ReadAhead::lines_in)); lines that are not
    /// events are skipped.
    pub fn events_in<'a>(
        &'a self,
        chunk: &'a [u8],
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = Event<'a>> {
        let batch = &self.batch;
        self.items.get(range).unwrap_or_default().iter().filter_map(
            move |(span, item)| match item {
                Ahead::Event { index, kind } => {
                    Some(Event::in_batch(batch, *index, span.line(chunk), *kind))
                }
                _ => None,
            },
        )
    }

    /// Lines `range` of `chunk`, as [`lines`](ReadAhead::lines) hands them
    /// out (once each).
    pub fn lines_in<'a>(
        &'a mut self,
        chunk: &'a [u8],
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (Line<'a>, AheadLine<'a>)> {
        let ReadAhead { batch, items, .. } = self;
        let batch = &*batch;
        let items = items.get_mut(range).unwrap_or_default();
        items.iter_mut().map(move |(span, item)| {
            let line = span.line(chunk);
            let got = match std::mem::replace(item, Ahead::Blank) {
                Ahead::Blank => AheadLine::Blank,
                Ahead::TooLong => AheadLine::TooLong,
                Ahead::Failed(e) => AheadLine::Failed(e),
                Ahead::Event { index, kind } => {
                    AheadLine::Event(Event::in_batch(batch, index, line, kind))
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

impl Span {
    fn line<'a>(&self, chunk: &'a [u8]) -> Line<'a> {
        Line {
            bytes: chunk.get(self.at..self.at + self.len).unwrap_or_default(),
            number: self.number,
            offset: self.offset,
            terminated: self.terminated,
        }
    }
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

    /// What the pool and the Python bindings rely on: readers and batches
    /// move between threads, a run folder is also shared (the unescape
    /// arena of a scanner is neither, so scanners are `Send` only).
    #[test]
    fn readers_move_and_folders_share_across_threads() {
        fn send<T: Send>() {}
        fn send_sync<T: Send + Sync>() {}
        send::<Scanner>();
        send::<IndexedLines>();
        send::<ReadAhead>();
        send_sync::<crate::run::RunFolder>();
        send_sync::<Stats>();
    }

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
