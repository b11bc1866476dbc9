//! What a run counts: server tools, warnings, usage and cost, tools,
//! subagents (and their cycles in hostile input), retries and hooks,
//! partial messages, and the totals over runs.

use cctape::SliceEvents;
use cctape::run::{
    RunFolder, UsageBasis, Verdict, WARN_BAD_LINE, WARN_COST_MISMATCH, WARN_PARTIAL_MISMATCH,
    WARN_SUCCESS_EMPTY_RESULT, WARN_SUCCESS_STOP_TOOL_USE, WARN_TRUNCATED, runs_of_slice,
};

use crate::{codes, corpus, one, runs, tokens};

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

/// The last result's `subagent_stats` is kept as its JSON text, and the
/// counts the stream is checked against are read from it as `serde_json`
/// reads them: the last of a repeated key; a count that is not a
/// non-negative integer is not one; an object that is not one gives a
/// check with no counts; a later result without it leaves no check.
#[test]
fn subagent_stats_kept_as_written_and_read_as_serde_reads_it() {
    let run = |stats: &str, more: &str| {
        let input = format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}}\n\
             {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"session_id\":\"s\",\"subagent_stats\":{stats}}}\n{more}"
        );
        let mut r = runs_of_slice(input.as_bytes());
        assert_eq!(r.len(), 1, "{stats}");
        r.remove(0)
    };
    let text = r#"{"spawned":1,"completed":2,"spawned":3,"max_depth":-1,"by_type":{"Plan":2}}"#;
    let r = run(text, "");
    assert_eq!(
        r.last_result
            .as_ref()
            .and_then(|l| l.subagent_stats.as_deref()),
        Some(text)
    );
    let c = r.subagent_check.expect("a check");
    assert_eq!(
        (
            c.reported_spawned,
            c.reported_completed,
            c.reported_max_depth
        ),
        (Some(3), Some(2), None)
    );
    let j: serde_json::Value = serde_json::from_str(text).expect("json");
    assert_eq!(j["spawned"].as_u64(), Some(3), "the oracle keeps the last");
    let r = run("[1,2]", "");
    let c = r.subagent_check.expect("a check");
    assert_eq!(
        (
            c.reported_spawned,
            c.reported_completed,
            c.reported_max_depth
        ),
        (None, None, None)
    );
    assert!(run("null", "").subagent_check.is_none());
    let later = "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"session_id\":\"s\"}\n";
    let r = run(text, later);
    assert!(r.subagent_check.is_none(), "the last result decides");
    assert_eq!(r.last_result.and_then(|l| l.subagent_stats), None);
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

/// `depth` Agent calls, each inside the subagent the one before launched.
fn nested_agents(depth: usize) -> String {
    let mut s = String::from(r#"{"type":"system","subtype":"init","session_id":"s","model":"x"}"#);
    for i in 0..depth {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"t{}\"", i - 1)
        };
        s.push_str(&format!(
            "\n{{\"type\":\"assistant\",\"message\":{{\"id\":\"m{i}\",\"model\":\"x\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"Agent\",\"input\":{{}}}}],\"usage\":{{\"input_tokens\":1,\"output_tokens\":2}}}},\"parent_tool_use_id\":{parent},\"session_id\":\"s\"}}"
        ));
    }
    s.push_str("\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"session_id\":\"s\",\"subagent_stats\":{\"spawned\":1}}\n");
    s
}

/// The deepest level of a subagent tree, walked without recursion.
fn tree_depth(ns: &[cctape::run::SubagentNode]) -> usize {
    let mut stack: Vec<(&cctape::run::SubagentNode, usize)> = ns.iter().map(|n| (n, 1)).collect();
    let mut deepest = 0;
    while let Some((n, d)) = stack.pop() {
        deepest = deepest.max(d);
        stack.extend(n.children.iter().map(|c| (c, d + 1)));
    }
    deepest
}

#[test]
fn subagents_nested_past_the_trees_levels_are_drawn_at_its_last() {
    use cctape::run::WARN_DEEP_SUBAGENTS;
    // 20,000 levels: the record's serialization, the tree's drop and every
    // recursive walk over it overflowed the stack before the tree kept at
    // most 32 (a 2 MiB test thread gave out well before).
    let input = nested_agents(20_000);
    let r = runs_of_slice(input.as_bytes());
    let run = &r[0];
    assert_eq!(
        run.subagent_count(),
        20_000,
        "every subagent is still counted"
    );
    assert_eq!(tree_depth(&run.subagents), 32);
    let check = run
        .subagent_check
        .as_ref()
        .expect("subagent_stats was given");
    assert_eq!(check.seen_max_depth, 20_000, "the depth the stream gives");
    assert_eq!(run.usage.subagents.messages, 19_999);
    let w = run
        .warnings
        .iter()
        .find(|w| w.code == WARN_DEEP_SUBAGENTS)
        .expect("the warning");
    assert_eq!(
        w.line,
        Some(34),
        "the tool use of the first subagent moved (t32, line 34)"
    );
    assert!(
        w.message
            .starts_with("19968 subagents nested deeper than 32 levels"),
        "{}",
        w.message
    );
    // The record writes, and its tree is as deep as the one kept.
    let json = serde_json::to_string(&cctape::report::run_record(run, "deep.jsonl")).unwrap();
    // Levels 1 to 31 have children; the 19,969 nodes at level 32 are leaves.
    assert_eq!(json.matches("\"children\":[{").count(), 31);
    assert_eq!(json.matches("\"children\":[]").count(), 19_969);
    // serde_json reads it back (its limit is 128 levels).
    let back: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(back["subagent_count"], 20_000);
    assert!(json.contains("\"subagent_count\":20000"));

    // 32 levels are kept as they are, with no warning.
    let r = runs_of_slice(nested_agents(32).as_bytes());
    assert_eq!(tree_depth(&r[0].subagents), 32);
    assert!(!r[0].has_warning(WARN_DEEP_SUBAGENTS));
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
