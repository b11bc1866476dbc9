//! Run semantics (issue 4): one test per rule, each on a small stream in
//! `corpus/run/` (or `corpus/streams/`) named after it.
//!
//! The helpers and the counting allocator are here; the tests are in
//! [`rules`] (what a run is, the verdict), [`accounting`] (usage, cost,
//! tools, subagents, warnings), [`realworld`] (every real capture) and
//! [`allocation`] (no allocation per line).

use cctape::TokenCounts;
use cctape::run::{RunSummary, runs_of_slice};
use std::path::{Path, PathBuf};

mod accounting;
mod allocation;
mod realworld;
mod rules;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

fn runs(rel: &str) -> Vec<RunSummary> {
    let bytes = std::fs::read(corpus(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    runs_of_slice(&bytes)
}

fn one(rel: &str) -> RunSummary {
    let mut r = runs(rel);
    assert_eq!(r.len(), 1, "{rel}: one run");
    r.remove(0)
}

fn tokens(i: u64, o: u64, cr: u64, cc: u64) -> TokenCounts {
    TokenCounts {
        input_tokens: i,
        output_tokens: o,
        cache_read_input_tokens: cr,
        cache_creation_input_tokens: cc,
    }
}

fn codes(r: &RunSummary) -> Vec<&'static str> {
    r.warnings.iter().map(|w| w.code).collect()
}

// --- counting allocations (for the tests in allocation.rs) -------------------------------

mod alloc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    pub struct Counting;

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

    // SAFETY: forwards to the system allocator; only counts.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            note();
            // SAFETY: same contract as ours.
            unsafe { System.alloc(l) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            // SAFETY: same contract as ours.
            unsafe { System.dealloc(p, l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
            note();
            // SAFETY: same contract as ours.
            unsafe { System.realloc(p, l, n) }
        }
    }

    /// Allocations made by `f` on this thread.
    pub fn count(f: impl FnOnce()) -> u64 {
        COUNT.with(|c| c.set(0));
        ON.with(|on| on.set(true));
        f();
        ON.with(|on| on.set(false));
        COUNT.with(|c| c.get())
    }
}

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;
