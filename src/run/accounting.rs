//! The accounting model: where every token figure comes from, which total
//! of an agent is the best one, and which role each model played in a run.
//! Every command prints these figures; nothing else computes them.
//!
//! The rules, each with the real capture that shows it, are in
//! `docs/accounting.md`; the comments below name the file once more.

use super::summary::{AgentUsage, ModelUsageSummary, RoleUsage};
use crate::event::TokenCounts;

/// Where a model call's usage comes from.
///
/// Grows when other inputs feed the model (session transcripts carry one
/// usage entry per API request): match with a wildcard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallUsageSource {
    /// The call's `stream_event` `message_delta` (streams with partial
    /// messages): the final count.
    MessageDelta,
    /// An `assistant` event of a finished message (its `stop_reason` is set:
    /// the message came whole, not streamed): the final count.
    CompleteMessage,
    /// The snapshot taken at `message_start` that assistant events carry
    /// while a message streams: `output_tokens` is a placeholder (1 to 20,
    /// or 0 on GLM backends), so a sum of snapshots is a lower bound.
    #[default]
    Snapshot,
}

impl CallUsageSource {
    /// `message_delta`, `complete_message` or `snapshot`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallUsageSource::MessageDelta => "message_delta",
            CallUsageSource::CompleteMessage => "complete_message",
            CallUsageSource::Snapshot => "snapshot",
        }
    }

    /// True for the sources whose count is the call's final one.
    pub fn is_final(self) -> bool {
        !matches!(self, CallUsageSource::Snapshot)
    }

    /// A message's usage as its `stop_reason` says it, in both dialects: a
    /// message whose `stop_reason` is set came whole, and its count is
    /// final; otherwise it is the snapshot a streaming message carries.
    pub(crate) fn of_message(stop_reason_set: bool) -> CallUsageSource {
        if stop_reason_set {
            CallUsageSource::CompleteMessage
        } else {
            CallUsageSource::Snapshot
        }
    }

    /// How final the count is: a snapshot, then a whole message, then the
    /// `message_delta`'s count (which a whole message's event after it does
    /// not replace).
    fn rank(self) -> u8 {
        match self {
            CallUsageSource::Snapshot => 0,
            CallUsageSource::CompleteMessage => 1,
            CallUsageSource::MessageDelta => 2,
        }
    }
}

/// One reading of a model call's usage, as one event or record shows it.
/// A call is named by several (an event or a record per content block,
/// snapshots while it streams, a subagent's replay of its parent's records,
/// a copy relayed in `agent_progress`); [`CallReading::rank_against`] is
/// the one rule, in both dialects, for which of them is the call's usage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallReading {
    /// Read from a sidechain's record (a transcript's subagent file, an
    /// `isSidechain` record, a relayed copy) rather than the main chain's.
    pub(crate) sidechain: bool,
    /// How final its count is.
    pub(crate) source: CallUsageSource,
    /// Its input, output, cache read and cache write tokens, added.
    pub(crate) total: u64,
}

impl CallReading {
    /// `Greater` when this reading is the call's usage rather than `old`,
    /// `Less` when `old` stays, `Equal` when neither says more (the same
    /// count, as final): then each dialect places the call by its own
    /// order, a stream by the last line naming it (its lines come in time
    /// order), a transcript by its earliest record (its files come in any
    /// order).
    ///
    /// The rule: the main chain's record before a sidechain's copy; a final
    /// count before a snapshot; then the larger count, since counts only
    /// grow while a message streams (a smaller one is an older copy). In
    /// every real capture and transcript a call's last reading is also its
    /// largest and final one, so the order of the rules only matters for
    /// files cut or replayed out of order.
    pub(crate) fn rank_against(&self, old: &CallReading) -> std::cmp::Ordering {
        let key = |r: &CallReading| (!r.sidechain, r.source.rank(), r.total);
        key(self).cmp(&key(old))
    }
}

/// Where an agent's token total ([`AgentUsage::tokens`]) comes from, in the
/// order of precedence: the first that applies is taken.
///
/// Grows when other inputs feed the model (a session transcript's request
/// usage, a cost priced from a table): match with a wildcard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenSource {
    /// Every call of the agent has its final usage: their sum.
    FinalCalls,
    /// Main agent: what the run's results report in `usage` (each round's
    /// result covers its round; summed over the rounds).
    Results,
    /// Main agent: the results' `usage` plus the calls that came as whole
    /// messages, which those results leave out (GLM backends after an API
    /// retry: `marquex__trackgentic__agentic-session-mp9xlpds.jsonl`, where
    /// result 826 + whole calls 3,337 = modelUsage 4,163 on all four counts).
    ResultsAndCompleteCalls,
    /// Subagents: the `modelUsage` entries of the models only subagents
    /// answered under (claude-code's own calls under the same model name
    /// are inside and cannot be told apart).
    ModelUsage,
    /// Subagents: what each reported in its Agent/Task tool result
    /// (`tool_use_result.usage`): its last call only, so a lower bound.
    SubagentReports,
    /// The sum of the calls' usage where some are snapshots: a lower bound.
    SnapshotCalls,
    /// A session transcript's API requests, each counted once (records with
    /// the same `message.id` and `requestId` are one request; its largest,
    /// final usage is taken): see `docs/transcripts.md`.
    TranscriptRequests,
    /// No figure at all (no calls, nothing reported).
    #[default]
    None,
}

impl TokenSource {
    /// `final_calls`, `results`, `results_and_complete_calls`,
    /// `model_usage`, `subagent_reports`, `snapshot_calls`,
    /// `transcript_requests`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenSource::FinalCalls => "final_calls",
            TokenSource::Results => "results",
            TokenSource::ResultsAndCompleteCalls => "results_and_complete_calls",
            TokenSource::ModelUsage => "model_usage",
            TokenSource::SubagentReports => "subagent_reports",
            TokenSource::SnapshotCalls => "snapshot_calls",
            TokenSource::TranscriptRequests => "transcript_requests",
            TokenSource::None => "none",
        }
    }

    /// True when the figure is known to be below the truth.
    pub(crate) fn is_lower_bound(self) -> bool {
        matches!(
            self,
            TokenSource::SubagentReports | TokenSource::SnapshotCalls
        )
    }
}

/// Where a run's cost comes from. Streams say what they cost (the result's
/// `total_cost_usd`); session transcripts do not: their records' `costUSD`
/// (old CLI versions) or a price table prices their requests. Sums keep the
/// sources apart ([`RunTotals::cost_by_source`](super::RunTotals)), so a
/// figure from a table is never silently added to one the CLI stated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CostSource {
    /// The run's results (`total_cost_usd`, and `modelUsage[*].costUSD` per
    /// role).
    Results,
    /// Transcript records' `costUSD`, summed per request.
    Records,
    /// A price table (the one shipped in the crate, or a user's file) applied
    /// to each request's tokens.
    PriceTable,
    /// Some requests' `costUSD`, the others priced from a table: both parts
    /// are given apart ([`CostCheck`](super::CostCheck)).
    RecordsAndPriceTable,
    /// No cost at all.
    #[default]
    None,
}

impl CostSource {
    /// `results`, `records`, `price_table`, `records_and_price_table`,
    /// `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            CostSource::Results => "results",
            CostSource::Records => "records",
            CostSource::PriceTable => "price_table",
            CostSource::RecordsAndPriceTable => "records_and_price_table",
            CostSource::None => "none",
        }
    }
}

/// The role a model played in one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ModelRole {
    /// The run's own model: named by a `system/init`, or answering the main
    /// agent's messages (GLM backends answer under another name than the
    /// one asked for: `jedarden__mta-my-way__...qm6...` asks for `glm-5`,
    /// its messages say `glm-5.1`). A model the subagents also use stays
    /// main.
    #[default]
    Main,
    /// Answers only subagents' messages.
    Subagent,
    /// In `modelUsage` without a message of its own: claude-code's own
    /// calls (a haiku classifier, titles).
    Auxiliary,
    /// The run names several models and nothing says which is its own (a
    /// result alone, without init or messages).
    Unknown,
}

impl ModelRole {
    /// `main`, `subagent`, `auxiliary`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelRole::Main => "main",
            ModelRole::Subagent => "subagent",
            ModelRole::Auxiliary => "auxiliary",
            ModelRole::Unknown => "unknown",
        }
    }

    /// Every role, in order.
    pub const ALL: [ModelRole; 4] = [
        ModelRole::Main,
        ModelRole::Subagent,
        ModelRole::Auxiliary,
        ModelRole::Unknown,
    ];
}

/// A model name without a context suffix: `claude-opus-5[1m]` →
/// `claude-opus-5`.
pub(crate) fn base_model(m: &str) -> &str {
    match m.find('[') {
        Some(i) if m.ends_with(']') => &m[..i],
        _ => m,
    }
}

/// Whether a message's model is this modelUsage entry's: the key without
/// its `[1m]` suffix, or its `canonicalModel` (the rule [`ModelIndex`]
/// applies, kept as its test's oracle).
#[cfg(test)]
fn model_matches(entry: &ModelUsageSummary, model: &str) -> bool {
    let m = base_model(model);
    m == base_model(&entry.model) || entry.canonical_model.as_deref() == Some(m)
}

/// The modelUsage entries a message's model matches ([`model_matches`]),
/// found by a binary search instead of a comparison with every entry: each
/// entry is listed under its key without the `[1m]` suffix and under its
/// `canonicalModel`. A run naming 20,000 models took 3.9 s when every
/// model was compared with every entry.
pub(crate) struct ModelIndex<'e> {
    /// (name, entry) sorted: an entry under its key without the suffix and
    /// under its `canonicalModel` when that differs.
    by_name: Vec<(&'e str, usize)>,
}

impl<'e> ModelIndex<'e> {
    /// The index of `entries` for which `keep` holds.
    pub(crate) fn new(
        entries: impl IntoIterator<Item = &'e ModelUsageSummary>,
        keep: impl Fn(&ModelUsageSummary) -> bool,
    ) -> ModelIndex<'e> {
        let mut by_name: Vec<(&'e str, usize)> = Vec::new();
        for (i, e) in entries.into_iter().enumerate() {
            if !keep(e) {
                continue;
            }
            let base = base_model(&e.model);
            by_name.push((base, i));
            if let Some(c) = e.canonical_model.as_deref()
                && c != base
            {
                by_name.push((c, i));
            }
        }
        by_name.sort_unstable();
        ModelIndex { by_name }
    }

    /// The entries `model` matches, each once, in entry order.
    pub(crate) fn matching(&self, model: &str) -> impl Iterator<Item = usize> + '_ {
        let m = base_model(model);
        let from = self.by_name.partition_point(|(k, _)| *k < m);
        let len = self.by_name[from..].partition_point(|(k, _)| *k == m);
        self.by_name[from..from + len].iter().map(|&(_, i)| i)
    }

    /// True when `model` matches an entry.
    pub(crate) fn any(&self, model: &str) -> bool {
        self.matching(model).next().is_some()
    }
}

/// The models of a run, as the roles are decided from.
pub(crate) struct ModelsSeen<'a> {
    /// `model` of every `system/init`.
    pub(crate) inits: &'a [&'a str],
    /// Models the main agent's messages answer under.
    pub(crate) main: &'a [&'a str],
    /// Models subagents' messages answer under.
    pub(crate) subagents: &'a [&'a str],
}

/// Give each modelUsage entry its role.
pub(crate) fn assign_roles(entries: &mut [ModelUsageSummary], seen: &ModelsSeen<'_>) {
    let no_evidence = seen.inits.is_empty() && seen.main.is_empty() && seen.subagents.is_empty();
    let sole = entries.len() == 1;
    // Which entries the seen models match, marked from the models' side.
    let (mut main, mut sub) = (vec![false; entries.len()], vec![false; entries.len()]);
    {
        let index = ModelIndex::new(entries.iter(), |_| true);
        for m in seen.inits.iter().chain(seen.main) {
            index.matching(m).for_each(|i| main[i] = true);
        }
        for m in seen.subagents {
            index.matching(m).for_each(|i| sub[i] = true);
        }
    }
    for (i, e) in entries.iter_mut().enumerate() {
        e.role = if main[i] {
            ModelRole::Main
        } else if sub[i] {
            ModelRole::Subagent
        } else if no_evidence {
            // A result alone (`--output-format json`,
            // wave2/TomOfekKafka__ThePerfectSnake__claude-output.json@2edbbc9):
            // a sole model is the run's own.
            if sole {
                ModelRole::Main
            } else {
                ModelRole::Unknown
            }
        } else {
            ModelRole::Auxiliary
        };
        e.auxiliary = e.role == ModelRole::Auxiliary;
    }
}

/// The inputs of the main agent's figure.
pub(crate) struct MainInputs {
    /// Per-call sums and counts (every call, final or not).
    pub(crate) calls: AgentUsage,
    /// The sum of the calls that came as whole messages.
    pub(crate) complete: TokenCounts,
    /// How many such calls.
    pub(crate) complete_calls: u64,
    /// The results' usage, summed over the rounds (or the last one when the
    /// version writes it cumulative), when any result has `usage`.
    pub(crate) reported: Option<TokenCounts>,
}

/// The main agent's figure, by the precedence of [`TokenSource`].
pub(crate) fn main_figure(inp: MainInputs, entries: &[ModelUsageSummary]) -> AgentUsage {
    let mut a = inp.calls;
    a.reported = inp.reported;
    // Whole messages are final by their stop_reason, but where results
    // report usage those win over them: the one whole call of
    // charlieyou__claude-agent-sdk-gleam__test-fixtures-golden-basic_query.ndjson
    // (trimmed by its author) says 5 output tokens, its result 25.
    if a.messages > 0
        && a.final_calls == a.messages
        && (inp.reported.is_none() || inp.complete_calls == 0)
    {
        a.tokens = a.calls;
        a.source = TokenSource::FinalCalls;
        return a;
    }
    if let Some(r) = inp.reported {
        let mut both = r;
        both.add(&inp.complete);
        let mut main_models = TokenCounts::default();
        let mut any = false;
        for e in entries.iter().filter(|e| e.role == ModelRole::Main) {
            main_models.add(&e.tokens);
            any = true;
        }
        if inp.complete_calls > 0 && any && main_models == both {
            a.tokens = both;
            a.source = TokenSource::ResultsAndCompleteCalls;
        } else {
            a.tokens = r;
            a.source = TokenSource::Results;
        }
        return a;
    }
    if a.messages > 0 {
        a.tokens = a.calls;
        a.source = TokenSource::SnapshotCalls;
    }
    a
}

/// The inputs of one subagent's figure.
pub(crate) struct SubagentInputs<'a> {
    /// Its calls.
    pub(crate) calls: AgentUsage,
    /// What its Agent/Task tool result reported (`tool_use_result.usage`).
    pub(crate) reported: Option<TokenCounts>,
    /// The models its messages answer under.
    pub(crate) models: &'a [&'a str],
}

/// One subagent's figure: final calls, else the larger of its two lower
/// bounds, its report (its last call, final) and its snapshots.
pub(crate) fn subagent_figure(s: &SubagentInputs<'_>) -> AgentUsage {
    let mut a = s.calls;
    a.reported = s.reported;
    if a.messages > 0 && a.final_calls == a.messages {
        a.tokens = a.calls;
        a.source = TokenSource::FinalCalls;
    } else if let Some(r) = s.reported
        && !(a.messages > 0 && a.calls.output_tokens > r.output_tokens)
    {
        a.tokens = r;
        a.source = TokenSource::SubagentReports;
    } else if a.messages > 0 {
        a.tokens = a.calls;
        a.source = TokenSource::SnapshotCalls;
    }
    a
}

/// The figure of every subagent together, and, when the modelUsage
/// entries tell it, each subagent's own (a subagent alone on its models).
pub(crate) fn subagents_figure(
    each: &mut [AgentUsage],
    inputs: &[SubagentInputs<'_>],
    entries: &[ModelUsageSummary],
) -> AgentUsage {
    let mut all = AgentUsage::default();
    let mut reported = TokenCounts::default();
    let mut any_report = false;
    for (a, s) in each.iter().zip(inputs) {
        all.messages += a.messages;
        all.final_calls += a.final_calls;
        all.calls.add(&a.calls);
        if let Some(r) = s.reported {
            reported.add(&r);
            any_report = true;
        }
    }
    all.reported = any_report.then_some(reported);
    // modelUsage of the models only subagents use, when every subagent
    // message answers under one of them.
    let sub_entries: Vec<&ModelUsageSummary> = entries
        .iter()
        .filter(|e| e.role == ModelRole::Subagent)
        .collect();
    let sub_index = ModelIndex::new(sub_entries.iter().copied(), |_| true);
    let covered = inputs
        .iter()
        .all(|s| s.models.iter().all(|m| sub_index.any(m)));
    if !sub_entries.is_empty() && all.messages > 0 && covered {
        let mut t = TokenCounts::default();
        for e in &sub_entries {
            t.add(&e.tokens);
        }
        all.model_usage = Some(t);
    }
    if all.messages > 0 && all.final_calls == all.messages {
        all.tokens = all.calls;
        all.source = TokenSource::FinalCalls;
    } else if let Some(t) = all.model_usage {
        all.tokens = t;
        all.source = TokenSource::ModelUsage;
        // A subagent alone on its models: the same figure is its own.
        let with_calls: Vec<usize> = (0..each.len()).filter(|&i| each[i].messages > 0).collect();
        if let [i] = with_calls[..] {
            each[i].model_usage = Some(t);
            each[i].tokens = t;
            each[i].source = TokenSource::ModelUsage;
        }
    } else if each
        .iter()
        .any(|a| a.source == TokenSource::SubagentReports)
    {
        // Each subagent's best (its report, or its snapshots when larger).
        let mut t = TokenCounts::default();
        for a in each.iter() {
            t.add(&a.tokens);
        }
        all.tokens = t;
        all.source = TokenSource::SubagentReports;
    } else if all.messages > 0 {
        all.tokens = all.calls;
        all.source = TokenSource::SnapshotCalls;
    }
    all
}

/// Tokens and cost per model and role of a run: one row per modelUsage
/// entry, or, without modelUsage (1.0.x, pre-2.0 streams), one row for the
/// run's model in the main role holding both agents' figures and the run's
/// cost.
pub(crate) fn role_rows(
    entries: &[ModelUsageSummary],
    run_model: Option<&str>,
    main: &AgentUsage,
    subagents: &AgentUsage,
    total_cost_usd: Option<f64>,
) -> Vec<RoleUsage> {
    if !entries.is_empty() {
        return entries
            .iter()
            .map(|e| RoleUsage {
                model: e.model.clone(),
                role: e.role,
                tokens: e.tokens,
                cost_usd: e.cost_usd,
                from_model_usage: true,
            })
            .collect();
    }
    if main.messages == 0 && subagents.messages == 0 && total_cost_usd.is_none() {
        return Vec::new();
    }
    let mut t = main.tokens;
    t.add(&subagents.tokens);
    vec![RoleUsage {
        model: run_model.unwrap_or("unknown").to_string(),
        role: ModelRole::Main,
        tokens: t,
        cost_usd: total_cost_usd,
        from_model_usage: false,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calls_usage_is_the_main_chains_most_final_then_largest_reading() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let r = |sidechain, source, total| CallReading {
            sidechain,
            source,
            total,
        };
        let (snap, whole, delta) = (
            CallUsageSource::Snapshot,
            CallUsageSource::CompleteMessage,
            CallUsageSource::MessageDelta,
        );
        let cases = [
            // A final count stands against any snapshot, larger or not.
            (r(false, whole, 10), r(false, snap, 90), Greater),
            (r(false, snap, 90), r(false, whole, 10), Less),
            // The message_delta's count against a whole message's event.
            (r(false, delta, 10), r(false, whole, 90), Greater),
            (r(false, whole, 90), r(false, delta, 10), Less),
            // As final as each other: the larger.
            (r(false, snap, 11), r(false, snap, 10), Greater),
            (r(false, whole, 10), r(false, whole, 11), Less),
            (r(false, snap, 10), r(false, snap, 10), Equal),
            // The main chain's record before a sidechain's copy, whatever
            // the copy says.
            (r(false, snap, 1), r(true, delta, 90), Greater),
            (r(true, whole, 90), r(false, snap, 1), Less),
        ];
        for (new, old, want) in cases {
            assert_eq!(new.rank_against(&old), want, "{new:?} against {old:?}");
        }
        assert_eq!(CallUsageSource::of_message(true), whole);
        assert_eq!(CallUsageSource::of_message(false), snap);
    }

    #[test]
    fn the_model_index_matches_as_model_matches_does() {
        let entry = |model: &str, canonical: Option<&str>| ModelUsageSummary {
            model: model.to_owned(),
            tokens: TokenCounts::default(),
            cost_usd: None,
            canonical_model: canonical.map(str::to_owned),
            role: ModelRole::Main,
            auxiliary: false,
            summed: None,
        };
        let entries = [
            entry("claude-opus-5[1m]", None),
            entry("claude-haiku", Some("claude-haiku-4-5")),
            entry("x", Some("x")),
            entry("y[1m]", Some("z")),
            entry("claude-opus-5", Some("claude-opus-5")),
        ];
        let index = ModelIndex::new(entries.iter(), |_| true);
        let models = [
            "claude-opus-5",
            "claude-opus-5[1m]",
            "claude-haiku-4-5",
            "claude-haiku",
            "x",
            "z",
            "y",
            "y[2m]",
            "w",
            "",
            "[1m]",
        ];
        for m in models {
            let want: Vec<usize> = (0..entries.len())
                .filter(|&i| model_matches(&entries[i], m))
                .collect();
            assert_eq!(index.matching(m).collect::<Vec<_>>(), want, "{m}");
            assert_eq!(index.any(m), !want.is_empty(), "{m}");
        }
        // Entries left out of the index match nothing.
        let some = ModelIndex::new(entries.iter(), |e| e.model != "x");
        assert_eq!(some.matching("x").count(), 0);
        assert_eq!(some.matching("claude-opus-5").collect::<Vec<_>>(), [0, 4]);
    }
}
