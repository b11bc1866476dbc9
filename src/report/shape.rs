//! Inputs without events: what they look like, so that every command
//! counts them apart instead of as runs (a harness's stdout holding only
//! `API Error: Unable to connect to API (ConnectionRefused)`, plain text,
//! an empty file, a logger's output).
//!
//! A [`Shape`] keeps the first bytes of an input (its sniffed prefix, or
//! the lines that were not events) and its last non-blank line;
//! [`Shape::describe`] says what it is ([`NoEvents`]), and where the last
//! line is the CLI's own final error message (`Error: Reached max turns
//! (30)`, `API Error: ...`), that line and the verdict it means
//! ([`FinalError`]).

use crate::run::Verdict;
use crate::sniff::{Format, sniff_format};
use serde_json::{Value, json};

/// How many bytes of an input's first lines are kept for sniffing.
const KEEP: usize = 64 << 10;
/// How much of the first and last lines is shown.
const SHOWN: usize = 200;

/// The first bytes and the last line of an input without events.
///
/// ```
/// use cctape::report::{Shape, no_events_run};
/// use cctape::sniff::{Format, sniff_format};
/// use cctape::Verdict;
///
/// // What a harness captured when claude printed text, not stream-json.
/// let out = b"Working on it...\nError: Reached max turns (30)\n";
/// let format = sniff_format(out);
/// assert_eq!(format, Format::Text);
/// let found = Shape::of_input(out, format, Some(b"Error: Reached max turns (30)")).describe();
/// // As `cctape verdict` reports it: a run whose verdict is the final error's.
/// let run = no_events_run(None, &found, Some(1));
/// assert_eq!(run.verdict, Verdict::MaxTurns);
/// assert_eq!(found.first_line.as_deref(), Some("Working on it..."));
/// ```
#[derive(Debug, Default, Clone)]
pub struct Shape {
    prefix: Vec<u8>,
    last_line: Option<String>,
    format: Option<Format>,
}

/// The CLI's own final error line at the end of a text output, and the
/// verdict it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalError {
    /// The line, as written (cut to 200 characters).
    pub line: String,
    /// [`Verdict::MaxTurns`] for `Error: Reached max turns (N)`,
    /// [`Verdict::Error`] for `API Error: ...` and any other `Error: ...`.
    pub verdict: Verdict,
}

impl FinalError {
    /// The final error a last line holds, if it is one of the CLI's.
    ///
    /// ```
    /// use cctape::report::FinalError;
    /// use cctape::run::Verdict;
    /// let e = FinalError::of_line("Error: Reached max turns (30)").unwrap();
    /// assert_eq!(e.verdict, Verdict::MaxTurns);
    /// let e = FinalError::of_line("API Error: Unable to connect to API (ConnectionRefused)").unwrap();
    /// assert_eq!(e.verdict, Verdict::Error);
    /// assert_eq!(FinalError::of_line("All done."), None);
    /// ```
    pub fn of_line(line: &str) -> Option<FinalError> {
        let l = line.trim();
        let verdict = if l.starts_with("Error: Reached max turns (") {
            Verdict::MaxTurns
        } else if l.starts_with("API Error: ") || l.starts_with("Error: ") {
            Verdict::Error
        } else {
            return None;
        };
        Some(FinalError {
            line: cut(l),
            verdict,
        })
    }
}

/// What an input without events looks like ([`Shape::describe`], which
/// has an example).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoEvents {
    /// What it is ([`Format::name`]: `empty`, `text`, `logger-prefixed`,
    /// `cut-lines`, `stream` for JSON lines none of which is an event, ...).
    pub format: Format,
    /// The first non-blank line, cut to 200 characters.
    pub first_line: Option<String>,
    /// The last non-blank line, cut to 200 characters (when the whole input
    /// was read as one finding).
    pub last_line: Option<String>,
    /// The CLI's final error line, when the last line is one.
    pub final_error: Option<FinalError>,
    /// What to do about it.
    pub advice: &'static str,
}

fn cut(s: &str) -> String {
    s.chars().take(SHOWN).collect()
}

/// The first non-blank line of `bytes`, trimmed and cut.
fn first_line(bytes: &[u8]) -> Option<String> {
    bytes
        .split(|&b| b == b'\n')
        .map(|l| String::from_utf8_lossy(l).trim().to_string())
        .find(|l| !l.is_empty())
        .map(|l| cut(&l))
}

impl Shape {
    /// An input read as one finding: its sniffed `prefix`, the format it
    /// was found to be, and its last non-blank line.
    pub fn of_input(prefix: &[u8], format: Format, last_line: Option<&[u8]>) -> Shape {
        Shape {
            prefix: prefix[..prefix.len().min(KEEP)].to_vec(),
            last_line: last_line.map(|l| cut(String::from_utf8_lossy(l).trim())),
            format: Some(format),
        }
    }

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
    pub(crate) fn append(&mut self, o: &Shape) {
        let room = KEEP.saturating_sub(self.prefix.len());
        self.prefix
            .extend_from_slice(&o.prefix[..o.prefix.len().min(room)]);
        if o.last_line.is_some() {
            self.last_line.clone_from(&o.last_line);
        }
        self.format = self.format.or(o.format);
    }

    /// What the input looks like.
    ///
    /// ```
    /// use cctape::report::Shape;
    /// use cctape::sniff::Format;
    /// let s = Shape::of_input(b"working...\n", Format::Text, Some(b"Error: Reached max turns (30)"));
    /// let n = s.describe();
    /// assert_eq!(n.format, Format::Text);
    /// assert_eq!(n.first_line.as_deref(), Some("working..."));
    /// assert_eq!(n.final_error.unwrap().line, "Error: Reached max turns (30)");
    /// ```
    ///
    /// Lines (or pretty objects) that are JSON objects without a string
    /// `type` (`{"splittable": false}`, a model's structured answer) are
    /// [`Format::JsonValues`], not a stream:
    ///
    /// ```
    /// use cctape::report::Shape;
    /// use cctape::sniff::Format;
    /// let mut s = Shape::default();
    /// s.note(Some(b"{\"splittable\": false}"));
    /// assert_eq!(s.describe().format, Format::JsonValues);
    /// let mut pretty = Shape::default();
    /// pretty.note(Some(b"{\n  \"splittable\": false\n}"));
    /// assert_eq!(pretty.describe().format, Format::JsonValues);
    /// ```
    pub fn describe(&self) -> NoEvents {
        let format = match self.format {
            Some(f) => f,
            None => match sniff_format(&self.prefix) {
                Format::Ndjson | Format::PrettyJson | Format::JsonArray
                    if untyped(&self.prefix) =>
                {
                    Format::JsonValues
                }
                f => f,
            },
        };
        let final_error = match format {
            Format::Text => self.last_line.as_deref().and_then(FinalError::of_line),
            _ => None,
        };
        // Binary data has no line worth showing.
        let binary = format == Format::Binary;
        NoEvents {
            format,
            first_line: first_line(&self.prefix).filter(|_| !binary),
            last_line: self.last_line.clone().filter(|_| !binary),
            final_error,
            advice: format.describe(),
        }
    }
}

/// True when every value kept (the lines, or pretty elements, that were
/// not events) is a JSON object without a string `type`: read as an event,
/// each is a `missing_type` error (the event layer says what an event is).
fn untyped(kept: &[u8]) -> bool {
    let mut parser = crate::json::Scanner::new();
    let mut any = false;
    for el in crate::elements::Elements::new(kept) {
        let Ok(el) = el else { return false };
        match crate::event::parse_event(&mut parser, &el.as_line()) {
            Err(e) if e.kind() == crate::ErrorKind::MissingType => any = true,
            _ => return false,
        }
    }
    any
}

impl NoEvents {
    /// `{"format", "first_line", "last_line", "final_error": {"line",
    /// "verdict"} or null, "advice"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "format": self.format.name(),
            "first_line": self.first_line,
            "last_line": self.last_line,
            "final_error": self.final_error.as_ref().map(|e| json!({
                "line": e.line,
                "verdict": e.verdict.as_str(),
            })),
            "advice": self.advice,
        })
    }
}
