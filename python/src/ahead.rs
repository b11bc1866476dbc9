//! One large file's runs on two cores: the file is read in chunks cut
//! after an LF ([`ChunkReader`]), two chunks at a time are parsed at once
//! on the pool ([`ReadAhead`], the read `cctape stats` does: long tool
//! payloads from a pruned copy), and their lines are folded in input order
//! on this thread ([`PrunedReader::take_ahead`]), so the runs are the ones
//! a one-thread read gives by construction, as with the command's `--jobs`.
//!
//! Only a plain file (not compressed, not a stream) of stream-json lines
//! of at least [`SPLIT_AT`] bytes is read this way; anything else is read
//! whole by [`crate::sources::read_input`]. Lines are counted, and bad
//! lines, lines past the maximum and an input that breaks off are told to
//! the fold, as [`cctape::inputs::read_source`] does.

use crate::report::InputRuns;
use cctape::error::Error;
use cctape::framing::Line;
use cctape::inputs::{
    InputEnd, Prefixed, RUNAWAY_FACTOR, ReadOptions, ended_early, explain_line_error, read_prefix,
};
use cctape::parse::Parser;
use cctape::sniff::Reading;
use cctape::source::{Chunk, ChunkReader, LfWatch, Source};
use cctape::stats::{AheadLine, PrunedReader, ReadAhead};
use cctape::stream::{Counts, line_too_long};
use std::path::Path;

/// Files from this size on are read in chunks (as the command cuts them;
/// `CCTAPE_SPLIT_AT` lowers it, so that tests see chunks on small files).
pub const SPLIT_AT: u64 = 32 << 20;

/// Bytes in a chunk (`CCTAPE_CHUNK` in tests): small enough that a chunk's
/// tapes are still in the cache when they are folded (the command's size).
pub const CHUNK: usize = 256 << 10;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What was read between two parses: a chunk, or a line past the maximum.
enum Piece {
    Chunk(Chunk),
    TooLong(Error),
}

/// The folding side: the runs, the counts, the reader that knows whether
/// the input carries partial messages.
struct Fold<'r> {
    runs: &'r mut InputRuns,
    reader: PrunedReader,
    parser: Parser,
    counts: Counts,
}

impl Fold<'_> {
    fn bad(&mut self, e: Error, line: &Line<'_>) {
        self.counts.errors += 1;
        let e = explain_line_error(e, Some(line.bytes));
        self.runs.push_error(&e, Some(line.bytes));
    }

    fn too_long(&mut self, e: &Error) {
        self.counts.lines += 1;
        self.counts.errors += 1;
        self.runs.push_error(e, None);
    }

    /// A parsed chunk's lines, in order.
    fn chunk(&mut self, ahead: &mut ReadAhead, bytes: &[u8]) {
        for (line, item) in ahead.lines(bytes) {
            self.counts.lines += 1;
            let read = match item {
                AheadLine::Blank => {
                    self.counts.blank_lines += 1;
                    continue;
                }
                AheadLine::TooLong => {
                    self.counts.errors += 1;
                    self.runs.push_error(&line_too_long(&line), None);
                    continue;
                }
                AheadLine::Failed(e) => Err(e),
                AheadLine::Event { event, pruned } => {
                    match self
                        .reader
                        .take_ahead(&mut self.parser, &line, event, pruned)
                    {
                        Ok(ev) => {
                            self.counts.events += 1;
                            self.runs.push(&ev);
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            if let Err(e) = read {
                self.bad(e, &line);
            }
        }
    }
}

/// Fold the file at `path` into `runs` on two cores when it is a large
/// plain file of stream-json lines (see the module's doc) and return how
/// it ended; `None` (nothing folded) for any other input.
pub fn fold_path(path: &Path, opts: &ReadOptions, runs: &mut InputRuns) -> Option<InputEnd> {
    let src = Source::open(path).ok()?;
    let size = src.kind().size().unwrap_or(0);
    if !src.is_plain_file() || size < env_or("CCTAPE_SPLIT_AT", SPLIT_AT) {
        return None;
    }
    let report = src.report().clone();
    let mut raw = src.into_reader();
    let (prefix, read_error) = read_prefix(&mut raw, false);
    let format = opts.format.resolve(&prefix);
    if format.reading() != Reading::StreamLines {
        return None;
    }
    let max_line = opts.max_line.max(1);
    let rdr = Prefixed::new(prefix, read_error, raw);
    // An endless line ends the input, as a whole read ends it.
    let rdr = LfWatch::new(rdr, (max_line as u64).saturating_mul(RUNAWAY_FACTOR));
    let mut chunks = ChunkReader::with_max_line(rdr, env_or("CCTAPE_CHUNK", CHUNK), max_line);
    let mut fold = Fold {
        runs,
        reader: PrunedReader::new(),
        parser: Parser::new(),
        counts: Counts::default(),
    };
    let mut readers = [ReadAhead::new(false), ReadAhead::new(false)];
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut failure: Option<Error> = None;
    let mut ended = false;
    while !ended {
        // Two chunks (and the lines past the maximum before them), in order.
        let mut pieces = Vec::with_capacity(2);
        let mut two = 0;
        while two < 2 {
            match chunks.next_chunk(spare.pop().unwrap_or_default()) {
                None => {
                    ended = true;
                    break;
                }
                Some(Ok(c)) => {
                    pieces.push(Piece::Chunk(c));
                    two += 1;
                }
                Some(Err(e)) if !e.is_fatal() => pieces.push(Piece::TooLong(e)),
                Some(Err(e)) => {
                    failure = Some(e);
                    ended = true;
                    break;
                }
            }
        }
        let mut parsed = pieces.iter().filter_map(|p| match p {
            Piece::Chunk(c) => Some(c),
            Piece::TooLong(_) => None,
        });
        let (first, second) = (parsed.next(), parsed.next());
        let [r0, r1] = &mut readers;
        let read = |ahead: &mut ReadAhead, c: Option<&Chunk>| {
            if let Some(c) = c {
                ahead.read(c.bytes(), (c.offset, c.first_line), max_line);
            }
        };
        rayon::join(|| read(r0, first), || read(r1, second));
        let mut k = 0;
        for p in pieces {
            match p {
                Piece::TooLong(e) => fold.too_long(&e),
                Piece::Chunk(c) => {
                    fold.chunk(&mut readers[k], c.bytes());
                    k += 1;
                    spare.push(c.into_buffer());
                }
            }
        }
    }
    let mut counts = fold.counts;
    let bytes = chunks.bytes_read();
    let unreadable = counts.lines == 0 && bytes == 0;
    if let Some(e) = &failure {
        counts.errors += 1;
        if !unreadable {
            fold.runs.push_error(e, None);
        }
    } else if let Some(e) = report.take() {
        counts.errors += 1;
        let e = ended_early(e, counts.lines + 1, bytes);
        fold.runs.push_error(&e, None);
        failure = Some(e);
    }
    Some(InputEnd {
        counts,
        bytes,
        format: Some(format),
        unreadable: failure.is_some() && unreadable,
        failure,
        stopped: false,
    })
}
