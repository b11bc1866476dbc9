//! Odd inputs (issue 12, cases 4 and 17, and the terminal hint): pzstd's
//! skippable frame, CR-only line ends, data after a gzip, xz, bzip2 or LZ4
//! stream or one cut short, an endless pipe under `--max-count`, unknown
//! `@`-names, and a terminal on stdin.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::{Input, MINUTE, Output, Ran, args, cctape, event, temp_dir};

// ---------------------------------------------------------------------------
// 4. pzstd output (a skippable frame first) is zstd.

#[test]
fn zstd_starting_with_a_skippable_frame_is_read_as_zstd() {
    let dir = temp_dir("pzstd");
    let body: String = (0..100).map(|i| event("s", i, 200)).collect();
    // What pzstd writes: a skippable frame holding the frame sizes, then
    // frames.
    let mut z = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 0, 0, 0, 0];
    z.extend(zstd::encode_all(body.as_bytes(), 3).expect("zstd"));
    let path = dir.join("runs.jsonl.zst");
    std::fs::write(&path, &z).expect("write");
    let r = cctape(
        &args(&["stats", "--json", "-q"], &path),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["events"], 100);
    assert_eq!(j["error_count"], 0);
    std::fs::remove_dir_all(&dir).expect("clean");
}

// ---------------------------------------------------------------------------
// 17. CR-only line ends, data after gzip, unknown @-names.

#[test]
fn cr_only_line_ends_are_named_not_just_truncated() {
    let input: String = (0..5)
        .map(|i| event("s", i, 100).replace('\n', "\r"))
        .collect();
    let r = cctape(
        &["stats", "--json", "-q"],
        Input::Bytes(input.as_bytes()),
        Output::Keep,
        MINUTE,
    );
    let j = r.json();
    assert_eq!(j["error_count"], 1);
    let msg = j["errors"][0]["message"].as_str().expect("message");
    assert!(msg.contains("CR only"), "{msg}");
    let r = cctape(
        &["check", "--json", "-q"],
        Input::Bytes(input.as_bytes()),
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.json()["findings"][0]["category"], "cr_line_ends");
}

#[test]
fn gzip_with_trailing_garbage_or_zero_padding_says_where() {
    let dir = temp_dir("gz-trailer");
    let body: String = (0..50).map(|i| event("s", i, 100)).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(body.as_bytes()).expect("gzip");
    let gz = gz.finish().expect("gzip");
    for (name, tail, says) in [
        (
            "padded",
            vec![0u8; 1024],
            format!(
                "1024 zero bytes of padding after the last member (compressed bytes {}..{})",
                gz.len(),
                gz.len() + 1024
            ),
        ),
        (
            "garbage",
            b"\n\ngarbage".to_vec(),
            format!(
                "trailing data that is not gzip at compressed byte {}",
                gz.len()
            ),
        ),
    ] {
        let path = dir.join(format!("{name}.jsonl.gz"));
        let mut bytes = gz.clone();
        bytes.extend_from_slice(&tail);
        std::fs::write(&path, bytes).expect("write");
        let r = cctape(
            &args(&["stats", "--json", "-q"], &path),
            Input::Null,
            Output::Keep,
            MINUTE,
        );
        assert_eq!(r.code(), Some(2), "{name}: {}", r.stderr);
        let j = r.json();
        assert_eq!(j["events"], 50, "{name}: every event before is read");
        assert_eq!(j["error_count"], 1, "{name}");
        assert!(r.stderr.contains(&says), "{name}: {}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!(":51: byte {}: io: ", body.len())),
            "{name}: {}",
            r.stderr
        );
    }
    std::fs::remove_dir_all(&dir).expect("clean");
}

/// `body` compressed by `codec` (`xz`, `bzip2`, `lz4`).
fn packed(codec: &str, body: &[u8]) -> Vec<u8> {
    match codec {
        "xz" => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(body).expect("xz");
            e.finish().expect("xz")
        }
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(body).expect("bzip2");
            e.finish().expect("bzip2")
        }
        _ => {
            let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
            e.write_all(body).expect("lz4");
            e.finish().expect("lz4")
        }
    }
}

#[test]
fn filter_max_count_and_listing_stop_reading_an_endless_pipe() {
    // An endless stream of events on stdin, as `yes` writes it: grep -m 1
    // and grep -l stop reading, and so must these.
    for (flags, want) in [
        (
            &["-m", "2", "-n"][..],
            "1:{\"type\":\"user\"}\n2:{\"type\":\"user\"}\n",
        ),
        (&["-l"][..], "<stdin>\n"),
        (&["-c", "-m", "3"][..], "3\n"),
    ] {
        let mut yes = Command::new("yes")
            .arg("{\"type\":\"user\"}")
            .stdout(Stdio::piped())
            .spawn()
            .expect("yes");
        let mut a = vec!["filter", "--type", "user"];
        a.extend_from_slice(flags);
        let r = cctape(
            &a,
            Input::Stdio(Stdio::from(yes.stdout.take().expect("stdout"))),
            Output::Keep,
            MINUTE,
        );
        let _ = yes.kill();
        let _ = yes.wait();
        assert_eq!(r.code(), Some(0), "{flags:?}: {}", r.stderr);
        assert_eq!(String::from_utf8_lossy(&r.stdout), want, "{flags:?}");
    }
}

/// `bytes` written to `path`, then `cctape stats --json -q` of it.
fn stats_of(path: &Path, bytes: &[u8]) -> Ran {
    std::fs::write(path, bytes).expect("write");
    cctape(
        &args(&["stats", "--json", "-q"], path),
        Input::Null,
        Output::Keep,
        MINUTE,
    )
}

#[test]
fn xz_bzip2_lz4_cut_short_or_followed_by_garbage_say_where() {
    let dir = temp_dir("xz-bz2-lz4");
    let body: String = (0..400).map(|i| event("s", i, 300)).collect();
    let lines = body.lines().count();
    for (codec, unit) in [("xz", "stream"), ("bzip2", "stream"), ("lz4", "frame")] {
        let whole = packed(codec, body.as_bytes());
        // Two members one after another, as `cat a.xz b.xz` or pbzip2 make.
        let twice = [whole.clone(), whole.clone()].concat();
        let r = stats_of(&dir.join(format!("twice.{codec}")), &twice);
        assert_eq!(r.code(), Some(0), "{codec}: {}", r.stderr);
        assert_eq!(r.json()["events"], 2 * lines, "{codec}");
        assert_eq!(r.json()["error_count"], 0, "{codec}");

        // Cut inside the second member: every event of the first is read,
        // then one positioned error naming the member.
        let cut = &twice[..whole.len() + whole.len() / 2];
        let r = stats_of(&dir.join(format!("cut.{codec}")), cut);
        assert_eq!(r.code(), Some(2), "{codec}: {}", r.stderr);
        let j = r.json();
        assert!(
            j["events"].as_u64().expect("events") >= lines as u64,
            "{codec}: {}",
            j["events"]
        );
        assert_eq!(j["error_count"], 1, "{codec}");
        let says = format!("{codec}: {unit} 2 (from compressed byte {})", whole.len());
        assert!(r.stderr.contains(&says), "{codec}: {}", r.stderr);

        // Garbage after the last member ends the stream; it is reported
        // with its offset after every event is read.
        let mut tailed = whole.clone();
        tailed.extend_from_slice(b"\n\ngarbage");
        let r = stats_of(&dir.join(format!("garbage.{codec}")), &tailed);
        assert_eq!(r.code(), Some(2), "{codec}: {}", r.stderr);
        assert_eq!(r.json()["events"], lines, "{codec}");
        let says = format!(
            "trailing data that is not {codec} at compressed byte {}",
            whole.len()
        );
        assert!(r.stderr.contains(&says), "{codec}: {}", r.stderr);
    }
    // xz allows zero padding in fours between and after streams: no error.
    let whole = packed("xz", body.as_bytes());
    let padded = [whole.clone(), vec![0; 8], whole.clone(), vec![0; 4]].concat();
    let r = stats_of(&dir.join("padded.xz"), &padded);
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    assert_eq!(r.json()["events"], 2 * lines);
    std::fs::remove_dir_all(&dir).expect("clean");
}

#[test]
fn fields_with_an_unknown_at_name_is_a_usage_error() {
    let r = cctape(
        &["fields", "-f", "@bogus"],
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(2));
    assert!(
        r.stderr.contains("@file, @line, @offset, @kind"),
        "{}",
        r.stderr
    );
}

// ---------------------------------------------------------------------------
// The hint when stdin is a terminal.

#[test]
fn a_terminal_on_stdin_gets_a_hint() {
    // SAFETY: plain libc calls on a pseudo-terminal we own.
    let master = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY) };
    if master < 0 {
        eprintln!(
            "skipped: no pseudo-terminal here ({})",
            std::io::Error::last_os_error()
        );
        return;
    }
    assert_eq!(unsafe { libc::grantpt(master) }, 0);
    assert_eq!(unsafe { libc::unlockpt(master) }, 0);
    let name = unsafe { std::ffi::CStr::from_ptr(libc::ptsname(master)) }
        .to_str()
        .expect("pty name")
        .to_string();
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&name)
        .expect("open pty");
    // Ctrl-D at the start of a line: end of input.
    let eof = [4u8];
    // SAFETY: writing a byte to the master side.
    assert_eq!(unsafe { libc::write(master, eof.as_ptr().cast(), 1) }, 1);
    let r = cctape(
        &["stats", "--json"],
        Input::Stdio(Stdio::from(slave)),
        Output::Keep,
        MINUTE,
    );
    // SAFETY: closing our descriptor.
    unsafe { libc::close(master) };
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("from standard input (the terminal)") && r.stderr.contains("Ctrl-D"),
        "{}",
        r.stderr
    );
    assert_eq!(r.json()["lines"], 0);
}
