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
