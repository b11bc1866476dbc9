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
//! A file worth mapping ([`FileMap`]) is cut into ranges of its map
//! instead of being read: no byte is copied, and the reading thread only
//! looks for an LF near each chunk's end. Before a mapped chunk is folded,
//! the fold checks that the file still holds it ([`FileMap::whole_to`]);
//! if it was cut, the fold reads the rest of the input itself with `read`
//! from that chunk's start, and what is left in flight is dropped. A line
//! longer than the maximum is read from its start by a [`ChunkReader`]
//! (which says it and skips it), and so is the rest of the input.
//!
//! The sink sees every line in order, on one thread at a time, so the
//! result is the one-job result by construction. A sink whose runs can be
//! folded apart ([`Sink::apart`]: `stats`, `verdict`, `tree`, `otel`) is
//! spared most of that serial fold: the thread that parses a chunk, once
//! the chunks before it are numbered, also folds the runs that begin in it
//! (from its first line whose session is not the line before's,
//! [`ReadAhead::run_start`]) into a part of their own; the in-order fold
//! hands out the lines before that point and takes the part whole
//! ([`Sink::adopt`]) when the library's folder says it holds new runs only
//! ([`cctape::run::RunFolder::accepts`]); otherwise it hands out the part's
//! lines as before. The lines before that point most often go on with the
//! run the chunk before ends with: when both chunks were folded apart in
//! time, they are folded into that chunk's part too ([`Lent`]), and the
//! in-order fold skips them when it takes it. Parts given back (sessions
//! that take turns) soon stop the folding apart for the input.

use super::read::{Out, Route, finish_input, read_options};
use super::{AHEAD_CHUNK, APART_CHUNK, Apart, Ctx, Msg, Piece, Sink};
use cctape::error::{Error, Position};
use cctape::inputs::{LineRead, RUNAWAY_FACTOR};
use cctape::json::Scanner;
use cctape::sniff::Format;
use cctape::source::{Chunk, ChunkReader, EndReport, FileMap, LfWatch};
use cctape::stats::{AheadLine, ReadAhead};
use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, mpsc};
use std::time::Duration;

/// The bytes of a chunk: read into a buffer, or a range of the file's map
/// (no byte copied; see [`FileMap`]) from byte `offset`, the start of line
/// `line` as the reading thread knows it (1 when it does not count them:
/// read ahead, the lines before are added when it is folded).
pub(super) enum Bytes<'m> {
    Read(Chunk),
    Mapped {
        bytes: &'m [u8],
        offset: u64,
        line: u64,
    },
}

impl Bytes<'_> {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Bytes::Read(c) => c.bytes(),
            Bytes::Mapped { bytes, .. } => bytes,
        }
    }

    /// The input offset of its first byte, and the number of its first
    /// line as the reading thread knows it.
    pub(super) fn start(&self) -> (u64, u64) {
        match self {
            Bytes::Read(c) => (c.offset, c.first_line),
            Bytes::Mapped { offset, line, .. } => (*offset, *line),
        }
    }

    /// The buffer, for the next read.
    pub(super) fn into_buffer(self) -> Vec<u8> {
        match self {
            Bytes::Read(c) => c.into_buffer(),
            Bytes::Mapped { .. } => Vec::new(),
        }
    }
}

/// A chunk read and parsed, a line past the maximum between chunks, or the
/// end of the input, in its place in input order.
enum Parsed<'m> {
    /// Boxed: the reader's buffers are kept together, moved as one.
    Chunk(Box<ParsedChunk<'m>>),
    TooLong(Error),
    End,
}

/// A chunk parsed.
struct ParsedChunk<'m> {
    bytes: Bytes<'m>,
    ahead: ReadAhead,
    /// The LF-ended lines before the chunk, once every chunk before it is
    /// parsed (and no line past the maximum came between).
    lines_before: Option<u64>,
    /// Its last runs folded apart ([`Shared::apart_of`]): `None` until a
    /// thread looked.
    tail: Option<Option<Tail>>,
}

/// A chunk's runs from line `from` on, folded apart ([`Apart`]), with
/// the chunk's lines numbered `lines_before` further on for them; and the
/// next chunk's first lines when they were folded into it too.
struct Tail {
    from: usize,
    lines_before: u64,
    part: Apart,
    lent: Option<Lent>,
}

/// A chunk's lines before its first run's start ([`ReadAhead::run_start`]),
/// folded into the part of the chunk before it ([`Shared::lend_heads`]):
/// most often the run that part ends with goes on in them, and the fold in
/// order then skips them when it takes the part, so that only the parts
/// themselves are left to it.
#[derive(Clone, Copy)]
struct Lent {
    /// How many lines (every one an event).
    lines: usize,
    /// The lines before the chunk that lent them, as they were numbered.
    lines_before: u64,
    /// The file offset and number of the first line after them: a mapped
    /// file must still hold every byte before it when the part is taken,
    /// and is read from there should it be cut later.
    end: (u64, u64),
}

/// What folding a piece leaves. Moved once a chunk; boxing the buffers
/// would allocate once a chunk instead.
#[allow(clippy::large_enum_variant)]
enum Back {
    /// A chunk's buffers, for the next read.
    Buffers((ReadAhead, Vec<u8>)),
    Nothing,
    /// The map could not vouch for a chunk: the rest of the input was
    /// read and folded from its start; what is left is dropped.
    ReadTheRest,
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
struct Queue<'m> {
    /// Read, not yet parsed, numbered in input order.
    to_parse: VecDeque<(usize, Bytes<'m>, ReadAhead)>,
    /// Parsed (or nothing to parse), not yet folded.
    parsed: BTreeMap<usize, Parsed<'m>>,
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
    /// The rest of the input was read by the fold ([`Back::ReadTheRest`]):
    /// nothing more is read, and the pieces left are dropped.
    read_by_fold: bool,
    /// The first chunk not parsed yet, and the LF-ended lines of the
    /// chunks before it: what each parsed chunk's `lines_before` is taken
    /// from, in order.
    counted: (usize, u64),
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
    /// The bytes read, when the fold read the rest of the input itself.
    read_to: Option<u64>,
    /// The next chunk's first lines, folded already through a part taken.
    lent: Option<Lent>,
}

/// The state of one file read ahead.
struct Shared<'a, 'p, 'm, S> {
    queue: Mutex<Queue<'m>>,
    /// Signalled when a chunk is read, parsed or folded.
    moved: Condvar,
    fold: Mutex<Fold<'a, S>>,
    piece: &'p Piece<'p>,
    max_line: usize,
    /// The file's map, when chunks are ranges of it.
    map: Option<&'m FileMap>,
    /// An empty part, when the sink folds a chunk's runs apart.
    apart: Option<Apart>,
    /// The parts the fold took, and those it gave back (their runs went
    /// on from the lines before, as a session's rounds do when sessions
    /// take turns): when more are given back than taken, no more are
    /// folded apart.
    taken: AtomicU32,
    given_back: AtomicU32,
    /// Parts folded apart and not yet taken or given back.
    in_flight: AtomicU32,
    /// Parts taken with the next chunk's first lines in them.
    taken_lent: AtomicU32,
}

/// A lock on a mutex a panicking thread may have left poisoned: a panic
/// is passed on when the scope ends, so the data is only read to get there.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<'m, S: Sink> Shared<'_, '_, 'm, S> {
    /// Parse one chunk and put it in its place.
    fn parse(&self, scanner: &mut Scanner, k: usize, chunk: Bytes<'m>, mut ahead: ReadAhead) {
        ahead.read(scanner, chunk.bytes(), chunk.start(), self.max_line);
        let mut c = Box::new(ParsedChunk {
            bytes: chunk,
            ahead,
            lines_before: None,
            tail: None,
        });
        // The next chunk in order is numbered now, and its runs folded
        // apart before any other thread sees it, while its lines are in
        // this core's caches.
        let lines_before = {
            let mut q = lock(&self.queue);
            match q.counted {
                (next, lines) if next == k => {
                    q.counted = (k + 1, lines + c.ahead.lf_lines());
                    Some(lines)
                }
                _ => None,
            }
        };
        if let Some(lines) = lines_before {
            c.lines_before = Some(lines);
            self.apart_of(k, &mut c);
        }
        let mut q = lock(&self.queue);
        q.parsed.insert(k, Parsed::Chunk(c));
        // Number the chunks parsed in a row after it (a line past the
        // maximum stops it: the lines a reading without counts gives after
        // it are not the ones the fold adds).
        loop {
            let (k, lines) = q.counted;
            match q.parsed.get_mut(&k) {
                Some(Parsed::Chunk(c)) => {
                    c.lines_before = Some(lines);
                    q.counted = (k + 1, lines + c.ahead.lf_lines());
                }
                _ => break,
            }
        }
        drop(q);
        self.moved.notify_all();
    }

    /// A chunk waits to have its runs folded apart.
    fn apart_waits(&self, q: &Queue<'_>) -> bool {
        self.apart_pays() && waiting_apart(q).is_some()
    }

    /// Parts are folded apart: the sink can take them, and has not given
    /// more back than it took (two given back are allowed). Two parts at
    /// most are folded ahead of its answers, and one more for each part it
    /// took more than it gave back: on sessions that take turns, where
    /// each part is given back, a part taken early does not let every
    /// chunk in flight be folded twice.
    fn apart_pays(&self) -> bool {
        self.pays_with(self.in_flight.load(Ordering::Relaxed))
    }

    /// [`apart_pays`](Shared::apart_pays) with `in_flight` parts in flight.
    fn pays_with(&self, in_flight: u32) -> bool {
        let back = self.given_back.load(Ordering::Relaxed);
        let taken = self.taken.load(Ordering::Relaxed);
        self.apart.is_some() && back <= taken.max(2) && in_flight < 2 + taken.saturating_sub(back)
    }

    /// Count one more part in flight if it pays, in one step: threads that
    /// checked [`apart_pays`](Shared::apart_pays) together do not all go
    /// past the two allowed ahead of the first answer.
    fn reserve(&self) -> bool {
        self.in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                self.pays_with(n).then_some(n + 1)
            })
            .is_ok()
    }

    /// Fold apart the last runs of a chunk parsed and numbered, after the
    /// one to fold next (see [`Apart`]): the fold, the part only one thread
    /// can do, then takes them as a whole. Returns true when one was.
    fn fold_apart(&self) -> bool {
        if !self.apart_pays() {
            return false;
        }
        let (k, mut c) = {
            let mut q = lock(&self.queue);
            match waiting_apart(&q).and_then(|k| q.parsed.remove(&k).map(|p| (k, p))) {
                Some((k, Parsed::Chunk(c))) => (k, c),
                Some((k, p)) => {
                    q.parsed.insert(k, p);
                    return false;
                }
                None => return false,
            }
        };
        self.apart_of(k, &mut c);
        lock(&self.queue).parsed.insert(k, Parsed::Chunk(c));
        self.moved.notify_all();
        true
    }

    /// Fold apart the runs of numbered chunk `k` that begin at its first
    /// run's start ([`ReadAhead::run_start`]), if it has one, and lend the
    /// lines before it to the part of the chunk before ([`Shared::lend_heads`]).
    fn apart_of(&self, k: usize, c: &mut ParsedChunk<'m>) {
        let (Some(empty), Some(lines_before)) = (&self.apart, c.lines_before) else {
            return;
        };
        if !self.apart_pays() {
            return;
        }
        let from = c.ahead.run_start(c.bytes.bytes());
        if from.is_some() && !self.reserve() {
            // Looked at again when it pays (or folded in order).
            return;
        }
        c.tail = Some(from.map(|from| {
            c.ahead.shift_lines(lines_before);
            let mut part = empty.fresh();
            for ev in c.ahead.events_in(c.bytes.bytes(), from..c.ahead.len()) {
                part.event(&ev);
            }
            Tail {
                from,
                lines_before,
                part,
                lent: None,
            }
        }));
        if from.is_some() {
            self.lend_heads(k, c);
        }
    }

    /// Lend the first lines of chunk `k` (`c`, folded apart) to the part of
    /// chunk `k - 1`, and borrow those of chunk `k + 1` for its own part,
    /// when the other chunk was folded apart before it ([`Lent`]). The
    /// other chunk is out of the queue meanwhile: the fold in order waits
    /// for chunk `k - 1` (folding those lines is what it would have done),
    /// and does not want chunk `k + 1` before chunk `k`, which this thread
    /// holds.
    fn lend_heads(&self, k: usize, c: &mut ParsedChunk<'m>) {
        for other in [k.checked_sub(1), k.checked_add(1)].into_iter().flatten() {
            let mut o = {
                let mut q = lock(&self.queue);
                match q.parsed.remove(&other) {
                    Some(Parsed::Chunk(o)) if matches!(&o.tail, Some(Some(_))) => o,
                    Some(p) => {
                        q.parsed.insert(other, p);
                        continue;
                    }
                    None => continue,
                }
            };
            if other < k {
                lend(&mut o, c);
            } else {
                lend(c, &o);
            }
            lock(&self.queue).parsed.insert(other, Parsed::Chunk(o));
            self.moved.notify_all();
        }
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
                let (k, p, dropped) = {
                    let mut q = lock(&self.queue);
                    let k = q.next_fold;
                    match q.parsed.remove(&k) {
                        Some(p) => (k, p, q.read_by_fold),
                        None => break,
                    }
                };
                any = true;
                let bytes = match &p {
                    Parsed::Chunk(c) => c.bytes.bytes().len(),
                    _ => 0,
                };
                let back = if dropped {
                    // Read already, by the fold: dropped.
                    match p {
                        Parsed::End => Back::End,
                        Parsed::Chunk(c) => Back::Buffers((c.ahead, c.bytes.into_buffer())),
                        Parsed::TooLong(_) => Back::Nothing,
                    }
                } else {
                    self.fold_one(&mut fold, p)
                };
                let mut q = lock(&self.queue);
                q.next_fold = k + 1;
                q.unfolded -= 1;
                q.unfolded_bytes -= bytes;
                match back {
                    Back::Buffers(b) => q.spare.push(b),
                    Back::Nothing => {}
                    Back::ReadTheRest => q.read_by_fold = true,
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
    fn fold_one(&self, fold: &mut Fold<'_, S>, p: Parsed<'m>) -> Back {
        let Fold {
            sink,
            taker,
            lfs,
            out,
            send_out,
            read_to,
            lent: fold_lent,
        } = fold;
        // This chunk's first lines, when they were folded with the part
        // before it (only a chunk lends them: nothing else comes next).
        let lent = fold_lent.take();
        let mut route = Route {
            sink,
            piece: self.piece,
            out,
            emit: None,
        };
        // A mapped chunk the file no longer holds (it was cut under the
        // map): the rest is read from the chunk's start, and what is in
        // flight is dropped.
        let cut_at = match (&p, self.map) {
            (Parsed::Chunk(c), Some(map)) => match c.bytes {
                Bytes::Mapped { bytes, offset, .. } => {
                    // What came before is folded: not read again.
                    map.release(offset as usize);
                    (!map.whole_to(offset + bytes.len() as u64)).then_some((map, offset))
                }
                Bytes::Read(_) => None,
            },
            _ => None,
        };
        let back = match p {
            _ if let Some((map, offset)) = cut_at => {
                let from = lent.map_or((offset, *lfs + 1), |l| l.end);
                *read_to = Some(taker.read_rest(map, from, &mut route).1);
                Back::ReadTheRest
            }
            Parsed::End => Back::End,
            Parsed::TooLong(e) => {
                let _ = taker.framing_error(later(e, *lfs), &mut route);
                Back::Nothing
            }
            Parsed::Chunk(parsed) => {
                let ParsedChunk {
                    bytes: chunk,
                    mut ahead,
                    tail,
                    ..
                } = *parsed;
                // A tail's lines were numbered when it was folded, from
                // the count of the chunks before it: the lines this fold
                // has counted (never more, by construction).
                let tail = tail.flatten();
                let shifted = tail.as_ref().map_or(0, |t| t.lines_before);
                debug_assert!(shifted <= *lfs);
                if tail.is_some() {
                    self.in_flight.fetch_sub(1, Ordering::Relaxed);
                }
                let tail = tail.filter(|_| shifted == *lfs);
                ahead.shift_lines(lfs.saturating_sub(shifted));
                *lfs += ahead.lf_lines();
                let all = ahead.len();
                let from = tail.as_ref().map_or(all, |t| t.from);
                let start = lent.map_or(0, |l| l.lines).min(from);
                hand_out(&mut ahead, chunk.bytes(), start..from, taker, &mut route);
                if let Some(mut t) = tail {
                    // Lines lent by the next chunk: numbered as this fold
                    // numbers them, and still in the file.
                    let lent_holds = t.lent.is_none_or(|l| {
                        l.lines_before == *lfs && self.map.is_none_or(|m| m.whole_to(l.end.0))
                    });
                    if lent_holds
                        && route
                            .sink
                            .adopt(self.piece, &mut t.part, &mut route.out.bytes)
                    {
                        self.taken.fetch_add(1, Ordering::Relaxed);
                        if t.lent.is_some() {
                            self.taken_lent.fetch_add(1, Ordering::Relaxed);
                        }
                        let lent_lines = t.lent.map_or(0, |l| l.lines);
                        taker.events_apart((all - from + lent_lines) as u64);
                        *fold_lent = t.lent;
                    } else {
                        self.given_back.fetch_add(1, Ordering::Relaxed);
                        hand_out(&mut ahead, chunk.bytes(), from..all, taker, &mut route);
                    }
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
    fn take(&self) -> Option<(usize, Bytes<'m>, ReadAhead)> {
        lock(&self.queue).to_parse.pop_front()
    }

    /// True when the next piece is parsed and no thread is folding: the
    /// caller should fold it (whoever is folding folds it otherwise).
    fn fold_due(&self, q: &Queue<'_>) -> bool {
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
                    if self.apart_waits(&q) {
                        break Some(None);
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
                Some(None) => {
                    if !self.try_fold() {
                        self.fold_apart();
                    }
                    continue;
                }
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
    fn work_or_wait(&self, scanner: &mut Scanner, done: impl Fn(&Queue<'_>) -> bool) {
        if let Some((k, chunk, ahead)) = self.take() {
            self.parse(scanner, k, chunk, ahead);
            self.try_fold();
            return;
        }
        if self.try_fold() || self.fold_apart() {
            return;
        }
        let q = lock(&self.queue);
        if done(&q) || !q.to_parse.is_empty() || self.fold_due(&q) || self.apart_waits(&q) {
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
        (src, map): (impl Read, Option<FileMap>),
        report: &EndReport,
        piece: &Piece<'_>,
        format: Format,
        out: Out<'a>,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) {
        let max_line = self.opts.max_line;
        let opts = read_options(sink.reads(), self.opts.format, max_line);
        let apart = sink.apart();
        // Larger chunks where runs are folded apart, when they are ranges
        // of a map (read into buffers, chunks grown to hold a long line
        // would be as many times larger in memory).
        let whole = match (&apart, &map) {
            (Some(_), Some(_)) => APART_CHUNK,
            _ => AHEAD_CHUNK,
        };
        let size = self.opts.chunk.unwrap_or(whole);
        let bound = self.opts.jobs + BOUND_OVER_JOBS;
        let behind_at = self.opts.jobs + 1;
        // Also bounded in bytes, so that chunks grown to hold long lines
        // are not read ahead as many: one at least is always allowed.
        let bytes_bound = bound.saturating_mul(size);
        let over = |q: &Queue<'_>| {
            q.unfolded > 0 && (q.unfolded >= bound || q.unfolded_bytes >= bytes_bound)
        };
        let limit = (max_line as u64).saturating_mul(RUNAWAY_FACTOR);
        // Chunks are ranges of the map while it lasts (`at`: the next one's
        // first byte), then read.
        let mut at = map.as_ref().map(|_| 0usize);
        let mut chunks: Option<ChunkReader<Box<dyn Read + '_>>> = match &map {
            Some(_) => None,
            None => Some(
                ChunkReader::with_max_line(Box::new(src) as Box<dyn Read>, size, max_line)
                    .without_line_count(),
            ),
        };
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
                read_to: None,
                lent: None,
            }),
            piece,
            max_line,
            map: map.as_ref(),
            apart,
            taken: AtomicU32::new(0),
            given_back: AtomicU32::new(0),
            in_flight: AtomicU32::new(0),
            taken_lent: AtomicU32::new(0),
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
                let ((ahead, buf), read_by_fold) = {
                    let mut q = lock(&shared.queue);
                    let spare = q.spare.pop();
                    (
                        spare.unwrap_or_else(|| (ReadAhead::new(), Vec::new())),
                        q.read_by_fold,
                    )
                };
                if read_by_fold {
                    break;
                }
                let item = match (&mut chunks, shared.map.zip(at)) {
                    (Some(chunks), _) => match chunks.next_chunk(buf) {
                        None => break,
                        Some(item) => item.map(Bytes::Read),
                    },
                    (None, Some((map, from))) => match cut_map(map.bytes(), from, size, max_line) {
                        MapCut::End => break,
                        MapCut::Chunk(end) => {
                            at = Some(end);
                            Ok(Bytes::Mapped {
                                bytes: &map.bytes()[from..end],
                                offset: from as u64,
                                line: 1,
                            })
                        }
                        // A line longer than the maximum: read from its start
                        // (the chunk reader says it and skips it).
                        MapCut::Read => {
                            match map.reader_at(from as u64) {
                                Ok(rdr) => {
                                    let rdr: Box<dyn Read> = Box::new(LfWatch::new(rdr, limit));
                                    chunks = Some(
                                        ChunkReader::with_max_line(rdr, size, max_line)
                                            .without_line_count()
                                            .starting_at(from as u64, 1),
                                    );
                                }
                                Err(e) => {
                                    failure = Some(
                                        Error::open(e).relocated(Position::new(1, from as u64)),
                                    );
                                    break;
                                }
                            }
                            at = None;
                            continue;
                        }
                    },
                    (None, None) => break,
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
        if self.opts.trace_apart {
            // For tests: how many parts the fold took and gave back.
            eprintln!(
                "cctape: parts folded apart: {} taken, {} given back, {} of them with the next \
                 chunk's first lines",
                shared.taken.load(Ordering::Relaxed),
                shared.given_back.load(Ordering::Relaxed),
                shared.taken_lent.load(Ordering::Relaxed)
            );
        }
        let Fold {
            mut sink,
            mut taker,
            lfs,
            mut out,
            read_to,
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
        // The bytes read: by the fold to the end, by the chunk reader, or
        // the whole map.
        let bytes = match (read_to, &chunks) {
            (Some(b), _) => b,
            (None, Some(c)) => c.bytes_read(),
            (None, None) => at.unwrap_or(0) as u64,
        };
        let end = taker.end(&[], bytes, false, report, &mut route);
        finish_input(piece, sink, end, out, emit);
    }
}

/// Fold the lines of `next` before its first run's start into the part of
/// `before`, the chunk before it, when both were folded apart, `before`'s
/// part has no such lines yet, and they are all events ([`Lent`]).
fn lend(before: &mut ParsedChunk<'_>, next: &ParsedChunk<'_>) {
    let (Some(Some(t)), Some(Some(n))) = (&mut before.tail, &next.tail) else {
        return;
    };
    let (chunk, from) = (next.bytes.bytes(), n.from);
    if t.lent.is_some() || next.ahead.events_in(chunk, 0..from).count() != from {
        return;
    }
    let Some(end) = next.ahead.events_in(chunk, from..from + 1).next() else {
        return;
    };
    for ev in next.ahead.events_in(chunk, 0..from) {
        t.part.event(&ev);
    }
    t.lent = Some(Lent {
        lines: from,
        lines_before: n.lines_before,
        end: (end.offset(), end.line()),
    });
}

/// The first chunk after the one to fold next that is parsed and numbered
/// and whose runs no thread has looked at.
fn waiting_apart(q: &Queue<'_>) -> Option<usize> {
    q.parsed
        .range(q.next_fold + 1..)
        .find_map(|(k, p)| match p {
            Parsed::Chunk(c) if c.tail.is_none() && c.lines_before.is_some() => Some(*k),
            _ => None,
        })
}

/// Lines `range` of a chunk read ahead, counted and handed out in order.
fn hand_out<S: Sink>(
    ahead: &mut ReadAhead,
    chunk: &[u8],
    range: std::ops::Range<usize>,
    taker: &mut LineRead,
    route: &mut Route<'_, '_, S>,
) {
    for (line, item) in ahead.lines_in(chunk, range) {
        let _ = match item {
            AheadLine::Blank | AheadLine::TooLong => taker.line(&line, route),
            AheadLine::Event(ev) => taker.read_ahead(&line, Ok(ev), route),
            AheadLine::Failed(e) => taker.read_ahead(&line, Err(e), route),
        };
    }
}

/// Where the next chunk of a map starts being cut.
pub(super) enum MapCut {
    /// The map is read to its end.
    End,
    /// The next chunk ends here: after an LF, or at the map's end.
    Chunk(usize),
    /// The next line is longer than the maximum: read it (and the rest).
    Read,
}

/// The next chunk of `b` from `from`: about `size` bytes, ending after an
/// LF (past `size` for a line longer than it), or the rest of `b`.
pub(super) fn cut_map(b: &[u8], from: usize, size: usize, max_line: usize) -> MapCut {
    let Some(rest) = b.get(from..).filter(|r| !r.is_empty()) else {
        return MapCut::End;
    };
    if rest.len() <= size {
        // The last chunk (its last line may have no LF); a line in it past
        // the maximum is read.
        return match memchr::memrchr(b'\n', rest) {
            _ if rest.len() <= max_line => MapCut::Chunk(b.len()),
            Some(i) if i <= max_line && rest.len() - i - 1 <= max_line => MapCut::Chunk(b.len()),
            _ => MapCut::Read,
        };
    }
    if let Some(i) = memchr::memrchr(b'\n', &rest[..size]) {
        return MapCut::Chunk(from + i + 1);
    }
    // One line longer than the chunk: to its LF.
    match memchr::memchr(b'\n', &rest[size..]) {
        Some(i) if size + i <= max_line => MapCut::Chunk(from + size + i + 1),
        None if rest.len() <= max_line => MapCut::Chunk(b.len()),
        _ => MapCut::Read,
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
