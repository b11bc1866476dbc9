//! The transcript fold's tool calls and results: a call once whatever
//! file replays it, a result's error if any record of it says so. Which
//! blocks are calls and results, and when a result failed, is the event
//! layer's rule for both dialects ([`crate::event::blocks`]).

use super::keys::{KeyHasher, request_key};
use super::names::Names;
use super::{At, NONE, TranscriptFold};
use crate::event::TokenCounts;
use crate::event::blocks::{CallBlock, ResultBlock, SubagentEnd};
use crate::json::{RawStr, Value};
use crate::run::ledger::{Answer, ResultPlace, ToolLedger};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Per call key (a `tool_use` id's), as the fold keeps its calls.
pub(super) type Calls<T> = HashMap<u128, T, std::hash::BuildHasherDefault<KeyHasher>>;

/// Where a `tool_result` was written: the ledger keeps a call's first
/// (by [`At::before`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct ToolResult {
    /// The session of its record.
    pub(super) session: u32,
    pub(super) at: At,
    pub(super) millis: Option<i64>,
}

impl ResultPlace for ToolResult {
    fn millis(&self) -> Option<i64> {
        self.millis
    }
    fn line(&self) -> u64 {
        self.at.line
    }
}

/// One tool call (a call block: `tool_use`, `server_tool_use`,
/// `mcp_tool_use`) as folded.
#[derive(Clone, Copy, Debug)]
pub(super) struct ToolUse {
    pub(super) session: u32,
    pub(super) name: u32,
    pub(super) millis: Option<i64>,
    /// The subagent that made the call (`NONE`: the main chain).
    pub(super) agent: u32,
    /// An Agent/Task call: it ran a subagent
    /// ([`CallBlock::launches_subagent`]).
    pub(super) subagent: bool,
    /// For an Agent/Task call: its input's `subagent_type` and
    /// `description`.
    pub(super) subagent_type: u32,
    pub(super) description: u32,
    /// The id as written: `tool_ids[id.0..id.0 + id.1]`.
    pub(super) id: (usize, u32),
    /// The record holding the block.
    pub(super) at: At,
    /// The block's place in its record's content: a record's calls are
    /// listed in the order written, as a stream's are.
    pub(super) block: u32,
    /// Made by a sidechain (`isSidechain`, a subagent's file).
    pub(super) sidechain: bool,
}

/// What the result of a call that ran a subagent said of it
/// ([`SubagentEnd`], the stream's rule), as folded (names are ids): the
/// first record's (by [`At::before`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct AgentEnd {
    /// `status` (`NONE` without one).
    pub(super) status: u32,
    /// The handback report's text (`NONE` without one).
    pub(super) report: u32,
    /// Its last call's usage.
    pub(super) usage: Option<TokenCounts>,
    pub(super) at: At,
}

/// Who made a call: its session, its subagent (`NONE`: the main chain),
/// and whether its record is a sidechain's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Caller {
    pub(super) session: u32,
    pub(super) agent: u32,
    pub(super) sidechain: bool,
}

impl TranscriptFold {
    /// A call block of an assistant record at `place` (the record, and
    /// the block's place in its content), made by `by`.
    pub(super) fn tool_call(
        &mut self,
        call: CallBlock<'_>,
        by: Caller,
        ms: Option<i64>,
        (place, block): (At, u32),
    ) {
        let (Some(id), Some(name)) = (call.id.as_raw_str(), call.name.as_raw_str()) else {
            return;
        };
        let key = request_key(id.raw(), None);
        let (mut subagent_type, mut description) = (NONE, NONE);
        let subagent = call.launches_subagent();
        if subagent {
            let mut get = |k: &str| {
                call.input_get(k)
                    .and_then(|v| v.as_raw_str())
                    .map_or(NONE, |v| self.strings.id_raw(v, &mut self.buf))
            };
            subagent_type = get("subagent_type");
            description = get("description");
        }
        let name = self.strings.id_raw(name, &mut self.buf);
        let call = ToolUse {
            session: by.session,
            name,
            millis: ms,
            agent: by.agent,
            subagent,
            subagent_type,
            description,
            id: (0, 0),
            at: place,
            block,
            sidechain: by.sidechain,
        };
        let (sessions, strings) = (&self.sessions, &self.strings);
        self.tools.call(key, call, (sessions, strings), |ids| {
            id.unescape_into(ids);
        });
    }

    /// A server tool's result block in an assistant record of session
    /// `sid` (see [`BlockRole::Result`]): counted as a user's result is.
    pub(super) fn server_result(&mut self, sid: u32, block: Value<'_>, ms: Option<i64>, at: At) {
        let result = ResultBlock::of(block);
        let error = result.server_failed();
        self.facts[sid as usize].tool_errors += u64::from(error);
        if let Some(id) = result.id.and_then(|v| v.as_raw_str()) {
            let result = ToolResult {
                session: sid,
                at,
                millis: ms,
            };
            let key = request_key(id.raw(), None);
            self.tools
                .result(key, Answer::result(result, error), &self.strings);
        }
    }

    /// The result of call `id` (with its `key`), in session `sid`, says
    /// what became of the subagent it ran ([`SubagentEnd`]). Its `agentId`
    /// ties the subagent to the call (as a relayed `agent_progress` does):
    /// the subagent's records are in `agent-<agentId>.jsonl`.
    pub(super) fn agent_end(
        &mut self,
        sid: u32,
        (key, id): (u128, RawStr<'_>),
        end: SubagentEnd<'_>,
        at: At,
    ) {
        let mut name = |v: Option<Value<'_>>| {
            v.and_then(|v| v.as_raw_str())
                .map_or(NONE, |v| self.strings.id_raw(v, &mut self.buf))
        };
        let (status, report, agent) = (name(end.status), name(end.report), name(end.agent_id));
        if agent != NONE {
            let by = self.strings.id_raw(id, &mut self.buf);
            let facts = self.facts[sid as usize].agent(agent);
            if facts.spawned_by == NONE {
                facts.spawned_by = by;
            }
        }
        if end.usage.is_some() {
            self.unusual_usage(sid, at, end.usage);
        }
        let end = AgentEnd {
            status,
            report,
            usage: end.usage.map(TokenCounts::from_usage),
            at,
        };
        self.tools.keep_first_end(key, end, &self.strings);
    }
}

/// The fold's tool calls by their `tool_use` id's key (a call replayed in
/// another file is one call) and their results, kept by the rule of both
/// dialects ([`ToolLedger`], as the stream's run state keeps its own in
/// `run/state/tools.rs`); what the results of calls that ran a subagent
/// said of it; and the calls' ids as written.
#[derive(Debug, Default)]
pub(super) struct Tools {
    pub(super) ledger: ToolLedger<u128, ToolUse, ToolResult, BuildHasherDefault<KeyHasher>>,
    pub(super) agent_ends: Calls<AgentEnd>,
    /// The calls' ids as written, one after another ([`ToolUse::id`]):
    /// one buffer, not a string per call.
    pub(super) ids: String,
}

impl Tools {
    /// A subagent's end, the first record's whatever the order of the
    /// files.
    pub(super) fn keep_first_end(&mut self, key: u128, end: AgentEnd, strings: &Names) {
        match self.agent_ends.get_mut(&key) {
            Some(old) => {
                if end.at.before(old.at, strings) {
                    *old = end;
                }
            }
            None => {
                self.agent_ends.insert(key, end);
            }
        }
    }

    /// Take another fold's tool calls, results and subagents' ends (its
    /// sessions mapped by `smap`, its names by `t`; the fold's own names
    /// `sessions` and `strings`), as [`merge`](TranscriptFold::merge)
    /// does.
    pub(super) fn merge(
        &mut self,
        other: Tools,
        (smap, t): (&[u32], &impl Fn(u32) -> u32),
        (sessions, strings): (&Names, &Names),
    ) {
        let Tools {
            ledger,
            agent_ends,
            ids,
        } = other;
        for (k, call, mut a) in ledger.into_parts() {
            if let Some(r) = &mut a.first {
                r.session = smap[r.session as usize];
                r.at.file = t(r.at.file);
            }
            self.result(k, a, strings);
            let Some(mut call) = call else { continue };
            call.session = smap[call.session as usize];
            call.name = t(call.name);
            call.agent = t(call.agent);
            call.subagent_type = t(call.subagent_type);
            call.description = t(call.description);
            call.at.file = t(call.at.file);
            let (start, len) = call.id;
            let id = &ids[start..start + len as usize];
            self.call(k, call, (sessions, strings), |ids| ids.push_str(id));
        }
        for (k, mut e) in agent_ends {
            e.status = t(e.status);
            e.report = t(e.report);
            e.at.file = t(e.at.file);
            self.keep_first_end(k, e, strings);
        }
    }

    /// A tool call, once whatever file replays it (the smaller session
    /// name keeps it, then the record first by file name and line, so the
    /// result does not depend on the order of the files). `id` writes the
    /// call's id, once per call.
    pub(super) fn call(
        &mut self,
        key: u128,
        call: ToolUse,
        (sessions, strings): (&Names, &Names),
        id: impl FnOnce(&mut String),
    ) {
        let earlier = |new: &mut ToolUse, old: &ToolUse| {
            let (a, b) = (sessions.get(new.session), sessions.get(old.session));
            let earlier = a < b || (a == b && new.at.before(old.at, strings));
            if earlier {
                new.id = old.id;
            }
            earlier
        };
        if let Some(call) = self.ledger.call(key, call, earlier) {
            let start = self.ids.len();
            id(&mut self.ids);
            call.id = (start, (self.ids.len() - start) as u32);
        }
    }

    /// A tool call's result (or another fold's answer): an error (a
    /// rejection) if any record of it says so, its time and place those
    /// of the first record (see [`At::before`]).
    pub(super) fn result(&mut self, key: u128, a: Answer<ToolResult>, strings: &Names) {
        self.ledger
            .answer(key, a, |new, old| new.at.before(old.at, strings));
    }
}
