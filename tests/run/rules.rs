//! What a run is and its verdict: runs by session, rounds, draining, the
//! verdict and exit code rules, newer Claude Code's subtypes and result
//! indexes, and one definition of a run in every fold.

use cctape::run::{
    IDLE_LINES, RunFolder, RunReader, RunSummary, UsageBasis, Verdict, VerdictSource,
    WARN_ACTIVITY_AFTER_RESULT, WARN_EXIT_CODE, WARN_IS_ERROR_DISAGREES, WARN_LOST_RESULT,
    WARN_UNKNOWN_SUBTYPE, runs_of_reader, runs_of_slice,
};
use cctape::{SliceEvents, TokenCounts};

use crate::{codes, corpus, one, runs, tokens};

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

#[test]
fn drain_idle_in_order_stops_at_the_first_run_still_held() {
    use cctape::run::RunFolder;
    // "a" has no result and began first: "b" and "c" are long over, but
    // handing them out before "a" would break the order `finish` gives.
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"a"}"#,
        r#"{"type":"system","subtype":"init","session_id":"b"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"b"}"#,
        r#"{"type":"system","subtype":"init","session_id":"c"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"c"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"a"}"#,
        r#"{"type":"system","subtype":"init","session_id":"d"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"d"}"#,
    ];
    let input = lines.join("\n");
    let mut folder = RunFolder::new();
    let mut events = cctape::SliceEvents::new(input.as_bytes());
    let mut drained: Vec<(u64, Vec<String>)> = Vec::new();
    while let Some(item) = events.next_event() {
        let ev = item.expect("event");
        let line = ev.line();
        folder.push(&ev);
        let ids = folder
            .drain_idle_in_order(line)
            .into_iter()
            .map(|r| r.session_id.unwrap_or_default())
            .collect::<Vec<_>>();
        if !ids.is_empty() {
            drained.push((line, ids));
        }
    }
    // Nothing while "a" is held; at line 7 (another run current) "a", "b"
    // and "c" together; "d", current and last, only at the end.
    assert_eq!(
        drained,
        [(7, vec!["a".to_string(), "b".into(), "c".into()])]
    );
    let rest: Vec<_> = folder.finish().into_iter().map(|r| r.session_id).collect();
    assert_eq!(rest, [Some("d".to_string())]);
}
