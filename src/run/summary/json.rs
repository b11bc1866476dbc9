//! The stable JSON of a run: [`RunSummary::to_json`] (what `cctape verdict`
//! prints, keys in the order `docs/accounting.md` lists) and the JSON of
//! its parts (agent figures, per-role rows, the subagent tree).

use super::*;
use serde::ser::{Serialize, SerializeMap, Serializer};

impl RunSummary {
    /// The run as one JSON object with stable field names in a stable
    /// order, `verdict` and `ok` first (what `cctape verdict` prints, which
    /// puts `file` after `ok`; the order is documented in
    /// `docs/accounting.md`).
    pub fn to_json(&self) -> J {
        self.to_json_with_file(None)
    }

    /// [`to_json`](RunSummary::to_json) with `file` third, after `ok`.
    pub fn to_json_with_file(&self, file: Option<&str>) -> J {
        let r = self.last_result.as_ref();
        let mut o = Map::new();
        o.insert("verdict".into(), json!(self.verdict.as_str()));
        o.insert("ok".into(), json!(self.ok()));
        if let Some(f) = file {
            o.insert("file".into(), json!(f));
        }
        o.insert("session_id".into(), json!(self.session_id));
        o.insert("stream_verdict".into(), json!(self.stream_verdict.as_str()));
        o.insert("exit_code".into(), json!(self.exit_code));
        o.insert("verdict_source".into(), json!(self.verdict_source.as_str()));
        o.insert("results".into(), json!(self.results));
        o.insert("is_error".into(), json!(r.and_then(|r| r.is_error)));
        o.insert(
            "subtype".into(),
            json!(r.and_then(|r| r.subtype.as_deref())),
        );
        o.insert(
            "terminal_reason".into(),
            json!(r.and_then(|r| r.terminal_reason.as_deref())),
        );
        o.insert(
            "stop_reason".into(),
            json!(r.and_then(|r| r.stop_reason.as_deref())),
        );
        o.insert("num_turns".into(), json!(r.and_then(|r| r.num_turns)));
        o.insert("duration_ms".into(), json!(r.and_then(|r| r.duration_ms)));
        o.insert("duration_ms_sum".into(), json!(self.duration_ms_sum));
        o.insert("wall_ms".into(), json!(self.wall_ms));
        o.insert("total_cost_usd".into(), self.cost_json());
        o.insert(
            "result_text".into(),
            json!(r.and_then(|r| r.result_text.as_deref())),
        );
        o.insert(
            "errors".into(),
            json!(r.map(|r| &r.errors[..]).unwrap_or_default()),
        );
        o.insert(
            "api_error_status".into(),
            json!(r.and_then(|r| r.api_error_status)),
        );
        o.insert(
            "startup_failure_reason".into(),
            json!(r.and_then(|r| r.startup_failure_reason.as_deref())),
        );
        o.insert("events".into(), json!(self.events));
        o.insert(
            "lines".into(),
            json!({"first": self.first_line, "last": self.last_line}),
        );
        o.insert("rounds".into(), json!(self.inits));
        o.insert("model".into(), json!(self.model));
        o.insert(
            "claude_code_version".into(),
            json!(self.claude_code_version),
        );
        o.insert("started_at".into(), json!(self.started_at));
        o.insert("ended_at".into(), json!(self.ended_at));
        o.insert("usage".into(), usage_json(&self.usage));
        o.insert(
            "cost".into(),
            json!({
                "total_cost_usd": self.cost_json(),
                "model_usage_cost_usd": self.cost.model_usage_cost_usd.map(finite_json),
                "main_cost_usd": finite_json(self.cost.main_cost_usd),
                "subagent_cost_usd": finite_json(self.cost.subagent_cost_usd),
                "auxiliary_cost_usd": finite_json(self.cost.auxiliary_cost_usd),
                "matches": self.cost.matches,
                "source": self.cost.source().as_str(),
            }),
        );
        let mut tools = Map::new();
        for t in &self.tools {
            tools.insert(
                t.name.clone(),
                json!({
                    "calls": t.calls,
                    "errors": t.errors,
                    "rejections": t.rejections,
                    "unanswered": t.unanswered,
                    "timed": t.timed,
                    "total_ms": t.total_ms,
                    "max_ms": t.max_ms,
                }),
            );
        }
        o.insert("tools".into(), J::Object(tools));
        o.insert(
            "tool_results_without_use".into(),
            json!(self.tool_results_without_use),
        );
        o.insert("subagent_count".into(), json!(self.subagent_count()));
        o.insert(
            "subagents".into(),
            J::Array(self.subagents.iter().map(node_json).collect()),
        );
        o.insert(
            "subagent_check".into(),
            match &self.subagent_check {
                None => J::Null,
                Some(c) => json!({
                    "seen_spawned": c.seen_spawned,
                    "reported_spawned": c.reported_spawned,
                    "seen_completed": c.seen_completed,
                    "reported_completed": c.reported_completed,
                    "seen_max_depth": c.seen_max_depth,
                    "reported_max_depth": c.reported_max_depth,
                    "matches": c.matches(),
                }),
            },
        );
        let statuses: Map<String, J> = self
            .api_retries
            .statuses
            .iter()
            .map(|(s, n)| (s.to_string(), json!(n)))
            .collect();
        o.insert(
            "api_retries".into(),
            json!({
                "count": self.api_retries.count,
                "statuses": statuses,
                "last_error": self.api_retries.last_error,
                "last_status": self.api_retries.last_status,
            }),
        );
        o.insert(
            "api_errors".into(),
            J::Array(
                self.api_errors
                    .iter()
                    .map(|e| json!({"error": e.error, "text": e.text, "line": e.line}))
                    .collect(),
            ),
        );
        o.insert(
            "permission_denials".into(),
            J::Array(
                self.permission_denials
                    .iter()
                    .map(|d| {
                        json!({
                            "tool_name": d.tool_name,
                            "tool_use_id": d.tool_use_id,
                            "in_result": d.in_result,
                            "event": d.event,
                        })
                    })
                    .collect(),
            ),
        );
        o.insert(
            "hooks".into(),
            json!({
                "started": self.hooks.started,
                "responses": self.hooks.responses,
                "failures": self.hooks.failures.iter().map(|h| json!({
                    "hook_name": h.hook_name,
                    "exit_code": h.exit_code,
                    "outcome": h.outcome,
                    "line": h.line,
                })).collect::<Vec<_>>(),
            }),
        );
        o.insert(
            "notifications".into(),
            J::Array(
                self.notifications
                    .iter()
                    .map(|n| json!({"key": n.key, "text": n.text}))
                    .collect(),
            ),
        );
        o.insert("compactions".into(), json!(self.compactions));
        o.insert(
            "partial_messages".into(),
            match &self.partial {
                None => J::Null,
                Some(p) => partial_json(p),
            },
        );
        o.insert(
            "usage_checks".into(),
            J::Array(
                self.usage_checks
                    .iter()
                    .map(|c| {
                        json!({
                            "result": c.result,
                            "line": c.line,
                            "basis": c.basis.as_str(),
                            "differs": c.differing_fields(),
                            "reported": tokens_json(&c.reported),
                            "round": tokens_json(&c.round),
                            "cumulative": tokens_json(&c.cumulative),
                        })
                    })
                    .collect(),
            ),
        );
        o.insert("bad_lines".into(), json!(self.bad_lines));
        o.insert("truncated".into(), json!(self.truncated));
        o.insert(
            "warnings".into(),
            J::Array(
                self.warnings
                    .iter()
                    .map(|w| json!({"code": w.code, "message": w.message, "line": w.line}))
                    .collect(),
            ),
        );
        J::Object(o)
    }
}

impl RunSummary {
    /// The run's cost as JSON: the number, or the text as written when no
    /// `f64` holds it (a string: see [`crate::run::SumValue::to_json`]).
    pub fn cost_json(&self) -> J {
        match (
            self.cost.total_cost_usd,
            self.last_result
                .as_ref()
                .and_then(|r| r.total_cost_text.as_deref()),
        ) {
            (Some(c), _) => finite_json(c),
            (None, Some(t)) => J::String(t.to_string()),
            (None, None) => J::Null,
        }
    }
}

/// The four counts of [`TokenCounts`], in the order of the API's `usage`
/// ([`tokens_json`]'s object, written as it is serialized).
pub(crate) struct Tokens<'a>(pub &'a TokenCounts);

impl Serialize for Tokens<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        token_entries(&mut m, self.0)?;
        m.end()
    }
}

/// The four counts as entries of an object being written.
pub(crate) fn token_entries<M: SerializeMap>(m: &mut M, t: &TokenCounts) -> Result<(), M::Error> {
    m.serialize_entry("input_tokens", &t.input_tokens)?;
    m.serialize_entry("output_tokens", &t.output_tokens)?;
    m.serialize_entry("cache_read_input_tokens", &t.cache_read_input_tokens)?;
    m.serialize_entry(
        "cache_creation_input_tokens",
        &t.cache_creation_input_tokens,
    )
}

/// The four counts as JSON, in the order of the API's `usage`.
pub fn tokens_json(t: &TokenCounts) -> J {
    // Every key is a string: this does not fail.
    serde_json::to_value(Tokens(t)).unwrap_or(J::Null)
}

/// An agent's figure as JSON: the four counts, `source`, `lower_bound`,
/// `messages`, `final_calls`, then `figures` (every figure, for audit).
pub fn agent_json(a: &AgentUsage) -> J {
    let mut o = match tokens_json(&a.tokens) {
        J::Object(o) => o,
        _ => Map::new(),
    };
    o.insert("source".into(), json!(a.source.as_str()));
    o.insert("lower_bound".into(), json!(a.lower_bound()));
    o.insert("messages".into(), json!(a.messages));
    o.insert("final_calls".into(), json!(a.final_calls));
    o.insert(
        "figures".into(),
        json!({
            "calls": tokens_json(&a.calls),
            "reported": a.reported.as_ref().map_or(J::Null, tokens_json),
            "model_usage": a.model_usage.as_ref().map_or(J::Null, tokens_json),
        }),
    );
    J::Object(o)
}

/// Per-model, per-role rows as JSON.
pub fn roles_json(rows: &[RoleUsage]) -> J {
    J::Array(
        rows.iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("model".into(), json!(r.model));
                o.insert("role".into(), json!(r.role.as_str()));
                if let J::Object(t) = tokens_json(&r.tokens) {
                    o.extend(t);
                }
                o.insert("cost_usd".into(), json!(r.cost_usd.map(finite_json)));
                o.insert("from_model_usage".into(), json!(r.from_model_usage));
                J::Object(o)
            })
            .collect(),
    )
}

fn usage_json(u: &UsageSummary) -> J {
    let mut by_model = Map::new();
    for m in &u.by_model {
        let mut e = match tokens_json(&m.tokens) {
            J::Object(o) => o,
            _ => Map::new(),
        };
        e.insert("cost_usd".into(), json!(m.cost_usd.map(finite_json)));
        e.insert("role".into(), json!(m.role.as_str()));
        e.insert("auxiliary".into(), json!(m.auxiliary));
        e.insert(
            "summed".into(),
            m.summed.as_ref().map_or(J::Null, tokens_json),
        );
        by_model.insert(m.model.clone(), J::Object(e));
    }
    json!({
        "main": agent_json(&u.main),
        "subagents": agent_json(&u.subagents),
        "by_model": by_model,
        "by_role": roles_json(&u.by_role),
        "models": tokens_json(&u.models),
        "auxiliary": tokens_json(&u.auxiliary),
        "synthetic_messages": u.synthetic_messages,
    })
}

fn task_usage_json(t: &Option<TaskUsageSummary>) -> J {
    match t {
        None => J::Null,
        Some(t) => json!({
            "total_tokens": t.total_tokens,
            "tool_uses": t.tool_uses,
            "duration_ms": t.duration_ms,
        }),
    }
}

fn node_json(n: &SubagentNode) -> J {
    json!({
        "tool_use_id": n.tool_use_id,
        "tool_name": n.tool_name,
        "task_id": n.task_id,
        "task_type": n.task_type,
        "description": n.description,
        "subagent_type": n.subagent_type,
        "spawn_depth": n.spawn_depth,
        "backgrounded": n.backgrounded,
        "status": n.status,
        "progress_events": n.progress_events,
        "last_progress": task_usage_json(&n.last_progress),
        "workflow_agents": n.workflow_agents,
        "workflow_agents_done": n.workflow_agents_done,
        "final_usage": task_usage_json(&n.final_usage),
        "summary": n.summary,
        "report": n.report,
        "result_error": n.result_error,
        "usage": agent_json(&n.usage),
        "events": n.events,
        "tool_calls": n.tool_calls,
        "children": n.children.iter().map(node_json).collect::<Vec<_>>(),
    })
}

fn partial_json(p: &PartialSummary) -> J {
    json!({
        "events": p.events,
        "messages": p.messages,
        "blocks": p.blocks,
        "verified": p.verified,
        "normalized": p.normalized,
        "unverified": p.unverified,
        "orphan_events": p.orphan_events,
        "mismatches": p.mismatches.iter().map(|m| json!({
            "message_id": m.message_id,
            "index": m.index,
            "type": m.block_type,
            "reason": m.reason,
            "line": m.line,
        })).collect::<Vec<_>>(),
        "incomplete": p.incomplete.iter().map(|b| json!({
            "message_id": b.message_id,
            "index": b.index,
            "type": b.block_type,
            "text": b.text,
            "signature": b.signature,
            "tool_use_id": b.tool_use_id,
            "tool_name": b.tool_name,
            "input": b.input,
            "deltas": b.deltas,
            "line": b.line,
        })).collect::<Vec<_>>(),
    })
}
