//! A large plain file read on the pool: parsed ahead for a sink that folds
//! in order ([`Ctx::read_ahead`]), or cut into chunks read apart for a sink
//! that looks at each line alone ([`Ctx::read_chunked`]). Each byte is read
//! once; counts, errors and what is said of them are the ones a stream read
//! gives.

use super::read::{
    Out, Taken, count_line, ended_early, finish_input, piece_done, read_slice, read_stream,
};
use super::{AHEAD_CHUNK, CHUNK, Ctx, Done, Msg, Piece, Sink};
use cctape::error::Error;
use cctape::sniff::Format;
use cctape::source::{Chunk, ChunkReader, EndReport};
use cctape::stats::{AheadLine, ReadAhead};
use cctape::stream::Counts;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::mpsc;

impl<'a, S: Sink, M: Fn() -> S + Sync> Ctx<'a, M> {
    /// A large plain file for a sink that folds in order and reads ahead
    /// ([`Sink::reads_ahead`]): chunks read here, parsed on the pool (at
    /// most `jobs + 1` read and not yet folded), folded in input order by
    /// the one sink on a thread of its own, so that neither reading nor
    /// folding waits for the other. Counts and errors are the ones
    /// [`read_stream`] gives.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_ahead(
        &self,
        sink: S,
        src: impl Read,
        report: &EndReport,
        piece: &Piece<'_>,
        format: Format,
        out: Out<'a>,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) {
        let max_line = self.opts.max_line;
        let Some(pool) = self.pool() else {
            read_stream(piece, sink, src, report, max_line, format, out, emit);
            return;
        };
        let size = self.opts.chunk.unwrap_or(AHEAD_CHUNK);
        let mut chunks = ChunkReader::with_max_line(src, size, max_line);
        let mut failure: Option<Error> = None;
        let (to_fold, parsed) = mpsc::channel::<(usize, Parsed)>();
        let (give_back, taken_back) = mpsc::channel::<(ReadAhead, Vec<u8>)>();
        let (send_out, outs) = mpsc::channel::<Out<'a>>();
        let (mut sink, mut counts, mut out) = std::thread::scope(|scope| {
            let folder =
                scope.spawn(move || fold_ahead(sink, piece, parsed, give_back, send_out, out));
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
                    .unwrap_or_else(|| (ReadAhead::new(), Vec::new()));
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
                out.bad(&mut sink, piece, e, None);
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
    pub(super) fn read_chunked(
        &self,
        src: impl Read,
        report: &EndReport,
        piece: &Piece<'_>,
        format: Format,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) {
        let make = || {
            let mut sink = (self.make)();
            sink.format(piece, format);
            sink
        };
        let Some(pool) = self.pool() else {
            let out = self.out(piece);
            read_stream(
                piece,
                make(),
                src,
                report,
                self.opts.max_line,
                format,
                out,
                emit,
            );
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
            let (tx, rx) = mpsc::channel::<(usize, Done<S>, Out<'a>, Vec<u8>)>();
            let mut pending: BTreeMap<usize, (Done<S>, Out<'a>)> = BTreeMap::new();
            let mut free: Vec<Vec<u8>> = Vec::new();
            let (mut next, mut emitted, mut in_flight) = (0usize, 0usize, 0usize);
            let mut settle = |pending: &mut BTreeMap<usize, (Done<S>, Out<'a>)>,
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
                        let mut out = self.out(&piece);
                        scope.spawn(move |_| {
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
                        let mut out = self.out(piece);
                        out.bad(&mut sink, piece, &e, None);
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
        let mut out = self.out(piece);
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
            out.bad(&mut sink, piece, e, None);
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
fn fold_ahead<'n, S: Sink>(
    mut sink: S,
    piece: &Piece<'_>,
    parsed: mpsc::Receiver<(usize, Parsed)>,
    give_back: mpsc::Sender<(ReadAhead, Vec<u8>)>,
    send_out: mpsc::Sender<Out<'n>>,
    mut out: Out<'n>,
) -> (S, Counts, Out<'n>) {
    let mut counts = Counts::default();
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
                    out.bad(&mut sink, piece, &e, None);
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
            if out.full() {
                let _ = send_out.send(out.block());
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
    out: &mut Out<'_>,
) {
    for (line, item) in ahead.lines(bytes) {
        let taken = match item {
            AheadLine::Blank => Taken::Blank,
            AheadLine::TooLong => Taken::TooLong,
            AheadLine::Event(event) => {
                Taken::Read(sink.line_ahead(piece, &line, event, &mut out.bytes))
            }
            AheadLine::Failed(e) => Taken::Read(Err(e)),
        };
        count_line(sink, piece, counts, &line, taken, out);
    }
}
