//! Views of `result` events: outcome, costs, usage by model, denials and
//! subagent statistics.

use super::*;

view! {
    /// `result`: a round of the conversation ended. A run may write several
    /// (`result_index` 0, 1, ... when background tasks start new rounds):
    /// the last one decides. `subtype` and `is_error` together tell success
    /// (`subtype` `"success"` can come with `is_error` true). Old 1.0.x
    /// streams carry `cost_usd` and `total_cost` instead of
    /// `total_cost_usd`; see [`ResultView::cost`].
    struct ResultView = "result", open = false;
    /// `"result"`.
    type_: "type" => opt &'d str,
    /// `"success"`, `"error_during_execution"`, `"error_max_turns"`,
    /// `"error_max_budget_usd"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// whether this round failed.
    is_error: "is_error" => opt bool,
    /// `"completed"`, `"api_error"`, `"aborted_streaming"`, `"max_turns"`,
    /// `"budget_exhausted"` (and `"aborted_tools"` in real streams).
    terminal_reason: "terminal_reason" => opt &'d str,
    /// the main agent's last text (the structured result's JSON text with
    /// `--json-schema`); absent on limit failures (`?`).
    result: "result" => opt &'d str,
    /// the result checked against `--json-schema` (`?`).
    structured_output: "structured_output" => opt Value<'d>,
    /// error messages, on failures only (`?`).
    errors: "errors" => arr &'d str,
    /// the API error's HTTP status; absent on limit failures and
    /// interrupts (`?`, `| null`).
    api_error_status: "api_error_status" => null u64,
    /// the last model call's stop reason; null when interrupted.
    stop_reason: "stop_reason" => null &'d str,
    /// model calls in this round, failed ones included.
    num_turns: "num_turns" => opt u64,
    /// total milliseconds.
    duration_ms: "duration_ms" => opt u64,
    /// milliseconds waiting for the API.
    duration_api_ms: "duration_api_ms" => opt u64,
    /// the sum of `modelUsage[*].costUSD`.
    total_cost_usd: "total_cost_usd" => opt f64,
    /// the main agent's calls summed, subagents excluded (may be all 0 on
    /// interrupts and limit failures).
    usage: "usage" => opt Usage<'d>,
    /// model id to its usage, subagents and auxiliary calls included.
    model_usage: "modelUsage" => map ModelUsage<'d>,
    /// the tool calls denied (`[]` when none).
    permission_denials: "permission_denials" => arr PermissionDenial<'d>,
    /// subagent counts (`?`).
    subagent_stats: "subagent_stats" => opt SubagentStats<'d>,
    /// this result's index in the run, from 0.
    result_index: "result_index" => opt u64,
    /// set on rounds a background task started (`?`).
    origin: "origin" => opt Origin<'d>,
    /// turns waiting in the queue (observed 0): user sends still queued
    /// when the result was written; above 0, another turn follows without
    /// further input (claude-codes 2.1.259+ documents it so).
    queued_turn_count: "queued_turn_count" => opt u64,
    /// the user message this result answers (2.1.259+; the public record
    /// past the reference).
    [extra] user_message_uuid: "user_message_uuid" => opt &'d str,
    /// every user message the turn consumed, in order (2.1.259+).
    [extra] user_message_uuids: "user_message_uuids" => arr &'d str,
    /// why Claude Code refused to start (2.1.274+: `cwd_unavailable`,
    /// `worktree_unverified`, `org_pin_mismatch`, ...; an open set): such
    /// a result's verdict is `startup_failure`.
    [extra] startup_failure_reason: "startup_failure_reason" => opt &'d str,
    /// set by a self-hosted runner on the result it writes when the session
    /// process failed to start or exited abnormally (2.1.266+).
    [extra] runner_exit: "runner_exit" => opt RunnerExit<'d>,
    /// the API's own error code, beside `api_error_status` (e.g.
    /// `"credits_required"`).
    [extra] api_error_code: "api_error_code" => opt &'d str,
    /// why the turn was resumed, when it was (a result some host binds to
    /// one submitted prompt treats it as not that prompt's).
    [extra] resume_reason: "resume_reason" => opt &'d str,
    /// `"off"` (`?`).
    fast_mode_state: "fast_mode_state" => opt &'d str,
    /// `"sdk_opt_in_required"` (`?`).
    fast_mode_disabled_reason: "fast_mode_disabled_reason" => opt &'d str,
    /// diagnostic: time to first token, ms (`?`).
    ttft_ms: "ttft_ms" => opt f64,
    /// diagnostic: time to first streamed token, ms (`?`).
    ttft_stream_ms: "ttft_stream_ms" => opt f64,
    /// diagnostic: time to the first content frame, ms (`?`).
    first_content_frame_ms: "first_content_frame_ms" => opt f64,
    /// diagnostic: time until the request was sent, ms (`?`).
    time_to_request_ms: "time_to_request_ms" => opt f64,
    /// diagnostic: the same by phase (`?`).
    time_to_request_phases_ms: "time_to_request_phases_ms" => opt Value<'d>,
    /// diagnostic: CPU ms before the request (`?`).
    time_to_request_cpu_ms: "time_to_request_cpu_ms" => opt f64,
    /// diagnostic: event-loop lag before the request, ms (`?`).
    time_to_request_loop_lag_ms: "time_to_request_loop_lag_ms" => opt f64,
    /// diagnostic: major page faults before the request (`?`).
    time_to_request_major_faults: "time_to_request_major_faults" => opt u64,
    /// diagnostic: ms from process spawn to the request (`?`).
    time_to_request_from_spawn_ms: "time_to_request_from_spawn_ms" => opt f64,
    /// diagnostic: the timing origin, ms (`?`).
    time_origin_ms: "time_origin_ms" => opt f64,
    /// diagnostic (`?`).
    input_attachments_detail: "input_attachments_detail" => opt Value<'d>,
    /// diagnostic (`?`).
    turn_start_resume_kind: "turn_start_resume_kind" => opt &'d str,
    /// diagnostic (`?`).
    process_turn_index: "process_turn_index" => opt u64,
    /// diagnostic (`?`).
    warm_spare_claimed: "warm_spare_claimed" => opt bool,
    /// diagnostic (`?`).
    flag_fetch_kick: "flag_fetch_kick" => opt Value<'d>,
    /// the cost in 1.0.x streams (real streams; not in the reference).
    [extra] cost_usd: "cost_usd" => opt f64,
    /// the cost in 1.0.x streams (real streams; not in the reference).
    [extra] total_cost: "total_cost" => opt f64;
    calls [cost]
}

impl ResultView<'_> {
    /// The run's cost: `total_cost_usd`, or the 1.0.x `cost_usd` or
    /// `total_cost`.
    pub fn cost(&self) -> Option<f64> {
        self.total_cost_usd()
            .or_else(|| self.cost_usd())
            .or_else(|| self.total_cost())
    }
}

view! {
    /// `result.runner_exit` (2.1.266+): how a self-hosted runner's session
    /// process ended.
    struct RunnerExit = "RunnerExit", open = false;
    /// `"setup"` (while starting) or `"run"`; an open set.
    [extra] phase: "phase" => opt &'d str,
    /// the process's exit code (null when a signal ended it).
    [extra] exit_code: "exit_code" => null i64,
    /// the signal that ended it (null when it exited with a code).
    [extra] signal: "signal" => null &'d str,
}

view! {
    /// One element of `result.permission_denials`.
    struct PermissionDenial = "PermissionDenial", open = false;
    /// the tool denied.
    tool_name: "tool_name" => opt &'d str,
    /// the denied call's id.
    tool_use_id: "tool_use_id" => opt &'d str,
    /// the denied call's input.
    tool_input: "tool_input" => opt ToolInput<'d>,
}

view! {
    /// `result.subagent_stats`.
    struct SubagentStats = "SubagentStats", open = false;
    /// subagents spawned.
    spawned: "spawned" => opt u64,
    /// subagents completed.
    completed: "completed" => opt u64,
    /// subagents failed.
    failed: "failed" => opt u64,
    /// requests by run mode.
    requested: "requested" => opt SubagentRequested<'d>,
    /// subagents started in the background.
    started_in_background: "started_in_background" => opt u64,
    /// subagents spawned by subagents.
    spawned_by_subagents: "spawned_by_subagents" => opt u64,
    /// the deepest nesting.
    max_depth: "max_depth" => opt u64,
    /// kills by who killed.
    killed: "killed" => opt SubagentKilled<'d>,
    /// refusals by reason.
    refused: "refused" => opt SubagentRefused<'d>,
    /// subagent type to count, e.g. `{"general-purpose": 2}`.
    by_type: "by_type" => map u64,
}

view! {
    /// `subagent_stats.requested`.
    struct SubagentRequested = "SubagentRequested", open = false;
    /// requested in the background.
    background: "background" => opt u64,
    /// requested in the foreground.
    foreground: "foreground" => opt u64,
    /// requested without saying.
    unset: "unset" => opt u64,
}

view! {
    /// `subagent_stats.killed`.
    struct SubagentKilled = "SubagentKilled", open = false;
    /// killed by the parent.
    parent: "parent" => opt u64,
    /// killed by the user.
    user: "user" => opt u64,
    /// killed by the system.
    system: "system" => opt u64,
}

view! {
    /// `subagent_stats.refused`.
    struct SubagentRefused = "SubagentRefused", open = false;
    /// refused for depth.
    depth_limit: "depth_limit" => opt u64,
    /// refused for concurrency.
    concurrency_limit: "concurrency_limit" => opt u64,
    /// refused for budget.
    budget: "budget" => opt u64,
}

view! {
    /// `result.origin`: why this round started.
    struct Origin = "Origin", open = false;
    /// `"task-notification"`.
    kind: "kind" => opt &'d str,
    /// `"session-task"`.
    producer: "producer" => opt &'d str,
}
