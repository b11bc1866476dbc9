//! One run's state while its events are folded in, and the summary it
//! turns into. The state is split by concern, each in its own module with
//! its own type: the model calls ([`calls`]), the tool calls and their
//! results ([`tools`]), the subagents and tasks ([`agents`]); the results
//! (`result`) and the end (`finish`) read across them.
//!
//! Per line the work is lookups: ids and names are interned in the run's
//! [`Interner`] (no allocation for a string seen before), records are pushed
//! on vectors that grow amortised. What allocates is per run, per result,
//! per task or per partial block, never per line in the steady state.

use super::accounting::{self, CallUsageSource, MainInputs, ModelRole, ModelsSeen, SubagentInputs};
use super::intern::{Interner, Sym, SymMap};
use super::json::{last_entry, to_serde};
use super::partial::{Partials, Scratch};
use super::summary::*;
use super::time::parse_millis;
use super::verdict::{Verdict, VerdictSource, classify_result};
use crate::error::{Error, ErrorKind};
use crate::event::blocks::{self, BlockRole, CallBlock, ResultBlock};
use crate::event::{Event, EventKind, Field, TokenCounts, UsageFields};
use crate::json::{Number, Value, ValueKind};
use agents::Agents;
use calls::Calls;
use tools::Tools;

mod agents;
mod calls;
mod finish;
#[cfg(feature = "otel")]
pub(crate) use finish::depths_cutting_cycles;
mod result;
mod tools;

/// At most this many `bad_line` warnings per run (all are counted).
const MAX_BAD_LINE_WARNINGS: usize = 10;

/// A run being folded: what its events said so far, by concern.
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

    calls: Calls,

    tools: Tools,

    agents: Agents,

    results: u32,
    last_result: Option<ResultSummary>,
    /// The last result's `subagent_stats` counts (`spawned`, `completed`,
    /// `max_depth`; the last of a repeated key, as `serde_json` reads it),
    /// when it had the object: what the stream's subagents are checked
    /// against.
    reported_subagents: Option<[Option<u64>; 3]>,
    /// The last result's `result_index`, when it had one.
    last_result_index: Option<u64>,
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
pub(crate) fn number_text(v: &Value<'_>) -> String {
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

/// Count `i` of [`UsageFields::COUNTS`] in `t`.
fn slot(t: &mut TokenCounts, i: usize) -> &mut u64 {
    match i {
        0 => &mut t.input_tokens,
        1 => &mut t.output_tokens,
        2 => &mut t.cache_read_input_tokens,
        _ => &mut t.cache_creation_input_tokens,
    }
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
        let fields = UsageFields::of(u);
        for (i, k) in UsageFields::COUNTS.iter().enumerate() {
            let Some(v) = fields.count(i) else { continue };
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
                self.retries.add_retry(u64_of(ev.get("error_status")));
                if let Some(e) = str_of(ev.get("error")) {
                    self.retry_error = Some(self.names.intern(e));
                }
            }
            EventKind::SystemPermissionDenied => {
                let name = str_of(ev.get("tool_name")).unwrap_or("");
                if let Some(id) = str_of(ev.get("tool_use_id")) {
                    self.add_denial(name, id, false);
                    let sym = self.names.intern(id);
                    self.tools.reject(sym);
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
            EventKind::SystemTaskStarted => self.agents.on_task_started(&mut self.names, ev),
            EventKind::SystemTaskProgress => self.agents.on_task_progress(&mut self.names, ev),
            EventKind::SystemTaskUpdated => self.agents.on_task_updated(&mut self.names, ev),
            EventKind::SystemTaskNotification => {
                self.agents.on_task_notification(&mut self.names, ev)
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

    fn on_assistant(&mut self, ev: &Event<'_>, scratch: &mut Scratch) {
        if self.results > 0 {
            self.activity_after_result = true;
        }
        let agent = self.agents.agent_of(&mut self.names, ev);
        if ev.message().is_none() {
            return;
        }
        let content = ev.message_get("content");
        let model = ev.model();
        let synthetic = model == Some("<synthetic>")
            || ev.get("is_api_error_message").and_then(|v| v.as_bool()) == Some(true);
        if synthetic {
            self.calls.synthetic += 1;
            let text = content
                .and_then(|c| c.elements().find_map(|b| str_of(b.get("text"))))
                .unwrap_or("");
            self.calls.api_errors.push(ApiErrorMessage {
                error: str_of(ev.get("error")).map(str::to_string),
                text: text.to_string(),
                line: ev.line(),
            });
            return;
        }
        let model = model.map(|m| self.names.intern(m));
        if let Some(m) = model {
            match agent {
                None => self.calls.main_models.insert(m, ()),
                Some(_) => self.calls.sub_models.insert(m, ()),
            };
        }
        let usage = ev.message_get("usage").map(|u| self.usage_of(u, ev.line()));
        // A message whose stop_reason is set came whole: its usage is final
        // (the snapshot of a streaming message has stop_reason null).
        let source = CallUsageSource::of_message(str_of(ev.message_get("stop_reason")).is_some());
        let msg_id = ev.message_id().map(|id| self.names.intern(id));
        let start = ev.timestamp().and_then(parse_millis);
        self.calls.record(
            (msg_id, agent, model),
            usage,
            source,
            self.results,
            (ev.line(), start),
        );

        let Some(content) = content else { return };
        for block in content.elements() {
            match BlockRole::of(block) {
                role @ (BlockRole::Call | BlockRole::ServerCall) => {
                    if let Some(call) = CallBlock::of(block, role) {
                        self.on_tool_use(call, agent, start, ev.line());
                    }
                }
                // A server tool's result, in the assistant's own content.
                BlockRole::Result => self.on_server_tool_result(block, start, ev.line()),
                _ => {}
            }
            if agent.is_none() && self.partial.any() {
                self.partial
                    .check_assistant(msg_id, block, &self.names, scratch);
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
                    self.calls.main_models.insert(model, ());
                }
                let usage = m
                    .and_then(|m| m.get("usage"))
                    .map(|u| self.usage_of(u, ev.line()));
                self.partial.start_message(id, &self.names, scratch);
                if id.is_some() {
                    let at = (ev.line(), ev.timestamp().and_then(parse_millis));
                    self.calls.record(
                        (id, None, model),
                        usage,
                        CallUsageSource::Snapshot,
                        self.results,
                        at,
                    );
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
                    && let Some(&i) = self.calls.by_msg.get(&m)
                {
                    let mut usage = self.calls.list[i as usize].usage;
                    self.merge_usage(&mut usage, u, ev.line());
                    self.calls.final_usage(i as usize, usage, ev.line());
                }
            }
            "message_stop" => self.partial.finish_message(&self.names, scratch),
            _ => {}
        }
    }
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
