//! `cctape watch` on a terminal, run under `script` (util-linux) so that
//! its stderr is a pseudo-terminal: the status line shows the run's best
//! figure with its source once the result came (the figure `verdict`
//! gives), and the end is the verdict's one line for people, not a JSON
//! record; `--json` brings the record back. Skipped where `script` is
//! missing (not under CI).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "support/realworld.rs"]
mod realworld;

fn script_present() -> bool {
    let found = Command::new("script").arg("--version").output();
    let ok = found.is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "`script` is missing under CI"
        );
        eprintln!("no `script` here: skipped");
    }
    ok
}

/// What `cctape watch ARGS` drew on the terminal when fed `file` with its
/// last line (the result) 300 ms after the others, so that a status line
/// is drawn before and after it: (status lines in order, what was left on
/// the terminal at the end), carriage returns and erasures split out.
fn watch_on_a_terminal(file: &Path, args: &str) -> (Vec<String>, String) {
    let bin = env!("CARGO_BIN_EXE_cctape");
    let f = file.to_str().expect("path");
    let cmd = format!(
        "(head -n -1 '{f}'; sleep 0.3; tail -n 1 '{f}'; sleep 0.3) | {bin} watch {args} > /dev/null"
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script");
    let term = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    let pieces: Vec<&str> = term.split("\r\x1b[2K").collect();
    let status = pieces
        .iter()
        .filter(|p| p.starts_with("turn "))
        .map(|p| p.to_string())
        .collect();
    let end = pieces.last().copied().unwrap_or_default().to_string();
    (status, end)
}

fn verdict_json(file: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["verdict", "--json"])
        .arg(file)
        .output()
        .expect("verdict");
    serde_json::from_slice(&out.stdout).expect("one record")
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name)
}

/// The corpus's placeholder case: the assistant event's usage is its
/// `message_start` snapshot (4 output tokens), the result's `usage` says
/// 145, which is the run's figure.
#[test]
fn after_the_result_the_status_shows_the_verdicts_figure() {
    if !script_present() {
        return;
    }
    let file = corpus("run/usage-reconcile-mismatch.jsonl");
    let v = verdict_json(&file);
    assert_eq!(v["usage"]["main"]["output_tokens"], 145);
    let (status, end) = watch_on_a_terminal(&file, "");
    assert!(
        status.len() >= 2,
        "a line before and after the result: {status:?}"
    );
    let (last, before) = status.split_last().expect("status lines");
    assert!(
        before.iter().any(|s| s.contains("output tokens ≥")),
        "live, a lower bound: {status:?}"
    );
    assert!(last.contains("output tokens 145 (results) "), "{last}");
    assert!(last.contains("cost $0.0100"), "the verdict's cost: {last}");
    // The end: the verdict's line for people, as `verdict` prints it on a
    // terminal.
    assert!(end.starts_with("success "), "{end:?}");
    assert!(
        end.contains("<stdin>  11111111-1111-4111-8111-111111111111"),
        "{end:?}"
    );
    assert!(end.contains("145 output tokens (results)"), "{end:?}");
    assert!(!end.contains('{'), "not JSON: {end:?}");
    assert_eq!(end.trim_end().lines().count(), 1, "{end:?}");
}

#[test]
fn json_on_a_terminal_with_the_flag() {
    if !script_present() {
        return;
    }
    let file = corpus("streams/max-turns.jsonl");
    let (_, end) = watch_on_a_terminal(&file, "--json --quiet");
    let record: serde_json::Value =
        serde_json::from_str(end.trim_end()).unwrap_or_else(|e| panic!("{e}: {end:?}"));
    let mut want = verdict_json(&file);
    want["file"] = "<stdin>".into();
    assert_eq!(record, want, "the verdict's record");
}

/// The real capture (Claude Code 2.1.41): the live sum of its
/// calls is a lower bound far below the result's 7,550.
#[test]
fn a_real_capture_ends_at_its_result_figure() {
    if !script_present() {
        return;
    }
    let Some(rw) = realworld::realworld_dir() else {
        return;
    };
    let file = rw.join("TomOfekKafka__ThePerfectSnake__claude-stream@4873604.jsonl");
    let (status, end) = watch_on_a_terminal(&file, "");
    let (last, before) = status.split_last().expect("status lines");
    assert!(
        before.iter().any(|s| s.contains("output tokens ≥")),
        "{status:?}"
    );
    assert!(last.contains("output tokens 7,550 (results) "), "{last}");
    assert!(end.starts_with("max_turns "), "{end:?}");
    assert!(end.contains(", 7,550 output tokens (results), "), "{end:?}");
}
