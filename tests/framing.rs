//! Framing against a naive oracle, and the three event paths against each
//! other.
//!
//! The oracle is a plain `split(|&b| b == b'\n')` with the empty piece after a
//! final LF dropped and a leading BOM removed. [`Lines`], [`LineDecoder`] fed
//! any chunking and [`LineReader`] over a reader that returns short reads, at
//! every read size from 1 to 64, must all give what the oracle gives (with
//! lines past the maximum replaced by one `LineTooLong` error). Events must
//! be the same through [`SliceEvents`], [`EventReader`] with tiny buffers and
//! [`LineDecoder`] + the scanner, and a valid stream cut at any byte must give
//! the events of its complete lines plus at most one `truncated` error.

use cctape::event::parse_event;
use cctape::{
    Error, ErrorKind, EventKind, EventReader, Line, LineDecoder, LineReader, Lines, SliceEvents,
};
use proptest::prelude::*;
use std::io::{self, Read};

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

// ---------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------

fn slice_lines(input: &[u8]) -> Vec<OwnedLine> {
    Lines::new(input).map(|l| OwnedLine::of(&l)).collect()
}

#[test]
fn lines_oracle_fixed_cases() {
    let ol = |b: &[u8], number, offset, terminated| OwnedLine {
        bytes: b.to_vec(),
        number,
        offset,
        terminated,
    };
    assert_eq!(slice_lines(b""), vec![]);
    assert_eq!(slice_lines(BOM), vec![]);
    assert_eq!(slice_lines(b"\n"), vec![ol(b"", 1, 0, true)]);
    assert_eq!(
        slice_lines(b"a\r\n\nb"),
        vec![
            ol(b"a\r", 1, 0, true),
            ol(b"", 2, 3, true),
            ol(b"b", 3, 4, false)
        ]
    );
    assert_eq!(
        slice_lines(b"\xEF\xBB\xBFx\n\xEF\xBB\xBFy\n"),
        vec![ol(b"x", 1, 3, true), ol(b"\xEF\xBB\xBFy", 2, 5, true)]
    );
    // Only LF ends a line.
    let seps = "a\u{2028}b\u{2029}c\u{85}d\re\x0bf\x0cg\n".as_bytes();
    assert_eq!(
        slice_lines(seps),
        vec![ol(&seps[..seps.len() - 1], 1, 0, true)]
    );
    for input in [&b""[..], BOM, b"\n", b"a\r\n\nb", seps] {
        assert_eq!(slice_lines(input), naive_lines(input), "{input:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lines_equal_the_naive_split(input in input_bytes(200)) {
        prop_assert_eq!(slice_lines(&input), naive_lines(&input));
    }

    #[test]
    fn lines_with_start_keeps_true_positions(input in input_bytes(120), pick in any::<prop::sample::Index>()) {
        let want = naive_lines(&input);
        // Cut right after one of the LFs (or nowhere when there is none).
        let lfs: Vec<usize> = input.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1).collect();
        prop_assume!(!lfs.is_empty());
        let cut = *pick.get(&lfs);
        let mut first = Lines::new(&input[..cut]);
        let mut got: Vec<OwnedLine> = first.by_ref().map(|l| OwnedLine::of(&l)).collect();
        prop_assert!(first.remaining().is_empty());
        let next_number = got.len() as u64 + 1;
        let mut second = Lines::with_start(&input[cut..], next_number, cut as u64);
        prop_assert_eq!(second.remaining(), &input[cut..]);
        got.extend(second.by_ref().map(|l| OwnedLine::of(&l)));
        prop_assert!(second.remaining().is_empty());
        prop_assert_eq!(got, want);
    }

    #[test]
    fn lines_remaining_is_what_follows_the_last_line_taken(input in input_bytes(120), take in 0usize..20) {
        let want = naive_lines(&input);
        let mut lines = Lines::new(&input);
        let mut taken = 0;
        while taken < take && lines.next().is_some() {
            taken += 1;
        }
        let rest_start = if taken == 0 {
            if input.starts_with(BOM) { BOM.len() } else { 0 }
        } else {
            let l = &want[taken - 1];
            (l.offset as usize + l.bytes.len() + usize::from(l.terminated)).min(input.len())
        };
        prop_assert_eq!(lines.remaining(), &input[rest_start..]);
    }
}

// ---------------------------------------------------------------------------
// Decoder and reader against the oracle
// ---------------------------------------------------------------------------

const NO_MAX: usize = usize::MAX;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoder_equals_lines_for_random_chunking(input in input_bytes(150), sizes in chunk_sizes()) {
        let want = naive_items(&input, NO_MAX);
        prop_assert_eq!(decode_chunked(&input, &sizes, NO_MAX, Feed::Push), want.clone());
        prop_assert_eq!(decode_chunked(&input, &sizes, NO_MAX, Feed::Spare), want);
    }

    #[test]
    fn decoder_equals_lines_at_every_chunk_size(input in input_bytes(100)) {
        let want = naive_items(&input, NO_MAX);
        for size in 1..=64 {
            let feed = if size % 2 == 0 { Feed::Push } else { Feed::Spare };
            prop_assert_eq!(decode_chunked(&input, &[size], NO_MAX, feed), want.clone(), "chunk size {}", size);
        }
    }

    #[test]
    fn reader_equals_lines_at_every_read_size(
        input in input_bytes(100),
        short in prop::collection::vec(1usize..=80, 1..16),
        interrupt_every in prop_oneof![Just(0usize), 2usize..7],
    ) {
        let want = naive_items(&input, NO_MAX);
        for read_size in 1..=64 {
            prop_assert_eq!(
                read_lines(&input, read_size, &short, interrupt_every, NO_MAX),
                want.clone(),
                "read size {}", read_size
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Lines past the maximum
// ---------------------------------------------------------------------------

#[test]
fn long_line_is_one_error_and_numbers_go_on_fixed_case() {
    // Line 2 (20 bytes) is longer than the maximum (8); fed one byte at a time
    // the decoder sees it grow past the maximum before its LF.
    let input = b"short\n01234567890123456789\nok\nlast";
    let want = vec![
        Item::Line(OwnedLine {
            bytes: b"short".to_vec(),
            number: 1,
            offset: 0,
            terminated: true,
        }),
        Item::TooLong {
            number: 2,
            offset: 6,
        },
        Item::Line(OwnedLine {
            bytes: b"ok".to_vec(),
            number: 3,
            offset: 27,
            terminated: true,
        }),
        Item::Line(OwnedLine {
            bytes: b"last".to_vec(),
            number: 4,
            offset: 30,
            terminated: false,
        }),
    ];
    assert_eq!(naive_items(input, 8), want);
    assert_eq!(decode_chunked(input, &[1], 8, Feed::Push), want);
    assert_eq!(read_lines(input, 1, &[1], 0, 8), want);
    // An unterminated last line past the maximum is an error too.
    let input = b"ok\n0123456789";
    let want = vec![
        Item::Line(OwnedLine {
            bytes: b"ok".to_vec(),
            number: 1,
            offset: 0,
            terminated: true,
        }),
        Item::TooLong {
            number: 2,
            offset: 3,
        },
    ];
    assert_eq!(decode_chunked(input, &[1], 4, Feed::Push), want);
    assert_eq!(read_lines(input, 1, &[1], 0, 4), want);
}

#[test]
fn long_line_whose_lf_arrives_in_one_chunk_is_an_error() {
    // The decoder checks the maximum only while no LF is buffered, so the same
    // line is an error or a line depending on how the bytes were chunked.
    let input = b"01234567890123456789\nok\n";
    let want = vec![
        Item::TooLong {
            number: 1,
            offset: 0,
        },
        Item::Line(OwnedLine {
            bytes: b"ok".to_vec(),
            number: 2,
            offset: 21,
            terminated: true,
        }),
    ];
    assert_eq!(decode_chunked(input, &[1], 8, Feed::Push), want);
    assert_eq!(decode_chunked(input, &[input.len()], 8, Feed::Push), want);
    assert_eq!(read_lines(input, 64, &[64], 0, 8), want);
    // Even byte by byte: the first line's bytes wait for the BOM check (3
    // bytes or an LF), so a first line of 2 bytes with max_line 1 arrives
    // with its LF.
    let input = b"ab\ncd\n";
    let want = vec![
        Item::TooLong {
            number: 1,
            offset: 0,
        },
        Item::TooLong {
            number: 2,
            offset: 3,
        },
    ];
    assert_eq!(decode_chunked(input, &[1], 1, Feed::Push), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Byte-at-a-time feeding always sees an over-long line grow past the
    /// maximum before its LF: one error, and the numbers and offsets after it
    /// are right.
    #[test]
    fn long_lines_fed_bytewise_are_one_error_each(input in sized_lines(), max_line in 3usize..24) {
        let want = naive_items(&input, max_line);
        prop_assert_eq!(decode_chunked(&input, &[1], max_line, Feed::Push), want.clone());
        prop_assert_eq!(decode_chunked(&input, &[1], max_line, Feed::Spare), want.clone());
        prop_assert_eq!(read_lines(&input, 1, &[1], 0, max_line), want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn long_lines_are_one_error_each_for_any_chunking(
        input in sized_lines(),
        max_line in 1usize..24,
        sizes in chunk_sizes(),
        read_size in 1usize..=64,
    ) {
        let want = naive_items(&input, max_line);
        prop_assert_eq!(decode_chunked(&input, &sizes, max_line, Feed::Push), want.clone());
        prop_assert_eq!(read_lines(&input, read_size, &sizes, 0, max_line), want);
    }
}

// ---------------------------------------------------------------------------
// BOM
// ---------------------------------------------------------------------------

/// Every way of cutting `input` into chunks of 1 to 3 bytes at its start,
/// then the rest in one chunk.
fn bom_chunkings(input: &[u8]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for a in 1..=3 {
        for b in 1..=3 {
            for c in 1..=3 {
                out.push(vec![a, b, c, input.len().max(1)]);
            }
        }
    }
    out
}

fn decode_with_plan(input: &[u8], plan: &[usize]) -> Vec<Item> {
    let mut dec = LineDecoder::new();
    let mut out = Vec::new();
    let mut pos = 0;
    for &n in plan {
        let n = n.min(input.len() - pos);
        dec.push(&input[pos..pos + n]);
        pos += n;
        drain(&mut dec, Feed::Push, &mut out);
    }
    assert_eq!(pos, input.len());
    dec.finish();
    drain(&mut dec, Feed::Push, &mut out);
    out
}

#[test]
fn bom_split_across_chunks_is_skipped() {
    let inputs: [&[u8]; 6] = [
        b"\xEF\xBB\xBF{\"type\":\"user\"}\nx",
        b"\xEF\xBB\xBF\n",
        b"\xEF\xBB\xBF",
        b"\xEF\xBB\xBFa",
        b"\xEF\xBB\xBF\xEF\xBB\xBF\n",
        b"\xEF\xBB\n\xBF",
    ];
    for input in inputs {
        let want = naive_items(input, NO_MAX);
        assert_eq!(slice_lines(input), naive_lines(input));
        for plan in bom_chunkings(input) {
            assert_eq!(
                decode_with_plan(input, &plan),
                want,
                "input {input:?} plan {plan:?}"
            );
        }
        for read_size in 1..=4 {
            assert_eq!(read_lines(input, read_size, &[1], 0, NO_MAX), want);
        }
    }
    // The first line starts after the BOM but its offset counts the BOM.
    let input = b"\xEF\xBB\xBF{}\n";
    let got = decode_with_plan(input, &[1, 1, 1, 3]);
    assert_eq!(
        got,
        vec![Item::Line(OwnedLine {
            bytes: b"{}".to_vec(),
            number: 1,
            offset: 3,
            terminated: true
        })]
    );
}

#[test]
fn bom_not_at_start_is_kept() {
    let inputs: [&[u8]; 4] = [
        b"a\n\xEF\xBB\xBFb\n",
        b"\n\xEF\xBB\xBF",
        b" \xEF\xBB\xBF\n",
        b"\xEF\xBB\xBF\xEF\xBB\xBFx",
    ];
    for input in inputs {
        let want = naive_items(input, NO_MAX);
        let bom_kept = want.iter().any(|i| match i {
            Item::Line(l) => l.bytes.windows(3).any(|w| w == BOM),
            Item::TooLong { .. } => false,
        });
        assert!(bom_kept, "the oracle keeps the BOM of {input:?}");
        assert_eq!(
            slice_lines(input)
                .into_iter()
                .map(Item::Line)
                .collect::<Vec<_>>(),
            want
        );
        for size in 1..=input.len() {
            assert_eq!(
                decode_chunked(input, &[size], NO_MAX, Feed::Push),
                want,
                "{input:?} chunk {size}"
            );
            assert_eq!(read_lines(input, size, &[size], 0, NO_MAX), want);
        }
    }
}

// ---------------------------------------------------------------------------
// Events: the three paths agree
// ---------------------------------------------------------------------------

/// One event or error, with what identifies it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct EventItem {
    line: u64,
    offset: u64,
    what: Result<(EventKind, Vec<u8>), (ErrorKind, Option<u64>)>,
}

fn event_item(r: Result<cctape::Event<'_>, Error>) -> EventItem {
    match r {
        Ok(ev) => EventItem {
            line: ev.line(),
            offset: ev.offset(),
            what: Ok((ev.kind(), ev.raw().to_vec())),
        },
        Err(e) => EventItem {
            line: e.position().line,
            offset: e.position().offset,
            what: Err((e.kind(), e.position().column)),
        },
    }
}

fn slice_events(input: &[u8]) -> (Vec<EventItem>, cctape::Counts) {
    let mut events = SliceEvents::new(input);
    let mut out = Vec::new();
    while let Some(item) = events.next_event() {
        out.push(event_item(item));
    }
    assert!(events.next_event().is_none());
    (out, events.counts())
}

fn reader_events(
    input: &[u8],
    read_size: usize,
    short: &[usize],
) -> (Vec<EventItem>, cctape::Counts) {
    let rdr = ShortReader::new(input, short, 0);
    let mut events = EventReader::with_capacity(rdr, read_size, 1 << 20);
    let mut out = Vec::new();
    while let Some(item) = events.next_event() {
        out.push(event_item(item));
    }
    assert!(events.next_event().is_none());
    assert_eq!(events.bytes_read(), input.len() as u64);
    (out, events.counts())
}

fn decoder_events(input: &[u8], sizes: &[usize]) -> Vec<EventItem> {
    fn take(dec: &mut LineDecoder, parser: &mut cctape::json::Scanner, out: &mut Vec<EventItem>) {
        while let Some(r) = dec.next_line() {
            match r {
                Ok(line) if line.is_blank() => {}
                Ok(line) => out.push(event_item(parse_event(parser, &line))),
                Err(e) => out.push(event_item(Err(e))),
            }
        }
    }
    let mut dec = LineDecoder::new();
    let mut parser = cctape::json::Scanner::new();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    while pos < input.len() {
        let n = sizes[i % sizes.len()].max(1).min(input.len() - pos);
        i += 1;
        dec.push(&input[pos..pos + n]);
        pos += n;
        take(&mut dec, &mut parser, &mut out);
    }
    dec.finish();
    take(&mut dec, &mut parser, &mut out);
    out
}

/// Lines to build event streams from: events, edge cases and garbage.
const POOL: &[&[u8]] = &[
    r#"{"type":"user"}"#.as_bytes(),
    r#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}"#.as_bytes(),
    r#"{"is_error":false,"num_turns":2,"subtype":"success","type":"result","total_cost_usd":0.5}"#.as_bytes(),
    r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"a b c"}]},"parent_tool_use_id":null}"#.as_bytes(),
    "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"x\u{2028}y\u{2029}z\u{85}w\u{feff}\"}]}}".as_bytes(),
    "{\"type\":\"user\",\"text\":\"emoji \u{1F600} and \u{4e2d}\u{6587}\"}".as_bytes(),
    "{\"type\":\"system\",\"subtype\":\"status\"}\r".as_bytes(),
    r#"{"type":"stream_event","event":{"type":"message_stop"}}"#.as_bytes(),
    r#"{"type":"progress","data":{"a":[1,2,{"b":null}]}}"#.as_bytes(),
    r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":18446744073709551616}"#.as_bytes(),
    r#"{"type":"system","subtype":"task_summary","detail":"cut \ud83d"}"#.as_bytes(),
    r#"{"type":"user","type":"assistant"}"#.as_bytes(),
    r#"{"type":"user","type":"user"}"#.as_bytes(),
    "".as_bytes(),
    "   ".as_bytes(),
    " \t\r".as_bytes(),
    "not json".as_bytes(),
    "[1,2]".as_bytes(),
    "7".as_bytes(),
    r#"{"foo":1}"#.as_bytes(),
    r#"{"type":7}"#.as_bytes(),
    r#"{"type":"user","a":}"#.as_bytes(),
    b"{\"type\":\"user\",\"s\":\"\xff\"}",
    "{\"type\":\"user\",\"s\":\"bad \x01 control\"}".as_bytes(),
    r#"{"type":"user","s":"unterminated"#.as_bytes(),
    r#"{"type":"result","subtype":"success""#.as_bytes(),
];

fn event_stream() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec(
            prop_oneof![
                6 => prop::sample::select(POOL).prop_map(<[u8]>::to_vec),
                1 => prop::collection::vec(atom(), 0..6).prop_map(|a| a.concat()),
                1 => Just(vec![0xFF, b'{']),
            ],
            0..24,
        ),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, final_lf)| {
            let mut v = if bom { BOM.to_vec() } else { Vec::new() };
            let n = lines.len();
            for (i, l) in lines.into_iter().enumerate() {
                v.extend_from_slice(&l);
                if i + 1 < n || final_lf {
                    v.push(b'\n');
                }
            }
            v
        })
}

#[test]
fn pool_lines_read_as_expected() {
    // The pool must hold events and errors of every per-line kind, or the
    // comparisons below could pass by comparing nothing.
    let mut input = POOL.join(&b'\n');
    input.push(b'\n');
    let (items, counts) = slice_events(&input);
    let kinds: Vec<_> = items.iter().map(|i| i.what.clone()).collect();
    let errs: Vec<ErrorKind> = kinds
        .iter()
        .filter_map(|k| k.as_ref().err().map(|e| e.0))
        .collect();
    for k in [
        ErrorKind::InvalidJson,
        ErrorKind::InvalidUtf8,
        ErrorKind::NotAnObject,
        ErrorKind::MissingType,
        ErrorKind::DuplicateKey,
    ] {
        assert!(errs.contains(&k), "no {k} in {errs:?}");
    }
    assert_eq!(counts.lines, POOL.len() as u64);
    assert_eq!(counts.blank_lines, 3);
    assert_eq!(counts.events + counts.errors, POOL.len() as u64 - 3);
    assert!(counts.events >= 12, "{counts:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn events_are_the_same_on_all_three_paths(
        input in event_stream(),
        sizes in chunk_sizes(),
        read_size in 1usize..=64,
    ) {
        let (want, want_counts) = slice_events(&input);
        prop_assert_eq!(want_counts.events + want_counts.errors, want.len() as u64);
        let (got, got_counts) = reader_events(&input, read_size, &sizes);
        prop_assert_eq!(&got, &want, "EventReader, read size {}", read_size);
        prop_assert_eq!(got_counts, want_counts);
        prop_assert_eq!(decoder_events(&input, &sizes), want);
    }
}

// ---------------------------------------------------------------------------
// A valid stream cut at any byte
// ---------------------------------------------------------------------------

fn serde_is_event(b: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(b)
        .ok()
        .is_some_and(|v| v.get("type").is_some_and(serde_json::Value::is_string))
}

/// Check what `prefix` (a valid stream cut) gives, against `full` (what the
/// whole stream gives, every line an event).
fn check_cut(stream: &[u8], full: &[EventItem], cut: usize, read_size: usize) {
    let prefix = &stream[..cut];
    let lines = naive_lines(prefix);
    // Events of the lines whose LF is inside the prefix.
    let complete = lines.iter().filter(|l| l.terminated).count();
    let mut want: Vec<EventItem> = full
        .iter()
        .filter(|e| e.line as usize <= complete)
        .cloned()
        .collect();
    let mut want_errors = 0;
    if let Some(tail) = lines.last().filter(|l| !l.terminated) {
        let blank = tail.bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
        if blank {
        } else if serde_is_event(&tail.bytes) {
            let whole = full
                .iter()
                .find(|e| e.line == tail.number)
                .expect("a complete tail is a line of the full stream");
            let kind = whole.what.as_ref().expect("full stream is all events").0;
            want.push(EventItem {
                line: tail.number,
                offset: tail.offset,
                what: Ok((kind, tail.bytes.clone())),
            });
        } else {
            want_errors = 1;
        }
    }
    let (got, counts) = slice_events(prefix);
    let (got_events, got_errors): (Vec<_>, Vec<_>) = got.into_iter().partition(|i| i.what.is_ok());
    assert_eq!(got_events, want, "cut at {cut}");
    assert_eq!(
        got_errors.len(),
        want_errors,
        "cut at {cut}: {got_errors:?}"
    );
    if let Some(e) = got_errors.first() {
        let tail = lines.last().unwrap();
        assert_eq!(
            (e.line, e.offset, e.what.as_ref().unwrap_err().0),
            (tail.number, tail.offset, ErrorKind::Truncated),
            "cut at {cut}"
        );
    }
    assert_eq!(counts.lines, lines.len() as u64, "cut at {cut}");
    assert_eq!(counts.errors, want_errors as u64);
    let (via_reader, reader_counts) = reader_events(prefix, read_size, &[read_size]);
    let (slice_again, _) = slice_events(prefix);
    assert_eq!(
        via_reader, slice_again,
        "cut at {cut}, read size {read_size}"
    );
    assert_eq!(reader_counts, counts);
}

fn full_events(stream: &[u8]) -> Vec<EventItem> {
    let (full, counts) = slice_events(stream);
    assert_eq!(counts.errors, 0, "the stream must be valid: {full:?}");
    assert_eq!(counts.events as usize, full.len());
    assert!(full.len() >= 3);
    full
}

/// A small valid stream, ASCII only.
const ASCII_STREAM: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-5-5","tools":["Bash","Read"]}"#,
    "\n",
    r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la"}}],"usage":{"input_tokens":2,"output_tokens":5}},"parent_tool_use_id":null}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a\nb","is_error":false}]}}"#,
    "\r\n",
    r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"{\"x\":[1,2]}"}}}"#,
    "\n\n",
    r#"{"is_error":false,"duration_ms":1234,"num_turns":1,"total_cost_usd":0.0123,"subtype":"success","type":"result"}"#,
    "\n",
);

/// The same with multi-byte characters inside strings.
const UNICODE_STREAM: &str = concat!(
    "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\n",
    "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"line\u{2028}sep\u{2029}para \u{1F600} \u{4e2d}\u{6587} \u{85}\"}]}}\n",
    "{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"caf\u{e9}\"}\n",
);

#[test]
fn ascii_stream_cut_at_any_byte_gives_complete_events_and_one_truncated() {
    let stream = ASCII_STREAM.as_bytes();
    let full = full_events(stream);
    for cut in 0..=stream.len() {
        check_cut(stream, &full, cut, cut % 64 + 1);
    }
}

#[test]
fn unicode_stream_cut_at_any_byte_gives_complete_events_and_one_truncated() {
    let stream = UNICODE_STREAM.as_bytes();
    let full = full_events(stream);
    for cut in 0..=stream.len() {
        check_cut(stream, &full, cut, cut % 64 + 1);
    }
}

fn corpus_stream(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/streams")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const VALID_STREAMS: &[&str] = &[
    "success-basic.jsonl",
    "two-subagents.jsonl",
    "interrupted.jsonl",
    "max-turns.jsonl",
    "api-error.jsonl",
    "no-result.jsonl",
    "partial-messages.jsonl",
    "background-task.jsonl",
    "tool-errors.jsonl",
    "hooks.jsonl",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn corpus_streams_cut_at_random_bytes(file in prop::sample::select(VALID_STREAMS), at in any::<prop::sample::Index>(), read_size in 1usize..=64) {
        let stream = corpus_stream(file);
        let full = full_events(&stream);
        check_cut(&stream, &full, at.index(stream.len() + 1), read_size);
    }
}

// ---------------------------------------------------------------------------
// Separators inside strings
// ---------------------------------------------------------------------------

fn separator_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "\u{2028}", "\u{2029}", "\u{85}", "\u{feff}", "a", " ", "\\n", "\\r", "\\u2028", "{",
            "}", "\\\"",
        ]),
        0..16,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn raw_separators_inside_strings_never_split_a_line(texts in prop::collection::vec(separator_text(), 1..8), read_size in 1usize..=64) {
        let mut input = String::new();
        for t in &texts {
            input.push_str(&format!("{{\"type\":\"user\",\"text\":\"{t}\"}}\n"));
        }
        let (items, counts) = slice_events(input.as_bytes());
        prop_assert_eq!(counts.lines, texts.len() as u64);
        prop_assert_eq!(counts.events, texts.len() as u64);
        let mut offset = 0;
        for (i, (item, raw)) in items.iter().zip(input.split_terminator('\n')).enumerate() {
            prop_assert_eq!(item.line, i as u64 + 1);
            prop_assert_eq!(item.offset, offset);
            prop_assert_eq!(&item.what, &Ok((EventKind::User, raw.as_bytes().to_vec())));
            offset += raw.len() as u64 + 1;
        }
        // The decoded text equals serde_json's.
        let mut events = SliceEvents::new(input.as_bytes());
        for raw in input.split_terminator('\n') {
            let ev = events.next_event().unwrap().unwrap();
            let want: serde_json::Value = serde_json::from_str(raw).unwrap();
            prop_assert_eq!(ev.get("text").and_then(|v| v.as_str()), want["text"].as_str());
        }
        let (via_reader, _) = reader_events(input.as_bytes(), read_size, &[read_size]);
        prop_assert_eq!(via_reader, items);
    }
}

// ---------------------------------------------------------------------------
// I/O errors
// ---------------------------------------------------------------------------

/// Hands out `data`, then fails.
struct FailingReader<'a> {
    data: &'a [u8],
    pos: usize,
    step: usize,
}

impl Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.data.len() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn io_error_ends_the_stream_after_the_complete_lines_before_it() {
    let data =
        b"{\"type\":\"user\"}\n\n{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"res";
    for step in 1..=8 {
        let rdr = FailingReader { data, pos: 0, step };
        let mut lines = LineReader::with_capacity(rdr, step, NO_MAX);
        let mut got = Vec::new();
        let mut err = None;
        while let Some(item) = lines.next_line() {
            match item {
                Ok(l) => got.push(OwnedLine::of(&l)),
                Err(e) => {
                    assert!(err.is_none(), "a second error");
                    err = Some(e);
                }
            }
        }
        let want: Vec<OwnedLine> = naive_lines(data)
            .into_iter()
            .filter(|l| l.terminated)
            .collect();
        assert_eq!(got, want, "step {step}");
        let err = err.expect("the I/O error is handed out");
        assert_eq!(err.kind(), ErrorKind::Io);
        assert!(err.is_fatal());
        assert_eq!(
            err.io_error().map(|e| e.to_string()).as_deref(),
            Some("disk on fire")
        );
        // The position is where the reader had got to: the line after the
        // complete ones, at the end of what was read.
        assert_eq!(err.position().line, 4);
        assert_eq!(err.position().offset, data.len() as u64);
        assert!(lines.next_line().is_none());

        let rdr = FailingReader { data, pos: 0, step };
        let mut events = EventReader::with_capacity(rdr, step, NO_MAX);
        let mut items = Vec::new();
        while let Some(item) = events.next_event() {
            items.push(event_item(item));
        }
        assert_eq!(items.len(), 3, "{items:?}");
        assert_eq!(
            items[0].what,
            Ok((EventKind::User, b"{\"type\":\"user\"}".to_vec()))
        );
        assert_eq!(items[1].line, 3);
        assert_eq!(items[1].what.as_ref().unwrap().0, EventKind::SystemInit);
        assert_eq!(items[2].what, Err((ErrorKind::Io, None)));
        let c = events.counts();
        assert_eq!((c.lines, c.blank_lines, c.events, c.errors), (3, 1, 2, 1));
    }
}
