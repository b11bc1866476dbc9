//! Views of the remaining events: `active_goal`, `autocompact_state` and
//! `rate_limit_event` (reference), and `control_request`,
//! `control_response`, `control_cancel_request` and `tool_progress` (real
//! streams).

use super::*;

view! {
    /// `active_goal`: seen only in Cloud Managed containers; skip it.
    struct ActiveGoalView = "active_goal", open = false;
    /// `"active_goal"`.
    type_: "type" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// observed null.
    value_: "value" => null Value<'d>,
}

view! {
    /// `autocompact_state`: seen only in Cloud Managed containers, set from
    /// the environment.
    struct AutocompactStateView = "autocompact_state", open = false;
    /// `"autocompact_state"`.
    type_: "type" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the state.
    value_: "value" => opt AutocompactValue<'d>,
}

view! {
    /// `autocompact_state.value`: `source` plus any keys.
    struct AutocompactValue = "AutocompactValue", open = true;
    /// `"env"`.
    source: "source" => opt &'d str,
}

view! {
    /// `rate_limit_event`: the subscription's usage windows. The reference
    /// types `rate_limit_info` as any object and lists its keys in prose;
    /// real streams add `utilization` and `surpassedThreshold`.
    struct RateLimitEventView = "rate_limit_event", open = false;
    /// `"rate_limit_event"`.
    type_: "type" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the limits.
    rate_limit_info: "rate_limit_info" => opt RateLimitInfo<'d>,
}

view! {
    /// `rate_limit_event.rate_limit_info`.
    struct RateLimitInfo = "RateLimitInfo", open = false;
    /// `"allowed"`, `"allowed_warning"`.
    status: "status" => opt &'d str,
    /// when the window resets (epoch seconds).
    resets_at: "resetsAt" => opt u64,
    /// `"five_hour"`, `"seven_day_overage_included"`, ...
    rate_limit_type: "rateLimitType" => opt &'d str,
    /// the overage status.
    overage_status: "overageStatus" => opt &'d str,
    /// why overage is disabled.
    overage_disabled_reason: "overageDisabledReason" => opt &'d str,
    /// whether overage is in use.
    is_using_overage: "isUsingOverage" => opt bool,
    /// the windows.
    unified_windows: "unifiedWindows" => opt UnifiedWindows<'d>,
    /// the fraction used (real streams).
    [extra] utilization: "utilization" => opt f64,
    /// the warning threshold crossed (real streams).
    [extra] surpassed_threshold: "surpassedThreshold" => opt f64,
}

view! {
    /// `rate_limit_info.unifiedWindows`.
    struct UnifiedWindows = "UnifiedWindows", open = false;
    /// the five-hour window.
    five_hour: "five_hour" => opt UsageWindow<'d>,
    /// the seven-day window.
    seven_day: "seven_day" => opt UsageWindow<'d>,
}

view! {
    /// One window of `unifiedWindows`.
    struct UsageWindow = "UsageWindow", open = false;
    /// the fraction used.
    utilization: "utilization" => opt f64,
    /// when it resets (epoch seconds).
    resets_at: "resetsAt" => opt u64,
}

view! {
    /// `control_request` (real streams, with `--input-format stream-json`
    /// or `--permission-prompt-tool stdio`): the CLI asks the caller, e.g.
    /// whether a tool may run.
    struct ControlRequestView = "control_request", open = false;
    /// `"control_request"`.
    [extra] type_: "type" => opt &'d str,
    /// the request's id.
    [extra] request_id: "request_id" => opt &'d str,
    /// the request.
    [extra] request: "request" => opt ControlRequestBody<'d>,
    /// the session id (when present).
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's id (when present).
    [extra] uuid: "uuid" => opt &'d str,
}

view! {
    /// `control_request.request`.
    struct ControlRequestBody = "ControlRequestBody", open = false;
    /// `"can_use_tool"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the tool.
    [extra] tool_name: "tool_name" => opt &'d str,
    /// the tool's display name.
    [extra] display_name: "display_name" => opt &'d str,
    /// the call's input.
    [extra] input: "input" => opt ToolInput<'d>,
    /// what the call does.
    [extra] description: "description" => opt &'d str,
    /// suggested permission changes.
    [extra] permission_suggestions: "permission_suggestions" => arr PermissionSuggestion<'d>,
    /// the call's id.
    [extra] tool_use_id: "tool_use_id" => opt &'d str,
}

view! {
    /// One element of `permission_suggestions`.
    struct PermissionSuggestion = "PermissionSuggestion", open = false;
    /// e.g. `"setMode"`.
    [extra] type_: "type" => opt &'d str,
    /// the suggested mode.
    [extra] mode: "mode" => opt &'d str,
    /// where to save it.
    [extra] destination: "destination" => opt &'d str,
}

view! {
    /// `control_response` (real streams): the answer to a control request.
    struct ControlResponseView = "control_response", open = false;
    /// `"control_response"`.
    [extra] type_: "type" => opt &'d str,
    /// the response.
    [extra] response: "response" => opt ControlResponseBody<'d>,
    /// the session id (when present).
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's id (when present).
    [extra] uuid: "uuid" => opt &'d str,
}

view! {
    /// `control_response.response`.
    struct ControlResponseBody = "ControlResponseBody", open = false;
    /// `"success"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the request answered.
    [extra] request_id: "request_id" => opt &'d str,
    /// the payload (e.g. `{still_queued: []}`).
    [extra] response: "response" => opt Value<'d>,
}

view! {
    /// `control_cancel_request` (real streams): a pending control request
    /// is withdrawn. It has no `session_id` or `uuid`.
    struct ControlCancelRequestView = "control_cancel_request", open = false;
    /// `"control_cancel_request"`.
    [extra] type_: "type" => opt &'d str,
    /// the request withdrawn.
    [extra] request_id: "request_id" => opt &'d str,
}

view! {
    /// `tool_progress` (quoted from real streams): a long-running tool's
    /// heartbeat.
    struct ToolProgressView = "tool_progress", open = false;
    /// `"tool_progress"`.
    [extra] type_: "type" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's id.
    [extra] uuid: "uuid" => opt &'d str,
    /// e.g. `toolu_...-heartbeat-0`.
    [extra] tool_use_id: "tool_use_id" => opt &'d str,
    /// the tool.
    [extra] tool_name: "tool_name" => opt &'d str,
    /// null on the main agent, the Agent call's id in a subagent.
    [extra] parent_tool_use_id: "parent_tool_use_id" => null &'d str,
    /// seconds so far.
    [extra] elapsed_time_seconds: "elapsed_time_seconds" => opt f64,
    /// `true`.
    [extra] heartbeat: "heartbeat" => opt bool,
    /// the task's id.
    [extra] task_id: "task_id" => opt &'d str,
}
