//! The export's memory is bounded by its row groups and its spill bound, not
//! by the input (issue 22, item 5).
//!
//! `exported_rows_spill_instead_of_growing_with_the_input` folds generated
//! streams of 12 and 48 MiB (with `raw`) through `InputRows` and `Writer`,
//! with small row groups and a 1 MiB spill bound, under a counting
//! allocator (this thread's live bytes and their peak): the peak stays
//! under a bound and does not grow with the input, where the same fold
//! without spilling (as `cctape export` did) peaks above the input's size;
//! and both write the same bytes.
//!
//! The tests marked `#[ignore]` measure the binary's peak RSS on a GiB of
//! input with `/usr/bin/time` (a release binary: `CCTAPE_BIN=target/release/cctape
//! cargo test --release --test export_memory -- --ignored`, as `.ci/run`
//! does). `CCTAPE_BIN` may name an older build, to see them fail before the
//! fix.

#![cfg(feature = "parquet")]

use cctape::SliceEvents;
use cctape::export::{ExportOptions, InputRows, Writer};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

#[path = "support/scratch.rs"]
mod scratch_dir;
use scratch_dir::scratch;

#[path = "support/stream_gen.rs"]
mod stream_gen;

struct Counting;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn grew(bytes: usize) {
    let _ = LIVE.try_with(|l| {
        let v = l.get() + bytes as i64;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn shrank(bytes: usize) {
    let _ = LIVE.try_with(|l| l.set(l.get() - bytes as i64));
}

// SAFETY: every method forwards to the system allocator unchanged; counting
// touches only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        shrank(layout.size());
        grew(new_size);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MIB: i64 = 1 << 20;

/// Fold `input` and write it into `out`; the peak of this thread's live
/// heap above what it held before, in bytes.
fn export_peak(input: &[u8], out: &Path, spill: Option<usize>) -> i64 {
    let opts = ExportOptions {
        raw: true,
        row_group_rows: 2000,
        row_group_bytes: 1 << 20,
        max_file_rows: Some(30_000),
        ..ExportOptions::default()
    };
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let mut w = Writer::create(out, &opts).expect("writer");
    let mut rows = InputRows::new("gen.jsonl", true);
    if let Some(bytes) = spill {
        rows = rows.spill_to(w.spill_dir(), bytes);
    }
    let mut events = SliceEvents::new(input);
    while let Some(item) = events.next_event() {
        match item {
            Ok(ev) => rows.push(&ev),
            Err(e) => rows.push_error(&e),
        }
    }
    let batch = rows.finish();
    w.write(&batch).expect("write");
    drop(batch);
    let reports = w.finish().expect("finish");
    assert!(reports[0].rows > 0);
    PEAK.with(Cell::get) - base
}

/// Every part file under `out`, by table and name, with its bytes.
fn files(out: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    for t in ["events", "runs", "tools"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(out.join(t))
            .expect("table")
            .map(|e| e.expect("entry").path())
            .collect();
        names.sort();
        for p in names {
            let bytes = std::fs::read(&p).expect("part");
            all.push((p.strip_prefix(out).expect("under out").to_path_buf(), bytes));
        }
    }
    all
}

#[test]
fn exported_rows_spill_instead_of_growing_with_the_input() {
    let dir = scratch("export-memory");
    let small = stream_gen::stream_of_size(12 << 20, 100, 1);
    let large = stream_gen::stream_of_size(48 << 20, 100, 2);
    let spilled_small = export_peak(&small, &dir.join("small-spilled"), Some(1 << 20));
    let spilled_large = export_peak(&large, &dir.join("large-spilled"), Some(1 << 20));
    let held_small = export_peak(&small, &dir.join("small-held"), None);
    let held_large = export_peak(&large, &dir.join("large-held"), None);
    let mib = |b: i64| b / MIB;
    eprintln!(
        "peaks: spilled {} and {} MiB, held {} and {} MiB (inputs {} and {} MiB)",
        mib(spilled_small),
        mib(spilled_large),
        mib(held_small),
        mib(held_large),
        small.len() >> 20,
        large.len() >> 20
    );
    // Without spilling, an input's rows (its lines, with raw) are held.
    assert!(
        held_large > large.len() as i64,
        "held: {} MiB",
        mib(held_large)
    );
    // With it: the row groups, the spill bound, the runs still open.
    assert!(
        spilled_large < 16 * MIB,
        "spilled: {} MiB for {} MiB of input",
        mib(spilled_large),
        large.len() >> 20
    );
    assert!(
        spilled_large < spilled_small + 4 * MIB,
        "the peak grew with the input: {} MiB, then {} MiB",
        mib(spilled_small),
        mib(spilled_large)
    );
    // The same files either way.
    for (a, b) in [
        ("small-spilled", "small-held"),
        ("large-spilled", "large-held"),
    ] {
        let (fa, fb) = (files(&dir.join(a)), files(&dir.join(b)));
        assert_eq!(
            fa.iter().map(|f| &f.0).collect::<Vec<_>>(),
            fb.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        assert!(fa.len() > 3, "several part files");
        for ((name, x), (_, y)) in fa.iter().zip(&fb) {
            assert!(x == y, "{a} and {b} differ in {}", name.display());
        }
    }
}
