//! Reading events allocates nothing once the buffers have grown.
//!
//! A counting global allocator counts allocations (and bytes) made by this
//! thread. Everything runs in ONE test, so no other test allocates meanwhile
//! (the counts are per thread anyway).
//!
//! The corpus is every real-world `.jsonl` file concatenated plus
//! corpus/streams, read into memory first. After a warm-up pass over the
//! same bytes with the same parser, a second pass must allocate nothing
//! while calling `next_event` and every hot accessor of every event, except
//! the one box of each per-line error (errors are a boxed value by design).
//! Events read through the structural index: strings with escapes (text,
//! tool results) read as `&str` are unescaped into the arena of the line's
//! buffer, a scanner's or a batch's ([`ReadAhead`], the pool's read), which
//! allocates nothing once grown.

use cctape::framing::Lines;
use cctape::stats::{AheadLine, ReadAhead, Stats};
use cctape::{Event, EventReader, SliceEvents};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::path::{Path, PathBuf};

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn note(bytes: usize) {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + bytes as u64));
}

// SAFETY: every method forwards to the system allocator unchanged; counting
// touches only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and bytes so far on this thread.
fn count() -> (u64, u64) {
    (ALLOCS.with(Cell::get), BYTES.with(Cell::get))
}

fn since(start: (u64, u64)) -> (u64, u64) {
    let now = count();
    (now.0 - start.0, now.1 - start.1)
}

/// Call every hot accessor; results go through `black_box`.
fn touch(ev: &Event<'_>) {
    black_box(ev.kind());
    black_box(ev.raw_type());
    black_box(ev.raw_subtype());
    black_box(ev.session_id());
    black_box(ev.uuid());
    black_box(ev.parent_tool_use_id());
    black_box(ev.timestamp());
    black_box(ev.message().map(|m| m.len()));
    black_box(ev.message_id());
    black_box(ev.model());
    black_box(ev.usage());
    black_box(ev.content_block().map(|b| b.len()));
    black_box(ev.content_block_type());
    black_box(ev.tool_use_id());
    black_box(ev.tool_name());
    black_box(ev.tool_result_id());
    black_box(ev.tool_result_is_error());
    black_box(ev.is_error());
    black_box(ev.subtype());
    black_box(ev.num_turns());
    black_box(ev.duration_ms());
    black_box(ev.total_cost_usd());
    black_box(ev.raw());
    black_box(ev.position());
    black_box(ev.line());
    black_box(ev.offset());
    black_box(
        ev.get_path("message.usage.output_tokens")
            .map(|v| v.as_u64()),
    );
    black_box(ev.get("result").and_then(|v| v.as_str()));
    // Strings that hold escapes (newlines in text and tool results), read
    // as `&str`: unescaped into the arena.
    let block = ev.content_block();
    black_box(block.and_then(|b| b.get("text")).and_then(|v| v.as_str()));
    black_box(
        block
            .and_then(|b| b.get("content"))
            .and_then(|v| v.as_str()),
    );
    for (k, v) in ev.root().entries() {
        black_box((k, v.as_str()));
    }
}

fn corpus() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    let realworld = root.join("../shared/realworld");
    if realworld.is_dir() {
        // Every `.jsonl` of every folder (./, wave2/, wave3/, ...): the walk
        // skips none, and each collection (a folder with a README) gives
        // some.
        files = realworld::all_files(&realworld)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        for readme in realworld::all_files(&realworld) {
            if readme.file_name().is_some_and(|n| n == "README.md") {
                let folder = readme.parent().unwrap();
                assert!(
                    files.iter().any(|f| f.starts_with(folder)),
                    "no .jsonl read from {}",
                    folder.display()
                );
            }
        }
        assert!(files.len() > 40, "{} real-world .jsonl files", files.len());
    } else {
        println!("skipped: ../shared/realworld not found (corpus/streams only)");
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld not found and CI is set"
        );
    }
    for e in std::fs::read_dir(root.join("corpus/streams")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            files.push(p);
        }
    }
    files.sort();
    // Kinds whose names come from the line, so that Stats' name map is used.
    let mut out = b"{\"type\":\"progress\"}\n{\"type\":\"system\",\"subtype\":\"local_command\"}\n{\"type\":\"result\"}\n".to_vec();
    for f in files {
        out.extend_from_slice(&std::fs::read(&f).unwrap());
        // mixed-bad.jsonl ends without an LF: keep its last line apart.
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

/// What one counted pass saw.
#[derive(Debug, Default, PartialEq, Eq)]
struct Pass {
    events: u64,
    errors: u64,
}

#[test]
fn reading_events_allocates_nothing_after_warm_up() {
    let corpus = corpus();
    let longest = corpus
        .split(|&b| b == b'\n')
        .map(<[u8]>::len)
        .max()
        .unwrap();
    assert!(longest > 1000);

    // ---- SliceEvents: warm up, then the same bytes with the same parser.
    let mut stats = Stats::new();
    let mut events = SliceEvents::new(&corpus);
    let mut warm = Pass::default();
    while let Some(item) = events.next_event() {
        match item {
            Ok(ev) => {
                touch(&ev);
                stats.record_event(&ev);
                warm.events += 1;
            }
            Err(_) => warm.errors += 1,
        }
    }
    assert!(warm.events > 100);
    assert!(
        warm.errors > 0,
        "the corpus has bad lines (mixed-bad.jsonl)"
    );
    let parser = events.into_parser();

    let mut events = SliceEvents::with_parser(Lines::new(&corpus), parser);
    let mut pass = Pass::default();
    let total = count();
    loop {
        let start = count();
        let Some(item) = events.next_event() else {
            assert_eq!(since(start), (0, 0), "the end of the stream allocated");
            break;
        };
        match item {
            Ok(ev) => {
                let (line, kind) = (ev.line(), ev.kind());
                assert_eq!(since(start).0, 0, "next_event allocated on line {line}");
                touch(&ev);
                assert_eq!(
                    since(start).0,
                    0,
                    "an accessor allocated on line {line} ({kind:?})"
                );
                stats.record_event(&ev);
                assert_eq!(
                    since(start).0,
                    0,
                    "Stats::record_event allocated on line {line} ({kind:?})"
                );
                pass.events += 1;
            }
            Err(e) => {
                // The error's box, and nothing else.
                assert_eq!(since(start).0, 1, "error {e}");
                pass.errors += 1;
            }
        }
    }
    assert_eq!(pass, warm);
    assert_eq!(since(total).0, pass.errors, "SliceEvents second pass");
    // Each pass recorded every event once.
    let unknown = stats.unknown();
    assert!(
        unknown
            .get("progress")
            .is_some_and(|&n| n >= 2 && n % 2 == 0)
    );
    assert!(
        unknown
            .get("system/local_command")
            .is_some_and(|&n| n >= 2 && n % 2 == 0)
    );
    assert!(
        stats
            .by_type()
            .get("result")
            .is_some_and(|&n| n >= 2 && n % 2 == 0)
    );

    // ---- EventReader over an in-memory reader: two copies of the corpus;
    // the first warms the buffers up (past the longest line), the second is
    // counted. Small and default read sizes.
    let twice = [corpus.as_slice(), corpus.as_slice()].concat();
    let lines_per_copy = corpus.iter().filter(|&&b| b == b'\n').count() as u64;
    for read_size in [64, 4096, 256 << 10] {
        let mut reader = EventReader::with_capacity(&twice[..], read_size, 256 << 20);
        let mut warm = Pass::default();
        while reader.counts().lines < lines_per_copy {
            match reader.next_event().expect("the first copy is not the end") {
                Ok(ev) => {
                    touch(&ev);
                    warm.events += 1;
                }
                Err(_) => warm.errors += 1,
            }
        }
        assert_eq!(reader.counts().lines, lines_per_copy);
        let mut pass = Pass::default();
        let total = count();
        loop {
            let start = count();
            let Some(item) = reader.next_event() else {
                assert_eq!(since(start).0, 0, "the end of the stream allocated");
                break;
            };
            match item {
                Ok(ev) => {
                    let line = ev.line();
                    assert_eq!(
                        since(start).0,
                        0,
                        "read size {read_size}: next_event allocated on line {line}"
                    );
                    touch(&ev);
                    assert_eq!(
                        since(start).0,
                        0,
                        "read size {read_size}: an accessor allocated on line {line}"
                    );
                    pass.events += 1;
                }
                Err(e) => {
                    assert_eq!(since(start).0, 1, "read size {read_size}: error {e}");
                    pass.errors += 1;
                }
            }
        }
        assert_eq!(pass, warm, "read size {read_size}");
        assert_eq!(
            since(total).0,
            pass.errors,
            "EventReader, read size {read_size}"
        );
        assert_eq!(reader.counts().lines, 2 * lines_per_copy);
    }

    // ---- ReadAhead (the pool's read of a large file): chunks of the corpus
    // validated and indexed into one batch, each line's nodes appended to
    // its buffer, read back through the index. After a warm-up over every
    // chunk, reading them again allocates nothing but the error boxes.
    // Chunks of 256 KiB as the CLI reads ahead, or smaller when the corpus
    // is (without ../shared/realworld), so that there are several.
    let size = (corpus.len() / 8).clamp(1, 256 << 10);
    let chunks: Vec<(&[u8], (u64, u64))> = {
        let (mut out, mut at, mut line) = (Vec::new(), 0usize, 1u64);
        while at < corpus.len() {
            let from = (at + size).min(corpus.len()) - 1;
            let end = memchr::memchr(b'\n', &corpus[from..]).map_or(corpus.len(), |i| from + i + 1);
            out.push((&corpus[at..end], (at as u64, line)));
            line += memchr::memchr_iter(b'\n', &corpus[at..end]).count() as u64;
            at = end;
        }
        out
    };
    assert!(chunks.len() > 4, "{} chunks", chunks.len());
    let (mut scanner, mut ahead) = (cctape::json::Scanner::new(), ReadAhead::new());
    let mut warm = Pass::default();
    for &(chunk, start) in &chunks {
        ahead.read(&mut scanner, chunk, start, 256 << 20);
        for (_, item) in ahead.lines(chunk) {
            match item {
                AheadLine::Event(ev) => {
                    touch(&ev);
                    warm.events += 1;
                }
                AheadLine::Failed(_) => warm.errors += 1,
                AheadLine::Blank | AheadLine::TooLong => {}
            }
        }
    }
    let mut pass = Pass::default();
    for &(chunk, start) in &chunks {
        let before = count();
        ahead.read(&mut scanner, chunk, start, 256 << 20);
        let mut errors = 0;
        for (line, item) in ahead.lines(chunk) {
            match item {
                AheadLine::Event(ev) => {
                    touch(&ev);
                    pass.events += 1;
                }
                AheadLine::Failed(e) => {
                    errors += 1;
                    black_box((line.number, e.kind()));
                }
                AheadLine::Blank | AheadLine::TooLong => {}
            }
        }
        pass.errors += errors;
        assert_eq!(
            since(before).0,
            errors,
            "ReadAhead: chunk at byte {} allocated more than its error boxes",
            start.0
        );
    }
    assert_eq!(pass, warm, "ReadAhead");

    // ---- The counter counts: a parser's first line allocates.
    let start = count();
    let mut fresh = SliceEvents::new(b"{\"type\":\"user\"}\n");
    black_box(fresh.next_event().unwrap().unwrap().kind());
    assert!(since(start).0 > 0, "the allocator does not count");
}

/// The real-data part of reading_events_allocates_nothing_after_warm_up reads
/// ../shared/realworld and passes without it; this test makes that skip show in
/// cargo's summary.
#[path = "support/realworld_present.rs"]
mod realworld_present;

#[path = "support/realworld.rs"]
mod realworld;
