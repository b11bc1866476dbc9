//! Text pools: realistic source code, build and test logs and prose, stored
//! JSON-escaped with line offsets, so that a tool result is a copy of a
//! window of lines.

use crate::POOL_CODE_BYTES;
use crate::primitives::{HEX, Rng, escape_into};

// ---------------------------------------------------------------------------
// Text pools: realistic lines, stored JSON-escaped with line offsets, so that
// a tool result is a memcpy of a window of lines.
// ---------------------------------------------------------------------------

pub(crate) struct Pool {
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
    pub(crate) fn nlines(&self) -> usize {
        self.starts.len() - 1
    }
    /// Escaped lines `a..b`, each with its trailing `\n`.
    pub(crate) fn span(&self, a: usize, b: usize) -> &[u8] {
        &self.esc[self.starts[a]..self.starts[b]]
    }
    /// Escaped line `i` without its trailing `\n`.
    pub(crate) fn line(&self, i: usize) -> &[u8] {
        &self.esc[self.starts[i]..self.starts[i + 1] - 2]
    }
    /// A window of whole lines of about `target` escaped bytes.
    pub(crate) fn pick(&self, rng: &mut Rng, target: usize) -> (usize, usize) {
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
    pub(crate) fn pick_anchored(&self, rng: &mut Rng, target: usize) -> (usize, usize) {
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

pub(crate) fn trim_nl(s: &[u8]) -> &[u8] {
    s.strip_suffix(b"\\n").unwrap_or(s)
}

pub(crate) const WORDS: &[&str] = &[
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

pub(crate) struct LangSpec {
    pub(crate) ext: &'static str,
    pub(crate) dir: &'static str,
    indent: &'static str,
    style: Style,
    header: &'static [&'static str],
    stmts: &'static [&'static str],
    opens: &'static [(&'static str, &'static str)],
}

pub(crate) const LANGS: [LangSpec; 4] = [
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

pub(crate) const POOL_LOGS: usize = 4;
pub(crate) const POOL_PROSE: usize = 5;

pub(crate) struct Pools {
    pub(crate) all: Vec<Pool>,
}

impl Pools {
    pub(crate) fn build(seed: u64, partial: bool) -> Pools {
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
pub(crate) struct Src {
    pub(crate) pool: usize,
    pub(crate) a: usize,
    pub(crate) b: usize,
}
