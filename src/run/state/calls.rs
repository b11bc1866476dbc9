//! A run's model calls: one per message id, with the usage the one rule
//! of both dialects picks among the events naming it, and the models the
//! main agent and the subagents answer under; the CLI's own `<synthetic>`
//! messages apart.

use crate::event::TokenCounts;
use crate::run::accounting::{CallReading, CallUsageSource};
use crate::run::intern::{Sym, SymMap};
use crate::run::summary::ApiErrorMessage;
use std::cmp::Ordering::Less;

/// One model call.
#[derive(Clone, Debug)]
pub(super) struct Call {
    pub(super) msg: Option<Sym>,
    pub(super) agent: Option<Sym>,
    pub(super) model: Option<Sym>,
    pub(super) usage: TokenCounts,
    /// Where the usage came from.
    pub(super) source: CallUsageSource,
    pub(super) round: u32,
    /// The line whose usage is the call's (the last that set it).
    pub(super) line: u64,
    /// The first and the last line naming the call.
    pub(super) first_line: u64,
    pub(super) last_seen_line: u64,
    /// The first and the last `timestamp` of those lines (ms).
    pub(super) first_ms: Option<i64>,
    pub(super) last_ms: Option<i64>,
}

/// The run's model calls, by message id.
#[derive(Clone, Debug, Default)]
pub(super) struct Calls {
    pub(super) list: Vec<Call>,
    pub(super) by_msg: SymMap<u32>,
    /// The CLI's own messages (`<synthetic>`, API errors): not calls.
    pub(super) synthetic: u64,
    pub(super) api_errors: Vec<ApiErrorMessage>,
    /// Models the main agent's messages answer under (assistant events and
    /// message_starts, `<synthetic>` left out).
    pub(super) main_models: SymMap<()>,
    /// Models subagents' messages answer under.
    pub(super) sub_models: SymMap<()>,
}

/// A stream's reading of a model call's usage (a stream has no
/// sidechain copies: a subagent's events are its own).
pub(super) fn reading(usage: &TokenCounts, source: CallUsageSource) -> CallReading {
    CallReading {
        sidechain: false,
        source,
        total: usage.total(),
    }
}

impl Calls {
    /// A model call's usage: per message id the reading
    /// [`CallReading::rank_against`] puts first (the one rule of both
    /// dialects), the last line of those it ranks equal.
    /// (`(msg, agent, model)`: the message id, the subagent that made
    /// the call, its model; `round`: the run's results so far.)
    pub(super) fn record(
        &mut self,
        (msg, agent, model): (Option<Sym>, Option<Sym>, Option<Sym>),
        usage: Option<TokenCounts>,
        source: CallUsageSource,
        round: u32,
        (line, ms): (u64, Option<i64>),
    ) {
        if let Some(m) = msg {
            if let Some(&i) = self.by_msg.get(&m) {
                let c = &mut self.list[i as usize];
                c.last_seen_line = line;
                c.first_ms = c.first_ms.or(ms);
                c.last_ms = ms.or(c.last_ms);
                if let Some(u) = usage
                    && reading(&u, source).rank_against(&reading(&c.usage, c.source)) != Less
                {
                    c.usage = u;
                    c.line = line;
                    c.source = source;
                }
                c.model = c.model.or(model);
                return;
            }
            self.by_msg.insert(m, self.list.len() as u32);
        }
        self.list.push(Call {
            msg,
            agent,
            model,
            usage: usage.unwrap_or_default(),
            source: if usage.is_some() {
                source
            } else {
                CallUsageSource::Snapshot
            },
            round,
            line,
            first_line: line,
            last_seen_line: line,
            first_ms: ms,
            last_ms: ms,
        });
    }

    /// Call `i`'s usage as its `message_delta` states it at `line`: kept
    /// when the one rule ranks it first.
    pub(super) fn final_usage(&mut self, i: usize, usage: TokenCounts, line: u64) {
        let Some(c) = self.list.get_mut(i) else {
            return;
        };
        let delta = reading(&usage, CallUsageSource::MessageDelta);
        if delta.rank_against(&reading(&c.usage, c.source)) != Less {
            c.usage = usage;
            c.source = CallUsageSource::MessageDelta;
            c.line = line;
        }
    }

    /// The main agent's per-call sums, this round's and the run's, and
    /// whether every call of the round is final.
    pub(super) fn main_sums(&self, round_now: u32) -> (TokenCounts, TokenCounts, bool) {
        let mut round = TokenCounts::default();
        let mut all = TokenCounts::default();
        let mut all_final = true;
        for c in self.list.iter().filter(|c| c.agent.is_none()) {
            all.add(&c.usage);
            all_final &= c.source.is_final();
            if c.round == round_now {
                round.add(&c.usage);
            }
        }
        (round, all, all_final)
    }
}
