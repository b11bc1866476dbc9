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
}

/// Turns one input's events into rows of the three tables.
///
/// Feed it every event ([`push`](InputRows::push)) and every per-line error
/// ([`push_error`](InputRows::push_error)) of one input, in order; take the
/// rows of runs that are complete with [`take_ready`](InputRows::take_ready)
/// as you go (memory then stays about one run's rows), and the rest with
/// [`finish`](InputRows::finish).
///
/// An event's row waits until its run is complete, because the row that
/// carries a model call's usage is known only then (see
/// [`ModelCall::line`](crate::run::ModelCall::line)). Rows come out run by
/// run, in the order runs complete, each run's in line order: the same input
/// gives the same rows in the same order.
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
/// assert_eq!(batch.events.output_tokens.get(2), Some(5));
/// assert_eq!(batch.runs.verdict.get(0), Some(&b"success"[..]));
/// assert_eq!(batch.tools.tool_name.get(0), Some(&b"Bash"[..]));
/// ```
#[derive(Debug)]
pub struct InputRows {
    file: String,
    raw: bool,
    folder: RunFolder,
    /// Event rows of runs not complete yet, with the run's first line.
    pending: Vec<(u64, EventRows)>,
    /// The run of the last event (its index in `pending`).
    last: Option<usize>,
    ready: Batch,
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
            pending: Vec::new(),
            last: None,
            ready: Batch::default(),
        }
    }

    /// The input's name, as given to [`InputRows::new`].
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Fold in one event.
    pub fn push(&mut self, ev: &Event<'_>) {
        self.folder.push(ev);
        let run = self.folder.current_first_line().unwrap_or(ev.line());
        let i = match self.last {
            Some(i) if self.pending.get(i).is_some_and(|p| p.0 == run) => i,
            _ => self.switch_to(run),
        };
        if let Some((_, rows)) = self.pending.get_mut(i) {
            rows.push_event(&self.file, run, ev, self.raw);
        }
    }

    /// Fold in a per-line error (it has no row, but counts in its run).
    pub fn push_error(&mut self, e: &Error) {
        self.folder.push_error(e);
    }

    /// The run with first line `run` became the current one: runs that are
    /// complete meanwhile are handed out.
    fn switch_to(&mut self, run: u64) -> usize {
        if self.last.is_some() {
            for s in self.folder.drain_complete() {
                self.complete(&s);
            }
        }
        let i = match self.pending.iter().position(|p| p.0 == run) {
            Some(i) => i,
            None => {
                self.pending.push((run, EventRows::default()));
                self.pending.len() - 1
            }
        };
        self.last = Some(i);
        i
    }

    /// A run is complete: its rows, with usage on the rows that carry it,
    /// become ready.
    fn complete(&mut self, s: &RunSummary) {
        if let Some(i) = self.pending.iter().position(|p| p.0 == s.first_line) {
            let (_, mut rows) = self.pending.remove(i);
            rows.apply_calls(&s.model_calls);
            self.ready.events.append(&rows);
            self.last = None;
        }
        self.ready.runs.push_run(&self.file, s);
        for t in &s.tool_calls {
            self.ready.tools.push_call(&self.file, s, t);
        }
    }

    /// Rows ready to be written (of complete runs), all tables together.
    pub fn ready_rows(&self) -> usize {
        self.ready.len()
    }

    /// About how many bytes the ready rows take.
    pub fn ready_bytes(&self) -> usize {
        self.ready.bytes()
    }

    /// Take the rows of the runs complete so far.
    pub fn take_ready(&mut self) -> Batch {
        std::mem::take(&mut self.ready)
    }

    /// Complete every run and take the remaining rows.
    pub fn finish(mut self) -> Batch {
        let runs = std::mem::take(&mut self.folder).finish();
        for s in &runs {
            self.complete(s);
        }
        // Rows of a run the folder did not report (none expected).
        for (_, rows) in std::mem::take(&mut self.pending) {
            self.ready.events.append(&rows);
        }
        self.ready
    }
}
