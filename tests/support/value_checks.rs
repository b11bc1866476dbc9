//! The lazy value over the structural index against serde_json's reading of
//! a line: every value, every key, every path, and `get_many` over all of
//! them at once; the tape and the trusting backends behind the same type
//! against the same oracle.
//!
//! Compiled into the fuzz crate (target `index_value`) and the test
//! binaries (`tests/json_value.rs`, `tests/regressions.rs`), next to
//! `checks.rs`, whose oracle it uses: include both at the crate root.
#![allow(dead_code)]

use crate::checks::{J, OracleParse, close, json_depth, line_at, oracle_prepass};
use cctape::ErrorKind;
use cctape::framing::Line;
use cctape::json::tape::Parser;
use cctape::json::{IndexDepth, MAX_DEPTH, Number, Paths, Scanner, Value, ValueKind};

/// At most this many paths of one line are followed one by one (and all of
/// them at once with `get_many`), so that a line of a million values stays
/// quick under the unoptimized test build (the real captures have at most
/// 4,812 a line: all of them are followed).
pub const MAX_PATHS: usize = 5000;

/// What one line showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueVerdict {
    /// Both read it; `paths` paths were followed.
    Read {
        /// Paths followed.
        paths: usize,
    },
    /// Both reject it.
    BothReject,
    /// Too deep for the oracle (and cctape rejected it, or it is within
    /// cctape's limit).
    Skipped,
}

/// serde_json's reading of `line` with the documented differences applied
/// first (a lone surrogate escape reads as U+FFFD, numbers beyond f64 keep
/// their text): `Err(None)` when too deep for the oracle.
pub fn oracle_read(line: &[u8], oracle: OracleParse) -> Result<J, Option<String>> {
    match oracle_prepass(line) {
        Some(fixed) => oracle(&fixed),
        None => oracle(line),
    }
}

/// The value over the index of `line` against the oracle, and, for objects,
/// the tape and trusting backends against it too. Panics on a difference.
pub fn check_index_value(line: &[u8], oracle: OracleParse) -> ValueVerdict {
    READERS.with_borrow_mut(|r| check_with(r, line, oracle))
}

/// The scanners and the parser, kept from line to line (as their users
/// keep them; a fresh simd-json parser a line would be most of the time).
pub struct Readers {
    index: Scanner,
    /// Indexing the top level only ([`IndexDepth::TopLevel`]).
    top: Scanner,
    other: Scanner,
    parser: Parser,
}

thread_local! {
    static READERS: std::cell::RefCell<Readers> = std::cell::RefCell::new(Readers {
        index: Scanner::new(),
        top: top_level_scanner(),
        other: Scanner::new(),
        parser: Parser::new(),
    });
}

fn check_with(r: &mut Readers, line: &[u8], oracle: OracleParse) -> ValueVerdict {
    let l = line_at(line, true);
    let Readers {
        index,
        top,
        other,
        parser,
    } = r;
    let got = index.validate(&l);
    check_top_level(
        top,
        &l,
        got.as_ref().map(|_| ()).map_err(|e| e.kind()),
        oracle,
    );
    let want = oracle_read(line, oracle);
    match (got, want) {
        (Ok(v), Ok(j)) => {
            same_value(v, &j, "");
            let paths = check_paths(v, &j);
            if matches!(j, J::Obj(_)) {
                check_event_scan(other, &l, &j);
                check_tape(parser, &l, &j);
                check_trusting(other, &l, &j);
            }
            ValueVerdict::Read { paths }
        }
        (Err(e), Err(None)) => {
            let _ = e;
            ValueVerdict::Skipped
        }
        (Ok(v), Err(None)) => {
            assert!(
                json_depth(line) <= MAX_DEPTH,
                "cctape indexed a line nested past its limit: {:?}",
                v.kind()
            );
            ValueVerdict::Skipped
        }
        (Err(_), Err(Some(_))) => ValueVerdict::BothReject,
        (Err(e), Ok(j)) => {
            assert!(
                e.kind() == ErrorKind::TooDeep && json_depth(line) > MAX_DEPTH,
                "cctape rejects ({e}) what serde_json reads as {}: {}",
                brief(&j),
                show(line)
            );
            ValueVerdict::Skipped
        }
        (Ok(v), Err(Some(e))) => {
            panic!(
                "cctape indexes ({:?}) what serde_json rejects ({e}): {}",
                v.kind(),
                show(line)
            )
        }
    }
}

fn top_level_scanner() -> Scanner {
    let mut s = Scanner::new();
    s.set_index_depth(IndexDepth::TopLevel);
    s
}

/// The walk that indexes the top level only accepts and rejects exactly
/// what the full walk does, with the same kind of error, and its value
/// (containers below the top level read from their bytes) reads what the
/// full index reads.
fn check_top_level(
    top: &mut Scanner,
    l: &Line<'_>,
    full: Result<(), ErrorKind>,
    oracle: OracleParse,
) {
    let got = top.validate(l);
    assert_eq!(
        got.as_ref().map(|_| ()).map_err(|e| e.kind()),
        full,
        "top-level indexing and full indexing disagree on {}",
        show(l.bytes)
    );
    if let Ok(v) = got
        && let Ok(j) = oracle_read(l.bytes, oracle)
    {
        same_value(v, &j, "");
        check_paths(v, &j);
    }
}

/// The event scan's value (the same index, written by `scan`) reads what
/// the oracle reads, on every line with a string `type`.
fn check_event_scan(scanner: &mut Scanner, l: &Line<'_>, j: &J) {
    match scanner.scan(l) {
        Ok(s) => {
            let v = s.value();
            same_value(v, j, "");
            assert_eq!(s.index_len(), v.len(), "top-level members");
        }
        Err(e) => assert!(
            matches!(e.kind(), ErrorKind::MissingType | ErrorKind::DuplicateKey),
            "the event scan rejects ({e}) a line the index reads"
        ),
    }
}

/// The tape behind the same type reads what the oracle reads.
fn check_tape(parser: &mut Parser, l: &Line<'_>, j: &J) {
    match parser.parse(l) {
        Ok(doc) => {
            let v = doc.value();
            same_value(v, j, "");
            check_paths(v, j);
        }
        // The tape's own limits (simd-json rejects some lines JSON allows
        // that the index reads, such as numbers underflowing f64): the index
        // is the default, and the tape path is checked against the oracle
        // elsewhere (tests/differential.rs).
        Err(e) => {
            let _ = e;
        }
    }
}

/// The trusting scan, on a line that is valid, reads what the oracle reads.
fn check_trusting(scanner: &mut Scanner, l: &Line<'_>, j: &J) {
    let has_type = matches!(j.get("type"), Some(J::Str(_)));
    match scanner.scan_trusting(l) {
        Ok(s) => {
            let v = s.value();
            same_value(v, j, "");
            check_paths(v, j);
        }
        Err(e) => assert!(!has_type, "trusting scan failed on a valid event: {e}"),
    }
}

fn brief(j: &J) -> String {
    let s = format!("{j:?}");
    s.chars().take(200).collect()
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    s.chars().take(300).collect()
}

/// `v` reads as `j` all the way down.
pub fn same_value(v: Value<'_>, j: &J, at: &str) {
    same_shallow(v, j, at);
    match j {
        J::Arr(a) => {
            let mut n = 0;
            for (i, (e, je)) in v.elements().zip(a).enumerate() {
                same_value(e, je, &format!("{at}[{i}]"));
                n += 1;
            }
            assert_eq!(n, a.len(), "elements at {at}");
            assert!(v.index(a.len()).is_none(), "index past the end at {at}");
            if let Some(last) = a.len().checked_sub(1) {
                same_shallow(v.index(last).expect("last element"), &a[last], at);
            }
        }
        J::Obj(es) => {
            let mut n = 0;
            for ((k, e), (jk, je)) in v.entries().zip(es) {
                assert_eq!(k, jk.as_str(), "key at {at}");
                same_value(e, je, &format!("{at}.{jk}"));
                n += 1;
            }
            assert_eq!(n, es.len(), "entries at {at}");
            // `get` finds the first occurrence of each key.
            for (jk, _) in es {
                let first = j.get(jk).expect("a key of the object");
                let got = v.get(jk).unwrap_or_else(|| panic!("get({jk:?}) at {at}"));
                same_shallow(got, first, &format!("{at}.{jk}"));
            }
            assert!(v.get("\u{0}not a key").is_none());
        }
        _ => {
            assert_eq!(v.entries().count(), 0, "entries of a scalar at {at}");
            assert_eq!(v.elements().count(), 0, "elements of a scalar at {at}");
            assert!(v.get("type").is_none() && v.index(0).is_none());
        }
    }
}

/// `v` is `j` at its own level: kind, scalar value, length.
pub fn same_shallow(v: Value<'_>, j: &J, at: &str) {
    let kind = match j {
        J::Null => ValueKind::Null,
        J::Bool(_) => ValueKind::Bool,
        J::U64(_) | J::I64(_) | J::F64(_) | J::Big(_) => ValueKind::Number,
        J::Str(_) => ValueKind::String,
        J::Arr(_) => ValueKind::Array,
        J::Obj(_) => ValueKind::Object,
    };
    assert_eq!(v.kind(), kind, "kind at {at}");
    assert_eq!(v.is_null(), kind == ValueKind::Null, "is_null at {at}");
    match j {
        J::Bool(b) => assert_eq!(v.as_bool(), Some(*b), "bool at {at}"),
        J::U64(n) => {
            assert_eq!(v.number(), Some(Number::U64(*n)), "number at {at}");
            assert_eq!(v.as_u64(), Some(*n), "as_u64 at {at}");
            assert_eq!(v.as_i64(), i64::try_from(*n).ok(), "as_i64 at {at}");
        }
        J::I64(n) => {
            assert_eq!(v.number(), Some(Number::I64(*n)), "number at {at}");
            assert_eq!(v.as_i64(), Some(*n), "as_i64 at {at}");
            assert_eq!(v.as_u64(), None, "as_u64 at {at}");
        }
        J::F64(f) => {
            // serde_json reads an integer beyond u64 and i64 as f64; cctape
            // keeps its text.
            match v.number() {
                Some(Number::F64(g)) => assert!(close(*f, g), "{f} != {g} at {at}"),
                Some(Number::Big(t)) => {
                    assert!(
                        !t.contains(['.', 'e', 'E']),
                        "a big number {t} that serde_json reads as {f} at {at}"
                    );
                    assert!(close(*f, t.parse().expect("a number")), "{t} at {at}");
                }
                other => panic!("{other:?} for {f} at {at}"),
            }
            let g = v.as_f64().expect("as_f64 of a number");
            assert!(close(*f, g), "as_f64 {g} for {f} at {at}");
        }
        J::Big(t) => {
            assert_eq!(v.number(), Some(Number::Big(t)), "big number at {at}");
            assert_eq!(v.as_f64(), t.parse().ok(), "as_f64 of {t} at {at}");
        }
        J::Str(s) => {
            assert_eq!(v.as_str(), Some(s.as_str()), "string at {at}");
            assert!(v.str_eq(s), "str_eq at {at}");
            let raw = v.as_raw_str().expect("a string");
            let mut buf = String::new();
            assert_eq!(raw.to_str_in(&mut buf), s, "to_str_in at {at}");
            assert_eq!(raw.to_cow(), s.as_str(), "to_cow at {at}");
            if !raw.has_escapes() {
                assert_eq!(raw.as_str(), Some(s.as_str()), "unescaped string at {at}");
            }
        }
        J::Arr(a) => assert_eq!(v.len(), a.len(), "len at {at}"),
        J::Obj(es) => assert_eq!(v.len(), es.len(), "len at {at}"),
        J::Null => {}
    }
    if kind != ValueKind::String {
        assert!(
            v.as_str().is_none() && v.as_raw_str().is_none(),
            "as_str at {at}"
        );
    }
    if kind != ValueKind::Number {
        assert!(
            v.number().is_none() && v.as_f64().is_none(),
            "number at {at}"
        );
    }
    if kind != ValueKind::Bool {
        assert!(v.as_bool().is_none(), "as_bool at {at}");
    }
    // The raw bytes, where the backend keeps them, are a JSON text of the
    // same value (checked on small values: every level of a big one would
    // read it again).
    if let Some(raw) = v.raw().filter(|r| r.len() <= 256) {
        let j2 = oracle_read(raw, crate::checks::serde_default);
        if let Ok(j2) = j2 {
            assert!(same_json_deep(&j2, j), "raw bytes at {at} read differently");
        }
    }
}

fn same_json_deep(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::F64(x), J::F64(y)) => close(*x, *y),
        (J::Arr(x), J::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json_deep(p, q))
        }
        (J::Obj(x), J::Obj(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kp, p), (kq, q))| kp == kq && same_json_deep(p, q))
        }
        _ => a == b,
    }
}

/// Every dotted path of `j` that a dotted path can name (no key holding a
/// dot; the first occurrence of a duplicate key), with its value, up to
/// `max`.
pub fn paths_of(j: &J, max: usize) -> Vec<(String, &J)> {
    let mut out = vec![(String::new(), j)];
    let mut i = 0;
    while i < out.len() && out.len() < max {
        let (prefix, v) = (out[i].0.clone(), out[i].1);
        let join = |k: &str| {
            if prefix.is_empty() {
                k.to_owned()
            } else {
                format!("{prefix}.{k}")
            }
        };
        match v {
            J::Obj(es) => {
                // The first occurrence of each key; a key holding a dot
                // (or empty) cannot be named by a dotted path.
                let mut seen: Vec<&str> = Vec::new();
                for (k, first) in es {
                    if k.contains('.') || k.is_empty() || seen.contains(&k.as_str()) {
                        continue;
                    }
                    seen.push(k);
                    out.push((join(k), first));
                }
            }
            J::Arr(a) => {
                for (n, e) in a.iter().enumerate() {
                    out.push((join(&n.to_string()), e));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.truncate(max);
    out
}

/// Each path through `get_path` and `pointer`, then all of them at once
/// through `get_many`: the same values. Returns how many paths.
pub fn check_paths(v: Value<'_>, j: &J) -> usize {
    let paths = paths_of(j, MAX_PATHS);
    let mut one_by_one = Vec::with_capacity(paths.len());
    for (p, want) in &paths {
        let got = v
            .get_path(p)
            .unwrap_or_else(|| panic!("get_path({p:?}) found nothing"));
        same_shallow(got, want, p);
        if !p.is_empty() {
            let steps: Vec<&str> = p.split('.').collect();
            let by_steps = v.pointer(&steps).expect("pointer");
            assert_eq!(by_steps.span(), got.span(), "pointer({p:?})");
        }
        one_by_one.push(got);
    }
    // A path that is not there, below every path that is.
    let set = Paths::new(
        paths
            .iter()
            .map(|(p, _)| p.as_str())
            .chain(["\u{0}missing", "0.\u{0}missing"]),
    );
    let mut out = vec![None; set.len()];
    v.get_many(&set, &mut out);
    for (k, (p, want)) in paths.iter().enumerate() {
        let got = out[k].unwrap_or_else(|| panic!("get_many missed {p:?}"));
        same_shallow(got, want, p);
        assert_eq!(got.span(), one_by_one[k].span(), "get_many({p:?})");
    }
    assert!(out[paths.len()].is_none() && out[paths.len() + 1].is_none());
    paths.len()
}

/// Every backend this CPU runs writes the same index: the same decision,
/// error kind and column, and, on a line that reads, the same value at every
/// node (kinds and spans compared in document order).
pub fn check_backends_agree(line: &[u8]) {
    use cctape::json::Backend;
    /// A value's kind and span, or a key's bytes (kind `String`, no span).
    type Seen = (ValueKind, Option<std::ops::Range<usize>>, Vec<u8>);
    fn spans(v: Value<'_>, out: &mut Vec<Seen>) {
        out.push((v.kind(), v.span(), Vec::new()));
        for (k, e) in v.entries() {
            out.push((ValueKind::String, None, k.as_bytes().to_vec()));
            spans(e, out);
        }
        for e in v.elements() {
            spans(e, out);
        }
    }
    for terminated in [true, false] {
        let l = line_at(line, terminated);
        let mut first: Option<Result<Vec<_>, (ErrorKind, Option<u64>)>> = None;
        for backend in Backend::available() {
            let mut sc = Scanner::with_backend(backend).expect("an available backend");
            let got = match sc.validate(&l) {
                Ok(v) => {
                    let mut out = Vec::new();
                    spans(v, &mut out);
                    Ok(out)
                }
                Err(e) => Err((e.kind(), e.position().column)),
            };
            match &first {
                None => first = Some(got),
                Some(want) => {
                    assert_eq!(&got, want, "backend {} on {}", backend.name(), show(line))
                }
            }
        }
    }
}
