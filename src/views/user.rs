//! Views of `user` events: tool results (the block and the per-tool
//! `tool_use_result`), replayed prompts and injected text.

use super::*;

view! {
    /// `user`: a tool result (one per tool call, in completion order), the
    /// prompt replayed by `--replay-user-messages` (`content` a string,
    /// `isReplay` true), a subagent's prompt, `[Request interrupted by
    /// user]`, or text claude-code injected (`isSynthetic` true).
    struct UserView = "user", open = false;
    /// `"user"`.
    type_: "type" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the message.
    message: "message" => opt UserMessage<'d>,
    /// null on the main agent, the launching Agent call's id in a subagent.
    parent_tool_use_id: "parent_tool_use_id" => null &'d str,
    /// ISO 8601.
    timestamp: "timestamp" => opt &'d str,
    /// the tool's raw result, on tool results only: an object shaped by the
    /// tool, or a string (`"Error: ..."` on failure) (`?`).
    tool_use_result: "tool_use_result" => opt ToolUseResult<'d>,
    /// marks tool calls that did not run, on rejected results only (`?`).
    tool_result_meta: "tool_result_meta" => arr ToolResultMeta<'d>,
    /// only inside a subagent (`?`).
    subagent_type: "subagent_type" => opt &'d str,
    /// only inside a subagent (`?`).
    task_description: "task_description" => opt &'d str,
    /// true when claude-code injected the message (e.g. a skill's text, a
    /// compaction summary) (`?`).
    is_synthetic: "isSynthetic" => opt bool,
    /// true on the prompt replayed by `--replay-user-messages` (`?`).
    is_replay: "isReplay" => opt bool;
    calls [block, text]
}

impl<'d> UserView<'d> {
    /// The message's single content block, when `content` is an array.
    pub fn block(&self) -> Option<Block<'d>> {
        match self.message()?.content()? {
            UserContent::Blocks(b) => b.first(),
            UserContent::Text(_) => None,
        }
    }

    /// The message's text: the string content, or a `text` block's text.
    pub fn text(&self) -> Option<&'d str> {
        match self.message()?.content()? {
            UserContent::Text(s) => Some(s),
            UserContent::Blocks(b) => match b.first()? {
                Block::Text(t) => t.text(),
                _ => None,
            },
        }
    }
}

view! {
    /// `user.message`.
    struct UserMessage = "UserMessage", open = false;
    /// `"user"`.
    role: "role" => opt &'d str,
    /// one block, or a string for the replayed prompt.
    content: "content" => opt UserContent<'d>,
}

/// `user.message.content`: a string (the replayed prompt) or an array of
/// one block (a `tool_result` or a `text` block).
#[derive(Clone, Debug)]
pub enum UserContent<'d> {
    /// A plain string.
    Text(&'d str),
    /// The blocks.
    Blocks(Array<'d, Block<'d>>),
}

impl<'d> FromValue<'d> for UserContent<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        match v.kind() {
            ValueKind::String => v.as_str().map(UserContent::Text),
            ValueKind::Array => Array::from_value(v).map(UserContent::Blocks),
            _ => None,
        }
    }
    /// A string fits without being unescaped.
    fn fits(v: Value<'d>) -> bool {
        matches!(v.kind(), ValueKind::String | ValueKind::Array)
    }
}

impl<'d> Answer<'d> for UserContent<'d> {
    fn is_present(&self) -> bool {
        true
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        match self {
            UserContent::Text(s) => s.to_json(),
            UserContent::Blocks(b) => Some(to_json(b.value())),
        }
    }
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        match self {
            UserContent::Text(s) => s.walk(key, vis),
            UserContent::Blocks(b) => b.walk(key, vis),
        }
    }
    /// A string has nothing to walk into: it is not made.
    fn walk_raw(v: Value<'d>, key: &'static str, vis: &mut dyn Visitor<'d>) {
        if v.kind() != ValueKind::String
            && let Some(t) = Self::from_value(v)
        {
            t.walk(key, vis);
        }
    }
}

view! {
    /// A `tool_result` block: the result handed to the model.
    struct ToolResultBlock = "ToolResultBlock", open = false;
    /// `"tool_result"`.
    type_: "type" => opt &'d str,
    /// the `tool_use` block's id.
    tool_use_id: "tool_use_id" => opt &'d str,
    /// a string for most tools, text blocks for Agent. A Bash exit code
    /// other than 0 starts it with `Exit code N`; calls claude-code blocked
    /// are wrapped in `<tool_use_error>`.
    content: "content" => opt ToolResultContent<'d>,
    /// true on failure; mostly absent on success, sometimes false (`?`).
    is_error: "is_error" => opt bool,
}

/// `tool_result.content`: a string, or text blocks (Agent).
#[derive(Clone, Debug)]
pub enum ToolResultContent<'d> {
    /// A plain string.
    Text(&'d str),
    /// Blocks (text blocks in the reference).
    Blocks(Array<'d, Block<'d>>),
}

impl<'d> FromValue<'d> for ToolResultContent<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        match v.kind() {
            ValueKind::String => v.as_str().map(ToolResultContent::Text),
            ValueKind::Array => Array::from_value(v).map(ToolResultContent::Blocks),
            _ => None,
        }
    }
    /// A string fits without being unescaped.
    fn fits(v: Value<'d>) -> bool {
        matches!(v.kind(), ValueKind::String | ValueKind::Array)
    }
}

impl<'d> Answer<'d> for ToolResultContent<'d> {
    fn is_present(&self) -> bool {
        true
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        match self {
            ToolResultContent::Text(s) => s.to_json(),
            ToolResultContent::Blocks(b) => Some(to_json(b.value())),
        }
    }
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        match self {
            ToolResultContent::Text(s) => s.walk(key, vis),
            ToolResultContent::Blocks(b) => b.walk(key, vis),
        }
    }
    /// A string has nothing to walk into: it is not made.
    fn walk_raw(v: Value<'d>, key: &'static str, vis: &mut dyn Visitor<'d>) {
        if v.kind() != ValueKind::String
            && let Some(t) = Self::from_value(v)
        {
            t.walk(key, vis);
        }
    }
}

view! {
    /// One element of `user.tool_result_meta`.
    struct ToolResultMeta = "ToolResultMeta", open = false;
    /// the tool call's id.
    id: "id" => opt &'d str,
    /// why it did not run: `"permission-rule"`, `"user-rejected"`.
    non_execution_kind: "non_execution_kind" => opt &'d str,
}

/// `user.tool_use_result`: the tool's raw result, by shape (the line does
/// not name the tool; the matching `tool_use` block does).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum ToolUseResult<'d> {
    /// The string form: `"Error: ..."` on failure, `"User rejected tool
    /// use"`, or StructuredOutput's `"Structured output provided
    /// successfully"`.
    Text(&'d str),
    /// Bash (`stdout`, `stderr`, `interrupted`, ...).
    Bash(BashResult<'d>),
    /// Read (a `file`; `type` `"text"`, or `"file_unchanged"` in real
    /// streams).
    Read(ReadResult<'d>),
    /// Write (`type` `"create"`, or `"update"` in real streams).
    Write(WriteResult<'d>),
    /// Edit (`oldString`, `newString`, `structuredPatch`).
    Edit(EditResult<'d>),
    /// Skill (`commandName`).
    Skill(SkillResult<'d>),
    /// Workflow (`workflowName`, `runId`, ...).
    Workflow(WorkflowResult<'d>),
    /// Agent (`agentId`, `handbackReport`, `toolStats`, ...).
    Agent(AgentResult<'d>),
    /// Another tool's object (Glob, Grep, TodoWrite, MCP tools, ...).
    Other(OtherToolResult<'d>),
}

impl<'d> FromValue<'d> for ToolUseResult<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        match v.kind() {
            ValueKind::String => v.as_str().map(ToolUseResult::Text),
            ValueKind::Object => Some(classify_result(v)),
            _ => None,
        }
    }
    /// A string fits without being unescaped.
    fn fits(v: Value<'d>) -> bool {
        matches!(v.kind(), ValueKind::String | ValueKind::Object)
    }
}

fn classify_result(v: Value<'_>) -> ToolUseResult<'_> {
    let has = |k| v.get(k).is_some();
    let ty = type_of(v);
    if has("agentId") || has("handbackReport") || has("totalToolUseCount") {
        ToolUseResult::Agent(AgentResult(v))
    } else if has("commandName") {
        ToolUseResult::Skill(SkillResult(v))
    } else if has("workflowName") || has("runId") {
        ToolUseResult::Workflow(WorkflowResult(v))
    } else if matches!(ty, Some("create" | "update")) {
        ToolUseResult::Write(WriteResult(v))
    } else if has("file") {
        ToolUseResult::Read(ReadResult(v))
    } else if has("oldString") {
        ToolUseResult::Edit(EditResult(v))
    } else if has("stdout") {
        ToolUseResult::Bash(BashResult(v))
    } else {
        ToolUseResult::Other(OtherToolResult(v))
    }
}

impl<'d> ToolUseResult<'d> {
    /// The string form, if this is one.
    pub fn text(&self) -> Option<&'d str> {
        match self {
            ToolUseResult::Text(s) => Some(s),
            _ => None,
        }
    }

    /// True for the string form starting with `"Error: "`.
    pub fn is_error_text(&self) -> bool {
        self.text().is_some_and(|s| s.starts_with("Error: "))
    }

    /// The raw object, for the object forms.
    pub fn object(&self) -> Option<Value<'d>> {
        Some(match self {
            ToolUseResult::Text(_) => return None,
            ToolUseResult::Bash(v) => v.value(),
            ToolUseResult::Read(v) => v.value(),
            ToolUseResult::Write(v) => v.value(),
            ToolUseResult::Edit(v) => v.value(),
            ToolUseResult::Skill(v) => v.value(),
            ToolUseResult::Workflow(v) => v.value(),
            ToolUseResult::Agent(v) => v.value(),
            ToolUseResult::Other(v) => v.value(),
        })
    }

    /// An owned copy (see [`to_json`]).
    pub fn to_owned_json(&self) -> serde_json::Value {
        self.to_json().unwrap_or_default()
    }
}

impl<'d> Answer<'d> for ToolUseResult<'d> {
    fn is_present(&self) -> bool {
        true
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        match self {
            ToolUseResult::Text(s) => s.to_json(),
            _ => self.object().map(to_json),
        }
    }
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        std::hint::black_box(self.is_error_text());
        match self {
            ToolUseResult::Text(s) => s.walk(key, vis),
            ToolUseResult::Bash(v) => v.walk(key, vis),
            ToolUseResult::Read(v) => v.walk(key, vis),
            ToolUseResult::Write(v) => v.walk(key, vis),
            ToolUseResult::Edit(v) => v.walk(key, vis),
            ToolUseResult::Skill(v) => v.walk(key, vis),
            ToolUseResult::Workflow(v) => v.walk(key, vis),
            ToolUseResult::Agent(v) => v.walk(key, vis),
            ToolUseResult::Other(v) => v.walk(key, vis),
        }
    }
    /// A string has nothing to walk into: it is not made.
    fn walk_raw(v: Value<'d>, key: &'static str, vis: &mut dyn Visitor<'d>) {
        if v.kind() != ValueKind::String
            && let Some(t) = Self::from_value(v)
        {
            t.walk(key, vis);
        }
    }
}

view! {
    /// Bash's `tool_use_result`.
    struct BashResult = "BashResult", open = false;
    /// the command's standard output.
    stdout: "stdout" => opt &'d str,
    /// the command's standard error.
    stderr: "stderr" => opt &'d str,
    /// whether it was interrupted.
    interrupted: "interrupted" => opt bool,
    /// whether the output is an image.
    is_image: "isImage" => opt bool,
    /// whether no output was expected.
    no_output_expected: "noOutputExpected" => opt bool,
    /// the background task's id, with `run_in_background` only (`?`).
    background_task_id: "backgroundTaskId" => opt &'d str,
}

view! {
    /// Read's `tool_use_result`.
    struct ReadResult = "ReadResult", open = false;
    /// `"text"` (real streams: `"file_unchanged"`, with only `filePath`).
    type_: "type" => opt &'d str,
    /// the file read.
    file: "file" => opt ReadFile<'d>,
}

view! {
    /// `ReadResult.file`.
    struct ReadFile = "ReadFile", open = false;
    /// the file's path.
    file_path: "filePath" => opt &'d str,
    /// the text read.
    content: "content" => opt &'d str,
    /// lines read.
    num_lines: "numLines" => opt u64,
    /// the first line read (from 1).
    start_line: "startLine" => opt u64,
    /// lines in the file.
    total_lines: "totalLines" => opt u64,
}

view! {
    /// Write's `tool_use_result`.
    struct WriteResult = "WriteResult", open = false;
    /// `"create"` (and `"update"` in real streams).
    type_: "type" => opt &'d str,
    /// the file's path.
    file_path: "filePath" => opt &'d str,
    /// the content written.
    content: "content" => opt &'d str,
    /// the diff hunks.
    structured_patch: "structuredPatch" => arr Hunk<'d>,
    /// null for a new file (the old text on `"update"`).
    original_file: "originalFile" => null &'d str,
    /// whether the user changed the content.
    user_modified: "userModified" => opt bool,
}

view! {
    /// Edit's `tool_use_result`.
    struct EditResult = "EditResult", open = false;
    /// the file's path.
    file_path: "filePath" => opt &'d str,
    /// the text replaced.
    old_string: "oldString" => opt &'d str,
    /// the replacement.
    new_string: "newString" => opt &'d str,
    /// the file before the edit.
    original_file: "originalFile" => opt &'d str,
    /// whether every occurrence was replaced.
    replace_all: "replaceAll" => opt bool,
    /// whether the user changed the edit.
    user_modified: "userModified" => opt bool,
    /// the diff hunks.
    structured_patch: "structuredPatch" => arr Hunk<'d>,
}

view! {
    /// One hunk of a unified diff (`structuredPatch` element).
    struct Hunk = "Hunk", open = false;
    /// first old line.
    old_start: "oldStart" => opt u64,
    /// old line count.
    old_lines: "oldLines" => opt u64,
    /// first new line.
    new_start: "newStart" => opt u64,
    /// new line count.
    new_lines: "newLines" => opt u64,
    /// the lines, each prefixed with `' '`, `'-'` or `'+'`.
    lines: "lines" => arr &'d str,
}

view! {
    /// Skill's `tool_use_result`.
    struct SkillResult = "SkillResult", open = false;
    /// the skill's name.
    command_name: "commandName" => opt &'d str,
    /// the skill's full text.
    content: "content" => opt &'d str,
}

view! {
    /// Workflow's `tool_use_result`.
    struct WorkflowResult = "WorkflowResult", open = false;
    /// `"async_launched"`.
    status: "status" => opt &'d str,
    /// the task's id.
    task_id: "taskId" => opt &'d str,
    /// `"local_workflow"`.
    task_type: "taskType" => opt &'d str,
    /// the workflow's name.
    workflow_name: "workflowName" => opt &'d str,
    /// the run's id.
    run_id: "runId" => opt &'d str,
    /// a summary.
    summary: "summary" => opt &'d str,
    /// where transcripts go.
    transcript_dir: "transcriptDir" => opt &'d str,
    /// the script's path.
    script_path: "scriptPath" => opt &'d str,
}

view! {
    /// Agent's `tool_use_result`: a subagent's outcome (the reference's
    /// `AgentResult`).
    struct AgentResult = "AgentResult", open = false;
    /// `"completed"`.
    status: "status" => opt &'d str,
    /// the subagent's id (the task's `task_id`).
    agent_id: "agentId" => opt &'d str,
    /// the subagent type.
    agent_type: "agentType" => opt &'d str,
    /// the prompt the subagent got.
    prompt: "prompt" => opt &'d str,
    /// how the report came back: `"send"`.
    handback: "handback" => opt &'d str,
    /// the subagent's report.
    handback_report: "handbackReport" => opt HandbackReport<'d>,
    /// the text blocks given to the main agent.
    content: "content" => arr Block<'d>,
    /// the subagent's model.
    resolved_model: "resolvedModel" => opt &'d str,
    /// total milliseconds.
    total_duration_ms: "totalDurationMs" => opt u64,
    /// total tokens (`usage` is the last call only).
    total_tokens: "totalTokens" => opt u64,
    /// total tool calls.
    total_tool_use_count: "totalToolUseCount" => opt u64,
    /// the subagent's last call's usage.
    usage: "usage" => opt Usage<'d>,
    /// tool call counts by category.
    tool_stats: "toolStats" => opt ToolStats<'d>,
    /// internal.
    harness_note_count: "harnessNoteCount" => opt u64,
    /// internal.
    harness_tail_count: "harnessTailCount" => opt u64,
    /// internal.
    harness_section_hash: "harnessSectionHash" => opt &'d str,
}

view! {
    /// `AgentResult.handbackReport`.
    struct HandbackReport = "HandbackReport", open = false;
    /// the report's text.
    text: "text" => opt &'d str,
}

view! {
    /// `AgentResult.toolStats`.
    struct ToolStats = "ToolStats", open = false;
    /// reads.
    read_count: "readCount" => opt u64,
    /// searches.
    search_count: "searchCount" => opt u64,
    /// Bash calls.
    bash_count: "bashCount" => opt u64,
    /// file edits.
    edit_file_count: "editFileCount" => opt u64,
    /// lines added.
    lines_added: "linesAdded" => opt u64,
    /// lines removed.
    lines_removed: "linesRemoved" => opt u64,
    /// other tool calls.
    other_tool_count: "otherToolCount" => opt u64,
}

view! {
    /// A `tool_use_result` object of a tool the reference does not
    /// describe; every field is in `unknown_fields`.
    struct OtherToolResult = "OtherToolResult", open = false;
    /// the object's `type`, if it has one.
    type_: "type" => opt &'d str,
}
