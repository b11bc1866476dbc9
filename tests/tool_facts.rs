//! A tool's calls, errors and rejections, a turn's interrupt, and a model
//! call's usage are read by one rule whichever dialect holds them
//! (`event::blocks`, `run::CallReading`): the same content as a stream run
//! and as a transcript session gives the same calls and errors per tool,
//! the same interrupt, and the same usage per call.

use cctape::SliceEvents;
use cctape::pricing::PriceTable;
use cctape::run::{RunFolder, RunSummary, Verdict, runs_of_slice};
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
    stream_of(MESSAGES)
}

fn stream_of(messages: &[(&str, &str, Option<&str>)]) -> String {
    let mut s = String::from(
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":["Bash","Read"]}"#,
    );
    s.push('\n');
    for (ty, msg, tur) in messages {
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
    transcript_of(MESSAGES)
}

fn transcript_of(messages: &[(&str, &str, Option<&str>)]) -> String {
    let mut s = String::new();
    for (i, (ty, msg, tur)) in messages.iter().enumerate() {
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
    report_of(&transcript())
}

/// `text`'s records folded as one file's.
fn report_of(text: &str) -> Report {
    let mut fold = TranscriptFold::new();
    fold.read_slice(text.as_bytes(), &TranscriptFile::default(), |e| {
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

/// Two model calls, each named by several events or records, as a message
/// streams (one per content block, each with the usage so far): `m1` by a
/// snapshot, a larger snapshot, the whole message (its `stop_reason` set)
/// with fewer tokens than that snapshot, and a stale snapshot after it;
/// `m2` by two snapshots, the second smaller (an older copy).
const CALL_READINGS: &[(&str, &str, Option<&str>)] = &[
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"thinking","thinking":"t"}],"usage":{"input_tokens":10,"output_tokens":1}}"#,
        None,
    ),
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"a"}],"usage":{"input_tokens":10,"output_tokens":30}}"#,
        None,
    ),
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":10,"output_tokens":25}}"#,
        None,
    ),
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"c"}],"usage":{"input_tokens":10,"output_tokens":2}}"#,
        None,
    ),
    ("user", r#"{"role":"user","content":"go on"}"#, None),
    (
        "assistant",
        r#"{"id":"m2","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"d"}],"usage":{"input_tokens":7,"output_tokens":40}}"#,
        None,
    ),
    (
        "assistant",
        r#"{"id":"m2","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"e"}],"usage":{"input_tokens":7,"output_tokens":3}}"#,
        None,
    ),
];

#[test]
fn both_dialects_take_a_calls_usage_by_one_rule() {
    // A whole message's count is final: it stands against a larger
    // snapshot before it and a stale one after it. Of two snapshots the
    // larger stands (counts only grow while a message streams): before this
    // rule a stream took the last reading and a transcript the largest, so
    // the stream said (7, 3) for m2 and the transcript (10, 30) for m1.
    let expected = vec![(10, 25), (7, 40)];

    let bytes = stream_of(CALL_READINGS);
    let mut folder = RunFolder::new();
    folder.record_calls(true);
    let mut events = SliceEvents::new(bytes.as_bytes());
    while let Some(ev) = events.next_event() {
        folder.push(&ev.unwrap());
    }
    let run = folder.finish().remove(0);
    let stream: Vec<(u64, u64)> = run
        .model_calls
        .iter()
        .map(|c| (c.usage.input_tokens, c.usage.output_tokens))
        .collect();
    assert_eq!(stream, expected);
    // The line of a call's usage: the whole message's (line 4), and m2's
    // first snapshot (line 7).
    let lines: Vec<u64> = run.model_calls.iter().map(|c| c.line).collect();
    assert_eq!(lines, [4, 7]);
    assert_eq!(
        (
            run.usage.main.calls.input_tokens,
            run.usage.main.calls.output_tokens
        ),
        (17, 65)
    );

    let mut fold = TranscriptFold::new();
    fold.record_calls(true);
    let text = transcript_of(CALL_READINGS);
    fold.read_slice(text.as_bytes(), &TranscriptFile::default(), |e| {
        panic!("{e}")
    });
    let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    let session = &report.sessions[0];
    // The session's run carries its model calls, as a stream's run does.
    let mut transcript: Vec<(u64, u64, u64)> = session
        .to_run()
        .model_calls
        .iter()
        .map(|r| (r.line, r.usage.input_tokens, r.usage.output_tokens))
        .collect();
    transcript.sort();
    // The records that stand: the whole message (line 3) and m2's first
    // snapshot (line 6).
    assert_eq!(transcript, [(3, 10, 25), (6, 7, 40)]);
    assert_eq!(
        (
            session.totals.input,
            session.totals.output,
            session.totals.requests
        ),
        (17, 65, 2)
    );
}

/// An Agent call and its result, whose record says what became of the
/// subagent (`tool_use_result` / `toolUseResult`): its id, status, handback
/// report and last call's usage.
const SUBAGENT: &[(&str, &str, Option<&str>)] = &[
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"task1","name":"Agent","input":{"description":"Find the bug","subagent_type":"Explore","prompt":"p"}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
        None,
    ),
    (
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":[{"type":"text","text":"done"}]}]}"#,
        Some(
            r#"{"status":"completed","agentId":"a7f3","prompt":"p","handbackReport":{"text":"It was the cache."},"totalTokens":90,"usage":{"input_tokens":3,"output_tokens":70,"cache_read_input_tokens":17}}"#,
        ),
    ),
];

#[test]
fn both_dialects_read_a_subagents_end_from_its_calls_result() {
    let runs = runs_of_slice(stream_of(SUBAGENT).as_bytes());
    let report = report_of(&transcript_of(SUBAGENT));
    let session = &report.sessions[0];
    let agent = &session.facts.agents[0];
    assert_eq!(
        (
            agent.agent_id.as_deref(),
            agent.spawned_by.as_deref(),
            agent.tool_name.as_deref(),
            agent.subagent_type.as_deref(),
        ),
        (Some("a7f3"), Some("task1"), Some("Agent"), Some("Explore"))
    );
    let session_run = session.to_run();
    for (dialect, run) in [("stream", &runs[0]), ("transcript", &session_run)] {
        assert_eq!(run.subagents.len(), 1, "{dialect}");
        let n = &run.subagents[0];
        let reported = n
            .usage
            .reported
            .map(|u| (u.input_tokens, u.output_tokens, u.cache_read_input_tokens));
        assert_eq!(
            (
                n.tool_use_id.as_str(),
                n.task_id.as_deref(),
                n.tool_name.as_deref(),
                n.status.as_deref(),
                n.report.as_deref(),
                n.result_error,
                reported,
            ),
            (
                "task1",
                Some("a7f3"),
                Some("Agent"),
                Some("completed"),
                Some("It was the cache."),
                false,
                Some((3, 70, 17)),
            ),
            "{dialect}"
        );
        let all = run.usage.subagents.reported.map(|u| u.output_tokens);
        assert_eq!(all, Some(70), "{dialect}");
    }
}

/// A subagent's call answered twice, each result saying how it ended:
/// both dialects keep the first result's status, report and usage, as a
/// call's result is its first (a stream took the later one's before).
#[test]
fn both_dialects_keep_the_first_end_of_a_subagent_answered_twice() {
    let mut messages = SUBAGENT.to_vec();
    messages.push((
        "user",
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":[{"type":"text","text":"again"}]}]}"#,
        Some(
            r#"{"status":"failed","agentId":"a7f3","handbackReport":{"text":"A replay."},"usage":{"input_tokens":1,"output_tokens":99}}"#,
        ),
    ));
    let (stream, transcript) = both_runs(&messages);
    for (dialect, run) in [("stream", &stream), ("transcript", &transcript)] {
        let n = &run.subagents[0];
        let reported = n.usage.reported.map(|u| u.output_tokens);
        assert_eq!(
            (n.status.as_deref(), n.report.as_deref(), reported),
            (Some("completed"), Some("It was the cache."), Some(70)),
            "{dialect}"
        );
    }
}

#[test]
fn both_dialects_say_a_subagents_call_failed_beside_another_result() {
    // Two calls answered in one message: the Agent call's result failed.
    // The record's `tool_use_result` speaks for neither result, and the
    // subagent is known by its `agent_progress` in the transcript.
    let messages: &[(&str, &str, Option<&str>)] = &[
        (
            "assistant",
            r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"task1","name":"Task","input":{"description":"d","subagent_type":"Explore"}},{"type":"tool_use","id":"b1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
            None,
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":"Agent failed","is_error":true},{"type":"tool_result","tool_use_id":"b1","content":"ok"}]}"#,
            Some(r#"{"status":"completed","agentId":"a1"}"#),
        ),
    ];
    let runs = runs_of_slice(stream_of(messages).as_bytes());
    let node = &runs[0].subagents[0];
    assert_eq!(
        (
            node.tool_use_id.as_str(),
            node.result_error,
            node.status.as_deref()
        ),
        ("task1", true, None)
    );
    let mut text = transcript_of(messages);
    text.push_str(
        r#"{"type":"progress","sessionId":"s1","uuid":"p1","timestamp":"2026-03-01T10:00:05Z","parentToolUseID":"task1","data":{"type":"agent_progress","agentId":"a1"}}"#,
    );
    text.push('\n');
    let report = report_of(&text);
    let agent = &report.sessions[0].facts.agents[0];
    assert_eq!(
        (
            agent.spawned_by.as_deref(),
            agent.result_error,
            agent.status.as_deref()
        ),
        (Some("task1"), true, None)
    );
}

#[test]
fn both_dialects_take_a_calls_first_result_and_any_error() {
    // A call answered twice (a replayed result): its result is the first,
    // line and time; the second, an error, makes it an error.
    let messages: &[(&str, &str, Option<&str>)] = &[
        (
            "assistant",
            r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
            None,
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"ok"}]}"#,
            None,
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"failed","is_error":true}]}"#,
            None,
        ),
    ];
    let bytes = stream_of(messages);
    let mut folder = RunFolder::new();
    folder.record_calls(true);
    let mut events = SliceEvents::new(bytes.as_bytes());
    while let Some(ev) = events.next_event() {
        folder.push(&ev.unwrap());
    }
    let run = folder.finish().remove(0);
    let c = &run.tool_calls[0];
    // Lines: the init is line 1 of the stream.
    assert_eq!((c.line, c.result_line, c.error), (2, Some(3), true));

    let mut fold = TranscriptFold::new();
    fold.record_calls(true);
    let text = transcript_of(messages);
    fold.read_slice(text.as_bytes(), &TranscriptFile::default(), |e| {
        panic!("{e}")
    });
    let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    let c = &report.sessions[0].to_run().tool_calls[0];
    // Its records' times are a second apart: the first result's.
    assert_eq!(
        (c.line, c.result_line, c.error, c.duration_ms),
        (1, Some(2), true, Some(1000))
    );
}

/// A result written before its call (a replayed or reordered log), a
/// result of a call that never came, and the call answered again: both
/// dialects keep the call once, take its first result by place (the one
/// before it) and its error, and count the lone result as one without a
/// use, by the one ledger (`run::ledger`).
#[test]
fn both_dialects_keep_a_result_before_its_call_and_count_one_without_a_call() {
    let messages: &[(&str, &str, Option<&str>)] = &[
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"e1","content":"early","is_error":true}]}"#,
            None,
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"x9","content":"no call"}]}"#,
            None,
        ),
        (
            "assistant",
            r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"e1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
            None,
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"e1","content":"ok"}]}"#,
            None,
        ),
    ];
    let (stream, transcript) = both_runs(messages);
    let calls = |r: &RunSummary, shift: u64| -> Vec<_> {
        r.tool_calls
            .iter()
            .map(|c| {
                let line = c.result_line.map(|l| l - shift);
                (c.tool_use_id.clone(), c.answered, c.error, line)
            })
            .collect()
    };
    // A stream's lines are one on, after its `system/init`.
    let want = vec![("e1".to_string(), true, true, Some(1))];
    assert_eq!(calls(&stream, 1), want);
    assert_eq!(calls(&transcript, 0), want);
    assert_eq!(stream.tool_results_without_use, 1);
    assert_eq!(transcript.tool_results_without_use, 1);
    let bash = |r: &RunSummary| r.tool("Bash").map(|t| (t.calls, t.errors, t.unanswered));
    assert_eq!(bash(&stream), Some((1, 1, 0)));
    assert_eq!(bash(&transcript), bash(&stream));
}

/// Counts that are not counts: a negative output, a string input, and (in
/// a transcript alone) a `costUSD` that is not a number.
const UNUSUAL: &[(&str, &str, Option<&str>)] = &[
    (
        "assistant",
        r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":10,"output_tokens":-3}}"#,
        None,
    ),
    ("user", r#"{"role":"user","content":"again"}"#, None),
    (
        "assistant",
        r#"{"id":"m2","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":"7","output_tokens":5}}"#,
        None,
    ),
];

/// A number that is not what its field takes is read as 0 and said, by
/// both dialects in the same words: a stream's run at each line, a
/// transcript's session once, at the first by place (whatever the order
/// of its files or of the folds merged), with how many there were.
#[test]
fn both_dialects_say_a_count_that_is_not_one() {
    let runs = runs_of_slice(stream_of(UNUSUAL).as_bytes());
    let said = |r: &RunSummary| -> Vec<(String, Option<u64>)> {
        r.warnings
            .iter()
            .filter(|w| w.code == cctape::run::WARN_UNUSUAL_NUMBER)
            .map(|w| (w.message.clone(), w.line))
            .collect()
    };
    assert_eq!(
        said(&runs[0]),
        [
            (
                "output_tokens -3 is not a token count (0 used)".to_string(),
                Some(2)
            ),
            (
                "input_tokens (a string) is not a token count (0 used)".to_string(),
                Some(4)
            )
        ]
    );
    // The same records in two files, the later ones first; a costUSD
    // that is a string in the second.
    let text = transcript_of(UNUSUAL).replace(
        r#""message":{"id":"m2""#,
        r#""costUSD":"0.1","message":{"id":"m2""#,
    );
    let (first, second) = text.split_at(
        text.find(r#"{"type":"assistant","sessionId":"s1","uuid":"u2""#)
            .unwrap(),
    );
    let file = |name: &str| TranscriptFile {
        name: Some(name.into()),
        ..TranscriptFile::default()
    };
    let fold_of = |parts: &[(&str, &str)]| {
        let mut fold = TranscriptFold::new();
        for (name, text) in parts {
            fold.read_slice(text.as_bytes(), &file(name), |e| panic!("{e}"));
        }
        fold
    };
    let whole = fold_of(&[("b.jsonl", second), ("a.jsonl", first)]);
    let mut merged = fold_of(&[("b.jsonl", second)]);
    merged.merge(fold_of(&[("a.jsonl", first)]));
    for fold in [whole, merged] {
        let report = fold.finish(PriceTable::builtin(), &Zone::utc());
        let facts = &report.sessions[0].facts;
        assert_eq!(facts.unusual_numbers, 3);
        let run = report.sessions[0].to_run();
        assert_eq!(
            said(&run),
            [(
                "a.jsonl: output_tokens -3 is not a token count (0 used) (the first of 3 such numbers in the session)"
                    .to_string(),
                Some(1)
            )]
        );
        // Read as 0, as the stream reads them.
        let t = &report.sessions[0].totals;
        assert_eq!((t.input, t.output), (10, 5));
        assert_eq!(
            (
                runs[0].usage.main.tokens.input_tokens,
                runs[0].usage.main.tokens.output_tokens
            ),
            (10, 5)
        );
    }
}

/// A subagent known only by its call (its result failed and names no
/// agent, no record of its own, no `agent_progress`) is listed by both
/// dialects, as a node per Agent/Task call: with its call's id, tool, type
/// and description, its result's error, and no id of its own.
#[test]
fn both_dialects_list_a_subagent_known_only_by_its_call() {
    let messages: &[(&str, &str, Option<&str>)] = &[
        (
            "assistant",
            r#"{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"task9","name":"Task","input":{"description":"Look around","subagent_type":"Explore","prompt":"p"}}],"usage":{"input_tokens":10,"output_tokens":5}}"#,
            None,
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"task9","content":"Agent type 'Explore' not found","is_error":true}]}"#,
            None,
        ),
    ];
    let runs = runs_of_slice(stream_of(messages).as_bytes());
    let report = report_of(&transcript_of(messages));
    let agent = &report.sessions[0].facts.agents[0];
    assert_eq!(
        (agent.agent_id.as_deref(), agent.first_request_ms),
        (None, Some(1_772_359_200_000))
    );
    let session_run = report.sessions[0].to_run();
    for (dialect, run) in [("stream", &runs[0]), ("transcript", &session_run)] {
        assert_eq!(run.subagents.len(), 1, "{dialect}");
        assert_eq!(run.subagent_count(), 1, "{dialect}");
        let n = &run.subagents[0];
        assert_eq!(
            (
                n.tool_use_id.as_str(),
                n.task_id.as_deref(),
                n.tool_name.as_deref(),
                n.subagent_type.as_deref(),
                n.description.as_deref(),
                n.result_error,
                n.is_agent(),
            ),
            (
                "task9",
                None,
                Some("Task"),
                Some("Explore"),
                Some("Look around"),
                true,
                true
            ),
            "{dialect}"
        );
    }
}

/// A stream's run with its call lists, and the transcript session's run.
fn both_runs(messages: &[(&str, &str, Option<&str>)]) -> (RunSummary, RunSummary) {
    let mut folder = RunFolder::new();
    folder.record_calls(true);
    let text = stream_of(messages);
    let mut events = SliceEvents::new(text.as_bytes());
    while let Some(item) = events.next_event() {
        folder.push(&item.expect("an event"));
    }
    let stream = folder.finish().remove(0);
    let mut fold = TranscriptFold::new();
    fold.record_calls(true);
    fold.read_slice(
        transcript_of(messages).as_bytes(),
        &TranscriptFile::default(),
        |e| panic!("{e}"),
    );
    let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    (stream, report.sessions[0].to_run())
}

/// A session transcript's run carries its model and tool calls in the
/// run's own types, as a stream's run does: the same calls, results,
/// errors, rejections and usage (a stream's lines one on, after its
/// `system/init`), and what only a transcript knows (a request's cost).
#[test]
fn both_dialects_carry_the_same_calls_in_their_runs() {
    let (stream, transcript) = both_runs(MESSAGES);
    let tools = |r: &RunSummary, shift: u64| -> Vec<_> {
        r.tool_calls
            .iter()
            .map(|c| {
                (
                    c.tool_use_id.clone(),
                    c.name.clone(),
                    c.agent.clone(),
                    c.line - shift,
                    c.result_line.map(|l| l - shift),
                    (c.answered, c.error, c.rejected, c.sidechain),
                )
            })
            .collect()
    };
    // Both list their calls as written: a stream as they come, a
    // transcript by file, line and block (one record's calls in order).
    let t = tools(&transcript, 0);
    assert_eq!(tools(&stream, 1), t);
    let ids: Vec<&str> = t.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(ids, ["t1", "w1", "t2", "t3", "t4", "p1", "t6", "t5"]);
    let rejected: Vec<&str> = transcript
        .tool_calls
        .iter()
        .filter(|c| c.rejected)
        .map(|c| c.tool_use_id.as_str())
        .collect();
    assert_eq!(rejected, ["t6"]);
    let models = |r: &RunSummary, shift: u64| -> Vec<_> {
        r.model_calls
            .iter()
            .map(|c| {
                (
                    c.message_id.clone(),
                    c.model.clone(),
                    c.usage,
                    c.source,
                    c.line - shift,
                    c.agent.clone(),
                )
            })
            .collect()
    };
    let m = models(&transcript, 0);
    assert_eq!(models(&stream, 1), m);
    let ids: Vec<&str> = m.iter().filter_map(|c| c.0.as_deref()).collect();
    assert_eq!(ids, ["m1", "m2", "m3", "m5", "m4"]);
    // Only a transcript's request has a cost of its own, and a file and
    // agent id when its records say (none here).
    assert!(stream.model_calls.iter().all(|c| c.cost_usd.is_none()));
    let price = |c: &cctape::run::ModelCall| {
        let p = PriceTable::builtin()
            .prices("claude-sonnet-4-5")
            .expect("priced");
        p.cost(&cctape::pricing::RequestTokens {
            input: c.usage.input_tokens,
            output: c.usage.output_tokens,
            ..Default::default()
        })
    };
    for c in &transcript.model_calls {
        assert_eq!(c.cost_usd, Some(price(c)), "{c:?}");
        assert_eq!((&c.file, &c.agent_id, &c.request_id), (&None, &None, &None));
    }
}

/// The same conversation makes the same spans in either dialect, by one
/// rule: the spans' names, parents, tool call ids, error types and
/// response ids (a subagent under the Agent call that launched it).
#[cfg(feature = "otel")]
#[test]
fn both_dialects_make_the_same_spans() {
    use cctape::otel::run_telemetry;
    type Span = (
        String,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    fn shape(run: &RunSummary) -> Vec<Span> {
        let t = run_telemetry(run, "in", 0);
        let spans = &t.spans.scope_spans[0].spans;
        let name_of = |id: &[u8]| {
            spans
                .iter()
                .find(|s| s.span_id == id)
                .map_or(String::new(), |s| s.name.clone())
        };
        let attr = |s: &cctape::otel::proto::tonic::trace::v1::Span, key: &str| {
            s.attributes
                .iter()
                .find(|a| a.key == key)
                .map(|a| format!("{:?}", a.value.as_ref().and_then(|v| v.value.as_ref())))
        };
        let mut out: Vec<Span> = spans
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    name_of(&s.parent_span_id),
                    attr(s, "gen_ai.tool.call.id"),
                    attr(s, "error.type"),
                    attr(s, "gen_ai.response.id"),
                )
            })
            .collect();
        out.sort();
        out
    }
    for (what, messages) in [("tools", MESSAGES), ("subagent", SUBAGENT)] {
        let (stream, transcript) = both_runs(messages);
        let s = shape(&transcript);
        assert_eq!(shape(&stream), s, "{what}");
        let n = |name: &str| s.iter().filter(|x| x.0.starts_with(name)).count();
        match what {
            "tools" => assert_eq!((n("chat"), n("execute_tool")), (5, 8)),
            _ => {
                let agent = s.iter().find(|x| x.0 == "invoke_agent Explore");
                assert_eq!(agent.map(|a| a.1.as_str()), Some("execute_tool Agent"));
            }
        }
        let rejected = s
            .iter()
            .filter(|x| x.3.as_deref() == Some("Some(StringValue(\"rejected\"))"));
        assert_eq!(rejected.count(), usize::from(what == "tools"));
    }
}
