//! The column of a bad line is the offending byte, on every path that reads
//! JSON: the tape (`Parser`), the scanner (`Scanner`) and the element reader
//! (arrays and pretty-printed JSON), compared with serde_json's reading of
//! the same bytes (an independent parser: its 1-based column is the
//! offending byte's; at the end of the input it is the end).

use cctape::framing::Lines;
use cctape::json::Scanner;
use cctape::json::tape::Parser;
use cctape::stream::{ElementEventReader, ElementEvents};
use cctape::{Error, ErrorKind};

/// Real lines: every event of the shipped corpus streams.
fn corpus_lines() -> Vec<Vec<u8>> {
    let mut names: Vec<_> = std::fs::read_dir("corpus/streams")
        .expect("corpus/streams")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for n in names {
        let text = std::fs::read(&n).expect("read");
        for l in text.split(|&b| b == b'\n') {
            if serde_json::from_slice::<serde_json::Value>(l).is_ok_and(|v| v.is_object()) {
                out.push(l.to_vec());
            }
        }
    }
    assert!(out.len() > 100, "{} lines", out.len());
    out
}

/// Where `bytes` go wrong, 0-based (line, column): the first byte in order
/// that is not UTF-8 (std's `from_utf8`; JSON text is UTF-8) or where
/// serde_json stops (the end of the input for a cut), whichever comes
/// first; `None` when serde_json reads them.
fn oracle(bytes: &[u8]) -> Option<(usize, usize)> {
    let e = serde_json::from_slice::<serde_json::Value>(bytes).err()?;
    let at = serde_at(bytes, &e);
    let at = match std::str::from_utf8(bytes) {
        Err(u) => at.min(u.valid_up_to()),
        Ok(_) => at,
    };
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    Some((line, at - line_start(bytes, line)))
}

/// The absolute offset of serde_json's error.
fn serde_at(bytes: &[u8], e: &serde_json::Error) -> usize {
    if e.is_eof() {
        return bytes.len();
    }
    // Where the offending byte is an LF, serde_json has moved to the next
    // line (column 0): the byte is that LF.
    let at = match e.column() {
        0 => line_start(bytes, e.line()) - 1,
        c => line_start(bytes, e.line()) + c - 1,
    };
    // serde_json reads the four digits of a `\u` escape before it
    // complains; the offending byte is the first that is not a hex digit.
    if e.to_string().starts_with("invalid escape")
        && let Some(u) = bytes[..at].windows(2).rposition(|w| w == b"\\u")
        && let Some(k) = (u + 2..u + 6).find(|&k| !bytes[k].is_ascii_hexdigit())
    {
        return k;
    }
    at
}

/// Where 1-based line `line` starts.
fn line_start(bytes: &[u8], line: usize) -> usize {
    if line == 1 {
        return 0;
    }
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(line - 2)
        .map_or(0, |(i, _)| i + 1)
}

/// One broken copy of a real line per (position, byte), every few bytes.
fn broken_lines() -> Vec<Vec<u8>> {
    const BYTES: [u8; 9] = [b'@', 0xff, 0x01, b'}', b']', b'"', b',', b'\\', b'x'];
    let mut out = Vec::new();
    for (k, line) in corpus_lines().iter().enumerate().step_by(7) {
        for at in (k % 5..line.len()).step_by(11) {
            for &b in &BYTES {
                let mut l = line.clone();
                l[at] = b;
                out.push(l);
            }
        }
    }
    // The case of the issue: an invalid byte at column 22.
    out.push(b"{\"type\":\"user\",\"x\":\"ab\xffcd\"}".to_vec());
    out
}

fn column(r: Result<(), Error>) -> Option<(ErrorKind, Option<u64>)> {
    r.err().map(|e| (e.kind(), e.position().column))
}

#[test]
fn tape_and_scanner_report_the_offending_byte() {
    let mut parser = Parser::new();
    let mut scanner = Scanner::new();
    let mut compared = 0;
    for bad in broken_lines() {
        let mut bytes = bad.clone();
        bytes.push(b'\n');
        let line = Lines::new(&bytes).next().expect("a line");
        let tape = column(parser.parse(&line).map(|_| ()));
        let scan = column(scanner.scan(&line).map(|_| ()));
        let Some(want) = oracle(&bad) else { continue };
        let Some((kind, col)) = tape else {
            // Read by us and not by serde_json: a lone surrogate or a
            // number beyond f64, which cctape accepts on purpose.
            continue;
        };
        if kind == ErrorKind::NotAnObject {
            continue;
        }
        let shown = String::from_utf8_lossy(&bad);
        assert_eq!(col, Some(want.1 as u64), "tape, {kind}: {shown}");
        let (skind, scol) = scan.expect("the scanner rejects it too");
        assert_eq!((skind, scol), (kind, col), "scanner: {shown}");
        compared += 1;
    }
    assert!(compared > 1000, "{compared} lines compared");
}

#[test]
fn a_cut_line_is_reported_at_its_end() {
    let mut parser = Parser::new();
    let mut scanner = Scanner::new();
    for line in corpus_lines().iter().step_by(13) {
        for cut in (1..line.len()).step_by(17) {
            let part = &line[..cut];
            let Some(want) = oracle(part) else { continue };
            let l = Lines::new(part).next().expect("a line");
            assert!(!l.terminated);
            let (kind, col) = column(parser.parse(&l).map(|_| ())).expect("cut");
            if kind == ErrorKind::NotAnObject {
                continue;
            }
            let shown = String::from_utf8_lossy(part);
            assert_eq!(kind, ErrorKind::Truncated, "{shown}");
            assert_eq!(col, Some(want.1 as u64), "tape: {shown}");
            let scan = column(scanner.scan(&l).map(|_| ()));
            assert_eq!(scan, Some((kind, col)), "scanner: {shown}");
        }
    }
}

/// An error about the JSON text (not about what the JSON holds, such as
/// an object without `type`).
fn is_json_error(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::InvalidJson | ErrorKind::InvalidUtf8 | ErrorKind::Truncated | ErrorKind::TooDeep
    )
}

/// The first JSON error an element reader gives, as (physical line, column).
fn first_element_error(doc: &[u8], chunked: bool) -> Option<(u64, Option<u64>)> {
    if chunked {
        let mut r = ElementEventReader::with_capacity(doc, 7, 1 << 20);
        while let Some(item) = r.next_event() {
            if let Err(e) = item
                && is_json_error(&e)
            {
                return Some((e.position().line, e.position().column));
            }
        }
        return None;
    }
    let mut events = ElementEvents::new(doc);
    while let Some(item) = events.next_event() {
        if let Err(e) = item
            && is_json_error(&e)
        {
            return Some((e.position().line, e.position().column));
        }
    }
    None
}

#[test]
fn element_reader_reports_the_offending_byte_on_its_physical_line() {
    let lines = corpus_lines();
    let values: Vec<serde_json::Value> = lines[..16]
        .iter()
        .map(|l| serde_json::from_slice(l).expect("json"))
        .collect();
    // Pretty-printed (an element over many lines, indented) and on one line
    // (`--output-format json`: columns far into the line).
    let pretty = serde_json::to_string_pretty(&values).expect("pretty");
    let compact = serde_json::to_string(&values).expect("compact");
    let mut compared = 0;
    for doc in [pretty.as_bytes(), compact.as_bytes()] {
        // Break bytes inside the elements, one at a time.
        for at in (3..doc.len() - 3).step_by(37) {
            for b in [b'@', 0xff, b'}', b'x'] {
                let mut d = doc.to_vec();
                d[at] = b;
                let Some((line, col)) = oracle(&d) else {
                    continue;
                };
                let shown =
                    String::from_utf8_lossy(&d[at.saturating_sub(40)..(at + 40).min(d.len())]);
                for chunked in [false, true] {
                    let Some((gl, gc)) = first_element_error(&d, chunked) else {
                        // A lone surrogate or a huge number, accepted.
                        continue;
                    };
                    assert_eq!(
                        (gl, gc),
                        (line as u64, Some(col as u64)),
                        "byte {at} set to {b:#x}, chunked {chunked}: ...{shown}..."
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "{compared} documents compared");
}

/// Where Python's json module says `line` goes wrong (its `pos`, a
/// character index: the lines here are ASCII), or `None` without Python.
fn python_error_pos(line: &str) -> Option<u64> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import json, sys\ntry:\n json.loads(sys.argv[1]); print(-1)\nexcept json.JSONDecodeError as e:\n print(e.pos)",
            line,
        ])
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

#[test]
fn the_repair_path_reports_the_offending_byte_after_what_it_repaired() {
    // Lines the tape reads only after rewriting a lone surrogate or a
    // number beyond f64 (parse.rs's repair path), then failing further on.
    // serde_json stops at the surrogate itself; Python's json reads lone
    // surrogates, as cctape does, and says where the line really fails.
    let lines = [
        r#"{"type":"user","x":"\ud800","y":@}"#,
        r#"{"type":"user","x":"\udc00\ud800","y":[1,2,}"#,
        r#"{"type":"user","x":123456789012345678901234567890e999999,"y":@}"#,
        r#"{"type":"user","x":-1e400,"z":"\ud83d","y":{"a" 1}}"#,
    ];
    let mut parser = Parser::new();
    let mut scanner = Scanner::new();
    for l in lines {
        let Some(want) = python_error_pos(l) else {
            eprintln!("skipped: no python3");
            return;
        };
        assert!(want > 0, "Python rejects {l}");
        let bytes = format!("{l}\n");
        let line = Lines::new(bytes.as_bytes()).next().expect("a line");
        let tape = column(parser.parse(&line).map(|_| ()));
        let scan = column(scanner.scan(&line).map(|_| ()));
        assert_eq!(
            tape,
            Some((ErrorKind::InvalidJson, Some(want))),
            "tape: {l}"
        );
        assert_eq!(scan, tape, "scanner: {l}");
    }
}
