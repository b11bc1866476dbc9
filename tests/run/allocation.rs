//! Allocation: the run fold allocates per run, not per line, and so does
//! the `cctape stats` read over partial-message streams (counted by the
//! allocator in main.rs).

use cctape::SliceEvents;
use cctape::run::RunFolder;

use crate::alloc;

// --- allocation: per run, not per line ----------------------------------------------------

fn steady_stream(calls: usize, distinct: bool) -> Vec<u8> {
    let mut s = String::new();
    s.push_str(r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#);
    s.push('\n');
    for i in 0..calls {
        let n = if distinct { i } else { 0 };
        s.push_str(&format!(
            r#"{{"type":"system","subtype":"status","status":"requesting","session_id":"s","uuid":"u"}}
{{"type":"assistant","message":{{"id":"msg_{n}","model":"m","content":[{{"type":"tool_use","id":"toolu_{n}","name":"Bash","input":{{"command":"ls"}}}}],"usage":{{"input_tokens":2,"output_tokens":5}}}},"parent_tool_use_id":null,"session_id":"s","timestamp":"2026-10-03T15:29:17.247Z"}}
{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_{n}","content":"ok"}}]}},"parent_tool_use_id":null,"session_id":"s","timestamp":"2026-10-03T15:29:18.247Z","tool_use_result":{{"stdout":"ok"}}}}
"#
        ));
    }
    s.into_bytes()
}

/// Allocations inside `RunFolder::push` for every event after the first
/// `warm` lines.
fn push_allocations(bytes: &[u8], warm: u64) -> u64 {
    let mut folder = RunFolder::new();
    let mut events = SliceEvents::new(bytes);
    let mut total = 0;
    while let Some(item) = events.next_event() {
        let ev = item.unwrap();
        let n = alloc::count(|| folder.push(&ev));
        if ev.line() > warm {
            total += n;
        }
    }
    total
}

#[test]
fn no_allocation_per_line_in_the_steady_state() {
    // The same call and tool ids again and again: nothing new to keep.
    let same = steady_stream(2000, false);
    assert_eq!(push_allocations(&same, 30), 0);
    // A new call and tool every three lines: only amortised growth of the
    // run's tables (logarithmic in the number of ids), never per line.
    let distinct = steady_stream(20_000, true);
    let n = push_allocations(&distinct, 30);
    assert!(n > 0, "the counter counts growth");
    assert!(n < 200, "{n} allocations for 60,000 lines");
}

// --- allocation: the `cctape stats` read over partial-message streams ----------------------

/// One `stream_event` line of session `sid`.
fn stream_event(sid: &str, event: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"type": "stream_event", "event": event, "session_id": sid,
        "parent_tool_use_id": null, "uuid": "u"})
}

/// One streamed tool call: `content_block_start`, the input in
/// `input_json_delta` fragments cut at `cuts` (char boundaries of the
/// serialized input), the assistant event carrying `fin` as the input, and
/// `content_block_stop`.
#[allow(clippy::too_many_arguments)]
fn streamed_tool(
    out: &mut Vec<serde_json::Value>,
    sid: &str,
    msg: &str,
    index: u64,
    id: &str,
    name: &str,
    streamed: &serde_json::Value,
    fin: serde_json::Value,
) {
    use serde_json::json;
    out.push(stream_event(
        sid,
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
    ));
    let text = serde_json::to_string(streamed).unwrap();
    let cuts: Vec<usize> = (0..=text.len())
        .step_by(7)
        .filter(|&i| text.is_char_boundary(i))
        .chain([text.len()])
        .collect();
    for w in cuts.windows(2) {
        out.push(stream_event(
            sid,
            json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": &text[w[0]..w[1]]}}),
        ));
    }
    out.push(
        json!({"type": "assistant", "message": {"id": msg, "model": "claude-opus-4-1",
        "content": [{"type": "tool_use", "id": id, "name": name, "input": fin}],
        "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1,
        "cache_read_input_tokens": 2100, "cache_creation_input_tokens": 110}},
        "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}),
    );
    out.push(stream_event(
        sid,
        json!({"type": "content_block_stop", "index": index}),
    ));
}

/// A partial-message stream as `claude -p --include-partial-messages`
/// writes it: `rounds` rounds over `sessions` sessions in turn, each round an
/// init, `messages` streamed messages (a thinking block with a signature,
/// an escaped text block, three tool calls: one with keys reordered by the
/// assistant event, an Edit and a `cd && ` Bash that the CLI rewrites),
/// tool results (one long enough to be pruned) and a result. Returns the
/// lines and how many blocks and how many rewritten tool inputs it holds.
fn partial_stats_stream(rounds: usize, messages: usize, sessions: usize) -> (Vec<u8>, u64, u64) {
    use serde_json::json;
    let text = "a \"quoted\" line\n\t\u{e9}\u{1F600} \\ back";
    let thinking = "Let me \"think\"\u{2026}\nabout it\u{1F914}";
    let long = "r".repeat(6000);
    let mut out = Vec::new();
    let (mut blocks, mut rewritten) = (0, 0);
    for round in 0..rounds {
        let sid = format!("s-{}", round % sessions);
        let sid = sid.as_str();
        out.push(
            json!({"type": "system", "subtype": "init", "session_id": sid,
            "model": "claude-opus-4-1", "tools": ["Bash", "Edit"], "uuid": "u"}),
        );
        for m in 0..messages {
            let msg = format!("msg_{}", m % 4);
            let msg = msg.as_str();
            let se = |e| stream_event(sid, e);
            out.push(se(json!({"type": "message_start", "message": {"id": msg,
                "type": "message", "role": "assistant", "model": "claude-opus-4-1",
                "content": [], "stop_reason": null, "usage": {"input_tokens": 3,
                "output_tokens": 1, "cache_read_input_tokens": 2100,
                "cache_creation_input_tokens": 110}}})));
            // Thinking, with its signature.
            out.push(se(json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""}})));
            for _ in 0..3 {
                out.push(se(json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "thinking_delta", "thinking": thinking}})));
            }
            out.push(se(json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl+/=="}})));
            out.push(json!({"type": "system", "subtype": "thinking_tokens",
                "estimated_tokens": 50, "estimated_tokens_delta": 50, "uuid": "u",
                "session_id": sid}));
            out.push(json!({"type": "assistant", "message": {"id": msg,
                "model": "claude-opus-4-1", "content": [{"type": "thinking",
                "thinking": thinking.repeat(3), "signature": "c2lnbmF0dXJl+/=="}],
                "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1}},
                "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}));
            out.push(se(json!({"type": "content_block_stop", "index": 0})));
            // Text, escaped.
            out.push(se(json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "text", "text": ""}})));
            for _ in 0..4 {
                out.push(se(json!({"type": "content_block_delta", "index": 1,
                    "delta": {"type": "text_delta", "text": text}})));
            }
            out.push(json!({"type": "assistant", "message": {"id": msg,
                "model": "claude-opus-4-1", "content": [{"type": "text",
                "text": text.repeat(4)}], "stop_reason": null,
                "usage": {"input_tokens": 3, "output_tokens": 1}},
                "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}));
            out.push(se(json!({"type": "content_block_stop", "index": 1})));
            // Tool calls: keys in another order, numbers of every kind.
            let streamed = json!({"command": "grep -n \"x\" src/*.rs\n", "timeout": 120000,
                "opts": {"n": [1, -2, 2.5, true, null, 1e3], "s": "\u{e9}\u{1F600}", "e": {}}});
            let fin = json!({"opts": {"e": {}, "s": "\u{e9}\u{1F600}",
                "n": [1, -2, 2.5, true, null, 1000]}, "timeout": 120000,
                "command": "grep -n \"x\" src/*.rs\n"});
            streamed_tool(&mut out, sid, msg, 2, "toolu_a", "Bash", &streamed, fin);
            let edit = json!({"file_path": "/w/src/a.rs", "old_string": "let x = 1;\n",
                "new_string": "let x = \"2\";\n"});
            let mut edit_fin = edit.clone();
            edit_fin["replace_all"] = json!(false);
            streamed_tool(&mut out, sid, msg, 3, "toolu_b", "Edit", &edit, edit_fin);
            let cd = json!({"command": "cd /w/repo && cargo test --lib", "description": "Run"});
            let cd_fin = json!({"command": "cargo test --lib", "description": "Run"});
            streamed_tool(&mut out, sid, msg, 4, "toolu_c", "Bash", &cd, cd_fin);
            blocks += 5;
            rewritten += 2;
            out.push(se(
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                "stop_sequence": null}, "usage": {"input_tokens": 3, "output_tokens": 420,
                "cache_read_input_tokens": 2100, "cache_creation_input_tokens": 110}}),
            ));
            out.push(se(json!({"type": "message_stop"})));
            for (id, content) in [
                ("toolu_a", long.as_str()),
                ("toolu_b", "ok"),
                ("toolu_c", "ok"),
            ] {
                out.push(
                    json!({"type": "user", "message": {"role": "user", "content":
                    [{"type": "tool_result", "tool_use_id": id, "content": content}]},
                    "parent_tool_use_id": null, "session_id": sid, "uuid": "u"}),
                );
            }
        }
        out.push(
            json!({"type": "result", "subtype": "success", "is_error": false,
            "num_turns": messages, "result": "done", "total_cost_usd": 0.25,
            "duration_ms": 1000, "session_id": sid, "uuid": "u"}),
        );
    }
    let mut s = String::new();
    for v in out {
        s.push_str(&serde_json::to_string(&v).unwrap());
        s.push('\n');
    }
    (s.into_bytes(), blocks, rewritten)
}

#[test]
fn stats_read_allocates_nothing_per_line_over_partial_messages() {
    use cctape::event::parse_event;
    use cctape::framing::Lines;
    use cctape::json::Scanner;
    use cctape::stats::Stats;
    // Three sessions in turn, two rounds each to warm up (every run, id and
    // buffer seen), then many more rounds of the same shapes.
    let (bytes, blocks, rewritten) = partial_stats_stream(36, 6, 3);
    let warm_rounds = partial_stats_stream(6, 6, 3).0;
    let warm = Lines::new(&warm_rounds).count() as u64;
    let mut scanner = Scanner::new();
    let mut stats = Stats::new();
    let mut folder = RunFolder::new();
    let (mut lines, mut allocations) = (0u64, 0u64);
    for line in Lines::new(&bytes) {
        let n = alloc::count(|| {
            let ev = parse_event(&mut scanner, &line).unwrap();
            stats.record_event(&ev);
            folder.push(&ev);
        });
        if line.number > warm {
            lines += 1;
            allocations += n;
        }
    }
    assert!(lines > 10_000, "{lines} lines after the warm-up");
    assert!(stats.count_of(cctape::EventKind::StreamEvent) > 0);
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over {lines} lines"
    );
    // What was folded is what the stream holds: every block put together
    // from its deltas equals its assistant event, the rewritten tool inputs
    // only after undoing the CLI's rewrites.
    let runs = folder.finish();
    assert_eq!(runs.len(), 3);
    let (mut verified, mut normalized) = (0, 0);
    for r in &runs {
        let p = r.partial.as_ref().unwrap();
        assert!(p.mismatches.is_empty(), "{:?}", p.mismatches);
        assert!(p.incomplete.is_empty(), "{:?}", p.incomplete);
        assert_eq!(p.blocks, p.verified);
        verified += p.verified;
        normalized += p.normalized;
    }
    assert_eq!((verified, normalized), (blocks, rewritten));
}

#[test]
fn runs_share_the_partial_message_buffers() {
    use cctape::event::parse_event;
    use cctape::framing::Lines;
    use cctape::json::Scanner;
    // A new run every round (a folder of many short runs): a new run's
    // tables are its own, but the buffers that put its blocks together are
    // those the runs before grew, so its deltas allocate nothing.
    let (bytes, blocks, _) = partial_stats_stream(40, 2, 40);
    let warm = Lines::new(&partial_stats_stream(2, 2, 40).0).count() as u64;
    let mut scanner = Scanner::new();
    let mut folder = RunFolder::new();
    let (mut deltas, mut allocations) = (0u64, 0u64);
    for line in Lines::new(&bytes) {
        let n = alloc::count(|| folder.push(&parse_event(&mut scanner, &line).unwrap()));
        let text = std::str::from_utf8(line.bytes).unwrap();
        if line.number > warm
            && ["content_block_delta", "content_block_stop", "message_stop"]
                .iter()
                .any(|t| text.contains(&format!(r#""event":{{"type":"{t}""#)))
        {
            deltas += 1;
            allocations += n;
        }
    }
    assert!(deltas > 1000, "{deltas} delta and stop lines");
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over {deltas} lines"
    );
    let runs = folder.finish();
    assert_eq!(runs.len(), 40);
    let verified: u64 = runs
        .iter()
        .map(|r| r.partial.as_ref().unwrap().verified)
        .sum();
    assert_eq!(verified, blocks);
}
