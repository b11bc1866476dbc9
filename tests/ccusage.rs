//! Against ccusage 20.0.24, the tool people use on session transcripts.
//!
//! Every transcript of ../shared/realworld (`session-format/`,
//! `wave2/session-format/`, `wave2/transformed/`) is laid out as a
//! `~/.claude/projects` tree in a temporary folder (a session file as
//! `<project>/<sessionId>.jsonl`, a subagent file as
//! `<project>/<sessionId>/subagents/agent-<agentId>.jsonl`), with a few
//! written lines that show where the two differ on purpose. ccusage reads
//! it offline (`HOME=<tmp> ccusage session|daily --offline --json -z TZ`);
//! cctape's transcript fold reads the same files with the prices ccusage
//! embeds (tests/data/ccusage-20.0.24-prices.json, taken from its binary).
//! Tokens per session and per day must be equal and cost equal within 1e-6,
//! apart from the documented rules (docs/transcripts.md), each asserted:
//!
//! 1. a request whose `timestamp` is not a date: ccusage drops it; cctape
//!    counts it in its session and on no day;
//! 2. a request over 200k tokens of context on a model with long-context
//!    prices: ccusage bills the tokens past 200k at the higher price, bucket
//!    by bucket; Anthropic (and cctape) bill the whole request at it;
//! 3. a subagent's requests that show only in its parent's `agent_progress`
//!    records (its own `agent-*.jsonl` absent): ccusage's `daily` counts
//!    them, its `session` does not (so its two reports disagree on the same
//!    files); cctape counts them in both.
//!
//! ccusage is found at `$CCUSAGE`, else where `.ci/run` installs it
//! (`target/ccusage/node_modules/@ccusage/*/bin/ccusage`). Missing, the test
//! says "skipped" and passes, unless `CI` is set: then it fails.

use cctape::pricing::PriceTable;
use cctape::scan::Scanner;
use cctape::time::Zone;
use cctape::transcript::{Report, TranscriptFile, TranscriptFold};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

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

fn realworld() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if dir.is_dir() {
        return Some(dir);
    }
    println!("skipped: ../shared/realworld not found");
    assert!(
        std::env::var_os("CI").is_none(),
        "../shared/realworld not found and CI is set"
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
    let out = Command::new(bin)
        .args([report, "--offline", "--json", "-z", tz])
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

fn ours(projects: &Path, files: &[PathBuf], prices: &PriceTable, tz: &str) -> Report {
    let mut fold = TranscriptFold::new();
    let mut scanner = Scanner::new();
    for f in files {
        let rel = f.strip_prefix(projects).unwrap();
        let bytes = std::fs::read(f).unwrap();
        fold.read_slice(&mut scanner, &bytes, &TranscriptFile::from_path(rel), |e| {
            panic!("{}: {e}", f.display())
        });
    }
    fold.finish(prices, &Zone::named(tz).unwrap())
}

/// input, output, cache writes, cache reads.
type Tokens = (u64, u64, u64, u64);

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

fn tokens(t: &cctape::transcript::Totals) -> Tokens {
    (t.input, t.output, t.cache_write(), t.cache_read)
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

/// Per session, the requests relayed in `agent_progress` records and found
/// nowhere else (read here with serde_json): rule 3.
fn relayed_only(files: &[PathBuf]) -> BTreeMap<String, Tokens> {
    let mut direct = std::collections::BTreeSet::new();
    let mut relayed: BTreeMap<(String, String), (String, Tokens)> = BTreeMap::new();
    let usage = |m: &Value| -> Option<Tokens> {
        let u = m.get("usage")?;
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        Some((
            n("input_tokens"),
            n("output_tokens"),
            n("cache_creation_input_tokens"),
            n("cache_read_input_tokens"),
        ))
    };
    for f in files {
        for l in std::fs::read(f).unwrap().split(|&b| b == b'\n') {
            let Ok(v) = serde_json::from_slice::<Value>(l) else {
                continue;
            };
            let id = |m: &Value, r: &Value| {
                (
                    m["id"].as_str().unwrap_or("").to_owned(),
                    r.as_str().unwrap_or("").to_owned(),
                )
            };
            if v["type"] == "assistant" && usage(&v["message"]).is_some() {
                direct.insert(id(&v["message"], &v["requestId"]));
            }
            let d = &v["data"]["message"];
            if v["type"] == "progress"
                && d["type"] == "assistant"
                && let Some(t) = usage(&d["message"])
            {
                let sum = |t: Tokens| t.0 + t.1 + t.2 + t.3;
                let e = relayed
                    .entry(id(&d["message"], &d["requestId"]))
                    .or_insert((v["sessionId"].as_str().unwrap().to_owned(), t));
                if sum(t) > sum(e.1) {
                    e.1 = t;
                }
            }
        }
    }
    let mut out: BTreeMap<String, Tokens> = BTreeMap::new();
    for (k, (session, t)) in relayed {
        if !direct.contains(&k) {
            let e = out.entry(session).or_default();
            *e = (e.0 + t.0, e.1 + t.1, e.2 + t.2, e.3 + t.3);
        }
    }
    out
}

fn compare(tz: &str) {
    let Some(bin) = ccusage() else { return };
    let Some(rw) = realworld() else { return };
    let tmp = TempDir::new(&format!("ccusage-{}", tz.replace('/', "-")));
    let projects = tmp.0.join(".claude/projects");
    let mut files = lay_out(&rw, &projects);
    let transcripts = files.len();
    assert_eq!(transcripts, 19, "every transcript of both folders");
    files.extend(rule_lines(&projects));
    let prices = PriceTable::from_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ccusage-20.0.24-prices.json"),
    )
    .unwrap();
    let report = ours(&projects, &files, &prices, tz);
    let sessions = their_rows(&run(&bin, &tmp.0, "session", tz), "session");
    let days = their_rows(&run(&bin, &tmp.0, "daily", tz), "daily");

    // Sessions.
    let relayed = relayed_only(&files);
    let mut relayed_sessions = 0;
    let mut undated_sessions = 0;
    for s in &report.sessions {
        let ours_tokens = tokens(&s.totals);
        if s.session_id == "rule-long-context" {
            let (t, cost) = sessions[&s.session_id];
            assert_eq!(t, ours_tokens, "rule 2 changes cost, not tokens");
            let short = prices
                .cost(
                    "claude-sonnet-4-5-20250929",
                    &cctape::pricing::Usage {
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
            assert!(
                (s.totals.cost_usd - (whole + short)).abs() < 1e-9,
                "{}",
                s.totals.cost_usd
            );
            continue;
        }
        let mut dated = minus(ours_tokens, tokens(&s.undated));
        let mut relayed_cost = 0.0;
        if let Some(r) = relayed.get(&s.session_id) {
            // Rule 3: ccusage's session report leaves these out.
            dated = minus(dated, *r);
            relayed_sessions += 1;
            let agents: f64 = s.facts.agents.iter().map(|a| a.totals.cost_usd).sum();
            relayed_cost = agents;
        }
        if s.undated.requests > 0 {
            // Rule 1: ccusage drops what has no date.
            undated_sessions += 1;
            assert!(s.undated.total_tokens() > 0);
        }
        if dated == (0, 0, 0, 0) && s.totals.requests == s.undated.requests {
            assert!(!sessions.contains_key(&s.session_id), "{}", s.session_id);
            continue;
        }
        let (t, cost) = sessions
            .get(&s.session_id)
            .unwrap_or_else(|| panic!("ccusage has no session {}", s.session_id));
        assert_eq!(*t, dated, "tokens of session {}", s.session_id);
        let ours_cost = s.totals.cost_usd - s.undated.cost_usd - relayed_cost;
        assert!(
            (cost - ours_cost).abs() < 1e-6,
            "cost of session {}: ccusage {cost}, cctape {ours_cost}",
            s.session_id
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
    let sum = |rows: &BTreeMap<String, (Tokens, f64)>| {
        rows.values().map(|r| r.0).fold((0, 0, 0, 0), |a, t| {
            (a.0 + t.0, a.1 + t.1, a.2 + t.2, a.3 + t.3)
        })
    };
    let r = relayed.values().fold((0, 0, 0, 0), |a, t| {
        (a.0 + t.0, a.1 + t.1, a.2 + t.2, a.3 + t.3)
    });
    assert_eq!(minus(sum(&days), sum(&sessions)), r);
    let ours_ids: Vec<&str> = report
        .sessions
        .iter()
        .map(|s| s.session_id.as_str())
        .collect();
    for id in sessions.keys() {
        assert!(
            ours_ids.contains(&id.as_str()),
            "ccusage's session {id} is not ours"
        );
    }
    assert!(sessions.len() >= 15);

    // Days.
    assert_eq!(
        report
            .days
            .iter()
            .map(|d| d.day.to_string())
            .collect::<Vec<_>>(),
        days.keys().cloned().collect::<Vec<_>>(),
        "the same days in {tz}"
    );
    for d in &report.days {
        let (t, cost) = days[&d.day.to_string()];
        assert_eq!(t, tokens(&d.totals), "tokens of {} in {tz}", d.day);
        let mut ours_cost = d.totals.cost_usd;
        if d.day.to_string() == "2026-03-01" {
            // Rule 2's session is all on that day in every zone tested.
            let long = report
                .sessions
                .iter()
                .find(|s| s.session_id == "rule-long-context")
                .unwrap();
            let short_and_long_theirs = sessions["rule-long-context"].1;
            ours_cost += short_and_long_theirs - long.totals.cost_usd;
        }
        assert!(
            (cost - ours_cost).abs() < 1e-6,
            "cost of {} in {tz}: ccusage {cost}, cctape {ours_cost}",
            d.day
        );
    }
    assert!(report.undated.requests > 0);
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
