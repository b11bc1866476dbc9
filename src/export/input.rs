//! One input's rows: its events folded into runs (exactly as `cctape stats`
//! folds them: a run long over is complete) and into rows, handed out once
//! the input ends; a large input's rows wait in spill files meanwhile.

use super::spill::{Spill, Spool};
use super::tables::{EventRows, RunRows, Table, ToolRows};
use crate::error::Error;
use crate::event::{Event, TokenCounts};
use crate::run::{RunFolder, RunSummary};
use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// Rows of the three tables.
///
/// The rows of an input read with [`InputRows::spill_to`] may be partly in
/// spill files: the fields hold the last of them, and
/// [`Writer::write`](super::Writer::write) reads the others back, in order,
/// before them.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// `events` rows (after the spilled ones, if any).
    pub events: EventRows,
    /// `runs` rows (after the spilled ones, if any).
    pub runs: RunRows,
    /// `tools` rows (after the spilled ones, if any).
    pub tools: ToolRows,
    pub(crate) spilled: Option<Arc<Spilled>>,
    /// Why some of the input's rows could not be spilled (and are lost).
    pub(crate) spill_error: Option<Arc<io::Error>>,
}

/// An input's rows in spill files, and the usage to put on the spilled
/// `events` rows.
#[derive(Debug, Default)]
pub(crate) struct Spilled {
    pub(crate) events: Option<Spill<EventRows>>,
    pub(crate) runs: Option<Spill<RunRows>>,
    pub(crate) tools: Option<Spill<ToolRows>>,
    /// The calls whose row was spilled, in line order (calls of one line in
    /// the order the run layer gave them).
    pub(crate) calls: Vec<CallMark>,
}

/// A model call's usage and the line of the row that carries it (kept per
/// call of the input: 56 bytes).
#[derive(Debug)]
pub(crate) struct CallMark {
    pub(crate) line: u64,
    /// The call's message id, kept only when several spilled rows share its
    /// line (the elements of a one-line array): it tells their row.
    pub(crate) message_id: Option<Box<str>>,
    pub(crate) usage: TokenCounts,
}

impl Batch {
    /// Rows, all tables together (spilled `events` rows included).
    pub fn len(&self) -> usize {
        self.events.len() + self.spilled_rows() + self.runs.len() + self.tools.len()
    }

    /// Rows waiting in spill files, all tables together (see
    /// [`InputRows::spill_to`]).
    pub(crate) fn spilled_rows(&self) -> usize {
        self.spilled.as_ref().map_or(0, |s| {
            s.events.as_ref().map_or(0, Spill::rows)
                + s.runs.as_ref().map_or(0, Spill::rows)
                + s.tools.as_ref().map_or(0, Spill::rows)
        })
    }

    /// True when no table has a row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// About how many bytes the rows take in memory (spilled rows are not
    /// in memory).
    pub fn bytes(&self) -> usize {
        self.events.bytes() + self.runs.bytes() + self.tools.bytes()
    }

    /// The `runs` and `tools` rows of transcript sessions: each session as
    /// a run
    /// ([`SessionSummary::to_run`](crate::transcript::SessionSummary::to_run))
    /// under its own file, and that run's tool calls under the same key, as
    /// a stream's run's are (each also with its record's file, agent id and
    /// whether a subagent made it).
    pub fn push_sessions<'a>(
        &mut self,
        sessions: impl IntoIterator<Item = (&'a str, &'a crate::transcript::SessionSummary)>,
    ) {
        for (file, s) in sessions {
            // The run its `to_run` makes, whose tool calls are the
            // session's own (not copied here).
            let r = s.run_without_calls();
            self.runs.push_run(file, &r);
            for t in &s.tool_calls {
                self.tools.push_call(file, &r, t);
            }
        }
    }
}

/// Turns one input's events into rows of the three tables.
///
/// Feed it every event ([`push`](InputRows::push)) and every per-line error
/// ([`push_error`](InputRows::push_error)) of one input, in order, then
/// take the rows with [`finish`](InputRows::finish).
///
/// Runs are folded as `cctape stats` folds them: a run that has a result
/// and saw none of the last 50,000 lines is complete (a session
/// that comes back later starts a new run), and the others are complete
/// at the end of the input. A model call's usage is put on its row once
/// its run is complete (see [`ModelCall::line`](crate::run::ModelCall::line)),
/// and a run's rows are made then; rows are handed out when the input
/// ends. Until then they are held in memory, or, with
/// [`spill_to`](InputRows::spill_to), up to a bound, past which they are
/// written to temporary files (and read back by
/// [`Writer::write`](super::Writer::write)): memory is then that bound, the
/// runs still open, and each model call's usage. Event rows come out in
/// line order, runs in order of their first line, tool calls by run and
/// then in order of their `tool_use`.
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
    events: Spool<EventRows>,
    runs: Spool<RunRows>,
    tools: Spool<ToolRows>,
    /// The first lines of the runs in the folder, with how many runs have
    /// each (the elements of a one-line array can start runs on one line).
    open: BTreeMap<u64, u32>,
    /// The largest first line of a run so far: a run with a larger one is
    /// new to the folder (runs are made in line order).
    newest_run: Option<u64>,
    /// Rows of runs complete before an earlier run: written once every
    /// earlier run is, to keep the order of first lines.
    waiting: BTreeMap<(u64, u64), (RunRows, ToolRows)>,
    /// Runs made complete so far (orders `waiting`).
    done: u64,
    /// Usage of calls whose row was spilled.
    calls: Vec<CallMark>,
    /// Lines of several spilled `events` rows.
    shared_lines: std::collections::BTreeSet<u64>,
    /// The line from which runs long over are looked for again.
    next_drain: u64,
}

/// A run with a result and none of the last this many lines is complete
/// (as `cctape stats` folds runs; looked for every [`DRAIN_EVERY`] lines).
const IDLE_LINES: u64 = 50_000;

/// Lines between two looks for runs long over.
const DRAIN_EVERY: u64 = 4096;

/// Of a spill bound, what the `runs` and `tools` rows may each hold.
const SMALL_TABLE_SHARE: usize = 8;

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
            events: Spool::default(),
            runs: Spool::default(),
            tools: Spool::default(),
            open: BTreeMap::new(),
            newest_run: None,
            waiting: BTreeMap::new(),
            done: 0,
            calls: Vec::new(),
            shared_lines: Default::default(),
            next_drain: DRAIN_EVERY,
        }
    }

    /// Keep at most about `bytes` of `events` rows in memory (and an
    /// eighth of that of `runs` and of `tools` rows): past that, they are
    /// written to anonymous temporary files in `dir` (the writer's
    /// [`Writer::spill_dir`](super::Writer::spill_dir)), `events` rows
    /// between two lines, and read back when the batch is written. The
    /// rows, and so the files written, are the same as without.
    pub fn spill_to(mut self, dir: &Path, bytes: usize) -> InputRows {
        self.events.spill_to(dir, bytes);
        self.runs.spill_to(dir, bytes / SMALL_TABLE_SHARE);
        self.tools.spill_to(dir, bytes / SMALL_TABLE_SHARE);
        self
    }

    /// The input's name, as given to [`InputRows::new`].
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Event rows so far (spilled ones included).
    pub fn events(&self) -> usize {
        self.events.len()
    }

    /// Before a row of `line`: spill the `events` rows held if they are
    /// past the bound and `line` starts a new line (the rows of one line
    /// stay together), and complete the runs long over.
    fn before(&mut self, line: u64) {
        if self.events.full() && self.events.rows.last_line() != Some(line) {
            let last = self.events.rows.last_line().unwrap_or(0);
            let lines = &self.events.rows.line.vals;
            for w in lines.windows(2) {
                if w[0] == w[1] {
                    self.shared_lines.insert(u64::try_from(w[0]).unwrap_or(0));
                }
            }
            self.events.spill(last);
        }
        if line >= self.next_drain {
            self.next_drain = line.saturating_add(DRAIN_EVERY);
            for s in self.folder.drain_idle(line.saturating_sub(IDLE_LINES)) {
                self.complete(s);
            }
            self.release();
        }
    }

    /// Count the folder's current run in `open` if it is new. (Two runs
    /// that start on one line, elements of a one-line array, count as one;
    /// no run is complete before the end of such a line, so the order
    /// holds.)
    fn note_run(&mut self) {
        if let Some(first) = self.folder.current_first_line()
            && self.newest_run.is_none_or(|n| first > n)
        {
            *self.open.entry(first).or_default() += 1;
            self.newest_run = Some(first);
        }
    }

    /// Fold in one event.
    pub fn push(&mut self, ev: &Event<'_>) {
        self.before(ev.line());
        self.folder.push(ev);
        self.note_run();
        let run = self.folder.current_first_line().unwrap_or(ev.line());
        self.events.rows.push_event(&self.file, run, ev, self.raw);
    }

    /// A session transcript's record: its row only (a transcript's runs are
    /// its sessions, folded across inputs: see
    /// [`crate::transcript::TranscriptFold`] and [`Batch::push_sessions`]).
    pub fn push_record(&mut self, ev: &Event<'_>) {
        self.before(ev.line());
        self.events.rows.push_record(&self.file, ev, self.raw);
    }

    /// Fold in a per-line error (it has no row, but counts in its run).
    pub fn push_error(&mut self, e: &Error) {
        self.folder.push_error(e);
        self.note_run();
    }

    /// A run is complete: its calls' usage onto their rows (or noted for
    /// the spilled ones), and its rows made, to be written in order of
    /// first line ([`InputRows::release`]).
    fn complete(&mut self, mut s: RunSummary) {
        let spilled_to = self
            .events
            .spill
            .as_ref()
            .map(|f| f.last_line(f.chunks().saturating_sub(1)));
        for c in std::mem::take(&mut s.model_calls) {
            if spilled_to.is_some_and(|last| c.line <= last) {
                let shared = self.shared_lines.contains(&c.line);
                self.calls.push(CallMark {
                    line: c.line,
                    message_id: c.message_id.filter(|_| shared).map(String::into_boxed_str),
                    usage: c.usage,
                });
            } else {
                self.events
                    .rows
                    .apply_call(c.line, c.message_id.as_deref(), &c.usage);
            }
        }
        if let Some(n) = self.open.get_mut(&s.first_line) {
            *n -= 1;
            if *n == 0 {
                self.open.remove(&s.first_line);
            }
        }
        self.done += 1;
        if s.events > 0 {
            // Bad lines alone are not a run.
            let mut runs = RunRows::default();
            let mut tools = ToolRows::default();
            runs.push_run(&self.file, &s);
            for t in &s.tool_calls {
                tools.push_call(&self.file, &s, t);
            }
            self.waiting
                .insert((s.first_line, self.done), (runs, tools));
        }
    }

    /// Move the rows of every complete run that no open run starts before
    /// to the rows to write.
    fn release(&mut self) {
        while let Some(entry) = self.waiting.first_entry() {
            if self.open.keys().next().is_some_and(|&o| o < entry.key().0) {
                break;
            }
            let (runs, tools) = entry.remove();
            self.runs.rows.append(&runs);
            self.tools.rows.append(&tools);
            if self.runs.full() {
                self.runs.spill(0);
            }
            if self.tools.full() {
                self.tools.spill(0);
            }
        }
    }

    /// Complete the rows of an input none of whose lines was an event: no
    /// run of its own events, so its one `runs` row is the run `make` gives
    /// from what its bad lines folded into (`cctape export` passes
    /// [`crate::report::no_events_run`], the run `verdict` prints a record
    /// for: one definition of a run in every command).
    pub fn finish_without_events(
        mut self,
        make: impl FnOnce(Option<RunSummary>) -> RunSummary,
    ) -> Batch {
        // No line was an event: no `events` rows, nothing spilled.
        let mut batch = Batch::default();
        let folder = std::mem::take(&mut self.folder);
        let folded = folder.finish().into_iter().find(|s| s.events == 0);
        let r = make(folded);
        batch.runs.push_run(&self.file, &r);
        for t in &r.tool_calls {
            batch.tools.push_call(&self.file, &r, t);
        }
        batch
    }

    /// Complete every run and take the rows.
    ///
    /// A failure to spill is not reported here but by
    /// [`Writer::write`](super::Writer::write) when it gets the batch.
    pub fn finish(mut self) -> Batch {
        let folder = std::mem::take(&mut self.folder);
        for s in folder.finish() {
            self.complete(s);
        }
        // Every run is complete now.
        self.open.clear();
        self.release();
        // By line; calls of one line keep their order (the last one put on
        // a row wins, as without spilling).
        let mut calls = std::mem::take(&mut self.calls);
        calls.sort_by_key(|c| c.line);
        let error = self
            .events
            .error
            .take()
            .or_else(|| self.runs.error.take())
            .or_else(|| self.tools.error.take());
        let spilled = Spilled {
            events: self.events.spill.take(),
            runs: self.runs.spill.take(),
            tools: self.tools.spill.take(),
            calls,
        };
        let any = spilled.events.is_some() || spilled.runs.is_some() || spilled.tools.is_some();
        Batch {
            events: std::mem::take(&mut self.events.rows),
            runs: std::mem::take(&mut self.runs.rows),
            tools: std::mem::take(&mut self.tools.rows),
            spilled: any.then(|| Arc::new(spilled)),
            spill_error: error.map(Arc::new),
        }
    }
}
