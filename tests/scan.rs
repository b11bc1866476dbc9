//! The scanner against the tape path: same accept/reject, same error kind,
//! same EventKind and hot fields, on generated lines and on every real file.

use cctape::event::{Event, parse_event};
use cctape::framing::{Line, Lines};
use cctape::parse::Parser;
use cctape::scan::{Backend, RawStr, Scanned, Scanner};
use cctape::{ErrorKind, EventKind, Field};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Everything compared between the two paths, as owned values.
#[derive(Debug, PartialEq)]
struct Facts {
    kind: EventKind,
    ty: String,
    subtype: Option<String>,
    session_id: Option<String>,
    uuid: Option<String>,
    parent: Field<String>,
    message_id: Option<String>,
    model: Option<String>,
    usage: Option<cctape::TokenCounts>,
    block_type: Option<String>,
    tool_use_id: Option<String>,
    tool_name: Option<String>,
    tool_result_id: Option<String>,
    tool_result_is_error: Option<bool>,
    is_error: Option<bool>,
    num_turns: Option<u64>,
    duration_ms: Option<u64>,
    total_cost_usd: Option<u64>,
}

fn s(r: Option<RawStr<'_>>) -> Option<String> {
    r.map(|r| {
        let mut out = String::new();
        assert!(r.unescape_into(&mut out));
        if let Some(t) = r.as_str() {
            assert_eq!(t, out);
        }
        assert!(r.str_eq(&out));
        out
    })
}

fn facts_of_event(e: &Event<'_>) -> Facts {
    let o = |x: Option<&str>| x.map(str::to_owned);
    Facts {
        kind: e.kind(),
        ty: e.raw_type().to_owned(),
        subtype: o(e.raw_subtype()),
        session_id: o(e.session_id()),
        uuid: o(e.uuid()),
        parent: e.parent_tool_use_id().map(str::to_owned),
        message_id: o(e.message_id()),
        model: o(e.model()),
        usage: e.usage(),
        block_type: o(e.content_block_type()),
        tool_use_id: o(e.tool_use_id()),
        tool_name: o(e.tool_name()),
        tool_result_id: o(e.tool_result_id()),
        tool_result_is_error: e.tool_result_is_error(),
        is_error: e.is_error(),
        num_turns: e.num_turns(),
        duration_ms: e.duration_ms(),
        total_cost_usd: e.total_cost_usd().map(f64::to_bits),
    }
}

fn facts_of_scan(e: &Scanned<'_>) -> Facts {
    Facts {
        kind: e.kind(),
        ty: e.raw_type().to_owned(),
        subtype: e.raw_subtype().map(str::to_owned),
        session_id: s(e.session_id()),
        uuid: s(e.uuid()),
        parent: match e.parent_tool_use_id() {
            Field::Missing => Field::Missing,
            Field::Null => Field::Null,
            Field::Value(v) => Field::Value(s(Some(v)).unwrap()),
        },
        message_id: s(e.message_id()),
        model: s(e.model()),
        usage: e.usage(),
        block_type: s(e.content_block_type()),
        tool_use_id: s(e.tool_use_id()),
        tool_name: s(e.tool_name()),
        tool_result_id: s(e.tool_result_id()),
        tool_result_is_error: e.tool_result_is_error(),
        is_error: e.is_error(),
        num_turns: e.num_turns(),
        duration_ms: e.duration_ms(),
        total_cost_usd: e.total_cost_usd().map(f64::to_bits),
    }
}

fn tape(line: &Line<'_>) -> Result<Facts, ErrorKind> {
    let mut p = Parser::new();
    parse_event(&mut p, line)
        .map(|e| facts_of_event(&e))
        .map_err(|e| e.kind())
}

fn scanned(sc: &mut Scanner, line: &Line<'_>) -> Result<Facts, ErrorKind> {
    sc.scan(line).map(|e| facts_of_scan(&e)).map_err(|e| e.kind())
}

/// Compare the two paths on one line with every backend; return the tape's
/// answer.
fn check_line(line: &Line<'_>) -> Result<Facts, ErrorKind> {
    let want = tape(line);
    for b in Backend::available() {
        let mut sc = Scanner::with_backend(b).unwrap();
        let got = scanned(&mut sc, line);
        assert_eq!(
            got,
            want,
            "backend {} line {:?}",
            b.name(),
            String::from_utf8_lossy(line.bytes)
        );
    }
    want
}

fn check_bytes(b: &[u8], terminated: bool) -> Result<Facts, ErrorKind> {
    check_line(&Line {
        bytes: b,
        number: 1,
        offset: 0,
        terminated,
    })
}

fn realworld_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if d.is_dir() {
        return Some(d);
    }
    let alt = Path::new("/work/shared/realworld");
    alt.is_dir().then(|| alt.to_path_buf())
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_realworld_line_agrees_with_the_tape() {
    let Some(dir) = realworld_dir() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld is missing and CI is set"
        );
        println!("skipped: ../shared/realworld is missing");
        return;
    };
    let mut all = Vec::new();
    files(&dir, &mut all);
    all.sort();
    let (mut lines, mut ok, mut errs) = (0, 0, 0);
    for f in &all {
        let bytes = std::fs::read(f).unwrap();
        for line in Lines::new(&bytes) {
            if line.is_blank() {
                continue;
            }
            lines += 1;
            match check_line(&line) {
                Ok(_) => ok += 1,
                Err(_) => errs += 1,
            }
        }
    }
    println!("{} files, {lines} lines: {ok} events, {errs} errors", all.len());
    assert!(lines > 1000 && ok > 1000);
}

#[test]
fn hand_picked_edges() {
    let cases: &[&[u8]] = &[
        br#"{"type":"user"}"#,
        br#" {"type":"user"} "#,
        b"{\"type\":\"user\"}\r",
        br#"{"type":"user"}x"#,
        br#"{"type":"us\u0065r"}"#,
        br#"{"typ\u0065":"user"}"#,
        br#"{"type":"user","type":"user"}"#,
        br#"{"type":"user","type":"us\u0065r"}"#,
        br#"{"type":"user","type":"assistant"}"#,
        br#"{"type":1,"type":1.0}"#,
        br#"{"type":1,"type":2}"#,
        br#"{"type":null,"type":null}"#,
        br#"{"type":{},"type":{}}"#,
        br#"{"type":"system","subtype":"init","subtype":"init"}"#,
        br#"{"type":"system","subtype":"\ud800","subtype":"\udc00"}"#,
        br#"{"type":"x","a":"\ud83d"}"#,
        br#"{"type":"x","a":"\udc00\ud800\ud800\udc00"}"#,
        br#"{"type":"x","a":"\uZZZZ"}"#,
        br#"{"type":"x","a":"\u12"}"#,
        br#"{"type":"x","a":"\x"}"#,
        br#"{"type":"x","a":18446744073709551616}"#,
        br#"{"type":"x","a":1e400,"b":-1e400,"c":1e-400}"#,
        br#"{"type":"x","a":-99999999999999999999.5e99999}"#,
        br#"{"type":"x","a":01}"#,
        br#"{"type":"x","a":-}"#,
        br#"{"type":"x","a":1.}"#,
        br#"{"type":"x","a":1e}"#,
        br#"{"type":"x","a":-0,"b":0.0e0,"c":1E+2}"#,
        br#"{"type":"x","a":tru}"#,
        br#"{"type":"x","a":truex}"#,
        br#"{"type":"x","a":[1,2,]}"#,
        br#"{"type":"x",}"#,
        br#"{"type":"x" "a":1}"#,
        b"{\"type\":\"x\",\"a\":\"\x01\"}",
        b"{\"type\":\"x\",\"a\":\"\xff\"}",
        b"{\"type\":\"x\",\"a\":\"\xff\x01\"}",
        b"{\"type\":\"x\",\"a\":\"\xff\"}\x01\"",
        b"{\"type\":\"x\",\"a\":\"\xc3\xa9\"}",
        b"{\"type\":\"x\"}\xc3\xa9",
        b"{\"type\":\"x\"}\xff",
        b"",
        b"   ",
        b"[1,2]",
        b"\"str\"",
        b"123",
        b"[1,2",
        b"{\"type\":\"x\",\"a\":\"abc",
        b"{\"type\":\"x\"",
        br#"{"foo":1}"#,
        br#"{"type":7}"#,
        br#"{"a":"\\"}"#,
        br#"{"a":"\\\""}"#,
    ];
    for c in cases {
        for term in [true, false] {
            let _ = check_bytes(c, term);
        }
    }
    let deep_ok = format!("{{\"type\":\"x\",\"a\":{}{}}}", "[".repeat(1023), "]".repeat(1023));
    assert!(check_bytes(deep_ok.as_bytes(), true).is_ok());
    let deep = format!("{{\"type\":\"x\",\"a\":{}{}}}", "[".repeat(1024), "]".repeat(1024));
    assert_eq!(check_bytes(deep.as_bytes(), true), Err(ErrorKind::TooDeep));
    let deep_bad = format!("{{\"a\":{}\"\x01\"", "[".repeat(2000));
    let _ = check_bytes(deep_bad.as_bytes(), true);
    let deep_utf8 = format!("{{\"a\":{}\"\u{e9}\"\x7f\u{1}", "[".repeat(2000));
    let _ = check_bytes(deep_utf8.as_bytes(), true);
}
