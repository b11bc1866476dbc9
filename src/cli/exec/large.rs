//! A large plain file cut into chunks read apart on the pool, for a sink
//! that looks at each line alone ([`Ctx::read_chunked`]; a sink that folds
//! in order reads ahead instead, in `ahead.rs`). Each byte is read once;
//! counts, errors and what is said of them are the ones a stream read
//! gives.

use super::read::{Out, ended_early, piece_done, read_slice};
use super::{CHUNK, Ctx, Done, Msg, Piece, Sink};
use cctape::error::Error;
use cctape::inputs::ReadOptions;
use cctape::sniff::Format;
use cctape::source::{ChunkReader, EndReport};
use cctape::stream::Counts;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::mpsc;

impl<'a, S: Sink, M: Fn() -> S + Sync> Ctx<'a, M> {
    /// A large plain file for a sink that looks at lines alone: chunks read
    /// here in order, read by the pool, handed out in order.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_chunked(
        &self,
        pool: &rayon::ThreadPool,
        src: impl Read,
        report: &EndReport,
        piece: &Piece<'_>,
        opts: &ReadOptions,
        format: Format,
        emit: &mut dyn FnMut(Msg<'a, S>),
    ) {
        let make = || {
            let mut sink = (self.make)();
            sink.format(piece, format);
            sink
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
                                opts,
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
