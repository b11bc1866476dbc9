//! What the fold reads of a record, through the structural index the
//! validating scan wrote: one walk over the root's members and one over
//! the message's note where the fields read are (member tables,
//! [`Tabled`]), and a nested field is reached by jumping, never by walking
//! bytes. Every field is read as [`Value::get`] reads it (the first of a
//! key given twice; escaped keys compared unescaped).

use crate::event::UsageFields;
use crate::event::blocks::{self, BlockRole, CallBlock, ResultBlock, UserContent};
use crate::event::usage::not_a_count;
use crate::json::{Tabled, Value};
use crate::pricing::RequestTokens;
use crate::run::CallUsageSource;

/// The root keys the fold reads, in their slots.
pub(super) const TOP_KEYS: [&str; 16] = [
    "sessionId",
    "timestamp",
    "agentId",
    "isSidechain",
    "version",
    "message",
    "data",
    "requestId",
    "costUSD",
    "isApiErrorMessage",
    "parentToolUseID",
    "isMeta",
    "isCompactSummary",
    "summary",
    "durationMs",
    "toolUseResult",
];

/// The slots of [`TOP_KEYS`].
pub(super) mod top {
    pub(in crate::transcript::fold) const SESSION: usize = 0;
    pub(in crate::transcript::fold) const TIMESTAMP: usize = 1;
    pub(in crate::transcript::fold) const AGENT: usize = 2;
    pub(in crate::transcript::fold) const SIDECHAIN: usize = 3;
    pub(in crate::transcript::fold) const VERSION: usize = 4;
    pub(in crate::transcript::fold) const MESSAGE: usize = 5;
    pub(in crate::transcript::fold) const DATA: usize = 6;
    pub(in crate::transcript::fold) const REQUEST: usize = 7;
    pub(in crate::transcript::fold) const COST: usize = 8;
    pub(in crate::transcript::fold) const API_ERROR: usize = 9;
    pub(in crate::transcript::fold) const PARENT_TOOL_USE: usize = 10;
    pub(in crate::transcript::fold) const META: usize = 11;
    pub(in crate::transcript::fold) const COMPACT_SUMMARY: usize = 12;
    pub(in crate::transcript::fold) const SUMMARY: usize = 13;
    pub(in crate::transcript::fold) const DURATION: usize = 14;
    pub(in crate::transcript::fold) const TOOL_USE_RESULT: usize = 15;
}

/// A root key's slot (a `match` on the bytes: the compiler tells the keys
/// apart by their length first).
#[inline(always)]
fn top_slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"sessionId" => top::SESSION,
        b"timestamp" => top::TIMESTAMP,
        b"agentId" => top::AGENT,
        b"isSidechain" => top::SIDECHAIN,
        b"version" => top::VERSION,
        b"message" => top::MESSAGE,
        b"data" => top::DATA,
        b"requestId" => top::REQUEST,
        b"costUSD" => top::COST,
        b"isApiErrorMessage" => top::API_ERROR,
        b"parentToolUseID" => top::PARENT_TOOL_USE,
        b"isMeta" => top::META,
        b"isCompactSummary" => top::COMPACT_SUMMARY,
        b"summary" => top::SUMMARY,
        b"durationMs" => top::DURATION,
        b"toolUseResult" => top::TOOL_USE_RESULT,
        _ => return None,
    })
}

/// A record's root, its members found in one walk.
pub(super) fn root(v: Value<'_>) -> Tabled<'_, 16> {
    Tabled::new(v, &TOP_KEYS, top_slot)
}

/// A message's keys the fold reads.
const MSG_KEYS: [&str; 5] = ["id", "model", "stop_reason", "usage", "content"];

/// A message key's slot in [`MSG_KEYS`].
#[inline(always)]
fn msg_slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"id" => 0,
        b"model" => 1,
        b"stop_reason" => 2,
        b"usage" => 3,
        b"content" => 4,
        _ => return None,
    })
}

/// A message's fields the fold reads.
#[derive(Clone, Copy, Default)]
pub(super) struct Message<'s> {
    pub(super) id: Option<Value<'s>>,
    pub(super) model: Option<Value<'s>>,
    pub(super) stop_reason: Option<Value<'s>>,
    pub(super) usage: Option<RequestTokens>,
    /// A count in `usage` is not one (read as 0): the fold names it
    /// (`unusual_number`).
    pub(super) unusual_usage: bool,
    pub(super) content: Option<Value<'s>>,
}

impl<'s> Message<'s> {
    /// The fields of `message`, found in one walk of its members (the
    /// content, most of its bytes, is jumped over).
    pub(super) fn of(message: Value<'s>) -> Message<'s> {
        let t = Tabled::new(message, &MSG_KEYS, msg_slot);
        let (usage, odd) = t.get(3).map_or((None, false), usage_noting);
        Message {
            id: t.get(0),
            model: t.get(1),
            stop_reason: t.get(2),
            usage,
            unusual_usage: odd,
            content: t.get(4),
        }
    }

    /// How final its usage is, by the rule of both dialects
    /// ([`CallUsageSource::of_message`]): a `stop_reason` set says the
    /// message is whole.
    pub(super) fn source(&self) -> CallUsageSource {
        CallUsageSource::of_message(self.stop_reason.and_then(|r| r.as_raw_str()).is_some())
    }
}

/// A `usage` object as priced tokens (a count that is not one reads as 0);
/// `None` when it is not an object.
pub(crate) fn usage(u: Value<'_>) -> Option<RequestTokens> {
    usage_noting(u).0
}

/// [`usage`], and whether a count in it is not one (read as 0).
#[inline]
fn usage_noting(u: Value<'_>) -> (Option<RequestTokens>, bool) {
    if u.kind() != crate::json::ValueKind::Object {
        return (None, false);
    }
    let f = UsageFields::of(u);
    let mut odd = false;
    let mut read = |v: Option<Value<'_>>| match v {
        Some(v) => match v.as_u64() {
            Some(n) => n,
            None => {
                odd |= not_a_count(Some(v));
                0
            }
        },
        None => 0,
    };
    // Without the split, every cache write is a 5-minute one (what the
    // API wrote before 1-hour caching existed).
    let (cache_write_5m, cache_write_1h) = match f.split_counts() {
        Some((m5, h1)) => (read(m5), read(h1)),
        None => (read(f.count(3)), 0),
    };
    let t = RequestTokens {
        input: read(f.count(0)),
        output: read(f.count(1)),
        cache_read: read(f.count(2)),
        cache_write_5m,
        cache_write_1h,
        fast: f.fast(),
    };
    (Some(t), odd)
}

/// The tool calls of an assistant message's content (`tool_use`, and a
/// server tool's `server_tool_use` or `mcp_tool_use`) that have a string id
/// and name: the event layer's rule, the stream fold's (what
/// [`AssistantRecord::tool_uses`](crate::transcript::AssistantRecord::tool_uses)
/// gives).
pub(in crate::transcript) fn tool_calls<'s>(
    content: Option<Value<'s>>,
) -> impl Iterator<Item = CallBlock<'s>> {
    content
        .into_iter()
        .flat_map(|c| c.elements())
        .filter_map(|b| CallBlock::of(b, BlockRole::of(b)))
}

/// The result blocks of a user message's content (`read`, what
/// [`UserContent::of`] it says): the `tool_use_id` each answers (a string),
/// whether it failed, by the event layer's rule, the stream fold's: the
/// block's own signs ([`ResultBlock::failed`]), or the record's
/// `toolUseResult` when the message holds one result
/// ([`blocks::sole_result_failed`]); and whether the user rejected the call
/// ([`ResultBlock::rejected`]).
pub(in crate::transcript) fn tool_results<'s>(
    content: Option<Value<'s>>,
    read: UserContent<'s>,
    tool_use_result: Option<Value<'s>>,
) -> impl Iterator<Item = (Option<Value<'s>>, bool, bool)> {
    let sole_failed = blocks::sole_result_failed(read.results, tool_use_result);
    content
        .filter(|_| read.results > 0)
        .into_iter()
        .flat_map(blocks::results)
        .map(move |b| {
            let r = ResultBlock::of(b);
            (r.id, sole_failed || r.failed(), r.rejected())
        })
}

/// What a user message's content holds (its text, an interrupt, its
/// results), read in one walk: the event layer's [`UserContent`].
pub(in crate::transcript) fn user_content(content: Option<Value<'_>>) -> UserContent<'_> {
    content.map(UserContent::of).unwrap_or_default()
}

/// True when a user message's text is a prompt the model answers: text
/// the user (or a harness) sent, not a local command's records
/// (`<command-name>`, `<local-command-stdout>`, `<bash-input>`, ...),
/// which no reply follows. The text's start is compared unescaped, without
/// unescaping the rest.
pub(super) fn is_prompt(text: Option<Value<'_>>) -> bool {
    text.is_some_and(|t| {
        !["<command-", "<local-command-", "<bash-"]
            .iter()
            .any(|p| t.str_starts_with(p, false))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each table's `match` puts every key in the slot its list gives it
    /// (the list is what an escaped key or a value read without an index
    /// falls back to).
    #[test]
    fn the_slot_matches_agree_with_the_key_lists() {
        for (i, k) in TOP_KEYS.iter().enumerate() {
            assert_eq!(top_slot(k.as_bytes()), Some(i), "{k}");
        }
        for (i, k) in MSG_KEYS.iter().enumerate() {
            assert_eq!(msg_slot(k.as_bytes()), Some(i), "{k}");
        }
        assert_eq!(top_slot(b"session_id"), None);
    }
}
