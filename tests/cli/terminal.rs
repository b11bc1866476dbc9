//! A terminal on stderr or stdin: the progress line (not drawn into a pipe,
//! cleared on a terminal) and the hint naming every transcript folder.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::{json, stream, temp_dir};

/// Run cctape with stdin fed in two parts a little apart (so the job lasts
/// past the progress delay, set to 0 here) and stderr on `stderr`.
fn run_slowly(args: &[&str], stderr: Stdio) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .env("CCTAPE_PROGRESS_AFTER_MS", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = std::fs::read(stream("two-subagents.jsonl")).expect("read");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data[..2000]);
        let _ = stdin.flush();
        std::thread::sleep(std::time::Duration::from_millis(800));
        let _ = stdin.write_all(&data[2000..]);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

#[test]
fn progress_line_is_not_drawn_when_stderr_is_not_a_terminal() {
    let out = run_slowly(
        &["stats", "--json", "-j", "1", "-", "/nonexistent/x.jsonl"],
        Stdio::piped(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "cctape: /nonexistent/x.jsonl: open failed: No such file or directory (os error 2)\n"
    );
    assert_eq!(json(&out)["files"], 2);
}

/// A pseudo-terminal: (master descriptor, slave side), or `None` where
/// there is none.
fn pty() -> Option<(i32, std::fs::File)> {
    // SAFETY: plain libc calls on a pseudo-terminal we own.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        if master < 0 || libc::grantpt(master) != 0 || libc::unlockpt(master) != 0 {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(libc::ptsname(master))
            .to_str()
            .ok()?
            .to_string();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name)
            .ok()?;
        Some((master, slave))
    }
}

/// Everything written to the terminal until its last writer closes it.
fn read_master(master: i32) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            // SAFETY: reading into a buffer we own from a descriptor we own.
            let n = unsafe { libc::read(master, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            all.extend_from_slice(&buf[..n as usize]);
        }
        // SAFETY: closing our descriptor.
        unsafe { libc::close(master) };
        all
    })
}

#[test]
fn progress_line_on_a_terminal_is_cleared_before_notes_and_at_the_end() {
    for quiet in [false, true] {
        let Some((master, slave)) = pty() else {
            eprintln!("skipped: no pseudo-terminal here");
            return;
        };
        let reader = read_master(master);
        let mut args = vec!["stats", "--json", "-j", "1", "-", "/nonexistent/x.jsonl"];
        if quiet {
            args.push("--quiet");
        }
        let out = run_slowly(&args, Stdio::from(slave));
        let term = String::from_utf8_lossy(&reader.join().expect("reader")).into_owned();
        assert_eq!(json(&out)["files"], 2);
        let note = "cctape: /nonexistent/x.jsonl: open failed";
        let at = term
            .find(note)
            .unwrap_or_else(|| panic!("the note: {term:?}"));
        if quiet {
            assert!(!term.contains("files "), "--quiet draws nothing: {term:?}");
            continue;
        }
        // Drawn (bytes, rate, files), then erased before the note, which
        // starts its own line, and erased at the end.
        let before = &term[..at];
        assert!(before.contains("files 0/2"), "drawn: {term:?}");
        assert!(
            before.ends_with("\r\x1b[2K"),
            "cleared before the note: {term:?}"
        );
        assert!(term.ends_with("\r\x1b[2K"), "cleared at the end: {term:?}");
    }
}

/// With no path and a terminal on stdin, the hint names where Claude Code
/// keeps transcripts: every folder of a comma-separated
/// `$CLAUDE_CONFIG_DIR` (as ccusage reads it), else both
/// `~/.config/claude/projects` and `~/.claude/projects`, those that exist.
/// Run under `script` (util-linux) for the terminal; skipped without it.
#[test]
fn the_terminal_hint_names_every_transcript_folder() {
    let found = Command::new("script").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        eprintln!("no `script` here: skipped");
        return;
    }
    let dir = temp_dir("hint");
    for d in [
        ".claude/projects",
        ".config/claude/projects",
        "c1/projects",
        "c2/projects",
    ] {
        std::fs::create_dir_all(dir.join(d)).expect("mkdir");
    }
    let bin = env!("CARGO_BIN_EXE_cctape");
    let hint = |config: Option<String>| {
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &format!("{bin} stats"), "/dev/null"])
            .env("HOME", dir.to_path_buf())
            .stdin(Stdio::null());
        match config {
            Some(c) => cmd.env("CLAUDE_CONFIG_DIR", c),
            None => cmd.env_remove("CLAUDE_CONFIG_DIR"),
        };
        let out = cmd.output().expect("script");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.contains("sessions are in"))
            .map(str::to_owned)
    };
    let home = dir.to_str().expect("path");
    let line = hint(None).expect("a hint");
    assert!(
        line.contains(&format!(
            "in {home}/.config/claude/projects and {home}/.claude/projects:"
        )),
        "{line}"
    );
    let line = hint(Some(format!("{home}/c1, {home}/c2,{home}/none"))).expect("a hint");
    assert!(
        line.ends_with(&format!(
            "cctape COMMAND {home}/c1/projects {home}/c2/projects"
        )),
        "{line}"
    );
    assert_eq!(hint(Some(format!("{home}/none"))), None);
}
