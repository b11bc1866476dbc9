//! `cctape verdict` end to end: the built binary over corpus/run,
//! corpus/streams and every file of ../shared/realworld, with the verdicts
//! the realworld README describes, exit codes and `--exit-code`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Out {
    code: i32,
    runs: Vec<Value>,
}

fn verdict(args: &[&str], files: &[&Path]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .arg("verdict")
        .args(args)
        .args(files)
        .stdin(Stdio::null())
        .output()
        .expect("run cctape");
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    let runs = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {e}: {l}")))
        .collect();
    Out {
        code: out.status.code().expect("exit code"),
        runs,
    }
}

fn verdicts(o: &Out) -> Vec<&str> {
    o.runs
        .iter()
        .map(|r| r["verdict"].as_str().unwrap_or("null"))
        .collect()
}

fn check(path: &Path, want: &[&str], code: i32) -> Out {
    let o = verdict(&[], &[path]);
    assert_eq!(verdicts(&o), want, "{}", path.display());
    assert_eq!(o.code, code, "exit code of {}", path.display());
    for r in &o.runs {
        assert_eq!(r["file"], path.display().to_string());
        let ok = r["verdict"] == "success" || r["verdict"] == "ended";
        assert_eq!(r["ok"], ok);
        for key in [
            "session_id",
            "results",
            "is_error",
            "subtype",
            "terminal_reason",
            "num_turns",
            "duration_ms",
            "total_cost_usd",
            "result_text",
            "usage",
            "tools",
            "subagents",
            "api_retries",
            "permission_denials",
            "warnings",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {}", path.display());
        }
        for key in [
            "messages",
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ] {
            assert!(r["usage"]["main"][key].is_u64(), "usage.main.{key}");
            assert!(
                r["usage"]["subagents"][key].is_u64(),
                "usage.subagents.{key}"
            );
        }
        assert!(r["usage"]["by_model"].is_object());
    }
    o
}

/// serde_json reads floats without correct rounding (no `float_roundtrip`
/// feature here): compare costs with a tolerance.
fn approx(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or(f64::NAN);
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{got} != {want}"
    );
}

fn warning_codes(r: &Value) -> Vec<&str> {
    r["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(|w| w["code"].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn corpus_run_streams() {
    let d = root().join("corpus/run");
    let c = |name: &str, want: &[&str], code| check(&d.join(name), want, code);
    c("runs-by-session.jsonl", &["success", "success"], 0);
    c("rounds-result-index.jsonl", &["success"], 0);
    c("leading-lines-without-session.jsonl", &["success"], 0);
    c("last-result-decides.jsonl", &["error"], 1);
    c("verdict-success.jsonl", &["success"], 0);
    c("verdict-max-turns-is-error-false.jsonl", &["max_turns"], 1);
    c("verdict-max-budget.jsonl", &["max_budget"], 1);
    c("verdict-interrupted-aborted.jsonl", &["interrupted"], 1);
    c("verdict-interrupted-message.jsonl", &["interrupted"], 1);
    c("verdict-error-during-execution.jsonl", &["error"], 1);
    c("verdict-unknown-subtype.jsonl", &["error"], 1);
    c("verdict-success-is-error.jsonl", &["error"], 1);
    c("verdict-no-result.jsonl", &["no_result"], 1);
    c("verdict-legacy-no-subtype.jsonl", &["success", "error"], 1);
    // No events: one run of its own, a startup_failure record (issue 11)
    // when nothing else says how it went.
    c("empty.jsonl", &["startup_failure"], 1);
    // The public record past the reference (issue 22 item 21).
    let f = c(
        "verdict-startup-failure-reason.jsonl",
        &["startup_failure"],
        1,
    );
    assert_eq!(f.runs[0]["startup_failure_reason"], "cwd_unavailable");
    assert_eq!(f.runs[0]["verdict_source"], "result");
    let l = c("rounds-lost-result.jsonl", &["success"], 0);
    assert_eq!(warning_codes(&l.runs[0]), ["lost_result"]);
    c("system-newer-subtypes.jsonl", &["success"], 0);
    let t = c("tools-server.jsonl", &["success"], 0);
    assert_eq!(t.runs[0]["tools"]["web_fetch"]["errors"], 1);
    assert_eq!(t.runs[0]["tools"]["web_search"]["calls"], 1);
    let w = c("warn-success-stop-tool-use.jsonl", &["success"], 0);
    assert_eq!(warning_codes(&w.runs[0]), ["success_stop_reason_tool_use"]);
    let w = c("warn-success-empty-result.jsonl", &["success"], 0);
    assert_eq!(warning_codes(&w.runs[0]), ["success_empty_result"]);
    let w = c("warn-truncated-line.jsonl", &["success"], 0);
    assert_eq!(warning_codes(&w.runs[0]), ["truncated_line"]);
    c("usage-dedup-message-id.jsonl", &["success"], 0);
    c("usage-main-vs-subagent.jsonl", &["success"], 0);
    c("usage-synthetic-not-usage.jsonl", &["error"], 1);
    c("usage-reconcile-mismatch.jsonl", &["success"], 0);
    c("cost-model-usage-auxiliary.jsonl", &["success"], 0);
    let w = c("cost-mismatch.jsonl", &["success"], 0);
    assert_eq!(warning_codes(&w.runs[0]), ["cost_mismatch"]);
    c("cost-legacy-fields.jsonl", &["success"], 0);
    c("tools-pairing-any-order.jsonl", &["success"], 0);
    let t = c("tools-errors.jsonl", &["success"], 0);
    assert_eq!(t.runs[0]["tools"]["Bash"]["calls"], 3);
    assert_eq!(t.runs[0]["tools"]["Bash"]["errors"], 2);
    c("tools-rejections.jsonl", &["success"], 0);
    c("tools-unanswered.jsonl", &["interrupted"], 1);
    c("subagents-nested.jsonl", &["success"], 0);
    c(
        "subagents-workflow-and-stats-mismatch.jsonl",
        &["success"],
        0,
    );
    c("api-retry.jsonl", &["success"], 0);
    c("hooks-and-notification.jsonl", &["success"], 0);
    c("partial-incomplete-block.jsonl", &["no_result"], 1);
    c("partial-mismatch.jsonl", &["success"], 0);
}

#[test]
fn corpus_streams_match_their_readme() {
    let d = root().join("corpus/streams");
    let c = |name: &str, want: &[&str], code| check(&d.join(name), want, code);
    c("success-basic.jsonl", &["success"], 0);
    c("two-subagents.jsonl", &["success"], 0);
    c("interrupted.jsonl", &["interrupted"], 1);
    c("max-turns.jsonl", &["max_turns"], 1);
    c("api-error.jsonl", &["error"], 1);
    c("no-result.jsonl", &["no_result"], 1);
    c("partial-messages.jsonl", &["success"], 0);
    c("background-task.jsonl", &["success"], 0);
    c("tool-errors.jsonl", &["success"], 0);
    c("hooks.jsonl", &["success"], 0);
    let m = c("mixed-bad.jsonl", &["success"], 0);
    approx(&m.runs[0]["total_cost_usd"], 0.026874);
    assert_eq!(m.runs[0]["bad_lines"], 5);
}

#[test]
fn exit_code_option_and_several_inputs() {
    let d = root().join("corpus/run");
    let ok = d.join("verdict-success.jsonl");
    let o = verdict(&["--exit-code", "1"], &[&ok]);
    assert_eq!(verdicts(&o), ["error"]);
    assert_eq!(o.runs[0]["stream_verdict"], "success");
    assert_eq!(o.runs[0]["exit_code"], 1);
    assert_eq!(o.code, 1);
    let o = verdict(&["--exit-code", "0"], &[&ok]);
    assert_eq!((verdicts(&o), o.code), (vec!["success"], 0));
    let empty = d.join("empty.jsonl");
    let o = verdict(&["--exit-code", "1"], &[&empty]);
    assert_eq!((verdicts(&o), o.code), (vec!["startup_failure"], 1));
    // Several inputs: one line per run, the worst exit code wins.
    let maxt = d.join("verdict-max-turns-is-error-false.jsonl");
    let o = verdict(&[], &[&ok, &maxt]);
    assert_eq!((verdicts(&o), o.code), (vec!["success", "max_turns"], 1));
    // No result is "not ok" (1); 2 is for usage errors and unreadable
    // inputs only (issue 11: exit codes as grep and diff use them).
    let none = d.join("verdict-no-result.jsonl");
    let o = verdict(&[], &[&ok, &maxt, &none]);
    assert_eq!(o.code, 1);
    // An input that cannot be read: reported, exit code 2.
    let missing = d.join("does-not-exist.jsonl");
    let o = verdict(&[], &[&ok, &missing]);
    assert_eq!(o.code, 2);
    assert_eq!(o.runs.len(), 2);
    assert!(o.runs[1]["error"].is_string());
}

#[test]
fn stdin_is_read_with_dash() {
    use std::io::Write;
    let bytes = std::fs::read(root().join("corpus/run/verdict-max-budget.jsonl")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["verdict", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["file"], "<stdin>");
    assert_eq!(r["verdict"], "max_budget");
    assert_eq!(out.status.code(), Some(1));
}

fn realworld() -> Option<PathBuf> {
    let d = root().join("../shared/realworld");
    if d.is_dir() {
        return Some(d);
    }
    if std::env::var_os("CI").is_some() {
        panic!("../shared/realworld is missing (CI is set)");
    }
    eprintln!("skip: ../shared/realworld is missing");
    None
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn realworld_verdicts_as_the_readme_describes() {
    let Some(d) = realworld() else { return };
    let c = |name: &str, want: &[&str], code| check(&d.join(name), want, code);

    // API errors: subtype success with is_error true.
    let o = c(
        "DilanDoshi__wake__testdata-stream-api-error-auth.jsonl",
        &["error"],
        1,
    );
    assert_eq!(o.runs[0]["api_errors"][0]["error"], "authentication_failed");
    let o = c(
        "DilanDoshi__wake__testdata-stream-api-retry-auth.jsonl",
        &["error"],
        1,
    );
    assert_eq!(o.runs[0]["api_retries"]["count"], 2);
    assert_eq!(o.runs[0]["api_retries"]["statuses"]["401"], 2);
    c(
        "DilanDoshi__wake__testdata-stream-bare-model.jsonl",
        &["success"],
        0,
    );
    // Interrupted while a permission ask was pending, then a second round.
    let o = c(
        "DilanDoshi__wake__testdata-stream-interrupt-pending-basic.jsonl",
        &["success"],
        0,
    );
    let r = &o.runs[0];
    assert_eq!(
        (r["results"].as_u64(), r["rounds"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(r["permission_denials"][0]["tool_name"], "Write");
    assert_eq!(r["tools"]["Write"]["rejections"], 1);
    approx(&r["total_cost_usd"], 0.24159999999999998);
    // Partial messages: reassembled blocks equal the assistant events, and
    // the message_delta's output_tokens (788) is the call's.
    let o = c(
        "DilanDoshi__wake__testdata-stream-partial-turn.jsonl",
        &["success"],
        0,
    );
    let r = &o.runs[0];
    assert_eq!(r["partial_messages"]["verified"], 2);
    assert_eq!(r["partial_messages"]["mismatches"], serde_json::json!([]));
    assert_eq!(r["usage"]["main"]["output_tokens"], 788);
    assert_eq!(r["usage_checks"][0]["basis"], "round");
    // error_max_turns with is_error false, Task subagents.
    let o = c(
        "TomOfekKafka__ThePerfectSnake__claude-stream@4873604.jsonl",
        &["max_turns"],
        1,
    );
    let r = &o.runs[0];
    assert_eq!(r["is_error"], false);
    assert_eq!(r["subagents"][0]["tool_name"], "Task");
    assert_eq!(r["subagents"][0]["events"], 77);
    approx(&r["total_cost_usd"], 1.2668596);
    assert_eq!(r["cost"]["matches"], true);
    c(
        "TomOfekKafka__ThePerfectSnake__claude-stream@b2ee321.jsonl",
        &["max_turns"],
        1,
    );
    // 7 runs appended, the last two without a result.
    let o = c(
        "Zeeeepa__github.gg__claude_output@766f99b.jsonl",
        &[
            "success",
            "success",
            "success",
            "success",
            "success",
            "no_result",
            "no_result",
        ],
        1,
    );
    let sessions: std::collections::HashSet<_> =
        o.runs.iter().map(|r| r["session_id"].to_string()).collect();
    assert_eq!(sessions.len(), 7);
    // success + is_error true (32000 output token API error).
    let o = c(
        "alexchiri__life-coach-y3g10u__claude-output.json.jsonl",
        &["error"],
        1,
    );
    assert_eq!(o.runs[0]["subtype"], "success");
    assert_eq!(o.runs[0]["usage"]["synthetic_messages"], 1);
    // Captured mid-run: no result.
    c(
        "alexchiri__recipe-manager-android-79imt1__claude-output.json@76a0b06.jsonl",
        &["no_result"],
        1,
    );
    c(
        "ariel-frischer__claude-clean__mocks-claude-stream-json-log.jsonl",
        &["success"],
        0,
    );
    c(
        "ariel-frischer__claude-clean__mocks-claude-stream-json-simple.jsonl",
        &["success"],
        0,
    );
    // Killed at start / mid-run.
    c(
        "marquex__trackgentic__agentic-session-mp9r3tbb.jsonl",
        &["no_result"],
        1,
    );
    c(
        "marquex__trackgentic__agentic-session-mp9ygklz.jsonl",
        &["no_result"],
        1,
    );
    let o = c(
        "marquex__trackgentic__agentic-session-mp9xlpds.jsonl",
        &["success"],
        0,
    );
    assert_eq!(o.runs[0]["api_retries"]["count"], 11);
    assert_eq!(o.runs[0]["notifications"][0]["key"], "stop-hook-error");
    let o = c(
        "marquex__trackgentic__agentic-session-mpa014m2.jsonl",
        &["success"],
        0,
    );
    assert_eq!(o.runs[0]["subagents"].as_array().map(Vec::len), Some(3));
    let o = c("marquex__trackgentic__stream.jsonl", &["success"], 0);
    assert_eq!(o.runs[0]["api_retries"]["count"], 9);
    assert_eq!(o.runs[0]["api_retries"]["statuses"]["429"], 9);
    c(
        "rksm__effective-prompting__agent-loop-create-loop-script-md-embedded.jsonl",
        &["success"],
        0,
    );
    // An excerpt ending inside a tool_use block.
    let o = c(
        "unidentified__liminal-lhc-quick-fix-stream__excerpt-12-contiguous-lines.jsonl",
        &["no_result"],
        1,
    );
    let inc = &o.runs[0]["partial_messages"]["incomplete"][0];
    assert_eq!(inc["type"], "tool_use");
    assert_eq!(inc["tool_name"], "Read");
    assert_eq!(o.runs[0]["partial_messages"]["verified"], 1);
    // error_max_turns with is_error true; its costs do not add up.
    let o = c(
        "unidentified__native-cost-test__error_max_turns-result.jsonl",
        &["max_turns"],
        1,
    );
    assert_eq!(warning_codes(&o.runs[0]), ["cost_mismatch"]);
    let o = c(
        "unidentified__openagents-commander-electron-doc__1.0.3.jsonl",
        &["success"],
        0,
    );
    approx(&o.runs[0]["total_cost_usd"], 0.06300585);
    let o = c(
        "unidentified__probe-session-resume-2.1.195__resume1.jsonl",
        &["success"],
        0,
    );
    assert_eq!(
        o.runs[0]["usage"]["by_model"]["claude-haiku-4-5-20251001"]["auxiliary"],
        true
    );
    c(
        "unidentified__probe-session-resume-2.1.195__resume2.jsonl",
        &["success"],
        0,
    );
    // Lines of 4 different sessions: 4 runs, none with a result.
    c(
        "unidentified__representative-frames-claude-opus-5__complete-lines-only.jsonl",
        &["no_result", "no_result", "no_result", "no_result"],
        1,
    );
    c(
        "unidentified__sdd-check-hat-census-fixture__2.1.260.jsonl",
        &["success"],
        0,
    );
    c(
        "unidentified__spike-R8__error_max_budget_usd-result.TRIMMED.jsonl",
        &["max_budget"],
        1,
    );
    c(
        "bitovi__ai-coding-agent__specifications-improved-output.ndjson",
        &["no_result"],
        1,
    );
    c(
        "charlieyou__claude-agent-sdk-gleam__test-fixtures-golden-basic_query.ndjson",
        &["success"],
        0,
    );
    c(
        "charlieyou__claude-agent-sdk-gleam__test-fixtures-real4.ndjson",
        &["success"],
        0,
    );
    c(
        "uspark-hq__uspark__spec-claude-code-output.ndjson",
        &["success", "success"],
        0,
    );
    c(
        "excerpts/mattarge04-gif__signedbymattia__claude-execution-output.json.FIRST2ELEMENTS.ndjson",
        &["no_result"],
        1,
    );
    let o = c(
        "truncated/unidentified__zoe-bot-journal__error_max_budget_usd-TRUNCATED-at-800.txt",
        &["startup_failure"],
        1,
    );
    // Lines a logger cut at a fixed width: an error per line, each at its
    // place (issue 22, item 1; one finding without errors before), and no
    // events, described as cut lines.
    assert_eq!(o.runs[0]["no_events"]["format"], "cut-lines");
    assert_eq!(o.runs[0]["bad_lines"], 2);
    c(
        "transformed/deep-assistant__hive-mind__docs-case-studies-issue-667-pr49-run1-log.extracted.ndjson",
        &["success"],
        0,
    );
    c(
        "transformed/deep-assistant__hive-mind__docs-case-studies-pr-4-ci-log-issue-session-1-log.extracted.ndjson",
        &["no_result"],
        1,
    );
    // Hand-written, result without subtype or is_error: nothing says success.
    c(
        "synthetic/anthropics__claude-code-action__test-fixtures-sample-turns.HANDWRITTEN.ndjson",
        &["error"],
        1,
    );
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn every_realworld_file_gets_a_verdict_line_per_run() {
    let Some(d) = realworld() else { return };
    let mut files = Vec::new();
    let mut dirs = vec![d];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n != "README.md") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 40, "{} files", files.len());
    for f in &files {
        let o = verdict(&[], &[f]);
        assert!(!o.runs.is_empty(), "{}: no output", f.display());
        assert!(
            (0..=2).contains(&o.code),
            "{}: exit {}",
            f.display(),
            o.code
        );
        let worst = o.runs.iter().fold(0, |acc, r| {
            let v = r["verdict"].as_str().unwrap_or("");
            // Healthy: a stream's success, a transcript session that ended.
            acc.max(match v {
                "success" | "ended" => 0,
                _ => 1,
            })
        });
        assert_eq!(o.code, worst, "{}", f.display());
    }
}

/// `--exit-codes FILE`: the exit codes of many inputs in one process, each
/// applied as `--exit-code` applies to its input alone.
#[test]
fn exit_codes_for_many_inputs_from_a_file() {
    let d = root().join("corpus/run");
    let ok = d.join("verdict-success.jsonl");
    let maxt = d.join("verdict-max-turns-is-error-false.jsonl");
    let budget = d.join("verdict-max-budget.jsonl");
    let dir = scratch("exit-codes");
    let table = dir.join("codes.tsv");
    // A path as given, and one written otherwise (same file).
    let other = format!(
        "{}/../run/verdict-max-turns-is-error-false.jsonl",
        d.display()
    );
    std::fs::write(
        &table,
        format!("# path\tcode\n{}\t1\n{other}\t0\n", ok.display()),
    )
    .unwrap();
    let t = table.to_string_lossy().to_string();
    let o = verdict(&["--exit-codes", &t], &[&ok, &maxt, &budget]);
    assert_eq!(verdicts(&o), ["error", "max_turns", "max_budget"]);
    assert_eq!(o.runs[0]["exit_code"], 1);
    assert_eq!(o.runs[0]["stream_verdict"], "success");
    assert_eq!(o.runs[1]["exit_code"], 0);
    assert_eq!(
        warning_codes(&o.runs[1]),
        ["is_error_disagrees_with_subtype", "failed_with_exit_code_0"]
    );
    assert_eq!(o.runs[2]["exit_code"], Value::Null, "no line for it");
    assert_eq!(o.code, 1);
    // A bad line is a usage error: exit 2, with its position.
    std::fs::write(&table, "only-a-path\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["verdict", "--exit-codes", &t])
        .arg(&ok)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("codes.tsv:1: expected PATH<TAB>CODE"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records keep one documented key order: `verdict`, `ok`, `file` first.
#[test]
fn record_keys_in_the_documented_order() {
    let o = verdict(&[], &[&root().join("corpus/streams/max-turns.jsonl")]);
    let keys: Vec<&str> = o.runs[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let doc = std::fs::read_to_string(root().join("docs/accounting.md")).unwrap();
    let listed = doc
        .lines()
        .find_map(|l| l.strip_prefix("verdict keys: "))
        .expect("docs/accounting.md lists the verdict keys");
    let want: Vec<&str> = listed.split(", ").map(|k| k.trim_matches('`')).collect();
    assert_eq!(keys, want);
}

/// On a terminal each run is one line for people (run under `script`, which
/// gives the command a pseudo-terminal); `--json` keeps JSON there.
#[test]
fn one_readable_line_per_run_on_a_terminal() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        println!("skipped: no `script` to give a terminal");
        return;
    }
    let exe = env!("CARGO_BIN_EXE_cctape");
    let max = root().join("corpus/streams/max-turns.jsonl");
    let empty = root().join("corpus/run/empty.jsonl");
    let run = |json: &str| {
        let cmd = format!("{exe} verdict {json} {} {}", max.display(), empty.display());
        let out = Command::new("script")
            .args(["-qc", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).replace('\r', "")
    };
    let text = run("");
    let lines: Vec<&str> = text.lines().collect();
    // A line a run (or input without events), then the closing summary.
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        lines[2],
        "2 runs: 1 max_turns, 1 startup_failure; $0.0507; 1 input without events among them (1 startup_failure)",
        "{text}"
    );
    assert!(lines[0].starts_with("max_turns "), "{text}");
    assert!(
        lines[0].contains("3 turns, 6.4s, $0.0507, 183 output tokens (results)"),
        "{text}"
    );
    // The tool figures, counted independently: tool_use blocks (by id) and
    // tool_results with is_error true.
    let (mut uses, mut errors) = (std::collections::BTreeSet::new(), 0);
    for l in std::fs::read_to_string(&max).unwrap().lines() {
        let Ok(ev) = serde_json::from_str::<Value>(l) else {
            continue;
        };
        for b in ev["message"]["content"].as_array().into_iter().flatten() {
            match b["type"].as_str() {
                Some("tool_use") => {
                    uses.insert(b["id"].as_str().unwrap().to_string());
                }
                Some("tool_result") if b["is_error"] == true => errors += 1,
                _ => {}
            }
        }
    }
    let tools = format!(
        "{} tool call{} ({} error{})",
        uses.len(),
        if uses.len() == 1 { "" } else { "s" },
        errors,
        if errors == 1 { "" } else { "s" }
    );
    assert!(
        lines[0].contains(&format!("output tokens (results), {tools}")),
        "{text}"
    );
    assert!(
        lines[0].ends_with("warnings: is_error_disagrees_with_subtype"),
        "{text}"
    );
    assert!(lines[1].starts_with("startup_failure "), "{text}");
    assert!(lines[1].ends_with("no events (empty)"), "{text}");
    let json = run("--json");
    assert!(
        json.starts_with("{\"verdict\":\"max_turns\",\"ok\":false,"),
        "{json}"
    );
}

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::scratch;

/// A text output (or an empty one) says nothing of how the run went; the
/// exit code says it (issue 22 item 9): 0 is a text-mode run that
/// succeeded, the source of the verdict named; non-zero or unknown is a
/// startup failure; the CLI's own final error line wins whatever the code.
#[test]
fn text_and_empty_inputs_are_judged_by_the_exit_code_the_stream_cannot_replace() {
    let dir = std::env::temp_dir().join(format!("cctape-text-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let answer = dir.join("answer.txt");
    std::fs::write(&answer, "SPLIT_COMPLETE: Created 4 children\n").unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let max = dir.join("max.txt");
    std::fs::write(&max, "Working\nError: Reached max turns (30)\n").unwrap();
    for f in [&answer, &empty] {
        let ok = verdict(&["--exit-code", "0"], &[f]);
        assert_eq!(verdicts(&ok), ["success"], "{}", f.display());
        let r = &ok.runs[0];
        assert_eq!(
            (&r["ok"], &r["verdict_source"], &r["exit_code"]),
            (
                &Value::Bool(true),
                &Value::from("exit_code"),
                &Value::from(0)
            )
        );
        assert_eq!(r["stream_verdict"], "startup_failure");
        assert_eq!(warning_codes(r), ["text_output_exit_code_0"]);
        assert_eq!(ok.code, 0);
        let failed = verdict(&["--exit-code", "1"], &[f]);
        assert_eq!(verdicts(&failed), ["startup_failure"]);
        assert_eq!(failed.runs[0]["verdict_source"], "exit_code");
        assert_eq!(failed.code, 1);
        let unknown = verdict(&[], &[f]);
        assert_eq!(verdicts(&unknown), ["startup_failure"]);
        assert_eq!(unknown.runs[0]["verdict_source"], "no_events");
        assert_eq!(unknown.code, 1);
    }
    // The CLI's own final error line decides; a zero code is then a warning.
    let m = verdict(&["--exit-code", "0"], &[&max]);
    assert_eq!(verdicts(&m), ["max_turns"]);
    assert_eq!(m.runs[0]["verdict_source"], "final_error");
    assert_eq!(warning_codes(&m.runs[0]), ["failed_with_exit_code_0"]);
    assert_eq!(m.code, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// wave3's `bf-1mmb` file is the run's final text; its harness says the
/// process exited 0 and the run succeeded.
#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn a_real_text_output_that_exited_0_is_a_success() {
    let f = root().join(
        "../shared/realworld/wave3/jedarden__ARMOR__.beads-traces-bf-1mmb-stdout.txt@29dea92.jsonl",
    );
    let o = verdict(&["--exit-code", "0"], &[&f]);
    assert_eq!(verdicts(&o), ["success"]);
    assert_eq!(o.runs[0]["verdict_source"], "exit_code");
    assert_eq!(o.runs[0]["no_events"]["format"], "text");
    assert_eq!(o.code, 0);
}
