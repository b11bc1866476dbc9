//! Lines against the naive split: [`Lines`], the decoder at any chunking
//! and the reader at any read size; lines past the maximum, one error
//! each; a BOM split across chunks, or not at the start.
use cctape::{LineDecoder, Lines};
use proptest::prelude::*;

use crate::{
    BOM, Feed, Item, NO_MAX, OwnedLine, chunk_sizes, decode_chunked, drain, input_bytes,
    naive_items, naive_lines, read_lines, sized_lines,
};

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
