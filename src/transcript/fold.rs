//! The transcript fold: records into sessions, usage once per API request,
//! and what a verdict can know.
//!
//! Rules (each with its reason; `docs/transcripts.md` compares them with
//! ccusage's):
//! - a record belongs to the session its `sessionId` names, else to the
//!   session its file's path names (`<session>.jsonl`, or
//!   `<session>/subagents/agent-*.jsonl`, tied to its parent session);
//! - an API request is counted once: the CLI writes an assistant record per
//!   content block, each with the message's `id`, the `requestId` and usage
//!   so far, and a subagent's file may replay its parent's records. Records
//!   with the same (`message.id`, `requestId`) are one request, wherever
//!   they are; its usage is the one the rule of both dialects puts first
//!   ([`CallReading`](crate::run::CallReading)): a main-chain record before
//!   a sidechain replay, a whole message's (its `stop_reason` set) before a
//!   snapshot, then the largest (counts only grow while a message
//!   streams). A record without `message.id` is a request of its own;
//! - cost: the record's `costUSD` when it has one, else the price table's
//!   price of its model; a model without a price costs nothing and is
//!   listed as unpriced;
//! - a subagent's requests are also relayed to its parent's transcript in
//!   `progress` records (`data.type: agent_progress`, the subagent's
//!   assistant message in `data.message`): they count, once with the same
//!   request in the subagent's own file, under the relayed message's time;
//! - a request whose `timestamp` is not a date still counts in its session;
//!   it has no day (the report's `undated` totals);
//! - requests are taken in one order (session, time, request), and costs
//!   are exact sums ([`ExactSum`](crate::run::ExactSum), read rounded once
//!   at the end), so the report depends neither on the order files were
//!   read in nor on how its requests are grouped.
//!
//! Nothing is allocated per line once the sessions, models and requests seen
//! are known: new names and new requests are the only allocations.
//!
//! Its parts: `read`, what the fold reads of a record (through the line's
//! structural index, no byte walked); `keys`, the keys of requests and tool
//! calls; `tools`, the tool calls and their results; `finish`, the pricing
//! and grouping at the end; `summary`, the report's types.

use super::TranscriptFile;
use crate::error::Error;
use crate::event::Event;
use crate::event::EventKind;
use crate::inputs::{Item, ReadOptions, Sniffed};
use crate::json::RawStr;
use crate::pricing::{PriceTable, RequestTokens};
use crate::run::{CallReading, CallUsageSource};
use crate::sniff::FormatChoice;
use crate::stream::Counts;
use crate::time::{DayRange, Zone};
use keys::{CallIdSpan, CallIds, Requests, request_key};
use names::{Names, Recent};
use numbers::Unusual;
use read::top;
pub(crate) use read::usage;
use std::cmp::Ordering;
use std::io::Read;
use std::ops::ControlFlow;
use system::SystemFacts;
use tools::Tools;

mod finish;
mod keys;
mod names;
mod numbers;
pub(super) mod read;
mod records;
mod summary;
mod system;
mod tools;

/// Counts indexed by [`EventKind::index`] as the kinds records are given,
/// in [`EventKind::RECORDS`]' order; kinds with none left out.
fn records_by_kind(n: &[u64; EventKind::ALL.len()]) -> Vec<(EventKind, u64)> {
    EventKind::RECORDS
        .iter()
        .map(|k| (*k, n[k.index()]))
        .filter(|(_, n)| *n > 0)
        .collect()
}

#[cfg(test)]
mod tests;

pub use summary::{
    AgentSummary, DaySummary, ModelRoleTotals, ModelTotals, Report, SessionBlock, SessionDay,
    SessionEnd, SessionFacts, SessionSummary, Totals,
};

const NONE: u32 = u32::MAX;

/// How the fold's own readers read: a transcript's lines, as records.
fn records() -> ReadOptions {
    ReadOptions {
        format: FormatChoice::Transcript,
        records: true,
        ..ReadOptions::default()
    }
}

/// One API request's usage, as counted.
#[derive(Clone, Copy, Debug)]
struct Request {
    key: u128,
    session: u32,
    agent: u32,
    model: u32,
    usage: RequestTokens,
    /// How final its count is (its message's `stop_reason`).
    source: CallUsageSource,
    millis: Option<i64>,
    sidechain: bool,
    cost_usd: Option<f64>,
    /// A copy relayed to the parent's transcript (`agent_progress`), not the
    /// subagent's own record.
    relayed: bool,
    /// Its record.
    at: At,
}

impl Request {
    /// Its reading of the call's usage.
    fn reading(&self) -> CallReading {
        CallReading {
            sidechain: self.sidechain,
            source: self.source,
            total: self.usage.total(),
        }
    }

    /// True when `self` should replace `old` as the request's record: the
    /// reading the one rule of both dialects puts first
    /// ([`CallReading::rank_against`]), then, of two that say the same,
    /// the one placed first whatever the order of the files.
    fn better_than(&self, old: &Request, names: &Names) -> bool {
        match self.reading().rank_against(&old.reading()) {
            Ordering::Greater => return true,
            Ordering::Less => return false,
            Ordering::Equal => {}
        }
        // Same usage: the subagent's own record rather than a copy relayed
        // to its parent, whose time may be the relaying record's (when the
        // relayed message has none): the request's own time places it in
        // its day and its billing block.
        if self.relayed != old.relayed {
            return old.relayed;
        }
        // Then the earliest record, then the smaller session name,
        // so that the choice does not depend on the order of the files.
        let t = |r: &Request| r.millis.unwrap_or(i64::MAX);
        if t(self) != t(old) {
            return t(self) < t(old);
        }
        names.get(self.session) < names.get(old.session)
    }
}

#[derive(Clone, Debug, Default)]
struct AgentFacts {
    agent: u32,
    spawned_by: u32,
    records: u64,
}

#[derive(Clone, Debug)]
struct Facts {
    project: u32,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    versions: Vec<u32>,
    kinds: [u64; EventKind::ALL.len()],
    sidechain_records: u64,
    /// (timestamp or MIN, order seen, stop reason) of the latest main-chain
    /// assistant record with a stop reason.
    last_stop: Option<(i64, u64, u32)>,
    api_errors: u64,
    interrupted_turns: u64,
    tool_errors: u64,
    compactions: u64,
    turn_duration_ms: u64,
    summary: u32,
    agents: Vec<AgentFacts>,
    /// The files the records came from (name id, true for a session's own
    /// file, false for a subagent's), in the order first seen.
    files: Vec<(u32, bool)>,
    /// The file of the last record, and whether it has a main-chain record
    /// (to skip the search above).
    last_file: u32,
    last_main: bool,
    /// (timestamp or MIN, order seen, how) of the main chain's latest turn
    /// event: a reply, an API error or an interrupt.
    ending: Option<(i64, u64, End)>,
    /// Some record named the session by its `sessionId` (else only a
    /// file's path did).
    named: bool,
    /// API retries and hooks.
    system: SystemFacts,
    /// Numbers not what their field takes.
    unusual: Unusual,
}

/// How a session's last turn ended, as folded (names are ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// An assistant reply, with its stop reason (`NONE` when null).
    Reply(u32),
    /// An API error (`isApiErrorMessage`: the request failed for good).
    ApiError,
    /// The user interrupted the turn.
    Interrupted,
    /// A prompt, a tool result or a tool call the turn has not answered
    /// yet.
    Awaiting,
}

impl Default for Facts {
    fn default() -> Self {
        Facts {
            project: NONE,
            first_ms: None,
            last_ms: None,
            versions: Vec::new(),
            kinds: [0; EventKind::ALL.len()],
            sidechain_records: 0,
            last_stop: None,
            api_errors: 0,
            interrupted_turns: 0,
            tool_errors: 0,
            compactions: 0,
            turn_duration_ms: 0,
            summary: NONE,
            agents: Vec::new(),
            files: Vec::new(),
            last_file: NONE,
            last_main: false,
            ending: None,
            named: false,
            system: SystemFacts::default(),
            unusual: Unusual::default(),
        }
    }
}

impl Facts {
    fn agent(&mut self, agent: u32) -> &mut AgentFacts {
        let i = match self.agents.iter().position(|a| a.agent == agent) {
            Some(i) => i,
            None => {
                self.agents.push(AgentFacts {
                    agent,
                    spawned_by: NONE,
                    records: 0,
                });
                self.agents.len() - 1
            }
        };
        &mut self.agents[i]
    }

    fn seen_at(&mut self, ms: i64) {
        self.first_ms = Some(self.first_ms.map_or(ms, |f| f.min(ms)));
        self.last_ms = Some(self.last_ms.map_or(ms, |l| l.max(ms)));
    }

    /// A main-chain turn event at (time, order): kept when it is the latest
    /// (a later one of the same record replaces an earlier one).
    fn ended(&mut self, at: (i64, u64), how: End) {
        if self.ending.is_none_or(|(t, o, _)| at >= (t, o)) {
            self.ending = Some((at.0, at.1, how));
        }
    }

    /// Take another fold's facts of the same session (its names mapped by
    /// `t`, its order numbers after `base`).
    fn absorb(&mut self, of: Facts, base: u64, t: &impl Fn(u32) -> u32) {
        self.named |= of.named;
        if self.project == NONE {
            self.project = t(of.project);
        }
        if let Some(ms) = of.first_ms {
            self.seen_at(ms);
        }
        if let Some(ms) = of.last_ms {
            self.seen_at(ms);
        }
        for v in of.versions {
            let v = t(v);
            if !self.versions.contains(&v) {
                self.versions.push(v);
            }
        }
        for (a, b) in self.kinds.iter_mut().zip(of.kinds) {
            *a += b;
        }
        self.sidechain_records += of.sidechain_records;
        if let Some((ms, o, r)) = of.last_stop {
            let at = (ms, base + o);
            if self.last_stop.is_none_or(|(t0, o0, _)| at > (t0, o0)) {
                self.last_stop = Some((at.0, at.1, t(r)));
            }
        }
        self.api_errors += of.api_errors;
        self.system.absorb(of.system, base, t);
        self.interrupted_turns += of.interrupted_turns;
        self.tool_errors += of.tool_errors;
        self.compactions += of.compactions;
        self.turn_duration_ms += of.turn_duration_ms;
        if of.summary != NONE {
            self.summary = t(of.summary);
        }
        for (file, main) in of.files {
            let file = t(file);
            match self.files.iter_mut().find(|(x, _)| *x == file) {
                Some(e) => e.1 |= main,
                None => self.files.push((file, main)),
            }
        }
        self.last_file = NONE;
        if let Some((ms, o, how)) = of.ending {
            let how = match how {
                End::Reply(r) => End::Reply(t(r)),
                other => other,
            };
            self.ended((ms, base + o), how);
        }
        for a in of.agents {
            let mine = self.agent(t(a.agent));
            mine.records += a.records;
            if mine.spawned_by == NONE {
                mine.spawned_by = t(a.spawned_by);
            }
        }
    }

    /// A record from `file`; `main` when it is a main-chain record (a file
    /// with one is the session's own, not a subagent's).
    fn seen_file(&mut self, file: u32, main: bool) {
        if file == self.last_file && (self.last_main || !main) {
            return;
        }
        self.last_file = file;
        match self.files.iter_mut().find(|(f, _)| *f == file) {
            Some(e) => {
                e.1 |= main;
                self.last_main = e.1;
            }
            None => {
                self.files.push((file, main));
                self.last_main = main;
            }
        }
    }
}

/// Folds transcript records into sessions and API requests; see the module
/// doc for the rules. Feed it records with [`add`](TranscriptFold::add) (or
/// whole files with [`read_slice`](TranscriptFold::read_slice) and
/// [`read`](TranscriptFold::read)), combine folds of separate inputs with
/// [`merge`](TranscriptFold::merge), and price and group the result with
/// [`finish`](TranscriptFold::finish).
///
/// ```
/// use cctape::pricing::PriceTable;
/// use cctape::time::Zone;
/// use cctape::transcript::{TranscriptFile, TranscriptFold};
///
/// // The CLI repeats an assistant record per content block: one request.
/// let input = br#"{"sessionId":"s1","type":"assistant","requestId":"r1","timestamp":"2026-02-11T23:30:00Z","message":{"id":"m1","model":"claude-haiku-4-5","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}
/// {"sessionId":"s1","type":"assistant","requestId":"r1","timestamp":"2026-02-11T23:30:01Z","message":{"id":"m1","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":40}}}
/// {"sessionId":"s1","type":"user","message":{"content":"[Request interrupted by user]"}}
/// "#;
/// let mut fold = TranscriptFold::new();
/// let file = TranscriptFile::default();
/// fold.read_slice(input, &file, |e| panic!("{e}"));
/// let report = fold.finish(PriceTable::builtin(), &Zone::named("Asia/Tokyo").unwrap());
/// let s = &report.sessions[0];
/// assert_eq!((s.totals.input, s.totals.output, s.totals.requests), (10, 40, 1));
/// assert!((s.totals.cost_usd - (10.0 * 1.0 + 40.0 * 5.0) / 1e6).abs() < 1e-15);
/// assert_eq!(s.facts.last_stop_reason.as_deref(), Some("end_turn"));
/// assert_eq!(s.facts.interrupted_turns, 1);
/// assert_eq!(report.days[0].day.to_string(), "2026-02-12");
/// ```
#[derive(Debug, Default)]
pub struct TranscriptFold {
    sessions: Names,
    strings: Names,
    facts: Vec<Facts>,
    requests: Requests,
    loose: Vec<Request>,
    buf: String,
    records: u64,
    /// The last file seen (its name, and the name's id), so that a file's
    /// name is looked up once, not per record.
    last_file: Option<(String, u32)>,
    /// The last `sessionId` and `version` read, as written, with their ids:
    /// consecutive records share them, and a comparison costs less than a
    /// hash (the buffers are reused: no allocation once warm).
    last_session: Recent,
    last_version: Recent,
    /// The same for `agentId` and a message's `model`.
    last_agent: Recent,
    last_model: Recent,
    /// Tool calls, their results and what the results of calls that ran
    /// a subagent said of it, each once whatever file replays it.
    tools: Tools,
    /// [`finish`](TranscriptFold::finish) lists each call
    /// ([`SessionSummary::tool_calls`], [`SessionSummary::model_calls`]).
    keep_calls: bool,
    /// Where a request's `message.id` and `requestId` are in
    /// `call_id_text`, by its key, when the calls are kept: what a model
    /// call says it is. Apart from [`Request`], which `stats` moves and
    /// sorts, and as written, not interned (each request's are its own).
    call_ids: CallIds,
    call_id_text: String,
}

/// A record as the fold reads it, whatever its kind: its session, the
/// subagent that wrote it (`NONE`: the main chain), whether it is a
/// sidechain's, its time, its place, and its order (time, then records
/// read before it).
#[derive(Clone, Copy, Debug)]
struct Rec {
    sid: u32,
    agent: u32,
    sidechain: bool,
    ms: Option<i64>,
    place: At,
    at: (i64, u64),
}

/// Where a record is: its file's name id (`NONE` without one) and line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    file: u32,
    line: u64,
}

impl At {
    /// True when `self` comes before `other` (file name, then line): of
    /// two records of one call, the one kept whatever the order of the
    /// files.
    fn before(self, other: At, names: &Names) -> bool {
        (names.get(self.file), self.line) < (names.get(other.file), other.line)
    }
}

impl TranscriptFold {
    /// An empty fold.
    pub fn new() -> TranscriptFold {
        TranscriptFold::default()
    }

    /// Have [`finish`](TranscriptFold::finish) list each model call and each
    /// tool call of each session ([`SessionSummary::model_calls`] and
    /// [`tool_calls`](SessionSummary::tool_calls), which its
    /// [`to_run`](SessionSummary::to_run) carries, as
    /// [`RunFolder::record_calls`](crate::run::RunFolder::record_calls) has
    /// a stream's run carry them: what the export's `tools` rows and
    /// OpenTelemetry's spans are made of); without it the lists are empty
    /// and only the counts are made (what `cctape stats` needs). A merged
    /// fold keeps them when either did; set it before adding records, as a
    /// model call's `message_id` and `request_id` are kept as its record is
    /// read (a merged fold's calls read without it have none).
    pub fn record_calls(&mut self, yes: bool) -> &mut TranscriptFold {
        self.keep_calls = yes;
        self
    }

    /// Records added so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Records added so far, per kind (kinds with none left out).
    pub(crate) fn records_by_kind(&self) -> Vec<(EventKind, u64)> {
        let mut n = [0u64; EventKind::ALL.len()];
        for f in &self.facts {
            for (a, b) in n.iter_mut().zip(f.kinds) {
                *a += b;
            }
        }
        records_by_kind(&n)
    }

    fn session_of(&mut self, session: Option<RawStr<'_>>, file: &TranscriptFile) -> u32 {
        let TranscriptFold {
            sessions,
            strings,
            facts,
            buf,
            last_session,
            ..
        } = self;
        let id = match (session, &file.session) {
            (Some(s), _) => last_session.id(s, sessions, buf),
            (None, Some(s)) => sessions.id(s),
            (None, None) => sessions.id("-"),
        };
        if id as usize >= facts.len() {
            let mut f = Facts::default();
            if let Some(p) = &file.project {
                f.project = strings.id(p);
            }
            facts.push(f);
        }
        if session.is_some() {
            facts[id as usize].named = true;
        }
        id
    }

    /// Fold one record, read from `file`.
    pub fn add(&mut self, rec: &Event<'_>, file: &TranscriptFile) {
        self.records += 1;
        let order = self.records;
        // One walk over the root's members for every field the fold reads.
        let top = read::root(rec.root());
        let str_at = |i: usize| top.get(i).and_then(|v| v.as_raw_str());
        let bool_at = |i: usize| top.get(i).and_then(|v| v.as_bool());
        let sid = self.session_of(str_at(top::SESSION), file);
        let ms = top
            .get(top::TIMESTAMP)
            .and_then(|t| t.as_str())
            .and_then(crate::time::parse_millis);
        let agent = match (str_at(top::AGENT), &file.agent) {
            (Some(a), _) => self.last_agent.id(a, &mut self.strings, &mut self.buf),
            (None, Some(a)) => self.strings.id(a),
            (None, None) => NONE,
        };
        let sidechain = bool_at(top::SIDECHAIN).unwrap_or(false) || agent != NONE;
        let version =
            str_at(top::VERSION).map(|v| self.last_version.id(v, &mut self.strings, &mut self.buf));
        let file_id = self.file_id(file);
        let f = &mut self.facts[sid as usize];
        if file_id != NONE {
            f.seen_file(file_id, !sidechain);
        }
        f.kinds[rec.kind().index()] += 1;
        if let Some(ms) = ms {
            f.seen_at(ms);
        }
        if let Some(v) = version
            && !f.versions.contains(&v)
        {
            f.versions.push(v);
        }
        if sidechain {
            f.sidechain_records += 1;
            if agent != NONE {
                f.agent(agent).records += 1;
            }
        }
        let line = rec.position().line;
        let place = At {
            file: file_id,
            line,
        };
        let at = (ms.unwrap_or(i64::MIN), order);
        let r = Rec {
            sid,
            agent,
            sidechain,
            ms,
            place,
            at,
        };
        match rec.kind() {
            EventKind::Assistant => self.assistant(rec, &top, r),
            EventKind::User => self.user(&top, r),
            EventKind::SystemCompactBoundary => f.compactions += 1,
            EventKind::SystemTurnDuration => {
                f.turn_duration_ms += top.get(top::DURATION).and_then(|v| v.as_u64()).unwrap_or(0);
            }
            EventKind::SystemApiError => {
                // A failed attempt the CLI retries: the turn still waits
                // for its reply.
                f.system.retry(rec.root(), ms, order, line);
                if !sidechain {
                    f.ended(at, End::Awaiting);
                }
            }
            EventKind::SystemStopHookSummary => f.system.stop_hooks(rec.root(), at, line),
            EventKind::Summary => {
                if let Some(t) = str_at(top::SUMMARY) {
                    let t = self.strings.id_raw(t, &mut self.buf);
                    self.facts[sid as usize].summary = t;
                }
            }
            EventKind::Progress => self.progress(&top, r),
            _ => {}
        }
    }

    /// The id of `file`'s name (`NONE` without one), looked up once per
    /// file.
    fn file_id(&mut self, file: &TranscriptFile) -> u32 {
        let Some(name) = &file.name else { return NONE };
        if let Some((last, id)) = &self.last_file
            && last == name
        {
            return *id;
        }
        let id = self.strings.id(name);
        self.last_file = Some((name.clone(), id));
        id
    }

    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        session: u32,
        agent: u32,
        model: Option<RawStr<'_>>,
        (usage, source): (RequestTokens, CallUsageSource),
        millis: Option<i64>,
        sidechain: bool,
        cost_usd: Option<f64>,
        at: At,
    ) -> Request {
        let model = match model {
            Some(m) => self.last_model.id(m, &mut self.strings, &mut self.buf),
            None => NONE,
        };
        Request {
            key: 0,
            session,
            agent,
            model,
            usage,
            source,
            millis,
            sidechain,
            cost_usd,
            relayed: false,
            at,
        }
    }

    /// Count `req` under its (message id, request id); a request without a
    /// message id is one of its own.
    #[inline]
    fn count(&mut self, id: Option<RawStr<'_>>, request: Option<RawStr<'_>>, req: Request) {
        match id {
            Some(id) => {
                let key = request_key(id.raw(), request.map(|r| r.raw()));
                if self.keep_calls {
                    self.keep_call_ids(key, id, request);
                }
                self.count_request(key, Request { key, ..req });
            }
            None => self.loose.push(req),
        }
    }

    /// Note request `key`'s ids, the first time it is seen (out of line:
    /// only a fold that keeps calls does it).
    #[inline(never)]
    fn keep_call_ids(&mut self, key: u128, id: RawStr<'_>, request: Option<RawStr<'_>>) {
        if self.call_ids.contains_key(&key) {
            return;
        }
        fn push(text: &mut String, s: RawStr<'_>) -> u32 {
            let at = text.len();
            match s.as_str() {
                Some(t) => text.push_str(t),
                None => {
                    s.unescape_into(text);
                }
            }
            (text.len() - at) as u32
        }
        let text = &mut self.call_id_text;
        let start = text.len();
        let id = push(text, id);
        let request = request.map(|r| push(text, r));
        self.call_ids.insert(key, CallIdSpan { start, id, request });
    }

    fn count_request(&mut self, key: u128, req: Request) {
        match self.requests.get_mut(&key) {
            Some(old) => {
                if req.better_than(old, &self.sessions) {
                    *old = req;
                }
            }
            None => {
                self.requests.insert(key, req);
            }
        }
    }

    /// Fold every line of `bytes` (a transcript file in memory) as a record
    /// from `file`, read as every command reads a file: through the one
    /// reader ([`inputs::Sniffed`](crate::inputs::Sniffed)), so that a
    /// compressed file, a UTF-16 one and a byte order mark are read as
    /// `cctape stats` reads them, blank lines are skipped and a line past
    /// [`ReadOptions::max_line`](crate::inputs::ReadOptions::max_line) is an
    /// error. Lines that are not records go to `on_error` (with their
    /// position) and are skipped. Returns the lines' counts; the same as
    /// [`read`](TranscriptFold::read) of the same bytes, in any pieces.
    pub fn read_slice(
        &mut self,
        bytes: &[u8],
        file: &TranscriptFile,
        on_error: impl FnMut(&Error),
    ) -> Counts {
        self.read(bytes, file, on_error)
    }

    /// Like [`read_slice`](TranscriptFold::read_slice), from any reader
    /// (its compression and encoding told by its first bytes:
    /// [`inputs::stream_source`](crate::inputs::stream_source)), in memory
    /// bounded by the longest line. An I/O error goes to `on_error` and
    /// ends the reading.
    pub fn read<R: Read>(
        &mut self,
        rdr: R,
        file: &TranscriptFile,
        mut on_error: impl FnMut(&Error),
    ) -> Counts {
        let src = match crate::inputs::stream_source(rdr) {
            Ok(src) => src,
            Err(e) => {
                on_error(&Error::open(e));
                return Counts {
                    errors: 1,
                    ..Counts::default()
                };
            }
        };
        let opts = records();
        let mut items = self.items(file, on_error);
        Sniffed::new(src, opts.format)
            .read(&opts, &mut items)
            .counts
    }

    /// Where the one reader's items go: records folded, errors told.
    fn items<'f>(
        &'f mut self,
        file: &'f TranscriptFile,
        mut on_error: impl FnMut(&Error) + 'f,
    ) -> impl FnMut(Item<'_, '_>) -> ControlFlow<()> + 'f {
        move |item| {
            match item {
                Item::Record(rec) => self.add(rec, file),
                Item::Error { error, .. } => on_error(error),
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }

    /// Add another fold's records (of other inputs, folded apart) to this
    /// one, with the same result as folding them all here.
    pub fn merge(&mut self, other: TranscriptFold) {
        let smap: Vec<u32> = other.sessions.iter().map(|s| self.sessions.id(s)).collect();
        let tmap: Vec<u32> = other.strings.iter().map(|s| self.strings.id(s)).collect();
        let t = |i: u32| if i == NONE { NONE } else { tmap[i as usize] };
        let base = self.records;
        self.records += other.records;
        self.keep_calls |= other.keep_calls;
        self.last_file = None;
        for (i, of) in other.facts.into_iter().enumerate() {
            let sid = smap[i] as usize;
            if sid >= self.facts.len() {
                self.facts.resize(sid + 1, Facts::default());
            }
            let unusual = of.unusual;
            self.facts[sid].absorb(of, base, &t);
            self.facts[sid].unusual.absorb(unusual, &self.strings, &t);
        }
        let remap = |mut r: Request| {
            r.session = smap[r.session as usize];
            r.agent = t(r.agent);
            r.model = t(r.model);
            r.at.file = t(r.at.file);
            r
        };
        let offset = self.call_id_text.len();
        self.call_id_text.push_str(&other.call_id_text);
        for (k, span) in other.call_ids {
            self.call_ids.entry(k).or_insert(span.moved(offset));
        }
        for (k, r) in other.requests {
            self.count_request(k, remap(r));
        }
        self.loose.extend(other.loose.into_iter().map(remap));
        let (sessions, strings) = (&self.sessions, &self.strings);
        self.tools
            .merge(other.tools, (&smap, &t), (sessions, strings));
    }

    /// Price the requests and group everything by session and by day in
    /// `zone`.
    pub fn finish(self, prices: &PriceTable, zone: &Zone) -> Report {
        self.finish_within(prices, zone, &DayRange::default(), None)
    }
}
