//! One accounting in every command (issue 11): `stats --json`,
//! `stats --csv --by model`, `verdict`, `tree --json` and the exported
//! `runs` table (read with DuckDB) give the same tokens and cost per run and
//! in total over ../shared/realworld (wave2 inside it); auxiliary cost sums
//! per run and no init model is ever auxiliary; inputs without events are
//! not runs; and `stats --json` is the same bytes for any `--jobs` (issue
//! 12, item 7), its cost total what Python's `math.fsum` gives.
//!
//! Without ../shared/realworld (or the Python package duckdb) the tests that
//! need it print "skipped" and pass, unless `CI` is set.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn skip(why: &str) {
    println!("skipped: {why}");
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}, and CI is set: this test must run in CI"
    );
}

fn realworld() -> Option<PathBuf> {
    let d = root().join("../shared/realworld");
    if d.is_dir() {
        Some(d)
    } else {
        skip("../shared/realworld not found");
        None
    }
}

fn cctape(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .args(paths)
        .env_remove("CCTAPE_SPLIT_AT")
        .output()
        .unwrap()
}

fn lines(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn temp_dir(name: &str) -> Scratch {
    scratch(&format!("acct-{name}"))
}

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// Per run: main and subagent output tokens, all models' output tokens,
/// cost.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Fig {
    main: u64,
    sub: u64,
    cost: f64,
}

/// Exact sums checked by Python (`json` reads floats correctly rounded,
/// `math.fsum` sums them exactly; serde_json here is not built with
/// `float_roundtrip`): the `stats --json` output against the `verdict`
/// records. Panics naming the sums that differ.
fn check_sums_with_fsum(stats: &[u8], verdict: &[u8]) {
    let dir = temp_dir("fsum");
    let (s, v) = (dir.join("stats.json"), dir.join("verdict.ndjson"));
    std::fs::write(&s, stats).unwrap();
    std::fs::write(&v, verdict).unwrap();
    let script = r#"
import json, math, sys
stats = json.load(open(sys.argv[1]))
runs = [json.loads(l) for l in open(sys.argv[2])]
runs = [r for r in runs if r.get("verdict") is not None and "no_events" not in r]
def cost(r):
    c = r["total_cost_usd"]
    return c if isinstance(c, (int, float)) else 0.0
bad = []
want = math.fsum(cost(r) for r in runs)
if stats["total_cost_usd"] != want:
    bad.append(("total", stats["total_cost_usd"], want))
for pf in stats["per_file"]:
    w = math.fsum(cost(r) for r in runs if r["file"] == pf["file"])
    if pf["total_cost_usd"] != w:
        bad.append((pf["file"], pf["total_cost_usd"], w))
aux = [x["cost_usd"] for r in runs for x in r["usage"]["by_role"] if x["role"] == "auxiliary"]
if stats["cost_by_role"]["auxiliary"] != math.fsum(aux):
    bad.append(("auxiliary", stats["cost_by_role"]["auxiliary"], math.fsum(aux)))
per_run_aux = math.fsum(r["cost"]["auxiliary_cost_usd"] for r in runs)
if abs(stats["cost_by_role"]["auxiliary"] - per_run_aux) > 1e-15:
    bad.append(("auxiliary per run", stats["cost_by_role"]["auxiliary"], per_run_aux))
print(json.dumps(bad))
"#;
    let o = Command::new("python3")
        .args(["-c", script])
        .arg(&s)
        .arg(&v)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bad = String::from_utf8_lossy(&o.stdout);
    assert_eq!(bad.trim(), "[]", "sums that are not math.fsum's");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_command_gives_the_same_tokens_and_cost() {
    let Some(dir) = realworld() else { return };
    if !python_has("duckdb") {
        skip("the Python package duckdb cannot be imported");
        return;
    }
    // verdict: one record per run (inputs without events apart).
    let v = cctape(&["verdict", "--json", "--quiet"], &[&dir]);
    let records = lines(&v);
    let runs: Vec<&Value> = records
        .iter()
        .filter(|r| r["no_events"].is_null() && !r["verdict"].is_null())
        .collect();
    assert!(runs.len() > 60, "{} runs", runs.len());
    let verdict: Vec<(String, u64, Fig)> = runs
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_string(),
                u(&r["lines"]["first"]),
                Fig {
                    main: u(&r["usage"]["main"]["output_tokens"]),
                    sub: u(&r["usage"]["subagents"]["output_tokens"]),
                    cost: f(&r["total_cost_usd"]),
                },
            )
        })
        .collect();

    // tree --json: the same runs in the same order.
    let t: Vec<Value> = lines(&cctape(&["tree", "--json", "--quiet"], &[&dir]))
        .into_iter()
        .filter(|r| r["no_events"].is_null())
        .collect();
    assert_eq!(t.len(), verdict.len(), "tree runs");
    for (tr, (file, first, fig)) in t.iter().zip(&verdict) {
        let name = format!("{file}:{first}");
        assert_eq!(tr["file"].as_str(), Some(file.as_str()), "{name}");
        assert_eq!(
            u(&tr["main"]["output_tokens"]),
            fig.main,
            "{name}: tree main"
        );
        assert_eq!(
            u(&tr["subagents"]["output_tokens"]),
            fig.sub,
            "{name}: tree subagents"
        );
        assert_eq!(f(&tr["total_cost_usd"]), fig.cost, "{name}: tree cost");
    }

    // The exported runs table, read by DuckDB.
    let out = temp_dir("export");
    let e = cctape(&["export", "--quiet", "--out"], &[&out, &dir]);
    // Exit 2 says some lines were not events (grep's convention); the
    // export itself is complete.
    let err = String::from_utf8_lossy(&e.stderr);
    assert_eq!(e.status.code(), Some(2), "{err}");
    assert!(err.contains("lines not exported (not events)"), "{err}");
    let script = r#"
import duckdb, json, sys
rows = duckdb.connect().execute(
    f"SELECT file, first_line, main_output_tokens, subagent_output_tokens, total_cost_usd "
    f"FROM read_parquet('{sys.argv[1]}/runs/*.parquet') WHERE events > 0 "
    f"ORDER BY file, first_line").fetchall()
print(json.dumps([[a, b, c, d, e] for a, b, c, d, e in rows]))
"#;
    let o = Command::new("python3")
        .args(["-c", script])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let mut sorted = verdict.clone();
    sorted.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    assert_eq!(table.len(), sorted.len(), "runs table rows");
    for (row, (file, first, fig)) in table.iter().zip(&sorted) {
        let name = format!("{file}:{first}");
        assert_eq!(row[0].as_str(), Some(file.as_str()), "{name}");
        assert_eq!(u(&row[1]), *first, "{name}");
        assert_eq!(u(&row[2]), fig.main, "{name}: runs.main_output_tokens");
        assert_eq!(u(&row[3]), fig.sub, "{name}: runs.subagent_output_tokens");
        assert_eq!(f(&row[4]), fig.cost, "{name}: runs.total_cost_usd");
    }
    std::fs::remove_dir_all(&out).unwrap();

    // stats --json: per file and in total (the cost sums checked by Python's
    // math.fsum of the verdict records' costs).
    let stats_out = cctape(&["stats", "--json", "--quiet"], &[&dir]).stdout;
    check_sums_with_fsum(&stats_out, &v.stdout);
    let s: Value = serde_json::from_slice(&stats_out).unwrap();
    let mut per_file: BTreeMap<&str, Vec<Fig>> = BTreeMap::new();
    for (file, _, fig) in &verdict {
        per_file.entry(file).or_default().push(*fig);
    }
    // An input without events is one run of its own in every command.
    let no_events: Vec<&str> = records
        .iter()
        .filter(|r| !r["no_events"].is_null())
        .filter_map(|r| r["file"].as_str())
        .collect();
    for pf in s["per_file"].as_array().unwrap() {
        let file = pf["file"].as_str().unwrap();
        let figs = per_file.get(file).cloned().unwrap_or_default();
        let own = u64::from(no_events.contains(&file));
        assert_eq!(u(&pf["runs"]), figs.len() as u64 + own, "{file}: runs");
        let main: u64 = figs.iter().map(|x| x.main).sum();
        let sub: u64 = figs.iter().map(|x| x.sub).sum();
        assert_eq!(u(&pf["usage"]["main"]["output_tokens"]), main, "{file}");
        assert_eq!(u(&pf["usage"]["subagents"]["output_tokens"]), sub, "{file}");
    }
    let all = |g: fn(&Fig) -> u64| verdict.iter().map(|x| g(&x.2)).sum::<u64>();
    assert_eq!(u(&s["runs"]), (verdict.len() + no_events.len()) as u64);
    assert_eq!(
        u(&s["inputs_without_events"]["count"]),
        no_events.len() as u64
    );
    assert_eq!(u(&s["usage"]["main"]["output_tokens"]), all(|x| x.main));
    assert_eq!(u(&s["usage"]["subagents"]["output_tokens"]), all(|x| x.sub));
    assert_eq!(
        u(&s["usage"]["all_models"]["output_tokens"]),
        // The model rows are the runs' best figures (issue 22 item 13): they
        // add up to main plus subagents.
        all(|x| x.main + x.sub)
    );

    // stats --csv --by model: the model-and-role rows add up to the runs'.
    let c = cctape(&["stats", "--csv", "--by", "model", "--quiet"], &[&dir]);
    let text = String::from_utf8(c.stdout).unwrap();
    let mut rdr = text.lines();
    let header: Vec<&str> = rdr.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (out_col, cost_col, role_col) = (col("output_tokens"), col("total_cost_usd"), col("role"));
    let mut csv_out = 0;
    let mut csv_costs = Vec::new();
    for l in rdr {
        let cells: Vec<&str> = l.split(',').collect();
        assert!(
            ["main", "subagent", "auxiliary", "unknown"].contains(&cells[role_col]),
            "{l}"
        );
        csv_out += cells[out_col].parse::<u64>().unwrap();
        csv_costs.push(cells[cost_col].parse::<f64>().unwrap());
    }
    assert_eq!(
        csv_out,
        all(|x| x.main + x.sub),
        "csv --by model output tokens"
    );
    let role_costs: Vec<f64> = runs
        .iter()
        .flat_map(|r| r["usage"]["by_role"].as_array().unwrap().iter())
        .filter_map(|x| x["cost_usd"].as_f64())
        .collect();
    let (a, b): (f64, f64) = (csv_costs.iter().sum(), role_costs.iter().sum());
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "csv cost {a} vs {b}"
    );
}

#[test]
fn auxiliary_cost_sums_per_run_and_no_init_model_is_auxiliary() {
    let Some(dir) = realworld() else { return };
    let v = cctape(&["verdict", "--json", "--quiet"], &[&dir]);
    let records = lines(&v);
    let mut aux_entries = 0;
    let mut checked = 0;
    for r in records.iter().filter(|r| r["no_events"].is_null()) {
        let base = |m: &str| m.split('[').next().unwrap_or(m).to_string();
        if let Some(init) = r["model"].as_str() {
            for row in r["usage"]["by_role"].as_array().unwrap() {
                if base(row["model"].as_str().unwrap()) == base(init) {
                    assert_eq!(row["role"], "main", "{}: init model {init}", r["file"]);
                    checked += 1;
                }
            }
        }
        aux_entries += r["usage"]["by_role"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| row["role"] == "auxiliary")
            .count();
    }
    assert!(checked > 20, "{checked} init models checked");
    assert!(aux_entries > 5);
    // The aggregate auxiliary cost is math.fsum of the per-run entries (and
    // of the per-run auxiliary costs).
    let s = cctape(&["stats", "--json", "--quiet"], &[&dir]);
    check_sums_with_fsum(&s.stdout, &v.stdout);
    // The GLM run (wave2 qm6): its own model (asked as glm-5, answering as
    // glm-5.1) is main, not auxiliary.
    let qm6 = records
        .iter()
        .find(|r| {
            r["file"]
                .as_str()
                .is_some_and(|f| f.contains("mta-my-way-qm6"))
        })
        .unwrap();
    assert_eq!(qm6["cost"]["auxiliary_cost_usd"], 0.0);
    let roles: Vec<(&str, &str)> = qm6["usage"]["by_role"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["model"].as_str().unwrap(), x["role"].as_str().unwrap()))
        .collect();
    assert_eq!(roles, [("glm-5", "main"), ("glm-5-turbo", "subagent")]);
}

/// An input without events is one run of its own, in `stats` as in
/// `verdict` (issue 22 item 10): a text output is one finding (its format),
/// and where its last line is the CLI's own final error, that line is its
/// verdict; an empty file is a startup failure. A pretty-printed object is
/// read as an event (issue 13), so it is a run of events.
#[test]
fn inputs_without_events_are_one_run_each() {
    let dir = temp_dir("no-events");
    let text = dir.join("stdout.txt");
    std::fs::write(
        &text,
        "API Error: Unable to connect to API (ConnectionRefused)\n",
    )
    .unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let pretty = dir.join("pretty.json");
    std::fs::write(
        &pretty,
        "{\n  \"type\": \"result\",\n  \"subtype\": \"success\"\n}\n",
    )
    .unwrap();
    let paths: Vec<&Path> = vec![&text, &empty, &pretty];
    let s = cctape(&["stats", "--json", "--quiet"], &paths);
    assert_eq!(s.status.code(), Some(0));
    let s: Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(
        s["runs"], 3,
        "the pretty result, the text and the empty file"
    );
    assert_eq!(s["verdicts"]["success"], 1, "the pretty result");
    assert_eq!(s["verdicts"]["error"], 1, "the text's last line");
    assert_eq!(s["verdicts"]["startup_failure"], 1, "the empty file");
    assert_eq!(s["error_count"], 0, "a text input is not an error per line");
    assert_eq!(s["inputs_without_events"]["count"], 2);
    assert_eq!(s["inputs_without_events"]["by_format"]["text"], 1);
    assert_eq!(s["inputs_without_events"]["by_format"]["empty"], 1);
    assert_eq!(s["formats"]["json-pretty"], 1);
    let v = cctape(&["verdict", "--json", "--quiet"], &paths);
    assert_eq!(v.status.code(), Some(1), "inputs without events are not ok");
    let recs = lines(&v);
    assert_eq!(recs.len(), 3);
    for r in &recs[..2] {
        assert_eq!(r["ok"], false);
        assert_eq!(r["events"], 0);
        // verdict and ok first, then file, then what the input looks like.
        let keys: Vec<&String> = r.as_object().unwrap().keys().take(4).collect();
        assert_eq!(keys, ["verdict", "ok", "file", "no_events"]);
    }
    assert_eq!(recs[0]["no_events"]["format"], "text");
    let line = "API Error: Unable to connect to API (ConnectionRefused)";
    assert_eq!(recs[0]["no_events"]["first_line"], line);
    // The CLI's own final error line is the verdict, its source named.
    assert_eq!(recs[0]["verdict"], "error");
    assert_eq!(recs[0]["no_events"]["final_error"]["line"], line);
    assert_eq!(recs[0]["errors"][0], line);
    assert_eq!(recs[1]["no_events"]["format"], "empty");
    assert_eq!(recs[1]["verdict"], "startup_failure");
    assert_eq!(recs[2]["verdict"], "success");
    // The real JSON array capture (wave2) is its run: max turns, as its
    // compacted twin.
    if let Some(rw) = realworld() {
        let arr =
            rw.join("wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656.json");
        let v = cctape(&["verdict", "--json", "--quiet"], &[&arr]);
        assert_eq!(v.status.code(), Some(1));
        let r = &lines(&v)[0];
        assert_eq!(r["verdict"], "max_turns");
        let s: Value =
            serde_json::from_slice(&cctape(&["stats", "--json", "--quiet"], &[&arr]).stdout)
                .unwrap();
        assert_eq!(
            (
                s["runs"].as_u64(),
                s["inputs_without_events"]["count"].as_u64()
            ),
            (Some(1), Some(0))
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `cctape ARGS --quiet --jobs JOBS PATHS` with the file-splitting size and
/// the chunk size lowered, so that files are cut into many chunks (read
/// ahead on the pool for the commands that fold runs, merged for the
/// others): exit code, stdout and stderr.
fn command_bytes(args: &[&str], paths: &[&Path], jobs: &str) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .args(["--quiet", "--jobs", jobs])
        .args(paths)
        .env("CCTAPE_SPLIT_AT", "65536")
        .env("CCTAPE_CHUNK", "20000")
        .output()
        .unwrap();
    (o.status.code(), o.stdout, o.stderr)
}

/// `stats --json` as [`command_bytes`] runs it.
fn stats_bytes(paths: &[&Path], jobs: &str) -> Vec<u8> {
    let (code, out, _) = command_bytes(&["stats", "--json"], paths, jobs);
    assert!(code == Some(0) || code == Some(2));
    out
}

#[test]
fn stats_json_is_the_same_for_any_jobs() {
    let mut sets: Vec<(String, Vec<PathBuf>)> = Vec::new();
    if let Some(rw) = realworld() {
        sets.push(("realworld".into(), vec![rw.clone()]));
        sets.push(("wave2".into(), vec![rw.join("wave2")]));
    }
    // Every profile of examples/gencorpus/, a few MiB each.
    let exe = Path::new(env!("CARGO_BIN_EXE_cctape"))
        .parent()
        .unwrap()
        .join("examples/gencorpus");
    if !exe.is_file() {
        let b = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", "gencorpus"])
            .current_dir(root())
            .status()
            .unwrap();
        assert!(b.success());
    }
    let dir = temp_dir("jobs");
    for profile in ["archive", "partial", "recurring"] {
        let out = dir.join(format!("{profile}.jsonl"));
        let g = Command::new(&exe)
            .args([
                "--profile",
                profile,
                "--bytes",
                "3M",
                "--seed",
                "11",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
        sets.push((profile.into(), vec![out]));
    }
    for (name, paths) in &sets {
        let p: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let one = stats_bytes(&p, "1");
        let v: Value = serde_json::from_slice(&one).unwrap();
        assert!(u(&v["runs"]) > 0, "{name}");
        for jobs in ["2", "8"] {
            assert!(
                stats_bytes(&p, jobs) == one,
                "{name}: stats --json differs between --jobs 1 and {jobs}"
            );
        }
        // The other commands that fold runs read ahead too.
        for args in [
            &["verdict", "--json"][..],
            &["tree"],
            &["check", "--json"],
            &["stats", "--exact"],
        ] {
            let one = command_bytes(args, &p, "1");
            assert!(!one.1.is_empty(), "{name}: {args:?} printed nothing");
            assert!(
                command_bytes(args, &p, "2") == one,
                "{name}: {args:?} differs between --jobs 1 and 2"
            );
        }
        // And the export's Parquet files.
        let mut tables = Vec::new();
        for jobs in ["1", "2"] {
            let out = dir.join(format!("export-{name}-{jobs}"));
            let o = out.to_str().expect("utf-8 path");
            let (code, _, err) = command_bytes(&["export", "--out", o], &p, jobs);
            // Bad lines are missing from the tables: an error (exit 2).
            let want = if u(&v["error_count"]) > 0 { 2 } else { 0 };
            assert_eq!(
                code,
                Some(want),
                "{name}: {}",
                String::from_utf8_lossy(&err)
            );
            let mut files: Vec<(String, Vec<u8>)> = ["events", "runs", "tools"]
                .iter()
                .flat_map(|t| std::fs::read_dir(out.join(t)).expect("table dir"))
                .map(|e| {
                    let path = e.expect("entry").path();
                    let rel = path
                        .strip_prefix(&out)
                        .expect("inside")
                        .display()
                        .to_string();
                    (rel, std::fs::read(&path).expect("read"))
                })
                .collect();
            files.sort();
            assert!(files.len() >= 3, "{name}: {} Parquet files", files.len());
            tables.push(files);
        }
        assert!(
            tables[0] == tables[1],
            "{name}: the export differs between --jobs 1 and 2"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `export` says what it did not export: bad lines on stderr with their
/// positions and in `--json`, and inputs without events apart (no `events`
/// rows; each is one `runs` row, the run `verdict` prints).
#[test]
fn export_reports_bad_lines_and_inputs_without_events() {
    let dir = temp_dir("export-bad");
    let text = dir.join("stdout.txt");
    std::fs::write(
        &text,
        "API Error: Unable to connect to API (ConnectionRefused)\n",
    )
    .unwrap();
    let bad = root().join("corpus/streams/mixed-bad.jsonl");
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["export", "--json", "--quiet", "--out"])
        .arg(&out)
        .arg(&bad)
        .arg(&text)
        .output()
        .unwrap();
    // The bad lines are missing from the tables: exit 2, each said with
    // its position (line, the line's start, the column).
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("mixed-bad.jsonl:3: byte 1303, column 1: invalid_json: expected `null`"),
        "{err}"
    );
    assert!(
        err.contains("stdout.txt: no events (text): one runs row, no events rows"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // mixed-bad.jsonl: 5 lines that are not events and a cut last line
    // (corpus/streams/README.md); the text input is one finding, not a bad
    // line.
    assert_eq!(v["bad_lines"], 6);
    assert!(err.contains("6 lines not exported"), "{err}");
    assert_eq!(v["errors"][0]["line"], 3);
    assert_eq!(
        (&v["errors"][0]["offset"], &v["errors"][0]["column"]),
        (&serde_json::json!(1303), &serde_json::json!(1)),
        "the positions stats --json gives"
    );
    assert_eq!(v["inputs_without_events"]["count"], 1);
    assert_eq!(v["inputs_without_events"]["by_format"]["text"], 1);
    assert_eq!(
        v["tables"]["runs"]["rows"], 2,
        "mixed-bad.jsonl's run, and the text input's"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check` says what is unusual about a number (the real `num_turns: -1`).
#[test]
fn check_says_what_is_unusual_about_a_number() {
    let Some(rw) = realworld() else { return };
    let f = rw.join(
        "wave2/peer-fixtures/meawoppl__rust-claude-codes__claude-codes-test_cases@8e7b091.ndjson",
    );
    let o = cctape(&["check", "--quiet"], &[&f]);
    let text = String::from_utf8_lossy(&o.stdout);
    let row = text
        .lines()
        .find(|l| l.contains("num_turns"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains("num_turns (is Number: negative, -1)"), "{row}");
    assert!(row.ends_with("test_cases@8e7b091.ndjson:4"), "{row}");
}

/// `ExactSum` against Python's `math.fsum` on values of every magnitude and
/// sign, in several orders (a splitmix64 generator; no other dependency).
#[test]
fn exact_sum_is_math_fsum_on_random_values() {
    use cctape::run::{ExactSum, SumValue};
    let mut state = 7u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut cases: Vec<Vec<f64>> = Vec::new();
    for n in [2usize, 10, 100, 1000] {
        for _ in 0..5 {
            let xs: Vec<f64> = (0..n)
                .map(|_| {
                    let r = next();
                    // Costs-like values, and extremes of the exponent range.
                    let mag = match r % 4 {
                        0 => (r >> 11) as f64 / (1u64 << 53) as f64,
                        1 => f64::from_bits(next() & 0x7fef_ffff_ffff_ffff),
                        2 => ((r >> 20) % 1_000_000) as f64 / 1e7,
                        _ => f64::from_bits(next() % (1 << 60)),
                    };
                    if next() % 2 == 0 { mag } else { -mag }
                })
                .collect();
            cases.push(xs);
        }
    }
    let mut lines = String::new();
    for xs in &cases {
        let mut fwd = ExactSum::new();
        let mut rev = ExactSum::new();
        for x in xs {
            fwd.add(*x);
        }
        for x in xs.iter().rev() {
            rev.add(*x);
        }
        assert_eq!(fwd.value(), rev.value());
        let ours = match fwd.value() {
            SumValue::Finite(f) => format!("{f:?}"),
            SumValue::Beyond(t) => format!("\"{t}\""),
        };
        let list: Vec<String> = xs.iter().map(|x| format!("{x:?}")).collect();
        lines.push_str(&format!("{ours}\t{}\n", list.join(",")));
    }
    let script = r#"
import math, sys
bad = 0
for line in sys.stdin:
    ours, xs = line.rstrip("\n").split("\t")
    xs = [float(x) for x in xs.split(",")]
    try:
        want = math.fsum(xs)
    except OverflowError:
        want = None
    if want is None:
        bad += not ours.startswith('"')
    else:
        bad += float(ours) != want
print(bad)
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
}
