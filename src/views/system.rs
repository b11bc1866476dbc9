//! Views of the `system` events: init, status, summaries, thinking tokens,
//! retries, permission denials, hooks, background and subagent tasks, the
//! `compact_boundary`, `notification` and `vcs_state_changed` subtypes real
//! streams carry, and the subtypes the public record adds through 2.1.331
//! (`dev_intent`, `turn_preempted`, `peer_message_hold`,
//! `cloud_session_delta`, `per_turn_effort_changed`: `corpus/README.md`
//! says where each shape comes from).

use super::*;

view! {
    /// `system/init`: written once per round when the run starts (again
    /// after a background task ends), it describes the session's
    /// configuration. Parsers mostly need `model`, `tools`,
    /// `permissionMode`, `claude_code_version` and `cwd`. Old streams
    /// (≤ 2.0.1x) lack `claude_code_version`, `uuid` and `output_style`;
    /// 1.0.3 even `cwd`, `model` and `permissionMode`.
    struct InitView = "system/init", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"init"`.
    subtype: "subtype" => opt &'d str,
    /// the session id (the `--session-id` value).
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the working directory.
    cwd: "cwd" => opt &'d str,
    /// the main model id (the name as given when it does not exist).
    model: "model" => opt &'d str,
    /// the permission mode, e.g. `"auto"`, `"default"`.
    permission_mode: "permissionMode" => opt &'d str,
    /// the tool names; the subagent tool is `"Task"` here and `"Agent"` in
    /// `tool_use` blocks.
    tools: "tools" => arr &'d str,
    /// the subagent types, e.g. `"general-purpose"`, `"Explore"`, `"Plan"`.
    agents: "agents" => arr &'d str,
    /// the loaded MCP servers (`unknown[]` in the reference; real streams
    /// carry `{name, status}`).
    mcp_servers: "mcp_servers" => arr McpServer<'d>,
    /// the skill names.
    skills: "skills" => arr &'d str,
    /// the slash commands.
    slash_commands: "slash_commands" => arr &'d str,
    /// the slash commands that only the terminal UI runs.
    terminal_slash_commands: "terminal_slash_commands" => arr &'d str,
    /// the plugins.
    plugins: "plugins" => arr Plugin<'d>,
    /// `"none"` (subscription login) or `"ANTHROPIC_API_KEY"`.
    api_key_source: "apiKeySource" => opt &'d str,
    /// the CLI version, e.g. `"2.1.288"`.
    claude_code_version: "claude_code_version" => opt &'d str,
    /// `"default"`.
    output_style: "output_style" => opt &'d str,
    /// `"default"`.
    view_mode: "view_mode" => opt &'d str,
    /// protocol capability flags, e.g. `"msg_lifecycle_v1"`.
    capabilities: "capabilities" => arr &'d str,
    /// the memory directories.
    memory_paths: "memory_paths" => opt MemoryPaths<'d>,
    /// the scratch directory.
    scratchpad_path: "scratchpad_path" => opt &'d str,
    /// the inter-process socket's path.
    messaging_socket_path: "messaging_socket_path" => opt &'d str,
    /// `"off"`.
    fast_mode_state: "fast_mode_state" => opt &'d str,
    /// `"sdk_opt_in_required"`.
    fast_mode_disabled_reason: "fast_mode_disabled_reason" => opt &'d str,
    /// whether per-turn effort is active.
    per_turn_effort_active: "per_turn_effort_active" => opt bool,
    /// whether analytics are disabled.
    analytics_disabled: "analytics_disabled" => opt bool,
    /// whether product feedback is disabled.
    product_feedback_disabled: "product_feedback_disabled" => opt bool,
    /// start-up phase timings (diagnostic; the keys change by version).
    startup_timing: "startup_timing" => opt StartupTiming<'d>,
}

view! {
    /// One element of `system/init.mcp_servers` (the reference types them
    /// `unknown`; real streams carry a name and a status).
    struct McpServer = "McpServer", open = false;
    /// the server's name (real streams).
    [extra] name: "name" => opt &'d str,
    /// `"connected"`, `"pending"`, `"needs-auth"`, `"failed"` (real streams).
    [extra] status: "status" => opt &'d str,
}

view! {
    /// One element of `system/init.plugins`.
    struct Plugin = "Plugin", open = false;
    /// the plugin's name.
    name: "name" => opt &'d str,
    /// where it is installed.
    path: "path" => opt &'d str,
    /// where it came from.
    source: "source" => opt &'d str,
}

view! {
    /// `system/init.memory_paths`.
    struct MemoryPaths = "MemoryPaths", open = false;
    /// the automatic memory directory.
    auto: "auto" => opt &'d str,
    /// the team memory directory.
    team: "team" => opt &'d str,
}

view! {
    /// `system/init.startup_timing`: diagnostic start-up timings.
    struct StartupTiming = "StartupTiming", open = false;
    /// phase name (ending in `_ms`) to milliseconds.
    phases: "phases" => map f64,
}

view! {
    /// `system/status`: a model request is starting (once before each main
    /// agent call; none for subagent calls). Real streams also carry
    /// `"compacting"` and `null` (compaction over).
    struct StatusView = "system/status", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"status"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// `"requesting"`; real streams: `"compacting"` and null.
    status: "status" => null &'d str,
}

view! {
    /// `system/task_summary`: a one-line description of the current action
    /// (may come after the result, with `detail` null).
    struct TaskSummaryView = "system/task_summary", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"task_summary"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// e.g. `"Writing probe-r1.txt"`; null after the result.
    detail: "detail" => null &'d str,
}

view! {
    /// `system/post_turn_summary`: a summary of a finished assistant turn.
    struct PostTurnSummaryView = "system/post_turn_summary", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"post_turn_summary"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the uuid of the assistant event summarized.
    summarizes_uuid: "summarizes_uuid" => opt &'d str,
    /// `"completed"` or `"review_ready"`.
    status_category: "status_category" => opt &'d str,
    /// the outcome in one sentence.
    status_detail: "status_detail" => opt &'d str,
    /// what the user needs to do (observed empty).
    needs_action: "needs_action" => opt &'d str,
}

view! {
    /// `system/thinking_tokens`: the estimated thinking tokens so far,
    /// interleaved with a thinking block's deltas.
    struct ThinkingTokensView = "system/thinking_tokens", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"thinking_tokens"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// estimated thinking tokens so far.
    estimated_tokens: "estimated_tokens" => opt u64,
    /// the change since the previous event.
    estimated_tokens_delta: "estimated_tokens_delta" => opt i64,
}

view! {
    /// `system/api_retry`: a failed API request is being retried. The
    /// reference says it has no `uuid`; real 2.1.14x streams carry one.
    struct ApiRetryView = "system/api_retry", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"api_retry"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's id (real streams; the reference has none).
    [extra] uuid: "uuid" => opt &'d str,
    /// the retry number, from 1.
    attempt: "attempt" => opt u64,
    /// the retry limit (observed 300).
    max_retries: "max_retries" => opt u64,
    /// milliseconds to wait before retrying (fractional in real streams).
    retry_delay_ms: "retry_delay_ms" => opt f64,
    /// the HTTP status, e.g. 401.
    error_status: "error_status" => opt u64,
    /// the error category, e.g. `"authentication_failed"`.
    error: "error" => opt &'d str,
}

view! {
    /// `system/permission_denied`: a tool call needed approval that nobody
    /// could give; the next user event carries an `is_error` tool result
    /// with the same text.
    struct PermissionDeniedView = "system/permission_denied", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"permission_denied"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the denied tool.
    tool_name: "tool_name" => opt &'d str,
    /// the denied `tool_use` block's id.
    tool_use_id: "tool_use_id" => opt &'d str,
    /// the reason's category, e.g. `"asyncAgent"`.
    decision_reason_type: "decision_reason_type" => opt &'d str,
    /// the reason in one sentence.
    decision_reason: "decision_reason" => opt &'d str,
    /// the full text given to the model.
    message: "message" => opt &'d str,
}

view! {
    /// `system/hook_started` (with `--include-hook-events`): a hook command
    /// started; its `hook_response` has the same `hook_id`.
    struct HookStartedView = "system/hook_started", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"hook_started"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// this hook run's id.
    hook_id: "hook_id" => opt &'d str,
    /// `"event:matcher"`, e.g. `"PreToolUse:Bash"`.
    hook_name: "hook_name" => opt &'d str,
    /// the hook event, e.g. `"PreToolUse"`.
    hook_event: "hook_event" => opt &'d str,
}

view! {
    /// `system/hook_response` (with `--include-hook-events`): a hook
    /// command finished.
    struct HookResponseView = "system/hook_response", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"hook_response"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// this hook run's id (as on `hook_started`).
    hook_id: "hook_id" => opt &'d str,
    /// `"event:matcher"`.
    hook_name: "hook_name" => opt &'d str,
    /// the hook event.
    hook_event: "hook_event" => opt &'d str,
    /// the command's output.
    output: "output" => opt &'d str,
    /// the command's standard output.
    stdout: "stdout" => opt &'d str,
    /// the command's standard error.
    stderr: "stderr" => opt &'d str,
    /// the command's exit code.
    exit_code: "exit_code" => opt i64,
    /// `"success"` (and `"error"`, `"cancelled"` elsewhere).
    outcome: "outcome" => opt &'d str,
}

view! {
    /// `system/hook_progress` (real streams, not in the reference): output
    /// of a hook that is still running, e.g. a `SessionStart` hook before
    /// `system/init` (`wave2/jedarden__mta-my-way__...h2t...`).
    struct HookProgressView = "system/hook_progress", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"hook_progress"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// this hook run's id (as on `hook_started`).
    hook_id: "hook_id" => opt &'d str,
    /// `"event:matcher"`, e.g. `"SessionStart:startup"`.
    hook_name: "hook_name" => opt &'d str,
    /// the hook event.
    hook_event: "hook_event" => opt &'d str,
    /// the output so far.
    output: "output" => opt &'d str,
    /// standard output so far.
    stdout: "stdout" => opt &'d str,
    /// standard error so far.
    stderr: "stderr" => opt &'d str,
}

view! {
    /// `system/background_tasks_changed`: the full current list of
    /// background tasks (`[]` when none).
    struct BackgroundTasksChangedView = "system/background_tasks_changed", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"background_tasks_changed"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the background tasks.
    tasks: "tasks" => arr BackgroundTask<'d>,
}

view! {
    /// One element of `background_tasks_changed.tasks`.
    struct BackgroundTask = "BackgroundTask", open = false;
    /// the task's id.
    task_id: "task_id" => opt &'d str,
    /// `"local_bash"` or `"local_workflow"`.
    task_type: "task_type" => opt &'d str,
    /// what the task does.
    description: "description" => opt &'d str,
}

view! {
    /// `system/task_started`: a subagent (`local_agent`), a Workflow
    /// (`local_workflow`) or a background Bash command (`local_bash`)
    /// started.
    struct TaskStartedView = "system/task_started", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"task_started"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the task's id (a subagent's is also its agentId).
    task_id: "task_id" => opt &'d str,
    /// the id of the tool call that started it.
    tool_use_id: "tool_use_id" => opt &'d str,
    /// `"local_agent"`, `"local_workflow"` or `"local_bash"`.
    task_type: "task_type" => opt &'d str,
    /// what the task does.
    description: "description" => opt &'d str,
    /// the subagent's prompt or the Workflow script; not on `local_bash`.
    prompt: "prompt" => opt &'d str,
    /// the subagent type; `local_agent` only.
    subagent_type: "subagent_type" => opt &'d str,
    /// whether it runs in the background; not on `local_workflow`.
    is_backgrounded: "is_backgrounded" => opt bool,
    /// nesting depth (1 when started by the main agent); `local_agent` only.
    spawn_depth: "spawn_depth" => opt u64,
    /// the workflow's name; `local_workflow` only.
    workflow_name: "workflow_name" => opt &'d str,
}

view! {
    /// `system/task_progress`: a task's progress.
    struct TaskProgressView = "system/task_progress", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"task_progress"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the task's id.
    task_id: "task_id" => opt &'d str,
    /// the id of the tool call that started it.
    tool_use_id: "tool_use_id" => opt &'d str,
    /// the current step in one sentence.
    description: "description" => opt &'d str,
    /// the subagent type; `local_agent` only.
    subagent_type: "subagent_type" => opt &'d str,
    /// usage so far.
    usage: "usage" => opt TaskUsage<'d>,
    /// the last tool called.
    last_tool_name: "last_tool_name" => opt &'d str,
    /// a summary; `local_workflow` only.
    summary: "summary" => opt &'d str,
    /// the workflow's phases and agents; `local_workflow` only.
    workflow_progress: "workflow_progress" => arr WorkflowProgressItem<'d>,
}

/// One element of `task_progress.workflow_progress`, by its `type`.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum WorkflowProgressItem<'d> {
    /// `workflow_phase`.
    Phase(WorkflowPhase<'d>),
    /// `workflow_agent`.
    Agent(WorkflowAgent<'d>),
    /// Any other `type`.
    Other(OtherProgressItem<'d>),
}

impl<'d> FromValue<'d> for WorkflowProgressItem<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        if v.kind() != ValueKind::Object {
            return None;
        }
        Some(match type_of(v) {
            Some("workflow_phase") => WorkflowProgressItem::Phase(WorkflowPhase(v)),
            Some("workflow_agent") => WorkflowProgressItem::Agent(WorkflowAgent(v)),
            _ => WorkflowProgressItem::Other(OtherProgressItem(v)),
        })
    }
}

view_enum!(WorkflowProgressItem {
    Phase,
    Agent,
    Other
});

view! {
    /// A `workflow_phase` progress item.
    struct WorkflowPhase = "WorkflowPhase", open = false;
    /// `"workflow_phase"`.
    type_: "type" => opt &'d str,
    /// the phase's index.
    index: "index" => opt u64,
    /// the phase's title.
    title: "title" => opt &'d str,
}

view! {
    /// A `workflow_agent` progress item: one agent of a workflow.
    struct WorkflowAgent = "WorkflowAgent", open = false;
    /// `"workflow_agent"`.
    type_: "type" => opt &'d str,
    /// the agent's index.
    index: "index" => opt u64,
    /// the agent's label.
    label: "label" => opt &'d str,
    /// the index of its phase.
    phase_index: "phaseIndex" => opt u64,
    /// the title of its phase.
    phase_title: "phaseTitle" => opt &'d str,
    /// the agent's id.
    agent_id: "agentId" => opt &'d str,
    /// the agent's model.
    model: "model" => opt &'d str,
    /// `"start"`, `"progress"` or `"done"`.
    state: "state" => opt &'d str,
    /// the attempt number.
    attempt: "attempt" => opt u64,
    /// when it was queued (ms timestamp).
    queued_at: "queuedAt" => opt u64,
    /// when it started (ms timestamp).
    started_at: "startedAt" => opt u64,
    /// when it last made progress (ms timestamp).
    last_progress_at: "lastProgressAt" => opt u64,
    /// how long it has run, in ms.
    duration_ms: "durationMs" => opt u64,
    /// tokens used.
    tokens: "tokens" => opt u64,
    /// tool calls made.
    tool_calls: "toolCalls" => opt u64,
    /// the last tool called.
    last_tool_name: "lastToolName" => opt &'d str,
    /// a summary of the last tool call.
    last_tool_summary: "lastToolSummary" => opt &'d str,
    /// the start of its prompt.
    prompt_preview: "promptPreview" => opt &'d str,
    /// whether the prompt was framed.
    prompt_framed: "promptFramed" => opt bool,
    /// the start of its result.
    result_preview: "resultPreview" => opt &'d str,
}

view! {
    /// A workflow progress item of a `type` the reference does not define.
    struct OtherProgressItem = "OtherProgressItem", open = false;
    /// the item's type.
    type_: "type" => opt &'d str,
}

view! {
    /// `system/task_updated`: a patch to a task's state.
    struct TaskUpdatedView = "system/task_updated", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"task_updated"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the task's id.
    task_id: "task_id" => opt &'d str,
    /// what changed.
    patch: "patch" => opt TaskPatch<'d>,
}

view! {
    /// `task_updated.patch`.
    struct TaskPatch = "TaskPatch", open = false;
    /// `"completed"` or `"killed"`.
    status: "status" => opt &'d str,
    /// when it ended (ms timestamp).
    end_time: "end_time" => opt u64,
}

view! {
    /// `system/task_notification`: a task finished or stopped.
    struct TaskNotificationView = "system/task_notification", open = false;
    /// `"system"`.
    type_: "type" => opt &'d str,
    /// `"task_notification"`.
    subtype: "subtype" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the task's id.
    task_id: "task_id" => opt &'d str,
    /// the id of the tool call that started it.
    tool_use_id: "tool_use_id" => opt &'d str,
    /// `"completed"` or `"stopped"`.
    status: "status" => opt &'d str,
    /// the outcome in one sentence.
    summary: "summary" => opt &'d str,
    /// the task's output file (may be empty).
    output_file: "output_file" => opt &'d str,
    /// the task's final usage; not for background Bash.
    usage: "usage" => opt TaskUsage<'d>,
}

view! {
    /// `system/compact_boundary` (real streams, not in the reference):
    /// context compaction happened here.
    struct CompactBoundaryView = "system/compact_boundary", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"compact_boundary"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
    /// what triggered it and how big the context was.
    [extra] compact_metadata: "compact_metadata" => opt CompactMetadata<'d>,
}

view! {
    /// `compact_boundary.compact_metadata` (real streams).
    struct CompactMetadata = "CompactMetadata", open = false;
    /// `"auto"` or `"manual"`.
    [extra] trigger: "trigger" => opt &'d str,
    /// context tokens before compaction.
    [extra] pre_tokens: "pre_tokens" => opt u64,
}

view! {
    /// `system/notification` (real streams, not in the reference): a notice
    /// such as `stop-hook-error`.
    struct NotificationView = "system/notification", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"notification"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
    /// the notice's key, e.g. `"stop-hook-error"`.
    [extra] key: "key" => opt &'d str,
    /// the notice's text.
    [extra] text: "text" => opt &'d str,
    /// e.g. `"immediate"`.
    [extra] priority: "priority" => opt &'d str,
}

view! {
    /// `system/vcs_state_changed` (2.1.217+; real streams of 2.1.219 and
    /// 2.1.220): a shell command the harness saw changed the repository.
    /// A signal to read the repository again, not a description of it.
    struct VcsStateChangedView = "system/vcs_state_changed", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"vcs_state_changed"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
    /// what changed: `"commit"`, `"push"`, `"merge"`, `"rebase"` (an open
    /// set: a new kind is a change like the others).
    [extra] kind: "kind" => opt &'d str,
    /// the session's working directory (a hint: `git -C` changes another).
    [extra] cwd: "cwd" => opt &'d str,
    /// the branch, when given.
    [extra] branch: "branch" => opt &'d str,
}

view! {
    /// `system/dev_intent` (public record past the reference): what kind of
    /// project a scan took the working directory to be; seen before
    /// `init`, without a session id.
    struct DevIntentView = "system/dev_intent", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"dev_intent"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id, when given.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id, when given.
    [extra] uuid: "uuid" => opt &'d str,
    /// the project kind, e.g. `"android_app"`.
    [extra] kind: "kind" => opt &'d str,
    /// what found it, e.g. `"project_scan"`.
    [extra] trigger: "trigger" => opt &'d str,
}

view! {
    /// `system/turn_preempted` (public record past the reference): a running
    /// turn gave way to a newer one. No field beyond the envelope is
    /// documented; any other is reported by `check` and reachable raw.
    struct TurnPreemptedView = "system/turn_preempted", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"turn_preempted"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
}

view! {
    /// `system/peer_message_hold` (public record past the reference): a
    /// message from another session (cross-session messaging) was held for
    /// approval, or dropped when it expired.
    struct PeerMessageHoldView = "system/peer_message_hold", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"peer_message_hold"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
    /// the held message's uuid.
    [extra] message_uuid: "message_uuid" => opt &'d str,
    /// the sending session.
    [extra] from: "from" => opt &'d str,
    /// the sending session's name.
    [extra] from_name: "from_name" => opt &'d str,
    /// `"held"`, `"dropped"`.
    [extra] state: "state" => opt &'d str,
    /// why: `"mode-mismatch"`, `"explicit-setting"`.
    [extra] cause: "cause" => opt &'d str,
    /// how it came: `"socket"`.
    [extra] lane: "lane" => opt &'d str,
    /// on `dropped`: `"discarded"`.
    [extra] outcome: "outcome" => opt &'d str,
}

view! {
    /// `system/cloud_session_delta` (public record past the reference): a
    /// cloud session's change. No field beyond the envelope is documented.
    struct CloudSessionDeltaView = "system/cloud_session_delta", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"cloud_session_delta"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
}

view! {
    /// `system/per_turn_effort_changed` (public record past the
    /// reference): the per-turn effort changed (`init` says
    /// `per_turn_effort_active`). No field beyond the envelope is
    /// documented.
    struct PerTurnEffortChangedView = "system/per_turn_effort_changed", open = false;
    /// `"system"`.
    [extra] type_: "type" => opt &'d str,
    /// `"per_turn_effort_changed"`.
    [extra] subtype: "subtype" => opt &'d str,
    /// the session id.
    [extra] session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    [extra] uuid: "uuid" => opt &'d str,
}
