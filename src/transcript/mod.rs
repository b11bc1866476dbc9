//! Session transcripts: the files Claude Code keeps in
//! `~/.claude/projects/<project>/<session>.jsonl` (and
//! `<session>/subagents/agent-<id>.jsonl`), read as a second dialect,
//! typed like the stream.
//!
//! A transcript is one JSON object a line, like stream-json, but its records
//! are not stream events: camelCase `sessionId`, a `parentUuid` chain,
//! `isSidechain`, the CLI `version` on every record, assistant messages
//! repeated once per content block with the same `message.id` and
//! `requestId`, and record types the stream does not have (`summary`,
//! `file-history-snapshot`, `progress`, `queue-operation`, a `result`
//! holding a `toolUseId`). This module owns:
//!
//! - [`RecordKind`] and [`Record`], a lazy view over a scanned line (no
//!   allocation), with [`Record::view`] giving a typed view per kind real
//!   files carry ([`RecordView`]);
//! - [`TranscriptFile`], what a file's path says (project, session, agent);
//! - [`TranscriptFold`], which folds records into sessions (one per
//!   `sessionId`, subagent files tied to their parent session), counts usage
//!   once per API request, and knows what a verdict can: the last stop
//!   reason, API errors, interrupted turns, tool errors, the sidechain tree;
//!   [`TranscriptFold::finish`] prices it ([`crate::pricing`]) and groups it
//!   by session and by day in a time zone ([`crate::time`]).
//!
//! ```
//! use cctape::framing::Lines;
//! use cctape::scan::Scanner;
//! use cctape::transcript::{Record, RecordKind, RecordView};
//!
//! let line = br#"{"parentUuid":"u1","isSidechain":false,"sessionId":"s1","version":"2.1.39","type":"assistant","message":{"id":"msg_1","model":"claude-opus-4-6","usage":{"input_tokens":3,"output_tokens":9,"cache_creation_input_tokens":100,"cache_read_input_tokens":50,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":100}},"stop_reason":"end_turn"},"requestId":"req_1","uuid":"u2","timestamp":"2026-02-11T21:36:41.090Z"}"#;
//! let mut scanner = Scanner::new();
//! let l = Lines::new(line).next().unwrap();
//! let rec = Record::new(scanner.scan(&l).unwrap());
//! assert_eq!(rec.kind(), RecordKind::Assistant);
//! assert_eq!(rec.version(), Some("2.1.39"));
//! let RecordView::Assistant(a) = rec.view() else { panic!() };
//! let u = a.usage().unwrap();
//! assert_eq!((u.input, u.output, u.cache_write_1h, u.cache_read), (3, 9, 100, 50));
//! assert_eq!(a.request_id(), Some("req_1"));
//! ```

mod file;
mod fold;
mod run;

pub use file::TranscriptFile;
pub use fold::{
    AgentSummary, DaySummary, ModelRoleTotals, ModelTotals, Report, SessionBlock, SessionDay,
    SessionEnd, SessionFacts, SessionRequest, SessionSummary, SessionToolCall, ToolCount, Totals,
    TranscriptFold,
};

use crate::error::Position;
use crate::event::{Event, Field};
use crate::json::{Scanned, Value};
use crate::pricing::RequestTokens;
use fold::read;
pub(crate) use fold::usage;

/// What a transcript record is, from its `type` and `subtype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RecordKind {
    /// `user`: a prompt, a tool result, an interrupt notice, a compaction
    /// summary.
    User,
    /// `assistant`: one content block of a model response (repeated per
    /// block with the same `message.id` and `requestId`).
    Assistant,
    /// `system/stop_hook_summary`: what the Stop hooks did.
    SystemStopHookSummary,
    /// `system/turn_duration`: how long a turn took.
    SystemTurnDuration,
    /// `system/compact_boundary`: the conversation was compacted.
    SystemCompactBoundary,
    /// `system/local_command`: a slash command run locally (`/model`).
    SystemLocalCommand,
    /// `system/api_error`: an API request failed.
    SystemApiError,
    /// A `system` record with another subtype, or none.
    SystemOther,
    /// `summary`: a title for a conversation (`leafUuid`).
    Summary,
    /// `file-history-snapshot`: files backed up before an edit.
    FileHistorySnapshot,
    /// `progress`: hook, Bash, agent or task progress (`data.type`).
    Progress,
    /// `queue-operation`: a prompt queued or dequeued while busy.
    QueueOperation,
    /// `result`: a tool's result kept apart (`toolUseId`, `content`); not a
    /// run's result.
    Result,
    /// Any other type.
    Unknown,
}

impl RecordKind {
    /// The kind for a `type` and optional `subtype`.
    pub fn from_type(ty: &str, subtype: Option<&str>) -> RecordKind {
        match ty {
            "user" => RecordKind::User,
            "assistant" => RecordKind::Assistant,
            "system" => match subtype {
                Some("stop_hook_summary") => RecordKind::SystemStopHookSummary,
                Some("turn_duration") => RecordKind::SystemTurnDuration,
                Some("compact_boundary") => RecordKind::SystemCompactBoundary,
                Some("local_command") => RecordKind::SystemLocalCommand,
                Some("api_error") => RecordKind::SystemApiError,
                _ => RecordKind::SystemOther,
            },
            "summary" => RecordKind::Summary,
            "file-history-snapshot" => RecordKind::FileHistorySnapshot,
            "progress" => RecordKind::Progress,
            "queue-operation" => RecordKind::QueueOperation,
            "result" => RecordKind::Result,
            _ => RecordKind::Unknown,
        }
    }

    /// Every kind, in declaration order.
    pub const ALL: [RecordKind; 14] = [
        RecordKind::User,
        RecordKind::Assistant,
        RecordKind::SystemStopHookSummary,
        RecordKind::SystemTurnDuration,
        RecordKind::SystemCompactBoundary,
        RecordKind::SystemLocalCommand,
        RecordKind::SystemApiError,
        RecordKind::SystemOther,
        RecordKind::Summary,
        RecordKind::FileHistorySnapshot,
        RecordKind::Progress,
        RecordKind::QueueOperation,
        RecordKind::Result,
        RecordKind::Unknown,
    ];

    /// `type` or `type/subtype` (`system/turn_duration`); `None` for the
    /// kinds that stand for several names.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            RecordKind::User => "user",
            RecordKind::Assistant => "assistant",
            RecordKind::SystemStopHookSummary => "system/stop_hook_summary",
            RecordKind::SystemTurnDuration => "system/turn_duration",
            RecordKind::SystemCompactBoundary => "system/compact_boundary",
            RecordKind::SystemLocalCommand => "system/local_command",
            RecordKind::SystemApiError => "system/api_error",
            RecordKind::Summary => "summary",
            RecordKind::FileHistorySnapshot => "file-history-snapshot",
            RecordKind::Progress => "progress",
            RecordKind::QueueOperation => "queue-operation",
            RecordKind::Result => "result",
            RecordKind::SystemOther | RecordKind::Unknown => return None,
        })
    }

    /// Position in [`RecordKind::ALL`].
    pub fn index(self) -> usize {
        RecordKind::ALL.iter().position(|&k| k == self).unwrap_or(0)
    }
}

/// A transcript record: a scanned line read in the transcript dialect.
/// Every field is read lazily from the line's bytes; nothing is copied.
#[derive(Clone, Copy, Debug)]
pub struct Record<'s> {
    line: Scanned<'s>,
    kind: RecordKind,
}

impl<'s> Record<'s> {
    /// The record a scanned line holds.
    pub fn new(line: Scanned<'s>) -> Record<'s> {
        let kind = RecordKind::from_type(line.raw_type(), line.raw_subtype());
        Record { line, kind }
    }

    /// What the record is.
    pub fn kind(&self) -> RecordKind {
        self.kind
    }

    /// The scanned line (raw bytes, position, every field).
    pub fn scanned(&self) -> &Scanned<'s> {
        &self.line
    }

    /// The line's position.
    pub fn position(&self) -> Position {
        self.line.position()
    }

    /// `type`.
    pub fn raw_type(&self) -> &'s str {
        self.line.raw_type()
    }

    /// `subtype`.
    pub fn raw_subtype(&self) -> Option<&'s str> {
        self.line.raw_subtype()
    }

    /// The line read as a stream event (the same line, the same index):
    /// for the readers that take events, such as the `events` rows of an
    /// export.
    pub fn event(&self) -> Event<'s> {
        // Without the member tables: `Event::scanned`, the stream readers'
        // hot path, stays inlined where they call it (a second caller made
        // the compiler outline it), and a record's event is read a few
        // fields at a time.
        Event::from_parts(self.line.value(), self.line.line(), self.line.kind())
    }

    /// The root object, read through the line's index.
    pub fn root(&self) -> Value<'s> {
        self.line.value()
    }

    /// A top-level field (the first, should the line give it twice).
    pub fn get(&self, key: &str) -> Option<Value<'s>> {
        self.root().get(key)
    }

    /// The value at a dotted path (`"message.usage.output_tokens"`).
    pub fn get_path(&self, path: &str) -> Option<Value<'s>> {
        self.root().get_path(path)
    }

    fn str_field(&self, key: &str) -> Option<&'s str> {
        self.get(key)?.as_str()
    }

    /// `sessionId`.
    pub fn session_id(&self) -> Option<&'s str> {
        self.str_field("sessionId")
    }

    /// `uuid`.
    pub fn uuid(&self) -> Option<&'s str> {
        self.str_field("uuid")
    }

    /// `parentUuid`: null at the root of a chain (and after a compaction).
    pub fn parent_uuid(&self) -> Field<&'s str> {
        match self.get("parentUuid") {
            None => Field::Missing,
            Some(v) if v.is_null() => Field::Null,
            Some(v) => v.as_str().map_or(Field::Missing, Field::Value),
        }
    }

    /// `logicalParentUuid` (on a compaction boundary: the record before it).
    pub fn logical_parent_uuid(&self) -> Option<&'s str> {
        self.str_field("logicalParentUuid")
    }

    /// `isSidechain`: true inside a subagent's conversation.
    pub fn is_sidechain(&self) -> Option<bool> {
        self.get("isSidechain")?.as_bool()
    }

    /// `agentId` (records of a subagent file).
    pub fn agent_id(&self) -> Option<&'s str> {
        self.str_field("agentId")
    }

    /// `version`: the Claude Code version that wrote the record.
    pub fn version(&self) -> Option<&'s str> {
        self.str_field("version")
    }

    /// `timestamp`.
    pub fn timestamp(&self) -> Option<&'s str> {
        self.str_field("timestamp")
    }

    /// `timestamp` as milliseconds since the Unix epoch; `None` when absent
    /// or not a date.
    pub fn timestamp_millis(&self) -> Option<i64> {
        crate::time::parse_millis(self.timestamp()?)
    }

    /// `cwd`.
    pub fn cwd(&self) -> Option<&'s str> {
        self.str_field("cwd")
    }

    /// `gitBranch`.
    pub fn git_branch(&self) -> Option<&'s str> {
        self.str_field("gitBranch")
    }

    /// `userType` (`external`).
    pub fn user_type(&self) -> Option<&'s str> {
        self.str_field("userType")
    }

    /// `slug`: the session's human-readable name.
    pub fn slug(&self) -> Option<&'s str> {
        self.str_field("slug")
    }

    /// `isMeta`.
    pub fn is_meta(&self) -> Option<bool> {
        self.get("isMeta")?.as_bool()
    }

    /// `message`.
    pub fn message(&self) -> Option<Value<'s>> {
        self.get("message")
    }

    /// The typed view for the record's kind.
    pub fn view(self) -> RecordView<'s> {
        match self.kind {
            RecordKind::User => RecordView::User(UserRecord(self)),
            RecordKind::Assistant => RecordView::Assistant(AssistantRecord(self)),
            RecordKind::SystemStopHookSummary
            | RecordKind::SystemTurnDuration
            | RecordKind::SystemCompactBoundary
            | RecordKind::SystemLocalCommand
            | RecordKind::SystemApiError
            | RecordKind::SystemOther => RecordView::System(SystemRecord(self)),
            RecordKind::Summary => RecordView::Summary(SummaryRecord(self)),
            RecordKind::FileHistorySnapshot => {
                RecordView::FileHistorySnapshot(FileHistorySnapshotRecord(self))
            }
            RecordKind::Progress => RecordView::Progress(ProgressRecord(self)),
            RecordKind::QueueOperation => RecordView::QueueOperation(QueueOperationRecord(self)),
            RecordKind::Result => RecordView::Result(ResultRecord(self)),
            RecordKind::Unknown => RecordView::Other(self),
        }
    }
}

/// A typed view per record kind.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum RecordView<'s> {
    /// `user`.
    User(UserRecord<'s>),
    /// `assistant`.
    Assistant(AssistantRecord<'s>),
    /// `system/*`.
    System(SystemRecord<'s>),
    /// `summary`.
    Summary(SummaryRecord<'s>),
    /// `file-history-snapshot`.
    FileHistorySnapshot(FileHistorySnapshotRecord<'s>),
    /// `progress`.
    Progress(ProgressRecord<'s>),
    /// `queue-operation`.
    QueueOperation(QueueOperationRecord<'s>),
    /// `result` (a tool's result, `toolUseId`).
    Result(ResultRecord<'s>),
    /// A type this module does not know: still reachable raw.
    Other(Record<'s>),
}

macro_rules! view_common {
    ($t:ident) => {
        impl<'s> $t<'s> {
            /// The record behind the view (common fields).
            pub fn record(&self) -> &Record<'s> {
                &self.0
            }
        }
    };
}

/// An `assistant` record: one content block of a model response.
#[derive(Clone, Copy, Debug)]
pub struct AssistantRecord<'s>(Record<'s>);
view_common!(AssistantRecord);

impl<'s> AssistantRecord<'s> {
    /// `message.id`: the API message (shared by the records of its blocks).
    pub fn message_id(&self) -> Option<&'s str> {
        self.0.message()?.get("id")?.as_str()
    }

    /// `requestId`: the API request.
    pub fn request_id(&self) -> Option<&'s str> {
        self.0.str_field("requestId")
    }

    /// `message.model` (`<synthetic>` for messages the CLI wrote itself).
    pub fn model(&self) -> Option<&'s str> {
        self.0.message()?.get("model")?.as_str()
    }

    /// `message.stop_reason` (null on all but a message's last block in
    /// some versions).
    pub fn stop_reason(&self) -> Field<&'s str> {
        match self.0.message().and_then(|m| m.get("stop_reason")) {
            None => Field::Missing,
            Some(v) if v.is_null() => Field::Null,
            Some(v) => v.as_str().map_or(Field::Missing, Field::Value),
        }
    }

    /// `message.usage` as priced tokens: the cache writes split by lifetime
    /// from `cache_creation.ephemeral_5m/1h_input_tokens` when present (all
    /// 5-minute otherwise), `speed: "fast"` as fast mode.
    pub fn usage(&self) -> Option<RequestTokens> {
        usage(self.0.message()?.get("usage")?)
    }

    /// `message.usage.cache_creation_input_tokens` as written (the split in
    /// [`usage`](AssistantRecord::usage) may not add up to it in odd
    /// records).
    pub fn cache_creation_input_tokens(&self) -> Option<u64> {
        self.0
            .message()?
            .get("usage")?
            .get("cache_creation_input_tokens")?
            .as_u64()
    }

    /// `costUSD`, written by old CLI versions.
    pub fn cost_usd(&self) -> Option<f64> {
        self.0.get("costUSD")?.as_f64()
    }

    /// `isApiErrorMessage`: the CLI wrote this message for a failed request.
    pub fn is_api_error_message(&self) -> bool {
        self.0
            .get("isApiErrorMessage")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    /// `error` (`rate_limit`, `authentication_failed`, ...).
    pub fn error(&self) -> Option<&'s str> {
        self.0.str_field("error")
    }

    /// `message.content`'s blocks.
    pub fn content(&self) -> impl Iterator<Item = Value<'s>> + 's {
        self.0
            .message()
            .and_then(|m| m.get("content"))
            .into_iter()
            .flat_map(|c| c.elements())
    }

    /// The `tool_use` blocks of this record: each call's `id`, the tool's
    /// `name` and its `input`.
    #[allow(clippy::type_complexity)]
    pub fn tool_uses(&self) -> impl Iterator<Item = (&'s str, &'s str, Option<Value<'s>>)> + 's {
        read::tool_calls(self.0.message().and_then(|m| m.get("content")))
            .filter_map(|c| Some((c.id.as_str()?, c.name.as_str()?, c.input)))
    }

    /// The names of the tools this record's blocks call.
    pub fn tool_names(&self) -> impl Iterator<Item = &'s str> + 's {
        read::blocks(self.0.message().and_then(|m| m.get("content")), "tool_use")
            .filter_map(|b| b.get("name")?.as_str())
    }
}

/// A `user` record: a prompt, tool results, an interrupt notice.
#[derive(Clone, Copy, Debug)]
pub struct UserRecord<'s>(Record<'s>);
view_common!(UserRecord);

impl<'s> UserRecord<'s> {
    /// `message.content`: a string, or an array of blocks.
    pub fn content(&self) -> Option<Value<'s>> {
        self.0.message()?.get("content")
    }

    /// The text: the content string, or the first text block's text.
    pub fn text(&self) -> Option<&'s str> {
        read::user_text(self.content())?.as_str()
    }

    /// The `tool_result` blocks: the `tool_use_id` each answers and whether
    /// it is an error.
    pub fn tool_results(&self) -> impl Iterator<Item = (Option<&'s str>, bool)> + 's {
        read::tool_results(self.content()).map(|(id, error)| (id.and_then(|v| v.as_str()), error))
    }

    /// True for the notice the CLI writes when the user interrupts a turn
    /// (`[Request interrupted by user]`, `... for tool use]`).
    pub fn is_interrupt(&self) -> bool {
        read::is_interrupt(read::user_text(self.content()))
    }

    /// `toolUseResult`: the tool's structured result.
    pub fn tool_use_result(&self) -> Option<Value<'s>> {
        self.0.get("toolUseResult")
    }

    /// `sourceToolAssistantUUID`: the assistant record whose tool call this
    /// answers.
    pub fn source_tool_assistant_uuid(&self) -> Option<&'s str> {
        self.0.str_field("sourceToolAssistantUUID")
    }

    /// `isCompactSummary`: the summary a compaction left.
    pub fn is_compact_summary(&self) -> bool {
        self.0
            .get("isCompactSummary")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    /// `permissionMode`.
    pub fn permission_mode(&self) -> Option<&'s str> {
        self.0.str_field("permissionMode")
    }
}

/// A `system` record.
#[derive(Clone, Copy, Debug)]
pub struct SystemRecord<'s>(Record<'s>);
view_common!(SystemRecord);

impl<'s> SystemRecord<'s> {
    /// `content` (`Conversation compacted`, a local command's text).
    pub fn content(&self) -> Option<&'s str> {
        self.0.str_field("content")
    }

    /// `level` (`info`, `suggestion`, ...).
    pub fn level(&self) -> Option<&'s str> {
        self.0.str_field("level")
    }

    /// `durationMs` of a `turn_duration`.
    pub fn duration_ms(&self) -> Option<u64> {
        self.0.get("durationMs")?.as_u64()
    }

    /// `hookCount` of a `stop_hook_summary`.
    pub fn hook_count(&self) -> Option<u64> {
        self.0.get("hookCount")?.as_u64()
    }

    /// How many `hookErrors` a `stop_hook_summary` lists.
    pub fn hook_errors(&self) -> usize {
        self.0.get("hookErrors").map_or(0, |v| v.elements().count())
    }

    /// `preventedContinuation` of a `stop_hook_summary`.
    pub fn prevented_continuation(&self) -> Option<bool> {
        self.0.get("preventedContinuation")?.as_bool()
    }

    /// `compactMetadata.trigger` (`auto`, `manual`) of a compaction.
    pub fn compact_trigger(&self) -> Option<&'s str> {
        self.0.get_path("compactMetadata.trigger")?.as_str()
    }

    /// `compactMetadata.preTokens` of a compaction.
    pub fn compact_pre_tokens(&self) -> Option<u64> {
        self.0.get_path("compactMetadata.preTokens")?.as_u64()
    }

    /// `toolUseID`.
    pub fn tool_use_id(&self) -> Option<&'s str> {
        self.0.str_field("toolUseID")
    }
}

/// A `summary` record.
#[derive(Clone, Copy, Debug)]
pub struct SummaryRecord<'s>(Record<'s>);
view_common!(SummaryRecord);

impl<'s> SummaryRecord<'s> {
    /// `summary`: the title.
    pub fn summary(&self) -> Option<&'s str> {
        self.0.str_field("summary")
    }

    /// `leafUuid`: the last record the title covers.
    pub fn leaf_uuid(&self) -> Option<&'s str> {
        self.0.str_field("leafUuid")
    }
}

/// A `file-history-snapshot` record.
#[derive(Clone, Copy, Debug)]
pub struct FileHistorySnapshotRecord<'s>(Record<'s>);
view_common!(FileHistorySnapshotRecord);

impl<'s> FileHistorySnapshotRecord<'s> {
    /// `messageId`: the user message the snapshot belongs to.
    pub fn message_id(&self) -> Option<&'s str> {
        self.0.str_field("messageId")
    }

    /// `isSnapshotUpdate`.
    pub fn is_snapshot_update(&self) -> Option<bool> {
        self.0.get("isSnapshotUpdate")?.as_bool()
    }

    /// How many files `snapshot.trackedFileBackups` holds.
    pub fn tracked_files(&self) -> usize {
        self.0
            .get_path("snapshot.trackedFileBackups")
            .map_or(0, |v| v.entries().count())
    }
}

/// A `progress` record.
#[derive(Clone, Copy, Debug)]
pub struct ProgressRecord<'s>(Record<'s>);
view_common!(ProgressRecord);

impl<'s> ProgressRecord<'s> {
    /// `data.type` (`hook_progress`, `bash_progress`, `agent_progress`,
    /// `waiting_for_task`, ...).
    pub fn data_type(&self) -> Option<&'s str> {
        self.0.get_path("data.type")?.as_str()
    }

    /// `toolUseID`.
    pub fn tool_use_id(&self) -> Option<&'s str> {
        self.0.str_field("toolUseID")
    }

    /// `parentToolUseID`: the tool call the progress is for (for an agent,
    /// the `Task` call that spawned it).
    pub fn parent_tool_use_id(&self) -> Option<&'s str> {
        self.0.str_field("parentToolUseID")
    }

    /// `data.agentId` of an `agent_progress`: the subagent.
    pub fn agent_id(&self) -> Option<&'s str> {
        self.0.get_path("data.agentId")?.as_str()
    }

    /// For an `agent_progress` that relays one of the subagent's assistant
    /// messages: that message (`data.message.message`), its `requestId`
    /// and its `timestamp`. A subagent's API requests show here even when
    /// its own `agent-*.jsonl` file is gone.
    pub fn agent_assistant_message(&self) -> Option<(Value<'s>, Option<&'s str>, Option<&'s str>)> {
        let relayed = self.0.get_path("data.message")?;
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

    /// `data.hookEvent` of a `hook_progress`.
    pub fn hook_event(&self) -> Option<&'s str> {
        self.0.get_path("data.hookEvent")?.as_str()
    }
}

/// A `queue-operation` record.
#[derive(Clone, Copy, Debug)]
pub struct QueueOperationRecord<'s>(Record<'s>);
view_common!(QueueOperationRecord);

impl<'s> QueueOperationRecord<'s> {
    /// `operation` (`enqueue`, `dequeue`, `remove`, ...).
    pub fn operation(&self) -> Option<&'s str> {
        self.0.str_field("operation")
    }

    /// `content`: the queued prompt.
    pub fn content(&self) -> Option<&'s str> {
        self.0.str_field("content")
    }
}

/// A transcript `result` record: a tool's result kept apart, not a run's
/// result (it has no `subtype`, `is_error` or cost).
#[derive(Clone, Copy, Debug)]
pub struct ResultRecord<'s>(Record<'s>);
view_common!(ResultRecord);

impl<'s> ResultRecord<'s> {
    /// `toolUseId`: the tool call.
    pub fn tool_use_id(&self) -> Option<&'s str> {
        self.0.str_field("toolUseId")
    }

    /// `content`.
    pub fn content(&self) -> Option<Value<'s>> {
        self.0.get("content")
    }
}
