//! A tool's calls, errors and rejections, and a turn's interrupt, are read by one rule
//! whichever dialect holds them (`event::blocks`): the same content as a
//! stream run and as a transcript session gives the same calls and errors
//! per tool, and the same interrupt.

use cctape::pricing::PriceTable;
use cctape::run::{RunSummary, Verdict, runs_of_slice};
use cctape::time::Zone;
use cctape::transcript::{Report, TranscriptFile, TranscriptFold};
use std::collections::BTreeMap;

/// One conversation's messages, as (type, message JSON, the record's
/// `tool_use_result` JSON): every sign a result can fail by, a server
/// tool's call and failed result in the assistant's own content, a sole
/// result failed by `tool_use_result`, two results that it does not speak
/// for, a call the user rejected (the CLI's notice, an apostrophe escaped),
/// and an interrupt in a text block after a result.
const MESSAGES: &[(&str, &str, Option<&str>)] = &[
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"server_tool_use","id":"w1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"w1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        None,
    ),
    (
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"<tool_use_error>no such file</tool_use_error>"}]}"#,
        None,
    ),
    (
        "assistant",
        r#"{"id":"m2","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/x"}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        None,
    ),
    (
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"x"}]}"#,
        Some(r#""Error: exit code 1""#),
    ),
    (
        "assistant",
        r#"{"id":"m3","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{}},{"type":"tool_use","id":"t4","name":"Bash","input":{}},{"type":"mcp_tool_use","id":"p1","name":"fetch","server_name":"s","input":{}},{"type":"mcp_tool_result","tool_use_id":"p1","content":[{"type":"text","text":"ok"}]}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        None,
    ),
    (
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"a"},{"type":"tool_result","tool_use_id":"t4","content":"b"}]}"#,
        Some(r#""Error: one of them""#),
    ),
    (
        "assistant",
        r#"{"id":"m5","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t6","name":"Edit","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        None,
    ),
    (
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t6","content":"The user doesn\u0027t want to proceed with this tool use. The tool use was rejected.","is_error":true}]}"#,
        Some(r#""User rejected tool use""#),
    ),
    (
        "assistant",
        r#"{"id":"m4","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t5","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        None,
    ),
    (
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t5","content":"stopped","is_error":true},{"type":"text","text":"\n[Request interrupted by user for tool use]"}]}"#,
        None,
    ),
];

/// The messages as a stream run, ended by an `error_during_execution`
/// result.
fn stream() -> String {
    let mut s = String::from(
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":["Bash","Read"]}"#,
    );
    s.push('\n');
    for (ty, msg, tur) in MESSAGES {
        let tur = tur.map_or(String::new(), |t| format!(r#","tool_use_result":{t}"#));
        s.push_str(&format!(
            r#"{{"type":"{ty}","message":{msg},"parent_tool_use_id":null,"session_id":"s1"{tur}}}"#
        ));
        s.push('\n');
    }
    s.push_str(r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":4,"session_id":"s1"}"#);
    s.push('\n');
    s
}

/// The messages as a transcript's records.
fn transcript() -> String {
    let mut s = String::new();
    for (i, (ty, msg, tur)) in MESSAGES.iter().enumerate() {
        let tur = tur.map_or(String::new(), |t| format!(r#","toolUseResult":{t}"#));
        s.push_str(&format!(
            r#"{{"type":"{ty}","sessionId":"s1","uuid":"u{i}","timestamp":"2026-03-01T10:00:0{i}Z","isSidechain":false,"message":{msg}{tur}}}"#
        ));
        s.push('\n');
    }
    s
}

fn run() -> RunSummary {
    let runs = runs_of_slice(stream().as_bytes());
    assert_eq!(runs.len(), 1);
    runs.into_iter().next().unwrap()
}

fn report() -> Report {
    let mut fold = TranscriptFold::new();
    fold.read_slice(transcript().as_bytes(), &TranscriptFile::default(), |e| {
        panic!("{e}")
    });
    fold.finish(PriceTable::builtin(), &Zone::utc())
}

#[test]
fn both_dialects_count_the_same_calls_errors_and_rejections_per_tool() {
    let run = run();
    let stream: BTreeMap<String, (u64, u64, u64)> = run
        .tools
        .iter()
        .map(|t| (t.name.clone(), (t.calls, t.errors, t.rejections)))
        .collect();
    let report = report();
    assert_eq!(report.sessions.len(), 1);
    let session = &report.sessions[0];
    let transcript: BTreeMap<String, (u64, u64, u64)> = session
        .tools
        .iter()
        .map(|t| (t.name.clone(), (t.calls, t.errors, t.rejections)))
        .collect();
    // Bash: t1 failed by its `<tool_use_error>` text, t3 and t4 not (the
    // record's `tool_use_result` names neither of two results), t5 by
    // `is_error`. Read: t2 failed by the sole result's `tool_use_result`.
    // web_search failed by its error content; the MCP call did not. Edit:
    // rejected by the user, which is not the tool's failure.
    let expected: BTreeMap<String, (u64, u64, u64)> = [
        ("Bash", (4, 2, 0)),
        ("Edit", (1, 0, 1)),
        ("Read", (1, 1, 0)),
        ("fetch", (1, 0, 0)),
        ("web_search", (1, 1, 0)),
    ]
    .into_iter()
    .map(|(n, c)| (n.to_string(), c))
    .collect();
    assert_eq!(stream, expected);
    assert_eq!(transcript, expected);
    assert_eq!(run.tool_errors_total(), 4);
    assert_eq!(session.facts.tool_errors, 4);
}

#[test]
fn both_dialects_see_an_interrupt_in_a_later_text_block() {
    assert_eq!(run().verdict, Verdict::Interrupted);
    assert_eq!(report().sessions[0].facts.interrupted_turns, 1);
}
