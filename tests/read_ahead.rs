//! `cctape stats` on two cores reads a large file's chunks ahead on a pool
//! ([`ReadAhead`]) and folds them in order on one thread
//! ([`PrunedReader::take_ahead`]). These tests hold it to the one-thread
//! read ([`PrunedReader::read`]) line by line: the same kind, raw bytes and
//! whole parsed value of every event, the same errors, the same count of
//! pruned lines, for chunks of every size, on every real capture and on a
//! partial-message stream cut where a chunk's reader cannot know that the
//! input carries partial messages.

use cctape::framing::{DEFAULT_MAX_LINE, Lines};
use cctape::parse::Parser;
use cctape::stats::{AheadLine, PrunedReader, ReadAhead};

#[path = "support/realworld.rs"]
mod realworld;

/// What the one-thread read makes of every line, and its pruned count.
fn one_thread(bytes: &[u8]) -> (Vec<String>, u64) {
    let (mut reader, mut parser) = (PrunedReader::new(), Parser::new());
    let mut seen = Vec::new();
    for line in Lines::new(bytes) {
        if line.is_blank() {
            seen.push(format!("{} blank", line.number));
            continue;
        }
        seen.push(match reader.read(&mut parser, &line) {
            Ok(ev) => describe(line.number, &ev),
            Err(e) => format!("{} error {e}", line.number),
        });
    }
    (seen, reader.pruned_lines())
}

fn describe(number: u64, ev: &cctape::Event<'_>) -> String {
    format!(
        "{number} {:?} at {} {:?} raw {}",
        ev.kind(),
        ev.offset(),
        ev.root(),
        String::from_utf8_lossy(ev.raw())
    )
}

/// The same through chunks of about `size` bytes read ahead; also how many
/// lines a chunk's reader pruned that the fold read again whole.
fn ahead(bytes: &[u8], size: usize) -> (Vec<String>, u64, u64) {
    let (mut reader, mut parser) = (PrunedReader::new(), Parser::new());
    let mut ahead = ReadAhead::new(false);
    let (mut seen, mut again) = (Vec::new(), 0);
    for (chunk, start) in cut(bytes, size) {
        ahead.read(chunk, start, DEFAULT_MAX_LINE);
        // Read on another thread, as the CLI does.
        ahead = std::thread::spawn(move || ahead).join().expect("thread");
        for (line, item) in ahead.lines(chunk) {
            seen.push(match item {
                AheadLine::Blank => format!("{} blank", line.number),
                AheadLine::Event { event, pruned } => {
                    let before = reader.pruned_lines();
                    let (text, kept) = match reader.take_ahead(&mut parser, &line, event, pruned) {
                        Ok(ev) => (describe(line.number, &ev), true),
                        Err(e) => (format!("{} error {e}", line.number), false),
                    };
                    if kept && pruned && reader.pruned_lines() == before {
                        again += 1;
                    }
                    text
                }
                AheadLine::Failed(e) => format!("{} error {e}", line.number),
                AheadLine::TooLong => format!("{} too long", line.number),
            });
        }
    }
    (seen, reader.pruned_lines(), again)
}

/// `bytes` cut after the first LF at or past every `size` bytes, each
/// piece with its offset and first line number.
fn cut(bytes: &[u8], size: usize) -> Vec<(&[u8], (u64, u64))> {
    let mut out = Vec::new();
    let (mut at, mut line) = (0usize, 1u64);
    while at < bytes.len() {
        let from = (at + size).min(bytes.len()) - 1;
        let end = memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i + 1);
        let piece = &bytes[at..end];
        out.push((piece, (at as u64, line)));
        line += memchr::memchr_iter(b'\n', piece).count() as u64;
        at = end;
    }
    out
}

fn assert_same(name: &str, bytes: &[u8], sizes: &[usize]) -> u64 {
    let (want, pruned) = one_thread(bytes);
    let mut again = 0;
    for &size in sizes {
        let (got, got_pruned, a) = ahead(bytes, size);
        assert_eq!(
            got.len(),
            want.len(),
            "{name}, chunks of {size}: line count"
        );
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{name}, chunks of {size}");
        }
        assert_eq!(got_pruned, pruned, "{name}, chunks of {size}: pruned lines");
        again += a;
    }
    again
}

#[test]
fn every_real_capture_reads_the_same_ahead_in_chunks_of_any_size() {
    let Some(dir) = realworld::realworld_dir() else {
        return;
    };
    let mut files = 0;
    for path in realworld::all_files(&dir) {
        let bytes = std::fs::read(&path).expect("read a capture");
        assert_same(&path.display().to_string(), &bytes, &[1, 3000, 65536]);
        files += 1;
    }
    // Both folders: the first (55 files) and wave2.
    assert!(files > 55, "{files} files");
}

/// A partial-message stream whose second chunk starts with a long
/// assistant tool call: that chunk's reader has seen no `stream_event` and
/// prunes it, the fold knows better and reads it again whole, as the
/// one-thread read (which never pruned it) did.
#[test]
fn an_assistant_line_pruned_ahead_in_a_partial_stream_is_read_again_whole() {
    let long = "y".repeat(6000);
    let delta = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\""}},"session_id":"s","parent_tool_use_id":null}"#;
    let assistant = format!(
        r#"{{"type":"assistant","message":{{"id":"m1","model":"claude-x","content":[{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"{long}"}}}}],"usage":{{"input_tokens":1,"output_tokens":2}}}},"parent_tool_use_id":null,"session_id":"s"}}"#
    );
    let init = r#"{"type":"system","subtype":"init","session_id":"s","model":"claude-x"}"#;
    let input = format!("{init}\n{delta}\n{assistant}\n{delta}\n");
    // Chunks of one line each: the assistant line is the first of its own.
    let again = assert_same("partial", input.as_bytes(), &[1]);
    assert_eq!(again, 1, "the pruned assistant line was read again");
    // Without partial messages it stays pruned, ahead and on one thread.
    let plain = format!("{init}\n{assistant}\n");
    let (_, pruned) = one_thread(plain.as_bytes());
    assert_eq!(pruned, 1);
    assert_eq!(assert_same("plain", plain.as_bytes(), &[1]), 0);
}

/// The CLI on every real capture alone, read ahead from its first byte in
/// 4 kB chunks (`CCTAPE_SPLIT_AT=1`, `CCTAPE_CHUNK=4096`): `stats --json`
/// prints the same bytes and exits the same with `--jobs 1` and `--jobs 2`.
#[test]
fn every_real_capture_gives_the_same_stats_with_one_and_two_jobs() {
    let Some(dir) = realworld::realworld_dir() else {
        return;
    };
    let mut files = 0;
    for path in realworld::all_files(&dir) {
        let run = |jobs: &str| {
            std::process::Command::new(env!("CARGO_BIN_EXE_cctape"))
                .args(["stats", "--json", "--quiet", "--jobs", jobs])
                .arg(&path)
                .env("CCTAPE_SPLIT_AT", "1")
                .env("CCTAPE_CHUNK", "4096")
                .output()
                .expect("run cctape")
        };
        let (one, two) = (run("1"), run("2"));
        assert!(!one.stdout.is_empty(), "{}: no output", path.display());
        assert_eq!(one.status.code(), two.status.code(), "{}", path.display());
        assert!(
            one.stdout == two.stdout,
            "{}: stats --json differs between --jobs 1 and 2",
            path.display()
        );
        files += 1;
    }
    assert!(files > 55, "{files} files");
}
