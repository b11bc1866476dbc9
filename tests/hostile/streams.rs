//! Streams (issue 12, cases 1 to 3): a pipe or a FIFO named as a path is
//! read once, whole; `filter` and `fields` stream their output in bounded
//! memory and stop early when `| head` closes the pipe; devices such as
//! `/dev/zero` are bounded and have an end.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{
    Input, MIB, MINUTE, Output, Ran, args, assert_peak, cctape, event, mkfifo, temp_dir,
    zstd_repeated,
};

// ---------------------------------------------------------------------------
// 1. A pipe named as a path, a FIFO: read once, all of it.

/// 34 lines of 1 MiB, two sessions taking turns: more than the 32 MiB at
/// which a file used to be cut between runs and read again whole.
fn sessions_taking_turns() -> Vec<u8> {
    (0..34)
        .flat_map(|i| event(if i % 2 == 0 { "sA" } else { "sB" }, i, MIB as usize).into_bytes())
        .collect()
}

fn assert_34_events(r: &Ran, what: &str) {
    assert_eq!(r.code(), Some(0), "{what}: {}", r.stderr);
    let j = r.json();
    assert_eq!(j["lines"], 34, "{what}");
    assert_eq!(j["events"], 34, "{what}");
    assert_eq!(j["by_type"]["user"], 34, "{what}");
    assert_eq!(j["error_count"], 0, "{what}");
    assert_eq!(j["bytes"], 34 * MIB, "{what}");
}

#[test]
fn pipe_named_as_a_path_is_read_once_whole() {
    let body = sessions_taking_turns();
    let r = cctape(
        &["stats", "--json", "-q", "-j2", "/dev/stdin"],
        Input::Bytes(&body),
        Output::Keep,
        MINUTE,
    );
    assert_34_events(&r, "/dev/stdin on a pipe");
}

#[test]
fn fifo_named_as_a_path_is_read_once_whole() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("runs.jsonl");
    mkfifo(&fifo);
    let body = sessions_taking_turns();
    let f = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .expect("open fifo");
        let _ = w.write_all(&body);
    });
    let r = cctape(
        &args(&["stats", "--json", "-q", "-j2"], &fifo),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    writer.join().expect("writer");
    assert_34_events(&r, "a FIFO");
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 2. filter and fields stream their output: bounded memory, `| head` stops.

/// `times` MiB of lines that all match, as a zstd file of repeated frames;
/// returns the file and the decompressed size.
fn compressed_lines(dir: &Path, times: usize) -> (PathBuf, u64) {
    let mut block = Vec::new();
    let mut i = 0;
    while block.len() < MIB as usize - 1024 {
        block.extend_from_slice(event("s", i, 1000).as_bytes());
        i += 1;
    }
    let path = dir.join("big.jsonl.zst");
    std::fs::write(&path, zstd_repeated(&block, times)).expect("write zst");
    (path, (block.len() * times) as u64)
}

fn filter_in_bounded_memory(times: usize) {
    let dir = temp_dir(&format!("filter-{times}"));
    let (path, size) = compressed_lines(&dir, times);
    for cmd in [
        &["filter", "-q"][..],
        &["fields", "-q", "--no-header", "-f", "@line"],
    ] {
        let r = cctape(&args(cmd, &path), Input::Null, Output::Count, 10 * MINUTE);
        assert_eq!(r.code(), Some(0), "{cmd:?}: {}", r.stderr);
        let printed: u64 = String::from_utf8_lossy(&r.stdout).parse().expect("count");
        if cmd[0] == "filter" {
            // Every line is an event and matches: printed unchanged.
            assert_eq!(printed, size, "{cmd:?}");
        } else {
            assert!(printed > size / 1000, "{cmd:?}: {printed}");
        }
        // 64 MiB plus the largest line (1 KiB here).
        assert_peak(
            &r,
            64 * MIB,
            &format!("{cmd:?} over {} MiB of output", size / MIB),
        );
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn filter_and_fields_stream_their_output_in_bounded_memory() {
    filter_in_bounded_memory(128);
}

#[test]
#[ignore = "a gigabyte through filter: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn filter_of_1_gb_compressed_stays_under_64_mib() {
    filter_in_bounded_memory(1024);
}

#[test]
fn head_closing_the_pipe_stops_the_work_early() {
    let dir = temp_dir("head");
    let path = dir.join("huge.jsonl");
    let lines: String = (0..2000).map(|i| event("s", i, 1000)).collect();
    std::fs::write(&path, &lines).expect("write");
    // Then 64 GiB that are never written (a sparse hole): reading them all
    // would take minutes.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open");
    f.set_len(64 << 30).expect("extend");
    use std::os::unix::fs::MetadataExt;
    let blocks = std::fs::metadata(&path).expect("stat").blocks();
    if blocks * 512 > 64 * MIB {
        std::fs::remove_dir_all(&dir).expect("clean");
        eprintln!("skipped: this file system does not make sparse files");
        return;
    }
    for jobs in ["-j1", "-j2"] {
        let r = cctape(
            &args(&["filter", "-q", jobs], &path),
            Input::Null,
            Output::FirstLine,
            2 * MINUTE,
        );
        assert_eq!(r.stdout, event("s", 0, 1000).into_bytes(), "{jobs}");
        assert_eq!(
            r.code(),
            Some(0),
            "{jobs}: a closed pipe ends quietly: {}",
            r.stderr
        );
        assert_eq!(r.stderr, "", "{jobs}");
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 3. Devices are streams: `/dev/zero` is bounded and has an end.

/// `limit`: 4 times the longest line.
fn dev_zero_is_bounded_and_ends(extra: &[&str], limit: u64, bound: u64) {
    let mut a = vec!["stats", "--json", "-q"];
    a.extend_from_slice(extra);
    a.push("/dev/zero");
    let r = cctape(&a, Input::Null, Output::Keep, 5 * MINUTE);
    assert_eq!(r.code(), Some(2), "{}", r.stderr);
    let j = r.json();
    let kinds: Vec<&str> = j["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["line_too_long", "io"]);
    assert_eq!(j["error_count"], 2);
    assert_eq!(j["lines"], 1);
    assert_eq!(j["events"], 0);
    assert!(
        r.stderr.contains(&format!(
            "/dev/zero:1: byte {}: io: read failed: no LF in more than {limit} bytes",
            limit + 1
        )),
        "{}",
        r.stderr
    );
    assert_peak(&r, bound, "stats /dev/zero");
}

#[test]
fn dev_zero_with_a_small_line_limit_is_bounded_and_ends() {
    dev_zero_is_bounded_and_ends(&["--max-line", "1M"], 4 * MIB, 32 * MIB);
}

#[test]
#[ignore = "reads 1.25 GiB of zeros: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn dev_zero_at_the_default_line_limit_is_bounded_and_ends() {
    // The line limit (256 MiB) is the bound, plus a little.
    dev_zero_is_bounded_and_ends(&[], 1 << 30, 256 * MIB + 48 * MIB);
}
