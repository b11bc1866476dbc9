//! Streams: the same bytes through `SliceEvents`, a `LineDecoder` fed
//! chunks and an `EventReader` over short reads; a valid stream cut at any
//! byte; and compressed inputs read to their end (part of `checks.rs`).

use cctape::event::parse_event;
use cctape::framing::{Line, LineDecoder, Lines};
use cctape::json::Scanner;
use cctape::source::{Compression, EndReport, Source, SourceKind};
use cctape::{Counts, ErrorKind, Event, EventKind, EventReader, Position, SliceEvents};
use std::io::{self, Read};

use super::BOM;

// ---------------------------------------------------------------------------
// Streams

/// One item of a stream, owned, to compare sources.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// An event: its position, kind and raw bytes.
    Event {
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line.
        offset: u64,
        /// Its kind.
        kind: EventKind,
        /// The line as read.
        raw: Vec<u8>,
    },
    /// A per-line (or I/O) error.
    Error {
        /// Its kind.
        kind: ErrorKind,
        /// Its position.
        position: Position,
    },
}

fn item(r: Result<Event<'_>, cctape::Error>) -> Item {
    match r {
        Ok(ev) => Item::Event {
            line: ev.line(),
            offset: ev.offset(),
            kind: ev.kind(),
            raw: ev.raw().to_vec(),
        },
        Err(e) => Item::Error {
            kind: e.kind(),
            position: e.position(),
        },
    }
}

/// The items and counts of [`SliceEvents`] over `data`.
pub fn slice_items(data: &[u8]) -> (Vec<Item>, Counts) {
    let mut s = SliceEvents::new(data);
    let mut out = Vec::new();
    while let Some(r) = s.next_event() {
        out.push(item(r));
    }
    (out, s.counts())
}

/// What any source must give for `data` when lines longer than `max_line`
/// are errors: [`Lines`] and the parser, by hand.
pub fn oracle_items(data: &[u8], max_line: usize) -> (Vec<Item>, Counts) {
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    let mut counts = Counts::default();
    for line in Lines::new(data) {
        counts.lines += 1;
        if line.bytes.len() > max_line {
            counts.errors += 1;
            out.push(Item::Error {
                kind: ErrorKind::LineTooLong,
                position: line.position(),
            });
            continue;
        }
        if line.is_blank() {
            counts.blank_lines += 1;
            continue;
        }
        let r = parse_event(&mut parser, &line);
        if r.is_ok() {
            counts.events += 1;
        } else {
            counts.errors += 1;
        }
        out.push(item(r));
    }
    (out, counts)
}

/// The items a [`LineDecoder`] with `max_line` gives when `data` is pushed
/// in chunks of the sizes in `sizes` (used in turn; 0 pushes an empty
/// chunk).
pub fn decoder_items(data: &[u8], sizes: &[usize], max_line: usize) -> Vec<Item> {
    let mut dec = LineDecoder::with_max_line(max_line);
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    let mut at = 0;
    let mut k = 0;
    let mut drain = |dec: &mut LineDecoder, out: &mut Vec<Item>| {
        while let Some(r) = dec.next_line() {
            match r {
                Ok(line) if line.is_blank() => {}
                Ok(line) => out.push(item(parse_event(&mut parser, &line))),
                Err(e) => out.push(item(Err(e))),
            }
        }
    };
    loop {
        let n = if sizes.is_empty() {
            data.len()
        } else {
            sizes[k % sizes.len()]
        };
        k += 1;
        let end = (at + n).min(data.len());
        dec.push(&data[at..end]);
        at = end;
        drain(&mut dec, &mut out);
        assert!(
            dec.pending() <= max_line.saturating_add(n).max(BOM.len()),
            "decoder holds more than a line"
        );
        if at == data.len() {
            break;
        }
    }
    dec.finish();
    drain(&mut dec, &mut out);
    assert!(dec.is_done());
    assert_eq!(dec.bytes_pushed(), data.len() as u64);
    out
}

/// A reader that returns at most `sizes[k]` bytes on its `k`th read (in
/// turn), and `Interrupted` where the size is 0.
pub struct ShortReader<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    k: usize,
}

impl<'a> ShortReader<'a> {
    /// A reader over `data` with read sizes `sizes`.
    pub fn new(data: &'a [u8], sizes: &'a [usize]) -> Self {
        ShortReader { data, sizes, k: 0 }
    }
}

impl Read for ShortReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = if self.sizes.is_empty() {
            usize::MAX
        } else {
            self.sizes[self.k % self.sizes.len()]
        };
        self.k += 1;
        if want == 0 && !self.data.is_empty() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "again"));
        }
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The items and counts of an [`EventReader`] with `read_size` and
/// `max_line` over a [`ShortReader`].
pub fn reader_items(
    data: &[u8],
    sizes: &[usize],
    read_size: usize,
    max_line: usize,
) -> (Vec<Item>, Counts) {
    let mut r = EventReader::with_capacity(ShortReader::new(data, sizes), read_size, max_line);
    let mut out = Vec::new();
    while let Some(x) = r.next_event() {
        out.push(item(x));
    }
    assert_eq!(r.bytes_read(), data.len() as u64);
    (out, r.counts())
}

/// Parameters for [`check_chunked`], drawn from the first bytes of a fuzz
/// input.
#[derive(Debug, Clone)]
pub struct Chunking {
    /// Chunk sizes for the decoder and read sizes for the reader.
    pub sizes: Vec<usize>,
    /// The reader's read size.
    pub read_size: usize,
    /// The longest line the decoder and the reader buffer.
    pub max_line: usize,
}

impl Chunking {
    /// Split `data` into parameters (its first up to 6 bytes) and the body.
    pub fn from_bytes(data: &[u8]) -> (Chunking, &[u8]) {
        let n = data.len().min(6);
        let (p, body) = data.split_at(n);
        let g = |i: usize| p.get(i).copied().unwrap_or(0) as usize;
        let mut seed = (g(0) | g(1) << 8 | g(2) << 16 | 1) as u32;
        let sizes = (0..8 + g(3) % 8)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                match seed % 16 {
                    0 => 0,
                    1 => 64 + (seed as usize >> 8) % 200,
                    v => v as usize,
                }
            })
            .collect();
        let read_size = 1 + g(4) % 64;
        let max_line = match g(5) % 4 {
            0 => usize::MAX,
            1 => 1 + g(5) % 16,
            _ => 16 + g(5) * 4,
        };
        (
            Chunking {
                sizes,
                read_size,
                max_line,
            },
            body,
        )
    }
}

/// The same bytes through every source agree: [`SliceEvents`] with the
/// oracle (no limit), and the decoder and reader, chunked per `ch`, with the
/// oracle at `ch.max_line`.
pub fn check_chunked(body: &[u8], ch: &Chunking) {
    let (slice, slice_counts) = slice_items(body);
    let (unlimited, unlimited_counts) = oracle_items(body, usize::MAX);
    assert_eq!(slice, unlimited, "SliceEvents differs from the oracle");
    assert_eq!(slice_counts, unlimited_counts);

    let (want, want_counts) = oracle_items(body, ch.max_line);
    let dec = decoder_items(body, &ch.sizes, ch.max_line);
    assert_eq!(dec, want, "LineDecoder differs from the oracle ({ch:?})");
    let one = decoder_items(body, &[], ch.max_line);
    assert_eq!(one, want, "LineDecoder (one push) differs from the oracle");
    let bytewise = decoder_items(body, &[1], ch.max_line);
    assert_eq!(bytewise, want, "LineDecoder (byte by byte) differs");

    let (rd, rd_counts) = reader_items(body, &ch.sizes, ch.read_size, ch.max_line);
    assert_eq!(rd, want, "EventReader differs from the oracle ({ch:?})");
    assert_eq!(rd_counts, want_counts, "EventReader counts differ");
}

/// Keep the lines of `data` that are events, one per line with LF: a valid
/// stream to cut.
pub fn valid_stream(data: &[u8]) -> Vec<u8> {
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    for line in Lines::new(data) {
        let l = Line {
            terminated: true,
            ..line
        };
        if !line.is_blank() && parse_event(&mut parser, &l).is_ok() {
            out.extend_from_slice(line.bytes);
            out.push(b'\n');
        }
    }
    out
}

/// `stream` is a valid stream (every line an event, LF-terminated). Cut at
/// `cut`, every source gives exactly the events of the lines whose LF came
/// before the cut, then at most one more item: the cut line as an event
/// (when what is left of it is a complete object) or one `truncated` error
/// at its position.
pub fn check_truncate(stream: &[u8], cut: usize, ch: &Chunking) {
    let (full, counts) = slice_items(stream);
    assert_eq!(counts.errors, 0, "the stream to cut is not valid");
    let lines: Vec<Line<'_>> = Lines::new(stream).collect();
    let cut = cut.min(stream.len());
    let part = &stream[..cut];

    let complete = lines
        .iter()
        .filter(|l| (l.offset + l.bytes.len() as u64) < cut as u64 && !l.is_blank())
        .count();
    let cut_line = lines
        .iter()
        .find(|l| (l.offset + l.bytes.len() as u64) >= cut as u64 && l.offset < cut as u64);

    let sources = [
        ("slice", slice_items(part).0),
        (
            "reader",
            reader_items(part, &ch.sizes, ch.read_size, usize::MAX).0,
        ),
        ("decoder", decoder_items(part, &ch.sizes, usize::MAX)),
    ];
    for (name, got) in sources {
        assert!(
            got.len() >= complete,
            "{name}: lost events before the cut at {cut}"
        );
        assert_eq!(
            &got[..complete],
            &full[..complete],
            "{name}: events before the cut at {cut} differ"
        );
        let extra = &got[complete..];
        assert!(
            extra.len() <= 1,
            "{name}: more than one item after the cut at {cut}: {extra:?}"
        );
        if let Some(x) = extra.first() {
            if cut < BOM.len() && stream.starts_with(BOM) {
                // Cut inside the BOM: what is left is an incomplete UTF-8
                // sequence on line 1.
                let want = Item::Error {
                    kind: ErrorKind::Truncated,
                    position: Position {
                        line: 1,
                        offset: 0,
                        column: match x {
                            Item::Error { position, .. } => position.column,
                            _ => None,
                        },
                        element: None,
                    },
                };
                assert_eq!(x, &want, "{name}: cut inside the BOM");
                continue;
            }
            let l = cut_line.expect("an item after the cut comes from the cut line");
            match x {
                Item::Error { kind, position } => {
                    assert_eq!(
                        *kind,
                        ErrorKind::Truncated,
                        "{name}: cut at {cut} gave {x:?}"
                    );
                    assert_eq!((position.line, position.offset), (l.number, l.offset));
                }
                Item::Event {
                    line,
                    offset,
                    kind,
                    raw,
                } => {
                    assert_eq!((*line, *offset), (l.number, l.offset));
                    assert!(l.bytes.starts_with(raw));
                    let Item::Event { kind: k, .. } = &full[complete] else {
                        panic!("{name}: the full stream has no event here");
                    };
                    assert_eq!(kind, k);
                }
            }
        }
    }
}

/// The magic bytes [`check_decompress`] puts in front of its input, chosen
/// by the input's first byte.
const MAGICS: [&[u8]; 6] = [
    &[0x1f, 0x8b],
    &[0x28, 0xb5, 0x2f, 0xfd],
    b"\xfd7zXZ\x00",
    b"BZh9",
    &[0x04, 0x22, 0x4d, 0x18],
    // An LZ4 legacy frame (`lz4 -l`).
    &[0x02, 0x21, 0x4c, 0x18],
];

/// Decoded bytes read per input at most: a few bytes of a compressed
/// format can stand for gigabytes.
const DECODED_CAP: u64 = 32 << 20;

/// Any bytes read as a compressed input: the first byte picks a format
/// whose magic goes in front of the rest (unless the rest already starts
/// with one, as mutated seeds do). The read ends (end, error or
/// [`DECODED_CAP`]) without a panic, and a read after an error or the end
/// ends too. Returns the decoded byte count.
pub fn check_decompress(data: &[u8]) -> u64 {
    let Some((&pick, rest)) = data.split_first() else {
        return 0;
    };
    let bytes = if Compression::detect(rest) == Compression::None {
        [MAGICS[pick as usize % MAGICS.len()], rest].concat()
    } else {
        rest.to_vec()
    };
    let report = EndReport::new();
    let Ok(src) = Source::new(&bytes[..], SourceKind::Stream, &report) else {
        return 0;
    };
    assert_ne!(src.compression(), Compression::None);
    let mut rdr = src.into_reader();
    let mut buf = [0u8; 4096];
    let mut total = 0u64;
    let ended = loop {
        match rdr.read(&mut buf) {
            Ok(0) => break true,
            Ok(n) => {
                assert!(n <= buf.len());
                total += n as u64;
                if total > DECODED_CAP {
                    break false;
                }
            }
            Err(_) => break true,
        }
    };
    if ended {
        // Past the end or an error, a reader stays ended.
        assert!(matches!(rdr.read(&mut buf), Ok(0) | Err(_)));
    }
    total
}
