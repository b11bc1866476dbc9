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
//! reads ahead ([`Sink::reads_ahead`]): this worker reads its chunks, the
//! pool parses them into owned batches ([`cctape::stats::ReadAhead`]), and
//! one folding thread hands their lines to the sink in input order
//! ([`Ctx::read_ahead`]); the result is the one-job result by construction.
//! Sinks that look at each line alone ([`Split::Anywhere`]: filter, fields)
//! read a large plain file through a [`ChunkReader`] on this worker and hand
//! the chunks, cut after an LF, to a pool: each byte is still read once.
//!
//! [`open_input`] is the one place where an input is opened and classified
//! (regular file or stream, compression); [`Ctx::read_input`] then tells its
//! format from its first bytes ([`cctape::sniff`], or `--format`) and reads
//! it the way the format is read: lines of stream-json, JSON elements (an
//! array, pretty objects one after another) as events with their
//! positions, lines of a session transcript as records for the sinks that
//! read them ([`Sink::reads_records`]; the others see the records as
//! events), and an input that holds no events (text, empty) as one finding
//! ([`Sink::not_events`]), read to its end for its last line.

use super::inputs::Input;
use super::progress::{Bar, Progress};
use cctape::elements::{Element, ElementReader};
use cctape::error::{Error, ErrorKind};
use cctape::event::{Event, parse_event};
use cctape::framing::{DEFAULT_MAX_LINE, Line, LineReader, Lines};
use cctape::parse::Parser;
use cctape::report::Shape;
use cctape::scan::{ScanMode, Scanned, Scanner};
use cctape::sniff::{Format, FormatChoice, Reading};
use cctape::source::{Chunk, ChunkReader, EndReport, LfWatch, Source, SourceKind};
use cctape::stats::{AheadLine, ReadAhead};
use cctape::stream::{Counts, EventReader, SliceEvents};
use cctape::transcript::Record;
use std::collections::{BTreeMap, HashMap};
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

/// What a command does with events.
pub trait Sink: Send {
    /// One event (sinks that read with the scanner do not get these).
    fn event(&mut self, piece: &Piece<'_>, ev: &Event<'_>, out: &mut Vec<u8>) {
        let _ = (piece, ev, out);
    }
    /// One per-line error; `line` holds the bad line's bytes when known
    /// (not for a line past the maximum, whose bytes are not kept). A fatal
    /// error (the input broke off) comes here too, unless the input failed
    /// before its first byte (see [`Done::failure`]).
    fn error(&mut self, piece: &Piece<'_>, e: &Error, line: Option<&[u8]>, out: &mut Vec<u8>);
    /// Where this sink can see an input cut into chunks that are merged in
    /// order afterwards.
    fn split(&self) -> Split {
        Split::Anywhere
    }

    /// `Some(mode)` reads lines with the lazy scanner (no tape) and calls
    /// [`scanned`](Sink::scanned) instead of [`event`](Sink::event): for
    /// commands that need only hot fields.
    fn scan_mode(&self) -> Option<ScanMode> {
        None
    }

    /// One line read by the scanner (see [`scan_mode`](Sink::scan_mode)).
    fn scanned(&mut self, piece: &Piece<'_>, s: &Scanned<'_>, out: &mut Vec<u8>) {
        let _ = (piece, s, out);
    }

    /// True: the driver hands each non-blank line to [`line`](Sink::line)
    /// and the sink reads it as it likes.
    fn reads_lines(&self) -> bool {
        false
    }

    /// One non-blank line (see [`reads_lines`](Sink::reads_lines)): `Ok` when
    /// it was an event, the error otherwise (the driver counts it and calls
    /// [`error`](Sink::error)).
    fn line(&mut self, piece: &Piece<'_>, line: &Line<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
        let _ = (piece, line, out);
        Ok(())
    }

    /// `Some(exact)`: a large plain file may be parsed ahead on the pool,
    /// chunk by chunk ([`cctape::stats::ReadAhead`]; `exact`: every line
    /// parsed whole, else as `cctape stats` reads by default), and handed
    /// to [`line_ahead`](Sink::line_ahead) in input order on one thread: a
    /// sink that folds in order ([`Split::Never`]) still uses every core on
    /// one file, and reads each byte once.
    fn reads_ahead(&self) -> Option<bool> {
        None
    }

    /// One non-blank line and the event a [`cctape::stats::ReadAhead`]
    /// made of it (see [`reads_ahead`](Sink::reads_ahead)); the contract
    /// of [`line`](Sink::line). By default the event goes to
    /// [`event`](Sink::event).
    fn line_ahead(
        &mut self,
        piece: &Piece<'_>,
        line: &Line<'_>,
        event: Event<'_>,
        pruned: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let _ = (line, pruned);
        self.event(piece, &event, out);
        Ok(())
    }

    /// True once the sink wants no more of this input (`filter -m`, `-l`):
    /// a stream read stops there, as grep stops reading, and a pipe's
    /// writer gets SIGPIPE. Only asked of inputs read in order on one
    /// worker ([`Split::Never`]).
    fn has_enough(&self) -> bool {
        false
    }

    /// The format the input is read as, before its first line or finding
    /// (every piece of a chunked input is told).
    fn format(&mut self, piece: &Piece<'_>, format: Format) {
        let _ = (piece, format);
    }

    /// True: the lines of a session transcript go to
    /// [`record`](Sink::record), scanned and validated, instead of being
    /// read as events.
    fn reads_records(&self) -> bool {
        false
    }

    /// One transcript record (see [`reads_records`](Sink::reads_records)).
    fn record(&mut self, piece: &Piece<'_>, rec: &Record<'_>, out: &mut Vec<u8>) {
        let _ = (piece, rec, out);
    }

    /// An input that holds no events (text, empty, cut lines): one finding,
    /// once it was read to its end, instead of an error per line.
    fn not_events(&mut self, piece: &Piece<'_>, shape: &Shape, out: &mut Vec<u8>) {
        let _ = (piece, shape, out);
    }
}

/// Where a large input may be cut for reading in parallel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// At any LF: the sink looks at each line alone.
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
    /// How many inputs past the one being printed may be started: bounds
    /// the finished sinks waiting for their turn.
    pub ahead: usize,
    /// How inputs are read: sniffed, or forced (`--format`).
    pub format: FormatChoice,
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
            ahead: 16 * jobs,
            format: FormatChoice::Auto,
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

/// Chunks parsed ahead for a sink that folds in order: small enough that
/// a chunk's tapes are still in the shared cache when the folding thread
/// reads them (on the 256 MB corpora, 256 KiB chunks made two jobs 1.2 to
/// 1.4 times faster than 4 MiB chunks; BENCHMARKS.md).
const AHEAD_CHUNK: usize = 256 << 10;

/// An endless line ends the input after this many times the longest line
/// (the library's rule, shared with the Python package).
pub use cctape::inputs::RUNAWAY_FACTOR;

/// What a worker hands to the printer.
enum Msg<S> {
    /// Output, in order.
    Out(Vec<u8>),
    /// A finished piece (its remaining output first).
    Done(Done<S>, Vec<u8>),
}

/// Run `make()` sinks over `inputs`, calling `consume` with every finished
/// piece in input order after writing its output; failures are reported on
/// stderr here, once, in input order.
pub fn run<S, M, C>(inputs: &[Input], opts: &Opts, make: M, mut consume: C)
where
    S: Sink,
    M: Fn() -> S + Sync,
    C: FnMut(Done<S>),
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
    };
    let mut deliver = |m: Msg<S>| match m {
        Msg::Out(mut b) => write_out(&mut b),
        Msg::Done(done, mut rest) => {
            write_out(&mut rest);
            if done.last {
                progress.file_done();
            }
            // Said once the command has seen the piece: what it says of the
            // lines before the failure (filter's line past the maximum)
            // comes first, in input order, whether the input was read as
            // one stream or in chunks.
            let failure = done.failure.as_ref().map(|e| (done.input, e.to_string()));
            consume(done);
            if let Some((input, e)) = failure {
                note_for(&shown[input], &e);
            }
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
        return;
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
}

/// Open an input once and tell what it is: the one place where inputs are
/// opened and classified. The raw bytes read are counted for the progress
/// line; `report` receives why the input ended early, if it does.
pub fn open_input<'p>(
    input: &Input,
    progress: &'p Progress,
    report: &EndReport,
) -> std::io::Result<Source<'p>> {
    match input {
        Input::Stdin => {
            let raw = CountingReader::new(std::io::stdin().lock(), progress);
            Source::new(raw, SourceKind::Stream, report)
        }
        Input::File(path) => {
            let (raw, kind) = cctape::source::open_file(path, report)?;
            Source::new(CountingReader::new(raw, progress), kind, report)
        }
    }
}

impl<S: Sink, M: Fn() -> S + Sync> Ctx<'_, M> {
    /// Read one input whole, handing its output and its finished pieces to
    /// `emit` in order: its format told from its first bytes, then read the
    /// way that format is read.
    fn read_input(&self, input: &Input, piece: Piece<'_>, emit: &mut dyn FnMut(Msg<S>)) {
        let report = EndReport::new();
        let src = match open_input(input, self.progress, &report) {
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
                emit(Msg::Done(done, Vec::new()));
                return;
            }
        };
        let plain = src.is_plain_file();
        let size = src.kind().size().unwrap_or(0);
        let stream = src.kind().size().is_none();
        let mut raw = src.into_reader();
        let prefix = read_prefix(&mut raw, stream);
        let format = prefix.decide(self.opts.format);
        let reading = format.reading();
        let mut sink = (self.make)();
        sink.format(&piece, format);
        let max_line = self.opts.max_line;
        // An endless line (/dev/zero) ends a line-read input instead of
        // being skipped for ever; elements have their own limit.
        let limit = (max_line as u64).saturating_mul(RUNAWAY_FACTOR);
        let shown_prefix = match reading {
            Reading::StreamElements | Reading::LoggedElements | Reading::NotEvents => {
                prefix.shown()
            }
            _ => Vec::new(),
        };
        let rdr = Prefixed::new(prefix, raw);
        match reading {
            Reading::StreamElements => {
                read_elements(
                    &piece,
                    sink,
                    rdr,
                    &report,
                    max_line,
                    &shown_prefix,
                    format,
                    emit,
                );
            }
            Reading::LoggedElements => {
                let rdr = cctape::elements::LogValues::new(rdr);
                read_elements(
                    &piece,
                    sink,
                    rdr,
                    &report,
                    max_line,
                    &shown_prefix,
                    format,
                    emit,
                );
            }
            Reading::NotEvents => {
                let rdr = LfWatch::new(rdr, limit);
                read_not_events(
                    &piece,
                    sink,
                    rdr,
                    &report,
                    max_line,
                    &shown_prefix,
                    format,
                    emit,
                );
            }
            _ => {
                let split = self.opts.jobs > 1
                    && plain
                    && sink.split() == Split::Anywhere
                    && size >= self.opts.split_at;
                let ahead = self.opts.jobs > 1
                    && plain
                    && size >= self.opts.split_at
                    && matches!(Take::of(&sink, format), Some(Take::Line) | None);
                let rdr = LfWatch::new(rdr, limit);
                if split {
                    self.read_chunked(rdr, &report, &piece, format, emit);
                } else if let (true, Some(exact)) = (ahead, sink.reads_ahead()) {
                    self.read_ahead(sink, exact, rdr, &report, &piece, format, emit);
                } else {
                    read_stream(&piece, sink, rdr, &report, max_line, format, emit);
                }
            }
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

    /// A large plain file for a sink that folds in order and reads ahead
    /// ([`Sink::reads_ahead`]): chunks read here, parsed on the pool (at
    /// most `jobs + 1` read and not yet folded), folded in input order by
    /// the one sink on a thread of its own, so that neither reading nor
    /// folding waits for the other. Counts and errors are the ones
    /// [`read_stream`] gives.
    #[allow(clippy::too_many_arguments)]
    fn read_ahead(
        &self,
        sink: S,
        exact: bool,
        src: impl Read,
        report: &EndReport,
        piece: &Piece<'_>,
        format: Format,
        emit: &mut dyn FnMut(Msg<S>),
    ) {
        let max_line = self.opts.max_line;
        let Some(pool) = self.pool() else {
            read_stream(piece, sink, src, report, max_line, format, emit);
            return;
        };
        let size = self.opts.chunk.unwrap_or(AHEAD_CHUNK);
        let mut chunks = ChunkReader::with_max_line(src, size, max_line);
        let mut failure: Option<Error> = None;
        let (to_fold, parsed) = mpsc::channel::<(usize, Parsed)>();
        let (give_back, taken_back) = mpsc::channel::<(ReadAhead, Vec<u8>)>();
        let (send_out, outs) = mpsc::channel::<Vec<u8>>();
        let (mut sink, mut counts, mut out) = std::thread::scope(|scope| {
            let folder = scope.spawn(move || fold_ahead(sink, piece, parsed, give_back, send_out));
            let mut tokens = self.opts.jobs + 1;
            let mut spare: Vec<(ReadAhead, Vec<u8>)> = Vec::new();
            let mut next = 0usize;
            loop {
                for b in outs.try_iter() {
                    emit(Msg::Out(b));
                }
                for back in taken_back.try_iter() {
                    tokens += 1;
                    spare.push(back);
                }
                // Chunks read but not folded stay within the bound.
                while tokens == 0 {
                    let Ok(back) = taken_back.recv() else { break };
                    tokens += 1;
                    spare.push(back);
                }
                let (ahead, buf) = spare
                    .pop()
                    .unwrap_or_else(|| (ReadAhead::new(exact), Vec::new()));
                let item = match chunks.next_chunk(buf) {
                    None => break,
                    Some(item) => item,
                };
                match item {
                    Ok(chunk) => {
                        let to_fold = to_fold.clone();
                        let k = next;
                        let mut ahead = ahead;
                        pool.spawn(move || {
                            ahead.read(chunk.bytes(), (chunk.offset, chunk.first_line), max_line);
                            let _ = to_fold.send((k, Parsed::Chunk(Box::new((chunk, ahead)))));
                        });
                        tokens -= 1;
                    }
                    // A line past the maximum, in its place in the order.
                    Err(e) if !e.is_fatal() => {
                        let _ = to_fold.send((next, Parsed::TooLong(e)));
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
                next += 1;
            }
            let _ = to_fold.send((next, Parsed::End));
            drop(to_fold);
            let folded = folder.join();
            for b in outs.try_iter() {
                emit(Msg::Out(b));
            }
            folded
        })
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
        if let Some(e) = &failure {
            // As a stream read says it: after every line before it.
            counts.errors += 1;
            if counts.lines > 0 || chunks.bytes_read() > 0 {
                sink.error(piece, e, None, &mut out);
            }
        }
        finish_input(
            piece,
            sink,
            counts,
            chunks.bytes_read(),
            failure,
            report,
            format,
            out,
            emit,
        );
    }

    /// A large plain file for a sink that looks at lines alone: chunks read
    /// here in order, read by the pool, handed out in order.
    fn read_chunked(
        &self,
        src: impl Read,
        report: &EndReport,
        piece: &Piece<'_>,
        format: Format,
        emit: &mut dyn FnMut(Msg<S>),
    ) {
        let make = || {
            let mut sink = (self.make)();
            sink.format(piece, format);
            sink
        };
        let Some(pool) = self.pool() else {
            read_stream(piece, make(), src, report, self.opts.max_line, format, emit);
            return;
        };
        let max_line = self.opts.max_line;
        let size = self.opts.chunk.unwrap_or(CHUNK);
        let mut chunks = ChunkReader::with_max_line(src, size, max_line);
        let in_flight_max = self.opts.jobs + 1;
        let mut failure: Option<Error> = None;
        let mut tail = Counts::default();
        // Bytes in the chunks handed to the pool; the rest of what was read
        // (lines past the maximum, a partial line before an I/O error) is
        // counted on the last piece, so the pieces add up to what a stream
        // read counts.
        let mut in_chunks = 0u64;
        pool.in_place_scope(|scope| {
            let (tx, rx) = mpsc::channel::<(usize, Done<S>, Vec<u8>, Vec<u8>)>();
            let mut pending: BTreeMap<usize, (Done<S>, Vec<u8>)> = BTreeMap::new();
            let mut free: Vec<Vec<u8>> = Vec::new();
            let (mut next, mut emitted, mut in_flight) = (0usize, 0usize, 0usize);
            let mut settle = |pending: &mut BTreeMap<usize, (Done<S>, Vec<u8>)>,
                              emitted: &mut usize| {
                while let Some((done, out)) = pending.remove(emitted) {
                    *emitted += 1;
                    emit(Msg::Done(done, out));
                }
            };
            loop {
                // Hand out what is done before the next (maybe slow) read.
                while let Ok((k, done, out, buf)) = rx.try_recv() {
                    in_flight -= 1;
                    free.push(buf);
                    pending.insert(k, (done, out));
                }
                settle(&mut pending, &mut emitted);
                let buf = free.pop().unwrap_or_default();
                let item = match chunks.next_chunk(buf) {
                    None => break,
                    Some(item) => item,
                };
                match item {
                    Ok(chunk) => {
                        in_chunks += chunk.bytes().len() as u64;
                        let (tx, make, piece) = (tx.clone(), self.make, *piece);
                        let k = next;
                        scope.spawn(move |_| {
                            let mut out = Vec::new();
                            let mut sink = make();
                            sink.format(&piece, format);
                            let done = read_slice(
                                &piece,
                                sink,
                                chunk.bytes(),
                                (chunk.offset, chunk.first_line),
                                max_line,
                                format,
                                &mut out,
                            );
                            let _ = tx.send((k, done, out, chunk.into_buffer()));
                        });
                        in_flight += 1;
                    }
                    Err(e) if !e.is_fatal() => {
                        // A line past the maximum, in its place in the order.
                        let mut sink = make();
                        let mut out = Vec::new();
                        sink.error(piece, &e, None, &mut out);
                        let counts = Counts {
                            lines: 1,
                            errors: 1,
                            ..Counts::default()
                        };
                        pending.insert(next, (piece_done(piece, sink, counts, 0, format), out));
                    }
                    Err(e) => {
                        tail.errors += 1;
                        failure = Some(e);
                    }
                }
                next += 1;
                // Chunks read but not handed out stay within the bound.
                while next - emitted >= in_flight_max && in_flight > 0 {
                    let Ok((k, done, out, buf)) = rx.recv() else {
                        break;
                    };
                    in_flight -= 1;
                    free.push(buf);
                    pending.insert(k, (done, out));
                    settle(&mut pending, &mut emitted);
                }
                settle(&mut pending, &mut emitted);
            }
            while in_flight > 0 {
                let Ok((k, done, out, _)) = rx.recv() else {
                    break;
                };
                in_flight -= 1;
                pending.insert(k, (done, out));
                settle(&mut pending, &mut emitted);
            }
            settle(&mut pending, &mut emitted);
        });
        let mut sink = make();
        let mut out = Vec::new();
        if failure.is_none()
            && let Some(e) = report.take()
        {
            tail.errors += 1;
            failure = Some(ended_early(e, chunks.line_number(), chunks.offset()));
        }
        let unreadable = failure.is_some() && chunks.bytes_read() == 0;
        if let Some(e) = &failure
            && !unreadable
        {
            sink.error(piece, e, None, &mut out);
        }
        let rest = chunks.bytes_read().saturating_sub(in_chunks);
        let mut done = piece_done(piece, sink, tail, rest, format);
        done.last = true;
        done.failure = failure;
        done.unreadable = unreadable;
        emit(Msg::Done(done, out));
    }
}

/// A chunk parsed ahead, a line past the maximum between chunks, or the
/// end of the input, numbered in input order.
enum Parsed {
    /// Boxed: the reader's buffers are kept together, moved as one.
    Chunk(Box<(Chunk, ReadAhead)>),
    TooLong(Error),
    End,
}

/// The folding side of [`Ctx::read_ahead`]: takes the parsed chunks in
/// input order, hands their lines to `sink`, counting them as
/// [`LineTaker`] does, and gives each chunk's reader and buffer back for
/// the next read; output goes out in blocks. Ends at [`Parsed::End`] (or
/// when every sender is gone).
fn fold_ahead<S: Sink>(
    mut sink: S,
    piece: &Piece<'_>,
    parsed: mpsc::Receiver<(usize, Parsed)>,
    give_back: mpsc::Sender<(ReadAhead, Vec<u8>)>,
    send_out: mpsc::Sender<Vec<u8>>,
) -> (S, Counts, Vec<u8>) {
    let mut counts = Counts::default();
    let mut out = Vec::new();
    let mut pending: BTreeMap<usize, Parsed> = BTreeMap::new();
    let mut folded = 0usize;
    'all: for (k, p) in parsed {
        pending.insert(k, p);
        while let Some(p) = pending.remove(&folded) {
            folded += 1;
            match p {
                Parsed::End => break 'all,
                Parsed::TooLong(e) => {
                    counts.lines += 1;
                    counts.errors += 1;
                    sink.error(piece, &e, None, &mut out);
                }
                Parsed::Chunk(parsed) => {
                    let (chunk, mut ahead) = *parsed;
                    take_ahead(
                        &mut sink,
                        piece,
                        &mut ahead,
                        chunk.bytes(),
                        &mut counts,
                        &mut out,
                    );
                    let _ = give_back.send((ahead, chunk.into_buffer()));
                }
            }
            if out.len() >= FLUSH_AT {
                let _ = send_out.send(std::mem::take(&mut out));
            }
        }
    }
    (sink, counts, out)
}

/// One parsed chunk's lines to `sink`, in order.
fn take_ahead<S: Sink>(
    sink: &mut S,
    piece: &Piece<'_>,
    ahead: &mut ReadAhead,
    bytes: &[u8],
    counts: &mut Counts,
    out: &mut Vec<u8>,
) {
    for (line, item) in ahead.lines(bytes) {
        let taken = match item {
            AheadLine::Blank => Taken::Blank,
            AheadLine::TooLong => Taken::TooLong,
            AheadLine::Event { event, pruned } => {
                Taken::Read(sink.line_ahead(piece, &line, event, pruned, out))
            }
            AheadLine::Failed(e) => Taken::Read(Err(e)),
        };
        count_line(sink, piece, counts, &line, taken, out);
    }
}

/// What became of one line handed to a sink.
enum Taken {
    /// Longer than the maximum: not read.
    TooLong,
    /// Spaces, tabs and CRs only.
    Blank,
    /// Read: an event, or why not.
    Read(Result<(), Error>),
}

/// One line counted, and its error (if any) told to the sink with its
/// bytes, as every line reader does.
fn count_line<S: Sink>(
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

fn piece_done<S>(
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
use cctape::inputs::ended_early;
use cctape::inputs::explain_line_error as explain;
// How an input's format is told (its first bytes) and read after it: the
// library's, so that every front end sniffs the same bytes.
use cctape::inputs::{Prefixed, read_prefix};

/// How a [`LineTaker`] hands a line to its sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Take {
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
    fn of<S: Sink>(sink: &S, format: Format) -> Option<Take> {
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
fn read_slice<S: Sink>(
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
fn finish_input<S: Sink>(
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
fn read_stream<S: Sink>(
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
fn read_elements<S: Sink>(
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
fn read_not_events<S: Sink>(
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
struct CountingReader<'p, R> {
    inner: R,
    progress: &'p Progress,
}

impl<'p, R> CountingReader<'p, R> {
    fn new(inner: R, progress: &'p Progress) -> Self {
        CountingReader { inner, progress }
    }
}

impl<R: Read> Read for CountingReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.add_bytes(n as u64);
        Ok(n)
    }
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
