//! What a message's content blocks are to the folds: which blocks are tool
//! calls and which their results, when a result failed, when a user's text
//! says the turn was interrupted, and which calls launch a subagent.
//!
//! One rule for both dialects: a stream's events and a transcript's records
//! carry the same API content, and the stream fold (`run::state`), the
//! transcript fold and the transcript record views all read it here, so a
//! tool's calls and errors are counted the same whichever file holds them.
//! Nothing here allocates per line: each rule reads through the line's
//! index (an escaped `type` is unescaped into the line's arena).

use crate::json::{Tabled, Value, ValueKind};

/// What a content block is to the tool tally, by its `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockRole {
    /// `tool_use`: a call the client runs; the turn waits for its result,
    /// which comes back in a user message.
    Call,
    /// A server tool's call, which the API runs itself, its result in the
    /// same message: `server_tool_use` (web search, web fetch, code
    /// execution, z.ai's `webReader`) or `mcp_tool_use` (the MCP
    /// connector).
    ServerCall,
    /// A result: `tool_result`, or a server tool's `*_tool_result`
    /// (`web_search_tool_result`, `web_fetch_tool_result`,
    /// `code_execution_tool_result`, `mcp_tool_result`, ...).
    Result,
    /// `text`.
    Text,
    /// Anything else (thinking, images, a block without a string `type`).
    Other,
}

impl BlockRole {
    /// The role of `block`.
    #[inline]
    pub(crate) fn of(block: Value<'_>) -> BlockRole {
        let Some(ty) = block.get("type") else {
            return BlockRole::Other;
        };
        // The bytes as written are the type's text unless it has escapes
        // (then it is read unescaped, from the line's arena).
        match ty.as_raw_str() {
            Some(t) if !t.has_escapes() => BlockRole::of_type(t.raw()),
            Some(_) => ty
                .as_str()
                .map_or(BlockRole::Other, |t| BlockRole::of_type(t.as_bytes())),
            None => BlockRole::Other,
        }
    }

    /// The role of a block of this `type`.
    #[inline]
    pub(crate) fn of_type(ty: &[u8]) -> BlockRole {
        match ty {
            b"tool_use" => BlockRole::Call,
            b"text" => BlockRole::Text,
            b"tool_result" => BlockRole::Result,
            b"server_tool_use" | b"mcp_tool_use" => BlockRole::ServerCall,
            t if t.ends_with(b"_tool_result") => BlockRole::Result,
            _ => BlockRole::Other,
        }
    }
}

/// A call block ([`BlockRole::Call`] or [`BlockRole::ServerCall`]) with a
/// string `id` and `name`: a tool call as both folds count it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallBlock<'d> {
    /// `id` (a string).
    pub(crate) id: Value<'d>,
    /// `name` (a string).
    pub(crate) name: Value<'d>,
    /// The block.
    pub(crate) block: Value<'d>,
    /// A server tool's call: the turn does not wait for a user's result.
    pub(crate) server: bool,
}

impl<'d> CallBlock<'d> {
    /// `block` as a call, when its role (`role`, [`BlockRole::of`] it) is
    /// one and it has a string id and name.
    #[inline]
    pub(crate) fn of(block: Value<'d>, role: BlockRole) -> Option<CallBlock<'d>> {
        let server = match role {
            BlockRole::Call => false,
            BlockRole::ServerCall => true,
            _ => return None,
        };
        let string = |v: &Value<'_>| v.kind() == ValueKind::String;
        Some(CallBlock {
            id: block.get("id").filter(string)?,
            name: block.get("name").filter(string)?,
            block,
            server,
        })
    }

    /// True for a call that launches a subagent: `Agent` (2.1.x) or `Task`
    /// (older, and the name in `init.tools`).
    #[inline]
    pub(crate) fn launches_subagent(&self) -> bool {
        self.name.str_eq("Agent") || self.name.str_eq("Task")
    }

    /// The call's `input`.
    pub(crate) fn input(&self) -> Option<Value<'d>> {
        self.block.get("input")
    }

    /// A member of the call's `input` (`description`, `subagent_type`).
    pub(crate) fn input_get(&self, key: &str) -> Option<Value<'d>> {
        self.input()?.get(key)
    }
}

/// The start of the notice the CLI writes as a tool's result when the user
/// rejected the call (a stream also names it in `tool_result_meta`, of
/// `non_execution_kind` `user-rejected`; a transcript's record only says
/// this, and a `toolUseResult` of `User rejected tool use` or of this text
/// after `Error: `).
const REJECTION: &str = "The user doesn't want to proceed with this tool use";

/// The members of a result block the folds read, in slot order.
const RESULT_KEYS: [&str; 3] = ["tool_use_id", "is_error", "content"];

/// A result key's slot in [`RESULT_KEYS`].
#[inline(always)]
fn result_slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"tool_use_id" => 0,
        b"is_error" => 1,
        b"content" => 2,
        _ => return None,
    })
}

/// A result block ([`BlockRole::Result`]) as the folds read it: its
/// members found in one walk.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ResultBlock<'d> {
    /// `tool_use_id`, when it is a string.
    pub(crate) id: Option<Value<'d>>,
    is_error: Option<bool>,
    content: Option<Value<'d>>,
}

impl<'d> ResultBlock<'d> {
    /// The members of `block`.
    #[inline]
    pub(crate) fn of(block: Value<'d>) -> ResultBlock<'d> {
        let t = Tabled::new(block, &RESULT_KEYS, result_slot);
        ResultBlock {
            id: t.get(0).filter(|v| v.kind() == ValueKind::String),
            is_error: t.get(1).and_then(|v| v.as_bool()),
            content: t.get(2),
        }
    }

    /// True when the result says it failed: `is_error` true, or its text
    /// in `<tool_use_error>` (after any leading whitespace).
    pub(crate) fn failed(&self) -> bool {
        self.is_error == Some(true)
            || self
                .content
                .and_then(first_text)
                .is_some_and(|t| t.str_starts_with("<tool_use_error>", true))
    }

    /// True when the result is the CLI's notice that the user rejected the
    /// call: `is_error` true and a text starting `The user doesn't want to
    /// proceed with this tool use` (every rejection in the real captures,
    /// both dialects, says both). A rejection, which the tallies count
    /// apart from the tool's failures, in both dialects; only a result
    /// that says `is_error` has its text read for it.
    pub(crate) fn rejected(&self) -> bool {
        self.is_error == Some(true)
            && self
                .content
                .and_then(first_text)
                .is_some_and(|t| t.str_starts_with(REJECTION, false))
    }

    /// True when a server tool's result (a result block in the assistant's
    /// own content) says it failed: as [`failed`](ResultBlock::failed), or
    /// by the API's error content, an object (or an element of an array)
    /// of `type` `*_tool_result_error` or carrying an `error_code`, e.g.
    /// `{"type": "web_search_tool_result_error", "error_code":
    /// "max_uses_exceeded"}`.
    pub(crate) fn server_failed(&self) -> bool {
        if self.failed() {
            return true;
        }
        let Some(content) = self.content else {
            return false;
        };
        let is_error_object = |v: Value<'_>| {
            v.get("type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| t.ends_with("_tool_result_error"))
                || v.get("error_code").is_some()
        };
        is_error_object(content) || content.elements().any(is_error_object)
    }
}

/// True when a user message's only result failed by what its record says
/// beside the content: the record's `tool_use_result` (`toolUseResult` in
/// a transcript) is one tool's outcome, and a string starting `Error: `
/// says that tool failed. It speaks for the message's result only when
/// there is one (`results`, [`UserContent::results`]).
#[inline]
pub(crate) fn sole_result_failed(results: usize, tool_use_result: Option<Value<'_>>) -> bool {
    results == 1 && tool_use_result.is_some_and(|t| t.str_starts_with("Error: ", false))
}

/// The members of a subagent's result the folds read, in slot order.
const SUBAGENT_KEYS: [&str; 4] = ["agentId", "status", "handbackReport", "usage"];

/// A subagent result key's slot in [`SUBAGENT_KEYS`].
#[inline(always)]
fn subagent_slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"agentId" => 0,
        b"status" => 1,
        b"handbackReport" => 2,
        b"usage" => 3,
        _ => return None,
    })
}

/// What the result of a call that ran a subagent (`Agent`, `Task`) says of
/// it beside the content: the record's `tool_use_result` (`toolUseResult` in
/// a transcript), which speaks for the message's result when there is one,
/// as in [`sole_result_failed`]. One reader for both dialects: the subagent's
/// end, as its call is its start ([`CallBlock::launches_subagent`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SubagentEnd<'d> {
    /// `agentId`, a string: the subagent's id (a stream's
    /// `task_started.task_id`, a transcript's `agent-<agentId>.jsonl`).
    pub(crate) agent_id: Option<Value<'d>>,
    /// `status` (`completed`, `async_launched`, ...), a string.
    pub(crate) status: Option<Value<'d>>,
    /// `handbackReport.text`, a string.
    pub(crate) report: Option<Value<'d>>,
    /// `usage`, an object: its last call's usage.
    pub(crate) usage: Option<Value<'d>>,
}

impl<'d> SubagentEnd<'d> {
    /// The record's `tool_use_result` read as a subagent's result, when the
    /// message holds one result (`results`) and it is an object; its
    /// members found in one walk.
    pub(crate) fn of(
        results: usize,
        tool_use_result: Option<Value<'d>>,
    ) -> Option<SubagentEnd<'d>> {
        let t = tool_use_result.filter(|t| results == 1 && t.kind() == ValueKind::Object)?;
        let t = Tabled::new(t, &SUBAGENT_KEYS, subagent_slot);
        let string = |v: Option<Value<'d>>| v.filter(|v| v.kind() == ValueKind::String);
        Some(SubagentEnd {
            agent_id: string(t.get(0)),
            status: string(t.get(1)),
            report: string(t.get(2).and_then(|r| r.get("text"))),
            usage: t.get(3).filter(|u| u.kind() == ValueKind::Object),
        })
    }

    /// True when it names a subagent: its `agentId`, or a `usage` (which no
    /// other tool's result carries).
    pub(crate) fn names_a_subagent(&self) -> bool {
        self.agent_id.is_some() || self.usage.is_some()
    }
}

/// What a user message's `content` holds, read in one walk of its blocks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct UserContent<'d> {
    /// The text: the content string, or the first text block's text (a
    /// string).
    pub(crate) text: Option<Value<'d>>,
    /// The user interrupted the turn: the content string, or the text of
    /// any text block, is the notice ([`is_interrupt`]).
    pub(crate) interrupt: bool,
    /// Result blocks ([`BlockRole::Result`]).
    pub(crate) results: usize,
}

impl<'d> UserContent<'d> {
    /// The content's text, interrupt and results.
    pub(crate) fn of(content: Value<'d>) -> UserContent<'d> {
        if content.kind() == ValueKind::String {
            return UserContent {
                text: Some(content),
                interrupt: is_interrupt(content),
                results: 0,
            };
        }
        let mut c = UserContent::default();
        for b in content.elements() {
            match BlockRole::of(b) {
                BlockRole::Result => c.results += 1,
                BlockRole::Text => {
                    if let Some(t) = b.get("text").filter(|t| t.kind() == ValueKind::String) {
                        c.interrupt |= is_interrupt(t);
                        c.text = c.text.or(Some(t));
                    }
                }
                _ => {}
            }
        }
        c
    }
}

/// The result blocks of a user message's content.
pub(crate) fn results<'d>(content: Value<'d>) -> impl Iterator<Item = Value<'d>> {
    content
        .elements()
        .filter(|b| BlockRole::of(*b) == BlockRole::Result)
}

/// A result's text: its `content` when that is a string, else the first
/// `text` string of its blocks.
fn first_text(content: Value<'_>) -> Option<Value<'_>> {
    if content.kind() == ValueKind::String {
        return Some(content);
    }
    content
        .elements()
        .find_map(|b| b.get("text").filter(|t| t.kind() == ValueKind::String))
}

/// True for a text (a string value) that is the notice the CLI writes when
/// the user interrupts a turn (`[Request interrupted by user]`, `... for
/// tool use]`), after any leading whitespace; read only as far as its
/// start.
#[inline]
pub(crate) fn is_interrupt(text: Value<'_>) -> bool {
    text.str_starts_with("[Request interrupted by user", true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::Lines;
    use crate::json::Scanner;

    /// `f` of the root of `json` (written over several lines here: read as
    /// one).
    fn with_root(json: &str, f: impl FnOnce(Value<'_>)) {
        let one_line = json.replace('\n', " ");
        let mut scanner = Scanner::new();
        let Some(line) = Lines::new(one_line.as_bytes()).next() else {
            panic!("no line");
        };
        let scanned = scanner.scan(&line).unwrap_or_else(|e| panic!("{e}"));
        f(scanned.value());
    }

    #[test]
    fn a_subagents_end_is_its_sole_results_record() {
        with_root(
            r#"{"type":"x","t":[
                {"agentId":"a1","status":"completed","handbackReport":{"text":"r"},"usage":{"output_tokens":4}},
                {"agentId":7,"status":["x"],"handbackReport":"r","usage":"u"},
                {"stdout":"ok","stderr":"","interrupted":false,"isImage":false},
                {"status":"running","shellId":"s"},
                "Error: failed"
            ]}"#,
            |v| {
                let t: Vec<Value<'_>> = v.get("t").unwrap().elements().collect();
                let text = |v: Option<Value<'_>>| v.and_then(|v| v.as_str().map(str::to_owned));
                let end = SubagentEnd::of(1, Some(t[0])).unwrap();
                assert_eq!(
                    (text(end.agent_id), text(end.status), text(end.report)),
                    (
                        Some("a1".into()),
                        Some("completed".into()),
                        Some("r".into())
                    )
                );
                assert_eq!(
                    end.usage.unwrap().get("output_tokens").unwrap().as_u64(),
                    Some(4)
                );
                assert!(end.names_a_subagent());
                // Of two results it speaks for neither.
                assert!(SubagentEnd::of(2, Some(t[0])).is_none());
                assert!(SubagentEnd::of(0, Some(t[0])).is_none());
                // Members of the wrong kinds are not read.
                let odd = SubagentEnd::of(1, Some(t[1])).unwrap();
                assert!(odd.agent_id.is_none() && odd.status.is_none());
                assert!(odd.report.is_none() && odd.usage.is_none());
                assert!(!odd.names_a_subagent());
                // Another tool's outcome names no subagent, a status alone
                // (a shell's) neither; a string is not an outcome.
                assert!(!SubagentEnd::of(1, Some(t[2])).unwrap().names_a_subagent());
                assert!(!SubagentEnd::of(1, Some(t[3])).unwrap().names_a_subagent());
                assert!(SubagentEnd::of(1, Some(t[4])).is_none());
            },
        );
    }

    #[test]
    fn a_rejection_is_the_clis_notice_in_the_results_text() {
        with_root(
            r#"{"type":"x","c":[
                {"type":"tool_result","tool_use_id":"a","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected."},
                {"type":"tool_result","tool_use_id":"b","is_error":true,"content":[{"type":"text","text":"The user doesn\u0027t want to proceed with this tool use."}]},
                {"type":"tool_result","tool_use_id":"c","is_error":true,"content":"Error: The user doesn't want to proceed with this tool use."},
                {"type":"tool_result","tool_use_id":"d","is_error":true,"content":"The user doesn't want to proceed"},
                {"type":"tool_result","tool_use_id":"e","content":"The user doesn't want to proceed with this tool use."},
                {"type":"tool_result","tool_use_id":"f","content":"ok"}]}"#,
            |root| {
                let c = root.get("c").unwrap();
                let rejected: Vec<bool> = c
                    .elements()
                    .map(|b| ResultBlock::of(b).rejected())
                    .collect();
                // The notice as a string or a text block, an apostrophe
                // escaped; not after another prefix, not cut short, not
                // without `is_error`.
                assert_eq!(rejected, [true, true, false, false, false, false]);
            },
        );
    }

    #[test]
    fn roles_follow_the_type() {
        for (ty, role) in [
            ("tool_use", BlockRole::Call),
            ("server_tool_use", BlockRole::ServerCall),
            ("mcp_tool_use", BlockRole::ServerCall),
            ("tool_result", BlockRole::Result),
            ("web_search_tool_result", BlockRole::Result),
            ("mcp_tool_result", BlockRole::Result),
            ("text", BlockRole::Text),
            ("thinking", BlockRole::Other),
            ("xtool_result", BlockRole::Other),
            ("web_search_tool_result_error", BlockRole::Other),
        ] {
            assert_eq!(BlockRole::of_type(ty.as_bytes()), role, "{ty}");
        }
        // An escaped type is read unescaped; a type that is not a string
        // is no role.
        with_root(
            r#"{"type":"x","a":{"type":"tool_\u0075se"},"b":{"type":7}}"#,
            |root| {
                assert_eq!(BlockRole::of(root.get("a").unwrap()), BlockRole::Call);
                assert_eq!(BlockRole::of(root.get("b").unwrap()), BlockRole::Other);
            },
        );
    }

    #[test]
    fn a_call_needs_a_string_id_and_name() {
        with_root(
            r#"{"type":"x","c":[
                {"type":"tool_use","id":"t1","name":"Agent","input":{"description":"d"}},
                {"type":"server_tool_use","id":"s1","name":"web_search"},
                {"type":"tool_use","id":7,"name":"Bash"},
                {"type":"tool_use","id":"t2"},
                {"type":"tool_result","id":"t3","name":"Bash"}]}"#,
            |root| {
                let calls: Vec<CallBlock<'_>> = root
                    .get("c")
                    .unwrap()
                    .elements()
                    .filter_map(|b| CallBlock::of(b, BlockRole::of(b)))
                    .collect();
                assert_eq!(calls.len(), 2);
                assert_eq!(calls[0].id.as_str(), Some("t1"));
                assert!(!calls[0].server && calls[0].launches_subagent());
                assert_eq!(
                    calls[0].input_get("description").and_then(|d| d.as_str()),
                    Some("d")
                );
                assert_eq!(calls[1].name.as_str(), Some("web_search"));
                assert!(calls[1].server && !calls[1].launches_subagent());
            },
        );
    }

    #[test]
    fn a_result_fails_by_any_of_its_signs() {
        with_root(
            r#"{"type":"x","c":[
                {"type":"tool_result","tool_use_id":"a","is_error":true,"content":"fine"},
                {"type":"tool_result","tool_use_id":"b","content":"\n <tool_use_error>no such file"},
                {"type":"tool_result","tool_use_id":"c","content":[{"type":"text","text":"<tool_use_error>x"}]},
                {"type":"web_search_tool_result","tool_use_id":"d","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}},
                {"type":"mcp_tool_result","tool_use_id":"e","content":[{"error_code":"unavailable"}]},
                {"type":"tool_result","tool_use_id":"f","is_error":false,"content":"all <tool_use_error> good"},
                {"type":"tool_result","tool_use_id":"g","content":[{"type":"image"},{"type":"text","text":"ok"}]},
                {"type":"tool_result","tool_use_id":"h"}]}"#,
            |root| {
                let c = root.get("c").unwrap();
                let user: Vec<bool> = c.elements().map(|b| ResultBlock::of(b).failed()).collect();
                let server: Vec<bool> = c
                    .elements()
                    .map(|b| ResultBlock::of(b).server_failed())
                    .collect();
                let ids: Vec<Option<&str>> = c
                    .elements()
                    .map(|b| ResultBlock::of(b).id.and_then(|v| v.as_str()))
                    .collect();
                assert_eq!(ids, ["a", "b", "c", "d", "e", "f", "g", "h"].map(Some));
                // The API's error content is a server tool's sign only.
                assert_eq!(user, [true, true, true, false, false, false, false, false]);
                assert_eq!(server, [true, true, true, true, true, false, false, false]);
            },
        );
    }

    #[test]
    fn the_records_tool_use_result_speaks_for_a_sole_result() {
        with_root(
            r#"{"type":"x","one":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"a"}],
                "two":[{"type":"tool_result","tool_use_id":"a"},{"type":"web_search_tool_result","tool_use_id":"b"}],
                "err":"Error: exit code 1","ok":"Done","obj":{"stdout":"Error: "}}"#,
            |root| {
                let n = |k: &str| UserContent::of(root.get(k).unwrap()).results;
                assert_eq!((n("one"), n("two")), (1, 2));
                assert_eq!(results(root.get("two").unwrap()).count(), 2);
                assert!(sole_result_failed(n("one"), root.get("err")));
                assert!(!sole_result_failed(n("two"), root.get("err")));
                assert!(!sole_result_failed(n("one"), root.get("ok")));
                assert!(!sole_result_failed(n("one"), root.get("obj")));
                assert!(!sole_result_failed(n("one"), None));
            },
        );
    }

    #[test]
    fn an_interrupt_is_the_content_string_or_any_text_block() {
        with_root(
            r#"{"type":"x","s":"[Request interrupted by user]",
                "later":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"text","text":"first"},{"type":"text","text":"\n[Request interrupted by user for tool use]"}],
                "quoted":[{"type":"tool_result","tool_use_id":"a","content":"[Request interrupted by user]"}],
                "prompt":"please [Request interrupted by user]","esc":"\u005bRequest interrupted by user]"}"#,
            |root| {
                let of = |k: &str| UserContent::of(root.get(k).unwrap());
                assert!(of("s").interrupt && of("later").interrupt && of("esc").interrupt);
                assert!(!of("quoted").interrupt && !of("prompt").interrupt);
                // The text is the first text block's.
                let later = of("later");
                assert_eq!(later.text.and_then(|t| t.as_str()), Some("first"));
                assert_eq!((later.results, of("quoted").text.is_none()), (1, true));
                assert_eq!(
                    of("s").text.and_then(|t| t.as_str()),
                    Some("[Request interrupted by user]")
                );
            },
        );
    }
}
