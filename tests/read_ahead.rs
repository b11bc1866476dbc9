//! `cctape stats` on two cores reads a large file's chunks ahead on a pool
//! ([`ReadAhead`]: each line validated and indexed into the chunk's batch)
//! and folds them in order on one thread. These tests hold it to the
//! one-thread read ([`parse_event`]) line by line: the same kind, raw bytes
//! and whole value of every event, the same errors, for chunks of every
//! size, on every real capture and on lines with escapes (unescaped into
//! the batch's arena).

use cctape::event::parse_event;
use cctape::framing::{DEFAULT_MAX_LINE, Lines};
use cctape::json::Scanner;
use cctape::stats::{AheadLine, ReadAhead};

#[path = "support/realworld.rs"]
mod realworld;

/// What the one-thread read makes of every line.
fn one_thread(bytes: &[u8]) -> Vec<String> {
    let mut scanner = Scanner::new();
    let mut seen = Vec::new();
    for line in Lines::new(bytes) {
        if line.is_blank() {
            seen.push(format!("{} blank", line.number));
            continue;
        }
        seen.push(match parse_event(&mut scanner, &line) {
            Ok(ev) => describe(line.number, &ev),
            Err(e) => format!("{} error {e}", line.number),
        });
    }
    seen
}

fn describe(number: u64, ev: &cctape::Event<'_>) -> String {
    format!(
        "{number} {:?} at {} {:?} session {:?} raw {}",
        ev.kind(),
        ev.offset(),
        ev.root(),
        ev.session_id(),
        String::from_utf8_lossy(ev.raw())
    )
}

/// The same through chunks of about `size` bytes read ahead; `later`:
/// each chunk read as if it were the input's second line on, then
/// numbered by the LF-ended lines before it (how the CLI's reading thread,
/// which does not count lines, has them read).
fn ahead(bytes: &[u8], size: usize, later: bool) -> Vec<String> {
    let (mut scanner, mut ahead) = (Scanner::new(), ReadAhead::new());
    let mut seen = Vec::new();
    let mut lfs = 0;
    for (chunk, (offset, first_line)) in cut(bytes, size) {
        if later && offset > 0 {
            ahead.read(&mut scanner, chunk, (offset, 2), DEFAULT_MAX_LINE);
            ahead.shift_lines(lfs - 1);
        } else {
            ahead.read(&mut scanner, chunk, (offset, first_line), DEFAULT_MAX_LINE);
        }
        lfs += ahead.lf_lines();
        // Read on another thread, as the CLI does.
        ahead = std::thread::spawn(move || ahead).join().expect("thread");
        for (line, item) in ahead.lines(chunk) {
            seen.push(match item {
                AheadLine::Blank => format!("{} blank", line.number),
                AheadLine::Event(ev) => describe(line.number, &ev),
                AheadLine::Failed(e) => format!("{} error {e}", line.number),
                AheadLine::TooLong => format!("{} too long", line.number),
            });
        }
    }
    seen
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

fn assert_same(name: &str, bytes: &[u8], sizes: &[usize]) {
    let want = one_thread(bytes);
    for (&size, later) in sizes.iter().flat_map(|s| [(s, false), (s, true)]) {
        let got = ahead(bytes, size, later);
        assert_eq!(
            got.len(),
            want.len(),
            "{name}, chunks of {size}: line count"
        );
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{name}, chunks of {size}");
        }
    }
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

/// Strings with escapes, read from a batch on the folding thread: each one
/// unescaped into the batch's arena, the same text the one-thread read
/// gives, chunk after chunk (the arena reset between them).
#[test]
fn escaped_strings_read_the_same_from_a_batch() {
    let mut input = String::new();
    for i in 0..200 {
        input.push_str(&format!(
            "{{\"type\":\"assistant\",\"session_id\":\"s\\u00e9{i}\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"line\\n{i}\\t\\\"q\\\"\"}}]}}}}\n"
        ));
    }
    let want = one_thread(input.as_bytes());
    assert!(want[3].contains("session Some(\"sé3\")"), "{}", want[3]);
    assert!(want[3].contains(r#""line\n3\t\"q\"""#), "{}", want[3]);
    assert_same("escapes", input.as_bytes(), &[1, 500, 4096]);
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

/// Chunks grown to hold long lines are not read ahead as many: the chunks
/// read and not yet folded are bounded in bytes too, so eight jobs on 12
/// lines of 4 MiB peak near one job (release build: 17 to 18 MiB against
/// 16 MiB; 20 MiB each while every scanner kept an index as long as the
/// longest line). Bounded in chunks only, -j8 peaked at 32 MiB; the design
/// before, at 49 MiB; with one scanner a thread but index slots as long as
/// the line (eight threads, each holding a 4 MiB index), 32 MiB again.
/// Peak RSS by `/usr/bin/time`; skipped, with a word, without it.
#[test]
fn long_lines_read_ahead_stay_near_the_one_job_memory() {
    const TIME: &str = "/usr/bin/time";
    const MIB: u64 = 1 << 20;
    if !std::path::Path::new(TIME).exists() {
        eprintln!("memory not measured ({TIME} is missing)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cctape-ahead-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let input = dir.join("long.jsonl");
    let text = "x".repeat(4 << 20);
    let body: String = (0..12)
        .map(|i| {
            format!(
                "{{\"type\":\"user\",\"session_id\":\"s\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t{i}\",\"content\":\"{text}\"}}]}}}}\n"
            )
        })
        .collect();
    std::fs::write(&input, body).expect("write");
    let peak = |jobs: &str| {
        let report = dir.join(format!("time{jobs}"));
        let out = std::process::Command::new(TIME)
            .args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(env!("CARGO_BIN_EXE_cctape"))
            .args(["stats", "--json", "--quiet", "--jobs", jobs])
            .arg(&input)
            .env("CCTAPE_SPLIT_AT", "1")
            .output()
            .expect("run cctape");
        assert_eq!(out.status.code(), Some(0), "-j{jobs}");
        let kib: u64 = std::fs::read_to_string(&report)
            .expect("time report")
            .trim()
            .parse()
            .expect("peak in KiB");
        (out.stdout, kib * 1024)
    };
    let (one_out, one) = peak("1");
    let (eight_out, eight) = peak("8");
    assert_eq!(
        one_out, eight_out,
        "stats --json differs between -j1 and -j8"
    );
    assert!(
        eight < one + 6 * MIB,
        "-j8 peaked at {} MiB, -j1 at {} MiB",
        eight / MIB,
        one / MIB
    );
    std::fs::remove_dir_all(&dir).expect("clean");
}
