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
//!
//! The code: [`primitives`] (the PRNG, the JSON writer, ids and times),
//! [`pools`] (the text pools), [`models`] (models, usage, costs, tools),
//! [`generator`] (its state and the run), the events of a run in
//! [`calls`], [`assistant`], [`tool_results`], [`subagents`] and
//! [`endings`], and [`profiles`] (the harness archive, the recurring log);
//! the command line is here.

use std::error::Error;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

use crate::generator::{Gen, Run};
use crate::pools::Pools;
use crate::primitives::{Rng, W};
use crate::profiles::{harness, recurring};

mod assistant;
mod calls;
mod endings;
mod generator;
mod models;
mod pools;
mod primitives;
mod profiles;
mod subagents;
mod tool_results;

type Res<T> = Result<T, Box<dyn Error>>;

const FLUSH_AT: usize = 8 << 20;
const VERSION: &str = "2.1.288";
const MAX_WINDOW: usize = 900_000;
const POOL_CODE_BYTES: usize = 2_000_000;

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
