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
//!   they are; its usage is the largest the records show (the final one:
//!   counts only grow while a message streams), a main-chain record
//!   preferred to a sidechain replay. A record without `message.id` is a
//!   request of its own;
//! - cost: the record's `costUSD` when it has one, else the price table's
//!   price of its model; a model without a price costs nothing and is
//!   listed as unpriced;
//! - a subagent's requests are also relayed to its parent's transcript in
//!   `progress` records (`data.type: agent_progress`, the subagent's
//!   assistant message in `data.message`): they count, once with the same
//!   request in the subagent's own file, under the relayed message's time;
//! - a request whose `timestamp` is not a date still counts in its session;
//!   it has no day (the report's `undated` totals);
//! - sums are made in one order (session, time, request), so the report does
//!   not depend on the order files were read in.
//!
//! Nothing is allocated per line once the sessions, models and requests seen
//! are known: new names and new requests are the only allocations.

use super::{Record, RecordKind, RecordView};
use crate::error::Error;
use crate::framing::{Line, LineReader, Lines};
use crate::pricing::{PriceTable, RequestTokens};
use crate::run::{ModelRole, ToolCall, Verdict};
use crate::scan::{RawStr, RawValue, Scanner};
use crate::stream::Counts;
use crate::time::{BlockStart, Blocks, Day, DayRange, Zone};
use memchr::memmem::{Finder, FinderRev};
use std::collections::{BTreeMap, HashMap};
use std::hash::Hasher;
use std::io::Read;
use std::path::Path;
use std::sync::LazyLock;

const NONE: u32 = u32::MAX;

/// Byte searches made on many records, built once (a search built per call
/// costs more than it saves on a short record).
static TOOL_USE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"tool_use\""));
static TOOL_RESULT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"tool_result\""));
static IS_ERROR: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"is_error\""));
static INTERRUPTED: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(b"[Request interrupted by user"));

/// What a transcript file's path says: under `~/.claude/projects`,
/// `<project>/<session>.jsonl` or `<project>/<session>/subagents/agent-<id>.jsonl`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscriptFile {
    /// The project folder's name (Claude Code's encoded working directory).
    pub project: Option<String>,
    /// The session the file belongs to.
    pub session: Option<String>,
    /// For a subagent file: the agent's id (`agent-<id>.jsonl`).
    pub agent: Option<String>,
    /// The file as named (the path given), to tell which files a session's
    /// records came from ([`SessionSummary::files`]).
    pub name: Option<String>,
}

impl TranscriptFile {
    /// What `path` says.
    ///
    /// ```
    /// use cctape::transcript::TranscriptFile;
    /// use std::path::Path;
    ///
    /// let f = TranscriptFile::from_path(Path::new("/h/.claude/projects/-w-app/1b2c/subagents/agent-a7be2f0.jsonl"));
    /// assert_eq!(f.project.as_deref(), Some("-w-app"));
    /// assert_eq!(f.session.as_deref(), Some("1b2c"));
    /// assert_eq!(f.agent.as_deref(), Some("a7be2f0"));
    /// let f = TranscriptFile::from_path(Path::new("-w-app/9f3e.jsonl"));
    /// assert_eq!((f.project.as_deref(), f.session.as_deref(), f.agent), (Some("-w-app"), Some("9f3e"), None));
    /// ```
    pub fn from_path(path: &Path) -> TranscriptFile {
        // Names that are not UTF-8 as `cctape stats` names its inputs:
        // their bytes escaped, so that two are never merged.
        let text = |s: &std::ffi::OsStr| {
            crate::inputs::name_text(&crate::inputs::os_bytes(s)).into_owned()
        };
        let name = |p: Option<&Path>| p.and_then(|p| p.file_name()).map(text);
        let stem = path.file_stem().map(text);
        let parent = path.parent();
        let file = Some(text(path.as_os_str()));
        if name(parent).as_deref() == Some("subagents") {
            let session_dir = parent.and_then(Path::parent);
            return TranscriptFile {
                project: name(session_dir.and_then(Path::parent)),
                session: name(session_dir),
                agent: stem.map(|s| s.strip_prefix("agent-").unwrap_or(&s).to_owned()),
                name: file,
            };
        }
        TranscriptFile {
            project: name(parent),
            session: stem,
            agent: None,
            name: file,
        }
    }
}

/// Names seen, each stored once.
#[derive(Debug, Default)]
struct Names {
    list: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

impl Names {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.into());
        self.index.insert(s.into(), i);
        i
    }

    fn id_raw(&mut self, s: RawStr<'_>, buf: &mut String) -> u32 {
        match s.as_str() {
            Some(t) => self.id(t),
            None => {
                buf.clear();
                s.unescape_into(buf);
                self.id(buf)
            }
        }
    }

    fn get(&self, i: u32) -> Option<&str> {
        self.list.get(i as usize).map(|s| &**s)
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
    /// True when `self` should replace `old` as the request's record.
    fn better_than(&self, old: &Request, names: &Names) -> bool {
        if self.sidechain != old.sidechain {
            return old.sidechain;
        }
        let (a, b) = (self.usage.total(), old.usage.total());
        if a != b {
            return a > b;
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
    kinds: [u64; RecordKind::ALL.len()],
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
}

/// How a session's last turn ended, as folded (names are ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// An assistant reply, with its stop reason (`NONE` when null).
    Reply(u32),
    /// An API error (`isApiErrorMessage`, `system/api_error`).
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
            kinds: [0; RecordKind::ALL.len()],
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
/// use cctape::scan::Scanner;
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
/// fold.read_slice(&mut Scanner::new(), input, &file, |e| panic!("{e}"));
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
    /// Timestamps read, the last hour kept.
    clock: Clock,
    /// Tool calls by their `tool_use` id's key (a call replayed in another
    /// file is one call), and their results by the same key.
    tools: HashMap<u128, ToolUse, std::hash::BuildHasherDefault<KeyHasher>>,
    results: HashMap<u128, ToolResult, std::hash::BuildHasherDefault<KeyHasher>>,
    /// The calls' ids as written, one after another ([`ToolUse::id`]): one
    /// buffer, not a string per call.
    tool_ids: String,
    /// [`finish`](TranscriptFold::finish) lists each call
    /// ([`SessionSummary::calls`]).
    keep_calls: bool,
}

/// Timestamps to milliseconds, the hour of the last one kept: the CLI
/// writes `YYYY-MM-DDTHH:MM:SS.mmmZ`, and consecutive records share their
/// hour, so only the minutes, seconds and milliseconds are read for them;
/// any other shape (an offset, no fraction, another hour) goes to
/// [`crate::time::parse_millis`]. The same answers: the hour's start is
/// taken from `parse_millis` itself.
#[derive(Debug, Default)]
struct Clock {
    /// `YYYY-MM-DDTHH` of the last timestamp of the CLI's shape, and the
    /// milliseconds at the start of that hour.
    hour: Option<([u8; 13], i64)>,
}

impl Clock {
    fn millis(&mut self, s: &str) -> Option<i64> {
        let b = s.as_bytes();
        let Some(within) = hour_millis(b) else {
            return crate::time::parse_millis(s);
        };
        if let Some((hour, start)) = &self.hour
            && b[..13] == hour[..]
        {
            return Some(start + within);
        }
        let ms = crate::time::parse_millis(s)?;
        let mut hour = [0u8; 13];
        hour.copy_from_slice(&b[..13]);
        self.hour = Some((hour, ms - within));
        Some(ms)
    }
}

/// For a timestamp shaped `…THH:MM:SS.mmmZ` (24 bytes), the milliseconds
/// since its hour began (minutes and seconds in range); `None` for any
/// other shape.
fn hour_millis(b: &[u8]) -> Option<i64> {
    if b.len() != 24 || b[13] != b':' || b[16] != b':' || b[19] != b'.' || b[23] != b'Z' {
        return None;
    }
    let d = |i: usize| {
        let c = b[i].wrapping_sub(b'0');
        (c < 10).then_some(i64::from(c))
    };
    let minute = d(14)? * 10 + d(15)?;
    let second = d(17)? * 10 + d(18)?;
    let milli = d(20)? * 100 + d(21)? * 10 + d(22)?;
    (minute < 60 && second < 60).then_some(minute * 60_000 + second * 1000 + milli)
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

/// A `tool_result` as folded: the first record answering a call (by
/// [`At::before`]), an error if any of them says so.
#[derive(Clone, Copy, Debug)]
struct ToolResult {
    at: At,
    millis: Option<i64>,
    error: bool,
}

/// One tool call (`tool_use` block) as folded.
#[derive(Clone, Copy, Debug)]
struct ToolUse {
    session: u32,
    name: u32,
    millis: Option<i64>,
    /// The subagent that made the call (`NONE`: the main chain).
    agent: u32,
    /// For an Agent/Task call: its input's `subagent_type` and
    /// `description`.
    subagent_type: u32,
    description: u32,
    /// The id as written: `tool_ids[id.0..id.0 + id.1]`.
    id: (usize, u32),
    /// The record holding the block.
    at: At,
    /// Made by a sidechain (`isSidechain`, a subagent's file).
    sidechain: bool,
}

/// A name as last written, and its id.
#[derive(Debug, Default)]
struct Recent {
    raw: Vec<u8>,
    id: Option<u32>,
}

impl Recent {
    /// The id of `s`, from the cache or from `names` (and then cached).
    fn id(&mut self, s: RawStr<'_>, names: &mut Names, buf: &mut String) -> u32 {
        if let Some(id) = self.id
            && self.raw == s.raw()
        {
            return id;
        }
        let id = names.id_raw(s, buf);
        self.raw.clear();
        self.raw.extend_from_slice(s.raw());
        self.id = Some(id);
        id
    }
}

/// The top-level fields the fold reads, found in one walk.
#[derive(Default)]
struct Top<'s> {
    session: Option<RawStr<'s>>,
    timestamp: Option<RawStr<'s>>,
    agent: Option<RawStr<'s>>,
    sidechain: Option<bool>,
    version: Option<RawStr<'s>>,
    message: Option<RawValue<'s>>,
    /// The first `message` (what [`Record::message`] reads; `message` is
    /// the last, should a line give two).
    first_message: Option<RawValue<'s>>,
    data: Option<RawValue<'s>>,
    request_id: Option<RawStr<'s>>,
    cost_usd: Option<RawValue<'s>>,
    api_error: Option<RawValue<'s>>,
    parent_tool_use_id: Option<RawStr<'s>>,
    /// `isMeta`: a record the CLI adds for itself (a local command's
    /// caveat), no prompt.
    meta: Option<bool>,
    /// `isCompactSummary`: the summary a compaction leaves, no prompt.
    compact_summary: Option<bool>,
}

impl Top<'_> {
    /// The keys read, for keys written with escapes.
    const KEYS: [&'static str; 13] = [
        "sessionId",
        "timestamp",
        "agentId",
        "isSidechain",
        "version",
        "message",
        "data",
        "requestId",
        "costUSD",
        "isApiErrorMessage",
        "parentToolUseID",
        "isMeta",
        "isCompactSummary",
    ];
}

/// A message's fields the fold reads, found in one walk (`usage` comes
/// after the content, which a lookup per field would cross each time).
#[derive(Clone, Copy, Default)]
struct MessageFields<'s> {
    id: Option<RawStr<'s>>,
    model: Option<RawStr<'s>>,
    stop_reason: Option<RawStr<'s>>,
    usage: Option<RequestTokens>,
    /// Where the first `content`'s value starts, when the plain read
    /// ([`MessageFields::plain`]) passed it.
    content: Option<usize>,
}

impl<'s> MessageFields<'s> {
    /// The fields, walking the message's members up to its `content`; the
    /// members after it (`stop_reason`, `usage`) are found from the
    /// message's end ([`last_member`]), so the content, most of a
    /// message's bytes, is not crossed. The same answers as a walk of every
    /// member ([`MessageFields::walked`]; a test compares them on real
    /// transcripts).
    fn of(message: RawValue<'s>) -> MessageFields<'s> {
        let raw = message.raw();
        if let Some(m) = Self::plain(raw) {
            return m;
        }
        let mut m = MessageFields::default();
        let mut entries = message.entries();
        for (k, v) in entries.by_ref() {
            match () {
                _ if key_is(k, "id") => m.id = v.as_raw_str(),
                _ if key_is(k, "model") => m.model = v.as_raw_str(),
                _ if key_is(k, "stop_reason") => m.stop_reason = v.as_raw_str(),
                _ if key_is(k, "usage") => m.usage = super::usage_value(v),
                _ if key_is(k, "content") => {
                    // What follows the content is found from the end, in
                    // the bytes after its key (the content is not crossed).
                    let key_end = k.raw().as_ptr() as usize + k.raw().len();
                    let from = key_end - raw.as_ptr() as usize;
                    return m
                        .after_content(raw, from)
                        .unwrap_or_else(|| Self::walked(message));
                }
                _ => {}
            }
        }
        m
    }

    /// [`MessageFields::of`] for a message whose members up to `content`
    /// are plain (keys and strings without escapes, `usage` a plain
    /// object, [`usage_plain_at`]), read in one pass without the general
    /// walk; `None` for any other message (then it is walked).
    fn plain(raw: &'s [u8]) -> Option<MessageFields<'s>> {
        let mut m = MessageFields::default();
        let mut i = 0;
        plain_members(raw, &mut i, |key, _, i| {
            match key {
                b"content" => {
                    // `from` is where the key's text ends, as in `of`.
                    let from = key.as_ptr() as usize + key.len() - raw.as_ptr() as usize;
                    m.content = Some(*i);
                    m = std::mem::take(&mut m).after_content(raw, from)?;
                    // Nothing more to read here: stop the members' walk
                    // (`None`), telling it apart from a failure below.
                    *i = usize::MAX;
                    return None;
                }
                b"id" => m.id = plain_str(raw, i)?,
                b"model" => m.model = plain_str(raw, i)?,
                b"stop_reason" => m.stop_reason = plain_str(raw, i)?,
                b"usage" => {
                    let (u, end) = usage_plain_at(raw, *i)?;
                    m.usage = Some(u);
                    *i = end;
                }
                _ => *i = plain_value_end(raw, *i)?,
            }
            Some(())
        })
        .map_or((i == usize::MAX).then_some(()), |()| {
            // Every member read, no content: the message ends here.
            (i == raw.len()).then_some(())
        })?;
        Some(m)
    }

    /// `stop_reason` and `usage` among the members after `from` (the
    /// content's first byte), each the last depth-1 member of its name;
    /// `None` when the bytes after the content are not plain members (then
    /// the message is walked).
    fn after_content(mut self, raw: &'s [u8], from: usize) -> Option<MessageFields<'s>> {
        if let Some(m) = self.tail_plain(raw, from) {
            return Some(m);
        }
        static USAGE: LazyLock<FinderRev<'static>> = LazyLock::new(|| FinderRev::new(b"\"usage\""));
        static STOP_REASON: LazyLock<FinderRev<'static>> =
            LazyLock::new(|| FinderRev::new(b"\"stop_reason\""));
        // `usage` first; then `stop_reason`, after it (rare) or before it
        // (where the CLI writes it), where the members up to `usage`'s key
        // are all that is left to see.
        let closes = |i: usize| members_close(raw, i, None);
        let ends = |i: usize| value_end(raw, i);
        // A plain usage object is read where its end is found (once).
        let parsed = std::cell::Cell::new(None);
        let usage_end = |i: usize| match usage_plain_at(raw, i) {
            Some((u, end)) => {
                parsed.set(Some((i, u)));
                end
            }
            None => value_end(raw, i),
        };
        let mut usage_at = None;
        if let Some((key, end, v)) = last_member(raw, &USAGE, from, raw.len(), usage_end, closes)? {
            let start = v.as_ptr() as usize - raw.as_ptr() as usize;
            self.usage = match parsed.get() {
                Some((at, u)) if at == start => Some(u),
                _ => super::usage_value(RawValue::starting(v)),
            };
            usage_at = Some((key, end));
        }
        let found = match usage_at {
            Some((u, u_end)) => {
                match last_member(raw, &STOP_REASON, u_end, raw.len(), ends, closes)? {
                    None => last_member(raw, &STOP_REASON, from, u, ends, |i| {
                        members_close(raw, i, Some(u))
                    })?,
                    after => after,
                }
            }
            None => last_member(raw, &STOP_REASON, from, raw.len(), ends, closes)?,
        };
        if let Some((_, _, v)) = found {
            self.stop_reason = RawValue::starting(v).as_raw_str();
        }
        Some(self)
    }

    /// [`after_content`](MessageFields::after_content) for the tail the
    /// CLI writes: `usage` a plain object and the message's last member,
    /// and the members just before it plain (`null` or strings without
    /// escapes: `"stop_reason":null,"stop_sequence":null`), read backwards
    /// from the message's end without a search; `None` when the tail is
    /// not of that shape. The same answers: the `usage` found is checked
    /// forwards as `after_content` checks an occurrence (an unescaped key,
    /// its value a plain object closing the message), and no later
    /// occurrence could pass (inside a plain object a key is nested);
    /// `stop_reason` is the first member named so walking back from
    /// `usage` over plain members, which is the last one before it.
    fn tail_plain(mut self, raw: &'s [u8], from: usize) -> Option<MessageFields<'s>> {
        // The message's closing brace, then the usage object's.
        (raw.last() == Some(&b'}')).then_some(())?;
        let close = back_ws(raw, raw.len().checked_sub(2)?)?;
        (raw[close] == b'}').then_some(())?;
        let mut depth = 0usize;
        let mut j = close;
        let start = loop {
            let k = memchr::memrchr2(b'{', b'}', &raw[..=j])?;
            if raw[k] == b'}' {
                depth += 1;
            } else {
                depth -= 1;
                if depth == 0 {
                    break k;
                }
            }
            j = k.checked_sub(1)?;
        };
        let (usage, end) = usage_plain_at(raw, start)?;
        (end == close + 1).then_some(())?;
        let key = plain_key_before(raw, start)?;
        (key.0 >= from && key.1 == b"usage").then_some(())?;
        self.usage = Some(usage);
        // Members before `usage`, walked back: `"key": value,`.
        let mut at = key.0;
        for _ in 0..4 {
            let comma = back_ws(raw, at.checked_sub(1)?)?;
            (raw[comma] == b',').then_some(())?;
            let last = back_ws(raw, comma.checked_sub(1)?)?;
            let (value_start, value) = if raw[last] == b'"' {
                let q = plain_open_quote(raw, last)?;
                (q, Some(RawStr::new(&raw[q + 1..last], false)))
            } else if raw[..=last].ends_with(b"null") {
                (last - 3, None)
            } else {
                return None;
            };
            let (k, name) = plain_key_before(raw, value_start)?;
            (k >= from).then_some(())?;
            if name == b"stop_reason" {
                self.stop_reason = value;
                return Some(self);
            }
            at = k;
        }
        None
    }

    /// Every member walked (the last of a name given twice wins, as in
    /// [`MessageFields::of`]).
    fn walked(message: RawValue<'s>) -> MessageFields<'s> {
        let mut m = MessageFields::default();
        for (k, v) in message.entries() {
            match () {
                _ if key_is(k, "id") => m.id = v.as_raw_str(),
                _ if key_is(k, "model") => m.model = v.as_raw_str(),
                _ if key_is(k, "stop_reason") => m.stop_reason = v.as_raw_str(),
                _ if key_is(k, "usage") => m.usage = super::usage_value(v),
                _ => {}
            }
        }
        m
    }
}

/// The last byte at or before `i` that is not whitespace.
fn back_ws(b: &[u8], i: usize) -> Option<usize> {
    b.get(..=i)?
        .iter()
        .rposition(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

/// The opening quote of the string whose closing quote is `b[close]`,
/// when the string holds no backslash and its opening quote is not
/// escaped (so that the quote found is where the string starts).
fn plain_open_quote(b: &[u8], close: usize) -> Option<usize> {
    let q = memchr::memrchr(b'"', &b[..close])?;
    (memchr::memchr(b'\\', &b[q + 1..close]).is_none()).then_some(())?;
    (q == 0 || b[q - 1] != b'\\').then_some(q)
}

/// The plain key (no backslash) of the member whose value starts at
/// `b[value]`: where its opening quote is, and its text.
fn plain_key_before(b: &[u8], value: usize) -> Option<(usize, &[u8])> {
    let colon = back_ws(b, value.checked_sub(1)?)?;
    (b[colon] == b':').then_some(())?;
    let close = back_ws(b, colon.checked_sub(1)?)?;
    (b[close] == b'"').then_some(())?;
    let open = plain_open_quote(b, close)?;
    Some((open, &b[open + 1..close]))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// The end of the JSON value that starts at `b[i]` (the bytes are
/// validated): a plain one's ([`plain_value_end`]: a string without
/// escapes found with one byte search), else the general skip's.
fn value_end(b: &[u8], i: usize) -> usize {
    let general = || i + RawValue::starting(&b[i..]).raw().len();
    match b.get(i) {
        // A nested value may hold escapes: the general skip at once.
        Some(b'{' | b'[') => general(),
        _ => plain_value_end(b, i).unwrap_or_else(general),
    }
}

/// The members of an object, each value with its exact bytes (its end
/// found once, where the walk crosses it): a value kept from the walk is
/// not crossed again when it is read. For objects whose values are read
/// after the walk (a relayed message inside `data`).
struct Members<'s> {
    b: &'s [u8],
    i: usize,
    first: bool,
}

impl<'s> Members<'s> {
    fn of(obj: RawValue<'s>) -> Members<'s> {
        let b = obj.raw();
        let i = if b.first() == Some(&b'{') { 1 } else { b.len() };
        Members { b, i, first: true }
    }
}

impl<'s> Iterator for Members<'s> {
    type Item = (RawStr<'s>, RawValue<'s>);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.b;
        let mut i = skip_ws(b, self.i);
        if !std::mem::take(&mut self.first) {
            (b.get(i) == Some(&b',')).then_some(())?;
            i = skip_ws(b, i + 1);
        }
        self.i = b.len();
        let key = RawValue::starting(b.get(i..)?).as_raw_str()?;
        let j = skip_ws(b, i + key.raw().len() + 2);
        (b.get(j) == Some(&b':')).then_some(())?;
        let start = skip_ws(b, j + 1);
        (start < b.len()).then_some(())?;
        let end = value_end(b, start).min(b.len());
        self.i = end;
        let value = match b[start] {
            b'"' => RawValue::starting(&b[start..end]),
            _ => RawValue::exact(&b[start..end], false),
        };
        Some((key, value))
    }
}

/// True when, from `i`, the object `obj` ends with plain members: `(,
/// "key": value)*` and its closing brace, its last byte; or reaches the key
/// at `known`, from which the members are known to close it.
fn members_close(obj: &[u8], mut i: usize, known: Option<usize>) -> bool {
    loop {
        i = skip_ws(obj, i);
        match obj.get(i) {
            Some(b'}') => return i + 1 == obj.len(),
            Some(b',') => {
                i = skip_ws(obj, i + 1);
                if Some(i) == known {
                    return true;
                }
                if obj.get(i) != Some(&b'"') {
                    return false;
                }
                i = skip_ws(obj, value_end(obj, i));
                if obj.get(i) != Some(&b':') {
                    return false;
                }
                i = value_end(obj, skip_ws(obj, i + 1));
            }
            _ => return false,
        }
    }
}

/// The last member `key` (given with its quotes) of the object `obj` whose
/// key lies in `from..before`, searched from the end: where its key starts,
/// and its value (which ends where `ends` says). An occurrence counts when its opening quote is not
/// escaped (a key, not text inside a string) and the members after its
/// value close `obj` (`closes`: it is a member of `obj`, not of an object
/// nested in it). `Some(None)`: there is none; `None`: an occurrence could
/// not be told (never on validated bytes; the caller then walks).
fn last_member<'s>(
    obj: &'s [u8],
    key: &FinderRev<'_>,
    from: usize,
    before: usize,
    ends: impl Fn(usize) -> usize,
    closes: impl Fn(usize) -> bool,
) -> Option<Option<(usize, usize, &'s [u8])>> {
    let mut end = before;
    let len = key.needle().len();
    while let Some(pos) = key.rfind(obj.get(from..end)?).map(|p| p + from) {
        end = pos;
        let backslashes = obj[..pos].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 1 {
            continue;
        }
        let i = skip_ws(obj, pos + len);
        if obj.get(i) != Some(&b':') {
            continue;
        }
        let start = skip_ws(obj, i + 1);
        let stop = ends(start);
        if closes(stop) {
            return Some(Some((pos, stop, &obj[start..stop])));
        }
    }
    Some(None)
}

/// A `usage` object read in one pass when it is plain:
/// unescaped keys, the counts plain digits, `cache_creation` an object of
/// plain counts, `speed` a plain string; `None` otherwise (the caller then
/// walks it, [`super::usage_value`], with the same answers). The CLI writes
/// such objects; a walk crossing each member with the general skip cost
/// twice as much (a twelfth of a `stats` over transcripts).
///
/// The object starts at `b[i]`; returns the counts and where it ends.
fn usage_plain_at(b: &[u8], mut i: usize) -> Option<(RequestTokens, usize)> {
    let mut u = RequestTokens::default();
    let (mut write, mut split) = (0, None);
    // Keys told apart by their length first: one comparison of bytes per
    // member at most (a match on the names alone compares each in turn).
    plain_members(b, &mut i, |key, b, i| {
        let mut n = || plain_u64(b, i);
        match key.len() {
            12 if key == b"input_tokens" => u.input = n()?,
            13 if key == b"output_tokens" => u.output = n()?,
            23 if key == b"cache_read_input_tokens" => u.cache_read = n()?,
            27 if key == b"cache_creation_input_tokens" => write = n()?,
            14 if key == b"cache_creation" && b.get(*i) == Some(&b'{') => {
                let (mut m5, mut h1) = (0, 0);
                plain_members(b, i, |key, b, i| {
                    match key.len() {
                        25 if key == b"ephemeral_5m_input_tokens" => m5 = plain_u64(b, i)?,
                        25 if key == b"ephemeral_1h_input_tokens" => h1 = plain_u64(b, i)?,
                        _ => *i = plain_value_end(b, *i)?,
                    }
                    Some(())
                })?;
                split = Some((m5, h1));
            }
            5 if key == b"speed" => {
                let end = plain_value_end(b, *i)?;
                u.fast = &b[*i..end] == b"\"fast\"";
                *i = end;
            }
            _ => *i = plain_value_end(b, *i)?,
        }
        Some(())
    })?;
    (u.cache_write_5m, u.cache_write_1h) = split.unwrap_or((write, 0));
    Some((u, i))
}

/// The string at `b[*i]` when it has no escape (`Some(Some)`), or `null`
/// (`Some(None)`, as [`RawValue::as_raw_str`] reads it), `*i` moved past
/// it; `None` for anything else.
fn plain_str<'s>(b: &'s [u8], i: &mut usize) -> Option<Option<RawStr<'s>>> {
    let start = *i;
    if b.get(start..start + 4) == Some(b"null") {
        *i = start + 4;
        return Some(None);
    }
    (b.get(start) == Some(&b'"')).then_some(())?;
    let end = plain_value_end(b, start)?;
    *i = end;
    Some(Some(RawStr::new(&b[start + 1..end - 1], false)))
}

/// The members of the object at `b[*i]` (`{`), each key (unescaped) handed
/// to `member` with `*i` at its value, which `member` moves past; `*i` ends
/// past the closing brace. `None` when the bytes are not plain members.
fn plain_members(
    b: &[u8],
    i: &mut usize,
    mut member: impl FnMut(&[u8], &[u8], &mut usize) -> Option<()>,
) -> Option<()> {
    (b.get(*i) == Some(&b'{')).then_some(())?;
    *i = skip_ws(b, *i + 1);
    if b.get(*i) == Some(&b'}') {
        *i += 1;
        return Some(());
    }
    loop {
        (b.get(*i) == Some(&b'"')).then_some(())?;
        let len = quote_or_backslash(b.get(*i + 1..)?)?;
        let key = &b[*i + 1..*i + 1 + len];
        (b[*i + 1 + len] == b'"').then_some(())?;
        *i = skip_ws(b, *i + len + 2);
        (b.get(*i) == Some(&b':')).then_some(())?;
        *i = skip_ws(b, *i + 1);
        member(key, b, i)?;
        *i = skip_ws(b, *i);
        match b.get(*i) {
            Some(b',') => *i = skip_ws(b, *i + 1),
            Some(b'}') => {
                *i += 1;
                return Some(());
            }
            _ => return None,
        }
    }
}

/// The first `"` or `\\` of `b` (what `memchr::memchr2` finds), eight
/// bytes at a time without a call: the strings searched here (keys, ids,
/// short values) are a few dozen bytes, where the call and setup of the
/// vector search cost more than the search (3% of a `stats` over
/// transcripts).
#[inline]
fn quote_or_backslash(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for c in chunks.by_ref() {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let w = u64::from_le_bytes(w);
        // A byte of `x` is zero where `w` has the byte searched; the
        // lowest flagged byte is exact (a borrow only flags bytes above a
        // zero one).
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let found = zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')));
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&c| c == b'"' || c == b'\\')
        .map(|p| at + p)
}

/// A plain count at `b[*i]` (digits only, as [`RawValue::as_u64`] reads
/// them), `*i` moved past it.
fn plain_u64(b: &[u8], i: &mut usize) -> Option<u64> {
    let digits = b
        .get(*i..)?
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    (digits > 0 && digits <= 19).then_some(())?;
    let mut v = 0u64;
    for &d in &b[*i..*i + digits] {
        v = v * 10 + u64::from(d - b'0');
    }
    *i += digits;
    // A number that goes on (`1.5`, `1e3`) is not a plain count.
    (!matches!(b.get(*i), Some(b'.' | b'e' | b'E'))).then_some(v)
}

/// The end of a plain value at `b[i]`: a string without escapes, a number,
/// `true`, `false`, `null`, or an object or array of such (small objects:
/// `server_tool_use`, `iterations`).
fn plain_value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => {
            let len = quote_or_backslash(b.get(i + 1..)?)?;
            (b[i + 1 + len] == b'"').then_some(i + len + 2)
        }
        b'{' | b'[' => {
            // Nested values only matter for where they end: strings
            // without escapes keep the brackets countable.
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    b'"' => {
                        j = plain_value_end(b, j)? - 1;
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => Some(
            i + b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.'))
                .count(),
        ),
        _ => None,
    }
}

/// The `tool_use` blocks of a message's `content`, as
/// [`super::AssistantRecord::tool_uses`] gives them, except that `input`
/// is read only for the calls that spawn an agent (`Task`, `Agent`: the
/// fold reads its `subagent_type` and `description`):
/// a block's walk stops once its type, id and name are known, before the
/// input (a `Write` call's input is a whole file), and at once for a block
/// of another type.
#[allow(clippy::type_complexity)]
fn tool_calls_of<'s>(
    content: Option<RawValue<'s>>,
) -> impl Iterator<Item = (RawStr<'s>, RawStr<'s>, Option<RawValue<'s>>)> + 's {
    content
        .into_iter()
        .flat_map(|c| c.elements())
        .filter_map(|b| {
            let (mut ty, mut id, mut name, mut input) = (None, None, None, None);
            for (k, v) in b.entries() {
                match k.raw() {
                    b"type" => ty = Some(v.str_eq("tool_use")),
                    b"id" => id = v.as_raw_str(),
                    b"name" => name = v.as_raw_str(),
                    b"input" => input = Some(v),
                    _ => {}
                }
                match (ty, id, name) {
                    (Some(false), ..) => return None,
                    (Some(true), Some(_), Some(n))
                        if input.is_some() || !(n.str_eq("Task") || n.str_eq("Agent")) =>
                    {
                        break;
                    }
                    _ => {}
                }
            }
            Some((id?, name?, input)).filter(|_| ty == Some(true))
        })
}

/// True when a user record is a prompt the model answers: text the user (or
/// a harness) sent, not a local command's records (`<command-name>`,
/// `<local-command-stdout>`, `<bash-input>`, ...), which no reply follows.
fn is_prompt(u: &super::UserRecord<'_>) -> bool {
    let Some(text) = u.text() else { return false };
    let t = text.raw();
    !(t.starts_with(b"<command-") || t.starts_with(b"<local-command-") || t.starts_with(b"<bash-"))
}

/// The first message's `content` (what [`super::UserRecord::content`] and
/// [`super::AssistantRecord::content`] read), `message` its bytes: found by a
/// plain walk of the members before it (the CLI writes `role`, `model`,
/// `id` there), else by the general lookup.
fn content_of<'s>(rec: &Record<'s>, message: &'s [u8]) -> Option<RawValue<'s>> {
    let mut found = None;
    let mut i = 0;
    let walked = plain_members(message, &mut i, |key, _, i| {
        if key == b"content" {
            found = Some(*i);
            return None;
        }
        *i = plain_value_end(message, *i)?;
        Some(())
    });
    match (found, walked) {
        (Some(at), _) => Some(RawValue::starting(&message[at..])),
        // Every member plain, none of them `content`.
        (None, Some(())) if i == message.len() => None,
        _ => rec.message()?.get("content"),
    }
}

/// True when `key` is followed somewhere in `raw` by `:` and `true`
/// (whitespace allowed): a cheap test before walking a record's content.
fn key_true_in(raw: &[u8], key: &Finder<'_>) -> bool {
    let len = key.needle().len();
    key.find_iter(raw).any(|i| {
        let rest = &raw[i + len..];
        let mut j = 0;
        let skip = |j: &mut usize| {
            while rest
                .get(*j)
                .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            {
                *j += 1;
            }
        };
        skip(&mut j);
        if rest.get(j) != Some(&b':') {
            return false;
        }
        j += 1;
        skip(&mut j);
        rest[j..].starts_with(b"true")
    })
}

/// A key compared as written (keys are plain ASCII in practice), decoded
/// only when it has escapes.
#[inline]
fn key_is(k: RawStr<'_>, name: &str) -> bool {
    if k.has_escapes() {
        k.str_eq(name)
    } else {
        k.raw() == name.as_bytes()
    }
}

/// A hasher for keys that are already hashes ([`request_key`]): their low
/// bits, without hashing them again.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, n: u128) {
        self.0 = n as u64;
    }
}

type Requests = HashMap<u128, Request, std::hash::BuildHasherDefault<KeyHasher>>;

/// A 128-bit key for (message id, request id), or for a tool call's id
/// (`request` `None`): two 64-bit lanes of multiply-fold mixing over the
/// bytes, eight at a time, with the lengths mixed in so that `("ab", "c")`
/// and `("a", "bc")` differ. Hand-written rather than a hashing crate: a
/// key is made per assistant record and per tool block, the inputs are
/// short ids (`msg_…`, `req_…`, `toolu_…`, 20 to 40 bytes), and two
/// SipHash passes cost 4.5% of a `stats` over transcripts; this costs a
/// tenth of that. Accidental collisions of 128 bits are out of reach for
/// any archive (the keys only tell ids apart, never leave the process).
fn request_key(message: &[u8], request: Option<&[u8]>) -> u128 {
    let mut k = KeyMix::new();
    k.bytes(message);
    match request {
        Some(r) => {
            k.word(1);
            k.bytes(r);
        }
        None => k.word(2),
    }
    k.finish()
}

/// The two lanes of [`request_key`].
struct KeyMix(u64, u64);

impl KeyMix {
    const A: u64 = 0x9E37_79B9_7F4A_7C15;
    const B: u64 = 0xD6E8_FEB8_6659_FD93;

    fn new() -> KeyMix {
        KeyMix(0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344)
    }

    /// The high and low halves of a 128-bit product, folded.
    #[inline(always)]
    fn fold(x: u64, k: u64) -> u64 {
        let p = u128::from(x) * u128::from(k);
        (p as u64) ^ ((p >> 64) as u64)
    }

    #[inline(always)]
    fn word(&mut self, w: u64) {
        self.0 = Self::fold(self.0 ^ w, Self::A);
        self.1 = Self::fold(self.1 ^ w.rotate_left(29), Self::B).rotate_left(17);
    }

    /// The bytes, then their length (so that where one input ends is part
    /// of the key).
    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        let mut chunks = b.chunks_exact(8);
        for c in chunks.by_ref() {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.word(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        self.word(u64::from_le_bytes(w));
        self.word(b.len() as u64);
    }

    fn finish(self) -> u128 {
        let (a, b) = (
            Self::fold(self.0 ^ self.1.rotate_left(32), Self::B),
            Self::fold(self.1 ^ self.0.rotate_left(32), Self::A),
        );
        (u128::from(a) << 64) | u128::from(b)
    }
}

impl TranscriptFold {
    /// An empty fold.
    pub fn new() -> TranscriptFold {
        TranscriptFold::default()
    }

    /// Have [`finish`](TranscriptFold::finish) list each tool call of each
    /// session (as [`RunFolder::record_calls`](crate::run::RunFolder::record_calls)
    /// does for streams) ([`SessionSummary::calls`], what the export's `tools` rows
    /// hold); without it the list is empty and only the counts per tool are
    /// made (what `cctape stats` needs). A merged fold keeps them when
    /// either did.
    pub fn record_calls(&mut self, yes: bool) -> &mut TranscriptFold {
        self.keep_calls = yes;
        self
    }

    /// Records added so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Records added so far, per kind (kinds with none left out).
    pub fn records_by_kind(&self) -> Vec<(RecordKind, u64)> {
        let mut n = [0u64; RecordKind::ALL.len()];
        for f in &self.facts {
            for (a, b) in n.iter_mut().zip(f.kinds) {
                *a += b;
            }
        }
        RecordKind::ALL
            .iter()
            .zip(n)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| (*k, n))
            .collect()
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
    pub fn add(&mut self, rec: &Record<'_>, file: &TranscriptFile) {
        self.records += 1;
        let order = self.records;
        // One walk over the top-level index for every field the fold reads
        // (a lookup per field would walk it once each).
        let mut top = Top::default();
        for (k, v) in rec.scanned().entries() {
            // Keys as written, told apart by their length first (one
            // comparison of bytes at most); an escaped key is compared
            // decoded with each name read.
            let key = if k.has_escapes() {
                Top::KEYS
                    .iter()
                    .find(|n| k.str_eq(n))
                    .map_or(&b""[..], |n| n.as_bytes())
            } else {
                k.raw()
            };
            match key.len() {
                9 if key == b"sessionId" => top.session = v.as_raw_str(),
                9 if key == b"timestamp" => top.timestamp = v.as_raw_str(),
                9 if key == b"requestId" => top.request_id = v.as_raw_str(),
                7 if key == b"agentId" => top.agent = v.as_raw_str(),
                7 if key == b"version" => top.version = v.as_raw_str(),
                7 if key == b"message" => {
                    top.message = Some(v);
                    top.first_message.get_or_insert(v);
                }
                7 if key == b"costUSD" => top.cost_usd = Some(v),
                11 if key == b"isSidechain" => top.sidechain = v.as_bool(),
                4 if key == b"data" => top.data = Some(v),
                17 if key == b"isApiErrorMessage" => top.api_error = Some(v),
                15 if key == b"parentToolUseID" => top.parent_tool_use_id = v.as_raw_str(),
                6 if key == b"isMeta" => top.meta = v.as_bool(),
                16 if key == b"isCompactSummary" => top.compact_summary = v.as_bool(),
                _ => {}
            }
        }
        let sid = self.session_of(top.session, file);
        let clock = &mut self.clock;
        let ms = top
            .timestamp
            .and_then(|t| t.as_str())
            .and_then(|t| clock.millis(t));
        let agent = match (top.agent, &file.agent) {
            (Some(a), _) => self.last_agent.id(a, &mut self.strings, &mut self.buf),
            (None, Some(a)) => self.strings.id(a),
            (None, None) => NONE,
        };
        let sidechain = top.sidechain.unwrap_or(false) || agent != NONE;
        let version = top
            .version
            .map(|v| self.last_version.id(v, &mut self.strings, &mut self.buf));
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
        // What the byte searches below look in: the message the views
        // read (the first), not the whole line (a user record repeats a
        // tool's output in `toolUseResult`).
        let raw = top.first_message.map_or(&b""[..], |m| m.raw());
        let line = rec.position().line;
        match rec.view() {
            RecordView::Assistant(_) => {
                let api_error = top.api_error.and_then(|v| v.as_bool()).unwrap_or(false);
                let at = (ms.unwrap_or(i64::MIN), order);
                if api_error {
                    f.api_errors += 1;
                    if !sidechain {
                        f.ended(at, End::ApiError);
                    }
                }
                let Some(m) = top.message else { return };
                let msg = MessageFields::of(m);
                let reason = msg
                    .stop_reason
                    .map_or(NONE, |r| self.strings.id_raw(r, &mut self.buf));
                let f = &mut self.facts[sid as usize];
                if !sidechain && reason != NONE && f.last_stop.is_none_or(|(t, o, _)| at > (t, o)) {
                    f.last_stop = Some((at.0, at.1, reason));
                }
                // The CLI's own messages (`/model`, `/cost`) are not replies.
                let synthetic = msg.model.is_some_and(|m| m.raw() == b"<synthetic>");
                if !sidechain && !api_error && !synthetic {
                    f.ended(at, End::Reply(reason));
                }
                if let Some(usage) = msg.usage {
                    let request = top.request_id;
                    let cost = top.cost_usd.and_then(|v| v.as_f64());
                    let at = At {
                        file: file_id,
                        line,
                    };
                    let req = self.request(sid, agent, msg.model, usage, ms, sidechain, cost, at);
                    self.count(msg.id, request, req);
                }
                // Tool calls: only records that hold the bytes are walked.
                if TOOL_USE.find(raw).is_some() {
                    // The content where the message's read found it (the
                    // same message: the first), else found here.
                    let content = match msg.content {
                        Some(at) if std::ptr::eq(m.raw(), raw) => {
                            Some(RawValue::starting(&raw[at..]))
                        }
                        _ => content_of(rec, raw),
                    };
                    for (id, name, input) in tool_calls_of(content) {
                        let key = request_key(id.raw(), None);
                        let (mut subagent_type, mut description) = (NONE, NONE);
                        if name.str_eq("Task") || name.str_eq("Agent") {
                            let mut get = |k: &str| {
                                input
                                    .and_then(|i| i.get(k)?.as_raw_str())
                                    .map_or(NONE, |v| self.strings.id_raw(v, &mut self.buf))
                            };
                            subagent_type = get("subagent_type");
                            description = get("description");
                        }
                        if !sidechain && !api_error {
                            // The turn waits for the tool's result.
                            self.facts[sid as usize].ended(at, End::Awaiting);
                        }
                        let name = self.strings.id_raw(name, &mut self.buf);
                        let call = ToolUse {
                            session: sid,
                            name,
                            millis: ms,
                            agent,
                            subagent_type,
                            description,
                            id: (0, 0),
                            at: At {
                                file: file_id,
                                line,
                            },
                            sidechain,
                        };
                        self.tool_use(key, call, |ids| {
                            id.unescape_into(ids);
                        });
                    }
                }
            }
            RecordView::User(u) => {
                let at = (ms.unwrap_or(i64::MIN), order);
                // Most user records are neither: look for the bytes first.
                let interrupt = INTERRUPTED.find(raw).is_some() && u.is_interrupt();
                let holds_results = TOOL_RESULT.find(raw).is_some();
                if interrupt {
                    f.interrupted_turns += 1;
                    if !sidechain {
                        f.ended(at, End::Interrupted);
                    }
                }
                // A main-chain prompt waits for a reply (a local command's
                // records, the CLI's own meta records and a compaction's
                // summary do not).
                if !sidechain
                    && !interrupt
                    && top.meta != Some(true)
                    && top.compact_summary != Some(true)
                    && !holds_results
                    && is_prompt(&u)
                {
                    f.ended(at, End::Awaiting);
                }
                // Tool results: only records that hold the bytes are walked;
                // without an `"is_error": true` in the record, a block's
                // walk stops at its id, before its content (most of the
                // record's bytes).
                if holds_results {
                    let place = At {
                        file: file_id,
                        line,
                    };
                    if key_true_in(raw, &IS_ERROR) {
                        for (id, error) in u.tool_results() {
                            let f = &mut self.facts[sid as usize];
                            f.tool_errors += u64::from(error);
                            if !sidechain && !interrupt {
                                // Answered: the turn waits for the reply.
                                f.ended(at, End::Awaiting);
                            }
                            if let Some(id) = id {
                                let result = ToolResult {
                                    at: place,
                                    millis: ms,
                                    error,
                                };
                                self.tool_result(request_key(id.raw(), None), result);
                            }
                        }
                    } else {
                        let content = content_of(rec, raw);
                        for b in content.into_iter().flat_map(|c| c.elements()) {
                            let (mut ty, mut id) = (None, None);
                            for (k, v) in b.entries() {
                                match k.raw() {
                                    b"type" => ty = Some(v.str_eq("tool_result")),
                                    b"tool_use_id" => id = v.as_raw_str(),
                                    _ => {}
                                }
                                if ty.is_some() && id.is_some() {
                                    break;
                                }
                            }
                            if let (Some(true), Some(id)) = (ty, id) {
                                if !sidechain && !interrupt {
                                    self.facts[sid as usize].ended(at, End::Awaiting);
                                }
                                let result = ToolResult {
                                    at: place,
                                    millis: ms,
                                    error: false,
                                };
                                self.tool_result(request_key(id.raw(), None), result);
                            }
                        }
                    }
                }
            }
            RecordView::System(s) => match rec.kind() {
                RecordKind::SystemCompactBoundary => f.compactions += 1,
                RecordKind::SystemTurnDuration => {
                    f.turn_duration_ms += s.duration_ms().unwrap_or(0);
                }
                RecordKind::SystemApiError => {
                    f.api_errors += 1;
                    if !sidechain {
                        f.ended((ms.unwrap_or(i64::MIN), order), End::ApiError);
                    }
                }
                _ => {}
            },
            RecordView::Summary(s) => {
                if let Some(t) = s.summary() {
                    let t = self.strings.id_raw(t, &mut self.buf);
                    self.facts[sid as usize].summary = t;
                }
            }
            RecordView::Progress(_) => {
                let Some(data) = top.data else { return };
                // One walk over `data` for what an agent_progress holds.
                let (mut is_agent, mut agent_id, mut relayed) = (false, None, None);
                for (k, v) in Members::of(data) {
                    match () {
                        _ if key_is(k, "type") => {
                            is_agent = v.str_eq("agent_progress");
                            // Hook and Bash progress (most of them) say so
                            // first: the rest is not read.
                            if !is_agent {
                                break;
                            }
                        }
                        _ if key_is(k, "agentId") => agent_id = v.as_raw_str(),
                        _ if key_is(k, "message") => relayed = Some(v),
                        _ => {}
                    }
                }
                if !is_agent {
                    return;
                }
                let mut agent = NONE;
                if let (Some(a), Some(by)) = (agent_id, top.parent_tool_use_id) {
                    agent = self.strings.id_raw(a, &mut self.buf);
                    let by = self.strings.id_raw(by, &mut self.buf);
                    let facts = self.facts[sid as usize].agent(agent);
                    if facts.spawned_by == NONE {
                        facts.spawned_by = by;
                    }
                }
                // A subagent's request relayed to its parent: the same
                // request as in the subagent's own file, when there is one.
                let Some(relayed) = relayed else { return };
                let (mut assistant, mut m, mut request, mut at) = (false, None, None, None);
                for (k, v) in Members::of(relayed) {
                    match () {
                        _ if key_is(k, "type") => assistant = v.str_eq("assistant"),
                        _ if key_is(k, "message") => m = Some(v),
                        _ if key_is(k, "requestId") => request = v.as_raw_str(),
                        _ if key_is(k, "timestamp") => at = v.as_raw_str(),
                        _ => {}
                    }
                }
                if let (true, Some(m)) = (assistant, m) {
                    let msg = MessageFields::of(m);
                    if let Some(usage) = msg.usage {
                        let millis = at
                            .and_then(|t| t.as_str())
                            .and_then(|t| self.clock.millis(t))
                            .or(ms);
                        let req = Request {
                            relayed: true,
                            ..self.request(
                                sid,
                                agent,
                                msg.model,
                                usage,
                                millis,
                                true,
                                None,
                                At {
                                    file: file_id,
                                    line,
                                },
                            )
                        };
                        self.count(msg.id, request, req);
                    }
                }
            }
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
        usage: RequestTokens,
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
            millis,
            sidechain,
            cost_usd,
            relayed: false,
            at,
        }
    }

    /// Count `req` under its (message id, request id); a request without a
    /// message id is one of its own.
    fn count(&mut self, id: Option<RawStr<'_>>, request: Option<RawStr<'_>>, req: Request) {
        match id {
            Some(id) => {
                let key = request_key(id.raw(), request.map(|r| r.raw()));
                self.count_request(key, Request { key, ..req });
            }
            None => self.loose.push(req),
        }
    }

    /// A tool call, once whatever file replays it (the smaller session
    /// name keeps it, then the record first by file name and line, so the
    /// result does not depend on the order of the files). `id` writes the
    /// call's id, once per call.
    fn tool_use(&mut self, key: u128, mut call: ToolUse, id: impl FnOnce(&mut String)) {
        match self.tools.get_mut(&key) {
            Some(old) => {
                let (a, b) = (
                    self.sessions.get(call.session),
                    self.sessions.get(old.session),
                );
                if a < b || (a == b && call.at.before(old.at, &self.strings)) {
                    call.id = old.id;
                    *old = call;
                }
            }
            None => {
                let start = self.tool_ids.len();
                id(&mut self.tool_ids);
                let len = (self.tool_ids.len() - start) as u32;
                call.id = (start, len);
                self.tools.insert(key, call);
            }
        }
    }

    /// A tool call's result: an error if any record of it says so, its
    /// time and place those of the first record (see [`At::before`]).
    fn tool_result(&mut self, key: u128, r: ToolResult) {
        match self.results.get_mut(&key) {
            Some(old) => {
                let error = old.error | r.error;
                if r.at.before(old.at, &self.strings) {
                    *old = r;
                }
                old.error = error;
            }
            None => {
                self.results.insert(key, r);
            }
        }
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
    /// from `file`; lines that are not records go to `on_error` (with their
    /// position) and are skipped. Returns the lines' counts.
    pub fn read_slice(
        &mut self,
        scanner: &mut Scanner,
        bytes: &[u8],
        file: &TranscriptFile,
        mut on_error: impl FnMut(Error),
    ) -> Counts {
        let mut counts = Counts::default();
        for line in Lines::new(bytes) {
            self.take_line(scanner, &line, file, &mut counts, &mut on_error);
        }
        counts
    }

    /// Count one line and fold it, or hand its error on.
    fn take_line(
        &mut self,
        scanner: &mut Scanner,
        line: &Line<'_>,
        file: &TranscriptFile,
        counts: &mut Counts,
        on_error: &mut impl FnMut(Error),
    ) {
        counts.lines += 1;
        if line.is_blank() {
            counts.blank_lines += 1;
            return;
        }
        match scanner.scan(line) {
            Ok(s) => {
                counts.events += 1;
                self.add(&Record::new(s), file);
            }
            Err(e) => {
                counts.errors += 1;
                on_error(e);
            }
        }
    }

    /// Like [`read_slice`](TranscriptFold::read_slice), from any reader, in
    /// memory bounded by the longest line. An I/O error goes to `on_error`
    /// and ends the reading.
    pub fn read<R: Read>(
        &mut self,
        scanner: &mut Scanner,
        rdr: R,
        file: &TranscriptFile,
        mut on_error: impl FnMut(Error),
    ) -> Counts {
        let mut counts = Counts::default();
        let mut lines = LineReader::new(rdr);
        while let Some(item) = lines.next_line() {
            let line = match item {
                Ok(l) => l,
                Err(e) => {
                    if !e.is_fatal() {
                        counts.lines += 1;
                    }
                    counts.errors += 1;
                    on_error(e);
                    continue;
                }
            };
            self.take_line(scanner, &line, file, &mut counts, &mut on_error);
        }
        counts
    }

    /// Add another fold's records (of other inputs, folded apart) to this
    /// one, with the same result as folding them all here.
    pub fn merge(&mut self, other: TranscriptFold) {
        let smap: Vec<u32> = other
            .sessions
            .list
            .iter()
            .map(|s| self.sessions.id(s))
            .collect();
        let tmap: Vec<u32> = other
            .strings
            .list
            .iter()
            .map(|s| self.strings.id(s))
            .collect();
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
            self.facts[sid].absorb(of, base, &t);
        }
        let remap = |mut r: Request| {
            r.session = smap[r.session as usize];
            r.agent = t(r.agent);
            r.model = t(r.model);
            r
        };
        for (k, r) in other.requests {
            self.count_request(k, remap(r));
        }
        for (k, mut call) in other.tools {
            call.session = smap[call.session as usize];
            call.name = t(call.name);
            call.agent = t(call.agent);
            call.subagent_type = t(call.subagent_type);
            call.description = t(call.description);
            call.at.file = t(call.at.file);
            let (start, len) = call.id;
            let id = &other.tool_ids[start..start + len as usize];
            self.tool_use(k, call, |ids| ids.push_str(id));
        }
        for (k, mut r) in other.results {
            r.at.file = t(r.at.file);
            self.tool_result(k, r);
        }
        self.loose.extend(other.loose.into_iter().map(remap));
    }

    /// Price the requests and group everything by session and by day in
    /// `zone`.
    pub fn finish(self, prices: &PriceTable, zone: &Zone) -> Report {
        self.finish_within(prices, zone, &DayRange::default(), None)
    }

    /// The instants of the requests folded (each request once, those with a
    /// date on a day in `range`): what [`Blocks`] are made of.
    pub fn request_instants(&self, zone: &Zone, range: &DayRange) -> Vec<i64> {
        self.requests
            .values()
            .chain(&self.loose)
            .filter_map(|r| r.millis)
            .filter(|&ms| range.is_all() || range.contains(Some(Day::of_millis(ms, zone))))
            .collect()
    }

    /// [`finish`](TranscriptFold::finish), keeping only the requests and
    /// tool calls made on a day in `range` (in `zone`), and the sessions
    /// with any: `cctape stats --since/--until`, which ccusage's reports
    /// take the same way (each request by its own day, in every report).
    /// With `blocks`, each session's figures are also split by billing
    /// block ([`SessionSummary::by_block`]).
    pub fn finish_within(
        self,
        prices: &PriceTable,
        zone: &Zone,
        range: &DayRange,
        blocks: Option<&Blocks>,
    ) -> Report {
        let TranscriptFold {
            sessions,
            strings,
            mut facts,
            requests,
            loose,
            tools: tool_calls,
            results,
            tool_ids,
            keep_calls,
            ..
        } = self;
        // Records without a `sessionId` (file-history-snapshot, summary)
        // were put in the session their file's path names; where the file's
        // other records name their session, they belong to it instead.
        let alias = path_aliases(&facts);
        for (i, to) in alias.iter().enumerate() {
            if let Some(to) = *to {
                let of = std::mem::take(&mut facts[i]);
                facts[to as usize].absorb(of, 0, &|x| x);
            }
        }
        let mut all: Vec<Request> = requests
            .into_values()
            .chain(loose)
            .map(|mut r| {
                r.session = alias[r.session as usize].unwrap_or(r.session);
                r
            })
            // Without bounds no day is needed here.
            .filter(|r| {
                range.is_all() || range.contains(r.millis.map(|ms| Day::of_millis(ms, zone)))
            })
            .collect();
        // Sessions in name order, as ranks: the sort compares numbers.
        let mut order: Vec<u32> = (0..sessions.list.len() as u32).collect();
        order.sort_by(|a, b| sessions.get(*a).cmp(&sessions.get(*b)));
        let mut rank = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        all.sort_unstable_by_key(|r| (rank[r.session as usize], r.millis, r.key, r.usage.total()));
        let name = |i: u32| strings.get(i).map(str::to_owned);
        let mut by_session: Vec<PerSession> = vec![Default::default(); sessions.list.len()];
        for (key, call) in &tool_calls {
            let day = call.millis.map(|ms| Day::of_millis(ms, zone));
            if !range.contains(day) {
                continue;
            }
            let block = blocks.and_then(|b| b.block_of(call.millis?));
            let session = alias[call.session as usize].unwrap_or(call.session);
            let tool = strings.get(call.name).unwrap_or("-");
            let result = results.get(key);
            let error = u64::from(result.is_some_and(|r| r.error));
            let s = &mut by_session[session as usize];
            if keep_calls {
                let spawned_by = facts[session as usize]
                    .agents
                    .iter()
                    .find(|a| a.agent == call.agent)
                    .map_or(NONE, |a| a.spawned_by);
                let (start, len) = call.id;
                s.calls.push(SessionToolCall {
                    call: ToolCall {
                        tool_use_id: tool_ids[start..start + len as usize].to_owned(),
                        name: tool.to_owned(),
                        agent: name(spawned_by),
                        line: call.at.line,
                        result_line: result.map(|r| r.at.line),
                        started_ms: call.millis,
                        duration_ms: match (call.millis, result.and_then(|r| r.millis)) {
                            (Some(a), Some(b)) => Some(b - a),
                            _ => None,
                        },
                        answered: result.is_some(),
                        error: error > 0,
                        rejected: false,
                    },
                    file: name(call.at.file),
                    agent_id: name(call.agent),
                    sidechain: call.sidechain,
                });
            }
            let t = s.tools.entry(tool).or_default();
            t.0 += 1;
            t.1 += error;
            if call.agent != NONE {
                *s.agent_tools.entry(call.agent).or_default() += 1;
            }
            let t = s.day_tools.entry((day, tool)).or_default();
            t.0 += 1;
            t.1 += error;
            if blocks.is_some() {
                let t = s.block_tools.entry((block, tool)).or_default();
                t.0 += 1;
                t.1 += error;
            }
        }
        let mut by_day: BTreeMap<Day, (Totals, BTreeMap<&str, Totals>)> = BTreeMap::new();
        let mut undated = Totals::default();
        let mut total = Totals::default();
        let mut unpriced: BTreeMap<String, u64> = BTreeMap::new();
        // Each model's prices looked up once (the lookup normalizes its name).
        let mut model_prices: HashMap<u32, Option<&crate::pricing::ModelPrices>> = HashMap::new();
        for r in &all {
            let model = strings.get(r.model).unwrap_or("-");
            let (cost, priced) = match r.cost_usd {
                Some(c) => (Some(c), true),
                None => {
                    let p = *model_prices
                        .entry(r.model)
                        .or_insert_with(|| prices.prices(model));
                    let c = p.map(|p| p.cost(&r.usage));
                    (c, c.is_some() || r.usage.total() == 0)
                }
            };
            if !priced {
                *unpriced.entry(model.to_owned()).or_default() += 1;
            }
            let s = &mut by_session[r.session as usize];
            if keep_calls {
                s.requests.push(SessionRequest {
                    key: r.key,
                    model: model.to_owned(),
                    tokens: crate::event::TokenCounts {
                        input_tokens: r.usage.input,
                        output_tokens: r.usage.output,
                        cache_read_input_tokens: r.usage.cache_read,
                        cache_creation_input_tokens: r.usage.cache_write(),
                    },
                    cost_usd: cost,
                    millis: r.millis,
                    agent_id: name(r.agent),
                    sidechain: r.sidechain,
                    file: name(r.at.file),
                    line: r.at.line,
                });
            }
            let mut saturated = false;
            let mut add = |t: &mut Totals| {
                saturated |= t.add_request(&r.usage, cost, r.cost_usd.is_some(), priced)
            };
            add(&mut s.totals);
            add(s.models.entry(model).or_default());
            let role = if r.sidechain {
                ModelRole::Subagent
            } else {
                ModelRole::Main
            };
            add(s.roles.entry((model, role)).or_default());
            let day = r.millis.map(|ms| Day::of_millis(ms, zone));
            add(s.days.entry((day, model, role)).or_default());
            if let Some(b) = blocks {
                let block = r.millis.and_then(|ms| b.block_of(ms));
                add(s.blocks.entry((block, model, role)).or_default());
            }
            if r.agent != NONE {
                add(s.agents.entry(r.agent).or_default());
                if let Some(ms) = r.millis {
                    let first = s.agent_first.entry(r.agent).or_insert(ms);
                    *first = (*first).min(ms);
                }
            }
            match day {
                Some(day) => {
                    let d = by_day.entry(day).or_default();
                    add(&mut d.0);
                    add(d.1.entry(model).or_default());
                }
                None => {
                    add(&mut undated);
                    add(&mut s.undated);
                }
            }
            add(&mut total);
            // The first request whose tokens saturated a sum, or whose cost
            // no f64 holds (a price of 1e308), in the session's order.
            let at = |a: At| (name(a.file).unwrap_or_default(), a.line);
            if saturated && s.saturated_at.is_none() {
                s.saturated_at = Some(at(r.at));
            }
            if (cost.is_some_and(|c| !c.is_finite()) || !s.totals.cost_usd.is_finite())
                && s.cost_beyond_f64_at.is_none()
            {
                s.cost_beyond_f64_at = Some(at(r.at));
            }
        }
        let models = |m: BTreeMap<&str, Totals>| {
            m.into_iter()
                .map(|(model, totals)| ModelTotals {
                    model: model.to_owned(),
                    totals,
                })
                .collect::<Vec<_>>()
        };
        let mut out_sessions = Vec::with_capacity(sessions.list.len());
        for (((id, f), per), alias) in sessions.list.iter().zip(facts).zip(by_session).zip(&alias) {
            if alias.is_some() {
                continue;
            }
            let PerSession {
                totals,
                undated,
                models: per_model,
                agents: per_agent,
                roles,
                days,
                blocks: per_block,
                tools,
                day_tools,
                block_tools,
                agent_tools,
                mut calls,
                requests,
                agent_first,
                saturated_at,
                cost_beyond_f64_at,
            } = per;
            let tool = |(name, (calls, errors)): (&str, (u64, u64))| ToolCount {
                name: name.to_owned(),
                calls,
                errors,
            };
            let row = |((model, role), totals): ((&str, ModelRole), Totals)| ModelRoleTotals {
                model: model.to_owned(),
                role,
                totals,
            };
            let by_day: Vec<SessionDay> = periods(days, day_tools)
                .into_iter()
                .map(|(day, by_role, tools)| SessionDay {
                    day,
                    by_role,
                    tools,
                })
                .collect();
            let by_block: Vec<SessionBlock> = periods(per_block, block_tools)
                .into_iter()
                .map(|(block, by_role, tools)| SessionBlock {
                    block,
                    by_role,
                    tools,
                })
                .collect();
            if by_day.is_empty() && !range.is_all() {
                // No request and no tool call on a day kept.
                continue;
            }
            let mut files: Vec<(String, bool)> = f
                .files
                .iter()
                .filter_map(|&(i, main)| Some((name(i)?, main)))
                .collect();
            // The session's own file first.
            files.sort_by_key(|(_, main)| !main);
            // Calls by file (as listed), then line.
            calls.sort_by_cached_key(|c| {
                let file = files.iter().position(|(n, _)| Some(n) == c.file.as_ref());
                (file, c.call.line, c.call.tool_use_id.clone())
            });
            let mut agents: Vec<AgentSummary> = f
                .agents
                .iter()
                .map(|a| {
                    // The call that spawned it, when the parent's records
                    // hold it.
                    let call = strings
                        .get(a.spawned_by)
                        .and_then(|id| tool_calls.get(&request_key(id.as_bytes(), None)));
                    AgentSummary {
                        agent_id: name(a.agent).unwrap_or_default(),
                        spawned_by: name(a.spawned_by),
                        tool_name: call.and_then(|c| name(c.name)),
                        subagent_type: call.and_then(|c| name(c.subagent_type)),
                        description: call.and_then(|c| name(c.description)),
                        records: a.records,
                        tool_calls: agent_tools.get(&a.agent).copied().unwrap_or(0),
                        totals: per_agent.get(&a.agent).cloned().unwrap_or_default(),
                        first_request_ms: agent_first.get(&a.agent).copied(),
                    }
                })
                .collect();
            agents.sort_by(|a, b| a.agent_id.cmp(&b.agent_id));
            let mut versions: Vec<String> = f.versions.iter().filter_map(|&v| name(v)).collect();
            versions.sort_by(|a, b| crate::version::version_order(a, b));
            let ending = f.ending.map(|(_, _, how)| match how {
                End::Reply(r) => SessionEnd::Reply {
                    stop_reason: name(r),
                },
                End::ApiError => SessionEnd::ApiError,
                End::Interrupted => SessionEnd::Interrupted,
                End::Awaiting => SessionEnd::AwaitingReply,
            });
            out_sessions.push(SessionSummary {
                session_id: id.to_string(),
                project: name(f.project),
                files: files.into_iter().map(|(n, _)| n).collect(),
                totals,
                undated,
                models: models(per_model),
                by_role: roles.into_iter().map(row).collect(),
                by_day,
                by_block,
                tools: tools.into_iter().map(tool).collect(),
                calls,
                requests,
                facts: SessionFacts {
                    first_timestamp_ms: f.first_ms,
                    last_timestamp_ms: f.last_ms,
                    versions,
                    records: RecordKind::ALL
                        .iter()
                        .zip(f.kinds)
                        .filter(|(_, n)| *n > 0)
                        .map(|(k, n)| (*k, n))
                        .collect(),
                    sidechain_records: f.sidechain_records,
                    last_stop_reason: f.last_stop.and_then(|(_, _, r)| name(r)),
                    api_errors: f.api_errors,
                    interrupted_turns: f.interrupted_turns,
                    tool_errors: f.tool_errors,
                    compactions: f.compactions,
                    turn_duration_ms: f.turn_duration_ms,
                    summary: name(f.summary),
                    agents,
                    ending,
                    sum_saturated_at: saturated_at,
                    cost_beyond_f64_at,
                },
            });
        }
        out_sessions.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        Report {
            sessions: out_sessions,
            days: by_day
                .into_iter()
                .map(|(day, (totals, m))| DaySummary {
                    day,
                    totals,
                    models: models(m),
                })
                .collect(),
            undated,
            total,
            unpriced_models: unpriced.into_keys().collect(),
            prices_taken: prices.taken().to_owned(),
            prices_source: prices.source().to_owned(),
        }
    }
}

/// For each session named only by a file's path: the session that the same
/// file's other records name, if there is one.
fn path_aliases(facts: &[Facts]) -> Vec<Option<u32>> {
    facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (file, _) = *f.files.first()?;
            if f.named {
                return None;
            }
            facts
                .iter()
                .enumerate()
                .find(|(j, g)| *j != i && g.named && g.files.iter().any(|(x, _)| *x == file))
                .map(|(j, _)| j as u32)
        })
        .collect()
}

/// A session's sums while finishing.
#[derive(Clone, Debug, Default)]
/// (Models are the fold's names: a request costs no allocation.)
struct PerSession<'a> {
    totals: Totals,
    undated: Totals,
    models: BTreeMap<&'a str, Totals>,
    agents: BTreeMap<u32, Totals>,
    roles: BTreeMap<(&'a str, ModelRole), Totals>,
    days: BTreeMap<(Option<Day>, &'a str, ModelRole), Totals>,
    /// Per billing block, when blocks were asked for.
    blocks: BTreeMap<(Option<BlockStart>, &'a str, ModelRole), Totals>,
    /// Tool calls and errors per tool name, and per day (and block); calls
    /// per agent.
    tools: BTreeMap<&'a str, (u64, u64)>,
    agent_tools: BTreeMap<u32, u64>,
    day_tools: BTreeMap<(Option<Day>, &'a str), (u64, u64)>,
    block_tools: BTreeMap<(Option<BlockStart>, &'a str), (u64, u64)>,
    calls: Vec<SessionToolCall>,
    requests: Vec<SessionRequest>,
    /// Each subagent's first dated request (ms).
    agent_first: BTreeMap<u32, i64>,
    /// Where a token sum first saturated, and where the cost first went
    /// beyond f64 (file, line).
    saturated_at: Option<(String, u64)>,
    cost_beyond_f64_at: Option<(String, u64)>,
}

/// Tokens, requests and cost added up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Input tokens (not cached).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes that live 5 minutes.
    pub cache_write_5m: u64,
    /// Cache writes that live 1 hour.
    pub cache_write_1h: u64,
    /// API requests counted.
    pub requests: u64,
    /// Cost in US dollars.
    pub cost_usd: f64,
    /// The part of [`cost_usd`](Totals::cost_usd) that records stated
    /// (`costUSD`), not priced here.
    pub cost_from_records_usd: f64,
    /// Requests with tokens whose model has no price (counted as costing
    /// nothing).
    pub unpriced_requests: u64,
    /// Requests whose record stated its cost (`costUSD`).
    pub stated_requests: u64,
    /// Requests priced from the table.
    pub priced_requests: u64,
    /// The part of [`cost_usd`](Totals::cost_usd) priced from the table.
    pub cost_priced_usd: f64,
}

impl Totals {
    /// Add one request; true when a count saturated (sums stop at
    /// `u64::MAX`, as every token sum does: see
    /// [`WARN_SUM_SATURATED`](crate::run::WARN_SUM_SATURATED)).
    fn add_request(
        &mut self,
        u: &RequestTokens,
        cost: Option<f64>,
        stated: bool,
        priced: bool,
    ) -> bool {
        let mut saturated = false;
        for (a, b) in [
            (&mut self.input, u.input),
            (&mut self.output, u.output),
            (&mut self.cache_read, u.cache_read),
            (&mut self.cache_write_5m, u.cache_write_5m),
            (&mut self.cache_write_1h, u.cache_write_1h),
        ] {
            saturated |= a.checked_add(b).is_none();
            *a = a.saturating_add(b);
        }
        self.requests += 1;
        let c = cost.unwrap_or(0.0);
        self.cost_usd += c;
        if stated {
            self.cost_from_records_usd += c;
            self.stated_requests += 1;
        } else if cost.is_some() {
            self.cost_priced_usd += c;
            self.priced_requests += 1;
        }
        if !priced {
            self.unpriced_requests += 1;
        }
        saturated
    }

    /// Cache writes of both lifetimes (saturating).
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m.saturating_add(self.cache_write_1h)
    }

    /// Every token: input, output, cache reads and writes.
    pub fn total_tokens(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write())
    }
}

/// A model's share of a session in one role: the main chain's requests
/// ([`ModelRole::Main`]) or the subagents' (sidechain records, subagent
/// files, relayed `agent_progress` messages: [`ModelRole::Subagent`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRoleTotals {
    /// `message.model` as written (`-` when absent).
    pub model: String,
    /// Main or subagent.
    pub role: ModelRole,
    /// Its totals.
    pub totals: Totals,
}

/// A session's requests of one day (`None`: their time is not a date).
#[derive(Clone, Debug, PartialEq)]
pub struct SessionDay {
    /// The day in the report's time zone.
    pub day: Option<Day>,
    /// Per model and role.
    pub by_role: Vec<ModelRoleTotals>,
    /// Tool calls made that day.
    pub tools: Vec<ToolCount>,
}

/// A session's requests of one billing block (`None`: their time is not a
/// date); see [`Blocks`].
#[derive(Clone, Debug, PartialEq)]
pub struct SessionBlock {
    /// The block, by its start.
    pub block: Option<BlockStart>,
    /// Per model and role.
    pub by_role: Vec<ModelRoleTotals>,
    /// Tool calls made in it.
    pub tools: Vec<ToolCount>,
}

/// Per period (a day, a block; `None` first), its rows per model and role
/// and its tool counts, in period order.
#[allow(clippy::type_complexity)]
fn periods<K: Ord + Copy>(
    rows: BTreeMap<(Option<K>, &str, ModelRole), Totals>,
    tools: BTreeMap<(Option<K>, &str), (u64, u64)>,
) -> Vec<(Option<K>, Vec<ModelRoleTotals>, Vec<ToolCount>)> {
    let mut out: BTreeMap<Option<K>, (Vec<ModelRoleTotals>, Vec<ToolCount>)> = BTreeMap::new();
    for ((period, model, role), totals) in rows {
        out.entry(period).or_default().0.push(ModelRoleTotals {
            model: model.to_owned(),
            role,
            totals,
        });
    }
    for ((period, name), (calls, errors)) in tools {
        out.entry(period).or_default().1.push(ToolCount {
            name: name.to_owned(),
            calls,
            errors,
        });
    }
    out.into_iter().map(|(k, (r, t))| (k, r, t)).collect()
}

/// A tool's calls in a session (each `tool_use` block once, whatever file
/// replays it) and how many of their results were errors (`is_error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCount {
    /// The tool's `name`.
    pub name: String,
    /// Its calls.
    pub calls: u64,
    /// Calls whose `tool_result` is an error.
    pub errors: u64,
}

/// One tool call of a session: a `tool_use` block, once whatever file
/// replays it, with its `tool_result`.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionToolCall {
    /// The call as the run layer has it (what the export's `tools` rows
    /// hold). For a transcript: `agent` is the `parentToolUseID` that
    /// spawned the calling subagent, when its parent says (none for the
    /// main chain); `line` and `result_line` are lines of their own files
    /// (the `tool_use`'s is [`file`](SessionToolCall::file)); `error` is
    /// the result's `is_error`; `rejected` is always false (a transcript's
    /// rejections are errors, not told apart).
    pub call: ToolCall,
    /// The file whose record holds the `tool_use` block (the session's own
    /// or a subagent's; [`TranscriptFile::name`]).
    pub file: Option<String>,
    /// The calling subagent's id (`agentId`, or its file's); none for the
    /// main chain.
    pub agent_id: Option<String>,
    /// Made by a subagent (a sidechain record, a subagent's file).
    pub sidechain: bool,
}

/// One API request of a session, as counted (each request once), kept
/// when the fold was asked to ([`TranscriptFold::record_calls`]): what an
/// OpenTelemetry `chat` span is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRequest {
    /// The request's identity (a hash of its `message.id` and
    /// `requestId`), stable across runs.
    pub key: u128,
    /// `message.model` (`-` when absent).
    pub model: String,
    /// Its tokens (cache writes of both lifetimes together).
    pub tokens: crate::event::TokenCounts,
    /// Its cost: the record's `costUSD`, else priced from the table.
    pub cost_usd: Option<f64>,
    /// Its record's `timestamp` (ms since the epoch).
    pub millis: Option<i64>,
    /// The calling subagent's id (`agentId`, or its file's); none for the
    /// main chain.
    pub agent_id: Option<String>,
    /// Made by a subagent.
    pub sidechain: bool,
    /// The file and line of its record.
    pub file: Option<String>,
    /// Its line.
    pub line: u64,
}

/// How a session's main chain ended: its latest reply, API error or
/// interrupt.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionEnd {
    /// An assistant reply, with its `stop_reason` (null in most 2.x
    /// transcripts, which write it before the message ends).
    Reply {
        /// `message.stop_reason`.
        stop_reason: Option<String>,
    },
    /// An API error (`isApiErrorMessage`, `system/api_error`).
    ApiError,
    /// The user interrupted the turn (`[Request interrupted by user...]`).
    Interrupted,
    /// The last turn waits for an answer that never came: a prompt or a
    /// tool result no reply followed, or a tool call no result followed.
    AwaitingReply,
}

/// A model's share of a session or a day.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTotals {
    /// `message.model` as written (`-` when absent).
    pub model: String,
    /// Its totals.
    pub totals: Totals,
}

/// A subagent of a session: a node of the sidechain tree.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSummary {
    /// `agentId` (or the `agent-<id>.jsonl` file's id).
    pub agent_id: String,
    /// The parent's tool call that spawned it (`parentToolUseID` of the
    /// parent's `agent_progress` records), when the parent says.
    pub spawned_by: Option<String>,
    /// That call's tool (`Task`, `Agent`), when the parent's records hold
    /// the call.
    pub tool_name: Option<String>,
    /// That call's `subagent_type` (`general-purpose`, `Explore`).
    pub subagent_type: Option<String>,
    /// That call's `description`.
    pub description: Option<String>,
    /// Its records.
    pub records: u64,
    /// Tool calls it made (in its own records).
    pub tool_calls: u64,
    /// Its requests.
    pub totals: Totals,
    /// The time of its first dated request (ms since the epoch): the day
    /// and billing block it counts in (`stats --by day`).
    pub first_request_ms: Option<i64>,
}

/// What a session's records say beyond usage: what a verdict can know.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionFacts {
    /// The earliest record's time (ms since the epoch).
    pub first_timestamp_ms: Option<i64>,
    /// The latest record's time.
    pub last_timestamp_ms: Option<i64>,
    /// The Claude Code versions that wrote the records, oldest first.
    pub versions: Vec<String>,
    /// Records per kind.
    pub records: Vec<(RecordKind, u64)>,
    /// Records of subagents (`isSidechain`, `agentId`).
    pub sidechain_records: u64,
    /// The stop reason of the main chain's last assistant record that has
    /// one (`end_turn`, `tool_use`, `max_tokens`, ...).
    pub last_stop_reason: Option<String>,
    /// Assistant records the CLI wrote for failed API requests
    /// (`isApiErrorMessage`), and `system/api_error` records.
    pub api_errors: u64,
    /// Turns the user interrupted (`[Request interrupted by user...]`).
    pub interrupted_turns: u64,
    /// Tool results marked `is_error`.
    pub tool_errors: u64,
    /// Compactions (`system/compact_boundary`).
    pub compactions: u64,
    /// Sum of `system/turn_duration` records.
    pub turn_duration_ms: u64,
    /// The last `summary` record's title.
    pub summary: Option<String>,
    /// The subagents, by id.
    pub agents: Vec<AgentSummary>,
    /// How the main chain's last turn ended; `None` when it has no reply,
    /// API error or interrupt.
    pub ending: Option<SessionEnd>,
    /// The first request (file, line) whose tokens took a sum past
    /// `u64::MAX` (the sum stays there).
    pub sum_saturated_at: Option<(String, u64)>,
    /// The first request (file, line) whose cost, or the session's cost
    /// with it, no `f64` holds (a price of 1e308): not summed.
    pub cost_beyond_f64_at: Option<(String, u64)>,
}

impl SessionFacts {
    /// What a transcript can say of how the session went (it has no
    /// result), from how its main chain's last turn ended:
    ///
    /// | the last turn | verdict |
    /// |---|---|
    /// | a reply (the session ended there) | [`Verdict::Ended`] |
    /// | a reply cut short (`max_tokens`, `refusal`) | [`Verdict::Error`] |
    /// | an API error | [`Verdict::ApiError`] |
    /// | the user interrupted it | [`Verdict::Interrupted`] |
    /// | a prompt, tool call or tool result nothing answered | [`Verdict::CutOff`] |
    /// | none (no main-chain turn: a subagent file alone) | [`Verdict::NoResult`] |
    pub fn verdict(&self) -> Verdict {
        match &self.ending {
            None => Verdict::NoResult,
            Some(SessionEnd::ApiError) => Verdict::ApiError,
            Some(SessionEnd::Interrupted) => Verdict::Interrupted,
            Some(SessionEnd::AwaitingReply) => Verdict::CutOff,
            Some(SessionEnd::Reply { stop_reason }) => match stop_reason.as_deref() {
                Some("max_tokens" | "refusal") => Verdict::Error,
                _ => Verdict::Ended,
            },
        }
    }
}

/// One session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionSummary {
    /// The session's id (`sessionId`, or the file's).
    pub session_id: String,
    /// The project folder its first file was in, when known.
    pub project: Option<String>,
    /// The files its records came from ([`TranscriptFile::name`]): its own
    /// first, then its subagents', in the order read.
    pub files: Vec<String>,
    /// Its requests, subagents' included.
    pub totals: Totals,
    /// The part of [`totals`](SessionSummary::totals) whose time is not a
    /// date (on no day).
    pub undated: Totals,
    /// Per model.
    pub models: Vec<ModelTotals>,
    /// Per model and role (main chain, subagents).
    pub by_role: Vec<ModelRoleTotals>,
    /// Per day, then model and role (undated requests first, `day: None`).
    pub by_day: Vec<SessionDay>,
    /// Per billing block, then model and role; empty unless blocks were
    /// asked for ([`TranscriptFold::finish_within`]).
    pub by_block: Vec<SessionBlock>,
    /// Tool calls per tool, by name.
    pub tools: Vec<ToolCount>,
    /// Each tool call (as [`tools`](SessionSummary::tools) counts them),
    /// by file ([`files`](SessionSummary::files)' order) and line; empty
    /// unless the fold was asked to keep them
    /// ([`TranscriptFold::record_calls`]).
    pub calls: Vec<SessionToolCall>,
    /// Each API request, in the session's order; empty unless the fold was
    /// asked to keep the calls ([`TranscriptFold::record_calls`]).
    pub requests: Vec<SessionRequest>,
    /// What its records say.
    pub facts: SessionFacts,
}

/// One day in the report's time zone.
#[derive(Clone, Debug, PartialEq)]
pub struct DaySummary {
    /// The day.
    pub day: Day,
    /// Requests made that day.
    pub totals: Totals,
    /// Per model.
    pub models: Vec<ModelTotals>,
}

/// What [`TranscriptFold::finish`] gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Sessions by id.
    pub sessions: Vec<SessionSummary>,
    /// Days, in order.
    pub days: Vec<DaySummary>,
    /// Requests whose time is not a date: in their session, on no day.
    pub undated: Totals,
    /// Everything.
    pub total: Totals,
    /// Models with tokens and no price.
    pub unpriced_models: Vec<String>,
    /// When the prices used were taken.
    pub prices_taken: String,
    /// Where the prices used come from.
    pub prices_source: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::Lines;

    type Seen = (
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Option<RequestTokens>,
    );

    fn seen(m: &MessageFields<'_>) -> Seen {
        let raw = |s: Option<RawStr<'_>>| s.map(|s| s.raw().to_vec());
        (raw(m.id), raw(m.model), raw(m.stop_reason), m.usage)
    }

    /// Every assistant message of `bytes`: the fields found from the end
    /// are those a walk of every member finds. Returns how many.
    fn check(bytes: &[u8]) -> usize {
        let mut scanner = Scanner::new();
        let mut n = 0;
        for line in Lines::new(bytes) {
            let Ok(s) = scanner.scan(&line) else { continue };
            // The content found by the plain reads is the lookup's.
            if let Some(m) = s.get("message") {
                let looked_up = m.get("content").map(|c| c.raw());
                let found = content_of(&Record::new(s), m.raw()).map(|c| c.raw());
                assert_eq!(found, looked_up, "line {}", line.number);
                if let Some(at) = MessageFields::of(m).content {
                    let read = RawValue::starting(&m.raw()[at..]).raw();
                    assert_eq!(Some(read), looked_up, "line {}", line.number);
                }
            }
            let messages = [s.get("message"), s.get_path("data.message.message")];
            for m in messages.into_iter().flatten() {
                assert_eq!(
                    seen(&MessageFields::of(m)),
                    seen(&MessageFields::walked(m)),
                    "line {}",
                    line.number
                );
                n += 1;
            }
        }
        n
    }

    #[test]
    fn message_fields_found_from_the_end_are_the_walk() {
        let cases = [
            // usage after the content, stop_reason after it.
            r#"{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"a \"usage\": {\"input_tokens\":9}"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}}"#,
            // A tool input holding a usage object; context_management last.
            r#"{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","input":{"usage":{"input_tokens":7}}}],"usage":{"input_tokens":3},"context_management":{"usage":{"input_tokens":5}}}}"#,
            // usage before the content, and once more after it.
            r#"{"type":"assistant","message":{"usage":{"input_tokens":1},"content":[],"usage":{"input_tokens":4}, "stop_reason" : null }}"#,
            // stop_reason before and after usage: the last wins.
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"a","usage":{"output_tokens":1},"stop_reason":"b"}}"#,
            // Nothing after the content; a nested object ends the content.
            r#"{"type":"assistant","message":{"id":"m","content":[{"usage":{"output_tokens":8}}]}}"#,
            // Escaped quotes before the key's text.
            r#"{"type":"assistant","message":{"content":"x\\\"usage\":{}","usage":{"output_tokens":6}}}"#,
            // Spaces around the punctuation.
            "{\"type\":\"assistant\",\"message\": {  \"content\": [ ],\t \"usage\" :  {\"input_tokens\": 2}  } }",
            // Usage as the CLI writes it, and odd ones a plain read must
            // leave to the walk (escapes, fractions, nulls, big numbers).
            r#"{"type":"assistant","message":{"content":[],"usage":{"input_tokens":3,"cache_creation_input_tokens":9,"cache_read_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":5},"output_tokens":11,"service_tier":"standard","server_tool_use":{"web_search_requests":0,"x":[1,{"a":"]}"}]},"speed":"fast"}}}"#,
            r#"{"type":"assistant","message":{"content":[],"usage":{"\u0069nput_tokens":5,"output_tokens":1.5,"cache_read_input_tokens":null,"speed":"fa\u0073t"}}}"#,
            r#"{"type":"assistant","message":{"content":[],"usage":{"input_tokens":18446744073709551615,"output_tokens":-0,"cache_creation":{"ephemeral_5m_input_tokens":1e3},"service_tier":"a\"b"}}}"#,
            r#"{"type":"assistant","message":{"content":[],"usage":{ }}}"#,
            r#"{"type":"assistant","message":{"content":[],"usage":{"speed":"fast","output_tokens":1,"speed":0}}}"#,
            r#"{"type":"assistant","message":{"content":[],"usage":{"cache_creation":7,"cache_creation_input_tokens":3, "input_tokens" : 2 , "speed" : "fast" }}}"#,
            // Members before the content read plainly ([`MessageFields::plain`]),
            // and those it leaves to the walk: escapes, other types, a
            // usage before the content, no content, a key given twice.
            r#"{"type":"assistant","message":{"model":"claude-haiku-4-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":6}}}"#,
            r#"{"type":"assistant","message":{"model":"a\u0062c","id":"m\"1","content":[],"usage":{"input_tokens":4}}}"#,
            r#"{"type":"assistant","message":{"id":12,"model":null,"stop_reason":"end_turn","content":[]}}"#,
            r#"{"type":"assistant","message":{"id":"x","usage":{"input_tokens":4},"content":[],"stop_reason":"tool_use"}}"#,
            r#"{"type":"assistant","message":{"id":"x","usage":{"input_tokens":4,"speed":"fa\u0073t"},"content":[]}}"#,
            r#"{"type":"assistant","message":{"id":"x","id":"y","model":"m","stop_reason":"s","usage":{"output_tokens":2},"usage":{"output_tokens":3}}}"#,
            r#"{"type":"assistant","message":{"id":"x","extra":{"a":[1,2,{"b":"}"}]},"n":-1.5e3,"t":true,"content":[]}}"#,
            r#"{"type":"assistant","message":{ "id" : "x" , "content" : [ ] , "usage" : { "input_tokens" : 1 } }}"#,
            r#"{"type":"assistant","message":{}}"#,
            // Tails read backwards ([`MessageFields::tail_plain`]) and
            // those it leaves to the search.
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"service_tier":"a{b}c"}}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"x","stop_sequence":"y", "usage" : { "output_tokens" : 2 } }}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"a\"b","usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"a","stop_sequence":7,"usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"a","a":1,"b":2,"c":3,"d":4,"usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"a","a":"1","b":"2","c":"3","d":"4","usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":"a","a":"1","b":"2","c":"3","usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":[],"usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":[{"stop_reason":"q","usage":{"output_tokens":1}}],"usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":["\"stop_reason\":\"q\",\"usage\":{}"],"usage":{"output_tokens":2}}}"#,
            r#"{"type":"assistant","message":{"content":"\"usage\":{\"output_tokens\":9}"}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":null,"usage":{"output_tokens":2},"usage":{"input_tokens":5}}}"#,
            r#"{"type":"assistant","message":{"content":[],"stop_reason":null,"usage":{"cache_creation":{"ephemeral_1h_input_tokens":3}}}}"#,
        ];
        for c in cases {
            assert_eq!(check(c.as_bytes()), 1, "{c}");
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
        let mut n = 0;
        for sub in [
            "session-format",
            "wave2/session-format",
            "wave2/transformed",
        ] {
            let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
                continue;
            };
            for e in rd.flatten() {
                n += check(&std::fs::read(e.path()).unwrap());
            }
        }
        assert!(n > 1000 || !dir.is_dir(), "{n} messages");
    }

    #[test]
    fn clock_reads_timestamps_as_parse_millis_does() {
        let cases = [
            "2026-02-11T23:30:00.000Z",
            "2026-02-11T23:59:59.999Z",
            "2026-02-11T23:05:07.120Z",
            "2026-02-12T00:00:00.001Z",
            "2026-02-11T23:30:00Z",
            "2026-02-11T23:30:00.5Z",
            "2026-02-11T23:30:00.000+09:00",
            "2026-02-11T23:60:00.000Z",
            "2026-02-11T23:30:60.000Z",
            "2026-02-11T24:30:00.000Z",
            "2026-02-30T10:30:00.000Z",
            "2026-02-11T10:3a:00.000Z",
            "2026-02-11t10:30:00.000z",
            "2026-02-11 10:30:00.000Z",
            "1969-12-31T23:59:59.999Z",
            "<TIMESTAMP>",
            "",
        ];
        let mut clock = Clock::default();
        // Each case after each other (the hour kept from the one before).
        for a in cases {
            for b in cases {
                for t in [a, b] {
                    assert_eq!(
                        clock.millis(t),
                        crate::time::parse_millis(t),
                        "{a} then {b}"
                    );
                }
            }
        }
    }

    /// A subagent's request relayed to its parent without a time of its own
    /// (the relaying record's is earlier) counts once, at the time of the
    /// subagent's own record: on its day and in its billing block.
    #[test]
    fn a_relayed_request_takes_the_time_of_the_subagents_own_record() {
        let usage = r#"{"input_tokens":3,"output_tokens":9,"cache_creation_input_tokens":0,"cache_read_input_tokens":50}"#;
        let parent = format!(
            "{{\"type\":\"progress\",\"sessionId\":\"s1\",\"isSidechain\":false,\"timestamp\":\"2026-01-01T23:59:00.000Z\",\"data\":{{\"type\":\"agent_progress\",\"agentId\":\"a1\",\"message\":{{\"type\":\"assistant\",\"requestId\":\"r1\",\"message\":{{\"id\":\"m1\",\"model\":\"claude-opus-4-6\",\"usage\":{usage}}}}}}}}}\n"
        );
        let own = format!(
            "{{\"type\":\"assistant\",\"sessionId\":\"s1\",\"isSidechain\":true,\"agentId\":\"a1\",\"timestamp\":\"2026-01-02T00:01:00.000Z\",\"requestId\":\"r1\",\"message\":{{\"id\":\"m1\",\"model\":\"claude-opus-4-6\",\"usage\":{usage}}}}}\n"
        );
        let utc = Zone::utc();
        let prices = PriceTable::builtin();
        // Either file first: the choice does not depend on the order.
        for parent_first in [true, false] {
            let mut fold = TranscriptFold::new();
            let mut scanner = Scanner::new();
            let files = [
                (parent.as_str(), "p/s1.jsonl"),
                (own.as_str(), "p/s1/subagents/agent-a1.jsonl"),
            ];
            let order = if parent_first { [0, 1] } else { [1, 0] };
            for i in order {
                let (text, path) = files[i];
                let f = TranscriptFile::from_path(std::path::Path::new(path));
                fold.read_slice(&mut scanner, text.as_bytes(), &f, |e| panic!("{e}"));
            }
            let instants = fold.request_instants(&utc, &DayRange::default());
            let own_ms = crate::time::parse_millis("2026-01-02T00:01:00Z").unwrap();
            assert_eq!(instants, [own_ms]);
            let blocks = Blocks::new(instants);
            let report = fold.finish_within(prices, &utc, &DayRange::default(), Some(&blocks));
            assert_eq!(report.total.requests, 1);
            let days: Vec<String> = report.days.iter().map(|d| d.day.to_string()).collect();
            assert_eq!(days, ["2026-01-02"]);
            let s = &report.sessions[0];
            let block: Vec<_> = s
                .by_block
                .iter()
                .map(|b| b.block.map(|b| b.to_string()))
                .collect();
            assert_eq!(block, [Some("2026-01-02T00:00:00.000Z".to_string())]);
            assert_eq!(s.by_block[0].by_role[0].role, ModelRole::Subagent);
        }
    }

    #[test]
    fn request_keys_tell_ids_apart() {
        let ids: Vec<String> = (0..2000)
            .map(|i| format!("msg_01{i:0>22}"))
            .chain((0..64).map(|n| "a".repeat(n)))
            .collect();
        let mut seen = std::collections::HashSet::new();
        for m in &ids {
            assert!(seen.insert(request_key(m.as_bytes(), None)));
            for r in ["req_1", "", "req_011C2496ganCNXMrXclC92"] {
                assert!(seen.insert(request_key(m.as_bytes(), Some(r.as_bytes()))));
            }
        }
        // Where one id ends and the other starts is part of the key.
        assert_ne!(
            request_key(b"ab", Some(b"c")),
            request_key(b"a", Some(b"bc"))
        );
        assert_ne!(request_key(b"abc", None), request_key(b"abc", Some(b"")));
        assert_ne!(request_key(b"ab\0", None), request_key(b"ab", None));
    }

    #[test]
    fn quote_or_backslash_finds_what_memchr2_finds() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let b: Vec<u8> = (0..len)
                .map(|k| match (x >> (k % 60)) % 23 {
                    0 => b'"',
                    1 => b'\\',
                    2 => 0x80 | (k as u8),
                    3 => 0x22 ^ 0x80,
                    4 => 0x5c ^ 0x01,
                    _ => b'a' + (k % 26) as u8,
                })
                .collect();
            assert_eq!(
                quote_or_backslash(&b),
                memchr::memchr2(b'"', b'\\', &b),
                "{b:?}"
            );
        }
    }
}
