//! The transcript fold's records of the kinds that carry requests, calls
//! and results: assistant, user and `progress` records, each read into
//! the session's facts, requests and tool calls, as a stream's run state
//! reads the same kinds (`run/state.rs`'s `on_assistant`, `on_user`).

use super::keys::request_key;
use super::read::{self, Message, top};
use super::tools::{Caller, ToolResult};
use super::{End, NONE, Rec, Request, TranscriptFold};
use crate::event::Event;
use crate::event::blocks::{self, BlockRole, CallBlock};
use crate::json::{RawStr, Tabled};
use crate::run::ledger::Answer;

impl TranscriptFold {
    /// An assistant record: an API error, the turn's end, the request's
    /// usage (counted once whatever file replays it), its tool calls.
    #[inline]
    pub(super) fn assistant(&mut self, rec: &Event<'_>, top: &Tabled<'_, 16>, r: Rec) {
        let Rec {
            sid,
            agent,
            sidechain,
            ms,
            place,
            at,
        } = r;
        let line = place.line;
        let str_at = |i: usize| top.get(i).and_then(|v| v.as_raw_str());
        let bool_at = |i: usize| top.get(i).and_then(|v| v.as_bool());
        let f = &mut self.facts[sid as usize];
        let api_error = bool_at(top::API_ERROR).unwrap_or(false);
        if api_error {
            f.api_errors += 1;
            if !sidechain {
                f.ended(at, End::ApiError);
            }
        }
        let Some(m) = top.get(top::MESSAGE) else {
            return;
        };
        let msg = Message::of(m);
        if api_error {
            // Its `error` and first text, as a stream's run keeps them.
            let error = rec.root().get("error").and_then(|v| v.as_raw_str());
            let text = msg.content.and_then(|c| {
                c.elements()
                    .find_map(|b| b.get("text").and_then(|v| v.as_raw_str()))
            });
            let mut id =
                |v: Option<RawStr<'_>>| v.map_or(NONE, |v| self.strings.id_raw(v, &mut self.buf));
            let (error, text) = (id(error), id(text));
            self.facts[sid as usize]
                .system
                .api_error(error, text, at, line);
        }
        let reason = msg
            .stop_reason
            .and_then(|r| r.as_raw_str())
            .map_or(NONE, |r| self.strings.id_raw(r, &mut self.buf));
        let f = &mut self.facts[sid as usize];
        if !sidechain && reason != NONE && f.last_stop.is_none_or(|(t, o, _)| at > (t, o)) {
            f.last_stop = Some((at.0, at.1, reason));
        }
        let model = msg.model.and_then(|m| m.as_raw_str());
        // The CLI's own messages (`/model`, `/cost`) are not replies.
        let synthetic = model.is_some_and(|m| m.raw() == crate::transcript::SYNTHETIC.as_bytes());
        if !sidechain && !api_error && !synthetic {
            f.ended(at, End::Reply(reason));
        }
        if msg.unusual_usage {
            self.unusual_usage(sid, place, m.get("usage"));
        }
        if let Some(usage) = msg.usage {
            let stated = top.get(top::COST);
            let cost = stated.and_then(|v| v.as_f64());
            if let Some(c) = stated
                && cost.is_none_or(|c| c < 0.0)
            {
                self.unusual_cost(sid, place, c);
            }
            let usage = (usage, msg.source());
            let req = self.request(sid, agent, model, usage, ms, sidechain, cost, place);
            self.count(
                msg.id.and_then(|v| v.as_raw_str()),
                str_at(top::REQUEST),
                req,
            );
        }
        for (n, block) in msg.content.iter().flat_map(|c| c.elements()).enumerate() {
            let role = BlockRole::of(block);
            if role == BlockRole::Result {
                // A server tool's result, in the assistant's own
                // content.
                self.server_result(sid, block, ms, place);
                continue;
            }
            let Some(call) = CallBlock::of(block, role) else {
                continue;
            };
            if !sidechain && !api_error && !call.server {
                // The turn waits for the tool's result (a server
                // tool's comes in the same message).
                self.facts[sid as usize].ended(at, End::Awaiting);
            }
            let by = Caller {
                session: sid,
                agent,
                sidechain,
            };
            self.tool_call(call, by, ms, (place, n as u32));
        }
    }

    /// A user record: an interrupt, a prompt the turn waits on, the tool
    /// results (errors, rejections, a subagent's end).
    #[inline]
    pub(super) fn user(&mut self, top: &Tabled<'_, 16>, r: Rec) {
        let Rec {
            sid,
            sidechain,
            ms,
            place,
            at,
            ..
        } = r;
        let bool_at = |i: usize| top.get(i).and_then(|v| v.as_bool());
        let f = &mut self.facts[sid as usize];
        let content = top.get(top::MESSAGE).and_then(|m| m.get("content"));
        let user = read::user_content(content);
        let (text, interrupt) = (user.text, user.interrupt);
        let holds_results = user.results > 0;
        let tool_use_result = top.get(top::TOOL_USE_RESULT);
        let results = read::tool_results(content, user, tool_use_result);
        if interrupt {
            f.interrupted_turns += 1;
            if !sidechain {
                f.ended(at, End::Interrupted);
            }
        }
        // A main-chain prompt waits for a reply (a local command's
        // records, the CLI's own meta records and a compaction's
        // summary do not).
        if !sidechain
            && !interrupt
            && bool_at(top::META) != Some(true)
            && bool_at(top::COMPACT_SUMMARY) != Some(true)
            && !holds_results
            && read::is_prompt(text)
        {
            f.ended(at, End::Awaiting);
        }
        for (id, error, rejected) in results {
            let f = &mut self.facts[sid as usize];
            // A rejection is not the tool's failure.
            f.tool_errors += u64::from(error && !rejected);
            if !sidechain && !interrupt {
                // Answered: the turn waits for the reply.
                f.ended(at, End::Awaiting);
            }
            if let Some(id) = id.and_then(|v| v.as_raw_str()) {
                let result = ToolResult {
                    session: sid,
                    at: place,
                    millis: ms,
                };
                let answer = Answer {
                    rejected,
                    ..Answer::result(result, error)
                };
                let key = request_key(id.raw(), None);
                self.tools.result(key, answer, &self.strings);
                // A subagent's end: read for a call that ran one
                // (or one not seen yet), as the stream reads it for
                // its node's call.
                if self.tools.ledger.get(&key).is_none_or(|c| c.subagent)
                    && let Some(end) = blocks::SubagentEnd::of(user.results, tool_use_result)
                        .filter(|e| e.names_a_subagent())
                {
                    self.agent_end(sid, (key, id), end, place);
                }
            }
        }
    }

    /// A `progress` record: a hook started, or a subagent's request relayed
    /// to its parent's transcript (`agent_progress`).
    #[inline]
    pub(super) fn progress(&mut self, top: &Tabled<'_, 16>, r: Rec) {
        let Rec { sid, ms, place, .. } = r;
        let str_at = |i: usize| top.get(i).and_then(|v| v.as_raw_str());
        let Some(data) = top.get(top::DATA) else {
            return;
        };
        // Hook and Bash progress (most of them) say so first.
        match data.get("type") {
            Some(t) if t.str_eq("agent_progress") => {}
            Some(t) if t.str_eq("hook_progress") => {
                self.facts[sid as usize].system.hook_started();
                return;
            }
            _ => return,
        }
        let mut agent = NONE;
        let agent_id = data.get("agentId").and_then(|v| v.as_raw_str());
        if let (Some(a), Some(by)) = (agent_id, str_at(top::PARENT_TOOL_USE)) {
            agent = self.strings.id_raw(a, &mut self.buf);
            let by = self.strings.id_raw(by, &mut self.buf);
            let facts = self.facts[sid as usize].agent(agent);
            if facts.spawned_by == NONE {
                facts.spawned_by = by;
            }
        }
        // A subagent's request relayed to its parent: the same
        // request as in the subagent's own file, when there is one.
        let Some(relayed) = data.get("message") else {
            return;
        };
        if !relayed.get("type").is_some_and(|t| t.str_eq("assistant")) {
            return;
        }
        let Some(m) = relayed.get("message") else {
            return;
        };
        let msg = Message::of(m);
        if msg.unusual_usage {
            self.unusual_usage(sid, place, m.get("usage"));
        }
        let Some(usage) = msg.usage else { return };
        let millis = relayed
            .get("timestamp")
            .and_then(|t| t.as_str())
            .and_then(crate::time::parse_millis)
            .or(ms);
        let model = msg.model.and_then(|m| m.as_raw_str());
        let usage = (usage, msg.source());
        let req = Request {
            relayed: true,
            ..self.request(sid, agent, model, usage, millis, true, None, place)
        };
        let request = relayed.get("requestId").and_then(|v| v.as_raw_str());
        self.count(msg.id.and_then(|v| v.as_raw_str()), request, req);
    }
}
