//! One input's rows: its events folded into runs (exactly as `cctape stats`
//! folds them) and into rows, handed out run by run as runs complete.

use super::tables::{EventRows, RunRows, Table, ToolRows};
use crate::error::Error;
use crate::event::Event;
use crate::run::{RunFolder, RunSummary};

/// Rows of the three tables.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// `events` rows.
    pub events: EventRows,
    /// `runs` rows.
    pub runs: RunRows,
    /// `tools` rows.
    pub tools: ToolRows,
}

impl Batch {
    /// Rows held, all tables together.
    pub fn len(&self) -> usize {
        self.events.len() + self.runs.len() + self.tools.len()
    }

    /// True when no table has a row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// About how many bytes the rows take in memory.
    pub fn bytes(&self) -> usize {
        self.events.bytes() + self.runs.bytes() + self.tools.bytes()
    }

    /// The `runs` and `tools` rows of transcript sessions: each session as
    /// a run
    /// ([`SessionSummary::to_run`](crate::transcript::SessionSummary::to_run))
    /// under its own file, and its tool calls
    /// ([`SessionSummary::calls`](crate::transcript::SessionSummary::calls))
    /// under the same key.
    pub fn push_sessions<'a>(
        &mut self,
        sessions: impl IntoIterator<Item = (&'a str, &'a crate::transcript::SessionSummary)>,
    ) {
        for (file, s) in sessions {
            self.runs.push_run(file, &s.to_run());
            self.tools.push_session_calls(file, s);
        }
    }
}

/// Turns one input's events into rows of the three tables.
///
/// Feed it every event ([`push`](InputRows::push)) and every per-line error
/// ([`push_error`](InputRows::push_error)) of one input, in order, then
/// take the rows with [`finish`](InputRows::finish).
///
/// Rows wait until the input ends: the row that carries a model call's
/// usage is known only once its run is complete (see
/// [`ModelCall::line`](crate::run::ModelCall::line)), and a run is complete
/// only at the end of the input, since its session may come back later in
/// the file (`cctape stats` folds it so). Memory is therefore about the
/// input's rows (and its size with `raw`). Event rows come out in line
/// order, runs in order of their first line, tool calls by run and then in
/// order of their `tool_use`.
///
/// ```
/// use cctape::export::{InputRows, Table};
/// use cctape::SliceEvents;
///
/// let input = br#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}
/// {"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":2,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1"}
/// {"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":2,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"s1"}
/// {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"parent_tool_use_id":null,"session_id":"s1"}
/// {"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.01,"session_id":"s1"}
/// "#;
/// let mut rows = InputRows::new("run.jsonl", false);
/// let mut events = SliceEvents::new(input);
/// while let Some(item) = events.next_event() {
///     match item {
///         Ok(ev) => rows.push(&ev),
///         Err(e) => rows.push_error(&e),
///     }
/// }
/// let batch = rows.finish();
/// assert_eq!(batch.events.len(), 5);
/// // The call's usage sits on its last assistant event (line 3) only.
/// assert_eq!(batch.events.carries_usage.get(1), Some(false));
/// assert_eq!(batch.events.output_tokens.get(1), None);
/// assert_eq!(batch.events.output_tokens.get(2), Some(5));
/// assert_eq!(batch.runs.verdict.get(0), Some(&b"success"[..]));
/// assert_eq!(batch.tools.tool_name.get(0), Some(&b"Bash"[..]));
/// ```
#[derive(Debug)]
pub struct InputRows {
    file: String,
    raw: bool,
    folder: RunFolder,
    events: EventRows,
}

impl InputRows {
    /// Rows for the input named `file`; `raw` keeps each line's bytes (the
    /// `raw` column).
    pub fn new(file: &str, raw: bool) -> InputRows {
        let mut folder = RunFolder::new();
        folder.record_calls(true);
        InputRows {
            file: file.to_string(),
            raw,
            folder,
            events: EventRows::default(),
        }
    }

    /// The input's name, as given to [`InputRows::new`].
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Event rows so far.
    pub fn events(&self) -> usize {
        self.events.len()
    }

    /// Fold in one event.
    pub fn push(&mut self, ev: &Event<'_>) {
        self.folder.push(ev);
        let run = self.folder.current_first_line().unwrap_or(ev.line());
        self.events.push_event(&self.file, run, ev, self.raw);
    }

    /// A session transcript's record: its row only (a transcript's runs are
    /// its sessions, folded across inputs: see
    /// [`crate::transcript::TranscriptFold`] and [`Batch::push_sessions`]).
    pub fn push_record(&mut self, ev: &Event<'_>) {
        self.events.push_record(&self.file, ev, self.raw);
    }

    /// Fold in a per-line error (it has no row, but counts in its run).
    pub fn push_error(&mut self, e: &Error) {
        self.folder.push_error(e);
    }

    /// Complete the rows of an input none of whose lines was an event: no
    /// run of its own events, so its one `runs` row is the run `make` gives
    /// from what its bad lines folded into (`cctape export` passes
    /// [`crate::report::no_events_run`], the run `verdict` prints a record
    /// for: one definition of a run in every command).
    pub fn finish_without_events(
        self,
        make: impl FnOnce(Option<RunSummary>) -> RunSummary,
    ) -> Batch {
        let mut batch = Batch {
            events: self.events,
            ..Batch::default()
        };
        let folded = self.folder.finish().into_iter().find(|s| s.events == 0);
        let r = make(folded);
        batch.runs.push_run(&self.file, &r);
        for t in &r.tool_calls {
            batch.tools.push_call(&self.file, &r, t);
        }
        batch
    }

    /// Complete every run and take the rows.
    pub fn finish(self) -> Batch {
        let mut batch = Batch {
            events: self.events,
            ..Batch::default()
        };
        for s in self.folder.finish() {
            batch.events.apply_calls(&s.model_calls);
            if s.events == 0 {
                // Bad lines alone are not a run.
                continue;
            }
            batch.runs.push_run(&self.file, &s);
            for t in &s.tool_calls {
                batch.tools.push_call(&self.file, &s, t);
            }
        }
        batch
    }
}
