//! Framing against a naive oracle, and the three event paths against each
//! other.
//!
//! The oracle is a plain `split(|&b| b == b'\n')` with the empty piece after a
//! final LF dropped and a leading BOM removed. [`Lines`](cctape::Lines),
//! [`LineDecoder`] fed any chunking and [`LineReader`] over a reader that
//! returns short reads, at every read size from 1 to 64, must all give what
//! the oracle gives (with lines past the maximum replaced by one
//! `LineTooLong` error). Events must be the same through
//! [`SliceEvents`](cctape::SliceEvents), [`EventReader`](cctape::EventReader)
//! with tiny buffers and [`LineDecoder`] + the scanner, and a valid stream
//! cut at any byte must give the events of its complete lines plus at most
//! one `truncated` error.
//!
//! The oracle, the feeding of the decoder and the reader, and the input
//! generators are here; the tests are in [`lines`] (lines, lines past the
//! maximum, the BOM) and [`events`] (the three event paths, cut streams,
//! separators inside strings, I/O errors).

use cctape::{Error, ErrorKind, Line, LineDecoder, LineReader};
use proptest::prelude::*;
use std::io::{self, Read};

mod events;
mod lines;

const BOM: &[u8] = b"\xEF\xBB\xBF";

// ---------------------------------------------------------------------------
// Oracle and owned results
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
struct OwnedLine {
    bytes: Vec<u8>,
    number: u64,
    offset: u64,
    terminated: bool,
}

impl OwnedLine {
    fn of(l: &Line<'_>) -> OwnedLine {
        OwnedLine {
            bytes: l.bytes.to_vec(),
            number: l.number,
            offset: l.offset,
            terminated: l.terminated,
        }
    }
}

/// What a line source hands out: a line, or a `LineTooLong` error at the
/// position of the line it replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Line(OwnedLine),
    TooLong { number: u64, offset: u64 },
}

fn item_of(r: Result<Line<'_>, Error>) -> Item {
    match r {
        Ok(l) => Item::Line(OwnedLine::of(&l)),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::LineTooLong, "unexpected error {e}");
            assert!(!e.is_fatal());
            Item::TooLong {
                number: e.position().line,
                offset: e.position().offset,
            }
        }
    }
}

/// The naive oracle: split on LF, drop the empty piece after a final LF,
/// strip a leading BOM (offsets still count it), number from 1.
fn naive_lines(input: &[u8]) -> Vec<OwnedLine> {
    let skip = if input.starts_with(BOM) { BOM.len() } else { 0 };
    let body = &input[skip..];
    let pieces: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let mut out = Vec::new();
    let mut offset = skip as u64;
    for (i, piece) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        if last && piece.is_empty() {
            break;
        }
        out.push(OwnedLine {
            bytes: piece.to_vec(),
            number: i as u64 + 1,
            offset,
            terminated: !last,
        });
        offset += piece.len() as u64 + 1;
    }
    out
}

/// The oracle with lines longer than `max_line` replaced by an error.
fn naive_items(input: &[u8], max_line: usize) -> Vec<Item> {
    naive_lines(input)
        .into_iter()
        .map(|l| {
            if l.bytes.len() > max_line {
                Item::TooLong {
                    number: l.number,
                    offset: l.offset,
                }
            } else {
                Item::Line(l)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Feeding the decoder and the reader
// ---------------------------------------------------------------------------

/// How bytes go into the decoder and lines come out.
#[derive(Clone, Copy, Debug)]
enum Feed {
    /// `push` and `next_line`.
    Push,
    /// `spare` + `commit` and `next_span` + `line`.
    Spare,
}

fn drain(dec: &mut LineDecoder, feed: Feed, out: &mut Vec<Item>) {
    match feed {
        Feed::Push => {
            while let Some(r) = dec.next_line() {
                out.push(item_of(r));
            }
        }
        Feed::Spare => {
            while let Some(r) = dec.next_span() {
                match r {
                    Ok(span) => {
                        let line = dec.line(span);
                        assert_eq!(span.len(), line.bytes.len());
                        assert_eq!(span.is_empty(), line.bytes.is_empty());
                        out.push(item_of(Ok(line)));
                    }
                    Err(e) => out.push(item_of(Err(e))),
                }
            }
        }
    }
}

/// Decode `input` cut into chunks whose sizes cycle through `sizes`.
fn decode_chunked(input: &[u8], sizes: &[usize], max_line: usize, feed: Feed) -> Vec<Item> {
    let mut dec = LineDecoder::with_max_line(max_line);
    let mut out = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    while pos < input.len() {
        let n = sizes[i % sizes.len()].max(1).min(input.len() - pos);
        i += 1;
        let chunk = &input[pos..pos + n];
        match feed {
            Feed::Push => dec.push(chunk),
            Feed::Spare => {
                let spare = dec.spare(n);
                assert!(spare.len() >= n, "spare({n}) gave {} bytes", spare.len());
                spare[..n].copy_from_slice(chunk);
                dec.commit(n);
            }
        }
        pos += n;
        assert_eq!(dec.bytes_pushed(), pos as u64);
        drain(&mut dec, feed, &mut out);
    }
    dec.finish();
    drain(&mut dec, feed, &mut out);
    assert!(dec.is_done(), "decoder not done after finish and drain");
    assert!(dec.next_line().is_none(), "a line after the end");
    assert_eq!(dec.pending(), 0);
    out
}

/// A reader that hands out at most `sizes[i]` bytes on its i-th read and
/// fails with `Interrupted` on every `interrupt_every`-th call (0: never).
struct ShortReader<'a> {
    data: &'a [u8],
    pos: usize,
    sizes: Vec<usize>,
    calls: usize,
    interrupt_every: usize,
}

impl<'a> ShortReader<'a> {
    fn new(data: &'a [u8], sizes: &[usize], interrupt_every: usize) -> ShortReader<'a> {
        ShortReader {
            data,
            pos: 0,
            sizes: if sizes.is_empty() {
                vec![usize::MAX]
            } else {
                sizes.to_vec()
            },
            calls: 0,
            interrupt_every,
        }
    }
}

impl Read for ShortReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        assert!(!buf.is_empty(), "read into an empty buffer looks like EOF");
        self.calls += 1;
        if self.interrupt_every > 0 && self.calls.is_multiple_of(self.interrupt_every) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "signal"));
        }
        let want = self.sizes[self.calls % self.sizes.len()].max(1);
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn read_lines(
    input: &[u8],
    read_size: usize,
    short: &[usize],
    interrupt_every: usize,
    max_line: usize,
) -> Vec<Item> {
    let rdr = ShortReader::new(input, short, interrupt_every);
    let mut r = LineReader::with_capacity(rdr, read_size, max_line);
    let mut out = Vec::new();
    while let Some(item) = r.next_line() {
        out.push(item_of(item));
    }
    assert!(r.next_line().is_none(), "a line after the end");
    assert_eq!(r.bytes_read(), input.len() as u64);
    assert_eq!(r.get_ref().pos, input.len());
    out
}

/// No line limit.
const NO_MAX: usize = usize::MAX;

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// Bytes biased toward what framing could get wrong.
fn atom() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => Just(b"\n".to_vec()),
        3 => Just(b"\r".to_vec()),
        2 => Just(b"\r\n".to_vec()),
        2 => Just("\u{2028}".as_bytes().to_vec()),
        2 => Just("\u{2029}".as_bytes().to_vec()),
        2 => Just("\u{85}".as_bytes().to_vec()),
        2 => Just(BOM.to_vec()),
        1 => Just(BOM[..1].to_vec()),
        1 => Just(BOM[..2].to_vec()),
        2 => Just(b"\"".to_vec()),
        2 => Just(b"{".to_vec()),
        2 => Just(b"}".to_vec()),
        1 => Just(b" \t".to_vec()),
        5 => prop::collection::vec(prop::sample::select(b"abcxyz:,0123".to_vec()), 1..12),
        3 => any::<u8>().prop_map(|b| vec![b]),
    ]
}

fn input_bytes(max_atoms: usize) -> impl Strategy<Value = Vec<u8>> {
    (any::<bool>(), prop::collection::vec(atom(), 0..max_atoms)).prop_map(|(bom, atoms)| {
        let mut v = if bom { BOM.to_vec() } else { Vec::new() };
        for a in atoms {
            v.extend_from_slice(&a);
        }
        v
    })
}

/// Chunk sizes 1..=64 mostly, sometimes larger.
fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![4 => 1usize..=64, 1 => 65usize..=700], 1..24)
}

/// Lines of chosen lengths (bytes without LF), for the long-line tests.
fn sized_lines() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec((0usize..40, any::<u8>()), 0..16),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, final_lf)| {
            let mut v = if bom { BOM.to_vec() } else { Vec::new() };
            let n = lines.len();
            for (i, (len, seed)) in lines.into_iter().enumerate() {
                v.extend((0..len).map(|k| b'a' + ((seed as usize + k) % 26) as u8));
                if i + 1 < n || final_lf {
                    v.push(b'\n');
                }
            }
            v
        })
}
