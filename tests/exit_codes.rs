//! Exit codes say one thing everywhere: each command's `--help` ends with
//! an "Exit codes:" paragraph, one line a code; this test reads it, runs the
//! command on an input that gives each code it lists (and only those), and
//! finds the same lines in the command's man page (`cctape man CMD`, typeset
//! by groff) and in the README's list under "Bad lines and exit codes".
//!
//! The commands come from `cctape --help`: a new command without its
//! paragraph, or a code without a case here, fails.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Output, Stdio};

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

#[path = "support/run.rs"]
mod run;
use run::commands;

fn cctape(args: &[String], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cctape");
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().expect("stdin");
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let out = child.wait_with_output().expect("wait");
    if let Some(w) = writer {
        w.join().expect("writer");
    }
    out
}

fn text(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let o = cctape(&args, None);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8")
}

/// The "Exit codes:" paragraph of a help text: code → what it means.
fn exit_codes(help: &str) -> BTreeMap<i32, String> {
    let para = help
        .split("\nExit codes:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no \"Exit codes:\" paragraph in:\n{help}"));
    let mut codes = BTreeMap::new();
    for line in para.lines().take_while(|l| !l.is_empty()) {
        let (code, what) = line
            .strip_prefix("  ")
            .and_then(|l| l.split_once("  "))
            .unwrap_or_else(|| panic!("not `  N  text`: {line:?}"));
        let code: i32 = code.parse().unwrap_or_else(|_| panic!("{line:?}"));
        assert!(
            codes.insert(code, what.to_string()).is_none(),
            "{line:?} twice"
        );
    }
    assert!(!codes.is_empty(), "an empty paragraph in:\n{help}");
    codes
}

/// A man page typeset as plain text, every run of white space one space.
fn man_text(cmd: &str) -> String {
    let roff = text(&["man", cmd]);
    let mut child = Command::new("groff")
        .args(["-man", "-Tascii", "-P-cbou", "-ww", "-rLL=2000n", "-rHY=0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("groff (Debian: apt-get install groff-base) typesets the man pages");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(roff.as_bytes()));
    let out = child.wait_with_output().expect("groff");
    writer.join().expect("writer").expect("write");
    squash(&String::from_utf8(out.stdout).expect("UTF-8"))
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The README's line for `cmd`: "- `cmd`: **0** ...; **1** ...".
fn readme_codes(readme: &str, cmd: &str) -> BTreeMap<i32, String> {
    let section = readme
        .split("### Bad lines and exit codes")
        .nth(1)
        .expect("the README's section");
    let line = section
        .lines()
        .find_map(|l| l.strip_prefix(&format!("- `{cmd}`: ")))
        .unwrap_or_else(|| panic!("no README line for {cmd}"));
    let mut codes = BTreeMap::new();
    for part in line.split("**").skip(1).collect::<Vec<_>>().chunks(2) {
        let [code, what] = part else { panic!("{line}") };
        let what = what.trim().trim_end_matches(';').to_string();
        codes.insert(code.parse::<i32>().expect("a code"), what);
    }
    codes
}

/// A run whose second line is not JSON (a bad line).
const BAD: &str = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"uuid\":\"u1\"}\nnot json\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"session_id\":\"s\",\"uuid\":\"u2\"}\n";
const OK: &str = "corpus/streams/success-basic.jsonl";
const FAILED_RUN: &str = "corpus/streams/max-turns.jsonl";
const MISSING: &str = "/nonexistent/x.jsonl";

/// One way to get an exit code: (code, arguments, stdin).
type Case = (i32, Vec<String>, Option<Vec<u8>>);

/// The ways to get each code of each command.
fn cases(dir: &Scratch) -> BTreeMap<&'static str, Vec<Case>> {
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, BAD).expect("write");
    let bad = bad.to_str().expect("path").to_string();
    // A file check finds nothing in: one status event with every field
    // the reference gives it.
    let clean = dir.join("clean.jsonl");
    std::fs::write(
        &clean,
        "{\"type\":\"system\",\"subtype\":\"status\",\"status\":\"requesting\",\"session_id\":\"s\",\"uuid\":\"u\"}\n",
    )
    .expect("write");
    let clean = clean.to_str().expect("path").to_string();
    let out = |n: &str| dir.join(n).to_str().expect("path").to_string();
    let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let stdin = |p: &str| Some(std::fs::read(p).expect("read"));
    let mut m = BTreeMap::new();
    m.insert(
        "stats",
        vec![
            (0, a(&["stats", OK]), None),
            // Bad lines are in the report: still 0.
            (0, a(&["stats", &bad]), None),
            (2, a(&["stats", OK, MISSING]), None),
            (2, a(&["stats", "--by", "no_such_key", OK]), None),
        ],
    );
    m.insert(
        "filter",
        vec![
            (0, a(&["filter", "--type", "result", OK]), None),
            (0, a(&["filter", "--errors", &bad]), None),
            (1, a(&["filter", "--type", "no_such_type", OK]), None),
            // An error even though a line was printed.
            (2, a(&["filter", "--type", "result", &bad]), None),
            (2, a(&["filter", "--type", "result", OK, MISSING]), None),
        ],
    );
    m.insert(
        "fields",
        vec![
            (0, a(&["fields", "-f", "type", OK]), None),
            (
                1,
                a(&["fields", "--type", "no_such_type", "-f", "type", OK]),
                None,
            ),
            (2, a(&["fields", "-f", "type", &bad]), None),
            (2, a(&["fields", "-f", "@nope", OK]), None),
        ],
    );
    m.insert(
        "check",
        vec![
            (0, a(&["check", &clean]), None),
            (1, a(&["check", &bad]), None),
            (2, a(&["check", &clean, MISSING]), None),
        ],
    );
    m.insert(
        "verdict",
        vec![
            (0, a(&["verdict", OK]), None),
            // The run succeeded; its record counts the bad line.
            (0, a(&["verdict", &bad]), None),
            (1, a(&["verdict", FAILED_RUN]), None),
            // No result: 1, not 2 (issue 22, item 17).
            (
                1,
                a(&["verdict", "corpus/run/verdict-no-result.jsonl"]),
                None,
            ),
            (1, a(&["verdict", "corpus/run/empty.jsonl"]), None),
            (2, a(&["verdict", OK, MISSING]), None),
        ],
    );
    m.insert(
        "tree",
        vec![
            (0, a(&["tree", OK]), None),
            (2, a(&["tree", &bad]), None),
            (2, a(&["tree", MISSING]), None),
        ],
    );
    m.insert(
        "watch",
        vec![
            (0, a(&["watch"]), stdin(OK)),
            (0, a(&["watch"]), Some(BAD.as_bytes().to_vec())),
            (1, a(&["watch"]), stdin(FAILED_RUN)),
            (1, a(&["watch"]), Some(Vec::new())),
            (2, a(&["watch", "--no-such-flag"]), stdin(OK)),
        ],
    );
    m.insert(
        "export",
        vec![
            (0, a(&["export", "--out", &out("e0"), OK]), None),
            (2, a(&["export", "--out", &out("e1"), &bad]), None),
            (2, a(&["export", "--out", &out("e2"), MISSING]), None),
        ],
    );
    m.insert(
        "otel",
        vec![
            (0, a(&["otel", "--out", &out("o0"), OK]), None),
            (2, a(&["otel", "--out", &out("o1"), OK, MISSING]), None),
            // Nothing listens on port 1: not delivered.
            (
                2,
                a(&[
                    "otel",
                    "--otlp",
                    "http://127.0.0.1:1",
                    "--otlp-retries",
                    "0",
                    OK,
                ]),
                None,
            ),
        ],
    );
    m.insert(
        "report",
        vec![
            (0, a(&["report", "--html", &out("r0.html"), OK]), None),
            // Bad lines are in the page: still 0.
            (0, a(&["report", "--html", &out("r1.html"), &bad]), None),
            (
                2,
                a(&["report", "--html", &out("r2.html"), OK, MISSING]),
                None,
            ),
            (2, a(&["report", "--html", "/nonexistent/r.html", OK]), None),
        ],
    );
    m.insert(
        "completions",
        vec![
            (0, a(&["completions", "bash"]), None),
            (2, a(&["completions", "no_such_shell"]), None),
        ],
    );
    m.insert(
        "man",
        vec![
            (0, a(&["man"]), None),
            (0, a(&["man", "--dir", &out("pages")]), None),
            (2, a(&["man", "no_such_command"]), None),
        ],
    );
    m
}

#[test]
fn every_command_exits_as_its_help_says() {
    let dir = scratch("exit-codes");
    let cases = cases(&dir);
    let readme = std::fs::read_to_string("README.md").expect("README");
    let commands = commands();
    for c in cases.keys() {
        assert!(
            commands.iter().any(|n| n == c),
            "{c} is not in cctape --help"
        );
    }
    for cmd in &commands {
        let long = text(&[cmd, "--help"]);
        let codes = exit_codes(&long);
        assert_eq!(
            exit_codes(&text(&[cmd, "-h"])),
            codes,
            "{cmd}: -h and --help"
        );
        let mine = cases
            .get(cmd.as_str())
            .unwrap_or_else(|| panic!("no cases for {cmd}"));
        let tried: std::collections::BTreeSet<i32> = mine.iter().map(|c| c.0).collect();
        assert_eq!(
            tried,
            codes.keys().copied().collect(),
            "{cmd}: the codes --help lists are the codes tried"
        );
        for (code, args, stdin) in mine {
            let o = cctape(args, stdin.as_deref());
            assert_eq!(
                o.status.code(),
                Some(*code),
                "{args:?} ({}): {}",
                codes[code],
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let man = man_text(cmd);
        for (code, what) in &codes {
            let line = squash(&format!("{code} {what}"));
            assert!(man.contains(&line), "cctape man {cmd}: {line:?} missing");
        }
        assert_eq!(readme_codes(&readme, cmd), codes, "{cmd}: the README");
    }
}

/// The case: `verdict --help` said 2 for no result or an empty
/// input; both exit 1, as the README says.
#[test]
fn verdict_help_says_no_result_is_one() {
    let codes = exit_codes(&text(&["verdict", "--help"]));
    assert!(codes[&1].contains("no result"), "{codes:?}");
    assert!(!codes[&2].contains("no result"), "{codes:?}");
    let help = text(&["verdict", "--help"]);
    assert!(!help.contains("2 when any has no verdict"), "{help}");
}
