//! The fold's tests: its reads through the index against the byte walks,
//! and the rules that the corpus does not reach.

use super::*;
use crate::framing::Lines;
use crate::json::Scanner;
use crate::run::{ModelCall, ModelRole};
use crate::time::Blocks;
use read::Message;

type Seen = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<RequestTokens>,
);

/// A string's text (unescaped), whichever backend read it.
fn text(v: Option<crate::json::Value<'_>>) -> Option<String> {
    v.and_then(|v| v.as_raw_str())
        .map(|s| s.to_cow().into_owned())
}

/// A usage object read key by key from the simd-json tape (the oracle of
/// the table the fold reads it through).
fn usage_walked(m: crate::json::Value<'_>) -> Option<RequestTokens> {
    use crate::json::ValueKind::Object;
    let u = m.get("usage").filter(|u| u.kind() == Object)?;
    let n = |v: Option<crate::json::Value<'_>>| v.and_then(|v| v.as_u64()).unwrap_or(0);
    let (m5, h1) = match u.get("cache_creation").filter(|c| c.kind() == Object) {
        Some(c) => (
            n(c.get("ephemeral_5m_input_tokens")),
            n(c.get("ephemeral_1h_input_tokens")),
        ),
        None => (n(u.get("cache_creation_input_tokens")), 0),
    };
    Some(RequestTokens {
        input: n(u.get("input_tokens")),
        output: n(u.get("output_tokens")),
        cache_read: n(u.get("cache_read_input_tokens")),
        cache_write_5m: m5,
        cache_write_1h: h1,
        fast: u.get("speed").is_some_and(|v| v.str_eq("fast")),
    })
}

/// Whether two values (the index's and the tape's) hold the same JSON:
/// kinds, strings' text, numbers, members in order and elements, all the
/// way down.
fn same(a: crate::json::Value<'_>, b: crate::json::Value<'_>) -> bool {
    use crate::json::ValueKind::{Array, Object};
    if a.kind() != b.kind() || a.as_str() != b.as_str() || a.number() != b.number() {
        return false;
    }
    match a.kind() {
        Object => {
            a.entries().count() == b.entries().count()
                && a.entries()
                    .zip(b.entries())
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        Array => {
            a.elements().count() == b.elements().count()
                && a.elements().zip(b.elements()).all(|(x, y)| same(x, y))
        }
        _ => a.as_bool() == b.as_bool(),
    }
}

/// Every message of `bytes` (a record's, and one relayed by a subagent's
/// progress): what the fold reads through the index is what the simd-json
/// tape of the same line holds. Returns how many.
fn check(bytes: &[u8]) -> usize {
    let mut scanner = Scanner::new();
    let mut parser = crate::json::tape::Parser::new();
    let mut n = 0;
    for line in Lines::new(bytes) {
        let Ok(s) = scanner.scan(&line) else { continue };
        let Ok(doc) = parser.parse(&line) else {
            panic!("line {}: the scan took what the tape refuses", line.number)
        };
        let root = s.value();
        let tape = doc.value();
        for path in ["message", "data.message.message"] {
            let (Some(m), Some(r)) = (root.get_path(path), tape.get_path(path)) else {
                continue;
            };
            let read = Message::of(m);
            let got: Seen = (
                text(read.id),
                text(read.model),
                text(read.stop_reason),
                read.usage,
            );
            let s = |k: &str| text(r.get(k));
            let want: Seen = (s("id"), s("model"), s("stop_reason"), usage_walked(r));
            assert_eq!(got, want, "line {}", line.number);
            match (read.content, r.get("content")) {
                (Some(a), Some(b)) => assert!(same(a, b), "line {}: content", line.number),
                (a, b) => assert_eq!(a.is_some(), b.is_some(), "line {}", line.number),
            }
            n += 1;
        }
    }
    n
}

#[test]
fn message_reads_through_the_index_are_the_byte_walks() {
    let cases = [
        // usage after the content, stop_reason after it.
        r#"{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"a \"usage\": {\"input_tokens\":9}"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}}"#,
        // A tool input holding a usage object; context_management last.
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","input":{"usage":{"input_tokens":7}}}],"usage":{"input_tokens":3},"context_management":{"usage":{"input_tokens":5}}}}"#,
        // Nothing after the content; a nested object ends the content.
        r#"{"type":"assistant","message":{"id":"m","content":[{"usage":{"output_tokens":8}}]}}"#,
        // Escaped quotes before the key's text.
        r#"{"type":"assistant","message":{"content":"x\\\"usage\":{}","usage":{"output_tokens":6}}}"#,
        // Spaces around the punctuation.
        "{\"type\":\"assistant\",\"message\": {  \"content\": [ ],\t \"usage\" :  {\"input_tokens\": 2}  } }",
        // Usage as the CLI writes it, and odd ones (fractions, nulls, big
        // numbers, other types).
        r#"{"type":"assistant","message":{"content":[],"usage":{"input_tokens":3,"cache_creation_input_tokens":9,"cache_read_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":5},"output_tokens":11,"service_tier":"standard","server_tool_use":{"web_search_requests":0,"x":[1,{"a":"]}"}]},"speed":"fast"}}}"#,
        r#"{"type":"assistant","message":{"content":[],"usage":{"input_tokens":5,"output_tokens":1.5,"cache_read_input_tokens":null,"speed":"fast"}}}"#,
        r#"{"type":"assistant","message":{"content":[],"usage":{"input_tokens":18446744073709551615,"output_tokens":-0,"cache_creation":{"ephemeral_5m_input_tokens":1e3},"service_tier":"a\"b"}}}"#,
        r#"{"type":"assistant","message":{"content":[],"usage":{ }}}"#,
        r#"{"type":"assistant","message":{"content":[],"usage":{"cache_creation":7,"cache_creation_input_tokens":3, "input_tokens" : 2 , "speed" : "fast" }}}"#,
        r#"{"type":"assistant","message":{"model":"claude-haiku-4-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":6}}}"#,
        r#"{"type":"assistant","message":{"model":"a\u0062c","id":"m\"1","content":[],"usage":{"input_tokens":4}}}"#,
        r#"{"type":"assistant","message":{"id":12,"model":null,"stop_reason":"end_turn","content":[]}}"#,
        r#"{"type":"assistant","message":{"id":"x","usage":{"input_tokens":4},"content":[],"stop_reason":"tool_use"}}"#,
        r#"{"type":"assistant","message":{"id":"x","extra":{"a":[1,2,{"b":"}"}]},"n":-1.5e3,"t":true,"content":[]}}"#,
        r#"{"type":"assistant","message":{ "id" : "x" , "content" : [ ] , "usage" : { "input_tokens" : 1 } }}"#,
        r#"{"type":"assistant","message":{}}"#,
        r#"{"type":"assistant","message":{"content":[{"stop_reason":"q","usage":{"output_tokens":1}}],"usage":{"output_tokens":2}}}"#,
        r#"{"type":"assistant","message":{"content":"\"usage\":{\"output_tokens\":9}"}}"#,
        r#"{"type":"assistant","message":{"content":[],"stop_reason":null,"usage":{"cache_creation":{"ephemeral_1h_input_tokens":3}}}}"#,
        r#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"id":"r","usage":{"output_tokens":4}}}}}"#,
    ];
    for c in cases {
        assert_eq!(check(c.as_bytes()), 1, "{c}");
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    let mut n = 0;
    for sub in [
        "session-format",
        "wave2/session-format",
        "wave2/transformed",
    ] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            n += check(&std::fs::read(e.path()).unwrap());
        }
    }
    assert!(n > 1000 || !dir.is_dir(), "{n} messages");
}

/// A key given twice, or written with escapes, reads as `Value::get`
/// reads it: the first, compared unescaped.
#[test]
fn a_key_given_twice_is_read_as_get_reads_it() {
    let line = br#"{"type":"assistant","message":{"id":"x","id":"y","st\u006fp_reason":"a","stop_reason":"b","usage":{"output_tokens":2,"\u0069nput_tokens":5,"speed":"fast","speed":0},"usage":{"output_tokens":3}}}"#;
    let mut scanner = Scanner::new();
    let l = Lines::new(line).next().unwrap();
    let s = scanner.scan(&l).unwrap();
    let m = Message::of(s.value().get("message").unwrap());
    assert_eq!(text(m.id).as_deref(), Some("x"));
    assert_eq!(text(m.stop_reason).as_deref(), Some("a"));
    let u = m.usage.unwrap();
    assert_eq!((u.output, u.input, u.fast), (2, 5, true));
}

/// A subagent's request relayed to its parent without a time of its own
/// (the relaying record's is earlier) counts once, at the time of the
/// subagent's own record: on its day and in its billing block.
#[test]
fn a_relayed_request_takes_the_time_of_the_subagents_own_record() {
    let usage = r#"{"input_tokens":3,"output_tokens":9,"cache_creation_input_tokens":0,"cache_read_input_tokens":50}"#;
    let parent = format!(
        "{{\"type\":\"progress\",\"sessionId\":\"s1\",\"isSidechain\":false,\"timestamp\":\"2026-01-01T23:59:00.000Z\",\"data\":{{\"type\":\"agent_progress\",\"agentId\":\"a1\",\"message\":{{\"type\":\"assistant\",\"requestId\":\"r1\",\"message\":{{\"id\":\"m1\",\"model\":\"claude-opus-4-6\",\"usage\":{usage}}}}}}}}}\n"
    );
    let own = format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"s1\",\"isSidechain\":true,\"agentId\":\"a1\",\"timestamp\":\"2026-01-02T00:01:00.000Z\",\"requestId\":\"r1\",\"message\":{{\"id\":\"m1\",\"model\":\"claude-opus-4-6\",\"usage\":{usage}}}}}\n"
    );
    let utc = Zone::utc();
    let prices = PriceTable::builtin();
    // Either file first: the choice does not depend on the order.
    for parent_first in [true, false] {
        let mut fold = TranscriptFold::new();
        let files = [
            (parent.as_str(), "p/s1.jsonl"),
            (own.as_str(), "p/s1/subagents/agent-a1.jsonl"),
        ];
        let order = if parent_first { [0, 1] } else { [1, 0] };
        for i in order {
            let (text, path) = files[i];
            let f = TranscriptFile::from_path(std::path::Path::new(path));
            fold.read_slice(text.as_bytes(), &f, |e| panic!("{e}"));
        }
        let instants = fold.request_instants(&utc, &DayRange::default());
        let own_ms = crate::time::parse_millis("2026-01-02T00:01:00Z").unwrap();
        assert_eq!(instants, [own_ms]);
        let blocks = Blocks::new(instants);
        let report = fold.finish_within(prices, &utc, &DayRange::default(), Some(&blocks));
        assert_eq!(report.total.requests, 1);
        let days: Vec<String> = report.days.iter().map(|d| d.day.to_string()).collect();
        assert_eq!(days, ["2026-01-02"]);
        let s = &report.sessions[0];
        let block: Vec<_> = s
            .by_block
            .iter()
            .map(|b| b.block.map(|b| b.to_string()))
            .collect();
        assert_eq!(block, [Some("2026-01-02T00:00:00.000Z".to_string())]);
        assert_eq!(s.by_block[0].by_role[0].role, ModelRole::Subagent);
    }
}

#[test]
fn request_keys_tell_ids_apart() {
    let ids: Vec<String> = (0..2000)
        .map(|i| format!("msg_01{i:0>22}"))
        .chain((0..64).map(|n| "a".repeat(n)))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for m in &ids {
        assert!(seen.insert(request_key(m.as_bytes(), None)));
        for r in ["req_1", "", "req_011C2496ganCNXMrXclC92"] {
            assert!(seen.insert(request_key(m.as_bytes(), Some(r.as_bytes()))));
        }
    }
    // Where one id ends and the other starts is part of the key.
    assert_ne!(
        request_key(b"ab", Some(b"c")),
        request_key(b"a", Some(b"bc"))
    );
    assert_ne!(request_key(b"abc", None), request_key(b"abc", Some(b"")));
    assert_ne!(request_key(b"ab\0", None), request_key(b"ab", None));
}

/// A user text's start is compared unescaped, as the record views compare
/// it: an interrupt notice and a local command written with escapes are
/// what they say.
#[test]
fn a_user_texts_start_is_read_unescaped() {
    let lines = concat!(
        r#"{"type":"user","sessionId":"s1","timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"\u005bRequest interrupted by user]"}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s1","timestamp":"2026-01-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s2","timestamp":"2026-01-01T10:00:02.000Z","message":{"role":"user","content":"\u003ccommand-name>/model</command-name>"}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s3","timestamp":"2026-01-01T10:00:03.000Z","message":{"role":"user","content":"fix the \"tests\"\nplease"}}"#,
        "\n",
    );
    let mut scanner = Scanner::new();
    let mut said = Vec::new();
    for l in Lines::new(lines.as_bytes()) {
        let rec = scanner.scan(&l).unwrap().record();
        let crate::transcript::RecordView::User(u) = crate::transcript::RecordView::of(&rec) else {
            panic!("line {}", l.number)
        };
        let fold_says = read::user_content(rec.get_path("message.content")).interrupt;
        assert_eq!(fold_says, u.is_interrupt(), "line {}", l.number);
        said.push(fold_says);
    }
    assert_eq!(said, [true, true, false, false]);
    let mut fold = TranscriptFold::new();
    fold.read_slice(lines.as_bytes(), &TranscriptFile::default(), |e| {
        panic!("{e}")
    });
    let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    let by = |id: &str| {
        report
            .sessions
            .iter()
            .find(|s| s.session_id == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    assert_eq!(by("s1").facts.interrupted_turns, 2);
    // A local command awaits no reply; a prompt does.
    assert_eq!(by("s2").facts.ending, None);
    assert_eq!(by("s3").facts.ending, Some(SessionEnd::AwaitingReply));
}

/// The exact sum of `xs`, rounded once: Shewchuk's partials (Python's
/// `math.fsum` recipe), written apart from `ExactSum` to be its oracle.
fn fsum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in xs {
        let mut kept = 0;
        for i in 0..partials.len() {
            let mut y = partials[i];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        partials.push(x);
    }
    // Round the partials once, half-way cases corrected as fsum does.
    let Some(mut hi) = partials.pop() else {
        return 0.0;
    };
    let mut lo = 0.0;
    while let Some(y) = partials.pop() {
        let x = hi;
        hi = x + y;
        lo = y - (hi - x);
        if lo != 0.0 {
            break;
        }
    }
    if let Some(&next) = partials.last()
        && ((lo < 0.0 && next < 0.0) || (lo > 0.0 && next > 0.0))
    {
        let y = lo * 2.0;
        let x = hi + y;
        if y == x - hi {
            hi = x;
        }
    }
    hi
}

/// Every cost total of the report is the exact sum of its requests' costs,
/// rounded once, however they are grouped (session, day, model, role, the
/// whole, the session as a run): costs of 0.1, 0.2 and 0.3 dollars, whose
/// left-to-right `f64` sums are not their exact ones.
#[test]
fn cost_totals_are_exact_sums_of_their_requests() {
    let costs = [0.1, 0.2, 0.3, 0.7, 1e-9, 3.3, 0.1, 0.2];
    let mut lines = String::new();
    for (i, cost) in costs.iter().cycle().take(96).enumerate() {
        let session = ["s1", "s2"][i % 2];
        let day = 1 + (i / 7) % 3;
        let model = ["claude-opus-4-6", "claude-haiku-4-5"][(i / 3) % 2];
        lines.push_str(&format!(
            "{{\"type\":\"assistant\",\"sessionId\":\"{session}\",\"isSidechain\":{},\"timestamp\":\"2026-01-0{day}T10:00:{:02}.000Z\",\"requestId\":\"r{i}\",\"costUSD\":{cost},\"message\":{{\"id\":\"m{i}\",\"model\":\"{model}\",\"usage\":{{\"input_tokens\":1,\"output_tokens\":2}}}}}}\n",
            i % 5 == 0,
            i % 60
        ));
    }
    let mut fold = TranscriptFold::new();
    fold.record_calls(true);
    let file = TranscriptFile::default();
    fold.read_slice(lines.as_bytes(), &file, |e| panic!("{e}"));
    let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    let all: Vec<&ModelCall> = report
        .sessions
        .iter()
        .flat_map(|s| &s.model_calls)
        .collect();
    assert_eq!(all.len(), 96);
    let cost = |r: &&ModelCall| r.cost_usd.unwrap();
    let day = |r: &&ModelCall| {
        crate::time::Day::of_millis(r.started_ms.unwrap(), &Zone::utc()).to_string()
    };
    // Left to right in f64 is not exact here: the old sums differ.
    let left_to_right: f64 = all.iter().map(cost).sum();
    let exact = fsum(all.iter().map(cost));
    assert_ne!(left_to_right, exact);
    assert_eq!(report.total.cost_usd, exact);
    assert_eq!(report.total.cost_from_records_usd, exact);
    assert_eq!(report.total.cost_priced_usd, 0.0);
    for d in &report.days {
        let of_day = all.iter().filter(|r| day(r) == d.day.to_string());
        assert_eq!(d.totals.cost_usd, fsum(of_day.map(cost)), "{}", d.day);
        for m in &d.models {
            let of = all
                .iter()
                .filter(|r| day(r) == d.day.to_string() && r.model.as_ref() == Some(&m.model));
            assert_eq!(m.totals.cost_usd, fsum(of.map(cost)));
        }
    }
    let mut inexact = 0;
    for s in &report.sessions {
        let mine = || s.model_calls.iter();
        let want = fsum(mine().map(|r| r.cost_usd.unwrap()));
        assert_eq!(s.totals.cost_usd, want, "{}", s.session_id);
        inexact += usize::from(mine().map(|r| r.cost_usd.unwrap()).sum::<f64>() != want);
        for row in &s.by_role {
            let of = mine().filter(|r| {
                r.model.as_ref() == Some(&row.model)
                    && r.sidechain == (row.role == ModelRole::Subagent)
            });
            assert_eq!(row.totals.cost_usd, fsum(of.map(|r| r.cost_usd.unwrap())));
        }
        for d in &s.by_day {
            for row in &d.by_role {
                let of = mine().filter(|r| {
                    Some(day(r)) == d.day.map(|d| d.to_string())
                        && r.model.as_ref() == Some(&row.model)
                        && r.sidechain == (row.role == ModelRole::Subagent)
                });
                assert_eq!(row.totals.cost_usd, fsum(of.map(|r| r.cost_usd.unwrap())));
            }
        }
        // The session as a run: its rows added again, exactly.
        let run = s.to_run();
        assert_eq!(run.model_calls, s.model_calls, "the run carries its calls");
        assert_eq!(run.cost.total_cost_usd, Some(want));
        let subs = fsum(mine().filter(|r| r.sidechain).map(|r| r.cost_usd.unwrap()));
        assert_eq!(run.cost.subagent_cost_usd, subs);
    }
    assert!(inexact > 0);
}

/// The fold's readers are the one reader's: a gzip stream read by `read`
/// folds as its plain bytes read by `read_slice` do, line for line, and a
/// bad line is told as every command tells it (CR-only line ends named).
#[test]
fn the_folds_readers_read_as_the_commands_do() {
    use std::io::Write;
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!(
            "{{\"type\":\"assistant\",\"sessionId\":\"s{}\",\"timestamp\":\"2026-01-01T10:00:{:02}.000Z\",\"requestId\":\"r{i}\",\"message\":{{\"id\":\"m{i}\",\"model\":\"claude-haiku-4-5\",\"usage\":{{\"input_tokens\":{i},\"output_tokens\":2}}}}}}\n",
            i % 3,
            i % 60
        ));
    }
    text.push_str("{\"type\":\"user\"}\r{\"type\":\"user\"}\n\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let file = TranscriptFile::default();
    let mut errors = Vec::new();
    let mut plain = TranscriptFold::new();
    let a = plain.read_slice(text.as_bytes(), &file, |e| errors.push(e.to_string()));
    let mut packed = TranscriptFold::new();
    let b = packed.read(&gz[..], &file, |e| errors.push(e.to_string()));
    assert_eq!(a, b);
    assert_eq!((a.lines, a.blank_lines, a.events, a.errors), (42, 1, 40, 1));
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0], errors[1]);
    assert!(errors[0].contains("CR only"), "{}", errors[0]);
    let utc = Zone::utc();
    let (p, q) = (
        plain.finish(PriceTable::builtin(), &utc),
        packed.finish(PriceTable::builtin(), &utc),
    );
    assert_eq!(p.total.requests, 40);
    assert_eq!(p, q);
}

/// Fuzzing `transcript_fold` found `read_slice` and `read` reading the
/// same bytes apart: a first line starting with FE FF (a UTF-16 BE byte
/// order mark) was two lines to the slice reader, which read bytes as
/// they are, and one decoded text to `read`, which tells an encoding as
/// the commands do. Both are now the one reader's, in any pieces.
#[test]
fn read_slice_and_read_agree_on_a_utf16_byte_order_mark() {
    struct Trickle<'a>(&'a [u8], usize);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut bytes = vec![0xfe, 0xff, b'\n'];
    bytes.extend_from_slice(
        br#"{"type":"assistant","sessionId":"","timestamp":"","requestId":"","message":{"id":"","model":"","usage":{"input_tokens":0}}}"#,
    );
    bytes.push(b'\n');
    let file = TranscriptFile::default();
    let utc = Zone::utc();
    let mut whole = TranscriptFold::new();
    let mut said = Vec::new();
    let a = whole.read_slice(&bytes, &file, |e| said.push(e.to_string()));
    let want = format!("{:?}", whole.finish(PriceTable::builtin(), &utc));
    for chunk in [1, 2, 3, 7, 64] {
        let mut trickled = TranscriptFold::new();
        let mut told = Vec::new();
        let b = trickled.read(Trickle(&bytes, chunk), &file, |e| told.push(e.to_string()));
        assert_eq!(a, b, "{chunk}");
        assert_eq!(said, told, "{chunk}");
        let got = format!("{:?}", trickled.finish(PriceTable::builtin(), &utc));
        assert_eq!(want, got, "{chunk}");
    }
}

/// Unusual numbers are counted each, but only the first's text is kept: the
/// names a fold holds do not grow with how many a file has.
#[test]
fn unusual_numbers_keep_one_text() {
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!(
            r#"{{"type":"assistant","sessionId":"s1","uuid":"u{i}","message":{{"id":"m{i}","model":"m","usage":{{"input_tokens":-{i},"output_tokens":1}}}}}}"#
        ));
        text.push('\n');
    }
    let mut fold = TranscriptFold::new();
    fold.read_slice(text.as_bytes(), &TranscriptFile::default(), |e| {
        panic!("{e}")
    });
    let names = fold.strings.len();
    assert!(names < 10, "{names} names");
    let report = fold.finish(PriceTable::builtin(), &Zone::utc());
    let f = &report.sessions[0].facts;
    assert_eq!(f.unusual_numbers, 199, "-0 is 0, a count");
    assert_eq!(
        f.first_unusual_number
            .as_ref()
            .map(|(_, l, w)| (*l, w.as_str())),
        Some((2, "input_tokens -1 is not a token count (0 used)"))
    );
    // A file without a name is not named in the warning.
    let run = report.sessions[0].to_run();
    let said: Vec<&str> = run
        .warnings
        .iter()
        .filter(|w| w.code == crate::run::WARN_UNUSUAL_NUMBER)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(
        said,
        [
            "input_tokens -1 is not a token count (0 used) (the first of 199 such numbers in the session)"
        ]
    );
}

/// Folds of a session's two files, read apart and merged, make the report
/// one fold of both makes, each call under its own file: a request's file
/// is a name of the fold that read it, taken into the merged fold's names
/// (it was read in the merged fold's names, another file's there); its
/// ids are its own, unescaped.
#[test]
fn merged_folds_place_each_call_in_its_own_file() {
    let main = r#"{"type":"assistant","sessionId":"s1","isSidechain":false,"timestamp":"2026-01-01T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"subagent_type":"Explore"}}],"usage":{"input_tokens":1,"output_tokens":2}}}
"#;
    let sub = r#"{"type":"user","sessionId":"s1","isSidechain":true,"agentId":"a1","timestamp":"2026-01-01T10:00:01Z","message":{"role":"user","content":"look"}}
{"type":"assistant","sessionId":"s1","isSidechain":true,"agentId":"a1","timestamp":"2026-01-01T10:00:02Z","requestId":"r\u0032","message":{"id":"m2","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{}}],"usage":{"input_tokens":3,"output_tokens":4}}}
"#;
    let files = [
        (
            main,
            TranscriptFile::from_path(std::path::Path::new("p/s1.jsonl")),
        ),
        (
            sub,
            TranscriptFile::from_path(std::path::Path::new("p/s1/subagents/agent-a1.jsonl")),
        ),
    ];
    let fold = || {
        let mut f = TranscriptFold::new();
        f.record_calls(true);
        f
    };
    let finish = |f: TranscriptFold| f.finish(PriceTable::builtin(), &Zone::utc());
    let mut one = fold();
    for (text, file) in &files {
        one.read_slice(text.as_bytes(), file, |e| panic!("{e}"));
    }
    let mut apart: Vec<TranscriptFold> = files
        .iter()
        .map(|(text, file)| {
            let mut f = fold();
            f.read_slice(text.as_bytes(), file, |e| panic!("{e}"));
            f
        })
        .collect();
    let second = apart.pop().unwrap();
    let mut merged = apart.pop().unwrap();
    merged.merge(second);
    let (one, merged) = (finish(one), finish(merged));
    assert_eq!(merged, one);
    let run = merged.sessions[0].to_run();
    let calls: Vec<_> = run
        .model_calls
        .iter()
        .map(|c| {
            (
                c.file.as_deref(),
                c.message_id.as_deref(),
                c.request_id.as_deref(),
                c.agent_id.as_deref(),
                c.agent.as_deref(),
                c.sidechain,
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                Some("p/s1.jsonl"),
                Some("m1"),
                Some("r1"),
                None,
                None,
                false
            ),
            (
                Some("p/s1/subagents/agent-a1.jsonl"),
                Some("m2"),
                Some("r2"),
                Some("a1"),
                None,
                true
            ),
        ]
    );
    let tools: Vec<_> = run
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.tool_use_id.as_str(),
                c.file.as_deref(),
                c.agent_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [
            ("t1", Some("p/s1.jsonl"), None),
            ("t2", Some("p/s1/subagents/agent-a1.jsonl"), Some("a1"))
        ]
    );
}
