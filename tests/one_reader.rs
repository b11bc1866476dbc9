//! One reader (issue 23, item 6): an input read from a `Read`
//! (`read_source`), from memory (`read_slice`, as the command reads a
//! chunk of a large file) and from bytes pushed as they arrive (a decoder
//! handing each line or element to `LineRead`, as `watch` does) gives the
//! same items, in the same order, with the same counts, for every file of
//! the shipped corpus and of the real captures, and for hand-made inputs
//! with every kind of bad line. `Items::pause` hears when the reader has
//! no complete line left.

use cctape::inputs::{Item, Items, ReadOptions, Sniffed, stream_source};
use cctape::json::ScanMode;
use cctape::sniff::FormatChoice;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

#[path = "support/checks.rs"]
mod checks;
use checks::{check_one_reader, pushed_items, read_items, slice_read_items};

#[path = "support/realworld_present.rs"]
mod realworld_present;

fn plain_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            plain_files(&p, out);
        } else if p.extension().is_some_and(|e| {
            ["jsonl", "json", "ndjson", "txt", "log"].contains(&e.to_str().unwrap_or(""))
        }) {
            out.push(p);
        }
    }
}

#[test]
fn every_framing_gives_the_same_items_on_the_corpus_and_the_captures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    plain_files(&root.join("corpus"), &mut files);
    let corpus = files.len();
    // Without the captures (see realworld_present.rs) the corpus alone.
    plain_files(&root.join("../shared/realworld"), &mut files);
    assert!(corpus >= 40, "{corpus} corpus files");
    let mut items = 0;
    for path in &files {
        let bytes = std::fs::read(path).expect("a listed file reads");
        let step = if bytes.len() > 200_000 { 4096 } else { 7 };
        items += check_one_reader(&bytes, step, cctape::framing::DEFAULT_MAX_LINE);
    }
    assert!(items > 10_000, "{items} items compared");
}

#[test]
fn every_framing_gives_the_same_items_on_bad_lines() {
    let inputs: &[&[u8]] = &[
        b"{\"type\":\"system\",\"subtype\":\"init\"}\n\n  \n{\"type\":\"user\",\"x\":}\n[1]\n{\"type\":\"result\"",
        b"{\"type\":\"user\"}\r{\"type\":\"user\"}\r\n{\"no\":\"type\"}\n",
        b"[{\"type\":\"system\",\"subtype\":\"init\"},\n {bad},\n {\"type\":\"result\",\"subtype\":\"success\"}]\n",
        b"[]\n",
        b"Error: the model is overloaded\nplease retry\n\n",
        b"",
        b"{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"u\"}\n{\"type\":\"user\",\"sessionId\":\"a\",\"uuid\":\"b\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"user\",\"sessionId\":\"a\",\"message\":{oops}}\n",
        // A logger's output: its text, a pretty value, a value cut between
        // tokens and one cut inside a string.
        b"[2025-10-13T01:16:00Z] [INFO] starting\n[2025-10-13T01:16:01Z] [INFO] {\"type\":\"system\",\"subtype\":\"init\"}\n[2025-10-13T01:16:01Z] [INFO] {\n[2025-10-13T01:16:01Z] [INFO]   \"type\": \"user\"\n[2025-10-13T01:16:01Z] [INFO] }\n[2025-10-13T01:16:02Z] [INFO] {\"type\":\"result\",\n[2025-10-13T01:16:02Z] [INFO] \"subtype\":\"success\"}\n[2025-10-13T01:16:03Z] [WARN] {\"type\":\"assis\n[2025-10-13T01:16:03Z] [WARN] tant\"}\n[2025-10-13T01:16:04Z] [INFO] done",
    ];
    for bytes in inputs {
        for step in [1, 3, 4096] {
            check_one_reader(bytes, step, 64);
            check_one_reader(bytes, step, cctape::framing::DEFAULT_MAX_LINE);
        }
    }
    // A line past the maximum: an error without its bytes, in its place.
    let long = [
        &b"{\"type\":\"user\"}\n{\"type\":\"user\",\"pad\":\""[..],
        &[b'x'; 300][..],
        b"\"}\n{\"type\":\"result\"}\n",
    ]
    .concat();
    let opts = ReadOptions {
        max_line: 100,
        ..ReadOptions::default()
    };
    let (want, format) = read_items(&long, &[], &opts);
    assert_eq!(want.len(), 3, "{want:?}");
    assert!(want[1].starts_with("error LineTooLong"), "{want:?}");
    let format = format.expect("a format");
    assert_eq!(pushed_items(&long, format, &opts, 64), want);
    assert_eq!(slice_read_items(&long, format, &opts), want);
}

/// A reader that hands out at most `n` bytes a read.
struct Trickle<'a> {
    bytes: &'a [u8],
    n: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.n.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Counts items, and the pauses at which no complete line was held.
#[derive(Default)]
struct Pauses {
    items: usize,
    caught_up: Vec<usize>,
}

impl Items for Pauses {
    fn item(&mut self, _: Item<'_, '_>) -> ControlFlow<()> {
        self.items += 1;
        ControlFlow::Continue(())
    }

    fn pause(&mut self, buffered: impl FnOnce() -> bool) {
        if !buffered() {
            self.caught_up.push(self.items);
        }
    }
}

#[test]
fn pause_hears_when_no_complete_line_is_held() {
    // Two lines a read: the reader is caught up after every second line.
    let line = b"{\"type\":\"user\"}\n";
    let bytes = line.repeat(6);
    let rdr = Trickle {
        bytes: &bytes,
        n: 2 * line.len(),
    };
    let src = stream_source(rdr).expect("opens");
    let mut pauses = Pauses::default();
    let end = Sniffed::new(src, FormatChoice::Auto).read(&ReadOptions::default(), &mut pauses);
    assert_eq!(end.counts.events, 6);
    assert_eq!(pauses.items, 6);
    // The first read is the sniffer's (it holds what it read); after it,
    // each read holds two lines.
    assert!(pauses.caught_up.contains(&6), "{:?}", pauses.caught_up);
    assert!(
        pauses.caught_up.iter().all(|&n| n % 2 == 0),
        "{:?}",
        pauses.caught_up
    );
    assert!(pauses.caught_up.len() >= 2, "{:?}", pauses.caught_up);
}

/// The reader asks the tape parser for a scanned line's error only when
/// the scanner says the JSON is invalid (without what was expected): every
/// other error of the scanner is already the parser's, kind, position and
/// reason, on every cut of real lines and on lines that are not events.
#[test]
fn scan_errors_other_than_invalid_json_are_the_parsers() {
    use cctape::event::parse_event;
    use cctape::framing::Lines;
    use cctape::json::Scanner;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join("corpus/run/tools-server.jsonl")).expect("corpus file");
    let mut lines: Vec<Vec<u8>> = Lines::new(&bytes).map(|l| l.bytes.to_vec()).collect();
    lines.extend(
        [
            &b"[1,2]"[..],
            b"{\"no\":\"type\"}",
            b"{\"type\":1}",
            b"\"text\"",
            b"{\"type\":\"user\"} x",
            b"{\"type\":\"user\",\"s\":\"\\ud800\"}",
            b"{\"type\":\"user\",\"s\":\"\xff\"}",
        ]
        .map(<[u8]>::to_vec),
    );
    let (mut scanner, mut parser) = (Scanner::new(), Scanner::new());
    let mut compared = 0;
    for full in &lines {
        for (cut, terminated) in (1..=full.len()).flat_map(|c| [(c, true), (c, false)]) {
            let line = cctape::framing::Line {
                bytes: &full[..cut],
                number: 3,
                offset: 100,
                terminated,
            };
            let Err(scanned) = scanner.scan_with(&line, ScanMode::Validated) else {
                continue;
            };
            if scanned.kind() == cctape::ErrorKind::InvalidJson {
                continue;
            }
            let parsed = parse_event(&mut parser, &line).err();
            let parsed = parsed.expect("the parser fails where the scanner does");
            assert_eq!(
                (scanned.kind(), scanned.position(), scanned.reason()),
                (parsed.kind(), parsed.position(), parsed.reason()),
                "{:?}",
                String::from_utf8_lossy(line.bytes)
            );
            compared += 1;
        }
    }
    assert!(compared > 1000, "{compared} errors compared");
}

/// The verdict records a command writes (one JSON object a line), each
/// without its `file` (`<stdin>` for `watch`).
fn records(stream: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stream)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON record");
            if let Some(o) = v.as_object_mut() {
                o.remove("file");
            }
            v
        })
        .collect()
}

/// `watch`, which reads the bytes as they are pushed, gives the verdicts
/// `verdict` gives reading the same input whole (each run's record once it
/// is over, so in another order), on every file of the
/// corpus and of the captures: logger-prefixed logs (two of the captures),
/// arrays, pretty JSON and transcripts included. Before `watch` read a log
/// through its prefixes, it called each of those two logs a
/// `startup_failure` with thousands of bad lines, where `verdict` says
/// `success` with eight.
#[test]
fn watch_gives_the_verdicts_of_verdict_on_every_file() {
    use std::process::{Command, Stdio};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    plain_files(&root.join("corpus"), &mut files);
    plain_files(&root.join("../shared/realworld"), &mut files);
    let exe = env!("CARGO_BIN_EXE_cctape");
    let (mut compared, mut logged) = (0, 0);
    for path in &files {
        let input = || std::fs::File::open(path).expect("a listed file opens");
        let watch = Command::new(exe)
            .args(["watch", "--json", "-q", "-s"])
            .stdin(Stdio::from(input()))
            .output()
            .expect("watch runs");
        let verdict = Command::new(exe)
            .args(["verdict", "--json", "-s"])
            .stdin(Stdio::from(input()))
            .output()
            .expect("verdict runs");
        // `watch` says a run once it is over, `verdict` in the order the
        // runs began: the same records, compared in one order.
        let sorted = |mut r: Vec<serde_json::Value>| {
            r.sort_by_cached_key(|v| v.to_string());
            r
        };
        let (w, v) = (
            sorted(records(&watch.stderr)),
            sorted(records(&verdict.stdout)),
        );
        assert!(!v.is_empty(), "{}: no verdict", path.display());
        assert_eq!(w, v, "{}", path.display());
        assert_eq!(
            watch.status.code(),
            verdict.status.code(),
            "{}",
            path.display()
        );
        compared += v.len();
        let head = std::fs::read(path).expect("a listed file reads");
        let head = &head[..head.len().min(cctape::inputs::SNIFF_BYTES)];
        logged +=
            usize::from(cctape::sniff::sniff_format(head) == cctape::sniff::Format::LoggerPrefixed);
    }
    assert!(compared >= 100, "{compared} records compared");
    if root.join("../shared/realworld").is_dir() {
        assert!(logged >= 2, "{logged} logger-prefixed captures");
    }
}
