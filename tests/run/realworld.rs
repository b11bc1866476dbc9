//! The accounting over every real capture (issue 11), unusual numbers,
//! exit codes, partial reassembly and run time.

use cctape::run::{Verdict, WARN_EXIT_CODE, WARN_PARTIAL_MISMATCH, runs_of_slice};
use std::path::{Path, PathBuf};

use crate::{corpus, one};

// --- the accounting over every real capture (issue 11) ----------------------------

fn realworld_files() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if !dir.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld not found and CI is set"
        );
        println!("skipped: ../shared/realworld not found");
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x != "md" && x != "tsv") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}

/// One run as serde_json reads it: its objects in order (runs split as the
/// run layer documents: by session_id, a line without one joining the run
/// of the line before).
fn serde_runs(bytes: &[u8]) -> Vec<(String, Vec<serde_json::Value>)> {
    let mut runs: Vec<(String, Vec<serde_json::Value>)> = Vec::new();
    let mut cur: Option<usize> = None;
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        if !v.is_object() || !v["type"].is_string() {
            continue;
        }
        let sid = v["session_id"].as_str().map(str::to_string);
        let i = match (sid, cur) {
            (None, Some(i)) => i,
            (None, None) => {
                runs.push((String::new(), Vec::new()));
                runs.len() - 1
            }
            (Some(s), _) => match runs.iter().position(|r| r.0 == s) {
                Some(i) => i,
                None => match cur {
                    Some(i) if runs[i].0.is_empty() => {
                        runs[i].0 = s;
                        i
                    }
                    _ => {
                        runs.push((s, Vec::new()));
                        runs.len() - 1
                    }
                },
            },
        };
        cur = Some(i);
        runs[i].1.push(v);
    }
    runs
}

/// For every run with one result carrying `usage`, in both folders: with
/// partial messages, the main agent's output tokens are the sum of the
/// final per-call figures (each call's last `message_delta`); without, they
/// are the result's `usage.output_tokens`, except where the documented rule
/// `results_and_complete_calls` applies, whose identity (result + whole
/// calls = the main model's modelUsage, on all four counts) is checked here
/// with serde_json. Counts come from serde_json, not from cctape.
#[test]
fn realworld_main_output_tokens_follow_the_documented_rules() {
    let Some(files) = realworld_files() else {
        return;
    };
    let (mut partial_runs, mut plain_runs, mut exceptions) = (0, 0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let ours = runs_of_slice(&bytes);
        for (sid, objs) in serde_runs(&bytes) {
            let results: Vec<&serde_json::Value> =
                objs.iter().filter(|o| o["type"] == "result").collect();
            if results.len() != 1 || !results[0]["usage"].is_object() {
                continue;
            }
            let name = format!("{} {sid}", path.display());
            let r = ours
                .iter()
                .find(|r| r.session_id.as_deref().unwrap_or("") == sid)
                .unwrap_or_else(|| panic!("{name}: no run"));
            let main = |o: &serde_json::Value| o["parent_tool_use_id"].is_null();
            let partial = objs.iter().any(|o| o["type"] == "stream_event" && main(o));
            let reported = results[0]["usage"]["output_tokens"].as_u64().unwrap_or(0);
            if partial {
                // message_delta after each message_start: the call's final count.
                let mut finals: Vec<(String, u64)> = Vec::new();
                let mut open = String::new();
                for o in objs
                    .iter()
                    .filter(|o| o["type"] == "stream_event" && main(o))
                {
                    let e = &o["event"];
                    match e["type"].as_str() {
                        Some("message_start") => {
                            open = e["message"]["id"].as_str().unwrap_or("").to_string();
                        }
                        Some("message_delta") => {
                            if let Some(n) = e["usage"]["output_tokens"].as_u64() {
                                match finals.iter_mut().find(|f| f.0 == open) {
                                    Some(f) => f.1 = n,
                                    None => finals.push((open.clone(), n)),
                                }
                            }
                        }
                        _ => {}
                    }
                }
                let sum: u64 = finals.iter().map(|f| f.1).sum();
                assert_eq!(r.usage.main.tokens.output_tokens, sum, "{name}");
                assert_eq!(
                    r.usage.main.source,
                    cctape::run::TokenSource::FinalCalls,
                    "{name}"
                );
                partial_runs += 1;
            } else if r.usage.main.source == cctape::run::TokenSource::ResultsAndCompleteCalls {
                // The documented exception: whole messages (stop_reason set)
                // left out of the result's usage.
                let mut whole: Vec<(String, [u64; 4])> = Vec::new();
                for o in objs.iter().filter(|o| o["type"] == "assistant" && main(o)) {
                    let m = &o["message"];
                    if m["stop_reason"].is_string() && m["model"] != "<synthetic>" {
                        let u = &m["usage"];
                        let f = |k: &str| u[k].as_u64().unwrap_or(0);
                        let t = [
                            f("input_tokens"),
                            f("output_tokens"),
                            f("cache_read_input_tokens"),
                            f("cache_creation_input_tokens"),
                        ];
                        let id = m["id"].as_str().unwrap_or("").to_string();
                        match whole.iter_mut().find(|w| w.0 == id) {
                            Some(w) => w.1 = t,
                            None => whole.push((id, t)),
                        }
                    }
                }
                let u = &results[0]["usage"];
                let mu = results[0]["modelUsage"].as_object().expect("modelUsage");
                assert_eq!(mu.len(), 1, "{name}: one model");
                let e = mu.values().next().unwrap();
                for (i, (rk, mk)) in [
                    ("input_tokens", "inputTokens"),
                    ("output_tokens", "outputTokens"),
                    ("cache_read_input_tokens", "cacheReadInputTokens"),
                    ("cache_creation_input_tokens", "cacheCreationInputTokens"),
                ]
                .into_iter()
                .enumerate()
                {
                    let sum =
                        u[rk].as_u64().unwrap_or(0) + whole.iter().map(|w| w.1[i]).sum::<u64>();
                    assert_eq!(sum, e[mk].as_u64().unwrap_or(0), "{name}: {rk}");
                }
                let whole_out: u64 = whole.iter().map(|w| w.1[1]).sum();
                assert_eq!(
                    r.usage.main.tokens.output_tokens,
                    reported + whole_out,
                    "{name}"
                );
                exceptions += 1;
            } else {
                assert_eq!(r.usage.main.tokens.output_tokens, reported, "{name}");
                plain_runs += 1;
            }
        }
    }
    // Both kinds are there in numbers (counted from the captures).
    assert!(
        partial_runs >= 6,
        "{partial_runs} runs with partial messages"
    );
    assert!(plain_runs >= 25, "{plain_runs} runs without");
    assert_eq!(exceptions, 3, "marquex mp9xlpds, stream.jsonl, mp9xlpc0");
}

/// Numbers keep their value and say what is unusual about them: the real
/// `num_turns: -1` (wave2 peer fixture, line 4), a cost beyond f64, token
/// counts that are negative or beyond u64 (not dropped silently).
#[test]
fn unusual_numbers_are_kept_and_warned_about() {
    use cctape::run::WARN_UNUSUAL_NUMBER;
    if let Some(files) = realworld_files() {
        let path = files
            .iter()
            .find(|p| {
                p.to_string_lossy()
                    .contains("claude-codes-test_cases@8e7b091.ndjson")
            })
            .expect("the peer fixture");
        let bytes = std::fs::read(path).unwrap();
        let line4: &[u8] = bytes.split(|&b| b == b'\n').nth(3).unwrap();
        let serde: serde_json::Value = serde_json::from_slice(line4).unwrap();
        assert_eq!(serde["num_turns"], -1);
        let r = runs_of_slice(line4);
        let last = r[0].last_result.as_ref().unwrap();
        assert_eq!(last.num_turns, Some(-1));
        assert!(r[0].has_warning(WARN_UNUSUAL_NUMBER));
        assert_eq!(r[0].to_json()["num_turns"], -1);
    }
    let input = br#"{"type":"assistant","message":{"id":"m1","model":"x","content":[],"usage":{"input_tokens":-3,"output_tokens":18446744073709551616}},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"result":"ok","num_turns":2.5,"total_cost_usd":1e400,"usage":{"input_tokens":1,"output_tokens":2},"session_id":"s"}
"#;
    let r = runs_of_slice(input);
    let messages: Vec<&str> = r[0]
        .warnings
        .iter()
        .filter(|w| w.code == WARN_UNUSUAL_NUMBER)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "input_tokens -3 is not a token count (0 used)",
            "output_tokens 18446744073709551616 is not a token count (0 used)",
            "num_turns 2.5 is not an integer of i64 (not kept)",
            "total_cost_usd 1e400 is beyond f64: kept as written, not summed",
        ]
    );
    assert_eq!(r[0].cost.total_cost_usd, None);
    let j = r[0].to_json();
    assert_eq!(j["total_cost_usd"], "1e400", "as written, never null");
    let mut t = cctape::run::RunTotals::new();
    t.add(&r[0]);
    assert_eq!(t.costs_not_summed, 1);
}

/// A failed run whose process exited 0 is a warning, as a success with a
/// non-zero exit code is.
#[test]
fn failed_run_with_exit_code_zero_is_a_warning() {
    use cctape::run::WARN_FAILED_EXIT_ZERO;
    let mut r = one("run/verdict-max-turns-is-error-false.jsonl");
    r.apply_exit_code(0);
    assert_eq!(r.verdict, Verdict::MaxTurns);
    assert!(r.has_warning(WARN_FAILED_EXIT_ZERO));
    let mut ok = one("run/verdict-success.jsonl");
    ok.apply_exit_code(0);
    assert!(!ok.has_warning(WARN_FAILED_EXIT_ZERO));
    ok.apply_exit_code(1);
    assert!(ok.has_warning(WARN_EXIT_CODE));
}

/// The CLI rewrites tool inputs after streaming them (Edit gains
/// `replace_all: false`, `cd <dir> && X` ends as `X`): no false alarm on
/// the real files that show it, and a real difference still warns.
#[test]
fn partial_reassembly_modulo_the_cli_rewrites() {
    if let Some(files) = realworld_files() {
        let mut normalized = 0;
        for p in files.iter().filter(|p| {
            let s = p.to_string_lossy();
            s.contains("spaxel-v1ep") || s.contains("adc-3lj") || s.contains("mta-my-way-41i")
        }) {
            for r in runs_of_slice(&std::fs::read(p).unwrap()) {
                let part = r.partial.as_ref().expect("partial messages");
                assert!(
                    part.mismatches.is_empty(),
                    "{}: {:?}",
                    p.display(),
                    part.mismatches
                );
                assert!(!r.has_warning(WARN_PARTIAL_MISMATCH));
                normalized += part.normalized;
            }
        }
        // 9 in spaxel v1ep (8 Bash cd, 1 Edit), 3 in adc-3lj, 2 in 41i,
        // counted with a Python reassembly of the same files.
        assert_eq!(normalized, 14);
    }
    let r = one("run/partial-mismatch.jsonl");
    assert!(r.has_warning(WARN_PARTIAL_MISMATCH));
}

/// Run-level time: wall time from the first timestamp to the last, the
/// rounds' durations summed beside the last round's.
#[test]
fn run_time_is_wall_time_and_the_sum_of_rounds() {
    let r = one("run/rounds-result-index.jsonl");
    let bytes = std::fs::read(corpus("run/rounds-result-index.jsonl")).unwrap();
    let mut durations = Vec::new();
    let mut stamps = Vec::new();
    for l in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: serde_json::Value = serde_json::from_slice(l).unwrap();
        if v["type"] == "result" {
            durations.push(v["duration_ms"].as_i64().unwrap());
        }
        if let Some(t) = v["timestamp"].as_str() {
            stamps.push(t.to_string());
        }
    }
    assert_eq!(durations.len(), 2);
    assert_eq!(r.duration_ms_sum, Some(durations.iter().sum()));
    assert_eq!(
        r.last_result.as_ref().unwrap().duration_ms,
        Some(durations[1])
    );
    assert_eq!(r.started_at.as_deref(), stamps.first().map(String::as_str));
    assert_eq!(r.ended_at.as_deref(), stamps.last().map(String::as_str));
}
