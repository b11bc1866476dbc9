//! Calling every accessor of every view allocates nothing: after a warm-up
//! pass over the realworld files and the corpus, a second pass runs
//! `visit_all` (every accessor, every nested view, every array and map
//! walked, unknown fields listed) on every event under a counting allocator.

use cctape::SliceEvents;
use cctape::framing::Lines;
use cctape::json::Scanner;
use cctape::views::{NoVisitor, View};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;

struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn note() {
    let _ = ON.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counter only touches const-initialised thread-locals, which never allocate.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    COUNT.with(|c| c.set(0));
    ON.with(|on| on.set(true));
    f();
    ON.with(|on| on.set(false));
    COUNT.with(|c| c.get())
}

fn inputs() -> Vec<(PathBuf, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("corpus/reference"), root.join("corpus/streams")];
    let real = root.join("../shared/realworld");
    if real.is_dir() {
        dirs.push(real);
    } else {
        eprintln!("SKIP realworld: ../shared/realworld is missing");
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld is required in CI"
        );
    }
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl" || e == "ndjson") {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

/// Visit every event of every input; returns (events, allocations made
/// inside `visit_all` and `unknown_fields`).
fn pass(inputs: &[(PathBuf, Vec<u8>)], parser: &mut Option<Scanner>) -> (u64, u64) {
    let mut events = 0;
    let mut allocs = 0;
    for (_, bytes) in inputs {
        let p = parser.take().unwrap_or_default();
        let mut it = SliceEvents::with_parser(Lines::new(bytes), p);
        while let Some(item) = it.next_event() {
            let Ok(ev) = item else { continue };
            events += 1;
            allocs += allocations(|| {
                let view = ev.view();
                view.visit_all(&mut NoVisitor);
                std::hint::black_box(view.unknown_fields().count());
                std::hint::black_box(ev.as_result().and_then(|r| r.cost()));
                if let View::Assistant(a) = view {
                    std::hint::black_box(a.block());
                }
            });
        }
        *parser = Some(it.into_parser());
    }
    (events, allocs)
}

#[test]
fn visiting_every_accessor_allocates_nothing() {
    let inputs = inputs();
    let mut parser = None;
    let (warm_events, _) = pass(&inputs, &mut parser);
    let (events, allocs) = pass(&inputs, &mut parser);
    assert_eq!(events, warm_events);
    assert!(events > 100, "{events} events");
    assert_eq!(allocs, 0, "{allocs} allocations over {events} events");
    // The counter works: an owned copy allocates.
    let mut it = SliceEvents::new(b"{\"type\":\"user\",\"a\":[1]}");
    let ev = it.next_event().unwrap().unwrap();
    assert!(allocations(|| drop(std::hint::black_box(ev.view().to_owned_json()))) > 0);
}

/// The real-data part of the tests of this file reads ../shared/realworld and
/// passes without it; this test makes that skip show in cargo's summary.
#[path = "support/realworld_present.rs"]
mod realworld_present;
