//! Walks and bounded memory (issue 12, cases 11, 12, 14, 16, 17): names that
//! are not UTF-8 or hold control characters, broken symlinks and FIFOs in a
//! walked folder; `filter --errors --count`; `check --json`, `export`, and
//! `stats`/`verdict` reading a large file ahead, in bounded memory.

use crate::{Input, MIB, MINUTE, Output, args, assert_peak, cctape, event, mkfifo, temp_dir};

// ---------------------------------------------------------------------------
// 11, 14, 17. Walks: odd names are read and shown escaped; what cannot be
// read is said.

#[test]
fn walk_reads_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("non-utf8");
    let name = std::ffi::OsStr::from_bytes(b"r\xff\xfe.jsonl");
    std::fs::write(dir.join(name), event("s", 0, 100)).expect("write");
    std::fs::write(dir.join("plain.jsonl"), event("s", 1, 100)).expect("write");
    let r = cctape(
        &args(&["stats", "--json", "-q"], &dir),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["files"], 2);
    assert_eq!(j["events"], 2);
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn names_with_control_characters_are_escaped_for_people() {
    let dir = temp_dir("ctl");
    let name = "a\u{1b}[2Jb\nc.jsonl";
    let path = dir.join(name);
    std::fs::write(&path, "not json\n").expect("write");
    // Human output and stderr: escaped.
    let r = cctape(
        &args(&["stats", "-q"], &dir),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        !text.contains('\u{1b}') && !r.stderr.contains('\u{1b}'),
        "{text}"
    );
    assert!(text.contains("a\\x1b[2Jb\\nc.jsonl"), "{text}");
    let r = cctape(
        &args(&["check", "-q"], &path),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert!(!String::from_utf8_lossy(&r.stdout).contains('\u{1b}'));
    let missing = dir.join("gone\u{7}\u{1b}.jsonl");
    let r = cctape(
        &args(&["filter", "-q"], &missing),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(2));
    assert!(
        r.stderr.contains("gone\\x07\\x1b.jsonl") && !r.stderr.contains('\u{1b}'),
        "{}",
        r.stderr
    );
    // JSON output: the name itself, escaped as JSON escapes it.
    let r = cctape(
        &args(&["stats", "--json", "-q"], &dir),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    let j = r.json();
    // A text input is one finding (issue 13): its name is in per_file.
    assert_eq!(j["per_file"][0]["file"], path.to_str().expect("utf-8"));
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn broken_symlinks_and_fifos_in_a_walked_folder_are_noted_and_counted() {
    let dir = temp_dir("walk-notes");
    std::fs::write(dir.join("good.jsonl"), event("s", 0, 100)).expect("write");
    std::os::unix::fs::symlink(dir.join("nowhere.jsonl"), dir.join("broken.jsonl")).expect("link");
    mkfifo(&dir.join("pipe.jsonl"));
    std::fs::create_dir(dir.join("sub")).expect("sub");
    // A loop, for -L.
    std::os::unix::fs::symlink(&dir, dir.join("sub").join("up")).expect("loop");
    let r = cctape(
        &args(&["stats", "--json", "-q"], &dir),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "notes, not errors: {}", r.stderr);
    assert_eq!(r.json()["events"], 1);
    assert!(
        r.stderr.contains("broken.jsonl: a broken symlink"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("pipe.jsonl: a FIFO, not read"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("up: a symlink to a directory, not followed"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("3 entries of walked folders passed over"),
        "{}",
        r.stderr
    );
    let r = cctape(
        &args(&["stats", "--json", "-q", "-L"], &dir),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    assert_eq!(r.json()["events"], 1, "the loop is not walked twice");
    assert!(r.stderr.contains("a symlink loop back to"), "{}", r.stderr);
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 12. filter --errors --count counts what filter --errors prints.

#[test]
fn filter_errors_count_counts_what_it_prints() {
    let mut input = String::new();
    input.push_str(&event("s", 0, 100));
    input.push_str("not json\n");
    input.push_str(&format!(
        "{{\"type\":\"user\",\"pad\":\"{}\"}}\n",
        "y".repeat(2000)
    ));
    input.push_str("{\"no\":\"type\"}\n");
    let printed = cctape(
        &["filter", "--errors", "-q", "--max-line", "1K"],
        Input::Bytes(input.as_bytes()),
        Output::Keep,
        MINUTE,
    );
    // The line past the maximum cannot be printed: said, and an error.
    assert_eq!(printed.code(), Some(2), "{}", printed.stderr);
    assert_eq!(printed.stdout, b"not json\n{\"no\":\"type\"}\n");
    assert_eq!(
        printed.stderr,
        "cctape: <stdin>:3: byte 109: line_too_long: line longer than the maximum; skipped to the next LF\n",
        "only it is said: the others are printed"
    );
    let counted = cctape(
        &["filter", "--errors", "--count", "-q", "--max-line", "1K"],
        Input::Bytes(input.as_bytes()),
        Output::Keep,
        MINUTE,
    );
    assert_eq!(counted.stdout, b"2\n");
}

// ---------------------------------------------------------------------------
// 16. check --json and export in bounded memory.

#[test]
fn check_json_is_bounded_when_every_line_brings_a_new_key() {
    let dir = temp_dir("check");
    let path = dir.join("keys.jsonl");
    let mut body = String::new();
    let mut n = 0u64;
    while body.len() < 32 << 20 {
        body.push_str(&format!(
            "{{\"type\":\"system\",\"subtype\":\"status\",\"session_id\":\"s\",\"uuid\":\"u{n}\",\"unknown_key_{n}\":1}}\n"
        ));
        n += 1;
    }
    std::fs::write(&path, &body).expect("write");
    let r = cctape(
        &args(&["check", "--json", "-q"], &path),
        Input::Null,
        Output::Keep,
        5 * MINUTE,
    );
    assert_eq!(r.code(), Some(1), "{}", r.stderr);
    let j = r.json();
    let rows = j["findings"].as_array().expect("findings");
    let unknown: Vec<_> = rows
        .iter()
        .filter(|f| f["category"] == "unknown_field")
        .collect();
    assert_eq!(unknown.len(), 65, "64 kept and the other bucket");
    let other = unknown
        .iter()
        .find(|f| f["detail"] == "(other)")
        .expect("(other)");
    assert_eq!(other["count"], n - 64);
    assert_eq!(j["details_kept_per_kind"], 64);
    assert!(
        r.stdout.len() < 64 << 10,
        "{} bytes of output",
        r.stdout.len()
    );
    assert_peak(&r, 64 * MIB, "check --json");
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn export_with_many_jobs_stays_near_the_one_job_memory() {
    let dir = temp_dir("export");
    let inputs = dir.join("in");
    std::fs::create_dir(&inputs).expect("dir");
    let (files, lines) = (48, 260);
    for f in 0..files {
        let body: String = (0..lines)
            .map(|i| event(&format!("s{f}"), i, 5000))
            .collect();
        std::fs::write(inputs.join(format!("run{f:03}.jsonl")), body).expect("write");
    }
    let mut peaks = Vec::new();
    for jobs in ["-j1", "-j4"] {
        let out = dir.join(format!("out{jobs}"));
        // Raw lines kept and small row groups: the rows of a finished input
        // are what waits for the writer.
        let a = [
            "export",
            "-q",
            "--json",
            "--raw",
            "--row-group-rows",
            "1000",
            jobs,
            "--out",
        ];
        let mut a = a.to_vec();
        a.push(out.to_str().expect("path"));
        let r = cctape(&args(&a, &inputs), Input::Null, Output::Keep, 5 * MINUTE);
        assert_eq!(r.code(), Some(0), "{jobs}: {}", r.stderr);
        assert_eq!(
            r.json()["tables"]["events"]["rows"],
            files * lines,
            "{jobs}"
        );
        peaks.push(r.peak);
    }
    if let [Some(one), Some(four)] = peaks[..] {
        // About 62 MiB of input: one job holds one input's rows; four hold a
        // few more, never the inputs read ahead of the writer.
        assert!(
            four < one + 32 * MIB,
            "-j4 peaked at {} MiB, -j1 at {} MiB",
            four / MIB,
            one / MIB
        );
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

/// `stats` and `verdict` with several jobs on one large plain file read it
/// ahead on the pool (chunks parsed into owned batches, folded in order):
/// at most `jobs + 1` chunks are read and not yet folded, so memory stays
/// near the one-job memory, whatever the file's size.
#[test]
fn commands_that_fold_read_a_large_file_ahead_in_bounded_memory() {
    let dir = temp_dir("ahead");
    let path = dir.join("big.jsonl");
    let mut body = String::new();
    let mut i = 0;
    // 40 MiB: past the 32 MiB from which a file is read ahead; eight
    // sessions taking turns, as in an appended log.
    while body.len() < 40 << 20 {
        body.push_str(&event(&format!("s{}", (i / 500) % 8), i, 5000));
        i += 1;
    }
    std::fs::write(&path, &body).expect("write");
    for cmd in [&["stats", "--json", "-q"][..], &["verdict", "--json", "-q"]] {
        let mut peaks = Vec::new();
        let mut outputs = Vec::new();
        for jobs in ["-j1", "-j8"] {
            let mut a = cmd.to_vec();
            a.push(jobs);
            let r = cctape(&args(&a, &path), Input::Null, Output::Keep, 5 * MINUTE);
            assert!(
                matches!(r.code(), Some(0 | 1)),
                "{cmd:?} {jobs}: {}",
                r.stderr
            );
            assert_peak(&r, 64 * MIB, &format!("{cmd:?} {jobs}"));
            peaks.push(r.peak);
            outputs.push(r.stdout);
        }
        assert_eq!(outputs[0], outputs[1], "{cmd:?}: -j1 and -j8 differ");
        if let [Some(one), Some(eight)] = peaks[..] {
            assert!(
                eight < one + 24 * MIB,
                "{cmd:?}: -j8 peaked at {} MiB, -j1 at {} MiB",
                eight / MIB,
                one / MIB
            );
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}
