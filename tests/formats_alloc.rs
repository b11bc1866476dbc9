//! The JSON-element path and the transcript fold allocate nothing per
//! element or record once warm (their own binary: the counting allocator is
//! global).

use cctape::elements::Elements;
use cctape::json::Scanner;
use cctape::stream::{ElementEventReader, ElementEvents};
use cctape::transcript::{TranscriptFile, TranscriptFold};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

struct Counting;

thread_local! {
    /// Allocations made by this thread (tests run on several threads).
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

// SAFETY: forwards to the system allocator, only counting calls.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A pretty-printed array of stream events, with escapes and a bad element.
fn array(n: usize) -> Vec<u8> {
    let mut s = String::from("[\n");
    let big = "fn main() {\\n    println!(\\\"hi \\u00e9\\\");\\n}\\n".repeat(50);
    for i in 0..n {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            "  {{\n    \"type\": \"assistant\",\n    \"message\": {{\"id\": \"msg_{i}\", \"content\": [{{\"type\": \"text\", \"text\": \"{big}\"}}],\n      \"usage\": {{\"input_tokens\": {i}, \"output_tokens\": 5}}}},\n    \"session_id\": \"s\"\n  }},\n  {{\"type\": \"user\", \"bad\": [1,}}"
        ));
    }
    s.push_str("\n]\n");
    s.into_bytes()
}

#[test]
fn element_events_from_a_slice_allocate_nothing_once_warm() {
    let data = array(300);
    let mut parser = Scanner::new();
    for round in 0..2 {
        let before = allocs();
        let mut ev = ElementEvents::with_parser(Elements::new(&data), parser);
        let (mut ok, mut bad) = (0, 0);
        while let Some(item) = ev.next_event() {
            match item {
                Ok(e) => {
                    ok += 1;
                    black_box(e.usage());
                }
                Err(e) => {
                    bad += 1;
                    black_box(e.position());
                    // Errors are boxed: one allocation each, as for lines.
                }
            }
        }
        parser = ev.into_parser();
        assert_eq!((ok, bad), (300, 300));
        if round == 1 {
            assert_eq!(
                allocs() - before,
                bad,
                "one per error (its box), none per element"
            );
        }
    }
}

#[test]
fn element_reader_and_scanner_allocate_nothing_per_element_once_warm() {
    let data = array(400);
    let mut r = ElementEventReader::with_capacity(&data[..], 4096, 1 << 20);
    let mut n = 0;
    let mut after_warm = 0;
    let mut errors_after_warm = 0;
    while let Some(item) = r.next_event() {
        n += 1;
        if n == 100 {
            after_warm = allocs();
        }
        if n > 100 && item.is_err() {
            errors_after_warm += 1;
        }
    }
    assert_eq!(n, 800);
    assert_eq!(allocs() - after_warm, errors_after_warm);

    let mut scanner = Scanner::new();
    let mut before = 0;
    for (i, el) in Elements::new(&data).enumerate() {
        if i == 10 {
            before = allocs();
        }
        let el = el.unwrap();
        if let Ok(s) = scanner.scan(&el.as_line()) {
            black_box(s.event().usage());
        }
    }
    // Scan errors are boxed too; count only what the successes cost.
    let errs = Elements::new(&data)
        .skip(10)
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.bytes.starts_with(b"{\"type\": \"user\""))
        })
        .count();
    assert_eq!(allocs() - before, errs);
}

/// Transcript records like Claude Code's: per-block repeats of one request,
/// users, progress, a subagent's sidechain.
fn transcript(n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..n {
        for block in 0..3 {
            s.push_str(&format!(
                r#"{{"parentUuid":"u{i}","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s{}","version":"2.1.39","gitBranch":"main","type":"assistant","message":{{"model":"claude-opus-4-6","id":"msg_{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"block {block}"}}],"stop_reason":{},"usage":{{"input_tokens":3,"cache_creation_input_tokens":{i},"cache_read_input_tokens":100,"cache_creation":{{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":{i}}},"output_tokens":{}}}}},"requestId":"req_{i}","uuid":"a{i}-{block}","timestamp":"2026-02-11T21:{:02}:00.000Z"}}"#,
                i % 7,
                if block == 2 { "\"end_turn\"" } else { "null" },
                10 * (block + 1),
                i % 60
            ));
            s.push('\n');
        }
        s.push_str(&format!(
            r#"{{"parentUuid":"a{i}-2","isSidechain":false,"sessionId":"s{}","version":"2.1.39","type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t{i}","type":"tool_result","content":"ok","is_error":{}}}]}},"uuid":"v{i}","timestamp":"2026-02-11T21:00:00.000Z"}}"#,
            i % 7,
            i % 5 == 0
        ));
        s.push('\n');
        s.push_str(&format!(
            r#"{{"parentUuid":"v{i}","isSidechain":false,"sessionId":"s{}","version":"2.1.39","type":"progress","data":{{"type":"hook_progress","hookEvent":"PostToolUse"}},"toolUseID":"t{i}","parentToolUseID":"t{i}","uuid":"p{i}","timestamp":"2026-02-11T21:00:00.000Z"}}"#,
            i % 7
        ));
        s.push('\n');
    }
    s.into_bytes()
}

#[test]
fn the_transcript_fold_allocates_nothing_per_record_once_warm() {
    let data = transcript(500);
    let file = TranscriptFile::default();
    let mut fold = TranscriptFold::new();
    fold.read_slice(&data, &file, |e| panic!("{e}"));
    let records = fold.records();
    // The same records again (half of them, then all): every session,
    // model and request is known. What a reading allocates is its reader's
    // (`inputs::Sniffed`, as for a file the commands read), the
    // same for 250 records as for 500: nothing per record. (12 today: the
    // source and its boxed reader, the sniffed prefix, the line buffer and
    // the reader's two scanners.)
    let half = transcript(250);
    let before = allocs();
    fold.read_slice(&half, &file, |e| panic!("{e}"));
    let for_half = allocs() - before;
    let before = allocs();
    fold.read_slice(&data, &file, |e| panic!("{e}"));
    let for_all = allocs() - before;
    assert_eq!(for_half, for_all, "allocations per record");
    assert!(for_all <= 16, "{for_all} allocations for one reading");
    assert_eq!(fold.records(), 2 * records + records / 2);
    let report = fold.finish(
        cctape::pricing::PriceTable::builtin(),
        &cctape::time::Zone::utc(),
    );
    assert_eq!(
        report.total.requests, 500,
        "each request once, however often read"
    );
    assert_eq!(report.sessions.len(), 7);
}
