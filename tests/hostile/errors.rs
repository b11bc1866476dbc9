//! Errors (issue 12, cases 5 to 10): a full disk is an error and a closed
//! pipe quiet, for every command; a line past the maximum is the same error
//! with any `--jobs`; an input failing at its first byte is one error; a
//! file truncated while read is an error, not a signal; absurd `--jobs` are
//! clamped.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::{Input, MINUTE, Output, args, bin, cctape, event, temp_dir};

// ---------------------------------------------------------------------------
// 5, 6 and every write error: a full disk is an error, a closed pipe quiet.

fn dev_full() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full"),
    )
}

fn closed_pipe() -> Stdio {
    let (r, w) = std::io::pipe().expect("pipe");
    drop(r);
    Stdio::from(w)
}

#[test]
fn filter_count_on_a_full_disk_or_a_closed_pipe_does_not_panic() {
    let input: String = (0..10).map(|i| event("s", i, 100)).collect();
    let r = cctape(
        &["filter", "--count", "-q"],
        Input::Bytes(input.as_bytes()),
        Output::Stdio(dev_full()),
        MINUTE,
    );
    assert_eq!(r.code(), Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("writing output") && !r.stderr.contains("panicked"),
        "{}",
        r.stderr
    );
    let r = cctape(
        &["filter", "--count", "-q"],
        Input::Bytes(input.as_bytes()),
        Output::Stdio(closed_pipe()),
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    assert_eq!(r.stderr, "");
}

#[test]
fn watch_writing_to_a_full_disk_says_so_and_exits_2() {
    let input = concat!(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"uuid\":\"u\"}\n",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"s\",\"uuid\":\"v\"}\n"
    );
    let r = cctape(
        &["watch", "-q"],
        Input::Bytes(input.as_bytes()),
        Output::Stdio(dev_full()),
        MINUTE,
    );
    assert_eq!(r.code(), Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("writing output"), "{}", r.stderr);
    // The verdict is still read and printed.
    assert!(r.stderr.contains("\"verdict\":\"success\""), "{}", r.stderr);
    // A closed pipe is not a failure: the verdict decides.
    let r = cctape(
        &["watch", "-q"],
        Input::Bytes(input.as_bytes()),
        Output::Stdio(closed_pipe()),
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
}

#[test]
fn every_command_reports_a_full_disk_with_exit_2() {
    let dir = temp_dir("full");
    let path = dir.join("run.jsonl");
    let input = concat!(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"uuid\":\"u\"}\n",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"s\",\"uuid\":\"v\"}\n"
    );
    std::fs::write(&path, input).expect("write");
    for cmd in [
        &["stats", "-q"][..],
        &["stats", "--json", "-q"],
        &["filter", "-q"],
        &["fields", "-q", "-f", "type"],
        &["check", "-q"],
        &["verdict", "-q"],
        &["tree", "-q"],
    ] {
        let r = cctape(
            &args(cmd, &path),
            Input::Null,
            Output::Stdio(dev_full()),
            MINUTE,
        );
        assert_eq!(r.code(), Some(2), "{cmd:?}: {}", r.stderr);
        assert!(r.stderr.contains("writing output"), "{cmd:?}: {}", r.stderr);
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 7. Output never depends on --jobs: a line past the maximum, read in chunks.

/// `cctape ARGS PATH` with `--jobs JOBS`, every plain file cut into chunks
/// (`CCTAPE_SPLIT_AT=1`) when jobs > 1: exit code, stdout, stderr.
fn chunked(list: &[&str], jobs: &str, path: &Path) -> (Option<i32>, Vec<u8>, String) {
    let out = Command::new(bin())
        .args(list)
        .args(["-q", "--jobs", jobs])
        .arg(path)
        .env("CCTAPE_SPLIT_AT", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run cctape");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), out.stdout, stderr)
}

/// A run without LF past `--max-line 3000`: shorter than the runaway limit
/// (4 times the longest line, 12,000 bytes) and ended by LF, past it and
/// ended by LF, past it at the end of the input. Each command prints the
/// same bytes with `--jobs 1` (one stream) and `--jobs 2` (chunks on a
/// pool), and the line is one `line_too_long` error at the line and byte
/// counted here from the file, its bytes counted.
#[test]
fn a_line_past_the_maximum_is_the_same_error_with_any_jobs() {
    const LIMIT: usize = 4 * 3000;
    let dir = temp_dir("maxline-jobs");
    let head: String = (0..3).map(|i| event("s", i, 200)).collect();
    let after: String = (3..5).map(|i| event("s", i, 200)).collect();
    for (name, run, rest) in [
        ("under-the-runaway-limit", 5000, format!("\n{after}")),
        ("runaway-then-lines", LIMIT + 1000, format!("\n{after}")),
        ("runaway-at-the-end", LIMIT + 1000, String::new()),
    ] {
        let mut input = head.clone().into_bytes();
        let start = input.len();
        input.extend(std::iter::repeat_n(b'x', run));
        input.extend_from_slice(rest.as_bytes());
        let path = dir.join(format!("{name}.jsonl"));
        std::fs::write(&path, &input).expect("write input");
        // The oracle: the line and byte where the run starts, from the file.
        let line = input[..start].iter().filter(|&&b| b == b'\n').count() + 1;
        let runaway = run > LIMIT;
        // A runaway run ends the input one byte past the limit.
        let (bytes, events) = if runaway {
            (start + LIMIT + 1, 3)
        } else {
            (input.len(), 5)
        };
        for cmd in [
            &["stats", "--json"][..],
            &["filter", "--count"],
            &["filter", "--errors"],
            &["filter", "--errors", "--count"],
            &["fields", "-f", "@line", "-f", "uuid"],
            &["check"],
        ] {
            let mut list = cmd.to_vec();
            list.extend(["--max-line", "3000"]);
            let one = chunked(&list, "1", &path);
            let two = chunked(&list, "2", &path);
            let what = format!("{name}: {}", cmd.join(" "));
            assert_eq!(one.0, two.0, "{what}: exit codes\n{}\n{}", one.2, two.2);
            assert_eq!(
                String::from_utf8_lossy(&one.1),
                String::from_utf8_lossy(&two.1),
                "{what}: stdout"
            );
            assert_eq!(one.2, two.2, "{what}: stderr");
        }
        let said = format!(".jsonl:{line}: byte {start}: line_too_long");
        let (_, _, stderr) = chunked(&["filter", "--errors", "--max-line", "3000"], "2", &path);
        assert_eq!(stderr.matches(&said).count(), 1, "{name}: {stderr}");
        assert_eq!(
            stderr.matches("line_too_long").count(),
            1,
            "{name}: {stderr}"
        );
        // In input order: the line, then the read that failed after it.
        let failed =
            format!(".jsonl:{line}: byte {bytes}: io: read failed: no LF in more than {LIMIT}");
        assert_eq!(
            stderr
                .find(&failed)
                .map(|at| at > stderr.find(&said).unwrap_or(at)),
            runaway.then_some(true),
            "{name}: {stderr}"
        );
        let (_, count, _) = chunked(&["filter", "--count", "--max-line", "3000"], "2", &path);
        assert_eq!(count, format!("{events}\n").into_bytes(), "{name}");
        let (code, stats, _) = chunked(&["stats", "--json", "--max-line", "3000"], "2", &path);
        // A runaway run is a read error (exit 2); a long line alone is not.
        assert_eq!(code, Some(if runaway { 2 } else { 0 }), "{name}");
        let j: serde_json::Value = serde_json::from_slice(&stats).expect("stats JSON");
        let errors = j["errors"].as_array().expect("errors");
        assert_eq!(errors[0]["kind"], "line_too_long", "{name}: {j}");
        assert_eq!(errors[0]["line"], line, "{name}");
        assert_eq!(errors[0]["offset"], start, "{name}");
        assert_eq!(j["bytes"], bytes, "{name}");
        assert_eq!(j["events"], events, "{name}");
        if runaway {
            assert_eq!(errors.len(), 2, "{name}: {j}");
            assert_eq!(errors[1]["kind"], "io", "{name}");
            assert_eq!(errors[1]["offset"], bytes, "{name}");
        } else {
            assert_eq!(errors.len(), 1, "{name}: {j}");
        }
    }
}

// ---------------------------------------------------------------------------
// 8. An input that fails at its first byte is one error, said once.

#[test]
fn input_failing_at_its_first_byte_is_one_error_said_once() {
    let dir = temp_dir("first-byte");
    let bad_gzip = dir.join("bad.jsonl.gz");
    std::fs::write(&bad_gzip, b"\x1f\x8b\xff\xff not gzip at all").expect("write");
    let missing = dir.join("missing.jsonl");
    for path in [&bad_gzip, &missing] {
        let r = cctape(
            &args(&["stats", "--json", "-q"], path),
            Input::Null,
            Output::Keep,
            MINUTE,
        );
        assert_eq!(r.code(), Some(2), "{}", r.stderr);
        let j = r.json();
        assert_eq!(j["error_count"], 1, "{path:?}: {j}");
        assert_eq!(j["errors"].as_array().expect("errors").len(), 1);
        assert_eq!(j["runs"], 0, "no run from an unreadable input");
        let msg = j["errors"][0]["message"].as_str().expect("message");
        assert!(!msg.contains("line "), "nested message: {msg}");
        assert_eq!(r.stderr.lines().count(), 1, "said once: {}", r.stderr);
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 9. A file truncated while read: an error with a position, never SIGBUS.

#[test]
fn file_truncated_under_the_reader_is_an_error_not_a_signal() {
    let dir = temp_dir("truncate");
    let path = dir.join("live.jsonl");
    // Runs of 50 lines, each its own session from an `init`: with two
    // jobs, `stats`, `verdict` and `tree` fold them apart, and lend each
    // chunk's first lines to the part before, while the file is cut.
    let body: String = (0..40_000)
        .map(|i| {
            let sid = format!("s{}", i / 50);
            let init =
                format!("{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{sid}\"}}\n");
            let first = if i % 50 == 0 { init.as_str() } else { "" };
            format!("{first}{}", event(&sid, i, 800))
        })
        .collect();
    std::fs::write(&path, &body).expect("write");
    for (cmd, settled) in [
        (&["stats", "--json", "-q", "-j1"][..], false),
        // Modified long ago: mapped (a file written just now is read).
        (&["stats", "--json", "-q", "-j1"][..], true),
        (&["filter", "--count", "-q", "-j1"][..], true),
        // Chunks read ahead on the pool, folded in order: read, and mapped.
        (&["stats", "--json", "-q", "-j2"], false),
        (&["stats", "--json", "-q", "-j2"], true),
        (&["verdict", "--json", "-q", "-j2"], true),
        (&["tree", "--json", "-q", "-j2"], true),
        (&["filter", "--count", "-q", "-j2"], false),
        // Chunks read apart on the pool: mapped.
        (&["filter", "--count", "-q", "-j2"], true),
        (&["fields", "-f", "@line", "-q", "-j3"], true),
    ] {
        std::fs::write(&path, &body).expect("rewrite");
        if settled {
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| {
                    f.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
                })
                .expect("mtime");
        }
        let mut child = Command::new(bin())
            .args(cmd)
            .arg(&path)
            // Every file cut into chunks with more than one job.
            .env("CCTAPE_SPLIT_AT", "1")
            // Into files, not pipes: a pipe nobody reads until the end
            // would hold a long output (verdict's records) and the child
            // with it.
            .stdout(std::fs::File::create(dir.join("out")).expect("out"))
            .stderr(std::fs::File::create(dir.join("err")).expect("err"))
            .spawn()
            .expect("spawn");
        // logrotate copytruncate, again and again, while it reads (from
        // once it has likely opened the file: else a mapped file would be
        // empty when opened, and read).
        std::thread::sleep(Duration::from_millis(3));
        let mut status = None;
        for _ in 0..3000 {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .expect("open");
            f.set_len(0).expect("truncate");
            std::thread::sleep(Duration::from_millis(2));
            if let Some(s) = child.try_wait().expect("wait") {
                status = Some(s);
                break;
            }
        }
        let out = match status {
            Some(status) => std::process::Output {
                status,
                stdout: std::fs::read(dir.join("out")).expect("out"),
                stderr: std::fs::read(dir.join("err")).expect("err"),
            },
            None => {
                let _ = child.kill();
                panic!("{cmd:?} did not end")
            }
        };
        assert_eq!(out.status.signal(), None, "{cmd:?} killed by a signal");
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(2) {
            assert!(
                // Said where reading stopped: `NAME:LINE: byte N: io: ...`.
                err.contains("the file shrank while it was read")
                    && err.contains("live.jsonl:")
                    && err.contains(": byte "),
                "{cmd:?}: {err}"
            );
        } else if out.status.code() == Some(1) {
            // Opened after a truncation: empty, nothing counted, and a
            // count of 0 exits 1 (as grep -c), as do no rows.
            // `verdict`: runs without a result do not succeed.
            match cmd[0] {
                "filter" => assert_eq!(out.stdout, b"0\n", "{cmd:?}: {err}"),
                "fields" => assert_eq!(out.stdout, b"@line\n", "{cmd:?}: {err}"),
                "verdict" => assert!(!err.contains("panicked"), "{cmd:?}: {err}"),
                _ => panic!("{cmd:?} exits 1: {err}"),
            }
        } else {
            assert_eq!(out.status.code(), Some(0), "{cmd:?}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 10. Absurd --jobs: clamped, with a note.

#[test]
fn absurd_jobs_are_clamped_with_a_note() {
    let input: String = (0..2).map(|i| event("s", i, 100)).collect();
    let r = cctape(
        &["stats", "--json", "-q", "--jobs", "100000"],
        Input::Bytes(input.as_bytes()),
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    assert_eq!(r.json()["events"], 2);
    assert!(
        r.stderr.contains("--jobs 100000 is more than helps"),
        "{}",
        r.stderr
    );
}
