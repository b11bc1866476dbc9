//! One input holding very many short runs (a log appended to by thousands
//! of `claude -p` calls): `verdict` held every run of an input until the
//! input ended, 366 MB for 80,000 runs of two lines, 1.2 GB for 240,000.
//! It now writes each run's record once the run is long over (a result,
//! and no line of it in the last 50,000 lines, the bound `stats` sums
//! runs at), in the order the runs began, and keeps the input's last run
//! for `--exit-code`. Memory is bounded by that window, not by the input.
//! `tree` held them all too (1.0 GB for 240,000 runs) and draws them so
//! now.

use crate::{Input, MIB, MINUTE, Output, args, assert_peak, cctape, temp_dir};
use std::io::{BufRead, Write};
use std::process::Stdio;

/// `runs` runs of two lines each, sessions `s0`, `s1`, ... in turn.
fn short_runs(runs: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(runs * 200);
    for i in 0..runs {
        writeln!(
            out,
            r#"{{"type":"system","subtype":"init","session_id":"s{i}","model":"claude-opus-4-6"}}"#
        )
        .unwrap();
        let (subtype, is_error) = if i % 10 == 3 {
            ("error_max_turns", true)
        } else {
            ("success", false)
        };
        writeln!(
            out,
            r#"{{"type":"result","subtype":"{subtype}","is_error":{is_error},"result":"ok","total_cost_usd":0.25,"num_turns":1,"session_id":"s{i}"}}"#
        )
        .unwrap();
    }
    out
}

/// `cctape ARGS` over `runs` runs (exit code `code`, peak under 256 MiB),
/// each line of its output checked by `check` (its number, the line); the
/// peak.
fn each_line_of(cmd: &[&str], runs: usize, code: i32, check: impl Fn(usize, &str)) -> Option<u64> {
    let dir = temp_dir(&format!("many-runs-{}-{runs}", cmd.join("")));
    let path = dir.join("runs.jsonl");
    std::fs::write(&path, short_runs(runs)).expect("write");
    let out_path = dir.join("out.jsonl");
    let out = std::fs::File::create(&out_path).expect("create");
    let r = cctape(
        &args(cmd, &path),
        Input::Null,
        Output::Stdio(Stdio::from(out)),
        MINUTE,
    );
    assert_eq!(r.code(), Some(code), "{}", r.stderr);
    assert_peak(&r, 256 * MIB, &format!("{cmd:?} of {runs} runs"));
    let lines = std::io::BufReader::new(std::fs::File::open(&out_path).expect("open"));
    let mut n = 0;
    for line in lines.lines() {
        let line = line.expect("read");
        let session = format!(r#""session_id":"s{n}""#);
        assert!(
            line.contains(&session),
            "record {n} is not run s{n}: {line:.300}"
        );
        check(n, &line);
        n += 1;
    }
    assert_eq!(n, runs);
    r.peak
}

/// `verdict --json --exit-code 1` over `runs` runs: every record in
/// order, the exit code on the last run only; the peak memory.
fn verdicts_of(runs: usize, jobs: &str) -> Option<u64> {
    let cmd = ["verdict", "--json", "--exit-code", "1", jobs];
    each_line_of(&cmd, runs, 1, |n, line| {
        let verdict = if n == runs - 1 {
            // The exit code turns the last run's success into a failure.
            r#"{"verdict":"error","ok":false,"#
        } else if n % 10 == 3 {
            r#"{"verdict":"max_turns","ok":false,"#
        } else {
            r#"{"verdict":"success","ok":true,"#
        };
        assert!(line.starts_with(verdict), "record {n}: {line:.300}");
        let code = if n == runs - 1 { "1" } else { "null" };
        assert!(
            line.contains(&format!(r#""exit_code":{code},"#)),
            "record {n}: {line:.300}"
        );
    })
}

#[test]
#[ignore = "240,000 runs through verdict: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn verdict_of_an_input_of_many_runs_writes_them_in_bounded_memory() {
    for jobs in ["-j1", "-j2"] {
        let small = verdicts_of(80_000, jobs);
        let large = verdicts_of(240_000, jobs);
        if let (Some(small), Some(large)) = (small, large) {
            assert!(
                large < small + 64 * MIB,
                "{jobs}: 240,000 runs peaked at {} MiB, 80,000 at {} MiB",
                large / MIB,
                small / MIB
            );
        }
    }
}

/// `tree --json` over `runs` runs: one line per run, in order; the peak.
fn trees_of(runs: usize) -> Option<u64> {
    each_line_of(&["tree", "--json"], runs, 0, |_, _| {})
}

#[test]
#[ignore = "240,000 runs through tree: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn tree_of_an_input_of_many_runs_draws_them_in_bounded_memory() {
    let small = trees_of(80_000);
    let large = trees_of(240_000);
    if let (Some(small), Some(large)) = (small, large) {
        assert!(
            large < small + 64 * MIB,
            "240,000 runs peaked at {} MiB, 80,000 at {} MiB",
            large / MIB,
            small / MIB
        );
    }
}

/// `otel --out` over 80,000 runs: every run's telemetry once, in order,
/// 64 runs a line (`--otlp-batch`); before, 0.9 GB (2.7 GB for 240,000).
#[test]
#[ignore = "80,000 runs through otel: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn otel_of_an_input_of_many_runs_writes_them_in_bounded_memory() {
    let runs = 80_000;
    let dir = temp_dir("many-runs-otel");
    let path = dir.join("runs.jsonl");
    std::fs::write(&path, short_runs(runs)).expect("write");
    let out = dir.join("otel");
    let out_arg = out.to_str().expect("utf-8 temp path");
    let r = cctape(
        &args(&["otel", "--out", out_arg], &path),
        Input::Null,
        Output::Keep,
        MINUTE,
    );
    assert_eq!(r.code(), Some(0), "{}", r.stderr);
    assert_peak(&r, 384 * MIB, "otel of 80,000 runs");
    assert!(
        r.stderr.contains("otel: 80000 runs, 80000 spans"),
        "{}",
        r.stderr
    );
    let metrics = std::fs::read_to_string(out.join("metrics.jsonl")).expect("metrics");
    let mut lines = 0;
    for (k, line) in metrics.lines().enumerate() {
        // Each line's first run, its resource's `session.id` first.
        let first = format!(
            r#""key":"session.id","value":{{"stringValue":"s{}"}}"#,
            k * 64
        );
        let at = line.find(r#""key":"session.id""#).expect("a session.id");
        assert!(
            line[at..].starts_with(&first),
            "line {k}: {:.200}",
            &line[at..]
        );
        lines += 1;
    }
    assert_eq!(lines, runs.div_ceil(64));
}
