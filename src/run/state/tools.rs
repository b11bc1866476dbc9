//! Tool calls and their results: `tool_use` blocks of assistant events,
//! `tool_result` blocks of user events, rejections, and the server tools
//! whose use and result both sit inside the assistant's content
//! (`server_tool_use` and a `*_tool_result` block). Which blocks are calls
//! and results, and when a result failed, is the event layer's one rule
//! for both dialects ([`crate::event::blocks`]).

use super::*;
use crate::run::intern::SymHasher;
use crate::run::ledger::{Answer, ResultPlace, ToolLedger};
use std::hash::BuildHasherDefault;

impl RunState {
    /// A result inside an assistant event: a server tool's (`*_tool_result`,
    /// or a `tool_result` some backends write there, as z.ai's `webReader`
    /// does), answering the `server_tool_use` before it in the same
    /// message.
    pub(super) fn on_server_tool_result(&mut self, block: Value<'_>, end: Option<i64>, line: u64) {
        let result = ResultBlock::of(block);
        let Some(id) = str_of(result.id) else {
            return;
        };
        let error = result.server_failed();
        let id = self.names.intern(id);
        self.tools.on_result(id, error, end, line);
    }
    pub(super) fn on_tool_use(
        &mut self,
        call: CallBlock<'_>,
        agent: Option<Sym>,
        start: Option<i64>,
        line: u64,
    ) {
        let (Some(id), Some(name)) = (call.id.as_str(), call.name.as_str()) else {
            return;
        };
        let id = self.names.intern(id);
        let t = ToolUse {
            name: id,
            agent,
            line,
            start_ms: start,
        };
        // The stream's places are its lines, which only rise: the first
        // call with an id is the first by place, and a later one is
        // dropped (its name not even interned).
        let Some(t) = self.tools.ledger.call(id, t, |_, _| false) else {
            return;
        };
        t.name = self.names.intern(name);
        if call.launches_subagent() {
            let i = self.agents.for_tool(id);
            let n = &mut self.agents.nodes[i];
            n.parent = agent;
            if n.description.is_none() {
                n.description = str_of(call.input_get("description")).map(str::to_string);
            }
            if n.subagent_type.is_none() {
                n.subagent_type =
                    str_of(call.input_get("subagent_type")).map(|s| self.names.intern(s));
            }
        } else if let Some(&i) = self.agents.by_tool.get(&id) {
            self.agents.nodes[i as usize].parent = agent;
        }
    }

    pub(super) fn on_user(&mut self, ev: &Event<'_>) {
        let _agent = self.agents.agent_of(&mut self.names, ev);
        let Some(content) = ev.message_get("content") else {
            return;
        };
        let read = blocks::UserContent::of(content);
        if read.interrupt {
            self.interrupt_in_round = true;
        }
        if content.kind() == ValueKind::String {
            return;
        }
        let end = ev.timestamp().and_then(parse_millis);
        let tur = ev.get("tool_use_result");
        let results = read.results;
        if results > 0 && self.results > 0 {
            self.activity_after_result = true;
        }
        let sole_failed = blocks::sole_result_failed(results, tur);
        for block in blocks::results(content) {
            let result = ResultBlock::of(block);
            let Some(id) = str_of(result.id) else {
                continue;
            };
            let error = sole_failed || result.failed();
            let id = self.names.intern(id);
            self.tools.on_result(id, error, end, ev.line());
            if result.rejected() {
                // The CLI's notice of a user's rejection (with or without
                // `tool_result_meta` naming it, read below).
                self.tools.reject(id);
            }
            // The call of a subagent (or a task): its result's error, and
            // what the record says of it when the result is its only one.
            if let Some(&i) = self.agents.by_tool.get(&id) {
                self.agents.nodes[i as usize].result_error |= error;
                if let Some(end) = blocks::SubagentEnd::of(results, tur) {
                    self.on_subagent_end(i as usize, end, ev.line());
                }
            }
        }
        if let Some(meta) = ev.get("tool_result_meta") {
            for m in meta.elements() {
                if let Some(id) = str_of(m.get("id")) {
                    let sym = self.names.intern(id);
                    self.tools.reject(sym);
                }
            }
        }
    }

    /// What the result of node `i`'s call says of the subagent
    /// ([`blocks::SubagentEnd`], the rule of both dialects): its status,
    /// its handback report, its last call's usage (the first result's
    /// that says so, as a call's result is its first), and its id when no
    /// `task_started` named it.
    fn on_subagent_end(&mut self, i: usize, end: blocks::SubagentEnd<'_>, line: u64) {
        let status = str_of(end.status).map(|s| self.names.intern(s));
        let task_id = str_of(end.agent_id).map(|s| self.names.intern(s));
        // Read for every end, so that a count that is not one is said.
        let reported = end.usage.map(|u| self.usage_of(u, line));
        let n = &mut self.agents.nodes[i];
        if !n.ended {
            n.ended = true;
            n.report = str_of(end.report).map(str::to_string);
            n.result_status = status;
            n.reported_usage = reported;
        }
        if n.task_id.is_none()
            && let Some(t) = task_id
        {
            n.task_id = Some(t);
            self.agents.by_task.entry(t).or_insert(i as u32);
        }
    }
}

/// One tool call (its id is its key in the [`ToolLedger`]; what came
/// back for it, its [`Answer`]).
#[derive(Clone, Debug)]
pub(super) struct ToolUse {
    pub(super) name: Sym,
    pub(super) agent: Option<Sym>,
    pub(super) line: u64,
    pub(super) start_ms: Option<i64>,
}

/// Where and when a result came: its line and its event's time.
#[derive(Clone, Copy, Debug)]
pub(super) struct ResultAt {
    pub(super) end_ms: Option<i64>,
    pub(super) line: u64,
}

impl ResultPlace for ResultAt {
    fn millis(&self) -> Option<i64> {
        self.end_ms
    }
    fn line(&self) -> u64 {
        self.line
    }
}

/// The run's tool calls by id, and their results and rejections (those
/// before their call included), kept by the rule of both dialects
/// ([`ToolLedger`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Tools {
    pub(super) ledger: ToolLedger<Sym, ToolUse, ResultAt, BuildHasherDefault<SymHasher>>,
}

/// A stream's results and rejections come in the order of its lines: the
/// first is the first by place.
fn first_seen(_: &ResultAt, _: &ResultAt) -> bool {
    false
}

impl Tools {
    /// A result of call `id` at `line` (its event's time `end`), failed or
    /// not.
    pub(super) fn on_result(&mut self, id: Sym, error: bool, end: Option<i64>, line: u64) {
        let at = ResultAt { end_ms: end, line };
        self.ledger
            .answer(id, Answer::result(at, error), first_seen);
    }

    /// The user rejected call `id` (its result, a denial, or
    /// `tool_result_meta`, whichever comes first).
    pub(super) fn reject(&mut self, id: Sym) {
        self.ledger.answer(id, Answer::rejection(), first_seen);
    }

    /// Each tool's tally, by name, and the tool calls of each subagent
    /// (by its call's id).
    pub(super) fn tallies(&self, names: &Interner) -> (Vec<ToolTally>, SymMap<u64>) {
        // Tools.
        let mut tools: Vec<ToolTally> = Vec::new();
        // A tool's tally by its name's symbol: a search of the tallies per
        // call was quadratic in the names (9.4 s for 80,000 of them).
        let mut tally_of: SymMap<usize> = SymMap::default();
        let mut tool_calls_by_agent: SymMap<u64> = SymMap::default();
        for (_, t, a) in self.ledger.calls() {
            let i = *tally_of.entry(t.name).or_insert_with(|| {
                tools.push(ToolTally::named(names.resolve(t.name)));
                tools.len() - 1
            });
            tools[i].count(&a.outcome(t.start_ms));
            if let Some(a) = t.agent {
                *tool_calls_by_agent.entry(a).or_default() += 1;
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));

        (tools, tool_calls_by_agent)
    }
}
