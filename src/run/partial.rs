//! Partial messages (`--include-partial-messages`): the `stream_event`
//! deltas of a model call put back together per content block, and checked
//! against the `assistant` event that carries the finished block.
//!
//! Order in a stream (main agent only; subagent calls do not stream):
//! `message_start`, then per block `content_block_start`, deltas, the
//! block's `assistant` event, `content_block_stop`; then `message_delta`
//! (final usage) and `message_stop`. A block is *complete* once its
//! `content_block_stop` or its `assistant` event arrived. A stream cut in
//! the middle of a block leaves it incomplete, kept with what had arrived.
//!
//! Buffers are reused from block to block: reassembly allocates per block at
//! most, never per delta once the buffers have grown.

use super::intern::{Interner, Sym};
use super::json::same_json;
use super::summary::{BlockMismatch, IncompleteBlock, PartialSummary};
use crate::parse::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    ToolUse,
    Other,
}

#[derive(Debug)]
struct Block {
    index: u64,
    kind: Kind,
    type_name: Sym,
    tool_id: Option<Sym>,
    tool_name: Option<Sym>,
    /// text, thinking, or the concatenated `partial_json` of a tool input.
    text: String,
    signature: String,
    deltas: u32,
    stopped: bool,
    verified: bool,
    line: u64,
}

/// Reassembly state of one run.
#[derive(Debug, Default)]
pub(crate) struct Partials {
    /// A message is open (a `message_start` or a block without one).
    open: bool,
    /// The open message's id, when known.
    pub(crate) msg: Option<Sym>,
    blocks: Vec<Block>,
    pool: Vec<String>,
    events: u64,
    messages: u64,
    block_count: u64,
    verified: u64,
    /// Of the verified, those equal only after the CLI's normalizations.
    normalized: u64,
    unverified: u64,
    orphan_deltas: u64,
    mismatches: Vec<BlockMismatch>,
    incomplete: Vec<IncompleteBlock>,
}

fn take_buf(pool: &mut Vec<String>) -> String {
    pool.pop().unwrap_or_default()
}

impl Partials {
    /// Count one `stream_event`.
    pub(crate) fn note_event(&mut self) {
        self.events += 1;
    }

    /// True when any stream_event was seen.
    pub(crate) fn any(&self) -> bool {
        self.events > 0
    }

    /// `message_start` of message `id`.
    pub(crate) fn start_message(&mut self, id: Option<Sym>, names: &Interner) {
        self.finish_message(names);
        self.open = true;
        self.msg = id;
        self.messages += 1;
    }

    /// `message_stop`, or anything that ends the open message.
    pub(crate) fn finish_message(&mut self, names: &Interner) {
        for b in self.blocks.drain(..) {
            if !b.stopped && !b.verified {
                self.incomplete.push(incomplete(&b, self.msg, names));
            } else if !b.verified {
                self.unverified += 1;
            }
            let Block {
                mut text,
                mut signature,
                ..
            } = b;
            text.clear();
            signature.clear();
            self.pool.push(text);
            self.pool.push(signature);
        }
        self.open = false;
        self.msg = None;
    }

    /// `content_block_start` with its `content_block`.
    pub(crate) fn start_block(
        &mut self,
        index: u64,
        block: Option<Value<'_>>,
        line: u64,
        names: &mut Interner,
    ) {
        if !self.open {
            // An excerpt or a stream that lost its message_start: keep the
            // block under an unknown message.
            self.open = true;
            self.msg = None;
        }
        let ty = block
            .and_then(|b| b.get("type"))
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let kind = match ty {
            "text" => Kind::Text,
            "thinking" => Kind::Thinking,
            "tool_use" => Kind::ToolUse,
            _ => Kind::Other,
        };
        let field = |k: &str| block.and_then(|b| b.get(k)).and_then(|v| v.as_str());
        let tool_id = field("id").map(|s| names.intern(s));
        let tool_name = field("name").map(|s| names.intern(s));
        let mut text = take_buf(&mut self.pool);
        // A start block may carry initial text (always "" in practice).
        if let Some(t) = match kind {
            Kind::Text => field("text"),
            Kind::Thinking => field("thinking"),
            _ => None,
        } {
            text.push_str(t);
        }
        let signature = take_buf(&mut self.pool);
        self.block_count += 1;
        self.blocks.push(Block {
            index,
            kind,
            type_name: names.intern(ty),
            tool_id,
            tool_name,
            text,
            signature,
            deltas: 0,
            stopped: false,
            verified: false,
            line,
        });
    }

    fn block_mut(&mut self, index: u64) -> Option<&mut Block> {
        self.blocks.iter_mut().rev().find(|b| b.index == index)
    }

    /// `content_block_delta` with its `delta`.
    pub(crate) fn delta(&mut self, index: u64, delta: Option<Value<'_>>) {
        let Some(d) = delta else { return };
        let Some(b) = self.block_mut(index) else {
            self.orphan_deltas += 1;
            return;
        };
        b.deltas += 1;
        let s = |k: &str| d.get(k).and_then(|v| v.as_str()).unwrap_or("");
        match d.get("type").and_then(|v| v.as_str()).unwrap_or("") {
            "text_delta" => b.text.push_str(s("text")),
            "thinking_delta" => b.text.push_str(s("thinking")),
            "signature_delta" => b.signature.push_str(s("signature")),
            "input_json_delta" => b.text.push_str(s("partial_json")),
            _ => {}
        }
    }

    /// `content_block_stop`.
    pub(crate) fn stop_block(&mut self, index: u64) {
        match self.block_mut(index) {
            Some(b) => b.stopped = true,
            None => self.orphan_deltas += 1,
        }
    }

    /// An `assistant` event of the main agent carrying `block` of message
    /// `msg`: compare it with the block put together from the deltas.
    pub(crate) fn check_assistant(&mut self, msg: Option<Sym>, block: Value<'_>, names: &Interner) {
        if !self.open || self.blocks.is_empty() {
            return;
        }
        match (self.msg, msg) {
            (Some(open), Some(m)) if open != m => return,
            (None, m) => self.msg = m,
            _ => {}
        }
        let ty = block.get("type").and_then(|v| v.as_str()).unwrap_or("");
        let kind = match ty {
            "text" => Kind::Text,
            "thinking" => Kind::Thinking,
            "tool_use" => Kind::ToolUse,
            _ => Kind::Other,
        };
        // The block being streamed: the latest one of that kind not yet
        // matched by an assistant event.
        let Some(pos) = self.blocks.iter().rposition(|b| {
            !b.verified
                && b.kind == kind
                && (kind != Kind::Other || names.resolve(b.type_name) == ty)
        }) else {
            return;
        };
        let msg_id = self.msg;
        let mut normalized_block = false;
        let b = &mut self.blocks[pos];
        let s = |k: &str| block.get(k).and_then(|v| v.as_str()).unwrap_or("");
        let reason = match kind {
            Kind::Text => (b.text != s("text")).then_some("text differs"),
            Kind::Thinking => {
                if b.text != s("thinking") {
                    Some("thinking differs")
                } else if b.signature != s("signature") {
                    Some("signature differs")
                } else {
                    None
                }
            }
            Kind::ToolUse => {
                let id_ok =
                    b.tool_id.map(|t| names.resolve(t)) == block.get("id").and_then(|v| v.as_str());
                let name_ok = b.tool_name.map(|t| names.resolve(t))
                    == block.get("name").and_then(|v| v.as_str());
                if !id_ok {
                    Some("tool_use id differs")
                } else if !name_ok {
                    Some("tool name differs")
                } else {
                    match (parse_input(&b.text), block.get("input")) {
                        (Some(parsed), Some(input)) if same_json(&parsed, &input) => None,
                        (Some(parsed), Some(input)) => {
                            match normalized(parsed, &input, name_of(&block)) {
                                Some(n) if same_json(&n, &input) => {
                                    normalized_block = true;
                                    None
                                }
                                _ => Some("input differs"),
                            }
                        }
                        (None, _) => Some("input_json does not parse"),
                        _ => Some("input differs"),
                    }
                }
            }
            Kind::Other => None,
        };
        b.verified = true;
        self.normalized += u64::from(normalized_block && reason.is_none());
        match reason {
            None => self.verified += 1,
            Some(reason) => self.mismatches.push(BlockMismatch {
                message_id: msg_id.map(|m| names.resolve(m).to_string()),
                index: b.index,
                block_type: names.resolve(b.type_name).to_string(),
                reason,
                line: b.line,
            }),
        }
    }

    /// Close the open message (end of run) and summarise.
    pub(crate) fn summary(&mut self, names: &Interner) -> Option<PartialSummary> {
        self.finish_message(names);
        if !self.any() {
            return None;
        }
        Some(PartialSummary {
            events: self.events,
            messages: self.messages,
            blocks: self.block_count,
            verified: self.verified,
            normalized: self.normalized,
            unverified: self.unverified,
            orphan_events: self.orphan_deltas,
            mismatches: std::mem::take(&mut self.mismatches),
            incomplete: std::mem::take(&mut self.incomplete),
        })
    }
}

fn name_of<'a>(block: &Value<'a>) -> &'a str {
    block.get("name").and_then(|v| v.as_str()).unwrap_or("")
}

/// The streamed input with the rewrites the CLI makes to a tool's input
/// after streaming it, as seen in real captures, undone towards `fin` (the
/// assistant event's input); `None` when none applies. Each is a rewrite of
/// form only:
/// - Edit gains `"replace_all": false`
///   (wave2/jedarden__aide-de-camp__.beads-traces-adc-3lj-stdout.txt@c414054.jsonl
///   line 1341; 2.1.126 to 2.1.158);
/// - a Bash command streamed as `cd <dir> && X` ends as `X`, the CLI running
///   it in that directory
///   (wave2/jedarden__spaxel__.beads-traces-spaxel-v1ep-stdout.txt@670d7ce.jsonl
///   line 286).
fn normalized(
    mut streamed: serde_json::Value,
    fin: &Value<'_>,
    tool: &str,
) -> Option<serde_json::Value> {
    let obj = streamed.as_object_mut()?;
    let mut changed = false;
    if tool == "Edit"
        && !obj.contains_key("replace_all")
        && fin.get("replace_all").and_then(|v| v.as_bool()) == Some(false)
    {
        obj.insert("replace_all".into(), serde_json::Value::Bool(false));
        changed = true;
    }
    if tool == "Bash"
        && let (Some(s), Some(f)) = (
            obj.get("command").and_then(|c| c.as_str()),
            fin.get("command").and_then(|c| c.as_str()),
        )
        && s.starts_with("cd ")
        && s.split_once(" && ").is_some_and(|(_, rest)| rest == f)
    {
        obj.insert("command".into(), serde_json::Value::String(f.to_string()));
        changed = true;
    }
    changed.then_some(streamed)
}

/// The concatenated `partial_json` as JSON; no fragments (or only empty
/// ones) is `{}`.
fn parse_input(s: &str) -> Option<serde_json::Value> {
    if s.trim().is_empty() {
        return Some(serde_json::Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(s).ok()
}

fn incomplete(b: &Block, msg: Option<Sym>, names: &Interner) -> IncompleteBlock {
    let input = if b.kind == Kind::ToolUse {
        parse_input(&b.text)
    } else {
        None
    };
    IncompleteBlock {
        message_id: msg.map(|m| names.resolve(m).to_string()),
        index: b.index,
        block_type: names.resolve(b.type_name).to_string(),
        text: b.text.clone(),
        signature: b.signature.clone(),
        tool_use_id: b.tool_id.map(|t| names.resolve(t).to_string()),
        tool_name: b.tool_name.map(|t| names.resolve(t).to_string()),
        input,
        deltas: b.deltas,
        line: b.line,
    }
}
