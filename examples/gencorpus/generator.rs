//! The generator: its state, the run (hooks, `system/init`, the replayed
//! prompt, status, retries, rate limits) and the helpers every event uses.

use std::io::{self, Write};

use crate::models::{MODELS, PROMPTS, ToolCall, Usage};
use crate::pools::{LANGS, POOL_PROSE, Pools, Src, WORDS, trim_nl};
use crate::primitives::{Rng, W, escape_into, iso, uuid};
use crate::{FLUSH_AT, MAX_WINDOW, VERSION};

// ---------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Outcome {
    Success,
    MaxTurns,
    Aborted,
    ApiError,
}

pub(crate) enum Block {
    Thinking { sig: String, dur: u64 },
    Text(Vec<u8>),
    Tool(usize),
}

pub(crate) struct Call {
    pub(crate) msg_id: String,
    pub(crate) req_id: String,
    pub(crate) usage: Usage,
    pub(crate) blocks: Vec<Block>,
    pub(crate) tools: Vec<ToolCall>,
    pub(crate) stop: &'static str,
}

pub(crate) struct SubCtx {
    pub(crate) parent: String,
    pub(crate) sub_type: &'static str,
    pub(crate) desc: String,
}

pub(crate) struct Sub {
    pub(crate) ctx: SubCtx,
    pub(crate) task_id: String,
    pub(crate) prompt: Src,
    pub(crate) calls_left: u64,
    pub(crate) phase: u8,
    pub(crate) pending: Vec<ToolCall>,
    pub(crate) usage: Usage,
    pub(crate) last: Usage,
    pub(crate) tool_uses: u64,
    pub(crate) last_tool: &'static str,
    pub(crate) started: u64,
    pub(crate) report: Vec<u8>,
    pub(crate) stats: [u64; 4],
}

#[derive(Default)]
pub(crate) struct Run {
    pub(crate) model: usize,
    pub(crate) lang: usize,
    pub(crate) cwd: String,
    pub(crate) hooks: bool,
    pub(crate) agents: bool,
    pub(crate) thinking_pm: u64,
    pub(crate) thinking_display: bool,
    pub(crate) main: Usage,
    pub(crate) last: Usage,
    pub(crate) subs: Usage,
    pub(crate) ctx: u64,
    pub(crate) api_ms: u64,
    pub(crate) start: u64,
    pub(crate) spawned: u64,
    pub(crate) by_type: Vec<(&'static str, u64)>,
    pub(crate) last_text: Vec<u8>,
    pub(crate) ttft: u64,
    pub(crate) api_status: u64,
}

pub(crate) struct Gen<'p> {
    pub(crate) rng: Rng,
    pub(crate) pools: &'p Pools,
    pub(crate) partial: bool,
    /// Harness-archive runs: every call thinks at length, runs grow to
    /// `run_bytes`.
    pub(crate) harness: bool,
    /// Byte size a run grows to (calls are added until it is reached).
    pub(crate) run_bytes: Option<u64>,
    /// Lines go to a capture buffer, not to the output (no flush).
    pub(crate) capturing: bool,
    pub(crate) w: W,
    pub(crate) out: Box<dyn Write>,
    pub(crate) flushed: u64,
    pub(crate) backslashes: u64,
    pub(crate) lines: u64,
    pub(crate) runs: u64,
    pub(crate) now: u64,
    pub(crate) sid: String,
    pub(crate) r: Run,
    pub(crate) tmp: Vec<u8>,
}

impl<'p> Gen<'p> {
    pub(crate) fn total_bytes(&self) -> u64 {
        self.flushed + self.w.b.len() as u64
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.backslashes += self.w.b.iter().filter(|&&c| c == b'\\').count() as u64;
        self.lines += self.w.b.iter().filter(|&&c| c == b'\n').count() as u64;
        self.out.write_all(&self.w.b)?;
        self.flushed += self.w.b.len() as u64;
        self.w.b.clear();
        Ok(())
    }

    /// The lines `f` writes, kept apart from the output.
    pub(crate) fn capture(
        &mut self,
        f: impl FnOnce(&mut Self) -> io::Result<()>,
    ) -> io::Result<Vec<u8>> {
        let outer = std::mem::take(&mut self.w.b);
        let was = std::mem::replace(&mut self.capturing, true);
        let r = f(self);
        self.capturing = was;
        let inner = std::mem::replace(&mut self.w.b, outer);
        r.map(|()| inner)
    }

    pub(crate) fn end_line(&mut self) -> io::Result<()> {
        self.w.b.push(b'\n');
        if !self.capturing && self.w.b.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    pub(crate) fn tick(&mut self, lo: u64, hi: u64) {
        self.now += self.rng.range(lo, hi);
    }

    pub(crate) fn ts(&mut self) -> String {
        iso(self.now)
    }

    pub(crate) fn uuid(&mut self) -> String {
        uuid(&mut self.rng)
    }

    /// Heavy-tailed size (escaped bytes) of a tool output.
    pub(crate) fn out_size(&mut self) -> usize {
        let r = self.rng.below(10_000);
        let (lo, hi) = match r {
            0..=5019 => (150, 1_500),
            5020..=8319 => (1_500, 8_000),
            8320..=9499 => (8_000, 40_000),
            9500..=9970 => (40_000, 200_000),
            _ => (200_000, MAX_WINDOW as u64),
        };
        let v = self.rng.log_uniform(lo, hi) as usize;
        if self.partial { (v / 9).max(60) } else { v }
    }

    pub(crate) fn src(&mut self, pool: usize, target: usize) -> Src {
        let (a, b) = self.pools.all[pool].pick(&mut self.rng, target);
        Src { pool, a, b }
    }

    pub(crate) fn src_anchored(&mut self, pool: usize, target: usize) -> Src {
        let (a, b) = self.pools.all[pool].pick_anchored(&mut self.rng, target);
        Src { pool, a, b }
    }

    pub(crate) fn span(&self, s: Src) -> &'p [u8] {
        self.pools.all[s.pool].span(s.a, s.b)
    }

    pub(crate) fn prose(&mut self, lo: u64, hi: u64) -> Vec<u8> {
        let n = self.rng.log_uniform(lo, hi) as usize;
        let s = self.src_anchored(POOL_PROSE, n);
        trim_nl(self.span(s)).to_vec()
    }

    pub(crate) fn file_path(&mut self, lang: usize) -> String {
        let spec = &LANGS[lang];
        let a = self.rng.ps(WORDS);
        let b = self.rng.ps(WORDS);
        format!("{}/{}/{a}_{b}.{}", self.r.cwd, spec.dir, spec.ext)
    }

    // -- common event tails -------------------------------------------------

    fn tail_uuid_sid(&mut self) {
        let u = self.uuid();
        self.w.ks("uuid", &u);
        let sid = std::mem::take(&mut self.sid);
        self.w.ks("session_id", &sid);
        self.sid = sid;
    }

    pub(crate) fn sys_begin(&mut self, subtype: &str) {
        self.w.open();
        self.w.ks("type", "system");
        self.w.ks("subtype", subtype);
    }

    pub(crate) fn sys_end(&mut self) -> io::Result<()> {
        self.tail_uuid_sid();
        self.w.close();
        self.end_line()
    }

    // -- run ------------------------------------------------------------------

    pub(crate) fn run(&mut self) -> io::Result<()> {
        self.run_as(None)
    }

    /// One run; of session `sid` when given (a resumed session: the same
    /// `session_id`, a new `init`).
    pub(crate) fn run_as(&mut self, sid: Option<String>) -> io::Result<()> {
        self.runs += 1;
        self.tick(60_000, 3_600_000);
        self.sid = match sid {
            Some(sid) => sid,
            None => self.uuid(),
        };
        let projects = [
            "cctape",
            "ledger-svc",
            "snake-game",
            "infra-tools",
            "web-app",
            "数据管道",
        ];
        let roots = [
            "/work",
            "/home/runner/work",
            "/Users/dev/src",
            "/tmp/claude-1000/scratch",
        ];
        let root = *self.rng.pick(&roots);
        let proj = *self.rng.pick(&projects);
        let r = Run {
            model: self.rng.below(MODELS.len() as u64) as usize,
            lang: *self.rng.pick(&[0, 0, 0, 0, 1, 1, 1, 2, 2, 3]),
            cwd: format!("{root}/{proj}"),
            hooks: self.rng.pm(200),
            agents: self.rng.pm(300),
            thinking_pm: if self.harness {
                1000
            } else {
                *self.rng.pick(&[0, 300, 600, 900])
            },
            thinking_display: self.rng.pm(500),
            ctx: self.rng.range(12_000, 30_000),
            start: self.now,
            ..Run::default()
        };
        self.r = r;

        let outcome = match self.rng.below(100) {
            0..=83 => Outcome::Success,
            84..=89 => Outcome::MaxTurns,
            90..=94 => Outcome::Aborted,
            _ => Outcome::ApiError,
        };
        let max_turns = *self.rng.pick(&[5u64, 8, 10, 15, 20]);
        let mut n_calls = 1 + self.rng.below(4);
        if self.rng.pm(500) {
            n_calls += self.rng.below(12);
        }
        if self.rng.pm(150) {
            n_calls += self.rng.below(30);
        }
        if outcome == Outcome::MaxTurns {
            n_calls = max_turns;
        }
        if outcome != Outcome::Success && outcome != Outcome::MaxTurns {
            n_calls += 1;
        }

        if self.r.hooks {
            self.session_hooks()?;
        }
        self.init()?;
        self.replay_prompt()?;

        let run_start = self.total_bytes();
        let mut i = 0;
        loop {
            // A run with a byte size grows call by call until it has it.
            let last = match self.run_bytes {
                Some(target) => self.total_bytes() - run_start >= target || i + 1 >= 2000,
                None => i + 1 == n_calls,
            };
            if last && outcome == Outcome::Aborted {
                self.aborted_call()?;
            } else if last && outcome == Outcome::ApiError {
                self.api_error_call()?;
            } else {
                let final_text = last && outcome == Outcome::Success;
                self.main_call(final_text)?;
            }
            i += 1;
            if last {
                break;
            }
        }
        let (n_calls, max_turns) = match (self.run_bytes, outcome) {
            (Some(_), Outcome::MaxTurns) => (i, i),
            (Some(_), _) => (i, max_turns.max(i)),
            (None, _) => (n_calls, max_turns),
        };
        let num_turns = if outcome == Outcome::MaxTurns {
            max_turns + 1
        } else {
            n_calls
        };
        self.result(outcome, num_turns, max_turns)?;
        if self.rng.pm(300) {
            self.sys_begin("task_summary");
            self.w.knull("detail");
            self.sys_end()?;
        }
        Ok(())
    }

    fn session_hooks(&mut self) -> io::Result<()> {
        let n = self.rng.range(1, 3) as usize;
        let ids: Vec<String> = (0..n).map(|_| self.uuid()).collect();
        for id in &ids {
            self.hook_started(id, "SessionStart:startup", "SessionStart")?;
        }
        for id in ids.iter().rev() {
            self.tick(5, 300);
            self.hook_response(id, "SessionStart:startup", "SessionStart")?;
        }
        Ok(())
    }

    pub(crate) fn hook_started(&mut self, id: &str, name: &str, event: &str) -> io::Result<()> {
        self.sys_begin("hook_started");
        self.w.ks("hook_id", id);
        self.w.ks("hook_name", name);
        self.w.ks("hook_event", event);
        self.sys_end()
    }

    pub(crate) fn hook_response(&mut self, id: &str, name: &str, event: &str) -> io::Result<()> {
        // Output is sometimes JSON whose string field is itself escaped text,
        // so it ends up double-escaped in the line.
        let mut out = Vec::new();
        match self.rng.below(10) {
            0..=4 => {}
            5..=6 => out.extend_from_slice(b"{}\n"),
            _ => {
                out.extend_from_slice(b"{\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"");
                out.extend_from_slice(event.as_bytes());
                out.extend_from_slice(b"\",\n    \"additionalContext\": \"");
                let ctx = self.prose(300, 6000);
                out.extend_from_slice(&ctx);
                out.extend_from_slice(b"\"\n  }\n}\n");
            }
        }
        let mut esc = Vec::with_capacity(out.len() + out.len() / 8);
        escape_into(&mut esc, &out);
        self.sys_begin("hook_response");
        self.w.ks("hook_id", id);
        self.w.ks("hook_name", name);
        self.w.ks("hook_event", event);
        self.w.kse("output", &esc);
        self.w.kse("stdout", &esc);
        self.w.ks("stderr", "");
        self.w.kn("exit_code", 0);
        self.w.ks("outcome", "success");
        self.sys_end()
    }

    fn init(&mut self) -> io::Result<()> {
        self.tick(100, 900);
        let model = MODELS[self.r.model].id;
        let cwd = self.r.cwd.clone();
        let w = &mut self.w;
        w.open();
        w.ks("type", "system");
        w.ks("subtype", "init");
        w.ks("cwd", &cwd);
        w.ks("session_id", &self.sid);
        w.k("tools");
        w.arr();
        for t in [
            "Task",
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "Read",
            "Write",
            "WebFetch",
            "WebSearch",
            "Skill",
            "TodoWrite",
            "NotebookEdit",
        ] {
            w.s(t);
        }
        w.arr_end();
        w.kraw("mcp_servers", b"[]");
        w.ks("model", model);
        w.ks("permissionMode", "auto");
        w.kraw(
            "slash_commands",
            b"[\"compact\",\"context\",\"cost\",\"init\",\"review\",\"security-review\"]",
        );
        w.kraw("terminal_slash_commands", b"[\"doctor\"]");
        w.ks(
            "apiKeySource",
            if self.rng.pm(500) {
                "none"
            } else {
                "ANTHROPIC_API_KEY"
            },
        );
        w.ks("claude_code_version", VERSION);
        w.ks("output_style", "default");
        w.k("agents");
        w.arr();
        for a in ["Explore", "general-purpose", "Plan"] {
            w.s(a);
        }
        w.arr_end();
        w.kraw("skills", b"[]");
        if self.rng.pm(300) {
            w.kraw(
                "plugins",
                b"[{\"name\":\"cc-plugin-agents-md\",\"path\":\"builtin\",\"source\":\"cc-plugin-agents-md@builtin\"}]",
            );
        } else {
            w.kraw("plugins", b"[]");
        }
        w.kraw(
            "capabilities",
            b"[\"interrupt_receipt_v1\",\"msg_lifecycle_v1\"]",
        );
        w.kb("analytics_disabled", false);
        w.kb("product_feedback_disabled", false);
        let u = uuid(&mut self.rng);
        w.ks("uuid", &u);
        w.k("memory_paths");
        w.open();
        w.ks("auto", "/tmp/claude/memory/");
        w.ks("team", "/tmp/claude/memory/team/");
        w.close();
        let sock = self.rng.range(1, 9999);
        w.ks(
            "scratchpad_path",
            &format!("/tmp/claude-1000/{}/scratchpad", self.sid),
        );
        w.ks(
            "messaging_socket_path",
            &format!("/tmp/claude-1000/cc-socks/{sock}.sock"),
        );
        w.ks("fast_mode_state", "off");
        w.ks("fast_mode_disabled_reason", "sdk_opt_in_required");
        w.kb("per_turn_effort_active", true);
        w.ks("view_mode", "default");
        w.k("startup_timing");
        w.open();
        w.k("phases");
        w.open();
        w.kn("node_boot_ms", self.rng.range(90, 400));
        w.kn("settings_load_ms", self.rng.range(2, 40));
        w.kn("tools_init_ms", self.rng.range(5, 120));
        w.close();
        w.close();
        w.close();
        self.end_line()
    }

    fn replay_prompt(&mut self) -> io::Result<()> {
        let mut text = Vec::new();
        let p = self.rng.ps(PROMPTS);
        escape_into(&mut text, p.as_bytes());
        if self.rng.pm(500) {
            text.extend_from_slice(b"\\n\\n");
            let more = self.prose(100, 2000);
            text.extend_from_slice(&more);
        }
        self.tick(1, 50);
        let ts = self.ts();
        let u = self.uuid();
        let w = &mut self.w;
        w.open();
        w.ks("type", "user");
        w.k("message");
        w.open();
        w.ks("role", "user");
        w.kse("content", &text);
        w.close();
        w.knull("parent_tool_use_id");
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
        w.kb("isReplay", true);
        w.close();
        self.end_line()
    }

    pub(crate) fn status(&mut self) -> io::Result<()> {
        self.tick(20, 400);
        self.sys_begin("status");
        self.w.ks("status", "requesting");
        self.sys_end()
    }

    pub(crate) fn api_retries(&mut self, n: u64, status: u64, error: &str) -> io::Result<()> {
        for attempt in 1..=n {
            let delay = 500.0 * (1u64 << (attempt - 1)) as f64 * (1.0 + self.rng.unit() * 0.25);
            self.tick(300, 3000);
            let w = &mut self.w;
            w.open();
            w.ks("type", "system");
            w.ks("subtype", "api_retry");
            w.kn("attempt", attempt);
            w.kn("max_retries", 10);
            if attempt % 2 == 0 {
                w.kn("retry_delay_ms", delay as u64);
            } else {
                w.kf("retry_delay_ms", delay);
            }
            w.kn("error_status", status);
            w.ks("error", error);
            w.ks("session_id", &self.sid);
            w.close();
            self.end_line()?;
        }
        Ok(())
    }

    pub(crate) fn rate_limit(&mut self) -> io::Result<()> {
        let reset = self.now / 1000 + self.rng.range(600, 18_000);
        let warn = self.rng.pm(300);
        let w = &mut self.w;
        w.open();
        w.ks("type", "rate_limit_event");
        w.k("rate_limit_info");
        w.open();
        if warn {
            w.ks("status", "allowed_warning");
            w.kn("resetsAt", reset);
            w.ks("rateLimitType", "seven_day_overage_included");
            w.kf("utilization", 0.9);
            w.kb("isUsingOverage", false);
            w.kf("surpassedThreshold", 0.75);
        } else {
            w.ks("status", "allowed");
            w.kn("resetsAt", reset);
            w.ks("rateLimitType", "five_hour");
            w.ks("overageStatus", "rejected");
            w.ks("overageDisabledReason", "org_level_disabled");
            w.kb("isUsingOverage", false);
        }
        w.close();
        self.tail_uuid_sid();
        self.w.close();
        self.end_line()
    }
}
