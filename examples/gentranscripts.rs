//! Generate `~/.claude/projects`-style trees of session transcripts, and
//! fold one with the library (to measure it beside ccusage on the same
//! tree).
//!
//! ```text
//! cargo run --release --example gentranscripts -- gen OUT [--projects 20] [--sessions 15] [--turns 40] [--seed 1]
//! cargo run --release --example gentranscripts -- fold OUT/.claude/projects [--tz UTC]
//! ```
//!
//! `gen` writes `OUT/.claude/projects/<project>/<session>.jsonl` and, for
//! about one session in three, subagents in
//! `<session>/subagents/agent-<id>.jsonl` (relayed to the parent in
//! `agent_progress` records, as Claude Code 2.1 does). The record mix is
//! taken from the shapes of the real transcripts in `../shared/realworld`:
//! a prompt with its `file-history-snapshot`, an assistant message written
//! once per content block (same `message.id` and `requestId`, output tokens
//! final only on the last block), tool results with `toolUseResult`, hook
//! and Bash `progress` records, `system/turn_duration`,
//! `system/stop_hook_summary`, now and then a `queue-operation`, a
//! compaction, an interrupt, a `summary`. The same seed gives the same
//! bytes.
//!
//! `fold` reads every `*.jsonl` under a projects folder on one thread and
//! prints the totals per session and per day as JSON (the shape of
//! `ccusage session --json` / `daily --json` rows), with the time taken on
//! stderr.

use cctape::json::Scanner;
use cctape::pricing::PriceTable;
use cctape::time::Zone;
use cctape::transcript::{TranscriptFile, TranscriptFold};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn uuid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            (b >> 48) & 0x3fff | 0x8000,
            b & 0xffff_ffff_ffff
        )
    }

    fn token(&mut self, len: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..len)
            .map(|_| A[self.below(A.len() as u64) as usize] as char)
            .collect()
    }
}

const MODELS: &[&str] = &[
    "claude-opus-4-6",
    "claude-opus-4-5-20251101",
    "claude-sonnet-4-5-20250929",
    "claude-sonnet-4-20250514",
];
const SUBAGENT_MODEL: &str = "claude-haiku-4-5-20251001";
const TOOLS: &[&str] = &["Bash", "Read", "Edit", "Grep", "Glob", "Write", "TodoWrite"];

/// A line of source code, JSON-escaped, as tool results carry them.
fn code(rng: &mut Rng, lines: usize) -> String {
    let mut s = String::new();
    for i in 0..lines {
        match rng.below(5) {
            0 => {
                let _ = write!(s, "fn f{i}(x: &str) -> Result<(), Error> {{\\n");
            }
            1 => {
                let _ = write!(s, "    let v = map.get(\\\"key_{i}\\\").unwrap_or(&0);\\n");
            }
            2 => {
                let _ = write!(s, "    // {} \\u2014 {}\\n", rng.token(12), rng.token(20));
            }
            3 => {
                let _ = write!(s, "\\tprintln!(\\\"{}\\\", {});\\n", rng.token(8), i);
            }
            _ => s.push_str("}\\n"),
        }
    }
    s
}

struct Session<'a> {
    rng: &'a mut Rng,
    id: String,
    cwd: String,
    branch: &'static str,
    slug: String,
    version: &'static str,
    out: String,
    parent: Option<String>,
    ms: i64,
    /// Set for a subagent's file.
    agent: Option<String>,
}

impl Session<'_> {
    fn common(&mut self, uuid: &str) -> String {
        let parent = match &self.parent {
            Some(p) => format!("\"{p}\""),
            None => "null".into(),
        };
        let side = self.agent.is_some();
        let agent = match &self.agent {
            Some(a) => format!(",\"agentId\":\"{a}\""),
            None => String::new(),
        };
        self.parent = Some(uuid.to_owned());
        format!(
            "\"parentUuid\":{parent},\"isSidechain\":{side},\"userType\":\"external\",\"cwd\":\"{}\",\"sessionId\":\"{}\",\"version\":\"{}\",\"gitBranch\":\"{}\"{agent},\"slug\":\"{}\"",
            self.cwd, self.id, self.version, self.branch, self.slug
        )
    }

    fn stamp(&mut self, step_ms: u64) -> String {
        self.ms += 1 + self.rng.below(step_ms) as i64;
        rfc3339(self.ms)
    }

    fn line(&mut self, s: String) {
        self.out.push_str(&s);
        self.out.push('\n');
    }

    fn prompt(&mut self) {
        let uuid = self.rng.uuid();
        let ts = self.stamp(60_000);
        if self.agent.is_none() {
            self.line(format!(
                "{{\"type\":\"file-history-snapshot\",\"messageId\":\"{uuid}\",\"snapshot\":{{\"messageId\":\"{uuid}\",\"trackedFileBackups\":{{}},\"timestamp\":\"{ts}\"}},\"isSnapshotUpdate\":false}}"
            ));
        }
        let c = self.common(&uuid);
        let text = format!(
            "Please {} the {} in src/{}.rs",
            self.rng.token(6),
            self.rng.token(10),
            self.rng.token(7)
        );
        self.line(format!(
            "{{{c},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}},\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\",\"thinkingMetadata\":{{\"maxThinkingTokens\":31999}},\"todos\":[],\"permissionMode\":\"default\"}}"
        ));
    }

    /// One API request: its blocks as records. Returns the tool calls made
    /// and the assistant record lines (for relaying).
    fn request(
        &mut self,
        model: &str,
        context: &mut u64,
        last: bool,
    ) -> (Vec<(String, &'static str)>, Vec<String>) {
        let msg = format!("msg_01{}", self.rng.token(22));
        let req = format!("req_011C{}", self.rng.token(18));
        let tools: Vec<(String, &'static str)> = if last {
            Vec::new()
        } else {
            (0..1 + self.rng.below(3))
                .map(|_| {
                    (
                        format!("toolu_01{}", self.rng.token(22)),
                        TOOLS[self.rng.below(TOOLS.len() as u64) as usize],
                    )
                })
                .collect()
        };
        let blocks = 1 + usize::from(self.rng.chance(40)) + tools.len();
        let write = 200 + self.rng.below(6000);
        let read = *context;
        *context += write + self.rng.below(500);
        let out_final = 20 + self.rng.below(1200);
        let (w5, w1) = if self.rng.chance(70) {
            (0, write)
        } else {
            (write, 0)
        };
        let mut lines = Vec::new();
        for b in 0..blocks {
            let uuid = self.rng.uuid();
            let ts = self.stamp(3_000);
            let c = self.common(&uuid);
            let is_last = b + 1 == blocks;
            let output = if is_last {
                out_final
            } else {
                1 + self.rng.below(12)
            };
            let block = if b == 0 && blocks > tools.len() + 1 {
                format!(
                    "{{\"type\":\"thinking\",\"thinking\":\"{}\",\"signature\":\"{}\"}}",
                    code(self.rng, 3),
                    self.rng.token(120)
                )
            } else if b + tools.len() >= blocks {
                let (id, name) = &tools[b + tools.len() - blocks];
                format!(
                    "{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"{name}\",\"input\":{{\"command\":\"cargo test -p {}\",\"description\":\"{}\"}}}}",
                    self.rng.token(6),
                    self.rng.token(24)
                )
            } else {
                format!("{{\"type\":\"text\",\"text\":\"{}\"}}", code(self.rng, 4))
            };
            let stop = if is_last {
                if tools.is_empty() {
                    "\"end_turn\""
                } else {
                    "\"tool_use\""
                }
            } else {
                "null"
            };
            let rec = format!(
                "{{{c},\"message\":{{\"model\":\"{model}\",\"id\":\"{msg}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{block}],\"stop_reason\":{stop},\"stop_sequence\":null,\"usage\":{{\"input_tokens\":{},\"cache_creation_input_tokens\":{write},\"cache_read_input_tokens\":{read},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{w5},\"ephemeral_1h_input_tokens\":{w1}}},\"output_tokens\":{output},\"service_tier\":\"standard\"}}}},\"requestId\":\"{req}\",\"type\":\"assistant\",\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\"}}",
                1 + self.rng.below(8)
            );
            lines.push(rec.clone());
            self.line(rec);
        }
        (tools, lines)
    }

    fn tool_results(&mut self, tools: &[(String, &'static str)]) {
        for (id, name) in tools {
            for k in 0..self.rng.below(4) {
                let uuid = self.rng.uuid();
                let ts = self.stamp(400);
                let c = self.common(&uuid);
                let data = if *name == "Bash" {
                    format!(
                        "{{\"type\":\"bash_progress\",\"output\":\"{}\",\"fullOutput\":\"\",\"elapsedTimeSeconds\":{k},\"totalLines\":{k}}}",
                        self.rng.token(30)
                    )
                } else {
                    format!(
                        "{{\"type\":\"hook_progress\",\"hookEvent\":\"PostToolUse\",\"hookName\":\"PostToolUse:{name}\",\"command\":\"callback\"}}"
                    )
                };
                self.line(format!(
                    "{{{c},\"type\":\"progress\",\"data\":{data},\"toolUseID\":\"{id}\",\"parentToolUseID\":\"{id}\",\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\"}}"
                ));
            }
            let uuid = self.rng.uuid();
            let ts = self.stamp(20_000);
            let c = self.common(&uuid);
            let error = self.rng.chance(6);
            let n = 10 + self.rng.below(60) as usize;
            let body = code(self.rng, n);
            self.line(format!(
                "{{{c},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"{id}\",\"type\":\"tool_result\",\"content\":\"{body}\",\"is_error\":{error}}}]}},\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\",\"toolUseResult\":{{\"stdout\":\"{body}\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}},\"sourceToolAssistantUUID\":\"{uuid}\"}}"
            ));
        }
    }

    fn system(&mut self, subtype: &str, extra: &str) {
        let uuid = self.rng.uuid();
        let ts = self.stamp(1_000);
        let c = self.common(&uuid);
        self.line(format!(
            "{{{c},\"type\":\"system\",\"subtype\":\"{subtype}\"{extra},\"timestamp\":\"{ts}\",\"uuid\":\"{uuid}\",\"isMeta\":false}}"
        ));
    }
}

/// RFC 3339 (UTC, milliseconds) of `ms` since the epoch.
fn rfc3339(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // Civil from days (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// What to generate (tests/ccusage.rs includes this file to make a tree).
pub struct Opts {
    /// Project folders.
    pub projects: u64,
    /// Sessions per project.
    pub sessions: u64,
    /// Prompts per session.
    pub turns: u64,
    /// The generator's seed.
    pub seed: u64,
}

/// Write `out/.claude/projects`; returns the files and bytes written.
pub fn generate(out: &Path, o: &Opts) -> std::io::Result<(u64, u64)> {
    let mut rng = Rng(o.seed);
    let root = out.join(".claude/projects");
    let (mut files, mut bytes) = (0u64, 0u64);
    // 2026-01-05 00:00 UTC, sessions spread over about 40 days.
    let start: i64 = 1_767_571_200_000;
    for p in 0..o.projects {
        let project = format!("-home-dev-src-{}-{p}", rng.token(8).to_lowercase());
        let cwd = format!("/home/dev/src/{project}");
        let dir = root.join(&project);
        std::fs::create_dir_all(&dir)?;
        for _ in 0..o.sessions {
            let id = rng.uuid();
            let model = MODELS[rng.below(MODELS.len() as u64) as usize];
            let ms = start + rng.below(40 * 86_400_000) as i64;
            let mut parent_rng = Rng(rng.next());
            let mut s = Session {
                rng: &mut parent_rng,
                id: id.clone(),
                cwd: cwd.clone(),
                branch: if rng.chance(50) { "main" } else { "feature" },
                slug: format!(
                    "{}-{}",
                    rng.token(6).to_lowercase(),
                    rng.token(6).to_lowercase()
                ),
                version: ["2.1.22", "2.1.29", "2.1.38", "2.1.39"][rng.below(4) as usize],
                out: String::new(),
                parent: None,
                ms,
                agent: None,
            };
            let turns = 1 + s.rng.below(2 * o.turns);
            let mut context = 15_000;
            let mut agents = Vec::new();
            for t in 0..turns {
                if s.rng.chance(8) {
                    let ts = s.stamp(500);
                    let line = format!(
                        "{{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"timestamp\":\"{ts}\",\"sessionId\":\"{id}\",\"content\":\"and then {}\"}}",
                        s.rng.token(10)
                    );
                    s.line(line);
                }
                s.prompt();
                let requests = 1 + s.rng.below(6);
                for r in 0..requests {
                    let last = r + 1 == requests;
                    let (tools, _) = s.request(model, &mut context, last);
                    if tools.iter().any(|(_, n)| *n == "Bash") && s.rng.chance(15) {
                        // A subagent: its own file, relayed to the parent.
                        let agent = format!("a{}", s.rng.token(6).to_lowercase());
                        let spawner = tools[0].0.clone();
                        let mut arng = Rng(s.rng.next());
                        let mut a = Session {
                            rng: &mut arng,
                            id: id.clone(),
                            cwd: cwd.clone(),
                            branch: s.branch,
                            slug: s.slug.clone(),
                            version: s.version,
                            out: String::new(),
                            parent: None,
                            ms: s.ms,
                            agent: Some(agent.clone()),
                        };
                        a.prompt();
                        let mut actx = 8_000;
                        for k in 0..2 + a.rng.below(6) {
                            let (at, relayed) = a.request(SUBAGENT_MODEL, &mut actx, k >= 4);
                            a.tool_results(&at);
                            for rec in relayed {
                                let uuid = s.rng.uuid();
                                let ts = s.stamp(200);
                                let c = s.common(&uuid);
                                let line = format!(
                                    "{{{c},\"type\":\"progress\",\"data\":{{\"message\":{{\"type\":\"assistant\",\"message\":{},\"requestId\":{},\"timestamp\":\"{ts}\",\"uuid\":\"{uuid}\"}},\"normalizedMessages\":[],\"type\":\"agent_progress\",\"prompt\":\"\",\"agentId\":\"{agent}\"}},\"toolUseID\":\"agent_msg_{}\",\"parentToolUseID\":\"{spawner}\",\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\"}}",
                                    field(&rec, "\"message\":"),
                                    field(&rec, "\"requestId\":"),
                                    s.rng.token(10)
                                );
                                s.line(line);
                            }
                        }
                        s.ms = s.ms.max(a.ms);
                        agents.push((agent, a.out));
                    }
                    s.tool_results(&tools);
                }
                if s.rng.chance(10) {
                    let uuid = s.rng.uuid();
                    let ts = s.stamp(100);
                    let c = s.common(&uuid);
                    s.line(format!("{{{c},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}}]}},\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\"}}"));
                }
                if s.rng.chance(30) {
                    s.system("stop_hook_summary", ",\"hookCount\":1,\"hookInfos\":[{\"command\":\"make lint\"}],\"hookErrors\":[],\"preventedContinuation\":false,\"stopReason\":\"\",\"hasOutput\":false,\"level\":\"suggestion\",\"toolUseID\":\"x\"");
                }
                let d = format!(",\"durationMs\":{}", 2_000 + s.rng.below(600_000));
                s.system("turn_duration", &d);
                if context > 150_000 || (t > 0 && s.rng.chance(3)) {
                    let pre = context;
                    s.system("compact_boundary", &format!(",\"content\":\"Conversation compacted\",\"level\":\"info\",\"compactMetadata\":{{\"trigger\":\"auto\",\"preTokens\":{pre}}}"));
                    context = 15_000;
                }
            }
            if s.rng.chance(20) {
                let leaf = s.parent.clone().unwrap_or_default();
                let t = s.rng.token(16);
                s.line(format!(
                    "{{\"type\":\"summary\",\"summary\":\"Fix {t}\",\"leafUuid\":\"{leaf}\"}}"
                ));
            }
            let path = dir.join(format!("{id}.jsonl"));
            bytes += s.out.len() as u64;
            std::fs::write(&path, &s.out)?;
            files += 1;
            for (agent, text) in agents {
                let sub = dir.join(&id).join("subagents");
                std::fs::create_dir_all(&sub)?;
                bytes += text.len() as u64;
                std::fs::write(sub.join(format!("agent-{agent}.jsonl")), text)?;
                files += 1;
            }
        }
    }
    Ok((files, bytes))
}

/// The JSON value after `key` in a generated record (they are ours: the
/// value ends at the matching brace or the next comma).
fn field<'a>(rec: &'a str, key: &str) -> &'a str {
    let start = rec.find(key).map_or(0, |i| i + key.len());
    let b = rec.as_bytes();
    if b.get(start) == Some(&b'{') {
        let (mut depth, mut in_str, mut esc) = (0, false, false);
        for (i, &c) in b[start..].iter().enumerate() {
            if in_str {
                match (esc, c) {
                    (true, _) => esc = false,
                    (false, b'\\') => esc = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match c {
                b'"' => in_str = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return &rec[start..start + i + 1];
                    }
                }
                _ => {}
            }
        }
    }
    let end = rec[start..]
        .find([',', '}'])
        .map_or(rec.len(), |i| start + i);
    &rec[start..end]
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

fn fold(projects: &Path, tz: &str) -> Result<(), String> {
    let zone = Zone::named(tz).map_err(|e| e.to_string())?;
    let t0 = std::time::Instant::now();
    let mut files = Vec::new();
    jsonl_files(projects, &mut files);
    files.sort();
    let mut fold = TranscriptFold::new();
    let (mut bytes, mut errors) = (0u64, 0u64);
    for f in &files {
        let data = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        bytes += data.len() as u64;
        let rel = f.strip_prefix(projects).unwrap_or(f);
        fold.read_slice(&data, &TranscriptFile::from_path(rel), |_| errors += 1);
    }
    let report = fold.finish(PriceTable::builtin(), &zone);
    let elapsed = t0.elapsed();
    let mut out = String::from("{\"session\":[");
    for (i, s) in report.sessions.iter().enumerate() {
        let t = &s.totals;
        let _ = write!(
            out,
            "{}{{\"period\":\"{}\",\"inputTokens\":{},\"outputTokens\":{},\"cacheCreationTokens\":{},\"cacheReadTokens\":{},\"totalCost\":{}}}",
            if i > 0 { "," } else { "" },
            s.session_id,
            t.input,
            t.output,
            t.cache_write(),
            t.cache_read,
            t.cost_usd
        );
    }
    out.push_str("],\"daily\":[");
    for (i, d) in report.days.iter().enumerate() {
        let t = &d.totals;
        let _ = write!(
            out,
            "{}{{\"period\":\"{}\",\"inputTokens\":{},\"outputTokens\":{},\"cacheCreationTokens\":{},\"cacheReadTokens\":{},\"totalCost\":{}}}",
            if i > 0 { "," } else { "" },
            d.day,
            t.input,
            t.output,
            t.cache_write(),
            t.cache_read,
            t.cost_usd
        );
    }
    out.push_str("]}");
    println!("{out}");
    eprintln!(
        "folded {} files, {bytes} bytes, {} records, {errors} errors in {:.3} s ({:.0} MB/s)",
        files.len(),
        report
            .sessions
            .iter()
            .map(|s| s.facts.records.iter().map(|r| r.1).sum::<u64>())
            .sum::<u64>(),
        elapsed.as_secs_f64(),
        bytes as f64 / 1e6 / elapsed.as_secs_f64()
    );
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let result = match (args.first().map(String::as_str), args.get(1)) {
        (Some("gen"), Some(out)) => {
            let o = Opts {
                projects: flag("--projects", 20),
                sessions: flag("--sessions", 15),
                turns: flag("--turns", 40),
                seed: flag("--seed", 1),
            };
            generate(Path::new(out), &o)
                .map(|(files, bytes)| eprintln!("wrote {files} files, {bytes} bytes under {out}/.claude/projects"))
                .map_err(|e| e.to_string())
        }
        (Some("scan"), Some(dir)) => {
            // Only the validating scan of every line: what the fold costs
            // beyond it is the fold's own.
            let mut files = Vec::new();
            jsonl_files(Path::new(dir), &mut files);
            let t0 = std::time::Instant::now();
            let mut scanner = Scanner::new();
            let (mut n, mut bytes) = (0u64, 0u64);
            for f in &files {
                let data = std::fs::read(f).map_err(|e| e.to_string()).unwrap_or_default();
                bytes += data.len() as u64;
                for line in cctape::framing::Lines::new(&data) {
                    n += u64::from(scanner.scan(&line).is_ok());
                }
            }
            let el = t0.elapsed().as_secs_f64();
            eprintln!("scanned {n} lines, {bytes} bytes in {el:.3} s ({:.0} MB/s)", bytes as f64 / 1e6 / el);
            Ok(())
        }
        (Some("fold"), Some(dir)) => {
            let tz = args
                .iter()
                .position(|a| a == "--tz")
                .and_then(|i| args.get(i + 1))
                .map_or("UTC", String::as_str);
            fold(Path::new(dir), tz)
        }
        _ => Err("usage: gentranscripts gen OUT [--projects N] [--sessions N] [--turns N] [--seed N]\n       gentranscripts fold PROJECTS_DIR [--tz ZONE]".into()),
    };
    if let Err(e) = result {
        eprintln!("gentranscripts: {e}");
        std::process::exit(2);
    }
}
