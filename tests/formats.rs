//! Formats: every file in ../shared/realworld is sniffed as its README says,
//! and every JSON-array or pretty-printed capture gives, element by element,
//! the same events as its one-object-a-line twin (serde_json is the oracle
//! for "the same object"), from a slice and from a reader at several read
//! sizes.
//!
//! When ../shared/realworld is missing the tests print "skipped" and pass,
//! unless `CI` is set: then they fail.

use cctape::elements::{ElementReader, Elements};
use cctape::sniff::{Format, FormatChoice, Reading, sniff_format};
use cctape::stream::{ElementEventReader, ElementEvents, SliceEvents};
use cctape::{ErrorKind, EventKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[test]
fn every_realworld_file_sniffs_as_its_readme_says() {
    let Some(dir) = realworld_dir() else { return };
    // Every README's tables (one a collection: ./, wave2/, wave3/, ...).
    let rows = readme_rows(&dir);
    let wave2 = std::fs::read_to_string(dir.join("wave2/README.md")).unwrap();
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    // Files in a `session-format/` folder are transcripts, by the folder.
    let mut in_session_folders = 0;
    for path in all_files(&dir) {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let want = if name == "README.md" {
            Format::Text
        } else if name.ends_with(".index.tsv") {
            // wave2/README: "each `.index.tsv` names the test each line comes from".
            assert!(wave2.contains("`.index.tsv` names the test"));
            Format::Text
        } else {
            let r = rows
                .get(&name)
                .unwrap_or_else(|| panic!("{rel}: not named in a README table"));
            readme_format(&name, r)
        };
        if path.components().any(|c| c.as_os_str() == "session-format") {
            assert_eq!(want, Format::Transcript, "{rel}");
            in_session_folders += 1;
        }
        let bytes = std::fs::read(&path).unwrap();
        let prefix = &bytes[..bytes.len().min(64 << 10)];
        assert_eq!(sniff_format(prefix), want, "{rel}");
        *seen.entry(want.name()).or_default() += 1;
    }
    // Each kind the READMEs describe is there.
    for kind in [
        "stream",
        "json-array",
        "json-pretty",
        "transcript",
        "text",
        "logger-prefixed",
        "cut-lines",
    ] {
        assert!(seen.contains_key(kind), "no {kind} file: {seen:?}");
    }
    assert!(in_session_folders > 0, "{seen:?}");
    assert!(seen["transcript"] >= in_session_folders, "{seen:?}");
}

#[test]
fn text_outputs_are_text_and_forcing_a_format_reads_it_that_way() {
    for text in [
        &b"API Error: Unable to connect to API (ConnectionRefused)\n"[..],
        b"I fixed the bug in src/main.rs.\n\nError: Reached max turns (30)\n",
        b"[Stream timed out after 159s]\n",
    ] {
        assert_eq!(
            sniff_format(text),
            Format::Text,
            "{:?}",
            String::from_utf8_lossy(text)
        );
        assert_eq!(Format::Text.reading(), Reading::NotEvents);
    }
    assert_eq!(sniff_format(b"[true, 1]"), Format::JsonArray);
    assert_eq!(sniff_format(b"[\n\n  {\"a\":1}]"), Format::JsonArray);
    let transcript = b"{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\"}\n";
    assert_eq!(sniff_format(transcript), Format::Transcript);
    assert_eq!(FormatChoice::Stream.resolve(transcript), Format::Ndjson);
    assert_eq!(FormatChoice::Json.resolve(transcript), Format::PrettyJson);
    assert_eq!(
        FormatChoice::Transcript.resolve(b"{\"type\":\"user\",\"session_id\":\"s\"}\n"),
        Format::Transcript
    );
    assert_eq!(FormatChoice::Json.resolve(b"  \n"), Format::Empty);
    for c in [
        FormatChoice::Auto,
        FormatChoice::Stream,
        FormatChoice::Json,
        FormatChoice::Transcript,
    ] {
        assert_eq!(FormatChoice::from_name(c.name()), Some(c));
    }
}

/// An event, owned: its kind and the object serde_json reads from its bytes.
type Seen = (EventKind, serde_json::Value);

fn events_of_lines(bytes: &[u8]) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut ev = SliceEvents::new(bytes);
    while let Some(item) = ev.next_event() {
        let e = item.expect("the compacted twin is all events");
        out.push((e.kind(), serde_json::from_slice(e.raw()).unwrap()));
    }
    out
}

fn events_of_elements(bytes: &[u8]) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut ev = ElementEvents::new(bytes);
    while let Some(item) = ev.next_event() {
        let e = item.expect("every element is an event");
        out.push((e.kind(), serde_json::from_slice(e.raw()).unwrap()));
    }
    assert_eq!(ev.counts().errors, 0);
    assert_eq!(
        ev.counts().lines,
        bytes.split(|&b| b == b'\n').count() as u64 - u64::from(bytes.ends_with(b"\n")),
        "physical lines"
    );
    out
}

fn events_of_reader(bytes: &[u8], read_size: usize) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut ev = ElementEventReader::with_capacity(bytes, read_size, 1 << 30);
    while let Some(item) = ev.next_event() {
        let e = item.expect("every element is an event");
        out.push((e.kind(), serde_json::from_slice(e.raw()).unwrap()));
    }
    out
}

fn with(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// The twin's events, from the twin and from the JSON file, by every path.
fn check_twin(json: &Path, ndjson: &Path, want_events: usize) {
    let a = std::fs::read(json).unwrap();
    let b = std::fs::read(ndjson).unwrap();
    let want = events_of_lines(&b);
    assert_eq!(want.len(), want_events, "{}", ndjson.display());
    // serde_json's reading of the whole file is the other oracle.
    let whole: Vec<serde_json::Value> = match serde_json::from_slice::<serde_json::Value>(&a) {
        Ok(serde_json::Value::Array(v)) => v,
        Ok(v) => vec![v],
        Err(_) => serde_json::Deserializer::from_slice(&a)
            .into_iter::<serde_json::Value>()
            .map(|v| v.unwrap())
            .collect(),
    };
    assert_eq!(
        whole,
        want.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>()
    );
    assert_eq!(events_of_elements(&a), want, "{}", json.display());
    for size in [1, 7, 4096, 1 << 20] {
        assert_eq!(
            events_of_reader(&a, size),
            want,
            "{} read {size}",
            json.display()
        );
    }
}

#[test]
fn the_one_line_json_array_gives_the_events_of_its_ndjson_twin() {
    let Some(dir) = realworld_dir() else { return };
    let base = dir.join("wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656");
    check_twin(&with(&base, ".json"), &with(&base, ".ndjson"), 182);
    // One line: every element is on line 1, at its byte in the line.
    let a = std::fs::read(with(&base, ".json")).unwrap();
    let els: Vec<_> = Elements::new(&a).map(|e| e.unwrap()).collect();
    assert_eq!(els.len(), 182);
    assert!(els.iter().all(|e| e.line == 1 && e.complete));
    assert_eq!(els[0].offset, 1);
    for (i, e) in els.iter().enumerate() {
        assert_eq!(e.index, i as u64);
        assert_eq!(&a[e.offset as usize..][..e.bytes.len()], e.bytes);
    }
}

#[test]
fn bitovi_pretty_gives_the_events_of_its_twin() {
    let Some(dir) = realworld_dir() else { return };
    let b = dir.join("bitovi__ai-coding-agent__specifications-improved-output");
    check_twin(&with(&b, ".pretty.json"), &with(&b, ".ndjson"), 8);
}

#[test]
fn charlieyou_pretty_gives_the_events_of_its_twin() {
    let Some(dir) = realworld_dir() else { return };
    let b = dir.join("charlieyou__claude-agent-sdk-gleam__test-fixtures-real4");
    check_twin(&with(&b, ".pretty.json"), &with(&b, ".ndjson"), 4);
}

#[test]
fn uspark_pretty_gives_the_events_of_its_twin() {
    let Some(dir) = realworld_dir() else { return };
    let b = dir.join("uspark-hq__uspark__spec-claude-code-output");
    check_twin(&with(&b, ".pretty.json"), &with(&b, ".ndjson"), 7);
}

#[test]
fn mattarge_pretty_array_excerpt_gives_the_events_of_its_twin() {
    let Some(dir) = realworld_dir() else { return };
    let b = dir.join(
        "excerpts/mattarge04-gif__signedbymattia__claude-execution-output.json.FIRST2ELEMENTS",
    );
    check_twin(&with(&b, ".pretty.json"), &with(&b, ".ndjson"), 2);
}

#[test]
fn handwritten_pretty_array_gives_the_events_of_its_twin() {
    let Some(dir) = realworld_dir() else { return };
    let b = dir
        .join("synthetic/anthropics__claude-code-action__test-fixtures-sample-turns.HANDWRITTEN");
    check_twin(&with(&b, ".json"), &with(&b, ".ndjson"), 9);
}

#[test]
fn positions_of_pretty_elements_are_their_first_lines() {
    let Some(dir) = realworld_dir() else { return };
    let a = std::fs::read(
        dir.join("bitovi__ai-coding-agent__specifications-improved-output.pretty.json"),
    )
    .unwrap();
    // Independent: the lines that are a lone `{` at column 0 start objects.
    let starts: Vec<(u64, u64)> = {
        let mut off = 0u64;
        let mut out = Vec::new();
        for (i, l) in a.split(|&b| b == b'\n').enumerate() {
            if l == b"{" {
                out.push((i as u64 + 1, off));
            }
            off += l.len() as u64 + 1;
        }
        out
    };
    let got: Vec<(u64, u64)> = Elements::new(&a)
        .map(|e| e.unwrap())
        .map(|e| (e.line, e.offset))
        .collect();
    assert_eq!(got, starts);
    let mut r = ElementReader::with_capacity(&a[..], 3, 1 << 20);
    let mut got2 = Vec::new();
    while let Some(e) = r.next_element() {
        let e = e.unwrap();
        got2.push((e.line, e.offset));
    }
    assert_eq!(got2, starts);
}

/// A cut array: the elements before the cut are events, the cut one is
/// `truncated` at its position, nothing after it is lost or invented.
#[test]
fn a_cut_array_keeps_what_came_before_and_is_truncated_at_the_cut() {
    let Some(dir) = realworld_dir() else { return };
    let a = std::fs::read(
        dir.join("wave2/jedarden__spaxel__.beads-traces-spaxel-40tl-stdout.txt@03f7656.json"),
    )
    .unwrap();
    let els: Vec<_> = Elements::new(&a).map(|e| e.unwrap()).collect();
    let e100 = els[100];
    let cut = e100.offset as usize + e100.bytes.len() / 2;
    let mut ev = ElementEvents::new(&a[..cut]);
    let mut n = 0;
    let mut last_err = None;
    while let Some(item) = ev.next_event() {
        match item {
            Ok(_) => n += 1,
            Err(e) => last_err = Some((e.kind(), e.position())),
        }
    }
    assert_eq!(n, 100);
    let (k, p) = last_err.unwrap();
    assert_eq!(k, ErrorKind::Truncated);
    assert_eq!(p.element, Some(100));
    assert_eq!(p.line, 1);
    assert!(p.byte() >= e100.offset && p.byte() <= cut as u64, "{p:?}");
    assert_eq!(ev.counts().errors, 1);
}

#[path = "support/realworld.rs"]
mod realworld_files;
use realworld_files::{all_files, readme_format, readme_rows, realworld_dir};
