//! Against ccusage 20.0.24, the tool people use on session transcripts.
//!
//! Every transcript of ../shared/realworld (`session-format/`,
//! `wave2/session-format/`, `wave2/transformed/`) is laid out as a
//! `~/.claude/projects` tree in a temporary folder (a session file as
//! `<project>/<sessionId>.jsonl`, a subagent file as
//! `<project>/<sessionId>/subagents/agent-<agentId>.jsonl`), with a few
//! written lines that show where the two differ on purpose; a tree made by
//! `examples/gentranscripts.rs` (many projects and sessions, subagent
//! files) is the second input. ccusage reads each offline (`HOME=<tmp>
//! ccusage session|daily|blocks --offline --json -z TZ`, and on the
//! generated tree `weekly|monthly` and `--since`/`--until` too); the cctape
//! CLI reads the same folder with no flag but the prices ccusage embeds
//! (`cctape stats --by session|day|block --json --pricing
//! tests/data/ccusage-20.0.24-prices.json --timezone TZ`, the prices taken
//! from its binary). Tokens per session and per day must be equal and cost
//! equal within 1e-6, apart from the documented rules (docs/transcripts.md),
//! each asserted, its figures computed here from the files with serde_json:
//!
//! 1. a request whose `timestamp` is not a date: ccusage drops it; cctape
//!    counts it in its session and on no day;
//! 2. a request over 200k tokens of context on a model with long-context
//!    prices: ccusage bills the tokens past 200k at the higher price, bucket
//!    by bucket; Anthropic (and cctape) bill the whole request at it;
//! 3. a subagent's requests that show only in its parent's `agent_progress`
//!    records (its own `agent-*.jsonl` absent): ccusage's `daily` counts
//!    them, its `session` and `blocks` do not (so its reports disagree on
//!    the same files); cctape counts them in all;
//! 4. `session --since/--until` keeps whole sessions by their last activity
//!    (and drops the `--until` day); cctape keeps each request by its day,
//!    as ccusage's `daily`, `weekly` and `monthly` do.
//!
//! ccusage is found at `$CCUSAGE`, else where `.ci/run` installs it
//! (`target/ccusage/node_modules/@ccusage/*/bin/ccusage`). Missing, the test
//! says "skipped" and passes, unless `CI` is set: then it fails.

use cctape::pricing::{PriceTable, RequestTokens};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

const VERSION: &str = "20.0.24";

fn ccusage() -> Option<PathBuf> {
    let found = std::env::var_os("CCUSAGE").map(PathBuf::from).or_else(|| {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ccusage/node_modules/@ccusage");
        std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|e| e.path().join("bin/ccusage"))
            .find(|p| p.is_file())
    });
    if let Some(p) = &found {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // npm leaves the native binary without its execute bit (ccusage's
            // JS wrapper sets it on first run).
            if let Ok(m) = std::fs::metadata(p)
                && m.permissions().mode() & 0o111 == 0
            {
                let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755));
            }
        }
        let out = Command::new(p).arg("--version").output();
        match out {
            Ok(o)
                if String::from_utf8_lossy(&o.stdout).split_whitespace().last()
                    == Some(VERSION) =>
            {
                return found;
            }
            Ok(o) => panic!(
                "{} is ccusage {:?}, not {VERSION}",
                p.display(),
                String::from_utf8_lossy(&o.stdout).trim()
            ),
            Err(e) => panic!("{} does not run: {e}", p.display()),
        }
    }
    println!("skipped: ccusage {VERSION} not found (run .ci/run's install step, or set CCUSAGE)");
    assert!(
        std::env::var_os("CI").is_none(),
        "ccusage {VERSION} not found and CI is set: this comparison must run in CI"
    );
    None
}

/// A temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("cctape-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first string a key holds on any line (read with serde_json).
fn first_field(bytes: &[u8], key: &str) -> Option<String> {
    bytes.split(|&b| b == b'\n').find_map(|l| {
        let v: Value = serde_json::from_slice(l).ok()?;
        v.get(key)?.as_str().map(str::to_owned)
    })
}

/// Lay the transcripts out as `<home>/.claude/projects`; returns the files
/// written.
fn lay_out(realworld: &Path, projects: &Path) -> Vec<PathBuf> {
    let mut written = Vec::new();
    for sub in [
        "session-format",
        "wave2/session-format",
        "wave2/transformed",
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(realworld.join(sub))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let mut parts = name.split("__");
            let project = format!("-rw-{}-{}", parts.next().unwrap(), parts.next().unwrap());
            let session = first_field(&bytes, "sessionId").unwrap_or_else(|| name.clone());
            let dest = match first_field(&bytes, "agentId") {
                Some(agent) => projects
                    .join(&project)
                    .join(&session)
                    .join("subagents")
                    .join(format!("agent-{agent}.jsonl")),
                None => projects.join(&project).join(format!("{session}.jsonl")),
            };
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            assert!(!dest.exists(), "two files at {}", dest.display());
            std::fs::write(&dest, &bytes).unwrap();
            written.push(dest);
        }
    }
    written
}

/// Lines written here to show the documented differences.
fn rule_lines(projects: &Path) -> Vec<PathBuf> {
    let dir = projects.join("-rules");
    std::fs::create_dir_all(&dir).unwrap();
    let line = |session: &str, id: &str, ts: &str, model: &str, usage: &str| {
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"{session}","version":"2.1.39","gitBranch":"","type":"assistant","message":{{"model":"{model}","id":"{id}","type":"message","role":"assistant","content":[{{"type":"text","text":"x"}}],"stop_reason":"end_turn","stop_sequence":null,"usage":{usage}}},"requestId":"req_{id}","uuid":"u_{id}","timestamp":"{ts}"}}"#
        )
    };
    // Rule 2: 300k tokens of cache reads on sonnet 4.5, and a request under
    // the threshold beside it.
    let long = line(
        "rule-long-context",
        "msg_long",
        "2026-03-01T11:00:00.000Z",
        "claude-sonnet-4-5-20250929",
        r#"{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":300000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":1000,"service_tier":"standard"}"#,
    );
    let short = line(
        "rule-long-context",
        "msg_short",
        "2026-03-01T11:01:00.000Z",
        "claude-sonnet-4-5-20250929",
        r#"{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":150000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":1000,"service_tier":"standard"}"#,
    );
    let p = dir.join("rule-long-context.jsonl");
    std::fs::write(&p, format!("{long}\n{short}\n")).unwrap();
    vec![p]
}

fn run(bin: &Path, home: &Path, report: &str, tz: &str) -> Value {
    run_with(bin, home, report, tz, &[])
}

/// ccusage's `report` with more arguments (`--since`, `--until`).
fn run_with(bin: &Path, home: &Path, report: &str, tz: &str, extra: &[&str]) -> Value {
    let out = Command::new(bin)
        .args([report, "--offline", "--json", "-z", tz])
        .args(extra)
        .env("HOME", home)
        .env("TZ", tz)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ccusage {report}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The prices ccusage 20.0.24 uses, as a `--pricing` file.
fn price_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ccusage-20.0.24-prices.json")
}

/// `cctape stats --by KEY --json` over a projects folder, as ccusage's rows:
/// key -> (tokens, cost).
fn ours(projects: &Path, by: &str, tz: &str) -> Figures {
    ours_with(projects, by, tz, &[])
}

/// [`ours`] with more arguments (`--since`, `--until`).
fn ours_with(projects: &Path, by: &str, tz: &str, extra: &[&str]) -> Figures {
    stats_json(projects, by, tz, extra)["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let t = &g["tokens"];
            let n = |k: &str| t[k].as_u64().unwrap();
            (
                g["key"].as_str().unwrap().to_owned(),
                (
                    (
                        n("input_tokens"),
                        n("output_tokens"),
                        n("cache_creation_input_tokens"),
                        n("cache_read_input_tokens"),
                    ),
                    g["total_cost_usd"].as_f64().unwrap_or(0.0),
                ),
            )
        })
        .collect()
}

/// `cctape stats --by KEY --json` over a projects folder with ccusage's
/// prices (and `extra` arguments), checked to have read transcripts only,
/// without an error.
fn stats_json(projects: &Path, by: &str, tz: &str, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args([
            "stats",
            "--json",
            "--quiet",
            "--by",
            by,
            "--timezone",
            tz,
            "--pricing",
        ])
        .arg(price_file())
        .args(extra)
        .arg(projects)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cctape stats: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error_count"], 0, "{}", v["errors"]);
    assert_eq!(v["inputs_without_events"]["count"], 0);
    assert_eq!(
        v["formats"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["transcript"]
    );
    v
}

/// Per (row key, model): ccusage's `modelBreakdowns` of each row of
/// `key`.
fn their_models(v: &Value, key: &str) -> Figures {
    let mut out = Figures::new();
    for r in v[key].as_array().unwrap() {
        for m in r["modelBreakdowns"].as_array().unwrap() {
            let n = |k: &str| m[k].as_u64().unwrap();
            out.insert(
                format!(
                    "{} {}",
                    r["period"].as_str().unwrap(),
                    m["modelName"].as_str().unwrap()
                ),
                (
                    (
                        n("inputTokens"),
                        n("outputTokens"),
                        n("cacheCreationTokens"),
                        n("cacheReadTokens"),
                    ),
                    m["cost"].as_f64().unwrap(),
                ),
            );
        }
    }
    out
}

/// Per (group key, model): each `--by KEY` group's `by_model`.
fn our_models(projects: &Path, by: &str, tz: &str) -> Figures {
    let v = stats_json(projects, by, tz, &[]);
    let mut figures = Figures::new();
    for g in v["groups"].as_array().unwrap() {
        for (model, m) in g["by_model"].as_object().unwrap() {
            let n = |k: &str| m[k].as_u64().unwrap();
            figures.insert(
                format!("{} {model}", g["key"].as_str().unwrap()),
                (
                    (
                        n("input_tokens"),
                        n("output_tokens"),
                        n("cache_creation_input_tokens"),
                        n("cache_read_input_tokens"),
                    ),
                    m["cost_usd"].as_f64().unwrap_or(0.0),
                ),
            );
        }
    }
    figures
}

/// A tree made by `examples/gentranscripts.rs` with (projects, sessions,
/// turns, seed), and its projects folder.
fn generated(
    tag: &str,
    (projects, sessions, turns, seed): (u64, u64, u64, u64),
) -> (TempDir, PathBuf) {
    let tmp = TempDir::new(tag);
    let opts = gentranscripts::Opts {
        projects,
        sessions,
        turns,
        seed,
    };
    gentranscripts::generate(&tmp.0, &opts).unwrap();
    let projects = tmp.0.join(".claude/projects");
    (tmp, projects)
}

/// The same keys, the same tokens and cost within 1e-6 for each.
fn same_figures(ours: &Figures, want: &Figures, keys: &str, what: &str) {
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{keys}"
    );
    for (k, (t, cost)) in want {
        assert_eq!(ours[k].0, *t, "tokens of {what} {k}");
        assert!(
            (ours[k].1 - cost).abs() < 1e-6,
            "cost of {what} {k}: ccusage {cost}, cctape {}",
            ours[k].1
        );
    }
}

/// input, output, cache writes, cache reads.
type Tokens = (u64, u64, u64, u64);

/// Per key: tokens and cost.
type Figures = BTreeMap<String, (Tokens, f64)>;

fn their_rows(v: &Value, key: &str) -> BTreeMap<String, (Tokens, f64)> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            (
                r["period"].as_str().unwrap().to_owned(),
                (
                    (
                        n("inputTokens"),
                        n("outputTokens"),
                        n("cacheCreationTokens"),
                        n("cacheReadTokens"),
                    ),
                    r["totalCost"].as_f64().unwrap(),
                ),
            )
        })
        .collect()
}

fn minus(a: Tokens, b: Tokens) -> Tokens {
    (a.0 - b.0, a.1 - b.1, a.2 - b.2, a.3 - b.3)
}

/// ccusage's cost of the long-context request: LiteLLM's above-200k prices
/// on the tokens past 200k of each bucket (computed here from the price
/// file, not by cctape).
fn marginal_long_context_cost(prices: &PriceTable) -> f64 {
    let p = prices.prices("claude-sonnet-4-5-20250929").unwrap();
    let (_, long) = p.long_context.unwrap();
    let reads = 200_000.0 * p.base.cache_read + 100_000.0 * long.cache_read;
    (10.0 * p.base.input + 1000.0 * p.base.output + reads) / 1e6
}

/// One API request as a transcript holds it: (message id, request id),
/// its session, model, usage and timestamp.
struct Request {
    session: String,
    model: String,
    usage: RequestTokens,
    timestamp: String,
    relayed: bool,
}

fn sum(t: Tokens) -> u64 {
    t.0 + t.1 + t.2 + t.3
}

fn add(a: Tokens, b: Tokens) -> Tokens {
    (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3)
}

fn tokens_of(u: &RequestTokens) -> Tokens {
    (u.input, u.output, u.cache_write(), u.cache_read)
}

/// Every API request of the files, read here with serde_json: assistant
/// records and the assistant messages relayed in `agent_progress` records,
/// one per (message id, request id), its largest usage.
fn requests(files: &[PathBuf]) -> BTreeMap<(String, String), Request> {
    let mut out: BTreeMap<(String, String), Request> = BTreeMap::new();
    for f in files {
        for l in std::fs::read(f).unwrap().split(|&b| b == b'\n') {
            let Ok(v) = serde_json::from_slice::<Value>(l) else {
                continue;
            };
            let d = &v["data"]["message"];
            let (rec, relayed) = if v["type"] == "assistant" {
                (&v, false)
            } else if v["type"] == "progress" && d["type"] == "assistant" {
                (d, true)
            } else {
                continue;
            };
            let m = &rec["message"];
            let Some(u) = m.get("usage") else { continue };
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            let split = u.get("cache_creation").filter(|c| c.is_object());
            let (w5, w1) = match split {
                Some(c) => (
                    c["ephemeral_5m_input_tokens"].as_u64().unwrap_or(0),
                    c["ephemeral_1h_input_tokens"].as_u64().unwrap_or(0),
                ),
                None => (n("cache_creation_input_tokens"), 0),
            };
            let usage = RequestTokens {
                input: n("input_tokens"),
                output: n("output_tokens"),
                cache_read: n("cache_read_input_tokens"),
                cache_write_5m: w5,
                cache_write_1h: w1,
                fast: u["speed"] == "fast",
            };
            let key = (
                m["id"].as_str().unwrap_or("").to_owned(),
                rec["requestId"].as_str().unwrap_or("").to_owned(),
            );
            let r = Request {
                session: v["sessionId"].as_str().unwrap().to_owned(),
                model: m["model"].as_str().unwrap_or("-").to_owned(),
                usage,
                timestamp: rec["timestamp"].as_str().unwrap_or("").to_owned(),
                relayed,
            };
            match out.get_mut(&key) {
                Some(old) => {
                    // A direct record wins over a relay; then the largest.
                    let better = (old.relayed && !r.relayed)
                        || (old.relayed == r.relayed && r.usage.total() > old.usage.total());
                    let relayed = old.relayed && r.relayed;
                    if better {
                        *old = r;
                    }
                    old.relayed = relayed;
                }
                None => {
                    out.insert(key, r);
                }
            }
        }
    }
    out
}

/// Per session, the tokens and cost of the requests that are only relayed
/// in `agent_progress` records (rule 3), and of those whose timestamp is
/// not a date (rule 1).
fn rule_parts(
    reqs: &BTreeMap<(String, String), Request>,
    prices: &PriceTable,
) -> (Figures, Figures) {
    let (mut relayed, mut undated): (Figures, Figures) = Default::default();
    for r in reqs.values() {
        let cost = prices.cost(&r.model, &r.usage).unwrap_or(0.0);
        let dated = cctape::time::parse_millis(&r.timestamp).is_some();
        let slot = match (r.relayed, dated) {
            (_, false) => undated.entry(r.session.clone()).or_default(),
            (true, true) => relayed.entry(r.session.clone()).or_default(),
            (false, true) => continue,
        };
        slot.0 = add(slot.0, tokens_of(&r.usage));
        slot.1 += cost;
    }
    (relayed, undated)
}

fn compare(tz: &str) {
    let Some(bin) = ccusage() else { return };
    let Some(rw) = realworld_dir() else { return };
    let tmp = TempDir::new(&format!("ccusage-{}", tz.replace('/', "-")));
    let projects = tmp.0.join(".claude/projects");
    let mut files = lay_out(&rw, &projects);
    let transcripts = files.len();
    assert_eq!(transcripts, 19, "every transcript of both folders");
    files.extend(rule_lines(&projects));
    let prices = PriceTable::from_file(&price_file()).unwrap();
    let ours_sessions = ours(&projects, "session", tz);
    let ours_days = ours(&projects, "day", tz);
    let sessions = their_rows(&run(&bin, &tmp.0, "session", tz), "session");
    let days = their_rows(&run(&bin, &tmp.0, "daily", tz), "daily");
    let reqs = requests(&files);
    let (relayed, undated) = rule_parts(&reqs, &prices);

    // Sessions.
    let mut relayed_sessions = 0;
    let mut undated_sessions = 0;
    for (id, &(ours_tokens, ours_cost)) in &ours_sessions {
        if id == "rule-long-context" {
            let (t, cost) = sessions[id];
            assert_eq!(t, ours_tokens, "rule 2 changes cost, not tokens");
            let short = prices
                .cost(
                    "claude-sonnet-4-5-20250929",
                    &RequestTokens {
                        input: 10,
                        output: 1000,
                        cache_read: 150_000,
                        ..Default::default()
                    },
                )
                .unwrap();
            let want_theirs = marginal_long_context_cost(&prices) + short;
            assert!(
                (cost - want_theirs).abs() < 1e-6,
                "ccusage {cost} vs {want_theirs}"
            );
            let whole = (10.0 * 6.0 + 1000.0 * 22.5 + 300_000.0 * 0.6) / 1e6;
            assert!((ours_cost - (whole + short)).abs() < 1e-9, "{ours_cost}");
            continue;
        }
        let (mut want, mut want_cost) = (ours_tokens, ours_cost);
        if let Some((t, c)) = relayed.get(id) {
            // Rule 3: ccusage's session report leaves these out.
            want = minus(want, *t);
            want_cost -= c;
            relayed_sessions += 1;
        }
        if let Some((t, c)) = undated.get(id) {
            // Rule 1: ccusage drops what has no date.
            want = minus(want, *t);
            want_cost -= c;
            undated_sessions += 1;
            assert!(sum(*t) > 0);
        }
        if sum(want) == 0 && !sessions.contains_key(id) {
            continue;
        }
        let (t, cost) = sessions
            .get(id)
            .unwrap_or_else(|| panic!("ccusage has no session {id}"));
        assert_eq!(*t, want, "tokens of session {id}");
        assert!(
            (cost - want_cost).abs() < 1e-6,
            "cost of session {id}: ccusage {cost}, cctape {want_cost}"
        );
    }
    assert_eq!(
        undated_sessions, 1,
        "the normalized transcript's <TIMESTAMP> records"
    );
    assert_eq!(
        relayed_sessions, 1,
        "491e126e's subagent afb92ff has no file of its own"
    );
    // Rule 3 seen from ccusage alone: its session and daily totals differ
    // by exactly the relayed requests.
    let total =
        |rows: &BTreeMap<String, (Tokens, f64)>| rows.values().map(|r| r.0).fold((0, 0, 0, 0), add);
    assert_eq!(minus(total(&days), total(&sessions)), total(&relayed));
    for id in sessions.keys() {
        assert!(
            ours_sessions.contains_key(id),
            "ccusage's session {id} is not ours"
        );
    }
    assert!(sessions.len() >= 15);

    // Blocks: ccusage's blocks leave out what its session report leaves out
    // (rules 1 and 3); each relayed-only request goes back into the ccusage
    // block it falls in, and the undated ones are cctape's `unknown` block.
    let blocks = run(&bin, &tmp.0, "blocks", tz);
    let ours_blocks = ours(&projects, "block", tz);
    let mut want_blocks = Figures::new();
    let mut spans = Vec::new();
    for b in blocks["blocks"].as_array().unwrap() {
        if b["isGap"].as_bool().unwrap() {
            continue;
        }
        let t = &b["tokenCounts"];
        let n = |k: &str| t[k].as_u64().unwrap();
        let id = b["id"].as_str().unwrap().to_owned();
        let ms = |k: &str| cctape::time::parse_millis(b[k].as_str().unwrap()).unwrap();
        spans.push((ms("startTime"), ms("endTime"), id.clone()));
        want_blocks.insert(
            id,
            (
                (
                    n("inputTokens"),
                    n("outputTokens"),
                    n("cacheCreationInputTokens"),
                    n("cacheReadInputTokens"),
                ),
                b["costUSD"].as_f64().unwrap(),
            ),
        );
    }
    let mut moved = 0;
    for r in reqs.values().filter(|r| r.relayed) {
        let Some(t) = cctape::time::parse_millis(&r.timestamp) else {
            continue;
        };
        let (_, _, id) = spans
            .iter()
            .find(|(a, b, _)| *a <= t && t <= *b)
            .unwrap_or_else(|| panic!("a ccusage block for {}", r.timestamp));
        let slot = want_blocks.get_mut(id).unwrap();
        slot.0 = add(slot.0, tokens_of(&r.usage));
        slot.1 += prices.cost(&r.model, &r.usage).unwrap_or(0.0);
        moved += 1;
    }
    assert!(moved >= 5, "{moved} relayed-only requests");
    want_blocks.insert("unknown".into(), (total(&undated), 0.0));
    assert_eq!(
        ours_blocks.keys().collect::<Vec<_>>(),
        want_blocks.keys().collect::<Vec<_>>(),
        "blocks in {tz}"
    );
    for (k, (t, cost)) in &want_blocks {
        assert_eq!(ours_blocks[k].0, *t, "tokens of block {k} in {tz}");
        if k == "unknown" {
            continue;
        }
        let mut want_cost = *cost;
        if sessions.contains_key("rule-long-context")
            && ours_sessions["rule-long-context"].0 == ours_blocks[k].0
        {
            // Rule 2's session alone in its block: ccusage's marginal price.
            want_cost += ours_sessions["rule-long-context"].1 - sessions["rule-long-context"].1;
        }
        assert!(
            (ours_blocks[k].1 - want_cost).abs() < 1e-6,
            "cost of block {k} in {tz}: ccusage and the relayed {want_cost}, cctape {}",
            ours_blocks[k].1
        );
    }

    // Days: the same days, and what has no date on no day ("unknown").
    let (unknown, _) = ours_days["unknown"];
    assert_eq!(unknown, total(&undated), "rule 1: the undated requests");
    let dated: Vec<&String> = ours_days.keys().filter(|k| *k != "unknown").collect();
    assert_eq!(
        dated,
        days.keys().collect::<Vec<_>>(),
        "the same days in {tz}"
    );
    for (day, &(t, cost)) in &days {
        let (ours_t, mut ours_cost) = ours_days[day];
        assert_eq!(t, ours_t, "tokens of {day} in {tz}");
        if day == "2026-03-01" {
            // Rule 2's session is all on that day in every zone tested.
            ours_cost += sessions["rule-long-context"].1 - ours_sessions["rule-long-context"].1;
        }
        assert!(
            (cost - ours_cost).abs() < 1e-6,
            "cost of {day} in {tz}: ccusage {cost}, cctape {ours_cost}"
        );
    }
}

#[test]
fn tokens_and_cost_equal_ccusage_per_session_and_day_in_utc() {
    compare("UTC");
}

#[test]
fn tokens_and_cost_equal_ccusage_per_session_and_day_in_tokyo() {
    compare("Asia/Tokyo");
}

#[test]
fn tokens_and_cost_equal_ccusage_per_session_and_day_in_los_angeles() {
    compare("America/Los_Angeles");
}

/// A generated `~/.claude/projects` tree (examples/gentranscripts.rs: many
/// projects and sessions, subagent files beside their sessions): the same
/// tokens and cost per session and per day, with no rule to apply.
#[test]
fn tokens_and_cost_equal_ccusage_on_a_generated_tree() {
    let Some(bin) = ccusage() else { return };
    let tmp = TempDir::new("ccusage-generated");
    let opts = gentranscripts::Opts {
        projects: 4,
        sessions: 5,
        turns: 6,
        seed: 11,
    };
    let (files, _) = gentranscripts::generate(&tmp.0, &opts).unwrap();
    assert!(files > 20, "{files} files");
    let projects = tmp.0.join(".claude/projects");
    let mut all = Vec::new();
    let mut stack = vec![projects.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                all.push(p);
            }
        }
    }
    assert!(
        all.iter()
            .any(|p| p.to_string_lossy().contains("/subagents/agent-")),
        "the tree has subagent files"
    );
    // No rule applies: every request is dated, under 200k tokens of
    // context, and in its own file.
    let reqs = requests(&all);
    assert!(
        reqs.values()
            .all(|r| r.usage.context() < 200_000 && !r.relayed)
    );
    for tz in ["UTC", "Asia/Tokyo"] {
        for (by, report, key) in [
            ("session", "session", "session"),
            ("day", "daily", "daily"),
            ("week", "weekly", "weekly"),
            ("month", "monthly", "monthly"),
        ] {
            let v = run(&bin, &tmp.0, report, tz);
            same_figures(
                &ours(&projects, by, tz),
                &their_rows(&v, key),
                &format!("{by} keys in {tz}"),
                &format!("{by} in {tz}"),
            );
            // Each row per model: ccusage's `modelBreakdowns`.
            same_figures(
                &our_models(&projects, by, tz),
                &their_models(&v, key),
                &format!("{by} and model keys in {tz}"),
                &format!("{by} and model in {tz}"),
            );
        }
    }
}

/// `--since` and `--until` keep each request by its own day in the zone,
/// in every report: the days, weeks and months equal ccusage's with the
/// same bounds, and every session's figures equal the sum of its kept
/// requests, so the totals of `--by session` equal those of `--by day`.
///
/// ccusage 20.0.24's `session` report takes its bounds otherwise: it keeps
/// whole sessions by their last activity, and its `--until` compares that
/// timestamp with the day as text, so a session last active on the
/// `--until` day is dropped while `daily` keeps the day. On a generated tree
/// each session's requests fall on one day, where a session's kept figures
/// are all or nothing: ccusage's unbounded row when its day is kept.
#[test]
fn since_and_until_keep_each_request_by_its_day() {
    let Some(bin) = ccusage() else { return };
    let (tmp, projects) = generated("ccusage-since", (3, 4, 8, 5));
    for tz in ["UTC", "Asia/Tokyo"] {
        let days: Vec<String> = their_rows(&run(&bin, &tmp.0, "daily", tz), "daily")
            .into_keys()
            .collect();
        assert!(days.len() >= 6, "{} days in {tz}", days.len());
        let (since, until) = (&days[days.len() / 3], &days[2 * days.len() / 3]);
        let compact = |d: &str| d.replace('-', "");
        // ccusage takes YYYYMMDD only; cctape both forms.
        let theirs_args = ["--since", &compact(since), "--until", &compact(until)];
        let ours_args = ["--since", since.as_str(), "--until", &compact(until)];
        let tokens = |f: &Figures| f.values().map(|(t, _)| sum(*t)).sum::<u64>();
        let mut kept_tokens = 0;
        for (by, report, key) in [
            ("day", "daily", "daily"),
            ("week", "weekly", "weekly"),
            ("month", "monthly", "monthly"),
        ] {
            let all = their_rows(&run(&bin, &tmp.0, report, tz), key);
            let theirs = their_rows(&run_with(&bin, &tmp.0, report, tz, &theirs_args), key);
            let ours = ours_with(&projects, by, tz, &ours_args);
            assert!(
                tokens(&theirs) < tokens(&all) && tokens(&theirs) > 0,
                "{since}..{until} keeps part of the {by} tokens in {tz}"
            );
            kept_tokens = tokens(&theirs);
            same_figures(
                &ours,
                &theirs,
                &format!("{by} keys from {since} to {until} in {tz}"),
                &format!("{by} in {tz}"),
            );
        }
        // Sessions: each on one day here, so kept whole or not at all.
        let sessions = run(&bin, &tmp.0, "session", tz);
        let zone = cctape::time::Zone::named(tz).unwrap();
        let (lo, hi) = (
            cctape::time::Day::parse(since).unwrap(),
            cctape::time::Day::parse(until).unwrap(),
        );
        let whole = their_rows(&sessions, "session");
        let mut expected = Figures::new();
        for row in sessions["session"].as_array().unwrap() {
            let id = row["period"].as_str().unwrap();
            let last = row["metadata"]["lastActivity"].as_str().unwrap();
            let day = cctape::time::Day::of_timestamp(last, &zone).unwrap();
            if lo <= day && day <= hi {
                expected.insert(id.to_owned(), whole[id]);
            }
        }
        // Each session on one day: the kept sessions, whole, hold the kept
        // days' tokens.
        assert_eq!(
            tokens(&expected),
            kept_tokens,
            "sessions on one day each in {tz}"
        );
        let ours = ours_with(&projects, "session", tz, &ours_args);
        assert_eq!(
            tokens(&ours),
            kept_tokens,
            "--by session and --by day agree in {tz}"
        );
        same_figures(
            &ours,
            &expected,
            &format!("sessions from {since} to {until} in {tz}"),
            &format!("session in {tz}"),
        );
        // `verdict` with the same bounds: a record for each session kept,
        // with the kept requests' cost.
        let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args([
                "verdict",
                "--json",
                "--quiet",
                "--timezone",
                tz,
                "--pricing",
            ])
            .arg(price_file())
            .args(ours_args)
            .arg(&projects)
            .output()
            .unwrap();
        let records: BTreeMap<String, f64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["session_id"].as_str().unwrap().to_owned(),
                    v["total_cost_usd"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            records.keys().collect::<Vec<_>>(),
            ours.keys().collect::<Vec<_>>(),
            "verdict's sessions from {since} to {until} in {tz}"
        );
        for (id, cost) in &records {
            assert!((cost - ours[id].1).abs() < 1e-9, "verdict cost of {id}");
        }
    }
}

/// `--by block` gives ccusage's `blocks`: the same five-hour blocks (each
/// keyed by its start, ccusage's `id`; its gap blocks hold no usage and are
/// no group), the same tokens and cost in each, in any time zone (blocks
/// start on UTC hours).
#[test]
fn blocks_equal_ccusage_blocks() {
    let Some(bin) = ccusage() else { return };
    let (tmp, projects) = generated("ccusage-blocks", (4, 6, 10, 3));
    for tz in ["UTC", "Asia/Kolkata"] {
        let v = run(&bin, &tmp.0, "blocks", tz);
        // Each block's end and last activity, as ccusage's `endTime` and
        // `actualEndTime`.
        let ours_json = stats_json(&projects, "block", tz, &[]);
        let ends = |rows: &Value, key: &str, end: &str, last: &str| -> Vec<[String; 3]> {
            rows.as_array()
                .unwrap()
                .iter()
                .filter(|r| r[end].is_string())
                .map(|r| [key, end, last].map(|k| r[k].as_str().unwrap().to_owned()))
                .collect()
        };
        assert_eq!(
            ends(&ours_json["groups"], "key", "block_end", "last_activity"),
            ends(
                &Value::Array(
                    v["blocks"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|b| b["isGap"] == false)
                        .cloned()
                        .collect()
                ),
                "id",
                "endTime",
                "actualEndTime"
            ),
            "block ends in {tz}"
        );
        let mut theirs = Figures::new();
        let mut gaps = 0;
        for b in v["blocks"].as_array().unwrap() {
            if b["isGap"].as_bool().unwrap() {
                gaps += 1;
                continue;
            }
            let t = &b["tokenCounts"];
            let n = |k: &str| t[k].as_u64().unwrap();
            theirs.insert(
                b["id"].as_str().unwrap().to_owned(),
                (
                    (
                        n("inputTokens"),
                        n("outputTokens"),
                        n("cacheCreationInputTokens"),
                        n("cacheReadInputTokens"),
                    ),
                    b["costUSD"].as_f64().unwrap(),
                ),
            );
        }
        assert!(
            theirs.len() >= 10 && gaps > 0,
            "{} blocks, {gaps} gaps",
            theirs.len()
        );
        let ours = ours(&projects, "block", tz);
        same_figures(
            &ours,
            &theirs,
            &format!("blocks in {tz}"),
            &format!("block in {tz}"),
        );
    }
}

#[path = "support/realworld.rs"]
mod realworld_files;
use realworld_files::realworld_dir;
