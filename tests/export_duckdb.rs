//! `cctape export` proven against real engines: the Parquet export of
//! ../shared/realworld and corpus/ is read by DuckDB (and DataFusion), and
//! SQL over it reproduces `cctape stats --json` on the same input: events
//! per type/subtype, runs per verdict, total cost, the main agent's output
//! tokens, tool calls per tool.
//!
//! The engines are the `duckdb` and `datafusion` Python packages (`.ci/run`
//! installs them). When one cannot be imported the test prints "skipped"
//! and passes, unless `CI` is set: then it fails, so that CI cannot pass
//! without having run it. The same holds for a missing ../shared/realworld.

#![cfg(feature = "parquet")]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn cctape() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

fn skip(why: &str) {
    println!("skipped: {why}");
    assert!(!in_ci(), "{why}, and CI is set: this test must run in CI");
}

/// The inputs: the real-world captures and the shipped corpus.
fn inputs() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let realworld = root.join("../shared/realworld");
    if !realworld.is_dir() {
        skip("../shared/realworld not found");
        return None;
    }
    Some(vec![realworld, root.join("corpus")])
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> Scratch {
    scratch(&format!("test-{name}"))
}

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

fn export(out: &Path, inputs: &[PathBuf], extra: &[&str]) -> Value {
    let o = cctape()
        .args([
            "export", "--format", "parquet", "--json", "--quiet", "--out",
        ])
        .arg(out)
        .args(extra)
        .args(inputs)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "cctape export failed ({e}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    // Exit 0, or 2 when bad lines are missing from the tables (written
    // without them: grep's rule, README "Bad lines and exit codes").
    let bad = report["bad_lines"].as_u64().unwrap_or(0);
    assert_eq!(
        o.status.code(),
        Some(if bad > 0 { 2 } else { 0 }),
        "cctape export: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    report
}

fn stats(inputs: &[PathBuf]) -> Value {
    let o = cctape()
        .args(["stats", "--json", "--quiet"])
        .args(inputs)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Runs the questions as SQL in `engine` over the export in `dir`; prints
/// one JSON object of answers.
const QUERIES: &str = r#"
import json, sys
engine, d = sys.argv[1], sys.argv[2]
Q = {
    "by_type": "SELECT kind, count(*) FROM events GROUP BY kind",
    "verdicts": "SELECT verdict, count(*) FROM runs GROUP BY verdict",
    "runs": "SELECT count(*) FROM runs",
    "events": "SELECT count(*) FROM events",
    "total_cost_usd": "SELECT sum(total_cost_usd) FROM runs",
    "main_output_tokens":
        "SELECT sum(output_tokens) FROM events WHERE carries_usage AND parent_tool_use_id IS NULL",
    "main_output_tokens_runs": "SELECT sum(main_output_tokens) FROM runs",
    "subagent_output_tokens_runs": "SELECT sum(subagent_output_tokens) FROM runs",
    "subagent_output_tokens":
        "SELECT sum(output_tokens) FROM events WHERE carries_usage AND parent_tool_use_id IS NOT NULL",
    "usage_rows_per_call":
        "SELECT max(n) FROM (SELECT count(*) AS n FROM events WHERE carries_usage AND message_id IS NOT NULL GROUP BY file, run_line, message_id) AS t",
    "tools": "SELECT tool_name, count(*), sum(CASE WHEN is_error THEN 1 ELSE 0 END), sum(CASE WHEN rejected THEN 1 ELSE 0 END) FROM tools GROUP BY tool_name",
    "tools_without_run":
        "SELECT count(*) FROM tools t LEFT JOIN runs r ON t.file = r.file AND t.run_line = r.first_line WHERE r.file IS NULL",
}
if engine == "duckdb":
    import duckdb
    con = duckdb.connect()
    for t in ("events", "runs", "tools"):
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{d}/{t}/*.parquet')")
    run = lambda q: [tuple(r) for r in con.execute(q).fetchall()]
else:
    import datafusion
    ctx = datafusion.SessionContext()
    for t in ("events", "runs", "tools"):
        ctx.register_parquet(t, f"{d}/{t}/")
    run = lambda q: [tuple(r.values()) for r in ctx.sql(q).to_pylist()]
out = {}
for k, q in Q.items():
    rows = run(q)
    if k in ("by_type", "verdicts"):
        out[k] = {a: b for a, b in rows}
    elif k == "tools":
        out[k] = {a: {"calls": b, "errors": c, "rejections": e} for a, b, c, e in rows}
    else:
        out[k] = rows[0][0] if rows and rows[0][0] is not None else 0
print(json.dumps(out))
"#;

fn ask(engine: &str, dir: &Path) -> Value {
    let o = Command::new("python3")
        .args(["-c", QUERIES, engine])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{engine} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The answers must be what `cctape stats --json` says. Session
/// transcripts give a row per record (stats counts them apart, in
/// `transcripts.records_by_type`) and their usage only on their sessions'
/// `runs` rows (stats gives their part, `transcripts.main` and
/// `.subagents`).
fn compare(engine: &str, got: &Value, want: &Value) {
    let mut kinds = want["by_type"].as_object().unwrap().clone();
    for (k, n) in want["transcripts"]["records_by_type"].as_object().unwrap() {
        let sum = kinds.get(k).and_then(Value::as_u64).unwrap_or(0) + n.as_u64().unwrap();
        kinds.insert(k.clone(), json!(sum));
    }
    assert_eq!(
        got["by_type"],
        Value::Object(kinds),
        "{engine}: events per kind"
    );
    let verdicts: serde_json::Map<String, Value> = want["verdicts"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, n)| n.as_u64() != Some(0))
        .map(|(k, n)| (k.clone(), n.clone()))
        .collect();
    assert_eq!(
        got["verdicts"],
        Value::Object(verdicts),
        "{engine}: verdicts"
    );
    assert_eq!(got["runs"], want["runs"], "{engine}: runs");
    assert_eq!(got["events"], want["events"], "{engine}: events");
    let (a, b) = (
        got["total_cost_usd"].as_f64().unwrap(),
        want["total_cost_usd"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 1e-9, "{engine}: total cost {a} vs {b}");
    // The rows that carry usage sum to the per-call figures (`calls`); the
    // runs table holds each run's best figure (docs/accounting.md), which
    // stats sums.
    let per_call = |agent: &str| {
        let all = want["usage"][agent]["calls"]["output_tokens"]
            .as_u64()
            .unwrap();
        json!(
            all - want["transcripts"][agent]["output_tokens"]
                .as_u64()
                .unwrap()
        )
    };
    assert_eq!(
        got["main_output_tokens"],
        per_call("main"),
        "{engine}: main output tokens, per call"
    );
    assert_eq!(
        &got["main_output_tokens_runs"], &want["usage"]["main"]["output_tokens"],
        "{engine}: runs table"
    );
    assert_eq!(
        got["subagent_output_tokens"],
        per_call("subagents"),
        "{engine}: subagent output tokens, per call"
    );
    assert_eq!(
        &got["subagent_output_tokens_runs"], &want["usage"]["subagents"]["output_tokens"],
        "{engine}: subagent output tokens, runs table"
    );
    assert_eq!(got["usage_rows_per_call"], json!(1), "{engine}: usage once");
    assert_eq!(got["tools"], want["tools"], "{engine}: tools");
    assert_eq!(got["tools_without_run"], json!(0), "{engine}: run keys");
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn sql_over_the_export_reproduces_stats() {
    let Some(inputs) = inputs() else { return };
    let engines: Vec<&str> = ["duckdb", "datafusion"]
        .into_iter()
        .filter(|e| {
            let ok = python_has(e);
            if !ok {
                skip(&format!("the Python package {e} cannot be imported"));
            }
            ok
        })
        .collect();
    if engines.is_empty() {
        return;
    }
    let want = stats(&inputs);
    assert!(want["events"].as_u64().unwrap() > 3000);
    let dir = temp_dir("export-sql");
    // Default settings, then small row groups, many part files and --raw.
    let settings: [&[&str]; 2] = [
        &[],
        &[
            "--raw",
            "--row-group-rows",
            "100",
            "--max-file-rows",
            "250",
            "--jobs",
            "2",
        ],
    ];
    for extra in settings {
        let report = export(&dir, &inputs, extra);
        let files = report["tables"]["events"]["files"]
            .as_array()
            .unwrap()
            .len();
        if extra.is_empty() {
            assert_eq!(files, 1);
        } else {
            assert!(files > 10, "{files} part files");
        }
        for engine in &engines {
            let got = ask(engine, &dir);
            println!("{engine} {extra:?}: {got}");
            compare(engine, &got, &want);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `raw` column holds every line's bytes unchanged, at its line and
/// offset (a JSON element's, followed by what separates elements).
#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn raw_column_is_the_line() {
    let Some(inputs) = inputs() else { return };
    if !python_has("duckdb") {
        skip("the Python package duckdb cannot be imported");
        return;
    }
    let dir = temp_dir("export-raw");
    export(&dir, &inputs, &["--raw"]);
    let script = r#"
import duckdb, sys
d = sys.argv[1]
rows = duckdb.connect().execute(
    f"SELECT file, byte_offset, raw FROM read_parquet('{d}/events/*.parquet')").fetchall()
cache, bad = {}, 0
for f, off, raw in rows:
    if f not in cache:
        cache[f] = open(f, "rb").read()
    b = raw.encode("utf-8", "surrogatepass")
    data = cache[f]
    if data[off:off + len(b)] != b or data[off + len(b):off + len(b) + 1] not in (b"\n", b"", b",", b"]", b" ", b"\r"):
        bad += 1
print(len(rows), bad)
"#;
    let o = Command::new("python3")
        .args(["-c", script])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let mut it = text.split_whitespace();
    let rows: u64 = it.next().unwrap().parse().unwrap();
    let bad: u64 = it.next().unwrap().parse().unwrap();
    assert!(rows > 3000);
    assert_eq!(bad, 0, "{bad} of {rows} raw values differ from their line");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--jobs 1` and `--jobs 2` write the same bytes.
#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn output_does_not_depend_on_jobs() {
    let Some(inputs) = inputs() else { return };
    let a = temp_dir("export-jobs1");
    let b = temp_dir("export-jobs2");
    export(
        &a,
        &inputs,
        &["--jobs", "1", "--raw", "--max-file-rows", "1000"],
    );
    export(
        &b,
        &inputs,
        &["--jobs", "2", "--raw", "--max-file-rows", "1000"],
    );
    for table in ["events", "runs", "tools"] {
        let mut names: Vec<_> = std::fs::read_dir(a.join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert!(!names.is_empty());
        for n in names {
            let x = std::fs::read(a.join(table).join(&n)).unwrap();
            let y = std::fs::read(b.join(table).join(&n)).unwrap();
            assert!(x == y, "{table}/{n:?} differs between --jobs 1 and 2");
        }
    }
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

/// The oracle and the questions for transcript tool calls: Python's `json`
/// reads the transcripts (each `tool_use` id of an assistant record once,
/// under the smallest session naming it; an error when a `tool_result`
/// answering it says `is_error`), DuckDB the export; each row's `line` of
/// `record_file` must hold its `tool_use`, and `result_line` its
/// `tool_result`.
const TRANSCRIPT_TOOLS: &str = r#"
import json, os, sys
d, roots = sys.argv[1], sys.argv[2:]
calls, errors, rejected = {}, set(), set()
NOTICE = "The user doesn't want to proceed with this tool use"
def first_text(c):
    if isinstance(c, str):
        return c
    for x in c if isinstance(c, list) else []:
        if isinstance(x, dict) and x.get("type") == "text":
            return x.get("text")
    return None
for root in roots:
    for dp, _, fs in os.walk(root):
        for f in fs:
            if not f.endswith(".jsonl"):
                continue
            p = os.path.join(dp, f)
            for line in open(p, encoding="utf-8"):
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(r, dict):
                    continue
                content = (r.get("message") or {}).get("content") if isinstance(r.get("message"), dict) else None
                if not isinstance(content, list):
                    continue
                sid = r.get("sessionId") or f[:-6]
                for b in content:
                    if not isinstance(b, dict):
                        continue
                    if r.get("type") == "assistant" and b.get("type") == "tool_use":
                        old = calls.get(b["id"])
                        if old is None or sid < old[0]:
                            calls[b["id"]] = (sid, b["name"])
                    if r.get("type") == "user" and b.get("type") == "tool_result" and b.get("is_error") is True:
                        text = first_text(b.get("content"))
                        if isinstance(text, str) and text.startswith(NOTICE):
                            rejected.add(b.get("tool_use_id"))
                        else:
                            errors.add(b.get("tool_use_id"))
want = {}
for i, (s, n) in calls.items():
    k = f"{s} {n}"
    c = want.setdefault(k, [0, 0, 0])
    c[0] += 1
    c[1] += i in errors
    c[2] += i in rejected
import duckdb
con = duckdb.connect()
for t in ("runs", "tools"):
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{d}/{t}/*.parquet')")
got = {f"{s} {n}": [c, e, r] for s, n, c, e, r in con.execute(
    "SELECT session_id, tool_name, count(*), sum(is_error::int), sum(rejected::int) FROM tools GROUP BY ALL").fetchall()}
unjoined = con.execute(
    "SELECT count(*) FROM tools t LEFT JOIN runs r ON t.file = r.file AND t.run_line = r.first_line"
    " AND t.session_id = r.session_id WHERE r.file IS NULL").fetchone()[0]
lines = {}
def line(p, n):
    if p not in lines:
        lines[p] = open(p, encoding="utf-8").read().split("\n")
    return lines[p][n - 1]
bad_lines = []
rows = con.execute("SELECT record_file, line, result_line, tool_use_id, answered, sidechain, agent_id FROM tools").fetchall()
for f, l, rl, i, answered, side, agent in rows:
    rec = json.loads(line(f, l))
    if not any(b.get("id") == i for b in rec["message"]["content"] if isinstance(b, dict)):
        bad_lines.append((f, l, i))
    if answered != (rl is not None) or (rl is not None and f'"{i}"' not in line(f, rl)):
        bad_lines.append((f, rl, i))
    side_of = bool(rec.get("isSidechain")) or bool(rec.get("agentId")) or "/subagents/" in f
    if side != side_of or (agent is not None and not side):
        bad_lines.append((f, l, "sidechain"))
print(json.dumps({"want": want, "got": got, "unjoined": unjoined, "bad_lines": bad_lines[:5],
                  "rows": len(rows), "answered": sum(1 for r in rows if r[4])}))
"#;

/// A transcript session's tool calls are `tools` rows under its `runs` row's
/// key, one per `tool_use` id, as an independent reading of the files counts
/// them, each at the lines that hold its `tool_use` and `tool_result`; and
/// they are what `cctape stats` counts.
#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn transcript_tool_calls_are_rows_of_their_sessions() {
    let Some(_) = inputs() else { return };
    if !python_has("duckdb") {
        skip("the Python package duckdb cannot be imported");
        return;
    }
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    let roots: Vec<PathBuf> = [
        "session-format",
        "wave2/session-format",
        "wave2/transformed",
    ]
    .iter()
    .map(|d| real.join(d))
    .collect();
    let dir = temp_dir("export-transcript-tools");
    export(&dir, &roots, &[]);
    let o = Command::new("python3")
        .args(["-c", TRANSCRIPT_TOOLS])
        .arg(&dir)
        .args(&roots)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["rows"].as_u64().unwrap() > 300, "{v}");
    assert!(v["answered"].as_u64().unwrap() > 300, "{v}");
    assert_eq!(v["got"], v["want"], "tool calls per session and tool");
    assert_eq!(v["unjoined"], json!(0), "rows without their session's run");
    assert_eq!(v["bad_lines"], json!([]), "lines of the calls");
    // The same figures as `cctape stats`.
    let s = stats(&roots);
    let mut per_tool = serde_json::Map::new();
    for (k, c) in v["got"].as_object().unwrap() {
        let name = k.split_once(' ').unwrap().1;
        let e = per_tool
            .entry(name.to_owned())
            .or_insert(json!({"calls": 0, "errors": 0, "rejections": 0}));
        e["calls"] = json!(e["calls"].as_u64().unwrap() + c[0].as_u64().unwrap());
        e["errors"] = json!(e["errors"].as_u64().unwrap() + c[1].as_u64().unwrap());
        e["rejections"] = json!(e["rejections"].as_u64().unwrap() + c[2].as_u64().unwrap());
    }
    assert_eq!(s["tools"], Value::Object(per_tool), "stats tools");
    std::fs::remove_dir_all(&dir).unwrap();
}
