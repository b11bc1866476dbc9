//! Run: what a run did (verdict, usage, cost, tools, subagents), folded from
//! its events.
//!
//! This is the first layer that allocates, and it does so per run, not per
//! line: ids and names go into a per-run interner (one growing buffer), maps
//! are keyed by interned symbols, and what the summary owns is built once at
//! the end. Partial-message reassembly appends to buffers reused from block
//! to block and shared by the folder's runs, and compares a streamed tool
//! input with its assistant event index to index.
//!
//! # What a run is
//!
//! The events that share a `session_id`, in order. A file may hold several
//! runs (logs appended to), and a run several rounds (a new `system/init`
//! after a background task or an interrupt). An event without a
//! `session_id` (`control_cancel_request`, old formats) belongs to the run
//! of the line before it; lines before any `session_id` form a run that
//! takes the first `session_id` that follows. A `session_id` seen again
//! later is the same run, unless that run has a result and its last line
//! is more than [`IDLE_LINES`] lines back: then it starts a new run (a
//! session resumed much later, in every command alike, whether or not the
//! folder drained the old run meanwhile, see [`RunFolder::drain_idle`]).
//!
//! Every command counts runs so (`docs/accounting.md`, "What a run is"): an
//! input without events is one run of its own
//! ([`crate::report::no_events_run`]), a transcript's runs are its
//! sessions, and an input that could not be read is no run.
//!
//! # Verdict
//!
//! The last `result` decides (see [`Verdict`] and [`classify_result`]);
//! [`RunSummary::apply_exit_code`] folds in the process's exit code.
//!
//! # Usage and cost
//!
//! One model call is one `message.id`: the `assistant` events of a call
//! (one per content block) repeat its usage, so the last one's is kept,
//! with where it came from ([`CallUsageSource`]): a `message_delta` (final),
//! a whole message with its `stop_reason` set (final), or the snapshot
//! taken at `message_start` (its `output_tokens` a placeholder). Calls with
//! `parent_tool_use_id` null (or absent) are the main agent's; the others
//! belong to the subagent that id names. `<synthetic>` messages are API
//! errors, not usage.
//!
//! Each agent's best total ([`AgentUsage`]) is chosen by the documented
//! precedence of [`TokenSource`] (final calls, the results' `usage`, the
//! `modelUsage` of subagent-only models, subagent reports, snapshots as a
//! lower bound), with the source named and the other figures kept for
//! audit. Each `modelUsage` entry gets its role in the run
//! ([`ModelRole`]: main, subagent, auxiliary). Costs are summed exactly
//! ([`ExactSum`]). The rules, each with the real capture that shows it, are
//! in `docs/accounting.md`; every command prints these figures.
//!
//! ```
//! use cctape::run::{RunFolder, Verdict};
//! use cctape::SliceEvents;
//!
//! let input = br#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}
//! {"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":2,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"s1"}
//! {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 1","is_error":true}]},"parent_tool_use_id":null,"session_id":"s1"}
//! {"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":1,"total_cost_usd":0.01,"session_id":"s1"}
//! "#;
//! let mut folder = RunFolder::new();
//! let mut events = SliceEvents::new(input);
//! while let Some(item) = events.next_event() {
//!     match item {
//!         Ok(ev) => folder.push(&ev),
//!         Err(e) => folder.push_error(&e),
//!     }
//! }
//! let runs = folder.finish();
//! assert_eq!(runs.len(), 1);
//! assert_eq!(runs[0].verdict, Verdict::MaxTurns);
//! assert_eq!(runs[0].usage.main.tokens.output_tokens, 5);
//! assert_eq!(runs[0].tool("Bash").unwrap().errors, 1);
//! ```

mod accounting;
pub(crate) mod intern;
mod json;
pub(crate) mod ledger;
mod partial;
mod state;
mod sum;
mod summary;
mod time;
mod totals;
mod verdict;

pub(crate) use accounting::CallReading;
pub use accounting::{CallUsageSource, CostSource, ModelRole, TokenSource};
#[cfg(feature = "otel")]
pub(crate) use state::depths_cutting_cycles;
pub(crate) use state::number_text;
pub use sum::{ExactSum, SumValue};
pub use summary::*;
pub(crate) use summary::{RunJson, Tokens};
#[cfg(feature = "export")]
pub(crate) use time::parse_millis as parse_timestamp_millis;
pub(crate) use totals::{ByModel, Verdicts, totals_entries};
pub use totals::{RoleTotals, RunTotals, Share, SmallMap, WARN_SUM_SATURATED, shares};
pub use verdict::{Verdict, VerdictSource, apply_exit_code, classify_result, without_events};

use crate::error::Error;
use crate::event::Event;
use state::RunState;
use std::collections::HashMap;
use std::io::Read;
use std::time::{Duration, Instant};

/// Folds events into runs, one [`RunSummary`] per run.
///
/// Feed it every event with [`push`](RunFolder::push) and every per-line
/// error with [`push_error`](RunFolder::push_error), then call
/// [`finish`](RunFolder::finish). Runs come out in the order of their first
/// line.
///
/// ```
/// use cctape::{EventReader, RunFolder, Verdict};
///
/// // Two harness runs appended to one log, read from any `Read`.
/// let log = br#"{"type":"system","subtype":"init","session_id":"a1","model":"claude-opus-4-1"}
/// {"type":"result","subtype":"success","is_error":false,"num_turns":3,"total_cost_usd":0.31,"session_id":"a1"}
/// {"type":"system","subtype":"init","session_id":"b2","model":"claude-opus-4-1"}
/// {"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"session_id":"b2"}
/// "#;
/// let mut events = EventReader::new(&log[..]);
/// let mut folder = RunFolder::new();
/// while let Some(item) = events.next_event() {
///     match item {
///         Ok(ev) => folder.push(&ev),
///         Err(e) => folder.push_error(&e),
///     }
/// }
/// let verdicts: Vec<Verdict> = folder.finish().iter().map(|r| r.verdict).collect();
/// assert_eq!(verdicts, [Verdict::Success, Verdict::Error]);
/// ```
#[derive(Debug, Default)]
pub struct RunFolder {
    /// Runs in order of first appearance; drained ones are `None`.
    runs: Vec<Option<RunState>>,
    /// session_id → slot.
    by_session: HashMap<Box<str>, usize>,
    current: Option<usize>,
    keep_calls: bool,
    /// Partial-message buffers, shared by the runs.
    scratch: partial::Scratch,
    /// A run began without a `session_id` (it may take the one that
    /// follows, or the lines before it were another run's).
    anonymous: bool,
}

impl RunFolder {
    /// An empty folder.
    pub fn new() -> RunFolder {
        RunFolder::default()
    }

    /// Keep every model call and tool call of each run in its summary
    /// ([`RunSummary::model_calls`], [`RunSummary::tool_calls`]); off by
    /// default. Applies to runs started after the call.
    pub fn record_calls(&mut self, yes: bool) -> &mut RunFolder {
        self.keep_calls = yes;
        self
    }

    /// The first line of the run the last event or error went to: the
    /// [`RunSummary::first_line`] its summary will have, which tells the
    /// folder's runs apart.
    pub fn current_first_line(&self) -> Option<u64> {
        let run = self.runs.get(self.current?)?.as_ref()?;
        Some(run.first_line())
    }

    fn new_run(&mut self, session: Option<&str>) -> usize {
        let i = self.runs.len();
        let mut run = RunState::new(session);
        run.keep_calls = self.keep_calls;
        self.runs.push(Some(run));
        if let Some(s) = session {
            self.by_session.insert(s.into(), i);
        }
        i
    }

    /// The slot of the current run, creating an anonymous one if needed.
    fn current_or_new(&mut self) -> usize {
        match self.current {
            Some(i) if self.runs[i].is_some() => i,
            _ => {
                let i = self.new_run(None);
                self.anonymous = true;
                self.current = Some(i);
                i
            }
        }
    }

    fn slot_for(&mut self, session: Option<&str>, line: u64) -> usize {
        let Some(s) = session else {
            return self.current_or_new();
        };
        // The session's run, unless it is over (a result, and idle for more
        // than IDLE_LINES lines): then the session starts a new run.
        let live = |run: &RunState| !(run.has_result() && line > run.last_line() + IDLE_LINES);
        if let Some(i) = self.current
            && let Some(run) = &self.runs[i]
            && run.session.as_deref() == Some(s)
            && live(run)
        {
            return i;
        }
        if let Some(&i) = self.by_session.get(s) {
            if self.runs[i].as_ref().is_some_and(live) {
                self.current = Some(i);
                return i;
            }
            self.by_session.remove(s);
        } else if let Some(i) = self.current
            && let Some(run) = self.runs[i].as_mut()
            && run.session.is_none()
        {
            // Lines before the first session_id: their run takes this one.
            run.session = Some(s.to_string());
            self.by_session.insert(s.into(), i);
            return i;
        }
        let i = self.new_run(Some(s));
        self.current = Some(i);
        i
    }

    /// True when folding `later` (a folder that was given the events that
    /// follow this one's, from a fresh start) gives the runs that giving
    /// this folder those events would: every run of `later` began with a
    /// `session_id` that names no run of this one still going at that line,
    /// and this one's last run does not wait for a `session_id` to take.
    /// This is how a large file's chunks are folded apart, on several
    /// threads, and still give the one-thread result
    /// ([`append`](RunFolder::append)).
    ///
    /// ```
    /// use cctape::{RunFolder, SliceEvents};
    ///
    /// // The folder of lines 1 and 2, and a fresh one for the lines after.
    /// fn fold(log: &[u8]) -> (RunFolder, RunFolder) {
    ///     let (mut first, mut later) = (RunFolder::new(), RunFolder::new());
    ///     let mut events = SliceEvents::new(log);
    ///     while let Some(item) = events.next_event() {
    ///         let ev = item.unwrap();
    ///         if ev.line() <= 2 { first.push(&ev) } else { later.push(&ev) }
    ///     }
    ///     (first, later)
    /// }
    /// let a = r#"{"type":"system","subtype":"init","session_id":"a"}
    /// {"type":"result","subtype":"success","is_error":false,"session_id":"a"}
    /// "#;
    /// // Session `a` is still going at line 3: its run takes the line.
    /// let (first, later) = fold(format!("{a}{}", r#"{"type":"system","subtype":"init","session_id":"a"}"#).as_bytes());
    /// assert!(!first.accepts(&later));
    /// // Session `b` is a run of its own.
    /// let (mut first, mut later) = fold(format!("{a}{}", r#"{"type":"system","subtype":"init","session_id":"b"}"#).as_bytes());
    /// assert!(first.append(&mut later));
    /// let runs = first.finish();
    /// assert_eq!(runs.len(), 2);
    /// assert_eq!((runs[1].first_line, runs[1].session_id.as_deref()), (3, Some("b")));
    /// ```
    pub fn accepts(&self, later: &RunFolder) -> bool {
        if later.anonymous || later.runs.is_empty() {
            return false;
        }
        if let Some(i) = self.current
            && let Some(Some(run)) = self.runs.get(i)
            && run.session.is_none()
        {
            return false;
        }
        later.runs.iter().all(|r| {
            let Some(r) = r else { return false };
            let Some(s) = r.session.as_deref() else {
                return false;
            };
            match self
                .by_session
                .get(s)
                .and_then(|&i| self.runs.get(i)?.as_ref())
            {
                None => true,
                Some(old) => old.has_result() && r.first_line() > old.last_line() + IDLE_LINES,
            }
        })
    }

    /// Move the runs of `later` after this folder's, leaving it empty,
    /// when [`accepts`](RunFolder::accepts) says that gives what folding
    /// its events here would (its last run becomes the current one), as
    /// [`Vec::append`] moves elements; returns false and leaves both as
    /// they were otherwise.
    pub fn append(&mut self, later: &mut RunFolder) -> bool {
        if !self.accepts(later) {
            return false;
        }
        let base = self.runs.len();
        self.runs.append(&mut later.runs);
        for (s, i) in later.by_session.drain() {
            self.by_session.insert(s, i + base);
        }
        self.current = later.current.take().map(|c| c + base);
        true
    }

    /// Fold in one event.
    pub fn push(&mut self, ev: &Event<'_>) {
        let i = self.slot_for(ev.session_id(), ev.line());
        if let Some(run) = self.runs[i].as_mut() {
            run.push(ev, &mut self.scratch);
        }
    }

    /// Fold in a per-line error: a truncated last line becomes the warning
    /// [`WARN_TRUNCATED`], any other bad line is counted (and the first few
    /// become [`WARN_BAD_LINE`] warnings). The error belongs to the current
    /// run.
    pub fn push_error(&mut self, e: &Error) {
        let i = self.current_or_new();
        if let Some(run) = self.runs[i].as_mut() {
            run.push_error(e);
        }
    }

    /// Summaries of the runs that are complete: they have a result and
    /// another run's events came after them. A session seen again after its
    /// run was drained starts a new run.
    pub fn drain_complete(&mut self) -> Vec<RunSummary> {
        let mut out = Vec::new();
        for i in 0..self.runs.len() {
            if Some(i) == self.current {
                continue;
            }
            if self.runs[i].as_ref().is_some_and(RunState::has_result) {
                out.extend(self.take(i));
            }
        }
        out
    }

    /// Summaries of every run but the current one, with a result or not:
    /// for a live stream whose next run started (a `system/init` of
    /// another session), where the runs before it are over
    /// ([`RunReader::idle_for`], `cctape watch`). A session seen again
    /// after its run was drained starts a new run.
    pub fn drain_others(&mut self) -> Vec<RunSummary> {
        self.drain_where(false, |_| true)
    }

    /// True when no run is held (every one was drained, or none began).
    pub fn is_empty(&self) -> bool {
        self.runs.iter().all(Option::is_none)
    }

    /// Summaries of the runs that have a result and saw no line at or after
    /// line `before`: runs long over, handed out so that a long stream is
    /// folded in bounded memory. As with
    /// [`drain_complete`](RunFolder::drain_complete), a session seen again
    /// after its run was drained starts a new run; choose `before` far
    /// enough back (the CLI uses 50,000 lines) that only a session resumed
    /// much later is affected.
    pub fn drain_idle(&mut self, before: u64) -> Vec<RunSummary> {
        self.drain_before(before, false)
    }

    /// The runs [`drain_idle`](RunFolder::drain_idle) would hand out, but
    /// only those that started before every run still held: summaries in
    /// the order [`finish`](RunFolder::finish) gives, for output that
    /// streams run by run (`cctape verdict`). The run that started last is
    /// never among them (the current run is always held), so what applies
    /// to an input's last run can wait for [`finish`](RunFolder::finish).
    pub fn drain_idle_in_order(&mut self, before: u64) -> Vec<RunSummary> {
        let mut out = Vec::new();
        for i in 0..self.runs.len() {
            let Some(run) = &self.runs[i] else { continue };
            if Some(i) == self.current || !(run.has_result() && run.last_line() < before) {
                break;
            }
            out.extend(self.take(i));
        }
        if !out.is_empty() {
            self.compact();
        }
        out
    }

    /// The summary of the run in slot `i`, taken out: its session starts a
    /// new run if seen again.
    fn take(&mut self, i: usize) -> Option<RunSummary> {
        let run = self.runs.get_mut(i)?.take()?;
        if let Some(s) = &run.session {
            self.by_session.remove(s.as_str());
        }
        Some(run.finish())
    }

    /// Summaries of the runs that have a result and saw no line at or after
    /// line `before`, the current run included: for a live stream whose
    /// lines stopped coming ([`RunReader::idle_for`], `cctape watch
    /// --idle`), where the last run is over once it has been quiet long
    /// enough. A line of its session after that starts a new run.
    pub fn drain_quiet(&mut self, before: u64) -> Vec<RunSummary> {
        self.drain_before(before, true)
    }

    fn drain_before(&mut self, before: u64, current_too: bool) -> Vec<RunSummary> {
        self.drain_where(current_too, |r| r.has_result() && r.last_line() < before)
    }

    /// Hand out the runs `done` says are over (the current one only with
    /// `current_too`); their sessions start new runs if seen again.
    fn drain_where(
        &mut self,
        current_too: bool,
        done: impl Fn(&RunState) -> bool,
    ) -> Vec<RunSummary> {
        let mut out = Vec::new();
        for i in 0..self.runs.len() {
            if Some(i) == self.current && !current_too {
                continue;
            }
            if self.runs[i].as_ref().is_some_and(&done) {
                out.extend(self.take(i));
            }
        }
        if !out.is_empty() {
            self.compact();
        }
        out
    }

    /// Drop the slots of drained runs, renumbering the rest (a long stream
    /// would otherwise keep one empty slot per run it ever saw), once a
    /// quarter of the slots are empty, in place. Compacting at every drain
    /// into a new vector moved every live run (1.5 KB each) and had the
    /// kernel clear the new vector's pages: `stats` drains every 4,096
    /// lines, and 80,000 runs of two lines each took 1.15 s (0.74 s of it
    /// system time). Runs keep their order.
    fn compact(&mut self) {
        let empty = self.runs.iter().filter(|r| r.is_none()).count();
        if empty * 4 < self.runs.len() {
            return;
        }
        let mut map = vec![usize::MAX; self.runs.len()];
        let mut kept = 0;
        for (i, to) in map.iter_mut().enumerate() {
            if self.runs[i].is_some() {
                *to = kept;
                self.runs.swap(i, kept);
                kept += 1;
            }
        }
        self.runs.truncate(kept);
        self.current = self
            .current
            .and_then(|c| map.get(c).copied())
            .filter(|&c| c != usize::MAX);
        for slot in self.by_session.values_mut() {
            *slot = map.get(*slot).copied().unwrap_or(usize::MAX);
        }
        self.by_session.retain(|_, slot| *slot != usize::MAX);
    }

    /// The summary the run the last event or error went to would have if
    /// the input ended here, without ending it: a live view of the run
    /// (`cctape watch`'s status line once a result came), with the figures
    /// [`finish`](RunFolder::finish) gives. It copies the run's state: ask
    /// on a result, not on every line.
    ///
    /// ```
    /// use cctape::{RunFolder, SliceEvents};
    ///
    /// // The assistant event's usage is its message_start snapshot (1
    /// // output token); the result's `usage` is the run's figure.
    /// let input = br#"{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":3,"output_tokens":1}},"session_id":"s"}
    /// {"type":"result","subtype":"success","is_error":false,"usage":{"input_tokens":3,"output_tokens":7550},"session_id":"s"}
    /// "#;
    /// let mut folder = RunFolder::new();
    /// let mut events = SliceEvents::new(input);
    /// while let Some(Ok(ev)) = events.next_event() {
    ///     folder.push(&ev);
    /// }
    /// let now = folder.current_summary().expect("a run");
    /// assert_eq!(now.usage.main.tokens.output_tokens, 7550);
    /// assert_eq!(now.usage.main.source.as_str(), "results");
    /// assert_eq!(folder.finish()[0].usage.main, now.usage.main);
    /// ```
    pub fn current_summary(&self) -> Option<RunSummary> {
        let i = self.current?;
        self.runs.get(i)?.as_ref().map(|s| s.clone().finish())
    }

    /// Summaries of every run not yet drained, in order of first line. No
    /// events and no errors give an empty vector (see
    /// [`RunSummary::empty`]).
    pub fn finish(self) -> Vec<RunSummary> {
        self.runs
            .into_iter()
            .flatten()
            .map(|run| run.finish())
            .collect()
    }
}

/// The runs of a stream in memory (a file read whole or mapped).
pub fn runs_of_slice(bytes: &[u8]) -> Vec<RunSummary> {
    let mut folder = RunFolder::new();
    let mut events = crate::stream::SliceEvents::new(bytes);
    while let Some(item) = events.next_event() {
        match item {
            Ok(ev) => folder.push(&ev),
            Err(e) => folder.push_error(&e),
        }
    }
    folder.finish()
}

/// Runs of a stream-json reader as a std [`Iterator`], errors as items.
///
/// The runs are owned, so unlike the event readers (which lend each event
/// from a reused index) this is a plain `Iterator` and combines with `for`,
/// `filter`, `collect::<Result<Vec<_>, _>>()`. Lines that are not events
/// are counted in the runs ([`RunSummary::bad_lines`]); the one error item
/// is the I/O error that ended the stream, after the runs read before it.
///
/// By default every run comes out when the stream ends, the same runs as
/// [`runs_of_reader`]. [`idle_after`](RunReader::idle_after) hands out a
/// run as soon as it has a result and has been idle for that many lines
/// (as `cctape stats` does for long logs, in memory bounded by the runs
/// still open); a session resumed later than that is then a new run.
///
/// ```
/// use cctape::run::{RunReader, Verdict};
///
/// let log = br#"{"type":"system","subtype":"init","session_id":"a","model":"claude-sonnet-4-5"}
/// {"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.25,"session_id":"a"}
/// {"type":"system","subtype":"init","session_id":"b","model":"claude-sonnet-4-5"}
/// not json
/// {"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":30,"total_cost_usd":1.5,"session_id":"b"}
/// "#;
/// let runs = RunReader::new(&log[..]).collect::<Result<Vec<_>, _>>()?;
/// let verdicts: Vec<Verdict> = runs.iter().map(|r| r.verdict).collect();
/// assert_eq!(verdicts, [Verdict::Success, Verdict::MaxTurns]);
/// assert_eq!(runs[1].bad_lines, 1);
/// # Ok::<(), cctape::Error>(())
/// ```
#[derive(Debug)]
pub struct RunReader<R> {
    events: crate::stream::EventReader<R>,
    folder: RunFolder,
    ready: std::collections::VecDeque<RunSummary>,
    fatal: Option<Error>,
    idle: Option<u64>,
    clock: Option<IdleClock>,
    since_mark: u32,
    since_drain: u32,
    ended: bool,
}

/// When the lines of a live stream came, coarsely: for handing out runs
/// that have been quiet for a time ([`RunReader::idle_for`], `cctape watch
/// --idle`), next to the line counts that [`RunFolder::drain_idle`] and
/// [`RunFolder::drain_quiet`] take. Memory is bounded: marks closer than a
/// 64th of the idle time are merged (a run may come out that much later,
/// never earlier).
///
/// ```
/// use cctape::run::IdleClock;
/// use std::time::{Duration, Instant};
///
/// let mut clock = IdleClock::new(Duration::from_secs(2));
/// let t0 = Instant::now();
/// clock.mark(t0, 10);
/// clock.mark(t0 + Duration::from_secs(1), 12);
/// assert_eq!(clock.quiet_through(t0 + Duration::from_millis(1500)), None);
/// assert_eq!(clock.quiet_through(t0 + Duration::from_millis(2500)), Some(10));
/// assert_eq!(clock.quiet_through(t0 + Duration::from_secs(4)), Some(12));
/// ```
#[derive(Clone, Debug)]
pub struct IdleClock {
    idle: Duration,
    /// (first time, last time, lines so far by the last time), oldest
    /// first.
    marks: std::collections::VecDeque<(Instant, Instant, u64)>,
}

impl IdleClock {
    /// A clock for runs idle after `idle`.
    pub fn new(idle: Duration) -> IdleClock {
        IdleClock {
            idle,
            marks: std::collections::VecDeque::new(),
        }
    }

    /// The idle time.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// By `now`, `lines` lines had come.
    pub fn mark(&mut self, now: Instant, lines: u64) {
        let res = self.idle / 64;
        match self.marks.back_mut() {
            Some(m) if m.2 == lines => {}
            Some(m) if now.saturating_duration_since(m.0) < res => {
                m.1 = now;
                m.2 = lines;
            }
            _ => self.marks.push_back((now, now, lines)),
        }
        // Only the newest mark that is already quiet is needed.
        while self.marks.len() >= 2 && self.marks[1].1 + self.idle <= now {
            self.marks.pop_front();
        }
    }

    /// How many lines had come `idle` or more before `now`: the lines
    /// through that one are quiet.
    pub fn quiet_through(&self, now: Instant) -> Option<u64> {
        self.marks
            .iter()
            .rev()
            .find(|m| m.1 + self.idle <= now)
            .map(|m| m.2)
    }
}

/// A run with a result whose session is seen again more than this many
/// lines after the run's last line is over: the session starts a new run
/// (see the module doc). `cctape stats` also hands such runs out as it
/// reads ([`RunFolder::drain_idle`]), so a long log is folded in bounded
/// memory.
pub const IDLE_LINES: u64 = 50_000;

/// How many events [`RunReader`] reads between two looks for idle runs.
const DRAIN_EVERY: u32 = 4096;

impl<R: Read> RunReader<R> {
    /// Runs of the stream-json lines read from `rdr`.
    pub fn new(rdr: R) -> RunReader<R> {
        RunReader {
            events: crate::stream::EventReader::new(rdr),
            folder: RunFolder::new(),
            ready: std::collections::VecDeque::new(),
            fatal: None,
            idle: None,
            clock: None,
            since_mark: 0,
            since_drain: 0,
            ended: false,
        }
    }

    /// Hand out a run once it has a result and no line came for `idle`
    /// (the time `cctape watch --idle` waits), or as soon as the next run
    /// of the stream starts (a `system/init` of another session; the run
    /// before it is over, with a result or not). A run
    /// seen again after it was handed out starts a new run.
    ///
    /// The time is looked at whenever an event is read and whenever a read
    /// times out: a read that fails with [`std::io::ErrorKind::WouldBlock`]
    /// or [`TimedOut`](std::io::ErrorKind::TimedOut) is "nothing yet", not
    /// the end. So with a reader whose reads time out (a
    /// [`crate::follow::FollowReader`] with a read timeout, a socket with
    /// one), a finished run comes out `idle` after its last line; a reader
    /// that blocks for ever hands it out with the next line or at the end.
    ///
    /// ```
    /// use cctape::run::{RunReader, Verdict};
    /// use std::time::Duration;
    ///
    /// let log = br#"{"type":"system","subtype":"init","session_id":"a"}
    /// {"type":"result","subtype":"success","is_error":false,"session_id":"a"}
    /// {"type":"system","subtype":"init","session_id":"b"}
    /// "#;
    /// let mut runs = RunReader::new(&log[..]).idle_for(Duration::from_secs(2));
    /// // Out when b's init came, before the stream ended.
    /// let a = runs.next().unwrap()?;
    /// assert_eq!((a.verdict, a.events), (Verdict::Success, 2));
    /// # Ok::<(), cctape::Error>(())
    /// ```
    pub fn idle_for(mut self, idle: Duration) -> RunReader<R> {
        self.clock = Some(IdleClock::new(idle));
        self.events.wait_on_timeout();
        self
    }

    /// Runs quiet for the clock's idle time, and those another run's
    /// `system/init` closed.
    fn drain_quiet(&mut self, init: bool) {
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        let now = Instant::now();
        clock.mark(now, self.events.counts().lines);
        if init {
            self.ready.extend(self.folder.drain_others());
        }
        if let Some(n) = clock.quiet_through(now) {
            self.ready.extend(self.folder.drain_quiet(n + 1));
        }
    }

    /// Hand out a run once it has a result and no line of it came in the
    /// last `lines` lines (looked at every 4096 events); see
    /// [`RunFolder::drain_idle`].
    pub fn idle_after(mut self, lines: u64) -> RunReader<R> {
        self.idle = Some(lines);
        self
    }

    /// The counts of the lines read so far.
    pub fn counts(&self) -> crate::stream::Counts {
        self.events.counts()
    }

    /// The stream has ended: every run left is ready.
    fn end(&mut self, fatal: Option<Error>) {
        self.ended = true;
        self.fatal = fatal;
        self.ready.extend(std::mem::take(&mut self.folder).finish());
    }
}

impl<R: Read> Iterator for RunReader<R> {
    type Item = Result<RunSummary, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Some(Ok(r));
            }
            if self.ended {
                return self.fatal.take().map(Err);
            }
            let mut init = false;
            let mut pending = false;
            let ended = match self.events.poll_next_event() {
                std::task::Poll::Pending => {
                    pending = true;
                    None
                }
                std::task::Poll::Ready(None) => Some(None),
                std::task::Poll::Ready(Some(Ok(ev))) => {
                    init = ev.kind() == crate::event::EventKind::SystemInit;
                    self.folder.push(&ev);
                    None
                }
                std::task::Poll::Ready(Some(Err(e))) if e.is_fatal() => Some(Some(e)),
                std::task::Poll::Ready(Some(Err(e))) => {
                    self.folder.push_error(&e);
                    None
                }
            };
            if let Some(fatal) = ended {
                self.end(fatal);
                continue;
            }
            if pending {
                // A read timed out: nothing yet.
                self.drain_quiet(false);
                continue;
            }
            if self.clock.is_some() {
                self.since_mark += 1;
                if init || self.since_mark >= 64 {
                    self.since_mark = 0;
                    self.drain_quiet(init);
                }
            }
            if let Some(idle) = self.idle {
                self.since_drain += 1;
                if self.since_drain >= DRAIN_EVERY {
                    self.since_drain = 0;
                    let line = self.events.counts().lines;
                    let done = self.folder.drain_idle(line.saturating_sub(idle));
                    self.ready.extend(done);
                }
            }
        }
    }
}

/// The runs of a stream read from `rdr`; the I/O error that ended it, if
/// one did, comes back beside them.
pub fn runs_of_reader<R: Read>(rdr: R) -> (Vec<RunSummary>, Option<Error>) {
    let mut folder = RunFolder::new();
    let mut events = crate::stream::EventReader::new(rdr);
    let mut fatal = None;
    while let Some(item) = events.next_event() {
        match item {
            Ok(ev) => folder.push(&ev),
            Err(e) if e.is_fatal() => fatal = Some(e),
            Err(e) => folder.push_error(&e),
        }
    }
    (folder.finish(), fatal)
}
