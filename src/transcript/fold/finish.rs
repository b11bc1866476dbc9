//! The fold's end: requests priced and grouped by session, day, model,
//! role, agent and billing block, in one order whatever the order the files
//! were read in.

use super::keys::CallIds;
use super::keys::request_key;
use super::names::Names;
use super::summary::*;
use super::tools::Tools;
use super::{At, End, Facts, NONE, Request, TranscriptFold};
use crate::pricing::PriceTable;
use crate::run::{ModelCall, ModelRole, ToolCall, ToolTally};
use crate::time::{BlockStart, Blocks, Day, DayRange, Zone};
use crate::transcript::SYNTHETIC;
use std::collections::BTreeMap;
use std::collections::HashMap;

impl TranscriptFold {
    /// The instants of the requests folded (each request once, those with a
    /// date on a day in `range`): what [`Blocks`] are made of.
    pub(crate) fn request_instants(&self, zone: &Zone, range: &DayRange) -> Vec<i64> {
        self.requests
            .values()
            .chain(&self.loose)
            .filter_map(|r| r.millis)
            .filter(|&ms| range.is_all() || range.contains(Some(Day::of_millis(ms, zone))))
            .collect()
    }

    /// [`finish`](TranscriptFold::finish), keeping only the requests and
    /// tool calls made on a day in `range` (in `zone`), and the sessions
    /// with any: `cctape stats --since/--until`, which ccusage's reports
    /// take the same way (each request by its own day, in every report).
    /// With `blocks`, each session's figures are also split by billing
    /// block ([`SessionSummary::by_block`]).
    pub fn finish_within(
        self,
        prices: &PriceTable,
        zone: &Zone,
        range: &DayRange,
        blocks: Option<&Blocks>,
    ) -> Report {
        let TranscriptFold {
            sessions,
            strings,
            mut facts,
            requests,
            loose,
            tools,
            keep_calls,
            call_ids,
            call_id_text,
            ..
        } = self;
        // Records without a `sessionId` (file-history-snapshot, summary)
        // were put in the session their file's path names; where the file's
        // other records name their session, they belong to it instead.
        let alias = path_aliases(&facts);
        for (i, to) in alias.iter().enumerate() {
            if let Some(to) = *to {
                let of = std::mem::take(&mut facts[i]);
                facts[to as usize].absorb(of, 0, &|x| x);
            }
        }
        // Without bounds no day is needed to keep a request.
        let all = requests_in_order(
            requests.into_values().chain(loose),
            &alias,
            &sessions,
            |ms| range.is_all() || range.contains(ms.map(|ms| Day::of_millis(ms, zone))),
        );
        // The call that spawned each session's subagents, when their
        // parent's records say (`NONE` otherwise, and for the main chain).
        let spawners: Vec<HashMap<u32, u32>> = if keep_calls {
            facts
                .iter()
                .map(|f| f.agents.iter().map(|a| (a.agent, a.spawned_by)).collect())
                .collect()
        } else {
            Vec::new()
        };
        let end = Ending {
            strings: &strings,
            zone,
            range,
            blocks,
            alias: &alias,
            keep_calls,
            spawners,
            tools: &tools,
        };
        let mut by_session: Vec<PerSession> = vec![Default::default(); sessions.len()];
        end.count_tools(&mut by_session);
        let ids = (&call_ids, call_id_text.as_str());
        let sums = end.sum_requests(&all, prices, ids, &mut by_session);
        let mut out_sessions = Vec::with_capacity(sessions.len());
        for (((id, f), per), alias) in sessions.iter().zip(facts).zip(by_session).zip(&alias) {
            if alias.is_none()
                && let Some(s) = end.session(id, f, per)
            {
                out_sessions.push(s);
            }
        }
        out_sessions.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        sums.into_report(out_sessions, prices)
    }
}

/// What the fold's end reads, step by step: its names, the days and
/// blocks asked for, where each session went ([`path_aliases`]), and the
/// tool calls, their results and the subagents' ends.
struct Ending<'a> {
    strings: &'a Names,
    zone: &'a Zone,
    range: &'a DayRange,
    blocks: Option<&'a Blocks>,
    alias: &'a [Option<u32>],
    keep_calls: bool,
    /// The call that spawned each session's subagents (empty unless the
    /// calls are kept).
    spawners: Vec<HashMap<u32, u32>>,
    tools: &'a Tools,
}

/// The figures summed over every session: per day (and model), those on
/// no day, everything, and the requests of each model with no price.
#[derive(Default)]
struct Sums<'a> {
    by_day: BTreeMap<Day, (Totals, BTreeMap<&'a str, Totals>)>,
    undated: Totals,
    total: Totals,
    unpriced: BTreeMap<String, u64>,
}

impl<'a> Sums<'a> {
    /// The report of `sessions` with these sums, priced by `prices`, its
    /// costs read from their exact sums.
    fn into_report(self, sessions: Vec<SessionSummary>, prices: &PriceTable) -> Report {
        let Sums {
            by_day,
            undated,
            total,
            unpriced,
        } = self;
        let mut report = Report {
            sessions,
            days: by_day
                .into_iter()
                .map(|(day, (totals, m))| DaySummary {
                    day,
                    totals,
                    models: models(m),
                })
                .collect(),
            undated,
            total,
            unpriced_models: unpriced.into_keys().collect(),
            prices_taken: prices.taken().to_owned(),
            prices_source: prices.source().to_owned(),
        };
        report.settle();
        report
    }

    /// The costs of the totals made of whole (day, model, role) rows: a
    /// session's models and roles, its undated part, each day's, and the
    /// whole, which take their rows' exact sums rather than a request's.
    fn add_whole_rows(&mut self, by_session: &mut [PerSession<'a>]) {
        // The costs of the totals made of whole (day, model, role) rows.
        for s in by_session.iter_mut() {
            for ((day, model, role), row) in &s.days {
                if let Some(t) = s.models.get_mut(model) {
                    t.add_costs(row);
                }
                if let Some(t) = s.roles.get_mut(&(*model, *role)) {
                    t.add_costs(row);
                }
                match day {
                    Some(day) => {
                        if let Some(d) = self.by_day.get_mut(day) {
                            d.0.add_costs(row);
                            if let Some(t) = d.1.get_mut(model) {
                                t.add_costs(row);
                            }
                        }
                    }
                    None => {
                        s.undated.add_costs(row);
                        self.undated.add_costs(row);
                    }
                }
                self.total.add_costs(row);
            }
        }
    }
}

/// Rows per model, by name.
fn models(m: BTreeMap<&str, Totals>) -> Vec<ModelTotals> {
    m.into_iter()
        .map(|(model, totals)| ModelTotals {
            model: model.to_owned(),
            totals,
        })
        .collect()
}

impl<'a> Ending<'a> {
    /// Name `i` as an owned string.
    fn name(&self, i: u32) -> Option<String> {
        self.strings.get(i).map(str::to_owned)
    }

    /// The call that spawned `agent` of `session` (`NONE`: unknown, or
    /// the main chain).
    fn spawned_by(&self, session: u32, agent: u32) -> u32 {
        self.spawners
            .get(session as usize)
            .and_then(|m| m.get(&agent))
            .copied()
            .unwrap_or(NONE)
    }

    /// Each tool call (on a day kept) counted in its session's tallies,
    /// by tool, day, block and agent, and kept when the calls are; and
    /// the results that answer no call.
    fn count_tools(&self, by_session: &mut [PerSession<'a>]) {
        let (strings, zone, range, blocks) = (self.strings, self.zone, self.range, self.blocks);
        let name = |i: u32| self.name(i);
        for (key, call, answer) in self.tools.ledger.calls() {
            let day = call.millis.map(|ms| Day::of_millis(ms, zone));
            if !range.contains(day) {
                continue;
            }
            let block = blocks.and_then(|b| b.block_of(call.millis?));
            let session = self.alias[call.session as usize].unwrap_or(call.session);
            let tool = strings.get(call.name).unwrap_or("-");
            let o = answer.outcome(call.millis);
            let count = |t: &mut ToolTally| t.count(&o);
            let s = &mut by_session[session as usize];
            if call.subagent {
                s.launches.push((*key, call.id.0, call.id.1));
            }
            if self.keep_calls {
                let (start, len) = call.id;
                s.tool_calls.push((
                    call.block,
                    ToolCall {
                        tool_use_id: self.tools.ids[start..start + len as usize].to_owned(),
                        name: tool.to_owned(),
                        agent: name(self.spawned_by(session, call.agent)),
                        agent_id: name(call.agent),
                        sidechain: call.sidechain,
                        file: name(call.at.file),
                        line: call.at.line,
                        result_line: o.result_line,
                        started_ms: call.millis,
                        duration_ms: o.duration_ms,
                        answered: o.answered,
                        error: o.error,
                        rejected: o.rejected,
                    },
                ));
            }
            count(s.tools.entry(tool).or_default());
            if call.agent != NONE {
                *s.agent_tools.entry(call.agent).or_default() += 1;
            }
            count(s.day_tools.entry((day, tool)).or_default());
            if blocks.is_some() {
                count(s.block_tools.entry((block, tool)).or_default());
            }
        }
        // Results that answer no call (on a day kept), in their record's
        // session.
        for r in self.tools.ledger.results_without_call() {
            if !range.contains(r.millis.map(|ms| Day::of_millis(ms, zone))) {
                continue;
            }
            let session = self.alias[r.session as usize].unwrap_or(r.session);
            by_session[session as usize].results_without_use += 1;
        }
    }

    /// Each request (in the session's order) priced and summed into its
    /// session's rows (by model, role, day, block and agent), its day's
    /// and the whole; kept as a model call when the calls are (`ids`:
    /// where its ids are written).
    fn sum_requests(
        &self,
        all: &[Request],
        prices: &PriceTable,
        ids: (&CallIds, &str),
        by_session: &mut [PerSession<'a>],
    ) -> Sums<'a> {
        let (strings, zone, blocks) = (self.strings, self.zone, self.blocks);
        let name = |i: u32| self.name(i);
        let mut sums = Sums::default();
        // Each model's prices looked up once (the lookup normalizes its name).
        let mut model_prices: HashMap<u32, Option<&crate::pricing::ModelPrices>> = HashMap::new();
        for r in all {
            let model = strings.get(r.model).unwrap_or("-");
            let (cost, priced) = match r.cost_usd {
                Some(c) => (Some(c), true),
                None => {
                    let p = *model_prices
                        .entry(r.model)
                        .or_insert_with(|| prices.prices(model));
                    let c = p.map(|p| p.cost(&r.usage));
                    (c, c.is_some() || r.usage.total() == 0)
                }
            };
            if !priced {
                *sums.unpriced.entry(model.to_owned()).or_default() += 1;
            }
            let s = &mut by_session[r.session as usize];
            // The CLI's own messages (`<synthetic>`) are not model calls (as
            // the run's counts leave them out).
            if self.keep_calls && model != SYNTHETIC {
                s.model_calls.push(self.model_call(r, model, cost, ids));
            }
            let mut saturated = false;
            // The costs are summed into the session's total (whose running
            // sum says when it leaves f64), its (day, model, role) rows, its
            // blocks and agents; the totals made of whole rows take their
            // rows' sums after the loop (`Totals::add_costs`), a fraction
            // of the additions.
            let stated = r.cost_usd.is_some();
            let mut add = |t: &mut Totals, sum_cost: bool| {
                saturated |= t.add_request(&r.usage, cost, stated, priced, sum_cost)
            };
            add(&mut s.totals, true);
            add(s.models.entry(model).or_default(), false);
            let role = if r.sidechain {
                ModelRole::Subagent
            } else {
                ModelRole::Main
            };
            add(s.roles.entry((model, role)).or_default(), false);
            let day = r.millis.map(|ms| Day::of_millis(ms, zone));
            add(s.days.entry((day, model, role)).or_default(), true);
            if let Some(b) = blocks {
                let block = r.millis.and_then(|ms| b.block_of(ms));
                add(s.blocks.entry((block, model, role)).or_default(), true);
            }
            if r.agent != NONE {
                add(s.agents.entry(r.agent).or_default(), true);
                if let Some(ms) = r.millis {
                    let first = s.agent_first.entry(r.agent).or_insert(ms);
                    *first = (*first).min(ms);
                }
            }
            match day {
                Some(day) => {
                    let d = sums.by_day.entry(day).or_default();
                    add(&mut d.0, false);
                    add(d.1.entry(model).or_default(), false);
                }
                None => {
                    add(&mut sums.undated, false);
                    add(&mut s.undated, false);
                }
            }
            add(&mut sums.total, false);
            // The first request whose tokens saturated a sum, or whose cost
            // no f64 holds (a price of 1e308), in the session's order.
            let at = |a: At| (name(a.file).unwrap_or_default(), a.line);
            if saturated && s.saturated_at.is_none() {
                s.saturated_at = Some(at(r.at));
            }
            if (cost.is_some_and(|c| !c.is_finite()) || s.totals.cost_beyond_f64())
                && s.cost_beyond_f64_at.is_none()
            {
                s.cost_beyond_f64_at = Some(at(r.at));
            }
        }
        sums.add_whole_rows(by_session);
        sums
    }

    /// Request `r` of `model` as a model call, with its `cost` and its
    /// ids (where `ids` keeps them).
    fn model_call(
        &self,
        r: &Request,
        model: &str,
        cost: Option<f64>,
        (call_ids, call_id_text): (&CallIds, &str),
    ) -> ModelCall {
        let name = |i: u32| self.name(i);
        // A request without a message id is one of its own.
        let (id, request) = call_ids
            .get(&r.key)
            .map_or((None, None), |c| c.ids(call_id_text));
        ModelCall {
            message_id: id.map(str::to_owned),
            request_id: request.map(str::to_owned),
            agent: name(self.spawned_by(r.session, r.agent)),
            agent_id: name(r.agent),
            sidechain: r.sidechain,
            model: Some(model.to_owned()),
            usage: crate::event::TokenCounts {
                input_tokens: r.usage.input,
                output_tokens: r.usage.output,
                cache_read_input_tokens: r.usage.cache_read,
                cache_creation_input_tokens: r.usage.cache_write(),
            },
            final_usage: r.source.is_final(),
            source: r.source,
            cost_usd: cost,
            file: name(r.at.file),
            line: r.at.line,
            first_line: r.at.line,
            last_line: r.at.line,
            started_ms: r.millis,
            ended_ms: r.millis,
        }
    }

    /// A session's subagents, by id, then those known only by their call
    /// (by its id): each with its records, calls and requests, and what
    /// the call that launched it and its result say.
    fn agents(&self, f: &Facts, per: &PerSession<'a>) -> Vec<AgentSummary> {
        let (strings, name) = (self.strings, |i: u32| self.name(i));
        // What the call that spawned a subagent and its result say,
        // when the parent's records hold them.
        let launched = |key: Option<u128>, spawned_by: Option<String>| {
            let call = key.and_then(|k| self.tools.ledger.get(&k));
            let end = key.and_then(|k| self.tools.agent_ends.get(&k));
            AgentSummary {
                spawned_by,
                tool_name: call.and_then(|c| name(c.name)),
                subagent_type: call.and_then(|c| name(c.subagent_type)),
                description: call.and_then(|c| name(c.description)),
                status: end.and_then(|e| name(e.status)),
                report: end.and_then(|e| name(e.report)),
                result_error: key
                    .and_then(|k| self.tools.ledger.answer_of(&k))
                    .is_some_and(|a| a.error),
                reported_usage: end.and_then(|e| e.usage),
                first_request_ms: call.and_then(|c| c.millis),
                ..AgentSummary::default()
            }
        };
        let mut agents: Vec<AgentSummary> = f
            .agents
            .iter()
            .map(|a| {
                let key = strings
                    .get(a.spawned_by)
                    .map(|id| request_key(id.as_bytes(), None));
                AgentSummary {
                    agent_id: name(a.agent),
                    records: a.records,
                    tool_calls: per.agent_tools.get(&a.agent).copied().unwrap_or(0),
                    totals: per.agents.get(&a.agent).cloned().unwrap_or_default(),
                    first_request_ms: per.agent_first.get(&a.agent).copied(),
                    ..launched(key, name(a.spawned_by))
                }
            })
            .collect();
        // Subagents known only by their call, as a stream lists one
        // per Agent/Task call (those no other subagent's `spawned_by`
        // names): they count on their call's day.
        for &(key, start, len) in &per.launches {
            let id = &self.tools.ids[start..start + len as usize];
            if !agents.iter().any(|a| a.spawned_by.as_deref() == Some(id)) {
                agents.push(launched(Some(key), Some(id.to_owned())));
            }
        }
        // By id, then those without one by their call's id.
        agents.sort_by(|a, b| {
            (a.agent_id.is_none(), &a.agent_id, &a.spawned_by).cmp(&(
                b.agent_id.is_none(),
                &b.agent_id,
                &b.spawned_by,
            ))
        });
        agents
    }

    /// A session's rows, tool tallies and API retries (those on the days
    /// kept) per day, and per billing block when blocks were asked for.
    #[allow(clippy::type_complexity)]
    fn periods(
        &self,
        f: &Facts,
        (days, day_tools): (
            BTreeMap<(Option<Day>, &'a str, ModelRole), Totals>,
            BTreeMap<(Option<Day>, &'a str), ToolTally>,
        ),
        (per_block, block_tools): (
            BTreeMap<(Option<BlockStart>, &'a str, ModelRole), Totals>,
            BTreeMap<(Option<BlockStart>, &'a str), ToolTally>,
        ),
    ) -> (Vec<SessionDay>, Vec<SessionBlock>) {
        let (zone, range, blocks) = (self.zone, self.range, self.blocks);
        // Retries on the days kept, per day (and block).
        let day_of = |ms: Option<i64>| ms.map(|ms| Day::of_millis(ms, zone));
        let mut day_retries: BTreeMap<Option<Day>, u64> = BTreeMap::new();
        let mut block_retries: BTreeMap<Option<BlockStart>, u64> = BTreeMap::new();
        for r in &f.system.retries {
            let day = day_of(r.millis);
            if !range.contains(day) {
                continue;
            }
            *day_retries.entry(day).or_default() += 1;
            if let Some(b) = blocks {
                *block_retries
                    .entry(r.millis.and_then(|ms| b.block_of(ms)))
                    .or_default() += 1;
            }
        }
        let by_day: Vec<SessionDay> = periods(days, day_tools, day_retries)
            .into_iter()
            .map(|(day, by_role, tools, api_retries)| SessionDay {
                day,
                by_role,
                tools,
                api_retries,
            })
            .collect();
        let by_block: Vec<SessionBlock> = periods(per_block, block_tools, block_retries)
            .into_iter()
            .map(|(block, by_role, tools, api_retries)| SessionBlock {
                block,
                by_role,
                tools,
                api_retries,
            })
            .collect();
        (by_day, by_block)
    }

    /// A session's files (its own first) and its tool calls in the order
    /// written: by file, line, then block.
    fn files_and_calls(
        &self,
        f: &Facts,
        mut calls: Vec<(u32, ToolCall)>,
    ) -> (Vec<(String, bool)>, Vec<ToolCall>) {
        let name = |i: u32| self.name(i);
        let mut files: Vec<(String, bool)> = f
            .files
            .iter()
            .filter_map(|&(i, main)| Some((name(i)?, main)))
            .collect();
        // The session's own file first.
        files.sort_by_key(|(_, main)| !main);
        // Calls by file (as listed), then line, then their place in
        // the record, as written (then by id: records of inputs
        // without a name may share a line).
        calls.sort_by_cached_key(|(block, c)| {
            let file = files.iter().position(|(n, _)| Some(n) == c.file.as_ref());
            (file, c.line, *block, c.tool_use_id.clone())
        });
        let calls: Vec<ToolCall> = calls.into_iter().map(|(_, c)| c).collect();
        (files, calls)
    }

    /// Session `id`'s summary from its facts and sums; `None` when it has
    /// no request and no tool call on a day kept.
    fn session(&self, id: &str, f: Facts, per: PerSession<'a>) -> Option<SessionSummary> {
        let (zone, range) = (self.zone, self.range);
        let name = |i: u32| self.name(i);
        let agents = self.agents(&f, &per);
        let PerSession {
            totals,
            undated,
            models: per_model,
            agents: _,
            roles,
            days,
            blocks: per_block,
            tools,
            day_tools,
            block_tools,
            agent_tools: _,
            results_without_use,
            launches: _,
            tool_calls: calls,
            model_calls,
            agent_first: _,
            saturated_at,
            cost_beyond_f64_at,
        } = per;
        let tool = |(name, tally): (&str, ToolTally)| ToolTally {
            name: name.to_owned(),
            ..tally
        };
        let row = |((model, role), totals): ((&str, ModelRole), Totals)| ModelRoleTotals {
            model: model.to_owned(),
            role,
            totals,
        };
        let (by_day, by_block) = self.periods(&f, (days, day_tools), (per_block, block_tools));
        let day_of = |ms: Option<i64>| ms.map(|ms| Day::of_millis(ms, zone));
        if by_day.is_empty() && !range.is_all() {
            // No request and no tool call on a day kept.
            return None;
        }
        let (files, calls) = self.files_and_calls(&f, calls);
        let mut versions: Vec<String> = f.versions.iter().filter_map(|&v| name(v)).collect();
        versions.sort_by(|a, b| crate::version::version_order(a, b));
        let ending = f.ending.map(|(_, _, how)| match how {
            End::Reply(r) => SessionEnd::Reply {
                stop_reason: name(r),
            },
            End::ApiError => SessionEnd::ApiError,
            End::Interrupted => SessionEnd::Interrupted,
            End::Awaiting => SessionEnd::AwaitingReply,
        });
        let (unusual_numbers, first_unusual_number) = f.unusual.finish(name);
        Some(SessionSummary {
            session_id: id.to_string(),
            project: name(f.project),
            files: files.into_iter().map(|(n, _)| n).collect(),
            totals,
            undated,
            models: models(per_model),
            by_role: roles.into_iter().map(row).collect(),
            by_day,
            by_block,
            tools: tools.into_iter().map(tool).collect(),
            tool_calls: calls,
            model_calls,
            facts: SessionFacts {
                first_timestamp_ms: f.first_ms,
                last_timestamp_ms: f.last_ms,
                versions,
                records: super::records_by_kind(&f.kinds),
                sidechain_records: f.sidechain_records,
                last_stop_reason: f.last_stop.and_then(|(_, _, r)| name(r)),
                api_errors: f.api_errors,
                interrupted_turns: f.interrupted_turns,
                tool_errors: f.tool_errors,
                tool_results_without_use: results_without_use,
                compactions: f.compactions,
                turn_duration_ms: f.turn_duration_ms,
                summary: name(f.summary),
                agents,
                ending,
                api_retries: f.system.api_retries(|ms| range.contains(day_of(ms))),
                api_retry_marks: f.system.retry_marks(|ms| range.contains(day_of(ms))),
                hooks: f.system.hooks(),
                api_error_messages: f.system.api_errors(name),
                sum_saturated_at: saturated_at,
                cost_beyond_f64_at,
                unusual_numbers,
                first_unusual_number,
            },
        })
    }
}

/// Every request (each once) on a day `kept`, in its session (`alias`
/// applied), in one order whatever the order the files were read in:
/// by session name, time, key and tokens.
fn requests_in_order(
    requests: impl Iterator<Item = Request>,
    alias: &[Option<u32>],
    sessions: &Names,
    kept: impl Fn(Option<i64>) -> bool,
) -> Vec<Request> {
    let mut all: Vec<Request> = requests
        .map(|mut r| {
            r.session = alias[r.session as usize].unwrap_or(r.session);
            r
        })
        .filter(|r| kept(r.millis))
        .collect();
    // Sessions in name order, as ranks: the sort compares numbers.
    let mut order: Vec<u32> = (0..sessions.len() as u32).collect();
    order.sort_by(|a, b| sessions.get(*a).cmp(&sessions.get(*b)));
    let mut rank = vec![0u32; order.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    all.sort_unstable_by_key(|r| (rank[r.session as usize], r.millis, r.key, r.usage.total()));
    all
}

/// For each session named only by a file's path: the session that the same
/// file's other records name, if there is one.
fn path_aliases(facts: &[Facts]) -> Vec<Option<u32>> {
    facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (file, _) = *f.files.first()?;
            if f.named {
                return None;
            }
            facts
                .iter()
                .enumerate()
                .find(|(j, g)| *j != i && g.named && g.files.iter().any(|(x, _)| *x == file))
                .map(|(j, _)| j as u32)
        })
        .collect()
}

/// A session's sums while finishing.
#[derive(Clone, Debug, Default)]
/// (Models are the fold's names: a request costs no allocation.)
struct PerSession<'a> {
    totals: Totals,
    undated: Totals,
    models: BTreeMap<&'a str, Totals>,
    agents: BTreeMap<u32, Totals>,
    roles: BTreeMap<(&'a str, ModelRole), Totals>,
    days: BTreeMap<(Option<Day>, &'a str, ModelRole), Totals>,
    /// Per billing block, when blocks were asked for.
    blocks: BTreeMap<(Option<BlockStart>, &'a str, ModelRole), Totals>,
    /// Tool calls and errors per tool name, and per day (and block); calls
    /// per agent.
    tools: BTreeMap<&'a str, ToolTally>,
    agent_tools: BTreeMap<u32, u64>,
    /// Results whose id no call has.
    results_without_use: u64,
    /// The Agent/Task calls (key, and id as `tool_ids[start..start + len]`).
    launches: Vec<(u128, usize, u32)>,
    day_tools: BTreeMap<(Option<Day>, &'a str), ToolTally>,
    block_tools: BTreeMap<(Option<BlockStart>, &'a str), ToolTally>,
    /// Each kept call, with its block's place in its record.
    tool_calls: Vec<(u32, ToolCall)>,
    model_calls: Vec<ModelCall>,
    /// Each subagent's first dated request (ms).
    agent_first: BTreeMap<u32, i64>,
    /// Where a token sum first saturated, and where the cost first went
    /// beyond f64 (file, line).
    saturated_at: Option<(String, u64)>,
    cost_beyond_f64_at: Option<(String, u64)>,
}
