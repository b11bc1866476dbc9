//! `assistant` events, and the `stream_event` lines of partial messages
//! (`--include-partial-messages`).

use std::io;

use crate::generator::{Block, Call, Gen, SubCtx};
use crate::models::{MODELS, w_iteration, w_usage_msg};
use crate::primitives::{W, escape_into};

impl<'p> Gen<'p> {
    // -- assistant events --------------------------------------------------------

    fn block_json(w: &mut W, call: &Call, bi: usize) {
        w.open();
        match &call.blocks[bi] {
            Block::Thinking { sig, .. } => {
                w.ks("type", "thinking");
                w.ks("thinking", "");
                w.ks("signature", sig);
            }
            Block::Text(t) => {
                w.ks("type", "text");
                w.kse("text", t);
            }
            Block::Tool(ti) => {
                let t = &call.tools[*ti];
                w.ks("type", "tool_use");
                w.ks("id", &t.id);
                w.ks("name", t.name);
                w.kraw("input", &t.input);
                w.kraw("caller", b"{\"type\":\"direct\"}");
            }
        }
        w.close();
    }

    pub(crate) fn assistant(
        &mut self,
        call: &Call,
        bi: usize,
        sub: Option<&SubCtx>,
    ) -> io::Result<()> {
        let ts = self.ts();
        let u = self.uuid();
        let model = MODELS[self.r.model].id;
        let w = &mut self.w;
        w.open();
        w.ks("type", "assistant");
        w.k("message");
        w.open();
        w.ks("model", model);
        w.ks("id", &call.msg_id);
        w.ks("type", "message");
        w.ks("role", "assistant");
        w.k("content");
        w.arr();
        Self::block_json(w, call, bi);
        w.arr_end();
        w.knull("container");
        w.knull("stop_reason");
        w.knull("stop_sequence");
        w.knull("stop_details");
        w.k("usage");
        w_usage_msg(w, &call.usage, call.usage.output);
        if sub.is_none() {
            w.kraw("input_transformations", b"[]");
        }
        w.knull("diagnostics");
        w.knull("context_management");
        w.close();
        match sub {
            Some(s) => w.ks("parent_tool_use_id", &s.parent),
            None => w.knull("parent_tool_use_id"),
        }
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
        w.ks("request_id", &call.req_id);
        match &call.blocks[bi] {
            Block::Tool(ti) if sub.is_none() => {
                let t = &call.tools[*ti];
                w.k("wire_tool_inputs");
                w.open();
                w.kraw(&t.id, &t.input);
                w.close();
            }
            Block::Thinking { dur, .. } => w.kn("thinking_duration_ms", *dur),
            _ => {}
        }
        if let Some(s) = sub {
            w.ks("subagent_type", s.sub_type);
            w.ks("task_description", &s.desc);
        }
        w.close();
        self.end_line()
    }

    // -- partial messages ----------------------------------------------------------

    pub(crate) fn se_begin(&mut self) {
        self.w.open();
        self.w.ks("type", "stream_event");
        self.w.k("event");
        self.w.open();
    }

    pub(crate) fn se_end(&mut self, ttft: Option<u64>, thinking: bool) -> io::Result<()> {
        self.w.close();
        let u = self.uuid();
        let w = &mut self.w;
        w.ks("session_id", &self.sid);
        w.knull("parent_tool_use_id");
        w.ks("uuid", &u);
        if let Some(t) = ttft {
            w.kn("ttft_ms", t);
        }
        if thinking && self.r.thinking_display {
            w.ks("thinking_display", "updates");
        }
        w.close();
        self.end_line()
    }

    pub(crate) fn stream_call(&mut self, call: &Call, ttft: u64) -> io::Result<()> {
        let model = MODELS[self.r.model].id;
        let has_thinking = matches!(call.blocks.first(), Some(Block::Thinking { .. }));
        self.se_begin();
        {
            let w = &mut self.w;
            w.ks("type", "message_start");
            w.k("message");
            w.open();
            w.ks("model", model);
            w.ks("id", &call.msg_id);
            w.ks("type", "message");
            w.ks("role", "assistant");
            w.kraw("content", b"[]");
            w.knull("stop_reason");
            w.knull("stop_sequence");
            w.knull("stop_details");
            w.k("usage");
            w_usage_msg(w, &call.usage, 1);
            w.knull("diagnostics");
            w.close();
        }
        self.se_end(Some(ttft), has_thinking)?;
        for bi in 0..call.blocks.len() {
            self.tick(5, 300);
            let is_thinking = matches!(call.blocks[bi], Block::Thinking { .. });
            self.se_begin();
            self.w.ks("type", "content_block_start");
            self.w.kn("index", bi as u64);
            self.w.k("content_block");
            match &call.blocks[bi] {
                Block::Thinking { .. } => self
                    .w
                    .raw(b"{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}"),
                Block::Text(_) => self.w.raw(b"{\"type\":\"text\",\"text\":\"\"}"),
                Block::Tool(ti) => {
                    let t = &call.tools[*ti];
                    let w = &mut self.w;
                    w.open();
                    w.ks("type", "tool_use");
                    w.ks("id", &t.id);
                    w.ks("name", t.name);
                    w.kraw("input", b"{}");
                    w.kraw("caller", b"{\"type\":\"direct\"}");
                    w.close();
                }
            }
            self.se_end(None, is_thinking)?;
            match &call.blocks[bi] {
                Block::Thinking { sig, .. } => {
                    // Harness runs think at length: many estimates, each
                    // with its (empty) delta.
                    let n = if self.harness {
                        self.rng.range(30, 110)
                    } else {
                        self.rng.range(1, 6)
                    };
                    let mut est = 0;
                    for k in 0..n {
                        let d = self.rng.range(10, 150);
                        est += d;
                        self.sys_begin("thinking_tokens");
                        self.w.kn("estimated_tokens", est);
                        self.w.kn("estimated_tokens_delta", d);
                        self.sys_end()?;
                        self.delta_begin(bi, "thinking_delta");
                        self.w.ks("thinking", "");
                        if k + 1 == n && self.rng.pm(300) {
                            self.w.knull("estimated_tokens");
                        } else {
                            self.w.kn("estimated_tokens", d);
                        }
                        self.delta_end(true)?;
                    }
                    self.delta_begin(bi, "signature_delta");
                    self.w.ks("signature", sig);
                    self.delta_end(true)?;
                }
                Block::Text(t) => {
                    // Cut the escaped text between escape sequences and
                    // UTF-8 characters, so each fragment is a valid string.
                    let mut pos = 0;
                    while pos < t.len() {
                        // A few tokens a delta (harness runs stream finer).
                        let want = pos
                            + if self.harness {
                                self.rng.urange(4, 60)
                            } else {
                                self.rng.urange(8, 200)
                            };
                        let mut i = pos;
                        while i < t.len() && (i < want || (t[i] & 0xC0) == 0x80) {
                            i += if t[i] == b'\\' {
                                if t.get(i + 1) == Some(&b'u') { 6 } else { 2 }
                            } else {
                                1
                            };
                        }
                        let i = i.min(t.len());
                        self.delta_begin(bi, "text_delta");
                        self.w.kse("text", &t[pos..i]);
                        self.delta_end(false)?;
                        pos = i;
                    }
                }
                Block::Tool(ti) => {
                    let input = &call.tools[*ti].input;
                    self.delta_begin(bi, "input_json_delta");
                    self.w.ks("partial_json", "");
                    self.delta_end(false)?;
                    let mut pos = 0;
                    while pos < input.len() {
                        let mut i = (pos + self.rng.urange(6, 120)).min(input.len());
                        while i < input.len() && (input[i] & 0xC0) == 0x80 {
                            i += 1;
                        }
                        self.delta_begin(bi, "input_json_delta");
                        self.w.k("partial_json");
                        self.w.sep();
                        self.w.b.push(b'"');
                        escape_into(&mut self.w.b, &input[pos..i]);
                        self.w.b.push(b'"');
                        self.delta_end(false)?;
                        pos = i;
                    }
                }
            }
            self.assistant(call, bi, None)?;
            self.se_begin();
            self.w.ks("type", "content_block_stop");
            self.w.kn("index", bi as u64);
            self.se_end(None, is_thinking)?;
        }
        self.se_begin();
        {
            let u = &call.usage;
            let w = &mut self.w;
            w.ks("type", "message_delta");
            w.k("delta");
            w.open();
            w.ks("stop_reason", call.stop);
            w.knull("stop_sequence");
            w.knull("stop_details");
            w.knull("container");
            w.close();
            w.k("usage");
            w.open();
            w.kn("input_tokens", u.input);
            w.kn("cache_creation_input_tokens", u.cache_create);
            w.kn("cache_read_input_tokens", u.cache_read);
            w.kn("output_tokens", u.output);
            w.k("output_tokens_details");
            w.open();
            w.kn("thinking_tokens", u.thinking);
            w.close();
            w.k("iterations");
            w.arr();
            w_iteration(w, u);
            w.arr_end();
            w.close();
            w.kraw("context_management", b"{\"applied_edits\":[]}");
        }
        self.se_end(None, false)?;
        self.se_begin();
        self.w.ks("type", "message_stop");
        self.se_end(None, false)
    }

    pub(crate) fn delta_begin(&mut self, index: usize, ty: &str) {
        self.se_begin();
        self.w.ks("type", "content_block_delta");
        self.w.kn("index", index as u64);
        self.w.k("delta");
        self.w.open();
        self.w.ks("type", ty);
    }

    pub(crate) fn delta_end(&mut self, thinking: bool) -> io::Result<()> {
        self.w.close();
        self.tick(0, 40);
        self.se_end(None, thinking)
    }
}
