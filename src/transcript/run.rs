//! A transcript session as a run of the accounting model ([`crate::run`]):
//! what `cctape stats`, `verdict`, `tree` and `export` sum and print for
//! transcripts, through the same [`RunSummary`] and
//! [`RunTotals`](crate::run::RunTotals) as streams.
//!
//! The mapping (`docs/transcripts.md` lists which fields stay empty):
//! - the main agent's figure is the main chain's requests, the subagents'
//!   the sidechain ones (subagent files, `isSidechain` records, relayed
//!   `agent_progress` messages), each with the source
//!   [`TokenSource::TranscriptRequests`]: every request's final usage,
//!   counted once;
//! - one [`RoleUsage`] row per model and role, with its cost;
//! - the cost says where it comes from ([`CostCheck::source`]): the records'
//!   `costUSD`, a price table, or both apart;
//! - the verdict is [`SessionFacts::verdict`](super::SessionFacts::verdict);
//! - each subagent is a node of the tree, its tokens its requests; its
//!   call's result gives its `status`, `report`, `result_error` and
//!   reported usage, as a stream's (`event::blocks::SubagentEnd`);
//! - tools are tallied by the stream's rule ([`ToolTally`]: calls, errors,
//!   unanswered calls, durations from a call to its first result);
//! - API retries (`system/api_error`), API error messages
//!   (`isApiErrorMessage`) and hooks are the stream's fields (a day's or a
//!   block's part counts the retries on it);
//! - requests of a model without a price are a [`WARN_UNPRICED_MODEL`]
//!   warning;
//! - its model and tool calls, when the fold kept them, are the run's
//!   ([`RunSummary::model_calls`], [`RunSummary::tool_calls`]).

use super::SYNTHETIC;
use super::fold::{ModelRoleTotals, SessionSummary, Totals};
use crate::event::TokenCounts;
use crate::run::{
    AgentUsage, ModelRole, RoleUsage, RunSummary, SubagentNode, TokenSource, ToolTally,
    VerdictSource, WARN_UNPRICED_MODEL, Warning,
};
use crate::time::{BlockStart, Day};

/// The four counts of the accounting model (cache writes of both
/// lifetimes together).
fn counts(t: &Totals) -> TokenCounts {
    TokenCounts {
        input_tokens: t.input,
        output_tokens: t.output,
        cache_read_input_tokens: t.cache_read,
        cache_creation_input_tokens: t.cache_write(),
    }
}

/// An agent's figure from its requests.
fn agent(t: &Totals) -> AgentUsage {
    let tokens = counts(t);
    AgentUsage {
        messages: t.requests,
        tokens,
        source: if t.requests > 0 {
            TokenSource::TranscriptRequests
        } else {
            TokenSource::None
        },
        final_calls: t.requests,
        calls: tokens,
        reported: None,
        model_usage: None,
    }
}

impl SessionSummary {
    /// The session as one run of the accounting model (see the module
    /// doc).
    ///
    /// ```
    /// use cctape::pricing::PriceTable;
    /// use cctape::run::{CostSource, TokenSource, Verdict};
    /// use cctape::json::Scanner;
    /// use cctape::time::Zone;
    /// use cctape::transcript::{TranscriptFile, TranscriptFold};
    ///
    /// let input = br#"{"sessionId":"s1","type":"assistant","requestId":"r1","timestamp":"2026-02-11T23:30:00Z","message":{"id":"m1","model":"claude-haiku-4-5","usage":{"input_tokens":10,"output_tokens":40}}}
    /// "#;
    /// let mut fold = TranscriptFold::new();
    /// fold.read_slice(input, &TranscriptFile::default(), |e| panic!("{e}"));
    /// let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    /// let run = report.sessions[0].to_run();
    /// assert_eq!(run.verdict, Verdict::Ended);
    /// assert_eq!(run.usage.main.tokens.output_tokens, 40);
    /// assert_eq!(run.usage.main.source, TokenSource::TranscriptRequests);
    /// assert_eq!(run.cost.source(), CostSource::PriceTable);
    /// ```
    pub fn to_run(&self) -> RunSummary {
        let mut r = self.run_without_calls();
        r.model_calls = self.model_calls.clone();
        r.tool_calls = self.tool_calls.clone();
        r
    }

    /// [`to_run`](SessionSummary::to_run) without its call lists: for what
    /// never reads them (the figures, a tool row made from
    /// [`tool_calls`](SessionSummary::tool_calls) itself), so that no call
    /// is copied.
    pub(crate) fn run_without_calls(&self) -> RunSummary {
        let mut r = self.run_of(&self.by_role, &self.tools);
        r.events = self.facts.records.iter().map(|(_, n)| n).sum();
        r.api_retries = self.facts.api_retries.clone();
        r.hooks = self.facts.hooks.clone();
        r.api_errors = self.facts.api_error_messages.clone();
        r.tool_results_without_use = self.facts.tool_results_without_use;
        r.subagents = self
            .facts
            .agents
            .iter()
            .map(|a| SubagentNode {
                tool_use_id: a.spawned_by.clone().unwrap_or_default(),
                // A sidechain is a subagent whatever called it.
                tool_name: a
                    .tool_name
                    .clone()
                    .filter(|t| matches!(t.as_str(), "Task" | "Agent")),
                task_id: a.agent_id.clone(),
                subagent_type: a.subagent_type.clone(),
                description: a.description.clone(),
                status: a.status.clone(),
                report: a.report.clone(),
                result_error: a.result_error,
                usage: AgentUsage {
                    reported: a.reported_usage,
                    ..agent(&a.totals)
                },
                // Its requests show it ran even without records of its own
                // (relayed in the parent's agent_progress).
                events: a.records.max(a.totals.requests),
                tool_calls: a.tool_calls,
                ..SubagentNode::default()
            })
            .collect();
        // What the subagents' results reported, together (as a stream's
        // `usage.subagents` has it).
        for a in self.facts.agents.iter().filter_map(|a| a.reported_usage) {
            r.usage.subagents.reported.get_or_insert_default().add(&a);
        }
        // Sums that saturated, a cost beyond f64, numbers that are not
        // what their field takes: as a stream's are said, at their file
        // (when it has a name) and line.
        let f = &self.facts;
        let at = |place: &Option<(String, u64)>, what: &str| {
            place
                .as_ref()
                .map(|(file, line)| (file.clone(), *line, what.to_owned()))
        };
        let unusual = f.first_unusual_number.as_ref().map(|(file, line, what)| {
            let more = match f.unusual_numbers {
                0 | 1 => String::new(),
                n => format!(" (the first of {n} such numbers in the session)"),
            };
            (file.clone(), *line, format!("{what}{more}"))
        });
        for (code, said) in [
            (
                crate::run::WARN_SUM_SATURATED,
                at(
                    &f.sum_saturated_at,
                    "a token count took a sum past u64::MAX: kept at u64::MAX",
                ),
            ),
            (
                crate::run::WARN_UNUSUAL_NUMBER,
                at(
                    &f.cost_beyond_f64_at,
                    "the cost is beyond f64 (a price or a sum too large): not summed",
                ),
            ),
            (crate::run::WARN_UNUSUAL_NUMBER, unusual),
        ] {
            if let Some((file, line, what)) = said {
                let message = if file.is_empty() {
                    what
                } else {
                    format!("{file}: {what}")
                };
                r.warnings.push(Warning {
                    code,
                    message,
                    line: Some(line),
                });
            }
        }
        r
    }

    /// The session's requests of each day (`None`: not a date), each as a
    /// run holding that day's figures (for `--by day`: a session active on
    /// two days counts on both, its usage where it was spent).
    pub(crate) fn day_runs(&self) -> Vec<(Option<Day>, RunSummary)> {
        self.by_day
            .iter()
            .map(|d| (d.day, self.part_run(&d.by_role, &d.tools, d.api_retries)))
            .collect()
    }

    /// The session's requests of each billing block (`None`: not a date),
    /// each as a run holding that block's figures; empty unless blocks were
    /// asked for.
    pub(crate) fn block_runs(&self) -> Vec<(Option<BlockStart>, RunSummary)> {
        self.by_block
            .iter()
            .map(|b| (b.block, self.part_run(&b.by_role, &b.tools, b.api_retries)))
            .collect()
    }

    /// A part of the session (a day, a block) as a run: its requests are
    /// its events; its API retries are counted, their statuses are the
    /// session's.
    fn part_run(&self, rows: &[ModelRoleTotals], tools: &[ToolTally], retries: u64) -> RunSummary {
        let mut r = self.run_of(rows, tools);
        r.events = rows.iter().map(|x| x.totals.requests).sum();
        r.api_retries.count = retries;
        r
    }

    /// A run of the requests in `rows` and the tool calls in `tools`.
    fn run_of(&self, rows: &[ModelRoleTotals], tools: &[ToolTally]) -> RunSummary {
        let mut r = RunSummary::empty();
        r.tools = tools.to_vec();
        r.session_id = Some(self.session_id.clone());
        r.verdict = self.facts.verdict();
        r.stream_verdict = r.verdict;
        r.verdict_source = VerdictSource::Transcript;
        r.claude_code_version = self.facts.versions.first().cloned();
        r.started_at = self
            .facts
            .first_timestamp_ms
            .and_then(crate::time::format_millis);
        r.ended_at = self
            .facts
            .last_timestamp_ms
            .and_then(crate::time::format_millis);
        r.wall_ms = match (self.facts.first_timestamp_ms, self.facts.last_timestamp_ms) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        r.compactions = self.facts.compactions;
        let (mut main, mut subs, mut all) =
            (Totals::default(), Totals::default(), Totals::default());
        let mut main_model: Option<(&str, u64)> = None;
        for row in rows {
            all.add(&row.totals);
            if row.model == SYNTHETIC {
                r.usage.synthetic_messages += row.totals.requests;
                continue;
            }
            if row.role == ModelRole::Main {
                main.add(&row.totals);
                if main_model.is_none_or(|(_, n)| row.totals.requests > n) {
                    main_model = Some((&row.model, row.totals.requests));
                }
            } else {
                subs.add(&row.totals);
            }
            r.usage.by_role.push(RoleUsage {
                model: row.model.clone(),
                role: row.role,
                tokens: counts(&row.totals),
                cost_usd: Some(row.totals.cost_usd),
                from_model_usage: false,
            });
            r.usage.models.add(&counts(&row.totals));
            if row.totals.unpriced_requests > 0 {
                r.warnings.push(Warning {
                    code: WARN_UNPRICED_MODEL,
                    message: format!(
                        "{} request{} of {} {} no price: counted as costing nothing \
                         (--pricing FILE adds prices)",
                        row.totals.unpriced_requests,
                        if row.totals.unpriced_requests == 1 {
                            ""
                        } else {
                            "s"
                        },
                        row.model,
                        if row.totals.unpriced_requests == 1 {
                            "has"
                        } else {
                            "have"
                        },
                    ),
                    line: None,
                });
            }
        }
        for t in [&mut main, &mut subs, &mut all] {
            t.settle();
        }
        r.model = main_model.map(|(m, _)| m.to_owned());
        r.usage.main = agent(&main);
        r.usage.subagents = agent(&subs);
        let c = &mut r.cost;
        // No request with a stated or priced cost: the cost is not known
        // (not zero).
        if all.stated_requests + all.priced_requests > 0 {
            c.total_cost_usd = Some(all.cost_usd);
        }
        c.main_cost_usd = main.cost_usd;
        c.subagent_cost_usd = subs.cost_usd;
        c.records_cost_usd = (all.stated_requests > 0).then_some(all.cost_from_records_usd);
        c.priced_cost_usd = (all.priced_requests > 0).then_some(all.cost_priced_usd);
        r
    }
}
