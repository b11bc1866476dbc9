//! A run's subagents and tasks: one node per Agent/Task call or task, found
//! by the call's id or the task's, with what the `system/task_*` events and
//! the call's result say of it. The tree is drawn at the run's end
//! (`finish`).

use super::{str_of, task_usage, u64_of};
use crate::event::{Event, Field, TokenCounts};
use crate::run::intern::{Interner, Sym, SymMap};
use crate::run::summary::TaskUsageSummary;

/// One subagent or task.
#[derive(Clone, Debug, Default)]
pub(super) struct Node {
    pub(super) tool_use_id: Option<Sym>,
    pub(super) parent: Option<Sym>,
    pub(super) task_id: Option<Sym>,
    pub(super) task_type: Option<Sym>,
    pub(super) description: Option<String>,
    pub(super) subagent_type: Option<Sym>,
    pub(super) spawn_depth: Option<u64>,
    pub(super) backgrounded: Option<bool>,
    pub(super) progress_events: u64,
    pub(super) last_progress: Option<TaskUsageSummary>,
    pub(super) workflow_agents: u64,
    pub(super) workflow_agents_done: u64,
    pub(super) updated_status: Option<Sym>,
    pub(super) notified_status: Option<Sym>,
    pub(super) final_usage: Option<TaskUsageSummary>,
    pub(super) summary: Option<String>,
    pub(super) report: Option<String>,
    pub(super) result_status: Option<Sym>,
    pub(super) result_error: bool,
    /// `tool_use_result.usage` of its Agent/Task tool result (its last
    /// call's usage).
    pub(super) reported_usage: Option<TokenCounts>,
    /// A result of its call said how it ended: the first such result's
    /// status, report and usage are kept (as a transcript keeps the first
    /// record's by place).
    pub(super) ended: bool,
    pub(super) events: u64,
}

/// The run's nodes, by the call that launched each and by task id.
#[derive(Clone, Debug, Default)]
pub(super) struct Agents {
    pub(super) nodes: Vec<Node>,
    pub(super) by_tool: SymMap<u32>,
    pub(super) by_task: SymMap<u32>,
}

impl Agents {
    /// The node of the subagent (or task) that call `id` launched, made
    /// when first named.
    pub(super) fn for_tool(&mut self, id: Sym) -> usize {
        if let Some(&i) = self.by_tool.get(&id) {
            return i as usize;
        }
        let i = self.nodes.len();
        self.nodes.push(Node {
            tool_use_id: Some(id),
            ..Node::default()
        });
        self.by_tool.insert(id, i as u32);
        i
    }

    /// The node a task_* event names (by task_id, else tool_use_id).
    fn task_node(&mut self, names: &mut Interner, ev: &Event<'_>) -> Option<usize> {
        if let Some(t) = str_of(ev.get("task_id")).and_then(|t| names.get(t))
            && let Some(&i) = self.by_task.get(&t)
        {
            return Some(i as usize);
        }
        let tool = str_of(ev.get("tool_use_id"))?;
        let sym = names.intern(tool);
        let i = self.for_tool(sym);
        if let Some(t) = str_of(ev.get("task_id")) {
            let t = names.intern(t);
            self.nodes[i].task_id = Some(t);
            self.by_task.insert(t, i as u32);
        }
        Some(i)
    }

    /// `system/task_started`: a subagent's or task's node, with what the
    /// event says of it.
    pub(super) fn on_task_started(&mut self, names: &mut Interner, ev: &Event<'_>) {
        let i = match str_of(ev.get("tool_use_id")) {
            Some(tool) => {
                let sym = names.intern(tool);
                self.for_tool(sym)
            }
            None => {
                // A task without a tool_use id: its own node.
                self.nodes.push(Node::default());
                self.nodes.len() - 1
            }
        };
        let task_id = str_of(ev.get("task_id")).map(|t| names.intern(t));
        let task_type = str_of(ev.get("task_type")).map(|t| names.intern(t));
        let subagent_type = str_of(ev.get("subagent_type")).map(|t| names.intern(t));
        if let Some(t) = task_id {
            self.by_task.insert(t, i as u32);
        }
        let n = &mut self.nodes[i];
        n.task_id = task_id.or(n.task_id);
        n.task_type = task_type.or(n.task_type);
        n.subagent_type = subagent_type.or(n.subagent_type);
        n.spawn_depth = u64_of(ev.get("spawn_depth")).or(n.spawn_depth);
        n.backgrounded = ev
            .get("is_backgrounded")
            .and_then(|v| v.as_bool())
            .or(n.backgrounded);
        if let Some(d) = str_of(ev.get("description")) {
            n.description = Some(d.to_string());
        }
    }

    /// `system/task_progress`: the node's progress.
    pub(super) fn on_task_progress(&mut self, names: &mut Interner, ev: &Event<'_>) {
        let Some(i) = self.task_node(names, ev) else {
            return;
        };
        let n = &mut self.nodes[i];
        n.progress_events += 1;
        if let Some(u) = task_usage(ev.get("usage")) {
            n.last_progress = Some(u);
        }
        if let Some(items) = ev.get("workflow_progress") {
            let mut agents = 0;
            let mut done = 0;
            for it in items.elements() {
                if str_of(it.get("type")) == Some("workflow_agent") {
                    agents += 1;
                    if str_of(it.get("state")) == Some("done") {
                        done += 1;
                    }
                }
            }
            n.workflow_agents = agents;
            n.workflow_agents_done = done;
        }
    }

    /// The subagent that made event `ev` (its `parent_tool_use_id`), its
    /// node's events counted; `None` for the main agent's.
    pub(super) fn agent_of(&mut self, names: &mut Interner, ev: &Event<'_>) -> Option<Sym> {
        match ev.parent_tool_use_id() {
            Field::Value(p) => {
                let sym = names.intern(p);
                let i = self.for_tool(sym);
                self.nodes[i].events += 1;
                Some(sym)
            }
            _ => None,
        }
    }

    /// `system/task_updated`: the status its patch sets.
    pub(super) fn on_task_updated(&mut self, names: &mut Interner, ev: &Event<'_>) {
        if let Some(i) = self.task_node(names, ev) {
            let status = str_of(ev.get_path("patch.status")).map(|s| names.intern(s));
            if status.is_some() {
                self.nodes[i].updated_status = status;
            }
        }
    }

    /// `system/task_notification`: the task's end, its usage and summary.
    pub(super) fn on_task_notification(&mut self, names: &mut Interner, ev: &Event<'_>) {
        if let Some(i) = self.task_node(names, ev) {
            let status = str_of(ev.get("status")).map(|s| names.intern(s));
            let n = &mut self.nodes[i];
            n.notified_status = status.or(n.notified_status);
            n.final_usage = task_usage(ev.get("usage")).or(n.final_usage);
            if let Some(s) = str_of(ev.get("summary")) {
                n.summary = Some(s.to_string());
            }
        }
    }
}
