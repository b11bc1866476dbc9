//! One definition of a run for every command (issue 22 item 10,
//! `docs/accounting.md` "What a run is"): `stats`' totals and counts are the
//! sums over the records `verdict` prints, for any set of inputs, and
//! `tree` and `export`'s `runs` table give one entry per run too.
//!
//! Checked over the corpus, every real capture (all waves) and each folder
//! alone: runs, each verdict, cost (summed exactly, as `stats` sums it),
//! the main agents' and subagents' tokens, tool calls, errors and
//! rejections per tool, subagents, API retries, warnings per code, and the
//! inputs without events.

use cctape::framing::Lines;
use cctape::json::tape::Parser;
use cctape::run::{ExactSum, Verdict};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cctape(args: &[&str], inputs: &[PathBuf]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .args(inputs)
        .env("TZ", "UTC")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("run cctape")
}

/// The `total_cost_usd` of each JSON line, read exactly (serde_json without
/// `float_roundtrip` may read a double one unit in the last place off;
/// cctape's parser reads it as written).
fn exact_costs(bytes: &[u8]) -> Vec<Option<f64>> {
    let mut p = Parser::new();
    Lines::new(bytes)
        .filter(|l| !l.bytes.is_empty())
        .map(|l| {
            let doc = p.parse(&l).expect("a JSON line");
            doc.value().get("total_cost_usd").and_then(|v| v.as_f64())
        })
        .collect()
}

fn json_lines(o: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const COUNTS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
];

/// What `stats --json` says, rebuilt from `verdict --json`'s records.
#[derive(Debug, Default, PartialEq)]
struct Sums {
    runs: u64,
    verdicts: BTreeMap<String, u64>,
    cost: Option<f64>,
    costs_not_summed: u64,
    main: [u64; 4],
    subagents: [u64; 4],
    tools: BTreeMap<String, [u64; 3]>,
    subagent_count: u64,
    api_retries: u64,
    warnings: BTreeMap<String, u64>,
    without_events: u64,
}

fn counts(v: &Value) -> [u64; 4] {
    COUNTS.map(|k| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}")))
}

fn add(a: &mut [u64; 4], b: [u64; 4]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

fn from_records(records: &[Value], costs: &[Option<f64>]) -> Sums {
    let mut s = Sums::default();
    let mut cost = ExactSum::new();
    for v in Verdict::ALL {
        s.verdicts.insert(v.as_str().into(), 0);
    }
    assert_eq!(records.len(), costs.len());
    for (r, c) in records.iter().zip(costs) {
        let Some(verdict) = r["verdict"].as_str() else {
            // An input that could not be read: no run.
            continue;
        };
        s.runs += 1;
        *s.verdicts.get_mut(verdict).expect("a known verdict") += 1;
        match (&r["total_cost_usd"], c) {
            (Value::Number(_), Some(c)) => cost.add(*c),
            (Value::String(_), _) => s.costs_not_summed += 1,
            _ => {}
        }
        add(&mut s.main, counts(&r["usage"]["main"]));
        add(&mut s.subagents, counts(&r["usage"]["subagents"]));
        for (name, t) in r["tools"].as_object().unwrap() {
            let row = s.tools.entry(name.clone()).or_default();
            for (i, k) in ["calls", "errors", "rejections"].iter().enumerate() {
                row[i] += t[k].as_u64().unwrap();
            }
        }
        s.subagent_count += r["subagent_count"].as_u64().unwrap();
        s.api_retries += r["api_retries"]["count"].as_u64().unwrap();
        for w in r["warnings"].as_array().unwrap() {
            *s.warnings
                .entry(w["code"].as_str().unwrap().into())
                .or_default() += 1;
        }
        s.without_events += u64::from(r.get("no_events").is_some());
    }
    s.cost = cost.value().as_f64();
    s
}

fn from_stats(j: &Value, cost: Option<f64>) -> Sums {
    Sums {
        runs: j["runs"].as_u64().unwrap(),
        verdicts: j["verdicts"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect(),
        cost,
        costs_not_summed: j["costs_not_summed"].as_u64().unwrap(),
        main: counts(&j["usage"]["main"]),
        subagents: counts(&j["usage"]["subagents"]),
        tools: j["tools"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, t)| {
                let n = |f: &str| t[f].as_u64().unwrap();
                (k.clone(), [n("calls"), n("errors"), n("rejections")])
            })
            .collect(),
        subagent_count: j["subagents"]["count"].as_u64().unwrap(),
        api_retries: j["api_retries"].as_u64().unwrap(),
        warnings: j["warnings"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, w)| (k.clone(), w["count"].as_u64().unwrap()))
            .collect(),
        without_events: j["inputs_without_events"]["count"].as_u64().unwrap(),
    }
}

/// Every command counts the runs of `inputs` alike.
fn agree(what: &str, inputs: &[PathBuf]) -> Sums {
    let v = cctape(&["verdict", "--json", "-q"], inputs);
    let records = json_lines(&v);
    let from_verdict = from_records(&records, &exact_costs(&v.stdout));
    let stats = cctape(&["stats", "--json", "-q"], inputs);
    let cost = exact_costs(&stats.stdout)[0];
    let stats: Value = serde_json::from_slice(&stats.stdout).expect("stats --json");
    assert_eq!(from_stats(&stats, cost), from_verdict, "{what}");
    // tree: one drawing per run.
    let trees = json_lines(&cctape(&["tree", "--json", "-q"], inputs));
    assert_eq!(trees.len() as u64, from_verdict.runs, "{what}: tree");
    let tree_verdicts: Vec<&str> = trees.iter().filter_map(|t| t["verdict"].as_str()).collect();
    let verdicts: Vec<&str> = records
        .iter()
        .filter_map(|r| r["verdict"].as_str())
        .collect();
    assert_eq!(tree_verdicts, verdicts, "{what}: tree, in verdict's order");
    // export: one `runs` row per run.
    let out = scratch::scratch("run-definition");
    let dir = out.to_string_lossy().into_owned();
    let e = cctape(&["export", "--json", "-q", "--out", &dir], inputs);
    let e: Value = serde_json::from_slice(&e.stdout).expect("export --json");
    assert_eq!(
        e["tables"]["runs"]["rows"].as_u64(),
        Some(from_verdict.runs),
        "{what}: export's runs table"
    );
    from_verdict
}

#[test]
fn stats_is_the_sum_of_verdict_records_over_the_corpus() {
    let s = agree("corpus", &[root().join("corpus")]);
    // The empty file is a run of its own: a startup failure.
    assert_eq!(s.without_events, 1);
    assert_eq!(
        s.verdicts["startup_failure"], 2,
        "empty.jsonl and a result naming the cause"
    );
    assert!(s.tools.contains_key("web_fetch"), "server tools are tools");
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn stats_is_the_sum_of_verdict_records_over_every_real_capture() {
    let rw = root().join("../shared/realworld");
    let all = agree("realworld", std::slice::from_ref(&rw));
    assert!(all.runs > 100, "{} runs", all.runs);
    // wave3's text output and its non-event JSON object are runs of their
    // own, each a startup failure without an exit code.
    assert_eq!(all.without_events, 2);
    for wave in ["wave2", "wave3", "session-format", "transformed"] {
        let dir = rw.join(wave);
        if dir.is_dir() {
            agree(wave, &[dir]);
        }
    }
    agree("realworld and the corpus", &[rw, root().join("corpus")]);
}

/// Any set of inputs: one file at a time gives the same sums as all at once.
#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn stats_is_the_sum_of_verdict_records_for_each_wave3_file() {
    let dir = root().join("../shared/realworld/wave3");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("wave3")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x != "md"))
        .collect();
    files.sort();
    assert!(files.len() >= 5);
    for f in &files {
        agree(&f.display().to_string(), std::slice::from_ref(f));
    }
}

/// The sums agree when an input breaks off, cannot be read, or holds
/// nothing at all (each no run, or one run of its own, in every command).
#[test]
fn unreadable_broken_and_empty_inputs_count_alike() {
    let dir = scratch::scratch("run-definition-odd");
    let bad_gzip = dir.join("bad.jsonl.gz");
    std::fs::write(&bad_gzip, b"\x1f\x8b\xff\xff not gzip").expect("write");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, b"").expect("write");
    let text = dir.join("stdout.txt");
    std::fs::write(&text, b"All four children created.\n").expect("write");
    let cut = dir.join("cut.jsonl");
    std::fs::write(
        &cut,
        br#"{"type":"system","subtype":"init","session_id":"s"#,
    )
    .expect("write");
    let inputs: Vec<PathBuf> = [&bad_gzip, &empty, &text, &cut]
        .iter()
        .map(|p| p.to_path_buf())
        .collect();
    let s = agree("odd inputs", &inputs);
    assert_eq!(s.runs, 3, "the unreadable gzip is no run");
    assert_eq!(s.verdicts["startup_failure"], 3);
    assert_eq!(s.without_events, 3);
    let _ = Path::new(&*dir);
}
