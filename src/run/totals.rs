//! Totals over many runs: what archive analysis sums (`cctape stats`), in
//! one place for every command and grouping.
//!
//! Every sum is exact and independent of the order runs are added or
//! totals merged: counts are integers, costs go into an [`ExactSum`]. So
//! `cctape stats` prints the same bytes for any `--jobs`.
//!
//! Aggregates sum the per-run roles: a model is counted as main, subagent
//! or auxiliary run by run ([`RunSummary::usage`] `by_role`), never with one
//! label for every run. Its token columns are the run's best figures
//! ([`shares`]): the main agent's on its main model, the subagents' on
//! theirs, so that they add up to `main` plus `subagents`.
//!
//! Sums of counts saturate at `u64::MAX`, with a [`WARN_SUM_SATURATED`]
//! warning; a cost that no `f64` holds is left out of the sums and counted
//! in [`RunTotals::costs_not_summed`].
//!
//! Totals are kept for every input and group of a report, so they are
//! small: maps are sorted vectors ([`SmallMap`]), sums [`ExactSum`]s of a
//! few inline words.

use super::accounting::{CostSource, ModelRole, TokenSource};
use super::sum::ExactSum;
use super::summary::{RunSummary, SubagentNode};
use super::verdict::Verdict;
use crate::event::TokenCounts;
use serde_json::Value as J;

mod json;
mod map;
pub(crate) use json::{ByModel, Verdicts, totals_entries};
pub use map::SmallMap;

/// A count summed past `u64::MAX`: it stays at `u64::MAX` (token counts of
/// streams and transcripts alike, per run and over runs).
pub const WARN_SUM_SATURATED: &str = "token_sum_saturated";

/// Add `o` to `t`, saturating; true when a count saturated (or was
/// already at `u64::MAX`: a run's own sum that saturated).
fn add_counts(t: &mut TokenCounts, o: &TokenCounts) -> bool {
    let pairs = [
        (&mut t.input_tokens, o.input_tokens),
        (&mut t.output_tokens, o.output_tokens),
        (&mut t.cache_read_input_tokens, o.cache_read_input_tokens),
        (
            &mut t.cache_creation_input_tokens,
            o.cache_creation_input_tokens,
        ),
    ];
    let mut saturated = false;
    for (a, b) in pairs {
        saturated |= b == u64::MAX || a.checked_add(b).is_none();
        *a = a.saturating_add(b);
    }
    saturated
}

/// One model's share of a run's best figures ([`shares`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Share<'a> {
    /// The model (`unknown` when the run names none).
    pub model: &'a str,
    /// Its role in the run.
    pub role: ModelRole,
    /// Its part of the agent's best figure (0 for auxiliary and unknown
    /// models: their calls are in no agent's figure).
    pub tokens: TokenCounts,
    /// Where that figure comes from.
    pub source: TokenSource,
    /// Its cost (`modelUsage[*].costUSD`, or the run's without modelUsage).
    pub cost_usd: Option<f64>,
}

/// A run's best figures per model and role: one share per `by_role` row,
/// the main agent's figure on its main model and the subagents' on theirs.
/// An agent on several models is split as their rows split it when those
/// add up to its figure (modelUsage of a subagents' `model_usage` figure,
/// a transcript's requests), else put on its first model; an agent with no
/// row of its role gets one: the run's model (`unknown` without one), in
/// that role. So the shares add up to `main` plus `subagents`, and every
/// run has a main share.
///
/// ```
/// use cctape::run::{ModelRole, TokenSource, runs_of_slice, shares};
///
/// // No result, so no modelUsage: the main agent's snapshots, a lower bound.
/// let log = br#"{"type":"system","subtype":"init","session_id":"a","model":"claude-sonnet-4-5"}
/// {"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":3,"output_tokens":9}},"session_id":"a"}
/// "#;
/// let run = &runs_of_slice(log)[0];
/// let s = shares(run);
/// assert_eq!((s[0].model, s[0].role, s[0].tokens.output_tokens), ("claude-sonnet-4-5", ModelRole::Main, 9));
/// assert_eq!(s[0].source, TokenSource::SnapshotCalls);
/// ```
pub fn shares(r: &RunSummary) -> Vec<Share<'_>> {
    let run_model = r.model.as_deref().unwrap_or("unknown");
    let mut out: Vec<Share<'_>> = r
        .usage
        .by_role
        .iter()
        .map(|row| Share {
            model: &row.model,
            role: row.role,
            tokens: TokenCounts::default(),
            source: TokenSource::None,
            cost_usd: row.cost_usd,
        })
        .collect();
    let (main, subs) = (&r.usage.main, &r.usage.subagents);
    let agents = [
        (ModelRole::Main, main, run_model),
        (ModelRole::Subagent, subs, run_model),
    ];
    for (role, figure, fallback) in agents {
        if role == ModelRole::Subagent
            && figure.messages == 0
            && figure.source == TokenSource::None
            && figure.tokens == TokenCounts::default()
        {
            continue;
        }
        let mut mine: Vec<usize> = (0..r.usage.by_role.len())
            .filter(|&i| r.usage.by_role[i].role == role)
            .collect();
        let split = mine.len() > 1 && {
            let mut sum = TokenCounts::default();
            for &i in &mine {
                sum.add(&r.usage.by_role[i].tokens);
            }
            sum == figure.tokens
        };
        if mine.is_empty() {
            out.push(Share {
                model: fallback,
                role,
                tokens: TokenCounts::default(),
                source: TokenSource::None,
                cost_usd: None,
            });
            mine.push(out.len() - 1);
        }
        for (k, &i) in mine.iter().enumerate() {
            out[i].source = figure.source;
            if split {
                out[i].tokens = r.usage.by_role[i].tokens;
            } else if k == 0 {
                out[i].tokens = figure.tokens;
            }
        }
    }
    out
}

/// Tokens, cost and runs of one model in one role, summed over runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoleTotals {
    /// Runs in which the model had this role.
    pub runs: u64,
    /// Its shares of the runs' best figures ([`shares`]).
    pub tokens: TokenCounts,
    /// Runs by where their figure comes from ([`TokenSource::as_str`]).
    pub sources: SmallMap<&'static str, u64>,
    /// Cost.
    pub cost: ExactSum,
}

impl RoleTotals {
    fn merge(&mut self, o: &RoleTotals) -> bool {
        self.runs += o.runs;
        let saturated = add_counts(&mut self.tokens, &o.tokens);
        for (k, n) in &o.sources {
            *self.sources.entry_or_default(k) += n;
        }
        self.cost.merge(&o.cost);
        saturated
    }

    /// Add one run's share.
    fn add_share(&mut self, s: &Share<'_>) -> bool {
        self.runs += 1;
        *self.sources.entry_or_default(&s.source.as_str()) += 1;
        if let Some(c) = s.cost_usd {
            self.cost.add(c);
        }
        add_counts(&mut self.tokens, &s.tokens)
    }

    /// The sources as text: `results`, or `results 3, model_usage 2` (most
    /// runs first).
    pub fn sources_text(&self) -> String {
        let mut v: Vec<(&&str, &u64)> = self.sources.iter().collect();
        if let [(k, _)] = v[..] {
            return (*k).to_string();
        }
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
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

impl WarningTotals {
    /// One more, at `at`: the first is the earliest (input, then line), so
    /// it does not depend on the order totals are added.
    fn note(&mut self, count: u64, at: Option<(usize, Option<u64>)>) {
        self.count += count;
        if let Some(at) = at {
            let key = |(i, l): (usize, Option<u64>)| (i, l.unwrap_or(0));
            if self.first.is_none_or(|f| key(at) < key(f)) {
                self.first = Some(at);
            }
        }
    }
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
/// // The model rows add up to the agents' figures.
/// assert_eq!(totals.all_models().output_tokens, 570);
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
    /// Runs whose cost no `f64` holds (as written, `1e400`, kept on the
    /// run; or as computed, a price table's product or sum), left out of
    /// [`cost`](RunTotals::cost).
    pub costs_not_summed: u64,
    /// [`cost`](RunTotals::cost) by where it comes from: the results
    /// ([`CostSource::Results`]), transcript records' `costUSD`
    /// ([`CostSource::Records`]), a price table ([`CostSource::PriceTable`]);
    /// a run with both of the last two adds each part to its own.
    pub cost_by_source: SmallMap<CostSource, ExactSum>,
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
    /// The auxiliary models' `modelUsage` (claude-code's own calls: in no
    /// agent's figure).
    pub auxiliary: TokenCounts,
    /// Per model and role, summed run by run: each run's [`shares`].
    pub by_role: SmallMap<(String, ModelRole), RoleTotals>,
    /// Per tool name.
    pub tools: SmallMap<String, ToolTotals>,
    /// Subagents launched ([`RunSummary::subagent_count`]).
    pub subagent_count: u64,
    /// Subagents by `subagent_type` (`unknown` when not given), at any
    /// depth.
    pub subagent_types: SmallMap<String, u64>,
    /// Tasks that are not subagents (background Bash, Workflow) by
    /// `task_type`.
    pub task_types: SmallMap<String, u64>,
    /// `system/api_retry` events.
    pub api_retries: u64,
    /// Warnings by code.
    pub warnings: SmallMap<&'static str, WarningTotals>,
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
    pub(crate) fn add_from(&mut self, r: &RunSummary, input: usize) {
        let mut saturated = self.counts(r, input, true);
        for s in shares(r) {
            saturated |= self.role_slot(s.model, s.role).add_share(&s);
        }
        self.saturated_run(r, input, saturated);
    }

    fn role_slot(&mut self, model: &str, role: ModelRole) -> &mut RoleTotals {
        self.by_role.entry_with(
            |(m, r)| (m.as_str(), *r).cmp(&(model, role)),
            || (model.to_string(), role),
        )
    }

    /// A sum that saturated adding run `r` of input `input`: said once, by
    /// the run itself when its own sum saturated.
    fn saturated_run(&mut self, r: &RunSummary, input: usize, saturated: bool) {
        if saturated && !r.has_warning(WARN_SUM_SATURATED) {
            self.saturated(input, r.last_result.as_ref().map(|l| l.line));
        }
    }

    /// A count that saturated, in a run of input `input`.
    fn saturated(&mut self, input: usize, line: Option<u64>) {
        self.warnings
            .entry_or_default(&WARN_SUM_SATURATED)
            .note(1, Some((input, line)));
    }

    /// Add one run's counts, costs and agent figures, but not its per-model
    /// rows (for a group of one model: see [`RunTotals::add_role`]).
    pub fn add_counts(&mut self, r: &RunSummary, input: usize) {
        let saturated = self.counts(r, input, true);
        self.saturated_run(r, input, saturated);
    }

    /// The run's counts; true when a sum saturated.
    fn counts(&mut self, r: &RunSummary, input: usize, with_cost: bool) -> bool {
        self.runs += 1;
        if let Some(i) = Verdict::ALL.iter().position(|v| *v == r.verdict) {
            self.verdicts[i] += 1;
        }
        if with_cost {
            self.add_cost_sources(r);
            match r.cost.total_cost_usd {
                Some(c) if c.is_finite() => self.cost.add(c),
                // A computed cost (a price table's) beyond f64.
                Some(_) => self.costs_not_summed += 1,
                None if r
                    .last_result
                    .as_ref()
                    .is_some_and(|l| l.total_cost_text.is_some()) =>
                {
                    self.costs_not_summed += 1
                }
                None => {}
            }
        }
        let (m, s) = (&r.usage.main, &r.usage.subagents);
        let mut saturated = add_counts(&mut self.main, &m.tokens);
        self.main_messages += m.messages;
        self.main_lower_bound_runs += u64::from(m.lower_bound());
        saturated |= add_counts(&mut self.main_calls, &m.calls);
        saturated |= add_counts(&mut self.subagents, &s.tokens);
        self.subagent_messages += s.messages;
        self.subagents_lower_bound_runs += u64::from(s.lower_bound());
        saturated |= add_counts(&mut self.subagent_calls, &s.calls);
        saturated |= add_counts(&mut self.auxiliary, &r.usage.auxiliary);
        for t in &r.tools {
            let row = self.tools.entry_or_default(t.name.as_str());
            row.calls += t.calls;
            row.errors += t.errors;
            row.rejections += t.rejections;
        }
        self.add_subagents(&r.subagents);
        self.api_retries += r.api_retries.count;
        for w in &r.warnings {
            self.warnings
                .entry_or_default(&w.code)
                .note(1, Some((input, w.line)));
        }
        saturated
    }

    /// Count subagents and tasks (and theirs, at any depth): what a run's
    /// [`RunSummary::subagents`] adds. For a part of a run (a transcript
    /// session's day), the subagents that belong to it.
    pub(crate) fn add_subagents(&mut self, nodes: &[SubagentNode]) {
        let mut stack: Vec<&SubagentNode> = nodes.iter().collect();
        while let Some(n) = stack.pop() {
            if n.is_agent() {
                self.subagent_count += 1;
                let ty = n.subagent_type.as_deref().unwrap_or("unknown");
                *self.subagent_types.entry_or_default(ty) += 1;
            } else {
                let ty = n
                    .task_type
                    .as_deref()
                    .or(n.tool_name.as_deref())
                    .unwrap_or("unknown");
                *self.task_types.entry_or_default(ty) += 1;
            }
            stack.extend(&n.children);
        }
    }

    /// The run's cost into [`cost_by_source`](RunTotals::cost_by_source).
    fn add_cost_sources(&mut self, r: &RunSummary) {
        let c = &r.cost;
        let mut add = |s: CostSource, v: Option<f64>| {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                self.cost_by_source.entry_or_default(&s).add(v);
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

    /// Add one model-and-role share of a run ([`shares`]) to a group of
    /// that model: the run counts once, with the share's tokens and cost;
    /// run-level counts (tools, subagents, retries, warnings) only with
    /// `counts`.
    pub fn add_role(&mut self, r: &RunSummary, share: &Share<'_>, input: usize, counts: bool) {
        let mut saturated = false;
        if counts {
            // The share's cost, not the run's.
            saturated = self.counts(r, input, false);
        } else {
            self.runs += 1;
            if let Some(i) = Verdict::ALL.iter().position(|v| *v == r.verdict) {
                self.verdicts[i] += 1;
            }
        }
        if let Some(c) = share.cost_usd {
            if c.is_finite() {
                self.cost.add(c);
            } else if counts {
                self.costs_not_summed += 1;
            }
        }
        saturated |= self.role_slot(share.model, share.role).add_share(share);
        self.saturated_run(r, input, saturated);
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
            self.cost_by_source.entry_or_default(k).merge(v);
        }
        let mut saturated = add_counts(&mut self.main, &o.main);
        self.main_messages += o.main_messages;
        self.main_lower_bound_runs += o.main_lower_bound_runs;
        saturated |= add_counts(&mut self.main_calls, &o.main_calls);
        saturated |= add_counts(&mut self.subagents, &o.subagents);
        self.subagent_messages += o.subagent_messages;
        self.subagents_lower_bound_runs += o.subagents_lower_bound_runs;
        saturated |= add_counts(&mut self.subagent_calls, &o.subagent_calls);
        saturated |= add_counts(&mut self.auxiliary, &o.auxiliary);
        for ((m, r), v) in &o.by_role {
            saturated |= self.role_slot(m, *r).merge(v);
        }
        for (k, v) in &o.tools {
            let t = self.tools.entry_or_default(k.as_str());
            t.calls += v.calls;
            t.errors += v.errors;
            t.rejections += v.rejections;
        }
        self.subagent_count += o.subagent_count;
        for (k, n) in &o.subagent_types {
            *self.subagent_types.entry_or_default(k.as_str()) += n;
        }
        for (k, n) in &o.task_types {
            *self.task_types.entry_or_default(k.as_str()) += n;
        }
        self.api_retries += o.api_retries;
        // Saturated here, or before: said once.
        let before = o.warnings.contains_key(&WARN_SUM_SATURATED);
        for (k, w) in &o.warnings {
            self.warnings
                .entry_or_default(k)
                .note(w.count, w.first.map(|(i, l)| (i + input_base, l)));
        }
        if saturated && !before {
            self.saturated(input_base, None);
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

    /// Tokens over every model and role: the runs' best figures, so
    /// [`main`](RunTotals::main) plus [`subagents`](RunTotals::subagents).
    pub fn all_models(&self) -> TokenCounts {
        let mut t = TokenCounts::default();
        for r in self.by_role.values() {
            t.add(&r.tokens);
        }
        t
    }

    /// Cost of one role over every model, exact.
    pub(crate) fn role_cost(&self, role: ModelRole) -> ExactSum {
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
    pub fn per_model(&self) -> SmallMap<&str, RoleTotals> {
        let mut out: SmallMap<&str, RoleTotals> = SmallMap::new();
        for ((m, _), t) in &self.by_role {
            out.entry_or_default(&m.as_str()).merge(t);
        }
        out
    }
}
