//! The lazy value over the structural index against serde_json's reading
//! of every line of the shipped corpus and of every real capture (every
//! value, key and path, and `get_many` over all paths at once), with the
//! tape and trusting backends behind the same type; then random JSON,
//! Unicode line separators inside strings, and truncated lines.

#[path = "support/checks.rs"]
mod checks;
#[path = "support/realworld.rs"]
mod realworld;
#[path = "support/value_checks.rs"]
mod value_checks;

use cctape::ErrorKind;
use cctape::framing::{Line, Lines};
use cctape::json::{IndexDepth, Scanner};
use checks::serde_default;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use value_checks::{ValueVerdict, check_index_value, oracle_read};

fn every_file() -> Vec<PathBuf> {
    let mut files = realworld::all_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    if let Some(dir) = realworld::realworld_dir() {
        files.extend(realworld::all_files(&dir));
    }
    files
}

#[test]
fn every_line_of_the_corpus_and_real_captures_reads_as_serde_json_reads_it() {
    let (mut read, mut rejected, mut paths, mut files) = (0usize, 0usize, 0usize, 0usize);
    let real = realworld::realworld_dir().is_some();
    for f in every_file() {
        let data = std::fs::read(&f).unwrap();
        files += 1;
        for line in Lines::new(&data) {
            let r = std::panic::catch_unwind(|| check_index_value(line.bytes, serde_default));
            match r {
                Ok(ValueVerdict::Read { paths: n }) => {
                    read += 1;
                    paths += n;
                }
                Ok(_) => rejected += 1,
                Err(e) => {
                    eprintln!("{}: line {}", f.display(), line.number);
                    std::panic::resume_unwind(e);
                }
            }
        }
    }
    println!("{files} files: {read} lines read, {paths} paths followed, {rejected} not JSON");
    // The shipped corpus alone has hundreds of lines; the real captures
    // thousands more, most of them events.
    assert!(read > 300 && paths > 5_000, "{read} lines, {paths} paths");
    if real {
        assert!(
            read > 5_000 && paths > 200_000,
            "{read} lines, {paths} paths"
        );
    }
}

#[test]
fn hand_picked_values() {
    let lines: &[&[u8]] = &[
        br#"{}"#,
        br#"[]"#,
        br#"  {"a" : [ 1 , { "b" : null } , "c" ] , "d" : { } }  "#,
        br#"{"a":1,"a":{"x":2},"b":[[],[[]],{}]}"#,
        br#"{"k\u0065y":"v\u00e9","key":"second","\\":"\"","":""}"#,
        b"{\"s\":\"line\xe2\x80\xa8sep\xe2\x80\xa9para\xc2\x85next\",\"e\":\"\\u2028\\u2029\\u0085\"}",
        br#"{"n":[0,-0,-1,18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809,1.5,1e2,1E+2,-0.0,1e400,-1e400,123456789012345678901234567890]}"#,
        br#"{"lone":"\ud83d","pair":"\ud83d\ude00","low":"\udc00x"}"#,
        br#""just a string""#,
        br#"12.5"#,
        br#"true"#,
        br#"null"#,
        br#"[1,[2,[3,[4,{"deep":[5]}]]]]"#,
        br#"{"0":"zero","1":{"0":[10,11]}}"#,
    ];
    for l in lines {
        let v = check_index_value(l, serde_default);
        assert!(
            matches!(v, ValueVerdict::Read { .. }),
            "{:?}: {v:?}",
            String::from_utf8_lossy(l)
        );
    }
}

#[test]
fn nested_get_finds_the_first_of_duplicate_keys_and_numeric_keys_in_objects() {
    let mut sc = Scanner::new();
    let line = Lines::new(br#"{"a":{"b":1},"a":{"b":2},"o":{"0":"key"},"r":["idx"]}"#)
        .next()
        .unwrap();
    let v = sc.validate(&line).unwrap();
    assert_eq!(v.get_path("a.b").and_then(|x| x.as_u64()), Some(1));
    assert!(v.get_path("o.0").unwrap().str_eq("key"));
    assert!(v.get_path("r.0").unwrap().str_eq("idx"));
    assert!(v.get_path("r.1").is_none() && v.get_path("o.1").is_none());
}

#[test]
fn top_level_indexing_outgrows_its_slots_and_reads_every_member() {
    // 6,000 members of 7 to 12 bytes: more top-level nodes than the slots
    // made for the line's length (one every 16 bytes), after a short line
    // that left few; then the same members inside a container, and a
    // long array at the root.
    let members: Vec<String> = (0..6000).map(|i| format!(r#""k{i}":{i}"#)).collect();
    let wide = format!(
        r#"{{"type":"x",{},"deep":{{"a":[{{"b":[1,2,{{"c":"d"}}]}}]}}}}"#,
        members.join(",")
    );
    let nested = format!(r#"{{"type":"x","o":{{{}}}}}"#, members.join(","));
    let array = format!(
        "[{}]",
        (0..6000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut top = Scanner::new();
    top.set_index_depth(IndexDepth::TopLevel);
    let mut full = Scanner::new();
    let short = Lines::new(br#"{"type":"x","a":1}"#).next().unwrap();
    top.scan(&short).unwrap();
    for text in [&wide, &nested, &array] {
        let line = Lines::new(text.as_bytes()).next().unwrap();
        let a = top.validate(&line).unwrap();
        let b = full.validate(&line).unwrap();
        for path in [
            "k0",
            "k5999",
            "o.k0",
            "o.k5999",
            "deep.a.0.b.2.c",
            "0",
            "5999",
            "type",
        ] {
            assert_eq!(
                a.get_path(path).and_then(|v| v.raw()),
                b.get_path(path).and_then(|v| v.raw()),
                "{path}"
            );
        }
        assert_eq!(a.len(), b.len());
    }
    let line = Lines::new(wide.as_bytes()).next().unwrap();
    let v = top.validate(&line).unwrap();
    assert_eq!(v.get("k5999").and_then(|v| v.as_u64()), Some(5999));
    assert!(v.get_path("deep.a.0.b.2.c").unwrap().str_eq("d"));
    // The root, its 6,002 members, and `deep`'s second node.
    assert_eq!(top.index().len(), 2 + 6002 + 1);
}

#[test]
fn truncated_lines_fail_as_truncated_and_never_index() {
    let full = br#"{"type":"assistant","message":{"content":[{"type":"text","text":"a\"b\u00e9 \u2028"}],"usage":{"output_tokens":12}},"s":"caf\xc3\xa9"}"#;
    let mut sc = Scanner::new();
    for cut in 0..full.len() {
        let line = Line {
            bytes: &full[..cut],
            number: 1,
            offset: 0,
            terminated: false,
        };
        let err = sc.validate(&line).expect_err("a cut line is not JSON");
        assert_eq!(err.kind(), ErrorKind::Truncated, "cut at {cut}");
        assert_eq!(
            check_index_value(&full[..cut], serde_default),
            ValueVerdict::BothReject
        );
    }
}

// ---------------------------------------------------------------------------
// Random JSON

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9 ]{0,8}",
        1 => Just(r"\n".to_owned()),
        1 => Just(r#"\""#.to_owned()),
        1 => Just(r"\\".to_owned()),
        1 => Just(r"\/".to_owned()),
        1 => Just(r"\b\f\r\t".to_owned()),
        1 => Just(r"\u00e9\u4e2d".to_owned()),
        1 => Just("\u{2028}".to_owned()),
        1 => Just("\u{2029}".to_owned()),
        1 => Just("\u{85}".to_owned()),
        1 => Just(r"\u2028\u2029\u0085".to_owned()),
        1 => Just(r"\ud83d\ude00".to_owned()),
        1 => Just(r"\ud83d".to_owned()),
        1 => Just(r"\udc00".to_owned()),
        1 => Just("é😀中\u{7f}".to_owned()),
        1 => "[\\PC]{0,4}".prop_map(|s| s.replace(['"', '\\'], "")),
    ]
}

fn string_lit() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..5).prop_map(|p| format!("\"{}\"", p.concat()))
}

fn key_lit() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[abt]{0,2}".prop_map(|k| format!("\"{k}\"")),
        1 => Just(r#""type""#.to_owned()),
        1 => Just(r#""t\u0079pe""#.to_owned()),
        1 => Just(r#""0""#.to_owned()),
        1 => string_lit(),
    ]
}

fn number_lit() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        (0u32..1000).prop_map(|n| format!("{n}.{n}")),
        prop::sample::select(vec![
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1e2",
            "1E+2",
            "2e-3",
            "1e400",
            "-1e400",
            "18446744073709551616",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "1e-400",
        ])
        .prop_map(str::to_owned),
    ]
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "\t", " \r\n "])
}

fn json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        number_lit(),
        string_lit(),
    ];
    leaf.prop_recursive(6, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..6).prop_map(|es| {
                let items: Vec<String> = es
                    .into_iter()
                    .map(|(a, v, b)| format!("{a}{v}{b}"))
                    .collect();
                format!("[{}]", items.join(","))
            }),
            prop::collection::vec((key_lit(), ws(), inner, ws()), 0..6).prop_map(|es| {
                let items: Vec<String> = es
                    .into_iter()
                    .map(|(k, a, v, b)| format!("{k}{a}:{b}{v}"))
                    .collect();
                format!("{{{}}}", items.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_json_reads_as_serde_json_reads_it(doc in json(), pad in ws()) {
        let line = format!("{pad}{doc}{pad}");
        let v = check_index_value(line.as_bytes(), serde_default);
        prop_assert!(matches!(v, ValueVerdict::Read { .. }), "{line:?}: {v:?}");
    }

    #[test]
    fn random_objects_read_as_events_too(
        members in prop::collection::vec((key_lit(), json()), 0..6),
        ty in string_lit(),
    ) {
        let body: Vec<String> = members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        let line = format!("{{\"type\":{ty}{}{}}}", if body.is_empty() { "" } else { "," }, body.join(","));
        let v = check_index_value(line.as_bytes(), serde_default);
        prop_assert!(matches!(v, ValueVerdict::Read { .. }), "{line:?}: {v:?}");
    }

    #[test]
    fn truncated_random_json_is_truncated(doc in json(), cut in any::<prop::sample::Index>()) {
        let b = doc.as_bytes();
        let at = cut.index(b.len().max(1));
        let prefix = &b[..at.min(b.len())];
        // A prefix is judged like any line (a number cut short is still a
        // number); one that is not JSON is `truncated` when unterminated.
        let verdict = check_index_value(prefix, serde_default);
        let mut sc = Scanner::new();
        let line = Line { bytes: prefix, number: 1, offset: 0, terminated: false };
        match sc.validate(&line) {
            Ok(_) => prop_assert!(matches!(verdict, ValueVerdict::Read { .. }), "{:?}", verdict),
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::Truncated);
                prop_assert!(oracle_read(prefix, serde_default).is_err());
            }
        }
    }
}
