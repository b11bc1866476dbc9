//! Properties checked by the fuzz targets (`fuzz/`) and replayed by
//! `cargo test` (`tests/regressions.rs`, `tests/differential.rs`).
//!
//! One file, compiled into both: the fuzz crate's library includes it with
//! `#[path]`, and so do the test binaries. It depends only on `cctape`,
//! `serde_json` and `serde`, which both sides have. Every check panics on a
//! violated property, which is what libFuzzer and the test harness expect.
//!
//! - [`check_framing`]: [`Lines`] against a naive split on b'\n'.
//! - [`check_parse_line`]: one line through [`parse_event`], every hot
//!   accessor and a full walk of the [`Value`], plus [`differential`].
//! - [`check_chunked`]: the same bytes through [`SliceEvents`], a
//!   [`LineDecoder`] fed chunks of chosen sizes and an [`EventReader`] over a
//!   reader that returns short reads, with tiny buffers: the same items.
//! - [`check_truncate`]: a stream of valid events cut at any byte gives the
//!   events of its complete lines and at most one `truncated` error.
//! - [`check_views`]: one line's view visited, listed, copied and counted.
//! - [`check_run_fold`]: the run fold with and without `record_calls` and
//!   draining, and `runs_of_slice`, agree.
//! - [`check_stats_path`]: `cctape stats`'s read ahead in chunks gives the
//!   stats and runs of the one-thread read.
//! - [`check_scan_line`]: the scanner, on every backend this CPU runs,
//!   against [`parse_event`] on one line.
//! - [`check_decompress`]: any bytes behind a compressed format's magic
//!   (gzip, zstd, xz, bzip2, LZ4 and its legacy frames) read through [`Source`] to their end, an
//!   error or a cap, and never past it.
#![allow(dead_code)]

use cctape::event::parse_event;
use cctape::framing::{Line, LineDecoder, Lines};
use cctape::json::{Number, Scanner, Value, ValueKind};
use cctape::run::{RunFolder, RunSummary};
use cctape::source::{Compression, EndReport, Source, SourceKind};
use cctape::stats::{AheadLine, ReadAhead, Stats};
use cctape::views::{Answer, Census, View, Visitor as ViewVisitor};
use cctape::{Counts, ErrorKind, Event, EventKind, EventReader, Field, Position, SliceEvents};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::io::{self, Read};

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Byte sequences that other tools treat as line ends but cctape must not:
/// U+2028, U+2029, U+0085, CR, VT, FF.
pub const NOT_LINE_ENDS: [&[u8]; 6] = [
    b"\xE2\x80\xA8",
    b"\xE2\x80\xA9",
    b"\xC2\x85",
    b"\r",
    b"\x0B",
    b"\x0C",
];

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
        let t = doc.root();
        let root = Value::from(t);
        assert_eq!(root.kind(), ValueKind::Object);
        let mut budget = 1 << 20;
        walk(root, 1, &mut budget);
        assert!(t.depth() >= 1 && t.depth() <= cctape::json::MAX_DEPTH);
        assert_eq!(doc.raw(), data);
        let _ = format!("{doc:?} {root:?}");
        let _ = doc.node_count();
    }

    differential(data, oracle);
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
    let root = Value::from(doc.root());
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
    assert!(depth <= cctape::parse::MAX_DEPTH + 1);
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

// ---------------------------------------------------------------------------
// Hot fields, as cctape and as the oracle read them

/// The hot fields of an event line.
#[derive(Debug, Clone, PartialEq)]
pub struct Hot {
    /// `type`
    pub ty: String,
    /// `subtype`, when a string.
    pub subtype: Option<String>,
    /// `session_id`
    pub session_id: Option<String>,
    /// `uuid`
    pub uuid: Option<String>,
    /// `parent_tool_use_id`: missing, null or a string.
    pub parent_tool_use_id: Field<String>,
    /// `timestamp`
    pub timestamp: Option<String>,
    /// `message.id`
    pub message_id: Option<String>,
    /// `message.model`
    pub model: Option<String>,
    /// `message.usage`, the four counts.
    pub usage: Option<[u64; 4]>,
    /// `message.content[0].type`
    pub block_type: Option<String>,
    /// tool_use `id`
    pub tool_use_id: Option<String>,
    /// tool_use `name`
    pub tool_name: Option<String>,
    /// tool_result `tool_use_id`
    pub tool_result_id: Option<String>,
    /// tool_result `is_error`
    pub tool_result_is_error: Option<bool>,
    /// `is_error`
    pub is_error: Option<bool>,
    /// `num_turns`
    pub num_turns: Option<u64>,
    /// `duration_ms`
    pub duration_ms: Option<u64>,
    /// `total_cost_usd` (or `cost_usd`, `total_cost`).
    pub total_cost_usd: Option<F>,
}

/// An f64 compared within 2 ULP: serde_json's default float parser (without
/// its `float_roundtrip` feature) is off by one in the last bit on some long
/// mantissas, where simd-json rounds correctly; see
/// `float_rounding_within_ulps` in tests/differential.rs. NaN never occurs.
#[derive(Debug, Clone, Copy)]
pub struct F(pub f64);

impl PartialEq for F {
    fn eq(&self, o: &F) -> bool {
        close(self.0, o.0)
    }
}

/// True when `a` and `b` are within 2 ULP (or both the same infinity, or
/// both zero).
pub fn close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if !a.is_finite() || !b.is_finite() || a.is_sign_negative() != b.is_sign_negative() {
        return a == 0.0 && b == 0.0;
    }
    let (x, y) = (a.abs().to_bits(), b.abs().to_bits());
    x.abs_diff(y) <= 2
}

impl Hot {
    /// What cctape's accessors say.
    pub fn of_event(ev: &Event<'_>) -> Hot {
        let s = |o: Option<&str>| o.map(str::to_owned);
        Hot {
            ty: ev.raw_type().to_owned(),
            subtype: s(ev.raw_subtype()),
            session_id: s(ev.session_id()),
            uuid: s(ev.uuid()),
            parent_tool_use_id: ev.parent_tool_use_id().map(str::to_owned),
            timestamp: s(ev.timestamp()),
            message_id: s(ev.message_id()),
            model: s(ev.model()),
            usage: ev.usage().map(|u| {
                [
                    u.input_tokens,
                    u.output_tokens,
                    u.cache_read_input_tokens,
                    u.cache_creation_input_tokens,
                ]
            }),
            block_type: s(ev.content_block_type()),
            tool_use_id: s(ev.tool_use_id()),
            tool_name: s(ev.tool_name()),
            tool_result_id: s(ev.tool_result_id()),
            tool_result_is_error: ev.tool_result_is_error(),
            is_error: ev.is_error(),
            num_turns: ev.num_turns(),
            duration_ms: ev.duration_ms(),
            total_cost_usd: ev.total_cost_usd().map(F),
        }
    }

    /// What the oracle's reading of the same line says, by the reference's
    /// rules (first occurrence of a key wins, wrong JSON type reads absent).
    pub fn of_json(root: &J) -> Option<Hot> {
        let ty = root.get("type")?.as_str()?.to_owned();
        let s = |o: Option<&J>| o.and_then(J::as_str).map(str::to_owned);
        let msg = root.get("message");
        let block = msg.and_then(|m| m.get("content")).and_then(|c| c.index(0));
        let block_is = |t: &str| block.and_then(|b| b.get("type")).and_then(J::as_str) == Some(t);
        let in_block = |t: &str, k: &str| {
            if block_is(t) {
                block.and_then(|b| b.get(k))
            } else {
                None
            }
        };
        Some(Hot {
            ty,
            subtype: s(root.get("subtype")),
            session_id: s(root.get("session_id")),
            uuid: s(root.get("uuid")),
            parent_tool_use_id: match root.get("parent_tool_use_id") {
                None => Field::Missing,
                Some(J::Null) => Field::Null,
                Some(J::Str(x)) => Field::Value(x.clone()),
                Some(_) => Field::Missing,
            },
            timestamp: s(root.get("timestamp")),
            message_id: s(msg.and_then(|m| m.get("id"))),
            model: s(msg.and_then(|m| m.get("model"))),
            usage: msg.and_then(|m| m.get("usage")).map(|u| {
                let n = |k| u.get(k).and_then(J::as_u64).unwrap_or(0);
                [
                    n("input_tokens"),
                    n("output_tokens"),
                    n("cache_read_input_tokens"),
                    n("cache_creation_input_tokens"),
                ]
            }),
            block_type: s(block.and_then(|b| b.get("type"))),
            tool_use_id: s(in_block("tool_use", "id")),
            tool_name: s(in_block("tool_use", "name")),
            tool_result_id: s(in_block("tool_result", "tool_use_id")),
            tool_result_is_error: in_block("tool_result", "is_error").and_then(J::as_bool),
            is_error: root.get("is_error").and_then(J::as_bool),
            num_turns: root.get("num_turns").and_then(J::as_u64),
            duration_ms: root.get("duration_ms").and_then(J::as_u64),
            total_cost_usd: ["total_cost_usd", "cost_usd", "total_cost"]
                .iter()
                .find_map(|k| root.get(k).and_then(J::as_f64))
                .map(F),
        })
    }
}

// ---------------------------------------------------------------------------
// The oracle: serde_json's reading, keeping the first of duplicate keys

/// A JSON value as serde_json reads it, objects kept as ordered entries so
/// that duplicates stay visible (serde_json's own `Value` keeps the last).
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// null
    Null,
    /// true / false
    Bool(bool),
    /// A non-negative integer that fits u64.
    U64(u64),
    /// A negative integer that fits i64.
    I64(i64),
    /// Any other number, as serde_json reads it (integers beyond u64 too).
    F64(f64),
    /// A number the oracle's pre-pass found beyond f64; its text.
    Big(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object, entries in order, duplicates kept.
    Obj(Vec<(String, J)>),
}

/// Marks a string the pre-pass wrote in place of a number beyond f64.
const BIG_MARK: &str = "\u{0}cctape-big:";

impl J {
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(es) => es.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// Every value of `key`, in order.
    pub fn get_all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a J> + 'a {
        let es: &[(String, J)] = match self {
            J::Obj(es) => es,
            _ => &[],
        };
        es.iter().filter(move |(k, _)| k == key).map(|(_, v)| v)
    }
    /// The `i`th element.
    pub fn index(&self, i: usize) -> Option<&J> {
        match self {
            J::Arr(a) => a.get(i),
            _ => None,
        }
    }
    /// The string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }
    /// The bool.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// An integer that fits u64.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            J::U64(v) => Some(*v),
            _ => None,
        }
    }
    /// Any number as f64.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            J::U64(v) => Some(*v as f64),
            J::I64(v) => Some(*v as f64),
            J::F64(v) => Some(*v),
            J::Big(t) => t.parse().ok(),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

struct JVisitor;

impl<'de> Visitor<'de> for JVisitor {
    type Value = J;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<J, E> {
        Ok(J::U64(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<J, E> {
        Ok(if v >= 0 { J::U64(v as u64) } else { J::I64(v) })
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<J, E> {
        Ok(J::F64(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<J, E> {
        Ok(match v.strip_prefix(BIG_MARK) {
            Some(t) => J::Big(t.to_owned()),
            None => J::Str(v.to_owned()),
        })
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<J, E> {
        self.visit_str(&v)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = a.next_element()? {
            out.push(v);
        }
        Ok(J::Arr(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = a.next_entry::<String, J>()? {
            out.push((k, v));
        }
        Ok(J::Obj(out))
    }
}

/// How the oracle parses a line: serde_json with its default recursion limit
/// of 128 ([`serde_default`]), or, in the fuzz crate, with the limit lifted.
/// Returns `Err(None)` when the line is too deep for this parser to judge.
pub type OracleParse = fn(&[u8]) -> Result<J, Option<String>>;

/// The deepest nesting [`serde_default`] can judge.
pub const SERDE_DEFAULT_DEPTH: usize = 127;

/// serde_json with its default recursion limit.
pub fn serde_default(b: &[u8]) -> Result<J, Option<String>> {
    if json_depth(b) > SERDE_DEFAULT_DEPTH {
        return Err(None);
    }
    serde_json::from_slice::<J>(b).map_err(|e| Some(e.to_string()))
}

/// The nesting depth of `b` counted on brackets outside strings (for any
/// bytes, JSON or not; the root object is 1).
pub fn json_depth(b: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &c in b {
        if in_str {
            match c {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The documented differences, applied to a copy of the line so that
/// serde_json can read it the way cctape does: a lone surrogate escape reads
/// as U+FFFD, a number beyond f64 (in a value position only) is kept as its
/// text, and `-0` is the integer 0. Returns `None` when there was nothing
/// to rewrite.
pub fn oracle_prepass(b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len() + 16);
    let mut changed = false;
    // Containers: true for an object. `key_next`: the next string is a key.
    let mut stack: Vec<bool> = Vec::new();
    let mut key_next = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                key_next = false;
                out.push(c);
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && b.get(i + 1) == Some(&b'u') {
                        if let Some(cp) = hex4(b, i + 2) {
                            let lone = if (0xD800..0xDC00).contains(&cp) {
                                !(b.get(i + 6) == Some(&b'\\')
                                    && b.get(i + 7) == Some(&b'u')
                                    && hex4(b, i + 8)
                                        .is_some_and(|lo| (0xDC00..0xE000).contains(&lo)))
                            } else {
                                (0xDC00..0xE000).contains(&cp)
                            };
                            if lone {
                                out.extend_from_slice(b"\\uFFFD");
                                changed = true;
                                i += 6;
                                continue;
                            }
                            if (0xD800..0xDC00).contains(&cp) {
                                out.extend_from_slice(&b[i..i + 12]);
                                i += 12;
                                continue;
                            }
                        }
                        out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                        i += 2;
                        continue;
                    }
                    if b[i] == b'\\' {
                        out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                        i += 2;
                        continue;
                    }
                    out.push(b[i]);
                    i += 1;
                }
                if i < b.len() {
                    out.push(b'"');
                    i += 1;
                }
            }
            b'{' => {
                stack.push(true);
                key_next = true;
                out.push(c);
                i += 1;
            }
            b'[' => {
                stack.push(false);
                key_next = false;
                out.push(c);
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                key_next = false;
                out.push(c);
                i += 1;
            }
            b',' => {
                key_next = stack.last() == Some(&true);
                out.push(c);
                i += 1;
            }
            b'-' | b'0'..=b'9' if !key_next => {
                let start = i;
                let mut j = i + 1;
                while j < b.len() && matches!(b[j], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    j += 1;
                }
                let text = &b[start..j];
                let beyond = std::str::from_utf8(text)
                    .ok()
                    .filter(|t| valid_number(t))
                    .and_then(|t| t.parse::<f64>().ok())
                    .is_some_and(|f| f.is_infinite());
                if text == b"-0" {
                    // `-0` is the integer 0 in cctape, the float -0.0 in
                    // serde_json.
                    out.push(b'0');
                    changed = true;
                } else if beyond {
                    out.push(b'"');
                    out.extend_from_slice(BIG_MARK.replace('\0', "\\u0000").as_bytes());
                    out.extend_from_slice(text);
                    out.push(b'"');
                    changed = true;
                } else {
                    out.extend_from_slice(text);
                }
                i = j;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// The JSON number grammar.
pub fn valid_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - s
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// What the differential check concluded about a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Both read an event, with equal hot fields.
    BothAccept,
    /// Both reject.
    BothReject,
    /// A documented difference: cctape accepts what serde_json rejects
    /// (lone surrogate escapes, numbers beyond f64).
    DocumentedAccept,
    /// A documented difference: cctape rejects what serde_json accepts
    /// (`type`/`subtype` twice with different values, nesting past 1024).
    DocumentedReject,
    /// The oracle could not judge (nesting its parser cannot follow).
    Skipped,
}

/// cctape and serde_json agree on `line`: the same accept/reject decision
/// and, when accepted, the same hot-field values, except for the documented
/// differences. Panics on disagreement; returns the verdict.
pub fn differential(line: &[u8], oracle: OracleParse) -> Verdict {
    let mut parser = Scanner::new();
    let l = line_at(line, true);
    let got = parse_event(&mut parser, &l).map(|ev| Hot::of_event(&ev));

    let depth = json_depth(line);
    let plain = oracle(line);
    let normalized = oracle_prepass(line);
    let (read, documented) = match (plain, normalized) {
        (Err(None), _) => {
            // Too deep for the oracle; cctape must not accept a line nested
            // past its limit.
            let accepted = got.as_ref().ok();
            assert!(
                depth <= cctape::parse::MAX_DEPTH || accepted.is_none(),
                "cctape accepted a line nested {depth} deep: {accepted:?}"
            );
            return Verdict::Skipped;
        }
        (Ok(j), None) => (Ok(j), false),
        (Ok(_), Some(fixed)) => match oracle(&fixed) {
            Ok(j) => (Ok(j), false),
            Err(e) => panic!("the oracle's pre-pass broke {:?}: {e:?}", show(line)),
        },
        (Err(Some(e)), Some(fixed)) => match oracle(&fixed) {
            Ok(j) => (Ok(j), true),
            Err(_) => (Err(e), false),
        },
        (Err(Some(e)), None) => (Err(e), false),
    };

    let want: Result<Hot, String> = match read {
        Err(e) => Err(e),
        Ok(j) => match &j {
            J::Obj(_) => match Hot::of_json(&j) {
                Some(h) => Ok(h),
                None => Err("no string `type`".into()),
            },
            _ => Err("not an object".into()),
        },
    };

    match (got, want) {
        (Ok(g), Ok(w)) => {
            assert_eq!(
                g,
                w,
                "hot fields differ from serde_json on {:?}",
                show(line)
            );
            if documented {
                Verdict::DocumentedAccept
            } else {
                Verdict::BothAccept
            }
        }
        (Err(g), Err(_)) => {
            let _ = g;
            Verdict::BothReject
        }
        (Err(g), Ok(w)) => {
            let doc = match g.kind() {
                ErrorKind::DuplicateKey => top_level_conflict(line, oracle),
                ErrorKind::TooDeep => depth > cctape::parse::MAX_DEPTH,
                _ => false,
            };
            assert!(
                doc,
                "cctape rejects ({g}) what serde_json reads as {w:?}: {:?}",
                show(line)
            );
            Verdict::DocumentedReject
        }
        (Ok(g), Err(w)) => {
            panic!(
                "cctape accepts ({g:?}) what serde_json rejects ({w}): {:?}",
                show(line)
            );
        }
    }
}

/// True when the top-level object gives `type` or `subtype` twice with
/// different values (as serde_json reads them).
fn top_level_conflict(line: &[u8], oracle: OracleParse) -> bool {
    let j = match oracle(line) {
        Ok(j) => j,
        Err(_) => match oracle_prepass(line).map(|f| oracle(&f)) {
            Some(Ok(j)) => j,
            _ => return false,
        },
    };
    ["type", "subtype"].iter().any(|k| {
        let mut all = j.get_all(k);
        match all.next() {
            Some(first) => all.any(|v| !same_json(first, v)),
            None => false,
        }
    })
}

fn same_json(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Str(x), J::Str(y)) => x == y,
        (J::Null, J::Null) => true,
        (J::Bool(x), J::Bool(y)) => x == y,
        (x, y) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p == q,
            _ => false,
        },
    }
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.len() <= 300 {
        return s.into_owned();
    }
    let mut end = 300;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…({} bytes)", &s[..end], b.len())
}

// ---------------------------------------------------------------------------
// Streams

/// One item of a stream, owned, to compare sources.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// An event: its position, kind and raw bytes.
    Event {
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line.
        offset: u64,
        /// Its kind.
        kind: EventKind,
        /// The line as read.
        raw: Vec<u8>,
    },
    /// A per-line (or I/O) error.
    Error {
        /// Its kind.
        kind: ErrorKind,
        /// Its position.
        position: Position,
    },
}

fn item(r: Result<Event<'_>, cctape::Error>) -> Item {
    match r {
        Ok(ev) => Item::Event {
            line: ev.line(),
            offset: ev.offset(),
            kind: ev.kind(),
            raw: ev.raw().to_vec(),
        },
        Err(e) => Item::Error {
            kind: e.kind(),
            position: e.position(),
        },
    }
}

/// The items and counts of [`SliceEvents`] over `data`.
pub fn slice_items(data: &[u8]) -> (Vec<Item>, Counts) {
    let mut s = SliceEvents::new(data);
    let mut out = Vec::new();
    while let Some(r) = s.next_event() {
        out.push(item(r));
    }
    (out, s.counts())
}

/// What any source must give for `data` when lines longer than `max_line`
/// are errors: [`Lines`] and the parser, by hand.
pub fn oracle_items(data: &[u8], max_line: usize) -> (Vec<Item>, Counts) {
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    let mut counts = Counts::default();
    for line in Lines::new(data) {
        counts.lines += 1;
        if line.bytes.len() > max_line {
            counts.errors += 1;
            out.push(Item::Error {
                kind: ErrorKind::LineTooLong,
                position: line.position(),
            });
            continue;
        }
        if line.is_blank() {
            counts.blank_lines += 1;
            continue;
        }
        let r = parse_event(&mut parser, &line);
        if r.is_ok() {
            counts.events += 1;
        } else {
            counts.errors += 1;
        }
        out.push(item(r));
    }
    (out, counts)
}

/// The items a [`LineDecoder`] with `max_line` gives when `data` is pushed
/// in chunks of the sizes in `sizes` (used in turn; 0 pushes an empty
/// chunk).
pub fn decoder_items(data: &[u8], sizes: &[usize], max_line: usize) -> Vec<Item> {
    let mut dec = LineDecoder::with_max_line(max_line);
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    let mut at = 0;
    let mut k = 0;
    let mut drain = |dec: &mut LineDecoder, out: &mut Vec<Item>| {
        while let Some(r) = dec.next_line() {
            match r {
                Ok(line) if line.is_blank() => {}
                Ok(line) => out.push(item(parse_event(&mut parser, &line))),
                Err(e) => out.push(item(Err(e))),
            }
        }
    };
    loop {
        let n = if sizes.is_empty() {
            data.len()
        } else {
            sizes[k % sizes.len()]
        };
        k += 1;
        let end = (at + n).min(data.len());
        dec.push(&data[at..end]);
        at = end;
        drain(&mut dec, &mut out);
        assert!(
            dec.pending() <= max_line.saturating_add(n).max(BOM.len()),
            "decoder holds more than a line"
        );
        if at == data.len() {
            break;
        }
    }
    dec.finish();
    drain(&mut dec, &mut out);
    assert!(dec.is_done());
    assert_eq!(dec.bytes_pushed(), data.len() as u64);
    out
}

/// A reader that returns at most `sizes[k]` bytes on its `k`th read (in
/// turn), and `Interrupted` where the size is 0.
pub struct ShortReader<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    k: usize,
}

impl<'a> ShortReader<'a> {
    /// A reader over `data` with read sizes `sizes`.
    pub fn new(data: &'a [u8], sizes: &'a [usize]) -> Self {
        ShortReader { data, sizes, k: 0 }
    }
}

impl Read for ShortReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = if self.sizes.is_empty() {
            usize::MAX
        } else {
            self.sizes[self.k % self.sizes.len()]
        };
        self.k += 1;
        if want == 0 && !self.data.is_empty() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "again"));
        }
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The items and counts of an [`EventReader`] with `read_size` and
/// `max_line` over a [`ShortReader`].
pub fn reader_items(
    data: &[u8],
    sizes: &[usize],
    read_size: usize,
    max_line: usize,
) -> (Vec<Item>, Counts) {
    let mut r = EventReader::with_capacity(ShortReader::new(data, sizes), read_size, max_line);
    let mut out = Vec::new();
    while let Some(x) = r.next_event() {
        out.push(item(x));
    }
    assert_eq!(r.bytes_read(), data.len() as u64);
    (out, r.counts())
}

/// Parameters for [`check_chunked`], drawn from the first bytes of a fuzz
/// input.
#[derive(Debug, Clone)]
pub struct Chunking {
    /// Chunk sizes for the decoder and read sizes for the reader.
    pub sizes: Vec<usize>,
    /// The reader's read size.
    pub read_size: usize,
    /// The longest line the decoder and the reader buffer.
    pub max_line: usize,
}

impl Chunking {
    /// Split `data` into parameters (its first up to 6 bytes) and the body.
    pub fn from_bytes(data: &[u8]) -> (Chunking, &[u8]) {
        let n = data.len().min(6);
        let (p, body) = data.split_at(n);
        let g = |i: usize| p.get(i).copied().unwrap_or(0) as usize;
        let mut seed = (g(0) | g(1) << 8 | g(2) << 16 | 1) as u32;
        let sizes = (0..8 + g(3) % 8)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                match seed % 16 {
                    0 => 0,
                    1 => 64 + (seed as usize >> 8) % 200,
                    v => v as usize,
                }
            })
            .collect();
        let read_size = 1 + g(4) % 64;
        let max_line = match g(5) % 4 {
            0 => usize::MAX,
            1 => 1 + g(5) % 16,
            _ => 16 + g(5) * 4,
        };
        (
            Chunking {
                sizes,
                read_size,
                max_line,
            },
            body,
        )
    }
}

/// The same bytes through every source agree: [`SliceEvents`] with the
/// oracle (no limit), and the decoder and reader, chunked per `ch`, with the
/// oracle at `ch.max_line`.
pub fn check_chunked(body: &[u8], ch: &Chunking) {
    let (slice, slice_counts) = slice_items(body);
    let (unlimited, unlimited_counts) = oracle_items(body, usize::MAX);
    assert_eq!(slice, unlimited, "SliceEvents differs from the oracle");
    assert_eq!(slice_counts, unlimited_counts);

    let (want, want_counts) = oracle_items(body, ch.max_line);
    let dec = decoder_items(body, &ch.sizes, ch.max_line);
    assert_eq!(dec, want, "LineDecoder differs from the oracle ({ch:?})");
    let one = decoder_items(body, &[], ch.max_line);
    assert_eq!(one, want, "LineDecoder (one push) differs from the oracle");
    let bytewise = decoder_items(body, &[1], ch.max_line);
    assert_eq!(bytewise, want, "LineDecoder (byte by byte) differs");

    let (rd, rd_counts) = reader_items(body, &ch.sizes, ch.read_size, ch.max_line);
    assert_eq!(rd, want, "EventReader differs from the oracle ({ch:?})");
    assert_eq!(rd_counts, want_counts, "EventReader counts differ");
}

/// Keep the lines of `data` that are events, one per line with LF: a valid
/// stream to cut.
pub fn valid_stream(data: &[u8]) -> Vec<u8> {
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    for line in Lines::new(data) {
        let l = Line {
            terminated: true,
            ..line
        };
        if !line.is_blank() && parse_event(&mut parser, &l).is_ok() {
            out.extend_from_slice(line.bytes);
            out.push(b'\n');
        }
    }
    out
}

/// `stream` is a valid stream (every line an event, LF-terminated). Cut at
/// `cut`, every source gives exactly the events of the lines whose LF came
/// before the cut, then at most one more item: the cut line as an event
/// (when what is left of it is a complete object) or one `truncated` error
/// at its position.
pub fn check_truncate(stream: &[u8], cut: usize, ch: &Chunking) {
    let (full, counts) = slice_items(stream);
    assert_eq!(counts.errors, 0, "the stream to cut is not valid");
    let lines: Vec<Line<'_>> = Lines::new(stream).collect();
    let cut = cut.min(stream.len());
    let part = &stream[..cut];

    let complete = lines
        .iter()
        .filter(|l| (l.offset + l.bytes.len() as u64) < cut as u64 && !l.is_blank())
        .count();
    let cut_line = lines
        .iter()
        .find(|l| (l.offset + l.bytes.len() as u64) >= cut as u64 && l.offset < cut as u64);

    let sources = [
        ("slice", slice_items(part).0),
        (
            "reader",
            reader_items(part, &ch.sizes, ch.read_size, usize::MAX).0,
        ),
        ("decoder", decoder_items(part, &ch.sizes, usize::MAX)),
    ];
    for (name, got) in sources {
        assert!(
            got.len() >= complete,
            "{name}: lost events before the cut at {cut}"
        );
        assert_eq!(
            &got[..complete],
            &full[..complete],
            "{name}: events before the cut at {cut} differ"
        );
        let extra = &got[complete..];
        assert!(
            extra.len() <= 1,
            "{name}: more than one item after the cut at {cut}: {extra:?}"
        );
        if let Some(x) = extra.first() {
            if cut < BOM.len() && stream.starts_with(BOM) {
                // Cut inside the BOM: what is left is an incomplete UTF-8
                // sequence on line 1.
                let want = Item::Error {
                    kind: ErrorKind::Truncated,
                    position: Position {
                        line: 1,
                        offset: 0,
                        column: match x {
                            Item::Error { position, .. } => position.column,
                            _ => None,
                        },
                        element: None,
                    },
                };
                assert_eq!(x, &want, "{name}: cut inside the BOM");
                continue;
            }
            let l = cut_line.expect("an item after the cut comes from the cut line");
            match x {
                Item::Error { kind, position } => {
                    assert_eq!(
                        *kind,
                        ErrorKind::Truncated,
                        "{name}: cut at {cut} gave {x:?}"
                    );
                    assert_eq!((position.line, position.offset), (l.number, l.offset));
                }
                Item::Event {
                    line,
                    offset,
                    kind,
                    raw,
                } => {
                    assert_eq!((*line, *offset), (l.number, l.offset));
                    assert!(l.bytes.starts_with(raw));
                    let Item::Event { kind: k, .. } = &full[complete] else {
                        panic!("{name}: the full stream has no event here");
                    };
                    assert_eq!(kind, k);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Views

/// A visitor that walks everything: counts fields and enters, turns every
/// reading into owned JSON, and notes what a reading says against the raw
/// value it read.
#[derive(Default)]
struct WalkAll {
    depth: usize,
    enters: u64,
    fields: u64,
    unknown: u64,
    /// Fields present in their object whose reading is absent: each one
    /// counted a type mismatch.
    absent: u64,
}

impl<'d> ViewVisitor<'d> for WalkAll {
    fn enter(&mut self, _key: &'static str, _view: &'static str, obj: Value<'d>) {
        self.depth += 1;
        self.enters += 1;
        assert!(self.depth <= cctape::parse::MAX_DEPTH + 2, "enter too deep");
        let _ = obj.kind();
    }

    fn leave(&mut self) {
        assert!(self.depth > 0, "leave without enter");
        self.depth -= 1;
    }

    fn field(&mut self, obj: Value<'d>, key: &'static str, read: &dyn Answer<'d>) {
        self.fields += 1;
        let raw = obj.get(key);
        let owned = read.to_json();
        assert_eq!(owned.is_some(), read.is_present() && owned.is_some());
        match raw {
            None => assert!(!read.is_present(), "{key}: read present, not in the object"),
            Some(v) => {
                if !read.is_present() {
                    self.absent += 1;
                } else if let Some(o) = &owned {
                    // A string or bool field reads as itself.
                    if matches!(v.kind(), ValueKind::String | ValueKind::Bool) {
                        assert_eq!(o, &cctape::views::to_json(v), "{key}");
                    }
                }
            }
        }
    }

    fn unknown(&mut self, obj: Value<'d>, key: &'d str, value: Value<'d>) {
        self.unknown += 1;
        assert!(
            obj.get(key).is_some(),
            "unknown key {key:?} not in its object"
        );
        let _ = value.kind();
    }
}

/// Owned JSON survives a round trip through serde_json text.
fn reparses(j: &serde_json::Value) {
    let text = serde_json::to_string(j).expect("owned JSON serializes");
    let back: serde_json::Value = serde_json::from_str(&text).expect("owned JSON re-parses");
    assert!(
        json_close(&back, j),
        "owned JSON changed through text: {j} vs {back}"
    );
}

/// Equal JSON, floats within 2 ULP (serde_json's default float parser is
/// off by one in the last bit on some numbers; see [`F`]).
pub fn json_close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) if x.is_f64() || y.is_f64() => close(
            x.as_f64().unwrap_or(f64::NAN),
            y.as_f64().unwrap_or(f64::NAN),
        ),
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_close(p, q))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, p), (l, q))| k == l && json_close(p, q))
        }
        _ => a == b,
    }
}

/// One line through `parse_event`, its view's `visit_all`,
/// `unknown_fields`, `to_owned_json` and a [`Census`]: no panic; the owned
/// JSON re-parses; `type_mismatches` never decreases, a visit adds at
/// least one per field read as absent while present, and the same visit
/// adds the same number each time.
pub fn check_views(data: &[u8]) {
    let mut parser = Scanner::new();
    let line = line_at(data, true);
    let Ok(ev) = parse_event(&mut parser, &line) else {
        return;
    };
    // The view over the tape (the opt-in backend, which counts type
    // mismatches on its document) reads what the view over the index reads.
    let mut tape = cctape::json::tape::Parser::new();
    let Ok(doc) = tape.parse(&line) else {
        panic!("the tape refuses a line the scanner took");
    };
    let m0 = doc.type_mismatches();
    let view = View::new(ev.kind(), Value::from(doc.root()));
    let _ = (view.name(), format!("{view:?}"));
    assert_eq!(view.to_owned_json(), ev.view().to_owned_json());

    let mut w = WalkAll::default();
    view.visit_all(&mut w);
    assert_eq!(w.depth, 0, "enter and leave unbalanced");
    let m1 = doc.type_mismatches();
    assert!(m1 >= m0, "type_mismatches decreased");

    let root = view.value();
    let known: Vec<&str> = view.unknown_fields().map(|(k, _)| k).collect();
    assert!(known.len() <= root.len());
    for k in &known {
        assert!(root.get(k).is_some(), "unknown field {k:?} not in the line");
    }
    if let View::Other(_) = view {
        assert_eq!(known.len(), root.len(), "Other: every field is unknown");
    }
    let m2 = doc.type_mismatches();
    assert!(m2 >= m1);

    let owned = view.to_owned_json();
    assert_eq!(owned, cctape::views::to_json(root));
    assert!(owned.is_object());
    reparses(&owned);
    let m3 = doc.type_mismatches();
    assert!(m3 >= m2);

    // Visiting again counts the same again.
    let mut w2 = WalkAll::default();
    view.visit_all(&mut w2);
    let m4 = doc.type_mismatches();
    assert_eq!(
        (w2.enters, w2.fields, w2.unknown, w2.absent),
        (w.enters, w.fields, w.unknown, w.absent)
    );
    assert_eq!(m4 - m3, m1 - m0, "a second visit counted differently");
    // A visitor that reads nothing more (WalkAll also turns every reading
    // into owned JSON, which reads arrays again) counts at most as much,
    // and at least one per field read as absent while present.
    view.visit_all(&mut cctape::views::NoVisitor);
    let m5 = doc.type_mismatches();
    assert!(m5 - m4 <= m1 - m0);
    assert!(
        u64::from(m5 - m4) >= w.absent,
        "{} fields read absent while present, {} mismatches counted",
        w.absent,
        m5 - m4
    );

    let mut census = Census::default();
    census.add(&ev);
    assert_eq!(census.events.values().sum::<u64>(), 1);
    let mismatched: u64 = census.mismatched.values().sum();
    if !matches!(view, View::Other(_)) {
        assert_eq!(mismatched, w.absent, "census and visitor disagree");
    }
    let _ = census.to_string();
    let mut twice = census.clone();
    twice.merge(&census);
    assert_eq!(twice.events.values().sum::<u64>(), 2);
}

// ---------------------------------------------------------------------------
// Run fold

/// The summaries of a manual fold of `bytes`, draining after each line
/// number in `drains` (sorted); true beside them when an event carried the
/// session of a run drained before it (which the docs say starts a new
/// run).
pub fn fold_runs(bytes: &[u8], record_calls: bool, drains: &[u64]) -> (Vec<RunSummary>, bool) {
    let mut folder = RunFolder::new();
    folder.record_calls(record_calls);
    let mut out = Vec::new();
    let mut drained: Vec<String> = Vec::new();
    let mut came_back = false;
    let mut next = 0;
    let mut events = SliceEvents::new(bytes);
    while let Some(item) = events.next_event() {
        let line = match &item {
            Ok(ev) => ev.line(),
            Err(e) => e.position().line,
        };
        while next < drains.len() && drains[next] < line {
            for r in folder.drain_complete() {
                assert!(r.results > 0, "a drained run has no result");
                drained.extend(r.session_id.clone());
                out.push(r);
            }
            next += 1;
        }
        match item {
            Ok(ev) => {
                if ev
                    .session_id()
                    .is_some_and(|s| drained.iter().any(|d| d == s))
                {
                    came_back = true;
                }
                folder.push(&ev);
                assert!(folder.current_first_line().is_some());
            }
            Err(e) => folder.push_error(&e),
        }
    }
    out.extend(folder.finish());
    out.sort_by_key(|r| r.first_line);
    (out, came_back)
}

fn runs_json(runs: &[RunSummary]) -> Vec<serde_json::Value> {
    runs.iter()
        .map(|r| {
            let j = r.to_json();
            reparses(&j);
            let _ = (r.ok(), format!("{r:?}"));
            j
        })
        .collect()
}

/// The run fold over any lines: with and without `record_calls`, draining
/// after the lines in `drains` or only finishing, and `runs_of_slice`, all
/// agree (draining only changes runs when a drained session comes back,
/// and then the events and bad lines are still all counted once).
pub fn check_run_fold(bytes: &[u8], drains: &[u64]) {
    let (plain, _) = fold_runs(bytes, false, &[]);
    let want = runs_json(&plain);
    let mut firsts: Vec<u64> = plain.iter().map(|r| r.first_line).collect();
    firsts.dedup();
    assert_eq!(firsts.len(), plain.len(), "two runs with one first line");
    for r in &plain {
        assert!(r.first_line <= r.last_line);
    }

    let sliced = cctape::run::runs_of_slice(bytes);
    assert_eq!(
        runs_json(&sliced),
        want,
        "runs_of_slice differs from the fold"
    );

    let (calls, _) = fold_runs(bytes, true, &[]);
    assert_eq!(
        runs_json(&calls),
        want,
        "record_calls changed the summaries"
    );
    for (r, p) in calls.iter().zip(&plain) {
        assert!(p.model_calls.is_empty() && p.tool_calls.is_empty());
        let _ = (r.model_calls.len(), r.tool_calls.len());
    }

    let mut drains = drains.to_vec();
    drains.sort_unstable();
    for record in [false, true] {
        let (got, came_back) = fold_runs(bytes, record, &drains);
        let got_json = runs_json(&got);
        if !came_back {
            assert_eq!(got_json, want, "draining at {drains:?} changed the runs");
        } else {
            assert!(got.len() >= plain.len());
            let sum = |rs: &[RunSummary]| {
                (
                    rs.iter().map(|r| r.events).sum::<u64>(),
                    rs.iter().map(|r| r.bad_lines).sum::<u64>(),
                )
            };
            assert_eq!(sum(&got), sum(&plain), "draining lost or doubled events");
        }
    }
}

// ---------------------------------------------------------------------------
// The stats path

/// What `cctape stats` reads from one input: the stats and the runs.
pub struct StatsRead {
    /// Events by type, counts and errors.
    pub stats: Stats,
    /// Counts as the CLI's driver keeps them.
    pub counts: Counts,
    /// The runs.
    pub runs: Vec<RunSummary>,
}

/// Read `bytes` as `cctape stats` does on one thread: every non-blank line
/// through `parse_event`, into [`Stats`] and a [`RunFolder`].
pub fn stats_read(bytes: &[u8]) -> StatsRead {
    let mut stats = Stats::new();
    let mut runs = RunFolder::new();
    let mut scanner = Scanner::new();
    let mut counts = Counts::default();
    for line in Lines::new(bytes) {
        counts.lines += 1;
        if line.is_blank() {
            counts.blank_lines += 1;
            continue;
        }
        let read = parse_event(&mut scanner, &line);
        fold_read(read, &mut counts, &mut stats, &mut runs);
    }
    StatsRead {
        stats,
        counts,
        runs: runs.finish(),
    }
}

/// One line's read, counted and folded as the CLI's stats sink does.
fn fold_read(
    read: Result<Event<'_>, cctape::Error>,
    counts: &mut Counts,
    stats: &mut Stats,
    runs: &mut RunFolder,
) {
    match read {
        Ok(ev) => {
            counts.events += 1;
            stats.record_event(&ev);
            runs.push(&ev);
        }
        Err(e) => {
            counts.errors += 1;
            stats.record_error(0, &e);
            runs.push_error(&e);
        }
    }
}

/// [`stats_read`] through [`ReadAhead`], as `cctape stats` reads a large
/// file on two cores: `bytes` cut after the first LF at or past every
/// `size` bytes, each chunk validated and indexed ahead (on another
/// thread), then folded in order.
pub fn stats_read_ahead(bytes: &[u8], size: usize) -> StatsRead {
    let mut stats = Stats::new();
    let mut runs = RunFolder::new();
    let mut counts = Counts::default();
    let mut ahead = ReadAhead::new();
    let (mut at, mut number) = (0usize, 1u64);
    while at < bytes.len() {
        let from = (at + size.max(1)).min(bytes.len()) - 1;
        let end = memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i + 1);
        let chunk = &bytes[at..end];
        ahead.read(
            chunk,
            (at as u64, number),
            cctape::framing::DEFAULT_MAX_LINE,
        );
        ahead = std::thread::spawn(move || ahead).join().expect("thread");
        for (line, item) in ahead.lines(chunk) {
            counts.lines += 1;
            let read = match item {
                AheadLine::Blank => {
                    counts.blank_lines += 1;
                    continue;
                }
                AheadLine::Event(event) => Ok(event),
                AheadLine::Failed(e) => Err(e),
                AheadLine::TooLong => panic!("line {}: past the default maximum", line.number),
            };
            fold_read(read, &mut counts, &mut stats, &mut runs);
        }
        number += memchr::memchr_iter(b'\n', chunk).count() as u64;
        at = end;
    }
    StatsRead {
        stats,
        counts,
        runs: runs.finish(),
    }
}

/// The property `cctape stats` relies on: the read ahead in chunks gives
/// the same stats (events by type, counts, errors with positions) and the
/// same run summaries as the one-thread read; and that read agrees with
/// `Stats::read_slice` and `runs_of_slice`. Returns the number of runs.
pub fn check_stats_path(bytes: &[u8]) -> usize {
    let one = stats_read(bytes);
    // Read ahead in chunks (one line each, and about a third of the
    // input each): the same as the one-thread read.
    for size in [1, bytes.len() / 3] {
        let ahead = stats_read_ahead(bytes, size);
        assert_eq!(ahead.counts, one.counts, "counts differ ahead");
        assert_eq!(ahead.stats.by_type(), one.stats.by_type());
        assert_eq!(ahead.stats.errors, one.stats.errors, "errors ahead");
        assert_eq!(
            runs_json(&ahead.runs),
            runs_json(&one.runs),
            "run summaries differ ahead"
        );
    }

    let mut lib = Stats::new();
    lib.read_slice(0, bytes);
    assert_eq!(lib.by_type(), one.stats.by_type());
    assert_eq!(lib.errors, one.stats.errors);
    assert_eq!(lib.counts, one.counts);
    assert_eq!(
        runs_json(&cctape::run::runs_of_slice(bytes)),
        runs_json(&one.runs)
    );
    one.runs.len()
}

/// What the scanner and the tape both say about a line, owned.
#[derive(Debug, PartialEq)]
struct ScanFacts {
    kind: EventKind,
    ty: String,
    subtype: Option<String>,
    strs: [Option<String>; 9],
    parent: Field<String>,
    usage: Option<cctape::TokenCounts>,
    flags: [Option<bool>; 2],
    nums: [Option<u64>; 3],
}

fn owned(r: Option<cctape::scan::RawStr<'_>>) -> Option<String> {
    r.map(|r| {
        let mut out = String::new();
        assert!(r.unescape_into(&mut out), "a validated string decodes");
        out
    })
}

/// The same accessors on an [`Event`] or a scanned line, as [`ScanFacts`]:
/// `own` turns a string accessor's answer into an owned one.
macro_rules! scan_facts {
    ($e:expr, $own:expr) => {{
        let e = $e;
        ScanFacts {
            kind: e.kind(),
            ty: e.raw_type().to_owned(),
            subtype: e.raw_subtype().map(str::to_owned),
            strs: [
                e.session_id(),
                e.uuid(),
                e.timestamp(),
                e.message_id(),
                e.model(),
                e.content_block_type(),
                e.tool_use_id(),
                e.tool_name(),
                e.tool_result_id(),
            ]
            .map($own),
            parent: match e.parent_tool_use_id() {
                Field::Missing => Field::Missing,
                Field::Null => Field::Null,
                Field::Value(v) => $own(Some(v)).map_or(Field::Missing, Field::Value),
            },
            usage: e.usage(),
            flags: [e.is_error(), e.tool_result_is_error()],
            nums: [
                e.num_turns(),
                e.duration_ms(),
                e.total_cost_usd().map(f64::to_bits),
            ],
        }
    }};
}

/// The scanner (validated, on every backend this CPU runs) and
/// [`parse_event`] against the tape ([`tape_event`]) on one line,
/// terminated and not: the same decision and error kind and position, and
/// on an event the same kind, `type`, `subtype` and hot fields. Trusting
/// mode never panics and reads the same kind on a valid event.
pub fn check_scan_line(data: &[u8]) {
    use cctape::scan::Backend;
    let mut tape = cctape::json::tape::Parser::new();
    let mut indexed = Scanner::new();
    for terminated in [true, false] {
        let line = line_at(data, terminated);
        let want = tape_event(&mut tape, &line, |e| {
            scan_facts!(e, |s: Option<&str>| s.map(str::to_owned))
        })
        .map_err(|e| (e.kind(), e.position().line, e.position().offset));
        let event = parse_event(&mut indexed, &line)
            .map(|e| scan_facts!(&e, |s: Option<&str>| s.map(str::to_owned)))
            .map_err(|e| (e.kind(), e.position().line, e.position().offset));
        assert_eq!(
            event,
            want,
            "parse_event against the tape on {}",
            show(data)
        );
        for backend in Backend::available() {
            let mut sc = Scanner::with_backend(backend).expect("an available backend");
            let got = sc
                .scan(&line)
                .map(|e| scan_facts!(&e, owned))
                .map_err(|e| (e.kind(), e.position().line, e.position().offset));
            assert_eq!(got, want, "backend {} on {}", backend.name(), show(data));
            let trusting = sc.scan_trusting(&line).map(|e| e.kind());
            if let Ok(w) = &want {
                assert_eq!(
                    trusting.ok(),
                    Some(w.kind),
                    "trusting, backend {}",
                    backend.name()
                );
            }
        }
    }
}

/// The magic bytes [`check_decompress`] puts in front of its input, chosen
/// by the input's first byte.
const MAGICS: [&[u8]; 6] = [
    &[0x1f, 0x8b],
    &[0x28, 0xb5, 0x2f, 0xfd],
    b"\xfd7zXZ\x00",
    b"BZh9",
    &[0x04, 0x22, 0x4d, 0x18],
    // An LZ4 legacy frame (`lz4 -l`).
    &[0x02, 0x21, 0x4c, 0x18],
];

/// Decoded bytes read per input at most: a few bytes of a compressed
/// format can stand for gigabytes.
const DECODED_CAP: u64 = 32 << 20;

/// Any bytes read as a compressed input: the first byte picks a format
/// whose magic goes in front of the rest (unless the rest already starts
/// with one, as mutated seeds do). The read ends (end, error or
/// [`DECODED_CAP`]) without a panic, and a read after an error or the end
/// ends too. Returns the decoded byte count.
pub fn check_decompress(data: &[u8]) -> u64 {
    let Some((&pick, rest)) = data.split_first() else {
        return 0;
    };
    let bytes = if Compression::detect(rest) == Compression::None {
        [MAGICS[pick as usize % MAGICS.len()], rest].concat()
    } else {
        rest.to_vec()
    };
    let report = EndReport::new();
    let Ok(src) = Source::new(&bytes[..], SourceKind::Stream, &report) else {
        return 0;
    };
    assert_ne!(src.compression(), Compression::None);
    let mut rdr = src.into_reader();
    let mut buf = [0u8; 4096];
    let mut total = 0u64;
    let ended = loop {
        match rdr.read(&mut buf) {
            Ok(0) => break true,
            Ok(n) => {
                assert!(n <= buf.len());
                total += n as u64;
                if total > DECODED_CAP {
                    break false;
                }
            }
            Err(_) => break true,
        }
    };
    if ended {
        // Past the end or an error, a reader stays ended.
        assert!(matches!(rdr.read(&mut buf), Ok(0) | Err(_)));
    }
    total
}
