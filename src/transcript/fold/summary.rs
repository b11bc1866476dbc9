//! What a transcript fold's report holds: sessions, days, models, roles,
//! agents, tool calls, each with its totals.

use crate::event::{EventKind, TokenCounts};
use crate::pricing::RequestTokens;
use crate::run::{
    ApiErrorMessage, ApiRetries, ExactSum, Hooks, ModelCall, ModelRole, ToolCall, ToolTally,
    Verdict,
};
use crate::time::{BlockStart, Day};
use std::collections::BTreeMap;

/// Tokens, requests and cost added up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Input tokens (not cached).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes that live 5 minutes.
    pub cache_write_5m: u64,
    /// Cache writes that live 1 hour.
    pub cache_write_1h: u64,
    /// API requests counted.
    pub requests: u64,
    /// Cost in US dollars.
    pub cost_usd: f64,
    /// The part of [`cost_usd`](Totals::cost_usd) that records stated
    /// (`costUSD`), not priced here.
    pub cost_from_records_usd: f64,
    /// Requests with tokens whose model has no price (counted as costing
    /// nothing).
    pub unpriced_requests: u64,
    /// Requests whose record stated its cost (`costUSD`).
    pub stated_requests: u64,
    /// Requests priced from the table.
    pub priced_requests: u64,
    /// The part of [`cost_usd`](Totals::cost_usd) priced from the table.
    pub cost_priced_usd: f64,
    /// The three costs' exact sums, which the `f64` fields are read from,
    /// rounded once (as every cost of the run layer is summed): a total
    /// does not depend on how its requests were grouped or ordered.
    exact: CostSums,
}

/// [`Totals`]' costs, summed exactly ([`ExactSum`]): the stated costs and
/// the priced ones (a request is one or the other, or costs nothing, so
/// the whole cost is their sum); each with the sum of the values no exact
/// sum takes (NaN, infinities: a price of 1e308), kept apart so that they
/// still show in the total as `f64` arithmetic has them.
#[derive(Clone, Debug, Default, PartialEq)]
struct CostSums {
    records: ExactSum,
    priced: ExactSum,
    not_finite: [f64; 2],
}

impl CostSums {
    #[inline]
    fn add(&mut self, stated: bool, x: f64) {
        let (sum, i) = match stated {
            true => (&mut self.records, 0),
            false => (&mut self.priced, 1),
        };
        sum.add(x);
        if !x.is_finite() {
            self.not_finite[i] += x;
        }
    }

    fn merge(&mut self, o: &CostSums) {
        self.records.merge(&o.records);
        self.priced.merge(&o.priced);
        self.not_finite[0] += o.not_finite[0];
        self.not_finite[1] += o.not_finite[1];
    }

    /// The whole cost's exact sum.
    fn all(&self) -> ExactSum {
        let mut all = self.records.clone();
        all.merge(&self.priced);
        all
    }

    /// (all, stated, priced) as `f64`s.
    fn read(&self) -> (f64, f64, f64) {
        let [r, p] = self.not_finite;
        let all = match (self.records.count(), self.priced.count()) {
            (0, _) => self.priced.to_f64(),
            (_, 0) => self.records.to_f64(),
            _ => self.all().to_f64(),
        };
        (
            all + (r + p),
            self.records.to_f64() + r,
            self.priced.to_f64() + p,
        )
    }

    /// True when the whole cost is no finite `f64`.
    fn beyond_f64(&self) -> bool {
        let [r, p] = self.not_finite;
        if r + p != 0.0 {
            return true;
        }
        match (self.records.count(), self.priced.count()) {
            (0, _) => self.priced.beyond_f64(),
            (_, 0) => self.records.beyond_f64(),
            _ => self.all().beyond_f64(),
        }
    }
}

impl Totals {
    /// Add one request; true when a count saturated (sums stop at
    /// `u64::MAX`, as every token sum does: see
    /// [`WARN_SUM_SATURATED`](crate::run::WARN_SUM_SATURATED)). Its cost
    /// is summed with `sum_cost`; without it the caller adds the costs of
    /// whole rows later ([`add_costs`](Totals::add_costs)).
    #[inline]
    pub(super) fn add_request(
        &mut self,
        u: &RequestTokens,
        cost: Option<f64>,
        stated: bool,
        priced: bool,
        sum_cost: bool,
    ) -> bool {
        let saturated = self.add_tokens([
            u.input,
            u.output,
            u.cache_read,
            u.cache_write_5m,
            u.cache_write_1h,
        ]);
        self.requests += 1;
        if let Some(c) = cost
            && sum_cost
        {
            self.exact.add(stated, c);
        }
        if stated {
            self.stated_requests += 1;
        } else if cost.is_some() {
            self.priced_requests += 1;
        }
        if !priced {
            self.unpriced_requests += 1;
        }
        saturated
    }

    /// Add the five token counts (input, output, cache reads, 5-minute and
    /// 1-hour cache writes), saturating; true when one saturated.
    #[inline]
    fn add_tokens(&mut self, b: [u64; 5]) -> bool {
        let mut saturated = false;
        let sums = [
            &mut self.input,
            &mut self.output,
            &mut self.cache_read,
            &mut self.cache_write_5m,
            &mut self.cache_write_1h,
        ];
        for (a, b) in sums.into_iter().zip(b) {
            saturated |= a.checked_add(b).is_none();
            *a = a.saturating_add(b);
        }
        saturated
    }

    /// Add another's requests (token sums saturating, as every token sum;
    /// costs exactly, read once [`settle`](Totals::settle)d).
    pub(crate) fn add(&mut self, o: &Totals) {
        self.add_tokens([
            o.input,
            o.output,
            o.cache_read,
            o.cache_write_5m,
            o.cache_write_1h,
        ]);
        self.requests += o.requests;
        self.unpriced_requests += o.unpriced_requests;
        self.stated_requests += o.stated_requests;
        self.priced_requests += o.priced_requests;
        self.exact.merge(&o.exact);
    }

    /// Add another's costs only (its requests' tokens and counts are
    /// already in): a total made of whole rows takes their sums.
    pub(super) fn add_costs(&mut self, o: &Totals) {
        self.exact.merge(&o.exact);
    }

    /// Read the costs from their exact sums (`add_request` leaves them
    /// to the end: a rounding per request would cost more than the sum).
    pub(crate) fn settle(&mut self) {
        (
            self.cost_usd,
            self.cost_from_records_usd,
            self.cost_priced_usd,
        ) = self.exact.read();
    }

    /// True when the cost so far is no finite `f64`.
    pub(super) fn cost_beyond_f64(&self) -> bool {
        self.exact.beyond_f64()
    }

    /// Cache writes of both lifetimes (saturating).
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m.saturating_add(self.cache_write_1h)
    }

    /// Every token: input, output, cache reads and writes.
    pub fn total_tokens(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write())
    }
}

/// A model's share of a session in one role: the main chain's requests
/// ([`ModelRole::Main`]) or the subagents' (sidechain records, subagent
/// files, relayed `agent_progress` messages: [`ModelRole::Subagent`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRoleTotals {
    /// `message.model` as written (`-` when absent).
    pub model: String,
    /// Main or subagent.
    pub role: ModelRole,
    /// Its totals.
    pub totals: Totals,
}

/// A session's requests of one day (`None`: their time is not a date).
#[derive(Clone, Debug, PartialEq)]
pub struct SessionDay {
    /// The day in the report's time zone.
    pub day: Option<Day>,
    /// Per model and role.
    pub by_role: Vec<ModelRoleTotals>,
    /// Tool calls made that day.
    pub tools: Vec<ToolTally>,
    /// API retries that day (`system/api_error` records).
    pub api_retries: u64,
}

/// A session's requests of one billing block (`None`: their time is not a
/// date); see [`Blocks`](crate::time::Blocks).
#[derive(Clone, Debug, PartialEq)]
pub struct SessionBlock {
    /// The block, by its start.
    pub block: Option<BlockStart>,
    /// Per model and role.
    pub by_role: Vec<ModelRoleTotals>,
    /// Tool calls made in it.
    pub tools: Vec<ToolTally>,
    /// API retries in it (`system/api_error` records).
    pub api_retries: u64,
}

/// Per period (a day, a block; `None` first), its rows per model and role,
/// its tool tallies and its API retries, in period order.
#[allow(clippy::type_complexity)]
pub(super) fn periods<K: Ord + Copy>(
    rows: BTreeMap<(Option<K>, &str, ModelRole), Totals>,
    tools: BTreeMap<(Option<K>, &str), ToolTally>,
    retries: BTreeMap<Option<K>, u64>,
) -> Vec<(Option<K>, Vec<ModelRoleTotals>, Vec<ToolTally>, u64)> {
    let mut out: BTreeMap<Option<K>, (Vec<ModelRoleTotals>, Vec<ToolTally>, u64)> = BTreeMap::new();
    for ((period, model, role), totals) in rows {
        out.entry(period).or_default().0.push(ModelRoleTotals {
            model: model.to_owned(),
            role,
            totals,
        });
    }
    for ((period, name), tally) in tools {
        out.entry(period).or_default().1.push(ToolTally {
            name: name.to_owned(),
            ..tally
        });
    }
    for (period, n) in retries {
        out.entry(period).or_default().2 = n;
    }
    out.into_iter().map(|(k, (r, t, n))| (k, r, t, n)).collect()
}

/// How a session's main chain ended: its latest reply, API error or
/// interrupt.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionEnd {
    /// An assistant reply, with its `stop_reason` (null in most 2.x
    /// transcripts, which write it before the message ends).
    Reply {
        /// `message.stop_reason`.
        stop_reason: Option<String>,
    },
    /// An API error (`isApiErrorMessage`, `system/api_error`).
    ApiError,
    /// The user interrupted the turn (`[Request interrupted by user...]`).
    Interrupted,
    /// The last turn waits for an answer that never came: a prompt or a
    /// tool result no reply followed, or a tool call no result followed.
    AwaitingReply,
}

/// A model's share of a session or a day.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTotals {
    /// `message.model` as written (`-` when absent).
    pub model: String,
    /// Its totals.
    pub totals: Totals,
}

/// A subagent of a session: a node of the sidechain tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentSummary {
    /// `agentId` (or the `agent-<id>.jsonl` file's id); `None` for a
    /// subagent known only by the call that launched it (no record of its
    /// own, no `agent_progress`, no result naming it), which a stream's run
    /// lists as it lists every Agent/Task call.
    pub agent_id: Option<String>,
    /// The parent's tool call that spawned it (`parentToolUseID` of the
    /// parent's `agent_progress` records, or the call whose result names
    /// its `agentId`), when the parent says.
    pub spawned_by: Option<String>,
    /// That call's tool (`Task`, `Agent`), when the parent's records hold
    /// the call.
    pub tool_name: Option<String>,
    /// That call's `subagent_type` (`general-purpose`, `Explore`).
    pub subagent_type: Option<String>,
    /// That call's `description`.
    pub description: Option<String>,
    /// Its records.
    pub records: u64,
    /// Tool calls it made (in its own records).
    pub tool_calls: u64,
    /// Its requests.
    pub totals: Totals,
    /// The time of its first dated request (ms since the epoch), or its
    /// call's for one known only by its call: the day and billing block it
    /// counts in (`stats --by day`).
    pub first_request_ms: Option<i64>,
    /// The `status` of its call's result (`completed`, ...), when the
    /// parent's records hold the result (its `toolUseResult`).
    pub status: Option<String>,
    /// That result's handback report (`handbackReport.text`).
    pub report: Option<String>,
    /// That result was an error.
    pub result_error: bool,
    /// That result's `usage`: its last call's, as a stream's subagent
    /// reports it (`usage.figures.reported` of its run's node).
    pub reported_usage: Option<TokenCounts>,
}

/// What a session's records say beyond usage: what a verdict can know.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionFacts {
    /// The earliest record's time (ms since the epoch).
    pub first_timestamp_ms: Option<i64>,
    /// The latest record's time.
    pub last_timestamp_ms: Option<i64>,
    /// The Claude Code versions that wrote the records, oldest first.
    pub versions: Vec<String>,
    /// Records per kind.
    pub records: Vec<(EventKind, u64)>,
    /// Records of subagents (`isSidechain`, `agentId`).
    pub sidechain_records: u64,
    /// The stop reason of the main chain's last assistant record that has
    /// one (`end_turn`, `tool_use`, `max_tokens`, ...).
    pub last_stop_reason: Option<String>,
    /// Assistant records the CLI wrote for API requests that failed for
    /// good (`isApiErrorMessage`).
    pub api_errors: u64,
    /// Those records, in time order: each one's `error` (`rate_limit`),
    /// its first text and its line in its file, as a stream's run lists
    /// its `<synthetic>` messages.
    pub api_error_messages: Vec<ApiErrorMessage>,
    /// Turns the user interrupted (`[Request interrupted by user...]`).
    pub interrupted_turns: u64,
    /// Tool results that failed (each record's, by [`ToolTally`]'s rule;
    /// a user's rejection is not a failure).
    pub tool_errors: u64,
    /// Tool results (on the days kept) whose `tool_use_id` no call of any
    /// file folded has, each id once: a stream's
    /// `tool_results_without_use`.
    pub tool_results_without_use: u64,
    /// Compactions (`system/compact_boundary`).
    pub compactions: u64,
    /// Sum of `system/turn_duration` records.
    pub turn_duration_ms: u64,
    /// The last `summary` record's title.
    pub summary: Option<String>,
    /// The subagents, by id.
    pub agents: Vec<AgentSummary>,
    /// How the main chain's last turn ended; `None` when it has no reply,
    /// API error or interrupt.
    pub ending: Option<SessionEnd>,
    /// API retries on the days kept (`system/api_error` records: failed
    /// attempts the CLI retried), as a stream's run counts `api_retry`
    /// events; `last_error` stays empty (a transcript's `error` is an
    /// object without the stream's category).
    pub api_retries: ApiRetries,
    /// Each of those retries' time (ms since the epoch) and its record's
    /// line, in the order counted (by time): the HTML report's timeline.
    pub api_retry_marks: Vec<(Option<i64>, u64)>,
    /// Hooks: `hook_progress` records (hooks started), and the Stop hooks'
    /// outcomes (`system/stop_hook_summary`: `hookCount` answered, a
    /// failure named `Stop` per `hookErrors` element, on its record's
    /// line). Transcripts record no other hook's outcome.
    pub hooks: Hooks,
    /// The first request (file, line) whose tokens took a sum past
    /// `u64::MAX` (the sum stays there).
    pub sum_saturated_at: Option<(String, u64)>,
    /// The first request (file, line) whose cost, or the session's cost
    /// with it, no `f64` holds (a price of 1e308): not summed.
    pub cost_beyond_f64_at: Option<(String, u64)>,
    /// Numbers the records hold that are not what their field takes (a
    /// token count that is not a u64, read as 0; a `costUSD` that is not
    /// a number, priced from the table, or negative, kept).
    pub unusual_numbers: u64,
    /// The first of them by place (file, line, what it is).
    pub first_unusual_number: Option<(String, u64, String)>,
}

impl SessionFacts {
    /// What a transcript can say of how the session went (it has no
    /// result), from how its main chain's last turn ended:
    ///
    /// | the last turn | verdict |
    /// |---|---|
    /// | a reply (the session ended there) | [`Verdict::Ended`] |
    /// | a reply cut short (`max_tokens`, `refusal`) | [`Verdict::Error`] |
    /// | an API error | [`Verdict::ApiError`] |
    /// | the user interrupted it | [`Verdict::Interrupted`] |
    /// | a prompt, tool call or tool result nothing answered | [`Verdict::CutOff`] |
    /// | none (no main-chain turn: a subagent file alone) | [`Verdict::NoResult`] |
    pub fn verdict(&self) -> Verdict {
        match &self.ending {
            None => Verdict::NoResult,
            Some(SessionEnd::ApiError) => Verdict::ApiError,
            Some(SessionEnd::Interrupted) => Verdict::Interrupted,
            Some(SessionEnd::AwaitingReply) => Verdict::CutOff,
            Some(SessionEnd::Reply { stop_reason }) => match stop_reason.as_deref() {
                Some("max_tokens" | "refusal") => Verdict::Error,
                _ => Verdict::Ended,
            },
        }
    }
}

/// One session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionSummary {
    /// The session's id (`sessionId`, or the file's).
    pub session_id: String,
    /// The project folder its first file was in, when known.
    pub project: Option<String>,
    /// The files its records came from ([`TranscriptFile::name`](crate::transcript::TranscriptFile::name)): its own
    /// first, then its subagents', in the order read.
    pub files: Vec<String>,
    /// Its requests, subagents' included.
    pub totals: Totals,
    /// The part of [`totals`](SessionSummary::totals) whose time is not a
    /// date (on no day).
    pub undated: Totals,
    /// Per model.
    pub models: Vec<ModelTotals>,
    /// Per model and role (main chain, subagents).
    pub by_role: Vec<ModelRoleTotals>,
    /// Per day, then model and role (undated requests first, `day: None`).
    pub by_day: Vec<SessionDay>,
    /// Per billing block, then model and role; empty unless blocks were
    /// asked for ([`TranscriptFold::finish_within`](crate::transcript::TranscriptFold::finish_within)).
    pub by_block: Vec<SessionBlock>,
    /// Tool calls per tool, by name.
    pub tools: Vec<ToolTally>,
    /// Each tool call (as [`tools`](SessionSummary::tools) counts them),
    /// by file ([`files`](SessionSummary::files)' order) and line; empty
    /// unless the fold was asked to keep them
    /// ([`TranscriptFold::record_calls`](crate::transcript::TranscriptFold::record_calls)).
    /// [`to_run`](SessionSummary::to_run) carries them.
    pub tool_calls: Vec<ToolCall>,
    /// Each model call (each API request, counted once; the CLI's own
    /// `<synthetic>` messages are not calls), in the session's order (by
    /// time); empty unless the fold was asked to keep the calls.
    /// [`to_run`](SessionSummary::to_run) carries them.
    pub model_calls: Vec<ModelCall>,
    /// What its records say.
    pub facts: SessionFacts,
}

/// One day in the report's time zone.
#[derive(Clone, Debug, PartialEq)]
pub struct DaySummary {
    /// The day.
    pub day: Day,
    /// Requests made that day.
    pub totals: Totals,
    /// Per model.
    pub models: Vec<ModelTotals>,
}

/// What [`TranscriptFold::finish`](crate::transcript::TranscriptFold::finish) gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Sessions by id.
    pub sessions: Vec<SessionSummary>,
    /// Days, in order.
    pub days: Vec<DaySummary>,
    /// Requests whose time is not a date: in their session, on no day.
    pub undated: Totals,
    /// Everything.
    pub total: Totals,
    /// Models with tokens and no price.
    pub unpriced_models: Vec<String>,
    /// When the prices used were taken.
    pub prices_taken: String,
    /// Where the prices used come from.
    pub prices_source: String,
}

impl Report {
    /// Read every total's costs from its exact sums: the one place the
    /// fold's totals are rounded, once each, at its end.
    pub(super) fn settle(&mut self) {
        let rows =
            |rows: &mut Vec<ModelRoleTotals>| rows.iter_mut().for_each(|r| r.totals.settle());
        let models = |m: &mut Vec<ModelTotals>| m.iter_mut().for_each(|m| m.totals.settle());
        for s in &mut self.sessions {
            s.totals.settle();
            s.undated.settle();
            models(&mut s.models);
            rows(&mut s.by_role);
            s.by_day.iter_mut().for_each(|d| rows(&mut d.by_role));
            s.by_block.iter_mut().for_each(|b| rows(&mut b.by_role));
            s.facts.agents.iter_mut().for_each(|a| a.totals.settle());
        }
        for d in &mut self.days {
            d.totals.settle();
            models(&mut d.models);
        }
        self.undated.settle();
        self.total.settle();
    }
}
