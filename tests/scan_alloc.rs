//! The scanner allocates nothing per line after warm-up (its own binary:
//! the counting allocator is global).

use cctape::framing::Lines;
use cctape::json::Scanner;
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

fn input() -> Vec<u8> {
    let mut s = String::new();
    let big = "fn main() {\\n    println!(\\\"hi \\u00e9\\\");\\n}\\n".repeat(200);
    for i in 0..200 {
        s.push_str(&format!(
            r#"{{"type":"assistant","message":{{"id":"msg_{i}","model":"m","content":[{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{{"command":"ls"}}}}],"usage":{{"input_tokens":{i},"output_tokens":5}}}},"parent_tool_use_id":null,"session_id":"s","uuid":"u{i}"}}"#
        ));
        s.push('\n');
        s.push_str(&format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{i}","type":"tool_result","content":"{big}","is_error":false}}]}},"session_id":"s","uuid":"v{i}"}}"#
        ));
        s.push('\n');
        s.push_str(r#"{"type":"syst\u0065m","subtype":"in\u0069t","k":[1,2,{"a":null}]}"#);
        s.push('\n');
        s.push_str("{\"type\":\"user\",\"bad\":[1,}\n{\"type\":\"x\",\"s\":\"\\ud83d\"}\n");
        s.push_str(r#"{"is_error":false,"subtype":"success","num_turns":3,"total_cost_usd":0.5,"type":"result"}"#);
        s.push('\n');
    }
    s.into_bytes()
}

fn pass(sc: &mut Scanner, data: &[u8]) -> (u64, u64) {
    let (mut ok, mut fields) = (0u64, 0u64);
    for line in Lines::new(data) {
        let Ok(s) = sc.scan(&line) else { continue };
        let e = s.event();
        ok += 1;
        fields += u64::from(e.session_id().is_some());
        fields += e.usage().unwrap_or_default().input_tokens;
        fields += u64::from(e.tool_use_id().is_some() || e.tool_result_id().is_some());
        fields += e.num_turns().unwrap_or(0);
        black_box(e.total_cost_usd());
        black_box(s.raw_subtype());
    }
    (ok, fields)
}

#[test]
fn scan_allocates_nothing_per_line_after_warm_up() {
    let data = input();
    let mut sc = Scanner::new();
    let mut tr = Scanner::new();
    let warm = pass(&mut sc, &data);
    for line in Lines::new(&data) {
        let _ = black_box(tr.scan_trusting(&line).map(|e| e.kind()));
    }
    let before = allocs();
    let again = pass(&mut sc, &data);
    for line in Lines::new(&data) {
        let _ = black_box(tr.scan_trusting(&line).map(|e| e.kind()));
    }
    let after = allocs();
    assert_eq!(warm, again);
    assert!(warm.0 >= 600, "{warm:?}");
    // Only the bad lines allocate: an `Error` is one small box each.
    let bad_lines = Lines::new(&data).count() as u64 - warm.0;
    assert!(
        (after - before) as u64 <= bad_lines,
        "{} allocations for {} bad lines",
        after - before,
        bad_lines
    );
}

#[test]
fn good_lines_allocate_nothing_at_all_after_warm_up() {
    let data = input();
    let good: Vec<u8> = Lines::new(&data)
        .filter(|l| Scanner::new().scan(l).is_ok())
        .flat_map(|l| l.bytes.iter().copied().chain([b'\n']))
        .collect();
    let mut sc = Scanner::new();
    pass(&mut sc, &good);
    let before = allocs();
    let r = pass(&mut sc, &good);
    let after = allocs();
    assert_eq!(after, before, "allocations while scanning good lines");
    assert!(r.0 >= 600);
}
