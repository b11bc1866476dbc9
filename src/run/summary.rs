//! What a finished run did, owned: [`RunSummary`] and the types it is made
//! of, with [`RunSummary::to_json`] giving the stable JSON that
//! `cctape verdict` prints.

use super::accounting::{CallUsageSource, CostSource, ModelRole, TokenSource};
use super::verdict::{Verdict, VerdictSource, apply_exit_code};
use crate::event::TokenCounts;
use serde_json::Value as J;

mod calls;
mod json;
pub use calls::{ModelCall, ToolCall};
pub(crate) use json::{RunJson, Tokens, token_entries};
pub use json::{agent_json, tokens_json};

/// Relative tolerance when comparing `total_cost_usd` with the sum of
/// `modelUsage[*].costUSD`: the two are computed in f64 by claude-code and
/// differ by rounding (0.001015 + 0.0426766 != 0.0436916 in f64).
pub const COST_TOLERANCE: f64 = 1e-9;

/// A point a harness should look at. `code` is stable; `message` is for
/// people.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Warning {
    /// Stable code, one of the `WARN_*` constants of this module.
    pub code: &'static str,
    /// What was seen.
    pub message: String,
    /// The line it concerns, when one does.
    pub line: Option<u64>,
}

/// `success` whose `stop_reason` is `tool_use`: the model wanted a tool.
pub const WARN_SUCCESS_STOP_TOOL_USE: &str = "success_stop_reason_tool_use";
/// `success` with an empty or missing `result` text.
pub const WARN_SUCCESS_EMPTY_RESULT: &str = "success_empty_result";
/// The stream ended in the middle of a line.
pub const WARN_TRUNCATED: &str = "truncated_line";
/// A line that is not an event (bad JSON, not an object, no `type`, ...).
pub const WARN_BAD_LINE: &str = "bad_line";
/// A result whose `is_error` disagrees with its subtype.
pub const WARN_IS_ERROR_DISAGREES: &str = "is_error_disagrees_with_subtype";
/// A result subtype cctape does not know.
pub const WARN_UNKNOWN_SUBTYPE: &str = "unknown_result_subtype";
/// A result with neither `subtype` nor `is_error`.
pub const WARN_RESULT_UNDECIDED: &str = "result_without_subtype_or_is_error";
/// `total_cost_usd` differs from the sum of `modelUsage` costs beyond
/// [`COST_TOLERANCE`].
pub const WARN_COST_MISMATCH: &str = "cost_mismatch";
/// Work (a new round, model output, tool results) after the last result:
/// the verdict comes from an earlier round.
pub const WARN_ACTIVITY_AFTER_RESULT: &str = "activity_after_last_result";
/// The process exit code was non-zero while the stream said success.
pub const WARN_EXIT_CODE: &str = "nonzero_exit_code";
/// A partial-message block differs from its assistant event.
pub const WARN_PARTIAL_MISMATCH: &str = "partial_block_mismatch";
/// The process exit code was 0 while the run failed (max turns, an error,
/// no result).
pub const WARN_FAILED_EXIT_ZERO: &str = "failed_with_exit_code_0";
/// A result's `usage` differs from the sum of the main agent's final
/// per-call usage (both exact, so one of them is wrong).
pub const WARN_USAGE_MISMATCH: &str = "usage_mismatch";
/// An input without events whose process exited 0: a text-mode run (the
/// input holds the answer, or nothing), judged by its exit code alone.
pub const WARN_TEXT_RUN: &str = "text_output_exit_code_0";
/// Results are missing: `result_index` jumps (0, 2: result 1 never came),
/// or the first result's index is not 0. The verdict is still the last
/// result's (the latest state the stream shows).
pub const WARN_LOST_RESULT: &str = "lost_result";
/// A number that is not what its field holds: a negative or fractional
/// count, a count beyond u64, a cost beyond f64. Its text is kept.
pub const WARN_UNUSUAL_NUMBER: &str = "unusual_number";
/// Subagents nested deeper than the tree keeps (32 levels, far past the
/// two or three Claude Code writes) are drawn at its last level, under
/// the ancestor there: every figure is unchanged (`subagent_check`'s
/// `seen_max_depth` is the depth the stream gives), no walk over the tree
/// (the JSON record, `tree`, the spans, dropping it) goes deeper than
/// that, however the input nests, and the record stays within the
/// nesting JSON readers take (serde_json's 128 levels).
pub const WARN_DEEP_SUBAGENTS: &str = "subagents_nested_too_deep";
/// A transcript's requests of a model the price table has no price for:
/// they cost nothing in the sums (`--pricing FILE` adds prices).
pub const WARN_UNPRICED_MODEL: &str = "unpriced_model";

/// An agent's tokens (the main agent, one subagent, or all subagents): the
/// best figure with its source, and the other figures for audit (see
/// `docs/accounting.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentUsage {
    /// Distinct model calls (distinct `message.id`).
    pub messages: u64,
    /// The best figure, by the precedence of [`TokenSource`].
    pub tokens: TokenCounts,
    /// Where [`tokens`](AgentUsage::tokens) comes from.
    pub source: TokenSource,
    /// Calls whose usage is final ([`CallUsageSource::is_final`]).
    pub final_calls: u64,
    /// Every call's usage summed, each call once (snapshots included).
    pub calls: TokenCounts,
    /// What is reported for the agent: the results' `usage` (main agent),
    /// the Agent/Task tool results' `usage` (subagents).
    pub reported: Option<TokenCounts>,
    /// The `modelUsage` entries of models only subagents used (subagents).
    pub model_usage: Option<TokenCounts>,
}

impl AgentUsage {
    pub(crate) fn add_call(&mut self, t: &TokenCounts, source: CallUsageSource) {
        self.messages += 1;
        self.calls.add(t);
        if source.is_final() {
            self.final_calls += 1;
        }
    }

    /// True when [`tokens`](AgentUsage::tokens) is known to be below the
    /// truth.
    pub fn lower_bound(&self) -> bool {
        self.source.is_lower_bound()
    }
}

/// Tokens and cost of one model in one role of a run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RoleUsage {
    /// The model, as `modelUsage` names it (or the init model).
    pub model: String,
    /// Its role in the run.
    pub role: ModelRole,
    /// Its tokens.
    pub tokens: TokenCounts,
    /// Its cost (`costUSD`; the run's `total_cost_usd` without modelUsage).
    pub cost_usd: Option<f64>,
    /// False when the run has no `modelUsage` and the row holds the run's
    /// per-agent figures and cost under its model.
    pub from_model_usage: bool,
}

/// One `modelUsage` entry of the last result, folded (the entry as the
/// reference writes it is [`crate::views::ModelUsage`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ModelUsageSummary {
    /// The key, as written (`claude-opus-5[1m]`).
    pub model: String,
    /// `inputTokens`, `outputTokens`, `cacheReadInputTokens`,
    /// `cacheCreationInputTokens`.
    pub tokens: TokenCounts,
    /// `costUSD`.
    pub cost_usd: Option<f64>,
    /// `canonicalModel`, when given.
    pub canonical_model: Option<String>,
    /// Its role in the run ([`ModelRole`]).
    pub role: ModelRole,
    /// True when the role is [`ModelRole::Auxiliary`]: no message of the
    /// run answers under this model and no init names it (claude-code's
    /// own calls, e.g. a haiku classifier).
    pub auxiliary: bool,
    /// The run's per-call usage of this model (main agent and subagents),
    /// summed; `None` for auxiliary entries.
    pub summed: Option<TokenCounts>,
}

/// Usage of a run.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct UsageSummary {
    /// The main agent (parent_tool_use_id null or absent).
    pub main: AgentUsage,
    /// Every subagent together.
    pub subagents: AgentUsage,
    /// Tokens and cost per model and role ([`RoleUsage`]).
    pub by_role: Vec<RoleUsage>,
    /// `modelUsage` of the last result (covers subagents and auxiliary
    /// models).
    pub by_model: Vec<ModelUsageSummary>,
    /// `modelUsage` summed over the non-auxiliary models.
    pub models: TokenCounts,
    /// `modelUsage` summed over the auxiliary models.
    pub auxiliary: TokenCounts,
    /// `<synthetic>` messages (API errors, slash-command output): not usage.
    pub synthetic_messages: u64,
}

/// The run's cost, checked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct CostCheck {
    /// `total_cost_usd` of the last result (or `cost_usd`/`total_cost` of
    /// 1.0.x streams).
    pub total_cost_usd: Option<f64>,
    /// Sum of the last result's `modelUsage[*].costUSD`, if it has
    /// `modelUsage`.
    pub model_usage_cost_usd: Option<f64>,
    /// The auxiliary models' part of that sum.
    pub auxiliary_cost_usd: f64,
    /// The main-role models' part.
    pub main_cost_usd: f64,
    /// The subagent-role models' part.
    pub subagent_cost_usd: f64,
    /// Whether the two agree within [`COST_TOLERANCE`]; `None` when there is
    /// nothing to compare.
    pub matches: Option<bool>,
    /// For a session transcript: the part of
    /// [`total_cost_usd`](CostCheck::total_cost_usd) its records stated
    /// (`costUSD`); `None` for streams.
    pub records_cost_usd: Option<f64>,
    /// For a session transcript: the part priced from a table; `None` for
    /// streams.
    pub priced_cost_usd: Option<f64>,
}

impl CostCheck {
    /// Where [`total_cost_usd`](CostCheck::total_cost_usd) comes from: the
    /// results for a stream, the records' `costUSD` or a price table (or
    /// both, apart) for a transcript.
    pub fn source(&self) -> CostSource {
        match (self.records_cost_usd, self.priced_cost_usd) {
            (Some(_), Some(_)) => CostSource::RecordsAndPriceTable,
            (Some(_), None) => CostSource::Records,
            (None, Some(_)) => CostSource::PriceTable,
            (None, None) if self.total_cost_usd.is_some() => CostSource::Results,
            (None, None) => CostSource::None,
        }
    }
}

/// Which sum of per-call usage a result's `usage` matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UsageBasis {
    /// The main agent's calls of this round (since the previous result).
    Round,
    /// The main agent's calls of every round so far.
    Cumulative,
    /// Neither: see the numbers.
    Mismatch,
}

impl UsageBasis {
    /// `round`, `cumulative` or `mismatch`.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageBasis::Round => "round",
            UsageBasis::Cumulative => "cumulative",
            UsageBasis::Mismatch => "mismatch",
        }
    }
}

/// One result's `usage` against the main agent's per-call usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UsageCheck {
    /// Position of the result in the run (0, 1, ...).
    pub result: u32,
    /// Its line.
    pub line: u64,
    /// `result.usage`.
    pub reported: TokenCounts,
    /// The main agent's calls of this round, summed.
    pub round: TokenCounts,
    /// The main agent's calls so far, summed.
    pub cumulative: TokenCounts,
    /// Which of the two matched.
    pub basis: UsageBasis,
}

impl UsageCheck {
    /// The fields where `reported` differs from the round's sum
    /// (`input_tokens`, `output_tokens`, `cache_read_input_tokens`,
    /// `cache_creation_input_tokens`); empty unless the basis is
    /// [`UsageBasis::Mismatch`].
    pub fn differing_fields(&self) -> Vec<&'static str> {
        if self.basis != UsageBasis::Mismatch {
            return Vec::new();
        }
        let (r, s) = (&self.reported, &self.round);
        [
            ("input_tokens", r.input_tokens != s.input_tokens),
            ("output_tokens", r.output_tokens != s.output_tokens),
            (
                "cache_read_input_tokens",
                r.cache_read_input_tokens != s.cache_read_input_tokens,
            ),
            (
                "cache_creation_input_tokens",
                r.cache_creation_input_tokens != s.cache_creation_input_tokens,
            ),
        ]
        .into_iter()
        .filter_map(|(name, differs)| differs.then_some(name))
        .collect()
    }
}

/// The run's count of calls, errors and rejections for one tool name (not
/// the reference's `toolStats`, which is [`crate::views::ToolStats`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolTally {
    /// The tool's name.
    pub name: String,
    /// `tool_use` blocks.
    pub calls: u64,
    /// Results that failed: `is_error` true, a `tool_use_result` starting
    /// with `Error: `, or content in `<tool_use_error>`; rejections are not
    /// counted here.
    pub errors: u64,
    /// Uses rejected without running: `tool_result_meta`, or a
    /// `system/permission_denied` naming the use.
    pub rejections: u64,
    /// Uses never answered by a result.
    pub unanswered: u64,
    /// Uses with both timestamps (the assistant's and the result's).
    pub timed: u64,
    /// Sum of their durations, in milliseconds.
    pub total_ms: u64,
    /// The longest, in milliseconds.
    pub max_ms: u64,
}

impl ToolTally {
    /// A tally of no call, named `name`.
    pub(crate) fn named(name: &str) -> ToolTally {
        ToolTally {
            name: name.to_owned(),
            ..ToolTally::default()
        }
    }

    /// Count one call, by the one rule of both dialects' runs: a rejected
    /// call is a rejection, not an error; a call without a result is
    /// unanswered; a call is timed when both its time and its result's
    /// are known and the result is not earlier.
    pub(crate) fn count(&mut self, o: &super::ledger::Outcome) {
        self.calls += 1;
        if o.rejected {
            self.rejections += 1;
        } else if o.error {
            self.errors += 1;
        }
        if !o.answered {
            self.unanswered += 1;
        }
        if let Some(d) = o.duration_ms.filter(|d| *d >= 0) {
            self.timed += 1;
            self.total_ms += d as u64;
            self.max_ms = self.max_ms.max(d as u64);
        }
    }
}

/// A task's `usage` (`task_progress`, `task_notification`), copied out of
/// the event (the borrowed view is [`crate::views::TaskUsage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskUsageSummary {
    /// `total_tokens`.
    pub total_tokens: Option<u64>,
    /// `tool_uses`.
    pub tool_uses: Option<u64>,
    /// `duration_ms`.
    pub duration_ms: Option<u64>,
}

/// A subagent, Workflow or background task, with the ones it launched.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct SubagentNode {
    /// The id of the tool_use that launched it (its events'
    /// `parent_tool_use_id`).
    pub tool_use_id: String,
    /// That tool's name (`Agent`, `Task`, `Workflow`, `Bash`), if seen.
    pub tool_name: Option<String>,
    /// The subagent's id (its `agentId`): `task_started.task_id`, else its
    /// call's result's `tool_use_result.agentId`.
    pub task_id: Option<String>,
    /// `task_type`: `local_agent`, `local_workflow`, `local_bash`.
    pub task_type: Option<String>,
    /// `description` (task_started, or the Agent call's input).
    pub description: Option<String>,
    /// `subagent_type`.
    pub subagent_type: Option<String>,
    /// `spawn_depth`.
    pub spawn_depth: Option<u64>,
    /// `is_backgrounded`.
    pub backgrounded: Option<bool>,
    /// The final status: `task_notification.status`, else
    /// `task_updated.patch.status`, else the tool result's `status`.
    pub status: Option<String>,
    /// `task_progress` events.
    pub progress_events: u64,
    /// The last progress usage.
    pub last_progress: Option<TaskUsageSummary>,
    /// `workflow_agent` items in the last `workflow_progress`.
    pub workflow_agents: u64,
    /// Of those, the ones in state `done`.
    pub workflow_agents_done: u64,
    /// `task_notification.usage`.
    pub final_usage: Option<TaskUsageSummary>,
    /// `task_notification.summary`.
    pub summary: Option<String>,
    /// The handback report (`tool_use_result.handbackReport.text`).
    pub report: Option<String>,
    /// True when its tool result was an error.
    pub result_error: bool,
    /// Its tokens: its own calls, or what it reported (see [`AgentUsage`]).
    pub usage: AgentUsage,
    /// Events carrying its id as `parent_tool_use_id`.
    pub events: u64,
    /// Tool calls it made.
    pub tool_calls: u64,
    /// What it launched in turn.
    pub children: Vec<SubagentNode>,
}

impl SubagentNode {
    /// True when the node is a subagent (not a background Bash or a
    /// Workflow task): an Agent/Task tool use, a `local_agent` task, or a
    /// node known only from events under its `parent_tool_use_id`.
    pub fn is_agent(&self) -> bool {
        self.task_type.as_deref() == Some("local_agent")
            || self
                .tool_name
                .as_deref()
                .is_some_and(|t| matches!(t, "Agent" | "Task"))
            || (self.task_type.is_none() && self.tool_name.is_none() && self.events > 0)
    }
}

/// `result.subagent_stats` against what the stream shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubagentCheck {
    /// Subagents seen (Agent/Task calls and `local_agent` tasks).
    pub seen_spawned: u64,
    /// `subagent_stats.spawned`.
    pub reported_spawned: Option<u64>,
    /// Seen with status completed.
    pub seen_completed: u64,
    /// `subagent_stats.completed`.
    pub reported_completed: Option<u64>,
    /// Deepest nesting seen (1 = launched by the main agent).
    pub seen_max_depth: u64,
    /// `subagent_stats.max_depth`.
    pub reported_max_depth: Option<u64>,
}

impl SubagentCheck {
    /// True when every reported figure equals what was seen.
    pub fn matches(&self) -> bool {
        self.reported_spawned.is_none_or(|r| r == self.seen_spawned)
            && self
                .reported_completed
                .is_none_or(|r| r == self.seen_completed)
            && self
                .reported_max_depth
                .is_none_or(|r| r == self.seen_max_depth)
    }
}

/// `system/api_retry` events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiRetries {
    /// How many.
    pub count: u64,
    /// `error_status` → count, ascending.
    pub statuses: Vec<(u64, u64)>,
    /// The last `error`.
    pub last_error: Option<String>,
    /// The last `error_status`.
    pub last_status: Option<u64>,
}

impl ApiRetries {
    /// Count one retry, with its status when it has one: the one rule of
    /// both dialects' runs (the last status is the last one counted, so a
    /// fold counts retries in their order).
    pub(crate) fn add_retry(&mut self, status: Option<u64>) {
        self.count += 1;
        if let Some(s) = status {
            self.last_status = Some(s);
            match self.statuses.iter_mut().find(|(k, _)| *k == s) {
                Some((_, n)) => *n += 1,
                None => self.statuses.push((s, 1)),
            }
        }
    }
}

/// A `<synthetic>` assistant message: an API error or slash-command output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiErrorMessage {
    /// The event's `error` (`authentication_failed`, ...), if any.
    pub error: Option<String>,
    /// Its text.
    pub text: String,
    /// Its line.
    pub line: u64,
}

/// A tool use denied by permissions, from results' `permission_denials` and
/// `system/permission_denied` events together (one entry of the result's
/// list is [`crate::views::PermissionDenial`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeniedToolUse {
    /// The tool.
    pub tool_name: String,
    /// The denied tool_use id.
    pub tool_use_id: String,
    /// Listed in some result's `permission_denials`.
    pub in_result: bool,
    /// Announced by a `system/permission_denied` event.
    pub event: bool,
}

/// A hook that exited non-zero (or whose outcome is not `success`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookFailure {
    /// `hook_name` (`PostToolUse:Bash`).
    pub hook_name: String,
    /// `exit_code`.
    pub exit_code: Option<i64>,
    /// `outcome`.
    pub outcome: Option<String>,
    /// Its line.
    pub line: u64,
}

/// Hooks of a run (`--include-hook-events`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hooks {
    /// `hook_started` events.
    pub started: u64,
    /// `hook_response` events.
    pub responses: u64,
    /// Responses with a non-zero exit code.
    pub failures: Vec<HookFailure>,
}

/// A `system/notification`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Notification {
    /// `key` (`stop-hook-error`).
    pub key: Option<String>,
    /// `text`.
    pub text: Option<String>,
}

/// A reassembled block that differs from its assistant event.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BlockMismatch {
    /// The message id.
    pub message_id: Option<String>,
    /// The block's index in its message.
    pub index: u64,
    /// `text`, `thinking`, `tool_use`.
    pub block_type: String,
    /// What differs.
    pub reason: &'static str,
    /// Line of its `content_block_start`.
    pub line: u64,
}

/// A block whose stream ended before it did: what had arrived.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct IncompleteBlock {
    /// The message id, when its message_start (or an assistant event) said.
    pub message_id: Option<String>,
    /// The block's index in its message.
    pub index: u64,
    /// `text`, `thinking`, `tool_use`, ...
    pub block_type: String,
    /// Text, thinking, or the tool input's JSON text, as far as it came.
    pub text: String,
    /// The thinking signature, as far as it came.
    pub signature: String,
    /// For tool_use: the id.
    pub tool_use_id: Option<String>,
    /// For tool_use: the tool's name.
    pub tool_name: Option<String>,
    /// For tool_use: the input, if what arrived parses as JSON.
    pub input: Option<J>,
    /// Deltas received.
    pub deltas: u32,
    /// Line of its `content_block_start`.
    pub line: u64,
}

/// Partial messages of a run.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct PartialSummary {
    /// `stream_event` lines.
    pub events: u64,
    /// `message_start`s.
    pub messages: u64,
    /// `content_block_start`s.
    pub blocks: u64,
    /// Blocks equal to their assistant event.
    pub verified: u64,
    /// Of those, the ones equal only after undoing the CLI's rewrites of a
    /// tool input (see `docs/accounting.md`).
    pub normalized: u64,
    /// Blocks finished without an assistant event to compare with.
    pub unverified: u64,
    /// Deltas or stops for a block never started.
    pub orphan_events: u64,
    /// Blocks that differ from their assistant event.
    pub mismatches: Vec<BlockMismatch>,
    /// Blocks the stream left unfinished.
    pub incomplete: Vec<IncompleteBlock>,
}

/// The last result's fields.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ResultSummary {
    /// Its line.
    pub line: u64,
    /// `subtype`.
    pub subtype: Option<String>,
    /// `is_error`.
    pub is_error: Option<bool>,
    /// `terminal_reason`.
    pub terminal_reason: Option<String>,
    /// `stop_reason`.
    pub stop_reason: Option<String>,
    /// `num_turns` (negative values kept: 2.x wrote `-1`, see
    /// wave2/peer-fixtures/meawoppl__rust-claude-codes__claude-codes-test_cases@8e7b091.ndjson
    /// line 4).
    pub num_turns: Option<i64>,
    /// `duration_ms`.
    pub duration_ms: Option<i64>,
    /// `duration_api_ms`.
    pub duration_api_ms: Option<i64>,
    /// `total_cost_usd` (`cost_usd`/`total_cost` in 1.0.x), when an `f64`
    /// holds it.
    pub total_cost_usd: Option<f64>,
    /// The cost as written when no `f64` holds it (`1e400`); a
    /// [`WARN_UNUSUAL_NUMBER`] warning says so.
    pub total_cost_text: Option<String>,
    /// `result`: the final text (absent on limit failures).
    pub result_text: Option<String>,
    /// `result_index`.
    pub result_index: Option<u64>,
    /// `usage` (main agent only).
    pub usage: Option<TokenCounts>,
    /// `errors`.
    pub errors: Vec<String>,
    /// `api_error_status`.
    pub api_error_status: Option<u64>,
    /// `startup_failure_reason` (2.1.274+): why Claude Code refused to start
    /// (`cwd_unavailable`, `worktree_unverified`, ...); such a result's
    /// verdict is [`Verdict::StartupFailure`].
    pub startup_failure_reason: Option<String>,
    /// `subagent_stats`, its JSON text as written ([`crate::views::ResultView`]'s
    /// `subagent_stats` reads it typed from the event).
    pub subagent_stats: Option<String>,
}

/// What one run did.
///
/// Made by [`crate::runs`] (a file), [`RunFolder`](crate::RunFolder) (your
/// own loop over events), [`RunReader`](crate::run::RunReader) or
/// [`runs_of_slice`](crate::run::runs_of_slice):
///
/// ```
/// use cctape::Verdict;
/// use cctape::run::TokenSource;
///
/// let stream = br#"{"type":"system","subtype":"init","session_id":"5b1e","model":"claude-sonnet-4-5","claude_code_version":"2.1.41"}
/// {"type":"assistant","message":{"id":"msg_01","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"cargo test"}}],"stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":85}},"parent_tool_use_id":null,"session_id":"5b1e"}
/// {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"test result: ok","is_error":false}]},"parent_tool_use_id":null,"session_id":"5b1e"}
/// {"type":"assistant","message":{"id":"msg_02","model":"claude-sonnet-4-5","content":[{"type":"text","text":"All tests pass."}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":9}},"parent_tool_use_id":null,"session_id":"5b1e"}
/// {"type":"result","subtype":"success","is_error":false,"num_turns":2,"duration_ms":5120,"result":"All tests pass.","total_cost_usd":0.0123,"usage":{"input_tokens":16,"output_tokens":94},"session_id":"5b1e"}
/// "#;
/// let runs = cctape::run::runs_of_slice(stream);
/// let run = &runs[0];
/// assert_eq!((run.verdict, run.ok()), (Verdict::Success, true));
/// assert_eq!(run.session_id.as_deref(), Some("5b1e"));
/// assert_eq!(run.cost.total_cost_usd, Some(0.0123));
/// // The output tokens to trust, and where they come from.
/// assert_eq!(run.usage.main.tokens.output_tokens, 94);
/// assert_eq!(run.usage.main.source, TokenSource::Results);
/// assert_eq!((run.tool_calls_total(), run.tool_errors_total()), (1, 0));
/// assert_eq!(run.to_json()["verdict"], "success");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RunSummary {
    /// The run's `session_id` (none when no event carried one).
    pub session_id: Option<String>,
    /// How it ended.
    pub verdict: Verdict,
    /// The verdict from the stream alone (before an exit code).
    pub stream_verdict: Verdict,
    /// What decided [`verdict`](RunSummary::verdict).
    pub verdict_source: VerdictSource,
    /// The process exit code, when given.
    pub exit_code: Option<i32>,
    /// Events of the run.
    pub events: u64,
    /// Line of its first event (or error).
    pub first_line: u64,
    /// Line of its last event (or error).
    pub last_line: u64,
    /// `system/init` events (one per round).
    pub inits: u64,
    /// Model of the first init.
    pub model: Option<String>,
    /// `claude_code_version` of the first init.
    pub claude_code_version: Option<String>,
    /// The first `timestamp` of the run (ISO 8601, from its first assistant
    /// or user event), when any event carries one.
    pub started_at: Option<String>,
    /// The last `timestamp` of the run.
    pub ended_at: Option<String>,
    /// Wall time from the first event with a timestamp to the last, in
    /// milliseconds.
    pub wall_ms: Option<i64>,
    /// The rounds' `duration_ms` summed (each result's covers its round
    /// only; the last result's is [`ResultSummary::duration_ms`]).
    pub duration_ms_sum: Option<i64>,
    /// `result` events.
    pub results: u64,
    /// The last result.
    pub last_result: Option<ResultSummary>,
    /// Usage.
    pub usage: UsageSummary,
    /// Cost.
    pub cost: CostCheck,
    /// Per tool name, by name.
    pub tools: Vec<ToolTally>,
    /// tool_results whose tool_use never appeared.
    pub tool_results_without_use: u64,
    /// The subagent tree (roots launched by the main agent).
    pub subagents: Vec<SubagentNode>,
    /// `result.subagent_stats` against the stream.
    pub subagent_check: Option<SubagentCheck>,
    /// API retries.
    pub api_retries: ApiRetries,
    /// `<synthetic>` messages.
    pub api_errors: Vec<ApiErrorMessage>,
    /// Permission denials (results' lists and events).
    pub permission_denials: Vec<DeniedToolUse>,
    /// Hooks.
    pub hooks: Hooks,
    /// `system/notification` events.
    pub notifications: Vec<Notification>,
    /// `system/compact_boundary` events.
    pub compactions: u64,
    /// Partial messages, when the stream has any.
    pub partial: Option<PartialSummary>,
    /// Each result's `usage` against per-call usage.
    pub usage_checks: Vec<UsageCheck>,
    /// Lines that were not events.
    pub bad_lines: u64,
    /// The stream ended in the middle of a line.
    pub truncated: bool,
    /// What to look at.
    pub warnings: Vec<Warning>,
    /// Every model call, in order (empty unless the folder was asked to
    /// keep them with [`RunFolder::record_calls`](super::RunFolder::record_calls)).
    pub model_calls: Vec<ModelCall>,
    /// Every tool call, in order (empty unless the folder was asked to
    /// keep them with [`RunFolder::record_calls`](super::RunFolder::record_calls)).
    pub tool_calls: Vec<ToolCall>,
}

impl RunSummary {
    /// The summary of an empty stream: no events, verdict
    /// [`Verdict::NoResult`].
    pub fn empty() -> RunSummary {
        RunSummary {
            session_id: None,
            verdict: Verdict::NoResult,
            stream_verdict: Verdict::NoResult,
            verdict_source: VerdictSource::StreamEnd,
            exit_code: None,
            events: 0,
            first_line: 0,
            last_line: 0,
            inits: 0,
            model: None,
            claude_code_version: None,
            started_at: None,
            ended_at: None,
            wall_ms: None,
            duration_ms_sum: None,
            results: 0,
            last_result: None,
            usage: UsageSummary::default(),
            cost: CostCheck::default(),
            tools: Vec::new(),
            tool_results_without_use: 0,
            subagents: Vec::new(),
            subagent_check: None,
            api_retries: ApiRetries::default(),
            api_errors: Vec::new(),
            permission_denials: Vec::new(),
            hooks: Hooks::default(),
            notifications: Vec::new(),
            compactions: 0,
            partial: None,
            usage_checks: Vec::new(),
            bad_lines: 0,
            truncated: false,
            warnings: Vec::new(),
            model_calls: Vec::new(),
            tool_calls: Vec::new(),
        }
    }

    /// True when the run succeeded.
    pub fn ok(&self) -> bool {
        self.verdict.is_ok()
    }

    /// Apply the process's exit code (see [`apply_exit_code`]); a non-zero
    /// code over a successful stream, or a zero code over a failed one,
    /// adds a warning. The code decides only what the stream cannot say
    /// ([`VerdictSource::ExitCode`] then): a failure over a success. A run
    /// without events is decided by [`crate::run::without_events`]
    /// (`report::no_events_run` applies it with the input's last line).
    pub fn apply_exit_code(&mut self, code: i32) {
        self.exit_code = Some(code);
        if self.events == 0 && self.verdict_source != VerdictSource::FinalError {
            let (v, source) = super::verdict::without_events(None, Some(code));
            self.verdict = v;
            self.verdict_source = source;
            return;
        }
        let v = apply_exit_code(self.stream_verdict, self.events > 0, code);
        if v != self.stream_verdict && self.stream_verdict.is_ok() {
            self.warnings.push(Warning {
                code: WARN_EXIT_CODE,
                message: if self.stream_verdict == Verdict::Success {
                    format!("exit code {code}, but the stream's last result is a success")
                } else {
                    format!(
                        "exit code {code}, but the run's records say {}",
                        self.stream_verdict
                    )
                },
                line: None,
            });
            self.verdict_source = VerdictSource::ExitCode;
        }
        if code == 0 && !self.stream_verdict.is_ok() {
            self.warnings.push(Warning {
                code: WARN_FAILED_EXIT_ZERO,
                message: format!(
                    "exit code 0, but the run's verdict is {}",
                    self.stream_verdict
                ),
                line: self.last_result.as_ref().map(|r| r.line),
            });
        }
        self.verdict = v;
    }

    /// The run's tool calls, every tool together: the sum of
    /// [`ToolTally::calls`] over [`tools`](RunSummary::tools) (the list of
    /// each call, kept on request, is the field
    /// [`tool_calls`](RunSummary::tool_calls)).
    ///
    /// ```
    /// let stream = br#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":["Bash","Read"]}
    /// {"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/nope"}}],"usage":{"input_tokens":3,"output_tokens":40}},"parent_tool_use_id":null,"session_id":"s1"}
    /// {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt","is_error":false},{"type":"tool_result","tool_use_id":"toolu_2","content":"<tool_use_error>File does not exist.</tool_use_error>","is_error":true}]},"parent_tool_use_id":null,"session_id":"s1"}
    /// {"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"done","total_cost_usd":0.002,"session_id":"s1"}
    /// "#;
    /// let runs = cctape::run::runs_of_slice(stream);
    /// assert_eq!(runs[0].tool_calls_total(), 2);
    /// assert_eq!(runs[0].tool_errors_total(), 1);
    /// assert_eq!(runs[0].tool_rejections_total(), 0);
    /// ```
    pub fn tool_calls_total(&self) -> u64 {
        self.tools.iter().map(|t| t.calls).sum()
    }

    /// The run's tool calls whose result was an error, every tool together
    /// (the sum of [`ToolTally::errors`]; rejections are apart, in
    /// [`tool_rejections_total`](RunSummary::tool_rejections_total)). See
    /// [`tool_calls_total`](RunSummary::tool_calls_total) for an example.
    pub fn tool_errors_total(&self) -> u64 {
        self.tools.iter().map(|t| t.errors).sum()
    }

    /// The run's tool uses rejected without running, every tool together
    /// (the sum of [`ToolTally::rejections`]).
    pub fn tool_rejections_total(&self) -> u64 {
        self.tools.iter().map(|t| t.rejections).sum()
    }

    /// Subagents the run launched, from every signal a version writes: the
    /// nodes of the subagent tree that are agents (an Agent/Task tool use, a
    /// `local_agent` task, or events under a `parent_tool_use_id`), at any
    /// depth. 2.1.41 streams have no `task_started`
    /// (`TomOfekKafka__ThePerfectSnake__claude-stream@4873604.jsonl`).
    pub fn subagent_count(&self) -> u64 {
        fn walk(ns: &[SubagentNode]) -> u64 {
            ns.iter()
                .map(|n| u64::from(n.is_agent()) + walk(&n.children))
                .sum()
        }
        walk(&self.subagents)
    }

    /// True when the run has a warning with this code.
    pub fn has_warning(&self, code: &str) -> bool {
        self.warnings.iter().any(|w| w.code == code)
    }

    /// The tool statistics of one tool name.
    pub fn tool(&self, name: &str) -> Option<&ToolTally> {
        self.tools.iter().find(|t| t.name == name)
    }
}
