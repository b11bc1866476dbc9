//! Every input that made a fuzz target fail, replayed through the same
//! checks by `cargo test`, plus one named test per bug.
//!
//! Inputs live in `tests/regressions/<target>/`, one file each, exactly as
//! the fuzzer wrote them (`fuzz/artifacts/<target>/crash-*`), except for
//! `events_arbitrary/`, which holds the byte stream the generator produced
//! (`CCTAPE_FUZZ_DUMP=path cargo fuzz run events_arbitrary crash-...`).

#[path = "support/checks.rs"]
mod checks;

use cctape::event::parse_event;
use cctape::framing::{Line, LineDecoder, Lines};
use cctape::json::Scanner;
use cctape::{ErrorKind, SliceEvents};
use checks::*;
use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions")
        .join(target);
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_file() {
            let bytes = std::fs::read(&p).unwrap();
            out.push((p, bytes));
        }
    }
    out.sort();
    out
}

/// Run `f` on each input, naming the file that fails.
fn replay(target: &str, f: impl Fn(&[u8])) -> usize {
    let all = inputs(target);
    for (path, bytes) in &all {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(bytes)));
        if let Err(e) = r {
            eprintln!("regression input {} fails", path.display());
            std::panic::resume_unwind(e);
        }
    }
    all.len()
}

#[test]
fn replay_framing_inputs() {
    replay("framing", check_framing);
}

/// The one reader's framings (`fuzz/fuzz_targets/one_reader.rs`). Both
/// inputs found the check's own blind spots, not the reader's: a line with
/// no LF past four times the maximum (a `Read` ends there, the guard
/// against `/dev/zero`; bytes held or pushed do not) and bytes behind an
/// xz magic (a `Read` decompresses them; bytes pushed are not). The check
/// compares held and pushed bytes only without either.
#[test]
fn replay_one_reader_inputs() {
    assert!(
        replay("one_reader", |b| {
            check_one_reader_input(b);
        }) >= 2
    );
}

#[test]
fn replay_parse_line_inputs() {
    replay("parse_line", |b| check_parse_line(b, serde_default));
}

#[test]
fn replay_scan_line_inputs() {
    replay("scan_line", check_scan_line);
    // The parse_line inputs are single lines too: the scanner must agree
    // with the tape on them.
    replay("parse_line", check_scan_line);
}

#[test]
fn replay_chunked_inputs() {
    let n = replay("chunked", |b| {
        let (ch, body) = Chunking::from_bytes(b);
        check_chunked(body, &ch);
    });
    assert!(n >= 1, "the chunked regression inputs are missing");
}

#[test]
fn replay_truncate_inputs() {
    replay("truncate", |b| {
        let (ch, rest) = Chunking::from_bytes(b);
        let (c, body) = rest.split_at(rest.len().min(3));
        let cut = c.iter().fold(0usize, |a, &x| a << 8 | x as usize);
        let stream = valid_stream(body);
        check_truncate(&stream, cut % (stream.len() + 1), &ch);
    });
}

#[test]
fn replay_events_arbitrary_streams() {
    replay("events_arbitrary", |b| {
        check_framing(b);
        for line in Lines::new(b) {
            if !line.is_blank() {
                differential(line.bytes, serde_default);
            }
        }
        let (ch, _) = Chunking::from_bytes(&[7, 42, 19, 5, 3, 2]);
        check_chunked(b, &ch);
        if valid_stream(b).len() == b.len() {
            for cut in 0..=b.len() {
                check_truncate(b, cut, &ch);
            }
        }
    });
}

// ---------------------------------------------------------------------------
// Named regressions

/// chunked, first run: a line longer than the maximum was an error when it
/// arrived in pieces but handed out whole when its LF came in the same push
/// (or the same read).
#[test]
fn line_too_long_is_an_error_however_it_arrives() {
    let input = b"{\"type\":\"user\",\"pad\":\"0123456789\"}\n{\"type\":\"user\"}\n";
    let second = input.iter().position(|&b| b == b'\n').unwrap() as u64 + 1;
    for sizes in [&[][..], &[1], &[7], &[100]] {
        let items = decoder_items(input, sizes, 20);
        assert_eq!(items.len(), 2, "{sizes:?}");
        assert!(
            matches!(&items[0], Item::Error { kind: ErrorKind::LineTooLong, position }
                if position.line == 1 && position.offset == 0),
            "{sizes:?}: {:?}",
            items[0]
        );
        assert!(matches!(&items[1], Item::Event { line: 2, offset, .. } if *offset == second));
        let (rd, counts) = reader_items(input, sizes, 64, 20);
        assert_eq!(rd, items);
        assert_eq!((counts.lines, counts.events, counts.errors), (2, 1, 1));
    }
    // Exactly at the maximum is fine.
    let mut dec = LineDecoder::with_max_line(16);
    dec.push(b"{\"type\":\"user\"}\n");
    assert_eq!(dec.next_line().unwrap().unwrap().bytes.len(), 15);
    let mut dec = LineDecoder::with_max_line(15);
    dec.push(b"{\"type\":\"user\"}\n");
    assert!(dec.next_line().unwrap().is_ok());
    let mut dec = LineDecoder::with_max_line(14);
    dec.push(b"{\"type\":\"user\"}\n");
    assert_eq!(
        dec.next_line().unwrap().unwrap_err().kind(),
        ErrorKind::LineTooLong
    );
}

/// Guard for the truncate property: a stream cut inside a multi-byte
/// character of a string is `truncated` (simd-json reports the open string
/// before the broken character); a real encoding error stays `invalid_utf8`.
#[test]
fn cut_inside_a_multibyte_character_is_truncated() {
    let stream =
        "{\"type\":\"user\",\"t\":\"é😀\"}\n{\"type\":\"assistant\",\"t\":\"日本\"}\n".as_bytes();
    let (ch, _) = Chunking::from_bytes(&[1, 2, 3, 4, 5, 6]);
    for cut in 0..=stream.len() {
        check_truncate(stream, cut, &ch);
    }
    // The cut after the first byte of `é`.
    let at = stream.iter().position(|&b| b == 0xC3).unwrap() + 1;
    let mut s = SliceEvents::new(&stream[..at]);
    let e = s.next_event().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    assert_eq!(e.position().line, 1);
    // A real encoding error on a cut line is still `invalid_utf8`.
    let mut p = Scanner::new();
    let bad = Line {
        bytes: b"{\"type\":\"user\",\"t\":\"\xff\"",
        number: 1,
        offset: 0,
        terminated: false,
    };
    assert_eq!(
        parse_event(&mut p, &bad).unwrap_err().kind(),
        ErrorKind::InvalidUtf8
    );
}

/// Found by review, confirmed by the differential check: when a line also
/// held a lone surrogate or a number beyond f64, the repair pass rewrote a
/// huge number standing where a key belongs into a string, and cctape read
/// `{"a":"\ud800", 123456789012345678901234:1}` as an object with the key
/// "0000000000000000000000". serde_json rejects it; so does cctape now.
#[test]
fn big_number_in_a_key_position_stays_an_error() {
    let mut p = Scanner::new();
    for src in [
        &br#"{"type":"user","a":"\ud800", 123456789012345678901234:1}"#[..],
        br#"{"type":"user","a":1e400, 123456789012345678901234:1}"#,
        br#"{"type":"user","a":1e400,"b":{99999999999999999999999:1}}"#,
    ] {
        let line = Line {
            bytes: src,
            number: 1,
            offset: 0,
            terminated: true,
        };
        let e = parse_event(&mut p, &line).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::InvalidJson,
            "{}",
            String::from_utf8_lossy(src)
        );
        assert_eq!(differential(src, serde_default), Verdict::BothReject);
    }
    // In value places the same numbers still read as big numbers.
    let src = br#"{"type":"user","a":"\ud800","b":[123456789012345678901234,{"c":1e400}]}"#;
    assert_eq!(differential(src, serde_default), Verdict::DocumentedAccept);
}

/// A stream that starts with a BOM, cut inside the BOM: what is left is an
/// incomplete character, so `truncated` (it was `invalid_utf8`).
#[test]
fn cut_inside_the_bom_is_truncated() {
    let stream = b"\xEF\xBB\xBF{\"type\":\"user\"}\n";
    let (ch, _) = Chunking::from_bytes(&[1, 2, 3, 4, 5, 6]);
    for cut in 0..=stream.len() {
        check_truncate(stream, cut, &ch);
    }
    for cut in 1..3 {
        let mut s = SliceEvents::new(&stream[..cut]);
        let e = s.next_event().unwrap().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated, "cut at {cut}");
        assert_eq!((e.position().line, e.position().offset), (1, 0));
        assert!(s.next_event().is_none());
    }
}

/// Found by review, confirmed by replaying the `parse_line` check: token
/// counts come from the input, and `TokenCounts::total` (and `add`) summed
/// them with `+`, a panic in debug builds (a wrong total in release) for
/// counts near `u64::MAX`. Now they saturate.
#[test]
fn token_counts_saturate_instead_of_overflowing() {
    let line = br#"{"type":"assistant","message":{"usage":{"input_tokens":18446744073709551615,"output_tokens":1,"cache_read_input_tokens":5}}}"#;
    let mut p = Scanner::new();
    let l = Line {
        bytes: line,
        number: 1,
        offset: 0,
        terminated: true,
    };
    let u = parse_event(&mut p, &l).unwrap().usage().unwrap();
    assert_eq!(u.input_tokens, u64::MAX);
    assert_eq!(u.total(), u64::MAX);
    let mut sum = u;
    sum.add(&u);
    assert_eq!(sum.input_tokens, u64::MAX);
    assert_eq!(sum.output_tokens, 2);
    assert_eq!(sum.cache_read_input_tokens, 10);
}

#[test]
fn replay_views_inputs() {
    replay("views", check_views);
}

/// Each stream with the drain points of its `.drains` file (when there is
/// one), and draining after every line, every other line, or never.
#[test]
fn replay_run_fold_streams() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/run_fold");
    for (path, bytes) in inputs("run_fold") {
        if path.extension().is_some_and(|e| e == "drains") {
            continue;
        }
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let mut patterns: Vec<Vec<u64>> = vec![
            vec![],
            (0..=lines).collect(),
            (0..=lines).step_by(2).collect(),
        ];
        let side = dir.join(format!(
            "{}.drains",
            path.file_name().unwrap().to_string_lossy()
        ));
        if let Ok(text) = std::fs::read_to_string(&side) {
            patterns.push(
                text.split(',')
                    .filter_map(|n| n.trim().parse().ok())
                    .collect(),
            );
        }
        for drains in &patterns {
            let r = std::panic::catch_unwind(|| check_run_fold(&bytes, drains));
            if let Err(e) = r {
                eprintln!(
                    "regression input {} fails (drains {drains:?})",
                    path.display()
                );
                std::panic::resume_unwind(e);
            }
        }
    }
}

#[test]
fn replay_stats_path_streams() {
    let n = replay("stats_path", |b| {
        check_stats_path(b);
    });
    assert!(n >= 1, "the stats_path regression inputs are missing");
}

/// stats_path, first minute: a user event's top-level `timestamp` longer
/// than 256 bytes was cut in the pruned copy, so the run's `started_at`
/// differed from `--exact` (and a `session_id` or `tool_use_id` that long
/// would have split runs or lost tool results). Ids, names, statuses and
/// times are now never cut.
#[test]
fn pruned_read_keeps_ids_and_times_whole() {
    let long = |c: &str| c.repeat(300);
    let pad = "p".repeat(5000);
    let input = format!(
        "{{\"type\":\"assistant\",\"session_id\":\"{s}\",\"message\":{{\"id\":\"m\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"{t}\",\"name\":\"Bash\",\"input\":{{}}}}]}}}}\n\
         {{\"type\":\"user\",\"session_id\":\"{s}\",\"timestamp\":\"2026-01-02T03:04:05.678Z{z}\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{t}\",\"content\":\"{pad}\"}}]}}}}\n",
        s = long("s"),
        t = long("t"),
        z = long("0"),
    );
    // (Lines are no longer pruned: every line is read through its index.)
    assert_eq!(check_stats_path(input.as_bytes()), 1, "one run");
}

/// A tool result whose text starts with more than 256 bytes of whitespace
/// before `<tool_use_error>` (or a prompt before `[Request interrupted by
/// user`): the fold trims before it looks, so the cut keeps leading
/// whitespace and counts its 256 bytes after it.
#[test]
fn pruned_read_keeps_prefixes_after_leading_whitespace() {
    let ws = " \\n\\t\\u2028".repeat(100);
    let pad = "p".repeat(5000);
    let input = format!(
        "{{\"type\":\"assistant\",\"session_id\":\"s\",\"message\":{{\"id\":\"m\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{{}}}}]}}}}\n\
         {{\"type\":\"user\",\"session_id\":\"s\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"{ws}<tool_use_error>{pad}\"}}]}}}}\n\
         {{\"type\":\"user\",\"session_id\":\"s\",\"message\":{{\"content\":\"{ws}[Request interrupted by user]{pad}\"}}}}\n"
    );
    assert_eq!(check_stats_path(input.as_bytes()), 1);
    let runs = cctape::run::runs_of_slice(input.as_bytes());
    assert_eq!(runs[0].tool("Bash").unwrap().errors, 1);
}

/// Review of the fix above: a key written with an escape
/// (`"session\u005fid"`) is the same key to the fold, so nothing under an
/// escaped key is cut.
#[test]
fn pruned_read_keeps_values_of_escaped_keys_whole() {
    let pad = "p".repeat(5000);
    let s = "s".repeat(300);
    let input = format!(
        "{{\"type\":\"user\",\"session\\u005fid\":\"{s}\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":\"{pad}\"}}]}}}}\n"
    );
    assert_eq!(check_stats_path(input.as_bytes()), 1);
}

#[test]
fn replay_decompress_inputs() {
    replay("decompress", |b| {
        check_decompress(b);
    });
}

/// A compressed stream cut at any byte decodes to a prefix of what was
/// compressed, then ends (an error or the end): never other bytes, never a
/// panic. gzip, zstd, xz, bzip2 and LZ4, each compressed by its crate, and
/// an LZ4 legacy frame (`lz4 -l`) made with `lz4_flex`'s block API.
#[test]
fn compressed_streams_cut_anywhere_decode_a_prefix() {
    use std::io::{Read, Write};
    let body: Vec<u8> = (0..300)
        .flat_map(|i| {
            format!(
                "{{\"type\":\"user\",\"n\":{i},\"text\":\"{}\"}}\n",
                "ab\\n".repeat(i % 17)
            )
            .into_bytes()
        })
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&body).unwrap();
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(&body).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&body).unwrap();
    let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
    lz.write_all(&body).unwrap();
    let mut legacy = vec![0x02, 0x21, 0x4c, 0x18];
    let block = lz4_flex::block::compress(&body);
    legacy.extend_from_slice(&(block.len() as u32).to_le_bytes());
    legacy.extend_from_slice(&block);
    let packed = [
        ("lz4 legacy", legacy),
        ("gzip", gz.finish().unwrap()),
        ("zstd", zstd::encode_all(&body[..], 3).unwrap()),
        ("xz", xz.finish().unwrap()),
        ("bzip2", bz.finish().unwrap()),
        ("lz4", lz.finish().unwrap()),
    ];
    for (name, whole) in &packed {
        let step = (whole.len() / 150).max(1);
        for cut in (0..=whole.len()).step_by(step).chain([whole.len()]) {
            let report = cctape::source::EndReport::new();
            let src = cctape::source::Source::new(
                &whole[..cut],
                cctape::source::SourceKind::Stream,
                &report,
            )
            .unwrap();
            let mut rdr = src.into_reader();
            let mut got = Vec::new();
            let mut buf = [0u8; 777];
            let ok = loop {
                match rdr.read(&mut buf) {
                    Ok(0) => break true,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(_) => break false,
                }
            };
            assert!(body.starts_with(&got), "{name} cut at {cut}: not a prefix");
            if cut == whole.len() {
                assert!(ok, "{name}: the whole stream fails");
                assert_eq!(got.len(), body.len(), "{name}: whole stream short");
            } else if cut >= 8 {
                // Cut inside the data: said, never a quiet short read.
                assert!(
                    !ok,
                    "{name} cut at {cut}: a cut stream ends without an error"
                );
            }
        }
        // The fuzz check's own reading of the whole stream.
        let mut data = vec![0u8];
        data.extend_from_slice(whole);
        assert_eq!(check_decompress(&data), body.len() as u64, "{name}");
    }
}
