//! The command line: inputs (directories, gzip, zstd, stdin, unreadable
//! files), `--jobs 1` against `--jobs 2`, `filter` and `fields`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn cctape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .output()
        .expect("run cctape")
}

fn cctape_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cctape");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("JSON output")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cctape-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

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
fn directories_gzip_zstd_and_stdin_read_the_same_events() {
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
    // Not picked up by the walk.
    std::fs::write(dir.join("a/notes.txt"), b"not a stream").expect("write");
    let out = cctape(&["stats", "--json", dir.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["files"], 3);
    let per_file = v["per_file"].as_array().expect("per_file");
    let names: Vec<&str> = per_file
        .iter()
        .map(|f| f["file"].as_str().expect("name"))
        .collect();
    assert!(names[0].ends_with("a/b/plain.jsonl"), "{names:?}");
    assert!(names[1].ends_with("a/run.log.gz"), "{names:?}");
    assert!(names[2].ends_with("a/run.ndjson.zst"), "{names:?}");
    for f in per_file {
        assert_eq!(f["by_type"], per_file[0]["by_type"]);
        assert_eq!(f["bytes"].as_u64(), Some(src.len() as u64));
    }
    let via_stdin = json(&cctape_stdin(&["stats", "--json", "-"], &src));
    assert_eq!(via_stdin["by_type"], per_file[0]["by_type"]);
    let gz = std::fs::read(dir.join("a/run.log.gz")).expect("read");
    let gz_stdin = json(&cctape_stdin(&["stats", "--json"], &gz));
    assert_eq!(gz_stdin["by_type"], per_file[0]["by_type"]);
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
        let verdict: serde_json::Value =
            serde_json::from_slice(&out.stderr).expect("verdict JSON on stderr");
        assert_eq!(verdict["file"], "<stdin>");
        assert!(verdict["verdict"].is_string());
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
