//! Framing and one line: [`Lines`] against a naive split on b'\n', and one
//! line through `parse_event`, the tape, every hot accessor and a full
//! walk of the value (part of `checks.rs`).

use cctape::event::parse_event;
use cctape::framing::{Line, Lines};
use cctape::json::{Number, Scanner, Value, ValueKind};
use cctape::{ErrorKind, Event, EventKind};

use super::{BOM, Hot, NOT_LINE_ENDS, OracleParse, differential};

// ---------------------------------------------------------------------------
// Framing

/// The naive oracle for [`Lines`]: drop a leading BOM, split on b'\n', drop
/// the empty piece after a final LF, number from 1, offsets count the BOM.
pub fn naive_lines(data: &[u8]) -> Vec<Line<'_>> {
    let (body, base) = match data.strip_prefix(BOM) {
        Some(rest) => (rest, BOM.len() as u64),
        None => (data, 0),
    };
    if body.is_empty() {
        return Vec::new();
    }
    let mut pieces: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let ends_with_lf = body.ends_with(b"\n");
    if ends_with_lf {
        pieces.pop();
    }
    let n = pieces.len();
    let mut offset = base;
    let mut out = Vec::with_capacity(n);
    for (i, p) in pieces.into_iter().enumerate() {
        out.push(Line {
            bytes: p,
            number: i as u64 + 1,
            offset,
            terminated: i + 1 < n || ends_with_lf,
        });
        offset += p.len() as u64 + 1;
    }
    out
}

/// [`Lines`] equals the naive split; no line holds an LF; the separators
/// other tools break lines at stay whole inside one line; cutting the input
/// after any LF and reading the rest with [`Lines::with_start`] changes
/// nothing.
pub fn check_framing(data: &[u8]) {
    let got: Vec<Line<'_>> = Lines::new(data).collect();
    let want = naive_lines(data);
    assert_eq!(got, want, "Lines differs from the naive split");

    for line in &got {
        assert!(!line.bytes.contains(&b'\n'), "a line holds an LF");
        let start = line.offset as usize;
        assert_eq!(&data[start..start + line.bytes.len()], line.bytes);
    }

    // Every U+2028, U+2029, U+0085, CR, VT, FF lies wholly inside one line.
    for sep in NOT_LINE_ENDS {
        for at in find_all(data, sep) {
            if at < BOM.len() && data.starts_with(BOM) {
                continue;
            }
            let idx = got.partition_point(|l| l.offset <= at as u64);
            assert!(idx > 0, "separator before the first line");
            let l = &got[idx - 1];
            let end = l.offset as usize + l.bytes.len();
            assert!(
                at + sep.len() <= end,
                "separator {sep:?} at byte {at} split across lines"
            );
        }
    }

    // Restarting after an LF keeps numbers and offsets.
    let lfs: Vec<usize> = data
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let picks = [lfs.first(), lfs.get(lfs.len() / 2), lfs.last()];
    for &lf in picks.into_iter().flatten() {
        let head: Vec<Line<'_>> = Lines::new(&data[..=lf]).collect();
        let next = head.len() as u64 + 1;
        let tail = Lines::with_start(&data[lf + 1..], next, lf as u64 + 1);
        let joined: Vec<Line<'_>> = head.into_iter().chain(tail).collect();
        assert_eq!(joined, got, "Lines::with_start after byte {lf} differs");
    }
}

fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(hay, needle).collect()
}

// ---------------------------------------------------------------------------
// One line

/// Parse `data` as one line (terminated and not), call every hot accessor,
/// walk the whole value, and compare with serde_json ([`differential`]).
pub fn check_parse_line(data: &[u8], oracle: OracleParse) {
    let mut parser = Scanner::new();
    let term = line_at(data, true);
    let cut = line_at(data, false);

    let a = parse_event(&mut parser, &term).map(|ev| touch_event(&ev));
    let b = parse_event(&mut parser, &cut).map(|ev| touch_event(&ev));
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "terminated and unterminated differ"),
        (Err(x), Err(y)) => {
            // Without its LF, a line that does not parse is `truncated` unless
            // the fault is not the missing end.
            let same = x.kind() == y.kind()
                || y.kind() == ErrorKind::Truncated
                    && matches!(x.kind(), ErrorKind::InvalidJson | ErrorKind::InvalidUtf8);
            assert!(same, "terminated {x:?} vs unterminated {y:?}");
        }
        _ => panic!("terminated {a:?} vs unterminated {b:?}"),
    }
    if let Err(e) = &a {
        assert_eq!(e.position().line, term.number);
        assert_eq!(e.position().offset, term.offset);
        if let Some(c) = e.position().column {
            assert!(c <= data.len() as u64, "column past the line");
        }
        let _ = e.to_string();
    }

    // The document under the event, walked in full even when it is not an
    // event.
    // Through the index, and through the tape (the opt-in backend) too.
    if let Ok(root) = parser.validate(&term) {
        let mut budget = 1 << 20;
        walk(root, 1, &mut budget);
        let _ = format!("{root:?}");
    }
    let mut tape = cctape::json::tape::Parser::new();
    if let Ok(doc) = tape.parse(&term) {
        let root = doc.value();
        assert_eq!(root.kind(), ValueKind::Object);
        let mut budget = 1 << 20;
        walk(root, 1, &mut budget);
        let d = depth(root);
        assert!((1..=cctape::json::MAX_DEPTH).contains(&d), "depth {d}");
        assert_eq!(doc.raw(), data);
        let _ = format!("{doc:?} {root:?}");
        let _ = doc.node_count();
    }

    differential(data, oracle);
}

/// The largest nesting depth inside `v` (a scalar is 0, `{}` 1).
fn depth(v: Value<'_>) -> usize {
    let inner = match v.kind() {
        ValueKind::Object => v.entries().map(|(_, e)| depth(e)).max(),
        ValueKind::Array => v.elements().map(depth).max(),
        _ => return 0,
    };
    1 + inner.unwrap_or(0)
}

/// The event of `line` as the tape reads it (the opt-in backend, the
/// reference the index path is held to): parsed into a tape, classified
/// from its top-level `type` and `subtype` wherever they are (a key given
/// twice with different values is `duplicate_key`), read through the same
/// accessors over the tape; `f` is given the event.
pub fn tape_event<R>(
    parser: &mut cctape::json::tape::Parser,
    line: &Line<'_>,
    f: impl FnOnce(&Event<'_>) -> R,
) -> Result<R, cctape::Error> {
    use cctape::Error;
    let doc = parser.parse(line)?;
    let root = doc.value();
    let mut ty: Option<Value<'_>> = None;
    let mut subtype: Option<Value<'_>> = None;
    for (k, v) in root.entries() {
        let slot = match k {
            "type" => &mut ty,
            "subtype" => &mut subtype,
            _ => continue,
        };
        match slot {
            None => *slot = Some(v),
            Some(prev) if tape_same_scalar(prev, &v) => {}
            Some(_) => {
                return Err(Error::new(
                    ErrorKind::DuplicateKey,
                    line.position(),
                    "top-level `type` or `subtype` given twice with different values",
                ));
            }
        }
    }
    let Some(t) = ty.and_then(|v| v.as_str()) else {
        return Err(Error::new(
            ErrorKind::MissingType,
            line.position(),
            "expected a string `type` in the object",
        ));
    };
    let kind = EventKind::from_type(t, subtype.and_then(|v| v.as_str()));
    Ok(f(&Event::from_parts(root, *line, kind)))
}

fn tape_same_scalar(a: &Value<'_>, b: &Value<'_>) -> bool {
    if a.kind() != b.kind() {
        return false;
    }
    match (a.as_str(), b.as_str()) {
        (Some(x), Some(y)) => x == y,
        (None, None) => {
            a.is_null() && b.is_null()
                || a.as_bool().is_some() && a.as_bool() == b.as_bool()
                || a.as_f64().is_some() && a.as_f64() == b.as_f64()
        }
        _ => false,
    }
}

/// A line at line 7, byte 1000 of an imaginary input.
pub fn line_at(data: &[u8], terminated: bool) -> Line<'_> {
    Line {
        bytes: data,
        number: 7,
        offset: 1000,
        terminated,
    }
}

/// Everything the hot accessors say about an event, owned.
#[derive(Debug, Clone, PartialEq)]
pub struct Touched {
    kind: EventKind,
    hot: Hot,
}

fn touch_event(ev: &Event<'_>) -> Touched {
    let hot = Hot::of_event(ev);
    let _ = ev.position();
    let _ = ev.raw();
    let _ = ev.get_path("message.content.0.type");
    let _ = ev.get_path("message.usage.output_tokens");
    let _ = format!("{ev:?}");
    assert_eq!(ev.line(), ev.position().line);
    assert_eq!(ev.offset(), ev.position().offset);
    assert_eq!(ev.subtype(), ev.raw_subtype());
    assert_eq!(
        ev.kind(),
        EventKind::from_type(ev.raw_type(), ev.raw_subtype())
    );
    if let Some(u) = ev.usage() {
        let _ = u.total();
    }
    Touched {
        kind: ev.kind(),
        hot,
    }
}

/// Visit every value below `v`, calling every reader on each.
fn walk(v: Value<'_>, depth: usize, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let kind = v.kind();
    if !matches!(kind, ValueKind::Array | ValueKind::Object) {
        let _ = format!("{v:?}");
    }
    assert!(depth <= cctape::json::MAX_DEPTH + 1);
    match kind {
        ValueKind::Null => assert!(v.is_null()),
        ValueKind::Bool => assert!(v.as_bool().is_some()),
        ValueKind::String => {
            assert!(v.as_str().is_some());
            assert!(v.number().is_none());
        }
        ValueKind::Number => {
            let n = v.number().expect("a number reads as a number");
            assert!(v.as_str().is_none());
            let f = n.to_f64();
            let _ = (n.to_u64(), n.to_i64());
            match n {
                Number::U64(x) => {
                    assert_eq!(v.as_u64(), Some(x));
                    assert_eq!(f, x as f64);
                }
                Number::I64(x) => {
                    assert!(x < 0);
                    assert_eq!(v.as_i64(), Some(x));
                    assert_eq!(v.as_u64(), None);
                }
                Number::F64(x) => assert!(x.is_finite() && v.as_f64() == Some(x)),
                Number::Big(text) => {
                    assert!(text.parse::<f64>().is_ok(), "big number text {text:?}");
                    assert_eq!(v.as_u64(), None);
                    assert_eq!(v.as_i64(), None);
                }
            }
        }
        ValueKind::Array => {
            let n = v.len();
            assert_eq!(v.elements().count(), n);
            assert_eq!(v.is_empty(), n == 0);
            for (i, e) in v.elements().enumerate() {
                if i < 4 || i + 1 == n {
                    let again = v.index(i).expect("index within len");
                    assert_eq!(again.kind(), e.kind());
                    let p = v.get_path(&i.to_string()).expect("path to an index");
                    assert_eq!(p.kind(), e.kind());
                }
                walk(e, depth + 1, budget);
            }
            assert!(v.index(n).is_none());
            assert!(v.get("x").is_none());
        }
        ValueKind::Object => {
            let n = v.len();
            assert_eq!(v.entries().count(), n);
            let mut seen: Vec<&str> = Vec::new();
            for (k, e) in v.entries() {
                let first = v.get(k).expect("a key reads back");
                if !seen.contains(&k) {
                    // The first occurrence of a key is what `get` finds.
                    assert_eq!(first.kind(), e.kind());
                    assert_eq!(first.len(), e.len());
                    seen.push(k);
                    assert!(v.pointer(&[k]).is_some());
                }
                walk(e, depth + 1, budget);
            }
            assert!(v.elements().next().is_none());
            assert!(v.index(0).is_none());
        }
    }
    let _ = (v.as_u64(), v.as_i64(), v.as_f64(), v.as_bool(), v.as_str());
}
