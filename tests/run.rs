//! Run semantics (issue 4): one test per rule, each on a small stream in
//! `corpus/run/` (or `corpus/streams/`) named after it.

use cctape::run::{
    IDLE_LINES, RunFolder, RunReader, RunSummary, UsageBasis, Verdict, VerdictSource,
    WARN_ACTIVITY_AFTER_RESULT, WARN_BAD_LINE, WARN_COST_MISMATCH, WARN_EXIT_CODE,
    WARN_IS_ERROR_DISAGREES, WARN_LOST_RESULT, WARN_PARTIAL_MISMATCH, WARN_SUCCESS_EMPTY_RESULT,
    WARN_SUCCESS_STOP_TOOL_USE, WARN_TRUNCATED, WARN_UNKNOWN_SUBTYPE, runs_of_reader,
    runs_of_slice,
};
use cctape::{SliceEvents, TokenCounts};
use std::path::{Path, PathBuf};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

fn runs(rel: &str) -> Vec<RunSummary> {
    let bytes = std::fs::read(corpus(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    runs_of_slice(&bytes)
}

fn one(rel: &str) -> RunSummary {
    let mut r = runs(rel);
    assert_eq!(r.len(), 1, "{rel}: one run");
    r.remove(0)
}

fn tokens(i: u64, o: u64, cr: u64, cc: u64) -> TokenCounts {
    TokenCounts {
        input_tokens: i,
        output_tokens: o,
        cache_read_input_tokens: cr,
        cache_creation_input_tokens: cc,
    }
}

fn codes(r: &RunSummary) -> Vec<&'static str> {
    r.warnings.iter().map(|w| w.code).collect()
}

// --- what a run is -----------------------------------------------------------

#[test]
fn runs_by_session_and_lines_without_one() {
    let r = runs("run/runs-by-session.jsonl");
    assert_eq!(r.len(), 2);
    assert_eq!(
        r[0].session_id.as_deref(),
        Some("11111111-1111-4111-8111-111111111111")
    );
    assert_eq!(
        r[1].session_id.as_deref(),
        Some("22222222-2222-4222-8222-222222222222")
    );
    // run 1: init, prompt, assistant, result, and the task_summary that
    // comes back to session 1 after session 2 started.
    assert_eq!(r[0].events, 5);
    assert_eq!((r[0].first_line, r[0].last_line), (1, 9));
    // run 2: init, prompt, assistant, control_cancel_request (no
    // session_id: the run of the line before), result.
    assert_eq!(r[1].events, 5);
    assert_eq!((r[1].first_line, r[1].last_line), (5, 10));
    assert!(r.iter().all(|r| r.verdict == Verdict::Success));
    assert_eq!(
        r[0].last_result.as_ref().unwrap().result_text.as_deref(),
        Some("one")
    );
    assert_eq!(
        r[1].last_result.as_ref().unwrap().result_text.as_deref(),
        Some("two")
    );
}

#[test]
fn rounds_with_result_index() {
    let r = one("run/rounds-result-index.jsonl");
    assert_eq!(r.inits, 2);
    assert_eq!(r.results, 2);
    assert_eq!(r.verdict, Verdict::Success);
    let last = r.last_result.as_ref().unwrap();
    assert_eq!(last.result_index, Some(1));
    assert_eq!(last.result_text.as_deref(), Some("round two"));
    // result.usage is per round here (as in real 2.1.226 streams) while
    // modelUsage and total_cost_usd are cumulative.
    assert_eq!(r.usage_checks.len(), 2);
    assert!(r.usage_checks.iter().all(|c| c.basis == UsageBasis::Round));
    assert_eq!(r.usage.main.messages, 2);
    assert_eq!(r.usage.main.tokens, tokens(5, 30, 3000, 150));
    assert_eq!(r.cost.total_cost_usd, Some(0.03));
    assert_eq!(r.cost.matches, Some(true));
}

#[test]
fn leading_lines_without_session_join_the_next_run() {
    let r = one("run/leading-lines-without-session.jsonl");
    assert_eq!(
        r.session_id.as_deref(),
        Some("11111111-1111-4111-8111-111111111111")
    );
    assert_eq!(r.events, 4);
    assert_eq!(r.first_line, 1);
}

#[test]
fn drain_complete_hands_out_finished_runs() {
    let bytes = std::fs::read(corpus("run/runs-by-session.jsonl")).unwrap();
    let mut folder = RunFolder::new();
    let mut events = SliceEvents::new(&bytes);
    let mut drained = Vec::new();
    while let Some(item) = events.next_event() {
        let ev = item.unwrap();
        folder.push(&ev);
        drained.extend(folder.drain_complete());
    }
    // Session 1 has its result once session 2 starts (line 5), so it is
    // drained then; its task_summary on line 9 starts a new run.
    let rest = folder.finish();
    assert_eq!(drained.len(), 1);
    assert_eq!(drained[0].events, 4);
    assert_eq!(rest.len(), 2);
    assert_eq!(
        rest[0].session_id.as_deref(),
        Some("22222222-2222-4222-8222-222222222222")
    );
    assert_eq!(rest[1].verdict, Verdict::NoResult);
    assert_eq!(rest[1].events, 1);
}

#[test]
fn reader_and_slice_agree() {
    let bytes = std::fs::read(corpus("streams/two-subagents.jsonl")).unwrap();
    let (from_reader, err) = runs_of_reader(&bytes[..]);
    assert!(err.is_none());
    assert_eq!(from_reader, runs_of_slice(&bytes));
}

// --- the verdict ---------------------------------------------------------------

#[test]
fn last_result_decides_even_with_task_summary_after() {
    let r = one("run/last-result-decides.jsonl");
    assert_eq!(r.results, 2);
    assert_eq!(r.verdict, Verdict::Error);
    let last = r.last_result.as_ref().unwrap();
    assert_eq!(last.subtype.as_deref(), Some("error_during_execution"));
    assert_eq!(last.terminal_reason.as_deref(), Some("api_error"));
    assert_eq!(last.errors, ["[ede_diagnostic] boom"]);
    assert!(!r.has_warning(WARN_ACTIVITY_AFTER_RESULT));
    // corpus/streams: task_summary after the result, still success.
    let s = one("streams/success-basic.jsonl");
    assert_eq!(s.verdict, Verdict::Success);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn verdict_success() {
    let r = one("run/verdict-success.jsonl");
    assert_eq!(r.verdict, Verdict::Success);
    assert!(r.ok());
    assert!(r.warnings.is_empty());
    assert_eq!(
        r.last_result.as_ref().unwrap().result_text.as_deref(),
        Some("hi")
    );
}

#[test]
fn verdict_max_turns_whatever_is_error_says() {
    let r = one("run/verdict-max-turns-is-error-false.jsonl");
    assert_eq!(r.verdict, Verdict::MaxTurns);
    assert!(!r.ok());
    assert_eq!(r.last_result.as_ref().unwrap().is_error, Some(false));
    assert_eq!(codes(&r), [WARN_IS_ERROR_DISAGREES]);
    assert_eq!(one("streams/max-turns.jsonl").verdict, Verdict::MaxTurns);
}

#[test]
fn verdict_max_budget() {
    let r = one("run/verdict-max-budget.jsonl");
    assert_eq!(r.verdict, Verdict::MaxBudget);
    // usage all zeros while modelUsage holds the real numbers (hazard 12).
    assert_eq!(
        r.last_result.as_ref().unwrap().usage,
        Some(TokenCounts::default())
    );
    assert_eq!(r.usage.by_model.len(), 1);
    assert_eq!(r.usage.by_model[0].tokens, tokens(9, 2441, 0, 40313));
    assert!(
        !r.usage.by_model[0].auxiliary,
        "no assistant events: not auxiliary"
    );
    assert_eq!(r.cost.total_cost_usd, Some(0.06260525));
    assert_eq!(r.cost.matches, Some(true));
}

#[test]
fn verdict_interrupted_by_terminal_reason() {
    let r = one("run/verdict-interrupted-aborted.jsonl");
    assert_eq!(r.verdict, Verdict::Interrupted);
    assert_eq!(r.tool("Write").unwrap().rejections, 1);
    assert_eq!(r.permission_denials.len(), 1);
    assert!(r.permission_denials[0].in_result);
    assert_eq!(
        one("streams/interrupted.jsonl").verdict,
        Verdict::Interrupted
    );
}

#[test]
fn verdict_interrupted_by_message() {
    let r = one("run/verdict-interrupted-message.jsonl");
    assert_eq!(r.last_result.as_ref().unwrap().terminal_reason, None);
    assert_eq!(r.verdict, Verdict::Interrupted);
}

#[test]
fn verdict_error_during_execution_otherwise() {
    let r = one("run/verdict-error-during-execution.jsonl");
    assert_eq!(r.verdict, Verdict::Error);
    assert_eq!(r.last_result.as_ref().unwrap().errors, ["something broke"]);
}

#[test]
fn verdict_unknown_subtype_is_error() {
    let r = one("run/verdict-unknown-subtype.jsonl");
    assert_eq!(r.verdict, Verdict::Error);
    assert!(r.has_warning(WARN_UNKNOWN_SUBTYPE));
}

#[test]
fn verdict_success_with_is_error_is_error() {
    let r = one("run/verdict-success-is-error.jsonl");
    assert_eq!(r.verdict, Verdict::Error);
    assert_eq!(codes(&r), [WARN_IS_ERROR_DISAGREES]);
    assert_eq!(r.api_errors.len(), 1);
    assert_eq!(
        r.api_errors[0].error.as_deref(),
        Some("authentication_failed")
    );
    assert_eq!(r.api_errors[0].text, "Not logged in · Please run /login");
    assert_eq!(r.usage.synthetic_messages, 1);
    assert_eq!(r.usage.main.messages, 0);
    // modelUsage {} and total_cost_usd 0: consistent.
    assert_eq!(r.cost.model_usage_cost_usd, Some(0.0));
    assert_eq!(r.cost.matches, Some(true));
    assert_eq!(one("streams/api-error.jsonl").verdict, Verdict::Error);
}

#[test]
fn verdict_no_result() {
    let r = one("run/verdict-no-result.jsonl");
    assert_eq!(r.verdict, Verdict::NoResult);
    assert_eq!(r.results, 0);
    assert_eq!(r.events, 4);
    assert_eq!(r.usage.main.messages, 1);
    assert_eq!(r.cost.total_cost_usd, None);
    assert_eq!(one("streams/no-result.jsonl").verdict, Verdict::NoResult);
}

#[test]
fn verdict_legacy_without_subtype() {
    let r = runs("run/verdict-legacy-no-subtype.jsonl");
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].verdict, Verdict::Success);
    assert_eq!(r[1].verdict, Verdict::Error);
    assert_eq!(r[0].cost.total_cost_usd, Some(0.06300585));
}

#[test]
fn exit_code_rules() {
    // Non-zero: failed whatever the stream says.
    let mut r = one("run/verdict-success.jsonl");
    r.apply_exit_code(1);
    assert_eq!(r.verdict, Verdict::Error);
    assert_eq!(r.stream_verdict, Verdict::Success);
    assert_eq!(r.exit_code, Some(1));
    assert!(r.has_warning(WARN_EXIT_CODE));
    // A failure stays what it is.
    let mut m = one("run/verdict-max-turns-is-error-false.jsonl");
    m.apply_exit_code(1);
    assert_eq!(m.verdict, Verdict::MaxTurns);
    // Zero: the stream decides.
    let mut e = one("run/verdict-success-is-error.jsonl");
    e.apply_exit_code(0);
    assert_eq!(e.verdict, Verdict::Error);
    // The stream said success, the code failure: the code decided.
    assert_eq!(r.verdict_source, VerdictSource::ExitCode);
    assert_eq!(e.verdict_source, VerdictSource::Result);
    // Empty stream: no runs of events; its summary is no_result,
    // startup_failure with a non-zero code, and with a zero code a
    // text-mode run: success, decided by the code (issue 22 item 9).
    assert!(runs("run/empty.jsonl").is_empty());
    let mut empty = RunSummary::empty();
    assert_eq!(empty.verdict, Verdict::NoResult);
    empty.apply_exit_code(1);
    assert_eq!(empty.verdict, Verdict::StartupFailure);
    assert_eq!(empty.verdict_source, VerdictSource::ExitCode);
    let mut zero = RunSummary::empty();
    zero.apply_exit_code(0);
    assert_eq!(
        (zero.verdict, zero.verdict_source, zero.ok()),
        (Verdict::Success, VerdictSource::ExitCode, true)
    );
    // A run with events and no result stays no_result with a zero code:
    // the stream can say that much.
    let mut cut = one("run/verdict-no-result.jsonl");
    cut.apply_exit_code(0);
    assert_eq!(
        (cut.verdict, cut.verdict_source),
        (Verdict::NoResult, VerdictSource::StreamEnd)
    );
}

// --- newer Claude Code (issue 22 item 21) -----------------------------------------

#[test]
fn startup_failure_reason_decides_the_verdict() {
    let r = one("run/verdict-startup-failure-reason.jsonl");
    assert_eq!(r.verdict, Verdict::StartupFailure);
    assert_eq!(r.verdict_source, VerdictSource::Result);
    let last = r.last_result.as_ref().unwrap();
    assert_eq!(
        last.startup_failure_reason.as_deref(),
        Some("cwd_unavailable")
    );
    assert_eq!(r.to_json()["startup_failure_reason"], "cwd_unavailable");
    // Without the field the same result is an error.
    let bytes = std::fs::read(corpus("run/verdict-startup-failure-reason.jsonl")).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let without = text.replace(r#","startup_failure_reason":"cwd_unavailable""#, "");
    assert_ne!(without, text);
    assert_eq!(runs_of_slice(without.as_bytes())[0].verdict, Verdict::Error);
}

#[test]
fn a_gap_in_result_index_is_a_lost_result() {
    let r = one("run/rounds-lost-result.jsonl");
    // The last result still decides.
    assert_eq!((r.verdict, r.results, r.inits), (Verdict::Success, 2, 3));
    assert_eq!(codes(&r), [WARN_LOST_RESULT]);
    let w = &r.warnings[0];
    assert_eq!(w.line, Some(9));
    assert!(
        w.message
            .contains("result_index 2 follows result_index 0: 1 result lost")
    );
    // Indices 0, 1 (corpus/run/rounds-result-index.jsonl): nothing lost.
    assert!(!one("run/rounds-result-index.jsonl").has_warning(WARN_LOST_RESULT));
}

#[test]
fn result_index_restarting_at_zero_is_a_new_process_not_a_loss() {
    let line = |i: u64| {
        format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"result":"ok","result_index":{i},"session_id":"s"}}"#
        )
    };
    let ok = [line(0), line(1), line(0), line(1), line(1)].join("\n");
    let r = &runs_of_slice(ok.as_bytes())[0];
    assert!(!r.has_warning(WARN_LOST_RESULT), "{:?}", r.warnings);
    // A first index above 0: the start of the process's results is lost.
    let late = [line(2), line(3)].join("\n");
    let r = &runs_of_slice(late.as_bytes())[0];
    assert_eq!(codes(r), [WARN_LOST_RESULT]);
    assert!(
        r.warnings[0]
            .message
            .contains("follows the start: 2 results lost")
    );
}

#[test]
fn newer_system_subtypes_are_typed_and_usage_report_is_not_usage() {
    use cctape::EventKind;
    use cctape::views::View;
    let bytes = std::fs::read(corpus("run/system-newer-subtypes.jsonl")).unwrap();
    let mut events = SliceEvents::new(&bytes);
    let mut kinds = Vec::new();
    let mut vcs = Vec::new();
    let mut reports = 0;
    while let Some(item) = events.next_event() {
        let ev = item.unwrap();
        kinds.push(ev.kind());
        match ev.view() {
            View::VcsStateChanged(v) => {
                vcs.push([v.kind(), v.cwd(), v.branch()].map(|x| x.map(str::to_owned)))
            }
            View::DevIntent(d) => {
                assert_eq!(
                    (d.kind(), d.trigger()),
                    (Some("android_app"), Some("project_scan"))
                );
                assert_eq!(d.session_id(), None);
            }
            View::PeerMessageHold(p) => {
                assert_eq!(p.from_name(), Some("Planning agent"));
                assert!(matches!(p.state(), Some("held" | "dropped")));
            }
            View::Assistant(a) if a.usage_report().is_some() => reports += 1,
            View::Result(r) => {
                assert_eq!(r.queued_turn_count(), Some(0));
                assert_eq!(r.user_message_uuids().map(|u| u.count()), Some(1));
            }
            _ => {}
        }
        assert_eq!(ev.view().unknown_fields().count(), 0, "{:?}", ev.kind());
    }
    for k in [
        EventKind::SystemDevIntent,
        EventKind::SystemVcsStateChanged,
        EventKind::SystemPeerMessageHold,
        EventKind::SystemPerTurnEffortChanged,
        EventKind::SystemTurnPreempted,
        EventKind::SystemCloudSessionDelta,
    ] {
        assert!(kinds.contains(&k), "{k:?}");
    }
    assert!(!kinds.contains(&EventKind::SystemOther));
    let own = |x: &[Option<&str>; 3]| x.map(|x| x.map(str::to_owned));
    assert_eq!(
        vcs,
        [
            own(&[Some("commit"), Some("/work/repo"), None]),
            own(&[Some("push"), Some("/work/repo"), Some("main")])
        ]
    );
    assert_eq!(reports, 1);
    // The usage report's session totals (900,000 input tokens) are no
    // call's usage: the figures are the calls' and the result's.
    let r = one("run/system-newer-subtypes.jsonl");
    assert_eq!(r.verdict, Verdict::Success);
    assert_eq!(r.usage.main.tokens, tokens(5, 22, 3000, 110));
    assert_eq!(r.usage.main.calls.input_tokens, 2 + 3);
    assert_eq!(r.usage.main.messages, 2);
}

// --- server tools (issue 22 item 12) -------------------------------------------------

#[test]
fn server_tools_are_tool_calls_with_their_results_and_errors() {
    let mut folder = RunFolder::new();
    folder.record_calls(true);
    let bytes = std::fs::read(corpus("run/tools-server.jsonl")).unwrap();
    let mut events = SliceEvents::new(&bytes);
    while let Some(item) = events.next_event() {
        folder.push(&item.unwrap());
    }
    let r = folder.finish().remove(0);
    let t = |n: &str| {
        let t = r.tool(n).unwrap_or_else(|| panic!("{n}: {:?}", r.tools));
        (t.calls, t.errors, t.unanswered)
    };
    assert_eq!(t("web_search"), (1, 0, 0));
    // `content` of type web_fetch_tool_result_error, with an error_code.
    assert_eq!(t("web_fetch"), (1, 1, 0));
    // z.ai's webReader: its tool_result sits in the assistant event.
    assert_eq!(t("webReader"), (1, 0, 0));
    assert_eq!((r.tool_calls_total(), r.tool_errors_total()), (3, 1));
    assert_eq!(r.tool_results_without_use, 0);
    // Each call with the line of its result (the export's tools rows).
    let lines: Vec<(String, Option<u64>, bool)> = r
        .tool_calls
        .iter()
        .map(|c| (c.name.clone(), c.result_line, c.error))
        .collect();
    assert_eq!(
        lines,
        [
            ("web_search".to_string(), Some(4), false),
            ("web_fetch".to_string(), Some(6), true),
            ("webReader".to_string(), Some(8), false),
        ]
    );
}

// --- one definition of a run (issue 22 item 10) ---------------------------------------

/// Session `a` runs to a result, `filler` lines of session `b` follow, then
/// `a` comes back.
fn resumed_after(filler: u64) -> String {
    let mut s = String::new();
    s.push_str(r#"{"type":"system","subtype":"init","session_id":"a","model":"m"}"#);
    s.push('\n');
    s.push_str(r#"{"type":"result","subtype":"success","is_error":false,"result":"one","total_cost_usd":0.5,"session_id":"a"}"#);
    s.push('\n');
    for _ in 0..filler {
        s.push_str(
            r#"{"type":"system","subtype":"status","status":"requesting","session_id":"b"}"#,
        );
        s.push('\n');
    }
    s.push_str(r#"{"type":"result","subtype":"error_max_turns","is_error":false,"total_cost_usd":0.25,"session_id":"a"}"#);
    s.push('\n');
    s
}

#[test]
fn a_session_back_long_after_its_result_is_a_new_run_in_every_fold() {
    // Soon after: the same run (its last result decides).
    let near = resumed_after(100);
    let r = runs_of_slice(near.as_bytes());
    let v: Vec<(Option<&str>, Verdict)> = r
        .iter()
        .map(|r| (r.session_id.as_deref(), r.verdict))
        .collect();
    assert_eq!(
        v,
        [
            (Some("a"), Verdict::MaxTurns),
            (Some("b"), Verdict::NoResult)
        ]
    );
    // More than IDLE_LINES lines later: a new run, whether the folder
    // drains idle runs (as `stats` does) or keeps every run to the end (as
    // `verdict`, `tree`, `export` do).
    let far = resumed_after(IDLE_LINES + 1);
    let kept = runs_of_slice(far.as_bytes());
    let drained: Vec<RunSummary> = RunReader::new(far.as_bytes())
        .idle_after(IDLE_LINES)
        .collect::<Result<_, _>>()
        .unwrap();
    for r in [&kept, &drained] {
        let mut v: Vec<(Option<&str>, Verdict, u64)> = r
            .iter()
            .map(|r| (r.session_id.as_deref(), r.verdict, r.first_line))
            .collect();
        v.sort_by_key(|x| x.2);
        assert_eq!(
            v,
            [
                (Some("a"), Verdict::Success, 1),
                (Some("b"), Verdict::NoResult, 3),
                (Some("a"), Verdict::MaxTurns, IDLE_LINES + 4),
            ]
        );
    }
}

// --- warnings -------------------------------------------------------------------

#[test]
fn warn_success_with_stop_reason_tool_use() {
    let r = one("run/warn-success-stop-tool-use.jsonl");
    assert_eq!(r.verdict, Verdict::Success);
    assert_eq!(codes(&r), [WARN_SUCCESS_STOP_TOOL_USE]);
}

#[test]
fn warn_success_with_empty_result() {
    let r = one("run/warn-success-empty-result.jsonl");
    assert_eq!(r.verdict, Verdict::Success);
    assert_eq!(codes(&r), [WARN_SUCCESS_EMPTY_RESULT]);
}

#[test]
fn warn_truncated_line() {
    let r = one("run/warn-truncated-line.jsonl");
    assert_eq!(r.verdict, Verdict::Success);
    assert!(r.truncated);
    assert_eq!(codes(&r), [WARN_TRUNCATED]);
    assert_eq!(r.warnings[0].line, Some(4));
    // mixed-bad: five bad lines and a truncated last line, verdict from line 13.
    let m = one("streams/mixed-bad.jsonl");
    assert_eq!(m.verdict, Verdict::Success);
    assert_eq!(m.bad_lines, 5);
    assert!(m.truncated);
    assert_eq!(
        m.warnings
            .iter()
            .filter(|w| w.code == WARN_BAD_LINE)
            .count(),
        5
    );
    assert_eq!(m.cost.total_cost_usd, Some(0.026874));
}

// --- usage and cost ----------------------------------------------------------------

#[test]
fn usage_once_per_message_id_last_kept() {
    let r = one("run/usage-dedup-message-id.jsonl");
    assert_eq!(r.usage.main.messages, 2);
    assert_eq!(r.usage.main.tokens, tokens(3, 47, 2100, 120));
    assert_eq!(r.usage_checks[0].basis, UsageBasis::Round);
}

#[test]
fn usage_main_apart_from_subagents() {
    let r = one("run/usage-main-vs-subagent.jsonl");
    assert_eq!(r.usage.main.messages, 2);
    assert_eq!(r.usage.main.tokens, tokens(3, 38, 2200, 130));
    assert_eq!(r.usage.subagents.messages, 1);
    assert_eq!(r.usage.subagents.tokens, tokens(5, 50, 500, 10));
    // result.usage is the main agent's only.
    assert_eq!(r.usage_checks[0].basis, UsageBasis::Round);
    // the haiku model has a (subagent) assistant event: not auxiliary.
    assert!(r.usage.by_model.iter().all(|m| !m.auxiliary));
    let sub = &r.subagents[0];
    assert_eq!(sub.tool_use_id, "toolu_AG");
    assert_eq!(sub.usage.tokens, tokens(5, 50, 500, 10));
    assert_eq!(sub.report.as_deref(), Some("sub work"));
    let two = one("streams/two-subagents.jsonl");
    assert_eq!(two.usage.main.tokens, tokens(4, 405, 61650, 6000));
    assert_eq!(two.usage.subagents.messages, 4);
    // modelUsage covers main + subagents: summed per-call usage agrees.
    let sonnet = two
        .usage
        .by_model
        .iter()
        .find(|m| m.model == "claude-sonnet-5-5")
        .unwrap();
    assert_eq!(sonnet.summed, Some(sonnet.tokens));
}

#[test]
fn usage_synthetic_messages_are_not_usage() {
    let r = one("run/usage-synthetic-not-usage.jsonl");
    assert_eq!(r.usage.main.messages, 1);
    assert_eq!(r.usage.main.tokens, tokens(2, 10, 1000, 100));
    assert_eq!(r.usage.synthetic_messages, 1);
    assert_eq!(r.verdict, Verdict::Error);
}

#[test]
fn usage_reconcile_reports_differences() {
    let r = one("run/usage-reconcile-mismatch.jsonl");
    let c = &r.usage_checks[0];
    assert_eq!(c.basis, UsageBasis::Mismatch);
    assert_eq!(c.reported.output_tokens, 145);
    assert_eq!(c.round.output_tokens, 4);
    assert_eq!(c.differing_fields(), ["output_tokens"]);
    let j = r.to_json();
    assert_eq!(j["usage_checks"][0]["differs"][0], "output_tokens");
}

#[test]
fn cost_model_usage_with_float_tolerance_and_auxiliary() {
    let r = one("run/cost-model-usage-auxiliary.jsonl");
    // 0.001015 + 0.0426766 is 0.043691600000000004 in f64: within tolerance.
    assert_eq!(r.cost.total_cost_usd, Some(0.0436916));
    assert_eq!(r.cost.matches, Some(true));
    assert!(!r.has_warning(WARN_COST_MISMATCH));
    assert_eq!(r.cost.auxiliary_cost_usd, 0.001015);
    let aux: Vec<_> = r
        .usage
        .by_model
        .iter()
        .filter(|m| m.auxiliary)
        .map(|m| m.model.as_str())
        .collect();
    assert_eq!(aux, ["claude-haiku-4-5-20251001"]);
    // main-model figures leave the auxiliary entry out.
    assert_eq!(r.usage.models, tokens(6, 248, 94923, 5300));
    assert_eq!(r.usage.auxiliary, tokens(925, 18, 0, 0));
    assert_eq!(r.usage.main.tokens, tokens(6, 248, 94923, 5300));
}

#[test]
fn cost_mismatch_is_a_warning() {
    let r = one("run/cost-mismatch.jsonl");
    assert_eq!(r.cost.matches, Some(false));
    assert_eq!(codes(&r), [WARN_COST_MISMATCH]);
    assert_eq!(r.cost.model_usage_cost_usd, Some(1.4014955));
}

#[test]
fn cost_from_legacy_fields() {
    let r = one("run/cost-legacy-fields.jsonl");
    assert_eq!(r.cost.total_cost_usd, Some(0.06300585));
    assert_eq!(r.cost.matches, None, "no modelUsage to check against");
    assert_eq!(r.verdict, Verdict::Success);
}

// --- tools -----------------------------------------------------------------------

#[test]
fn tools_paired_in_any_order_with_timing() {
    let r = one("run/tools-pairing-any-order.jsonl");
    let read = r.tool("Read").unwrap();
    assert_eq!((read.calls, read.errors, read.unanswered), (2, 0, 0));
    assert_eq!(read.timed, 2);
    assert_eq!(
        read.total_ms, 4500,
        "3000 ms for toolu_A, 1500 ms for toolu_B"
    );
    assert_eq!(read.max_ms, 3000);
    let bash = r.tool("Bash").unwrap();
    assert_eq!((bash.calls, bash.unanswered, bash.total_ms), (1, 0, 1000));
    assert_eq!(r.tool_results_without_use, 1);
}

#[test]
fn tools_errors_three_ways() {
    let r = one("run/tools-errors.jsonl");
    let bash = r.tool("Bash").unwrap();
    assert_eq!((bash.calls, bash.errors, bash.rejections), (3, 2, 0));
    let edit = r.tool("Edit").unwrap();
    assert_eq!((edit.calls, edit.errors), (1, 1));
    let t = one("streams/tool-errors.jsonl");
    let bash = t.tool("Bash").unwrap();
    assert_eq!(
        (bash.calls, bash.errors, bash.rejections, bash.unanswered),
        (3, 2, 1, 0)
    );
}

#[test]
fn tools_rejections_and_permission_denials() {
    let r = one("run/tools-rejections.jsonl");
    assert_eq!(r.tool("Bash").unwrap().rejections, 1);
    assert_eq!(r.tool("Bash").unwrap().errors, 0);
    assert_eq!(r.tool("Write").unwrap().rejections, 1);
    assert_eq!(r.permission_denials.len(), 2);
    let bash = &r.permission_denials[0];
    assert_eq!(
        (bash.tool_name.as_str(), bash.tool_use_id.as_str()),
        ("Bash", "toolu_A")
    );
    assert!(bash.event && bash.in_result);
    let write = &r.permission_denials[1];
    assert!(!write.event && write.in_result);
}

#[test]
fn tools_unanswered() {
    let r = one("run/tools-unanswered.jsonl");
    assert_eq!(r.verdict, Verdict::Interrupted);
    let bash = r.tool("Bash").unwrap();
    assert_eq!((bash.calls, bash.unanswered, bash.timed), (1, 1, 0));
    // haiku has no assistant event: auxiliary; the cost is all auxiliary.
    assert!(r.usage.by_model[0].auxiliary);
    assert_eq!(r.cost.auxiliary_cost_usd, 0.001024);
}

// --- subagents ----------------------------------------------------------------------

#[test]
fn subagent_tree_nested() {
    let r = one("run/subagents-nested.jsonl");
    assert_eq!(r.subagents.len(), 1);
    let p = &r.subagents[0];
    assert_eq!(p.tool_use_id, "toolu_P");
    assert_eq!(p.tool_name.as_deref(), Some("Agent"));
    assert_eq!(p.task_id.as_deref(), Some("a_parent"));
    assert_eq!(p.spawn_depth, Some(1));
    assert_eq!(p.status.as_deref(), Some("completed"));
    assert_eq!(p.report.as_deref(), Some("child said x"));
    assert_eq!(p.usage.messages, 2);
    assert_eq!(p.usage.tokens, tokens(4, 29, 1100, 59));
    assert_eq!(p.tool_calls, 1);
    assert_eq!(p.children.len(), 1);
    let c = &p.children[0];
    assert_eq!(c.tool_use_id, "toolu_C");
    assert_eq!(c.subagent_type.as_deref(), Some("Explore"));
    assert_eq!(c.spawn_depth, Some(2));
    assert_eq!(c.progress_events, 1);
    assert_eq!(c.last_progress.unwrap().total_tokens, Some(446));
    assert_eq!(c.final_usage.unwrap().total_tokens, Some(908));
    assert_eq!(c.summary.as_deref(), Some("child done"));
    assert_eq!(c.report.as_deref(), Some("x says x"));
    assert_eq!(c.usage.tokens, tokens(2, 11, 850, 45));
    assert_eq!(r.usage.subagents.messages, 4);
    let check = r.subagent_check.unwrap();
    assert_eq!(
        (
            check.seen_spawned,
            check.seen_completed,
            check.seen_max_depth
        ),
        (2, 2, 2)
    );
    assert!(check.matches());
    let j = r.to_json();
    assert_eq!(j["subagents"][0]["children"][0]["task_id"], "a_child");
}

#[test]
fn subagent_workflow_and_stats_mismatch() {
    let r = one("run/subagents-workflow-and-stats-mismatch.jsonl");
    let w = &r.subagents[0];
    assert_eq!(w.task_type.as_deref(), Some("local_workflow"));
    assert_eq!(w.tool_name.as_deref(), Some("Workflow"));
    assert_eq!((w.workflow_agents, w.workflow_agents_done), (2, 1));
    assert_eq!(w.final_usage.unwrap().total_tokens, Some(9000));
    let check = r.subagent_check.unwrap();
    assert_eq!(check.seen_spawned, 0);
    assert_eq!(check.reported_spawned, Some(1));
    assert!(!check.matches());
    // background Bash task (corpus/streams).
    let b = one("streams/background-task.jsonl");
    assert_eq!(b.subagents.len(), 1);
    assert_eq!(b.subagents[0].task_type.as_deref(), Some("local_bash"));
    assert_eq!(b.subagents[0].backgrounded, Some(true));
    assert_eq!(b.subagents[0].status.as_deref(), Some("completed"));
    assert_eq!((b.inits, b.results), (2, 2));
}

// --- api_retry, permissions, hooks, notifications -------------------------------------

#[test]
fn api_retries() {
    let r = one("run/api-retry.jsonl");
    assert_eq!(r.api_retries.count, 3);
    assert_eq!(r.api_retries.statuses, [(429, 1), (529, 2)]);
    assert_eq!(r.api_retries.last_error.as_deref(), Some("overloaded"));
    assert_eq!(r.api_retries.last_status, Some(529));
}

#[test]
fn hooks_and_notifications() {
    let r = one("run/hooks-and-notification.jsonl");
    assert_eq!((r.hooks.started, r.hooks.responses), (2, 2));
    assert_eq!(r.hooks.failures.len(), 1);
    assert_eq!(r.hooks.failures[0].hook_name, "Stop");
    assert_eq!(r.hooks.failures[0].exit_code, Some(2));
    assert_eq!(r.notifications.len(), 1);
    assert_eq!(r.notifications[0].key.as_deref(), Some("stop-hook-error"));
    // the hook lines come before init and still belong to the run.
    assert_eq!(r.first_line, 1);
}

// --- partial messages ------------------------------------------------------------------

#[test]
fn partial_blocks_equal_their_assistant_events_and_delta_usage_is_final() {
    let r = one("streams/partial-messages.jsonl");
    let p = r.partial.as_ref().unwrap();
    assert_eq!((p.messages, p.blocks, p.verified), (2, 3, 3));
    assert!(p.mismatches.is_empty() && p.incomplete.is_empty());
    // assistant events carry output_tokens 16 and 3 (message_start
    // snapshots); message_delta says 108 and 31.
    assert_eq!(r.usage.main.tokens.output_tokens, 139);
    assert_eq!(r.usage_checks[0].basis, UsageBasis::Round);
    assert!(r.warnings.is_empty());
}

#[test]
fn partial_incomplete_block_keeps_what_arrived() {
    let r = one("run/partial-incomplete-block.jsonl");
    assert_eq!(r.verdict, Verdict::NoResult);
    let p = r.partial.as_ref().unwrap();
    assert_eq!(p.verified, 1);
    assert_eq!(p.incomplete.len(), 1);
    let b = &p.incomplete[0];
    assert_eq!(b.block_type, "tool_use");
    assert_eq!(b.tool_use_id.as_deref(), Some("toolu_P"));
    assert_eq!(b.text, "{\"command\": \"cargo");
    assert_eq!(b.input, None, "the input JSON is cut");
    assert_eq!(b.deltas, 2);
    assert_eq!(b.message_id.as_deref(), Some("msg_P"));
}

#[test]
fn partial_mismatch_is_reported() {
    let r = one("run/partial-mismatch.jsonl");
    let p = r.partial.as_ref().unwrap();
    assert_eq!(p.mismatches.len(), 1);
    assert_eq!(p.mismatches[0].reason, "input differs");
    assert!(r.has_warning(WARN_PARTIAL_MISMATCH));
    // message_delta carrying only output_tokens keeps the other counts.
    assert_eq!(r.usage.main.tokens, tokens(3, 45, 2100, 110));
}

// --- allocation: per run, not per line ----------------------------------------------------

mod alloc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    pub struct Counting;

    thread_local! {
        static ON: Cell<bool> = const { Cell::new(false) };
        static COUNT: Cell<u64> = const { Cell::new(0) };
    }

    fn note() {
        let _ = ON.try_with(|on| {
            if on.get() {
                let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            }
        });
    }

    // SAFETY: forwards to the system allocator; only counts.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            note();
            // SAFETY: same contract as ours.
            unsafe { System.alloc(l) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            // SAFETY: same contract as ours.
            unsafe { System.dealloc(p, l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
            note();
            // SAFETY: same contract as ours.
            unsafe { System.realloc(p, l, n) }
        }
    }

    /// Allocations made by `f` on this thread.
    pub fn count(f: impl FnOnce()) -> u64 {
        COUNT.with(|c| c.set(0));
        ON.with(|on| on.set(true));
        f();
        ON.with(|on| on.set(false));
        COUNT.with(|c| c.get())
    }
}

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

fn steady_stream(calls: usize, distinct: bool) -> Vec<u8> {
    let mut s = String::new();
    s.push_str(r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#);
    s.push('\n');
    for i in 0..calls {
        let n = if distinct { i } else { 0 };
        s.push_str(&format!(
            r#"{{"type":"system","subtype":"status","status":"requesting","session_id":"s","uuid":"u"}}
{{"type":"assistant","message":{{"id":"msg_{n}","model":"m","content":[{{"type":"tool_use","id":"toolu_{n}","name":"Bash","input":{{"command":"ls"}}}}],"usage":{{"input_tokens":2,"output_tokens":5}}}},"parent_tool_use_id":null,"session_id":"s","timestamp":"2026-10-03T15:29:17.247Z"}}
{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_{n}","content":"ok"}}]}},"parent_tool_use_id":null,"session_id":"s","timestamp":"2026-10-03T15:29:18.247Z","tool_use_result":{{"stdout":"ok"}}}}
"#
        ));
    }
    s.into_bytes()
}

/// Allocations inside `RunFolder::push` for every event after the first
/// `warm` lines.
fn push_allocations(bytes: &[u8], warm: u64) -> u64 {
    let mut folder = RunFolder::new();
    let mut events = SliceEvents::new(bytes);
    let mut total = 0;
    while let Some(item) = events.next_event() {
        let ev = item.unwrap();
        let n = alloc::count(|| folder.push(&ev));
        if ev.line() > warm {
            total += n;
        }
    }
    total
}

#[test]
fn no_allocation_per_line_in_the_steady_state() {
    // The same call and tool ids again and again: nothing new to keep.
    let same = steady_stream(2000, false);
    assert_eq!(push_allocations(&same, 30), 0);
    // A new call and tool every three lines: only amortised growth of the
    // run's tables (logarithmic in the number of ids), never per line.
    let distinct = steady_stream(20_000, true);
    let n = push_allocations(&distinct, 30);
    assert!(n > 0, "the counter counts growth");
    assert!(n < 200, "{n} allocations for 60,000 lines");
}

#[test]
fn subagent_cycles_in_hostile_input_do_not_loop() {
    // Each Agent call claims to run inside the other.
    let input = br#"{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"A","name":"Agent","input":{}}]},"parent_tool_use_id":"B","session_id":"s"}
{"type":"assistant","message":{"id":"m2","model":"x","content":[{"type":"tool_use","id":"B","name":"Agent","input":{}}]},"parent_tool_use_id":"A","session_id":"s"}
{"type":"assistant","message":{"id":"m3","model":"x","content":[{"type":"tool_use","id":"C","name":"Agent","input":{}}]},"parent_tool_use_id":"C","session_id":"s"}
"#;
    let r = runs_of_slice(input);
    let count = |ns: &[cctape::run::SubagentNode]| -> usize {
        fn walk(ns: &[cctape::run::SubagentNode]) -> usize {
            ns.iter().map(|n| 1 + walk(&n.children)).sum()
        }
        walk(ns)
    };
    assert_eq!(count(&r[0].subagents), 3);
    assert_eq!(r[0].usage.subagents.messages, 3);
}

#[test]
fn totals_over_runs_for_stats() {
    use cctape::run::RunTotals;
    let mut t = RunTotals::new();
    for name in [
        "run/runs-by-session.jsonl",
        "run/verdict-max-budget.jsonl",
        "run/verdict-no-result.jsonl",
    ] {
        for r in runs(name) {
            t.add(&r);
        }
    }
    assert_eq!(t.runs, 4);
    assert_eq!(t.count(Verdict::Success), 2);
    assert_eq!(t.count(Verdict::MaxBudget), 1);
    assert_eq!(t.count(Verdict::NoResult), 1);
    // The exact sum, rounded once (what Python's math.fsum gives).
    assert_eq!(t.cost.value().as_f64(), Some(0.08260525));
    assert_eq!(t.main_messages, 3);
    let j = t.to_json();
    assert_eq!(j["runs"], 4);
    assert_eq!(j["verdicts"]["success"], 2);
    assert_eq!(j["usage"]["main"]["output_tokens"], 30);
}

#[test]
fn drain_idle_hands_out_runs_long_over_and_keeps_the_rest() {
    use cctape::run::RunFolder;
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"a"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"a"}"#,
        r#"{"type":"system","subtype":"init","session_id":"b"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"b"}"#,
        r#"{"type":"system","subtype":"init","session_id":"c"}"#,
        r#"{"type":"result","subtype":"error_max_turns","is_error":false,"session_id":"c"}"#,
        r#"{"type":"system","subtype":"init","session_id":"d"}"#,
    ];
    let input = lines.join("\n");
    let mut folder = RunFolder::new();
    let mut events = cctape::SliceEvents::new(input.as_bytes());
    let mut drained = Vec::new();
    while let Some(item) = events.next_event() {
        let ev = item.expect("event");
        let line = ev.line();
        folder.push(&ev);
        if line == 6 {
            // Runs whose last line is before line 4: only "a".
            drained.extend(folder.drain_idle(4));
        }
    }
    assert_eq!(drained.len(), 1);
    assert_eq!(drained[0].session_id.as_deref(), Some("a"));
    let rest = folder.finish();
    let ids: Vec<_> = rest
        .iter()
        .map(|r| r.session_id.clone().unwrap_or_default())
        .collect();
    assert_eq!(ids, ["b", "c", "d"]);
    assert_eq!(rest[1].verdict.as_str(), "max_turns");
    assert_eq!(rest[2].verdict.as_str(), "no_result");
}

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

// --- allocation: the `cctape stats` read over partial-message streams ----------------------

/// One `stream_event` line of session `sid`.
fn stream_event(sid: &str, event: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"type": "stream_event", "event": event, "session_id": sid,
        "parent_tool_use_id": null, "uuid": "u"})
}

/// One streamed tool call: `content_block_start`, the input in
/// `input_json_delta` fragments cut at `cuts` (char boundaries of the
/// serialized input), the assistant event carrying `fin` as the input, and
/// `content_block_stop`.
#[allow(clippy::too_many_arguments)]
fn streamed_tool(
    out: &mut Vec<serde_json::Value>,
    sid: &str,
    msg: &str,
    index: u64,
    id: &str,
    name: &str,
    streamed: &serde_json::Value,
    fin: serde_json::Value,
) {
    use serde_json::json;
    out.push(stream_event(
        sid,
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
    ));
    let text = serde_json::to_string(streamed).unwrap();
    let cuts: Vec<usize> = (0..=text.len())
        .step_by(7)
        .filter(|&i| text.is_char_boundary(i))
        .chain([text.len()])
        .collect();
    for w in cuts.windows(2) {
        out.push(stream_event(
            sid,
            json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": &text[w[0]..w[1]]}}),
        ));
    }
    out.push(
        json!({"type": "assistant", "message": {"id": msg, "model": "claude-opus-4-1",
        "content": [{"type": "tool_use", "id": id, "name": name, "input": fin}],
        "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1,
        "cache_read_input_tokens": 2100, "cache_creation_input_tokens": 110}},
        "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}),
    );
    out.push(stream_event(
        sid,
        json!({"type": "content_block_stop", "index": index}),
    ));
}

/// A partial-message stream as `claude -p --include-partial-messages`
/// writes it: `rounds` rounds over `sessions` sessions in turn, each round an
/// init, `messages` streamed messages (a thinking block with a signature,
/// an escaped text block, three tool calls: one with keys reordered by the
/// assistant event, an Edit and a `cd && ` Bash that the CLI rewrites),
/// tool results (one long enough to be pruned) and a result. Returns the
/// lines and how many blocks and how many rewritten tool inputs it holds.
fn partial_stats_stream(rounds: usize, messages: usize, sessions: usize) -> (Vec<u8>, u64, u64) {
    use serde_json::json;
    let text = "a \"quoted\" line\n\t\u{e9}\u{1F600} \\ back";
    let thinking = "Let me \"think\"\u{2026}\nabout it\u{1F914}";
    let long = "r".repeat(6000);
    let mut out = Vec::new();
    let (mut blocks, mut rewritten) = (0, 0);
    for round in 0..rounds {
        let sid = format!("s-{}", round % sessions);
        let sid = sid.as_str();
        out.push(
            json!({"type": "system", "subtype": "init", "session_id": sid,
            "model": "claude-opus-4-1", "tools": ["Bash", "Edit"], "uuid": "u"}),
        );
        for m in 0..messages {
            let msg = format!("msg_{}", m % 4);
            let msg = msg.as_str();
            let se = |e| stream_event(sid, e);
            out.push(se(json!({"type": "message_start", "message": {"id": msg,
                "type": "message", "role": "assistant", "model": "claude-opus-4-1",
                "content": [], "stop_reason": null, "usage": {"input_tokens": 3,
                "output_tokens": 1, "cache_read_input_tokens": 2100,
                "cache_creation_input_tokens": 110}}})));
            // Thinking, with its signature.
            out.push(se(json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""}})));
            for _ in 0..3 {
                out.push(se(json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "thinking_delta", "thinking": thinking}})));
            }
            out.push(se(json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl+/=="}})));
            out.push(json!({"type": "system", "subtype": "thinking_tokens",
                "estimated_tokens": 50, "estimated_tokens_delta": 50, "uuid": "u",
                "session_id": sid}));
            out.push(json!({"type": "assistant", "message": {"id": msg,
                "model": "claude-opus-4-1", "content": [{"type": "thinking",
                "thinking": thinking.repeat(3), "signature": "c2lnbmF0dXJl+/=="}],
                "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1}},
                "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}));
            out.push(se(json!({"type": "content_block_stop", "index": 0})));
            // Text, escaped.
            out.push(se(json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "text", "text": ""}})));
            for _ in 0..4 {
                out.push(se(json!({"type": "content_block_delta", "index": 1,
                    "delta": {"type": "text_delta", "text": text}})));
            }
            out.push(json!({"type": "assistant", "message": {"id": msg,
                "model": "claude-opus-4-1", "content": [{"type": "text",
                "text": text.repeat(4)}], "stop_reason": null,
                "usage": {"input_tokens": 3, "output_tokens": 1}},
                "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}));
            out.push(se(json!({"type": "content_block_stop", "index": 1})));
            // Tool calls: keys in another order, numbers of every kind.
            let streamed = json!({"command": "grep -n \"x\" src/*.rs\n", "timeout": 120000,
                "opts": {"n": [1, -2, 2.5, true, null, 1e3], "s": "\u{e9}\u{1F600}", "e": {}}});
            let fin = json!({"opts": {"e": {}, "s": "\u{e9}\u{1F600}",
                "n": [1, -2, 2.5, true, null, 1000]}, "timeout": 120000,
                "command": "grep -n \"x\" src/*.rs\n"});
            streamed_tool(&mut out, sid, msg, 2, "toolu_a", "Bash", &streamed, fin);
            let edit = json!({"file_path": "/w/src/a.rs", "old_string": "let x = 1;\n",
                "new_string": "let x = \"2\";\n"});
            let mut edit_fin = edit.clone();
            edit_fin["replace_all"] = json!(false);
            streamed_tool(&mut out, sid, msg, 3, "toolu_b", "Edit", &edit, edit_fin);
            let cd = json!({"command": "cd /w/repo && cargo test --lib", "description": "Run"});
            let cd_fin = json!({"command": "cargo test --lib", "description": "Run"});
            streamed_tool(&mut out, sid, msg, 4, "toolu_c", "Bash", &cd, cd_fin);
            blocks += 5;
            rewritten += 2;
            out.push(se(
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                "stop_sequence": null}, "usage": {"input_tokens": 3, "output_tokens": 420,
                "cache_read_input_tokens": 2100, "cache_creation_input_tokens": 110}}),
            ));
            out.push(se(json!({"type": "message_stop"})));
            for (id, content) in [
                ("toolu_a", long.as_str()),
                ("toolu_b", "ok"),
                ("toolu_c", "ok"),
            ] {
                out.push(
                    json!({"type": "user", "message": {"role": "user", "content":
                    [{"type": "tool_result", "tool_use_id": id, "content": content}]},
                    "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}),
                );
            }
        }
        out.push(
            json!({"type": "result", "subtype": "success", "is_error": false,
            "num_turns": messages, "result": "done", "total_cost_usd": 0.25,
            "duration_ms": 1000, "session_id": sid, "uuid": "u"}),
        );
    }
    let mut s = String::new();
    for v in out {
        s.push_str(&serde_json::to_string(&v).unwrap());
        s.push('\n');
    }
    (s.into_bytes(), blocks, rewritten)
}

#[test]
fn stats_read_allocates_nothing_per_line_over_partial_messages() {
    use cctape::event::parse_event;
    use cctape::framing::Lines;
    use cctape::json::Scanner;
    use cctape::stats::Stats;
    // Three sessions in turn, two rounds each to warm up (every run, id and
    // buffer seen), then many more rounds of the same shapes.
    let (bytes, blocks, rewritten) = partial_stats_stream(36, 6, 3);
    let warm_rounds = partial_stats_stream(6, 6, 3).0;
    let warm = Lines::new(&warm_rounds).count() as u64;
    let mut scanner = Scanner::new();
    let mut stats = Stats::new();
    let mut folder = RunFolder::new();
    let (mut lines, mut allocations) = (0u64, 0u64);
    for line in Lines::new(&bytes) {
        let n = alloc::count(|| {
            let ev = parse_event(&mut scanner, &line).unwrap();
            stats.record_event(&ev);
            folder.push(&ev);
        });
        if line.number > warm {
            lines += 1;
            allocations += n;
        }
    }
    assert!(lines > 10_000, "{lines} lines after the warm-up");
    assert!(stats.count_of(cctape::EventKind::StreamEvent) > 0);
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over {lines} lines"
    );
    // What was folded is what the stream holds: every block put together
    // from its deltas equals its assistant event, the rewritten tool inputs
    // only after undoing the CLI's rewrites.
    let runs = folder.finish();
    assert_eq!(runs.len(), 3);
    let (mut verified, mut normalized) = (0, 0);
    for r in &runs {
        let p = r.partial.as_ref().unwrap();
        assert!(p.mismatches.is_empty(), "{:?}", p.mismatches);
        assert!(p.incomplete.is_empty(), "{:?}", p.incomplete);
        assert_eq!(p.blocks, p.verified);
        verified += p.verified;
        normalized += p.normalized;
    }
    assert_eq!((verified, normalized), (blocks, rewritten));
}

#[test]
fn runs_share_the_partial_message_buffers() {
    use cctape::event::parse_event;
    use cctape::framing::Lines;
    use cctape::json::Scanner;
    // A new run every round (a folder of many short runs): a new run's
    // tables are its own, but the buffers that put its blocks together are
    // those the runs before grew, so its deltas allocate nothing.
    let (bytes, blocks, _) = partial_stats_stream(40, 2, 40);
    let warm = Lines::new(&partial_stats_stream(2, 2, 40).0).count() as u64;
    let mut scanner = Scanner::new();
    let mut folder = RunFolder::new();
    let (mut deltas, mut allocations) = (0u64, 0u64);
    for line in Lines::new(&bytes) {
        let n = alloc::count(|| folder.push(&parse_event(&mut scanner, &line).unwrap()));
        let text = std::str::from_utf8(line.bytes).unwrap();
        if line.number > warm
            && ["content_block_delta", "content_block_stop", "message_stop"]
                .iter()
                .any(|t| text.contains(&format!(r#""event":{{"type":"{t}""#)))
        {
            deltas += 1;
            allocations += n;
        }
    }
    assert!(deltas > 1000, "{deltas} delta and stop lines");
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over {deltas} lines"
    );
    let runs = folder.finish();
    assert_eq!(runs.len(), 40);
    let verified: u64 = runs
        .iter()
        .map(|r| r.partial.as_ref().unwrap().verified)
        .sum();
    assert_eq!(verified, blocks);
}
