//! Tool calls and their results: `tool_use` blocks of assistant events,
//! `tool_result` blocks of user events, rejections, and the server tools
//! whose use and result both sit inside the assistant's content
//! (`server_tool_use` and a `*_tool_result` block). Which blocks are calls
//! and results, and when a result failed, is the event layer's one rule
//! for both dialects ([`crate::event::blocks`]).

use super::*;

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
        if self.tools.by_id.contains_key(&id) {
            return;
        }
        let name_sym = self.names.intern(name);
        let mut t = ToolUse {
            id,
            name: name_sym,
            agent,
            line,
            result_line: None,
            start_ms: start,
            answered: false,
            error: false,
            rejected: false,
            duration_ms: None,
        };
        if let Some((error, end, result_line)) = self.tools.early_results.remove(&id) {
            t.answered = true;
            t.error = error;
            t.result_line = Some(result_line);
            t.duration_ms = start.zip(end).map(|(s, e)| e - s);
        }
        if let Some(p) = self.tools.early_rejections.iter().position(|r| *r == id) {
            self.tools.early_rejections.swap_remove(p);
            t.rejected = true;
        }
        self.tools.by_id.insert(id, self.tools.list.len() as u32);
        self.tools.list.push(t);
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
    /// its handback report, its last call's usage, and its id when no
    /// `task_started` named it.
    fn on_subagent_end(&mut self, i: usize, end: blocks::SubagentEnd<'_>, line: u64) {
        let status = str_of(end.status).map(|s| self.names.intern(s));
        let task_id = str_of(end.agent_id).map(|s| self.names.intern(s));
        let reported = end.usage.map(|u| self.usage_of(u, line));
        let n = &mut self.agents.nodes[i];
        if let Some(r) = str_of(end.report) {
            n.report = Some(r.to_string());
        }
        n.result_status = status.or(n.result_status);
        n.reported_usage = reported.or(n.reported_usage);
        if n.task_id.is_none()
            && let Some(t) = task_id
        {
            n.task_id = Some(t);
            self.agents.by_task.entry(t).or_insert(i as u32);
        }
    }
}

/// One tool call.
#[derive(Clone, Debug)]
pub(super) struct ToolUse {
    pub(super) id: Sym,
    pub(super) name: Sym,
    pub(super) agent: Option<Sym>,
    pub(super) line: u64,
    pub(super) result_line: Option<u64>,
    pub(super) start_ms: Option<i64>,
    pub(super) answered: bool,
    pub(super) error: bool,
    pub(super) rejected: bool,
    pub(super) duration_ms: Option<i64>,
}

/// The run's tool calls, by id, and the results and rejections that came
/// before their call.
#[derive(Clone, Debug, Default)]
pub(super) struct Tools {
    pub(super) list: Vec<ToolUse>,
    pub(super) by_id: SymMap<u32>,
    /// Results whose use has not appeared (yet): id → (error, end time,
    /// line).
    pub(super) early_results: SymMap<(bool, Option<i64>, u64)>,
    pub(super) early_rejections: Vec<Sym>,
}

impl Tools {
    /// A result of call `id`: by the rule of both dialects, the call's
    /// result is its first (its line and time), an error if any result
    /// says so (a transcript's calls are answered by the first record whose
    /// file and line come first, whatever file replays it).
    pub(super) fn on_result(&mut self, id: Sym, error: bool, end: Option<i64>, line: u64) {
        match self.by_id.get(&id) {
            Some(&i) => {
                let t = &mut self.list[i as usize];
                t.error |= error;
                if !t.answered {
                    t.answered = true;
                    t.duration_ms = t.start_ms.zip(end).map(|(s, e)| e - s);
                    t.result_line = Some(line);
                }
            }
            None => {
                self.early_results
                    .entry(id)
                    .and_modify(|r| r.0 |= error)
                    .or_insert((error, end, line));
            }
        }
    }

    /// The user rejected call `id` (its result, a denial, or
    /// `tool_result_meta`, whichever comes first).
    pub(super) fn reject(&mut self, id: Sym) {
        match self.by_id.get(&id) {
            Some(&i) => self.list[i as usize].rejected = true,
            None => {
                if !self.early_rejections.contains(&id) {
                    self.early_rejections.push(id);
                }
            }
        }
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
        for t in &self.list {
            let i = *tally_of.entry(t.name).or_insert_with(|| {
                tools.push(ToolTally::named(names.resolve(t.name)));
                tools.len() - 1
            });
            tools[i].count(t.error, t.rejected, t.answered, t.duration_ms);
            if let Some(a) = t.agent {
                *tool_calls_by_agent.entry(a).or_default() += 1;
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));

        (tools, tool_calls_by_agent)
    }
}
