//! `cctape stats`, run as a process: `--json` values against
//! corpus/streams/README.md (the streams table and mixed-bad.jsonl's line
//! table), a real-world file, standard input, a missing file, and the
//! human summary.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Run `cctape args...` in the repository root, with `stdin` as standard
/// input (or nothing).
fn run(args: &[&str], stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cctape"));
    cmd.args(args).current_dir(root());
    match stdin {
        Some(p) => cmd.stdin(std::fs::File::open(root().join(p)).unwrap()),
        None => cmd.stdin(Stdio::null()),
    };
    cmd.output().unwrap()
}

fn json_of(out: &Output) -> Value {
    let text = std::str::from_utf8(&out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON line: {text}");
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn stream_files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("corpus/streams"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .map(|n| format!("corpus/streams/{n}"))
        .collect();
    v.sort();
    v
}

/// One row of corpus/streams/README.md's generated table.
#[derive(Debug)]
struct StreamRow {
    lines: u64,
    /// Keyed the way `by_type` names kinds.
    by_type: BTreeMap<String, u64>,
    /// "not events: ..." (mixed-bad.jsonl only).
    not_events: BTreeMap<String, u64>,
}

/// `name n, name n, ...` into a map; `user (replay)` counts as `user`,
/// `stream_event/message_start` as `stream_event`.
fn parse_counts(cell: &str, by_type_names: bool) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for part in cell.split(", ") {
        let (name, n) = part.rsplit_once(' ').unwrap();
        let mut name = name.to_string();
        if by_type_names {
            if let Some((base, _)) = name.split_once(" (") {
                name = base.to_string();
            }
            if name.starts_with("stream_event/") {
                name = "stream_event".to_string();
            }
        }
        *m.entry(name).or_insert(0) += n.parse::<u64>().unwrap();
    }
    m
}

fn streams_table() -> BTreeMap<String, StreamRow> {
    let readme = std::fs::read_to_string(root().join("corpus/streams/README.md")).unwrap();
    let table = readme
        .split("<!-- BEGIN streams table")
        .nth(1)
        .unwrap()
        .split("<!-- END streams table")
        .next()
        .unwrap();
    let mut rows = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 6, "{line}");
        let file = cells[0].trim_matches('`').to_string();
        let (events, not_events) = match cells[4].split_once("; not events: ") {
            Some((e, n)) => (e, parse_counts(n, false)),
            None => (cells[4], BTreeMap::new()),
        };
        rows.insert(
            file,
            StreamRow {
                lines: cells[3].parse().unwrap(),
                by_type: parse_counts(events, true),
                not_events,
            },
        );
    }
    assert_eq!(rows.len(), 11);
    rows
}

/// What mixed-bad.jsonl's lines give, line by line, after its README table.
/// The README allows two readings of lines 9, 11 and 12; the library
/// documents which it takes: big numbers and lone surrogates are repaired
/// (lines 9 and 11 are events) and a `type` given twice with different values
/// is a `duplicate_key` error (line 12), "ambiguous, so not guessed".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Event(&'static str),
    Blank,
    Error(&'static str),
}

const MIXED_BAD: [(u64, Expect, &str); 14] = [
    (1, Expect::Event("system/init"), "event"),
    (2, Expect::Event("user"), "event"),
    (3, Expect::Error("invalid_json"), "skip, report"),
    (4, Expect::Blank, "skip (blank)"),
    (5, Expect::Event("system/status"), "event"),
    (6, Expect::Error("not_an_object"), "skip: not an object"),
    (7, Expect::Error("missing_type"), "skip: no `type`"),
    (
        8,
        Expect::Error("missing_type"),
        "skip: `type` not a string",
    ),
    (9, Expect::Event("system/thinking_tokens"), "keep the event"),
    (10, Expect::Event("assistant"), "event"),
    (
        11,
        Expect::Event("system/task_summary"),
        "replace with U+FFFD",
    ),
    (12, Expect::Error("duplicate_key"), "skip as malformed"),
    (13, Expect::Event("result/success"), "event"),
    (14, Expect::Error("truncated"), "skip as truncated"),
];

/// Byte offset of each line of a file (1-based line i at index i - 1).
fn line_offsets(path: &str) -> Vec<u64> {
    let bytes = std::fs::read(root().join(path)).unwrap();
    let mut out = vec![0];
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' && i + 1 < bytes.len() {
            out.push(i as u64 + 1);
        }
    }
    out
}

#[test]
fn mixed_bad_expectations_follow_the_readme_line_table() {
    let readme = std::fs::read_to_string(root().join("corpus/streams/README.md")).unwrap();
    let table = readme
        .split("## mixed-bad.jsonl, line by line")
        .nth(1)
        .unwrap();
    let rows: Vec<(u64, String)> = table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let n = cells.first()?.parse().ok()?;
            Some((n, cells.last()?.to_string()))
        })
        .collect();
    assert_eq!(rows.len(), 14);
    for ((n, handling), (line, _, says)) in rows.iter().zip(MIXED_BAD) {
        assert_eq!(*n, line);
        assert!(
            handling.contains(says),
            "line {n}: README says {handling:?}, expected it to allow {says:?}"
        );
    }
}

#[test]
fn json_stats_of_corpus_streams_match_the_readme() {
    let files = stream_files();
    let table = streams_table();
    let mut args = vec!["stats", "--json"];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);

    // Expected, from the README; mixed-bad's line 12 is an error (see
    // MIXED_BAD), which the README's table counts as a system/status.
    let mixed = "corpus/streams/mixed-bad.jsonl";
    let mut want_by_type: BTreeMap<String, u64> = BTreeMap::new();
    let mut want_lines = 0;
    let mut want_bytes = 0;
    let mut per_file_want = Vec::new();
    for f in &files {
        let name = f.rsplit('/').next().unwrap();
        let row = &table[name];
        let mut by_type = row.by_type.clone();
        let (mut errors, mut blank) = (0, 0);
        if f == mixed {
            *by_type.get_mut("system/status").unwrap() -= 1;
            errors = row.not_events.values().sum::<u64>() - row.not_events["blank"] + 1;
            blank = row.not_events["blank"];
        }
        for (k, n) in &by_type {
            *want_by_type.entry(k.clone()).or_insert(0) += n;
        }
        let bytes = std::fs::metadata(root().join(f)).unwrap().len();
        want_lines += row.lines;
        want_bytes += bytes;
        per_file_want.push((f.clone(), row.lines, bytes, by_type, errors, blank));
    }
    let want_events: u64 = want_by_type.values().sum();

    assert_eq!(v["files"], json!(11));
    assert_eq!(v["bytes"], json!(want_bytes));
    assert_eq!(v["lines"], json!(want_lines));
    assert_eq!(v["blank_lines"], json!(1));
    assert_eq!(v["events"], json!(want_events));
    assert_eq!(v["by_type"], json!(want_by_type));
    assert_eq!(v["unknown"], json!({}));
    assert_eq!(v["error_count"], json!(6));

    // Errors: mixed-bad.jsonl's, with the lines' offsets.
    let offsets = line_offsets(mixed);
    let want_errors: Vec<Value> = MIXED_BAD
        .iter()
        .filter_map(|(line, e, _)| match e {
            Expect::Error(kind) => Some(json!({
                "file": mixed,
                "line": line,
                "offset": offsets[*line as usize - 1],
                "kind": kind,
            })),
            _ => None,
        })
        .collect();
    let got_errors: Vec<Value> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
            json!({"file": e["file"], "line": e["line"], "offset": e["offset"], "kind": e["kind"]})
        })
        .collect();
    assert_eq!(got_errors, want_errors);

    // Per file.
    let per_file = v["per_file"].as_array().unwrap();
    assert_eq!(per_file.len(), files.len());
    for (got, (f, lines, bytes, by_type, errors, blank)) in per_file.iter().zip(&per_file_want) {
        assert_eq!(got["file"], json!(f));
        assert_eq!(got["files"], json!(1), "{f}");
        assert_eq!(got["bytes"], json!(bytes), "{f}");
        assert_eq!(got["lines"], json!(lines), "{f}");
        assert_eq!(got["blank_lines"], json!(blank), "{f}");
        assert_eq!(got["events"], json!(by_type.values().sum::<u64>()), "{f}");
        assert_eq!(got["by_type"], json!(by_type), "{f}");
        assert_eq!(got["unknown"], json!({}), "{f}");
        assert_eq!(got["error_count"], json!(errors), "{f}");
        let n_errors = got["errors"].as_array().unwrap().len() as u64;
        assert_eq!(n_errors, *errors, "{f}");
        if f == mixed {
            // Within one file's entry, errors name that file.
            assert!(
                got["errors"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|e| e["file"] == json!(mixed))
            );
        }
    }
}

#[test]
fn json_stats_of_stdin_equal_those_of_the_file() {
    for name in ["mixed-bad.jsonl", "two-subagents.jsonl"] {
        let path = format!("corpus/streams/{name}");
        let from_file = json_of(&run(&["stats", "--json", &path], None));
        for args in [&["stats", "--json", "-"][..], &["stats", "--json"][..]] {
            let out = run(args, Some(Path::new(&path)));
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            let mut from_stdin = json_of(&out);
            // Everything is the same but the name.
            for e in from_stdin["errors"].as_array_mut().unwrap() {
                assert_eq!(e["file"], json!("<stdin>"));
                e["file"] = json!(path);
            }
            // Warnings name where they were first seen.
            for w in from_stdin["warnings"].as_object_mut().unwrap().values_mut() {
                assert_eq!(w["first"]["file"], json!("<stdin>"));
                w["first"]["file"] = json!(path);
            }
            let pf = &mut from_stdin["per_file"][0];
            assert_eq!(pf["file"], json!("<stdin>"));
            pf["file"] = json!(path);
            for e in pf["errors"].as_array_mut().unwrap() {
                e["file"] = json!(path);
            }
            for w in pf["warnings"].as_object_mut().unwrap().values_mut() {
                w["first"]["file"] = json!(path);
            }
            assert_eq!(from_stdin, from_file, "{name} {args:?}");
        }
    }
    // And the stdin numbers are real ones.
    let v = json_of(&run(
        &["stats", "--json", "-"],
        Some(Path::new("corpus/streams/mixed-bad.jsonl")),
    ));
    assert_eq!(v["lines"], json!(14));
    assert_eq!(v["bytes"], json!(4665));
    assert_eq!(v["events"], json!(7));
    assert_eq!(v["error_count"], json!(6));
}

fn realworld(rel: &str) -> Option<PathBuf> {
    let dir = root().join("../shared/realworld");
    if !dir.is_dir() {
        println!("skipped: ../shared/realworld not found");
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld not found and CI is set"
        );
        return None;
    }
    Some(dir.join(rel))
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn json_stats_of_real_world_files() {
    // Counts from ../shared/realworld/README.md, "What each file contains".
    let Some(transcript) =
        realworld("session-format/marot__spotter__test-fixtures-transcripts-short.jsonl")
    else {
        return;
    };
    let wake =
        realworld("DilanDoshi__wake__testdata-stream-interrupt-pending-basic.jsonl").unwrap();
    let (t, w) = (transcript.to_str().unwrap(), wake.to_str().unwrap());
    let out = run(&["stats", "--json", t, w], None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = json_of(&out);
    let pf = &v["per_file"];

    assert_eq!(pf[0]["file"], json!(t));
    assert_eq!(pf[0]["lines"], json!(15));
    assert_eq!(pf[0]["events"], json!(15));
    assert_eq!(
        pf[0]["bytes"],
        json!(std::fs::metadata(&transcript).unwrap().len())
    );
    // A transcript's records are counted as records of its own dialect,
    // not as stream events of unknown kinds.
    assert_eq!(pf[0]["format"], json!("transcript"));
    let t_by_type = json!({
        "assistant": 5, "user": 4, "progress": 3, "system/local_command": 2,
        "file-history-snapshot": 1,
    });
    assert_eq!(pf[0]["records_by_type"], t_by_type);
    assert_eq!(pf[0]["by_type"], json!({}));
    assert_eq!(pf[0]["unknown"], json!({}));
    assert_eq!(pf[0]["error_count"], json!(0));

    assert_eq!(pf[1]["file"], json!(w));
    assert_eq!(pf[1]["lines"], json!(25));
    assert_eq!(pf[1]["events"], json!(25));
    let w_by_type = json!({
        "system/hook_started": 6, "system/hook_response": 6, "assistant": 3, "system/init": 2,
        "user": 2, "rate_limit_event": 1, "control_request": 1, "control_cancel_request": 1,
        "control_response": 1, "result/error_during_execution": 1, "result/success": 1,
    });
    assert_eq!(pf[1]["by_type"], w_by_type);
    assert_eq!(pf[1]["unknown"], json!({}));

    assert_eq!(v["files"], json!(2));
    assert_eq!(v["lines"], json!(40));
    assert_eq!(v["events"], json!(40));
    assert_eq!(v["error_count"], json!(0));
    assert_eq!(v["errors"], json!([]));
    assert_eq!(v["by_type"]["assistant"], json!(3));
    assert_eq!(v["by_type"]["user"], json!(2));
    assert_eq!(v["by_type"].as_object().unwrap().len(), 11);
    assert_eq!(v["transcripts"]["records_by_type"], t_by_type);
    assert_eq!(v["transcripts"]["sessions"], json!(1));
}

#[test]
fn missing_file_exits_2_with_an_io_error_entry() {
    let missing = "corpus/streams/no-such-file.jsonl";
    let good = "corpus/streams/success-basic.jsonl";
    let out = run(&["stats", "--json", missing, good], None);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(missing), "{stderr}");
    let v = json_of(&out);
    assert_eq!(v["files"], json!(2));
    assert_eq!(v["error_count"], json!(1));
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["file"], json!(missing));
    assert_eq!(errors[0]["kind"], json!("io"));
    assert_eq!(errors[0]["line"], json!(0));
    assert_eq!(errors[0]["offset"], json!(0));
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("open failed"),
        "{}",
        errors[0]
    );
    // The good file is still counted.
    assert_eq!(v["lines"], json!(12));
    assert_eq!(v["events"], json!(12));
    assert_eq!(v["per_file"][0]["lines"], json!(0));
    assert_eq!(v["per_file"][0]["error_count"], json!(1));
    assert_eq!(v["per_file"][1]["lines"], json!(12));
    assert_eq!(v["per_file"][1]["error_count"], json!(0));

    // Without --json too.
    let out = run(&["stats", missing], None);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    // As stderr says it (one formatter): not a line, so no position.
    assert!(
        text.contains(&format!("  {missing}: open failed: ")),
        "{text}"
    );
}

#[test]
fn human_summary_mentions_the_counts() {
    let files = stream_files();
    let mut args = vec!["stats"];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let v = json_of(&run(&[&["stats", "--json"][..], &args[1..]].concat(), None));
    let n = |k: &str| v[k].as_u64().unwrap();
    let kib = format!("{:.1} KiB", n("bytes") as f64 / 1024.0);
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "11 files, {kib}, {} lines (1 blank), {} events, 6 errors",
            n("lines"),
            n("events")
        )
    );
    for (kind, count) in v["by_type"].as_object().unwrap() {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(kind.as_str()))
            .unwrap_or_else(|| panic!("no row for {kind}:\n{text}"));
        assert_eq!(
            row.split_whitespace().nth(1),
            Some(count.to_string().as_str()),
            "{row}"
        );
    }
    assert!(text.contains("errors (first 6 of 6)"), "{text}");
    let offsets = line_offsets("corpus/streams/mixed-bad.jsonl");
    for (line, e, _) in MIXED_BAD {
        if let Expect::Error(kind) = e {
            let at = format!(
                "corpus/streams/mixed-bad.jsonl:{line}: byte {}",
                offsets[line as usize - 1]
            );
            let row = text
                .lines()
                .find(|l| l.trim_start().starts_with(&at))
                .unwrap_or_else(|| panic!("no {at}:\n{text}"));
            assert!(row.contains(&format!(": {kind}: ")), "{row}");
        }
    }
}

/// Human `stats` ends with a warnings section: every warning kind of the
/// JSON, its count, and where it was first seen.
#[test]
fn human_summary_ends_with_the_warnings() {
    let files = stream_files();
    let mut args = vec!["stats"];
    args.extend(files.iter().map(String::as_str));
    let text = String::from_utf8(run(&args, None).stdout).unwrap();
    let v = json_of(&run(&[&["stats", "--json"][..], &args[1..]].concat(), None));
    let section = text
        .rsplit_once("\nwarnings\n")
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no warnings section at the end:\n{text}"));
    let warnings = v["warnings"].as_object().unwrap();
    assert!(!warnings.is_empty());
    // Header, then one row per kind, and nothing after.
    assert_eq!(section.lines().count(), warnings.len() + 1, "{section}");
    for (code, w) in warnings {
        let row = section
            .lines()
            .find(|l| l.split_whitespace().next() == Some(code.as_str()))
            .unwrap_or_else(|| panic!("no row for {code}:\n{section}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[1], w["count"].to_string(), "{row}");
        let first = format!(
            "{}:{}",
            w["first"]["file"].as_str().unwrap(),
            w["first"]["line"]
        );
        assert_eq!(cells[2], first, "{row}");
    }
}

/// `--by version` lists versions in version order (2.1.41 before 2.1.238),
/// not in text order.
#[test]
fn by_version_in_version_order() {
    let Some(dir) = realworld(".") else { return };
    let dir = dir.to_string_lossy().to_string();
    let v = json_of(&run(&["stats", "--json", "--by", "version", &dir], None));
    let keys: Vec<&str> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    let parsed: Vec<Vec<u64>> = keys
        .iter()
        .take_while(|k| **k != "unknown")
        .map(|k| k.split('.').map(|p| p.parse().unwrap()).collect())
        .collect();
    assert!(parsed.len() > 10, "{keys:?}");
    assert!(parsed.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    let pos = |k: &str| keys.iter().position(|x| *x == k).unwrap();
    assert!(pos("2.1.41") < pos("2.1.238"));
    assert_eq!(keys.last(), Some(&"unknown"));
}
