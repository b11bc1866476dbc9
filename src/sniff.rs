//! Sniffing: what a file looks like, from its first bytes, so that a file
//! that is not one JSON object a line gets one clear message instead of an
//! error on every line.
//!
//! [`sniff_format`] looks at a prefix (64 KiB is plenty; less works) and
//! tells stream-json (NDJSON) from the shapes seen in the wild: a JSON array
//! (`--output-format json`, claude-code-action's execution log), a
//! pretty-printed JSON document, lines behind a logger prefix
//! (`[2025-10-13T01:16:00Z] [INFO] {...`), lines a logger cut at a fixed
//! width, empty input and plain text. It reads no further than the prefix
//! and never fails.
//!
//! ```
//! use cctape::sniff::{sniff_format, Format};
//!
//! assert_eq!(sniff_format(b"{\"type\":\"user\"}\n{\"type\":\"result\"}\n"), Format::Ndjson);
//! assert_eq!(sniff_format(b"[\n  {\n    \"type\": \"system\""), Format::JsonArray);
//! assert_eq!(sniff_format(b"{\n  \"type\": \"system\",\n"), Format::PrettyJson);
//! assert_eq!(
//!     sniff_format(b"[2025-10-13T01:16:00Z] [INFO] {\"type\":\"user\"}\n"),
//!     Format::LoggerPrefixed
//! );
//! assert_eq!(sniff_format(b"\n\n"), Format::Empty);
//! assert!(Format::JsonArray.describe().contains("jq -c '.[]'"));
//! ```

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many lines of the prefix [`sniff_format`] looks at.
const LINES_LOOKED_AT: usize = 64;

/// What a file looks like. Grows as new shapes turn up, so match with a
/// wildcard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Nothing, or only whitespace (and a BOM).
    Empty,
    /// One JSON object a line: what cctape reads.
    Ndjson,
    /// A JSON array of events (the first byte that is not whitespace is
    /// `[`), compact or pretty-printed.
    JsonArray,
    /// A JSON object spread over several lines (pretty-printed), or several
    /// such objects one after the other.
    PrettyJson,
    /// Lines behind a logger prefix such as `[2025-10-13T01:16:00Z] [INFO] `.
    LoggerPrefixed,
    /// Lines that start like JSON objects but end before their closing
    /// brace: cut by a logger at a fixed width.
    CutLines,
    /// Text that does not start like JSON at all.
    Text,
}

impl Format {
    /// True for [`Format::Ndjson`]: the input can be read line by line.
    pub fn is_ndjson(self) -> bool {
        self == Format::Ndjson
    }

    /// A sentence for the user: what the file looks like and what to do.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Empty => {
                "the input is empty (no bytes, or only whitespace): there are no events to read"
            }
            Format::Ndjson => "one JSON object a line (stream-json): readable as is",
            Format::JsonArray => {
                "the input is a JSON array, not one JSON object a line (it looks like `--output-format json` \
                 output or a claude-code-action execution log): convert it with `jq -c '.[]'` and read the result"
            }
            Format::PrettyJson => {
                "the input is pretty-printed JSON (an object spread over several lines), not one JSON object \
                 a line: compact it with `jq -c .` and read the result"
            }
            Format::LoggerPrefixed => {
                "the input is a log with a prefix on each line (`[timestamp] [LEVEL] ...`), not bare JSON: \
                 strip the prefixes first (for example `sed -E 's/^\\[[^]]*\\] \\[[A-Z]+\\] //'`); objects the \
                 logger spread over several lines cannot be recovered line by line"
            }
            Format::CutLines => {
                "the lines start like JSON objects but are cut before their end (a logger truncated them at a \
                 fixed width): they cannot be read as events; capture the stream without truncation"
            }
            Format::Text => "the input is text, not JSON: it does not start with `{` or `[`",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

/// Tell what `prefix`, the first bytes of an input, looks like.
///
/// Rules, on the first non-blank lines (a BOM and CRs are ignored):
/// - no non-blank byte: [`Format::Empty`];
/// - a logger prefix on more lines than hold a JSON object:
///   [`Format::LoggerPrefixed`];
/// - `[` first (and not a logger prefix): [`Format::JsonArray`];
/// - `{` alone on the first line, or a first line that opens an object and
///   whose next line is an indented `"key":`: [`Format::PrettyJson`];
/// - `{` first and every complete line that starts with `{` stops short of
///   a closing `}`: [`Format::CutLines`];
/// - `{` first otherwise: [`Format::Ndjson`] (a first line longer than the
///   prefix counts as one object);
/// - anything else: [`Format::Text`].
pub fn sniff_format(prefix: &[u8]) -> Format {
    let body = prefix.strip_prefix(BOM).unwrap_or(prefix);
    // Complete lines (with LF) and, when the prefix holds no LF after it, the
    // last partial line.
    let mut lines: Vec<(&[u8], bool)> = Vec::new();
    let mut rest = body;
    while lines.len() < LINES_LOOKED_AT && !rest.is_empty() {
        match memchr::memchr(b'\n', rest) {
            Some(i) => {
                lines.push((trim(&rest[..i]), true));
                rest = &rest[i + 1..];
            }
            None => {
                lines.push((trim(rest), false));
                rest = &[];
            }
        }
    }
    let nonblank: Vec<(&[u8], bool)> = lines.into_iter().filter(|(l, _)| !l.is_empty()).collect();
    let Some(&(first, first_done)) = nonblank.first() else {
        return Format::Empty;
    };

    let logger = nonblank.iter().filter(|(l, _)| is_logger_line(l)).count();
    let objects = nonblank
        .iter()
        .filter(|(l, _)| l.first() == Some(&b'{'))
        .count();
    if logger > 0 && logger >= objects {
        return Format::LoggerPrefixed;
    }
    match first[0] {
        b'[' => Format::JsonArray,
        b'{' => {
            if first == b"{" {
                return Format::PrettyJson;
            }
            if !first_done {
                return Format::Ndjson;
            }
            let second_is_member = nonblank.get(1).is_some_and(|(l, _)| {
                l.first() == Some(&b'"') && memchr::memchr(b':', l).is_some()
            });
            let complete: Vec<&[u8]> = nonblank
                .iter()
                .filter(|(l, done)| *done && l.first() == Some(&b'{'))
                .map(|(l, _)| *l)
                .collect();
            let closed = |l: &&[u8]| l.last() == Some(&b'}');
            if !closed(&first) && second_is_member && indented_after_first(body) {
                Format::PrettyJson
            } else if complete.iter().all(|l| !closed(l)) {
                Format::CutLines
            } else {
                Format::Ndjson
            }
        }
        _ => Format::Text,
    }
}

/// The line without leading and trailing spaces, tabs and CRs.
fn trim(l: &[u8]) -> &[u8] {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let start = l.iter().position(|b| !ws(b)).unwrap_or(l.len());
    let end = l.iter().rposition(|b| !ws(b)).map_or(start, |i| i + 1);
    &l[start..end]
}

/// True when the line after the first non-blank line starts with
/// whitespace (pretty-printers indent members).
fn indented_after_first(body: &[u8]) -> bool {
    let mut it = body.split(|&b| b == b'\n').filter(|l| !trim(l).is_empty());
    it.next();
    it.next()
        .is_some_and(|l| matches!(l.first(), Some(b' ' | b'\t')))
}

/// `[something] ` at the start, where `something` is 1 to 64 bytes with no
/// JSON punctuation: `[2025-10-13T01:16:00.020Z] [INFO] ...`.
fn is_logger_line(l: &[u8]) -> bool {
    if l.first() != Some(&b'[') {
        return false;
    }
    let window = &l[1..l.len().min(66)];
    let Some(close) = memchr::memchr(b']', window) else {
        return false;
    };
    let inner = &window[..close];
    !inner.is_empty()
        && !inner
            .iter()
            .any(|b| matches!(b, b'"' | b'{' | b'}' | b'[' | b','))
        && matches!(l.get(close + 2), Some(b' ' | b'\t'))
}
