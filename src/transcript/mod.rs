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
//! - [`RecordView`], a typed view per kind real files carry, of a record:
//!   an [`Event`] read in this dialect ([`Scanned::record`]: its kind from
//!   [`EventKind::from_record_type`]; no allocation). The views' tables are
//!   in [`crate::views`], beside the stream's; [`RecordHeader`] reads the
//!   fields every conversation record carries;
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
//! use cctape::json::Scanner;
//! use cctape::EventKind;
//! use cctape::transcript::{RecordHeader, RecordView};
//!
//! let line = br#"{"parentUuid":"u1","isSidechain":false,"sessionId":"s1","version":"2.1.39","type":"assistant","message":{"id":"msg_1","model":"claude-opus-4-6","usage":{"input_tokens":3,"output_tokens":9,"cache_creation_input_tokens":100,"cache_read_input_tokens":50,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":100}},"stop_reason":"end_turn"},"requestId":"req_1","uuid":"u2","timestamp":"2026-02-11T21:36:41.090Z"}"#;
//! let mut scanner = Scanner::new();
//! let l = Lines::new(line).next().unwrap();
//! let rec = scanner.scan(&l).unwrap().record();
//! assert_eq!(rec.kind(), EventKind::Assistant);
//! assert_eq!(RecordHeader::new(rec.root()).version(), Some("2.1.39"));
//! let RecordView::Assistant(a) = RecordView::of(&rec) else { panic!() };
//! let u = a.request_tokens().unwrap();
//! assert_eq!((u.input, u.output, u.cache_write_1h, u.cache_read), (3, 9, 100, 50));
//! assert_eq!(a.request_id(), Some("req_1"));
//! assert_eq!(a.message().and_then(|m| m.id()), Some("msg_1"));
//! assert_eq!(a.unknown_fields().count(), 0);
//! ```

mod file;
mod fold;
mod run;

pub use file::TranscriptFile;
pub use fold::{
    AgentSummary, DaySummary, ModelRoleTotals, ModelTotals, Report, SessionBlock, SessionDay,
    SessionEnd, SessionFacts, SessionSummary, Totals, TranscriptFold,
};

use crate::event::{Event, EventKind};

/// The model of the CLI's own messages (`/model` output, API errors): not
/// model calls.
pub(crate) const SYNTHETIC: &str = "<synthetic>";
#[cfg(doc)]
use crate::json::Scanned;
use crate::json::Value;
use crate::views::{Answer, ObjectView, Visitor};
pub use crate::views::{
    AssistantRecord, FileHistorySnapshotRecord, FileSnapshot, ProgressData, ProgressRecord,
    QueueOperationRecord, RecordHeader, ResultRecord, SummaryRecord, SystemRecord,
    TranscriptCompactMetadata, UserRecord,
};
use fold::read;
pub(crate) use fold::usage;

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
    Other(Event<'s>),
}

impl<'s> RecordView<'s> {
    /// The typed view for a record's kind (`record`: a line read in this
    /// dialect, [`Scanned::record`]).
    pub fn of(record: &Event<'s>) -> RecordView<'s> {
        let v = record.root();
        match record.kind() {
            EventKind::User => RecordView::User(UserRecord::new(v)),
            EventKind::Assistant => RecordView::Assistant(AssistantRecord::new(v)),
            k if k.is_system() => RecordView::System(SystemRecord::new(v)),
            EventKind::Summary => RecordView::Summary(SummaryRecord::new(v)),
            EventKind::FileHistorySnapshot => {
                RecordView::FileHistorySnapshot(FileHistorySnapshotRecord::new(v))
            }
            EventKind::Progress => RecordView::Progress(ProgressRecord::new(v)),
            EventKind::QueueOperation => RecordView::QueueOperation(QueueOperationRecord::new(v)),
            EventKind::ToolResultRecord => RecordView::Result(ResultRecord::new(v)),
            _ => RecordView::Other(*record),
        }
    }

    /// Call every accessor of the variant's view and walk its nested views,
    /// reporting to `vis` (as the stream's [`View::visit_all`](crate::views::View::visit_all)
    /// does); a record of a type without a view reports nothing.
    pub fn visit_all(&self, vis: &mut dyn Visitor<'s>) {
        fn walk<'s, V: ObjectView<'s> + Answer<'s>>(v: &V, vis: &mut dyn Visitor<'s>) {
            v.walk(V::NAME, vis);
        }
        match self {
            RecordView::User(v) => walk(v, vis),
            RecordView::Assistant(v) => walk(v, vis),
            RecordView::System(v) => walk(v, vis),
            RecordView::Summary(v) => walk(v, vis),
            RecordView::FileHistorySnapshot(v) => walk(v, vis),
            RecordView::Progress(v) => walk(v, vis),
            RecordView::QueueOperation(v) => walk(v, vis),
            RecordView::Result(v) => walk(v, vis),
            RecordView::Other(_) => {}
        }
    }
}

/// The `tool_use` blocks of an assistant record (see
/// [`AssistantRecord::tool_uses`]).
pub(crate) fn tool_uses<'s>(
    root: Value<'s>,
) -> impl Iterator<Item = (&'s str, &'s str, Option<Value<'s>>)> + 's {
    read::tool_calls(message_content(root))
        .filter_map(|c| Some((c.id.as_str()?, c.name.as_str()?, c.input())))
}

/// A user record's text (see [`UserRecord::text`]).
pub(crate) fn user_text(root: Value<'_>) -> Option<&str> {
    read::user_content(message_content(root)).text?.as_str()
}

/// A user record's tool results (see [`UserRecord::tool_results`]).
pub(crate) fn tool_results<'s>(
    root: Value<'s>,
) -> impl Iterator<Item = (Option<&'s str>, bool)> + 's {
    let content = message_content(root);
    read::tool_results(
        content,
        read::user_content(content),
        root.get("toolUseResult"),
    )
    .map(|(id, error, _)| (id.and_then(|v| v.as_str()), error))
}

/// True for a user record that is an interrupt notice (see
/// [`UserRecord::is_interrupt`]).
pub(crate) fn is_interrupt(root: Value<'_>) -> bool {
    read::user_content(message_content(root)).interrupt
}

fn message_content(root: Value<'_>) -> Option<Value<'_>> {
    root.get("message")?.get("content")
}
