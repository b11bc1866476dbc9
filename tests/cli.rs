//! The command line: inputs (directories, gzip, zstd, stdin, unreadable
//! files), `--jobs 1` against `--jobs 2`, `filter` and `fields`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[path = "support/run.rs"]
mod run;
use run::{cctape, cctape_stdin};

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("JSON output")
}

fn temp_dir(name: &str) -> Scratch {
    scratch(&format!("cli-{name}"))
}

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

const STREAMS: &str = "corpus/streams";

fn stream(name: &str) -> String {
    format!("{STREAMS}/{name}")
}

/// A large input made of the corpus streams repeated, so that it is cut into
/// chunks when read with more than one job.
fn big_file(dir: &Path) -> PathBuf {
    let mut body = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(STREAMS)
        .expect("corpus/streams")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    for _ in 0..400 {
        for n in &names {
            let b = std::fs::read(n).expect("read stream");
            body.extend_from_slice(&b);
            if !b.ends_with(b"\n") {
                body.push(b'\n');
            }
        }
    }
    assert!(
        body.len() > 32 << 20,
        "big enough to be cut: {}",
        body.len()
    );
    let p = dir.join("big.jsonl");
    std::fs::write(&p, &body).expect("write big");
    p
}

#[test]
fn jobs_1_and_jobs_2_give_identical_output() {
    let dir = temp_dir("jobs");
    let big = big_file(&dir);
    let big = big.to_str().expect("path");
    for args in [
        vec!["stats", "--json"],
        vec!["filter", "--type", "result"],
        vec!["filter", "--errors"],
        vec!["fields", "-f", "@line", "-f", "@kind", "-f", "uuid"],
    ] {
        let mut one = args.clone();
        one.extend(["-j", "1", big, STREAMS]);
        let mut two = args.clone();
        two.extend(["-j", "2", big, STREAMS]);
        let a = cctape(&one);
        let b = cctape(&two);
        assert_eq!(a.status.code(), b.status.code(), "{args:?}");
        assert!(!a.stdout.is_empty(), "{args:?} printed nothing");
        assert!(a.stdout == b.stdout, "{args:?}: --jobs 1 and 2 differ");
    }
    // The chunked read keeps true line numbers: the mixed-bad errors sit at
    // the same lines in every copy, and the count is 400 times one copy's.
    let s = json(&cctape(&["stats", "--json", "-j", "2", big]));
    let one = json(&cctape(&["stats", "--json", STREAMS]));
    assert_eq!(
        s["events"].as_u64().unwrap(),
        400 * one["events"].as_u64().unwrap()
    );
    assert_eq!(
        s["error_count"].as_u64().unwrap(),
        400 * one["error_count"].as_u64().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stats_of_many_runs_in_one_file_cut_between_runs_equal_one_job() {
    let dir = temp_dir("runs");
    let big = big_file(&dir);
    // Make every copy's sessions distinct, so the file is cut between runs.
    let src = std::fs::read(&big).expect("read");
    let one = src.len() / 400;
    let mut body = Vec::with_capacity(src.len() + 400 * 4096);
    let mut copy = 0;
    for line in src.split_inclusive(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line)
            .replace("\"session_id\":\"", &format!("\"session_id\":\"c{copy}-"));
        body.extend_from_slice(text.as_bytes());
        if body.len() / one.max(1) > copy {
            copy += 1;
        }
    }
    let p = dir.join("runs.jsonl");
    std::fs::write(&p, &body).expect("write");
    let p = p.to_str().expect("path");
    let a = cctape(&["stats", "--json", "-j", "1", p]);
    let b = cctape(&["stats", "--json", "-j", "2", p]);
    assert!(a.stdout == b.stdout, "--jobs 1 and 2 differ");
    let v = json(&a);
    assert!(v["runs"].as_u64().unwrap_or(0) > 400, "{}", v["runs"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directories_compressed_files_and_stdin_read_the_same_events() {
    let dir = temp_dir("inputs");
    let src = std::fs::read(stream("two-subagents.jsonl")).expect("read");
    let nested = dir.join("a/b");
    std::fs::create_dir_all(&nested).expect("mkdir");
    std::fs::write(nested.join("plain.jsonl"), &src).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&src).expect("gzip");
    // Named .log.gz; compression is told by the bytes, not the name.
    std::fs::write(dir.join("a/run.log.gz"), gz.finish().expect("gzip")).expect("write");
    std::fs::write(
        dir.join("a/run.ndjson.zst"),
        zstd::encode_all(&src[..], 3).expect("zstd"),
    )
    .expect("write");
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(&src).expect("xz");
    std::fs::write(dir.join("a/s1.jsonl.xz"), xz.finish().expect("xz")).expect("write");
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&src).expect("bzip2");
    std::fs::write(dir.join("a/s2.jsonl.bz2"), bz.finish().expect("bzip2")).expect("write");
    let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
    lz.write_all(&src).expect("lz4");
    std::fs::write(dir.join("a/s3.jsonl.lz4"), lz.finish().expect("lz4")).expect("write");
    // Not picked up by the walk.
    std::fs::write(dir.join("a/notes.txt"), b"not a stream").expect("write");
    let out = cctape(&["stats", "--json", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["files"], 6);
    let per_file = v["per_file"].as_array().expect("per_file");
    let names: Vec<&str> = per_file
        .iter()
        .map(|f| f["file"].as_str().expect("name"))
        .collect();
    for (i, end) in [
        "a/b/plain.jsonl",
        "a/run.log.gz",
        "a/run.ndjson.zst",
        "a/s1.jsonl.xz",
        "a/s2.jsonl.bz2",
        "a/s3.jsonl.lz4",
    ]
    .iter()
    .enumerate()
    {
        assert!(names[i].ends_with(end), "{names:?}");
    }
    let oracle = src.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count() as u64;
    assert_eq!(per_file[0]["events"].as_u64(), Some(oracle));
    for f in per_file {
        assert_eq!(f["by_type"], per_file[0]["by_type"], "{}", f["file"]);
        assert_eq!(f["bytes"].as_u64(), Some(src.len() as u64), "{}", f["file"]);
        assert_eq!(f["error_count"], 0, "{}", f["file"]);
    }
    let via_stdin = json(&cctape_stdin(&["stats", "--json", "-"], &src));
    assert_eq!(via_stdin["by_type"], per_file[0]["by_type"]);
    for name in [
        "a/run.log.gz",
        "a/s1.jsonl.xz",
        "a/s2.jsonl.bz2",
        "a/s3.jsonl.lz4",
    ] {
        let packed = std::fs::read(dir.join(name)).expect("read");
        let piped = json(&cctape_stdin(&["stats", "--json"], &packed));
        assert_eq!(piped["by_type"], per_file[0]["by_type"], "{name} on stdin");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_input_is_reported_and_skipped_with_exit_2() {
    let out = cctape(&[
        "stats",
        "--json",
        "/nonexistent/cctape.jsonl",
        &stream("success-basic.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/cctape.jsonl"), "{err}");
    let v = json(&out);
    assert_eq!(v["per_file"][1]["events"], 12);
    assert_eq!(v["per_file"][0]["errors"][0]["kind"], "io");
}

#[test]
fn filter_prints_matching_lines_unchanged() {
    let path = stream("two-subagents.jsonl");
    let src = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<&str> = src.lines().collect();
    let pick = |pred: &dyn Fn(&serde_json::Value) -> bool| -> String {
        lines
            .iter()
            .filter(|l| pred(&serde_json::from_str(l).expect("json")))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let out = cctape(&["filter", "--type", "assistant", "--subagent", &path]);
    let want = pick(&|v| v["type"] == "assistant" && v["parent_tool_use_id"].is_string());
    assert!(!want.is_empty());
    assert_eq!(stdout(&out), want);
    let out = cctape(&[
        "filter",
        "--type",
        "system",
        "--subtype",
        "task_started",
        &path,
    ]);
    assert_eq!(
        stdout(&out),
        pick(&|v| v["type"] == "system" && v["subtype"] == "task_started")
    );
    let out = cctape(&["filter", "--main", "--count", &path]);
    let n = lines
        .iter()
        .filter(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            !v["parent_tool_use_id"].is_string()
        })
        .count();
    assert_eq!(stdout(&out).trim(), n.to_string());
    // --tool picks the calls and the results that answer them.
    let out = cctape(&["filter", "--tool", "Agent", &path]);
    let got = stdout(&out);
    let calls = got.matches("\"name\":\"Agent\"").count();
    let results = got.matches("\"type\":\"tool_result\"").count();
    assert_eq!((calls, results), (2, 2), "{got}");
}

#[test]
fn filter_errors_prints_the_bad_lines() {
    let path = stream("mixed-bad.jsonl");
    let out = cctape(&["filter", "--errors", &path]);
    let got = stdout(&out);
    assert!(got.contains("not json at all\n"), "{got}");
    assert!(got.contains("[1,2]\n"), "{got}");
    assert!(got.contains("{\"foo\":1}\n"), "{got}");
    let count = cctape(&["filter", "--errors", "--count", &path]);
    assert_eq!(stdout(&count).trim(), got.lines().count().to_string());
}

#[test]
fn fields_as_tsv_csv_and_ndjson() {
    let path = stream("success-basic.jsonl");
    let out = cctape(&[
        "fields",
        "-f",
        "@line",
        "-f",
        "type",
        "-f",
        "message.usage.output_tokens",
        &path,
    ]);
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "@line\ttype\tmessage.usage.output_tokens");
    assert_eq!(rows.len(), 13);
    assert!(rows[1].starts_with("1\tsystem\t"), "{}", rows[1]);
    assert!(
        rows[1].ends_with('\t'),
        "a missing field is empty: {}",
        rows[1]
    );
    let src = std::fs::read_to_string(&path).expect("read");
    for (row, line) in rows[1..].iter().zip(src.lines()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let want = v["message"]["usage"]["output_tokens"]
            .as_u64()
            .map(|n| n.to_string())
            .unwrap_or_default();
        assert_eq!(row.split('\t').nth(2), Some(want.as_str()));
    }
    let out = cctape(&[
        "fields", "--format", "ndjson", "-f", "result", "-f", "nope", &path,
    ]);
    let last = stdout(&out)
        .lines()
        .rev()
        .nth(1)
        .map(str::to_string)
        .expect("rows");
    let v: serde_json::Value = serde_json::from_str(&last).expect("ndjson row");
    assert!(v["result"].is_string());
    assert!(v["nope"].is_null());
    // An object is written as compact JSON; in CSV its quotes are doubled.
    let out = cctape(&[
        "fields",
        "--format",
        "csv",
        "--no-header",
        "-f",
        "message.content.0",
        &path,
    ]);
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("\"{\"\"type\"\":\"\"tool_use\"\",")),
        "quoted cell: {text}"
    );
}

#[test]
fn check_reports_drift_per_version_with_positions() {
    let clean = cctape(&["check", &stream("success-basic.jsonl")]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    let dir = temp_dir("check");
    let p = dir.join("drift.jsonl");
    let lines = [
        r#"{"type":"system","subtype":"init","claude_code_version":"9.9.9","session_id":"s","uuid":"u1"}"#,
        r#"{"type":"system","subtype":"brand_new","session_id":"s","uuid":"u2"}"#,
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a"},{"type":"image","source":{}}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u3","mood":"odd"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_none","content":"x"}]},"parent_tool_use_id":null,"session_id":"s"}"#,
        r#"{"type":"result","subtype":"success","is_error":"no","session_id":"s","uuid":"u4"}"#,
        r#"{"type":"user""#,
    ];
    std::fs::write(&p, lines.join("\n")).expect("write");
    let out = cctape(&["check", "--json", p.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let rows = v["findings"].as_array().expect("findings");
    let find = |cat: &str, kind: &str| {
        rows.iter()
            .find(|r| r["category"] == cat && r["kind"] == kind)
            .unwrap_or_else(|| panic!("no {cat} for {kind} in {rows:?}"))
    };
    let r = find("unknown_kind", "system/brand_new");
    assert_eq!(
        (r["count"].as_u64(), r["example"]["line"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(r["claude_code_version"], "9.9.9");
    assert!(
        rows.iter().any(|r| r["category"] == "unknown_field"
            && r["detail"] == "mood"
            && r["example"]["line"] == 3),
        "{rows:?}"
    );
    assert_eq!(find("several_content_blocks", "assistant")["detail"], "2");
    assert_eq!(
        find("unknown_content_block", "assistant")["detail"],
        "image"
    );
    assert_eq!(find("missing_uuid", "user")["example"]["line"], 4);
    assert_eq!(
        find("tool_result_without_tool_use", "user")["example"]["line"],
        4
    );
    assert_eq!(
        find("unexpected_type", "result/success")["detail"],
        "is_error (is String)"
    );
    assert_eq!(find("truncated", "truncated")["example"]["line"], 6);
    let _ = std::fs::remove_dir_all(&dir);
}

/// (file, expected verdict, total_cost_usd of the last result) from the
/// generated table in corpus/streams/README.md.
fn streams_table() -> Vec<(String, String, Option<f64>)> {
    let readme = std::fs::read_to_string("corpus/streams/README.md").expect("README");
    readme
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let file = cells[1].trim_matches('`').to_string();
            let verdict = cells[3].split_whitespace().next().unwrap_or("").to_string();
            let cost = cells[6].parse::<f64>().ok();
            (file, verdict, cost)
        })
        .collect()
}

#[test]
fn stats_counts_runs_verdicts_and_cost_as_verdict_does() {
    let table = streams_table();
    assert!(table.len() >= 10, "{table:?}");
    let out = cctape(&["stats", "--json", STREAMS]);
    let v = json(&out);
    // Every file in the table is one run.
    assert_eq!(v["runs"].as_u64(), Some(table.len() as u64));
    let mut want: std::collections::BTreeMap<String, u64> = Default::default();
    let mut cost = 0.0;
    for (_, verdict, c) in &table {
        *want.entry(verdict.clone()).or_default() += 1;
        cost += c.unwrap_or(0.0);
    }
    for (verdict, n) in &want {
        assert_eq!(
            v["verdicts"][verdict].as_u64(),
            Some(*n),
            "{verdict}: {}",
            v["verdicts"]
        );
    }
    let got = v["total_cost_usd"].as_f64().expect("cost");
    assert!((got - cost).abs() < 1e-9, "{got} vs {cost}");
    // The same figures as the sum of `cctape verdict` lines.
    let verdict = cctape(&["verdict", STREAMS]);
    let lines: Vec<serde_json::Value> = stdout(&verdict)
        .lines()
        .map(|l| serde_json::from_str(l).expect("verdict line"))
        .collect();
    assert_eq!(lines.len(), table.len());
    let sum: f64 = lines
        .iter()
        .filter_map(|l| l["total_cost_usd"].as_f64())
        .sum();
    assert!((sum - got).abs() < 1e-9);
    // Grouped: one CSV row per file, the runs column summing to the total.
    let csv = stdout(&cctape(&["stats", "--csv", STREAMS]));
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].starts_with("file,runs,success,"), "{}", rows[0]);
    assert_eq!(rows.len(), 1 + table.len());
    let runs: u64 = rows[1..]
        .iter()
        .map(|r| {
            r.split(',')
                .nth(1)
                .and_then(|n| n.parse::<u64>().ok())
                .expect("runs")
        })
        .sum();
    assert_eq!(runs, table.len() as u64);
    // By model: the auxiliary haiku is its own row in the auxiliary role
    // (roles are per run: issue 11).
    let m = json(&cctape(&["stats", "--json", "--by", "model", STREAMS]));
    assert!(
        m["by_model"]["claude-haiku-4-5-20251001"]["roles"]["auxiliary"]["runs"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    assert!(
        m["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .any(|g| g["key"] == "claude-sonnet-5-5")
    );
}

#[test]
fn verdict_exit_codes_and_exit_code_option() {
    let ok = cctape(&["verdict", &stream("success-basic.jsonl")]);
    assert_eq!(ok.status.code(), Some(0));
    let failed = cctape(&["verdict", &stream("max-turns.jsonl")]);
    assert_eq!(failed.status.code(), Some(1));
    // No result is a run that is not ok: 1, as grep and diff use it (2 is
    // for usage errors and unreadable inputs only; issue 11).
    let none = cctape(&["verdict", &stream("no-result.jsonl")]);
    assert_eq!(none.status.code(), Some(1));
    let forced = cctape(&[
        "verdict",
        "--exit-code",
        "1",
        &stream("success-basic.jsonl"),
    ]);
    assert_eq!(forced.status.code(), Some(1));
    let line: serde_json::Value = serde_json::from_slice(&forced.stdout).expect("json");
    assert_eq!(line["ok"], false);
    let empty = cctape_stdin(&["verdict", "--exit-code", "1", "-"], b"");
    let line: serde_json::Value = serde_json::from_slice(&empty.stdout).expect("json");
    assert_eq!(line["verdict"], "startup_failure");
}

#[test]
fn watch_passes_bytes_through_unchanged_and_exits_with_the_verdict() {
    for (name, code) in [
        ("two-subagents.jsonl", 0),
        ("max-turns.jsonl", 1),
        ("no-result.jsonl", 1),
        ("mixed-bad.jsonl", 0),
    ] {
        let src = std::fs::read(stream(name)).expect("read");
        let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(["watch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let body = src.clone();
        // Small pieces, with pauses, as a live run writes them.
        let writer = std::thread::spawn(move || {
            for piece in body.chunks(7) {
                stdin.write_all(piece).expect("write");
                stdin.flush().expect("flush");
                if piece.contains(&b'\n') {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        });
        let out = child.wait_with_output().expect("wait");
        writer.join().expect("writer");
        assert!(out.stdout == src, "{name}: output differs from input");
        assert_eq!(out.status.code(), Some(code), "{name}");
        // Bad lines are said first, as every command says them (the
        // verdict counts them: its exit code stands); the verdict last, as
        // JSON since stderr is not a terminal.
        let err = String::from_utf8(out.stderr).expect("UTF-8 stderr");
        let (said, last) = err
            .trim_end()
            .rsplit_once('\n')
            .unwrap_or(("", err.trim_end()));
        let verdict: serde_json::Value =
            serde_json::from_str(last).expect("verdict JSON on stderr");
        assert_eq!(verdict["file"], "<stdin>");
        assert!(verdict["verdict"].is_string());
        let bad = u64::try_from(said.lines().count()).expect("count");
        assert_eq!(
            verdict["bad_lines"].as_u64().unwrap_or(0) + u64::from(verdict["truncated"] == true),
            bad,
            "{name}: {said}"
        );
        if name == "mixed-bad.jsonl" {
            assert!(
                said.starts_with(
                    "cctape: <stdin>:3: byte 1303, column 1: invalid_json: expected `null`\n"
                ),
                "{said}"
            );
        }
    }
}

#[test]
fn tree_draws_subagents_with_their_figures() {
    let out = cctape(&["tree", &stream("two-subagents.jsonl")]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains("[success]"), "{text}");
    assert!(
        lines[1].starts_with("├─ general-purpose: Create sub1.txt  [completed]"),
        "{text}"
    );
    assert!(lines[2].starts_with("└─ general-purpose:"), "{text}");
    let v = json(&cctape(&["tree", "--json", &stream("two-subagents.jsonl")]));
    let kids = v["children"].as_array().expect("children");
    assert_eq!(kids.len(), 2);
    assert_eq!(kids[0]["status"], "completed");
    assert!(kids[0]["output_tokens"].as_u64().unwrap_or(0) > 0);
    assert!(kids[0]["duration_ms"].as_u64().is_some());
}

#[test]
fn filter_trust_matches_validated_on_valid_input() {
    for args in [
        vec!["--type", "result"],
        vec!["--type", "assistant", "--subagent"],
        vec!["--tool", "Agent"],
        vec![
            "--session",
            "22222222-2222-4222-8222-222222222222",
            "--main",
        ],
    ] {
        let mut validated = vec!["filter"];
        validated.extend(args.iter().copied());
        validated.push(STREAMS);
        let mut trusting = validated.clone();
        trusting.insert(1, "--trust");
        let a = cctape(&validated);
        let b = cctape(&trusting);
        assert!(!a.stdout.is_empty(), "{args:?}");
        assert!(a.stdout == b.stdout, "{args:?}: --trust differs");
    }
    let bad = cctape(&["filter", "--trust", "--errors", STREAMS]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn stats_prune_gives_the_same_figures_as_exact() {
    let dir = temp_dir("prune");
    let big = big_file(&dir);
    for input in [STREAMS.to_string(), big.display().to_string()] {
        let a = cctape(&["stats", "--json", &input]);
        let b = cctape(&["stats", "--json", "--exact", &input]);
        assert!(
            a.stdout == b.stdout,
            "{input}: pruned and exact stats differ"
        );
    }
    if Path::new("../shared/realworld").is_dir() {
        let a = cctape(&["stats", "--json", "../shared/realworld"]);
        let b = cctape(&["stats", "--json", "--exact", "../shared/realworld"]);
        assert!(
            a.stdout == b.stdout,
            "realworld: pruned and exact stats differ"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real-data part of stats_prune_gives_the_same_figures_as_exact reads
/// ../shared/realworld and passes without it; this test makes that skip show in
/// cargo's summary.
#[path = "support/realworld_present.rs"]
mod realworld_present;

// ---------------------------------------------------------------------------
// grep's and ripgrep's conventions for `filter` and `fields` (issue 15).

/// The corpus streams in name order, as the walk gives them.
fn stream_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(STREAMS)
        .expect("corpus/streams")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.to_str().expect("path").to_string())
        .collect();
    names.sort();
    names
}

/// Every line of `path` that serde_json reads as an object, with its
/// 1-based line number.
fn objects(path: &str) -> Vec<(usize, String, serde_json::Value)> {
    let text = std::fs::read_to_string(path).expect("read");
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v.is_object().then(|| (i + 1, l.to_string(), v))
        })
        .collect()
}

/// The lines of `paths` that serde_json says pass `pred`, as filter prints
/// them with names shown (`NAME:LINE`) or not.
fn oracle_lines(
    paths: &[String],
    names: bool,
    pred: &dyn Fn(&serde_json::Value) -> bool,
) -> String {
    let mut out = String::new();
    for p in paths {
        for (_, l, v) in objects(p) {
            // The corpus's duplicate-key line is an error, not an event.
            if v.get("type").and_then(|t| t.as_str()).is_none() || l.contains("\"type\":\"x\"") {
                continue;
            }
            if pred(&v) {
                if names {
                    out.push_str(p);
                    out.push(':');
                }
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn filter_and_fields_exit_like_grep() {
    let ok = stream("success-basic.jsonl");
    // Something printed: 0.
    let r = cctape(&["filter", "--type", "result", &ok]);
    assert_eq!(r.status.code(), Some(0));
    assert!(!r.stdout.is_empty());
    // Nothing matched: 1, and nothing printed.
    let r = cctape(&["filter", "--type", "no_such_type", &ok]);
    assert_eq!(r.status.code(), Some(1));
    assert!(r.stdout.is_empty());
    // A count of 0 is printed, and exits 1 (grep -c does).
    let r = cctape(&["filter", "--count", "--type", "no_such_type", &ok]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(1), "0\n"));
    let two = stream("max-turns.jsonl");
    let r = cctape(&["filter", "--total", "--type", "no_such_type", &ok, &two]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(1), "0\n"));
    // corpus/streams holds mixed-bad.jsonl, whose bad lines are errors:
    // 2, whatever was counted (as ripgrep exits after an error).
    let r = cctape(&["filter", "--total", "--type", "no_such_type", STREAMS]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(2), "0\n"));
    // --errors on a file without bad lines: nothing, 1.
    let r = cctape(&["filter", "--errors", &ok]);
    assert_eq!(r.status.code(), Some(1));
    // An unreadable input is trouble: 2, even though another input matched
    // (its lines are still printed).
    let r = cctape(&["filter", "--type", "result", "/nonexistent/x.jsonl", &ok]);
    assert_eq!(r.status.code(), Some(2));
    assert!(stdout(&r).contains("\"type\":\"result\""));
    // ... and gets no count (as grep -c and rg -c).
    let r = cctape(&[
        "filter",
        "-c",
        "--include-zero",
        "--type",
        "result",
        "/nonexistent/x.jsonl",
        &ok,
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(stdout(&r), format!("{ok}:1\n"));
    // A usage error: 2.
    let r = cctape(&["filter", "--no-such-flag", &ok]);
    assert_eq!(r.status.code(), Some(2));
    // fields: rows printed 0, none 1 (the header alone is not a row), 2.
    let r = cctape(&["fields", "-f", "uuid", &ok]);
    assert_eq!(r.status.code(), Some(0));
    let r = cctape(&["fields", "-f", "uuid", "--type", "no_such_type", &ok]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(1), "uuid\n"));
    let r = cctape(&["fields", "-f", "uuid", "/nonexistent/x.jsonl"]);
    assert_eq!(r.status.code(), Some(2));
    let r = cctape_stdin(&["fields", "-f", "uuid"], b"");
    assert_eq!(r.status.code(), Some(1));
}

/// A test on an event, as serde_json reads it.
type Pred = dyn Fn(&serde_json::Value) -> bool;

#[test]
fn filters_are_or_inside_a_flag_and_across_flags() {
    let files = stream_files();
    let ty = |v: &serde_json::Value, t: &[&str]| t.iter().any(|x| v["type"] == *x);
    let sub = |v: &serde_json::Value| v["parent_tool_use_id"].is_string();
    let cases: Vec<(Vec<&str>, Box<Pred>)> = vec![
        (
            vec!["--type", "result", "--type", "assistant"],
            Box::new(move |v| ty(v, &["result", "assistant"])),
        ),
        (
            vec!["--type", "result,assistant"],
            Box::new(move |v| ty(v, &["result", "assistant"])),
        ),
        (
            vec!["--type", "assistant,user", "--subagent"],
            Box::new(move |v| ty(v, &["assistant", "user"]) && sub(v)),
        ),
        (
            vec!["--subtype", "init", "--subtype", "success,api_retry"],
            Box::new(|v| {
                ["init", "success", "api_retry"]
                    .iter()
                    .any(|s| v["subtype"] == *s)
            }),
        ),
        (
            vec![
                "--type",
                "system",
                "--subtype",
                "init,task_started",
                "--main",
            ],
            Box::new(move |v| {
                v["type"] == "system"
                    && (v["subtype"] == "init" || v["subtype"] == "task_started")
                    && !sub(v)
            }),
        ),
        (
            vec![
                "--model",
                "claude-haiku-4-5-20251001,claude-sonnet-5-5",
                "--type",
                "assistant",
            ],
            Box::new(|v| {
                v["type"] == "assistant"
                    && ["claude-haiku-4-5-20251001", "claude-sonnet-5-5"]
                        .iter()
                        .any(|m| v["message"]["model"] == *m)
            }),
        ),
    ];
    for (flags, pred) in &cases {
        let want = oracle_lines(&files, true, pred.as_ref());
        assert!(!want.is_empty(), "{flags:?} matches something");
        let mut args = vec!["filter", "-j", "1"];
        args.extend(flags.iter().copied());
        args.push(STREAMS);
        let got = stdout(&cctape(&args));
        assert_eq!(got, want, "filter {flags:?}");
        // fields takes the same filters: the same events, by line.
        let want_lines: Vec<String> = want
            .lines()
            .map(|l| {
                let (file, _) = l.split_once(':').expect("name");
                let text = l[file.len() + 1..].to_string();
                let n = objects(file)
                    .into_iter()
                    .find(|(_, raw, _)| *raw == text)
                    .expect("line")
                    .0;
                format!("{file}\t{n}")
            })
            .collect();
        let mut args = vec!["fields", "--no-header", "-f", "@file", "-f", "@line"];
        args.extend(flags.iter().copied());
        args.push(STREAMS);
        let got = stdout(&cctape(&args));
        assert_eq!(
            got.lines().collect::<Vec<_>>(),
            want_lines,
            "fields {flags:?}"
        );
    }
    // --tool: the calls and the results answering them, with OR.
    let path = stream("two-subagents.jsonl");
    let got = stdout(&cctape(&["filter", "--tool", "Agent,Write", &path]));
    let calls = got.matches("\"type\":\"tool_use\"").count();
    let results = got.matches("\"type\":\"tool_result\"").count();
    let want_calls = objects(&path)
        .iter()
        .filter(|(_, _, v)| {
            let b = &v["message"]["content"][0];
            b["type"] == "tool_use" && (b["name"] == "Agent" || b["name"] == "Write")
        })
        .count();
    assert_eq!((calls, results), (want_calls, want_calls), "{got}");
    // A call is remembered even when another test turns it down: its
    // result still answers a call of the tool (calls are assistant events).
    let got = stdout(&cctape(&[
        "filter", "--tool", "Agent", "--type", "user", &path,
    ]));
    assert_eq!(got.matches("\"type\":\"tool_result\"").count(), 2, "{got}");
    assert_eq!(got.matches("\"type\":\"tool_use\"").count(), 0, "{got}");
}

#[test]
fn filter_names_its_inputs_as_grep_and_ripgrep_do() {
    let files = stream_files();
    let result = |v: &serde_json::Value| v["type"] == "result";
    let one = &files[0];
    // One file: no names; -H adds them.
    let plain = stdout(&cctape(&["filter", "--type", "result", one]));
    assert_eq!(plain, oracle_lines(&files[..1], false, &result));
    let named = stdout(&cctape(&["filter", "-H", "--type", "result", one]));
    assert_eq!(named, oracle_lines(&files[..1], true, &result));
    // Two files, or a directory: names; --no-filename (-I) drops them.
    let two = stdout(&cctape(&[
        "filter", "--type", "result", &files[0], &files[1],
    ]));
    assert_eq!(two, oracle_lines(&files[..2], true, &result));
    let dir = stdout(&cctape(&["filter", "--type", "result", STREAMS]));
    assert_eq!(dir, oracle_lines(&files, true, &result));
    for flag in ["--no-filename", "-I"] {
        let got = stdout(&cctape(&["filter", flag, "--type", "result", STREAMS]));
        assert_eq!(got, oracle_lines(&files, false, &result), "{flag}");
    }
    // The last of -H and -I wins.
    let got = stdout(&cctape(&["filter", "-I", "-H", "--type", "result", one]));
    assert_eq!(got, named);
    // --null: a NUL after the name instead of the colon.
    let got = cctape(&["filter", "--null", "--type", "result", STREAMS]);
    assert_eq!(
        got.stdout,
        oracle_lines(&files, true, &result)
            .lines()
            .flat_map(|l| {
                let (f, rest) = l.split_at(l.find(".jsonl:").expect("name") + 6);
                [f.as_bytes(), b"\0", &rest.as_bytes()[1..], b"\n"].concat()
            })
            .collect::<Vec<u8>>()
    );
    // -n: the line number after the name.
    let got = stdout(&cctape(&["filter", "-n", "--type", "result", STREAMS]));
    let want: String = files
        .iter()
        .flat_map(|p| {
            objects(p)
                .into_iter()
                .filter(|(_, _, v)| v["type"] == "result")
                .map(move |(n, l, _)| format!("{p}:{n}:{l}\n"))
        })
        .collect();
    assert_eq!(got, want);
    // Standard input is `<stdin>`, never `-`.
    let bytes = std::fs::read(one).expect("read");
    let got = stdout(&cctape_stdin(&["filter", "-H", "--type", "result"], &bytes));
    assert_eq!(
        got,
        plain
            .lines()
            .map(|l| format!("<stdin>:{l}\n"))
            .collect::<String>()
    );
    let got = stdout(&cctape_stdin(
        &["filter", "--type", "result", "-", &files[1]],
        &bytes,
    ));
    assert!(got.starts_with("<stdin>:{"), "{got}");
    assert!(got.contains(&format!("{}:{{", files[1])), "{got}");
    // --count: per input as ripgrep (names, inputs without a match left
    // out unless --include-zero); --total: one number.
    let per_file: Vec<(String, usize)> = files
        .iter()
        .map(|p| {
            (
                p.clone(),
                oracle_lines(std::slice::from_ref(p), false, &|v| {
                    v["subtype"] == "task_started"
                })
                .lines()
                .count(),
            )
        })
        .collect();
    assert!(
        per_file.iter().any(|(_, n)| *n == 0),
        "some file has no task_started"
    );
    let want: String = per_file
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(p, n)| format!("{p}:{n}\n"))
        .collect();
    let got = cctape(&["filter", "--count", "--subtype", "task_started", STREAMS]);
    // 2: mixed-bad.jsonl's bad lines are errors (said on stderr); the
    // counts are the same.
    assert_eq!((got.status.code(), stdout(&got)), (Some(2), want));
    let want: String = per_file.iter().map(|(p, n)| format!("{p}:{n}\n")).collect();
    let got = stdout(&cctape(&[
        "filter",
        "-c",
        "--include-zero",
        "--subtype",
        "task_started",
        STREAMS,
    ]));
    assert_eq!(got, want);
    let total: usize = per_file.iter().map(|(_, n)| n).sum();
    let got = stdout(&cctape(&[
        "filter",
        "--total",
        "--subtype",
        "task_started",
        STREAMS,
    ]));
    assert_eq!(got, format!("{total}\n"));
    let got = cctape(&[
        "filter",
        "-c",
        "--null",
        "--subtype",
        "task_started",
        &files[0],
        &files[1],
    ]);
    let want: Vec<u8> = per_file[..2]
        .iter()
        .filter(|(_, n)| *n > 0)
        .flat_map(|(p, n)| [p.as_bytes(), b"\0", format!("{n}\n").as_bytes()].concat())
        .collect();
    assert_eq!(got.stdout, want);
}

#[test]
fn fields_names_stdin_and_takes_the_filters() {
    let path = stream("success-basic.jsonl");
    let bytes = std::fs::read(&path).expect("read");
    let filtered = cctape(&["filter", "--type", "result", &path]);
    let out = cctape_stdin(
        &["fields", "-f", "@file", "-f", "total_cost_usd"],
        &filtered.stdout,
    );
    let want_cost = objects(&path)
        .into_iter()
        .find(|(_, _, v)| v["type"] == "result")
        .map(|(_, _, v)| v["total_cost_usd"].as_f64().expect("cost"))
        .expect("a result");
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 2, "{text}");
    let (file, cost) = rows[1].split_once('\t').expect("two columns");
    assert_eq!(file, "<stdin>");
    assert_eq!(cost.parse::<f64>().ok(), Some(want_cost));
    let out = cctape_stdin(
        &["fields", "-f", "@kind", "--type", "system,result"],
        &bytes,
    );
    let want: Vec<String> = objects(&path)
        .into_iter()
        .filter(|(_, _, v)| v["type"] == "system" || v["type"] == "result")
        .map(|(_, _, v)| {
            format!(
                "{}/{}",
                v["type"].as_str().unwrap(),
                v["subtype"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(stdout(&out).lines().skip(1).collect::<Vec<_>>(), want);
}

/// Python's csv module reading `csv`: the oracle for our CSV.
fn python_csv(csv: &[u8]) -> Option<Vec<Vec<String>>> {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import csv, io, json, sys; \
             print(json.dumps(list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline='')))))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(csv).ok()?;
    let out = child.wait_with_output().ok()?;
    assert!(out.status.success(), "python3 csv");
    Some(serde_json::from_slice(&out.stdout).expect("json from python"))
}

#[test]
fn fields_csv_reads_back_in_pythons_csv_module() {
    let dir = temp_dir("csv");
    let p = dir.join("cells.jsonl");
    let lines = [
        r#"{"type":"user","s":"a,b","o":{"k":"v,\"w\""}}"#,
        r#"{"type":"user","s":"say \"hi\"","o":[1,"two"]}"#,
        r#"{"type":"user","s":"two\nlines\r\nand a CR\r","o":null}"#,
        r#"{"type":"user","s":"","o":""}"#,
        r#"{"type":"user"}"#,
        r#"{"type":"user","s":"café ✓ \u0001","o":true}"#,
        r#"{"type":"user","s":" lead and trail ","o":1.5}"#,
        r##"{"type":"user","s":"#not a comment","o":"\"\""}"##,
    ];
    std::fs::write(&p, lines.join("\n")).expect("write");
    let p = p.to_str().expect("path");
    let out = cctape(&[
        "fields", "--format", "csv", "-f", "s", "-f", "o", "-f", "@line", p,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let Some(rows) = python_csv(&out.stdout) else {
        eprintln!("skipped: no python3");
        return;
    };
    assert_eq!(rows[0], ["s", "o", "@line"]);
    assert_eq!(rows.len(), 1 + lines.len());
    for (i, (row, line)) in rows[1..].iter().zip(lines).enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let s = v["s"].as_str().unwrap_or("");
        assert_eq!(row[0], s, "line {}", i + 1);
        // A string is its text; anything else compact JSON; missing empty.
        match &v["o"] {
            serde_json::Value::String(t) => assert_eq!(&row[1], t),
            serde_json::Value::Null if v.get("o").is_none() => assert_eq!(row[1], ""),
            o => assert_eq!(
                serde_json::from_str::<serde_json::Value>(&row[1]).expect("a JSON cell"),
                *o
            ),
        }
        assert_eq!(row[2], (i + 1).to_string());
    }
    // One column of empty values: each row is `""`, not a blank line that
    // a CSV reader would skip.
    let out = cctape(&["fields", "--format", "csv", "--no-header", "-f", "s", p]);
    let rows = python_csv(&out.stdout).expect("python3");
    let want: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            vec![v["s"].as_str().unwrap_or("").to_string()]
        })
        .collect();
    assert_eq!(rows, want);
    let _ = std::fs::remove_dir_all(&dir);
}

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

#[test]
fn check_is_one_aligned_table_with_versions_in_semantic_order() {
    let dir = temp_dir("check-versions");
    // A finding (a missing uuid) in three versions, given out of order, and
    // 1,000 of them in one, for the separator.
    for (name, version, n) in [
        ("a", "2.1.238", 1),
        ("b", "2.1.41", 1000),
        ("c", "2.0.9", 2),
    ] {
        let mut body = format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"uuid\":\"u\",\"claude_code_version\":\"{version}\"}}\n"
        );
        for _ in 0..n {
            body.push_str("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"},\"session_id\":\"s\",\"parent_tool_use_id\":null}\n");
        }
        std::fs::write(dir.join(format!("{name}.jsonl")), body).expect("write");
    }
    std::fs::write(dir.join("d.jsonl"), "{\"type\":\"brand_new_kind\"}\n").expect("write");
    let out = cctape(&["check", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let versions: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().next().expect("version"))
        .collect();
    let mut seen = versions.clone();
    seen.dedup();
    assert_eq!(seen, ["2.0.9", "2.1.41", "2.1.238", "unknown"], "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("2.1.41") && l.contains(" 1,000 ")),
        "{text}"
    );
    // Aligned: every column starts where its header does (text left,
    // counts right-aligned under `count`).
    let header = lines[0];
    let start = |name: &str| header.find(name).expect("column");
    // The detail before the path of the first position, which is last
    // (long paths would push the detail past a terminal's width).
    assert!(start("detail") < start("first"), "{header}");
    assert!(header.trim_end().ends_with("first"), "{header}");
    let count_end = start("count") + "count".len();
    for l in &lines[1..] {
        for col in ["category", "kind", "first"] {
            let at = start(col);
            let c = l.as_bytes()[at];
            assert!(
                c != b' ' && l.as_bytes()[at - 1] == b' ',
                "{col} in {l:?}\n{text}"
            );
        }
        assert!(
            l.as_bytes()[count_end - 1].is_ascii_digit() && l.as_bytes()[count_end] == b' ',
            "count in {l:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn human_output_escapes_stream_strings_and_says_one_in_the_singular() {
    let dir = temp_dir("human");
    let p = dir.join("run.jsonl");
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"evil\u001b[2Jid","uuid":"u1","model":"m"}"#,
        r#"{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"description":"d\u001b[31m","subagent_type":"general-purpose"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"evil\u001b[2Jid","uuid":"u2"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"evil\u001b[2Jid","uuid":"u3","usage":{"input_tokens":1,"output_tokens":1},"total_cost_usd":0.5}"#,
    ];
    std::fs::write(&p, lines.join("\n")).expect("write");
    let out = cctape(&["tree", p.to_str().expect("path")]);
    let text = stdout(&out);
    assert!(
        !text.contains('\u{1b}'),
        "a raw escape reached the output: {text:?}"
    );
    assert!(text.contains("evil\\x1b[2Jid"), "{text}");
    assert!(text.contains("1 output token ("), "{text}");
    assert!(text.contains("1 tool call"), "{text}");
    assert!(
        !text.contains("1 tool calls") && !text.contains("1 output tokens"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stats_reports_an_invalid_byte_at_its_column() {
    // The case of issue 15: an invalid byte at column 22, once reported at
    // column 0.
    let line = b"{\"type\":\"user\",\"x\":\"ab\xffcd\"}\n";
    assert_eq!(line.iter().position(|&b| b == 0xff), Some(22));
    let v = json(&cctape_stdin(&["stats", "--json"], line));
    assert_eq!(v["errors"][0]["column"], 22, "{}", v["errors"]);
    let text = stdout(&cctape_stdin(&["stats"], line));
    assert!(
        text.contains("<stdin>:1: byte 0, column 22: invalid_utf8"),
        "{text}"
    );
}

#[test]
fn utf16_captures_read_as_their_utf8_text_and_binary_files_are_one_finding() {
    let dir = temp_dir("utf16");
    let src = std::fs::read_to_string(stream("two-subagents.jsonl")).expect("read");
    // Windows PowerShell 5.1's `>` writes UTF-16LE with a byte order mark.
    let mut le = vec![0xff, 0xfe];
    let mut be = vec![0xfe, 0xff];
    for u in src.encode_utf16() {
        le.extend_from_slice(&u.to_le_bytes());
        be.extend_from_slice(&u.to_be_bytes());
    }
    std::fs::write(dir.join("a.jsonl"), &src).expect("write");
    std::fs::write(dir.join("b-le.jsonl"), &le).expect("write");
    std::fs::write(dir.join("c-be.jsonl"), &be).expect("write");
    let out = cctape(&["stats", "--json", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let per_file = v["per_file"].as_array().expect("per_file");
    assert_eq!(per_file.len(), 3);
    let lines = src.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    for f in per_file {
        assert_eq!(f["events"].as_u64(), Some(lines), "{}", f["file"]);
        assert_eq!(f["by_type"], per_file[0]["by_type"], "{}", f["file"]);
        assert_eq!(f["error_count"], 0, "{}", f["file"]);
    }
    // The lines printed are the UTF-8 text, byte for byte.
    let le_lines = cctape(&[
        "filter",
        "--type",
        "assistant",
        &dir.join("b-le.jsonl").to_string_lossy(),
    ]);
    let utf8_lines = cctape(&[
        "filter",
        "--type",
        "assistant",
        &dir.join("a.jsonl").to_string_lossy(),
    ]);
    assert!(!utf8_lines.stdout.is_empty());
    assert!(le_lines.stdout == utf8_lines.stdout);
    let piped = json(&cctape_stdin(&["stats", "--json"], &be));
    assert_eq!(piped["by_type"], per_file[0]["by_type"]);

    // A binary file (NUL bytes, not JSON) is one finding with no preview;
    // a stream whose first line is an event stays a stream whatever follows.
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    png.extend_from_slice(&[0u8; 300]);
    std::fs::write(dir.join("d.json"), &png).expect("write");
    let mut nul_later = src.clone().into_bytes();
    nul_later.extend_from_slice(b"\x00\x00\x00\n");
    std::fs::write(dir.join("e.jsonl"), &nul_later).expect("write");
    let v = json(&cctape(&[
        "stats",
        "--json",
        &dir.join("d.json").to_string_lossy(),
        &dir.join("e.jsonl").to_string_lossy(),
    ]));
    let formats: Vec<&str> = v["per_file"]
        .as_array()
        .expect("per_file")
        .iter()
        .map(|f| f["format"].as_str().expect("format"))
        .collect();
    assert_eq!(formats, ["binary", "stream"]);
    assert_eq!(v["per_file"][1]["events"].as_u64(), Some(lines));
    assert_eq!(v["per_file"][1]["error_count"], 1);
    let human = cctape(&["stats", &dir.join("d.json").to_string_lossy()]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("d.json: binary\n"), "{text}");
    assert!(!text.contains("PNG"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lines of a stream file whose `type` passes `keep` (serde_json as
/// the oracle), each with its LF.
fn lines_where(path: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .and_then(|v| v["type"].as_str().map(&keep))
                .unwrap_or(false)
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn filter_inverts_stops_at_max_count_and_lists_inputs_as_grep() {
    let mixed = stream("mixed-bad.jsonl");
    let two = stream("two-subagents.jsonl");
    // -v: the events that fail the tests.
    let not_assistant = lines_where(&two, |t| t != "assistant");
    assert!(!not_assistant.is_empty());
    let out = cctape(&["filter", "-v", "--type", "assistant", &two]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), not_assistant.concat());
    // Bad lines are not events: -v leaves them out too, so the events are
    // split between the two without overlap.
    let count = |a: &[&str]| -> u64 { stdout(&cctape(a)).trim().parse().expect("a count") };
    let events = json(&cctape(&["stats", "--json", &mixed]))["events"]
        .as_u64()
        .expect("events");
    assert_eq!(
        count(&["filter", "-c", "--type", "assistant", &mixed])
            + count(&["filter", "-v", "-c", "--type", "assistant", &mixed]),
        events
    );

    // -m: the first NUM lines of each input, with any number of jobs.
    let assistant = lines_where(&two, |t| t == "assistant");
    assert!(assistant.len() > 3);
    for jobs in ["1", "2"] {
        let out = cctape(&["filter", "-j", jobs, "-m", "3", "--type", "assistant", &two]);
        assert_eq!(stdout(&out), assistant[..3].concat(), "-j {jobs}");
    }
    let both = cctape(&[
        "filter",
        "-c",
        "-m",
        "2",
        "--type",
        "assistant",
        &two,
        &mixed,
    ]);
    let mixed_n = lines_where(&mixed, |t| t == "assistant").len().min(2);
    assert_eq!(stdout(&both), format!("{two}:2\n{mixed}:{mixed_n}\n"));

    // -l and --files-without-match: names, one a line or NUL-ended.
    let results = stream("success-basic.jsonl");
    let no_result = stream("no-result.jsonl");
    assert!(lines_where(&no_result, |t| t == "result").is_empty());
    assert!(!lines_where(&results, |t| t == "result").is_empty());
    let l = cctape(&["filter", "-l", "--type", "result", &results, &no_result]);
    assert_eq!(l.status.code(), Some(0));
    assert_eq!(stdout(&l), format!("{results}\n"));
    let w = cctape(&[
        "filter",
        "--files-without-match",
        "-0",
        "--type",
        "result",
        &results,
        &no_result,
    ]);
    assert_eq!(stdout(&w), format!("{no_result}\0"));
    // Nothing listed: exit 1, as grep -l.
    let none = cctape(&["filter", "-l", "--type", "result", &no_result]);
    assert_eq!(none.status.code(), Some(1));
    assert!(none.stdout.is_empty());
    // -v and --errors ask for opposite things.
    let clash = cctape(&["filter", "-v", "--errors", &mixed]);
    assert_eq!(clash.status.code(), Some(2));
}

/// A stream file of one successful run per (session, first timestamp,
/// cost), each an init and a result.
fn runs_file(dir: &Path, runs: &[(&str, Option<&str>, f64)]) -> PathBuf {
    let mut body = String::new();
    for (id, ts, cost) in runs {
        let ts = ts.map_or(String::new(), |t| format!(",\"timestamp\":\"{t}\""));
        body.push_str(&format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{id}\"{ts}}}\n\
             {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"{id}\",\"total_cost_usd\":{cost}}}\n"
        ));
    }
    let file = dir.join("runs.jsonl");
    std::fs::write(&file, body).expect("write");
    file
}

/// `stats --since/--until` on streams: a run is kept by the day its first
/// `timestamp` falls on in the report's zone (an offset time on its real
/// day), a run without one is left out while a bound is set, and a day that
/// is no day, or bounds the wrong way round, are usage errors (exit 2).
#[test]
fn stats_since_and_until_keep_runs_by_the_day_they_started() {
    let dir = temp_dir("since");
    // (session, first timestamp, cost): the third starts at 23:30 at
    // UTC-05:00, which is 04:30 on March 2nd in UTC; the fourth has none.
    let runs = [
        ("a", Some("2026-02-28T10:00:00Z"), 0.5),
        ("b", Some("2026-03-01T09:00:00.250Z"), 0.25),
        ("c", Some("2026-03-01T23:30:00-05:00"), 0.125),
        ("d", None, 2.0),
    ];
    let file = runs_file(&dir, &runs);
    let f = file.to_str().expect("path");
    let stats = |args: &[&str]| {
        let mut all = vec!["stats", "--json", "--timezone", "UTC"];
        all.extend_from_slice(args);
        all.push(f);
        json(&cctape(&all))
    };
    let kept = |v: &serde_json::Value| (v["runs"].as_u64(), v["total_cost_usd"].as_f64());
    let whole = stats(&[]);
    assert_eq!(kept(&whole), (Some(4), Some(2.875)));
    assert!(whole.get("since").is_none() && whole.get("time_zone").is_none());
    let v = stats(&["--since", "2026-03-01"]);
    assert_eq!(kept(&v), (Some(2), Some(0.375)));
    assert_eq!(
        (v["since"].as_str(), v["until"].as_str()),
        (Some("2026-03-01"), None)
    );
    assert_eq!(v["time_zone"], "UTC");
    // Events and lines are counted whole: a line has no day of its own.
    assert_eq!(v["events"], whole["events"]);
    assert_eq!(
        kept(&stats(&["--until", "20260301"])),
        (Some(2), Some(0.75))
    );
    assert_eq!(
        kept(&stats(&["--since", "20260301", "--until", "2026-03-01"])),
        (Some(1), Some(0.25))
    );
    let by_day = stats(&["--since", "2026-03-02", "--by", "day"]);
    let keys: Vec<&str> = by_day["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["key"].as_str())
        .collect();
    assert_eq!(keys, ["2026-03-02"]);
    // In New York the third run started on March 1st.
    let ny = json(&cctape(&[
        "stats",
        "--json",
        "--timezone",
        "America/New_York",
        "--since",
        "2026-03-01",
        "--until",
        "2026-03-01",
        f,
    ]));
    assert_eq!(kept(&ny), (Some(2), Some(0.375)));
    for bad in [
        &["--since", "2026-02-30"][..],
        &["--since", "2026-3-1"],
        &["--until", "yesterday"],
        &["--since", "20260302", "--until", "20260301"],
    ] {
        let mut args = vec!["stats"];
        args.extend_from_slice(bad);
        args.push(f);
        let out = cctape(&args);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("YYYY-MM-DD") || err.contains("after --until"),
            "{bad:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
}

/// `-g/--glob` and `--iglob` choose what a walk reads, as ripgrep's do: a
/// `!` glob passes over files and whole folders, any other glob makes the
/// walk read only what matches (whatever its name), the last glob that
/// matches wins, a glob with a `/` is matched from the walked folder, and
/// files named on the command line are always read. A bad glob is a usage
/// error.
#[test]
fn globs_choose_what_a_walk_reads_as_ripgrep() {
    let dir = temp_dir("globs");
    let run = |id: &str| {
        format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"{id}\"}}\n\
             {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"{id}\"}}\n"
        )
    };
    let files = [
        "a/run1.jsonl",
        "a/run2.jsonl",
        "a/notes.txt",
        "b/node_modules/dep.jsonl",
        "b/run3.JSONL",
        "c/out.txt",
    ];
    for (i, f) in files.iter().enumerate() {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, run(&format!("s{i}"))).expect("write");
    }
    let root = dir.to_str().expect("path");
    let read = |args: &[&str], paths: &[&str]| -> Vec<String> {
        let mut all = vec!["stats", "--json", "-q"];
        all.extend_from_slice(args);
        all.extend_from_slice(paths);
        let v = json(&cctape(&all));
        v["per_file"]
            .as_array()
            .expect("per_file")
            .iter()
            .map(|f| {
                let name = f["file"].as_str().expect("name");
                name.strip_prefix(root)
                    .map_or(name, |n| n.trim_start_matches('/'))
                    .to_owned()
            })
            .collect()
    };
    let jsonl = [
        "a/run1.jsonl",
        "a/run2.jsonl",
        "b/node_modules/dep.jsonl",
        "b/run3.JSONL",
    ];
    assert_eq!(read(&[], &[root]), jsonl);
    assert_eq!(
        read(&["-g", "!node_modules"], &[root]),
        ["a/run1.jsonl", "a/run2.jsonl", "b/run3.JSONL"]
    );
    assert_eq!(
        read(&["-g", "*.txt"], &[root]),
        ["a/notes.txt", "c/out.txt"]
    );
    assert_eq!(
        read(&["-g", "*.jsonl", "-g", "!run1*"], &[root]),
        ["a/run2.jsonl", "b/node_modules/dep.jsonl"]
    );
    assert_eq!(
        read(&["-g", "!run1*", "-g", "*.jsonl"], &[root]),
        ["a/run1.jsonl", "a/run2.jsonl", "b/node_modules/dep.jsonl"]
    );
    assert_eq!(
        read(&["-g", "*.jsonl"], &[root]),
        ["a/run1.jsonl", "a/run2.jsonl", "b/node_modules/dep.jsonl"]
    );
    assert_eq!(
        read(&["--iglob", "*.jsonl"], &[root]),
        [
            "a/run1.jsonl",
            "a/run2.jsonl",
            "b/node_modules/dep.jsonl",
            "b/run3.JSONL"
        ]
    );
    assert_eq!(
        read(&["--glob", "a/*"], &[root]),
        ["a/notes.txt", "a/run1.jsonl", "a/run2.jsonl"]
    );
    let named = dir.join("a/run1.jsonl");
    let named = named.to_str().expect("path");
    assert_eq!(
        read(&["-g", "!*.jsonl"], &[named, root]),
        ["a/run1.jsonl", "b/run3.JSONL"]
    );
    // The same choice in every command: filter lists what stats reads.
    let listed = cctape(&[
        "filter",
        "-l",
        "--type",
        "result",
        "-g",
        "!node_modules",
        "-g",
        "!*.txt",
        root,
    ]);
    assert_eq!(stdout(&listed).lines().count(), 3);
    let bad = cctape(&["stats", "-g", "[a", root]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("glob `[a`"));
}

/// `stats --by block` on streams: a run is one entry at its start; blocks
/// start on the UTC hour of their first entry and end five hours later, or
/// earlier where more than five hours pass without an entry.
#[test]
fn stats_by_block_puts_stream_runs_in_five_hour_blocks() {
    let dir = temp_dir("blocks");
    let runs = [
        ("a", Some("2026-02-28T10:40:00Z"), 0.5),
        // 4h59m after the block's start: the same block.
        ("b", Some("2026-02-28T14:59:00+00:00"), 0.25),
        // Past 15:00: a new block, from 15:00.
        ("c", Some("2026-02-28T11:30:00-04:00"), 0.125),
        ("d", None, 2.0),
    ];
    let file = runs_file(&dir, &runs);
    let v = json(&cctape(&[
        "stats",
        "--json",
        "--by",
        "block",
        file.to_str().expect("path"),
    ]));
    let groups: Vec<(String, u64, f64)> = v["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            (
                g["key"].as_str().expect("key").to_owned(),
                g["runs"].as_u64().expect("runs"),
                g["total_cost_usd"].as_f64().expect("cost"),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            ("2026-02-28T10:00:00.000Z".to_string(), 2, 0.75),
            ("2026-02-28T15:00:00.000Z".to_string(), 1, 0.125),
            ("unknown".to_string(), 1, 2.0),
        ]
    );
    // ccusage's `endTime` and `actualEndTime`: five hours after the start,
    // and the block's last entry.
    let ends: Vec<(&str, &str)> = v["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| Some((g["block_end"].as_str()?, g["last_activity"].as_str()?)))
        .collect();
    assert_eq!(
        ends,
        [
            ("2026-02-28T15:00:00.000Z", "2026-02-28T14:59:00.000Z"),
            ("2026-02-28T20:00:00.000Z", "2026-02-28T15:30:00.000Z"),
        ]
    );
    // The same with one job and in any zone: blocks start on UTC hours.
    let again = json(&cctape(&[
        "stats",
        "--json",
        "--by",
        "block",
        "-j",
        "1",
        "--timezone",
        "Asia/Kolkata",
        file.to_str().expect("path"),
    ]));
    assert_eq!(again["groups"], v["groups"]);
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

/// `stats --breakdown`: under each group's row, a row per model with the
/// figures each group's `by_model` holds in `--json` (ccusage's
/// `--breakdown` and `modelBreakdowns`); the models' output tokens add up
/// to the group's.
#[test]
fn stats_breakdown_rows_are_the_groups_by_model() {
    let v = json(&cctape(&["stats", "--json", "--by", "file", STREAMS]));
    let table = stdout(&cctape(&["stats", "--by", "file", "--breakdown", STREAMS]));
    let lines: Vec<&str> = table
        .lines()
        .skip_while(|l| *l != "by file")
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    let groups = v["groups"].as_array().expect("groups");
    let mut at = 0;
    let mut with_models = 0;
    for g in groups {
        let key = g["key"].as_str().expect("key");
        assert!(
            lines[at].trim_start().starts_with(key),
            "{key}: {}",
            lines[at]
        );
        at += 1;
        let models = g["by_model"].as_object().expect("by_model");
        let mut output = 0;
        for (model, m) in models {
            let row = lines[at];
            let cells: Vec<&str> = row.split_whitespace().collect();
            assert_eq!(&cells[..2], ["└", model.as_str()], "{row}");
            let out = m["output_tokens"].as_u64().expect("output");
            assert_eq!(cells[4].replace(',', ""), out.to_string(), "{row}");
            output += out;
            at += 1;
        }
        if !models.is_empty() {
            with_models += 1;
            assert_eq!(
                output,
                g["tokens"]["output_tokens"].as_u64().expect("tokens"),
                "{key}"
            );
        }
    }
    assert_eq!(at, lines.len());
    assert!(with_models >= 5, "{with_models} groups with models");
}

/// `verdict --since/--until` keeps the runs `stats` keeps: by the day they
/// started; an input without events (no date) is left out, and the exit
/// code is the kept runs'.
#[test]
fn verdict_since_and_until_keep_the_runs_stats_keeps() {
    let dir = temp_dir("verdict-since");
    runs_file(
        &dir,
        &[
            ("a", Some("2026-02-28T10:00:00Z"), 0.5),
            ("b", Some("2026-03-01T09:00:00Z"), 0.25),
            ("c", Some("2026-03-01T23:30:00-05:00"), 0.125),
            ("d", None, 2.0),
        ],
    );
    // A failed run on the 2nd, and a text output (no date).
    let failed = dir.join("failed.jsonl");
    std::fs::write(
        &failed,
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"e\",\"timestamp\":\"2026-03-02T08:00:00Z\"}\n\
         {\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,\"session_id\":\"e\"}\n",
    )
    .expect("write");
    std::fs::write(dir.join("out.txt"), "Error: Reached max turns (30)\n").expect("write");
    let root = dir.to_str().expect("path");
    let verdict = |args: &[&str]| {
        let mut all = vec!["verdict", "--json", "--timezone", "UTC", "-g", "*"];
        all.extend_from_slice(args);
        all.push(root);
        let out = cctape(&all);
        let ids: Vec<String> = stdout(&out)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("record");
                v["session_id"].as_str().unwrap_or("-").to_owned()
            })
            .collect();
        (ids, out.status.code())
    };
    // Everything: five runs and the text output; a failure, so exit 1.
    let (all, code) = verdict(&[]);
    assert_eq!(all.len(), 6, "{all:?}");
    assert_eq!(code, Some(1));
    let (ids, code) = verdict(&["--since", "2026-03-01", "--until", "20260301"]);
    assert_eq!(ids, ["b"]);
    assert_eq!(code, Some(0));
    let (ids, code) = verdict(&["--since", "2026-03-02"]);
    assert_eq!(ids, ["e", "c"]);
    assert_eq!(code, Some(1));
    // The same runs as stats counts.
    let s = json(&cctape(&[
        "stats",
        "--json",
        "--timezone",
        "UTC",
        "-g",
        "*",
        "--since",
        "2026-03-02",
        root,
    ]));
    assert_eq!(s["runs"], 2);
    let (_, code) = verdict(&["--since", "20260302", "--until", "20260301"]);
    assert_eq!(code, Some(2));
}
