//! Sniffing decides per line (issue 22, item 1): an input whose first line
//! is not JSON (a Node warning from `claude ... 2>&1`, a second byte order
//! mark, an `[INFO]` logger line, a file cut by `tail -c` or `split -b`)
//! has its events read as events and its other lines as errors at their
//! places, in every command, from a file and from a pipe, and in the
//! library; an input is text (one finding) only when no line of it opens
//! JSON; lines all cut short are an error each.
//!
//! Every input is generated here. The reference reading of the same bytes
//! is `--input-format stream`, which read them correctly before.

use serde_json::Value;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

/// A run of six events: init, a tool call and its result, text, the
/// result.
fn run_lines() -> Vec<String> {
    let s = r#""session_id":"5e55-10n""#;
    vec![
        format!(
            r#"{{"type":"system","subtype":"init","cwd":"/w","model":"claude-sonnet-4-5","tools":["Bash"],"claude_code_version":"2.1.120",{s}}}"#
        ),
        format!(
            r#"{{"type":"assistant","message":{{"id":"msg_1","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"toolu_1","name":"Bash","input":{{"command":"ls -la /tmp/some/long/path"}}}}],"usage":{{"input_tokens":12,"output_tokens":40}}}},"parent_tool_use_id":null,{s}}}"#
        ),
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"total 0\ndrwx------ 2 a a 40 Jan  1 00:00 ."}}]}},"parent_tool_use_id":null,{s}}}"#
        ),
        format!(
            r#"{{"type":"assistant","message":{{"id":"msg_2","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"The folder is empty."}}],"usage":{{"input_tokens":30,"output_tokens":9}}}},"parent_tool_use_id":null,{s}}}"#
        ),
        format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"The folder is empty.","duration_ms":4200,"total_cost_usd":0.0123,"usage":{{"input_tokens":42,"output_tokens":49}},{s}}}"#
        ),
    ]
}

fn run_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    for l in run_lines() {
        out.extend_from_slice(l.as_bytes());
        out.push(b'\n');
    }
    out
}

/// One real cause of a first line that is not JSON, and what reading it
/// must give.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// The lines that are not events (1-based), in order.
    bad: Vec<u64>,
    /// Events in it.
    events: u64,
    /// The run's verdict.
    verdict: &'static str,
    /// The last line is cut short: a run counts it as `truncated`, not
    /// among its `bad_lines`.
    cut_at_end: bool,
}

impl Case {
    /// The bad lines a run counts.
    fn run_bad_lines(&self) -> u64 {
        self.bad.len() as u64 - u64::from(self.cut_at_end)
    }
}

fn cases() -> Vec<Case> {
    let run = run_bytes();
    let n = run_lines().len() as u64;
    let mut out = Vec::new();

    // `claude -p ... 2>&1 | tee out.jsonl`: Node's warning comes first.
    let mut node =
        b"(node:4242) [DEP0040] DeprecationWarning: The `punycode` module is deprecated. \
Please use a userland alternative instead.\n(Use `node --trace-deprecation ...` to show where the \
warning was created)\n"
            .to_vec();
    node.extend_from_slice(&run);
    out.push(Case {
        name: "node-warning",
        bytes: node,
        bad: vec![1, 2],
        events: n,
        verdict: "success",
        cut_at_end: false,
    });

    // Two UTF-8 files with marks, the first empty (`cat a.jsonl b.jsonl`):
    // the reader drops the first mark; the line behind the second is not
    // JSON as it stands.
    let mut bom = b"\xEF\xBB\xBF\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(&run);
    out.push(Case {
        name: "second-bom",
        bytes: bom,
        bad: vec![1],
        events: n - 1,
        verdict: "success",
        cut_at_end: false,
    });

    // A wrapper script's own log line first.
    let mut info =
        b"[2026-01-05T10:00:00.000Z] [INFO] starting claude -p --output-format stream-json\n"
            .to_vec();
    info.extend_from_slice(&run);
    out.push(Case {
        name: "info-line",
        bytes: info,
        bad: vec![1],
        events: n,
        verdict: "success",
        cut_at_end: false,
    });

    // `tail -c` of a capture: it starts inside the tool call's line.
    let second = run_lines()[0].len() + 1;
    let cut = second + 100;
    assert_ne!(run[cut], b'{');
    out.push(Case {
        name: "tail-c",
        bytes: run[cut..].to_vec(),
        bad: vec![1],
        events: n - 2,
        verdict: "success",
        cut_at_end: false,
    });

    // The middle piece of `split -b`: it starts inside a line and ends
    // inside another (no result: the run has none).
    let third = second + run_lines()[1].len() + 1;
    let fifth = run.len() - run_lines()[4].len() - 1;
    let piece = run[third - 50..fifth + 30].to_vec();
    out.push(Case {
        name: "split-b",
        bytes: piece,
        bad: vec![1, 4],
        events: 2,
        verdict: "no_result",
        cut_at_end: true,
    });
    out
}

fn cctape(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .env("TZ", "UTC")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        let mut w = child.stdin.take().unwrap();
        let _ = w.write_all(bytes);
    }
    child.wait_with_output().unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn write(dir: &Scratch, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// Every reading command, as run on one input (`path`, or `-` for stdin).
fn commands(path: &str, out_dir: &Path) -> Vec<Vec<String>> {
    let out = out_dir.to_string_lossy().into_owned();
    [
        vec!["stats", "--json", "-q"],
        vec!["stats", "-q"],
        vec!["verdict", "--json", "-q"],
        vec!["tree", "-q"],
        vec!["check", "--json", "-q"],
        vec!["filter", "-q"],
        vec!["fields", "-q", "--field", "type", "--field", "line"],
        vec!["export", "--json", "-q", "--out", &out],
    ]
    .into_iter()
    .map(|a| {
        let mut a: Vec<String> = a.into_iter().map(String::from).collect();
        a.push(path.to_string());
        a
    })
    .collect()
}

/// The lines of `stats --json` errors, in order.
fn error_lines(stats: &Value) -> Vec<u64> {
    stats["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect()
}

#[test]
fn each_cause_reads_its_events_in_every_command_from_a_file_and_a_pipe() {
    let dir = scratch("sniff-lines");
    for case in cases() {
        let file = write(&dir, &format!("{}.jsonl", case.name), &case.bytes);
        for (source, stdin) in [(file.as_str(), None), ("-", Some(&case.bytes[..]))] {
            let what = format!("{} ({source})", case.name);
            // What the figures must be.
            let stats = json(&cctape(&["stats", "--json", "-q", source], stdin));
            assert_eq!(stats["events"], case.events, "{what}: {stats}");
            assert_eq!(stats["error_count"], case.bad.len(), "{what}");
            assert_eq!(error_lines(&stats), case.bad, "{what}");
            assert_eq!(stats["runs"], 1, "{what}");
            assert_eq!(stats["formats"]["stream"], 1, "{what}");
            assert_eq!(stats["inputs_without_events"]["count"], 0, "{what}");
            let verdict = json(&cctape(&["verdict", "--json", "-q", source], stdin));
            assert_eq!(verdict["verdict"], case.verdict, "{what}");
            assert_eq!(verdict["bad_lines"], case.run_bad_lines(), "{what}");
            assert_eq!(verdict["truncated"], case.cut_at_end, "{what}");
            assert_eq!(verdict["events"], case.events, "{what}");
            // Every command reads it as `--input-format stream` does: the
            // same output, errors and exit code.
            for (i, args) in commands(source, &dir.join("auto")).iter().enumerate() {
                let mut forced = commands(source, &dir.join("auto"))[i].clone();
                forced.insert(1, "--input-format".into());
                forced.insert(2, "stream".into());
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                let f: Vec<&str> = forced.iter().map(String::as_str).collect();
                let (auto, stream) = (cctape(&a, stdin), cctape(&f, stdin));
                assert_eq!(
                    String::from_utf8_lossy(&auto.stdout),
                    String::from_utf8_lossy(&stream.stdout),
                    "{what}: {args:?}"
                );
                assert_eq!(
                    String::from_utf8_lossy(&auto.stderr),
                    String::from_utf8_lossy(&stream.stderr),
                    "{what}: {args:?}"
                );
                assert_eq!(auto.status.code(), stream.status.code(), "{what}: {args:?}");
            }
            // filter prints every event.
            let filtered = cctape(&["filter", "-q", source], stdin);
            let printed = String::from_utf8_lossy(&filtered.stdout).lines().count();
            assert_eq!(printed as u64, case.events, "{what}");
        }
        // watch reads a pipe, passes it through and ends with the verdict.
        let o = cctape(&["watch", "--quiet"], Some(&case.bytes));
        assert_eq!(o.stdout, case.bytes, "{}", case.name);
        let v = verdict_line(&o.stderr);
        assert_eq!(v["verdict"], case.verdict, "{}: {v}", case.name);
        assert_eq!(v["bad_lines"], case.run_bad_lines(), "{}", case.name);
    }
}

#[test]
fn the_library_reads_each_cause_as_the_command_does() {
    use cctape::inputs::{Item, ReadOptions, read_source, stream_source};
    let dir = scratch("sniff-lib");
    for case in cases() {
        let path = dir.join(format!("{}.jsonl", case.name));
        std::fs::write(&path, &case.bytes).unwrap();
        let runs = cctape::runs(&path).unwrap();
        assert_eq!(runs.len(), 1, "{}", case.name);
        assert_eq!(runs[0].verdict.as_str(), case.verdict, "{}", case.name);
        assert_eq!(runs[0].bad_lines, case.run_bad_lines(), "{}", case.name);
        for src in [
            cctape::source::Source::open(&path).unwrap(),
            stream_source(&case.bytes[..]).unwrap(),
        ] {
            let mut bad = Vec::new();
            let end = read_source(src, &ReadOptions::default(), |item| {
                if let Item::Error { error, .. } = item {
                    bad.push(error.position().line);
                }
                assert!(!matches!(item, Item::NotEvents(_)), "{}", case.name);
                std::ops::ControlFlow::Continue(())
            });
            assert_eq!(end.counts.events, case.events, "{}", case.name);
            assert_eq!(bad, case.bad, "{}", case.name);
            assert_eq!(
                end.format.map(|f| f.name()),
                Some("stream"),
                "{}",
                case.name
            );
        }
    }
}

/// A pipe whose writer is live: the warning comes, then (later) the
/// events; the reader waits for the first event line before it decides.
#[test]
fn a_live_pipe_is_held_until_its_first_json_line() {
    for args in [&["stats", "--json", "-q"][..], &["watch", "--quiet"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut w = child.stdin.take().unwrap();
        w.write_all(b"(node:1) Warning: a first line alone\n")
            .unwrap();
        w.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        w.write_all(&run_bytes()).unwrap();
        drop(w);
        let o = child.wait_with_output().unwrap();
        let v: Value = if args[0] == "watch" {
            verdict_line(&o.stderr)
        } else {
            serde_json::from_slice(&o.stdout).unwrap()
        };
        if args[0] == "watch" {
            assert_eq!(v["verdict"], "success", "{v}");
            assert_eq!(v["bad_lines"], 1);
        } else {
            assert_eq!(v["events"], run_lines().len(), "{v}");
            assert_eq!(v["error_count"], 1);
        }
    }
}

/// Lines a logger cut at a fixed width (journald's, with its leading
/// space): an error each, `truncated` or `invalid_json`, at its line; the
/// input has no events, and is said to be lines cut short.
#[test]
fn lines_all_cut_short_are_an_error_each() {
    let dir = scratch("sniff-cut");
    let mut cut = Vec::new();
    for l in run_lines() {
        cut.push(b' ');
        cut.extend_from_slice(&l.as_bytes()[..90]);
        cut.push(b'\n');
    }
    let n = run_lines().len();
    let file = write(&dir, "cut.log", &cut);
    for (source, stdin) in [(file.as_str(), None), ("-", Some(&cut[..]))] {
        let stats = json(&cctape(&["stats", "--json", "-q", source], stdin));
        assert_eq!(stats["events"], 0);
        assert_eq!(stats["error_count"], n, "{stats}");
        assert_eq!(error_lines(&stats), (1..=n as u64).collect::<Vec<_>>());
        for e in stats["errors"].as_array().unwrap() {
            assert!(
                matches!(e["kind"].as_str(), Some("truncated" | "invalid_json")),
                "{e}"
            );
        }
        let found = &stats["inputs_without_events"];
        assert_eq!(found["count"], 1);
        assert_eq!(found["inputs"][0]["format"], "cut-lines");
        let v = json(&cctape(&["verdict", "--json", "-q", source], stdin));
        assert_eq!(v["bad_lines"], n);
        assert_eq!(v["no_events"]["format"], "cut-lines");
    }
    let runs = cctape::runs(Path::new(&file)).unwrap();
    assert_eq!(runs[0].bad_lines, n as u64);
}

/// Text with no JSON line stays one finding, however long (within the
/// bytes held to decide, 1 MiB); text before events makes each of its lines
/// an error, also past those bytes, where the input is read line by line.
#[test]
fn text_is_one_finding_only_when_no_line_of_it_is_json() {
    let dir = scratch("sniff-text");
    let mut text = Vec::new();
    let mut lines = 0u64;
    while text.len() < 300 << 10 {
        text.extend_from_slice(
            b"I read the files and changed what the task asked for, step by step.\n",
        );
        lines += 1;
    }
    let mut answer = text.clone();
    answer.extend_from_slice(b"Error: Reached max turns (30)\n");
    let file = write(&dir, "answer.txt", &answer);
    for (source, stdin) in [(file.as_str(), None), ("-", Some(&answer[..]))] {
        let stats = json(&cctape(&["stats", "--json", "-q", source], stdin));
        assert_eq!(stats["error_count"], 0, "{source}");
        assert_eq!(
            stats["inputs_without_events"]["inputs"][0]["format"],
            "text"
        );
        let v = json(&cctape(&["verdict", "--json", "-q", source], stdin));
        assert_eq!(v["verdict"], "max_turns");
        assert_eq!(v["bad_lines"], 0);
    }

    // The same text, then a run: 300 KiB (held), and 1.2 MiB (past what is
    // held: read line by line).
    for copies in [1, 4] {
        let mut before = Vec::new();
        for _ in 0..copies {
            before.extend_from_slice(&text);
        }
        let mut with_run = before.clone();
        with_run.extend_from_slice(&run_bytes());
        let file = write(&dir, &format!("text-then-run-{copies}.jsonl"), &with_run);
        for (source, stdin) in [(file.as_str(), None), ("-", Some(&with_run[..]))] {
            let stats = json(&cctape(&["stats", "--json", "-q", source], stdin));
            assert_eq!(stats["events"], run_lines().len(), "{copies} {source}");
            assert_eq!(stats["error_count"], lines * copies, "{copies} {source}");
            assert_eq!(stats["inputs_without_events"]["count"], 0);
            let v = json(&cctape(&["verdict", "--json", "-q", source], stdin));
            assert_eq!(v["verdict"], "success");
        }
    }

    // Text alone past the bytes held: its lines are read one by one (an
    // error each, since no event may follow unseen), and the input is
    // still found to be text without events.
    let mut long = Vec::new();
    for _ in 0..4 {
        long.extend_from_slice(&text);
    }
    let stats = json(&cctape(&["stats", "--json", "-q", "-"], Some(&long)));
    assert_eq!(stats["events"], 0);
    assert_eq!(stats["error_count"], lines * 4);
    assert_eq!(
        stats["inputs_without_events"]["inputs"][0]["format"],
        "text"
    );
}

/// `watch`'s verdict: the last line of its stderr (bad lines are said
/// before it).
fn verdict_line(stderr: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stderr);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {text}"))
}
