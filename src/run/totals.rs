//! Totals over many runs: what archive analysis sums (`cctape stats`), in
//! one place for every command and grouping.
//!
//! Every sum is exact and independent of the order runs are added or
//! totals merged: counts are integers, costs go into an [`ExactSum`]. So
//! `cctape stats` prints the same bytes for any `--jobs`.
//!
//! Aggregates sum the per-run roles: a model is counted as main, subagent
//! or auxiliary run by run ([`RunSummary::usage`] `by_role`), never with one
//! label for every run.

use super::accounting::{CostSource, ModelRole};
use super::sum::ExactSum;
use super::summary::{RunSummary, tokens_json};
use super::verdict::Verdict;
use crate::event::TokenCounts;
use serde_json::{Map, Value as J, json};
use std::collections::BTreeMap;

/// Tokens, cost and runs of one model in one role, summed over runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoleTotals {
    /// Runs in which the model had this role.
    pub runs: u64,
    /// Tokens.
    pub tokens: TokenCounts,
    /// Cost.
    pub cost: ExactSum,
}

impl RoleTotals {
    fn merge(&mut self, o: &RoleTotals) {
        self.runs += o.runs;
        self.tokens.add(&o.tokens);
        self.cost.merge(&o.cost);
    }

    fn to_json(self) -> J {
        let mut o = Map::new();
        o.insert("runs".into(), json!(self.runs));
        if let J::Object(t) = tokens_json(&self.tokens) {
            o.extend(t);
        }
        o.insert("cost_usd".into(), self.cost.value().to_json());
        J::Object(o)
    }
}

/// Calls, errors and rejections of one tool, summed over runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolTotals {
    /// Calls.
    pub calls: u64,
    /// Calls whose result was an error (rejections apart).
    pub errors: u64,
    /// Calls rejected.
    pub rejections: u64,
}

/// How often a warning code was seen, and where first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WarningTotals {
    /// Warnings with the code.
    pub count: u64,
    /// The first: the input's number (as given to [`RunTotals::add_from`])
    /// and the line, when the warning names one.
    pub first: Option<(usize, Option<u64>)>,
}

/// Counts and sums over runs: what `cctape stats` prints, costs summed
/// exactly.
///
/// ```
/// use cctape::run::{RunTotals, runs_of_slice};
/// use cctape::Verdict;
///
/// let log = br#"{"type":"system","subtype":"init","session_id":"a1","model":"claude-sonnet-4-5"}
/// {"type":"result","subtype":"success","is_error":false,"num_turns":2,"total_cost_usd":0.25,"usage":{"input_tokens":10,"output_tokens":70},"session_id":"a1"}
/// {"type":"system","subtype":"init","session_id":"b2","model":"claude-sonnet-4-5"}
/// {"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":30,"total_cost_usd":0.5,"usage":{"input_tokens":20,"output_tokens":500},"session_id":"b2"}
/// "#;
/// let mut totals = RunTotals::new();
/// for run in runs_of_slice(log) {
///     totals.add(&run);
/// }
/// assert_eq!(totals.runs, 2);
/// assert_eq!((totals.count(Verdict::Success), totals.count(Verdict::MaxTurns)), (1, 1));
/// assert_eq!(totals.main.output_tokens, 570);
/// assert_eq!(totals.cost.value().as_f64(), Some(0.75));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct RunTotals {
    /// Runs added.
    pub runs: u64,
    /// Runs per verdict, indexed like [`Verdict::ALL`].
    pub verdicts: [u64; Verdict::ALL.len()],
    /// Sum of the runs' `total_cost_usd`, exact.
    pub cost: ExactSum,
    /// Runs whose cost no `f64` holds (kept as written on the run, left out
    /// of [`cost`](RunTotals::cost)).
    pub costs_not_summed: u64,
    /// [`cost`](RunTotals::cost) by where it comes from: the results
    /// ([`CostSource::Results`]), transcript records' `costUSD`
    /// ([`CostSource::Records`]), a price table ([`CostSource::PriceTable`]);
    /// a run with both of the last two adds each part to its own.
    pub cost_by_source: BTreeMap<CostSource, ExactSum>,
    /// Main agents' best figures, summed.
    pub main: TokenCounts,
    /// Main agents' model calls.
    pub main_messages: u64,
    /// Runs whose main figure is a lower bound.
    pub main_lower_bound_runs: u64,
    /// Main agents' per-call sums (the audit figure `calls`: what SQL over
    /// the exported `events` rows that carry usage sums).
    pub main_calls: TokenCounts,
    /// Subagents' best figures, summed.
    pub subagents: TokenCounts,
    /// Subagents' model calls.
    pub subagent_messages: u64,
    /// Runs whose subagent figure is a lower bound.
    pub subagents_lower_bound_runs: u64,
    /// Subagents' per-call sums.
    pub subagent_calls: TokenCounts,
    /// Per model and role, summed run by run.
    pub by_role: BTreeMap<(String, ModelRole), RoleTotals>,
    /// Per tool name.
    pub tools: BTreeMap<String, ToolTotals>,
    /// Subagents launched ([`RunSummary::subagent_count`]).
    pub subagent_count: u64,
    /// Subagents by `subagent_type` (`unknown` when not given), at any
    /// depth.
    pub subagent_types: BTreeMap<String, u64>,
    /// Tasks that are not subagents (background Bash, Workflow) by
    /// `task_type`.
    pub task_types: BTreeMap<String, u64>,
    /// `system/api_retry` events.
    pub api_retries: u64,
    /// Warnings by code.
    pub warnings: BTreeMap<&'static str, WarningTotals>,
}

impl RunTotals {
    /// Empty totals.
    pub fn new() -> RunTotals {
        RunTotals::default()
    }

    /// Add one run.
    pub fn add(&mut self, r: &RunSummary) {
        self.add_from(r, 0);
    }

    /// Add one run of input number `input` (for the warnings' first
    /// position).
    pub fn add_from(&mut self, r: &RunSummary, input: usize) {
        self.add_counts(r, input);
        for row in &r.usage.by_role {
            let t = self
                .by_role
                .entry((row.model.clone(), row.role))
                .or_default();
            t.runs += 1;
            t.tokens.add(&row.tokens);
            if let Some(c) = row.cost_usd {
                t.cost.add(c);
            }
        }
    }

    /// Add one run's counts, costs and agent figures, but not its per-model
    /// rows (for a group of one model: see [`RunTotals::add_role`]).
    pub fn add_counts(&mut self, r: &RunSummary, input: usize) {
        self.counts(r, input, true);
    }

    fn counts(&mut self, r: &RunSummary, input: usize, with_cost: bool) {
        self.runs += 1;
        if let Some(i) = Verdict::ALL.iter().position(|v| *v == r.verdict) {
            self.verdicts[i] += 1;
        }
        if with_cost {
            self.add_cost_sources(r);
        }
        match r.cost.total_cost_usd {
            _ if !with_cost => {}
            Some(c) => self.cost.add(c),
            None if r
                .last_result
                .as_ref()
                .is_some_and(|l| l.total_cost_text.is_some()) =>
            {
                self.costs_not_summed += 1
            }
            None => {}
        }
        let (m, s) = (&r.usage.main, &r.usage.subagents);
        self.main.add(&m.tokens);
        self.main_messages += m.messages;
        self.main_lower_bound_runs += u64::from(m.lower_bound());
        self.main_calls.add(&m.calls);
        self.subagents.add(&s.tokens);
        self.subagent_messages += s.messages;
        self.subagents_lower_bound_runs += u64::from(s.lower_bound());
        self.subagent_calls.add(&s.calls);
        for t in &r.tools {
            let row = self.tools.entry(t.name.clone()).or_default();
            row.calls += t.calls;
            row.errors += t.errors;
            row.rejections += t.rejections;
        }
        self.subagent_count += r.subagent_count();
        let mut stack: Vec<&crate::run::SubagentNode> = r.subagents.iter().collect();
        while let Some(n) = stack.pop() {
            if n.is_agent() {
                let ty = n.subagent_type.as_deref().unwrap_or("unknown");
                *self.subagent_types.entry(ty.to_string()).or_default() += 1;
            } else {
                let ty = n
                    .task_type
                    .as_deref()
                    .or(n.tool_name.as_deref())
                    .unwrap_or("unknown");
                *self.task_types.entry(ty.to_string()).or_default() += 1;
            }
            stack.extend(&n.children);
        }
        self.api_retries += r.api_retries.count;
        for w in &r.warnings {
            let e = self.warnings.entry(w.code).or_default();
            e.count += 1;
            if e.first.is_none() {
                e.first = Some((input, w.line));
            }
        }
    }

    /// The run's cost into [`cost_by_source`](RunTotals::cost_by_source).
    fn add_cost_sources(&mut self, r: &RunSummary) {
        let c = &r.cost;
        let mut add = |s: CostSource, v: Option<f64>| {
            if let Some(v) = v {
                self.cost_by_source.entry(s).or_default().add(v);
            }
        };
        match c.source() {
            CostSource::Results => add(CostSource::Results, c.total_cost_usd),
            _ => {
                add(CostSource::Records, c.records_cost_usd);
                add(CostSource::PriceTable, c.priced_cost_usd);
            }
        }
    }

    /// Add one model-and-role row of a run to a group of that model: the
    /// run counts once, with the row's tokens and cost; run-level counts
    /// (tools, subagents, retries, warnings) only with `counts`.
    pub fn add_role(&mut self, r: &RunSummary, row: usize, input: usize, counts: bool) {
        let Some(rr) = r.usage.by_role.get(row) else {
            return;
        };
        if counts {
            // The row's cost, not the run's.
            self.counts(r, input, false);
        } else {
            self.runs += 1;
            if let Some(i) = Verdict::ALL.iter().position(|v| *v == r.verdict) {
                self.verdicts[i] += 1;
            }
        }
        if let Some(c) = rr.cost_usd {
            self.cost.add(c);
        }
        let t = self.by_role.entry((rr.model.clone(), rr.role)).or_default();
        t.runs += 1;
        t.tokens.add(&rr.tokens);
        if let Some(c) = rr.cost_usd {
            t.cost.add(c);
        }
    }

    /// Add other totals (inputs of `o` numbered from `input_base`).
    pub fn merge(&mut self, o: &RunTotals, input_base: usize) {
        self.runs += o.runs;
        for (a, b) in self.verdicts.iter_mut().zip(o.verdicts) {
            *a += b;
        }
        self.cost.merge(&o.cost);
        self.costs_not_summed += o.costs_not_summed;
        for (k, v) in &o.cost_by_source {
            self.cost_by_source.entry(*k).or_default().merge(v);
        }
        self.main.add(&o.main);
        self.main_messages += o.main_messages;
        self.main_lower_bound_runs += o.main_lower_bound_runs;
        self.main_calls.add(&o.main_calls);
        self.subagents.add(&o.subagents);
        self.subagent_messages += o.subagent_messages;
        self.subagents_lower_bound_runs += o.subagents_lower_bound_runs;
        self.subagent_calls.add(&o.subagent_calls);
        for (k, v) in &o.by_role {
            self.by_role.entry(k.clone()).or_default().merge(v);
        }
        for (k, v) in &o.tools {
            let t = self.tools.entry(k.clone()).or_default();
            t.calls += v.calls;
            t.errors += v.errors;
            t.rejections += v.rejections;
        }
        self.subagent_count += o.subagent_count;
        for (k, n) in &o.subagent_types {
            *self.subagent_types.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &o.task_types {
            *self.task_types.entry(k.clone()).or_default() += n;
        }
        self.api_retries += o.api_retries;
        for (k, w) in &o.warnings {
            let e = self.warnings.entry(k).or_default();
            e.count += w.count;
            if e.first.is_none() {
                e.first = w.first.map(|(i, l)| (i + input_base, l));
            }
        }
    }

    /// Runs with this verdict.
    pub fn count(&self, v: Verdict) -> u64 {
        Verdict::ALL
            .iter()
            .position(|x| *x == v)
            .map_or(0, |i| self.verdicts[i])
    }

    /// Runs whose verdict is not a healthy one ([`Verdict::is_ok`]).
    pub fn failed(&self) -> u64 {
        let ok: u64 = Verdict::ALL
            .iter()
            .filter(|v| v.is_ok())
            .map(|v| self.count(*v))
            .sum();
        self.runs - ok
    }

    /// `{verdict: count}` for every verdict, in [`Verdict::ALL`] order.
    pub fn verdicts_json(&self) -> J {
        J::Object(
            Verdict::ALL
                .iter()
                .zip(self.verdicts)
                .map(|(v, n)| (v.as_str().to_string(), json!(n)))
                .collect(),
        )
    }

    /// Tokens over every model and role (`modelUsage` where runs have it).
    pub fn all_models(&self) -> TokenCounts {
        let mut t = TokenCounts::default();
        for r in self.by_role.values() {
            t.add(&r.tokens);
        }
        t
    }

    /// Cost of one role over every model, exact.
    pub fn role_cost(&self, role: ModelRole) -> ExactSum {
        let mut s = ExactSum::new();
        for ((_, r), t) in &self.by_role {
            if *r == role {
                s.merge(&t.cost);
            }
        }
        s
    }

    /// Tool calls and errors over every tool.
    pub fn tool_calls(&self) -> (u64, u64) {
        self.tools
            .values()
            .fold((0, 0), |(c, e), t| (c + t.calls, e + t.errors))
    }

    /// The figures per model, its roles added up.
    pub fn per_model(&self) -> BTreeMap<&str, RoleTotals> {
        let mut out: BTreeMap<&str, RoleTotals> = BTreeMap::new();
        for ((m, _), t) in &self.by_role {
            out.entry(m).or_default().merge(t);
        }
        out
    }

    /// `{model: {"runs", counts, "cost_usd", "roles": {role: {...}}}}`: the
    /// figures per model, and per role within it.
    pub fn by_model_json(&self) -> J {
        let mut models: Map<String, J> = Map::new();
        for (m, total) in self.per_model() {
            let mut e = match total.to_json() {
                J::Object(e) => e,
                _ => Map::new(),
            };
            let roles: Map<String, J> = self
                .by_role
                .iter()
                .filter(|((mm, _), _)| mm == m)
                .map(|((_, r), t)| (r.as_str().to_string(), t.to_json()))
                .collect();
            e.insert("roles".into(), J::Object(roles));
            models.insert((*m).to_string(), J::Object(e));
        }
        J::Object(models)
    }

    /// `{"runs", "verdicts": {class: count} (every class), "total_cost_usd",
    /// "costs_not_summed", "usage": {"main", "subagents", "all_models"},
    /// "cost_by_role", "cost_by_source", "by_model": {model: {"runs", counts, "cost_usd",
    /// "roles": {role: {...}}}}, "tools", "subagents", "api_retries",
    /// "warnings": {code: {"count", "first": {"input", "line"}}}}`, in that
    /// order (see `docs/accounting.md`).
    pub fn to_json(&self) -> J {
        let mut o = Map::new();
        o.insert("runs".into(), json!(self.runs));
        o.insert("verdicts".into(), self.verdicts_json());
        o.insert("total_cost_usd".into(), self.cost.value().to_json());
        o.insert("costs_not_summed".into(), json!(self.costs_not_summed));
        let agent = |t: &TokenCounts, messages: u64, lower: u64, calls: &TokenCounts| {
            let mut a = match tokens_json(t) {
                J::Object(a) => a,
                _ => Map::new(),
            };
            a.insert("messages".into(), json!(messages));
            a.insert("lower_bound_runs".into(), json!(lower));
            a.insert("calls".into(), tokens_json(calls));
            J::Object(a)
        };
        o.insert(
            "usage".into(),
            json!({
                "main": agent(&self.main, self.main_messages, self.main_lower_bound_runs, &self.main_calls),
                "subagents": agent(&self.subagents, self.subagent_messages, self.subagents_lower_bound_runs, &self.subagent_calls),
                "all_models": tokens_json(&self.all_models()),
            }),
        );
        let mut by_role = Map::new();
        for role in ModelRole::ALL {
            by_role.insert(role.as_str().into(), self.role_cost(role).value().to_json());
        }
        o.insert("cost_by_role".into(), J::Object(by_role));
        let mut by_source = Map::new();
        for source in [
            CostSource::Results,
            CostSource::Records,
            CostSource::PriceTable,
        ] {
            let v = self
                .cost_by_source
                .get(&source)
                .copied()
                .unwrap_or_default();
            by_source.insert(source.as_str().into(), v.value().to_json());
        }
        o.insert("cost_by_source".into(), J::Object(by_source));
        o.insert("by_model".into(), self.by_model_json());
        let tools: Map<String, J> = self
            .tools
            .iter()
            .map(|(k, t)| {
                (
                    k.clone(),
                    json!({"calls": t.calls, "errors": t.errors, "rejections": t.rejections}),
                )
            })
            .collect();
        o.insert("tools".into(), J::Object(tools));
        o.insert(
            "subagents".into(),
            json!({"count": self.subagent_count, "by_type": self.subagent_types}),
        );
        o.insert("tasks".into(), json!({"by_type": self.task_types}));
        o.insert("api_retries".into(), json!(self.api_retries));
        let warnings: Map<String, J> = self
            .warnings
            .iter()
            .map(|(k, w)| {
                (
                    (*k).to_string(),
                    json!({
                        "count": w.count,
                        "first": w.first.map(|(i, l)| json!({"input": i, "line": l})),
                    }),
                )
            })
            .collect();
        o.insert("warnings".into(), J::Object(warnings));
        J::Object(o)
    }
}
