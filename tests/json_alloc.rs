//! Reading lines through the structural index allocates nothing after
//! warm-up: the scan, nested gets, paths, `get_many`, iteration and reading
//! strings into a reused buffer (its own binary: the counting allocator is
//! global).

use cctape::framing::Lines;
use cctape::json::{Paths, Scanner, Value};
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

/// Lines of every shape a fold reads: assistant messages with tool uses and
/// usage after long content, tool results with escapes, stream events,
/// results; some long, some deep.
fn input() -> Vec<u8> {
    let mut s = String::new();
    let big = "fn main() {\\n    println!(\\\"hi \\u00e9\\\");\\n}\\n".repeat(300);
    for i in 0..150 {
        s.push_str(&format!(
            r#"{{"type":"assistant","message":{{"id":"msg_{i}","model":"claude-sonnet-5-5","content":[{{"type":"text","text":"{big}"}},{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{{"command":"ls","nested":[[1,2],[3,{{"d":[4]}}]]}}}}],"usage":{{"input_tokens":{i},"output_tokens":5,"cache_read_input_tokens":7}}}},"parent_tool_use_id":null,"session_id":"s","uuid":"u{i}"}}"#
        ));
        s.push('\n');
        s.push_str(&format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{i}","type":"tool_result","content":"{big}","is_error":false}}]}},"session_id":"s","uuid":"v{i}","tool_use_result":{{"stdout":"x\ty","stderr":""}}}}"#
        ));
        s.push('\n');
        s.push_str(&format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"chunk {i} \u2028 é"}}}},"session_id":"s","parent_tool_use_id":null,"uuid":"w{i}"}}"#
        ));
        s.push('\n');
        s.push_str(r#"{"is_error":false,"subtype":"success","num_turns":3,"total_cost_usd":0.5,"usage":{"output_tokens":9},"type":"result","session_id":"s"}"#);
        s.push('\n');
    }
    s.into_bytes()
}

/// A fold's dozen fields.
const FIELDS: [&str; 12] = [
    "session_id",
    "uuid",
    "parent_tool_use_id",
    "message.id",
    "message.model",
    "message.usage.input_tokens",
    "message.usage.output_tokens",
    "message.usage.cache_read_input_tokens",
    "message.content.1.id",
    "message.content.0.tool_use_id",
    "event.delta.text",
    "total_cost_usd",
];

/// Everything read is folded into numbers, so that nothing is optimized
/// away and both passes can be compared.
fn walk(v: Value<'_>, buf: &mut String, depth: usize) -> u64 {
    let mut n = 1u64;
    if let Some(s) = v.as_raw_str() {
        n += s.to_str_in(buf).len() as u64;
    }
    n += v.as_u64().unwrap_or(0);
    if depth < 8 {
        for (k, e) in v.entries() {
            n += k.len() as u64 + walk(e, buf, depth + 1);
        }
        for e in v.elements() {
            n += walk(e, buf, depth + 1);
        }
    }
    n
}

fn pass(sc: &mut Scanner, paths: &Paths, data: &[u8], buf: &mut String) -> (u64, u64) {
    let (mut lines, mut sum) = (0u64, 0u64);
    for line in Lines::new(data) {
        let mut out = [None; FIELDS.len()];
        let Ok(e) = sc.scan(&line) else { continue };
        lines += 1;
        let v = e.value();
        for p in FIELDS {
            if let Some(x) = v.get_path(p) {
                sum += x.as_u64().unwrap_or(1);
                if let Some(s) = x.as_raw_str() {
                    sum += s.to_str_in(buf).len() as u64;
                }
            }
        }
        v.get_many(paths, &mut out);
        sum += out.iter().flatten().count() as u64;
        sum += black_box(v.get_path("message.content.1.input.nested.1.1.d.0"))
            .and_then(|x| x.as_u64())
            .unwrap_or(0);
        sum += walk(v, buf, 0);
        let ev = e.event();
        sum += ev.usage().unwrap_or_default().output_tokens;
        sum += u64::from(ev.tool_use_id().is_some() || ev.tool_result_id().is_some());
    }
    (lines, sum)
}

#[test]
fn reading_lines_and_nested_gets_allocate_nothing_after_warm_up() {
    let data = input();
    let paths = Paths::new(FIELDS);
    let mut sc = Scanner::new();
    let mut buf = String::new();
    let warm = pass(&mut sc, &paths, &data, &mut buf);
    let before = allocs();
    let again = pass(&mut sc, &paths, &data, &mut buf);
    let after = allocs();
    assert_eq!(warm, again);
    assert_eq!(warm.0, 600);
    assert!(warm.1 > 1_000_000, "{warm:?}");
    assert_eq!(after - before, 0, "allocations in the second pass");
}

#[test]
fn the_index_grows_to_the_longest_line_once() {
    let data = input();
    let mut sc = Scanner::new();
    for line in Lines::new(&data) {
        sc.scan(&line).unwrap();
    }
    let cap = sc.index().capacity();
    let before = allocs();
    for line in Lines::new(&data) {
        black_box(sc.scan(&line).unwrap().value().len());
    }
    assert_eq!(allocs(), before);
    assert_eq!(sc.index().capacity(), cap);
}
