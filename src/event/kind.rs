//! [`EventKind`]: what a line is, from its `type` and `subtype`, in either
//! dialect: the stream's events ([`EventKind::from_type`]) and the session
//! transcripts' records ([`EventKind::from_record_type`]), one enum for both.

/// What an event is, from its `type` and `subtype`: one kind for both
/// dialects.
///
/// Every type and subtype of the field reference has a variant, and so do
/// those real streams carry beyond it. A `system` or `result` event with a
/// subtype not listed is [`SystemOther`](EventKind::SystemOther) or
/// [`ResultOther`](EventKind::ResultOther) (a result is still a result);
/// any other type is [`Unknown`](EventKind::Unknown). Neither is an error:
/// [`Event::raw_type`](super::Event::raw_type) and
/// [`Event::raw_subtype`](super::Event::raw_subtype) give the names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum EventKind {
    /// `system/init`: the session's configuration, once per round.
    SystemInit,
    /// `system/status`: a request to the model is starting (or compaction).
    SystemStatus,
    /// `system/task_summary`: a one-line description of the current action.
    SystemTaskSummary,
    /// `system/post_turn_summary`: a summary of a finished assistant turn.
    SystemPostTurnSummary,
    /// `system/thinking_tokens`: estimated thinking tokens so far.
    SystemThinkingTokens,
    /// `system/api_retry`: a failed API request being retried (no uuid).
    SystemApiRetry,
    /// `system/permission_denied`: a tool call needed approval nobody gave.
    SystemPermissionDenied,
    /// `system/hook_started`: a hook command started.
    SystemHookStarted,
    /// `system/hook_response`: a hook command finished.
    SystemHookResponse,
    /// `system/hook_progress`: output of a hook still running (real streams,
    /// e.g. a `SessionStart` hook before `init`).
    SystemHookProgress,
    /// `system/background_tasks_changed`: the full list of background tasks.
    SystemBackgroundTasksChanged,
    /// `system/task_started`: a subagent, workflow or background Bash started.
    SystemTaskStarted,
    /// `system/task_progress`: progress of a task.
    SystemTaskProgress,
    /// `system/task_updated`: a task's status patch.
    SystemTaskUpdated,
    /// `system/task_notification`: a task finished or stopped.
    SystemTaskNotification,
    /// `system/compact_boundary`: context compaction happened (real streams).
    SystemCompactBoundary,
    /// `system/notification`: a notice such as `stop-hook-error` (real streams).
    SystemNotification,
    /// `system/vcs_state_changed`: a shell command changed the repository
    /// (a commit, a push; 2.1.217+, real streams of 2.1.219 and 2.1.220).
    SystemVcsStateChanged,
    /// `system/dev_intent`: what the project was taken to be (public record
    /// past the reference).
    SystemDevIntent,
    /// `system/turn_preempted`: a running turn gave way to a newer one
    /// (public record past the reference).
    SystemTurnPreempted,
    /// `system/peer_message_hold`: a message from another session held (or
    /// dropped) rather than delivered (public record past the reference).
    SystemPeerMessageHold,
    /// `system/cloud_session_delta`: a cloud session's change (public record
    /// past the reference).
    SystemCloudSessionDelta,
    /// `system/per_turn_effort_changed`: the per-turn effort changed
    /// (public record past the reference).
    SystemPerTurnEffortChanged,
    /// A `system` event with another subtype, or none.
    SystemOther,
    /// `assistant`: one content block of a model response.
    Assistant,
    /// `user`: a tool result, a replayed prompt or injected text.
    User,
    /// `stream_event`: a partial-message event of the Messages API.
    StreamEvent,
    /// `result/success`.
    ResultSuccess,
    /// `result/error_during_execution`.
    ResultErrorDuringExecution,
    /// `result/error_max_turns`.
    ResultErrorMaxTurns,
    /// `result/error_max_budget_usd`.
    ResultErrorMaxBudgetUsd,
    /// A `result` with another subtype, or none (old streams).
    ResultOther,
    /// `active_goal` (Cloud Managed containers).
    ActiveGoal,
    /// `autocompact_state` (Cloud Managed containers).
    AutocompactState,
    /// `rate_limit_event`: the subscription's usage windows.
    RateLimitEvent,
    /// `control_request` (stdin control protocol; real streams).
    ControlRequest,
    /// `control_response` (real streams).
    ControlResponse,
    /// `control_cancel_request` (real streams; no session_id or uuid).
    ControlCancelRequest,
    /// `tool_progress`: a long-running tool's heartbeat.
    ToolProgress,
    /// `system/stop_hook_summary` (transcripts): what the Stop hooks did.
    SystemStopHookSummary,
    /// `system/turn_duration` (transcripts): how long a turn took.
    SystemTurnDuration,
    /// `system/local_command` (transcripts): a slash command run locally
    /// (`/model`).
    SystemLocalCommand,
    /// `system/api_error` (transcripts): an API request failed.
    SystemApiError,
    /// `summary` (transcripts): a title for a conversation (`leafUuid`).
    Summary,
    /// `file-history-snapshot` (transcripts): files backed up before an
    /// edit.
    FileHistorySnapshot,
    /// `progress` (transcripts): hook, Bash, agent or task progress
    /// (`data.type`).
    Progress,
    /// `queue-operation` (transcripts): a prompt queued or dequeued while
    /// busy.
    QueueOperation,
    /// `result` in a transcript: a tool's result kept apart (`toolUseId`,
    /// `content`), not a run's result ([`is_result`](EventKind::is_result)
    /// is false).
    ToolResultRecord,
    /// Any other type.
    Unknown,
}

impl EventKind {
    /// The kind for a `type` and optional `subtype`.
    pub fn from_type(ty: &str, subtype: Option<&str>) -> EventKind {
        match ty {
            "assistant" => EventKind::Assistant,
            "user" => EventKind::User,
            "stream_event" => EventKind::StreamEvent,
            "system" => match subtype {
                Some("init") => EventKind::SystemInit,
                Some("status") => EventKind::SystemStatus,
                Some("task_summary") => EventKind::SystemTaskSummary,
                Some("post_turn_summary") => EventKind::SystemPostTurnSummary,
                Some("thinking_tokens") => EventKind::SystemThinkingTokens,
                Some("api_retry") => EventKind::SystemApiRetry,
                Some("permission_denied") => EventKind::SystemPermissionDenied,
                Some("hook_started") => EventKind::SystemHookStarted,
                Some("hook_response") => EventKind::SystemHookResponse,
                Some("hook_progress") => EventKind::SystemHookProgress,
                Some("background_tasks_changed") => EventKind::SystemBackgroundTasksChanged,
                Some("task_started") => EventKind::SystemTaskStarted,
                Some("task_progress") => EventKind::SystemTaskProgress,
                Some("task_updated") => EventKind::SystemTaskUpdated,
                Some("task_notification") => EventKind::SystemTaskNotification,
                Some("compact_boundary") => EventKind::SystemCompactBoundary,
                Some("notification") => EventKind::SystemNotification,
                Some("vcs_state_changed") => EventKind::SystemVcsStateChanged,
                Some("dev_intent") => EventKind::SystemDevIntent,
                Some("turn_preempted") => EventKind::SystemTurnPreempted,
                Some("peer_message_hold") => EventKind::SystemPeerMessageHold,
                Some("cloud_session_delta") => EventKind::SystemCloudSessionDelta,
                Some("per_turn_effort_changed") => EventKind::SystemPerTurnEffortChanged,
                _ => EventKind::SystemOther,
            },
            "result" => match subtype {
                Some("success") => EventKind::ResultSuccess,
                Some("error_during_execution") => EventKind::ResultErrorDuringExecution,
                Some("error_max_turns") => EventKind::ResultErrorMaxTurns,
                Some("error_max_budget_usd") => EventKind::ResultErrorMaxBudgetUsd,
                _ => EventKind::ResultOther,
            },
            "active_goal" => EventKind::ActiveGoal,
            "autocompact_state" => EventKind::AutocompactState,
            "rate_limit_event" => EventKind::RateLimitEvent,
            "control_request" => EventKind::ControlRequest,
            "control_response" => EventKind::ControlResponse,
            "control_cancel_request" => EventKind::ControlCancelRequest,
            "tool_progress" => EventKind::ToolProgress,
            _ => EventKind::Unknown,
        }
    }

    /// The kind of a session transcript's record (the other dialect): the
    /// record types real transcripts carry, `user` and `assistant` as in the
    /// stream, and a `result` holding a `toolUseId` as
    /// [`ToolResultRecord`](EventKind::ToolResultRecord); any other `system`
    /// subtype is [`SystemOther`](EventKind::SystemOther), any other type
    /// [`Unknown`](EventKind::Unknown). The stream's kinds a transcript does
    /// not carry are never given.
    ///
    /// ```
    /// use cctape::EventKind;
    ///
    /// assert_eq!(EventKind::from_record_type("progress", None), EventKind::Progress);
    /// assert_eq!(EventKind::from_record_type("result", None), EventKind::ToolResultRecord);
    /// assert_eq!(EventKind::from_type("result", None), EventKind::ResultOther);
    /// assert_eq!(EventKind::from_record_type("system", Some("init")), EventKind::SystemOther);
    /// ```
    pub fn from_record_type(ty: &str, subtype: Option<&str>) -> EventKind {
        match ty {
            "user" => EventKind::User,
            "assistant" => EventKind::Assistant,
            "system" => match subtype {
                Some("stop_hook_summary") => EventKind::SystemStopHookSummary,
                Some("turn_duration") => EventKind::SystemTurnDuration,
                Some("compact_boundary") => EventKind::SystemCompactBoundary,
                Some("local_command") => EventKind::SystemLocalCommand,
                Some("api_error") => EventKind::SystemApiError,
                _ => EventKind::SystemOther,
            },
            "summary" => EventKind::Summary,
            "file-history-snapshot" => EventKind::FileHistorySnapshot,
            "progress" => EventKind::Progress,
            "queue-operation" => EventKind::QueueOperation,
            "result" => EventKind::ToolResultRecord,
            _ => EventKind::Unknown,
        }
    }

    /// The kinds a transcript's records are given
    /// ([`from_record_type`](EventKind::from_record_type)), in the order
    /// their counts are listed.
    pub const RECORDS: [EventKind; 14] = [
        EventKind::User,
        EventKind::Assistant,
        EventKind::SystemStopHookSummary,
        EventKind::SystemTurnDuration,
        EventKind::SystemCompactBoundary,
        EventKind::SystemLocalCommand,
        EventKind::SystemApiError,
        EventKind::SystemOther,
        EventKind::Summary,
        EventKind::FileHistorySnapshot,
        EventKind::Progress,
        EventKind::QueueOperation,
        EventKind::ToolResultRecord,
        EventKind::Unknown,
    ];

    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 49] = [
        EventKind::SystemInit,
        EventKind::SystemStatus,
        EventKind::SystemTaskSummary,
        EventKind::SystemPostTurnSummary,
        EventKind::SystemThinkingTokens,
        EventKind::SystemApiRetry,
        EventKind::SystemPermissionDenied,
        EventKind::SystemHookStarted,
        EventKind::SystemHookResponse,
        EventKind::SystemHookProgress,
        EventKind::SystemBackgroundTasksChanged,
        EventKind::SystemTaskStarted,
        EventKind::SystemTaskProgress,
        EventKind::SystemTaskUpdated,
        EventKind::SystemTaskNotification,
        EventKind::SystemCompactBoundary,
        EventKind::SystemNotification,
        EventKind::SystemVcsStateChanged,
        EventKind::SystemDevIntent,
        EventKind::SystemTurnPreempted,
        EventKind::SystemPeerMessageHold,
        EventKind::SystemCloudSessionDelta,
        EventKind::SystemPerTurnEffortChanged,
        EventKind::SystemOther,
        EventKind::Assistant,
        EventKind::User,
        EventKind::StreamEvent,
        EventKind::ResultSuccess,
        EventKind::ResultErrorDuringExecution,
        EventKind::ResultErrorMaxTurns,
        EventKind::ResultErrorMaxBudgetUsd,
        EventKind::ResultOther,
        EventKind::ActiveGoal,
        EventKind::AutocompactState,
        EventKind::RateLimitEvent,
        EventKind::ControlRequest,
        EventKind::ControlResponse,
        EventKind::ControlCancelRequest,
        EventKind::ToolProgress,
        EventKind::SystemStopHookSummary,
        EventKind::SystemTurnDuration,
        EventKind::SystemLocalCommand,
        EventKind::SystemApiError,
        EventKind::Summary,
        EventKind::FileHistorySnapshot,
        EventKind::Progress,
        EventKind::QueueOperation,
        EventKind::ToolResultRecord,
        EventKind::Unknown,
    ];

    /// A dense index (0..[`EventKind::ALL`].len()) for counting by kind.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `"type/subtype"` (or `"type"`) for kinds with fixed names; `None` for
    /// [`SystemOther`](EventKind::SystemOther), [`ResultOther`](EventKind::ResultOther)
    /// and [`Unknown`](EventKind::Unknown), whose names come from the line.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            EventKind::SystemInit => "system/init",
            EventKind::SystemStatus => "system/status",
            EventKind::SystemTaskSummary => "system/task_summary",
            EventKind::SystemPostTurnSummary => "system/post_turn_summary",
            EventKind::SystemThinkingTokens => "system/thinking_tokens",
            EventKind::SystemApiRetry => "system/api_retry",
            EventKind::SystemPermissionDenied => "system/permission_denied",
            EventKind::SystemHookStarted => "system/hook_started",
            EventKind::SystemHookResponse => "system/hook_response",
            EventKind::SystemHookProgress => "system/hook_progress",
            EventKind::SystemBackgroundTasksChanged => "system/background_tasks_changed",
            EventKind::SystemTaskStarted => "system/task_started",
            EventKind::SystemTaskProgress => "system/task_progress",
            EventKind::SystemTaskUpdated => "system/task_updated",
            EventKind::SystemTaskNotification => "system/task_notification",
            EventKind::SystemCompactBoundary => "system/compact_boundary",
            EventKind::SystemNotification => "system/notification",
            EventKind::SystemVcsStateChanged => "system/vcs_state_changed",
            EventKind::SystemDevIntent => "system/dev_intent",
            EventKind::SystemTurnPreempted => "system/turn_preempted",
            EventKind::SystemPeerMessageHold => "system/peer_message_hold",
            EventKind::SystemCloudSessionDelta => "system/cloud_session_delta",
            EventKind::SystemPerTurnEffortChanged => "system/per_turn_effort_changed",
            EventKind::Assistant => "assistant",
            EventKind::User => "user",
            EventKind::StreamEvent => "stream_event",
            EventKind::ResultSuccess => "result/success",
            EventKind::ResultErrorDuringExecution => "result/error_during_execution",
            EventKind::ResultErrorMaxTurns => "result/error_max_turns",
            EventKind::ResultErrorMaxBudgetUsd => "result/error_max_budget_usd",
            EventKind::ActiveGoal => "active_goal",
            EventKind::AutocompactState => "autocompact_state",
            EventKind::RateLimitEvent => "rate_limit_event",
            EventKind::ControlRequest => "control_request",
            EventKind::ControlResponse => "control_response",
            EventKind::ControlCancelRequest => "control_cancel_request",
            EventKind::ToolProgress => "tool_progress",
            EventKind::SystemStopHookSummary => "system/stop_hook_summary",
            EventKind::SystemTurnDuration => "system/turn_duration",
            EventKind::SystemLocalCommand => "system/local_command",
            EventKind::SystemApiError => "system/api_error",
            EventKind::Summary => "summary",
            EventKind::FileHistorySnapshot => "file-history-snapshot",
            EventKind::Progress => "progress",
            EventKind::QueueOperation => "queue-operation",
            EventKind::ToolResultRecord => "result",
            EventKind::SystemOther | EventKind::ResultOther | EventKind::Unknown => return None,
        })
    }

    /// True for every `result` kind, known subtype or not.
    pub fn is_result(self) -> bool {
        matches!(
            self,
            EventKind::ResultSuccess
                | EventKind::ResultErrorDuringExecution
                | EventKind::ResultErrorMaxTurns
                | EventKind::ResultErrorMaxBudgetUsd
                | EventKind::ResultOther
        )
    }

    /// True for every `system` kind.
    pub fn is_system(self) -> bool {
        matches!(
            self,
            EventKind::SystemInit
                | EventKind::SystemStatus
                | EventKind::SystemTaskSummary
                | EventKind::SystemPostTurnSummary
                | EventKind::SystemThinkingTokens
                | EventKind::SystemApiRetry
                | EventKind::SystemPermissionDenied
                | EventKind::SystemHookStarted
                | EventKind::SystemHookResponse
                | EventKind::SystemHookProgress
                | EventKind::SystemBackgroundTasksChanged
                | EventKind::SystemTaskStarted
                | EventKind::SystemTaskProgress
                | EventKind::SystemTaskUpdated
                | EventKind::SystemTaskNotification
                | EventKind::SystemCompactBoundary
                | EventKind::SystemNotification
                | EventKind::SystemVcsStateChanged
                | EventKind::SystemDevIntent
                | EventKind::SystemTurnPreempted
                | EventKind::SystemPeerMessageHold
                | EventKind::SystemCloudSessionDelta
                | EventKind::SystemPerTurnEffortChanged
                | EventKind::SystemStopHookSummary
                | EventKind::SystemTurnDuration
                | EventKind::SystemLocalCommand
                | EventKind::SystemApiError
                | EventKind::SystemOther
        )
    }
}
