//! Bad lines, end to end (README, "Bad lines and exit codes"): every
//! reading command says each one on stderr with its position, in one
//! convention (the line, the byte offset of the line's start, the column),
//! the same the library's `Display`, `stats`' list and the `--json` error
//! objects give; the commands whose output is made of events exit 2 for it,
//! as grep and ripgrep exit after an error; `-s` leaves the messages out,
//! not the exit code; the first 100 of an input are said, whatever
//! `--jobs`.

use std::process::{Command, Output, Stdio};

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::scratch;

#[path = "support/run.rs"]
mod run;
use run::{cctape, cctape_stdin};

const MIXED: &str = "corpus/streams/mixed-bad.jsonl";

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 stderr")
}

/// A run whose second line has a bad escape (`\q`): valid but for it.
fn bad_escape_run() -> String {
    [
        r#"{"type":"system","subtype":"init","session_id":"s","uuid":"u1"}"#,
        r#"{"type":"user","message":{"role":"user","content":"a\q"},"session_id":"s","uuid":"u2"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","uuid":"u3"}"#,
        "",
    ]
    .join("\n")
}

/// The message every command gives for that line.
fn bad_escape_message(name: &str) -> String {
    // Line 2 starts after the 64 bytes of line 1; its byte 53 is the `q`,
    // where it stops being JSON.
    format!("cctape: {name}:2: byte 64, column 53: invalid_json: invalid escape in a string\n")
}

/// The issue's case: `filter` dropped the line without a word and exited
/// 0, while `stats` counted it. Now it is said, and the exit code is 2,
/// even though the other lines were printed.
#[test]
fn filter_says_a_bad_line_it_drops_and_exits_2() {
    let dir = scratch("bad-lines-filter");
    let path = dir.join("run.jsonl");
    std::fs::write(&path, bad_escape_run()).expect("write");
    let p = path.to_str().expect("path");
    let want = bad_escape_message(p);

    let r = cctape(&["filter", p]);
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert_eq!(stderr(&r), want);
    let out = String::from_utf8(r.stdout).expect("UTF-8");
    assert_eq!(out.lines().count(), 2, "the two events: {out}");
    // What stats says of the same line: the same numbers.
    let s = cctape(&["stats", "--json", p]);
    let v: serde_json::Value = serde_json::from_slice(&s.stdout).expect("JSON");
    let e = &v["errors"][0];
    assert_eq!(
        (&e["line"], &e["offset"], &e["column"], &e["message"]),
        (
            &serde_json::json!(2),
            &serde_json::json!(64),
            &serde_json::json!(53),
            &serde_json::json!("invalid escape in a string")
        )
    );
    assert_eq!(s.status.code(), Some(0), "stats lists it: not an error");
    assert_eq!(stderr(&s), "", "and does not say it again");

    // -s: nothing said, the exit code stands (grep -s).
    let r = cctape(&["filter", "-s", p]);
    assert_eq!((r.status.code(), stderr(&r).as_str()), (Some(2), ""));
    // Even when nothing else matched: 2, not 1.
    let r = cctape(&["filter", "--type", "no_such_type", p]);
    assert_eq!(r.status.code(), Some(2));
    // --errors prints it, on purpose: not said, not an error.
    let r = cctape(&["filter", "--errors", p]);
    assert_eq!((r.status.code(), stderr(&r).as_str()), (Some(0), ""));
    assert_eq!(
        String::from_utf8(r.stdout).expect("UTF-8"),
        bad_escape_run().lines().nth(1).expect("line 2").to_string() + "\n"
    );
}

/// Every reading command says the line the same way; the exit code is the
/// rule's: 2 where the output is made of events, the judgement's where it
/// counts the bad line, nothing said where the report lists it.
#[test]
fn every_reading_command_says_the_bad_line_one_way() {
    let dir = scratch("bad-lines-every");
    let path = dir.join("run.jsonl");
    std::fs::write(&path, bad_escape_run()).expect("write");
    let p = path.to_str().expect("path");
    let out = dir.join("exported");
    let o = out.to_str().expect("path");
    let said = bad_escape_message(p);
    for (args, code, says) in [
        (vec!["filter", "--type", "result"], 2, true),
        (vec!["fields", "-f", "type"], 2, true),
        (vec!["tree"], 2, true),
        (vec!["tree", "--json"], 2, true),
        (vec!["export", "--out", o], 2, true),
        // The run succeeded; its record counts the bad line.
        (vec!["verdict"], 0, true),
        // A finding: the census exits 1 for it anyway.
        (vec!["check"], 1, true),
        (vec!["stats"], 0, false),
    ] {
        let mut a = args.clone();
        a.push(p);
        let r = cctape(&a);
        let err = stderr(&r);
        assert_eq!(r.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.contains(&said), says, "{args:?}: {err}");
        if says && args[0] != "export" {
            assert_eq!(err, said, "{args:?}: said once, and only it");
        }
    }
    // watch reads stdin: named <stdin>, the verdict's exit code, the
    // message before the verdict record.
    let r = cctape_stdin(&["watch"], bad_escape_run().as_bytes());
    let err = stderr(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(err.starts_with(&bad_escape_message("<stdin>")), "{err}");
    let record: serde_json::Value =
        serde_json::from_str(err.lines().last().expect("a verdict")).expect("JSON");
    assert_eq!(record["bad_lines"], 1);
    let r = cctape_stdin(&["watch", "-s"], bad_escape_run().as_bytes());
    assert_eq!(stderr(&r).lines().count(), 1, "-s: the verdict alone");
}

/// The one position convention: for each bad line of the corpus's
/// mixed-bad.jsonl, the library's `Display`, `stats --json`'s error object,
/// `stats`' list and `filter`'s stderr give the same line, line start and
/// column.
#[test]
fn one_position_convention_in_every_printer() {
    let bytes = std::fs::read(MIXED).expect("corpus");
    let mut library = Vec::new();
    let mut events = cctape::SliceEvents::new(&bytes);
    while let Some(item) = events.next_event() {
        if let Err(e) = item {
            library.push(e.to_string());
        }
    }
    assert_eq!(library.len(), 6, "{library:?}");
    let v: serde_json::Value =
        serde_json::from_slice(&cctape(&["stats", "--json", MIXED]).stdout).expect("JSON");
    let objects = v["errors"].as_array().expect("errors");
    let human = String::from_utf8(cctape(&["stats", MIXED]).stdout).expect("UTF-8");
    let filter = stderr(&cctape(&["filter", MIXED]));
    let said: Vec<&str> = filter.lines().collect();
    assert_eq!((objects.len(), said.len()), (6, 6), "{filter}");
    for ((lib, o), s) in library.iter().zip(objects).zip(&said) {
        let column = o["column"]
            .as_u64()
            .map_or(String::new(), |c| format!(", column {c}"));
        let at = format!("{}, byte {}{column}", o["line"], o["offset"]);
        let rest = format!(
            ": {}: {}",
            o["kind"].as_str().expect("kind"),
            o["message"].as_str().expect("message")
        );
        assert_eq!(lib, &format!("line {at}{rest}"), "the library's Display");
        let named = format!("{MIXED}:{}", at.replacen(", byte", ": byte", 1)) + &rest;
        assert_eq!(s, &format!("cctape: {named}"), "filter's stderr");
        assert!(
            human.lines().any(|l| l == format!("  {named}")),
            "stats' list: {named}\n{human}"
        );
        // The offset is the line's start: the bytes before it end in LF.
        let offset = o["offset"].as_u64().expect("offset") as usize;
        assert_eq!(bytes[offset - 1], b'\n', "{named}");
        let line = o["line"].as_u64().expect("line") as usize;
        assert_eq!(
            bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1,
            line
        );
    }
}

/// The first 100 bad lines of an input are said, the rest counted in one
/// line at its end; the same with one job and with chunks read on the
/// pool; the next input starts its own 100.
#[test]
fn the_first_hundred_of_each_input_are_said_whatever_the_jobs() {
    let dir = scratch("bad-lines-hundred");
    let big = dir.join("big.jsonl");
    let mut body = String::new();
    for i in 0..2_000 {
        if i % 8 == 3 {
            body.push_str("not json\n");
        } else {
            body.push_str(&format!(
                "{{\"type\":\"user\",\"session_id\":\"s\",\"uuid\":\"u{i}\",\"pad\":\"{}\"}}\n",
                "x".repeat(200)
            ));
        }
    }
    std::fs::write(&big, &body).expect("write");
    let small = dir.join("small.jsonl");
    std::fs::write(&small, bad_escape_run()).expect("write");
    let (b, s) = (big.to_str().expect("path"), small.to_str().expect("path"));
    let run = |jobs: &str| {
        Command::new(env!("CARGO_BIN_EXE_cctape"))
            .args(["filter", "--count", "-j", jobs, b, s])
            // Cut the big file into chunks of 4 KiB read apart.
            .env("CCTAPE_SPLIT_AT", "1")
            .env("CCTAPE_CHUNK", "4096")
            .stdin(Stdio::null())
            .output()
            .expect("run")
    };
    let one = run("1");
    let err = stderr(&one);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 100 + 1 + 1, "{err}");
    assert!(
        lines[0].starts_with(&format!("cctape: {b}:4: byte ")),
        "{}",
        lines[0]
    );
    assert!(
        lines[99].starts_with(&format!("cctape: {b}:796: byte ")),
        "{}",
        lines[99]
    );
    assert_eq!(
        lines[100],
        format!(
            "cctape: {b}: 150 more bad lines not said (250 in all); \
             `cctape filter --errors -n` prints every one"
        )
    );
    assert_eq!(format!("{}\n", lines[101]), bad_escape_message(s));
    assert_eq!(one.status.code(), Some(2));
    let two = run("2");
    assert_eq!(stderr(&two), err, "stderr differs with two jobs");
    assert_eq!(two.stdout, one.stdout);
    assert_eq!(two.status.code(), Some(2));
}
