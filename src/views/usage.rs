//! Shared usage views: [`Usage`] (with [`CacheCreation`],
//! [`OutputTokensDetails`], [`ServerToolUse`], [`UsageIteration`]),
//! [`ModelUsage`] and [`TaskUsage`].

use super::*;
use crate::event::TokenCounts;

view! {
    /// Token usage of a model call (the reference's `Usage`). It appears on
    /// `assistant.message.usage`, the `message_start` and `message_delta`
    /// stream events, `result.usage` and the Agent tool result's
    /// `tool_use_result.usage`, each with a slightly different set of keys.
    /// The blocks of one call repeat the same usage: sum by `message.id`.
    struct Usage = "Usage", open = false;
    /// input tokens not read from the cache (small when the cache hits).
    input_tokens: "input_tokens" => opt u64,
    /// output tokens, thinking included.
    output_tokens: "output_tokens" => opt u64,
    /// input tokens read from the prompt cache.
    cache_read_input_tokens: "cache_read_input_tokens" => opt u64,
    /// input tokens written to the prompt cache.
    cache_creation_input_tokens: "cache_creation_input_tokens" => opt u64,
    /// the cache writes split by retention (`?`).
    cache_creation: "cache_creation" => opt CacheCreation<'d>,
    /// `"standard"` or null (`?`).
    service_tier: "service_tier" => null &'d str,
    /// `"not_available"`, `""`, `"global"` or null (`?`).
    inference_geo: "inference_geo" => null &'d str,
    /// on results and `message_delta`, not on assistant events (`?`, `| null`).
    output_tokens_details: "output_tokens_details" => null OutputTokensDetails<'d>,
    /// on results and synthetic messages (`?`).
    server_tool_use: "server_tool_use" => opt ServerToolUse<'d>,
    /// per-iteration usage, on results and `message_delta` (`?`, `| null`).
    iterations: "iterations" => nullarr UsageIteration<'d>,
    /// `"standard"` or null, on results (`?`).
    speed: "speed" => null &'d str,
    /// observed only as null, on results (`?`).
    fallback_credit: "fallback_credit" => null Value<'d>;
    calls [token_counts]
}

impl Usage<'_> {
    /// The four token counts (missing counts read as 0).
    pub fn token_counts(&self) -> TokenCounts {
        TokenCounts::from_usage(self.0)
    }
}

view! {
    /// `usage.cache_creation`: cache writes by retention time.
    struct CacheCreation = "CacheCreation", open = false;
    /// tokens written with the 5-minute retention.
    ephemeral_5m_input_tokens: "ephemeral_5m_input_tokens" => opt u64,
    /// tokens written with the 1-hour retention.
    ephemeral_1h_input_tokens: "ephemeral_1h_input_tokens" => opt u64,
}

view! {
    /// `usage.output_tokens_details`.
    struct OutputTokensDetails = "OutputTokensDetails", open = false;
    /// output tokens spent thinking.
    thinking_tokens: "thinking_tokens" => opt u64,
}

view! {
    /// `usage.server_tool_use`: server-side tool requests.
    struct ServerToolUse = "ServerToolUse", open = false;
    /// web searches made.
    web_search_requests: "web_search_requests" => opt u64,
    /// web fetches made (absent in ≈1.0.9x streams).
    web_fetch_requests: "web_fetch_requests" => opt u64,
}

view! {
    /// One element of `usage.iterations` (the reference's `UsageIteration`).
    struct UsageIteration = "UsageIteration", open = false;
    /// `"message"`.
    type_: "type" => opt &'d str,
    /// input tokens not read from the cache.
    input_tokens: "input_tokens" => opt u64,
    /// output tokens.
    output_tokens: "output_tokens" => opt u64,
    /// input tokens read from the cache.
    cache_read_input_tokens: "cache_read_input_tokens" => opt u64,
    /// input tokens written to the cache.
    cache_creation_input_tokens: "cache_creation_input_tokens" => opt u64,
    /// cache writes by retention (real streams; not in the reference).
    [extra] cache_creation: "cache_creation" => opt CacheCreation<'d>;
    calls [token_counts]
}

impl UsageIteration<'_> {
    /// The four token counts (missing counts read as 0).
    pub fn token_counts(&self) -> TokenCounts {
        TokenCounts::from_usage(self.0)
    }
}

view! {
    /// One value of `result.modelUsage` (the reference's `ModelUsage`): a
    /// model's usage over the whole turn, subagents and the auxiliary calls
    /// (such as the auto-mode classifier) included.
    struct ModelUsage = "ModelUsage", open = false;
    /// input tokens not read from the cache.
    input_tokens: "inputTokens" => opt u64,
    /// output tokens.
    output_tokens: "outputTokens" => opt u64,
    /// input tokens read from the cache.
    cache_read_input_tokens: "cacheReadInputTokens" => opt u64,
    /// input tokens written to the cache.
    cache_creation_input_tokens: "cacheCreationInputTokens" => opt u64,
    /// thinking tokens.
    thinking_tokens: "thinkingTokens" => opt u64,
    /// web searches.
    web_search_requests: "webSearchRequests" => opt u64,
    /// cost in USD; `result.total_cost_usd` is the sum over models.
    cost_usd: "costUSD" => opt f64,
    /// `"list"`: priced from the list prices.
    cost_basis: "costBasis" => opt &'d str,
    /// `"firstParty"`.
    provider: "provider" => opt &'d str,
    /// the canonical model name, e.g. `"claude-haiku-4-5"`.
    canonical_model: "canonicalModel" => opt &'d str,
    /// the model's context window in tokens.
    context_window: "contextWindow" => opt u64,
    /// the model's output limit in tokens.
    max_output_tokens: "maxOutputTokens" => opt u64,
}

view! {
    /// A task's usage so far or in total (the reference's `TaskUsage`), on
    /// `task_progress` and `task_notification`.
    struct TaskUsage = "TaskUsage", open = false;
    /// tokens over all of the task's model calls.
    total_tokens: "total_tokens" => opt u64,
    /// tool calls made.
    tool_uses: "tool_uses" => opt u64,
    /// elapsed milliseconds.
    duration_ms: "duration_ms" => opt u64,
}
