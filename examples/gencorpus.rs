//! Deterministic generator of synthetic Claude Code `stream-json` corpora.
//!
//! It writes whole runs of `claude -p --output-format stream-json --verbose`
//! output (one JSON object per line, LF-terminated), shaped after the field
//! reference for claude-code 2.1.288: hook events, `system/init`, the replayed
//! prompt (`isReplay`), `system/status`, one `assistant` event per content block
//! (text, thinking with an empty body and a base64 signature, `tool_use` for
//! Bash/Read/Write/Edit/Grep/Agent, blocks of one model call sharing
//! `message.id` and `usage`), `user` tool results with a per-tool
//! `tool_use_result` (some failing with `is_error` and an `"Error: ..."`
//! string), subagents (`task_started`, subagent `assistant`/`user` events with
//! `parent_tool_use_id`, `task_progress`, `task_updated`, `task_notification`,
//! an `AgentResult`), `system/api_retry`, `rate_limit_event`, `result`
//! (success, `error_max_turns`, `error_during_execution`, API-error success
//! with `is_error: true`; about one in three with `"type"` near the end) and
//! sometimes a trailing `system/task_summary`.
//!
//! Tool output looks like real source code and build/test logs: indented
//! lines, quotes, backslashes, tabs, ANSI colour escapes (`\u001b[31m`), CJK
//! text and emoji as raw UTF-8, and occasionally raw U+2028 / U+2029.
//!
//! ```text
//! cargo run --release --example gencorpus -- --profile archive|partial|recurring --bytes 1G --seed 7 [--out FILE]
//! cargo run --release --example gencorpus -- --profile harness --bytes 1170000000 --files 934 --seed 7 --out DIR
//! ```
//!
//! * `--profile archive` (default): the plain stream. Tool results dominate
//!   the bytes (about 6 KB per line on average, heavy-tailed result sizes from
//!   a few hundred bytes up to about 0.9 MB, i.e. lines of 1-2 MB).
//! * `--profile partial`: the same kind of runs as with
//!   `--include-partial-messages`: every main-agent model call is wrapped in
//!   `stream_event` lines (`message_start` with `ttft_ms`,
//!   `content_block_start`, small `content_block_delta`s whose concatenation is
//!   exactly the block, the `assistant` event before its `content_block_stop`,
//!   `message_delta`, `message_stop`) with interleaved `system/thinking_tokens`;
//!   tool results are smaller (about 620 bytes per line on average).
//! * `--profile harness`: a directory like the outputs an agent harness
//!   collects, one file per `claude -p` invocation
//!   (`DIR/batch-NN/task-NNNN.jsonl`, 50 a directory; `--files N`, default
//!   934, sizes over five octaves around the mean, adding up to about
//!   `--bytes`). Runs stream partial messages and think at length (30 to
//!   110 `system/thinking_tokens` estimates a thinking block, each with its
//!   delta; long text in small deltas; one tool a call): about 71% of lines
//!   are `stream_event` and 26% `system/thinking_tokens`, about 300 bytes a
//!   line. Mixed in as in a real harness archive: outputs of runs made in
//!   text mode (plain text under the same name, 3%), empty outputs (0.5%),
//!   a CLI error printed instead of a stream (1%), runs killed mid-line
//!   (2%), besides runs ending in `error_max_turns`, an interruption or an
//!   API error.
//! * `--profile recurring`: an appended log in which the same sessions come
//!   back far apart: runs (as in `archive`) of `--sessions N` (default 48)
//!   sessions, every session once a round in a new order each round, each
//!   run a resumption (a new `system/init`, the same `session_id`); one run
//!   in five is interleaved line by line with the next (two runs appending
//!   to one log at once). A session recurs about every N runs, megabytes
//!   apart.
//! * `--bytes N[K|M|G|T]` (binary units, default 64M): byte budget. Generation
//!   stops after the run during which the budget is reached, so the output is
//!   always made of whole runs (`harness`: the total of the files' sizes).
//! * `--seed N` (default 1): seed of the built-in splitmix64 PRNG.
//! * `--out FILE`: write to FILE instead of stdout (`harness`: the directory
//!   to write, required).
//!
//! The output is a pure function of the arguments: the same arguments give
//! byte-identical output (no clock, no hashing, no libm; only integer
//! arithmetic and IEEE `+ * /`). A one-line summary (bytes, lines, bytes per
//! line, backslashes per KB, MB/s) is printed to stderr.
//!
//! No dependencies beyond `std`.

use std::error::Error;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn Error>>;

const FLUSH_AT: usize = 8 << 20;
const VERSION: &str = "2.1.288";
const MAX_WINDOW: usize = 900_000;
const POOL_CODE_BYTES: usize = 2_000_000;

// ---------------------------------------------------------------------------
// PRNG (splitmix64)
// ---------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n >= 1`).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n.max(1))) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn urange(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as u64, hi as u64) as usize
    }
    /// True with probability `per_mille / 1000`.
    fn pm(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn ps(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len() as u64) as usize]
    }
    /// Roughly log-uniform in `lo..=hi` without libm: a random octave, then a
    /// uniform value inside it.
    fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let lo = lo.max(1);
        let mut octaves = 0u64;
        while (lo << (octaves + 1)) <= hi {
            octaves += 1;
        }
        let base = lo << self.below(octaves + 1);
        (base + self.below(base)).min(hi)
    }
}

// ---------------------------------------------------------------------------
// JSON writing
// ---------------------------------------------------------------------------

const fn esc_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[8] = b'b';
    t[12] = b'f';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
}

static ESC: [u8; 256] = esc_table();
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` JSON-escaped (without quotes). Non-ASCII UTF-8, including
/// U+2028/U+2029, is copied raw, which JSON allows.
fn escape_into(out: &mut Vec<u8>, s: &[u8]) {
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        let e = ESC[b as usize];
        if e == 0 {
            continue;
        }
        out.extend_from_slice(&s[start..i]);
        if e == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        } else {
            out.push(b'\\');
            out.push(e);
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
}

fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

/// Minimal JSON writer: commas are inserted automatically from the last byte.
#[derive(Default)]
struct W {
    b: Vec<u8>,
}

impl W {
    fn sep(&mut self) {
        match self.b.last() {
            None | Some(b'{' | b'[' | b':' | b'\n') => {}
            _ => self.b.push(b','),
        }
    }
    fn k(&mut self, key: &str) {
        self.sep();
        self.b.push(b'"');
        self.b.extend_from_slice(key.as_bytes());
        self.b.extend_from_slice(b"\":");
    }
    fn open(&mut self) {
        self.sep();
        self.b.push(b'{');
    }
    fn close(&mut self) {
        self.b.push(b'}');
    }
    fn arr(&mut self) {
        self.sep();
        self.b.push(b'[');
    }
    fn arr_end(&mut self) {
        self.b.push(b']');
    }
    fn s(&mut self, v: &str) {
        self.sep();
        self.b.push(b'"');
        escape_into(&mut self.b, v.as_bytes());
        self.b.push(b'"');
    }
    /// A string whose body is already escaped.
    fn se(&mut self, esc: &[u8]) {
        self.sep();
        self.b.push(b'"');
        self.b.extend_from_slice(esc);
        self.b.push(b'"');
    }
    fn n(&mut self, v: u64) {
        self.sep();
        push_u64(&mut self.b, v);
    }
    fn f(&mut self, v: f64) {
        self.sep();
        self.b.extend_from_slice(format!("{v}").as_bytes());
    }
    fn bool(&mut self, v: bool) {
        self.sep();
        self.b.extend_from_slice(if v { b"true" } else { b"false" });
    }
    fn null(&mut self) {
        self.sep();
        self.b.extend_from_slice(b"null");
    }
    /// An already serialized JSON value.
    fn raw(&mut self, v: &[u8]) {
        self.sep();
        self.b.extend_from_slice(v);
    }
    fn ks(&mut self, k: &str, v: &str) {
        self.k(k);
        self.s(v);
    }
    fn kse(&mut self, k: &str, v: &[u8]) {
        self.k(k);
        self.se(v);
    }
    fn kn(&mut self, k: &str, v: u64) {
        self.k(k);
        self.n(v);
    }
    fn kf(&mut self, k: &str, v: f64) {
        self.k(k);
        self.f(v);
    }
    fn kb(&mut self, k: &str, v: bool) {
        self.k(k);
        self.bool(v);
    }
    fn knull(&mut self, k: &str) {
        self.k(k);
        self.null();
    }
    fn kraw(&mut self, k: &str, v: &[u8]) {
        self.k(k);
        self.raw(v);
    }
}

// ---------------------------------------------------------------------------
// Text pools: realistic lines, stored JSON-escaped with line offsets, so that
// a tool result is a memcpy of a window of lines.
// ---------------------------------------------------------------------------

struct Pool {
    esc: Vec<u8>,
    /// Offset in `esc` of each line start, plus `esc.len()` at the end. Every
    /// line ends with the two bytes `\n`.
    starts: Vec<usize>,
    /// Lines where a file (code) or a paragraph (prose) begins.
    anchors: Vec<usize>,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            esc: Vec::new(),
            starts: vec![0],
            anchors: Vec::new(),
        }
    }
    fn anchor(&mut self) {
        self.anchors.push(self.nlines());
    }
    fn push_line(&mut self, raw: &str) {
        escape_into(&mut self.esc, raw.as_bytes());
        self.esc.extend_from_slice(b"\\n");
        self.starts.push(self.esc.len());
    }
    fn nlines(&self) -> usize {
        self.starts.len() - 1
    }
    /// Escaped lines `a..b`, each with its trailing `\n`.
    fn span(&self, a: usize, b: usize) -> &[u8] {
        &self.esc[self.starts[a]..self.starts[b]]
    }
    /// Escaped line `i` without its trailing `\n`.
    fn line(&self, i: usize) -> &[u8] {
        &self.esc[self.starts[i]..self.starts[i + 1] - 2]
    }
    /// A window of whole lines of about `target` escaped bytes.
    fn pick(&self, rng: &mut Rng, target: usize) -> (usize, usize) {
        let total = self.esc.len();
        let target = target.clamp(1, total * 9 / 10);
        let last_start = self.starts.partition_point(|&s| s + target <= total);
        let a = rng.below(last_start.max(1) as u64) as usize;
        let want = self.starts[a] + target;
        let b = self.starts.partition_point(|&s| s < want);
        (a, b.clamp(a + 1, self.nlines()))
    }
    /// Like `pick`, but the window starts at an anchor (file or paragraph
    /// start) when one leaves room for `target` bytes.
    fn pick_anchored(&self, rng: &mut Rng, target: usize) -> (usize, usize) {
        let total = self.esc.len();
        let target = target.clamp(1, total * 9 / 10);
        let fit = self
            .anchors
            .partition_point(|&l| self.starts[l] + target <= total);
        if fit == 0 {
            return self.pick(rng, target);
        }
        let a = self.anchors[rng.below(fit as u64) as usize];
        let want = self.starts[a] + target;
        let b = self.starts.partition_point(|&s| s < want);
        (a, b.clamp(a + 1, self.nlines()))
    }
}

fn trim_nl(s: &[u8]) -> &[u8] {
    s.strip_suffix(b"\\n").unwrap_or(s)
}

const WORDS: &[&str] = &[
    "buffer", "config", "parser", "token", "offset", "state", "event", "session", "reader",
    "writer", "index", "cursor", "payload", "record", "entry", "line", "span", "error", "result",
    "count", "limit", "handler", "request", "response", "client", "server", "cache", "queue",
    "worker", "stream", "frame", "chunk", "header", "value", "node", "tree", "path", "file",
    "range", "width", "schema", "user", "item", "batch", "metrics", "retry", "timeout", "usage",
    "model", "tool", "input", "output", "delta", "block", "message", "task", "agent", "hook",
];

const PHRASE_WORDS: &[&str] = &[
    "invalid",
    "header",
    "stream",
    "token",
    "missing",
    "field",
    "unexpected",
    "end",
    "of",
    "input",
    "retry",
    "limit",
    "session",
    "timeout",
    "cache",
    "miss",
    "line",
    "buffer",
    "overflow",
    "parse",
    "error",
    "escape",
    "sequence",
    "unicode",
    "value",
    "key",
    "empty",
    "batch",
    "request",
    "failed",
    "connection",
    "closed",
    "the",
    "a",
    "for",
    "with",
    "when",
];

const TYPES: &[&str] = &[
    "Parser",
    "Event",
    "Session",
    "Config",
    "LineReader",
    "Token",
    "Span",
    "ErrorKind",
    "StreamEvent",
    "Usage",
    "ToolCall",
    "Record",
    "Frame",
    "Cursor",
    "Buffer",
    "Message",
    "Request",
    "Response",
    "Handler",
    "State",
    "Summary",
    "TaskInfo",
    "HookResult",
    "Arena",
];

const CJK: &[&str] = &[
    "处理边界情况：空行与超长行",
    "这个函数负责解析每一行事件。",
    "测试全部通过，没有发现回归。",
    "需要注意字符串里的转义序列。",
    "修复了边界条件下的越界读取问题。",
    "日志中出现了重试，但最终请求成功。",
    "我已经检查了配置文件，并更新了依赖版本。",
    "ファイルを読み込みました。変更はありません。",
    "변경 사항을 적용했습니다.",
    "缓存命中率下降，需要进一步调查。",
];

const EMOJI: &[&str] = &["🚧", "✅", "⚠️", "🚀", "🐛", "🔥", "📦", "✨", "❌", "🦀"];

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Snake,
    Camel,
}

struct LangSpec {
    ext: &'static str,
    dir: &'static str,
    indent: &'static str,
    style: Style,
    header: &'static [&'static str],
    stmts: &'static [&'static str],
    opens: &'static [(&'static str, &'static str)],
}

const LANGS: [LangSpec; 4] = [
    LangSpec {
        ext: "rs",
        dir: "src",
        indent: "    ",
        style: Style::Snake,
        header: &[
            r#"use std::collections::{BTreeMap, HashMap};"#,
            r#"use std::io::{self, BufRead, Write};"#,
            r#"use crate::$i::{$T, $T};"#,
            r#"//! $c"#,
            r#"#![allow(dead_code)]"#,
        ],
        stmts: &[
            r#"let $i = $j.$i($n);"#,
            r#"let mut $i: Vec<$T> = Vec::with_capacity($n);"#,
            r#"$i.push_str("$s\n");"#,
            r#"return Err(Error::new(ErrorKind::$T, format!("invalid $s: {}", $i)));"#,
            r#"println!("{:>8}\t{}", $i, $j);"#,
            r#"let re = Regex::new(r"^\s*(\d+)\s+$s$")?;"#,
            r#"assert_eq!($i.len(), $n, "$s");"#,
            r#"self.$i += $j.len() as u64;"#,
            r#"$i.insert("$s".to_string(), $n);"#,
            r#"let path = PathBuf::from("C:\\Users\\dev\\$f");"#,
            r#"// $c"#,
            r#"/// $c"#,
            r#"debug!("$s: {:?}", $i);"#,
            r#"let Some($i) = $j.get($n) else { return Ok(None) };"#,
            r#"if $i.is_empty() { continue; }"#,
            r#"let $i: u64 = $j.iter().map(|x| x.$i).sum();"#,
            r#"out.write_all(b"{\"type\":\"$s\"}\n")?;"#,
            r#"$T::$T => $n,"#,
            r#"let $i = &$j[$n..];"#,
            r#"Ok(Some($T { $i, $j: $n }))"#,
            r#"const $U: &str = "$s";"#,
            r#"tracing::info!(target: "$i", "$s {}", $j);"#,
            r#"let $i = self.$j.len().saturating_sub($n) + $j.offset as usize;"#,
            r#"self.$i = $j.iter().filter(|x| x.$i > $n).cloned().collect();"#,
            r#"let $i = $T::new(&mut self.$j, $n)?.with_$i($j.clone());"#,
            r#"$i.extend_from_slice(&$j[$n..$j.len() - 1]);"#,
            r#"// $c"#,
            r#"// $c"#,
            r#"let ($i, $j) = ($T::default(), self.$i.take().unwrap_or_default());"#,
            r#"total += $i.len() as u64 * $n;"#,
            r#"self.$i.entry($j.id).or_default().push($j);"#,
        ],
        opens: &[
            (
                r#"pub fn $i(&mut self, $j: &[u8]) -> Result<$T, Error> {"#,
                "}",
            ),
            (r#"fn $i<'a>($j: &'a str) -> Option<&'a str> {"#, "}"),
            (r#"impl $T {"#, "}"),
            (r#"for ($i, $j) in self.$i.iter().enumerate() {"#, "}"),
            (r#"if $i.len() > $n {"#, "}"),
            (r#"match $i.kind() {"#, "}"),
            (r#"while let Some($i) = $j.next() {"#, "}"),
            (r#"#[derive(Debug, Clone, PartialEq)] pub struct $T {"#, "}"),
            (r#"let $i = $j.iter().filter(|x| {"#, "}).count();"),
            (r#"mod tests {"#, "}"),
        ],
    },
    LangSpec {
        ext: "ts",
        dir: "src/lib",
        indent: "  ",
        style: Style::Camel,
        header: &[
            r#"import { $T, $T } from "./$i";"#,
            r#"import * as $i from "node:$i";"#,
            r#"// $c"#,
            r#"'use strict';"#,
        ],
        stmts: &[
            r#"const $i = await $j.$i($n);"#,
            r#"console.log(`$s: ${$i}\t${$j}`);"#,
            r#"throw new Error("$s: " + JSON.stringify($i));"#,
            r#"$i.push({ id: $n, name: "$s" });"#,
            r#"return $i.filter((x) => x.$j > $n);"#,
            r#"const re = /^\s*(\d+)\.$s\\n$/u;"#,
            r#"// $c"#,
            r#"expect($i).toBe($n);"#,
            r#"let $i: $T | null = null;"#,
            r#"el.textContent = '$s';"#,
            r#"const $i = JSON.parse("{\"$j\":$n}");"#,
            r#"const path = "C:\\Users\\dev\\$f";"#,
            r#"$i.set("$s", { ...$j, $i: $n });"#,
            r#"if (!$i) return;"#,
            r#"const $i = $j.map((item) => item.$i ?? $n).reduce((a, b) => a + b, 0);"#,
            r#"this.$i = new Map<$T, $T>();"#,
            r#"return { ...$i, $j: $j.length + $n };"#,
            r#"// $c"#,
            r#"// $c"#,
            r#"await this.$i.flush({ timeoutMs: $n });"#,
            r#"const [$i, $j] = await Promise.all([load$T(), fetch$T($n)]);"#,
            r#"const $i = Math.max($j.length - $n, 0) * this.$i.size;"#,
            r#"this.$i.delete($j.id);"#,
            r#"export type $T = { $i: number; $j: $T[] };"#,
        ],
        opens: &[
            (r#"export function $i($j: $T): $T {"#, "}"),
            (r#"if ($i.length > $n) {"#, "}"),
            (r#"for (const $i of $j) {"#, "}"),
            (r#"describe("$s", () => {"#, "});"),
            (r#"it("$s", async () => {"#, "});"),
            (r#"export class $T {"#, "}"),
            (r#"try {"#, "}"),
            (r#"const $i = ($j: $T) => {"#, "};"),
        ],
    },
    LangSpec {
        ext: "py",
        dir: "app",
        indent: "    ",
        style: Style::Snake,
        header: &[
            r#"import os"#,
            r#"import re"#,
            r#"from $i import $T, $T"#,
            r#"# $c"#,
            r#"from __future__ import annotations"#,
        ],
        stmts: &[
            r#"$i = $j.$i($n)"#,
            r#"print(f"$s: {$i}\t{$j}")"#,
            r#"raise ValueError("$s: %r" % ($i,))"#,
            r#"$i.append({"id": $n, "name": "$s"})"#,
            r#"return [x for x in $i if x.$j > $n]"#,
            r#"pattern = re.compile(r"^\s*(\d+)\s+$s$")"#,
            r#"# $c"#,
            r#"assert $i == $n, "$s""#,
            r#"path = "C:\\Users\\dev\\$f""#,
            r#"self.$i = $j or {}"#,
            r#""""$c""""#,
            r#"logger.info("%s\t%d", $i, $n)"#,
            r#"self.$i = [x.$j for x in $i if x is not None]"#,
            r#"$i, $j = $j.split(maxsplit=$n)"#,
            r#"total += len($i) * $n"#,
            r#"# $c"#,
            r#"# $c"#,
            r#"return self.$i.get($j, default=None) or $T($n)"#,
            r#"$i = sorted($j, key=lambda x: x.$i)[:$n]"#,
            r#"self.$i.extend(x for x in $j if x.$i >= $n)"#,
            r#"yield from self.$i($j, limit=$n)"#,
        ],
        opens: &[
            (r#"def $i(self, $j, *args, **kwargs):"#, ""),
            (r#"class $T($T):"#, ""),
            (r#"for $i in $j:"#, ""),
            (r#"if $i is None:"#, ""),
            (r#"with open("$f", "r", encoding="utf-8") as fh:"#, ""),
            (r#"try:"#, ""),
            (r#"async def $i($j: $T) -> $T:"#, ""),
        ],
    },
    LangSpec {
        ext: "go",
        dir: "internal/core",
        indent: "\t",
        style: Style::Camel,
        header: &[r#"package $i"#, r#"import "fmt""#, r#"// $c"#],
        stmts: &[
            r#"$i := $j.$T($n)"#,
            r#"fmt.Printf("%s\t%d\n", $i, $n)"#,
            r#"return nil, fmt.Errorf("$s: %w", err)"#,
            r#"// $c"#,
            r#"$i = append($i, $T{Name: "$s", ID: $n})"#,
            r#"log.Printf("$s: %v", $i)"#,
            r#"$i, err := json.Marshal(map[string]any{"$j": $n})"#,
            r#"b.WriteString("\"$s\"\n")"#,
            r#"defer $i.Close()"#,
            r#"$i := make([]$T, 0, $n)"#,
            r#"// $c"#,
            r#"total += len($i) * $n"#,
            r#"$i.$T = $j.$T + $n"#,
            r#"$i, $j := $T($n), len($j.$T)"#,
            r#"// $c"#,
            r#"return $i.$T($j, $n)"#,
        ],
        opens: &[
            (r#"func ($i *$T) $T($j string) (*$T, error) {"#, "}"),
            (r#"for _, $i := range $j {"#, "}"),
            (r#"if err != nil {"#, "}"),
            (r#"switch $i {"#, "}"),
            (r#"type $T struct {"#, "}"),
            (r#"func Test$T(t *testing.T) {"#, "}"),
        ],
    },
];

const LOG_LINES: &[&str] = &[
    r#"$E1m$E32m   Compiling$E0m $i v0.$n.$n (/work/$i)"#,
    r#"test $i::tests::$j ... $E32mok$E0m"#,
    r#"test $i::tests::$j ... $E32mok$E0m"#,
    r#"test $i::tests::$j ... $E31mFAILED$E0m"#,
    r#"$E33mwarning$E0m$E1m: unused variable: `$i`$E0m"#,
    r#"   $E1m$E34m-->$E0m src/$f:$n:$n"#,
    r#"$E1m$E34m$n$E0m $E1m$E34m|$E0m     let $i = $j.$i();"#,
    r#" $E32m✓$E39m src/__tests__/$i.test.ts $E2m($E22m$E2m$n tests$E22m$E2m)$E22m$E33m $nms$E39m"#,
    r#" $E31m×$E39m $s $E33m$nms$E39m"#,
    r#"tests/test_$i.py::test_$j PASSED                                  [ $n%]"#,
    r#"2026-10-03T15:29:17.$nZ  INFO $i::$j: processed $n records in $nms"#,
    r#"2026-10-03T15:29:17.$nZ $E31mERROR$E0m $i: connection reset by peer (os error 104)"#,
    r#"[信息] 已处理 $n 条记录，耗时 $n 毫秒"#,
    r#"🚀 Deploying $i to production… ✅ done in $ns"#,
    r#"⚠️  $s is deprecated, use $j instead"#,
    r#"npm $E33mWARN$E39m deprecated $i@$n.$n.$n: $s"#,
    r#"    at $T.$i (/work/app/src/$f:$n:$n)"#,
    r#"error[E0308]: mismatched types"#,
    r#"Traceback (most recent call last):"#,
    r#"  File "/work/app/$f", line $n, in $i"#,
    r#"C:\Users\runner\work\$i\src\$f($n,$n): error TS2345: Argument of type 'string' is not assignable to parameter of type '$T'."#,
    r#"{"level":"info","ts":"2026-10-03T15:29:17Z","msg":"$s","count":$n,"path":"/var/log/$f"}"#,
    r#"    Finished `release` profile [optimized] target(s) in $n.$ns"#,
    r#"     Running unittests src/lib.rs (target/release/deps/$i-$h)"#,
    r#"test result: $E32mok$E0m. $n passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.$ns"#,
    r#"drwxr-xr-x  5 dev dev   4096 Oct  3 15:29 $i"#,
    r#"-rw-r--r--  1 dev dev  $n Oct  3 15:29 $f"#,
    r#" M src/$f"#,
    r#"diff --git a/src/$f b/src/$f"#,
    r#"@@ -$n,7 +$n,8 @@ impl $T {"#,
    r#"+    let $i = $j.$i($n);"#,
    r#"-    $i.push_str("$s\n");"#,
    r#"$E2m[$n/$n]$E22m $E36m$s$E39m"#,
    r#"Downloading $i-$n.$n.$n.tar.gz  $n% [=====>      ] $nKB/s$R"#,
    r#"	$i	$n	$s"#,
    r#"[2026-10-03 15:29:17,$n] INFO $i.$j: request completed status=200 duration_ms=$n"#,
    r#"[2026-10-03 15:29:17,$n] WARN $i.$j: slow query took $nms (threshold $nms)"#,
    r#"running $n tests"#,
    r#"test $i::tests::$j ... ok"#,
    r#"test $i::tests::$j ... ok"#,
    r#"   Compiling $i v0.$n.$n"#,
    r#"    Checking $i v$n.$n.$n"#,
    r#"$i/$f: $n lines, $n words"#,
    r#"  $i: $n (+$n) $s"#,
    r#"level=info msg=$i count=$n elapsed=$nms"#,
    r#"PASS src/$i.test.ts ($n.$n s)"#,
    r#"ok  	github.com/acme/$i/internal/$j	0.$ns"#,
];

const SENTENCES: &[&str] = &[
    "The `$i` function in `$f` now returns early when $s.",
    "I updated `$T::$i` so that it no longer allocates for every $j.",
    "All $n tests pass, including the new regression test for $s.",
    "The failure came from an off-by-one in the `$i` loop: the last $j was never flushed.",
    "Next, I'll check how `$j` is handled when the input is empty.",
    "This keeps the public API unchanged while fixing $s.",
    "Note that `$i` is called from $n places, so the change is covered by the existing tests.",
    "Let me look at `$f` to see where `$i` is defined.",
    "The build prints a warning about `$i`, which is unrelated to this change.",
    "I replaced the manual loop with `$j.iter().map(...)`, which also handles \"$s\" correctly.",
    "Running the suite again shows $n passed and 0 failed.",
];

/// Expands a template: `$i`/`$j` identifiers, `$T` type, `$U` constant,
/// `$n` number, `$s` phrase, `$c` comment, `$f` file name, `$h` hex,
/// `$E` ESC + `[`, `$R` carriage return. Any other `$` is literal.
fn expand(rng: &mut Rng, tpl: &str, style: Style, ext: &str, out: &mut String) {
    let mut chars = tpl.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('i' | 'j') => {
                chars.next();
                ident(rng, style, out);
            }
            Some('T') => {
                chars.next();
                out.push_str(rng.ps(TYPES));
            }
            Some('U') => {
                chars.next();
                out.push_str(&rng.ps(WORDS).to_ascii_uppercase());
                out.push('_');
                out.push_str(&rng.ps(WORDS).to_ascii_uppercase());
            }
            Some('n') => {
                chars.next();
                let v = if rng.pm(600) {
                    rng.below(100)
                } else {
                    rng.below(10_000)
                };
                out.push_str(&v.to_string());
            }
            Some('s') => {
                chars.next();
                phrase(rng, out);
            }
            Some('c') => {
                chars.next();
                comment(rng, out);
            }
            Some('f') => {
                chars.next();
                out.push_str(rng.ps(WORDS));
                out.push('_');
                out.push_str(rng.ps(WORDS));
                out.push('.');
                out.push_str(ext);
            }
            Some('h') => {
                chars.next();
                let v = rng.next();
                for k in 0..16 {
                    out.push(HEX[((v >> (k * 4)) & 15) as usize] as char);
                }
            }
            Some('E') => {
                chars.next();
                out.push_str("\u{1b}[");
            }
            Some('R') => {
                chars.next();
                out.push('\r');
            }
            _ => out.push('$'),
        }
    }
}

fn ident(rng: &mut Rng, style: Style, out: &mut String) {
    let a = rng.ps(WORDS);
    out.push_str(a);
    if rng.pm(500) {
        let b = rng.ps(WORDS);
        match style {
            Style::Snake => {
                out.push('_');
                out.push_str(b);
            }
            Style::Camel => {
                let mut cs = b.chars();
                if let Some(f) = cs.next() {
                    out.push(f.to_ascii_uppercase());
                    out.push_str(cs.as_str());
                }
            }
        }
    }
}

fn phrase(rng: &mut Rng, out: &mut String) {
    if rng.pm(20) {
        out.push_str(rng.ps(CJK));
        return;
    }
    let n = rng.range(2, 5);
    for k in 0..n {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(rng.ps(PHRASE_WORDS));
    }
}

fn comment(rng: &mut Rng, out: &mut String) {
    let r = rng.below(1000);
    if r < 40 {
        out.push_str(rng.ps(CJK));
        return;
    }
    if r < 60 {
        out.push_str("TODO ");
        out.push_str(rng.ps(EMOJI));
        out.push(' ');
    }
    let n = rng.range(4, 11);
    for k in 0..n {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(rng.ps(PHRASE_WORDS));
    }
    if r >= 995 {
        // Raw line / paragraph separators: legal inside JSON strings.
        out.push(if r & 1 == 0 { '\u{2028}' } else { '\u{2029}' });
        out.push_str(" see above");
    }
}

fn build_code(rng: &mut Rng, spec: &LangSpec, target: usize) -> Pool {
    let mut p = Pool::new();
    let mut line = String::new();
    while p.esc.len() < target {
        p.anchor();
        for _ in 0..rng.range(2, 6) {
            line.clear();
            let tpl = rng.ps(spec.header);
            expand(rng, tpl, spec.style, spec.ext, &mut line);
            p.push_line(&line);
        }
        p.push_line("");
        let mut stack: Vec<&str> = Vec::new();
        for _ in 0..rng.range(40, 400) {
            let depth = stack.len();
            let r = rng.below(100);
            line.clear();
            if depth == 0 || (r < 12 && depth < 6) {
                let (open, close) = *rng.pick(spec.opens);
                push_indent(&mut line, spec.indent, depth);
                expand(rng, open, spec.style, spec.ext, &mut line);
                p.push_line(&line);
                stack.push(close);
            } else if r < 26 {
                if let Some(close) = stack.pop() {
                    if !close.is_empty() {
                        push_indent(&mut line, spec.indent, depth - 1);
                        line.push_str(close);
                        p.push_line(&line);
                    }
                    if depth == 1 {
                        p.push_line("");
                    }
                }
            } else if r < 29 {
                p.push_line("");
            } else {
                push_indent(&mut line, spec.indent, depth);
                let tpl = rng.ps(spec.stmts);
                expand(rng, tpl, spec.style, spec.ext, &mut line);
                p.push_line(&line);
            }
        }
        while let Some(close) = stack.pop() {
            if !close.is_empty() {
                line.clear();
                push_indent(&mut line, spec.indent, stack.len());
                line.push_str(close);
                p.push_line(&line);
            }
        }
        p.push_line("");
    }
    p
}

fn push_indent(line: &mut String, indent: &str, depth: usize) {
    for _ in 0..depth {
        line.push_str(indent);
    }
}

fn build_logs(rng: &mut Rng, target: usize) -> Pool {
    let mut p = Pool::new();
    let mut line = String::new();
    while p.esc.len() < target {
        line.clear();
        let ext = *rng.pick(&["rs", "ts", "py"]);
        let tpl = rng.ps(LOG_LINES);
        expand(rng, tpl, Style::Snake, ext, &mut line);
        p.push_line(&line);
    }
    p
}

fn build_prose(rng: &mut Rng, target: usize) -> Pool {
    let mut p = Pool::new();
    let mut line = String::new();
    while p.esc.len() < target {
        line.clear();
        p.anchor();
        match rng.below(100) {
            0..=7 => {
                line.push_str(if rng.pm(500) { "## " } else { "### " });
                line.push_str(rng.ps(TYPES));
                line.push(' ');
                phrase(rng, &mut line);
                p.push_line(&line);
                p.push_line("");
            }
            8..=27 => {
                line.push_str("- **");
                line.push_str(rng.ps(TYPES));
                line.push_str(":** ");
                let tpl = rng.ps(SENTENCES);
                expand(rng, tpl, Style::Snake, "rs", &mut line);
                if rng.pm(80) {
                    line.push(' ');
                    line.push_str(rng.ps(EMOJI));
                }
                p.push_line(&line);
            }
            28..=33 => {
                let spec = &LANGS[rng.below(4) as usize];
                line.push_str("```");
                line.push_str(match spec.ext {
                    "rs" => "rust",
                    "ts" => "typescript",
                    "py" => "python",
                    _ => "go",
                });
                p.push_line(&line);
                for _ in 0..rng.range(2, 10) {
                    line.clear();
                    push_indent(&mut line, spec.indent, rng.below(3) as usize);
                    let tpl = rng.ps(spec.stmts);
                    expand(rng, tpl, spec.style, spec.ext, &mut line);
                    p.push_line(&line);
                }
                p.push_line("```");
            }
            34..=38 => {
                line.push_str("| `");
                expand(rng, "$f` | $n | $s |", Style::Snake, "rs", &mut line);
                p.push_line(&line);
            }
            39..=44 => {
                for _ in 0..rng.range(1, 3) {
                    line.push_str(rng.ps(CJK));
                }
                p.push_line(&line);
                p.push_line("");
            }
            _ => {
                for k in 0..rng.range(1, 4) {
                    if k > 0 {
                        line.push(' ');
                    }
                    let tpl = rng.ps(SENTENCES);
                    expand(rng, tpl, Style::Snake, "rs", &mut line);
                }
                if rng.pm(15) {
                    line.push('\u{2028}');
                    line.push_str("(continued)");
                }
                p.push_line(&line);
                p.push_line("");
            }
        }
    }
    p
}

const POOL_LOGS: usize = 4;
const POOL_PROSE: usize = 5;

struct Pools {
    all: Vec<Pool>,
}

impl Pools {
    fn build(seed: u64, partial: bool) -> Pools {
        let mut rng = Rng(seed ^ 0x005E_ED0F_C0DE);
        let code = if partial { 300_000 } else { POOL_CODE_BYTES };
        let mut all = Vec::new();
        for spec in &LANGS {
            all.push(build_code(&mut rng, spec, code));
        }
        all.push(build_logs(&mut rng, code));
        all.push(build_prose(&mut rng, 600_000));
        Pools { all }
    }
}

#[derive(Clone, Copy)]
struct Src {
    pool: usize,
    a: usize,
    b: usize,
}

// ---------------------------------------------------------------------------
// Models, usage, costs
// ---------------------------------------------------------------------------

struct Model {
    id: &'static str,
    canonical: &'static str,
    context: u64,
    max_out: u64,
    /// USD per million tokens: input, output, cache read, cache write.
    price: [f64; 4],
}

const MODELS: &[Model] = &[
    Model {
        id: "claude-sonnet-5-5",
        canonical: "claude-sonnet-5-5",
        context: 1_000_000,
        max_out: 128_000,
        price: [3.0, 15.0, 0.3, 6.0],
    },
    Model {
        id: "claude-opus-5",
        canonical: "claude-opus-5",
        context: 1_000_000,
        max_out: 64_000,
        price: [5.0, 25.0, 0.5, 10.0],
    },
    Model {
        id: "claude-fable-5",
        canonical: "claude-fable-5",
        context: 1_000_000,
        max_out: 64_000,
        price: [10.0, 50.0, 1.0, 20.0],
    },
    Model {
        id: "claude-sonnet-4-6",
        canonical: "claude-sonnet-4-6",
        context: 200_000,
        max_out: 64_000,
        price: [3.0, 15.0, 0.3, 3.75],
    },
];

const HAIKU: Model = Model {
    id: "claude-haiku-4-5-20251001",
    canonical: "claude-haiku-4-5",
    context: 200_000,
    max_out: 32_000,
    price: [1.0, 5.0, 0.1, 2.0],
};

#[derive(Clone, Copy, Default)]
struct Usage {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_create: u64,
    thinking: u64,
}

impl Usage {
    fn add(&mut self, o: &Usage) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_create += o.cache_create;
        self.thinking += o.thinking;
    }
    fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_create
    }
    fn cost(&self, m: &Model) -> f64 {
        (self.input as f64 * m.price[0]
            + self.output as f64 * m.price[1]
            + self.cache_read as f64 * m.price[2]
            + self.cache_create as f64 * m.price[3])
            / 1_000_000.0
    }
}

fn w_cache_creation(w: &mut W, u: &Usage) {
    w.k("cache_creation");
    w.open();
    w.kn("ephemeral_5m_input_tokens", 0);
    w.kn("ephemeral_1h_input_tokens", u.cache_create);
    w.close();
}

/// `assistant.message.usage` and `message_start` usage.
fn w_usage_msg(w: &mut W, u: &Usage, output: u64) {
    w.open();
    w.kn("input_tokens", u.input);
    w.kn("cache_creation_input_tokens", u.cache_create);
    w.kn("cache_read_input_tokens", u.cache_read);
    w_cache_creation(w, u);
    w.kn("output_tokens", output);
    w.ks("service_tier", "standard");
    w.ks("inference_geo", "not_available");
    w.close();
}

fn w_iteration(w: &mut W, u: &Usage) {
    w.open();
    w.kn("input_tokens", u.input);
    w.kn("output_tokens", u.output);
    w.kn("cache_read_input_tokens", u.cache_read);
    w.kn("cache_creation_input_tokens", u.cache_create);
    w_cache_creation(w, u);
    w.ks("type", "message");
    w.close();
}

/// Usage with `server_tool_use` etc. as on `result` and `AgentResult`.
fn w_usage_full(w: &mut W, u: &Usage, last: Option<&Usage>) {
    w.open();
    w.kn("input_tokens", u.input);
    w.kn("cache_creation_input_tokens", u.cache_create);
    w.kn("cache_read_input_tokens", u.cache_read);
    w.kn("output_tokens", u.output);
    w.k("output_tokens_details");
    w.open();
    w.kn("thinking_tokens", u.thinking);
    w.close();
    w.k("server_tool_use");
    w.open();
    w.kn("web_search_requests", 0);
    w.kn("web_fetch_requests", 0);
    w.close();
    w.ks("service_tier", "standard");
    w.k("cache_creation");
    w.open();
    w.kn("ephemeral_1h_input_tokens", u.cache_create);
    w.kn("ephemeral_5m_input_tokens", 0);
    w.close();
    w.ks("inference_geo", "not_available");
    w.k("iterations");
    w.arr();
    if let Some(l) = last {
        w_iteration(w, l);
    }
    w.arr_end();
    w.ks("speed", "standard");
    w.knull("fallback_credit");
    w.close();
}

fn w_model_usage(w: &mut W, m: &Model, u: &Usage, cost: f64) {
    w.k(m.id);
    w.open();
    w.kn("inputTokens", u.input);
    w.kn("outputTokens", u.output);
    w.kn("cacheReadInputTokens", u.cache_read);
    w.kn("cacheCreationInputTokens", u.cache_create);
    w.kn("webSearchRequests", 0);
    w.kf("costUSD", cost);
    w.kn("contextWindow", m.context);
    w.kn("maxOutputTokens", m.max_out);
    w.kn("thinkingTokens", u.thinking);
    w.ks("canonicalModel", m.canonical);
    w.ks("provider", "firstParty");
    w.ks("costBasis", "list");
    w.close();
}

// ---------------------------------------------------------------------------
// Ids and time
// ---------------------------------------------------------------------------

const B58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn uuid(rng: &mut Rng) -> String {
    let hi = rng.next();
    let lo = rng.next();
    let hi = (hi & !0xF000) | 0x4000;
    let lo = (lo & !(0xC000u64 << 48)) | (0x8000u64 << 48);
    let mut s = String::with_capacity(36);
    for (i, k) in (0..16).rev().enumerate() {
        if i == 8 || i == 12 {
            s.push('-');
        }
        s.push(HEX[((hi >> (k * 4)) & 15) as usize] as char);
    }
    for (i, k) in (0..16).rev().enumerate() {
        if i == 0 || i == 4 {
            s.push('-');
        }
        s.push(HEX[((lo >> (k * 4)) & 15) as usize] as char);
    }
    s
}

fn b58_id(rng: &mut Rng, prefix: &str, n: usize) -> String {
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    for _ in 0..n {
        s.push(B58[rng.below(B58.len() as u64) as usize] as char);
    }
    s
}

fn agent_id(rng: &mut Rng) -> String {
    let v = rng.next();
    let mut s = String::from("a");
    for k in 0..16 {
        s.push(HEX[((v >> (k * 4)) & 15) as usize] as char);
    }
    s
}

fn signature(rng: &mut Rng) -> String {
    let n = rng.range(60, 300) * 4;
    let mut s = String::from("Eq");
    for _ in 2..n - 2 {
        s.push(B64[rng.below(64) as usize] as char);
    }
    s.push_str("==");
    s
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the Unix epoch.
fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        ms % 1000
    )
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

enum Kind {
    Bash {
        out: Src,
        err: Option<Src>,
        exit: u64,
    },
    Read {
        path: String,
        src: Src,
        start: usize,
        total: usize,
        missing: bool,
    },
    Write {
        path: String,
        src: Src,
        hunks: bool,
    },
    Edit {
        path: String,
        orig: Src,
        at: usize,
        old_n: usize,
        new: Src,
        fail: bool,
    },
    Grep {
        src: Src,
        files: bool,
        path: String,
    },
    Agent {
        sub_type: &'static str,
        desc: String,
        prompt: Src,
    },
}

struct ToolCall {
    id: String,
    name: &'static str,
    /// Serialized JSON object, used verbatim for `input`, `wire_tool_inputs`
    /// and (split) for `input_json_delta`.
    input: Vec<u8>,
    kind: Kind,
}

const BASH_CMDS: &[(&str, &str)] = &[
    (
        "cargo test --release 2>&1 | tail -120",
        "Run the test suite",
    ),
    ("cargo build --release 2>&1", "Build in release mode"),
    ("npm run test -- --run", "Run vitest"),
    ("python3 -m pytest -x -q tests/", "Run pytest"),
    (
        "git status --short && git diff --stat",
        "Show working tree status",
    ),
    ("ls -la src/", "List source files"),
    (
        "grep -rn \"TODO\\|FIXME\" src/ | head -50",
        "Find TODO markers",
    ),
    (
        "cat > /tmp/probe.json <<'EOF'\n{\"type\": \"probe\", \"n\": 1}\nEOF\njq . /tmp/probe.json",
        "Write and check a probe file",
    ),
    (
        "journalctl -u app --since \"10 min ago\" --no-pager | tail -200",
        "Show recent service logs",
    ),
    (
        "for f in src/*.rs; do wc -l \"$f\"; done",
        "Count lines per file",
    ),
    (
        "printf '%s\\t%s\\n' \"$(date -u +%FT%TZ)\" ok",
        "Print a timestamp",
    ),
    (
        "rg -n --color=always 'fn parse' src/",
        "Search for parse functions",
    ),
    (
        "docker compose logs --tail=300 api",
        "Tail API container logs",
    ),
    ("go test ./... 2>&1 | tail -60", "Run Go tests"),
];

const AGENT_TYPES: &[&str] = &["general-purpose", "Explore", "Plan"];

const PROMPTS: &[&str] = &[
    "The parser drops the last line when the input has no trailing newline. Find the cause, fix it and add a regression test.",
    "Add a `--json` flag to the CLI that prints the summary as one JSON object per line. Keep the text output unchanged.",
    "Profile the import step and make it at least twice as fast. 请保持现有接口不变。",
    "Refactor the session cache so it no longer holds the whole file in memory, then run the full test suite.",
    "Investigate why CI fails on Windows paths like C:\\Users\\runner\\work and fix the path handling.",
    "Write docs for the `stream` module with examples, and make sure `cargo test --doc` passes.",
];

// ---------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    Success,
    MaxTurns,
    Aborted,
    ApiError,
}

enum Block {
    Thinking { sig: String, dur: u64 },
    Text(Vec<u8>),
    Tool(usize),
}

struct Call {
    msg_id: String,
    req_id: String,
    usage: Usage,
    blocks: Vec<Block>,
    tools: Vec<ToolCall>,
    stop: &'static str,
}

struct SubCtx {
    parent: String,
    sub_type: &'static str,
    desc: String,
}

struct Sub {
    ctx: SubCtx,
    task_id: String,
    prompt: Src,
    calls_left: u64,
    phase: u8,
    pending: Vec<ToolCall>,
    usage: Usage,
    last: Usage,
    tool_uses: u64,
    last_tool: &'static str,
    started: u64,
    report: Vec<u8>,
    stats: [u64; 4],
}

#[derive(Default)]
struct Run {
    model: usize,
    lang: usize,
    cwd: String,
    hooks: bool,
    agents: bool,
    thinking_pm: u64,
    thinking_display: bool,
    main: Usage,
    last: Usage,
    subs: Usage,
    ctx: u64,
    api_ms: u64,
    start: u64,
    spawned: u64,
    by_type: Vec<(&'static str, u64)>,
    last_text: Vec<u8>,
    ttft: u64,
    api_status: u64,
}

struct Gen<'p> {
    rng: Rng,
    pools: &'p Pools,
    partial: bool,
    /// Harness-archive runs: every call thinks at length, runs grow to
    /// `run_bytes`.
    harness: bool,
    /// Byte size a run grows to (calls are added until it is reached).
    run_bytes: Option<u64>,
    /// Lines go to a capture buffer, not to the output (no flush).
    capturing: bool,
    w: W,
    out: Box<dyn Write>,
    flushed: u64,
    backslashes: u64,
    lines: u64,
    runs: u64,
    now: u64,
    sid: String,
    r: Run,
    tmp: Vec<u8>,
}

impl<'p> Gen<'p> {
    fn total_bytes(&self) -> u64 {
        self.flushed + self.w.b.len() as u64
    }

    fn flush(&mut self) -> io::Result<()> {
        self.backslashes += self.w.b.iter().filter(|&&c| c == b'\\').count() as u64;
        self.lines += self.w.b.iter().filter(|&&c| c == b'\n').count() as u64;
        self.out.write_all(&self.w.b)?;
        self.flushed += self.w.b.len() as u64;
        self.w.b.clear();
        Ok(())
    }

    /// The lines `f` writes, kept apart from the output.
    fn capture(&mut self, f: impl FnOnce(&mut Self) -> io::Result<()>) -> io::Result<Vec<u8>> {
        let outer = std::mem::take(&mut self.w.b);
        let was = std::mem::replace(&mut self.capturing, true);
        let r = f(self);
        self.capturing = was;
        let inner = std::mem::replace(&mut self.w.b, outer);
        r.map(|()| inner)
    }

    fn end_line(&mut self) -> io::Result<()> {
        self.w.b.push(b'\n');
        if !self.capturing && self.w.b.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    fn tick(&mut self, lo: u64, hi: u64) {
        self.now += self.rng.range(lo, hi);
    }

    fn ts(&mut self) -> String {
        iso(self.now)
    }

    fn uuid(&mut self) -> String {
        uuid(&mut self.rng)
    }

    /// Heavy-tailed size (escaped bytes) of a tool output.
    fn out_size(&mut self) -> usize {
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

    fn src(&mut self, pool: usize, target: usize) -> Src {
        let (a, b) = self.pools.all[pool].pick(&mut self.rng, target);
        Src { pool, a, b }
    }

    fn src_anchored(&mut self, pool: usize, target: usize) -> Src {
        let (a, b) = self.pools.all[pool].pick_anchored(&mut self.rng, target);
        Src { pool, a, b }
    }

    fn span(&self, s: Src) -> &'p [u8] {
        self.pools.all[s.pool].span(s.a, s.b)
    }

    fn prose(&mut self, lo: u64, hi: u64) -> Vec<u8> {
        let n = self.rng.log_uniform(lo, hi) as usize;
        let s = self.src_anchored(POOL_PROSE, n);
        trim_nl(self.span(s)).to_vec()
    }

    fn file_path(&mut self, lang: usize) -> String {
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

    fn sys_begin(&mut self, subtype: &str) {
        self.w.open();
        self.w.ks("type", "system");
        self.w.ks("subtype", subtype);
    }

    fn sys_end(&mut self) -> io::Result<()> {
        self.tail_uuid_sid();
        self.w.close();
        self.end_line()
    }

    // -- run ------------------------------------------------------------------

    fn run(&mut self) -> io::Result<()> {
        self.run_as(None)
    }

    /// One run; of session `sid` when given (a resumed session: the same
    /// `session_id`, a new `init`).
    fn run_as(&mut self, sid: Option<String>) -> io::Result<()> {
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

    fn hook_started(&mut self, id: &str, name: &str, event: &str) -> io::Result<()> {
        self.sys_begin("hook_started");
        self.w.ks("hook_id", id);
        self.w.ks("hook_name", name);
        self.w.ks("hook_event", event);
        self.sys_end()
    }

    fn hook_response(&mut self, id: &str, name: &str, event: &str) -> io::Result<()> {
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

    fn status(&mut self) -> io::Result<()> {
        self.tick(20, 400);
        self.sys_begin("status");
        self.w.ks("status", "requesting");
        self.sys_end()
    }

    fn api_retries(&mut self, n: u64, status: u64, error: &str) -> io::Result<()> {
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

    fn rate_limit(&mut self) -> io::Result<()> {
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

    // -- tool planning --------------------------------------------------------

    fn plan_tool(&mut self, name: &'static str) -> ToolCall {
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

    fn pick_tool_name(&mut self) -> &'static str {
        match self.rng.below(100) {
            0..=29 => "Bash",
            30..=61 => "Read",
            62..=73 => "Edit",
            74..=81 => "Write",
            _ => "Grep",
        }
    }

    /// Builds the blocks of one model call.
    fn plan_call(&mut self, tools: Vec<ToolCall>, text_pm: u64, final_text: bool) -> Call {
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

    fn main_call(&mut self, final_text: bool) -> io::Result<()> {
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

    fn assistant(&mut self, call: &Call, bi: usize, sub: Option<&SubCtx>) -> io::Result<()> {
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

    fn se_begin(&mut self) {
        self.w.open();
        self.w.ks("type", "stream_event");
        self.w.k("event");
        self.w.open();
    }

    fn se_end(&mut self, ttft: Option<u64>, thinking: bool) -> io::Result<()> {
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

    fn stream_call(&mut self, call: &Call, ttft: u64) -> io::Result<()> {
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

    fn delta_begin(&mut self, index: usize, ty: &str) {
        self.se_begin();
        self.w.ks("type", "content_block_delta");
        self.w.kn("index", index as u64);
        self.w.k("delta");
        self.w.open();
        self.w.ks("type", ty);
    }

    fn delta_end(&mut self, thinking: bool) -> io::Result<()> {
        self.w.close();
        self.tick(0, 40);
        self.se_end(None, thinking)
    }

    // -- failing final calls -------------------------------------------------------

    fn aborted_call(&mut self) -> io::Result<()> {
        self.status()?;
        self.tick(300, 4000);
        if self.partial {
            let call = self.plan_call(Vec::new(), 1000, false);
            self.se_begin();
            {
                let model = MODELS[self.r.model].id;
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
            let ttft = self.rng.range(400, 3000);
            self.se_end(Some(ttft), false)?;
            self.se_begin();
            self.w.ks("type", "content_block_start");
            self.w.kn("index", 0);
            self.w
                .kraw("content_block", b"{\"type\":\"text\",\"text\":\"\"}");
            self.se_end(None, false)?;
            for _ in 0..self.rng.range(0, 4) {
                self.delta_begin(0, "text_delta");
                let t = *self
                    .rng
                    .pick(&["Let me ", "check the ", "failing ", "test first"]);
                self.w.ks("text", t);
                self.delta_end(false)?;
            }
        }
        self.tick(500, 20_000);
        let ts = self.ts();
        let u = self.uuid();
        let w = &mut self.w;
        w.open();
        w.ks("type", "user");
        w.kraw(
            "message",
            b"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]}",
        );
        w.knull("parent_tool_use_id");
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
        w.close();
        self.end_line()
    }

    fn api_error_call(&mut self) -> io::Result<()> {
        self.status()?;
        let (st, e, text) = *self.rng.pick(&[
            (
                429u64,
                "rate_limit",
                "API Error: Request rejected (429) · Rate limited, please try again later.",
            ),
            (
                529,
                "overloaded",
                "API Error: Repeated 529 Overloaded errors · The API is temporarily overloaded.",
            ),
            (
                401,
                "authentication_failed",
                "Failed to authenticate. API Error: 401 OAuth access token is invalid.",
            ),
        ]);
        let n = self.rng.range(2, 4);
        self.api_retries(n, st, e)?;
        self.tick(100, 2000);
        let ts = self.ts();
        let mid = self.uuid();
        let u = self.uuid();
        let w = &mut self.w;
        w.open();
        w.ks("type", "assistant");
        w.k("message");
        w.open();
        w.ks("id", &mid);
        w.ks("model", "<synthetic>");
        w.ks("role", "assistant");
        w.ks("type", "message");
        w.ks("stop_reason", "stop_sequence");
        w.ks("stop_sequence", "");
        w.knull("container");
        w.knull("stop_details");
        w.kraw(
            "usage",
            b"{\"input_tokens\":0,\"output_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"cache_creation\":{\"ephemeral_1h_input_tokens\":0,\"ephemeral_5m_input_tokens\":0},\"server_tool_use\":{\"web_search_requests\":0,\"web_fetch_requests\":0},\"service_tier\":null,\"inference_geo\":null,\"iterations\":null,\"speed\":null,\"fallback_credit\":null,\"output_tokens_details\":null}",
        );
        w.k("content");
        w.arr();
        w.open();
        w.ks("type", "text");
        w.ks("text", text);
        w.close();
        w.arr_end();
        w.knull("context_management");
        w.knull("diagnostics");
        w.close();
        w.knull("parent_tool_use_id");
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
        w.ks("error", e);
        w.ks("request_id", &b58_id(&mut self.rng, "req_011C", 20));
        w.kb("is_api_error_message", true);
        w.close();
        self.r.last_text.clear();
        escape_into(&mut self.r.last_text, text.as_bytes());
        self.end_line()?;
        self.r.api_status = st;
        Ok(())
    }

    // -- tool results ------------------------------------------------------------------

    fn user_begin(&mut self, tool_use_id: &str, is_error: bool) {
        let w = &mut self.w;
        w.open();
        w.ks("type", "user");
        w.k("message");
        w.open();
        w.ks("role", "user");
        w.k("content");
        w.arr();
        w.open();
        if is_error {
            w.ks("type", "tool_result");
        } else {
            w.ks("tool_use_id", tool_use_id);
            w.ks("type", "tool_result");
        }
        w.k("content");
    }

    /// Closes the tool_result block and message, writes the common fields.
    fn user_mid(&mut self, tool_use_id: &str, is_error: bool, sub: Option<&SubCtx>) {
        let ts = self.ts();
        let u = self.uuid();
        let w = &mut self.w;
        if is_error {
            w.kb("is_error", true);
            w.ks("tool_use_id", tool_use_id);
        }
        w.close();
        w.arr_end();
        w.close();
        match sub {
            Some(s) => w.ks("parent_tool_use_id", &s.parent),
            None => w.knull("parent_tool_use_id"),
        }
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
    }

    fn user_end(&mut self, sub: Option<&SubCtx>) -> io::Result<()> {
        if let Some(s) = sub {
            self.w.ks("subagent_type", s.sub_type);
            self.w.ks("task_description", &s.desc);
        }
        self.w.close();
        self.end_line()
    }

    fn tool_result(&mut self, tc: &ToolCall, sub: Option<&SubCtx>) -> io::Result<()> {
        let pools = self.pools;
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        let with_tur = sub.is_none();
        match &tc.kind {
            Kind::Bash { out, err, exit } => {
                let stdout = trim_nl(self.span(*out));
                let stderr = err.map(|e| trim_nl(self.span(e))).unwrap_or(b"");
                if *exit != 0 {
                    tmp.extend_from_slice(b"Exit code ");
                    push_u64(&mut tmp, *exit);
                    tmp.extend_from_slice(b"\\n");
                    let body_at = tmp.len();
                    tmp.extend_from_slice(stdout);
                    if !stderr.is_empty() {
                        tmp.extend_from_slice(b"\\n");
                        tmp.extend_from_slice(stderr);
                    }
                    self.user_begin(&tc.id, true);
                    self.w.se(&tmp);
                    self.user_mid(&tc.id, true, sub);
                    if with_tur {
                        self.w.k("tool_use_result");
                        self.w.b.extend_from_slice(b"\"Error: Exit code ");
                        push_u64(&mut self.w.b, *exit);
                        self.w.b.extend_from_slice(b"\\n");
                        self.w.b.extend_from_slice(&tmp[body_at..]);
                        self.w.b.push(b'"');
                    }
                } else {
                    tmp.extend_from_slice(stdout);
                    if !stderr.is_empty() {
                        tmp.extend_from_slice(b"\\n");
                        tmp.extend_from_slice(stderr);
                    }
                    self.user_begin(&tc.id, false);
                    self.w.se(&tmp);
                    self.user_mid(&tc.id, false, sub);
                    if with_tur {
                        let w = &mut self.w;
                        w.k("tool_use_result");
                        w.open();
                        w.kse("stdout", stdout);
                        w.kse("stderr", stderr);
                        w.kb("interrupted", false);
                        w.kb("isImage", false);
                        w.kb("noOutputExpected", false);
                        w.close();
                    }
                }
            }
            Kind::Read {
                path,
                src,
                start,
                total,
                missing,
            } => {
                if *missing {
                    let msg = format!(
                        "File does not exist. Note: your current working directory is {}.",
                        self.r.cwd
                    );
                    self.user_begin(&tc.id, true);
                    self.w.s(&format!("<tool_use_error>{msg}</tool_use_error>"));
                    self.user_mid(&tc.id, true, sub);
                    if with_tur {
                        self.w.ks("tool_use_result", &format!("Error: {msg}"));
                    }
                } else {
                    let pool = &pools.all[src.pool];
                    for (k, i) in (src.a..src.b).enumerate() {
                        if k > 0 {
                            tmp.extend_from_slice(b"\\n");
                        }
                        push_u64(&mut tmp, (start + k) as u64);
                        tmp.extend_from_slice(b"\\t");
                        tmp.extend_from_slice(pool.line(i));
                    }
                    self.user_begin(&tc.id, false);
                    self.w.se(&tmp);
                    self.user_mid(&tc.id, false, sub);
                    if with_tur {
                        let w = &mut self.w;
                        w.k("tool_use_result");
                        w.open();
                        w.ks("type", "text");
                        w.k("file");
                        w.open();
                        w.ks("filePath", path);
                        w.kse("content", pool.span(src.a, src.b));
                        w.kn("numLines", (src.b - src.a) as u64);
                        w.kn("startLine", *start as u64);
                        w.kn("totalLines", *total as u64);
                        w.close();
                        w.close();
                    }
                }
            }
            Kind::Write { path, src, hunks } => {
                self.user_begin(&tc.id, false);
                self.w.s(&format!("File created successfully at: {path}"));
                self.user_mid(&tc.id, false, sub);
                if with_tur {
                    let pool = &pools.all[src.pool];
                    let w = &mut self.w;
                    w.k("tool_use_result");
                    w.open();
                    w.ks("type", "create");
                    w.ks("filePath", path);
                    w.kse("content", pool.span(src.a, src.b));
                    w.k("structuredPatch");
                    w.arr();
                    if *hunks {
                        let n = (src.b - src.a) as u64;
                        w.open();
                        w.kn("oldStart", 0);
                        w.kn("oldLines", 0);
                        w.kn("newStart", 1);
                        w.kn("newLines", n);
                        w.k("lines");
                        w.arr();
                        for i in src.a..src.b {
                            w.sep();
                            w.b.extend_from_slice(b"\"+");
                            w.b.extend_from_slice(pool.line(i));
                            w.b.push(b'"');
                        }
                        w.arr_end();
                        w.close();
                    }
                    w.arr_end();
                    w.knull("originalFile");
                    w.kb("userModified", false);
                    w.close();
                }
            }
            Kind::Edit {
                path,
                orig,
                at,
                old_n,
                new,
                fail,
            } => {
                let pool = &pools.all[orig.pool];
                let old = trim_nl(pool.span(*at, at + old_n));
                let new_s = trim_nl(pool.span(new.a, new.b));
                if *fail {
                    tmp.extend_from_slice(b"String to replace not found in file.\\nString: ");
                    tmp.extend_from_slice(old);
                    self.user_begin(&tc.id, true);
                    self.w.sep();
                    self.w.b.extend_from_slice(b"\"<tool_use_error>");
                    self.w.b.extend_from_slice(&tmp);
                    self.w.b.extend_from_slice(b"</tool_use_error>\"");
                    self.user_mid(&tc.id, true, sub);
                    if with_tur {
                        self.w.k("tool_use_result");
                        self.w.b.extend_from_slice(b"\"Error: ");
                        self.w.b.extend_from_slice(&tmp);
                        self.w.b.push(b'"');
                    }
                } else {
                    self.user_begin(&tc.id, false);
                    self.w
                        .s(&format!("The file {path} has been updated successfully."));
                    self.user_mid(&tc.id, false, sub);
                    if with_tur {
                        let ctx_a = at.saturating_sub(3).max(orig.a);
                        let ctx_b = (at + old_n + 3).min(orig.b);
                        let new_n = new.b - new.a;
                        let w = &mut self.w;
                        w.k("tool_use_result");
                        w.open();
                        w.ks("filePath", path);
                        w.kse("oldString", old);
                        w.kse("newString", new_s);
                        w.kse("originalFile", pool.span(orig.a, orig.b));
                        w.k("structuredPatch");
                        w.arr();
                        w.open();
                        let old_start = (ctx_a - orig.a + 1) as u64;
                        let old_lines = (ctx_b - ctx_a) as u64;
                        w.kn("oldStart", old_start);
                        w.kn("oldLines", old_lines);
                        w.kn("newStart", old_start);
                        w.kn("newLines", old_lines - *old_n as u64 + new_n as u64);
                        w.k("lines");
                        w.arr();
                        let line = |w: &mut W, prefix: u8, l: &[u8]| {
                            w.sep();
                            w.b.push(b'"');
                            w.b.push(prefix);
                            w.b.extend_from_slice(l);
                            w.b.push(b'"');
                        };
                        for i in ctx_a..*at {
                            line(w, b' ', pool.line(i));
                        }
                        for i in *at..at + old_n {
                            line(w, b'-', pool.line(i));
                        }
                        for i in new.a..new.b {
                            line(w, b'+', pool.line(i));
                        }
                        for i in at + old_n..ctx_b {
                            line(w, b' ', pool.line(i));
                        }
                        w.arr_end();
                        w.close();
                        w.arr_end();
                        w.kb("userModified", false);
                        w.kb("replaceAll", false);
                        w.close();
                    }
                }
            }
            Kind::Grep { src, files, path } => {
                let pool = &pools.all[src.pool];
                let ext = LANGS[src.pool.min(3)].ext;
                let mut names: Vec<String> = Vec::new();
                if *files {
                    let n = self.rng.range(1, 12);
                    for _ in 0..n {
                        let a = self.rng.ps(WORDS);
                        let b = self.rng.ps(WORDS);
                        names.push(format!("{path}/{a}_{b}.{ext}"));
                    }
                    tmp.extend_from_slice(b"Found ");
                    push_u64(&mut tmp, n);
                    tmp.extend_from_slice(b" files");
                    for nm in &names {
                        tmp.extend_from_slice(b"\\n");
                        escape_into(&mut tmp, nm.as_bytes());
                    }
                } else {
                    let file = format!("{}_{}.{ext}", self.rng.ps(WORDS), self.rng.ps(WORDS));
                    let mut ln = self.rng.range(1, 400);
                    for (k, i) in (src.a..src.b).enumerate() {
                        if k > 0 {
                            tmp.extend_from_slice(b"\\n");
                        }
                        tmp.extend_from_slice(file.as_bytes());
                        tmp.push(b':');
                        push_u64(&mut tmp, ln);
                        tmp.push(b':');
                        tmp.extend_from_slice(pool.line(i));
                        ln += 1 + self.rng.below(3) * self.rng.below(40);
                    }
                }
                self.user_begin(&tc.id, false);
                self.w.se(&tmp);
                self.user_mid(&tc.id, false, sub);
                if with_tur {
                    let w = &mut self.w;
                    w.k("tool_use_result");
                    w.open();
                    if *files {
                        w.ks("mode", "files_with_matches");
                        w.k("filenames");
                        w.arr();
                        for nm in &names {
                            w.s(nm);
                        }
                        w.arr_end();
                        w.kn("numFiles", names.len() as u64);
                    } else {
                        w.ks("mode", "content");
                        w.kn("numFiles", 0);
                        w.kraw("filenames", b"[]");
                        w.kse("content", &tmp);
                        w.kn("numLines", (src.b - src.a) as u64);
                    }
                    w.close();
                }
            }
            Kind::Agent { .. } => {
                // Agent results are written by `sub_step`.
            }
        }
        self.tmp = tmp;
        self.user_end(sub)
    }

    // -- subagents ---------------------------------------------------------------------

    /// Advances one subagent by one step; returns true when it has finished.
    fn sub_step(&mut self, s: &mut Sub) -> io::Result<bool> {
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

    // -- result ----------------------------------------------------------------------------

    fn result(&mut self, outcome: Outcome, num_turns: u64, max_turns: u64) -> io::Result<()> {
        self.tick(50, 800);
        let main_model = &MODELS[self.r.model];
        let haiku = Usage {
            input: self.rng.range(880, 1000) * (1 + num_turns / 8),
            output: self.rng.range(10, 24),
            ..Usage::default()
        };
        let mut main_all = self.r.main;
        main_all.add(&self.r.subs);
        let haiku_cost = haiku.cost(&HAIKU);
        let main_cost = main_all.cost(main_model);
        let include_main = main_all.total() > 0;
        let total_cost = if include_main {
            haiku_cost + main_cost
        } else {
            haiku_cost
        };
        let duration = self.now - self.r.start;
        let (subtype, is_error, terminal, stop) = match outcome {
            Outcome::Success => ("success", false, "completed", Some("end_turn")),
            Outcome::MaxTurns => ("error_max_turns", true, "max_turns", Some("tool_use")),
            Outcome::Aborted => ("error_during_execution", true, "aborted_streaming", None),
            Outcome::ApiError => ("success", true, "api_error", Some("stop_sequence")),
        };

        let mut f: Vec<(&'static str, Vec<u8>)> = Vec::new();
        let mut put = |k: &'static str, build: &mut dyn FnMut(&mut W)| {
            let mut w = W::default();
            build(&mut w);
            f.push((k, w.b));
        };
        put("type", &mut |w| w.s("result"));
        put("subtype", &mut |w| w.s(subtype));
        put("is_error", &mut |w| w.bool(is_error));
        match outcome {
            Outcome::Success => put("api_error_status", &mut |w| w.null()),
            Outcome::ApiError => {
                let st = self.r.api_status;
                put("api_error_status", &mut |w| w.n(st));
            }
            _ => {}
        }
        put("duration_ms", &mut |w| w.n(duration));
        let api_ms = self.r.api_ms.min(duration);
        put("duration_api_ms", &mut |w| w.n(api_ms));
        put("num_turns", &mut |w| w.n(num_turns));
        if outcome == Outcome::Success || outcome == Outcome::ApiError {
            let text = &self.r.last_text;
            put("result", &mut |w| w.se(text));
        }
        put("stop_reason", &mut |w| match stop {
            Some(s) => w.s(s),
            None => w.null(),
        });
        let sid = &self.sid;
        put("session_id", &mut |w| w.s(sid));
        put("total_cost_usd", &mut |w| w.f(total_cost));
        let (main_u, last_u) = (self.r.main, self.r.last);
        put("usage", &mut |w| {
            if outcome == Outcome::Aborted {
                w.raw(b"{\"input_tokens\":0,\"output_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"iterations\":[]}");
            } else {
                w_usage_full(w, &main_u, Some(&last_u));
            }
        });
        put("modelUsage", &mut |w| {
            w.open();
            w_model_usage(w, &HAIKU, &haiku, haiku_cost);
            if include_main {
                w_model_usage(w, main_model, &main_all, main_cost);
            }
            w.close();
        });
        put("permission_denials", &mut |w| w.raw(b"[]"));
        put("terminal_reason", &mut |w| w.s(terminal));
        match outcome {
            Outcome::MaxTurns => {
                let e = format!("Reached maximum number of turns ({max_turns})");
                put("errors", &mut |w| {
                    w.arr();
                    w.s(&e);
                    w.arr_end();
                });
            }
            Outcome::Aborted => put("errors", &mut |w| {
                w.raw(b"[\"[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null\"]")
            }),
            _ => {}
        }
        put("fast_mode_state", &mut |w| w.s("off"));
        put("fast_mode_disabled_reason", &mut |w| {
            w.s("sdk_opt_in_required")
        });
        let spawned = self.r.spawned;
        let by_type = &self.r.by_type;
        put("subagent_stats", &mut |w| {
            w.open();
            w.kn("spawned", spawned);
            w.k("requested");
            w.open();
            w.kn("background", 0);
            w.kn("foreground", spawned);
            w.kn("unset", 0);
            w.close();
            w.kn("started_in_background", 0);
            w.kn("max_depth", u64::from(spawned > 0));
            w.kn("spawned_by_subagents", 0);
            w.kn("completed", spawned);
            w.kn("failed", 0);
            w.kraw("killed", b"{\"parent\":0,\"user\":0,\"system\":0}");
            w.kraw(
                "refused",
                b"{\"depth_limit\":0,\"concurrency_limit\":0,\"budget\":0}",
            );
            w.k("by_type");
            w.open();
            for (t, n) in by_type {
                w.kn(t, *n);
            }
            w.close();
            w.close();
        });
        let u = uuid(&mut self.rng);
        put("uuid", &mut |w| w.s(&u));
        put("result_index", &mut |w| w.n(0));
        put("queued_turn_count", &mut |w| w.n(0));
        if outcome == Outcome::Success {
            let ttft = self.r.ttft;
            let stream = ttft * 3 / 5;
            let req = self.rng.range(10, 300);
            let fcf = stream + self.rng.range(50, 400);
            put("ttft_ms", &mut |w| w.n(ttft));
            put("ttft_stream_ms", &mut |w| w.n(stream));
            put("time_to_request_ms", &mut |w| w.n(req));
            put("first_content_frame_ms", &mut |w| w.n(fcf));
        }

        // Key order: as built (type first) for two thirds of the results,
        // otherwise one of the 2.1.2xx orders with "type" near the end.
        const LATE_A: &[&str] = &[
            "is_error",
            "duration_api_ms",
            "num_turns",
            "stop_reason",
            "session_id",
            "total_cost_usd",
            "usage",
            "modelUsage",
            "permission_denials",
            "terminal_reason",
            "fast_mode_state",
            "fast_mode_disabled_reason",
            "subagent_stats",
            "subtype",
            "errors",
            "api_error_status",
            "result",
            "ttft_ms",
            "ttft_stream_ms",
            "time_to_request_ms",
            "type",
            "duration_ms",
            "uuid",
        ];
        const LATE_B: &[&str] = &[
            "duration_api_ms",
            "stop_reason",
            "session_id",
            "total_cost_usd",
            "usage",
            "modelUsage",
            "permission_denials",
            "terminal_reason",
            "fast_mode_state",
            "fast_mode_disabled_reason",
            "subagent_stats",
            "is_error",
            "num_turns",
            "subtype",
            "api_error_status",
            "result",
            "errors",
            "ttft_ms",
            "type",
            "duration_ms",
            "uuid",
            "ttft_stream_ms",
            "time_to_request_ms",
            "first_content_frame_ms",
        ];
        let order: &[&str] = match self.rng.below(6) {
            0 => LATE_A,
            1 => LATE_B,
            _ => &[],
        };
        let mut used = vec![false; f.len()];
        let w = &mut self.w;
        w.open();
        for key in order {
            if let Some(i) = f.iter().position(|(k, _)| k == key) {
                w.k(f[i].0);
                w.b.extend_from_slice(&f[i].1);
                used[i] = true;
            }
        }
        for (i, (k, v)) in f.iter().enumerate() {
            if !used[i] {
                w.k(k);
                w.b.extend_from_slice(v);
            }
        }
        w.close();
        self.end_line()
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

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Profile {
    Archive,
    Partial,
    Harness,
    Recurring,
}

impl Profile {
    fn name(self) -> &'static str {
        match self {
            Profile::Archive => "archive",
            Profile::Partial => "partial",
            Profile::Harness => "harness",
            Profile::Recurring => "recurring",
        }
    }
}

struct Args {
    profile: Profile,
    bytes: u64,
    seed: u64,
    out: Option<String>,
    files: u64,
    sessions: u64,
}

const USAGE: &str = "usage: gencorpus [--profile archive|partial|harness|recurring] [--bytes N[K|M|G|T]] [--seed N] [--out FILE|DIR] [--files N] [--sessions N]";

/// Parses `N`, `N.F` with an optional `K`/`M`/`G`/`T` suffix (binary units,
/// an optional trailing `B` or `iB` is accepted).
fn parse_bytes(s: &str) -> Result<u64, String> {
    let bad = || format!("invalid --bytes value {s:?} (expected e.g. 1G, 512M, 1.5G, 100000)");
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (num, mult) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1u128 << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        Some('T' | 't') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits_ok = |d: &str| d.bytes().all(|c| c.is_ascii_digit());
    if int.is_empty() || !digits_ok(int) || !digits_ok(frac) || frac.len() > 9 {
        return Err(bad());
    }
    let int: u128 = int.parse().map_err(|_| bad())?;
    let scale = 10u128.pow(frac.len() as u32);
    let frac: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| bad())?
    };
    let v = int * mult + frac * mult / scale;
    u64::try_from(v).map_err(|_| format!("--bytes value {s:?} is too large"))
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut a = Args {
        profile: Profile::Archive,
        bytes: 64 << 20,
        seed: 1,
        out: None,
        files: 934,
        sessions: 48,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (flag.clone(), None),
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(None),
            "--profile" | "--bytes" | "--seed" | "--out" | "--files" | "--sessions" => {}
            _ => return Err(format!("unknown argument {name:?}\n{USAGE}")),
        }
        let value = match inline {
            Some(v) => v,
            None => it
                .next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))?,
        };
        let count = |v: &str| -> Result<u64, String> {
            v.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("invalid {name} value {v:?} (expected a positive integer)"))
        };
        match name.as_str() {
            "--profile" => {
                a.profile = match value.as_str() {
                    "archive" => Profile::Archive,
                    "partial" => Profile::Partial,
                    "harness" => Profile::Harness,
                    "recurring" => Profile::Recurring,
                    _ => return Err(format!("unknown profile {value:?}\n{USAGE}")),
                }
            }
            "--bytes" => a.bytes = parse_bytes(&value)?,
            "--seed" => {
                a.seed = value
                    .parse()
                    .map_err(|_| format!("invalid --seed value {value:?}"))?
            }
            "--files" => a.files = count(&value)?,
            "--sessions" => a.sessions = count(&value)?,
            _ => a.out = Some(value),
        }
    }
    if a.profile == Profile::Harness && a.out.is_none() {
        return Err(format!(
            "--profile harness writes a directory: give --out DIR\n{USAGE}"
        ));
    }
    Ok(Some(a))
}

/// An error whose `Debug` (what `main` prints) is its plain message.
struct CliError(String);

impl std::fmt::Debug for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for CliError {}

fn main() -> Res<()> {
    let args = match parse_args().map_err(CliError)? {
        Some(a) => a,
        None => {
            println!("{USAGE}");
            return Ok(());
        }
    };
    let t0 = Instant::now();
    let partial = matches!(args.profile, Profile::Partial | Profile::Harness);
    let pools = Pools::build(args.seed, partial);
    let out: Box<dyn Write> = match (&args.out, args.profile) {
        (_, Profile::Harness) => Box::new(io::sink()),
        (Some(p), _) => Box::new(File::create(p)?),
        (None, _) => Box::new(io::stdout().lock()),
    };
    let mut g = Gen {
        rng: Rng(args.seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x00C0_FFEE),
        pools: &pools,
        partial,
        harness: args.profile == Profile::Harness,
        run_bytes: None,
        capturing: false,
        w: W {
            b: Vec::with_capacity(FLUSH_AT + (4 << 20)),
        },
        out,
        flushed: 0,
        backslashes: 0,
        lines: 0,
        runs: 0,
        // 2026-10-01T00:00:00Z plus up to ~30 days.
        now: 1_790_812_800_000,
        sid: String::new(),
        r: Run::default(),
        tmp: Vec::new(),
    };
    g.now += g.rng.below(30 * 86_400_000);
    let mut extra = String::new();
    match args.profile {
        Profile::Archive | Profile::Partial => {
            while g.total_bytes() < args.bytes {
                g.run()?;
            }
        }
        Profile::Harness => {
            let dir = args.out.as_deref().unwrap_or(".");
            let k = harness(&mut g, Path::new(dir), args.files, args.bytes)?;
            extra = format!(
                ", {} files: {} text-mode outputs, {} empty, {} CLI errors, {} killed mid-line",
                args.files, k.text, k.empty, k.cli_error, k.killed
            );
        }
        Profile::Recurring => {
            let k = recurring(&mut g, args.sessions, args.bytes)?;
            extra = format!(
                ", {} sessions resumed {} times in all, {} pairs of runs interleaved",
                args.sessions, k.resumed, k.interleaved
            );
        }
    }
    g.flush()?;
    g.out.flush()?;
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    let bytes = g.flushed;
    eprintln!(
        "gencorpus: profile={} seed={}: {} bytes, {} lines, {} runs, {:.0} bytes/line, {:.1} backslashes/KB, {:.2} s, {:.0} MB/s{extra}",
        args.profile.name(),
        args.seed,
        bytes,
        g.lines,
        g.runs,
        bytes as f64 / g.lines.max(1) as f64,
        g.backslashes as f64 * 1024.0 / bytes.max(1) as f64,
        secs,
        bytes as f64 / secs / 1_048_576.0
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Many-file harness archive
// ---------------------------------------------------------------------------

/// Outputs of the harness archive that are not a whole stream-json run.
#[derive(Default)]
struct HarnessKinds {
    text: u64,
    empty: u64,
    cli_error: u64,
    killed: u64,
}

/// Files in one batch directory of the harness archive.
const BATCH: u64 = 50;

/// Writes `files` outputs of an agent harness into `dir`, one file per
/// `claude -p` invocation (`batch-NN/task-NNNN.jsonl`), `bytes` in all
/// (about: each output's size is drawn around `bytes / files`, heavy
/// tailed). Most are whole `--include-partial-messages` runs that think at
/// length; some are what a harness also collects: runs made in text mode
/// (plain text, same file name), empty outputs, a CLI error printed instead
/// of a stream, and runs killed mid-line.
fn harness(g: &mut Gen<'_>, dir: &Path, files: u64, bytes: u64) -> Res<HarnessKinds> {
    let mut kinds = HarnessKinds::default();
    // Sizes log-uniform over five octaves around the mean, then scaled so
    // that they add up to `bytes` (a run overshoots its size by its last
    // call and result; a killed one is cut short: about even).
    let mean = (bytes / files).max(4096);
    let mut sizes: Vec<u64> = (0..files)
        .map(|_| g.rng.log_uniform(mean / 8, mean * 4))
        .collect();
    let sum: u128 = sizes.iter().map(|&v| u128::from(v)).sum();
    for v in &mut sizes {
        *v = (u128::from(*v) * u128::from(bytes) / sum.max(1)) as u64;
    }
    for (k, &target) in (0u64..).zip(&sizes) {
        let batch = dir.join(format!("batch-{:02}", k / BATCH));
        std::fs::create_dir_all(&batch)?;
        g.flush()?;
        g.out.flush()?;
        g.out = Box::new(io::BufWriter::with_capacity(
            1 << 20,
            File::create(batch.join(format!("task-{k:04}.jsonl")))?,
        ));
        match g.rng.below(1000) {
            0..=29 => {
                kinds.text += 1;
                let esc = g.prose(500, 30_000);
                g.w.b.extend_from_slice(&unescape(&esc));
                g.w.b.push(b'\n');
            }
            30..=34 => kinds.empty += 1,
            35..=44 => {
                kinds.cli_error += 1;
                let msg = *g.rng.pick(&[
                    "Error: Invalid API key · Please run /login",
                    "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
                    "Error: Claude Code process exited with code 1",
                    "Credit balance is too low",
                ]);
                g.w.b.extend_from_slice(msg.as_bytes());
                g.w.b.push(b'\n');
            }
            45..=64 => {
                kinds.killed += 1;
                g.run_bytes = Some(target);
                let run = g.capture(|g| g.run())?;
                let cut = g.rng.urange(run.len() / 3, run.len().max(1) - 1);
                // Inside a line: the process died while writing it.
                let cut = if run.get(cut) == Some(&b'\n') {
                    cut + 1
                } else {
                    cut
                };
                g.w.b.extend_from_slice(&run[..cut.min(run.len())]);
            }
            _ => {
                g.run_bytes = Some(target);
                g.run()?;
            }
        }
        g.run_bytes = None;
    }
    Ok(kinds)
}

/// JSON string contents (as in the pools) turned back into text, for
/// outputs made in text mode.
fn unescape(esc: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(esc.len());
    let mut i = 0;
    while i < esc.len() {
        let c = esc[i];
        if c != b'\\' || i + 1 >= esc.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = esc[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' => {
                let hex = esc.get(i..i + 4).and_then(|h| std::str::from_utf8(h).ok());
                if let Some(ch) = hex
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                i += 4;
            }
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Recurring sessions
// ---------------------------------------------------------------------------

#[derive(Default)]
struct RecurringCounts {
    resumed: u64,
    interleaved: u64,
}

/// An appended log in which the same sessions come back far apart: runs of
/// `sessions` sessions, in a new order every round (every session once a
/// round), each a resumption of its session (a new `init`, the same
/// `session_id`), until `bytes`. A session recurs about every `sessions`
/// runs, megabytes later; one run in five is written interleaved line by
/// line with the next (two runs appending to one log at once).
fn recurring(g: &mut Gen<'_>, sessions: u64, bytes: u64) -> Res<RecurringCounts> {
    let mut counts = RecurringCounts::default();
    let ids: Vec<String> = (0..sessions).map(|_| g.uuid()).collect();
    let mut seen = vec![false; ids.len()];
    let mut order: Vec<usize> = Vec::new();
    while g.total_bytes() < bytes {
        if order.is_empty() {
            // A new round, in an order of its own (Fisher-Yates).
            order = (0..ids.len()).collect();
            for i in (1..order.len()).rev() {
                let j = g.rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        let a = order.pop().unwrap_or(0);
        counts.resumed += u64::from(std::mem::replace(&mut seen[a], true));
        if g.rng.pm(200)
            && let Some(b) = order.pop()
        {
            counts.resumed += u64::from(std::mem::replace(&mut seen[b], true));
            counts.interleaved += 1;
            let ra = g.capture(|g| g.run_as(Some(ids[a].clone())))?;
            let rb = g.capture(|g| g.run_as(Some(ids[b].clone())))?;
            let (mut la, mut lb) = (
                ra.split_inclusive(|&c| c == b'\n'),
                rb.split_inclusive(|&c| c == b'\n'),
            );
            loop {
                let pick_a = g.rng.pm(500);
                let line = if pick_a {
                    la.next().or_else(|| lb.next())
                } else {
                    lb.next().or_else(|| la.next())
                };
                match line {
                    Some(l) => g.w.b.extend_from_slice(l),
                    None => break,
                }
            }
            if g.w.b.len() >= FLUSH_AT {
                g.flush()?;
            }
        } else {
            g.run_as(Some(ids[a].clone()))?;
        }
    }
    Ok(counts)
}
