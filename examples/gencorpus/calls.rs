//! Tool planning and the main agent's model calls.

use std::io;

use crate::generator::{Block, Call, Gen, Sub, SubCtx};
use crate::models::{AGENT_TYPES, BASH_CMDS, Kind, ToolCall, Usage};
use crate::pools::{LANGS, POOL_LOGS, POOL_PROSE, Src, WORDS, trim_nl};
use crate::primitives::{W, agent_id, b58_id, signature};

impl<'p> Gen<'p> {
    // -- tool planning --------------------------------------------------------

    pub(crate) fn plan_tool(&mut self, name: &'static str) -> ToolCall {
        let id = b58_id(&mut self.rng, "toolu_01", 22);
        let mut inp = W::default();
        let lang = if self.rng.pm(850) {
            self.r.lang
        } else {
            self.rng.below(4) as usize
        };
        let kind = match name {
            "Bash" => {
                let (cmd, desc) = *self.rng.pick(BASH_CMDS);
                inp.open();
                inp.ks("command", cmd);
                inp.ks("description", desc);
                if self.rng.pm(200) {
                    inp.kn("timeout", 120_000);
                }
                inp.close();
                let size = self.out_size();
                let pool = if self.rng.pm(700) { POOL_LOGS } else { lang };
                let out = self.src(pool, size);
                let exit = if self.rng.pm(120) {
                    *self.rng.pick(&[1, 1, 2, 101, 127])
                } else {
                    0
                };
                let err = if exit != 0 || self.rng.pm(100) {
                    let n = self.rng.log_uniform(60, 3000) as usize;
                    Some(self.src(POOL_LOGS, n))
                } else {
                    None
                };
                Kind::Bash { out, err, exit }
            }
            "Read" => {
                let path = self.file_path(lang);
                let size = self.out_size();
                let from_top = self.rng.pm(750);
                let src = if from_top {
                    self.src_anchored(lang, size)
                } else {
                    self.src(lang, size)
                };
                let n = src.b - src.a;
                let (start, total) = if !from_top {
                    let start = self.rng.urange(1, 2000);
                    (start, start + n + self.rng.urange(0, 3000))
                } else {
                    (1, n)
                };
                inp.open();
                inp.ks("file_path", &path);
                if start > 1 {
                    inp.kn("offset", start as u64);
                    inp.kn("limit", n as u64);
                }
                inp.close();
                let missing = self.rng.pm(30);
                Kind::Read {
                    path,
                    src,
                    start,
                    total,
                    missing,
                }
            }
            "Write" => {
                let path = self.file_path(lang);
                // Models do not write megabytes in one tool call.
                let size = self.out_size().min(200_000);
                let src = self.src_anchored(lang, size);
                inp.open();
                inp.ks("file_path", &path);
                inp.kse("content", self.span(src));
                inp.close();
                let hunks = self.rng.pm(700);
                Kind::Write { path, src, hunks }
            }
            "Edit" => {
                let path = self.file_path(lang);
                let size = self.out_size().max(400);
                let orig = self.src_anchored(lang, size);
                let n = orig.b - orig.a;
                let old_n = self.rng.urange(1, 6).min(n);
                let at = orig.a + self.rng.urange(0, n - old_n);
                let new_n = self.rng.urange(1, 8) as u64;
                let (na, _) = self.pools.all[lang].pick(&mut self.rng, 1);
                let nb = (na + new_n as usize).min(self.pools.all[lang].nlines());
                let new = Src {
                    pool: lang,
                    a: na,
                    b: nb.max(na + 1),
                };
                let old = trim_nl(self.pools.all[lang].span(at, at + old_n));
                let replace_all = self.rng.pm(50);
                inp.open();
                inp.ks("file_path", &path);
                inp.kse("old_string", old);
                inp.kse("new_string", trim_nl(self.span(new)));
                if replace_all {
                    inp.kb("replace_all", true);
                }
                inp.close();
                let fail = self.rng.pm(50);
                Kind::Edit {
                    path,
                    orig,
                    at,
                    old_n,
                    new,
                    fail,
                }
            }
            "Grep" => {
                let files = self.rng.pm(300);
                let path = format!("{}/{}", self.r.cwd, LANGS[lang].dir);
                let a = self.rng.ps(WORDS);
                let b = self.rng.ps(WORDS);
                inp.open();
                inp.ks("pattern", &format!("fn {a}|{b}\\(|\"{a}\""));
                inp.ks("path", &path);
                inp.ks(
                    "output_mode",
                    if files {
                        "files_with_matches"
                    } else {
                        "content"
                    },
                );
                if !files {
                    inp.kb("-n", true);
                }
                inp.close();
                let size = if files { 300 } else { self.out_size() * 3 / 4 };
                let src = self.src(lang, size);
                Kind::Grep { src, files, path }
            }
            _ => {
                let sub_type = self.rng.ps(AGENT_TYPES);
                let desc = format!(
                    "{} {} {}",
                    self.rng
                        .pick(&["Investigate", "Review", "Explore", "Fix", "Summarize"]),
                    self.rng.ps(WORDS),
                    self.rng.ps(WORDS)
                );
                let n = self.rng.log_uniform(200, 2500) as usize;
                let prompt = self.src_anchored(POOL_PROSE, n);
                inp.open();
                inp.ks("description", &desc);
                inp.kse("prompt", trim_nl(self.span(prompt)));
                inp.ks("subagent_type", sub_type);
                inp.close();
                Kind::Agent {
                    sub_type,
                    desc,
                    prompt,
                }
            }
        };
        ToolCall {
            id,
            name,
            input: inp.b,
            kind,
        }
    }

    pub(crate) fn pick_tool_name(&mut self) -> &'static str {
        match self.rng.below(100) {
            0..=29 => "Bash",
            30..=61 => "Read",
            62..=73 => "Edit",
            74..=81 => "Write",
            _ => "Grep",
        }
    }

    /// Builds the blocks of one model call.
    pub(crate) fn plan_call(
        &mut self,
        tools: Vec<ToolCall>,
        text_pm: u64,
        final_text: bool,
    ) -> Call {
        let mut blocks = Vec::new();
        let mut out_bytes = 0usize;
        let mut thinking = 0;
        if self.rng.pm(self.r.thinking_pm) {
            let sig = signature(&mut self.rng);
            thinking = self.rng.range(20, 2000);
            let dur = self.rng.range(300, 20_000);
            blocks.push(Block::Thinking { sig, dur });
        }
        if final_text {
            let t = self.prose(200, 5000);
            out_bytes += t.len();
            self.r.last_text = t.clone();
            blocks.push(Block::Text(t));
        } else if self.rng.pm(text_pm) {
            // Harness runs explain at length between tool calls.
            let t = if self.harness {
                self.prose(1000, 6000)
            } else {
                self.prose(40, 700)
            };
            out_bytes += t.len();
            blocks.push(Block::Text(t));
        }
        for (i, t) in tools.iter().enumerate() {
            out_bytes += t.input.len();
            blocks.push(Block::Tool(i));
        }
        let usage = Usage {
            input: self.rng.range(1, 12),
            output: (out_bytes / 4) as u64 + thinking + self.rng.range(5, 60),
            cache_read: self.r.ctx,
            cache_create: self.rng.range(50, 3000),
            thinking,
        };
        Call {
            msg_id: b58_id(&mut self.rng, "msg_011C", 20),
            req_id: b58_id(&mut self.rng, "req_011C", 20),
            usage,
            blocks,
            stop: if tools.is_empty() {
                "end_turn"
            } else {
                "tool_use"
            },
            tools,
        }
    }

    // -- main-agent model call -------------------------------------------------

    pub(crate) fn main_call(&mut self, final_text: bool) -> io::Result<()> {
        self.status()?;
        if self.rng.pm(25) {
            let (st, e) = *self.rng.pick(&[
                (429u64, "rate_limit"),
                (529, "overloaded"),
                (500, "server_error"),
            ]);
            let n = self.rng.range(1, 3);
            self.api_retries(n, st, e)?;
        }
        if self.rng.pm(15) {
            let detail = format!("Working on {}", self.rng.ps(WORDS));
            self.sys_begin("task_summary");
            self.w.ks("detail", &detail);
            self.sys_end()?;
        }
        let mut tools = Vec::new();
        if !final_text {
            if self.r.agents && self.rng.pm(150) {
                let n = if self.rng.pm(700) {
                    1
                } else {
                    self.rng.range(2, 3)
                };
                for _ in 0..n {
                    tools.push(self.plan_tool("Agent"));
                }
            } else {
                let n = match self.rng.below(10) {
                    _ if self.harness => 1,
                    0..=6 => 1,
                    7..=8 => 2,
                    _ => self.rng.range(3, 4),
                };
                for _ in 0..n {
                    let name = self.pick_tool_name();
                    tools.push(self.plan_tool(name));
                }
            }
        }
        let text_pm = if self.harness { 1000 } else { 450 };
        let call = self.plan_call(tools, text_pm, final_text);
        let ttft = self.rng.range(400, 6000);
        if self.r.ttft == 0 {
            self.r.ttft = ttft;
        }
        self.tick(ttft, ttft + 10);
        self.r.api_ms += ttft;
        if self.partial {
            self.stream_call(&call, ttft)?;
        } else {
            for bi in 0..call.blocks.len() {
                if bi > 0 {
                    self.tick(10, 900);
                }
                self.assistant(&call, bi, None)?;
            }
        }
        let gen_ms = self.rng.range(200, 8000);
        self.r.api_ms += gen_ms;
        self.r.main.add(&call.usage);
        self.r.last = call.usage;
        self.r.ctx += call.usage.cache_create + call.usage.output;
        if self.rng.pm(30) {
            self.rate_limit()?;
        }
        self.run_tools(call.tools)?;
        Ok(())
    }

    /// Emits tool results (in completion order) and runs subagents.
    fn run_tools(&mut self, mut tools: Vec<ToolCall>) -> io::Result<()> {
        if tools.len() > 1 && self.rng.pm(300) {
            tools.swap(0, 1);
        }
        let mut subs = Vec::new();
        for tc in tools {
            if let Kind::Agent {
                sub_type,
                ref desc,
                prompt,
            } = tc.kind
            {
                let calls_left = self.rng.range(1, 6);
                let task_id = agent_id(&mut self.rng);
                subs.push(Sub {
                    ctx: SubCtx {
                        parent: tc.id.clone(),
                        sub_type,
                        desc: desc.clone(),
                    },
                    task_id,
                    prompt,
                    calls_left,
                    phase: 0,
                    pending: Vec::new(),
                    usage: Usage::default(),
                    last: Usage::default(),
                    tool_uses: 0,
                    last_tool: "Read",
                    started: self.now,
                    report: Vec::new(),
                    stats: [0; 4],
                });
                continue;
            }
            let hook = self.r.hooks && tc.name == "Bash";
            let hid = if hook {
                let id = self.uuid();
                self.hook_started(&id, "PreToolUse:Bash", "PreToolUse")?;
                self.tick(5, 200);
                self.hook_response(&id, "PreToolUse:Bash", "PreToolUse")?;
                Some(id)
            } else {
                None
            };
            let dt = if tc.name == "Bash" { 30_000 } else { 400 };
            self.tick(20, dt);
            self.tool_result(&tc, None)?;
            if hid.is_some() && self.rng.pm(500) {
                let id = self.uuid();
                self.hook_started(&id, "PostToolUse:Bash", "PostToolUse")?;
                self.hook_response(&id, "PostToolUse:Bash", "PostToolUse")?;
            }
        }
        while !subs.is_empty() {
            let i = self.rng.below(subs.len() as u64) as usize;
            let done = self.sub_step(&mut subs[i])?;
            if done {
                subs.remove(i);
            }
        }
        Ok(())
    }
}
