//! Runs folded apart: `cctape stats`, `verdict`, `tree` and `otel` with two
//! jobs fold the runs that begin in a chunk of a large file on the thread
//! that scanned it, and the in-order fold takes them as a whole
//! ([`RunFolder::accepts`], [`RunFolder::append`]). These tests hold that
//! to the one-folder result: the library's rule on random logs (every
//! split it accepts gives the same runs, and it accepts every split where
//! a new session begins), and the commands on files whose runs begin in
//! the middle of chunks, with sessions that take turns (a part given
//! back), bad lines, and runs long over written while the file is read.

use cctape::SliceEvents;
use cctape::run::{IDLE_LINES, RunFolder, RunSummary};
use proptest::prelude::*;
use std::path::PathBuf;
use std::process::Command;

/// One line of a generated log.
#[derive(Clone, Debug)]
enum Op {
    Hook(u8),
    Init(u8),
    Call(u8, u8),
    Result(u8),
    /// An event without a `session_id` (it belongs to the run before).
    NoSession,
    Bad,
    /// Enough blank lines that a run with a result is over.
    Gap,
}

fn render(ops: &[Op]) -> String {
    let mut s = String::new();
    for op in ops {
        match op {
            Op::Hook(k) => s.push_str(&format!(
                r#"{{"type":"system","subtype":"hook_started","hook_name":"SessionStart","session_id":"s{k}"}}"#
            )),
            Op::Init(k) => s.push_str(&format!(
                r#"{{"type":"system","subtype":"init","session_id":"s{k}","model":"m{k}"}}"#
            )),
            Op::Call(k, m) => s.push_str(&format!(
                r#"{{"type":"assistant","message":{{"id":"msg_{m}","model":"m{k}","content":[{{"type":"text","text":"x"}}],"usage":{{"input_tokens":{m},"output_tokens":3}}}},"parent_tool_use_id":null,"session_id":"s{k}"}}"#
            )),
            Op::Result(k) => s.push_str(&format!(
                r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.25,"session_id":"s{k}"}}"#
            )),
            Op::NoSession => s.push_str(r#"{"type":"control_cancel_request","request_id":"r"}"#),
            Op::Bad => s.push_str("not json"),
            Op::Gap => s.push_str(&"\n".repeat(IDLE_LINES as usize + 1)),
        }
        s.push('\n');
    }
    s
}

/// The folder of every line, of the lines up to `split`, and a fresh one
/// of the lines after it.
fn folds(log: &[u8], split: u64) -> (RunFolder, RunFolder, RunFolder) {
    let (mut whole, mut first, mut later) = (RunFolder::new(), RunFolder::new(), RunFolder::new());
    let mut events = SliceEvents::new(log);
    while let Some(item) = events.next_event() {
        let line = match &item {
            Ok(ev) => ev.line(),
            Err(e) => e.position().line,
        };
        let part = if line <= split {
            &mut first
        } else {
            &mut later
        };
        for folder in [&mut whole, part] {
            match &item {
                Ok(ev) => folder.push(ev),
                Err(e) => folder.push_error(e),
            }
        }
    }
    (whole, first, later)
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..4;
    prop_oneof![
        2 => k.clone().prop_map(Op::Hook),
        3 => k.clone().prop_map(Op::Init),
        6 => (k.clone(), 0u8..6).prop_map(|(k, m)| Op::Call(k, m)),
        3 => k.prop_map(Op::Result),
        1 => Just(Op::NoSession),
        1 => Just(Op::Bad),
        1 => Just(Op::Gap),
    ]
}

/// The line number of each op's line (a gap is many lines).
fn line_numbers(ops: &[Op]) -> Vec<u64> {
    let mut at = 1u64;
    ops.iter()
        .map(|op| {
            let this = match op {
                Op::Gap => at + IDLE_LINES + 1,
                _ => at,
            };
            at = this + 1;
            this
        })
        .collect()
}

fn session_of(op: &Op) -> Option<u8> {
    match op {
        Op::Hook(k) | Op::Init(k) | Op::Call(k, _) | Op::Result(k) => Some(*k),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Every split the folder accepts gives the one-folder runs, and a
    /// split after which only sessions not seen before come (once one was
    /// seen) is accepted.
    #[test]
    fn an_accepted_split_folds_as_one_folder(ops in prop::collection::vec(op(), 1..40), at in 0usize..40) {
        let at = at % ops.len();
        let log = render(&ops);
        let numbers = line_numbers(&ops);
        // The split falls before op `at`'s line.
        let split = numbers[at] - 1;
        let (whole, mut first, mut later) = folds(log.as_bytes(), split);
        let before: Vec<u8> = ops[..at].iter().filter_map(session_of).collect();
        let new_sessions = !before.is_empty()
            && session_of(&ops[at]).is_some()
            && ops[at..].iter().filter_map(session_of).all(|k| !before.contains(&k));
        if new_sessions {
            prop_assert!(first.accepts(&later), "new sessions from line {} were not accepted", numbers[at]);
        }
        if first.accepts(&later) {
            prop_assert!(first.append(&mut later));
            prop_assert!(later.is_empty());
            let (a, b): (Vec<RunSummary>, Vec<RunSummary>) = (first.finish(), whole.finish());
            prop_assert_eq!(a, b);
        } else {
            let before = format!("{first:?}");
            prop_assert!(!first.append(&mut later));
            prop_assert_eq!(before, format!("{first:?}"));
        }
    }
}

#[test]
fn a_session_still_going_is_not_taken_apart_and_one_long_over_is() {
    let check = |ops: &[Op], at: usize, accepted: bool| {
        let numbers = line_numbers(ops);
        let log = render(ops);
        let (whole, mut first, mut later) = folds(log.as_bytes(), numbers[at] - 1);
        assert_eq!(first.accepts(&later), accepted, "{ops:?} split before {at}");
        if accepted {
            assert!(first.append(&mut later));
            assert_eq!(first.finish(), whole.finish());
        }
    };
    use Op::*;
    // Another session: its own run.
    check(
        &[Hook(0), Init(0), Call(0, 1), Result(0), Hook(1), Init(1)],
        4,
        true,
    );
    // The same session again (a second round): its run goes on.
    check(
        &[Init(0), Call(0, 1), Result(0), Init(0), Call(0, 2)],
        3,
        false,
    );
    // A session that took a turn earlier and is still going.
    check(&[Init(0), Init(1), Result(1), Init(0)], 3, false);
    // Long over (a result, then more than IDLE_LINES lines): a new run.
    check(&[Init(0), Result(0), Gap, Init(0)], 3, true);
    // Long quiet but without a result: still going.
    check(&[Init(0), Gap, Init(0)], 2, false);
    // Lines before any session wait for one: they are not another run's.
    check(&[NoSession, Init(1)], 1, false);
    // A part that begins without a session belongs to the run before.
    check(&[Init(0), NoSession, Init(1)], 1, false);
    // A part that begins with a bad line: it is the run before's too.
    check(&[Init(0), Bad, Init(1)], 1, false);
}

/// `stats --json` with `jobs`, chunks of `chunk` bytes (every file is
/// large), and what the fold said of the parts on stderr.
fn stats(path: &std::path::Path, jobs: &str, chunk: &str, by: &[&str]) -> (Vec<u8>, String) {
    let args: Vec<&str> = ["stats", "--json"].iter().chain(by).copied().collect();
    let (mut out, said) = cctape(&args, path, jobs, chunk);
    let end = out.len() - b"\nexit Some(0)".len();
    assert_eq!(&out[end..], b"\nexit Some(0)", "{said}");
    out.truncate(end);
    (out, said)
}

/// (taken, given back, taken with the next chunk's first lines in them)
/// from the trace line.
fn parts(stderr: &str) -> (u64, u64, u64) {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("cctape: parts folded apart: "))
        .unwrap_or_else(|| panic!("no trace in {stderr:?}"));
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (n[0], n[1], n[2])
}

/// A log of `runs` runs (hooks, init, calls with usage, a tool error, a
/// result); `turns`: sessions take turns in rounds, so that a chunk's
/// first run is often one still going.
fn log(runs: usize, turns: bool) -> String {
    let mut s = String::new();
    for r in 0..runs {
        let k = if turns { r % 3 } else { r };
        for h in 0..2 {
            s.push_str(&format!(
                r#"{{"type":"system","subtype":"hook_started","hook_id":"h{r}{h}","hook_name":"SessionStart:startup","session_id":"s{k}"}}"#
            ));
            s.push('\n');
        }
        s.push_str(&format!(
            r#"{{"type":"system","subtype":"init","session_id":"s{k}","model":"claude-opus-4-1","claude_code_version":"2.1.{r}"}}"#
        ));
        s.push('\n');
        for c in 0..3 {
            s.push_str(&format!(
                r#"{{"type":"assistant","message":{{"id":"msg_{r}_{c}","model":"claude-opus-4-1","stop_reason":"end_turn","content":[{{"type":"tool_use","id":"t{r}_{c}","name":"Bash","input":{{"command":"ls"}}}}],"usage":{{"input_tokens":{c},"output_tokens":{r},"cache_read_input_tokens":100}}}},"parent_tool_use_id":null,"session_id":"s{k}"}}"#
            ));
            s.push('\n');
            s.push_str(&format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{r}_{c}","content":"Exit code 1","is_error":{}}}]}},"parent_tool_use_id":null,"session_id":"s{k}"}}"#,
                c == 1
            ));
            s.push('\n');
        }
        if r % 17 == 5 {
            s.push_str("{\"type\":\"control_cancel_request\",\"request_id\":\"x\"}\n");
        }
        if r % 29 == 11 {
            s.push_str("{\"type\":\"assistant\",\"message\":\n");
        }
        s.push_str(&format!(
            r#"{{"type":"result","subtype":"{}","is_error":false,"num_turns":3,"total_cost_usd":0.{r:03},"session_id":"s{k}"}}"#,
            if r % 5 == 0 { "error_max_turns" } else { "success" }
        ));
        s.push('\n');
    }
    s
}

/// A fresh folder named `name` and the process id, with two logs of 400
/// runs: sessions in turn (`runs.jsonl`) and sessions taking turns
/// (`turns.jsonl`).
fn two_logs(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (apart, turns) = (dir.join("runs.jsonl"), dir.join("turns.jsonl"));
    std::fs::write(&apart, log(400, false)).unwrap();
    std::fs::write(&turns, log(400, true)).unwrap();
    (dir, apart, turns)
}

#[test]
fn stats_with_two_jobs_takes_runs_folded_apart_and_gives_the_one_job_figures() {
    let (dir, apart, turns) = two_logs("cctape-fold-apart");
    let (mut taken_in_all, mut lent_in_all) = (0, 0);
    for by in [&[][..], &["--by", "session"][..], &["--by", "model"][..]] {
        for chunk in ["3000", "20000"] {
            // One job and two give the same bytes; what the fold said.
            let same = |path: &std::path::Path| {
                let (one, _) = stats(path, "1", chunk, by);
                let (two, said) = stats(path, "2", chunk, by);
                assert!(
                    one == two,
                    "{path:?}, chunks of {chunk} {by:?}: -j2 differs"
                );
                (parts(&said), said)
            };
            // How many are taken depends on which thread scans which
            // chunk first (a chunk scanned before the one ahead of it is
            // folded apart only by an idle thread); none is given back.
            let ((taken, back, lent), said) = same(&apart);
            assert!(taken >= 1 && lent <= taken, "{said}");
            assert_eq!(back, 0, "{said}");
            taken_in_all += taken;
            lent_in_all += lent;
            // Sessions taking turns: a chunk's first run is one still
            // going, given back, and after a few the fold stops trying
            // (two or so are folded ahead of the first answer).
            let ((taken, back, _), said) = same(&turns);
            assert!((1..=6).contains(&back) && taken <= back, "{said}");
        }
    }
    assert!(
        taken_in_all >= 30,
        "{taken_in_all} parts taken in six readings"
    );
    // Most chunks' first lines go on with the run the part before ends
    // with: folded into it when both chunks were folded apart in time.
    assert!(
        lent_in_all >= 100,
        "{lent_in_all} parts taken with the next chunk's first lines"
    );
    // The figures are the file's: 400 runs, 80 of them max_turns, and
    // the bad lines counted.
    let (out, _) = stats(&apart, "2", "3000", &[]);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["runs"], 400, "{v}");
    assert_eq!(v["verdicts"]["max_turns"], 80, "{v}");
    assert_eq!(v["error_count"], 14, "{v}");
    assert_eq!(v["tools"]["Bash"]["errors"], 400, "{v}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `cctape ARGS --jobs JOBS PATH` with chunks of `chunk` bytes (every file
/// is large): its output and exit code (0; verdict's 1 when a run failed;
/// 2 for `tree`, which counts the bad lines as errors) and what the fold
/// said of the parts on stderr.
fn cctape(args: &[&str], path: &std::path::Path, jobs: &str, chunk: &str) -> (Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .args(["--quiet", "--jobs", jobs])
        .arg(path)
        .env("CCTAPE_SPLIT_AT", "1")
        .env("CCTAPE_CHUNK", chunk)
        .env("CCTAPE_TRACE_APART", "1")
        .output()
        .expect("run cctape");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    assert!(matches!(code, Some(0..=2)), "{args:?}: {said}");
    let mut bytes = out.stdout;
    bytes.extend(format!("\nexit {code:?}").as_bytes());
    (bytes, said)
}

/// `otel --out` into a fresh folder: both files' bytes.
fn otel(
    path: &std::path::Path,
    jobs: &str,
    chunk: &str,
    dir: &std::path::Path,
) -> (Vec<u8>, String) {
    let folder = dir.join(format!("otel-{jobs}-{chunk}"));
    let (_, said) = cctape(
        &["otel", "--out", folder.to_str().unwrap()],
        path,
        jobs,
        chunk,
    );
    let mut bytes = std::fs::read(folder.join("traces.jsonl")).unwrap();
    bytes.extend(std::fs::read(folder.join("metrics.jsonl")).unwrap());
    (bytes, said)
}

/// `runs` runs, a session each, in more than [`cctape::run::IDLE_LINES`]
/// lines, so that runs long over are written while the file is read: the
/// first run 4,095 lines long and every other 4,096 (`init`, `user` lines,
/// `result`), so that each later run begins at an event the runs long over
/// are looked for at (every 4,096th), the first event of the part it
/// begins when it is its chunk's first.
fn aligned_runs(runs: usize) -> String {
    let mut s = String::new();
    for r in 0..runs {
        s.push_str(&format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s{r}\"}}\n"
        ));
        for _ in 0..(4094 - usize::from(r == 0)) {
            s.push_str(&format!("{{\"type\":\"user\",\"session_id\":\"s{r}\"}}\n"));
        }
        s.push_str(&format!(
            "{{\"type\":\"result\",\"subtype\":\"{}\",\"is_error\":false,\"session_id\":\"s{r}\"}}\n",
            if r % 7 == 0 { "error_max_turns" } else { "success" }
        ));
    }
    s
}

#[test]
fn verdict_tree_and_otel_with_two_jobs_take_runs_folded_apart_and_write_the_one_job_bytes() {
    let (dir, apart, turns) = two_logs("cctape-fold-apart-runs");
    let long = dir.join("long.jsonl");
    std::fs::write(&long, aligned_runs(20)).unwrap();
    let mut lent_in_all = 0;
    type Read<'a> = Box<dyn Fn(&std::path::Path, &str, &str) -> (Vec<u8>, String) + 'a>;
    let commands: Vec<(&str, Read<'_>)> = vec![
        (
            "verdict",
            Box::new(|p, j, c| cctape(&["verdict", "--json"], p, j, c)),
        ),
        (
            "tree",
            Box::new(|p, j, c| cctape(&["tree", "--json"], p, j, c)),
        ),
        ("otel", Box::new(|p, j, c| otel(p, j, c, &dir))),
    ];
    for (name, read) in &commands {
        for (path, chunk) in [
            (&apart, "3000"),
            (&turns, "3000"),
            (&apart, "20000"),
            (&long, "100000"),
        ] {
            let (one, _) = read(path, "1", chunk);
            let (two, said) = read(path, "2", chunk);
            assert!(!one.is_empty(), "{name} {path:?}");
            assert!(
                one == two,
                "{name} {path:?}, chunks of {chunk}: -j2 differs"
            );
            let (taken, back, lent) = parts(&said);
            lent_in_all += lent;
            if path == &turns {
                assert!((1..=6).contains(&back) && taken <= back, "{name}: {said}");
            } else {
                assert!(taken >= 1 && back == 0, "{name} {path:?}: {said}");
            }
        }
    }
    assert!(
        lent_in_all >= 100,
        "{lent_in_all} parts taken with the next chunk's first lines"
    );
    // The records are the file's: 400 runs, 80 of them max_turns; and in
    // the long file, runs written while it was read come first, in order.
    let verdicts = |path, chunk| {
        let out = cctape(&["verdict", "--json"], path, "2", chunk).0;
        let end = out.iter().rposition(|&b| b == b'\n').unwrap();
        assert_eq!(&out[end..], b"\nexit Some(1)", "some runs failed");
        out[..end].to_vec()
    };
    let out = verdicts(&apart, "3000");
    let records: Vec<serde_json::Value> = serde_json::Deserializer::from_slice(&out)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(records.len(), 400);
    let max_turns = records
        .iter()
        .filter(|r| r["verdict"] == "max_turns")
        .count();
    assert_eq!(max_turns, 80);
    let out = verdicts(&long, "100000");
    let sessions: Vec<String> = serde_json::Deserializer::from_slice(&out)
        .into_iter::<serde_json::Value>()
        .map(|r| r.unwrap()["session_id"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..20).map(|r| format!("s{r}")).collect();
    assert!(
        sessions == expected,
        "{} records, not in the file's order",
        sessions.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
