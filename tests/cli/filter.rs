//! `filter` and `fields`: matching lines printed unchanged, bad lines, TSV,
//! CSV and NDJSON fields, trusting mode, and grep's and ripgrep's
//! conventions (exit codes, flags combined, input names, `-v`, `-m`, `-l`).

use std::io::Write;
use std::process::{Command, Stdio};

use crate::run::{cctape, cctape_stdin};
use crate::{STREAMS, json, stdout, stream, temp_dir};

#[test]
fn filter_prints_matching_lines_unchanged() {
    let path = stream("two-subagents.jsonl");
    let src = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<&str> = src.lines().collect();
    let pick = |pred: &dyn Fn(&serde_json::Value) -> bool| -> String {
        lines
            .iter()
            .filter(|l| pred(&serde_json::from_str(l).expect("json")))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let out = cctape(&["filter", "--type", "assistant", "--subagent", &path]);
    let want = pick(&|v| v["type"] == "assistant" && v["parent_tool_use_id"].is_string());
    assert!(!want.is_empty());
    assert_eq!(stdout(&out), want);
    let out = cctape(&[
        "filter",
        "--type",
        "system",
        "--subtype",
        "task_started",
        &path,
    ]);
    assert_eq!(
        stdout(&out),
        pick(&|v| v["type"] == "system" && v["subtype"] == "task_started")
    );
    let out = cctape(&["filter", "--main", "--count", &path]);
    let n = lines
        .iter()
        .filter(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            !v["parent_tool_use_id"].is_string()
        })
        .count();
    assert_eq!(stdout(&out).trim(), n.to_string());
    // --tool picks the calls and the results that answer them.
    let out = cctape(&["filter", "--tool", "Agent", &path]);
    let got = stdout(&out);
    let calls = got.matches("\"name\":\"Agent\"").count();
    let results = got.matches("\"type\":\"tool_result\"").count();
    assert_eq!((calls, results), (2, 2), "{got}");
}

#[test]
fn filter_errors_prints_the_bad_lines() {
    let path = stream("mixed-bad.jsonl");
    let out = cctape(&["filter", "--errors", &path]);
    let got = stdout(&out);
    assert!(got.contains("not json at all\n"), "{got}");
    assert!(got.contains("[1,2]\n"), "{got}");
    assert!(got.contains("{\"foo\":1}\n"), "{got}");
    let count = cctape(&["filter", "--errors", "--count", &path]);
    assert_eq!(stdout(&count).trim(), got.lines().count().to_string());
}

#[test]
fn fields_as_tsv_csv_and_ndjson() {
    let path = stream("success-basic.jsonl");
    let out = cctape(&[
        "fields",
        "-f",
        "@line",
        "-f",
        "type",
        "-f",
        "message.usage.output_tokens",
        &path,
    ]);
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "@line\ttype\tmessage.usage.output_tokens");
    assert_eq!(rows.len(), 13);
    assert!(rows[1].starts_with("1\tsystem\t"), "{}", rows[1]);
    assert!(
        rows[1].ends_with('\t'),
        "a missing field is empty: {}",
        rows[1]
    );
    let src = std::fs::read_to_string(&path).expect("read");
    for (row, line) in rows[1..].iter().zip(src.lines()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let want = v["message"]["usage"]["output_tokens"]
            .as_u64()
            .map(|n| n.to_string())
            .unwrap_or_default();
        assert_eq!(row.split('\t').nth(2), Some(want.as_str()));
    }
    let out = cctape(&[
        "fields", "--format", "ndjson", "-f", "result", "-f", "nope", &path,
    ]);
    let last = stdout(&out)
        .lines()
        .rev()
        .nth(1)
        .map(str::to_string)
        .expect("rows");
    let v: serde_json::Value = serde_json::from_str(&last).expect("ndjson row");
    assert!(v["result"].is_string());
    assert!(v["nope"].is_null());
    // An object is written as compact JSON; in CSV its quotes are doubled.
    let out = cctape(&[
        "fields",
        "--format",
        "csv",
        "--no-header",
        "-f",
        "message.content.0",
        &path,
    ]);
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("\"{\"\"type\"\":\"\"tool_use\"\",")),
        "quoted cell: {text}"
    );
}

#[test]
fn filter_trust_matches_validated_on_valid_input() {
    for args in [
        vec!["--type", "result"],
        vec!["--type", "assistant", "--subagent"],
        vec!["--tool", "Agent"],
        vec![
            "--session",
            "22222222-2222-4222-8222-222222222222",
            "--main",
        ],
    ] {
        let mut validated = vec!["filter"];
        validated.extend(args.iter().copied());
        validated.push(STREAMS);
        let mut trusting = validated.clone();
        trusting.insert(1, "--trust");
        let a = cctape(&validated);
        let b = cctape(&trusting);
        assert!(!a.stdout.is_empty(), "{args:?}");
        assert!(a.stdout == b.stdout, "{args:?}: --trust differs");
    }
    let bad = cctape(&["filter", "--trust", "--errors", STREAMS]);
    assert_eq!(bad.status.code(), Some(2));
}

// ---------------------------------------------------------------------------
// grep's and ripgrep's conventions for `filter` and `fields` (issue 15).

/// The corpus streams in name order, as the walk gives them.
fn stream_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(STREAMS)
        .expect("corpus/streams")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.to_str().expect("path").to_string())
        .collect();
    names.sort();
    names
}

/// Every line of `path` that serde_json reads as an object, with its
/// 1-based line number.
fn objects(path: &str) -> Vec<(usize, String, serde_json::Value)> {
    let text = std::fs::read_to_string(path).expect("read");
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v.is_object().then(|| (i + 1, l.to_string(), v))
        })
        .collect()
}

/// The lines of `paths` that serde_json says pass `pred`, as filter prints
/// them with names shown (`NAME:LINE`) or not.
fn oracle_lines(
    paths: &[String],
    names: bool,
    pred: &dyn Fn(&serde_json::Value) -> bool,
) -> String {
    let mut out = String::new();
    for p in paths {
        for (_, l, v) in objects(p) {
            // The corpus's duplicate-key line is an error, not an event.
            if v.get("type").and_then(|t| t.as_str()).is_none() || l.contains("\"type\":\"x\"") {
                continue;
            }
            if pred(&v) {
                if names {
                    out.push_str(p);
                    out.push(':');
                }
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn filter_and_fields_exit_like_grep() {
    let ok = stream("success-basic.jsonl");
    // Something printed: 0.
    let r = cctape(&["filter", "--type", "result", &ok]);
    assert_eq!(r.status.code(), Some(0));
    assert!(!r.stdout.is_empty());
    // Nothing matched: 1, and nothing printed.
    let r = cctape(&["filter", "--type", "no_such_type", &ok]);
    assert_eq!(r.status.code(), Some(1));
    assert!(r.stdout.is_empty());
    // A count of 0 is printed, and exits 1 (grep -c does).
    let r = cctape(&["filter", "--count", "--type", "no_such_type", &ok]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(1), "0\n"));
    let two = stream("max-turns.jsonl");
    let r = cctape(&["filter", "--total", "--type", "no_such_type", &ok, &two]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(1), "0\n"));
    // corpus/streams holds mixed-bad.jsonl, whose bad lines are errors:
    // 2, whatever was counted (as ripgrep exits after an error).
    let r = cctape(&["filter", "--total", "--type", "no_such_type", STREAMS]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(2), "0\n"));
    // --errors on a file without bad lines: nothing, 1.
    let r = cctape(&["filter", "--errors", &ok]);
    assert_eq!(r.status.code(), Some(1));
    // An unreadable input is trouble: 2, even though another input matched
    // (its lines are still printed).
    let r = cctape(&["filter", "--type", "result", "/nonexistent/x.jsonl", &ok]);
    assert_eq!(r.status.code(), Some(2));
    assert!(stdout(&r).contains("\"type\":\"result\""));
    // ... and gets no count (as grep -c and rg -c).
    let r = cctape(&[
        "filter",
        "-c",
        "--include-zero",
        "--type",
        "result",
        "/nonexistent/x.jsonl",
        &ok,
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(stdout(&r), format!("{ok}:1\n"));
    // A usage error: 2.
    let r = cctape(&["filter", "--no-such-flag", &ok]);
    assert_eq!(r.status.code(), Some(2));
    // fields: rows printed 0, none 1 (the header alone is not a row), 2.
    let r = cctape(&["fields", "-f", "uuid", &ok]);
    assert_eq!(r.status.code(), Some(0));
    let r = cctape(&["fields", "-f", "uuid", "--type", "no_such_type", &ok]);
    assert_eq!((r.status.code(), stdout(&r).as_str()), (Some(1), "uuid\n"));
    let r = cctape(&["fields", "-f", "uuid", "/nonexistent/x.jsonl"]);
    assert_eq!(r.status.code(), Some(2));
    let r = cctape_stdin(&["fields", "-f", "uuid"], b"");
    assert_eq!(r.status.code(), Some(1));
}

/// A test on an event, as serde_json reads it.
type Pred = dyn Fn(&serde_json::Value) -> bool;

#[test]
fn filters_are_or_inside_a_flag_and_across_flags() {
    let files = stream_files();
    let ty = |v: &serde_json::Value, t: &[&str]| t.iter().any(|x| v["type"] == *x);
    let sub = |v: &serde_json::Value| v["parent_tool_use_id"].is_string();
    let cases: Vec<(Vec<&str>, Box<Pred>)> = vec![
        (
            vec!["--type", "result", "--type", "assistant"],
            Box::new(move |v| ty(v, &["result", "assistant"])),
        ),
        (
            vec!["--type", "result,assistant"],
            Box::new(move |v| ty(v, &["result", "assistant"])),
        ),
        (
            vec!["--type", "assistant,user", "--subagent"],
            Box::new(move |v| ty(v, &["assistant", "user"]) && sub(v)),
        ),
        (
            vec!["--subtype", "init", "--subtype", "success,api_retry"],
            Box::new(|v| {
                ["init", "success", "api_retry"]
                    .iter()
                    .any(|s| v["subtype"] == *s)
            }),
        ),
        (
            vec![
                "--type",
                "system",
                "--subtype",
                "init,task_started",
                "--main",
            ],
            Box::new(move |v| {
                v["type"] == "system"
                    && (v["subtype"] == "init" || v["subtype"] == "task_started")
                    && !sub(v)
            }),
        ),
        (
            vec![
                "--model",
                "claude-haiku-4-5-20251001,claude-sonnet-5-5",
                "--type",
                "assistant",
            ],
            Box::new(|v| {
                v["type"] == "assistant"
                    && ["claude-haiku-4-5-20251001", "claude-sonnet-5-5"]
                        .iter()
                        .any(|m| v["message"]["model"] == *m)
            }),
        ),
    ];
    for (flags, pred) in &cases {
        let want = oracle_lines(&files, true, pred.as_ref());
        assert!(!want.is_empty(), "{flags:?} matches something");
        let mut args = vec!["filter", "-j", "1"];
        args.extend(flags.iter().copied());
        args.push(STREAMS);
        let got = stdout(&cctape(&args));
        assert_eq!(got, want, "filter {flags:?}");
        // fields takes the same filters: the same events, by line.
        let want_lines: Vec<String> = want
            .lines()
            .map(|l| {
                let (file, _) = l.split_once(':').expect("name");
                let text = l[file.len() + 1..].to_string();
                let n = objects(file)
                    .into_iter()
                    .find(|(_, raw, _)| *raw == text)
                    .expect("line")
                    .0;
                format!("{file}\t{n}")
            })
            .collect();
        let mut args = vec!["fields", "--no-header", "-f", "@file", "-f", "@line"];
        args.extend(flags.iter().copied());
        args.push(STREAMS);
        let got = stdout(&cctape(&args));
        assert_eq!(
            got.lines().collect::<Vec<_>>(),
            want_lines,
            "fields {flags:?}"
        );
    }
    // --tool: the calls and the results answering them, with OR.
    let path = stream("two-subagents.jsonl");
    let got = stdout(&cctape(&["filter", "--tool", "Agent,Write", &path]));
    let calls = got.matches("\"type\":\"tool_use\"").count();
    let results = got.matches("\"type\":\"tool_result\"").count();
    let want_calls = objects(&path)
        .iter()
        .filter(|(_, _, v)| {
            let b = &v["message"]["content"][0];
            b["type"] == "tool_use" && (b["name"] == "Agent" || b["name"] == "Write")
        })
        .count();
    assert_eq!((calls, results), (want_calls, want_calls), "{got}");
    // A call is remembered even when another test turns it down: its
    // result still answers a call of the tool (calls are assistant events).
    let got = stdout(&cctape(&[
        "filter", "--tool", "Agent", "--type", "user", &path,
    ]));
    assert_eq!(got.matches("\"type\":\"tool_result\"").count(), 2, "{got}");
    assert_eq!(got.matches("\"type\":\"tool_use\"").count(), 0, "{got}");
}

#[test]
fn filter_names_its_inputs_as_grep_and_ripgrep_do() {
    let files = stream_files();
    let result = |v: &serde_json::Value| v["type"] == "result";
    let one = &files[0];
    // One file: no names; -H adds them.
    let plain = stdout(&cctape(&["filter", "--type", "result", one]));
    assert_eq!(plain, oracle_lines(&files[..1], false, &result));
    let named = stdout(&cctape(&["filter", "-H", "--type", "result", one]));
    assert_eq!(named, oracle_lines(&files[..1], true, &result));
    // Two files, or a directory: names; --no-filename (-I) drops them.
    let two = stdout(&cctape(&[
        "filter", "--type", "result", &files[0], &files[1],
    ]));
    assert_eq!(two, oracle_lines(&files[..2], true, &result));
    let dir = stdout(&cctape(&["filter", "--type", "result", STREAMS]));
    assert_eq!(dir, oracle_lines(&files, true, &result));
    for flag in ["--no-filename", "-I"] {
        let got = stdout(&cctape(&["filter", flag, "--type", "result", STREAMS]));
        assert_eq!(got, oracle_lines(&files, false, &result), "{flag}");
    }
    // The last of -H and -I wins.
    let got = stdout(&cctape(&["filter", "-I", "-H", "--type", "result", one]));
    assert_eq!(got, named);
    // --null: a NUL after the name instead of the colon.
    let got = cctape(&["filter", "--null", "--type", "result", STREAMS]);
    assert_eq!(
        got.stdout,
        oracle_lines(&files, true, &result)
            .lines()
            .flat_map(|l| {
                let (f, rest) = l.split_at(l.find(".jsonl:").expect("name") + 6);
                [f.as_bytes(), b"\0", &rest.as_bytes()[1..], b"\n"].concat()
            })
            .collect::<Vec<u8>>()
    );
    // -n: the line number after the name.
    let got = stdout(&cctape(&["filter", "-n", "--type", "result", STREAMS]));
    let want: String = files
        .iter()
        .flat_map(|p| {
            objects(p)
                .into_iter()
                .filter(|(_, _, v)| v["type"] == "result")
                .map(move |(n, l, _)| format!("{p}:{n}:{l}\n"))
        })
        .collect();
    assert_eq!(got, want);
    // Standard input is `<stdin>`, never `-`.
    let bytes = std::fs::read(one).expect("read");
    let got = stdout(&cctape_stdin(&["filter", "-H", "--type", "result"], &bytes));
    assert_eq!(
        got,
        plain
            .lines()
            .map(|l| format!("<stdin>:{l}\n"))
            .collect::<String>()
    );
    let got = stdout(&cctape_stdin(
        &["filter", "--type", "result", "-", &files[1]],
        &bytes,
    ));
    assert!(got.starts_with("<stdin>:{"), "{got}");
    assert!(got.contains(&format!("{}:{{", files[1])), "{got}");
    // --count: per input as ripgrep (names, inputs without a match left
    // out unless --include-zero); --total: one number.
    let per_file: Vec<(String, usize)> = files
        .iter()
        .map(|p| {
            (
                p.clone(),
                oracle_lines(std::slice::from_ref(p), false, &|v| {
                    v["subtype"] == "task_started"
                })
                .lines()
                .count(),
            )
        })
        .collect();
    assert!(
        per_file.iter().any(|(_, n)| *n == 0),
        "some file has no task_started"
    );
    let want: String = per_file
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(p, n)| format!("{p}:{n}\n"))
        .collect();
    let got = cctape(&["filter", "--count", "--subtype", "task_started", STREAMS]);
    // 2: mixed-bad.jsonl's bad lines are errors (said on stderr); the
    // counts are the same.
    assert_eq!((got.status.code(), stdout(&got)), (Some(2), want));
    let want: String = per_file.iter().map(|(p, n)| format!("{p}:{n}\n")).collect();
    let got = stdout(&cctape(&[
        "filter",
        "-c",
        "--include-zero",
        "--subtype",
        "task_started",
        STREAMS,
    ]));
    assert_eq!(got, want);
    let total: usize = per_file.iter().map(|(_, n)| n).sum();
    let got = stdout(&cctape(&[
        "filter",
        "--total",
        "--subtype",
        "task_started",
        STREAMS,
    ]));
    assert_eq!(got, format!("{total}\n"));
    let got = cctape(&[
        "filter",
        "-c",
        "--null",
        "--subtype",
        "task_started",
        &files[0],
        &files[1],
    ]);
    let want: Vec<u8> = per_file[..2]
        .iter()
        .filter(|(_, n)| *n > 0)
        .flat_map(|(p, n)| [p.as_bytes(), b"\0", format!("{n}\n").as_bytes()].concat())
        .collect();
    assert_eq!(got.stdout, want);
}

#[test]
fn fields_names_stdin_and_takes_the_filters() {
    let path = stream("success-basic.jsonl");
    let bytes = std::fs::read(&path).expect("read");
    let filtered = cctape(&["filter", "--type", "result", &path]);
    let out = cctape_stdin(
        &["fields", "-f", "@file", "-f", "total_cost_usd"],
        &filtered.stdout,
    );
    let want_cost = objects(&path)
        .into_iter()
        .find(|(_, _, v)| v["type"] == "result")
        .map(|(_, _, v)| v["total_cost_usd"].as_f64().expect("cost"))
        .expect("a result");
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 2, "{text}");
    let (file, cost) = rows[1].split_once('\t').expect("two columns");
    assert_eq!(file, "<stdin>");
    assert_eq!(cost.parse::<f64>().ok(), Some(want_cost));
    let out = cctape_stdin(
        &["fields", "-f", "@kind", "--type", "system,result"],
        &bytes,
    );
    let want: Vec<String> = objects(&path)
        .into_iter()
        .filter(|(_, _, v)| v["type"] == "system" || v["type"] == "result")
        .map(|(_, _, v)| {
            format!(
                "{}/{}",
                v["type"].as_str().unwrap(),
                v["subtype"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(stdout(&out).lines().skip(1).collect::<Vec<_>>(), want);
}

/// Python's csv module reading `csv`: the oracle for our CSV.
fn python_csv(csv: &[u8]) -> Option<Vec<Vec<String>>> {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import csv, io, json, sys; \
             print(json.dumps(list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline='')))))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(csv).ok()?;
    let out = child.wait_with_output().ok()?;
    assert!(out.status.success(), "python3 csv");
    Some(serde_json::from_slice(&out.stdout).expect("json from python"))
}

#[test]
fn fields_csv_reads_back_in_pythons_csv_module() {
    let dir = temp_dir("csv");
    let p = dir.join("cells.jsonl");
    let lines = [
        r#"{"type":"user","s":"a,b","o":{"k":"v,\"w\""}}"#,
        r#"{"type":"user","s":"say \"hi\"","o":[1,"two"]}"#,
        r#"{"type":"user","s":"two\nlines\r\nand a CR\r","o":null}"#,
        r#"{"type":"user","s":"","o":""}"#,
        r#"{"type":"user"}"#,
        r#"{"type":"user","s":"café ✓ \u0001","o":true}"#,
        r#"{"type":"user","s":" lead and trail ","o":1.5}"#,
        r##"{"type":"user","s":"#not a comment","o":"\"\""}"##,
    ];
    std::fs::write(&p, lines.join("\n")).expect("write");
    let p = p.to_str().expect("path");
    let out = cctape(&[
        "fields", "--format", "csv", "-f", "s", "-f", "o", "-f", "@line", p,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let Some(rows) = python_csv(&out.stdout) else {
        eprintln!("skipped: no python3");
        return;
    };
    assert_eq!(rows[0], ["s", "o", "@line"]);
    assert_eq!(rows.len(), 1 + lines.len());
    for (i, (row, line)) in rows[1..].iter().zip(lines).enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let s = v["s"].as_str().unwrap_or("");
        assert_eq!(row[0], s, "line {}", i + 1);
        // A string is its text; anything else compact JSON; missing empty.
        match &v["o"] {
            serde_json::Value::String(t) => assert_eq!(&row[1], t),
            serde_json::Value::Null if v.get("o").is_none() => assert_eq!(row[1], ""),
            o => assert_eq!(
                serde_json::from_str::<serde_json::Value>(&row[1]).expect("a JSON cell"),
                *o
            ),
        }
        assert_eq!(row[2], (i + 1).to_string());
    }
    // One column of empty values: each row is `""`, not a blank line that
    // a CSV reader would skip.
    let out = cctape(&["fields", "--format", "csv", "--no-header", "-f", "s", p]);
    let rows = python_csv(&out.stdout).expect("python3");
    let want: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            vec![v["s"].as_str().unwrap_or("").to_string()]
        })
        .collect();
    assert_eq!(rows, want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lines of a stream file whose `type` passes `keep` (serde_json as
/// the oracle), each with its LF.
fn lines_where(path: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .and_then(|v| v["type"].as_str().map(&keep))
                .unwrap_or(false)
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn filter_inverts_stops_at_max_count_and_lists_inputs_as_grep() {
    let mixed = stream("mixed-bad.jsonl");
    let two = stream("two-subagents.jsonl");
    // -v: the events that fail the tests.
    let not_assistant = lines_where(&two, |t| t != "assistant");
    assert!(!not_assistant.is_empty());
    let out = cctape(&["filter", "-v", "--type", "assistant", &two]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), not_assistant.concat());
    // Bad lines are not events: -v leaves them out too, so the events are
    // split between the two without overlap.
    let count = |a: &[&str]| -> u64 { stdout(&cctape(a)).trim().parse().expect("a count") };
    let events = json(&cctape(&["stats", "--json", &mixed]))["events"]
        .as_u64()
        .expect("events");
    assert_eq!(
        count(&["filter", "-c", "--type", "assistant", &mixed])
            + count(&["filter", "-v", "-c", "--type", "assistant", &mixed]),
        events
    );

    // -m: the first NUM lines of each input, with any number of jobs.
    let assistant = lines_where(&two, |t| t == "assistant");
    assert!(assistant.len() > 3);
    for jobs in ["1", "2"] {
        let out = cctape(&["filter", "-j", jobs, "-m", "3", "--type", "assistant", &two]);
        assert_eq!(stdout(&out), assistant[..3].concat(), "-j {jobs}");
    }
    let both = cctape(&[
        "filter",
        "-c",
        "-m",
        "2",
        "--type",
        "assistant",
        &two,
        &mixed,
    ]);
    let mixed_n = lines_where(&mixed, |t| t == "assistant").len().min(2);
    assert_eq!(stdout(&both), format!("{two}:2\n{mixed}:{mixed_n}\n"));

    // -l and --files-without-match: names, one a line or NUL-ended.
    let results = stream("success-basic.jsonl");
    let no_result = stream("no-result.jsonl");
    assert!(lines_where(&no_result, |t| t == "result").is_empty());
    assert!(!lines_where(&results, |t| t == "result").is_empty());
    let l = cctape(&["filter", "-l", "--type", "result", &results, &no_result]);
    assert_eq!(l.status.code(), Some(0));
    assert_eq!(stdout(&l), format!("{results}\n"));
    let w = cctape(&[
        "filter",
        "--files-without-match",
        "-0",
        "--type",
        "result",
        &results,
        &no_result,
    ]);
    assert_eq!(stdout(&w), format!("{no_result}\0"));
    // Nothing listed: exit 1, as grep -l.
    let none = cctape(&["filter", "-l", "--type", "result", &no_result]);
    assert_eq!(none.status.code(), Some(1));
    assert!(none.stdout.is_empty());
    // -v and --errors ask for opposite things.
    let clash = cctape(&["filter", "-v", "--errors", &mixed]);
    assert_eq!(clash.status.code(), Some(2));
}
