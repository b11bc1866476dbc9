//! Totals over many runs: what archive analysis sums (`cctape stats`).

use super::summary::{AgentUsage, RunSummary};
use super::verdict::Verdict;
use serde_json::{Map, Value as J, json};

/// Counts and sums over runs.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct RunTotals {
    /// Runs added.
    pub runs: u64,
    /// Runs per verdict, indexed like [`Verdict::ALL`].
    pub verdicts: [u64; Verdict::ALL.len()],
    /// Sum of the runs' `total_cost_usd`.
    pub total_cost_usd: f64,
    /// Main agents' usage, summed.
    pub main: AgentUsage,
    /// Subagents' usage, summed.
    pub subagents: AgentUsage,
}

impl RunTotals {
    /// Empty totals.
    pub fn new() -> RunTotals {
        RunTotals::default()
    }

    /// Add one run.
    pub fn add(&mut self, r: &RunSummary) {
        self.runs += 1;
        if let Some(i) = Verdict::ALL.iter().position(|v| *v == r.verdict) {
            self.verdicts[i] += 1;
        }
        self.total_cost_usd += r.cost.total_cost_usd.unwrap_or(0.0);
        self.main.messages += r.usage.main.messages;
        self.main.tokens.add(&r.usage.main.tokens);
        self.subagents.messages += r.usage.subagents.messages;
        self.subagents.tokens.add(&r.usage.subagents.tokens);
    }

    /// Add other totals.
    pub fn merge(&mut self, o: &RunTotals) {
        self.runs += o.runs;
        for (a, b) in self.verdicts.iter_mut().zip(o.verdicts) {
            *a += b;
        }
        self.total_cost_usd += o.total_cost_usd;
        self.main.messages += o.main.messages;
        self.main.tokens.add(&o.main.tokens);
        self.subagents.messages += o.subagents.messages;
        self.subagents.tokens.add(&o.subagents.tokens);
    }

    /// Runs with this verdict.
    pub fn count(&self, v: Verdict) -> u64 {
        Verdict::ALL
            .iter()
            .position(|x| *x == v)
            .map_or(0, |i| self.verdicts[i])
    }

    /// `{"runs", "verdicts": {class: count}, "total_cost_usd", "usage":
    /// {"main", "subagents"}}` (verdicts with a zero count left out).
    pub fn to_json(&self) -> J {
        let verdicts: Map<String, J> = Verdict::ALL
            .iter()
            .zip(self.verdicts)
            .filter(|(_, n)| *n > 0)
            .map(|(v, n)| (v.as_str().to_string(), json!(n)))
            .collect();
        let agent = |a: &AgentUsage| {
            json!({
                "messages": a.messages,
                "input_tokens": a.tokens.input_tokens,
                "output_tokens": a.tokens.output_tokens,
                "cache_read_input_tokens": a.tokens.cache_read_input_tokens,
                "cache_creation_input_tokens": a.tokens.cache_creation_input_tokens,
            })
        };
        json!({
            "runs": self.runs,
            "verdicts": verdicts,
            "total_cost_usd": self.total_cost_usd,
            "usage": {"main": agent(&self.main), "subagents": agent(&self.subagents)},
        })
    }
}
