//! Running a command over many inputs: every input opened once and read once
//! from start to end, inputs in parallel, output streamed to stdout in input
//! order with bounded buffers, so that output never depends on `--jobs` and
//! memory never depends on the size of an input or of the output.
//!
//! A command supplies a [`Sink`] that sees every event and error of one
//! piece (a whole input, or one chunk of a large file) and writes any output
//! into a buffer. Workers take inputs in command-line order (never more
//! than [`Opts::ahead`] past the one being printed); each worker streams its
//! input's output to the printing thread through a bounded channel, in
//! blocks of [`FLUSH_AT`] bytes, so a worker ahead of the printer waits
//! instead of buffering, and `| head` stops the work as soon as it closes
//! the pipe. The printer writes each input's blocks in order and hands the
//! finished sink to the command ([`Done`]).
//!
//! Sinks that fold runs ([`Split::Never`]) see one input in order on one
//! thread. A large plain file is still read on several cores when the sink
//! reads ahead ([`Reads::ahead`]): this worker reads its chunks, it
//! and `jobs - 1` helpers on the pool parse them into owned batches
//! ([`cctape::stats::ReadAhead`]), and whichever thread is free hands their
//! lines to the sink in input order, one thread at a time
//! ([`Ctx::read_ahead`]); the result is the one-job result by construction.
//! The runs that begin in a chunk may be folded on the thread that parsed
//! it and taken whole by the sink ([`Apart`]), so the in-order part stays
//! small.
//! Sinks that look at each line alone ([`Split::Anywhere`]: filter, fields)
//! read a large plain file through a
//! [`ChunkReader`](cctape::source::ChunkReader) on this worker, or cut
//! ranges of its map when it is mapped, and hand the chunks, cut after an
//! LF, to a pool: each byte is still read once.
//!
//! [`open_input`] is the one place where an input is opened and classified
//! (regular file or stream, compression); [`Ctx::read_input`] then has the
//! library's reader tell its format from its first bytes
//! ([`cctape::inputs::Sniffed`], or `--format`) and read it the way the
//! format is read ([`cctape::inputs::LineRead`], for a whole input, a chunk
//! and a line read ahead alike): lines of stream-json, JSON elements (an
//! array, pretty objects one after another) as events with their
//! positions, lines of a session transcript as records for the sinks that
//! read them ([`Reads::records`]; the others see the records as
//! events), and an input that holds no events (text, empty) as one finding
//! ([`Item::NotEvents`]), read to its end for its last line. What it hands
//! out becomes a sink's call in one place (`read::Route`).
//!
//! Every per-line error goes through one place ([`read::Out::bad`]): told
//! to the sink, and said on stderr and counted for the exit code as
//! [`super::said`] rules, by what the sink's output does with bad lines
//! ([`Sink::bad_line`]). The printer says the messages in input order with
//! the output ([`run`] returns what went wrong, [`Trouble`]).

mod ahead;
mod large;
mod read;

use super::inputs::Input;
use super::progress::{Bar, Progress};
use super::said::Tally;
pub use super::said::{BadLine, Trouble};
use cctape::error::Error;
use cctape::framing::DEFAULT_MAX_LINE;
pub use cctape::inputs::Item;
use cctape::inputs::Sniffed;
use cctape::json::ScanMode;
use cctape::run::RunFolder;
use cctape::sniff::{Format, FormatChoice, Reading};
use cctape::source::{EndReport, LfWatch, Source, SourceKind};
use cctape::stats::Stats;
use cctape::stream::Counts;
pub use read::CR_LINE_ENDS;
use read::{Out, read_options, read_sniffed, reads_events};
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Which input a piece belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    /// Index of the input in command-line order.
    pub input: usize,
    /// Its name as shown to people.
    pub name: &'a str,
}

/// What a command does with what the library's reader hands out
/// ([`Item`]): five methods, as grep-searcher's `Sink` has a handful.
pub trait Sink: Send {
    /// How this sink reads its inputs; asked once an input's format is
    /// known.
    fn reads(&self) -> Reads {
        Reads::default()
    }

    /// The format the input is read as, before its first line or finding
    /// (every piece of a chunked input is told).
    fn format(&mut self, piece: &Piece<'_>, format: Format) {
        let _ = (piece, format);
    }

    /// One item of the input, in input order: an event, a scanned line
    /// ([`Reads::scan`]), a transcript record ([`Reads::records`]), the
    /// finding of an input that holds no events (text, empty, cut lines;
    /// once, after it was read to its end, instead of an error per line),
    /// or a bad line (`bytes` hold it when known, not for a line past the
    /// maximum; a fatal error, the input broke off, comes here too unless
    /// the input failed before its first byte, see [`Done::failure`]).
    /// Implementations are `#[inline(always)]`, as the routing that calls
    /// them: as calls they cost 0.2% to 0.7% on token-dense streams
    /// (BENCHMARKS.md, "One kind, one event type, one reader").
    fn item(&mut self, piece: &Piece<'_>, item: Item<'_, '_>, out: &mut Vec<u8>);

    /// What this command's output does with a bad line (see
    /// [`super::said`]): by default it is missing from it, an error (said
    /// on stderr, exit 2). Asked before the bad line's
    /// [`item`](Sink::item); `line` holds its bytes when known.
    fn bad_line(&self, e: &Error, line: Option<&[u8]>) -> BadLine {
        let _ = (e, line);
        BadLine::Error
    }

    /// A fold of this sink's that a chunk's last runs can go through on
    /// another thread ([`Apart`]), or `None` when every event must reach
    /// the sink itself (the default).
    fn apart(&self) -> Option<Apart> {
        None
    }

    /// Take a chunk's last runs, folded apart, as if each of its events
    /// had been this sink's [`item`](Sink::item), writing to `out` what
    /// those would have (true); false when that would not give the same
    /// result: the events are then handed out one by one.
    fn adopt(&mut self, piece: &Piece<'_>, part: &mut Apart, out: &mut Vec<u8>) -> bool {
        let _ = (piece, part, out);
        false
    }

    /// True once the sink wants no more of this input (`filter -m`, `-l`):
    /// a stream read stops there, as grep stops reading, and a pipe's
    /// writer gets SIGPIPE. Only asked of inputs read in order on one
    /// worker ([`Split::Never`]).
    fn has_enough(&self) -> bool {
        false
    }
}

/// The runs that begin in a chunk of a large file, folded on whichever
/// thread is free while the chunks before it are folded in order
/// ([`Sink::apart`]); the sink then takes them as a whole
/// ([`Sink::adopt`]) when the library's folder says that gives the
/// one-thread result ([`RunFolder::append`]), so that the fold, the part of
/// a run's reading only one thread can do, runs on every core too.
#[derive(Debug, Default)]
pub struct Apart {
    /// The events, counted by kind.
    pub stats: Stats,
    /// Their runs.
    pub runs: RunFolder,
    /// Each event's line, in order (what a sink does every so many lines
    /// is done for them when it takes the part).
    pub lines: Vec<u64>,
    /// The folder keeps each run's calls.
    record_calls: bool,
    /// The events are counted by kind in [`stats`](Apart::stats) (only
    /// `stats` reads the counts).
    count_kinds: bool,
}

impl Apart {
    /// An empty part whose folder keeps calls as `record_calls` says,
    /// counting its events by kind when `count_kinds` says so.
    pub fn new(record_calls: bool, count_kinds: bool) -> Apart {
        let mut runs = RunFolder::new();
        runs.record_calls(record_calls);
        Apart {
            runs,
            record_calls,
            count_kinds,
            ..Apart::default()
        }
    }

    /// An empty part like this one.
    fn fresh(&self) -> Apart {
        Apart::new(self.record_calls, self.count_kinds)
    }

    /// Fold one event in.
    fn event(&mut self, ev: &cctape::Event<'_>) {
        if self.count_kinds {
            self.stats.record_event(ev);
        }
        self.runs.push(ev);
        self.lines.push(ev.line());
    }

    /// Take this part into the runs of sink `s` (`folder` finds them), as
    /// if its events had reached the sink one by one ([`Sink::adopt`]):
    /// `drain(s, line)` does what the sink does before the event at `line`
    /// (takes the runs long over, which each event's line says), first for
    /// the part's first event, before its runs follow the sink's, then for
    /// each later one. False, with nothing taken, when the part spans
    /// [`IDLE_LINES`](cctape::run::IDLE_LINES) lines or more (a run of its
    /// own could then be over within it) or when the sink's folder says
    /// its runs are not new ones; `undo(s)` then takes back what the first
    /// drain counted, as the events are handed out one by one.
    pub fn adopt_into<S>(
        &mut self,
        s: &mut S,
        folder: fn(&mut S) -> &mut RunFolder,
        mut drain: impl FnMut(&mut S, u64),
        undo: impl FnOnce(&mut S),
    ) -> bool {
        let (Some(&first), Some(&last)) = (self.lines.first(), self.lines.last()) else {
            return false;
        };
        if last.saturating_sub(first) >= cctape::run::IDLE_LINES || !folder(s).accepts(&self.runs) {
            return false;
        }
        // Before its first event, the runs are the sink's alone.
        drain(s, first);
        if !folder(s).append(&mut self.runs) {
            // Not reached (a drain makes no check fail: it only takes runs
            // long over), but should it be: the events are handed out one
            // by one, the first one's count undone (what its drain took is
            // not taken again).
            undo(s);
            return false;
        }
        for &line in self.lines.get(1..).unwrap_or_default() {
            drain(s, line);
        }
        true
    }
}

/// How a sink reads its inputs ([`Sink::reads`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reads {
    /// `Some(mode)`: lines are read by the lazy scanner (no tape), handed
    /// out as [`Item::Scanned`]: for commands that need only hot fields.
    pub scan: Option<ScanMode>,
    /// The lines of a session transcript are handed out as
    /// [`Item::Record`] instead of as events.
    pub records: bool,
    /// Where a large input may be cut for reading in parallel.
    pub split: Split,
    /// A large plain file may be validated and indexed ahead on the pool,
    /// chunk by chunk ([`cctape::stats::ReadAhead`]), and its events handed
    /// to the sink in input order on one thread: a sink that folds in
    /// order ([`Split::Never`]) still uses every core on one file, and
    /// reads each byte once.
    pub ahead: bool,
    /// The sink prints line numbers (`filter -n`, `fields -f @line`): a
    /// chunk read apart on the pool must know its first line's number
    /// before it is read (else only its bad lines say their line, and a
    /// chunk that has some is read again once its number is known).
    pub numbers: bool,
}

impl Reads {
    /// A sink that folds runs: events in input order, transcripts as
    /// records, a large file read ahead.
    pub const FOLDS: Reads = Reads {
        scan: None,
        records: true,
        split: Split::Never,
        ahead: true,
        numbers: true,
    };
}

/// Where a large input may be cut for reading in parallel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Split {
    /// At any LF: the sink looks at each line alone.
    #[default]
    Anywhere,
    /// Never: the sink follows the input in order from its first line (it
    /// folds runs, or follows ids across lines).
    Never,
}

/// A finished piece, handed to the consumer in input order. Its output has
/// already been written.
pub struct Done<S> {
    /// Index of the input.
    pub input: usize,
    /// True for the input's last piece.
    pub last: bool,
    /// The piece's sink.
    pub sink: S,
    /// Lines, blank lines, events, errors of the piece (a fatal error
    /// included).
    pub counts: Counts,
    /// Bytes of the piece (decompressed).
    pub bytes: u64,
    /// Why the input could not be read, or broke off (on the last piece);
    /// already reported on stderr, and counted once in `counts.errors`.
    pub failure: Option<Error>,
    /// True when the input failed before its first byte (it could not be
    /// opened, or its first read failed): the sink has not seen the failure
    /// (nor anything else), so a command that lists errors adds it itself.
    pub unreadable: bool,
    /// The format the input was read as (`None` when it could not be
    /// read).
    pub format: Option<Format>,
}

/// Driver settings.
#[derive(Clone, Copy, Debug)]
pub struct Opts {
    /// Worker threads; 1 runs everything in order on the calling thread.
    pub jobs: usize,
    /// No progress line.
    pub quiet: bool,
    /// Plain files at least this large are cut into chunks when `jobs > 1`
    /// and the sink allows it.
    pub split_at: u64,
    /// The longest line read; longer ones are `line_too_long` errors.
    pub max_line: usize,
    /// The size of the chunks a large file is cut into, when not the
    /// default of its way of reading (`CCTAPE_CHUNK`, for tests).
    pub chunk: Option<usize>,
    /// Say how many runs of a large file were folded apart ([`Apart`])
    /// on stderr (`CCTAPE_TRACE_APART`, for tests).
    pub trace_apart: bool,
    /// How many inputs past the one being printed may be started: bounds
    /// the finished sinks waiting for their turn.
    pub ahead: usize,
    /// How inputs are read: sniffed, or forced (`--format`).
    pub format: FormatChoice,
    /// Bad lines and unreadable inputs are said on stderr (not
    /// `-s`/`--no-messages`).
    pub messages: bool,
    /// Output is handed to stdout after every record (`--line-buffered`);
    /// without it, a stream's (a pipe's, `-F`'s) whenever its reader has
    /// caught up with the writer.
    pub line_buffered: bool,
}

/// More worker threads than this per core is never what helps: clamped.
const JOBS_PER_CORE: usize = 4;

impl Opts {
    /// Settings from the common options: `--jobs` (0 = one per core; more
    /// than [`JOBS_PER_CORE`] per core is clamped with a note), `--quiet`,
    /// `--max-line`.
    pub fn new(common: &super::Common) -> Opts {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = cores * JOBS_PER_CORE;
        let jobs = match common.jobs {
            0 => cores,
            n if n > most => {
                note(&format!(
                    "--jobs {n} is more than helps on {cores} core{}; using {most}",
                    if cores == 1 { "" } else { "s" }
                ));
                most
            }
            n => n,
        };
        Opts {
            jobs,
            quiet: common.quiet,
            // CCTAPE_SPLIT_AT (bytes) lowers the size from which a file is
            // cut, so tests see chunk merges on small inputs.
            split_at: std::env::var("CCTAPE_SPLIT_AT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(32 << 20),
            max_line: common.max_line.unwrap_or(DEFAULT_MAX_LINE),
            // CCTAPE_CHUNK (bytes) makes the chunks small, so tests see
            // many chunk boundaries in small inputs.
            chunk: std::env::var("CCTAPE_CHUNK")
                .ok()
                .and_then(|v| v.parse().ok()),
            trace_apart: std::env::var_os("CCTAPE_TRACE_APART").is_some(),
            ahead: 16 * jobs,
            format: FormatChoice::Auto,
            messages: !common.no_messages,
            line_buffered: false,
        }
    }
}

/// Output is handed to the printer in blocks this large.
pub const FLUSH_AT: usize = 64 << 10;

/// Blocks of output one worker may have waiting for the printer.
const BLOCKS_AHEAD: usize = 4;

/// Chunks of a large plain file read for the pool (at most `jobs + 1` read
/// and not yet printed).
const CHUNK: usize = 4 << 20;

/// Chunks scanned ahead for a sink that folds in order: small enough that
/// a chunk's lines and indexes are still in the shared cache when the folding thread
/// reads them (on the 256 MB corpora, 256 KiB chunks made two jobs 1.2 to
/// 1.4 times faster than 4 MiB chunks; BENCHMARKS.md).
const AHEAD_CHUNK: usize = 256 << 10;

/// Chunks of a mapped file scanned ahead for a sink whose runs are folded
/// apart ([`Apart`]): the thread that scans a chunk folds its runs, so the
/// chunk need not stay in the shared cache, and a larger one holds more
/// whole runs (the lines before its first run are folded in order). On the
/// 64 MiB corpora the in-order fold is 10% to 18% of the instructions of
/// `stats -j2` with 1 MiB chunks, 17% to 31% with 256 KiB (25% to 53%
/// before runs were folded apart); BENCHMARKS.md.
const APART_CHUNK: usize = 1 << 20;

/// An endless line ends the input after this many times the longest line
/// (the library's rule, shared with the Python package).
pub use cctape::inputs::RUNAWAY_FACTOR;

/// What a worker hands to the printer.
enum Msg<'n, S> {
    /// Output and messages, in order.
    Out(Out<'n>),
    /// A finished piece (its remaining output first).
    Done(Done<S>, Out<'n>),
}

/// Run `make()` sinks over `inputs`, calling `consume` with every finished
/// piece in input order after writing its output; failures and bad lines
/// are said on stderr here, once, in input order (unless `-s`). Returns
/// what went wrong, for the exit code ([`Trouble::exit_code`]).
pub fn run<S, M, C>(inputs: &[Input], opts: &Opts, make: M, consume: C) -> Trouble
where
    S: Sink,
    M: Fn() -> S + Sync,
    C: FnMut(Done<S>),
{
    run_into(inputs, opts, make, consume, write_out)
}

/// [`run`], the sinks' output handed to `write` (in input order, in the
/// blocks the sinks wrote, each block whole records; `write` empties the
/// buffer) instead of stdout: for a command whose output goes elsewhere
/// (`otel`'s files and receiver).
pub fn run_into<S, M, C, W>(
    inputs: &[Input],
    opts: &Opts,
    make: M,
    mut consume: C,
    mut write: W,
) -> Trouble
where
    S: Sink,
    M: Fn() -> S + Sync,
    C: FnMut(Done<S>),
    W: FnMut(&mut Vec<u8>),
{
    let progress = Arc::new(Progress::default());
    progress
        .total_files
        .store(inputs.len() as u64, Ordering::Relaxed);
    if Bar::shown(opts.quiet) {
        // Sizes for the progress total only: streams are not sized.
        let total: u64 = inputs.iter().map(Input::size).sum();
        progress.total_bytes.store(total, Ordering::Relaxed);
    }
    let _bar = Bar::start(Arc::clone(&progress), opts.quiet);
    let names: Vec<String> = inputs.iter().map(Input::name).collect();
    let shown: Vec<String> = inputs.iter().map(Input::shown).collect();
    let pool = OnceLock::new();
    let ctx = Ctx {
        opts,
        make: &make,
        progress: &progress,
        pool: &pool,
        shown: &shown,
    };
    let mut trouble = Trouble::default();
    let mut tally = Tally::default();
    let mut deliver = |m: Msg<S>| {
        let (done, mut block) = match m {
            Msg::Out(b) => (None, b),
            Msg::Done(d, b) => (Some(d), b),
        };
        let (bytes, said, unsaid, errors) = block.parts();
        write(bytes);
        say_lines(tally.take(said, unsaid));
        trouble.bad_lines += errors;
        let Some(done) = done else { return };
        if done.last {
            progress.file_done();
        }
        trouble.unreadable |= done.failure.is_some();
        // Said once the command has seen the piece: what it says of the
        // lines before the failure comes first, in input order, whether
        // the input was read as one stream or in chunks.
        let (input, last) = (done.input, done.last);
        let failure = done
            .failure
            .as_ref()
            .filter(|_| opts.messages)
            .map(|e| e.described(Some(&shown[input])).to_string());
        consume(done);
        if let Some(e) = failure {
            note(&e);
        }
        if last && let Some(rest) = tally.end(&shown[input]) {
            note(&rest);
        }
    };
    let threads = opts.jobs.min(inputs.len());
    if threads <= 1 {
        for (i, input) in inputs.iter().enumerate() {
            let piece = Piece {
                input: i,
                name: &names[i],
            };
            ctx.read_input(input, piece, &mut deliver);
        }
        return trouble;
    }
    let sched = Sched {
        state: Mutex::new((0, 0)),
        turn: Condvar::new(),
        ahead: opts.ahead.max(1),
        n: inputs.len(),
    };
    std::thread::scope(|scope| {
        let (reg_tx, reg_rx) = mpsc::channel::<(usize, mpsc::Receiver<Msg<S>>)>();
        for _ in 0..threads {
            let reg_tx = reg_tx.clone();
            let (sched, ctx, names) = (&sched, &ctx, &names);
            scope.spawn(move || {
                while let Some(i) = sched.take() {
                    let (tx, rx) = mpsc::sync_channel(BLOCKS_AHEAD);
                    if reg_tx.send((i, rx)).is_err() {
                        return;
                    }
                    let piece = Piece {
                        input: i,
                        name: &names[i],
                    };
                    ctx.read_input(&inputs[i], piece, &mut |m| {
                        let _ = tx.send(m);
                    });
                }
            });
        }
        drop(reg_tx);
        // Print in input order.
        let mut early: HashMap<usize, mpsc::Receiver<Msg<S>>> = HashMap::new();
        for cur in 0..inputs.len() {
            let rx = loop {
                if let Some(rx) = early.remove(&cur) {
                    break Some(rx);
                }
                match reg_rx.recv() {
                    Ok((i, rx)) => {
                        early.insert(i, rx);
                    }
                    Err(_) => break None,
                }
            };
            let Some(rx) = rx else { break };
            for m in rx {
                deliver(m);
            }
            sched.delivered(cur + 1);
        }
    });
    trouble
}

/// The runs of a stream long over (a result, and no line of them in the
/// last [`cctape::run::IDLE_LINES`]), handed out while the input is read
/// and in the order the runs began ([`RunFolder::drain_idle_in_order`]):
/// for the commands that write a record per run (`verdict`, `tree`,
/// `otel`), so that one input of many runs is read in bounded memory.
/// Looked for every 4,096 events, as `stats` sums its runs.
///
/// [`RunFolder::drain_idle_in_order`]: cctape::run::RunFolder::drain_idle_in_order
#[derive(Debug, Default)]
struct InOrder {
    since: u32,
}

impl InOrder {
    /// Undo the last [`over`](InOrder::over)'s count, when the event it
    /// counted is to be handed out again.
    fn uncount(&mut self) {
        self.since = self.since.checked_sub(1).unwrap_or(4095);
    }

    /// The runs over by the event at `line` (none most of the time).
    fn over(
        &mut self,
        folder: &mut cctape::run::RunFolder,
        line: u64,
    ) -> Vec<cctape::run::RunSummary> {
        self.since += 1;
        if self.since < 4096 {
            return Vec::new();
        }
        self.since = 0;
        folder.drain_idle_in_order(line.saturating_sub(cctape::run::IDLE_LINES))
    }
}

/// What the commands that write a record per run (`verdict`, `tree`,
/// `otel`) keep of an input while it is read: its runs, a transcript's
/// records, its format, and what it is when it holds no events.
#[derive(Default)]
pub struct PerRun {
    /// The input's runs.
    pub folder: cctape::run::RunFolder,
    over: InOrder,
    /// The input's format, once told.
    pub format: Option<Format>,
    /// A transcript's records.
    pub transcript: super::reading::TranscriptPiece,
    /// The bad lines' bytes, to say what an input without events is.
    pub shape: cctape::report::Shape,
    /// What the reader found an input without events to be.
    pub finding: Option<cctape::report::NoEvents>,
}

impl PerRun {
    /// The input `p` is read as `format`.
    pub fn format(&mut self, p: &Piece<'_>, format: Format) {
        self.format = Some(format);
        if format == Format::Transcript {
            self.transcript.begin(p.name);
        }
    }

    /// Fold `item`; the runs long over by an event ([`InOrder`]) go to
    /// `over` first, in the order they began.
    #[inline(always)]
    pub fn item(&mut self, item: Item<'_, '_>, mut over: impl FnMut(cctape::run::RunSummary)) {
        match item {
            Item::Event(ev) => {
                for r in self.over.over(&mut self.folder, ev.line()) {
                    over(r);
                }
                self.folder.push(ev);
            }
            Item::Record(rec) => self.transcript.add(rec),
            Item::Error { error, bytes } => {
                self.folder.push_error(error);
                self.shape.note(bytes);
            }
            Item::NotEvents(shape) => self.finding = Some(shape.describe()),
            _ => {}
        }
    }

    /// A part to fold a chunk's last runs in, apart ([`Sink::apart`]):
    /// for a stream read as lines, with each run's calls kept as
    /// `record_calls` says (this folder's setting).
    pub fn apart(&self, record_calls: bool) -> Option<Apart> {
        let lines = self.format.map(Format::reading) == Some(cctape::sniff::Reading::StreamLines);
        lines.then(|| Apart::new(record_calls, false))
    }

    /// Take a part folded apart ([`Sink::adopt`], [`Apart::adopt_into`]):
    /// the runs over by each of its events go to `over` where
    /// [`item`](PerRun::item) would have sent them, and its runs follow
    /// this folder's.
    pub fn adopt(
        &mut self,
        part: &mut Apart,
        mut over: impl FnMut(cctape::run::RunSummary),
    ) -> bool {
        part.adopt_into(
            self,
            |s| &mut s.folder,
            |s, line| {
                s.over
                    .over(&mut s.folder, line)
                    .into_iter()
                    .for_each(&mut over)
            },
            |s| s.over.uncount(),
        )
    }
}

/// Hands out inputs in order, never more than `ahead` past the one being
/// printed.
struct Sched {
    /// (next input to start, inputs printed)
    state: Mutex<(usize, usize)>,
    turn: Condvar,
    ahead: usize,
    n: usize,
}

impl Sched {
    fn take(&self) -> Option<usize> {
        let mut g = self.state.lock().ok()?;
        while g.0 < self.n && g.0 >= g.1 + self.ahead {
            g = self.turn.wait(g).ok()?;
        }
        (g.0 < self.n).then(|| {
            g.0 += 1;
            g.0 - 1
        })
    }

    fn delivered(&self, n: usize) {
        if let Ok(mut g) = self.state.lock() {
            g.1 = n;
        }
        self.turn.notify_all();
    }
}

/// What every worker shares.
struct Ctx<'a, M> {
    opts: &'a Opts,
    make: &'a M,
    progress: &'a Progress,
    /// Threads for the chunks of large plain files, made on first use.
    pool: &'a OnceLock<Option<rayon::ThreadPool>>,
    /// The inputs' names for people (in messages).
    shown: &'a [String],
}

/// Open an input once and tell what it is: the one place where inputs are
/// opened and classified. The raw bytes read are counted for the progress
/// line; `report` receives why the input ended early, if it does.
pub fn open_input<'p>(
    input: &Input,
    progress: &'p Progress,
    counted: &'p Cell<u64>,
    report: &EndReport,
) -> std::io::Result<Source<'p>> {
    let progress = (progress, counted);
    match input {
        Input::Stdin => {
            let raw = CountingReader::new(std::io::stdin().lock(), progress);
            Source::new(raw, SourceKind::Stream, report)
        }
        Input::File(path) => {
            let (raw, kind, file) = cctape::source::open_file(path, report)?;
            let src = Source::new(CountingReader::new(raw, progress), kind, report)?;
            Ok(match file {
                Some(f) => src.mappable(f),
                None => src,
            })
        }
        Input::Follow(f) => {
            let raw = super::live::reader(f)?;
            Source::new(
                CountingReader::new(raw, progress),
                SourceKind::Stream,
                report,
            )
        }
    }
}

impl<'a, S: Sink, M: Fn() -> S + Sync> Ctx<'a, M> {
    /// An empty block of output and messages for `piece`'s input.
    fn out(&self, piece: &Piece<'_>) -> Out<'a> {
        let name = self.shown.get(piece.input).map_or("", String::as_str);
        Out::new(name, self.opts.messages)
    }

    /// Read one input whole, handing its output and its finished pieces to
    /// `emit` in order: its format told from its first bytes, then read the
    /// way that format is read.
    fn read_input(&self, input: &Input, piece: Piece<'_>, emit: &mut dyn FnMut(Msg<'a, S>)) {
        let report = EndReport::new();
        let counted = Cell::new(0);
        let src = match open_input(input, self.progress, &counted, &report) {
            Ok(s) => s,
            Err(e) => {
                let done = Done {
                    input: piece.input,
                    last: true,
                    sink: (self.make)(),
                    counts: Counts {
                        errors: 1,
                        ..Counts::default()
                    },
                    bytes: 0,
                    failure: Some(Error::open(e)),
                    unreadable: true,
                    format: None,
                };
                emit(Msg::Done(done, self.out(&piece)));
                return;
            }
        };
        let plain = src.is_plain_file();
        let size = src.kind().size().unwrap_or(0);
        let stream = src.kind().size().is_none();
        let mut sniffed = Sniffed::new(src, self.opts.format);
        let format = sniffed.format();
        let mut sink = (self.make)();
        sink.format(&piece, format);
        let reads = sink.reads();
        let ropts = read_options(reads, self.opts.format, self.opts.max_line);
        let mut out = self.out(&piece);
        (out.live, out.each) = (stream, self.opts.line_buffered);
        // A large plain file of lines is read on the pool: in chunks for a
        // sink that looks at each line alone, ahead of the fold for one
        // that folds events in order.
        let large = self.opts.jobs > 1
            && plain
            && size >= self.opts.split_at
            && matches!(
                format.reading(),
                Reading::StreamLines | Reading::TranscriptLines
            );
        let split = large && reads.split == Split::Anywhere;
        let ahead = large && !split && reads.ahead && reads_events(reads, format);
        let pool = if split || ahead { self.pool() } else { None };
        // A plain file's bytes are the bytes read: those a map read (on
        // this thread or read ahead) went past the counting reader, and are
        // counted when the input is done.
        let progress = self.progress;
        // The bytes of the pieces handed out so far.
        let mut done_bytes = 0u64;
        let mut emit_counted = |m: Msg<'a, S>| {
            if let (true, Msg::Done(d, _)) = (plain, &m) {
                let before = done_bytes.max(counted.get());
                done_bytes += d.bytes;
                progress.add_bytes(done_bytes.saturating_sub(before));
            }
            emit(m)
        };
        let Some(pool) = pool else {
            read_sniffed(&piece, sink, sniffed, &ropts, out, &mut emit_counted);
            return;
        };
        // Chunks are ranges of a map when the file is worth mapping.
        let map = sniffed.take_map(&ropts);
        let (rdr, report) = sniffed.into_reader();
        // An endless line (/dev/zero) ends the input instead of being
        // skipped for ever.
        let limit = (self.opts.max_line as u64).saturating_mul(RUNAWAY_FACTOR);
        let rdr = LfWatch::new(rdr, limit);
        let emit = &mut emit_counted;
        if split {
            let rdr: Box<dyn Read + '_> = Box::new(rdr);
            let how = (&ropts, reads.numbers);
            self.read_chunked(pool, (rdr, map), &report, &piece, how, format, emit);
        } else {
            self.read_ahead(pool, sink, (rdr, map), &report, &piece, format, out, emit);
        }
    }

    /// The pool for the chunks of large plain files, made on first use.
    fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.pool
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.opts.jobs)
                    .thread_name(|i| format!("cctape-chunk-{i}"))
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

/// Write a buffer to stdout and clear it. A closed pipe ends the process
/// quietly with exit code 0, as ripgrep does (`| head`); any other write
/// error is reported and ends it with exit code 2.
pub fn write_out(out: &mut Vec<u8>) {
    if out.is_empty() {
        return;
    }
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Err(e) = lock.write_all(out).and_then(|_| lock.flush()) {
        write_failed(&e);
    }
    out.clear();
}

/// End the process for a failed write to stdout: quietly (exit 0) for a
/// closed pipe, with a message and exit code 2 otherwise.
pub fn write_failed(e: &std::io::Error) -> ! {
    super::progress::clear();
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    note(&format!("writing output: {e}"));
    std::process::exit(2);
}

/// Messages, one a line, each after `cctape: `, in one write.
fn say_lines(lines: &[u8]) {
    if lines.is_empty() {
        return;
    }
    let mut all = Vec::with_capacity(lines.len() + lines.len() / 8);
    for l in lines.split_inclusive(|&b| b == b'\n') {
        all.extend_from_slice(b"cctape: ");
        all.extend_from_slice(l);
    }
    super::progress::suspend(|| {
        let _ = std::io::stderr().lock().write_all(&all);
    });
}

/// A message on stderr, `cctape: ` first; a stderr that cannot be written
/// to is ignored (there is nowhere left to say so).
pub fn note(msg: &str) {
    // On a line of its own: the progress line is cleared first.
    super::progress::suspend(|| {
        let _ = writeln!(std::io::stderr().lock(), "cctape: {msg}");
    });
}

/// A message about an input, its name escaped for a terminal.
pub fn note_for(shown_name: &str, e: &dyn std::fmt::Display) {
    note(&format!("{shown_name}: {e}"));
}

/// A reader that reports the bytes it reads to the progress counters.
/// Also counts them for its input, so that the bytes of a mapped file,
/// which do not pass through it, are added when the input ends.
struct CountingReader<'p, R> {
    inner: R,
    progress: &'p Progress,
    counted: &'p Cell<u64>,
}

impl<'p, R> CountingReader<'p, R> {
    fn new(inner: R, (progress, counted): (&'p Progress, &'p Cell<u64>)) -> Self {
        CountingReader {
            inner,
            progress,
            counted,
        }
    }
}

impl<R: Read> Read for CountingReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.add_bytes(n as u64);
        self.counted.set(self.counted.get() + n as u64);
        Ok(n)
    }
}
