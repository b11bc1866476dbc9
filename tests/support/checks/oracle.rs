//! The oracle: the hot fields as cctape and as serde_json read them,
//! serde_json's reading keeping the first of duplicate keys, the
//! documented differences, and the differential check (part of
//! `checks.rs`).

use cctape::event::parse_event;
use cctape::json::Scanner;
use cctape::{ErrorKind, Event, Field};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

use super::line_at;

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
                depth <= cctape::json::MAX_DEPTH || accepted.is_none(),
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
                ErrorKind::TooDeep => depth > cctape::json::MAX_DEPTH,
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

pub(super) fn show(b: &[u8]) -> String {
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
