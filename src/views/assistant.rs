//! Views of `assistant` events: the event, its message, the content blocks
//! (shared with user events and stream events) and tool inputs.

use super::*;

view! {
    /// `assistant`: one content block of a model response. A call that
    /// returns several blocks gives several assistant events with the same
    /// `message.id`, each holding one block. Inside a subagent
    /// `parent_tool_use_id` is the launching Agent call's id.
    struct AssistantView = "assistant", open = false;
    /// `"assistant"`.
    type_: "type" => opt &'d str,
    /// the session id (a subagent's events share the main agent's).
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the Messages API message.
    message: "message" => opt AssistantMessage<'d>,
    /// null on the main agent, the launching Agent call's id in a subagent.
    parent_tool_use_id: "parent_tool_use_id" => null &'d str,
    /// the API request id (`req_...`).
    request_id: "request_id" => opt &'d str,
    /// ISO 8601, UTC, milliseconds.
    timestamp: "timestamp" => opt &'d str,
    /// tool-use id to the input sent to the tool; only on events holding a
    /// `tool_use` block (`?`).
    wire_tool_inputs: "wire_tool_inputs" => map ToolInput<'d>,
    /// only on events holding a thinking block (`?`).
    thinking_duration_ms: "thinking_duration_ms" => opt u64,
    /// only inside a subagent (`?`).
    subagent_type: "subagent_type" => opt &'d str,
    /// only inside a subagent (`?`).
    task_description: "task_description" => opt &'d str,
    /// the API error category, e.g. `"authentication_failed"`; only on
    /// synthetic error messages (`?`).
    error: "error" => opt &'d str,
    /// true when claude-code made this message up (`message.model` is
    /// `"<synthetic>"`) (`?`).
    is_api_error_message: "is_api_error_message" => opt bool,
    /// the API's own error code on a synthetic error message (e.g.
    /// `"credits_required"`; public record past the reference).
    [extra] api_error_code: "api_error_code" => opt &'d str,
    /// a headless `/usage` report (Agent SDK 0.3.273+): session totals and
    /// the plan's usage rows as the server sends them. It is no model
    /// call's usage: the run's figures never read it (`message.usage` is
    /// the call's), so it is not counted twice. Kept raw.
    [extra] usage_report: "usage_report" => opt Value<'d>;
    calls [block]
}

impl<'d> AssistantView<'d> {
    /// The message's single content block (`message.content[0]`).
    pub fn block(&self) -> Option<Block<'d>> {
        self.message()?.content()?.first()
    }
}

view! {
    /// `assistant.message` (and `message_start.message`): the reference's
    /// `AssistantMessage`, a Messages API message holding one block.
    struct AssistantMessage = "AssistantMessage", open = false;
    /// `msg_...`, shared by the blocks of one call; a uuid on synthetic
    /// messages.
    id: "id" => opt &'d str,
    /// `"message"`.
    type_: "type" => opt &'d str,
    /// `"assistant"`.
    role: "role" => opt &'d str,
    /// the model that answered; `"<synthetic>"` on messages claude-code
    /// made up.
    model: "model" => opt &'d str,
    /// one content block (empty on `message_start`).
    content: "content" => arr Block<'d>,
    /// null on ordinary blocks, `"stop_sequence"` on synthetic messages; the
    /// call's stop reason is on `message_delta` and `result.stop_reason`
    /// (older streams carry `"tool_use"`, `"end_turn"` here).
    stop_reason: "stop_reason" => null &'d str,
    /// null, or `""` on synthetic messages.
    stop_sequence: "stop_sequence" => null &'d str,
    /// observed null.
    stop_details: "stop_details" => null Value<'d>,
    /// observed null.
    container: "container" => null Value<'d>,
    /// observed null here (an object on `message_delta`).
    context_management: "context_management" => null ContextManagement<'d>,
    /// observed null.
    diagnostics: "diagnostics" => null Value<'d>,
    /// observed `[]`; absent on synthetic messages (`?`).
    input_transformations: "input_transformations" => arr Value<'d>,
    /// the call's usage (the same on every block of the call).
    usage: "usage" => opt Usage<'d>;
    calls [is_synthetic]
}

impl AssistantMessage<'_> {
    /// True when `model` is `"<synthetic>"`.
    pub fn is_synthetic(&self) -> bool {
        self.model() == Some("<synthetic>")
    }
}

view! {
    /// `context_management` (on `message_delta`; null on messages).
    struct ContextManagement = "ContextManagement", open = false;
    /// context edits the API applied (observed `[]`).
    applied_edits: "applied_edits" => arr Value<'d>,
}

/// A content block, by its `type`: assistant content, user content,
/// tool-result content and `content_block_start` all hold these.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Block<'d> {
    /// `text`.
    Text(TextBlock<'d>),
    /// `thinking`.
    Thinking(ThinkingBlock<'d>),
    /// `tool_use`.
    ToolUse(ToolUseBlock<'d>),
    /// `tool_result` (user events; some backends write one in the
    /// assistant's content for a server tool, as z.ai's `webReader` does).
    ToolResult(ToolResultBlock<'d>),
    /// `server_tool_use` or `mcp_tool_use`: a tool the API runs itself
    /// (web search, web fetch, code execution, an MCP connector's tool),
    /// inside the assistant's content (Messages API; not in the reference).
    ServerToolUse(ServerToolUseBlock<'d>),
    /// A server tool's result, in the same assistant content:
    /// `web_search_tool_result`, `web_fetch_tool_result`,
    /// `code_execution_tool_result`, `mcp_tool_result`, any `*_tool_result`.
    ServerToolResult(ServerToolResultBlock<'d>),
    /// A block type the reference does not define (`image`,
    /// `redacted_thinking`, ...): its `type` and raw value.
    Other(OtherBlock<'d>),
}

impl<'d> FromValue<'d> for Block<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        if v.kind() != ValueKind::Object {
            return None;
        }
        Some(match type_of(v) {
            Some("text") => Block::Text(TextBlock(v)),
            Some("thinking") => Block::Thinking(ThinkingBlock(v)),
            Some("tool_use") => Block::ToolUse(ToolUseBlock(v)),
            Some("tool_result") => Block::ToolResult(ToolResultBlock::new(v)),
            Some("server_tool_use" | "mcp_tool_use") => Block::ServerToolUse(ServerToolUseBlock(v)),
            Some(t) if t.ends_with("_tool_result") => {
                Block::ServerToolResult(ServerToolResultBlock(v))
            }
            _ => Block::Other(OtherBlock(v)),
        })
    }
}

view_enum!(Block {
    Text,
    Thinking,
    ToolUse,
    ToolResult,
    ServerToolUse,
    ServerToolResult,
    Other
});

impl<'d> Block<'d> {
    /// The block's `type`.
    pub fn type_(&self) -> Option<&'d str> {
        type_of(self.value())
    }
}

view! {
    /// A `text` block.
    struct TextBlock = "TextBlock", open = false;
    /// `"text"`.
    type_: "type" => opt &'d str,
    /// the text.
    text: "text" => opt &'d str,
}

view! {
    /// A `thinking` block. The text is observed empty: only the signature
    /// and token estimates reach the stream.
    struct ThinkingBlock = "ThinkingBlock", open = false;
    /// `"thinking"`.
    type_: "type" => opt &'d str,
    /// the thinking text (observed empty).
    thinking: "thinking" => opt &'d str,
    /// base64 signature.
    signature: "signature" => opt &'d str,
}

view! {
    /// A `tool_use` block: a tool call. The matching user event's
    /// `tool_result` has `tool_use_id` equal to `id`.
    struct ToolUseBlock = "ToolUseBlock", open = false;
    /// `"tool_use"`.
    type_: "type" => opt &'d str,
    /// `toolu_...`.
    id: "id" => opt &'d str,
    /// the tool, e.g. `"Bash"`, `"Read"`, `"Agent"`, `"StructuredOutput"`.
    name: "name" => opt &'d str,
    /// the arguments, shaped by the tool, as a borrowed value (see
    /// [`ToolUseBlock::tool_input`] for the reference's named keys).
    input: "input" => opt Value<'d>,
    /// who made the call.
    caller: "caller" => opt Caller<'d>;
    calls [tool_input]
}

impl<'d> ToolUseBlock<'d> {
    /// `input` as a [`ToolInput`] view, when it is an object.
    pub fn tool_input(&self) -> Option<ToolInput<'d>> {
        ToolInput::from_value(self.0.get("input")?)
    }
}

view! {
    /// A `server_tool_use` (or `mcp_tool_use`) block: a call the API runs
    /// itself. Its result is a `*_tool_result` block of the same message
    /// whose `tool_use_id` is `id` (no user event answers it).
    struct ServerToolUseBlock = "ServerToolUseBlock", open = false;
    /// `"server_tool_use"`, `"mcp_tool_use"`.
    [extra] type_: "type" => opt &'d str,
    /// `srvtoolu_...` (z.ai: `call_...`).
    [extra] id: "id" => opt &'d str,
    /// the tool: `"web_search"`, `"web_fetch"`, `"code_execution"`, z.ai's
    /// `"webReader"`, an MCP tool's name.
    [extra] name: "name" => opt &'d str,
    /// the arguments (an assistant event may carry `{}` where the stream's
    /// `content_block_start` held them).
    [extra] input: "input" => opt Value<'d>,
    /// `mcp_tool_use`: the MCP server.
    [extra] server_name: "server_name" => opt &'d str,
    /// who made the call.
    [extra] caller: "caller" => opt Caller<'d>,
}

view! {
    /// A server tool's result block (`web_search_tool_result`,
    /// `web_fetch_tool_result`, `code_execution_tool_result`,
    /// `mcp_tool_result`, ...).
    struct ServerToolResultBlock = "ServerToolResultBlock", open = false;
    /// `"web_search_tool_result"`, ...
    [extra] type_: "type" => opt &'d str,
    /// the `server_tool_use` it answers.
    [extra] tool_use_id: "tool_use_id" => opt &'d str,
    /// the result, shaped by the tool: an array of results, an object, or
    /// on failure an object of `type` `*_tool_result_error` with an
    /// `error_code` (see [`ServerToolResultBlock::error_code`]).
    [extra] content: "content" => opt Value<'d>,
    /// `mcp_tool_result`: the tool failed.
    [extra] is_error: "is_error" => opt bool;
    calls [error_code]
}

impl<'d> ServerToolResultBlock<'d> {
    /// The error's `error_code` when the tool failed (`content` of `type`
    /// `*_tool_result_error`: `"max_uses_exceeded"`, `"unavailable"`,
    /// `"url_not_accessible"`, ...).
    pub fn error_code(&self) -> Option<&'d str> {
        self.content()?.get("error_code")?.as_str()
    }
}

view! {
    /// `tool_use.caller`.
    struct Caller = "Caller", open = false;
    /// `"direct"`.
    type_: "type" => opt &'d str,
}

view! {
    /// A tool call's arguments (the reference's `ToolInput`), on
    /// `tool_use.input`, `wire_tool_inputs` values, permission denials and
    /// control requests. Its shape depends on the tool, so every key the
    /// reference names for any tool has an accessor, and other keys are
    /// allowed (StructuredOutput takes any): `unknown_fields` lists them
    /// but `visit_all` does not report them.
    struct ToolInput = "ToolInput", open = true;
    /// Bash: the command.
    command: "command" => opt &'d str,
    /// Bash, Agent: a short description.
    description: "description" => opt &'d str,
    /// Bash: the timeout in ms.
    timeout: "timeout" => opt u64,
    /// Bash, Agent: run in the background.
    run_in_background: "run_in_background" => opt bool,
    /// Read, Write, Edit: the file.
    file_path: "file_path" => opt &'d str,
    /// Write: the new content.
    content: "content" => opt &'d str,
    /// Edit: the text replaced.
    old_string: "old_string" => opt &'d str,
    /// Edit: the replacement.
    new_string: "new_string" => opt &'d str,
    /// Edit: replace every occurrence.
    replace_all: "replace_all" => opt bool,
    /// Agent: the subagent's prompt.
    prompt: "prompt" => opt &'d str,
    /// Agent: the subagent type.
    subagent_type: "subagent_type" => opt &'d str,
    /// Skill: the skill's name.
    skill: "skill" => opt &'d str,
    /// Workflow: the script.
    script: "script" => opt &'d str,
}

view! {
    /// A content block whose `type` the reference does not define; every
    /// other field is in `unknown_fields`.
    struct OtherBlock = "OtherBlock", open = false;
    /// the block's type.
    type_: "type" => opt &'d str,
}
