//! Inputs naming very many tools and models in one run: the run's tool
//! tallies and the matching of `modelUsage` entries with the models its
//! messages name were quadratic (80,000 tool names took 9.4 s, 40,000
//! models 16.5 s; this input, 150,000 of both, took minutes). Now they are
//! linear; the minute the test allows is a hang guard, not a timing.

use crate::{succeeds, temp_dir};
use std::io::Write;

const NAMES: usize = 150_000;
/// Every third model has a `modelUsage` entry.
const PRICED_EVERY: usize = 3;

fn many_names_stream() -> Vec<u8> {
    let mut out = Vec::with_capacity(NAMES * 330);
    writeln!(
        out,
        r#"{{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-4-6"}}"#
    )
    .unwrap();
    for i in 0..NAMES {
        // Names in a scrambled order, so that no sorted insert is cheap.
        let n = (i * 7919) % NAMES;
        writeln!(
            out,
            r#"{{"type":"assistant","message":{{"id":"msg_{i}","model":"model-{n:07}","content":[{{"type":"tool_use","id":"toolu_{i}","name":"mcp__srv__tool_{n:07}","input":{{}}}}],"usage":{{"input_tokens":1,"output_tokens":1}}}},"session_id":"s","parent_tool_use_id":null}}"#
        )
        .unwrap();
    }
    let usage: Vec<String> = (0..NAMES)
        .step_by(PRICED_EVERY)
        .map(|n| format!(r#""model-{n:07}":{{"inputTokens":1,"outputTokens":1,"costUSD":0}}"#))
        .collect();
    writeln!(
        out,
        r#"{{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0,"num_turns":1,"session_id":"s","modelUsage":{{{}}}}}"#,
        usage.join(",")
    )
    .unwrap();
    out
}

#[test]
#[ignore = "150,000 names through stats and verdict: run with CCTAPE_BIN=target/release/cctape (CI does)"]
fn a_run_naming_150000_tools_and_models_is_folded_in_linear_time() {
    let dir = temp_dir("many-names");
    let path = dir.join("names.jsonl");
    std::fs::write(&path, many_names_stream()).expect("write");

    let r = succeeds(&["stats", "--json"], &path);
    let s = r.json();
    let tools = s["tools"].as_object().expect("tools");
    assert_eq!(tools.len(), NAMES);
    assert!(tools.values().all(|t| t["calls"] == 1));
    assert_eq!(s["runs"], 1);

    let r = succeeds(&["verdict", "--json"], &path);
    let v = r.json();
    let by_model = v["usage"]["by_model"].as_object().expect("by_model");
    let priced = NAMES.div_ceil(PRICED_EVERY);
    assert_eq!(by_model.len(), priced);
    // Each entry matched its one message: main, with that call summed.
    assert!(
        by_model
            .values()
            .all(|m| m["role"] == "main" && m["summed"]["output_tokens"] == 1)
    );
    assert_eq!(v["usage"]["models"]["output_tokens"], priced);
}
