//! A large plain file for a sink that folds in order ([`Ctx::read_ahead`]):
//! read in chunks on this worker, each chunk parsed by whichever thread is
//! free, and folded in input order by whichever thread holds the fold.
//!
//! No thread has one job, and no thread waits for a hand-off it could do
//! itself:
//! - the reading thread (this worker: an input's reader is not `Send`)
//!   reads chunk after chunk, and parses one itself only when more than
//!   `jobs + 1` wait for the helpers;
//! - the helpers (`jobs - 1` tasks on the pool) parse what was read, and
//!   fold every chunk that is next in order when no other thread is
//!   folding ([`Mutex::try_lock`]);
//! - when [`BOUND_OVER_JOBS`] more chunks than jobs are read and not yet
//!   folded, the reading thread parses and folds too, until one is folded.
//!
//! So the two serial parts, reading and folding, run beside each other and
//! beside the parsing. An earlier design (one thread reading, the pool
//! parsing, one thread folding: three threads and three hand-offs a chunk)
//! gave two jobs 1.08x to 1.24x one job on two cores, with 10,700 context
//! switches on 256 MiB; BENCHMARKS.md has the figures of both.
//!
//! The sink sees every line in order, on one thread at a time, so the
//! result is the one-job result by construction.

use super::read::{Out, Route, finish_input, read_options};
use super::{AHEAD_CHUNK, Ctx, Msg, Piece, Sink};
use cctape::error::{Error, Position};
use cctape::inputs::LineRead;
use cctape::json::Scanner;
use cctape::sniff::Format;
use cctape::source::{Chunk, ChunkReader, EndReport};
use cctape::stats::{AheadLine, ReadAhead};
use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::sync::{Condvar, Mutex, MutexGuard, mpsc};
use std::time::Duration;

/// A chunk read and parsed, a line past the maximum between chunks, or the
/// end of the input, in its place in input order.
enum Parsed {
    /// Boxed: the reader's buffers are kept together, moved as one.
    Chunk(Box<(Chunk, ReadAhead)>),
    TooLong(Error),
    End,
}

/// What folding a piece leaves. Moved once a chunk; boxing the buffers
/// would allocate once a chunk instead.
#[allow(clippy::large_enum_variant)]
enum Back {
    /// A chunk's buffers, for the next read.
    Buffers((ReadAhead, Vec<u8>)),
    Nothing,
    End,
}

/// How long a thread with nothing to do waits before it looks again,
/// should a signal be missed (the signals are sent after every change, so
/// this only bounds the cost of a mistake).
const WAIT: Duration = Duration::from_millis(5);

/// Chunks read and not yet folded, past the number of jobs: enough that
/// the reading thread seldom waits for the fold (on the 256 MiB corpora,
/// two jobs, 9 rounds in one run: `+ 2` gave 1.26x and 1.54x one job on
/// archive and partial, `+ 6` 1.47x and 1.59x), few enough that memory
/// stays bounded by the chunks and their lines (their bytes are bounded
/// too: as many 256 KiB chunks' worth).
const BOUND_OVER_JOBS: usize = 6;

/// What the threads share, behind one short-held lock.
#[derive(Default)]
struct Queue {
    /// Read, not yet parsed, numbered in input order.
    to_parse: VecDeque<(usize, Chunk, ReadAhead)>,
    /// Parsed (or nothing to parse), not yet folded.
    parsed: BTreeMap<usize, Parsed>,
    /// The number of the next piece to fold.
    next_fold: usize,
    /// Pieces read and not yet folded.
    unfolded: usize,
    /// The bytes of the chunks read and not yet folded.
    unfolded_bytes: usize,
    /// Buffers of folded chunks, for the next reads.
    spare: Vec<(ReadAhead, Vec<u8>)>,
    /// Nothing more will be read.
    read_all: bool,
    /// The end was folded.
    folded_all: bool,
}

/// The folding side: the sink and what it has counted and written.
struct Fold<'a, S> {
    sink: S,
    /// Counts each line and hands it to the sink as every reading does.
    taker: LineRead,
    /// The LF-ended lines of the chunks folded: the reading thread does
    /// not count a chunk's lines ([`ChunkReader::without_line_count`]), so
    /// the numbers it gives are this many lines short.
    lfs: u64,
    out: Out<'a>,
    send_out: mpsc::Sender<Out<'a>>,
}

/// The state of one file read ahead.
struct Shared<'a, 'p, S> {
    queue: Mutex<Queue>,
    /// Signalled when a chunk is read, parsed or folded.
    moved: Condvar,
    fold: Mutex<Fold<'a, S>>,
    piece: &'p Piece<'p>,
    max_line: usize,
}

/// A lock on a mutex a panicking thread may have left poisoned: a panic
/// is passed on when the scope ends, so the data is only read to get there.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<S: Sink> Shared<'_, '_, S> {
    /// Parse one chunk and put it in its place.
    fn parse(&self, scanner: &mut Scanner, k: usize, chunk: Chunk, mut ahead: ReadAhead) {
        ahead.read(
            scanner,
            chunk.bytes(),
            (chunk.offset, chunk.first_line),
            self.max_line,
        );
        lock(&self.queue)
            .parsed
            .insert(k, Parsed::Chunk(Box::new((chunk, ahead))));
        self.moved.notify_all();
    }

    /// Fold every piece that is next in order, unless another thread is
    /// folding (it then folds them: a piece put in place before this call
    /// is seen by the folder's check after it lets go). Returns true when
    /// something was folded.
    fn try_fold(&self) -> bool {
        let mut any = false;
        loop {
            let Ok(mut fold) = self.fold.try_lock() else {
                return any;
            };
            loop {
                let (k, p) = {
                    let mut q = lock(&self.queue);
                    let k = q.next_fold;
                    match q.parsed.remove(&k) {
                        Some(p) => (k, p),
                        None => break,
                    }
                };
                any = true;
                let bytes = match &p {
                    Parsed::Chunk(c) => c.0.bytes().len(),
                    _ => 0,
                };
                let back = self.fold_one(&mut fold, p);
                let mut q = lock(&self.queue);
                q.next_fold = k + 1;
                q.unfolded -= 1;
                q.unfolded_bytes -= bytes;
                match back {
                    Back::Buffers(b) => q.spare.push(b),
                    Back::Nothing => {}
                    Back::End => q.folded_all = true,
                }
                drop(q);
                self.moved.notify_all();
            }
            drop(fold);
            let q = lock(&self.queue);
            if !q.parsed.contains_key(&q.next_fold) {
                return any;
            }
        }
    }

    /// Fold one piece; a chunk's buffers are handed back.
    fn fold_one(&self, fold: &mut Fold<'_, S>, p: Parsed) -> Back {
        let Fold {
            sink,
            taker,
            lfs,
            out,
            send_out,
        } = fold;
        let mut route = Route {
            sink,
            piece: self.piece,
            out,
            emit: None,
        };
        let back = match p {
            Parsed::End => Back::End,
            Parsed::TooLong(e) => {
                let _ = taker.framing_error(later(e, *lfs), &mut route);
                Back::Nothing
            }
            Parsed::Chunk(parsed) => {
                let (chunk, mut ahead) = *parsed;
                ahead.shift_lines(*lfs);
                *lfs += ahead.lf_lines();
                for (line, item) in ahead.lines(chunk.bytes()) {
                    let _ = match item {
                        AheadLine::Blank | AheadLine::TooLong => taker.line(&line, &mut route),
                        AheadLine::Event(ev) => taker.read_ahead(&line, Ok(ev), &mut route),
                        AheadLine::Failed(e) => taker.read_ahead(&line, Err(e), &mut route),
                    };
                }
                Back::Buffers((ahead, chunk.into_buffer()))
            }
        };
        if out.full() {
            let _ = send_out.send(out.block());
        }
        back
    }

    /// Take one chunk to parse, if there is one.
    fn take(&self) -> Option<(usize, Chunk, ReadAhead)> {
        lock(&self.queue).to_parse.pop_front()
    }

    /// True when the next piece is parsed and no thread is folding: the
    /// caller should fold it (whoever is folding folds it otherwise).
    fn fold_due(&self, q: &Queue) -> bool {
        q.parsed.contains_key(&q.next_fold) && self.fold.try_lock().is_ok()
    }

    /// A helper: parse and fold until everything was read and folded (or
    /// is being folded by another thread).
    fn help(&self) {
        let mut scanner = Scanner::new();
        loop {
            let next = {
                let mut q = lock(&self.queue);
                loop {
                    // Folding first: it is the part only one thread can do.
                    if self.fold_due(&q) {
                        break Some(None);
                    }
                    if let Some(c) = q.to_parse.pop_front() {
                        break Some(Some(c));
                    }
                    if q.read_all || q.folded_all {
                        break None;
                    }
                    q = self
                        .moved
                        .wait_timeout(q, WAIT)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0;
                }
            };
            match next {
                Some(Some((k, chunk, ahead))) => self.parse(&mut scanner, k, chunk, ahead),
                Some(None) => {}
                None => {
                    self.try_fold();
                    return;
                }
            }
            self.try_fold();
        }
    }

    /// Do what is waiting (parse, then fold); when there is nothing to do,
    /// wait until something moves, unless `done` already holds.
    fn work_or_wait(&self, scanner: &mut Scanner, done: impl Fn(&Queue) -> bool) {
        if let Some((k, chunk, ahead)) = self.take() {
            self.parse(scanner, k, chunk, ahead);
            self.try_fold();
            return;
        }
        if self.try_fold() {
            return;
        }
        let q = lock(&self.queue);
        if done(&q) || !q.to_parse.is_empty() || self.fold_due(&q) {
            return;
        }
        // Another thread is parsing, or folding what is next (it folds
        // whatever is in place when it lets go); it signals each step.
        drop(
            self.moved
                .wait_timeout(q, WAIT)
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
    }
}

impl<'a, S: Sink, M: Fn() -> S + Sync> Ctx<'a, M> {
    /// A large plain file for a sink that folds in order and reads ahead
    /// ([`super::Reads::ahead`]): see the module's doc. Each line is counted
    /// and handed out by the library's [`LineRead`], so counts and errors
    /// are the ones a reading on one thread gives.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_ahead(
        &self,
        pool: &rayon::ThreadPool,
        sink: S,
        src: impl Read,
        report: &EndReport,
        piece: &Piece<'_>,
        format: Format,
        out: Out<'a>,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) {
        let max_line = self.opts.max_line;
        let opts = read_options(sink.reads(), self.opts.format, max_line);
        let size = self.opts.chunk.unwrap_or(AHEAD_CHUNK);
        let bound = self.opts.jobs + BOUND_OVER_JOBS;
        let behind_at = self.opts.jobs + 1;
        // Also bounded in bytes, so that chunks grown to hold long lines
        // are not read ahead as many: one at least is always allowed.
        let bytes_bound = bound.saturating_mul(size);
        let over =
            |q: &Queue| q.unfolded > 0 && (q.unfolded >= bound || q.unfolded_bytes >= bytes_bound);
        let mut chunks = ChunkReader::with_max_line(src, size, max_line).without_line_count();
        let mut failure: Option<Error> = None;
        let (send_out, outs) = mpsc::channel::<Out<'a>>();
        let shared = Shared {
            queue: Mutex::new(Queue::default()),
            moved: Condvar::new(),
            fold: Mutex::new(Fold {
                sink,
                taker: LineRead::new(&opts, format),
                lfs: 0,
                out,
                send_out,
            }),
            piece,
            max_line,
        };
        // This thread's scanner; each helper makes its own (see
        // `ReadAhead`: one a thread, not one a chunk read ahead).
        let mut scanner = Scanner::new();
        pool.in_place_scope(|scope| {
            for _ in 1..self.opts.jobs {
                let shared = &shared;
                scope.spawn(move |_| shared.help());
            }
            let mut next = 0usize;
            loop {
                for b in outs.try_iter() {
                    emit(Msg::Out(b));
                }
                // Chunks read but not folded stay within the bound.
                while over(&lock(&shared.queue)) {
                    shared.work_or_wait(&mut scanner, |q| !over(q));
                }
                let (ahead, buf) = lock(&shared.queue)
                    .spare
                    .pop()
                    .unwrap_or_else(|| (ReadAhead::new(), Vec::new()));
                let item = match chunks.next_chunk(buf) {
                    None => break,
                    Some(item) => item,
                };
                let behind = {
                    let mut q = lock(&shared.queue);
                    q.unfolded += 1;
                    match item {
                        Ok(chunk) => {
                            q.unfolded_bytes += chunk.bytes().len();
                            q.to_parse.push_back((next, chunk, ahead));
                        }
                        // A line past the maximum, in its place in the order.
                        Err(e) if !e.is_fatal() => {
                            q.parsed.insert(next, Parsed::TooLong(e));
                        }
                        Err(e) => {
                            q.unfolded -= 1;
                            failure = Some(e);
                            break;
                        }
                    }
                    q.to_parse.len() > behind_at
                };
                shared.moved.notify_all();
                next += 1;
                // The helpers are behind (or not started): parse one here.
                if behind && let Some((k, chunk, ahead)) = shared.take() {
                    shared.parse(&mut scanner, k, chunk, ahead);
                }
            }
            {
                let mut q = lock(&shared.queue);
                q.read_all = true;
                q.unfolded += 1;
                q.parsed.insert(next, Parsed::End);
            }
            shared.moved.notify_all();
            while !lock(&shared.queue).folded_all {
                for b in outs.try_iter() {
                    emit(Msg::Out(b));
                }
                shared.work_or_wait(&mut scanner, |q| q.folded_all);
            }
        });
        for b in outs.try_iter() {
            emit(Msg::Out(b));
        }
        let Fold {
            mut sink,
            mut taker,
            lfs,
            mut out,
            ..
        } = shared
            .fold
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut route = Route {
            sink: &mut sink,
            piece,
            out: &mut out,
            emit: None,
        };
        if let Some(e) = failure {
            // As a stream read says it: after every line before it.
            let _ = taker.framing_error(later(e, lfs), &mut route);
        }
        let end = taker.end(&[], chunks.bytes_read(), false, report, &mut route);
        finish_input(piece, sink, end, out, emit);
    }
}

/// `e`, made by the reading thread, numbered `lfs` lines further on.
fn later(e: Error, lfs: u64) -> Error {
    let p = e.position();
    e.relocated(Position {
        line: p.line + lfs,
        ..p
    })
}
