//! Inputs without events: what they look like, so that commands count them
//! apart instead of as runs (a harness's stdout holding only
//! `API Error: Unable to connect to API (ConnectionRefused)`, a
//! `--output-format json` array, pretty JSON, an empty file).
//!
//! A sink keeps the first bytes of the lines that were not events
//! ([`Shape::note`]); when the input ends with no event, [`Shape::describe`]
//! says what they look like (the library's [`cctape::report::Shape`]). An
//! input read as one finding (text, empty) gives its shape directly
//! ([`BadLines::finding`]).

use cctape::error::Position;
use cctape::report::{NoEvents, Shape};
use serde_json::{Value, json};

/// How many bad lines each command keeps with their position.
const BAD_KEPT: usize = 100;

/// The lines of one input (or piece) that were not events.
#[derive(Debug, Default)]
pub struct BadLines {
    count: u64,
    /// The first ones: position, kind, message.
    first: Vec<(Position, &'static str, String)>,
    shape: Shape,
    finding: Option<NoEvents>,
}

impl BadLines {
    /// An input read as one finding (text, empty): what it is.
    pub fn finding(&mut self, shape: &Shape) {
        self.finding = Some(shape.describe());
    }

    /// Note one bad line (and keep its bytes for sniffing).
    pub fn note(&mut self, _input: &str, e: &cctape::error::Error, line: Option<&[u8]>) {
        self.count += 1;
        if self.first.len() < BAD_KEPT {
            self.first
                .push((e.position(), e.kind().name(), e.reason().to_string()));
        }
        self.shape.note(line);
    }
}

/// Bad lines and inputs without events over a command's inputs, reported
/// on standard error and in JSON summaries.
#[derive(Debug, Default)]
pub struct InputReport {
    bad_lines: u64,
    errors: Vec<(String, Position, &'static str, String)>,
    no_events: Vec<(String, NoEvents)>,
}

impl InputReport {
    /// Take one finished input (or piece): its bad lines, and whether it
    /// had events.
    pub fn absorb(&mut self, b: &BadLines, name: &str, events: u64, unreadable: bool) {
        self.bad_lines += b.count;
        for (at, kind, msg) in &b.first {
            if self.errors.len() < BAD_KEPT {
                self.errors.push((name.to_string(), *at, kind, msg.clone()));
            }
        }
        if events == 0 && !unreadable {
            let n = b.finding.clone().unwrap_or_else(|| b.shape.describe());
            self.no_events.push((name.to_string(), n));
        }
    }

    /// `{"bad_lines", "errors": [{"file", "line", "offset", "column",
    /// "kind", "message"}], "inputs_without_events": {"count", "by_format",
    /// "inputs"}}` (positions as `stats --json` gives them).
    pub fn to_json(&self) -> serde_json::Map<String, Value> {
        let mut by_format: std::collections::BTreeMap<&str, u64> = Default::default();
        for (_, n) in &self.no_events {
            *by_format.entry(n.format.name()).or_default() += 1;
        }
        let mut o = serde_json::Map::new();
        o.insert("bad_lines".into(), json!(self.bad_lines));
        o.insert(
            "errors".into(),
            Value::Array(
                self.errors
                    .iter()
                    .map(|(f, at, k, m)| {
                        json!({
                            "file": f,
                            "line": at.line,
                            "offset": at.offset,
                            "column": at.column,
                            "kind": k,
                            "message": m,
                        })
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
                    "file": f, "format": n.format.name(), "first_line": n.first_line,
                })).collect::<Vec<_>>(),
            }),
        );
        o
    }

    /// Say on standard error what was not exported: how many bad lines
    /// (each was said with its position as it was read), and the inputs
    /// without events.
    pub fn eprint_summary(&self) {
        use std::fmt::Write as _;
        let mut s = String::new();
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
                "cctape: {}: no events ({}): one runs row, no events rows",
                super::human::clean(f),
                n.format.name()
            );
        }
        eprint!("{s}");
    }
}
