//! A large plain file cut into chunks read apart on the pool, for a sink
//! that looks at each line alone ([`Ctx::read_chunked`]; a sink that folds
//! in order reads ahead instead, in `ahead.rs`). Each byte is read once;
//! counts, errors and what is said of them are the ones a stream read
//! gives.
//!
//! A file worth mapping ([`FileMap`]) is cut into ranges of its map
//! instead of being read: the reading thread copies nothing, it only looks
//! for an LF near each chunk's end. Counting each chunk's LFs there, for
//! the number of the next chunk's first line, was a second pass over every
//! byte and a third of two jobs' time; so once the input's first chunk is
//! handed out without bad lines, the chunks after it are read with their
//! lines numbered from 1, and the true number, from the lines the chunks
//! before it read, is known when a chunk is handed out. Only a chunk's bad
//! lines say their line: one that has some is read again then, on this
//! thread, and the chunks after it are counted ahead again. A sink that
//! prints line numbers ([`Reads::numbers`](super::Reads)) has every chunk
//! counted ahead. A mapped chunk is
//! handed out only once the file is known to still hold it
//! ([`FileMap::whole_to`]); if it was cut under
//! the map, that chunk and those read after it are dropped, and the rest
//! of the input is read with `read` from that chunk's start, so the
//! shrinking is told as a reading tells it. A line longer than the maximum
//! is read from its start by a [`ChunkReader`] (which says it and skips
//! it), and so is the rest of the input.

use super::ahead::{Bytes, MapCut, cut_map};
use super::read::{Out, ended_early, piece_done, read_slice};
use super::{CHUNK, Ctx, Done, Msg, Piece, Sink};
use cctape::error::{Error, Position};
use cctape::inputs::{RUNAWAY_FACTOR, ReadOptions};
use cctape::sniff::Format;
use cctape::source::{ChunkReader, EndReport, FileMap, LfWatch};
use cctape::stream::Counts;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::mpsc;

/// Where the chunks come from.
enum Feed<'m, 'r> {
    /// Ranges of the map, from byte `at`, the start of line `line` when
    /// that is known here (not after a chunk handed out uncounted).
    Map {
        map: &'m FileMap,
        at: usize,
        line: Option<u64>,
    },
    /// Read.
    Read(ChunkReader<Box<dyn Read + 'r>>),
}

impl Feed<'_, '_> {
    /// Bytes taken from the input so far (what
    /// [`ChunkReader::bytes_read`] says).
    fn bytes_read(&self) -> u64 {
        match self {
            Feed::Map { at, .. } => *at as u64,
            Feed::Read(c) => c.bytes_read(),
        }
    }

    /// The next line's number and offset, once every chunk is handed out
    /// (`line`: the next line's number after those of the map).
    fn position(&self, line: u64) -> (u64, u64) {
        match self {
            Feed::Map { at, .. } => (line, *at as u64),
            Feed::Read(c) => (c.line_number(), c.offset()),
        }
    }
}

/// A mapped chunk: its range, and whether its lines were numbered from 1
/// (it was handed out uncounted).
#[derive(Clone, Copy)]
struct Span {
    from: usize,
    end: usize,
    from_one: bool,
}

/// What the reading thread does next.
enum Step<'m> {
    /// Hand out a chunk, or a line past the maximum, or stop on an error.
    Item(Result<Bytes<'m>, Error>),
    /// Read the rest from this byte, the start of this line.
    ReadAt(usize, u64),
    /// The next line's number is needed here: first hand out every chunk
    /// on the pool.
    Sync,
    /// Nothing more to read.
    End,
}

/// A chunk's result from the pool: the reading it belongs to (a cut
/// under the map starts another), its place in order, and its buffer back.
type Back<'a, S> = (u32, usize, Done<S>, Out<'a>, Vec<u8>, Option<Span>);

/// A mapped chunk read again on the reading thread, from its offset and
/// true first line number.
type ReadAgain<'f, 'a, S> = dyn FnMut(&[u8], (u64, u64)) -> (Done<S>, Out<'a>) + 'f;

/// Results waiting for their turn, and what was handed out.
struct Order<'a, S> {
    pending: BTreeMap<usize, (Done<S>, Out<'a>, Option<Span>)>,
    /// Chunks handed out.
    emitted: usize,
    /// Which reading the results taken now belong to.
    epoch: u32,
    /// Chunks on the pool (of any reading).
    in_flight: usize,
    free: Vec<Vec<u8>>,
    /// The number of the first line of the next mapped chunk to hand out.
    line: u64,
    /// Mapped chunks are counted before they are read: the sink prints
    /// line numbers; or the input's first chunk is not yet handed out, or
    /// had bad lines; or a chunk numbered from 1 had some. An input with
    /// bad lines all through it is then never read twice, and one with a
    /// few at most `jobs + 1` chunks' worth.
    count_ahead: bool,
}

impl<'a, S> Order<'a, S> {
    /// A result from the pool; one of a dropped reading is forgotten, and
    /// bad lines in a chunk numbered from 1 count the next chunks ahead.
    fn take(&mut self, (epoch, k, done, out, buf, span): Back<'a, S>) {
        self.in_flight -= 1;
        self.free.push(buf);
        if epoch == self.epoch {
            if span.is_some_and(|s| s.from_one) && done.counts.errors > 0 {
                self.count_ahead = true;
            }
            self.pending.insert(k, (done, out, span));
        }
    }

    /// Hand out the results that are next in order. A mapped chunk the
    /// file no longer holds stops it: its span is returned, and nothing
    /// from it on is handed out. A mapped chunk numbered from 1 whose bad
    /// lines said their line is read again by `again`, from its true first
    /// line.
    fn settle(
        &mut self,
        map: Option<&FileMap>,
        again: &mut ReadAgain<'_, 'a, S>,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) -> Option<Span> {
        while let Some((mut done, mut out, span)) = self.pending.remove(&self.emitted) {
            if let (Some(s), Some(map)) = (span, map) {
                if !map.whole_to(s.end as u64) {
                    return Some(s);
                }
                if s.from_one && self.line != 1 && done.counts.errors > 0 {
                    let bytes = map.bytes().get(s.from..s.end).unwrap_or_default();
                    (done, out) = again(bytes, (s.from as u64, self.line));
                }
                if s.from == 0 && done.counts.errors == 0 {
                    // A clean start: the chunks after it are not counted.
                    self.count_ahead = false;
                }
                self.line += done.counts.lines;
                map.release(s.from);
            }
            self.emitted += 1;
            emit(Msg::Done(done, out));
        }
        None
    }
}

impl<'a, S: Sink, M: Fn() -> S + Sync> Ctx<'a, M> {
    /// A large plain file for a sink that looks at lines alone: chunks read
    /// (or cut from its map) here in order, read by the pool, handed out in
    /// order. `numbers`: the sink prints line numbers, so a mapped chunk's
    /// first line number is counted before it is read.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_chunked<'r>(
        &self,
        pool: &rayon::ThreadPool,
        (src, map): (Box<dyn Read + 'r>, Option<FileMap>),
        report: &EndReport,
        piece: &Piece<'_>,
        (opts, numbers): (&ReadOptions, bool),
        format: Format,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) {
        let make = || {
            let mut sink = (self.make)();
            sink.format(piece, format);
            sink
        };
        // A chunk read again on this thread, from its true first line.
        let mut again = |bytes: &[u8], start: (u64, u64)| {
            let mut out = self.out(piece);
            let done = read_slice(piece, make(), bytes, start, opts, format, &mut out);
            (done, out)
        };
        let max_line = self.opts.max_line;
        let size = self.opts.chunk.unwrap_or(CHUNK);
        let mut feed = match &map {
            Some(map) => Feed::Map {
                map,
                at: 0,
                line: Some(1),
            },
            None => Feed::Read(ChunkReader::with_max_line(src, size, max_line)),
        };
        let in_flight_max = self.opts.jobs + 1;
        let mut failure: Option<Error> = None;
        let mut tail = Counts::default();
        // Bytes in the chunks handed to the pool; the rest of what was read
        // (lines past the maximum, a partial line before an I/O error) is
        // counted on the last piece, so the pieces add up to what a stream
        // read counts.
        let mut in_chunks = 0u64;
        let mut order = Order {
            pending: BTreeMap::new(),
            emitted: 0,
            epoch: 0,
            in_flight: 0,
            free: Vec::new(),
            line: 1,
            count_ahead: true,
        };
        pool.in_place_scope(|scope| {
            let (tx, rx) = mpsc::channel::<Back<'a, S>>();
            let mut next = 0usize;
            // A mapped chunk the file no longer holds, found while waiting.
            let mut found_cut: Option<Span> = None;
            loop {
                // Hand out what is done before the next (maybe slow) read.
                while let Ok(back) = rx.try_recv() {
                    order.take(back);
                }
                let cut = found_cut
                    .take()
                    .or_else(|| order.settle(map.as_ref(), &mut again, emit));
                if let (Some(cut), Some(m)) = (cut, &map) {
                    // The file was cut under a mapped chunk: that chunk and
                    // those after it are dropped, and the rest is read.
                    order.epoch += 1;
                    order.pending.clear();
                    next = order.emitted;
                    in_chunks = cut.from as u64;
                    match read_at(m, cut.from, order.line, size, max_line) {
                        Ok(f) => feed = f,
                        Err(e) => {
                            tail.errors += 1;
                            failure = Some(e);
                            break;
                        }
                    }
                }
                let count = numbers || order.count_ahead;
                let buf = order.free.pop().unwrap_or_default();
                let step = match &mut feed {
                    Feed::Read(chunks) => match chunks.next_chunk(buf) {
                        None => Step::End,
                        Some(item) => Step::Item(item.map(Bytes::Read)),
                    },
                    Feed::Map { map, at, line } => {
                        let m: &FileMap = map;
                        let (cut, lfs) = match cut_map(m.bytes(), *at, size, max_line) {
                            MapCut::Chunk(end) => within(m.bytes(), *at, end, max_line, count),
                            cut => (cut, None),
                        };
                        match (cut, lfs, *line) {
                            (MapCut::End, ..) => Step::End,
                            // A line longer than the maximum: read from its
                            // start (the chunk reader says it and skips it,
                            // or finds that the input is no stream of lines,
                            // as reading it from the start would).
                            (MapCut::Read, _, Some(l)) => Step::ReadAt(*at, l),
                            // Counted, from its known first line; or not:
                            // its lines are numbered from 1 on the pool, and
                            // from the true first line when it is handed out.
                            (MapCut::Chunk(end), lfs, known)
                                if lfs.is_none() || known.is_some() =>
                            {
                                let counted = known.zip(lfs);
                                let chunk = Bytes::Mapped {
                                    bytes: &m.bytes()[*at..end],
                                    offset: *at as u64,
                                    line: counted.map_or(1, |(l, _)| l),
                                };
                                (*at, *line) = (end, counted.map(|(l, n)| l + n));
                                Step::Item(Ok(chunk))
                            }
                            // A line number needed here and not known.
                            (MapCut::Read | MapCut::Chunk(_), ..) => Step::Sync,
                        }
                    }
                };
                let item = match step {
                    Step::Item(item) => item,
                    Step::ReadAt(from, line) => {
                        let Some(m) = &map else { break };
                        match read_at(m, from, line, size, max_line) {
                            Ok(f) => feed = f,
                            Err(e) => {
                                tail.errors += 1;
                                failure = Some(e);
                                break;
                            }
                        }
                        continue;
                    }
                    Step::Sync | Step::End => {
                        // Wait for the pool; the loop's top hands out what
                        // it gives back (and reads the rest after a cut).
                        if order.in_flight > 0 {
                            if let Ok(back) = rx.recv() {
                                order.take(back);
                            }
                            continue;
                        }
                        if matches!(step, Step::End) {
                            break;
                        }
                        // All handed out (at the loop's top, which read the
                        // rest instead after a cut): the next line's number
                        // is known.
                        if let Feed::Map { line, .. } = &mut feed {
                            *line = Some(order.line);
                        }
                        continue;
                    }
                };
                match item {
                    Ok(chunk) => {
                        in_chunks += chunk.bytes().len() as u64;
                        let span = match &chunk {
                            Bytes::Mapped { bytes, offset, .. } => Some(Span {
                                from: *offset as usize,
                                end: *offset as usize + bytes.len(),
                                from_one: !count,
                            }),
                            Bytes::Read(_) => None,
                        };
                        let (tx, make, piece, epoch) = (tx.clone(), self.make, *piece, order.epoch);
                        let k = next;
                        let mut out = self.out(&piece);
                        scope.spawn(move |_| {
                            let mut sink = make();
                            sink.format(&piece, format);
                            let done = read_slice(
                                &piece,
                                sink,
                                chunk.bytes(),
                                chunk.start(),
                                opts,
                                format,
                                &mut out,
                            );
                            let _ = tx.send((epoch, k, done, out, chunk.into_buffer(), span));
                        });
                        order.in_flight += 1;
                    }
                    Err(e) if !e.is_fatal() => {
                        // A line past the maximum, in its place in the order.
                        let mut sink = make();
                        let mut out = self.out(piece);
                        out.bad(&mut sink, piece, &e, None);
                        let counts = Counts {
                            lines: 1,
                            errors: 1,
                            ..Counts::default()
                        };
                        let done = piece_done(piece, sink, counts, 0, format);
                        order.pending.insert(next, (done, out, None));
                    }
                    Err(e) => {
                        tail.errors += 1;
                        failure = Some(e);
                    }
                }
                next += 1;
                // Chunks read but not handed out stay within the bound.
                while next - order.emitted >= in_flight_max && order.in_flight > 0 {
                    let Ok(back) = rx.recv() else {
                        break;
                    };
                    order.take(back);
                    found_cut = order.settle(map.as_ref(), &mut again, emit);
                    if found_cut.is_some() {
                        break;
                    }
                }
            }
            // What is still on the pool after an error ended the reading:
            // the chunks before it are handed out (a cut found now has its
            // error already: the rest could not be read).
            while order.in_flight > 0 {
                let Ok(back) = rx.recv() else {
                    break;
                };
                order.take(back);
            }
            let _ = order.settle(map.as_ref(), &mut again, emit);
        });
        let mut sink = make();
        let mut out = self.out(piece);
        if failure.is_none()
            && let Some(e) = report.take()
        {
            tail.errors += 1;
            let (line, offset) = feed.position(order.line);
            failure = Some(ended_early(e, line, offset));
        }
        let read = feed.bytes_read();
        let unreadable = failure.is_some() && read == 0;
        if let Some(e) = &failure
            && !unreadable
        {
            out.bad(&mut sink, piece, e, None);
        }
        let rest = read.saturating_sub(in_chunks);
        let mut done = piece_done(piece, sink, tail, rest, format);
        done.last = true;
        done.failure = failure;
        done.unreadable = unreadable;
        emit(Msg::Done(done, out));
    }
}

/// A reading of `map`'s file from byte `from`, the start of line `line`,
/// to its end (its shrinking told as any reading tells it).
fn read_at<'m, 'r>(
    map: &'m FileMap,
    from: usize,
    line: u64,
    size: usize,
    max_line: usize,
) -> Result<Feed<'m, 'r>, Error> {
    let rdr = map
        .reader_at(from as u64)
        .map_err(|e| Error::open(e).relocated(Position::new(line, from as u64)))?;
    let limit = (max_line as u64).saturating_mul(RUNAWAY_FACTOR);
    let rdr: Box<dyn Read + 'r> = Box::new(LfWatch::new(rdr, limit));
    Ok(Feed::Read(
        ChunkReader::with_max_line(rdr, size, max_line).starting_at(from as u64, line),
    ))
}

/// The chunk `b[from..end]` (cut by [`cut_map`]) as it is handed out:
/// whole, or up to its first line longer than `max_line`, or
/// [`MapCut::Read`] when that line is its first (a reading says such a
/// line, or finds that the input is no stream of lines, as a reading of
/// the whole input would); with `count`, the LFs of what is handed out, for
/// the line numbers of the chunks after it. One pass over the bytes at
/// most, on the reading thread: lines are looked at one by one only when
/// the chunk is longer than the maximum line (else none of its lines can
/// be), and not at all when neither is asked.
fn within(
    b: &[u8],
    from: usize,
    end: usize,
    max_line: usize,
    count: bool,
) -> (MapCut, Option<u64>) {
    let chunk = &b[from..end];
    if chunk.len() <= max_line {
        let lfs = count.then(|| memchr::memchr_iter(b'\n', chunk).count() as u64);
        return (MapCut::Chunk(end), lfs);
    }
    let (mut start, mut lfs) = (0, 0);
    for lf in memchr::memchr_iter(b'\n', chunk).chain(std::iter::once(chunk.len())) {
        if lf - start > max_line {
            let cut = match start {
                0 => MapCut::Read,
                _ => MapCut::Chunk(from + start),
            };
            return (cut, count.then_some(lfs));
        }
        lfs += u64::from(lf < chunk.len());
        start = lf + 1;
    }
    (MapCut::Chunk(end), count.then_some(lfs))
}
