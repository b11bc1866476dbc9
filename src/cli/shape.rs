//! Inputs without events: what they look like, so that commands count them
//! apart instead of as runs (a harness's stdout holding only
//! `API Error: Unable to connect to API (ConnectionRefused)`, a
//! `--output-format json` array, pretty JSON, an empty file).
//!
//! A sink keeps the first bytes of the lines that were not events
//! ([`Shape::note`]); when the input ends with no event, [`Shape::describe`]
//! asks [`cctape::sniff::sniff_format`] what they look like.

use cctape::sniff::{Format, sniff_format};
use serde_json::{Value, json};

/// How many bytes of non-event lines are kept for sniffing.
const KEEP: usize = 64 << 10;
/// How much of the first line is shown.
const FIRST_LINE: usize = 200;

/// The first bytes of an input's lines that were not events.
#[derive(Debug, Default, Clone)]
pub struct Shape {
    prefix: Vec<u8>,
}

/// What an input without events looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoEvents {
    /// `empty`, `text`, `json_array`, `pretty_json`, `logger_prefixed`,
    /// `cut_lines`, `ndjson` (lines of JSON none of which is an event).
    pub format: &'static str,
    /// The first non-blank line, cut to 200 characters.
    pub first_line: Option<String>,
    /// What to do about it.
    pub advice: &'static str,
}

/// The stable name of a format.
pub fn format_name(f: Format) -> &'static str {
    match f {
        Format::Empty => "empty",
        Format::Ndjson => "ndjson",
        Format::JsonArray => "json_array",
        Format::PrettyJson => "pretty_json",
        Format::LoggerPrefixed => "logger_prefixed",
        Format::CutLines => "cut_lines",
        Format::Text => "text",
        _ => "other",
    }
}

impl Shape {
    /// Keep a line that was not an event (up to 64 KiB in all).
    pub fn note(&mut self, line: Option<&[u8]>) {
        let Some(l) = line else { return };
        if self.prefix.len() >= KEEP {
            return;
        }
        let room = KEEP - self.prefix.len();
        self.prefix.extend_from_slice(&l[..l.len().min(room)]);
        self.prefix.push(b'\n');
    }

    /// Take another piece's lines after these (pieces of one input, in
    /// order).
    pub fn append(&mut self, o: &Shape) {
        let room = KEEP.saturating_sub(self.prefix.len());
        self.prefix
            .extend_from_slice(&o.prefix[..o.prefix.len().min(room)]);
    }

    /// What the input looks like.
    pub fn describe(&self) -> NoEvents {
        let format = sniff_format(&self.prefix);
        let first_line = self
            .prefix
            .split(|&b| b == b'\n')
            .map(|l| String::from_utf8_lossy(l).trim().to_string())
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(FIRST_LINE).collect());
        NoEvents {
            format: format_name(format),
            first_line,
            advice: format.describe(),
        }
    }
}

impl NoEvents {
    /// `{"format", "first_line", "advice"}`.
    pub fn to_json(&self) -> Value {
        json!({"format": self.format, "first_line": self.first_line, "advice": self.advice})
    }
}

/// How many bad lines each command keeps with their position.
const BAD_KEPT: usize = 100;

/// The lines of one input (or piece) that were not events.
#[derive(Debug, Default)]
pub struct BadLines {
    count: u64,
    /// The first ones: line, byte offset, kind, message.
    first: Vec<(u64, u64, &'static str, String)>,
    shape: Shape,
}

impl BadLines {
    /// Note one bad line (and keep its bytes for sniffing).
    pub fn note(&mut self, _input: &str, e: &cctape::error::Error, line: Option<&[u8]>) {
        self.count += 1;
        if self.first.len() < BAD_KEPT {
            let p = e.position();
            self.first
                .push((p.line, p.offset, e.kind().name(), e.reason().to_string()));
        }
        self.shape.note(line);
    }
}

/// Bad lines and inputs without events over a command's inputs, reported
/// on standard error and in JSON summaries.
#[derive(Debug, Default)]
pub struct InputReport {
    bad_lines: u64,
    errors: Vec<(String, u64, u64, &'static str, String)>,
    no_events: Vec<(String, NoEvents)>,
}

impl InputReport {
    /// Take one finished input (or piece): its bad lines, and whether it
    /// had events.
    pub fn absorb(&mut self, b: &BadLines, name: &str, events: u64, unreadable: bool) {
        self.bad_lines += b.count;
        for (line, offset, kind, msg) in &b.first {
            if self.errors.len() < BAD_KEPT {
                self.errors
                    .push((name.to_string(), *line, *offset, kind, msg.clone()));
            }
        }
        if events == 0 && !unreadable {
            self.no_events.push((name.to_string(), b.shape.describe()));
        }
    }

    /// `{"bad_lines", "errors": [{"file", "line", "offset", "kind",
    /// "message"}], "inputs_without_events": {"count", "by_format",
    /// "inputs"}}`.
    pub fn to_json(&self) -> serde_json::Map<String, Value> {
        let mut by_format: std::collections::BTreeMap<&str, u64> = Default::default();
        for (_, n) in &self.no_events {
            *by_format.entry(n.format).or_default() += 1;
        }
        let mut o = serde_json::Map::new();
        o.insert("bad_lines".into(), json!(self.bad_lines));
        o.insert(
            "errors".into(),
            Value::Array(
                self.errors
                    .iter()
                    .map(|(f, l, off, k, m)| {
                        json!({"file": f, "line": l, "offset": off, "kind": k, "message": m})
                    })
                    .collect(),
            ),
        );
        o.insert(
            "inputs_without_events".into(),
            json!({
                "count": self.no_events.len(),
                "by_format": by_format,
                "inputs": self.no_events.iter().take(BAD_KEPT).map(|(f, n)| json!({
                    "file": f, "format": n.format, "first_line": n.first_line,
                })).collect::<Vec<_>>(),
            }),
        );
        o
    }

    /// Say on standard error what was not exported: the first bad lines
    /// with their positions, the total, and the inputs without events.
    pub fn eprint_summary(&self) {
        use std::fmt::Write as _;
        let mut s = String::new();
        for (f, l, off, k, m) in self.errors.iter().take(10) {
            let _ = writeln!(
                s,
                "cctape: {}:{l}: byte {off}: {k}: {m}",
                super::human::clean(f)
            );
        }
        if self.bad_lines > 0 {
            let _ = writeln!(
                s,
                "cctape: {} not exported (not events)",
                super::human::count(self.bad_lines, "line", "lines")
            );
        }
        for (f, n) in &self.no_events {
            let _ = writeln!(
                s,
                "cctape: {}: no events ({}), not a run",
                super::human::clean(f),
                n.format
            );
        }
        eprint!("{s}");
    }
}
