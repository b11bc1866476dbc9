//! What `cctape stats` keeps per input (issue 22, item 6): the report's
//! live heap, counted by a counting allocator, over N and 2N small inputs
//! read the way the command reads them, in every output mode. The growth
//! per input is what the report prints about one: nothing but its name
//! for the totals alone, a group or a `per_file` record (a few hundred
//! bytes) where the output has one. Before, 10 to 33 KB an input.
//!
//! Bytes, not time: one test function, so that no other test allocates on
//! another thread meanwhile.

use cctape::pricing::PriceTable;
use cctape::report::{GroupBy, Grouping, InputFigures, RunFigures, StatsReport};
use cctape::run::RunFolder;
use cctape::stats::Stats;
use cctape::time::Zone;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

struct Counting;

/// Bytes allocated and not freed, every thread.
static LIVE: AtomicI64 = AtomicI64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The i-th input: 167 bytes, one run, as benches/many_small.py writes
/// them (one day, a second apart).
fn input(i: usize) -> Vec<u8> {
    let (h, m, s) = ((i / 3600) % 24, (i / 60) % 60, i % 60);
    format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s{i:06}\",\"timestamp\":\"2025-06-01T{h:02}:{m:02}:{s:02}Z\"}}\n\
         {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"total_cost_usd\":1}}\n"
    )
    .into_bytes()
}

/// The live bytes of a finished report over `n` inputs (names included),
/// made as `cctape stats` makes it.
fn report_bytes(n: usize, by: Option<GroupBy>, per_file: bool) -> (i64, u64) {
    let grouping = Grouping {
        by,
        zone: Zone::utc(),
        range: Default::default(),
    };
    let before = LIVE.load(Ordering::Relaxed);
    let names: Vec<String> = (0..n)
        .map(|i| format!("runs/p{:03}/run-{i:06}.jsonl", i / 1000))
        .collect();
    let mut report = StatsReport::new(
        names.clone(),
        grouping.clone(),
        PriceTable::builtin().clone(),
    );
    if !per_file {
        report = report.without_per_file();
    }
    for (i, name) in names.iter().enumerate() {
        let bytes = input(i);
        let mut stats = Stats::new();
        let mut folder = RunFolder::new();
        let mut events = cctape::SliceEvents::new(&bytes);
        while let Some(item) = events.next_event() {
            if let Ok(ev) = item {
                stats.record_event(&ev);
                folder.push(&ev);
            }
        }
        stats.files += 1;
        stats.bytes += bytes.len() as u64;
        stats.counts.add(&events.counts());
        let mut runs = RunFigures::default();
        for r in folder.finish() {
            runs.add(i, name, &r, &grouping);
        }
        report.add_input(
            i,
            InputFigures {
                stats,
                runs,
                ..InputFigures::default()
            },
        );
    }
    drop(names);
    let figures = report.finish();
    let live = LIVE.load(Ordering::Relaxed) - before;
    let runs = figures.total.runs.all.runs;
    drop(figures);
    (live, runs)
}

#[test]
fn the_report_keeps_per_input_what_it_prints_of_it() {
    const N: usize = 2_000;
    // Per input: its name (about 60 bytes) always; with a row or a
    // per_file record, that and the record (with both, the record is the
    // row).
    for (by, per_file, bound) in [
        (None, false, 128),
        (None, true, 1_600),
        (Some(GroupBy::Day), false, 128),
        (Some(GroupBy::Week), false, 128),
        (Some(GroupBy::Month), false, 128),
        (Some(GroupBy::Block), false, 128),
        (Some(GroupBy::Model), false, 128),
        (Some(GroupBy::Version), false, 128),
        (Some(GroupBy::Project), false, 128),
        (Some(GroupBy::File), false, 1_600),
        (Some(GroupBy::Session), false, 1_600),
        (Some(GroupBy::File), true, 1_600),
        (Some(GroupBy::Day), true, 1_600),
    ] {
        let (one, runs) = report_bytes(N, by, per_file);
        assert_eq!(runs, N as u64);
        let (two, _) = report_bytes(2 * N, by, per_file);
        let per_input = (two - one) / N as i64;
        assert!(
            per_input <= bound,
            "--by {by:?}, per_file {per_file}: {per_input} bytes kept per input (bound {bound}; \
             {one} bytes for {N} inputs, {two} for {})",
            2 * N
        );
        eprintln!("--by {by:?}, per_file {per_file}: {per_input} bytes per input");
    }
}
