//! Subagents: one step at a time, from `task_started` to the
//! `AgentResult`.

use std::io;

use crate::generator::{Block, Gen, Sub};
use crate::models::{MODELS, w_usage_full};
use crate::pools::{WORDS, trim_nl};
use crate::primitives::agent_id;

impl<'p> Gen<'p> {
    // -- subagents ---------------------------------------------------------------------

    /// Advances one subagent by one step; returns true when it has finished.
    pub(crate) fn sub_step(&mut self, s: &mut Sub) -> io::Result<bool> {
        match s.phase {
            0 => {
                self.tick(5, 200);
                let prompt = trim_nl(self.span(s.prompt));
                self.sys_begin("task_started");
                let w = &mut self.w;
                w.ks("task_id", &s.task_id);
                w.ks("tool_use_id", &s.ctx.parent);
                w.ks("description", &s.ctx.desc);
                w.ks("subagent_type", s.ctx.sub_type);
                w.kb("is_backgrounded", false);
                w.kn("spawn_depth", 1);
                w.ks("task_type", "local_agent");
                w.kse("prompt", prompt);
                self.sys_end()?;
                self.tick(5, 100);
                let ts = self.ts();
                let u = self.uuid();
                let w = &mut self.w;
                w.open();
                w.ks("type", "user");
                w.k("message");
                w.open();
                w.ks("role", "user");
                w.k("content");
                w.arr();
                w.open();
                w.ks("type", "text");
                w.kse("text", prompt);
                w.close();
                w.arr_end();
                w.close();
                w.ks("parent_tool_use_id", &s.ctx.parent);
                w.ks("session_id", &self.sid);
                w.ks("uuid", &u);
                w.ks("timestamp", &ts);
                w.ks("subagent_type", s.ctx.sub_type);
                w.ks("task_description", &s.ctx.desc);
                w.close();
                self.end_line()?;
                self.r.spawned += 1;
                match self
                    .r
                    .by_type
                    .iter_mut()
                    .find(|(t, _)| *t == s.ctx.sub_type)
                {
                    Some(e) => e.1 += 1,
                    None => self.r.by_type.push((s.ctx.sub_type, 1)),
                }
                s.phase = 1;
                Ok(false)
            }
            1 => {
                if let Some(tc) = s.pending.pop() {
                    self.tick(20, 5000);
                    self.tool_result(&tc, Some(&s.ctx))?;
                    s.tool_uses += 1;
                    s.last_tool = tc.name;
                    match tc.name {
                        "Read" => s.stats[0] += 1,
                        "Grep" => s.stats[1] += 1,
                        "Bash" => s.stats[2] += 1,
                        _ => s.stats[3] += 1,
                    }
                    self.tick(5, 100);
                    let desc = format!("{} {}", verb(tc.name), self.rng.ps(WORDS));
                    let dur = self.now - s.started;
                    self.sys_begin("task_progress");
                    let w = &mut self.w;
                    w.ks("task_id", &s.task_id);
                    w.ks("tool_use_id", &s.ctx.parent);
                    w.ks("description", &desc);
                    w.ks("subagent_type", s.ctx.sub_type);
                    w.k("usage");
                    w.open();
                    w.kn("total_tokens", s.usage.total());
                    w.kn("tool_uses", s.tool_uses);
                    w.kn("duration_ms", dur);
                    w.close();
                    w.ks("last_tool_name", s.last_tool);
                    self.sys_end()?;
                    return Ok(false);
                }
                if s.calls_left > 0 {
                    s.calls_left -= 1;
                    let n = if self.rng.pm(750) { 1 } else { 2 };
                    let mut tools = Vec::new();
                    for _ in 0..n {
                        let name = self.pick_tool_name();
                        let name = if name == "Write" || name == "Edit" {
                            "Read"
                        } else {
                            name
                        };
                        tools.push(self.plan_tool(name));
                    }
                    let mut call = self.plan_call(tools, 300, false);
                    call.usage.cache_read = 8_000 + s.usage.cache_create;
                    self.tick(400, 4000);
                    for bi in 0..call.blocks.len() {
                        self.assistant(&call, bi, Some(&s.ctx))?;
                        self.tick(5, 400);
                    }
                    s.usage.add(&call.usage);
                    s.last = call.usage;
                    self.r.subs.add(&call.usage);
                    s.pending = call.tools;
                    s.pending.reverse();
                    return Ok(false);
                }
                let mut call = self.plan_call(Vec::new(), 1000, false);
                let report = self.prose(300, 8000);
                call.usage.output += report.len() as u64 / 4;
                call.blocks.retain(|b| !matches!(b, Block::Text(_)));
                call.blocks.push(Block::Text(report.clone()));
                self.tick(800, 9000);
                for bi in 0..call.blocks.len() {
                    if bi > 0 {
                        self.tick(10, 900);
                    }
                    self.assistant(&call, bi, Some(&s.ctx))?;
                }
                s.usage.add(&call.usage);
                s.last = call.usage;
                self.r.subs.add(&call.usage);
                s.report = report;
                s.phase = 2;
                Ok(false)
            }
            _ => {
                self.tick(5, 200);
                self.sys_begin("task_updated");
                self.w.ks("task_id", &s.task_id);
                self.w.k("patch");
                self.w.open();
                self.w.ks("status", "completed");
                self.w.kn("end_time", self.now);
                self.w.close();
                self.sys_end()?;
                let dur = self.now - s.started;
                let total = s.usage.total();
                let out_file = format!(
                    "/tmp/claude-1000/{}/{}/tasks/{}.output",
                    self.r.cwd.replace('/', "-"),
                    self.sid,
                    s.task_id
                );
                let summary = format!(
                    "This agent's report was delivered to you as a message from \"{}\" in the tool result.",
                    s.task_id
                );
                self.sys_begin("task_notification");
                let w = &mut self.w;
                w.ks("task_id", &s.task_id);
                w.ks("tool_use_id", &s.ctx.parent);
                w.ks("status", "completed");
                w.ks("output_file", &out_file);
                w.ks("summary", &summary);
                w.k("usage");
                w.open();
                w.kn("total_tokens", total);
                w.kn("tool_uses", s.tool_uses);
                w.kn("duration_ms", dur);
                w.close();
                self.sys_end()?;
                self.tick(5, 100);
                // The Agent tool result in the main agent.
                let trailer = format!(
                    "agentId: {id} (use SendMessage with to: '{id}' to continue this agent)\n<usage>total_tokens: {total}\ntool_uses: {}\nduration_ms: {dur}</usage>",
                    s.tool_uses,
                    id = s.task_id
                );
                self.user_begin(&s.ctx.parent, false);
                {
                    let w = &mut self.w;
                    w.arr();
                    w.open();
                    w.ks("type", "text");
                    w.kse("text", &s.report);
                    w.close();
                    w.open();
                    w.ks("type", "text");
                    w.ks("text", &trailer);
                    w.close();
                    w.arr_end();
                }
                self.user_mid(&s.ctx.parent, false, None);
                let prompt = trim_nl(self.span(s.prompt));
                let model = MODELS[self.r.model].id;
                let hash = agent_id(&mut self.rng);
                let w = &mut self.w;
                w.k("tool_use_result");
                w.open();
                w.ks("status", "completed");
                w.ks("agentId", &s.task_id);
                w.ks("agentType", s.ctx.sub_type);
                w.kse("prompt", prompt);
                w.ks("handback", "send");
                w.k("handbackReport");
                w.open();
                w.kse("text", &s.report);
                w.close();
                w.k("content");
                w.arr();
                w.open();
                w.ks("type", "text");
                w.kse("text", &s.report);
                w.close();
                w.arr_end();
                w.ks("resolvedModel", model);
                w.kn("totalDurationMs", dur);
                w.kn("totalTokens", total);
                w.kn("totalToolUseCount", s.tool_uses);
                w.k("usage");
                w_usage_full(w, &s.last, None);
                w.k("toolStats");
                w.open();
                w.kn("readCount", s.stats[0]);
                w.kn("searchCount", s.stats[1]);
                w.kn("bashCount", s.stats[2]);
                w.kn("editFileCount", 0);
                w.kn("linesAdded", 0);
                w.kn("linesRemoved", 0);
                w.kn("otherToolCount", s.stats[3]);
                w.close();
                w.kn("harnessNoteCount", 0);
                w.kn("harnessTailCount", 0);
                w.ks("harnessSectionHash", &hash[1..]);
                w.close();
                self.user_end(None)?;
                Ok(true)
            }
        }
    }
}

fn verb(tool: &str) -> &'static str {
    match tool {
        "Read" => "Reading",
        "Grep" => "Searching for",
        "Bash" => "Running",
        _ => "Working on",
    }
}
