//! Views of `stream_event` events and the Messages API stream events they
//! wrap.

use super::*;

view! {
    /// `stream_event` (with `--include-partial-messages`): one streaming
    /// event of the Messages API. The complete block comes as an assistant
    /// event just before its `content_block_stop`; an interrupted stream
    /// may stop after any delta. Subagent calls produce none.
    struct StreamEventView = "stream_event", open = false;
    /// `"stream_event"`.
    type_: "type" => opt &'d str,
    /// the session id.
    session_id: "session_id" => opt &'d str,
    /// this line's unique id.
    uuid: "uuid" => opt &'d str,
    /// the API event.
    event: "event" => opt ApiEvent<'d>,
    /// observed null (subagent calls are not streamed).
    parent_tool_use_id: "parent_tool_use_id" => null &'d str,
    /// time to first token, on `message_start` only (`?`).
    ttft_ms: "ttft_ms" => opt u64,
    /// `"updates"`, on `message_start` and thinking blocks' events (`?`).
    thinking_display: "thinking_display" => opt &'d str,
}

/// `stream_event.event`, by its `type`.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum ApiEvent<'d> {
    /// `message_start`.
    MessageStart(MessageStart<'d>),
    /// `content_block_start`.
    ContentBlockStart(ContentBlockStart<'d>),
    /// `content_block_delta`.
    ContentBlockDelta(ContentBlockDelta<'d>),
    /// `content_block_stop`.
    ContentBlockStop(ContentBlockStop<'d>),
    /// `message_delta`.
    MessageDelta(MessageDelta<'d>),
    /// `message_stop`.
    MessageStop(MessageStop<'d>),
    /// Another type (`ping`, `error`, ...).
    Other(OtherApiEvent<'d>),
}

impl<'d> FromValue<'d> for ApiEvent<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        if v.kind() != ValueKind::Object {
            return None;
        }
        Some(match type_of(v) {
            Some("message_start") => ApiEvent::MessageStart(MessageStart(v)),
            Some("content_block_start") => ApiEvent::ContentBlockStart(ContentBlockStart(v)),
            Some("content_block_delta") => ApiEvent::ContentBlockDelta(ContentBlockDelta(v)),
            Some("content_block_stop") => ApiEvent::ContentBlockStop(ContentBlockStop(v)),
            Some("message_delta") => ApiEvent::MessageDelta(MessageDelta(v)),
            Some("message_stop") => ApiEvent::MessageStop(MessageStop(v)),
            _ => ApiEvent::Other(OtherApiEvent(v)),
        })
    }
}

view_enum!(ApiEvent {
    MessageStart,
    ContentBlockStart,
    ContentBlockDelta,
    ContentBlockStop,
    MessageDelta,
    MessageStop,
    Other
});

impl<'d> ApiEvent<'d> {
    /// The event's `type`.
    pub fn type_(&self) -> Option<&'d str> {
        type_of(self.value())
    }
}

view! {
    /// `message_start`: a model call begins; `content` is empty and the
    /// usage already has the input-side counts.
    struct MessageStart = "MessageStart", open = false;
    /// `"message_start"`.
    type_: "type" => opt &'d str,
    /// the message so far.
    message: "message" => opt AssistantMessage<'d>,
}

view! {
    /// `content_block_start`: block `index` begins (empty).
    struct ContentBlockStart = "ContentBlockStart", open = false;
    /// `"content_block_start"`.
    type_: "type" => opt &'d str,
    /// the block's index in the call.
    index: "index" => opt u64,
    /// the empty block (`text: ""`, `thinking: ""`, or a `tool_use` with
    /// `input: {}`).
    content_block: "content_block" => opt Block<'d>,
}

view! {
    /// `content_block_delta`: a piece of block `index`.
    struct ContentBlockDelta = "ContentBlockDelta", open = false;
    /// `"content_block_delta"`.
    type_: "type" => opt &'d str,
    /// the block's index.
    index: "index" => opt u64,
    /// the piece.
    delta: "delta" => opt Delta<'d>,
}

view! {
    /// `content_block_stop`: block `index` ends (its assistant event came
    /// just before).
    struct ContentBlockStop = "ContentBlockStop", open = false;
    /// `"content_block_stop"`.
    type_: "type" => opt &'d str,
    /// the block's index.
    index: "index" => opt u64,
}

view! {
    /// `message_delta`: the call's summary before it ends, with the final
    /// usage (`output_tokens_details` and `iterations` included).
    struct MessageDelta = "MessageDelta", open = false;
    /// `"message_delta"`.
    type_: "type" => opt &'d str,
    /// the stop reason and friends.
    delta: "delta" => opt MessageDeltaBody<'d>,
    /// the call's final usage.
    usage: "usage" => opt Usage<'d>,
    /// context edits (`{applied_edits: []}`).
    context_management: "context_management" => opt ContextManagement<'d>,
}

view! {
    /// `message_delta.delta`.
    struct MessageDeltaBody = "MessageDeltaBody", open = false;
    /// `"end_turn"` or `"tool_use"`.
    stop_reason: "stop_reason" => null &'d str,
    /// observed null.
    stop_sequence: "stop_sequence" => null &'d str,
    /// observed null.
    stop_details: "stop_details" => null Value<'d>,
    /// observed null.
    container: "container" => null Value<'d>,
}

view! {
    /// `message_stop`: the call ends.
    struct MessageStop = "MessageStop", open = false;
    /// `"message_stop"`.
    type_: "type" => opt &'d str,
}

view! {
    /// An API stream event of a type the reference does not define.
    struct OtherApiEvent = "OtherApiEvent", open = false;
    /// the event's type.
    type_: "type" => opt &'d str,
}

/// `content_block_delta.delta`, by its `type`.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Delta<'d> {
    /// `text_delta`.
    Text(TextDelta<'d>),
    /// `thinking_delta`.
    Thinking(ThinkingDelta<'d>),
    /// `signature_delta`.
    Signature(SignatureDelta<'d>),
    /// `input_json_delta`.
    InputJson(InputJsonDelta<'d>),
    /// Another type (`citations_delta`, ...).
    Other(OtherDelta<'d>),
}

impl<'d> FromValue<'d> for Delta<'d> {
    fn from_value(v: Value<'d>) -> Option<Self> {
        if v.kind() != ValueKind::Object {
            return None;
        }
        Some(match type_of(v) {
            Some("text_delta") => Delta::Text(TextDelta(v)),
            Some("thinking_delta") => Delta::Thinking(ThinkingDelta(v)),
            Some("signature_delta") => Delta::Signature(SignatureDelta(v)),
            Some("input_json_delta") => Delta::InputJson(InputJsonDelta(v)),
            _ => Delta::Other(OtherDelta(v)),
        })
    }
}

view_enum!(Delta {
    Text,
    Thinking,
    Signature,
    InputJson,
    Other
});

impl<'d> Delta<'d> {
    /// The delta's `type`.
    pub fn type_(&self) -> Option<&'d str> {
        type_of(self.value())
    }
}

view! {
    /// `text_delta`: more text.
    struct TextDelta = "TextDelta", open = false;
    /// `"text_delta"`.
    type_: "type" => opt &'d str,
    /// the text piece.
    text: "text" => opt &'d str,
}

view! {
    /// `thinking_delta`: more thinking (observed empty) with a token
    /// estimate.
    struct ThinkingDelta = "ThinkingDelta", open = false;
    /// `"thinking_delta"`.
    type_: "type" => opt &'d str,
    /// the thinking piece (observed empty).
    thinking: "thinking" => opt &'d str,
    /// estimated thinking tokens, or null.
    estimated_tokens: "estimated_tokens" => null u64,
}

view! {
    /// `signature_delta`: the thinking block's signature.
    struct SignatureDelta = "SignatureDelta", open = false;
    /// `"signature_delta"`.
    type_: "type" => opt &'d str,
    /// the signature.
    signature: "signature" => opt &'d str,
}

view! {
    /// `input_json_delta`: a piece of the tool input's JSON text; the pieces
    /// joined are `tool_use.input` (the first may be empty).
    struct InputJsonDelta = "InputJsonDelta", open = false;
    /// `"input_json_delta"`.
    type_: "type" => opt &'d str,
    /// the JSON piece.
    partial_json: "partial_json" => opt &'d str,
}

view! {
    /// A delta of a type the reference does not define.
    struct OtherDelta = "OtherDelta", open = false;
    /// the delta's type.
    type_: "type" => opt &'d str,
}
