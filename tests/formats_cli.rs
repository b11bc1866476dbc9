//! Formats in every command (issue 13): each input is read in the format
//! its first bytes say (or `--format` forces), from the CLI.
//!
//! - every JSON-array or pretty capture of ../shared/realworld gives the
//!   same verdicts as its one-object-a-line twin (a test per pair), and the
//!   182-message array the same `stats --json` as its twin apart from the
//!   format and position fields;
//! - `stats` over ../shared/realworld has no error in those files;
//! - a text output is one finding, its last line the verdict when it is
//!   the CLI's own final error;
//! - the logger-prefixed logs of `transformed/` give their JSON values as
//!   events: every object the README's own extraction recovered
//!   (`.extracted.ndjson`, read with serde_json), in order;
//! - session transcripts: a generated `~/.claude/projects` tree with no
//!   flag, grouped by session, project, model and day, and mixed folders;
//! - `--by day` puts a stream on the day it started, an offset time on its
//!   real day and "not a date" on no day (issue 12 item 13).

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

#[path = "support/realworld_present.rs"]
mod realworld_present;

#[path = "support/realworld.rs"]
mod realworld_files;

fn realworld(rel: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if !dir.is_dir() {
        println!("skipped: ../shared/realworld not found");
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs ../shared/realworld"
        );
        return None;
    }
    Some(dir.join(rel))
}

fn cctape(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .args(paths)
        .output()
        .unwrap()
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

fn json_lines(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A fresh temporary folder.
fn temp_dir(tag: &str) -> Scratch {
    scratch(&format!("fcli-{tag}"))
}

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

/// A value without the keys that say where things are (file, lines, byte
/// offsets), which a pretty capture and its twin cannot share.
fn without_positions(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "file" | "lines" | "line" | "first_line" | "last_line" | "offset"
                    )
                })
                .map(|(k, v)| (k.clone(), without_positions(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_positions).collect()),
        v => v.clone(),
    }
}

/// The pretty (or array) capture and its compacted twin give the same
/// verdicts, the same events by type and no error.
fn twins(pretty: &str, compact: &str) {
    let (Some(a), Some(b)) = (realworld(pretty), realworld(compact)) else {
        return;
    };
    let va = json_lines(&cctape(&["verdict", "--json", "-q"], &[&a]));
    let vb = json_lines(&cctape(&["verdict", "--json", "-q"], &[&b]));
    assert!(!va.is_empty());
    assert_eq!(
        va.iter().map(without_positions).collect::<Vec<_>>(),
        vb.iter().map(without_positions).collect::<Vec<_>>(),
        "{pretty}"
    );
    let sa = json_of(&cctape(&["stats", "--json", "-q"], &[&a]));
    let sb = json_of(&cctape(&["stats", "--json", "-q"], &[&b]));
    assert_eq!(sa["error_count"], 0, "{pretty}: {}", sa["errors"]);
    assert_eq!(sa["events"], sb["events"]);
    assert_eq!(sa["by_type"], sb["by_type"]);
    assert_eq!(sa["runs"], sb["runs"]);
    assert_eq!(sa["inputs_without_events"]["count"], 0);
    let f = sa["per_file"][0]["format"].as_str().unwrap();
    assert!(f == "json-array" || f == "json-pretty", "{f}");
    assert_eq!(sb["per_file"][0]["format"], "stream");
}

#[test]
fn pretty_bitovi_is_its_twin() {
    twins(
        "bitovi__ai-coding-agent__specifications-improved-output.pretty.json",
        "bitovi__ai-coding-agent__specifications-improved-output.ndjson",
    );
}

#[test]
fn pretty_charlieyou_real4_is_its_twin() {
    twins(
        "charlieyou__claude-agent-sdk-gleam__test-fixtures-real4.pretty.json",
        "charlieyou__claude-agent-sdk-gleam__test-fixtures-real4.ndjson",
    );
}

#[test]
fn pretty_uspark_is_its_twin() {
    twins(
        "uspark-hq__uspark__spec-claude-code-output.pretty.json",
        "uspark-hq__uspark__spec-claude-code-output.ndjson",
    );
}

#[test]
fn pretty_array_excerpt_mattarge04_is_its_twin() {
    twins(
        "excerpts/mattarge04-gif__signedbymattia__claude-execution-output.json.FIRST2ELEMENTS.pretty.json",
        "excerpts/mattarge04-gif__signedbymattia__claude-execution-output.json.FIRST2ELEMENTS.ndjson",
    );
}

#[test]
fn pretty_array_handwritten_sample_is_its_twin() {
    twins(
        "synthetic/anthropics__claude-code-action__test-fixtures-sample-turns.HANDWRITTEN.json",
        "synthetic/anthropics__claude-code-action__test-fixtures-sample-turns.HANDWRITTEN.ndjson",
    );
}

#[test]
fn one_line_array_of_182_messages_is_its_twin() {
    twins(
        "wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656.json",
        "wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656.ndjson",
    );
}

/// Paths where two JSON values differ.
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let (p, q) = (x.get(k), y.get(k));
                match (p, q) {
                    (Some(p), Some(q)) => differences(p, q, &format!("{path}.{k}"), out),
                    _ => out.push(format!("{path}.{k}")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                differences(p, q, &format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(path.to_string()),
        _ => {}
    }
}

/// The 182-message array (one line of 748,151 bytes) and its `.ndjson`
/// twin: `stats --json` differs only in the format and position fields.
#[test]
fn array_and_twin_give_the_same_stats_json_apart_from_format_and_positions() {
    let rel = "wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656";
    let (Some(a), Some(b)) = (
        realworld(&format!("{rel}.json")),
        realworld(&format!("{rel}.ndjson")),
    ) else {
        return;
    };
    let sa = json_of(&cctape(&["stats", "--json", "-q"], &[&a]));
    let sb = json_of(&cctape(&["stats", "--json", "-q"], &[&b]));
    let mut d = Vec::new();
    differences(&sa, &sb, "", &mut d);
    let allowed = [
        ".formats.json-array",
        ".formats.stream",
        ".lines",
        ".bytes",
        ".per_file[0].file",
        ".per_file[0].format",
        ".per_file[0].lines",
        ".per_file[0].bytes",
    ];
    for p in &d {
        assert!(allowed.contains(&p.as_str()), "{p} differs");
    }
    // What the issue said before: 0 events, a phantom no_result run.
    assert_eq!(sa["events"], 182);
    assert_eq!(sa["runs"], 1);
    assert_eq!(sa["verdicts"]["max_turns"], 1);
    assert_eq!(sa["lines"], 1);
    assert_eq!(sb["lines"], 182);
}

/// `cctape stats ../shared/realworld`: no error in a pretty or array file;
/// each file read as its README says (its format, its lines that are not
/// events), the files without events (wave3's text output and JSON object
/// without `type`) each one finding, named for what it is.
#[test]
fn stats_of_realworld_has_no_error_in_pretty_and_array_files() {
    let Some(dir) = realworld("") else { return };
    let rows = realworld_files::readme_rows(&dir);
    let s = json_of(&cctape(
        &["stats", "--json", "-q", "--timezone", "UTC"],
        &[&dir],
    ));
    for e in s["errors"].as_array().unwrap() {
        let f = e["file"].as_str().unwrap();
        assert!(!f.ends_with(".json"), "{e}");
    }
    let per_file = s["per_file"].as_array().unwrap();
    let elements: Vec<&Value> = per_file
        .iter()
        .filter(|f| matches!(f["format"].as_str(), Some("json-array" | "json-pretty")))
        .collect();
    assert_eq!(elements.len(), 6, "3 arrays, 3 pretty captures");
    for f in &elements {
        assert_eq!(f["error_count"], 0, "{}", f["file"]);
        assert!(f["runs"].as_u64().unwrap() >= 1, "{}", f["file"]);
    }
    // Each file as its README row says: its format, its bad lines, and
    // whether it holds events.
    let (mut bad_lines, mut without_events) = (0, BTreeSet::new());
    for f in per_file {
        let path = PathBuf::from(f["file"].as_str().unwrap());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let row = &rows[&name];
        let want = realworld_files::readme_format(&name, row);
        assert_eq!(f["format"], want.name(), "{name}");
        let bytes = std::fs::read(&path).unwrap();
        let bad = realworld_files::readme_bad_lines(row, &bytes);
        assert_eq!(f["error_count"], bad, "{name}: {}", f["errors"]);
        bad_lines += bad;
        if realworld_files::readme_says_events(&rows, &name) == Some(false) {
            assert_eq!(f["events"], 0, "{name}");
            without_events.insert(f["file"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(s["error_count"], bad_lines, "{}", s["errors"]);
    let found = &s["inputs_without_events"];
    let listed: BTreeSet<String> = found["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, without_events);
    assert_eq!(found["count"], without_events.len());
    for i in found["inputs"].as_array().unwrap() {
        // A text output is text; a JSON object without `type` is JSON
        // values, not a stream (issue 22, item 18).
        let name = Path::new(i["file"].as_str().unwrap()).file_name().unwrap();
        let row = &rows[name.to_str().unwrap()];
        let want = if realworld_files::a_cell_starts_with(row, "not JSON") {
            "text"
        } else {
            "json-values"
        };
        assert_eq!(i["format"], want, "{i}");
    }
    let transcripts = per_file
        .iter()
        .filter(|f| f["format"] == "transcript")
        .count();
    assert!(transcripts > 0);
    assert_eq!(s["formats"]["transcript"], transcripts);
}

/// A text output is one finding, not an error per line; its last line is
/// the verdict when it is the CLI's own final error, with its source named.
#[test]
fn text_outputs_are_one_finding_whose_last_line_may_be_the_verdict() {
    let dir = temp_dir("text");
    let max = dir.join("max.txt");
    std::fs::write(
        &max,
        "Reading src/main.rs\nEditing...\nError: Reached max turns (30)\n",
    )
    .unwrap();
    let api = dir.join("api.txt");
    std::fs::write(
        &api,
        "API Error: Unable to connect to API (ConnectionRefused)\n",
    )
    .unwrap();
    let answer = dir.join("answer.txt");
    std::fs::write(&answer, "The tests pass.\nNo Error: here is the CLI's\n").unwrap();
    let s = json_of(&cctape(&["stats", "--json", "-q"], &[&max, &api, &answer]));
    // Each text is one run of its own (as `verdict` gives it), not an error
    // per line.
    assert_eq!(
        (s["error_count"].clone(), s["runs"].clone()),
        (json!(0), json!(3))
    );
    assert_eq!(
        (
            s["verdicts"]["max_turns"].clone(),
            s["verdicts"]["error"].clone(),
            s["verdicts"]["startup_failure"].clone()
        ),
        (json!(1), json!(1), json!(1))
    );
    assert_eq!(s["inputs_without_events"]["by_format"]["text"], 3);
    let o = cctape(&["verdict", "--json", "-q"], &[&max, &api, &answer]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_lines(&o);
    assert_eq!(v[0]["verdict"], "max_turns");
    assert_eq!(
        v[0]["no_events"]["final_error"]["line"],
        "Error: Reached max turns (30)"
    );
    assert_eq!(v[0]["no_events"]["first_line"], "Reading src/main.rs");
    assert_eq!(v[1]["verdict"], "error");
    assert_eq!(
        v[1]["errors"][0],
        "API Error: Unable to connect to API (ConnectionRefused)"
    );
    // "Error: " in the middle of a line is not the CLI's.
    assert_eq!(v[2]["verdict"], "startup_failure");
    assert_eq!(v[2]["no_events"]["final_error"], Value::Null);
    // Through watch too, from a pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["watch", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&max).unwrap())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.stdout, std::fs::read(&max).unwrap(), "passed through");
    let r: Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(r["verdict"], "max_turns");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The objects a logger-prefixed log holds, as `cctape filter` prints them
/// (one compact line each), parsed with serde_json.
fn logged_values(log: &Path) -> Vec<Value> {
    json_lines(&cctape(&["filter", "-q"], &[log]))
}

/// The logger-prefixed logs of `transformed/` (a harness's log: every
/// stdout chunk behind `[ts] [INFO] `, most events pretty-printed, long
/// lines cut into chunks): their values are read as events. Every object
/// the README's own extraction recovered is among them, in order; where a
/// chunk boundary fell between tokens, cctape joins the value back and has
/// more (the pr-4 log's `result` among them); a cut inside a string is an
/// error at its line.
#[test]
fn logger_prefixed_logs_give_their_values_as_events() {
    for (name, extra, errors) in [
        (
            "deep-assistant__hive-mind__docs-case-studies-issue-667-pr49-run1-log",
            0,
            8,
        ),
        (
            "deep-assistant__hive-mind__docs-case-studies-pr-4-ci-log-issue-session-1-log",
            2,
            8,
        ),
    ] {
        let Some(log) = realworld(&format!("transformed/{name}.txt")) else {
            return;
        };
        let extracted: Vec<Value> = std::fs::read_to_string(
            realworld(&format!("transformed/{name}.extracted.ndjson")).unwrap(),
        )
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        let ours = logged_values(&log);
        let mut it = ours.iter();
        for want in &extracted {
            assert!(it.any(|v| v == want), "{name}: {want} not found in order");
        }
        assert_eq!(ours.len(), extracted.len() + extra, "{name}");
        let s = json_of(&cctape(&["stats", "--json", "-q"], &[&log]));
        assert_eq!(s["per_file"][0]["format"], "logger-prefixed");
        assert_eq!(s["events"], ours.len());
        assert_eq!(s["error_count"], errors, "{name}");
        // Each error is where the log has a chunk that continues a string:
        // its element starts at a prefixed line.
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for e in s["errors"].as_array().unwrap() {
            let l = e["line"].as_u64().unwrap() as usize;
            assert!(lines[l - 1].starts_with("[20"), "{name}: line {l}");
        }
        let v = json_lines(&cctape(&["verdict", "--json", "-q"], &[&log]));
        assert_eq!(v.len(), 1);
        assert_eq!(v[0]["verdict"], "success", "{name}");
    }
}

/// Writes a generated `~/.claude/projects` tree under a fresh folder and
/// returns it (removed when dropped) with the projects folder.
fn generated_tree(tag: &str, projects: u64, sessions: u64) -> (Scratch, PathBuf) {
    let dir = temp_dir(tag);
    let opts = gentranscripts::Opts {
        projects,
        sessions,
        turns: 5,
        seed: 3,
    };
    gentranscripts::generate(&dir, &opts).unwrap();
    let projects = dir.join(".claude/projects");
    (dir, projects)
}

/// `cctape stats ~/.claude/projects` works with no flag: every file read as
/// a transcript, every session a run (none from a subagent file), grouped
/// by session, project, model (main and subagent) and day.
#[test]
fn a_projects_tree_works_with_no_flag() {
    let (_dir, projects) = generated_tree("tree", 3, 4);
    let s = json_of(&cctape(&["stats", "--json", "-q"], &[&projects]));
    let files = s["files"].as_u64().unwrap();
    assert_eq!(s["formats"], json!({"transcript": files}));
    assert_eq!(s["error_count"], 0);
    assert_eq!(s["transcripts"]["sessions"], 12);
    assert_eq!(s["transcripts"]["projects"], 3);
    assert_eq!(s["runs"], 12, "one run per session, none per subagent file");
    assert!(files > 12, "subagent files too");
    assert!(s["usage"]["subagents"]["output_tokens"].as_u64().unwrap() > 0);
    assert_eq!(s["cost_by_source"]["price_table"], s["total_cost_usd"]);
    // Tool calls (each tool_use id once) and their errors, as serde_json
    // reads the files.
    let (mut calls, mut failed) = (std::collections::BTreeMap::new(), BTreeSet::new());
    let mut stack = vec![projects.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            for l in std::fs::read_to_string(&p).unwrap().lines() {
                let v: Value = serde_json::from_str(l).unwrap();
                for b in v["message"]["content"].as_array().into_iter().flatten() {
                    if b["type"] == "tool_use" {
                        calls.insert(b["id"].as_str().unwrap().to_string(), b["name"].clone());
                    }
                    if b["type"] == "tool_result" && b["is_error"] == true {
                        failed.insert(b["tool_use_id"].as_str().unwrap().to_string());
                    }
                }
            }
        }
    }
    let mut want = serde_json::Map::new();
    for (id, name) in &calls {
        let name = name.as_str().unwrap();
        let e = want
            .entry(name.to_string())
            .or_insert(json!({"calls": 0, "errors": 0, "rejections": 0}));
        e["calls"] = json!(e["calls"].as_u64().unwrap() + 1);
        if failed.contains(id) {
            e["errors"] = json!(e["errors"].as_u64().unwrap() + 1);
        }
    }
    assert_eq!(s["tools"], Value::Object(want));
    let by = |key: &str| {
        json_of(&cctape(
            &["stats", "--json", "-q", "--timezone", "UTC", "--by", key],
            &[&projects],
        ))["groups"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert_eq!(by("session").len(), 12);
    let p = by("project");
    assert_eq!(p.len(), 3);
    assert!(p.iter().all(|g| g["runs"] == 4));
    let roles: BTreeSet<String> = by("model")
        .iter()
        .map(|g| g["role"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        roles,
        BTreeSet::from(["main".to_string(), "subagent".to_string()])
    );
    let days = by("day");
    let tokens = |gs: &[Value]| -> u64 {
        gs.iter()
            .map(|g| g["tokens"]["output_tokens"].as_u64().unwrap())
            .sum()
    };
    // Each request on its own day: the days add up to the sessions.
    assert_eq!(tokens(&days), tokens(&by("session")));
    assert!(days.iter().all(|g| g["key"] != "unknown"));
    // tree: subagents under their sessions; verdict: one record a session.
    let v = json_lines(&cctape(&["verdict", "--json", "-q"], &[&projects]));
    assert_eq!(v.len(), 12);
    assert!(v.iter().all(|r| r["transcript"]["project"].is_string()));
    let t = json_lines(&cctape(&["tree", "--json", "-q"], &[&projects]));
    assert_eq!(t.len(), 12);
    assert!(t.iter().any(|r| r["subagent_count"].as_u64().unwrap() > 0));
    std::fs::remove_dir_all(projects.parent().unwrap().parent().unwrap()).unwrap();
}

/// Stream files, an array, a pretty capture, a transcript and a text file
/// side by side: one report, per-format counts, a run per stream and per
/// session, the text apart, no phantom run.
#[test]
fn a_mixed_folder_gives_one_clean_report() {
    let dir = temp_dir("mixed");
    let stream = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\",\"model\":\"claude-sonnet-4-5\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"total_cost_usd\":0.5,\"session_id\":\"s1\"}\n";
    std::fs::write(dir.join("a.jsonl"), stream).unwrap();
    std::fs::write(
        dir.join("b.json"),
        "[{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s2\"},{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,\"total_cost_usd\":0.25,\"session_id\":\"s2\"}]",
    )
    .unwrap();
    std::fs::write(
        dir.join("c.json"),
        "{\n  \"type\": \"result\",\n  \"subtype\": \"success\",\n  \"total_cost_usd\": 0.125,\n  \"session_id\": \"s3\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("d.jsonl"),
        "{\"parentUuid\":null,\"isSidechain\":false,\"sessionId\":\"t1\",\"version\":\"2.1.39\",\"type\":\"assistant\",\"requestId\":\"r1\",\"timestamp\":\"2026-02-11T10:00:00Z\",\"message\":{\"id\":\"m1\",\"model\":\"claude-haiku-4-5\",\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":1000000,\"output_tokens\":0}}}\n",
    )
    .unwrap();
    std::fs::write(dir.join("e.log"), "API Error: 529 overloaded\n").unwrap();
    let s = json_of(&cctape(&["stats", "--json", "-q"], &[&dir]));
    assert_eq!(
        s["formats"],
        json!({"stream": 1, "json-array": 1, "json-pretty": 1, "transcript": 1, "text": 1})
    );
    assert_eq!(
        s["runs"], 5,
        "three streams, one session and the text output (a run of its own)"
    );
    assert_eq!(s["error_count"], 0);
    assert_eq!(s["inputs_without_events"]["count"], 1);
    // $0.875 from the results, $1 for a million haiku input tokens.
    assert_eq!(s["cost_by_source"]["results"], 0.875);
    assert_eq!(s["cost_by_source"]["price_table"], 1.0);
    assert_eq!(s["total_cost_usd"], 1.875);
    assert_eq!(s["verdicts"]["max_turns"], 1);
    // The keys, in the order docs/accounting.md lists ("stats keys"); a
    // bound gives `since` and `until`.
    let s = json_of(&cctape(
        &[
            "stats",
            "--json",
            "-q",
            "--by",
            "day",
            "--timezone",
            "UTC",
            "--since",
            "2000-01-01",
        ],
        &[&dir],
    ));
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/accounting.md"))
            .unwrap();
    let listed = doc
        .lines()
        .find_map(|l| l.strip_prefix("stats keys: "))
        .expect("docs/accounting.md lists the stats keys");
    let want: Vec<&str> = listed
        .split(", ")
        .map(|k| k.split(' ').next().unwrap().trim_matches('`'))
        .collect();
    assert_eq!(keys, want);
    let v = json_lines(&cctape(&["verdict", "--json", "-q"], &[&dir]));
    assert_eq!(v.len(), 5);
    let verdicts: Vec<&str> = v.iter().map(|r| r["verdict"].as_str().unwrap()).collect();
    // The session's one reply ended it: `ended`, a transcript's verdict.
    assert_eq!(
        verdicts,
        ["success", "max_turns", "success", "error", "ended"]
    );
    assert_eq!(v[4]["transcript"]["cost"]["priced_cost_usd"], 1.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--by day`: the local day (here `--timezone`) a run started on, from its
/// real instant; a run without a date is on no day (issue 12 item 13).
#[test]
fn by_day_takes_the_real_day_of_a_stream() {
    let dir = temp_dir("days");
    let run = |sid: &str, ts: &str| {
        format!(
            "{{\"type\":\"user\",\"session_id\":\"{sid}\",\"timestamp\":\"{ts}\",\"message\":{{\"content\":\"hi\"}}}}\n\
{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"total_cost_usd\":1,\"session_id\":\"{sid}\"}}\n"
        )
    };
    let f = dir.join("runs.jsonl");
    std::fs::write(
        &f,
        run("a", "2026-03-01T23:30:00-05:00") + &run("b", "not a date"),
    )
    .unwrap();
    let days = |tz: &str| -> Vec<(String, u64)> {
        json_of(&cctape(
            &["stats", "--json", "-q", "--by", "day", "--timezone", tz],
            &[&f],
        ))["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["key"].as_str().unwrap().to_string(),
                    g["runs"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        days("UTC"),
        [("2026-03-02".into(), 1), ("unknown".into(), 1)]
    );
    assert_eq!(
        days("America/New_York"),
        [("2026-03-01".into(), 1), ("unknown".into(), 1)]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--format` forces a reading: an array read as lines is what it was
/// before (one error, no event); NDJSON read as JSON values gives the same
/// events; stdin is sniffed like a file.
#[test]
fn format_forces_a_reading_and_stdin_is_sniffed() {
    let dir = temp_dir("force");
    let arr = dir.join("run.json");
    std::fs::write(
        &arr,
        "[{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"},\n {\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s\"}]\n",
    )
    .unwrap();
    let s = json_of(&cctape(
        &["stats", "--json", "-q", "--format", "stream"],
        &[&arr],
    ));
    assert_eq!(
        (s["events"].clone(), s["error_count"].clone()),
        (json!(0), json!(2))
    );
    let s = json_of(&cctape(&["stats", "--json", "-q"], &[&arr]));
    assert_eq!(
        (s["events"].clone(), s["error_count"].clone()),
        (json!(2), json!(0))
    );
    let nd = dir.join("run.jsonl");
    std::fs::write(
        &nd,
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n{\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s\"}\n",
    )
    .unwrap();
    let s = json_of(&cctape(
        &["stats", "--json", "-q", "--input-format", "json"],
        &[&nd],
    ));
    assert_eq!(s["events"], 2);
    assert_eq!(s["per_file"][0]["format"], "json-pretty");
    // The array through a pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(["stats", "--json", "-q", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&arr).unwrap())
        .unwrap();
    let s: Value = serde_json::from_slice(&child.wait_with_output().unwrap().stdout).unwrap();
    assert_eq!(s["formats"], json!({"json-array": 1}));
    assert_eq!(s["events"], 2);
    // filter prints a pretty element on one line.
    let pretty = dir.join("p.json");
    std::fs::write(
        &pretty,
        "{\n  \"type\": \"result\",\n  \"result\": \"a  b\"\n}\n",
    )
    .unwrap();
    let o = cctape(&["filter", "--type", "result"], &[&pretty]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "{\"type\":\"result\",\"result\":\"a  b\"}\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check` reads a transcript in its dialect, per the `version` of each
/// record; `filter --session` and `--subagent` know its `sessionId` and
/// `isSidechain`.
#[test]
fn check_and_filter_read_transcripts_in_their_dialect() {
    let Some(t) = realworld(
        "wave2/transformed/alfredjeanlab__claudeless__crates-cli-tests-fixtures-dotclaude-v2.1.12-todo-write-session@fae3464.normalized.jsonl",
    ) else {
        return;
    };
    let o = cctape(&["check", "--json", "-q"], &[&t]);
    let v = json_of(&o);
    for f in v["findings"].as_array().unwrap() {
        assert_eq!(f["claude_code_version"], "2.1.12", "{f}");
        assert_ne!(f["category"], "unknown_kind", "{f}");
    }
    let Some(main) =
        realworld("session-format/marot__spotter__test-fixtures-transcripts-subagent.jsonl")
    else {
        return;
    };
    let n = |args: &[&str]| -> u64 {
        let mut a = vec!["filter", "--count"];
        a.extend_from_slice(args);
        String::from_utf8_lossy(&cctape(&a, &[&main]).stdout)
            .trim()
            .parse()
            .unwrap()
    };
    let all = n(&[]);
    assert!(all > 50);
    assert_eq!(
        n(&["--session", "491e126e-1e71-469c-ade2-fcc8af567c74"]),
        n(&["--type", "user"])
            + n(&["--type", "assistant"])
            + n(&["--type", "progress"])
            + n(&["--type", "system"])
    );
    assert_eq!(n(&["--main"]) + n(&["--subagent"]), all);
}

/// `--session` and `--subagent` read a transcript's `sessionId` and
/// `isSidechain` in `filter` and in `fields`: the counts are serde_json's
/// over the same records.
#[test]
fn filters_read_a_transcripts_session_and_side_chain() {
    let Some(main) = realworld(
        "wave2/session-format/marot__spotter__test-fixtures-transcripts-258c7280-ae70-4798-800f-63464d01a85d@8cc42b0.jsonl",
    ) else {
        return;
    };
    let sub = main.with_file_name(
        "marot__spotter__test-fixtures-transcripts-258c7280-ae70-4798-800f-63464d01a85d-subagents-agent-a881341@8cc42b0.jsonl",
    );
    let records: Vec<Value> = [&main, &sub]
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|v| v["type"].is_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let session = records
        .iter()
        .find_map(|r| r["sessionId"].as_str())
        .unwrap()
        .to_owned();
    let in_session = records
        .iter()
        .filter(|r| r["sessionId"] == session.as_str())
        .count();
    let side = records.iter().filter(|r| r["isSidechain"] == true).count();
    assert!(side > 0 && in_session > side, "{in_session} {side}");
    let total = |args: &[&str]| -> usize {
        let o = cctape(args, &[&main, &sub]);
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    };
    assert_eq!(
        total(&["filter", "--total", "--session", &session]),
        in_session
    );
    assert_eq!(total(&["filter", "--total", "--subagent"]), side);
    assert_eq!(
        total(&["filter", "--total", "--main"]),
        records.len() - side
    );
    let rows = |args: &[&str]| -> usize {
        let o = cctape(args, &[&main, &sub]);
        String::from_utf8_lossy(&o.stdout).lines().count()
    };
    assert_eq!(
        rows(&["fields", "--no-header", "-f", "type", "--session", &session]),
        in_session
    );
    assert_eq!(
        rows(&["fields", "--no-header", "-f", "type", "--subagent"]),
        side
    );
}
