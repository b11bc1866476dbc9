//! What `check`, `stats`, `verdict`, `watch` and `tree` report: drift per
//! version, runs, verdicts and costs, exit codes, `--prune`, the human
//! tables, `--since/--until`, `--by block` and `--breakdown`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::run::{cctape, cctape_stdin};
use crate::{STREAMS, big_file, json, stdout, stream, temp_dir};

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

/// A number its field does not take is a finding in a transcript's record
/// as in a stream's event, with the same detail: a fractional count, and
/// (a transcript's own field) a `costUSD` that is a string.
#[test]
fn check_finds_an_unusual_number_in_both_dialects() {
    let dir = temp_dir("check-numbers");
    let message = r#""message":{"id":"m1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":10,"output_tokens":1.5}}"#;
    let stream = dir.join("s.jsonl");
    std::fs::write(
        &stream,
        format!(
            "{{\"type\":\"assistant\",{message},\"parent_tool_use_id\":null,\"session_id\":\"s1\",\"uuid\":\"u1\"}}\n"
        ),
    )
    .expect("write");
    let projects = dir.join("t").join(".claude").join("projects").join("p");
    std::fs::create_dir_all(&projects).expect("mkdir");
    std::fs::write(
        projects.join("s1.jsonl"),
        format!(
            "{{\"type\":\"assistant\",\"sessionId\":\"s1\",\"uuid\":\"u1\",\"timestamp\":\"2026-03-01T10:00:00Z\",\"isSidechain\":false,\"costUSD\":\"0.1\",{message}}}\n"
        ),
    )
    .expect("write");
    let findings = |path: &std::path::Path| -> Vec<String> {
        let out = cctape(&["check", "--json", path.to_str().expect("path")]);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
        let mut d: Vec<String> = v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["category"] == "unexpected_type")
            .map(|f| f["detail"].as_str().expect("detail").to_string())
            .collect();
        d.sort();
        d
    };
    let count = "message.usage.output_tokens (is Number: fractional, 1.5)";
    assert_eq!(findings(&stream), [count]);
    assert_eq!(
        findings(&dir.join("t").join(".claude").join("projects")),
        ["costUSD (is String)", count]
    );
}
