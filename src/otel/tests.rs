//! Unit tests of the OTLP mapping: spans, parents, times and ids of small
//! streams written here.

use super::*;
use crate::RunFolder;
use crate::stream::SliceEvents;
use opentelemetry_proto::tonic::trace::v1::Span;

/// The runs of a stream, folded with their call lists.
fn runs(input: &[u8]) -> Vec<RunSummary> {
    let mut f = RunFolder::new();
    f.record_calls(true);
    let mut events = SliceEvents::new(input);
    while let Some(item) = events.next_event() {
        if let Ok(ev) = item {
            f.push(&ev);
        }
    }
    f.finish()
}

fn spans(t: &RunTelemetry) -> &[Span] {
    &t.spans.scope_spans[0].spans
}

fn by_name<'a>(t: &'a RunTelemetry, name: &str) -> &'a Span {
    spans(t)
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no span {name}"))
}

fn int_attr(s: &Span, key: &str) -> Option<i64> {
    use opentelemetry_proto::tonic::common::v1::any_value::Value;
    s.attributes.iter().find(|a| a.key == key).and_then(|a| {
        match a.value.as_ref()?.value.as_ref()? {
            Value::IntValue(i) => Some(*i),
            _ => None,
        }
    })
}

/// A run with a subagent launched by an Agent call, without timestamps,
/// one tool error, and a message written as two assistant events.
const NO_TIMES: &[u8] = br#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-5","claude_code_version":"2.1.50"}
{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-5","content":[{"type":"tool_use","id":"a1","name":"Agent","input":{"subagent_type":"Explore","description":"look"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100}},"parent_tool_use_id":null,"session_id":"s1"}
{"type":"assistant","message":{"id":"m2","model":"claude-haiku-5","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":2}},"parent_tool_use_id":"a1","session_id":"s1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"no such file","is_error":true}]},"parent_tool_use_id":"a1","session_id":"s1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a1","content":"done"}]},"parent_tool_use_id":null,"session_id":"s1"}
{"type":"assistant","message":{"id":"m3","model":"claude-sonnet-5","content":[{"type":"text","text":"All"}],"stop_reason":null,"usage":{"input_tokens":4,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1"}
{"type":"assistant","message":{"id":"m3","model":"claude-sonnet-5","content":[{"type":"text","text":" done."}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":9}},"parent_tool_use_id":null,"session_id":"s1"}
{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"All done.","total_cost_usd":0.01,"session_id":"s1"}
"#;

#[test]
fn spans_of_a_run_with_a_subagent() {
    let rs = runs(NO_TIMES);
    let t = run_telemetry(&rs[0], "x.jsonl", 1_000_000);
    let names: Vec<&str> = spans(&t).iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "invoke_agent claude-code",
            "invoke_agent Explore",
            "execute_tool Agent",
            "execute_tool Bash",
            "chat claude-sonnet-5",
            "chat claude-haiku-5",
            "chat claude-sonnet-5",
        ]
    );
    let root = by_name(&t, "invoke_agent claude-code");
    let agent_call = by_name(&t, "execute_tool Agent");
    let sub = by_name(&t, "invoke_agent Explore");
    let bash = by_name(&t, "execute_tool Bash");
    let haiku = by_name(&t, "chat claude-haiku-5");
    // The subagent under the Agent call, its calls under it.
    assert!(root.parent_span_id.is_empty());
    assert_eq!(agent_call.parent_span_id, root.span_id);
    assert_eq!(sub.parent_span_id, agent_call.span_id);
    assert_eq!(bash.parent_span_id, sub.span_id);
    assert_eq!(haiku.parent_span_id, sub.span_id);
    // The failed result: ERROR; the others carry no error.
    let error = opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32;
    assert_eq!(bash.status.as_ref().map(|s| s.code), Some(error));
    assert_eq!(agent_call.status, None);
    // The message written twice is one call, with its final usage; the
    // convention's input count holds the cache read.
    let m1 = &spans(&t)[4];
    assert_eq!(int_attr(m1, "gen_ai.usage.input_tokens"), Some(110));
    assert_eq!(
        int_attr(m1, "gen_ai.usage.cache_read.input_tokens"),
        Some(100)
    );
    let m3 = &spans(&t)[6];
    assert_eq!(int_attr(m3, "gen_ai.usage.output_tokens"), Some(9));
}

#[test]
fn times_without_timestamps_follow_the_lines_from_the_anchor() {
    let rs = runs(NO_TIMES);
    let t = run_telemetry(&rs[0], "x.jsonl", 1_000_000);
    let ms = |n: u64| n * 1_000_000;
    // Line 2 is 1 ms after the anchor (line 1); the Bash call runs from its
    // line (3) to its result's (4).
    let bash = by_name(&t, "execute_tool Bash");
    assert_eq!(
        (bash.start_time_unix_nano, bash.end_time_unix_nano),
        (ms(1_000_002), ms(1_000_003))
    );
    // The message of lines 6 and 7: from the first to after the last.
    let m3 = &spans(&t)[6];
    assert_eq!(
        (m3.start_time_unix_nano, m3.end_time_unix_nano),
        (ms(1_000_005), ms(1_000_007))
    );
    // The run covers every span; the subagent its calls.
    let root = by_name(&t, "invoke_agent claude-code");
    assert_eq!(root.start_time_unix_nano, ms(1_000_000));
    assert_eq!(root.end_time_unix_nano, ms(1_000_008));
    let sub = by_name(&t, "invoke_agent Explore");
    assert_eq!(
        (sub.start_time_unix_nano, sub.end_time_unix_nano),
        (ms(1_000_002), ms(1_000_003))
    );
    // Its Agent call from its line (2) to its result's (5).
    let call = by_name(&t, "execute_tool Agent");
    assert_eq!(
        (call.start_time_unix_nano, call.end_time_unix_nano),
        (ms(1_000_001), ms(1_000_004))
    );
}

#[test]
fn timestamps_are_used_where_the_events_have_them() {
    let input = br#"{"type":"system","subtype":"init","session_id":"s2","model":"m","timestamp":"2026-03-01T10:00:00.000Z"}
{"type":"assistant","message":{"id":"m1","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}},"session_id":"s2","timestamp":"2026-03-01T10:00:02.000Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"session_id":"s2","timestamp":"2026-03-01T10:00:05.500Z"}
{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s2","timestamp":"2026-03-01T10:00:06.000Z"}
"#;
    let rs = runs(input);
    let t = run_telemetry(&rs[0], "y.jsonl", 0);
    let at = |s: &str| crate::time::parse_millis(s).unwrap() as u64 * 1_000_000;
    let read = by_name(&t, "execute_tool Read");
    assert_eq!(read.start_time_unix_nano, at("2026-03-01T10:00:02.000Z"));
    assert_eq!(read.end_time_unix_nano, at("2026-03-01T10:00:05.500Z"));
    let root = by_name(&t, "invoke_agent claude-code");
    assert_eq!(root.start_time_unix_nano, at("2026-03-01T10:00:00.000Z"));
    assert_eq!(root.end_time_unix_nano, at("2026-03-01T10:00:06.000Z"));
}

#[test]
fn ids_are_the_sessions_and_the_events() {
    let a = run_telemetry(&runs(NO_TIMES)[0], "x.jsonl", 5);
    let b = run_telemetry(&runs(NO_TIMES)[0], "elsewhere.jsonl", 99);
    // The same session and events: the same ids, wherever the file is.
    let ids = |t: &RunTelemetry| -> Vec<(Vec<u8>, Vec<u8>)> {
        spans(t)
            .iter()
            .map(|s| (s.trace_id.clone(), s.span_id.clone()))
            .collect()
    };
    assert_eq!(ids(&a), ids(&b));
    let all = ids(&a);
    assert!(all.iter().all(|(t, s)| t.len() == 16 && s.len() == 8));
    assert!(all.iter().all(|(t, _)| *t == all[0].0), "one trace");
    let distinct: std::collections::HashSet<_> = all.iter().map(|(_, s)| s).collect();
    assert_eq!(distinct.len(), all.len(), "span ids differ");
    // Another session: another trace.
    let other = String::from_utf8(NO_TIMES.to_vec())
        .unwrap()
        .replace("\"s1\"", "\"s9\"");
    let c = run_telemetry(&runs(other.as_bytes())[0], "x.jsonl", 5);
    assert_ne!(ids(&c)[0].0, all[0].0);
}

#[test]
fn metrics_are_claude_codes() {
    let t = run_telemetry(&runs(NO_TIMES)[0], "x.jsonl", 0);
    let m = &t.metrics.scope_metrics[0].metrics;
    let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "claude_code.session.count",
            "claude_code.token.usage",
            "claude_code.cost.usage"
        ]
    );
    let json = String::from_utf8(to_json(&metrics_request([&t]))).unwrap();
    for ty in [
        "\"input\"",
        "\"output\"",
        "\"cacheRead\"",
        "\"cacheCreation\"",
    ] {
        assert!(json.contains(ty), "{ty} in {json}");
    }
}

/// The spans of requests in order, each with its run's `session.id`.
fn spans_of(reqs: &[ExportTraceServiceRequest]) -> Vec<(String, Vec<u8>)> {
    use opentelemetry_proto::tonic::common::v1::any_value::Value;
    let session = |r: &ResourceSpans| {
        let attrs = r.resource.as_ref().map_or(&[][..], |r| &r.attributes[..]);
        let v = attrs.iter().find(|a| a.key == "session.id");
        match v.and_then(|a| a.value.as_ref()?.value.as_ref()) {
            Some(Value::StringValue(s)) => s.clone(),
            _ => String::new(),
        }
    };
    reqs.iter()
        .flat_map(|q| &q.resource_spans)
        .flat_map(|r| {
            let s = session(r);
            r.scope_spans
                .iter()
                .flat_map(|sc| &sc.spans)
                .map(move |sp| (s.clone(), sp.span_id.clone()))
        })
        .collect()
}

#[test]
fn trace_requests_split_long_runs_and_pack_short_ones() {
    let one = runs(NO_TIMES);
    let other = String::from_utf8(NO_TIMES.to_vec())
        .unwrap()
        .replace("\"s1\"", "\"s2\"");
    let two = runs(other.as_bytes());
    let ts = [
        run_telemetry(&one[0], "a.jsonl", 0),
        run_telemetry(&two[0], "b.jsonl", 0),
    ];
    assert_eq!((ts[0].span_count(), ts[1].span_count()), (7, 7));
    let whole: Vec<_> = trace_requests(&ts, MAX_EXPORT_SPANS).collect();
    // Both runs fit one request, each whole, as they are.
    assert_eq!(whole.len(), 1);
    assert_eq!(
        whole[0].resource_spans,
        [ts[0].spans.clone(), ts[1].spans.clone()]
    );
    for max in [1, 2, 3, 5, 7, 8, 13, 14] {
        let parts: Vec<_> = trace_requests(&ts, max).collect();
        assert_eq!(parts.len(), 14_usize.div_ceil(max), "max {max}");
        for p in &parts {
            let n: usize = p
                .resource_spans
                .iter()
                .flat_map(|r| &r.scope_spans)
                .map(|s| s.spans.len())
                .sum();
            assert!(n >= 1 && n <= max, "max {max}: a request of {n} spans");
            for r in &p.resource_spans {
                assert!(r.resource.is_some() && !r.scope_spans.is_empty());
                assert!(r.scope_spans.iter().all(|s| s.scope.is_some()));
            }
        }
        // Every span once, in order, under its own run's resource.
        assert_eq!(spans_of(&parts), spans_of(&whole), "max {max}");
        // Taking the runs makes the same requests as copying them, and a
        // part holds its own spans alone (not the buffer of the whole run).
        let taken: Vec<_> = into_trace_requests(ts.iter().map(|t| t.spans.clone()), max).collect();
        assert_eq!(taken, parts, "max {max}");
        for p in &taken {
            for s in p.resource_spans.iter().flat_map(|r| &r.scope_spans) {
                assert!(
                    s.spans.capacity() <= max,
                    "max {max}: {}",
                    s.spans.capacity()
                );
            }
        }
    }
    // A run goes whole while the rest of it fits: 7 and 7 spans, 5 a
    // request, are 5, then 2 and 3, then 4.
    let sizes: Vec<Vec<usize>> = trace_requests(&ts, 5)
        .map(|p| {
            p.resource_spans
                .iter()
                .map(|r| r.scope_spans.iter().map(|s| s.spans.len()).sum())
                .collect()
        })
        .collect();
    assert_eq!(sizes, [vec![5], vec![2, 3], vec![4]]);
    assert_eq!(trace_requests(&[], 4).count(), 0);
    assert_eq!(into_trace_requests(Vec::new(), 4).count(), 0);
    let metrics = into_metrics_request(ts.iter().map(|t| t.metrics.clone()));
    assert_eq!(metrics, metrics_request(&ts));
}
