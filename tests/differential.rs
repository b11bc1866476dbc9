//! Differential testing against serde_json.
//!
//! For every line, proptest-generated or real: cctape's type, subtype and
//! hot fields equal serde_json's reading of the same line, and cctape
//! rejects a line exactly when serde_json does, except for the documented
//! differences, each with its own test below:
//!
//! - a top-level `type` or `subtype` given twice with different values is an
//!   error in cctape (`duplicate_key`);
//! - nesting past 1024 levels is an error in cctape (`too_deep`); serde_json
//!   by default stops at 127, so lines nested 128 to 1024 deep are read by
//!   cctape only;
//! - a lone surrogate escape reads as U+FFFD (serde_json rejects the line);
//! - numbers beyond u64/i64 and f64 are accepted (serde_json reads integers
//!   beyond u64 as f64 and rejects floats beyond f64);
//! - `-0` is the integer 0 in cctape, the float -0.0 in serde_json;
//! - of a key given twice, cctape reads the first, serde_json's `Value` the
//!   last (the oracle here keeps every entry and reads the first);
//! - floats with long mantissas may differ in the last bit: cctape
//!   (simd-json) rounds them correctly, serde_json without its
//!   `float_roundtrip` feature is sometimes one ULP off; compared within 2.
//!
//! The oracle is in `tests/support/checks/oracle.rs` (part of
//! `tests/support/checks.rs`), shared with the fuzz targets.

#[path = "support/checks.rs"]
mod checks;

use cctape::event::parse_event;
use cctape::framing::{Line, Lines};
use cctape::json::{Number, Scanner};
use cctape::{ErrorKind, EventKind};
use checks::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn cctape(line: &[u8]) -> Result<EventKind, ErrorKind> {
    let mut p = Scanner::new();
    let l = Line {
        bytes: line,
        number: 1,
        offset: 0,
        terminated: true,
    };
    parse_event(&mut p, &l)
        .map(|e| e.kind())
        .map_err(|e| e.kind())
}

fn serde_value(line: &[u8]) -> Result<serde_json::Value, String> {
    serde_json::from_slice(line).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------
// Generators

/// The JSON text of a string: plain, any unicode, or pieces with escapes,
/// raw separators and surrogate escapes.
fn json_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z_ ]{1,6}",
        Just("\\n".to_owned()),
        Just("\\r".to_owned()),
        Just("\\t".to_owned()),
        Just("\\\"".to_owned()),
        Just("\\\\".to_owned()),
        Just("\\/".to_owned()),
        Just("\\u0000".to_owned()),
        Just("\\u2028".to_owned()),
        Just("\\u00e9".to_owned()),
        Just("\\ud83d\\ude00".to_owned()),
        Just("\\ud83d".to_owned()),
        Just("\\udc00".to_owned()),
        Just("\\uD83D\\uDE00".to_owned()),
        Just("\u{2028}".to_owned()),
        Just("\u{2029}".to_owned()),
        Just("\u{85}".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("é😀".to_owned()),
        Just("\\u001b[31m".to_owned()),
    ];
    prop_oneof![
        "[a-z_]{0,12}".prop_map(|s| quote(&s)),
        any::<String>().prop_map(|s| quote(&s)),
        prop::collection::vec(piece, 0..8).prop_map(|ps| format!("\"{}\"", ps.concat())),
    ]
}

/// The JSON text of a number, of every size.
fn json_number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..1000).prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::to_string(&f).unwrap()),
        Just("-0".to_owned()),
        Just("-0.0".to_owned()),
        Just("1e400".to_owned()),
        Just("-1e400".to_owned()),
        Just("1e-400".to_owned()),
        "[1-9][0-9]{19,40}",
        "-[1-9][0-9]{19,40}",
        "[0-9]\\.[0-9]{1,30}([eE][+-]?[0-9]{1,3})?",
        "0\\.[0-9]{1,25}",
    ]
}

/// Any JSON value, nested a few levels.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        json_number(),
        json_string(),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((json_string(), inner), 0..4).prop_map(|kv| {
                let e: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
                format!("{{{}}}", e.join(","))
            }),
        ]
    })
}

/// A value for a field: usually the right type, sometimes any value.
fn or_any(right: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop_oneof![4 => right, 1 => json_value()]
}

fn known(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(words).prop_map(quote)
}

fn content_block() -> impl Strategy<Value = String> {
    prop_oneof![
        or_any(json_string()).prop_map(|t| format!(r#"{{"type":"text","text":{t}}}"#)),
        (
            or_any(json_string()),
            or_any(known(&["Bash", "Read", "Agent"]))
        )
            .prop_map(|(id, n)| {
                format!(r#"{{"type":"tool_use","id":{id},"name":{n},"input":{{"command":"ls"}}}}"#)
            }),
        (
            or_any(json_string()),
            prop::option::of(or_any(prop::bool::ANY.prop_map(|b| b.to_string())))
        )
            .prop_map(|(id, e)| match e {
                Some(e) => format!(
                    r#"{{"type":"tool_result","tool_use_id":{id},"is_error":{e},"content":"x"}}"#
                ),
                None => format!(r#"{{"tool_use_id":{id},"type":"tool_result"}}"#),
            }),
        json_value(),
    ]
}

fn message() -> impl Strategy<Value = String> {
    let usage = prop::collection::vec(or_any(json_number()), 4).prop_map(|n| {
        format!(
            r#"{{"input_tokens":{},"output_tokens":{},"cache_read_input_tokens":{},"cache_creation_input_tokens":{}}}"#,
            n[0], n[1], n[2], n[3]
        )
    });
    (
        or_any(json_string()),
        or_any(known(&["claude-sonnet-5-5", "<synthetic>", "glm-5.1"])),
        prop::collection::vec(content_block(), 0..3),
        prop::option::of(or_any(usage)),
    )
        .prop_map(|(id, model, content, usage)| {
            let mut m = format!(
                r#"{{"id":{id},"model":{model},"content":[{}]"#,
                content.join(",")
            );
            if let Some(u) = usage {
                m.push_str(&format!(r#","usage":{u}"#));
            }
            m.push('}');
            m
        })
}

/// An event line: the reference's hot fields, extra keys, sometimes a key
/// twice, keys in any order, any whitespace between tokens.
fn event_line() -> impl Strategy<Value = String> {
    let ty = prop_oneof![
        6 => known(&["system", "assistant", "user", "result", "stream_event", "rate_limit_event", "control_request"]),
        1 => json_value(),
    ];
    let subtype = known(&[
        "init",
        "success",
        "error_max_turns",
        "api_retry",
        "task_started",
        "local_command",
    ]);
    let fields = (
        ty,
        prop::option::of(or_any(subtype)),
        prop::option::of(or_any(json_string())),
        prop::option::of(or_any(json_string())),
        prop::option::of(prop_oneof![
            Just("null".to_owned()),
            json_string(),
            json_value()
        ]),
        prop::option::of(or_any(json_string())),
        prop::option::of(or_any(message())),
        prop::option::of(or_any(prop::bool::ANY.prop_map(|b| b.to_string()))),
        prop::option::of(or_any(json_number())),
        prop::option::of(or_any(json_number())),
        prop::option::of((0usize..3, or_any(json_number()))),
        prop::collection::vec((json_string(), json_value()), 0..3),
    );
    let dups = prop::collection::vec((0usize..12, prop::option::of(json_value())), 0..2);
    (fields, dups, 0usize..4, any::<u64>()).prop_flat_map(
        |((ty, st, sid, uuid, parent, ts, msg, ie, nt, dur, cost, extra), dups, ws, _)| {
            let mut kv: Vec<(String, String)> = vec![("\"type\"".into(), ty)];
            let mut add = |k: &str, v: Option<String>| {
                if let Some(v) = v {
                    kv.push((quote(k), v));
                }
            };
            add("subtype", st);
            add("session_id", sid);
            add("uuid", uuid);
            add("parent_tool_use_id", parent);
            add("timestamp", ts);
            add("message", msg);
            add("is_error", ie);
            add("num_turns", nt);
            add("duration_ms", dur);
            if let Some((i, c)) = cost {
                add(["total_cost_usd", "cost_usd", "total_cost"][i], Some(c));
            }
            for (k, v) in extra {
                kv.push((k, v));
            }
            // A key given twice: the same value, or another one.
            for (i, v) in dups {
                let (k, old) = kv[i % kv.len()].clone();
                kv.push((k, v.unwrap_or(old)));
            }
            let sep = [" ", "", "\t", "\r\n "][ws];
            Just(kv).prop_shuffle().prop_map(move |kv| {
                let e: Vec<String> = kv.iter().map(|(k, v)| format!("{k}{sep}:{v}")).collect();
                format!("{{{}}}", e.join(&format!(",{sep}")))
            })
        },
    )
}

/// An event line with up to three random edits.
fn corrupted_line() -> impl Strategy<Value = Vec<u8>> {
    let edit = (
        0u8..5,
        any::<prop::sample::Index>(),
        prop::sample::select(
            &[
                b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', 0u8, 0xFF, 0xC3, b' ', b'\r',
                b'\n', b'0', b'-', b'e',
            ][..],
        ),
    );
    (event_line(), prop::collection::vec(edit, 1..4)).prop_map(|(line, edits)| {
        let mut b = line.into_bytes();
        for (op, at, byte) in edits {
            let i = at.index(b.len() + 1);
            match op {
                0 if i < b.len() => {
                    b.remove(i);
                }
                1 => b.insert(i, byte),
                2 if i < b.len() => b[i] = byte,
                3 => b.truncate(i),
                _ => b.insert(i, byte),
            }
        }
        b
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn generated_event_lines_agree_with_serde_json(line in event_line()) {
        differential(line.as_bytes(), serde_default);
    }

    #[test]
    fn corrupted_event_lines_agree_with_serde_json(line in corrupted_line()) {
        differential(&line, serde_default);
    }

    #[test]
    fn any_value_as_a_line_agrees_with_serde_json(line in json_value()) {
        differential(line.as_bytes(), serde_default);
    }
}

// ---------------------------------------------------------------------------
// Real lines

/// Lines of NDJSON-named real captures that are not JSON, as the READMEs
/// list them ("1 not JSON"): a harness wrote them into the stream.
const HARNESS_LINES: &[(&str, u64)] = &[(
    "grahama1970__cc_executor__tests-apps-web_project-results-task_007_create_unit_tests.md@0a5e5b4.md-codeblock.jsonl",
    32,
)];

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn every_realworld_line_agrees_with_serde_json() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if !root.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld is missing, and CI is set"
        );
        eprintln!("skipped: ../shared/realworld is missing");
        return;
    }
    let rows = realworld::readme_rows(&root);
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    let mut files = 0;
    let mut not_events = 0;
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name == "README.md" {
                continue;
            }
            files += 1;
            let bytes = std::fs::read(&p).unwrap();
            let ndjson = name.ends_with(".jsonl") || name.ends_with(".ndjson");
            // A `.jsonl` whose README row says it holds no event (a text
            // output, a JSON object without `type`: wave3): both reject
            // every line.
            let events = realworld::readme_says_events(&rows, &name) != Some(false);
            not_events += usize::from(ndjson && !events);
            for line in Lines::new(&bytes).filter(|l| !l.is_blank()) {
                let v = differential(line.bytes, serde_default);
                *verdicts.entry(format!("{v:?}")).or_default() += 1;
                if ndjson && !events {
                    assert_eq!(v, Verdict::BothReject, "{name} line {}", line.number);
                } else if ndjson && !HARNESS_LINES.contains(&(name.as_str(), line.number)) {
                    assert_eq!(v, Verdict::BothAccept, "{name} line {}", line.number);
                }
            }
        }
    }
    eprintln!("{files} files ({not_events} named .jsonl without events): {verdicts:?}");
    assert!(files >= 50);
    assert!(verdicts.get("BothAccept").copied().unwrap_or(0) > 3000);
    assert!(verdicts.get("BothReject").copied().unwrap_or(0) > 5000);
    assert!(!verdicts.contains_key("Skipped"));
}

// ---------------------------------------------------------------------------
// The documented differences, one test each

#[test]
fn duplicate_type_with_different_values_is_an_error_in_cctape_only() {
    let line = br#"{"type":"user","session_id":"s","type":"assistant"}"#;
    assert_eq!(cctape(line), Err(ErrorKind::DuplicateKey));
    assert_eq!(serde_value(line).unwrap()["type"], "assistant");
    assert_eq!(differential(line, serde_default), Verdict::DocumentedReject);
    // The same value twice is fine.
    let same = br#"{"type":"user","type":"user"}"#;
    assert_eq!(cctape(same), Ok(EventKind::User));
    assert_eq!(differential(same, serde_default), Verdict::BothAccept);
}

#[test]
fn duplicate_subtype_with_different_values_is_an_error_in_cctape_only() {
    let line =
        br#"{"type":"result","subtype":"success","is_error":false,"subtype":"error_max_turns"}"#;
    assert_eq!(cctape(line), Err(ErrorKind::DuplicateKey));
    assert!(serde_value(line).is_ok());
    assert_eq!(differential(line, serde_default), Verdict::DocumentedReject);
}

fn nested(depth: usize) -> String {
    // The root object is level 1.
    format!(
        "{{\"type\":\"user\",\"a\":{}{}}}",
        "[".repeat(depth - 1),
        "]".repeat(depth - 1)
    )
}

#[test]
fn nesting_past_1024_is_an_error_in_cctape() {
    assert_eq!(cctape(nested(1024).as_bytes()), Ok(EventKind::User));
    assert_eq!(cctape(nested(1025).as_bytes()), Err(ErrorKind::TooDeep));
    // serde_json with its default limit cannot judge this deep; the fuzz
    // target `parse_line` lifts the limit and checks that 1025 is where
    // the two part.
    assert_eq!(
        differential(nested(1025).as_bytes(), serde_default),
        Verdict::Skipped
    );
}

#[test]
fn nesting_between_128_and_1024_is_read_serde_json_by_default_stops_at_127() {
    assert!(serde_value(nested(127).as_bytes()).is_ok());
    let e = serde_value(nested(128).as_bytes()).unwrap_err();
    assert!(e.contains("recursion limit"), "{e}");
    assert_eq!(cctape(nested(128).as_bytes()), Ok(EventKind::User));
    assert_eq!(cctape(nested(1024).as_bytes()), Ok(EventKind::User));
}

#[test]
fn lone_surrogate_escapes_read_as_replacement_character() {
    let line =
        br#"{"type":"user","session_id":"a\ud83d","uuid":"\udc00b","timestamp":"\ud83d\ude00"}"#;
    assert!(serde_value(line).is_err());
    let mut p = Scanner::new();
    let l = Line {
        bytes: line,
        number: 1,
        offset: 0,
        terminated: true,
    };
    let ev = parse_event(&mut p, &l).unwrap();
    assert_eq!(ev.session_id(), Some("a\u{FFFD}"));
    assert_eq!(ev.uuid(), Some("\u{FFFD}b"));
    assert_eq!(ev.timestamp(), Some("😀"));
    assert_eq!(differential(line, serde_default), Verdict::DocumentedAccept);
}

#[test]
fn numbers_beyond_u64_and_f64_are_accepted() {
    // Integers beyond u64: both accept (serde_json reads an f64).
    let big_int = br#"{"type":"result","num_turns":18446744073709551616,"total_cost_usd":123456789012345678901234567890}"#;
    assert!(serde_value(big_int).unwrap()["num_turns"].is_f64());
    assert_eq!(differential(big_int, serde_default), Verdict::BothAccept);
    // Floats beyond f64: serde_json rejects the line, cctape keeps the text.
    let big_float = br#"{"type":"result","total_cost_usd":1e400,"duration_ms":-1e999}"#;
    assert!(serde_value(big_float).unwrap_err().contains("out of range"));
    let mut p = Scanner::new();
    let l = Line {
        bytes: big_float,
        number: 1,
        offset: 0,
        terminated: true,
    };
    let ev = parse_event(&mut p, &l).unwrap();
    assert_eq!(
        ev.get("total_cost_usd").unwrap().number(),
        Some(Number::Big("1e400"))
    );
    assert_eq!(ev.total_cost_usd(), Some(f64::INFINITY));
    assert_eq!(ev.duration_ms(), None);
    assert_eq!(
        differential(big_float, serde_default),
        Verdict::DocumentedAccept
    );
}

#[test]
fn negative_zero_is_the_integer_zero() {
    let line = br#"{"type":"result","num_turns":-0,"duration_ms":-0.0}"#;
    assert!(serde_value(line).unwrap()["num_turns"].is_f64());
    let mut p = Scanner::new();
    let l = Line {
        bytes: line,
        number: 1,
        offset: 0,
        terminated: true,
    };
    let ev = parse_event(&mut p, &l).unwrap();
    assert_eq!(ev.num_turns(), Some(0));
    assert_eq!(ev.duration_ms(), None);
    assert_eq!(differential(line, serde_default), Verdict::BothAccept);
}

#[test]
fn of_a_key_given_twice_cctape_reads_the_first_serde_json_value_the_last() {
    let line = br#"{"type":"assistant","session_id":"first","message":{"model":"m1","model":"m2"},"session_id":"second"}"#;
    let v = serde_value(line).unwrap();
    assert_eq!(v["session_id"], "second");
    assert_eq!(v["message"]["model"], "m2");
    let mut p = Scanner::new();
    let l = Line {
        bytes: line,
        number: 1,
        offset: 0,
        terminated: true,
    };
    let ev = parse_event(&mut p, &l).unwrap();
    assert_eq!(ev.session_id(), Some("first"));
    assert_eq!(ev.model(), Some("m1"));
    // The oracle keeps every entry and reads the first.
    assert_eq!(differential(line, serde_default), Verdict::BothAccept);
}

#[test]
fn float_rounding_within_ulps() {
    // Long mantissas: cctape gives the correctly rounded value, serde_json
    // (without `float_roundtrip`) may be one ULP off.
    let mut serde_off = 0;
    for text in [
        "1.2345678901234567890123456789e-90",
        "2.2250738585072011e-308",
        "0.1000000000000000055511151231257827",
        "9007199254740993.0000000001",
    ] {
        let line = format!(r#"{{"type":"result","total_cost_usd":{text}}}"#);
        let exact: f64 = text.parse().unwrap();
        let serde = serde_value(line.as_bytes()).unwrap()["total_cost_usd"]
            .as_f64()
            .unwrap();
        let mut p = Scanner::new();
        let l = Line {
            bytes: line.as_bytes(),
            number: 1,
            offset: 0,
            terminated: true,
        };
        let ours = parse_event(&mut p, &l).unwrap().total_cost_usd().unwrap();
        assert_eq!(ours, exact, "{text}");
        assert!(
            serde.to_bits().abs_diff(exact.to_bits()) <= 1,
            "{text}: serde_json {serde:e} vs {exact:e}"
        );
        serde_off += usize::from(serde != exact);
        assert_eq!(
            differential(line.as_bytes(), serde_default),
            Verdict::BothAccept
        );
    }
    assert_eq!(serde_off, 2, "serde_json is one ULP off on two of them");
}

/// The generators reach every verdict: lines both read, lines both reject,
/// and both kinds of documented difference.
#[test]
fn the_generators_reach_every_verdict() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let lines = event_line();
    let corrupted = corrupted_line();
    for _ in 0..1500 {
        let a = lines.new_tree(&mut runner).unwrap().current();
        let b = corrupted.new_tree(&mut runner).unwrap().current();
        for l in [a.as_bytes(), &b] {
            *seen
                .entry(format!("{:?}", differential(l, serde_default)))
                .or_default() += 1;
        }
    }
    eprintln!("{seen:?}");
    for v in [
        "BothAccept",
        "BothReject",
        "DocumentedAccept",
        "DocumentedReject",
    ] {
        assert!(seen.get(v).copied().unwrap_or(0) >= 20, "{v}: {seen:?}");
    }
}

#[path = "support/realworld.rs"]
mod realworld;
