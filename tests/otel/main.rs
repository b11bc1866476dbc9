//! `cctape otel`: the OTLP it writes and sends, checked against what
//! `cctape verdict --json` says of the same inputs (the real captures of
//! `../shared/realworld` and a generated transcript tree): spans per run
//! (one `invoke_agent` per run and per subagent, a `chat` per model call,
//! an `execute_tool` per tool call, ERROR on the failed ones), their
//! tokens, the metrics; ids that do not change from one reading to the
//! next; the files replaced atomically; retries, drops and an unreachable
//! receiver against small HTTP servers run by the test; and a real
//! receiver, Arize Phoenix, started by the test when it is installed.

use serde_json::Value as J;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../../examples/gentranscripts.rs"]
mod gentranscripts;

#[path = "../support/scratch.rs"]
mod scratch;

mod phoenix;
mod send;

const REALWORLD: &str = "../shared/realworld";

fn cctape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run cctape")
}

/// A generated transcript tree (3 projects of 3 sessions, subagents
/// included), as tests/snapshots.rs makes it.
fn transcript_tree(dir: &Path) -> PathBuf {
    let opts = gentranscripts::Opts {
        projects: 3,
        sessions: 3,
        turns: 6,
        seed: 11,
    };
    gentranscripts::generate(dir, &opts).expect("generate a tree");
    dir.join(".claude/projects")
}

/// `verdict --json`'s records of the runs that have events.
fn verdicts(path: &Path) -> Vec<J> {
    let o = cctape(&["verdict", "--json", "-s", path.to_str().unwrap()]);
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<J>(l).unwrap())
        .filter(|r| r["events"].as_u64().unwrap_or(0) > 0)
        .collect()
}

fn attr<'a>(attrs: &'a J, key: &str) -> Option<&'a J> {
    attrs
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

fn attr_str<'a>(attrs: &'a J, key: &str) -> Option<&'a str> {
    attr(attrs, key)?["stringValue"].as_str()
}

/// An OTLP/JSON integer (a string, as the mapping writes 64-bit ones).
fn attr_int(attrs: &J, key: &str) -> u64 {
    attr(attrs, key)
        .and_then(|v| v["intValue"].as_str())
        .map_or(0, |s| s.parse().unwrap())
}

/// Each run's resource spans, in order, from `traces.jsonl`: the parts of
/// a run split across requests (lines) joined again, as a receiver sees
/// them (the same resource and scope, one after the other).
fn resource_spans(dir: &Path) -> Vec<J> {
    let text = std::fs::read_to_string(dir.join("traces.jsonl")).expect("traces.jsonl");
    let mut runs: Vec<J> = Vec::new();
    for l in text.lines() {
        let v: J = serde_json::from_str(l).unwrap();
        for rs in v["resourceSpans"].as_array().unwrap() {
            match runs.last_mut() {
                Some(last) if last["resource"] == rs["resource"] => {
                    let scopes = last["scopeSpans"].as_array_mut().unwrap();
                    for sc in rs["scopeSpans"].as_array().unwrap() {
                        match scopes.last_mut() {
                            Some(l) if l["scope"] == sc["scope"] => l["spans"]
                                .as_array_mut()
                                .unwrap()
                                .extend(sc["spans"].as_array().unwrap().iter().cloned()),
                            _ => scopes.push(sc.clone()),
                        }
                    }
                }
                _ => runs.push(rs.clone()),
            }
        }
    }
    runs
}

/// The spans of each line of `traces.jsonl`, and the runs' points of each
/// line of `metrics.jsonl`.
fn per_line(dir: &Path) -> (Vec<usize>, Vec<usize>) {
    let lines = |name: &str, key: &str| -> Vec<J> {
        let text = std::fs::read_to_string(dir.join(name)).expect(name);
        text.lines()
            .map(|l| serde_json::from_str::<J>(l).unwrap()[key].clone())
            .collect()
    };
    let spans = lines("traces.jsonl", "resourceSpans")
        .iter()
        .map(|rs| {
            rs.as_array()
                .unwrap()
                .iter()
                .map(|r| spans_of(r).len())
                .sum()
        })
        .collect();
    let runs = lines("metrics.jsonl", "resourceMetrics")
        .iter()
        .map(|rm| rm.as_array().unwrap().len())
        .collect();
    (spans, runs)
}

fn spans_of(rs: &J) -> Vec<J> {
    rs["scopeSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["spans"].as_array().unwrap().clone())
        .collect()
}

fn op(span: &J) -> &str {
    span["name"].as_str().unwrap().split(' ').next().unwrap()
}

fn tokens(v: &J, key: &str) -> u64 {
    v[key].as_u64().unwrap_or(0)
}

/// What a verdict record says the spans must be.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Expect {
    agents: u64,
    chats: u64,
    tools: u64,
    tool_errors: u64,
    /// Output and cache-read tokens of the calls (chat spans).
    call_output: u64,
    call_cache_read: u64,
    /// The run's best output figure (its root span).
    run_output: u64,
    /// Subagent spans whose status says something (`cctape.status`, or a
    /// failed call), checked against verdict's node.
    subagents_said: u64,
}

fn expect_of(r: &J) -> Expect {
    let u = &r["usage"];
    let calls = |who: &str| &u[who]["figures"]["calls"];
    let tools = r["tools"].as_object().cloned().unwrap_or_default();
    Expect {
        agents: 1 + r["subagent_count"].as_u64().unwrap(),
        chats: tokens(&u["main"], "messages") + tokens(&u["subagents"], "messages"),
        tools: tools.values().map(|t| tokens(t, "calls")).sum(),
        tool_errors: tools
            .values()
            .map(|t| tokens(t, "errors") + tokens(t, "rejections"))
            .sum(),
        call_output: tokens(calls("main"), "output_tokens")
            + tokens(calls("subagents"), "output_tokens"),
        call_cache_read: tokens(calls("main"), "cache_read_input_tokens")
            + tokens(calls("subagents"), "cache_read_input_tokens"),
        run_output: tokens(&u["main"], "output_tokens") + tokens(&u["subagents"], "output_tokens"),
        subagents_said: 0,
    }
}

/// Each subagent's span says its node's `status` (`cctape.status`) and
/// its call's failed result (an error status), as `verdict --json` says
/// them, in both dialects; how many said either.
fn subagents_as_verdict_says(spans: &[J], r: &J) -> u64 {
    fn nodes<'a>(list: &'a J, out: &mut Vec<&'a J>) {
        for n in list.as_array().into_iter().flatten() {
            out.push(n);
            nodes(&n["children"], out);
        }
    }
    let mut all = Vec::new();
    nodes(&r["subagents"], &mut all);
    let mut said = 0;
    for s in spans
        .iter()
        .filter(|s| op(s) == "invoke_agent" && s["parentSpanId"] != "")
    {
        let a = &s["attributes"];
        let (id, call) = (
            attr_str(a, "gen_ai.agent.id"),
            attr_str(a, "gen_ai.tool.call.id"),
        );
        let node = all
            .iter()
            .find(|n| id.is_some() && n["task_id"].as_str() == id)
            .or_else(|| {
                all.iter()
                    .find(|n| call.is_some() && n["tool_use_id"].as_str() == call)
            })
            .unwrap_or_else(|| panic!("no node for {s}"));
        let status = attr_str(a, "cctape.status");
        let failed = s["status"]["code"] == 2;
        assert_eq!(status, node["status"].as_str(), "{s}");
        assert_eq!(failed, node["result_error"] == true, "{s}");
        said += u64::from(status.is_some() || failed);
    }
    said
}

/// What the spans of one run are, counted as [`Expect`] counts.
fn found_of(spans: &[J]) -> Expect {
    let mut e = Expect::default();
    for s in spans {
        let a = &s["attributes"];
        match op(s) {
            "invoke_agent" => {
                e.agents += 1;
                if s["parentSpanId"] == "" {
                    e.run_output = attr_int(a, "gen_ai.usage.output_tokens");
                }
            }
            "chat" => {
                e.chats += 1;
                e.call_output += attr_int(a, "gen_ai.usage.output_tokens");
                e.call_cache_read += attr_int(a, "gen_ai.usage.cache_read.input_tokens");
                // The convention's input count holds the cache parts.
                assert_eq!(
                    attr_int(a, "gen_ai.usage.input_tokens"),
                    attr_int(a, "cctape.usage.input_tokens")
                        + attr_int(a, "gen_ai.usage.cache_read.input_tokens")
                        + attr_int(a, "gen_ai.usage.cache_creation.input_tokens"),
                    "{s}"
                );
                assert!(attr_str(a, "gen_ai.request.model").is_some(), "{s}");
                assert!(attr_str(a, "gen_ai.response.model").is_some(), "{s}");
            }
            "execute_tool" => {
                e.tools += 1;
                assert!(attr_str(a, "gen_ai.tool.name").is_some(), "{s}");
                if s["status"]["code"] == 2 {
                    e.tool_errors += 1;
                    assert!(attr_str(a, "error.type").is_some(), "{s}");
                }
            }
            other => panic!("a span named {other}: {s}"),
        }
    }
    e
}

/// Each span's parent is in its trace, its end not before its start, and a
/// parent covers its children.
fn check_tree(spans: &[J]) {
    let by_id: HashMap<&str, &J> = spans
        .iter()
        .map(|s| (s["spanId"].as_str().unwrap(), s))
        .collect();
    let t = |s: &J, k: &str| s[k].as_str().unwrap().parse::<u64>().unwrap();
    let mut roots = 0;
    for s in spans {
        assert!(t(s, "endTimeUnixNano") >= t(s, "startTimeUnixNano"), "{s}");
        let p = s["parentSpanId"].as_str().unwrap();
        if p.is_empty() {
            roots += 1;
            continue;
        }
        let parent = by_id.get(p).unwrap_or_else(|| panic!("no parent for {s}"));
        assert_eq!(parent["traceId"], s["traceId"]);
        assert!(
            t(parent, "startTimeUnixNano") <= t(s, "startTimeUnixNano"),
            "{s}"
        );
        assert!(
            t(parent, "endTimeUnixNano") >= t(s, "endTimeUnixNano"),
            "{s}"
        );
    }
    assert_eq!(roots, 1, "one root span per run");
}

/// `otel --out DIR` over PATH, each run's spans against its verdict.
fn check_against_verdict(path: &Path, out: &Path) -> (usize, Expect) {
    check_against_verdict_with(path, out, &[])
}

/// [`check_against_verdict`] with more options.
fn check_against_verdict_with(path: &Path, out: &Path, more: &[&str]) -> (usize, Expect) {
    let mut args = vec!["otel", "-s", "--out", out.to_str().unwrap()];
    args.extend(more);
    args.push(path.to_str().unwrap());
    let o = cctape(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let records = verdicts(path);
    let runs = resource_spans(out);
    assert_eq!(
        records.len(),
        runs.len(),
        "one resource per run with events"
    );
    let mut total = Expect::default();
    for (r, rs) in records.iter().zip(&runs) {
        let res = &rs["resource"]["attributes"];
        assert_eq!(
            attr_str(res, "cctape.input"),
            r["file"].as_str(),
            "the same run"
        );
        assert_eq!(attr_str(res, "session.id"), r["session_id"].as_str());
        assert_eq!(
            attr_str(res, "service.version"),
            r["claude_code_version"].as_str()
        );
        let spans = spans_of(rs);
        check_tree(&spans);
        let found = found_of(&spans);
        assert_eq!(found, expect_of(r), "{}", r["file"]);
        total.subagents_said += subagents_as_verdict_says(&spans, r);
        total.agents += found.agents;
        total.chats += found.chats;
        total.tools += found.tools;
        total.tool_errors += found.tool_errors;
        total.call_output += found.call_output;
    }
    // Metrics: one session per run; output tokens by model as verdict's
    // rows per model and role.
    let text = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let mut sessions = 0;
    let mut output: u64 = 0;
    for l in text.lines() {
        let v: J = serde_json::from_str(l).unwrap();
        for rm in v["resourceMetrics"].as_array().unwrap() {
            for m in rm["scopeMetrics"][0]["metrics"].as_array().unwrap() {
                let points = m["sum"]["dataPoints"].as_array().unwrap();
                assert_eq!(m["sum"]["isMonotonic"], true);
                match m["name"].as_str().unwrap() {
                    "claude_code.session.count" => sessions += points.len(),
                    "claude_code.token.usage" => {
                        assert_eq!(m["unit"], "tokens");
                        for p in points {
                            if attr_str(&p["attributes"], "type") == Some("output") {
                                output += p["asInt"].as_str().unwrap().parse::<u64>().unwrap();
                            }
                        }
                    }
                    "claude_code.cost.usage" => assert_eq!(m["unit"], "USD"),
                    other => panic!("metric {other}"),
                }
            }
        }
    }
    assert_eq!(sessions, records.len());
    let by_role_output: u64 = records
        .iter()
        .flat_map(|r| {
            r["usage"]["by_role"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|row| tokens(&row, "output_tokens"))
        .sum();
    assert_eq!(output, by_role_output);
    (records.len(), total)
}

#[test]
fn out_dir_spans_are_verdicts_calls_on_real_captures() {
    let dir = scratch::scratch("otel-real");
    let (runs, total) = check_against_verdict(Path::new(REALWORLD), &dir.join("o"));
    // The captures have runs, calls, tool errors and subagents.
    assert!(runs > 100, "{runs}");
    assert!(total.chats > 500 && total.tools > 500, "{total:?}");
    assert!(total.tool_errors > 10, "{total:?}");
    assert!(total.agents > runs as u64, "{total:?}");
    // Subagents with a status or a failed call, streams' and the two
    // transcripts' with an Agent result (`completed`).
    assert!(total.subagents_said > 2, "{total:?}");
}

/// A request (a line of `--out`) holds at most `--otlp-max-spans` spans
/// and `--otlp-batch` runs' points: a long run is split across lines, and
/// joined again it is the run whole, its spans the verdict's calls.
#[test]
fn out_dir_lines_hold_at_most_the_spans_and_runs_asked_for() {
    let dir = scratch::scratch("otel-split");
    let whole = dir.join("whole");
    let (runs, total) = check_against_verdict(Path::new(REALWORLD), &whole);
    let split = dir.join("split");
    let more = ["--otlp-max-spans", "5", "--otlp-batch", "3"];
    let (runs_split, total_split) = check_against_verdict_with(Path::new(REALWORLD), &split, &more);
    assert_eq!((runs, &total), (runs_split, &total_split));
    assert_eq!(resource_spans(&whole), resource_spans(&split));
    let (spans, points) = per_line(&split);
    assert!(spans.iter().all(|&n| (1..=5).contains(&n)), "{spans:?}");
    assert!(points.iter().all(|&n| (1..=3).contains(&n)), "{points:?}");
    // The default: 512 spans a line at most; the same spans in all.
    let (whole_spans, _) = per_line(&whole);
    assert!(whole_spans.iter().all(|&n| n <= 512), "{whole_spans:?}");
    let sum = |v: &[usize]| v.iter().sum::<usize>();
    assert_eq!(sum(&spans), sum(&whole_spans));
    assert!(spans.len() > whole_spans.len() * 2, "{} lines", spans.len());
}

#[test]
fn out_dir_spans_are_verdicts_calls_on_a_transcript_tree() {
    let dir = scratch::scratch("otel-tree");
    let tree = transcript_tree(&dir);
    let (runs, total) = check_against_verdict(&tree, &dir.join("o"));
    assert_eq!(runs, 9, "{total:?}");
    assert!(total.chats > 9 && total.tools > 9, "{total:?}");
    assert!(total.agents > 9, "subagents: {total:?}");
}

/// The same archive gives the same bytes: ids, times and order do not
/// depend on the reading (`--jobs`) or on when it runs.
#[test]
fn ids_are_derived_from_the_events() {
    let dir = scratch::scratch("otel-ids");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for (out, jobs) in [(&a, "1"), (&b, "0")] {
        let o = cctape(&[
            "otel",
            "-s",
            "-j",
            jobs,
            "--out",
            out.to_str().unwrap(),
            REALWORLD,
        ]);
        assert_eq!(o.status.code(), Some(0));
    }
    for f in ["traces.jsonl", "metrics.jsonl"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    // Trace ids are the session's: two runs of one session share one.
    let spans: Vec<J> = resource_spans(&a).iter().flat_map(spans_of).collect();
    let ids: HashSet<(&str, &str)> = spans
        .iter()
        .map(|s| {
            (
                s["traceId"].as_str().unwrap(),
                s["spanId"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(ids.iter().all(|(t, s)| t.len() == 32 && s.len() == 16));
    assert!(ids.len() > 1000, "{}", ids.len());
}

#[test]
fn out_dir_is_replaced_whole_or_not_at_all() {
    let dir = scratch::scratch("otel-atomic");
    let out = dir.join("o");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("traces.jsonl"), "old\n").unwrap();
    std::fs::write(out.join("keep.txt"), "mine\n").unwrap();
    let ok = "corpus/streams/success-basic.jsonl";
    let o = cctape(&["otel", "--out", out.to_str().unwrap(), ok]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(out.join("traces.jsonl")).unwrap();
    assert!(text.starts_with("{\"resourceSpans\""), "{text}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["keep.txt", "metrics.jsonl", "traces.jsonl"]);
    // A folder that cannot be made: exit 2 with the reason, nothing left.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = cctape(&["otel", "--out", file.join("sub").to_str().unwrap(), ok]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--out"),
        "{o:?}"
    );
    // Neither --out nor --otlp: a usage error.
    assert_eq!(cctape(&["otel", ok]).status.code(), Some(2));
}
