//! One run whose subagents nest 100,000 deep (each Agent call made inside
//! the subagent the call before launched; 30 MB). Every command that
//! folds runs overflowed its stack on it (the record's serialization,
//! `tree`'s drawing, the report's copy of the tree, the tree's drop:
//! `tree` from 20,000 levels, `verdict` by 100,000), and `otel` took
//! more than five minutes stretching its spans, one pass per level. The
//! tree now keeps at most 32 levels (deeper subagents are drawn at the
//! last, with the warning `subagents_nested_too_deep`; every count is
//! unchanged), and the spans are stretched in one pass.

use crate::{Input, MINUTE, Output, args, cctape, succeeds, temp_dir};
use std::io::Write;

/// The run: an init, `depth` nested Agent calls, a result.
fn nested(depth: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(depth * 300);
    writeln!(
        out,
        r#"{{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5"}}"#
    )
    .unwrap();
    for i in 0..depth {
        let parent = match i {
            0 => "null".to_string(),
            _ => format!("\"t{}\"", i - 1),
        };
        writeln!(
            out,
            r#"{{"type":"assistant","message":{{"id":"m{i}","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"t{i}","name":"Agent","input":{{"subagent_type":"x"}}}}],"usage":{{"input_tokens":1,"output_tokens":1}}}},"parent_tool_use_id":{parent},"session_id":"s"}}"#
        )
        .unwrap();
    }
    writeln!(
        out,
        r#"{{"type":"result","subtype":"success","is_error":false,"result":"ok","num_turns":1,"total_cost_usd":0.1,"session_id":"s"}}"#
    )
    .unwrap();
    out
}

#[test]
#[ignore = "100,000 nested subagents: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn subagents_nested_100000_deep_are_read_by_every_command() {
    let depth = 100_000;
    let dir = temp_dir("deep-agents");
    let path = dir.join("deep.jsonl");
    std::fs::write(&path, nested(depth)).expect("write");

    let r = succeeds(&["verdict", "--json"], &path);
    let v = r.json();
    assert_eq!(v["subagent_count"], depth as u64);
    assert_eq!(v["verdict"], "success");
    let warning = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .find(|w| w["code"] == "subagents_nested_too_deep")
        .unwrap_or_else(|| panic!("no warning: {}", v["warnings"]));
    assert_eq!(warning["line"], 34, "t32's line");

    let r = cctape(&args(&["tree"], &path), Input::Null, Output::Count, MINUTE);
    assert_eq!(r.code(), Some(0), "{}", r.stderr);

    let r = succeeds(&["stats", "--json"], &path);
    assert_eq!(
        r.json()["subagents"]["count"],
        depth as u64,
        "{}",
        r.json()["subagents"]
    );

    let out = dir.join("otel");
    let out_arg = out.to_str().expect("utf-8 temp path");
    let r = succeeds(&["otel", "--out", out_arg], &path);
    // The run's span, and an agent, a tool and a chat span per Agent call.
    let spans = 1 + 3 * depth;
    assert!(
        r.stderr.contains(&format!("otel: 1 runs, {spans} spans")),
        "{}",
        r.stderr
    );

    let html = dir.join("deep.html");
    let html_arg = html.to_str().expect("utf-8 temp path");
    succeeds(&["report", "--html", html_arg], &path);
    assert!(std::fs::metadata(&html).expect("the page").len() > 1_000_000);
}
