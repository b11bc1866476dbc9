//! Sniffing: what a file looks like, from its first bytes, so that a file
//! that is not one JSON object a line gets one clear message instead of an
//! error on every line.
//!
//! [`sniff_format`] looks at a prefix (64 KiB is plenty; less works) and
//! tells stream-json (NDJSON) from the shapes seen in the wild: a JSON array
//! (`--output-format json`, claude-code-action's execution log), a
//! pretty-printed JSON document, lines behind a logger prefix
//! (`[2025-10-13T01:16:00Z] [INFO] {...`), lines a logger cut at a fixed
//! width, session transcripts (`~/.claude/projects/*/*.jsonl`: one JSON
//! object a line too, but records with `parentUuid`, `sessionId`,
//! `isSidechain`, `summary`, `file-history-snapshot` ...), empty input and
//! plain text (a harness's stdout holding `API Error: ...`, or
//! `--output-format text` output). It reads no further than the prefix and
//! never fails.
//!
//! [`FormatChoice`] is what a user asks for (`--format auto|stream|json|transcript`):
//! [`FormatChoice::resolve`] sniffs for `auto` and otherwise forces the
//! reading; [`Format::reading`] says how each format is read.
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
//! assert_eq!(
//!     sniff_format(b"{\"parentUuid\":null,\"isSidechain\":false,\"sessionId\":\"s\",\"type\":\"user\"}\n"),
//!     Format::Transcript
//! );
//! assert_eq!(sniff_format(b"API Error: Unable to connect to API (ConnectionRefused)\n"), Format::Text);
//! assert_eq!(sniff_format(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), Format::Binary);
//! assert_eq!(sniff_format(b"{\"type\":\"user\"}\n\x00\x00\n"), Format::Ndjson);
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
    /// Binary data: not JSON, and NUL bytes in the first 64 KiB (as
    /// ripgrep tells binary files); no preview of it is printed.
    Binary,
    /// A Claude Code session transcript (`~/.claude/projects/<project>/<session>.jsonl`):
    /// one JSON object a line, in the transcript dialect (camelCase
    /// `sessionId`, `parentUuid`, `isSidechain`, record types such as
    /// `summary`, `file-history-snapshot`, `progress`, `queue-operation`).
    Transcript,
}

/// How a format is read: which framing, which dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reading {
    /// One JSON object a line of stream-json events
    /// ([`crate::stream::SliceEvents`], [`crate::stream::EventReader`]).
    StreamLines,
    /// JSON elements (an array, or values one after another) read as
    /// stream-json events ([`crate::stream::ElementEvents`],
    /// [`crate::stream::ElementEventReader`]).
    StreamElements,
    /// One JSON object a line of transcript records ([`crate::transcript`]).
    TranscriptLines,
    /// JSON values behind a logger's prefixes, read as stream-json events:
    /// the prefixes and the logger's own lines of text are read as
    /// whitespace ([`crate::elements::LogValues`]), the values as
    /// [`Reading::StreamElements`].
    LoggedElements,
    /// Nothing to read as events: the input is one finding (its format).
    NotEvents,
}

/// What the user asked for: `--format auto|stream|json|transcript`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatChoice {
    /// Sniff each input ([`sniff_format`]).
    #[default]
    Auto,
    /// Read as stream-json, one object a line, whatever it looks like.
    Stream,
    /// Read as JSON elements (an array, or pretty objects one after another).
    Json,
    /// Read as a session transcript, one record a line.
    Transcript,
}

impl FormatChoice {
    /// The choice for a `--format` value (`auto`, `stream`, `json`,
    /// `transcript`); `None` for anything else.
    ///
    /// ```
    /// use cctape::sniff::FormatChoice;
    /// assert_eq!(FormatChoice::from_name("json"), Some(FormatChoice::Json));
    /// assert_eq!(FormatChoice::from_name("xml"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<FormatChoice> {
        Some(match name {
            "auto" => FormatChoice::Auto,
            "stream" => FormatChoice::Stream,
            "json" => FormatChoice::Json,
            "transcript" => FormatChoice::Transcript,
            _ => return None,
        })
    }

    /// The `--format` value for this choice.
    pub fn name(self) -> &'static str {
        match self {
            FormatChoice::Auto => "auto",
            FormatChoice::Stream => "stream",
            FormatChoice::Json => "json",
            FormatChoice::Transcript => "transcript",
        }
    }

    /// The format an input is read as: sniffed from `prefix` for
    /// [`FormatChoice::Auto`], forced otherwise (an empty input stays
    /// [`Format::Empty`] whatever was asked; a forced JSON reading of a
    /// one-object-a-line input is [`Format::PrettyJson`], which reads the
    /// same objects).
    ///
    /// ```
    /// use cctape::sniff::{Format, FormatChoice, Reading};
    /// let prefix = b"[2025-10-13T01:16:00Z] [INFO] {\"type\":\"user\"}\n";
    /// assert_eq!(FormatChoice::Auto.resolve(prefix), Format::LoggerPrefixed);
    /// assert_eq!(FormatChoice::Json.resolve(prefix).reading(), Reading::StreamElements);
    /// assert_eq!(FormatChoice::Stream.resolve(b"[{}]").reading(), Reading::StreamLines);
    /// ```
    pub fn resolve(self, prefix: &[u8]) -> Format {
        let sniffed = sniff_format(prefix);
        if sniffed == Format::Empty {
            return sniffed;
        }
        match self {
            FormatChoice::Auto => sniffed,
            FormatChoice::Stream => Format::Ndjson,
            FormatChoice::Transcript => Format::Transcript,
            FormatChoice::Json => match sniffed {
                Format::JsonArray => Format::JsonArray,
                _ => Format::PrettyJson,
            },
        }
    }
}

impl Format {
    /// True for [`Format::Ndjson`]: the input can be read line by line.
    pub fn is_ndjson(self) -> bool {
        self == Format::Ndjson
    }

    /// How the format is read.
    pub fn reading(self) -> Reading {
        match self {
            Format::Ndjson => Reading::StreamLines,
            Format::JsonArray | Format::PrettyJson => Reading::StreamElements,
            Format::Transcript => Reading::TranscriptLines,
            Format::LoggerPrefixed => Reading::LoggedElements,
            Format::Empty | Format::CutLines | Format::Text | Format::Binary => Reading::NotEvents,
        }
    }

    /// A short stable name for JSON output and tables (`stream`,
    /// `json-array`, `json-pretty`, `transcript`, `text`, `binary`, `empty`,
    /// `logger-prefixed`, `cut-lines`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Empty => "empty",
            Format::Ndjson => "stream",
            Format::JsonArray => "json-array",
            Format::PrettyJson => "json-pretty",
            Format::LoggerPrefixed => "logger-prefixed",
            Format::CutLines => "cut-lines",
            Format::Text => "text",
            Format::Binary => "binary",
            Format::Transcript => "transcript",
        }
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
                "the input is a log with a prefix on each line (`[timestamp] [LEVEL] ...`): the JSON values in it \
                 are read as events, the prefixes and the log's own lines of text skipped; a value the logger cut \
                 inside a string is an error at its line"
            }
            Format::CutLines => {
                "the lines start like JSON objects but are cut before their end (a logger truncated them at a \
                 fixed width): they cannot be read as events; capture the stream without truncation"
            }
            Format::Text => "the input is text, not JSON: it does not start with `{` or `[`",
            Format::Binary => {
                "the input is binary data, not JSON or text (it holds NUL bytes): compressed inputs are read \
                 when they are gzip, zstd, xz, bzip2 or LZ4; decompress other formats first"
            }
            Format::Transcript => {
                "a Claude Code session transcript (`~/.claude/projects`): one record a line, read as transcript \
                 records"
            }
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
/// - `{` first otherwise: [`Format::Transcript`] when more of the object
///   lines carry the transcript's top-level keys (`parentUuid`, `sessionId`,
///   `isSidechain`, `leafUuid`, `requestId`, `snapshot`, or a `type` only
///   transcripts have) than the stream's (`session_id`,
///   `parent_tool_use_id`), else [`Format::Ndjson`] (a first line longer
///   than the prefix counts as one object; its keys up to the cut are read);
/// - `[` first but not followed by a JSON value (`[Stream timed out]`),
///   and anything else: [`Format::Text`], or [`Format::Binary`] when the
///   prefix holds a NUL byte (a stream whose first line is an object stays a
///   stream whatever bytes come later: its bad lines are errors at their
///   places).
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
        b'[' if starts_json_array(first, &nonblank) => Format::JsonArray,
        _ if first[0] != b'{' && memchr::memchr(0, body).is_some() => Format::Binary,
        b'[' => Format::Text,
        b'{' => {
            if first == b"{" {
                return Format::PrettyJson;
            }
            if !first_done {
                return if transcript_votes(&nonblank) > 0 {
                    Format::Transcript
                } else {
                    Format::Ndjson
                };
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
            } else if transcript_votes(&nonblank) > 0 {
                Format::Transcript
            } else {
                Format::Ndjson
            }
        }
        _ => Format::Text,
    }
}

/// True when a `[` on the first line opens a JSON value: what follows it
/// (on that line, or on the next non-blank one) starts a value or closes
/// the array.
fn starts_json_array(first: &[u8], nonblank: &[(&[u8], bool)]) -> bool {
    let after = trim(&first[1..]);
    let next = if after.is_empty() {
        match nonblank.get(1) {
            Some((l, _)) => *l,
            None => return true,
        }
    } else {
        after
    };
    match next[0] {
        b'{' | b'[' | b']' | b'"' | b'-' | b'0'..=b'9' => true,
        b't' => next.starts_with(b"true"),
        b'f' => next.starts_with(b"false"),
        b'n' => next.starts_with(b"null"),
        _ => false,
    }
}

/// Object lines that look like transcript records minus those that look
/// like stream-json events, by their top-level keys (read without
/// validating, up to where the prefix cuts a line). A line's first key that
/// belongs to one dialect decides it, so a record is not walked past its
/// first members (a transcript's `parentUuid` and a stream's `type` and
/// `session_id` come first).
fn transcript_votes(nonblank: &[(&[u8], bool)]) -> i64 {
    let mut votes = 0i64;
    for (l, _) in nonblank.iter().filter(|(l, _)| l.first() == Some(&b'{')) {
        let root = crate::scan::RawValue::starting(l);
        for (k, v) in root.entries() {
            let is = |name: &str| k.str_eq(name);
            if is("session_id") || is("parent_tool_use_id") {
                votes -= 1;
                break;
            }
            let transcript_type = || {
                v.as_raw_str().is_some_and(|t| {
                    [
                        "summary",
                        "file-history-snapshot",
                        "queue-operation",
                        "progress",
                    ]
                    .iter()
                    .any(|n| t.str_eq(n))
                })
            };
            if is("parentUuid")
                || is("sessionId")
                || is("isSidechain")
                || is("leafUuid")
                || is("requestId")
                || is("snapshot")
                || (is("type") && transcript_type())
            {
                votes += 1;
                break;
            }
        }
    }
    votes
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
    logger_prefix_len(l).is_some()
}

/// The length of the logger prefix that starts `l`: one or two groups of
/// `[something]` (1 to 64 bytes with no JSON punctuation), each followed by
/// spaces or tabs (`[2025-10-13T01:16:00.020Z] [INFO] `); `None` without
/// one.
pub(crate) fn logger_prefix_len(l: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut groups = 0;
    while groups < 2 && l.get(i) == Some(&b'[') {
        let window = &l[i + 1..l.len().min(i + 66)];
        let Some(close) = memchr::memchr(b']', window) else {
            break;
        };
        let inner = &window[..close];
        let punct = |b: &u8| matches!(b, b'"' | b'{' | b'}' | b'[' | b',');
        if inner.is_empty() || inner.iter().any(punct) {
            break;
        }
        let after = i + close + 2;
        if !matches!(l.get(after), Some(b' ' | b'\t')) {
            break;
        }
        i = after;
        while matches!(l.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        groups += 1;
    }
    (groups > 0).then_some(i)
}
