//! One run's state while its events are folded in, and the summary it
//! turns into.
//!
//! Per line the work is lookups: ids and names are interned in the run's
//! [`Interner`] (no allocation for a string seen before), records are pushed
//! on vectors that grow amortised. What allocates is per run, per result,
//! per task or per partial block, never per line in the steady state.

use super::accounting::{self, CallUsageSource, MainInputs, ModelRole, ModelsSeen, SubagentInputs};
use super::intern::{Interner, Sym, SymMap};
use super::json::to_serde;
use super::partial::{Partials, Scratch};
use super::summary::*;
use super::time::parse_millis;
use super::verdict::{Verdict, classify_result};
use crate::error::{Error, ErrorKind};
use crate::event::{Event, EventKind, Field, TokenCounts};
use crate::parse::{Number, Value};

/// At most this many `bad_line` warnings per run (all are counted).
const MAX_BAD_LINE_WARNINGS: usize = 10;

/// Tools that launch a subagent: `Agent` (2.1.x), `Task` (older, and the
/// name in `init.tools`).
fn launches_subagent(name: &str) -> bool {
    matches!(name, "Agent" | "Task")
}

/// One model call.
#[derive(Clone, Debug)]
struct Call {
    msg: Option<Sym>,
    agent: Option<Sym>,
    model: Option<Sym>,
    usage: TokenCounts,
    /// Where the usage came from.
    source: CallUsageSource,
    round: u32,
    /// The line whose usage is the call's (the last that set it).
    line: u64,
}

#[derive(Clone, Debug)]
struct ToolUse {
    id: Sym,
    name: Sym,
    agent: Option<Sym>,
    line: u64,
    result_line: Option<u64>,
    start_ms: Option<i64>,
    answered: bool,
    error: bool,
    rejected: bool,
    duration_ms: Option<i64>,
}

#[derive(Clone, Debug, Default)]
struct Node {
    tool_use_id: Option<Sym>,
    parent: Option<Sym>,
    task_id: Option<Sym>,
    task_type: Option<Sym>,
    description: Option<String>,
    subagent_type: Option<Sym>,
    spawn_depth: Option<u64>,
    backgrounded: Option<bool>,
    progress_events: u64,
    last_progress: Option<TaskUsageSummary>,
    workflow_agents: u64,
    workflow_agents_done: u64,
    updated_status: Option<Sym>,
    notified_status: Option<Sym>,
    final_usage: Option<TaskUsageSummary>,
    summary: Option<String>,
    report: Option<String>,
    result_status: Option<Sym>,
    result_error: bool,
    /// `tool_use_result.usage` of its Agent/Task tool result (its last
    /// call's usage).
    reported_usage: Option<TokenCounts>,
    events: u64,
}

/// A run being folded.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunState {
    pub(crate) session: Option<String>,
    names: Interner,
    events: u64,
    first_line: u64,
    last_line: u64,
    inits: u64,
    model: Option<String>,
    /// `model` of every init (rounds may name another).
    init_models: Vec<Sym>,
    version: Option<String>,
    started_at: Option<String>,
    /// The last timestamp seen (a buffer reused line to line).
    ended_at: String,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    duration_ms_sum: Option<i64>,
    /// The results' `usage`, summed over the rounds.
    reported_sum: Option<TokenCounts>,
    /// The last result's `usage`.
    reported_last: Option<TokenCounts>,
    /// A usage check found the results' usage cumulative.
    reported_cumulative: bool,

    calls: Vec<Call>,
    call_by_msg: SymMap<u32>,
    synthetic: u64,
    api_errors: Vec<ApiErrorMessage>,
    /// Models the main agent's messages answer under (assistant events and
    /// message_starts, `<synthetic>` left out).
    main_models: SymMap<()>,
    /// Models subagents' messages answer under.
    sub_models: SymMap<()>,

    tools: Vec<ToolUse>,
    tool_by_id: SymMap<u32>,
    /// Results whose use has not appeared (yet): id → (error, end time,
    /// line).
    early_results: SymMap<(bool, Option<i64>, u64)>,
    early_rejections: Vec<Sym>,

    nodes: Vec<Node>,
    node_by_tool: SymMap<u32>,
    node_by_task: SymMap<u32>,

    results: u32,
    last_result: Option<ResultSummary>,
    model_usage: Vec<ModelUsageSummary>,
    model_usage_present: bool,
    usage_checks: Vec<UsageCheck>,
    interrupt_in_round: bool,
    last_interrupt_seen: bool,
    activity_after_result: bool,

    retries: ApiRetries,
    retry_error: Option<Sym>,
    denials: Vec<DeniedToolUse>,
    hooks: Hooks,
    notifications: Vec<Notification>,
    compactions: u64,
    partial: Partials,

    bad_lines: u64,
    truncated: bool,
    warnings: Vec<Warning>,
    /// Keep the per-call lists ([`RunSummary::model_calls`],
    /// [`RunSummary::tool_calls`]).
    pub(crate) keep_calls: bool,
}

fn str_of<'a>(v: Option<Value<'a>>) -> Option<&'a str> {
    v.and_then(|v| v.as_str())
}

fn u64_of(v: Option<Value<'_>>) -> Option<u64> {
    v.and_then(|v| v.as_u64())
}

/// A number's text for a message: as written when it is big.
fn number_text(v: &Value<'_>) -> String {
    match v.number() {
        Some(Number::U64(n)) => n.to_string(),
        Some(Number::I64(n)) => n.to_string(),
        Some(Number::F64(f)) => f.to_string(),
        Some(Number::Big(t)) => t.to_string(),
        None => format!("(a {:?})", v.kind()).to_lowercase(),
    }
}

fn task_usage(v: Option<Value<'_>>) -> Option<TaskUsageSummary> {
    let u = v.filter(|u| !u.is_null())?;
    Some(TaskUsageSummary {
        total_tokens: u64_of(u.get("total_tokens")),
        tool_uses: u64_of(u.get("tool_uses")),
        duration_ms: u64_of(u.get("duration_ms")),
    })
}

/// The four usage counts, in order.
const USAGE_KEYS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
];

fn slot(t: &mut TokenCounts, i: usize) -> &mut u64 {
    match i {
        0 => &mut t.input_tokens,
        1 => &mut t.output_tokens,
        2 => &mut t.cache_read_input_tokens,
        _ => &mut t.cache_creation_input_tokens,
    }
}

fn is_interrupt(text: &str) -> bool {
    text.trim_start()
        .starts_with("[Request interrupted by user")
}

fn costs_match(a: f64, b: f64) -> bool {
    let scale = a.abs().max(b.abs());
    (a - b).abs() <= COST_TOLERANCE * scale || (a - b).abs() < 1e-15
}

impl RunState {
    pub(crate) fn new(session: Option<&str>) -> RunState {
        RunState {
            session: session.map(str::to_string),
            ..RunState::default()
        }
    }

    /// The line of the run's first event or error (0 before any).
    pub(crate) fn first_line(&self) -> u64 {
        self.first_line
    }

    /// The last line folded into this run.
    pub(crate) fn last_line(&self) -> u64 {
        self.last_line
    }

    /// True once a result was folded in.
    pub(crate) fn has_result(&self) -> bool {
        self.results > 0
    }

    fn see_line(&mut self, line: u64) {
        if self.first_line == 0 {
            self.first_line = line;
        }
        self.last_line = line;
    }

    /// Overwrite the counts present in a usage object (a `message_delta`
    /// may carry only some of them); a count that is not a u64 (negative,
    /// fractional, beyond u64) is not dropped silently: a warning says so.
    fn merge_usage(&mut self, t: &mut TokenCounts, u: Value<'_>, line: u64) {
        for (i, k) in USAGE_KEYS.iter().enumerate() {
            let Some(v) = u.get(k) else { continue };
            match v.as_u64() {
                Some(n) => *slot(t, i) = n,
                None if v.is_null() => {}
                None => self.warn_number(k, &v, line, "is not a token count (0 used)"),
            }
        }
    }

    /// The counts of a usage object (missing ones 0).
    fn usage_of(&mut self, u: Value<'_>, line: u64) -> TokenCounts {
        let mut t = TokenCounts::default();
        self.merge_usage(&mut t, u, line);
        t
    }

    fn warn_number(&mut self, field: &str, v: &Value<'_>, line: u64, what: &str) {
        let text = number_text(v);
        self.warn(
            WARN_UNUSUAL_NUMBER,
            format!("{field} {text} {what}"),
            Some(line),
        );
    }

    /// An integer field of a result: kept when it fits i64 (negative
    /// included), warned about otherwise.
    fn int_field(&mut self, ev: &Event<'_>, field: &str) -> Option<i64> {
        let v = ev.get(field)?;
        if v.is_null() {
            return None;
        }
        match v.as_i64() {
            Some(n) => {
                if n < 0 {
                    self.warn_number(field, &v, ev.line(), "is negative (kept)");
                }
                Some(n)
            }
            None => {
                self.warn_number(field, &v, ev.line(), "is not an integer of i64 (not kept)");
                None
            }
        }
    }

    fn warn(&mut self, code: &'static str, message: String, line: Option<u64>) {
        self.warnings.push(Warning {
            code,
            message,
            line,
        });
    }

    /// A line that was not an event.
    pub(crate) fn push_error(&mut self, e: &Error) {
        let p = e.position();
        self.see_line(p.line);
        if e.kind() == ErrorKind::Truncated {
            self.truncated = true;
            self.warn(
                WARN_TRUNCATED,
                format!("the stream ends in the middle of line {}", p.line),
                Some(p.line),
            );
            return;
        }
        self.bad_lines += 1;
        if self
            .warnings
            .iter()
            .filter(|w| w.code == WARN_BAD_LINE)
            .count()
            < MAX_BAD_LINE_WARNINGS
        {
            self.warn(
                WARN_BAD_LINE,
                format!("{}: {}", e.kind(), e.reason()),
                Some(p.line),
            );
        }
    }

    /// Fold one event in.
    pub(crate) fn push(&mut self, ev: &Event<'_>, scratch: &mut Scratch) {
        self.events += 1;
        self.see_line(ev.line());
        if let Some(ts) = ev.timestamp() {
            if self.started_at.is_none() {
                // Per run, not per line: only the first timestamp is copied.
                self.started_at = Some(ts.to_string());
                self.first_ms = parse_millis(ts);
            }
            // The last one goes into a buffer reused from line to line (no
            // allocation once it is long enough).
            self.ended_at.clear();
            self.ended_at.push_str(ts);
            if let Some(ms) = parse_millis(ts) {
                self.last_ms = Some(ms);
                if self.first_ms.is_none() {
                    self.first_ms = Some(ms);
                }
            }
        }
        match ev.kind() {
            EventKind::Assistant => self.on_assistant(ev, scratch),
            EventKind::User => self.on_user(ev),
            EventKind::StreamEvent => self.on_stream_event(ev, scratch),
            EventKind::SystemInit => {
                self.inits += 1;
                if self.results > 0 {
                    self.activity_after_result = true;
                }
                if let Some(m) = str_of(ev.get("model")) {
                    if self.model.is_none() {
                        self.model = Some(m.to_string());
                    }
                    let sym = self.names.intern(m);
                    if !self.init_models.contains(&sym) {
                        self.init_models.push(sym);
                    }
                }
                if self.version.is_none() {
                    self.version = str_of(ev.get("claude_code_version")).map(str::to_string);
                }
            }
            EventKind::SystemApiRetry => {
                self.retries.count += 1;
                if let Some(s) = u64_of(ev.get("error_status")) {
                    self.retries.last_status = Some(s);
                    match self.retries.statuses.iter_mut().find(|(k, _)| *k == s) {
                        Some((_, n)) => *n += 1,
                        None => self.retries.statuses.push((s, 1)),
                    }
                }
                if let Some(e) = str_of(ev.get("error")) {
                    self.retry_error = Some(self.names.intern(e));
                }
            }
            EventKind::SystemPermissionDenied => {
                let name = str_of(ev.get("tool_name")).unwrap_or("");
                if let Some(id) = str_of(ev.get("tool_use_id")) {
                    self.add_denial(name, id, false);
                    let sym = self.names.intern(id);
                    self.reject(sym);
                }
            }
            EventKind::SystemHookStarted => self.hooks.started += 1,
            EventKind::SystemHookResponse => {
                self.hooks.responses += 1;
                let code = ev.get("exit_code").and_then(|v| v.as_i64());
                let outcome = str_of(ev.get("outcome"));
                if code.is_some_and(|c| c != 0) || outcome.is_some_and(|o| o != "success") {
                    self.hooks.failures.push(HookFailure {
                        hook_name: str_of(ev.get("hook_name")).unwrap_or("").to_string(),
                        exit_code: code,
                        outcome: outcome.map(str::to_string),
                        line: ev.line(),
                    });
                }
            }
            EventKind::SystemNotification => self.notifications.push(Notification {
                key: str_of(ev.get("key")).map(str::to_string),
                text: str_of(ev.get("text")).map(str::to_string),
            }),
            EventKind::SystemCompactBoundary => self.compactions += 1,
            EventKind::SystemTaskStarted => self.on_task_started(ev),
            EventKind::SystemTaskProgress => self.on_task_progress(ev),
            EventKind::SystemTaskUpdated => {
                if let Some(i) = self.task_node(ev) {
                    let status = str_of(ev.get_path("patch.status")).map(|s| self.names.intern(s));
                    if status.is_some() {
                        self.nodes[i].updated_status = status;
                    }
                }
            }
            EventKind::SystemTaskNotification => {
                if let Some(i) = self.task_node(ev) {
                    let status = str_of(ev.get("status")).map(|s| self.names.intern(s));
                    let n = &mut self.nodes[i];
                    n.notified_status = status.or(n.notified_status);
                    n.final_usage = task_usage(ev.get("usage")).or(n.final_usage);
                    if let Some(s) = str_of(ev.get("summary")) {
                        n.summary = Some(s.to_string());
                    }
                }
            }
            k if k.is_result() => self.on_result(ev),
            _ => {}
        }
    }

    fn add_denial(&mut self, name: &str, id: &str, in_result: bool) {
        match self.denials.iter_mut().find(|d| d.tool_use_id == id) {
            Some(d) => {
                d.in_result |= in_result;
                d.event |= !in_result;
                if d.tool_name.is_empty() {
                    d.tool_name = name.to_string();
                }
            }
            None => self.denials.push(DeniedToolUse {
                tool_name: name.to_string(),
                tool_use_id: id.to_string(),
                in_result,
                event: !in_result,
            }),
        }
    }

    fn reject(&mut self, id: Sym) {
        match self.tool_by_id.get(&id) {
            Some(&i) => self.tools[i as usize].rejected = true,
            None => {
                if !self.early_rejections.contains(&id) {
                    self.early_rejections.push(id);
                }
            }
        }
    }

    fn node_for_tool(&mut self, id: Sym) -> usize {
        if let Some(&i) = self.node_by_tool.get(&id) {
            return i as usize;
        }
        let i = self.nodes.len();
        self.nodes.push(Node {
            tool_use_id: Some(id),
            ..Node::default()
        });
        self.node_by_tool.insert(id, i as u32);
        i
    }

    /// The node a task_* event names (by task_id, else tool_use_id).
    fn task_node(&mut self, ev: &Event<'_>) -> Option<usize> {
        if let Some(t) = str_of(ev.get("task_id")).and_then(|t| self.names.get(t))
            && let Some(&i) = self.node_by_task.get(&t)
        {
            return Some(i as usize);
        }
        let tool = str_of(ev.get("tool_use_id"))?;
        let sym = self.names.intern(tool);
        let i = self.node_for_tool(sym);
        if let Some(t) = str_of(ev.get("task_id")) {
            let t = self.names.intern(t);
            self.nodes[i].task_id = Some(t);
            self.node_by_task.insert(t, i as u32);
        }
        Some(i)
    }

    fn on_task_started(&mut self, ev: &Event<'_>) {
        let i = match str_of(ev.get("tool_use_id")) {
            Some(tool) => {
                let sym = self.names.intern(tool);
                self.node_for_tool(sym)
            }
            None => {
                // A task without a tool_use id: its own node.
                self.nodes.push(Node::default());
                self.nodes.len() - 1
            }
        };
        let task_id = str_of(ev.get("task_id")).map(|t| self.names.intern(t));
        let task_type = str_of(ev.get("task_type")).map(|t| self.names.intern(t));
        let subagent_type = str_of(ev.get("subagent_type")).map(|t| self.names.intern(t));
        if let Some(t) = task_id {
            self.node_by_task.insert(t, i as u32);
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

    fn on_task_progress(&mut self, ev: &Event<'_>) {
        let Some(i) = self.task_node(ev) else { return };
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

    fn agent_of(&mut self, ev: &Event<'_>) -> Option<Sym> {
        match ev.parent_tool_use_id() {
            Field::Value(p) => {
                let sym = self.names.intern(p);
                let i = self.node_for_tool(sym);
                self.nodes[i].events += 1;
                Some(sym)
            }
            _ => None,
        }
    }

    fn on_assistant(&mut self, ev: &Event<'_>, scratch: &mut Scratch) {
        if self.results > 0 {
            self.activity_after_result = true;
        }
        let agent = self.agent_of(ev);
        let Some(msg) = ev.message() else { return };
        let content = msg.get("content");
        let model = ev.model();
        let synthetic = model == Some("<synthetic>")
            || ev.get("is_api_error_message").and_then(|v| v.as_bool()) == Some(true);
        if synthetic {
            self.synthetic += 1;
            let text = content
                .and_then(|c| c.elements().find_map(|b| str_of(b.get("text"))))
                .unwrap_or("");
            self.api_errors.push(ApiErrorMessage {
                error: str_of(ev.get("error")).map(str::to_string),
                text: text.to_string(),
                line: ev.line(),
            });
            return;
        }
        let model = model.map(|m| self.names.intern(m));
        if let Some(m) = model {
            match agent {
                None => self.main_models.insert(m, ()),
                Some(_) => self.sub_models.insert(m, ()),
            };
        }
        let usage = msg.get("usage").map(|u| self.usage_of(u, ev.line()));
        // A message whose stop_reason is set came whole: its usage is final
        // (the snapshot of a streaming message has stop_reason null).
        let source = match str_of(msg.get("stop_reason")) {
            Some(_) => CallUsageSource::CompleteMessage,
            None => CallUsageSource::Snapshot,
        };
        let msg_id = ev.message_id().map(|id| self.names.intern(id));
        self.record_call(msg_id, agent, model, usage, source, ev.line());

        let start = ev.timestamp().and_then(parse_millis);
        let Some(content) = content else { return };
        for block in content.elements() {
            if str_of(block.get("type")) == Some("tool_use")
                && let (Some(id), Some(name)) = (str_of(block.get("id")), str_of(block.get("name")))
            {
                self.on_tool_use(id, name, agent, start, block, ev.line());
            }
            if agent.is_none() && self.partial.any() {
                self.partial
                    .check_assistant(msg_id, block, &self.names, scratch);
            }
        }
    }

    /// A model call's usage: per message id the last assistant event's,
    /// unless a final one is already known (its `message_delta`, or an
    /// event of the finished message) and this one is a snapshot.
    fn record_call(
        &mut self,
        msg: Option<Sym>,
        agent: Option<Sym>,
        model: Option<Sym>,
        usage: Option<TokenCounts>,
        source: CallUsageSource,
        line: u64,
    ) {
        if let Some(m) = msg {
            if let Some(&i) = self.call_by_msg.get(&m) {
                let c = &mut self.calls[i as usize];
                let keep = c.source == CallUsageSource::MessageDelta
                    || (c.source.is_final() && !source.is_final());
                if !keep && let Some(u) = usage {
                    c.usage = u;
                    c.line = line;
                    c.source = source;
                }
                c.model = c.model.or(model);
                return;
            }
            self.call_by_msg.insert(m, self.calls.len() as u32);
        }
        self.calls.push(Call {
            msg,
            agent,
            model,
            usage: usage.unwrap_or_default(),
            source: if usage.is_some() {
                source
            } else {
                CallUsageSource::Snapshot
            },
            round: self.results,
            line,
        });
    }

    fn on_tool_use(
        &mut self,
        id: &str,
        name: &str,
        agent: Option<Sym>,
        start: Option<i64>,
        block: Value<'_>,
        line: u64,
    ) {
        let id = self.names.intern(id);
        if self.tool_by_id.contains_key(&id) {
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
        if let Some((error, end, result_line)) = self.early_results.remove(&id) {
            t.answered = true;
            t.error = error;
            t.result_line = Some(result_line);
            t.duration_ms = start.zip(end).map(|(s, e)| e - s);
        }
        if let Some(p) = self.early_rejections.iter().position(|r| *r == id) {
            self.early_rejections.swap_remove(p);
            t.rejected = true;
        }
        self.tool_by_id.insert(id, self.tools.len() as u32);
        self.tools.push(t);
        if launches_subagent(name) {
            let i = self.node_for_tool(id);
            let n = &mut self.nodes[i];
            n.parent = agent;
            if n.description.is_none() {
                n.description = str_of(block.get_path("input.description")).map(str::to_string);
            }
            if n.subagent_type.is_none() {
                n.subagent_type =
                    str_of(block.get_path("input.subagent_type")).map(|s| self.names.intern(s));
            }
        } else if let Some(&i) = self.node_by_tool.get(&id) {
            self.nodes[i as usize].parent = agent;
        }
    }

    fn on_user(&mut self, ev: &Event<'_>) {
        let _agent = self.agent_of(ev);
        let Some(msg) = ev.message() else { return };
        let Some(content) = msg.get("content") else {
            return;
        };
        if let Some(s) = content.as_str() {
            if is_interrupt(s) {
                self.interrupt_in_round = true;
            }
            return;
        }
        let end = ev.timestamp().and_then(parse_millis);
        let tur = ev.get("tool_use_result");
        let results = content
            .elements()
            .filter(|b| str_of(b.get("type")) == Some("tool_result"))
            .count();
        if results > 0 && self.results > 0 {
            self.activity_after_result = true;
        }
        for block in content.elements() {
            match str_of(block.get("type")) {
                Some("text") if str_of(block.get("text")).is_some_and(is_interrupt) => {
                    self.interrupt_in_round = true;
                }
                Some("tool_result") => {
                    let Some(id) = str_of(block.get("tool_use_id")) else {
                        continue;
                    };
                    let mut error = block.get("is_error").and_then(|v| v.as_bool()) == Some(true);
                    let text = block.get("content").and_then(|c| {
                        c.as_str()
                            .or_else(|| c.elements().find_map(|b| str_of(b.get("text"))))
                    });
                    if text.is_some_and(|t| t.trim_start().starts_with("<tool_use_error>")) {
                        error = true;
                    }
                    if results == 1 && str_of(tur).is_some_and(|s| s.starts_with("Error: ")) {
                        error = true;
                    }
                    let id = self.names.intern(id);
                    self.on_tool_result(id, error, end, ev.line());
                    if results == 1 {
                        if let (Some(&i), Some(t)) = (self.node_by_tool.get(&id), tur) {
                            let n = &mut self.nodes[i as usize];
                            n.result_error |= error;
                            if let Some(r) = str_of(t.get_path("handbackReport.text")) {
                                n.report = Some(r.to_string());
                            }
                            if let Some(s) = str_of(t.get("status")) {
                                n.result_status = Some(self.names.intern(s));
                            }
                            if let Some(u) = t
                                .get("usage")
                                .filter(|u| u.kind() == crate::parse::ValueKind::Object)
                            {
                                let reported = self.usage_of(u, ev.line());
                                self.nodes[i as usize].reported_usage = Some(reported);
                            }
                        } else if let Some(&i) = self.node_by_tool.get(&id) {
                            self.nodes[i as usize].result_error |= error;
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(meta) = ev.get("tool_result_meta") {
            for m in meta.elements() {
                if let Some(id) = str_of(m.get("id")) {
                    let sym = self.names.intern(id);
                    self.reject(sym);
                }
            }
        }
    }

    fn on_tool_result(&mut self, id: Sym, error: bool, end: Option<i64>, line: u64) {
        match self.tool_by_id.get(&id) {
            Some(&i) => {
                let t = &mut self.tools[i as usize];
                t.answered = true;
                t.error |= error;
                t.duration_ms = t.start_ms.zip(end).map(|(s, e)| e - s);
                t.result_line = Some(line);
            }
            None => {
                self.early_results.insert(id, (error, end, line));
            }
        }
    }

    fn on_stream_event(&mut self, ev: &Event<'_>, scratch: &mut Scratch) {
        if !matches!(ev.parent_tool_use_id(), Field::Null | Field::Missing) {
            // Subagent calls do not stream (reference); ignore if one does.
            return;
        }
        self.partial.note_event();
        let Some(e) = ev.get("event") else { return };
        let index = u64_of(e.get("index")).unwrap_or(0);
        match str_of(e.get("type")).unwrap_or("") {
            "message_start" => {
                let m = e.get("message");
                let id = str_of(m.and_then(|m| m.get("id"))).map(|s| self.names.intern(s));
                let model = str_of(m.and_then(|m| m.get("model"))).map(|s| self.names.intern(s));
                if let Some(model) = model {
                    self.main_models.insert(model, ());
                }
                let usage = m
                    .and_then(|m| m.get("usage"))
                    .map(|u| self.usage_of(u, ev.line()));
                self.partial.start_message(id, &self.names, scratch);
                if id.is_some() {
                    self.record_call(id, None, model, usage, CallUsageSource::Snapshot, ev.line());
                }
            }
            "content_block_start" => self.partial.start_block(
                index,
                e.get("content_block"),
                ev.line(),
                &mut self.names,
                scratch,
            ),
            "content_block_delta" => self.partial.delta(index, e.get("delta")),
            "content_block_stop" => self.partial.stop_block(index),
            "message_delta" => {
                // The final usage of the call opened by the last
                // message_start (the assistant events carry the snapshot
                // taken at message_start).
                if let (Some(m), Some(u)) = (self.partial.msg, e.get("usage"))
                    && let Some(&i) = self.call_by_msg.get(&m)
                {
                    let mut usage = self.calls[i as usize].usage;
                    self.merge_usage(&mut usage, u, ev.line());
                    let c = &mut self.calls[i as usize];
                    c.usage = usage;
                    c.source = CallUsageSource::MessageDelta;
                    c.line = ev.line();
                }
            }
            "message_stop" => self.partial.finish_message(&self.names, scratch),
            _ => {}
        }
    }

    /// The main agent's per-call sums, this round's and the run's, and
    /// whether every call of the round is final.
    fn main_sums(&self) -> (TokenCounts, TokenCounts, bool) {
        let mut round = TokenCounts::default();
        let mut all = TokenCounts::default();
        let mut all_final = true;
        for c in self.calls.iter().filter(|c| c.agent.is_none()) {
            all.add(&c.usage);
            all_final &= c.source.is_final();
            if c.round == self.results {
                round.add(&c.usage);
            }
        }
        (round, all, all_final)
    }

    fn on_result(&mut self, ev: &Event<'_>) {
        let line = ev.line();
        let subtype = ev.raw_subtype();
        let is_error = ev.is_error();
        // Warnings that concern every result.
        match (subtype, is_error) {
            (Some("success"), Some(true)) => self.warn(
                WARN_IS_ERROR_DISAGREES,
                "subtype success with is_error true".into(),
                Some(line),
            ),
            (Some(s), Some(false)) if s.starts_with("error") => self.warn(
                WARN_IS_ERROR_DISAGREES,
                format!("subtype {s} with is_error false"),
                Some(line),
            ),
            _ => {}
        }
        match (subtype, is_error) {
            (
                Some(
                    "success"
                    | "error_during_execution"
                    | "error_max_turns"
                    | "error_max_budget_usd",
                ),
                _,
            ) => {}
            (Some(s), _) => self.warn(
                WARN_UNKNOWN_SUBTYPE,
                format!("result subtype {s:?}"),
                Some(line),
            ),
            (None, None) => self.warn(
                WARN_RESULT_UNDECIDED,
                "a result with neither subtype nor is_error".into(),
                Some(line),
            ),
            _ => {}
        }
        let usage = ev
            .get("usage")
            .filter(|u| u.kind() == crate::parse::ValueKind::Object)
            .map(|u| self.usage_of(u, line));
        if let Some(reported) = usage {
            let (round, cumulative, all_final) = self.main_sums();
            let basis = if reported == round {
                UsageBasis::Round
            } else if reported == cumulative {
                UsageBasis::Cumulative
            } else {
                UsageBasis::Mismatch
            };
            if basis == UsageBasis::Cumulative && self.results > 0 {
                self.reported_cumulative = true;
            }
            if basis == UsageBasis::Mismatch
                && all_final
                && self.calls.iter().any(|c| c.agent.is_none())
            {
                // Both sides exact: one of them is wrong.
                self.warn(
                    WARN_USAGE_MISMATCH,
                    format!(
                        "result usage (output_tokens {}) differs from the main agent's final per-call usage of its round (output_tokens {})",
                        reported.output_tokens, round.output_tokens
                    ),
                    Some(line),
                );
            }
            let sum = self.reported_sum.get_or_insert_with(TokenCounts::default);
            sum.add(&reported);
            self.reported_last = Some(reported);
            self.usage_checks.push(UsageCheck {
                result: self.results,
                line,
                reported,
                round,
                cumulative,
                basis,
            });
        }
        if let Some(list) = ev.get("permission_denials") {
            for d in list.elements() {
                if let Some(id) = str_of(d.get("tool_use_id")) {
                    self.add_denial(str_of(d.get("tool_name")).unwrap_or(""), id, true);
                }
            }
        }
        self.model_usage.clear();
        self.model_usage_present = false;
        if let Some(mu) = ev.get("modelUsage").filter(|m| !m.is_null()) {
            self.model_usage_present = true;
            for (k, v) in mu.entries() {
                let n = |key| u64_of(v.get(key)).unwrap_or(0);
                self.model_usage.push(ModelUsageSummary {
                    model: k.to_string(),
                    tokens: TokenCounts {
                        input_tokens: n("inputTokens"),
                        output_tokens: n("outputTokens"),
                        cache_read_input_tokens: n("cacheReadInputTokens"),
                        cache_creation_input_tokens: n("cacheCreationInputTokens"),
                    },
                    cost_usd: v
                        .get("costUSD")
                        .and_then(|c| c.as_f64())
                        .filter(|c| c.is_finite()),
                    role: ModelRole::Main,
                    auxiliary: false,
                    summed: None,
                    canonical_model: str_of(v.get("canonicalModel")).map(str::to_string),
                });
            }
        }
        let num_turns = self.int_field(ev, "num_turns");
        let duration_ms = self.int_field(ev, "duration_ms");
        let duration_api_ms = self.int_field(ev, "duration_api_ms");
        if let Some(d) = duration_ms {
            let sum = self.duration_ms_sum.get_or_insert(0);
            *sum = sum.saturating_add(d);
        }
        let cost_value = ["total_cost_usd", "cost_usd", "total_cost"]
            .iter()
            .find_map(|k| ev.get(k).filter(|v| v.number().is_some()).map(|v| (*k, v)));
        let (total_cost_usd, total_cost_text) = match cost_value {
            None => (None, None),
            Some((k, v)) => match v.as_f64().filter(|c| c.is_finite()) {
                Some(c) => (Some(c), None),
                None => {
                    let text = number_text(&v);
                    self.warn_number(k, &v, line, "is beyond f64: kept as written, not summed");
                    (None, Some(text))
                }
            },
        };
        // The last result replaces the one before: its strings are reused,
        // so a result line allocates nothing once they are long enough.
        let old = self.last_result.take().unwrap_or_default();
        let r = ResultSummary {
            line,
            subtype: reuse(old.subtype, subtype),
            is_error,
            terminal_reason: reuse(old.terminal_reason, str_of(ev.get("terminal_reason"))),
            stop_reason: reuse(old.stop_reason, str_of(ev.get("stop_reason"))),
            num_turns,
            duration_ms,
            duration_api_ms,
            total_cost_usd,
            total_cost_text,
            result_text: reuse(old.result_text, str_of(ev.get("result"))),
            result_index: u64_of(ev.get("result_index")),
            usage,
            errors: reuse_all(
                old.errors,
                ev.get("errors")
                    .into_iter()
                    .flat_map(|e| e.elements())
                    .filter_map(|x| x.as_str()),
            ),
            api_error_status: u64_of(ev.get("api_error_status")),
            subagent_stats: ev
                .get("subagent_stats")
                .filter(|v| !v.is_null())
                .map(|v| to_serde(&v)),
        };
        self.last_result = Some(r);
        self.last_interrupt_seen = self.interrupt_in_round;
        self.interrupt_in_round = false;
        self.activity_after_result = false;
        self.results += 1;
    }

    /// Turn the state into a summary.
    pub(crate) fn finish(mut self) -> RunSummary {
        let names = &self.names;
        let partial = self.partial.summary(names);
        let mut warnings = std::mem::take(&mut self.warnings);

        // The roles of the models (see `accounting`).
        let resolve = |m: &SymMap<()>| -> Vec<&str> {
            let mut v: Vec<&str> = m.keys().map(|s| names.resolve(*s)).collect();
            v.sort_unstable();
            v
        };
        let init_models: Vec<&str> = self.init_models.iter().map(|s| names.resolve(*s)).collect();
        let main_models = resolve(&self.main_models);
        let sub_models = resolve(&self.sub_models);
        let mut by_model = std::mem::take(&mut self.model_usage);
        accounting::assign_roles(
            &mut by_model,
            &ModelsSeen {
                inits: &init_models,
                main: &main_models,
                subagents: &sub_models,
            },
        );

        // Per-call sums of the main agent and of each node.
        let mut main_calls = AgentUsage::default();
        let mut complete = TokenCounts::default();
        let mut complete_calls = 0;
        let mut per_node: SymMap<(AgentUsage, Vec<&str>)> = SymMap::default();
        for c in &self.calls {
            match c.agent {
                None => {
                    main_calls.add_call(&c.usage, c.source);
                    if c.source == CallUsageSource::CompleteMessage {
                        complete.add(&c.usage);
                        complete_calls += 1;
                    }
                }
                Some(a) => {
                    let (u, models) = per_node.entry(a).or_default();
                    u.add_call(&c.usage, c.source);
                    if let Some(m) = c.model.map(|m| names.resolve(m))
                        && !models.contains(&m)
                    {
                        models.push(m);
                    }
                }
            }
        }
        let reported = if self.reported_cumulative {
            self.reported_last
        } else {
            self.reported_sum
        };
        let main = accounting::main_figure(
            MainInputs {
                calls: main_calls,
                complete,
                complete_calls,
                reported,
            },
            &by_model,
        );
        // Each node's figure, then all subagents together.
        let empty: (AgentUsage, Vec<&str>) = (AgentUsage::default(), Vec::new());
        let inputs: Vec<SubagentInputs<'_>> = self
            .nodes
            .iter()
            .map(|n| {
                let (calls, models) = n
                    .tool_use_id
                    .and_then(|id| per_node.get(&id))
                    .unwrap_or(&empty);
                SubagentInputs {
                    calls: *calls,
                    reported: n.reported_usage,
                    models,
                }
            })
            .collect();
        let mut node_usage: Vec<AgentUsage> =
            inputs.iter().map(accounting::subagent_figure).collect();
        // Calls under a parent_tool_use_id always have a node (agent_of), so
        // every subagent call is in some node's inputs.
        let subagents = accounting::subagents_figure(&mut node_usage, &inputs, &by_model);
        drop(inputs);

        let mut usage = UsageSummary {
            synthetic_messages: self.synthetic,
            main,
            subagents,
            ..UsageSummary::default()
        };

        // modelUsage: per-model sums and the cost by role.
        let mut cost = CostCheck {
            total_cost_usd: self.last_result.as_ref().and_then(|r| r.total_cost_usd),
            ..CostCheck::default()
        };
        let mut sum_cost = super::sum::ExactSum::new();
        let (mut main_cost, mut sub_cost, mut aux_cost) = (
            super::sum::ExactSum::new(),
            super::sum::ExactSum::new(),
            super::sum::ExactSum::new(),
        );
        for m in &mut by_model {
            m.summed = if m.role == ModelRole::Auxiliary {
                None
            } else {
                let mut t = TokenCounts::default();
                for c in &self.calls {
                    if c.model
                        .is_some_and(|cm| accounting::model_matches(m, names.resolve(cm)))
                    {
                        t.add(&c.usage);
                    }
                }
                Some(t)
            };
            let c = m.cost_usd.unwrap_or(0.0);
            sum_cost.add(c);
            match m.role {
                ModelRole::Auxiliary => {
                    usage.auxiliary.add(&m.tokens);
                    aux_cost.add(c);
                }
                ModelRole::Subagent => {
                    usage.models.add(&m.tokens);
                    sub_cost.add(c);
                }
                _ => {
                    usage.models.add(&m.tokens);
                    main_cost.add(c);
                }
            }
        }
        let f = |s: super::sum::ExactSum| s.value().as_f64().unwrap_or(f64::MAX);
        cost.auxiliary_cost_usd = f(aux_cost);
        cost.subagent_cost_usd = f(sub_cost);
        cost.main_cost_usd = f(main_cost);
        if by_model.is_empty() {
            // Without modelUsage the run's cost is its main model's.
            cost.main_cost_usd = cost.total_cost_usd.unwrap_or(0.0);
        }
        let sum_cost = f(sum_cost);
        if self.model_usage_present {
            cost.model_usage_cost_usd = Some(sum_cost);
            cost.matches = cost.total_cost_usd.map(|t| costs_match(t, sum_cost));
        }
        usage.by_role = accounting::role_rows(
            &by_model,
            self.model.as_deref(),
            &usage.main,
            &usage.subagents,
            cost.total_cost_usd,
        );
        usage.by_model = by_model;
        if cost.matches == Some(false) {
            warnings.push(Warning {
                code: WARN_COST_MISMATCH,
                message: format!(
                    "total_cost_usd {} but modelUsage costs sum to {}",
                    cost.total_cost_usd.unwrap_or(0.0),
                    sum_cost
                ),
                line: self.last_result.as_ref().map(|r| r.line),
            });
        }

        // Tools.
        let mut tools: Vec<ToolTally> = Vec::new();
        let mut tool_calls_by_agent: SymMap<u64> = SymMap::default();
        for t in &self.tools {
            let name = names.resolve(t.name);
            let i = match tools.iter().position(|s| s.name == name) {
                Some(i) => i,
                None => {
                    tools.push(ToolTally {
                        name: name.to_string(),
                        ..ToolTally::default()
                    });
                    tools.len() - 1
                }
            };
            let s = &mut tools[i];
            s.calls += 1;
            if t.rejected {
                s.rejections += 1;
            } else if t.error {
                s.errors += 1;
            }
            if !t.answered {
                s.unanswered += 1;
            }
            if let Some(d) = t.duration_ms.filter(|d| *d >= 0) {
                s.timed += 1;
                s.total_ms += d as u64;
                s.max_ms = s.max_ms.max(d as u64);
            }
            if let Some(a) = t.agent {
                *tool_calls_by_agent.entry(a).or_default() += 1;
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));

        // Subagent tree.
        let mut flat: Vec<(Option<Sym>, Option<Sym>, SubagentNode)> =
            Vec::with_capacity(self.nodes.len());
        let opt = |s: Option<Sym>| s.map(|s| names.resolve(s).to_string());
        for (n, u) in self.nodes.iter().zip(node_usage) {
            let tool_name = n
                .tool_use_id
                .and_then(|id| self.tool_by_id.get(&id))
                .map(|&i| names.resolve(self.tools[i as usize].name).to_string());
            let status = n.notified_status.or(n.updated_status).or(n.result_status);
            flat.push((
                n.tool_use_id,
                n.parent,
                SubagentNode {
                    tool_use_id: opt(n.tool_use_id).unwrap_or_default(),
                    tool_name,
                    task_id: opt(n.task_id),
                    task_type: opt(n.task_type),
                    description: n.description.clone(),
                    subagent_type: opt(n.subagent_type),
                    spawn_depth: n.spawn_depth,
                    backgrounded: n.backgrounded,
                    status: opt(status),
                    progress_events: n.progress_events,
                    last_progress: n.last_progress,
                    workflow_agents: n.workflow_agents,
                    workflow_agents_done: n.workflow_agents_done,
                    final_usage: n.final_usage,
                    summary: n.summary.clone(),
                    report: n.report.clone(),
                    result_error: n.result_error,
                    usage: u,
                    events: n.events,
                    tool_calls: n
                        .tool_use_id
                        .and_then(|id| tool_calls_by_agent.get(&id))
                        .copied()
                        .unwrap_or(0),
                    children: Vec::new(),
                },
            ));
        }
        let is_agent = SubagentNode::is_agent;
        let (parents, depth_of) = parents_and_depths(&flat);
        let (mut seen_spawned, mut seen_completed) = (0, 0);
        for (_, _, n) in &flat {
            if is_agent(n) {
                seen_spawned += 1;
                if n.status.as_deref() == Some("completed") {
                    seen_completed += 1;
                }
            }
        }
        let seen_max_depth = flat
            .iter()
            .zip(&depth_of)
            .filter(|((_, _, n), _)| is_agent(n))
            .map(|(_, d)| *d)
            .max()
            .unwrap_or(0);
        let subagents = build_tree(flat, &parents, &depth_of);
        let subagent_check = self
            .last_result
            .as_ref()
            .and_then(|r| r.subagent_stats.as_ref())
            .map(|s| SubagentCheck {
                seen_spawned,
                reported_spawned: s.get("spawned").and_then(|v| v.as_u64()),
                seen_completed,
                reported_completed: s.get("completed").and_then(|v| v.as_u64()),
                seen_max_depth,
                reported_max_depth: s.get("max_depth").and_then(|v| v.as_u64()),
            });

        // Verdict and its warnings.
        let stream_verdict = match &self.last_result {
            None => Verdict::NoResult,
            Some(r) => classify_result(
                r.subtype.as_deref(),
                r.is_error,
                r.terminal_reason.as_deref(),
                self.last_interrupt_seen,
            ),
        };
        if let Some(r) = &self.last_result {
            if stream_verdict == Verdict::Success {
                if r.stop_reason.as_deref() == Some("tool_use") {
                    warnings.push(Warning {
                        code: WARN_SUCCESS_STOP_TOOL_USE,
                        message: "success, but the last model call stopped to use a tool".into(),
                        line: Some(r.line),
                    });
                }
                if r.result_text.as_deref().is_none_or(|t| t.trim().is_empty()) {
                    warnings.push(Warning {
                        code: WARN_SUCCESS_EMPTY_RESULT,
                        message: "success with an empty result text".into(),
                        line: Some(r.line),
                    });
                }
            }
            if self.activity_after_result {
                warnings.push(Warning {
                    code: WARN_ACTIVITY_AFTER_RESULT,
                    message: "the run went on after its last result (a round without a result)"
                        .into(),
                    line: Some(self.last_line),
                });
            }
        }
        if let Some(p) = &partial {
            for m in &p.mismatches {
                warnings.push(Warning {
                    code: WARN_PARTIAL_MISMATCH,
                    message: format!("{} block {}: {}", m.block_type, m.index, m.reason),
                    line: Some(m.line),
                });
            }
        }

        let mut api_retries = std::mem::take(&mut self.retries);
        api_retries.statuses.sort_unstable();
        api_retries.last_error = self.retry_error.map(|e| names.resolve(e).to_string());

        let (model_calls, tool_calls) = if self.keep_calls {
            self.call_lists()
        } else {
            (Vec::new(), Vec::new())
        };

        RunSummary {
            session_id: self.session.take(),
            verdict: stream_verdict,
            stream_verdict,
            exit_code: None,
            events: self.events,
            first_line: self.first_line,
            last_line: self.last_line,
            inits: self.inits,
            model: self.model.take(),
            claude_code_version: self.version.take(),
            started_at: self.started_at.take(),
            ended_at: (!self.ended_at.is_empty()).then(|| std::mem::take(&mut self.ended_at)),
            wall_ms: self.first_ms.zip(self.last_ms).map(|(a, b)| b - a),
            duration_ms_sum: self.duration_ms_sum,
            results: u64::from(self.results),
            last_result: self.last_result.take(),
            usage,
            cost,
            tools,
            tool_results_without_use: self.early_results.len() as u64,
            subagents,
            subagent_check,
            api_retries,
            api_errors: std::mem::take(&mut self.api_errors),
            permission_denials: std::mem::take(&mut self.denials),
            hooks: std::mem::take(&mut self.hooks),
            notifications: std::mem::take(&mut self.notifications),
            compactions: self.compactions,
            partial,
            usage_checks: std::mem::take(&mut self.usage_checks),
            bad_lines: self.bad_lines,
            truncated: self.truncated,
            warnings,
            model_calls,
            tool_calls,
        }
    }

    /// Every model call and every tool call, in order of first appearance.
    fn call_lists(&self) -> (Vec<ModelCall>, Vec<ToolCall>) {
        let names = &self.names;
        let opt = |s: Option<Sym>| s.map(|s| names.resolve(s).to_string());
        let model_calls = self
            .calls
            .iter()
            .map(|c| ModelCall {
                message_id: opt(c.msg),
                agent: opt(c.agent),
                model: opt(c.model),
                usage: c.usage,
                final_usage: c.source.is_final(),
                source: c.source,
                line: c.line,
            })
            .collect();
        let tool_calls = self
            .tools
            .iter()
            .map(|t| ToolCall {
                tool_use_id: names.resolve(t.id).to_string(),
                name: names.resolve(t.name).to_string(),
                agent: opt(t.agent),
                line: t.line,
                result_line: t.result_line,
                started_ms: t.start_ms,
                duration_ms: t.duration_ms,
                answered: t.answered,
                error: t.error,
                rejected: t.rejected,
            })
            .collect();
        (model_calls, tool_calls)
    }
}

/// For each node, the index of the node that launched it (none for the
/// main agent, an unknown launcher, or an edge that would close a cycle),
/// and its depth (1 = launched by the main agent). Linear time.
fn parents_and_depths(
    flat: &[(Option<Sym>, Option<Sym>, SubagentNode)],
) -> (Vec<Option<usize>>, Vec<u64>) {
    let mut index: SymMap<usize> = SymMap::default();
    for (i, (id, _, _)) in flat.iter().enumerate() {
        if let Some(id) = id {
            index.entry(*id).or_insert(i);
        }
    }
    let mut parent: Vec<Option<usize>> = flat
        .iter()
        .enumerate()
        .map(|(i, (_, p, _))| p.and_then(|p| index.get(&p).copied()).filter(|&pi| pi != i))
        .collect();
    let n = flat.len();
    let mut depth = vec![0u64; n];
    // 0 unvisited, 1 on the current path, 2 depth known.
    let mut state = vec![0u8; n];
    let mut path = Vec::new();
    for start in 0..n {
        path.clear();
        let mut cur = start;
        loop {
            match state[cur] {
                2 => break,
                1 => {
                    // A cycle: cut the edge that closes it.
                    if let Some(&last) = path.last() {
                        parent[last] = None;
                    }
                    break;
                }
                _ => {}
            }
            state[cur] = 1;
            path.push(cur);
            match parent[cur] {
                Some(p) => cur = p,
                None => break,
            }
        }
        for &i in path.iter().rev() {
            depth[i] = parent[i].map_or(1, |p| depth[p] + 1);
            state[i] = 2;
        }
    }
    (parent, depth)
}

/// Nest nodes under the node whose tool_use launched them; nodes whose
/// launcher is the main agent (or unknown) are roots. Order of appearance
/// is kept.
fn build_tree(
    flat: Vec<(Option<Sym>, Option<Sym>, SubagentNode)>,
    parent: &[Option<usize>],
    depth: &[u64],
) -> Vec<SubagentNode> {
    let n = flat.len();
    let mut slots: Vec<Option<SubagentNode>> =
        flat.into_iter().map(|(_, _, node)| Some(node)).collect();
    // Deepest first, so a child is complete before it moves into its parent.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(depth[i]));
    let mut children: Vec<Vec<(usize, SubagentNode)>> = (0..n).map(|_| Vec::new()).collect();
    for i in order {
        let Some(mut node) = slots[i].take() else {
            continue;
        };
        let mut kids = std::mem::take(&mut children[i]);
        kids.sort_by_key(|(k, _)| *k);
        node.children = kids.into_iter().map(|(_, c)| c).collect();
        match parent[i] {
            Some(p) => children[p].push((i, node)),
            None => slots[i] = Some(node),
        }
    }
    slots.into_iter().flatten().collect()
}

/// `text` in `buf`'s storage (allocating only to grow it).
fn reuse(buf: Option<String>, text: Option<&str>) -> Option<String> {
    let text = text?;
    let mut buf = buf.unwrap_or_default();
    buf.clear();
    buf.push_str(text);
    Some(buf)
}

/// `texts` in `bufs`' storage, string by string.
fn reuse_all<'a>(mut bufs: Vec<String>, texts: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut n = 0;
    for t in texts {
        match bufs.get_mut(n) {
            Some(b) => {
                b.clear();
                b.push_str(t);
            }
            None => bufs.push(t.to_string()),
        }
        n += 1;
    }
    bufs.truncate(n);
    bufs
}
