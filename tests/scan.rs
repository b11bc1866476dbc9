//! The scanner against the tape path: same accept/reject, same error kind,
//! same EventKind and hot fields, on generated lines and on every real file.

use cctape::event::Event;
use cctape::framing::{Line, Lines};
use cctape::json::{Backend, Scanned, Scanner};
use cctape::{ErrorKind, EventKind, Field};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Everything compared between the two paths, as owned values.
#[derive(Debug, PartialEq)]
struct Facts {
    kind: EventKind,
    ty: String,
    subtype: Option<String>,
    session_id: Option<String>,
    uuid: Option<String>,
    parent: Field<String>,
    message_id: Option<String>,
    model: Option<String>,
    usage: Option<cctape::TokenCounts>,
    block_type: Option<String>,
    tool_use_id: Option<String>,
    tool_name: Option<String>,
    tool_result_id: Option<String>,
    tool_result_is_error: Option<bool>,
    is_error: Option<bool>,
    num_turns: Option<u64>,
    duration_ms: Option<u64>,
    total_cost_usd: Option<u64>,
}

fn facts_of_event(e: &Event<'_>) -> Facts {
    let o = |x: Option<&str>| x.map(str::to_owned);
    Facts {
        kind: e.kind(),
        ty: e.raw_type().to_owned(),
        subtype: o(e.raw_subtype()),
        session_id: o(e.session_id()),
        uuid: o(e.uuid()),
        parent: e.parent_tool_use_id().map(str::to_owned),
        message_id: o(e.message_id()),
        model: o(e.model()),
        usage: e.usage(),
        block_type: o(e.content_block_type()),
        tool_use_id: o(e.tool_use_id()),
        tool_name: o(e.tool_name()),
        tool_result_id: o(e.tool_result_id()),
        tool_result_is_error: e.tool_result_is_error(),
        is_error: e.is_error(),
        num_turns: e.num_turns(),
        duration_ms: e.duration_ms(),
        total_cost_usd: e.total_cost_usd().map(f64::to_bits),
    }
}

/// A scanned line's facts: its kind, `type` and `subtype` as the scan
/// found them, every other field through the line's event.
fn facts_of_scan(e: &Scanned<'_>) -> Facts {
    Facts {
        kind: e.kind(),
        ty: e.raw_type().to_owned(),
        subtype: e.raw_subtype().map(str::to_owned),
        ..facts_of_event(&e.event())
    }
}

#[path = "support/checks.rs"]
mod checks;

/// The tape's reading (the opt-in backend, the reference), through the
/// event accessors over the tape.
fn tape(line: &Line<'_>) -> Result<Facts, ErrorKind> {
    let mut p = cctape::json::tape::Parser::new();
    checks::tape_event(&mut p, line, facts_of_event).map_err(|e| e.kind())
}

fn scanned(sc: &mut Scanner, line: &Line<'_>) -> Result<Facts, ErrorKind> {
    sc.scan(line)
        .map(|e| facts_of_scan(&e))
        .map_err(|e| e.kind())
}

/// Compare the two paths on one line with every backend; return the tape's
/// answer.
fn check_line(line: &Line<'_>) -> Result<Facts, ErrorKind> {
    let want = tape(line);
    for b in Backend::available() {
        let mut sc = Scanner::with_backend(b).unwrap();
        let got = scanned(&mut sc, line);
        assert_eq!(
            got,
            want,
            "backend {} line {:?}",
            b.name(),
            String::from_utf8_lossy(line.bytes)
        );
    }
    want
}

fn check_bytes(b: &[u8], terminated: bool) -> Result<Facts, ErrorKind> {
    check_line(&Line {
        bytes: b,
        number: 1,
        offset: 0,
        terminated,
    })
}

fn realworld_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if d.is_dir() {
        return Some(d);
    }
    let alt = Path::new("/work/shared/realworld");
    alt.is_dir().then(|| alt.to_path_buf())
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn every_realworld_line_agrees_with_the_tape() {
    let Some(dir) = realworld_dir() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "../shared/realworld is missing and CI is set"
        );
        println!("skipped: ../shared/realworld is missing");
        return;
    };
    let mut all = Vec::new();
    files(&dir, &mut all);
    all.sort();
    let (mut lines, mut ok, mut errs) = (0, 0, 0);
    for f in &all {
        let bytes = std::fs::read(f).unwrap();
        for line in Lines::new(&bytes) {
            if line.is_blank() {
                continue;
            }
            lines += 1;
            match check_line(&line) {
                Ok(_) => ok += 1,
                Err(_) => errs += 1,
            }
        }
    }
    println!(
        "{} files, {lines} lines: {ok} events, {errs} errors",
        all.len()
    );
    assert!(lines > 1000 && ok > 1000);
}

#[test]
fn hand_picked_edges() {
    let cases: &[&[u8]] = &[
        br#"{"type":"user"}"#,
        br#" {"type":"user"} "#,
        b"{\"type\":\"user\"}\r",
        br#"{"type":"user"}x"#,
        br#"{"type":"us\u0065r"}"#,
        br#"{"typ\u0065":"user"}"#,
        br#"{"type":"user","type":"user"}"#,
        br#"{"type":"user","type":"us\u0065r"}"#,
        br#"{"type":"user","type":"assistant"}"#,
        br#"{"type":1,"type":1.0}"#,
        br#"{"type":1,"type":2}"#,
        br#"{"type":null,"type":null}"#,
        br#"{"type":{},"type":{}}"#,
        br#"{"type":"system","subtype":"init","subtype":"init"}"#,
        br#"{"type":"system","subtype":"\ud800","subtype":"\udc00"}"#,
        br#"{"type":"x","a":"\ud83d"}"#,
        br#"{"type":"x","a":"\udc00\ud800\ud800\udc00"}"#,
        br#"{"type":"x","a":"\uZZZZ"}"#,
        br#"{"type":"x","a":"\u12"}"#,
        br#"{"type":"x","a":"\x"}"#,
        br#"{"type":"x","a":18446744073709551616}"#,
        br#"{"type":"x","a":1e400,"b":-1e400,"c":1e-400}"#,
        br#"{"type":"x","a":-99999999999999999999.5e99999}"#,
        br#"{"type":"x","a":01}"#,
        br#"{"type":"x","a":-}"#,
        br#"{"type":"x","a":1.}"#,
        br#"{"type":"x","a":1e}"#,
        br#"{"type":"x","a":-0,"b":0.0e0,"c":1E+2}"#,
        br#"{"type":"x","a":tru}"#,
        br#"{"type":"x","a":truex}"#,
        br#"{"type":"x","a":[1,2,]}"#,
        br#"{"type":"x",}"#,
        br#"{"type":"x" "a":1}"#,
        b"{\"type\":\"x\",\"a\":\"\x01\"}",
        b"{\"type\":\"x\",\"a\":\"\xff\"}",
        b"{\"type\":\"x\",\"a\":\"\xff\x01\"}",
        b"{\"type\":\"x\",\"a\":\"\xff\"}\x01\"",
        b"{\"type\":\"x\",\"a\":\"\xc3\xa9\"}",
        b"{\"type\":\"x\"}\xc3\xa9",
        b"{\"type\":\"x\"}\xff",
        b"",
        b"   ",
        b"[1,2]",
        b"\"str\"",
        b"123",
        b"[1,2",
        b"{\"type\":\"x\",\"a\":\"abc",
        b"{\"type\":\"x\"",
        br#"{"foo":1}"#,
        br#"{"type":7}"#,
        br#"{"a":"\\"}"#,
        br#"{"a":"\\\""}"#,
    ];
    for c in cases {
        for term in [true, false] {
            let _ = check_bytes(c, term);
        }
    }
    let deep_ok = format!(
        "{{\"type\":\"x\",\"a\":{}{}}}",
        "[".repeat(1023),
        "]".repeat(1023)
    );
    assert!(check_bytes(deep_ok.as_bytes(), true).is_ok());
    let deep = format!(
        "{{\"type\":\"x\",\"a\":{}{}}}",
        "[".repeat(1024),
        "]".repeat(1024)
    );
    assert_eq!(check_bytes(deep.as_bytes(), true), Err(ErrorKind::TooDeep));
    let deep_bad = format!("{{\"a\":{}\"\x01\"", "[".repeat(2000));
    let _ = check_bytes(deep_bad.as_bytes(), true);
    let deep_utf8 = format!("{{\"a\":{}\"\u{e9}\"\x7f\u{1}", "[".repeat(2000));
    let _ = check_bytes(deep_utf8.as_bytes(), true);
}

// ---------------------------------------------------------------------------
// Generated lines
// ---------------------------------------------------------------------------

/// String content pieces chosen to hit the edges: escapes of every kind,
/// surrogates (paired, lone, reversed), backslash runs, multibyte UTF-8,
/// control characters (invalid), and bad escapes.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z ]{0,70}",
        2 => (1usize..9).prop_map(|n| "\\".repeat(2 * n)),
        1 => Just("\\n".to_owned()),
        1 => Just("\\\"".to_owned()),
        1 => Just("\\/\\b\\f\\r\\t".to_owned()),
        1 => "\\\\u[0-9a-fA-F]{4}",
        1 => Just("\\ud83d\\ude00".to_owned()),
        1 => Just("\\ud83d".to_owned()),
        1 => Just("\\ude00".to_owned()),
        1 => Just("\\ude00\\ud83d".to_owned()),
        1 => Just("\\ud800\\u0041".to_owned()),
        1 => Just("é日本😀".to_owned()),
        1 => "[\\u{80}-\\u{10FFFF}]{1,4}",
    ]
}

fn string_lit() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|v| format!("\"{}\"", v.concat()))
}

fn number_lit() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?(0|[1-9][0-9]{0,3})",
        "-?(0|[1-9][0-9]{0,2})\\.[0-9]{1,3}([eE][+-]?[0-9]{1,3})?",
        "-?[1-9][0-9]{18,25}",
        "-?[1-9]e[+-]?[3-4][0-9]{2}",
        Just("18446744073709551615".to_owned()),
        Just("-9223372036854775808".to_owned()),
        Just("-9223372036854775809".to_owned()),
    ]
}

fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => string_lit(),
        2 => number_lit(),
        1 => Just("true".to_owned()),
        1 => Just("false".to_owned()),
        1 => Just("null".to_owned()),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((string_lit(), inner), 0..5).prop_map(|v| {
                let parts: Vec<String> = v.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
                format!("{{{}}}", parts.join(","))
            }),
        ]
    })
}

fn type_entry() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "\"type\":\"assistant\"", "\"type\":\"user\"", "\"type\":\"result\"",
            "\"type\":\"system\"", "\"type\":\"stream_event\"", "\"type\":\"us\\u0065r\"",
            "\"typ\\u0065\":\"result\"", "\"type\":7", "\"type\":null",
        ]).prop_map(str::to_owned),
        1 => value().prop_map(|v| format!("\"type\":{v}")),
    ]
}

fn subtype_entry() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "\"subtype\":\"init\"",
        "\"subtype\":\"success\"",
        "\"subtype\":\"error_max_turns\"",
        "\"subtype\":\"x\"",
        "\"subtype\":1",
        "\"subtype\":\"\\u0069nit\"",
    ])
    .prop_map(str::to_owned)
}

/// A top-level object: a padding string to move everything modulo 64,
/// `type`/`subtype` (sometimes twice, sometimes missing), hot fields and
/// random entries, in random order, with random whitespace.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let hot = prop::sample::select(vec![
        r#""session_id":"s1""#,
        r#""uuid":"u\u0031""#,
        r#""parent_tool_use_id":null"#,
        r#""parent_tool_use_id":"toolu_1""#,
        r#""message":{"id":"msg_1","model":"m","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"ls \"x\""}}],"usage":{"input_tokens":3,"output_tokens":18446744073709551616,"cache_read_input_tokens":-0}}"#,
        r#""message":{"content":[{"tool_use_id":"toolu_9","type":"tool_result","content":"a\nb\\c","is_error":true}]}"#,
        r#""message":{"content":"plain","usage":[]}"#,
        r#""is_error":false"#,
        r#""num_turns":3"#,
        r#""duration_ms":1.5"#,
        r#""total_cost_usd":0.25"#,
        r#""cost_usd":1e400"#,
    ])
    .prop_map(str::to_owned);
    (
        0usize..140,
        prop::option::of(type_entry()),
        prop::option::of(type_entry()),
        prop::option::of(subtype_entry()),
        prop::collection::vec(hot, 0..5),
        prop::collection::vec((string_lit(), value()), 0..4),
        any::<u64>(),
    )
        .prop_map(|(pad, t1, t2, st, hot, rest, seed)| {
            let mut entries = vec![format!("\"pad\":\"{}\"", "p".repeat(pad))];
            entries.extend(t1);
            entries.extend(st);
            entries.extend(hot);
            entries.extend(rest.into_iter().map(|(k, v)| format!("{k}:{v}")));
            entries.extend(t2);
            // A cheap deterministic shuffle (the pad stays first).
            let mut s = seed;
            for i in (2..entries.len()).rev() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let j = 1 + (s >> 33) as usize % i;
                entries.swap(i, j);
            }
            let ws = if seed % 5 == 0 { " " } else { "" };
            format!("{ws}{{{}}}{ws}", entries.join(&format!(",{ws}"))).into_bytes()
        })
}

/// Bytes that break things when put anywhere.
const NASTY: &[u8] = b"\"\\{}[],: \t\r\x00\x01\x1f\x7f\xc3\xa9\xff\xed\xa0\x80ue.-+0159aftn/";

fn mutated() -> impl Strategy<Value = Vec<u8>> {
    (
        line(),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0u8..3,
                prop::sample::select(NASTY.to_vec()),
            ),
            0..3,
        ),
    )
        .prop_map(|(mut l, muts)| {
            for (at, op, byte) in muts {
                if l.is_empty() {
                    break;
                }
                let i = at.index(l.len());
                match op {
                    0 => l[i] = byte,
                    1 => l.insert(i, byte),
                    _ => {
                        l.remove(i);
                    }
                }
            }
            l
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn generated_lines_agree_with_the_tape(l in line(), terminated in any::<bool>()) {
        let _ = check_bytes(&l, terminated);
    }

    #[test]
    fn mutated_lines_agree_with_the_tape(l in mutated(), terminated in any::<bool>()) {
        let _ = check_bytes(&l, terminated);
    }

    #[test]
    fn escapes_at_every_position_modulo_64(
        pad in 0usize..130,
        esc in prop::sample::select(vec![
            "\\n", "\\\\", "\\\"", "\\u0041", "\\ud83d\\ude00", "\\ud83d", "\\x", "\\u00", "\\u00zz",
            "\\", "\x01", "\u{e9}", "\u{1F600}", "\u{65e5}", "\u{2028}",
        ]),
        run in 0usize..9,
        after in 0usize..70,
    ) {
        let l = format!(
            "{{\"type\":\"user\",\"s\":\"{}{}{}{}\",\"uuid\":\"x\"}}",
            "a".repeat(pad), "\\".repeat(run), esc, "b".repeat(after)
        );
        let _ = check_bytes(l.as_bytes(), true);
    }

    #[test]
    fn multibyte_utf8_split_at_block_boundaries(pad in 0usize..140, cut in 0usize..4, ch in prop::sample::select(vec!['é', '日', '😀'])) {
        let mut l = format!("{{\"type\":\"user\",\"s\":\"{}", "a".repeat(pad)).into_bytes();
        let mut buf = [0u8; 4];
        let enc = ch.encode_utf8(&mut buf).as_bytes();
        l.extend_from_slice(&enc[..cut.min(enc.len())]);
        l.extend_from_slice(b"\"}");
        let _ = check_bytes(&l, true);
        let mut whole = format!("{{\"type\":\"user\",\"s\":\"{}{ch}\"}}", "a".repeat(pad)).into_bytes();
        assert!(check_bytes(&whole, true).is_ok());
        whole.truncate(whole.len() - 2 - cut);
        let _ = check_bytes(&whole, false);
    }

    /// Valid and broken UTF-8 sequences (a lone continuation byte, a lead
    /// byte cut by the quote, a surrogate, an overlong form, 0xff) at every
    /// offset, in several strings, with ASCII before, between and after:
    /// read as the tape does, and refused exactly when the line is not
    /// UTF-8.
    #[test]
    fn broken_utf8_in_any_string_agrees_with_the_tape(
        items in prop::collection::vec((0usize..80, prop::sample::select(vec![
            &b""[..], b"\xc3\xa9", b"\xe6\x97\xa5", b"\xf0\x9f\x98\x80", b"\x80", b"\xc3",
            b"\xe6\x97", b"\xed\xa0\x80", b"\xc0\xaf", b"\xff", b"\xc3\xa9\xbf",
        ]), 0usize..80), 1..8),
    ) {
        let mut l = b"{\"type\":\"user\"".to_vec();
        for (k, (before, odd, after)) in items.iter().enumerate() {
            l.extend_from_slice(format!(",\"k{k}\":\"{}", "a".repeat(*before)).as_bytes());
            l.extend_from_slice(odd);
            l.extend_from_slice(format!("{}\"", "z".repeat(*after)).as_bytes());
        }
        l.extend_from_slice(b"}");
        let got = check_bytes(&l, true);
        let valid = std::str::from_utf8(&l).is_ok();
        prop_assert_eq!(got.is_ok(), valid, "{:?}", String::from_utf8_lossy(&l));
    }

    /// Strings of every length one after another, as keys, values and
    /// array elements: each one starts at a different offset of the 64
    /// bytes the previous one was classified with, ends inside them or past
    /// them, and sometimes holds an escape, a multibyte character or a
    /// control byte (the fast path must hand those on).
    #[test]
    fn consecutive_strings_at_every_offset_agree_with_the_tape(
        items in prop::collection::vec((0usize..90, prop::sample::select(vec![
            "", "", "", "", "\\\"", "\\\\", "\\u0041", "\\u00", "\u{e9}", "\u{1F600}", "\x01", "\\",
        ]), any::<prop::sample::Index>(), 0u8..4), 1..24),
        ws in any::<bool>(),
        terminated in any::<bool>(),
    ) {
        let sep = if ws { " " } else { "" };
        let mut parts = Vec::new();
        let mut arr = Vec::new();
        for (k, (len, odd, at, shape)) in items.into_iter().enumerate() {
            let mut body = "s".repeat(len);
            let cut = at.index(len + 1);
            body.insert_str(cut, odd);
            match shape {
                0 => parts.push(format!("\"k{k}\":{sep}\"{body}\"")),
                1 => parts.push(format!("\"{body}\":{sep}{k}")),
                2 => arr.push(format!("\"{body}\"")),
                _ => parts.push(format!("\"k{k}\":{sep}[\"{body}\",{sep}null]")),
            }
        }
        let l = format!(
            "{{\"type\":\"user\",{sep}{}{sep}\"a\":[{}]}}",
            parts.iter().map(|p| format!("{p},")).collect::<String>(),
            arr.join(",")
        );
        let _ = check_bytes(l.as_bytes(), terminated);
    }

    #[test]
    fn simd_masks_equal_scalar_masks(block in prop::collection::vec(prop::sample::select(
        b"\"\\\x00\x1f\x20\x7f\x80\xffu0a9fFgG/bnrt{}:,".to_vec()), 64)) {
        let block: [u8; 64] = block.try_into().unwrap();
        let want = cctape::json::block_masks(Backend::Scalar, &block);
        for b in Backend::available() {
            prop_assert_eq!(cctape::json::block_masks(b, &block), want, "backend {}", b.name());
        }
    }

    #[test]
    fn find_escaped_matches_a_naive_walk(blocks in prop::collection::vec(any::<u64>(), 1..4), dense in any::<bool>()) {
        let mut prev = 0u64;
        let mut naive_prev = false;
        for mut bs in blocks {
            if dense {
                bs |= bs.rotate_left(7) | bs.rotate_left(13);
            }
            let got = cctape::json::find_escaped(bs, &mut prev);
            let mut want = 0u64;
            for i in 0..64 {
                if naive_prev {
                    want |= 1 << i;
                    naive_prev = false;
                } else if bs >> i & 1 == 1 {
                    naive_prev = true;
                }
            }
            prop_assert_eq!(got, want);
            prop_assert_eq!(prev == 1, naive_prev);
        }
    }
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn trusting_mode_reads_the_same_kind_and_fields_on_good_lines() {
    let Some(dir) = realworld_dir() else {
        println!("skipped: ../shared/realworld is missing");
        return;
    };
    let mut all = Vec::new();
    files(&dir, &mut all);
    let mut sc = Scanner::new();
    let mut tr = Scanner::new();
    let mut n = 0;
    for f in &all {
        let bytes = std::fs::read(f).unwrap();
        for line in Lines::new(&bytes) {
            let Ok(want) = scanned(&mut sc, &line) else {
                continue;
            };
            let got = tr.scan_trusting(&line).map(|e| facts_of_scan(&e)).unwrap();
            // Trusting mode reads subtype only where the kind needs it.
            let mut want = want;
            if !(want.ty == "system" || want.ty == "result") {
                want.subtype = got.subtype.clone();
            }
            assert_eq!(got, want, "{}", String::from_utf8_lossy(line.bytes));
            n += 1;
        }
    }
    assert!(n > 1000);
}

#[test]
fn trusting_mode_never_panics_on_garbage() {
    let mut tr = Scanner::new();
    let samples: &[&[u8]] = &[
        b"{",
        b"{\"",
        b"{\"type",
        b"{\"type\":",
        b"{\"type\":\"",
        b"{\"a\":[1,{\"b\":\"\\",
        b"{\"type\":\"user\",\"message\":{\"content\":[{",
        b"{\"type\":\"user\",\"message\":\"\\u12",
        b"{\"type\":\"user\",\"num_turns\":-",
        b"}",
        b"\xff",
    ];
    for s in samples {
        let line = Line {
            bytes: s,
            number: 1,
            offset: 0,
            terminated: true,
        };
        if let Ok(e) = tr.scan_trusting(&line) {
            let _ = facts_of_scan(&e);
        }
    }
}

/// Found by `mutated_lines_agree_with_the_tape` in CI: an unterminated last
/// line cut inside a multi-byte character is `truncated` on the tape, and
/// must be on the scanner too; a bad byte elsewhere stays `invalid_utf8`.
#[test]
fn cut_inside_a_character_is_truncated_on_both_paths() {
    let mut cut = br#"{"type":"user","message":{"content":"plain"}}"#.to_vec();
    cut.extend_from_slice(&[0xE2, 0x80]);
    assert_eq!(check_bytes(&cut, false), Err(ErrorKind::Truncated));
    let mut inside = br#"{"type":"user","text":"caf"#.to_vec();
    inside.push(0xC3);
    assert_eq!(check_bytes(&inside, false), Err(ErrorKind::Truncated));
    let mut bad = br#"{"type":"user","text":"a"#.to_vec();
    bad.extend_from_slice(&[0xFF, b'"', b'}']);
    assert_eq!(check_bytes(&bad, false), Err(ErrorKind::InvalidUtf8));
    assert_eq!(check_bytes(&cut, true), Err(ErrorKind::InvalidUtf8));
}

/// A long line of one long string takes an index of its nodes, not of its
/// bytes: the slots made before a line needs them are capped (256 KiB of
/// nodes), so a scanner that has read a 4 MiB tool result does not keep
/// 4 MiB of index. A line that needs more nodes than that is indexed
/// whole all the same (a second walk into a growing vector), on every
/// backend and at both depths, and the lines after it read as before.
#[test]
fn long_lines_take_an_index_of_their_nodes_not_their_bytes() {
    /// The dense line's nodes: the root's two, `type`, `subtype` and the
    /// array's two, and (with every value indexed) its elements.
    fn s_nodes(depth: cctape::json::IndexDepth, n: usize) -> usize {
        match depth {
            cctape::json::IndexDepth::Full => n + 6,
            cctape::json::IndexDepth::TopLevel => 6,
        }
    }
    const CAP_BYTES: usize = 256 << 10;
    let text = "x".repeat(4 << 20);
    let sparse = format!(
        "{{\"type\":\"user\",\"session_id\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}}}"
    );
    let n = 300_000;
    let dense = format!(
        "{{\"type\":\"system\",\"subtype\":\"x\",\"a\":[{}]}}",
        vec!["7"; n].join(",")
    );
    fn line(b: &str) -> Line<'_> {
        Line {
            bytes: b.as_bytes(),
            number: 1,
            offset: 0,
            terminated: true,
        }
    }
    for b in Backend::available() {
        for depth in [
            cctape::json::IndexDepth::Full,
            cctape::json::IndexDepth::TopLevel,
        ] {
            let mut sc = Scanner::with_backend(b).unwrap();
            sc.set_index_depth(depth);
            let what = format!("backend {} {depth:?}", b.name());
            {
                let s = sc.scan(&line(&sparse)).expect("sparse line");
                assert_eq!(s.kind(), EventKind::User, "{what}");
                let got = s
                    .value()
                    .get_path("message.content")
                    .and_then(|v| v.as_str().map(str::len));
                assert_eq!(got, Some(4 << 20), "{what}");
            }
            assert!(
                sc.index().capacity() * 16 <= CAP_BYTES,
                "{what}: {} slots after a 4 MiB string",
                sc.index().capacity()
            );
            {
                let s = sc.scan(&line(&dense)).expect("dense line");
                assert_eq!(s.raw_subtype(), Some("x"), "{what}");
                let a = s.value().get("a").expect("a");
                assert_eq!(a.elements().count(), n, "{what}");
                assert_eq!(
                    a.elements().last().and_then(|v| v.as_u64()),
                    Some(7),
                    "{what}"
                );
            }
            assert_eq!(sc.index().len(), s_nodes(depth, n), "{what}");
            assert!(sc.index().capacity() >= sc.index().len(), "{what}");
            let s = sc.scan(&line(&sparse)).expect("sparse line again");
            assert_eq!(
                s.value().get("session_id").and_then(|v| v.as_str()),
                Some("s"),
                "{what}"
            );
        }
    }
    // And the kinds and hot fields agree with the tape on both lines.
    check_bytes(sparse.as_bytes(), true).expect("sparse");
    check_bytes(dense.as_bytes(), true).expect("dense");
}
