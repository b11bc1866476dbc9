//! The reference examples (corpus/reference) and the hand-made streams
//! (corpus/streams): every event parses, its kind matches the file name, and
//! every hot field equals serde_json's reading of the same line.

use cctape::{EventKind, Field, SliceEvents, TokenCounts};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

fn corpus(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(dir)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The hot fields of one line, owned, so that our reading and serde_json's
/// can be compared as a whole.
#[derive(Clone, Debug, Default, PartialEq)]
struct Hot {
    session_id: Option<String>,
    uuid: Option<String>,
    parent_tool_use_id: Field<String>,
    timestamp: Option<String>,
    message_id: Option<String>,
    model: Option<String>,
    usage: Option<TokenCounts>,
    content_block_type: Option<String>,
    tool_use_id: Option<String>,
    tool_name: Option<String>,
    tool_result_id: Option<String>,
    tool_result_is_error: Option<bool>,
    is_error: Option<bool>,
    subtype: Option<String>,
    num_turns: Option<u64>,
    duration_ms: Option<u64>,
    total_cost_usd: Option<f64>,
}

fn own(s: Option<&str>) -> Option<String> {
    s.map(str::to_owned)
}

impl Hot {
    fn ours(ev: &cctape::Event<'_>) -> Hot {
        Hot {
            session_id: own(ev.session_id()),
            uuid: own(ev.uuid()),
            parent_tool_use_id: ev.parent_tool_use_id().map(str::to_owned),
            timestamp: own(ev.timestamp()),
            message_id: own(ev.message_id()),
            model: own(ev.model()),
            usage: ev.usage(),
            content_block_type: own(ev.content_block_type()),
            tool_use_id: own(ev.tool_use_id()),
            tool_name: own(ev.tool_name()),
            tool_result_id: own(ev.tool_result_id()),
            tool_result_is_error: ev.tool_result_is_error(),
            is_error: ev.is_error(),
            subtype: own(ev.subtype()),
            num_turns: ev.num_turns(),
            duration_ms: ev.duration_ms(),
            total_cost_usd: ev.total_cost_usd(),
        }
    }

    /// serde_json's reading of `raw`, following each accessor's
    /// documentation. Floats are read from their text with `str::parse`:
    /// serde_json's default float parsing is not always correctly rounded
    /// (`-921601.9935894359` reads as `-921601.993589436`).
    fn serde(raw: &[u8]) -> Hot {
        let v: &Json = &serde_json::from_slice(raw).unwrap();
        let s = |v: &Json, k: &str| v.get(k).and_then(Json::as_str).map(str::to_owned);
        let message = v.get("message");
        let block = message
            .and_then(|m| m.get("content"))
            .and_then(Json::as_array)
            .and_then(|a| a.first());
        let block_type = block.and_then(|b| s(b, "type"));
        let of_block = |ty: &str, k: &str| {
            block
                .filter(|_| block_type.as_deref() == Some(ty))
                .and_then(|b| b.get(k))
        };
        let usage = message.and_then(|m| m.get("usage")).map(|u| {
            let n = |k: &str| u.get(k).and_then(Json::as_u64).unwrap_or(0);
            TokenCounts {
                input_tokens: n("input_tokens"),
                output_tokens: n("output_tokens"),
                cache_read_input_tokens: n("cache_read_input_tokens"),
                cache_creation_input_tokens: n("cache_creation_input_tokens"),
            }
        });
        Hot {
            session_id: s(v, "session_id"),
            uuid: s(v, "uuid"),
            parent_tool_use_id: match v.get("parent_tool_use_id") {
                None => Field::Missing,
                Some(Json::Null) => Field::Null,
                Some(Json::String(p)) => Field::Value(p.clone()),
                Some(_) => Field::Missing,
            },
            timestamp: s(v, "timestamp"),
            message_id: message.and_then(|m| s(m, "id")),
            model: message.and_then(|m| s(m, "model")),
            usage,
            content_block_type: block_type.clone(),
            tool_use_id: of_block("tool_use", "id")
                .and_then(Json::as_str)
                .map(str::to_owned),
            tool_name: of_block("tool_use", "name")
                .and_then(Json::as_str)
                .map(str::to_owned),
            tool_result_id: of_block("tool_result", "tool_use_id")
                .and_then(Json::as_str)
                .map(str::to_owned),
            tool_result_is_error: of_block("tool_result", "is_error").and_then(Json::as_bool),
            is_error: v.get("is_error").and_then(Json::as_bool),
            subtype: s(v, "subtype"),
            num_turns: v.get("num_turns").and_then(Json::as_u64),
            duration_ms: v.get("duration_ms").and_then(Json::as_u64),
            total_cost_usd: ["total_cost_usd", "cost_usd", "total_cost"]
                .iter()
                .find_map(|k| {
                    let f = v.get(*k).and_then(Json::as_f64)?;
                    Some(exact_number(raw, k).unwrap_or(f))
                }),
        }
    }

    /// The names of the fields that hold something (`parent_tool_use_id`
    /// null counts, as `parent_tool_use_id=null`).
    fn present(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut add = |name, present: bool| {
            if present {
                out.push(name);
            }
        };
        add("session_id", self.session_id.is_some());
        add("uuid", self.uuid.is_some());
        add(
            "parent_tool_use_id=null",
            self.parent_tool_use_id == Field::Null,
        );
        add(
            "parent_tool_use_id",
            matches!(self.parent_tool_use_id, Field::Value(_)),
        );
        add("timestamp", self.timestamp.is_some());
        add("message_id", self.message_id.is_some());
        add("model", self.model.is_some());
        add("usage", self.usage.is_some());
        add("content_block_type", self.content_block_type.is_some());
        add("tool_use_id", self.tool_use_id.is_some());
        add("tool_name", self.tool_name.is_some());
        add("tool_result_id", self.tool_result_id.is_some());
        add("tool_result_is_error", self.tool_result_is_error.is_some());
        add("is_error", self.is_error.is_some());
        add("subtype", self.subtype.is_some());
        add("num_turns", self.num_turns.is_some());
        add("duration_ms", self.duration_ms.is_some());
        add("total_cost_usd", self.total_cost_usd.is_some());
        out
    }
}

/// The number after `"key":` read with `str::parse`, when the key occurs
/// once in the line.
fn exact_number(raw: &[u8], key: &str) -> Option<f64> {
    let raw = std::str::from_utf8(raw).ok()?;
    let pat = format!("\"{key}\":");
    let mut hits = raw.match_indices(&pat);
    let (at, _) = hits.next()?;
    if hits.next().is_some() {
        return None;
    }
    let rest = &raw[at + pat.len()..];
    let end = rest
        .find(|c: char| !matches!(c, '-' | '+' | '.' | 'e' | 'E' | '0'..='9'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

const SYSTEM: &[&str] = &["session_id", "uuid", "subtype"];
const STREAM_EVENT: &[&str] = &["session_id", "uuid", "parent_tool_use_id=null"];
const RESULT: &[&str] = &[
    "session_id",
    "uuid",
    "is_error",
    "subtype",
    "num_turns",
    "duration_ms",
    "total_cost_usd",
];

/// Each reference example (line N of examples.jsonl is the Nth), its label
/// in examples.tsv, its kind, and the hot fields it has (read off the
/// examples; the test checks serde_json agrees).
const REFERENCE: &[(&str, EventKind, &[&str])] = &[
    ("01-system-init", EventKind::SystemInit, SYSTEM),
    (
        "02-system-permission_denied",
        EventKind::SystemPermissionDenied,
        SYSTEM,
    ),
    (
        "03-system-hook_started",
        EventKind::SystemHookStarted,
        SYSTEM,
    ),
    (
        "04-system-hook_response",
        EventKind::SystemHookResponse,
        SYSTEM,
    ),
    (
        "05-assistant",
        EventKind::Assistant,
        &[
            "session_id",
            "uuid",
            "parent_tool_use_id=null",
            "timestamp",
            "message_id",
            "model",
            "usage",
            "content_block_type",
            "tool_use_id",
            "tool_name",
        ],
    ),
    (
        "06-assistant-synthetic",
        EventKind::Assistant,
        &[
            "session_id",
            "uuid",
            "parent_tool_use_id=null",
            "timestamp",
            "message_id",
            "model",
            "usage",
            "content_block_type",
        ],
    ),
    (
        "07-user-tool_result",
        EventKind::User,
        &[
            "session_id",
            "uuid",
            "parent_tool_use_id=null",
            "timestamp",
            "content_block_type",
            "tool_result_id",
        ],
    ),
    (
        "08-user-tool_result",
        EventKind::User,
        &[
            "session_id",
            "uuid",
            "parent_tool_use_id=null",
            "timestamp",
            "content_block_type",
            "tool_result_id",
            "tool_result_is_error",
        ],
    ),
    (
        "09-stream_event-message_start",
        EventKind::StreamEvent,
        STREAM_EVENT,
    ),
    (
        "10-stream_event-content_block_start",
        EventKind::StreamEvent,
        STREAM_EVENT,
    ),
    (
        "11-stream_event-content_block_delta",
        EventKind::StreamEvent,
        STREAM_EVENT,
    ),
    (
        "12-stream_event-content_block_stop",
        EventKind::StreamEvent,
        STREAM_EVENT,
    ),
    (
        "13-stream_event-message_delta",
        EventKind::StreamEvent,
        STREAM_EVENT,
    ),
    (
        "14-stream_event-message_stop",
        EventKind::StreamEvent,
        STREAM_EVENT,
    ),
    ("15-result-success", EventKind::ResultSuccess, RESULT),
    (
        "16-system-task_started",
        EventKind::SystemTaskStarted,
        SYSTEM,
    ),
    (
        "17-system-task_progress",
        EventKind::SystemTaskProgress,
        SYSTEM,
    ),
    (
        "18-system-task_updated",
        EventKind::SystemTaskUpdated,
        SYSTEM,
    ),
    (
        "19-system-task_notification",
        EventKind::SystemTaskNotification,
        SYSTEM,
    ),
    (
        "20-user-text",
        EventKind::User,
        &[
            "session_id",
            "uuid",
            "parent_tool_use_id=null",
            "timestamp",
            "content_block_type",
        ],
    ),
    (
        "21-result-error_during_execution",
        EventKind::ResultErrorDuringExecution,
        RESULT,
    ),
];

/// The labels examples.tsv (written by extract_reference.py beside
/// examples.jsonl) gives, in line order.
fn example_labels() -> Vec<String> {
    let index = String::from_utf8(read(&corpus("reference").join("examples.tsv"))).unwrap();
    let mut labels = Vec::new();
    for (n, row) in index.lines().skip(1).enumerate() {
        let cols: Vec<&str> = row.split('\t').collect();
        assert_eq!(cols[0], (n + 1).to_string(), "examples.tsv row {row}");
        labels.push(cols[1].to_owned());
    }
    labels
}

/// Line `n` (1-based) of examples.jsonl, with its LF.
fn example(n: usize) -> Vec<u8> {
    let all = read(&corpus("reference").join("examples.jsonl"));
    let line = all.split_inclusive(|&b| b == b'\n').nth(n - 1).unwrap();
    line.to_vec()
}

#[test]
fn reference_table_lists_every_example() {
    let listed: Vec<String> = REFERENCE.iter().map(|r| r.0.to_string()).collect();
    assert_eq!(example_labels(), listed);
}

#[test]
fn examples_jsonl_is_one_example_a_line() {
    // Each example is in the corpus once (`cctape stats corpus` counts it
    // once): one LF-terminated line per row of the index, nothing else in
    // the folder that a command would read.
    let all = read(&corpus("reference").join("examples.jsonl"));
    assert!(all.ends_with(b"\n"));
    assert_eq!(all.iter().filter(|&&b| b == b'\n').count(), REFERENCE.len());
    let mut names: Vec<String> = std::fs::read_dir(corpus("reference"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["examples.jsonl", "examples.tsv"]);
}

/// What the label says: `NN-type[-subtype or detail]`.
fn check_kind_against_name(name: &str, ev: &cctape::Event<'_>) {
    let (_, rest) = name.split_once('-').unwrap();
    let (ty, detail) = match rest.split_once('-') {
        Some((t, d)) => (t, Some(d)),
        None => (rest, None),
    };
    assert_eq!(ev.raw_type(), ty, "{name}");
    match ty {
        "system" | "result" => {
            let sub = detail.unwrap();
            assert_eq!(ev.raw_subtype(), Some(sub), "{name}");
            assert_eq!(
                ev.kind().name(),
                Some(format!("{ty}/{sub}").as_str()),
                "{name}"
            );
        }
        "stream_event" => {
            assert_eq!(ev.kind(), EventKind::StreamEvent);
            let inner = ev.get_path("event.type").and_then(|v| v.as_str());
            assert_eq!(inner, detail, "{name}");
        }
        "assistant" => {
            assert_eq!(ev.kind(), EventKind::Assistant);
            let synthetic = ev.model() == Some("<synthetic>");
            assert_eq!(synthetic, detail == Some("synthetic"), "{name}");
        }
        "user" => {
            assert_eq!(ev.kind(), EventKind::User);
            assert_eq!(ev.content_block_type(), detail, "{name}");
        }
        other => panic!("{name}: unexpected type {other}"),
    }
}

#[test]
fn reference_examples_parse_with_the_right_kind_and_hot_fields() {
    let mut fields_seen = std::collections::BTreeSet::new();
    let bytes = read(&corpus("reference").join("examples.jsonl"));
    let mut events = SliceEvents::new(&bytes);
    let mut offset = 0;
    for (n, (name, kind, has)) in REFERENCE.iter().enumerate() {
        let ev = events
            .next_event()
            .unwrap_or_else(|| panic!("{name}: no line"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ev.kind(), *kind, "{name}");
        assert_eq!((ev.line(), ev.offset()), (n as u64 + 1, offset));
        offset += ev.raw().len() as u64 + 1;
        check_kind_against_name(name, &ev);

        let want = Hot::serde(ev.raw());
        let got = Hot::ours(&ev);
        assert_eq!(got, want, "{name}");
        // The example really has these fields, and nothing else among the
        // hot ones: the equality above compares values, not absences.
        assert_eq!(want.present(), *has, "{name}: serde_json's reading");
        assert_eq!(got.present(), *has, "{name}: ours");
        fields_seen.extend(has.iter().copied());
        // No type mismatch on any field of its view, counted over the tape
        // (the opt-in backend, which counts them on its document).
        let mut tape = cctape::json::tape::Parser::new();
        let line = cctape::framing::Lines::new(ev.raw())
            .next()
            .expect("a line");
        let doc = tape.parse(&line).expect("the tape reads it");
        cctape::views::View::new(ev.kind(), doc.value()).visit_all(&mut cctape::views::NoVisitor);
        assert_eq!(doc.type_mismatches(), 0, "{name}");
    }
    assert!(events.next_event().is_none(), "one example a line");
    let c = events.counts();
    let n = REFERENCE.len() as u64;
    assert_eq!((c.lines, c.events, c.errors, c.blank_lines), (n, n, 0, 0));
    // Every hot field but a string parent_tool_use_id (which no reference
    // example has; see the streams test) is checked on at least one example.
    let all = [
        "session_id",
        "uuid",
        "parent_tool_use_id=null",
        "timestamp",
        "message_id",
        "model",
        "usage",
        "content_block_type",
        "tool_use_id",
        "tool_name",
        "tool_result_id",
        "tool_result_is_error",
        "is_error",
        "subtype",
        "num_turns",
        "duration_ms",
        "total_cost_usd",
    ];
    for f in all {
        assert!(fields_seen.contains(f), "no example has {f}");
    }
}

#[test]
fn reference_values_read_as_written() {
    // A few values spelled out, so that a shared mistake in both readings
    // cannot hide.
    let bytes = example(5);
    let mut events = SliceEvents::new(&bytes);
    let ev = events.next_event().unwrap().unwrap();
    assert_eq!(ev.message_id(), Some("msg_01A"));
    assert_eq!(ev.model(), Some("claude-sonnet-5-5"));
    assert_eq!(ev.tool_use_id(), Some("toolu_01A"));
    assert_eq!(ev.tool_name(), Some("Bash"));
    assert_eq!(ev.parent_tool_use_id(), Field::Null);
    assert_eq!(
        ev.usage(),
        Some(TokenCounts {
            input_tokens: 2,
            output_tokens: 16,
            cache_read_input_tokens: 28275,
            cache_creation_input_tokens: 4950,
        })
    );
    let bytes = example(15);
    let mut events = SliceEvents::new(&bytes);
    let ev = events.next_event().unwrap().unwrap();
    assert_eq!(ev.is_error(), Some(false));
    assert_eq!(ev.total_cost_usd(), Some(0.0436916));
    assert_eq!(ev.parent_tool_use_id(), Field::Missing);
}

#[test]
fn stream_lines_have_the_hot_fields_serde_json_reads() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus("streams"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 11);
    let mut seen = std::collections::BTreeMap::<&str, u32>::new();
    let mut compared = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let bytes = read(path);
        let mut events = SliceEvents::new(&bytes);
        while let Some(item) = events.next_event() {
            let ev = match item {
                Ok(ev) => ev,
                Err(e) => {
                    assert_eq!(name, "mixed-bad.jsonl", "{name}: {e}");
                    continue;
                }
            };
            // serde_json rejects a lone surrogate escape (mixed-bad line 11),
            // which we read as U+FFFD.
            if serde_json::from_slice::<Json>(ev.raw()).is_err() {
                assert_eq!((name, ev.line()), ("mixed-bad.jsonl", 11));
                continue;
            }
            let got = Hot::ours(&ev);
            assert_eq!(got, Hot::serde(ev.raw()), "{name} line {}", ev.line());
            for f in got.present() {
                *seen.entry(f).or_default() += 1;
            }
            compared += 1;
        }
    }
    assert!(compared > 150, "{compared} lines compared");
    // two-subagents.jsonl has subagent lines with a string parent.
    assert!(seen.get("parent_tool_use_id").copied().unwrap_or(0) >= 4);
    assert!(seen.get("tool_result_is_error").copied().unwrap_or(0) >= 1);
    assert!(seen.get("total_cost_usd").copied().unwrap_or(0) >= 10);
}

// ---------------------------------------------------------------------------
// Generated lines: any value type, any key order
// ---------------------------------------------------------------------------

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// A JSON value as text, of any type a hot field could wrongly hold.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("null".to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            (0u64..5000).prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            (-1e6f64..1e6).prop_map(|f| format!("{f:?}")),
            (0.0f64..1.0).prop_map(|f| format!("{f:e}")),
            Just("1.5e3".to_string()),
            Just("0.0436916".to_string()),
            // Not `-0`: serde_json reads it as the float -0.0 (so no u64),
            // simd-json as the integer 0; both are fair readings.
            Just("-0.0".to_string()),
            prop::sample::select(vec![
                r#""msg_01A""#,
                r#""toolu_\u0041\n""#,
                r#""caf\u00e9 \ud83d\ude00 \"q\"""#,
                "\"raw \u{2028} sep\"",
                r#""tool_use""#,
                r#""tool_result""#,
                r#""text""#,
                r#""""#,
            ])
            .prop_map(str::to_string),
            Just("{}".to_string()),
            Just(r#"{"id":"x"}"#.to_string()),
            Just("[]".to_string()),
            Just(r#"["a",1]"#.to_string()),
        ]
    }

    /// Each key absent (None) or with some value.
    fn maybe(key: &'static str) -> impl Strategy<Value = Option<(String, String)>> {
        prop::option::weighted(0.7, value().prop_map(move |v| (key.to_string(), v)))
    }

    fn object(entries: Vec<Option<(String, String)>>) -> impl Strategy<Value = String> {
        let entries: Vec<(String, String)> = entries.into_iter().flatten().collect();
        Just(entries).prop_shuffle().prop_map(|e| {
            let body: Vec<String> = e.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", body.join(","))
        })
    }

    fn block() -> impl Strategy<Value = String> {
        (
            prop_oneof![
                Just(r#""tool_use""#.to_string()),
                Just(r#""tool_result""#.to_string()),
                Just(r#""text""#.to_string()),
                value(),
            ],
            maybe("id"),
            maybe("name"),
            maybe("tool_use_id"),
            maybe("is_error"),
        )
            .prop_flat_map(|(ty, a, b, c, d)| object(vec![Some(("type".into(), ty)), a, b, c, d]))
    }

    fn usage() -> impl Strategy<Value = String> {
        (
            maybe("input_tokens"),
            maybe("output_tokens"),
            maybe("cache_read_input_tokens"),
            maybe("cache_creation_input_tokens"),
        )
            .prop_flat_map(|(a, b, c, d)| object(vec![a, b, c, d]))
    }

    fn message() -> impl Strategy<Value = String> {
        (
            maybe("id"),
            maybe("model"),
            prop::option::of(usage()),
            prop_oneof![
                1 => Just(None),
                1 => value().prop_map(Some),
                4 => prop::collection::vec(block(), 0..3).prop_map(|b| Some(format!("[{}]", b.join(",")))),
            ],
        )
            .prop_flat_map(|(id, model, usage, content)| {
                object(vec![
                    id,
                    model,
                    usage.map(|u| ("usage".to_string(), u)),
                    content.map(|c| ("content".to_string(), c)),
                ])
            })
    }

    fn line() -> impl Strategy<Value = String> {
        let top = (
            prop::sample::select(vec![
                "assistant",
                "user",
                "result",
                "system",
                "stream_event",
            ]),
            maybe("session_id"),
            maybe("uuid"),
            maybe("parent_tool_use_id"),
            maybe("timestamp"),
            maybe("is_error"),
            maybe("subtype"),
            maybe("num_turns"),
            maybe("duration_ms"),
        );
        let cost = (
            maybe("total_cost_usd"),
            maybe("cost_usd"),
            maybe("total_cost"),
            prop::option::weighted(0.7, message()),
        );
        (top, cost).prop_flat_map(|((ty, a, b, c, d, e, f, g, h), (i, j, k, m))| {
            object(vec![
                Some(("type".into(), format!("\"{ty}\""))),
                a,
                b,
                c,
                d,
                e,
                f,
                g,
                h,
                i,
                j,
                k,
                m.map(|m| ("message".to_string(), m)),
            ])
        })
    }

    /// Any number the JSON grammar allows: digits of any length, exponents
    /// far past f64's range.
    fn number() -> impl Strategy<Value = String> {
        (
            any::<bool>(),
            prop_oneof![
                Just("0".to_string()),
                (1u32..10, prop::collection::vec(0u32..10, 0..30)).prop_map(|(h, t)| {
                    std::iter::once(h)
                        .chain(t)
                        .map(|d| char::from_digit(d, 10).unwrap())
                        .collect()
                }),
            ],
            prop::option::of(prop::collection::vec(0u32..10, 1..30)),
            prop::option::of((
                prop::sample::select(vec!["e", "E", "e+", "e-", "E-"]),
                0u32..420,
            )),
        )
            .prop_map(|(neg, int, frac, exp)| {
                let mut s = String::new();
                if neg {
                    s.push('-');
                }
                s.push_str(&int);
                if let Some(f) = frac {
                    s.push('.');
                    s.extend(f.into_iter().map(|d| char::from_digit(d, 10).unwrap()));
                }
                if let Some((e, n)) = exp {
                    s.push_str(e);
                    s.push_str(&n.to_string());
                }
                s
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn generated_hot_fields_match_serde_json(line in line()) {
            let mut events = SliceEvents::new(line.as_bytes());
            let ev = events.next_event().unwrap().unwrap();
            prop_assert_eq!(Hot::ours(&ev), Hot::serde(line.as_bytes()), "{}", line);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn any_json_number_reads_as_str_parse_reads_it(n in number()) {
            let line = format!("{{\"type\":\"result\",\"num_turns\":{n},\"total_cost_usd\":{n}}}");
            let mut events = SliceEvents::new(line.as_bytes());
            let ev = events
                .next_event()
                .unwrap()
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            let want: f64 = n.parse().unwrap();
            let got = ev.total_cost_usd().unwrap();
            prop_assert!(
                got.to_bits() == want.to_bits() || (got == 0.0 && want == 0.0),
                "{}: got {:?}, want {:?}", n, got, want
            );
            let is_int = !n.contains(['.', 'e', 'E']);
            // `-0` is 0 (integers here have at most 30 digits: i128 holds them).
            let want_u64 = if is_int {
                n.parse::<i128>().ok().and_then(|v| u64::try_from(v).ok())
            } else {
                None
            };
            prop_assert_eq!(ev.num_turns(), want_u64, "{}", n);
        }
    }
}
