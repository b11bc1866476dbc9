//! A run's calls, one by one: each model call and each tool call, in the
//! same two types for both dialects (a stream's run, a transcript
//! session's), kept when the fold was asked to keep them.
//!
//! A stream's run is one file, so a call is placed by its line; a
//! transcript session spans its own file and its subagents' files, so a
//! call also says its record's file and its agent's id, which a stream's
//! calls leave empty.

use crate::event::TokenCounts;
use crate::run::CallUsageSource;
#[cfg(doc)]
use crate::run::UsageSummary;

/// One model call (one `message.id`; a transcript's, one API request:
/// its `message.id` and `requestId`), kept when the fold was asked to
/// ([`RunFolder::record_calls`](crate::run::RunFolder::record_calls),
/// [`TranscriptFold::record_calls`](crate::transcript::TranscriptFold::record_calls)).
/// The CLI's own messages (model `<synthetic>`) are not calls.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelCall {
    /// `message.id` (none for an assistant event without one: a call of
    /// its own).
    pub message_id: Option<String>,
    /// A transcript record's `requestId` (a stream's events carry none).
    pub request_id: Option<String>,
    /// The subagent's `parent_tool_use_id` (a transcript's: the call that
    /// spawned the calling subagent, when its parent's records say); none
    /// for the main agent.
    pub agent: Option<String>,
    /// The calling subagent's own id in a transcript (its `agentId`, or
    /// its file's); none for the main agent and in a stream.
    pub agent_id: Option<String>,
    /// Made by a subagent (in a transcript: a sidechain record, or a
    /// subagent's file).
    pub sidechain: bool,
    /// `message.model`.
    pub model: Option<String>,
    /// The call's usage, as summed into [`UsageSummary`].
    pub usage: TokenCounts,
    /// The usage is final (a `message_delta`, or a whole message), not an
    /// assistant event's snapshot.
    pub final_usage: bool,
    /// Where the usage comes from.
    pub source: CallUsageSource,
    /// A transcript request's cost: its record's `costUSD`, else priced
    /// from the price table (none when neither gives one, and in a
    /// stream, whose cost is its result's).
    pub cost_usd: Option<f64>,
    /// The file of the record whose usage this is, in a transcript
    /// ([`TranscriptFile::name`](crate::transcript::TranscriptFile::name));
    /// none in a stream (one file).
    pub file: Option<String>,
    /// The line whose usage this is: the last line that set it (the last
    /// assistant event of the message id, or its last `message_delta`, or
    /// the `message_start` when nothing followed it; a transcript's
    /// record chosen to count it).
    pub line: u64,
    /// The first line naming the call (its `message_start` or first
    /// assistant event).
    pub first_line: u64,
    /// The last line naming the call.
    pub last_line: u64,
    /// The `timestamp` of the first of those lines that has one, in
    /// milliseconds since the Unix epoch (2.x assistant events carry one).
    pub started_ms: Option<i64>,
    /// The `timestamp` of the last of those lines that has one.
    pub ended_ms: Option<i64>,
}

/// One tool call (a `tool_use` block) and its result, kept when the fold
/// was asked to
/// ([`RunFolder::record_calls`](crate::run::RunFolder::record_calls),
/// [`TranscriptFold::record_calls`](crate::transcript::TranscriptFold::record_calls)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The `tool_use` block's `id`.
    pub tool_use_id: String,
    /// The tool's `name`.
    pub name: String,
    /// The subagent's `parent_tool_use_id` (a transcript's: the call that
    /// spawned the calling subagent, when its parent's records say); none
    /// for the main agent.
    pub agent: Option<String>,
    /// The calling subagent's own id in a transcript (its `agentId`, or
    /// its file's); none for the main agent and in a stream.
    pub agent_id: Option<String>,
    /// Made by a subagent (in a transcript: a sidechain record, or a
    /// subagent's file).
    pub sidechain: bool,
    /// The file whose record holds the `tool_use` block, in a transcript
    /// ([`TranscriptFile::name`](crate::transcript::TranscriptFile::name));
    /// none in a stream (one file).
    pub file: Option<String>,
    /// The line of the assistant event with the `tool_use` block (in a
    /// transcript, of [`file`](ToolCall::file); its result's line is of
    /// the result's own file).
    pub line: u64,
    /// The line of the user event with its first `tool_result` (a result
    /// given again, a replay, changes only `error`).
    pub result_line: Option<u64>,
    /// The `timestamp` of the tool_use's event, in milliseconds since the
    /// Unix epoch.
    pub started_ms: Option<i64>,
    /// From the tool_use's `timestamp` to the tool_result's, when both carry
    /// one.
    pub duration_ms: Option<i64>,
    /// A tool_result answered it.
    pub answered: bool,
    /// The result was an error (`is_error`, `<tool_use_error>`, or a
    /// `tool_use_result` string starting `Error: `), rejections included.
    pub error: bool,
    /// The call was rejected (a permission denial or `tool_result_meta`,
    /// or the CLI's notice that the user rejected it).
    pub rejected: bool,
}
