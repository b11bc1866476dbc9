//! Views of session transcript records, the second dialect
//! (`~/.claude/projects/<project>/<session>.jsonl`): one table per record
//! type, over the same value type and with the same conventions as the
//! stream's views. A record's `message` is the stream's message view
//! ([`AssistantMessage`], [`UserMessage`]) and a user record's
//! `toolUseResult` the stream's [`ToolUseResult`]: a transcript holds the
//! same Messages API messages and tool results, under camelCase keys of its
//! own. Reach one with [`RecordView::of`](crate::transcript::RecordView::of).
//!
//! The field lists are those of the public transcripts in
//! `shared/realworld/session-format` (Claude Code 1.0.128 to 2.1.39); the
//! stream's field reference does not describe transcripts, so no field is
//! marked as an extra.

use super::*;
use crate::pricing::RequestTokens;

/// Defines a conversation record's view: `view!` with the fields every
/// conversation record carries (those of [`RecordHeader`]) first, then the
/// type's own.
macro_rules! record_view {
    (
        $(#[$m:meta])*
        struct $name:ident = $label:literal, open = $open:literal;
        $($rest:tt)*
    ) => {
        view! {
            $(#[$m])*
            struct $name = $label, open = $open;
            /// the record before this one in the conversation; null at the
            /// root of a chain (and after a compaction).
            parent_uuid: "parentUuid" => null &'d str,
            /// on a compaction boundary: the record before it.
            logical_parent_uuid: "logicalParentUuid" => opt &'d str,
            /// true inside a subagent's conversation.
            is_sidechain: "isSidechain" => opt bool,
            /// `"external"`.
            user_type: "userType" => opt &'d str,
            /// the working directory.
            cwd: "cwd" => opt &'d str,
            /// the session.
            session_id: "sessionId" => opt &'d str,
            /// the Claude Code version that wrote the record.
            version: "version" => opt &'d str,
            /// the git branch of `cwd`.
            git_branch: "gitBranch" => opt &'d str,
            /// the session's human-readable name.
            slug: "slug" => opt &'d str,
            /// the subagent, on the records of a subagent's file.
            agent_id: "agentId" => opt &'d str,
            /// the record type (`user`, `assistant`, `system`, `progress`).
            type_: "type" => opt &'d str,
            /// this record's id.
            uuid: "uuid" => opt &'d str,
            /// ISO 8601, UTC, milliseconds.
            timestamp: "timestamp" => opt &'d str,
            /// a record the CLI wrote for itself (a caveat, a local
            /// command's output, a compaction boundary).
            is_meta: "isMeta" => opt bool,
            $($rest)*
        }
    };
}

record_view! {
    /// The fields every conversation record (`user`, `assistant`,
    /// `system`, `progress`) carries, read the same way whatever its type:
    /// `RecordHeader::new(record.root())`. Open: the other fields are its
    /// type's.
    struct RecordHeader = "RecordHeader", open = true;
}

record_view! {
    /// A transcript `assistant` record: one content block of a model
    /// response (a response of several blocks gives several records with
    /// the same `message.id` and `requestId`).
    struct AssistantRecord = "transcript/assistant", open = false;
    /// the Messages API message; `model` is `"<synthetic>"` on messages
    /// the CLI wrote itself.
    message: "message" => opt AssistantMessage<'d>,
    /// the API request (`req_...`).
    request_id: "requestId" => opt &'d str,
    /// the API error category (`rate_limit`, `authentication_failed`, ...).
    error: "error" => opt &'d str,
    /// true when the CLI wrote this message for a failed request.
    is_api_error_message: "isApiErrorMessage" => opt bool,
    /// the cost in USD, written by old CLI versions.
    cost_usd: "costUSD" => opt f64;
    calls [request_tokens]
}

impl<'d> AssistantRecord<'d> {
    /// `message.usage` as priced tokens: the cache writes split by lifetime
    /// from `cache_creation.ephemeral_5m/1h_input_tokens` when present (all
    /// 5-minute otherwise), `speed: "fast"` as fast mode. The transcript
    /// fold counts these.
    pub fn request_tokens(&self) -> Option<RequestTokens> {
        crate::transcript::usage(self.0.get("message")?.get("usage")?)
    }

    /// The tool calls of this record (`tool_use` blocks, and a server
    /// tool's `server_tool_use` or `mcp_tool_use`; the calls the stream's
    /// runs count): each call's `id`, the tool's `name` and its `input`.
    #[allow(clippy::type_complexity)]
    pub fn tool_uses(&self) -> impl Iterator<Item = (&'d str, &'d str, Option<Value<'d>>)> + 'd {
        crate::transcript::tool_uses(self.0)
    }
}

record_view! {
    /// A transcript `user` record: a prompt, tool results, an interrupt
    /// notice, a compaction's summary.
    struct UserRecord = "transcript/user", open = false;
    /// the message: a string, or blocks (`tool_result`, `text`, `image`).
    message: "message" => opt UserMessage<'d>,
    /// the tool's structured result, on tool results.
    tool_use_result: "toolUseResult" => opt ToolUseResult<'d>,
    /// the assistant record whose tool call this answers.
    source_tool_assistant_uuid: "sourceToolAssistantUUID" => opt &'d str,
    /// the permission mode of a prompt (`default`, `plan`,
    /// `acceptEdits`, ...).
    permission_mode: "permissionMode" => opt &'d str,
    /// the todo list when the prompt was sent.
    todos: "todos" => arr Value<'d>,
    /// the thinking settings of a prompt (`level`, `disabled`, ...).
    thinking_metadata: "thinkingMetadata" => opt Value<'d>,
    /// shown in the transcript view only, never sent to the model.
    is_visible_in_transcript_only: "isVisibleInTranscriptOnly" => opt bool,
    /// the summary a compaction left.
    is_compact_summary: "isCompactSummary" => opt bool;
    calls [text, is_interrupt]
}

impl<'d> UserRecord<'d> {
    /// The text: the content string, or the first text block's text.
    pub fn text(&self) -> Option<&'d str> {
        crate::transcript::user_text(self.0)
    }

    /// The `tool_result` blocks: the `tool_use_id` each answers and whether
    /// it failed, by the rule the stream's runs use: `is_error`, a
    /// `<tool_use_error>` text, a server tool's error content, or, for the
    /// record's only result, a `toolUseResult` string starting `Error: `.
    pub fn tool_results(&self) -> impl Iterator<Item = (Option<&'d str>, bool)> + 'd {
        crate::transcript::tool_results(self.0)
    }

    /// True for the notice the CLI writes when the user interrupts a turn
    /// (`[Request interrupted by user]`, `... for tool use]`) as the content
    /// string or any text block's text, after any leading whitespace: what
    /// the transcript fold counts as an interrupt, and the stream's runs.
    pub fn is_interrupt(&self) -> bool {
        crate::transcript::is_interrupt(self.0)
    }
}

record_view! {
    /// A transcript `system` record: `compact_boundary`, `local_command`,
    /// `stop_hook_summary`, `turn_duration`, `api_error`, ...
    struct SystemRecord = "transcript/system", open = false;
    /// `compact_boundary`, `local_command`, `stop_hook_summary`,
    /// `turn_duration`, ...
    subtype: "subtype" => opt &'d str,
    /// `Conversation compacted`, a local command's text.
    content: "content" => opt &'d str,
    /// `info`, `suggestion`, `error`, ...
    level: "level" => opt &'d str,
    /// a compaction's trigger and size.
    compact_metadata: "compactMetadata" => opt TranscriptCompactMetadata<'d>,
    /// a `turn_duration`'s length.
    duration_ms: "durationMs" => opt u64,
    /// how many hooks a `stop_hook_summary` ran.
    hook_count: "hookCount" => opt u64,
    /// each hook a `stop_hook_summary` ran (`command`, ...).
    hook_infos: "hookInfos" => arr Value<'d>,
    /// the errors of a `stop_hook_summary`'s hooks.
    hook_errors: "hookErrors" => arr Value<'d>,
    /// true when a hook stopped the turn from going on.
    prevented_continuation: "preventedContinuation" => opt bool,
    /// a hook's reason for stopping.
    stop_reason: "stopReason" => opt &'d str,
    /// true when a hook printed something.
    has_output: "hasOutput" => opt bool,
    /// the tool call a hook ran for.
    tool_use_id: "toolUseID" => opt &'d str,
}

view! {
    /// `compactMetadata` of a compaction boundary.
    struct TranscriptCompactMetadata = "TranscriptCompactMetadata", open = false;
    /// `auto` or `manual`.
    trigger: "trigger" => opt &'d str,
    /// the context's size in tokens before the compaction.
    pre_tokens: "preTokens" => opt u64,
}

view! {
    /// A transcript `summary` record: a title for the conversation up to a
    /// record.
    struct SummaryRecord = "transcript/summary", open = false;
    /// `"summary"`.
    type_: "type" => opt &'d str,
    /// the title.
    summary: "summary" => opt &'d str,
    /// the last record the title covers.
    leaf_uuid: "leafUuid" => opt &'d str,
}

view! {
    /// A transcript `file-history-snapshot` record: the files backed up
    /// before a user message's edits.
    struct FileHistorySnapshotRecord = "transcript/file-history-snapshot", open = false;
    /// `"file-history-snapshot"`.
    type_: "type" => opt &'d str,
    /// the user message the snapshot belongs to.
    message_id: "messageId" => opt &'d str,
    /// the snapshot.
    snapshot: "snapshot" => opt FileSnapshot<'d>,
    /// true when this record updates an earlier snapshot.
    is_snapshot_update: "isSnapshotUpdate" => opt bool,
}

view! {
    /// `snapshot` of a `file-history-snapshot` record.
    struct FileSnapshot = "FileSnapshot", open = false;
    /// the user message the snapshot belongs to.
    message_id: "messageId" => opt &'d str,
    /// path to the backup of that file.
    tracked_file_backups: "trackedFileBackups" => map Value<'d>,
    /// ISO 8601, UTC, milliseconds.
    timestamp: "timestamp" => opt &'d str,
}

record_view! {
    /// A transcript `progress` record: a hook, a command or a subagent at
    /// work (`agent_progress` relays each of a subagent's messages).
    struct ProgressRecord = "transcript/progress", open = false;
    /// what is in progress.
    data: "data" => opt ProgressData<'d>,
    /// the tool call the progress is for.
    tool_use_id: "toolUseID" => opt &'d str,
    /// the tool call above it (for an agent, the `Task` call that spawned
    /// it).
    parent_tool_use_id: "parentToolUseID" => opt &'d str;
    calls [agent_assistant_message]
}

impl<'d> ProgressRecord<'d> {
    /// For an `agent_progress` that relays one of the subagent's assistant
    /// messages: that message (`data.message.message`), its `requestId`
    /// and its `timestamp`. A subagent's API requests show here even when
    /// its own `agent-*.jsonl` file is gone.
    pub fn agent_assistant_message(&self) -> Option<(Value<'d>, Option<&'d str>, Option<&'d str>)> {
        let relayed = self.0.get("data")?.get("message")?;
        if !relayed.get("type")?.str_eq("assistant") {
            return None;
        }
        let message = relayed.get("message")?;
        Some((
            message,
            relayed.get("requestId").and_then(|v| v.as_str()),
            relayed.get("timestamp").and_then(|v| v.as_str()),
        ))
    }
}

view! {
    /// `data` of a `progress` record. Open: each kind of progress carries
    /// fields of its own (a command's output, a hook's name, ...).
    struct ProgressData = "ProgressData", open = true;
    /// `hook_progress`, `bash_progress`, `agent_progress`,
    /// `waiting_for_task`, ...
    type_: "type" => opt &'d str,
    /// the subagent of an `agent_progress`.
    agent_id: "agentId" => opt &'d str,
    /// the hook event of a `hook_progress` (`PostToolUse`, ...).
    hook_event: "hookEvent" => opt &'d str,
    /// the record an `agent_progress` relays, whole (`type`, `message`,
    /// `requestId`, `timestamp`, ...).
    message: "message" => opt Value<'d>,
}

view! {
    /// A transcript `queue-operation` record: a prompt typed while a turn
    /// runs, queued or taken off the queue.
    struct QueueOperationRecord = "transcript/queue-operation", open = false;
    /// `"queue-operation"`.
    type_: "type" => opt &'d str,
    /// `enqueue`, `dequeue`, `remove`, ...
    operation: "operation" => opt &'d str,
    /// ISO 8601, UTC, milliseconds.
    timestamp: "timestamp" => opt &'d str,
    /// the session.
    session_id: "sessionId" => opt &'d str,
    /// the queued prompt.
    content: "content" => opt &'d str,
}

view! {
    /// A transcript `result` record: a tool's result kept apart, not a
    /// run's result (it has no `subtype`, `is_error` or cost).
    struct ResultRecord = "transcript/result", open = false;
    /// `"result"`.
    type_: "type" => opt &'d str,
    /// the tool call.
    tool_use_id: "toolUseId" => opt &'d str,
    /// the result.
    content: "content" => opt Value<'d>,
    /// the session.
    session_id: "sessionId" => opt &'d str,
    /// this record's id.
    uuid: "uuid" => opt &'d str,
    /// ISO 8601, UTC, milliseconds.
    timestamp: "timestamp" => opt &'d str,
}
