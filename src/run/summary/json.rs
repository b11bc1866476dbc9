//! The stable JSON of a run: [`RunSummary::to_json`] (what `cctape verdict`
//! prints, keys in the order `docs/accounting.md` lists) and the JSON of
//! its parts (agent figures, per-role rows, the subagent tree).
//!
//! Each object is a `serde` view of the summary ([`RunJson`] and the views
//! below it), written as it is serialized: `verdict --json` writes a run's
//! record without building a `serde_json` map for it, and the `Value`s the
//! functions here return are made from the same views, so both give the
//! same bytes.

use super::*;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// An object written entry by entry: `object!(s, "key" => value, ...)`,
/// each value anything `Serialize`, in the order given.
macro_rules! object {
    ($s:expr, $($k:literal => $v:expr),* $(,)?) => {{
        let mut m = $s.serialize_map(None)?;
        $(m.serialize_entry($k, &$v)?;)*
        m.end()
    }};
}

/// A slice written as an array of views: each item through `view`.
struct Each<'a, T, V>(&'a [T], fn(&'a T) -> V);

impl<'a, T, V: Serialize> Serialize for Each<'a, T, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(self.1))
    }
}

/// The entries of an object keyed by `key`, as a `serde_json` map would
/// hold them: a key met twice keeps its first place and its last value.
/// Linear in the entries: a result's `modelUsage` can hold any number of
/// keys (a map is made only past a handful).
fn keyed<'a, T, K: Eq + std::hash::Hash + Copy>(
    items: &'a [T],
    key: impl Fn(&'a T) -> K + Copy,
) -> Vec<(K, &'a T)> {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .filter(|&(i, t)| !items[..i].iter().any(|e| key(e) == key(t)))
            .map(|(i, t)| {
                let last = items[i..].iter().rfind(|e| key(e) == key(t));
                (key(t), last.unwrap_or(t))
            })
            .collect();
    }
    let mut last: std::collections::HashMap<K, &'a T> = std::collections::HashMap::new();
    for t in items {
        last.insert(key(t), t);
    }
    // The first time a key is met it takes its last value; after, nothing.
    items
        .iter()
        .filter_map(|t| last.remove_entry(&key(t)))
        .collect()
}

/// A run's object ([`RunSummary::to_json_with_file`]), with `file` and one
/// more entry after it when given (the records of `cctape verdict`).
pub(crate) struct RunJson<'a> {
    /// The run.
    pub(crate) run: &'a RunSummary,
    /// `file`, third, after `ok`.
    pub(crate) file: Option<&'a str>,
    /// One more entry, after `file`.
    pub(crate) extra: Option<(&'a str, &'a J)>,
}

impl Serialize for RunJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let run = self.run;
        let r = run.last_result.as_ref();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("verdict", run.verdict.as_str())?;
        m.serialize_entry("ok", &run.ok())?;
        if let Some(f) = self.file {
            m.serialize_entry("file", f)?;
        }
        if let Some((k, v)) = self.extra {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("session_id", &run.session_id)?;
        m.serialize_entry("stream_verdict", run.stream_verdict.as_str())?;
        m.serialize_entry("exit_code", &run.exit_code)?;
        m.serialize_entry("verdict_source", run.verdict_source.as_str())?;
        m.serialize_entry("results", &run.results)?;
        m.serialize_entry("is_error", &r.and_then(|r| r.is_error))?;
        m.serialize_entry("subtype", &r.and_then(|r| r.subtype.as_deref()))?;
        let terminal = r.and_then(|r| r.terminal_reason.as_deref());
        m.serialize_entry("terminal_reason", &terminal)?;
        m.serialize_entry("stop_reason", &r.and_then(|r| r.stop_reason.as_deref()))?;
        m.serialize_entry("num_turns", &r.and_then(|r| r.num_turns))?;
        m.serialize_entry("duration_ms", &r.and_then(|r| r.duration_ms))?;
        m.serialize_entry("duration_ms_sum", &run.duration_ms_sum)?;
        m.serialize_entry("wall_ms", &run.wall_ms)?;
        m.serialize_entry("total_cost_usd", &Cost(run))?;
        m.serialize_entry("result_text", &r.and_then(|r| r.result_text.as_deref()))?;
        m.serialize_entry("errors", r.map_or(&[][..], |r| &r.errors[..]))?;
        m.serialize_entry("api_error_status", &r.and_then(|r| r.api_error_status))?;
        let startup = r.and_then(|r| r.startup_failure_reason.as_deref());
        m.serialize_entry("startup_failure_reason", &startup)?;
        m.serialize_entry("events", &run.events)?;
        m.serialize_entry("lines", &Lines(run))?;
        m.serialize_entry("rounds", &run.inits)?;
        m.serialize_entry("model", &run.model)?;
        m.serialize_entry("claude_code_version", &run.claude_code_version)?;
        m.serialize_entry("started_at", &run.started_at)?;
        m.serialize_entry("ended_at", &run.ended_at)?;
        m.serialize_entry("usage", &Usage(&run.usage))?;
        m.serialize_entry("cost", &CostFigures(run))?;
        m.serialize_entry("tools", &Tools(&run.tools))?;
        m.serialize_entry("tool_results_without_use", &run.tool_results_without_use)?;
        m.serialize_entry("subagent_count", &run.subagent_count())?;
        m.serialize_entry("subagents", &Each(&run.subagents, Node))?;
        m.serialize_entry("subagent_check", &run.subagent_check.as_ref().map(Check))?;
        m.serialize_entry("api_retries", &Retries(&run.api_retries))?;
        m.serialize_entry("api_errors", &Each(&run.api_errors, ApiError))?;
        m.serialize_entry("permission_denials", &Each(&run.permission_denials, Denial))?;
        m.serialize_entry("hooks", &HookFigures(&run.hooks))?;
        m.serialize_entry("notifications", &Each(&run.notifications, Note))?;
        m.serialize_entry("compactions", &run.compactions)?;
        m.serialize_entry("partial_messages", &run.partial.as_ref().map(Partial))?;
        m.serialize_entry("usage_checks", &Each(&run.usage_checks, Checked))?;
        m.serialize_entry("bad_lines", &run.bad_lines)?;
        m.serialize_entry("truncated", &run.truncated)?;
        m.serialize_entry("warnings", &Each(&run.warnings, Warned))?;
        m.end()
    }
}

impl RunSummary {
    /// The run as one JSON object with stable field names in a stable
    /// order, `verdict` and `ok` first (what `cctape verdict` prints, which
    /// puts `file` after `ok`; the order is documented in
    /// `docs/accounting.md`).
    pub fn to_json(&self) -> J {
        self.to_json_with_file(None)
    }

    /// [`to_json`](RunSummary::to_json) with `file` third, after `ok`.
    pub(crate) fn to_json_with_file(&self, file: Option<&str>) -> J {
        let view = RunJson {
            run: self,
            file,
            extra: None,
        };
        // Every key is a string: this does not fail.
        serde_json::to_value(view).unwrap_or(J::Null)
    }

    /// The run's cost as JSON: the number, or the text as written when no
    /// `f64` holds it (a string: see [`crate::run::SumValue::to_json`]).
    pub fn cost_json(&self) -> J {
        serde_json::to_value(Cost(self)).unwrap_or(J::Null)
    }
}

/// The run's cost: the number, or the text as written when no `f64` holds
/// it, or null.
struct Cost<'a>(&'a RunSummary);

impl Serialize for Cost<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.0.last_result.as_ref();
        match (
            self.0.cost.total_cost_usd,
            text.and_then(|r| r.total_cost_text.as_deref()),
        ) {
            // serde_json writes a number that is not finite as null, as
            // `finite_json` makes it.
            (Some(c), _) => s.serialize_f64(c),
            (None, Some(t)) => s.serialize_str(t),
            (None, None) => s.serialize_none(),
        }
    }
}

/// `lines`: the run's first and last line.
struct Lines<'a>(&'a RunSummary);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object!(s, "first" => self.0.first_line, "last" => self.0.last_line)
    }
}

/// `cost`: every cost figure and where the total came from.
struct CostFigures<'a>(&'a RunSummary);

impl Serialize for CostFigures<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = &self.0.cost;
        object!(s,
            "total_cost_usd" => Cost(self.0),
            "model_usage_cost_usd" => c.model_usage_cost_usd,
            "main_cost_usd" => c.main_cost_usd,
            "subagent_cost_usd" => c.subagent_cost_usd,
            "auxiliary_cost_usd" => c.auxiliary_cost_usd,
            "matches" => c.matches,
            "source" => c.source().as_str(),
        )
    }
}

/// `tools`: an object keyed by tool name.
struct Tools<'a>(&'a [ToolTally]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (name, t) in keyed(self.0, |t| t.name.as_str()) {
            m.serialize_entry(name, &Tool(t))?;
        }
        m.end()
    }
}

/// One tool's tally.
struct Tool<'a>(&'a ToolTally);

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        object!(s,
            "calls" => t.calls,
            "errors" => t.errors,
            "rejections" => t.rejections,
            "unanswered" => t.unanswered,
            "timed" => t.timed,
            "total_ms" => t.total_ms,
            "max_ms" => t.max_ms,
        )
    }
}

/// `subagent_check`: the tree seen against the figures reported.
struct Check<'a>(&'a SubagentCheck);

impl Serialize for Check<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        object!(s,
            "seen_spawned" => c.seen_spawned,
            "reported_spawned" => c.reported_spawned,
            "seen_completed" => c.seen_completed,
            "reported_completed" => c.reported_completed,
            "seen_max_depth" => c.seen_max_depth,
            "reported_max_depth" => c.reported_max_depth,
            "matches" => c.matches(),
        )
    }
}

/// `api_retries`, with its statuses keyed by the status as text.
struct Retries<'a>(&'a ApiRetries);

impl Serialize for Retries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        object!(s,
            "count" => r.count,
            "statuses" => Statuses(&r.statuses),
            "last_error" => r.last_error,
            "last_status" => r.last_status,
        )
    }
}

/// Retries by status: `{"429": 2}`.
struct Statuses<'a>(&'a [(u64, u64)]);

impl Serialize for Statuses<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (status, (_, n)) in keyed(self.0, |e| e.0) {
            // A number as a key is written as its text.
            m.serialize_entry(&status, n)?;
        }
        m.end()
    }
}

/// One API error message.
struct ApiError<'a>(&'a ApiErrorMessage);

impl Serialize for ApiError<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        object!(s, "error" => e.error, "text" => e.text, "line" => e.line)
    }
}

/// One permission denial.
struct Denial<'a>(&'a DeniedToolUse);

impl Serialize for Denial<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        object!(s,
            "tool_name" => d.tool_name,
            "tool_use_id" => d.tool_use_id,
            "in_result" => d.in_result,
            "event" => d.event,
        )
    }
}

/// `hooks`: counts and failures.
struct HookFigures<'a>(&'a Hooks);

impl Serialize for HookFigures<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = self.0;
        object!(s,
            "started" => h.started,
            "responses" => h.responses,
            "failures" => Each(&h.failures, HookFailed),
        )
    }
}

/// One failed hook.
struct HookFailed<'a>(&'a HookFailure);

impl Serialize for HookFailed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = self.0;
        object!(s,
            "hook_name" => h.hook_name,
            "exit_code" => h.exit_code,
            "outcome" => h.outcome,
            "line" => h.line,
        )
    }
}

/// One notification.
struct Note<'a>(&'a Notification);

impl Serialize for Note<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object!(s, "key" => self.0.key, "text" => self.0.text)
    }
}

/// One check of a result's usage against the calls.
struct Checked<'a>(&'a UsageCheck);

impl Serialize for Checked<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        object!(s,
            "result" => c.result,
            "line" => c.line,
            "basis" => c.basis.as_str(),
            "differs" => c.differing_fields(),
            "reported" => Tokens(&c.reported),
            "round" => Tokens(&c.round),
            "cumulative" => Tokens(&c.cumulative),
        )
    }
}

/// One warning.
struct Warned<'a>(&'a Warning);

impl Serialize for Warned<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let w = self.0;
        object!(s, "code" => w.code, "message" => w.message, "line" => w.line)
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

/// An agent's figure: the four counts, `source`, `lower_bound`, `messages`,
/// `final_calls`, then `figures` (every figure, for audit).
struct Agent<'a>(&'a AgentUsage);

impl Serialize for Agent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut m = s.serialize_map(None)?;
        token_entries(&mut m, &a.tokens)?;
        m.serialize_entry("source", a.source.as_str())?;
        m.serialize_entry("lower_bound", &a.lower_bound())?;
        m.serialize_entry("messages", &a.messages)?;
        m.serialize_entry("final_calls", &a.final_calls)?;
        m.serialize_entry("figures", &AgentFigures(a))?;
        m.end()
    }
}

/// An agent's `figures`: its calls' sum, and what was reported.
struct AgentFigures<'a>(&'a AgentUsage);

impl Serialize for AgentFigures<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        object!(s,
            "calls" => Tokens(&a.calls),
            "reported" => a.reported.as_ref().map(Tokens),
            "model_usage" => a.model_usage.as_ref().map(Tokens),
        )
    }
}

/// An agent's figure as JSON: the four counts, `source`, `lower_bound`,
/// `messages`, `final_calls`, then `figures` (every figure, for audit).
pub fn agent_json(a: &AgentUsage) -> J {
    serde_json::to_value(Agent(a)).unwrap_or(J::Null)
}

/// One per-model, per-role row.
struct Role<'a>(&'a RoleUsage);

impl Serialize for Role<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("model", &r.model)?;
        m.serialize_entry("role", r.role.as_str())?;
        token_entries(&mut m, &r.tokens)?;
        m.serialize_entry("cost_usd", &r.cost_usd)?;
        m.serialize_entry("from_model_usage", &r.from_model_usage)?;
        m.end()
    }
}

/// `usage`: the agents' figures, by model, by role, and the sums.
struct Usage<'a>(&'a UsageSummary);

impl Serialize for Usage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.0;
        object!(s,
            "main" => Agent(&u.main),
            "subagents" => Agent(&u.subagents),
            "by_model" => ByModel(&u.by_model),
            "by_role" => Each(&u.by_role, Role),
            "models" => Tokens(&u.models),
            "auxiliary" => Tokens(&u.auxiliary),
            "synthetic_messages" => u.synthetic_messages,
        )
    }
}

/// `usage.by_model`: an object keyed by model.
struct ByModel<'a>(&'a [ModelUsageSummary]);

impl Serialize for ByModel<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (model, u) in keyed(self.0, |u| u.model.as_str()) {
            m.serialize_entry(model, &ModelEntry(u))?;
        }
        m.end()
    }
}

/// One model's figures.
struct ModelEntry<'a>(&'a ModelUsageSummary);

impl Serialize for ModelEntry<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.0;
        let mut m = s.serialize_map(None)?;
        token_entries(&mut m, &u.tokens)?;
        m.serialize_entry("cost_usd", &u.cost_usd)?;
        m.serialize_entry("role", u.role.as_str())?;
        m.serialize_entry("auxiliary", &u.auxiliary)?;
        m.serialize_entry("summed", &u.summed.as_ref().map(Tokens))?;
        m.end()
    }
}

/// A task's usage as its events report it.
struct TaskUsage<'a>(&'a TaskUsageSummary);

impl Serialize for TaskUsage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        object!(s,
            "total_tokens" => t.total_tokens,
            "tool_uses" => t.tool_uses,
            "duration_ms" => t.duration_ms,
        )
    }
}

/// One node of the subagent tree, with its children.
struct Node<'a>(&'a SubagentNode);

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0;
        object!(s,
            "tool_use_id" => n.tool_use_id,
            "tool_name" => n.tool_name,
            "task_id" => n.task_id,
            "task_type" => n.task_type,
            "description" => n.description,
            "subagent_type" => n.subagent_type,
            "spawn_depth" => n.spawn_depth,
            "backgrounded" => n.backgrounded,
            "status" => n.status,
            "progress_events" => n.progress_events,
            "last_progress" => n.last_progress.as_ref().map(TaskUsage),
            "workflow_agents" => n.workflow_agents,
            "workflow_agents_done" => n.workflow_agents_done,
            "final_usage" => n.final_usage.as_ref().map(TaskUsage),
            "summary" => n.summary,
            "report" => n.report,
            "result_error" => n.result_error,
            "usage" => Agent(&n.usage),
            "events" => n.events,
            "tool_calls" => n.tool_calls,
            "children" => Each(&n.children, Node),
        )
    }
}

/// `partial_messages`: what the partial-message events rebuilt.
struct Partial<'a>(&'a PartialSummary);

impl Serialize for Partial<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        object!(s,
            "events" => p.events,
            "messages" => p.messages,
            "blocks" => p.blocks,
            "verified" => p.verified,
            "normalized" => p.normalized,
            "unverified" => p.unverified,
            "orphan_events" => p.orphan_events,
            "mismatches" => Each(&p.mismatches, Mismatch),
            "incomplete" => Each(&p.incomplete, Incomplete),
        )
    }
}

/// A block whose deltas and final message differ.
struct Mismatch<'a>(&'a BlockMismatch);

impl Serialize for Mismatch<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        object!(s,
            "message_id" => m.message_id,
            "index" => m.index,
            "type" => m.block_type,
            "reason" => m.reason,
            "line" => m.line,
        )
    }
}

/// A block the stream left unfinished.
struct Incomplete<'a>(&'a IncompleteBlock);

impl Serialize for Incomplete<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        object!(s,
            "message_id" => b.message_id,
            "index" => b.index,
            "type" => b.block_type,
            "text" => b.text,
            "signature" => b.signature,
            "tool_use_id" => b.tool_use_id,
            "tool_name" => b.tool_name,
            "input" => b.input,
            "deltas" => b.deltas,
            "line" => b.line,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::keyed;

    #[test]
    fn a_key_met_twice_keeps_its_first_place_and_its_last_value_few_or_many() {
        // (key, value): "b" twice among few entries, and among many.
        let few = [("a", 1), ("b", 2), ("c", 3), ("b", 4)];
        let got: Vec<_> = keyed(&few, |e| e.0)
            .into_iter()
            .map(|(k, e)| (k, e.1))
            .collect();
        assert_eq!(got, [("a", 1), ("b", 4), ("c", 3)]);
        let names: Vec<String> = (0..40).map(|i| format!("m{i}")).collect();
        let mut many: Vec<(&str, u32)> = names.iter().map(|n| (n.as_str(), 0)).collect();
        many.push(("m3", 7));
        many.push(("m0", 9));
        let got: Vec<_> = keyed(&many, |e| e.0)
            .into_iter()
            .map(|(k, e)| (k, e.1))
            .collect();
        assert_eq!(got.len(), 40);
        assert_eq!(
            (got[0], got[3], got[39]),
            (("m0", 9), ("m3", 7), ("m39", 0))
        );
        // Every key once, in the order first met.
        assert!(got.iter().zip(&names).all(|(g, n)| g.0 == n));
    }
}
