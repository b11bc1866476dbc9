//! Running a command over many inputs: in parallel across files (largest
//! first) and within one large file (cut at LF boundaries), with results
//! delivered in input order so that output never depends on `--jobs`.
//!
//! A command supplies a [`Sink`] that sees every event and error of one
//! piece (a whole input, or one chunk of a large file) and writes any output
//! into a buffer; the driver hands finished pieces, in order, to the
//! command's consumer, which merges sinks and prints buffers.

use super::inputs::Input;
use super::progress::{Bar, Progress};
use cctape::error::Error;
use cctape::event::Event;
use cctape::framing::{Line, LineReader, Lines};
use cctape::parse::Parser;
use cctape::scan::{ScanMode, Scanned, Scanner};
use cctape::source::{Compression, FileBytes};
use cctape::stream::{Counts, EventReader, SliceEvents};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::mpsc;

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
    /// One per-line error; `line` holds the bad line's bytes when known.
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
}

/// Hand one line to a sink that reads lines itself or with the scanner:
/// blank lines are counted and skipped, events and errors counted, errors
/// passed to the sink with the line's bytes.
fn take_line<S: Sink>(
    sink: &mut S,
    scanner: &mut Scanner,
    mode: Option<ScanMode>,
    piece: &Piece<'_>,
    line: &Line<'_>,
    out: &mut Vec<u8>,
    counts: &mut Counts,
) {
    if line.bytes.len() > cctape::framing::DEFAULT_MAX_LINE {
        // The same limit as the reader's, so a mapped file and a stream agree.
        counts.errors += 1;
        sink.error(piece, &cctape::stream::line_too_long(line), None, out);
        return;
    }
    if line.is_blank() {
        counts.blank_lines += 1;
        return;
    }
    let read = match mode {
        Some(mode) => scanner
            .scan_with(line, mode)
            .map(|s| sink.scanned(piece, &s, out)),
        None => sink.line(piece, line, out),
    };
    match read {
        Ok(()) => counts.events += 1,
        Err(e) => {
            counts.errors += 1;
            sink.error(piece, &e, Some(line.bytes), out);
        }
    }
}

/// Where a large input may be cut for reading in parallel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// At any LF: the sink looks at each line alone.
    Anywhere,
    /// Only where one run ends and another begins (a line whose session_id
    /// differs from the one before it): the sink folds runs. A session that
    /// shows up again in a later chunk is the consumer's to detect (see
    /// [`Done::chunk`]).
    RunBoundaries,
    /// Never: the sink follows the input in order from its first line.
    Never,
}

/// A finished piece, handed to the consumer in input order.
pub struct Done<S> {
    /// Index of the input.
    pub input: usize,
    /// True for the input's last piece.
    pub last: bool,
    /// Which chunk of the input this is (0 when read whole).
    pub chunk: usize,
    /// The piece's sink.
    pub sink: S,
    /// Output not yet written.
    pub out: Vec<u8>,
    /// Lines, blank lines, events, errors of the piece.
    pub counts: Counts,
    /// Bytes of the piece (decompressed).
    pub bytes: u64,
    /// Why the input could not be read, if it could not (or broke off).
    pub failure: Option<String>,
}

/// Driver settings.
#[derive(Clone, Copy, Debug)]
pub struct Opts {
    /// Worker threads; 1 runs everything on the calling thread.
    pub jobs: usize,
    /// No progress line.
    pub quiet: bool,
    /// Files at least this large are cut into chunks when `jobs > 1`.
    pub split_at: u64,
}

impl Opts {
    /// Settings from `--jobs` (0 = one per core) and `--quiet`.
    pub fn new(jobs: usize, quiet: bool) -> Opts {
        let jobs = if jobs == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            jobs
        };
        Opts {
            jobs,
            quiet,
            // CCTAPE_SPLIT_AT (bytes) lowers the size from which a file is
            // cut, so tests see chunk merges on small inputs.
            split_at: std::env::var("CCTAPE_SPLIT_AT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(32 << 20),
        }
    }
}

/// Output is flushed to stdout in pieces this large when running in order.
const FLUSH_AT: usize = 64 << 10;

/// Run `make()` sinks over `inputs`, calling `consume` with every finished
/// piece in input order. With one job, or one input that is a stream,
/// everything runs on this thread and output is flushed as it grows.
pub fn run<S, M, C>(inputs: &[Input], opts: &Opts, make: M, mut consume: C)
where
    S: Sink,
    M: Fn() -> S + Sync,
    C: FnMut(Done<S>),
{
    let progress = Arc::new(Progress::default());
    progress
        .total_files
        .store(inputs.len() as u64, std::sync::atomic::Ordering::Relaxed);
    // One stat per input: for the progress total and the largest-first order.
    let sizes: Vec<u64> = inputs.iter().map(Input::size).collect();
    progress
        .total_bytes
        .store(sizes.iter().sum(), std::sync::atomic::Ordering::Relaxed);
    let _bar = Bar::start(Arc::clone(&progress), opts.quiet);
    let names: Vec<String> = inputs.iter().map(Input::name).collect();
    if opts.jobs <= 1 || (inputs.len() == 1 && inputs[0] == Input::Stdin) {
        for (i, input) in inputs.iter().enumerate() {
            let piece = Piece {
                input: i,
                name: &names[i],
            };
            let done = read_whole(input, &piece, make(), &progress, true);
            progress.file_done();
            consume(done);
        }
        return;
    }
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
    {
        Ok(p) => p,
        Err(_) => {
            let seq = Opts { jobs: 1, ..*opts };
            return run(inputs, &seq, make, consume);
        }
    };
    let (tx, rx) = mpsc::channel::<(usize, usize, usize, Done<S>)>();
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    // Largest first keeps one big file from finishing last alone.
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(a.cmp(&b)));
    std::thread::scope(|scope| {
        let make = &make;
        let names = &names;
        let progress = &progress;
        scope.spawn(move || {
            pool.scope(|s| {
                for &i in &order {
                    let tx = tx.clone();
                    s.spawn(move |s| {
                        let piece = Piece {
                            input: i,
                            name: &names[i],
                        };
                        read_input_parallel(&inputs[i], piece, make, progress, opts, s, tx);
                    });
                }
            });
            drop(tx);
        });
        // Deliver in (input, chunk) order.
        let mut pending: BTreeMap<(usize, usize), (usize, Done<S>)> = BTreeMap::new();
        let mut next = (0usize, 0usize);
        for (input, chunk, chunks, done) in rx {
            pending.insert((input, chunk), (chunks, done));
            while let Some((chunks, done)) = pending.remove(&next) {
                next = if next.1 + 1 >= chunks {
                    progress.file_done();
                    (next.0 + 1, 0)
                } else {
                    (next.0, next.1 + 1)
                };
                consume(done);
            }
        }
    });
}

fn read_input_parallel<'s, S: Sink + 's, M: Fn() -> S + Sync>(
    input: &'s Input,
    piece: Piece<'s>,
    make: &'s M,
    progress: &'s Progress,
    opts: &Opts,
    scope: &rayon::Scope<'s>,
    tx: mpsc::Sender<(usize, usize, usize, Done<S>)>,
) {
    let sink = make();
    let Input::File(path) = input else {
        let done = read_whole(input, &piece, sink, progress, false);
        let _ = tx.send((piece.input, 0, 1, done));
        return;
    };
    let bytes = match FileBytes::open(path) {
        Ok(b) => b,
        Err(e) => {
            let _ = tx.send((piece.input, 0, 1, failed(&piece, sink, e.to_string())));
            return;
        }
    };
    let compression = Compression::detect(&bytes[..bytes.len().min(4)]);
    if compression != Compression::None {
        let done = read_stream(
            &piece,
            sink,
            compression,
            CountingReader::new(&bytes[..], progress),
            false,
        );
        let _ = tx.send((piece.input, 0, 1, done));
        return;
    }
    let split = sink.split();
    if split == Split::Never || (bytes.len() as u64) < opts.split_at {
        let done = read_slice(&piece, sink, &bytes, 0, 1, 0, progress);
        let _ = tx.send((piece.input, 0, 1, done));
        return;
    }
    // Cut at LF boundaries into about four chunks per worker.
    let bytes = Arc::new(bytes);
    let cuts = match split {
        Split::RunBoundaries => run_bounds(&bytes, opts.jobs * 4),
        _ => chunk_bounds(&bytes, opts.jobs * 4),
    };
    let chunks = cuts.len();
    let mut first_line = 1u64;
    let mut starts = Vec::with_capacity(chunks);
    let mut prev = 0usize;
    for &(start, _) in &cuts {
        first_line += memchr::memchr_iter(b'\n', &bytes[prev..start]).count() as u64;
        starts.push(first_line);
        prev = start;
    }
    let mut sink = Some(sink);
    for (k, (&(start, end), &line)) in cuts.iter().zip(&starts).enumerate() {
        let bytes = Arc::clone(&bytes);
        let tx = tx.clone();
        let sink = sink.take().unwrap_or_else(make);
        scope.spawn(move |_| {
            let done = read_slice(
                &piece,
                sink,
                &bytes[start..end],
                start as u64,
                line,
                k,
                progress,
            );
            let _ = tx.send((
                piece.input,
                k,
                chunks,
                Done {
                    last: k + 1 == chunks,
                    chunk: k,
                    ..done
                },
            ));
        });
    }
}

/// How far past a cut target the search for a run boundary goes.
const RUN_SEARCH: usize = 16 << 20;

/// The session_id of a line, read without validating the line (the chunk's
/// reader validates it later).
fn session_of<'a>(scanner: &'a mut Scanner, line: &cctape::framing::Line<'a>) -> Option<&'a [u8]> {
    let s = scanner.scan_trusting(line).ok()?;
    s.session_id().map(|r| r.raw())
}

/// Byte ranges of about `n` chunks of `bytes`, each starting at a line whose
/// session_id differs from the last session_id before it, so that no run
/// (in the run layer's sense: lines without a session_id belong to the run
/// before them) spans two chunks. Targets with no such line within
/// [`RUN_SEARCH`] bytes are dropped; a single-run input stays whole.
pub fn run_bounds(bytes: &[u8], n: usize) -> Vec<(usize, usize)> {
    let len = bytes.len();
    let n = n.max(1);
    let mut scanner = Scanner::new();
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = (len / n * k).max(start);
        if target >= len {
            break;
        }
        let Some(lf) = memchr::memchr(b'\n', &bytes[target..]) else {
            break;
        };
        let from = target + lf + 1;
        // The session in force before `from`: the last line that has one.
        let mut cur: Option<Vec<u8>> = None;
        let mut end = from.saturating_sub(1);
        for _ in 0..1000 {
            if end <= start {
                break;
            }
            let line_start =
                memchr::memrchr(b'\n', &bytes[start..end]).map_or(start, |i| start + i + 1);
            let line = cctape::framing::Line {
                bytes: &bytes[line_start..end],
                number: 0,
                offset: 0,
                terminated: true,
            };
            if let Some(sid) = session_of(&mut scanner, &line) {
                cur = Some(sid.to_vec());
                break;
            }
            end = line_start.saturating_sub(1);
        }
        let Some(mut cur) = cur else { continue };
        let limit = (from + RUN_SEARCH).min(len);
        let mut cut = None;
        for line in Lines::with_start(&bytes[from..limit], 1, 0) {
            if !line.terminated {
                break;
            }
            let at = from + line.offset as usize;
            let line = cctape::framing::Line {
                bytes: line.bytes,
                ..line
            };
            if let Some(sid) = session_of(&mut scanner, &line) {
                if sid != cur.as_slice() {
                    cut = Some(at);
                    break;
                }
                sid.clone_into(&mut cur);
            }
        }
        if let Some(c) = cut
            && c > start
        {
            out.push((start, c));
            start = c;
        }
    }
    out.push((start, len));
    out
}

/// Byte ranges of about `n` chunks of `bytes`, each ending just after an LF
/// (the last at the end).
pub fn chunk_bounds(bytes: &[u8], n: usize) -> Vec<(usize, usize)> {
    let len = bytes.len();
    let n = n.max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = (len / n * k).max(start);
        if target >= len {
            break;
        }
        let Some(lf) = memchr::memchr(b'\n', &bytes[target..]) else {
            break;
        };
        let end = target + lf + 1;
        if end > start {
            out.push((start, end));
            start = end;
        }
    }
    if start < len || out.is_empty() {
        out.push((start, len));
    }
    out
}

fn failed<S>(piece: &Piece<'_>, sink: S, why: String) -> Done<S> {
    Done {
        input: piece.input,
        last: true,
        chunk: 0,
        sink,
        out: Vec::new(),
        counts: Counts::default(),
        bytes: 0,
        failure: Some(why),
    }
}

fn read_whole<S: Sink>(
    input: &Input,
    piece: &Piece<'_>,
    sink: S,
    progress: &Progress,
    flush: bool,
) -> Done<S> {
    match input {
        Input::Stdin => {
            let stdin = std::io::stdin();
            let lock = stdin.lock();
            match cctape::source::decompressing(CountingReader::new(lock, progress)) {
                // `decompressing` has already put the decoder in place.
                Ok((_, r)) => read_stream(piece, sink, Compression::None, r, flush),
                Err(e) => failed(piece, sink, e.to_string()),
            }
        }
        Input::File(path) => {
            let bytes = match FileBytes::open(path) {
                Ok(b) => b,
                Err(e) => return failed(piece, sink, e.to_string()),
            };
            let c = Compression::detect(&bytes[..bytes.len().min(4)]);
            if c == Compression::None {
                let mut done = read_slice(piece, sink, &bytes, 0, 1, 0, progress);
                if flush {
                    write_out(&mut done.out);
                }
                done
            } else {
                read_stream(
                    piece,
                    sink,
                    c,
                    CountingReader::new(&bytes[..], progress),
                    flush,
                )
            }
        }
    }
}

fn read_slice<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    bytes: &[u8],
    offset: u64,
    first_line: u64,
    chunk: usize,
    progress: &Progress,
) -> Done<S> {
    let lines = if chunk == 0 && offset == 0 {
        Lines::new(bytes)
    } else {
        Lines::with_start(bytes, first_line, offset)
    };
    if sink.scan_mode().is_some() || sink.reads_lines() {
        return scan_slice(piece, sink, lines, bytes.len() as u64, progress);
    }
    let mut events = SliceEvents::with_parser(lines, Parser::new());
    let mut out = Vec::new();
    let mut reported = 0u64;
    loop {
        let e = match events.next_event() {
            None => break,
            Some(Ok(ev)) => {
                sink.event(piece, &ev, &mut out);
                let at = ev.offset() - offset;
                if at - reported > (16 << 20) {
                    progress.add_bytes(at - reported);
                    reported = at;
                }
                continue;
            }
            Some(Err(e)) => e,
        };
        let line = events.last_line().map(|l| l.bytes);
        sink.error(piece, &e, line, &mut out);
    }
    progress.add_bytes(bytes.len() as u64 - reported);
    Done {
        input: piece.input,
        last: true,
        chunk: 0,
        sink,
        out,
        counts: events.counts(),
        bytes: bytes.len() as u64,
        failure: None,
    }
}

fn read_stream<S: Sink, R: Read>(
    piece: &Piece<'_>,
    mut sink: S,
    compression: Compression,
    rdr: R,
    flush: bool,
) -> Done<S> {
    let rdr: Box<dyn Read + '_> = match compression {
        Compression::None => Box::new(rdr),
        c => match c.decoder(rdr) {
            Ok(r) => r,
            Err(e) => return failed(piece, sink, e.to_string()),
        },
    };
    if sink.scan_mode().is_some() || sink.reads_lines() {
        return scan_stream(piece, sink, rdr, flush);
    }
    let mut events = EventReader::new(rdr);
    let mut out = Vec::new();
    let mut failure = None;
    loop {
        let err = match events.next_event() {
            None => break,
            Some(Ok(ev)) => {
                sink.event(piece, &ev, &mut out);
                None
            }
            Some(Err(e)) => Some(e),
        };
        if let Some(e) = err {
            if e.is_fatal() {
                failure = Some(e.to_string());
            }
            let line = events.last_line().map(|l| l.bytes);
            sink.error(piece, &e, line, &mut out);
        }
        if flush && out.len() >= FLUSH_AT {
            write_out(&mut out);
        }
    }
    if flush {
        write_out(&mut out);
    }
    Done {
        input: piece.input,
        last: true,
        chunk: 0,
        sink,
        out,
        counts: events.counts(),
        bytes: events.bytes_read(),
        failure,
    }
}

fn scan_slice<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    lines: Lines<'_>,
    len: u64,
    progress: &Progress,
) -> Done<S> {
    let mode = sink.scan_mode();
    let mut scanner = Scanner::new();
    let mut counts = Counts::default();
    let mut out = Vec::new();
    for line in lines {
        counts.lines += 1;
        take_line(
            &mut sink,
            &mut scanner,
            mode,
            piece,
            &line,
            &mut out,
            &mut counts,
        );
    }
    progress.add_bytes(len);
    Done {
        input: piece.input,
        last: true,
        chunk: 0,
        sink,
        out,
        counts,
        bytes: len,
        failure: None,
    }
}

fn scan_stream<S: Sink>(
    piece: &Piece<'_>,
    mut sink: S,
    rdr: Box<dyn Read + '_>,
    flush: bool,
) -> Done<S> {
    let mode = sink.scan_mode();
    let mut scanner = Scanner::new();
    let mut lines = LineReader::new(rdr);
    let mut counts = Counts::default();
    let mut out = Vec::new();
    let mut failure = None;
    loop {
        let span = match lines.next_span() {
            None => break,
            Some(Ok(span)) => span,
            Some(Err(e)) => {
                if e.is_fatal() {
                    failure = Some(e.to_string());
                } else {
                    counts.lines += 1;
                }
                counts.errors += 1;
                sink.error(piece, &e, None, &mut out);
                continue;
            }
        };
        counts.lines += 1;
        let line = lines.line(span);
        take_line(
            &mut sink,
            &mut scanner,
            mode,
            piece,
            &line,
            &mut out,
            &mut counts,
        );
        if flush && out.len() >= FLUSH_AT {
            write_out(&mut out);
        }
    }
    if flush {
        write_out(&mut out);
    }
    Done {
        input: piece.input,
        last: true,
        chunk: 0,
        sink,
        out,
        counts,
        bytes: lines.bytes_read(),
        failure,
    }
}

/// Write a buffer to stdout and clear it. A closed pipe ends the process
/// quietly, as `head` expects.
pub fn write_out(out: &mut Vec<u8>) {
    if out.is_empty() {
        return;
    }
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Err(e) = lock.write_all(out).and_then(|_| lock.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("cctape: writing output: {e}");
        std::process::exit(2);
    }
    out.clear();
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
    fn chunks_end_after_lf_and_cover_everything() {
        let bytes = b"aaaa\nbb\ncccccc\nd\neeeeeeee\nf";
        for n in 1..12 {
            let cuts = chunk_bounds(bytes, n);
            assert_eq!(cuts[0].0, 0);
            assert_eq!(cuts.last().unwrap().1, bytes.len());
            for w in cuts.windows(2) {
                assert_eq!(w[0].1, w[1].0);
                assert_eq!(bytes[w[0].1 - 1], b'\n');
            }
        }
        assert_eq!(chunk_bounds(b"", 4), vec![(0, 0)]);
    }
}
#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn run_bounds_cut_only_where_the_session_changes() {
        let mut b = Vec::new();
        for run in 0..40 {
            for i in 0..50 {
                b.extend_from_slice(
                    format!("{{\"type\":\"user\",\"session_id\":\"s{run}\",\"i\":{i}}}\n")
                        .as_bytes(),
                );
            }
            // A line without a session belongs to the run before it.
            b.extend_from_slice(b"{\"type\":\"control_cancel_request\",\"request_id\":\"r\"}\n");
        }
        for n in 1..12 {
            let cuts = run_bounds(&b, n);
            assert_eq!(cuts[0].0, 0);
            assert_eq!(cuts.last().unwrap().1, b.len());
            for w in cuts.windows(2) {
                assert_eq!(w[0].1, w[1].0);
                let next = &b[w[1].0..];
                let prev_line_end = w[1].0 - 1;
                let prev_start = memchr::memrchr(b'\n', &b[..prev_line_end]).map_or(0, |i| i + 1);
                assert!(next.starts_with(b"{\"type\":\"user\",\"session_id\":\"s"));
                assert!(next.windows(4).position(|w| w == b"\"i\":").is_some());
                assert!(
                    b[prev_start..prev_line_end]
                        .starts_with(b"{\"type\":\"control_cancel_request\""),
                    "cut after a line of the same run"
                );
            }
            if n > 1 {
                assert!(cuts.len() > 1, "{n}: no cut");
            }
        }
        // One run: no cut at all.
        let one: Vec<u8> = (0..500)
            .flat_map(|i| {
                format!("{{\"type\":\"user\",\"session_id\":\"s\",\"i\":{i}}}\n").into_bytes()
            })
            .collect();
        assert_eq!(run_bounds(&one, 8), vec![(0, one.len())]);
    }
}
