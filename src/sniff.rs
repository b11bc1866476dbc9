//! Sniffing: what an input looks like, from its first bytes, and so how it
//! is read, so that an input that is not one JSON object a line gets one
//! clear message (or the reading that fits it) instead of an error on every
//! line.
//!
//! This module is the one place that decides how an input is read, for
//! every command, the library ([`crate::inputs::read_source`],
//! [`crate::runs`]) and the Python package: [`prefix_is_enough`] says when
//! the first bytes held tell the format, [`sniff_format`] tells it,
//! [`FormatChoice::decide`] gives the format an input is read as (what was
//! asked, and whether the bytes held are the whole input), and
//! [`Format::reading`] how.
//!
//! A file is not its first line. Logs start with a warning, a second byte
//! order mark or half a line; the format is told from the first line that
//! opens a JSON value, and the lines before it are read as what they are
//! (errors at their places, in a stream). An input is [`Format::Text`]
//! only when no line of it opens a JSON value: up to [`MAX_HELD`] bytes are
//! held to tell (a live stream is held until its first JSON line), and an
//! input with more text than that before any JSON is read line by line, so
//! that no event after it is lost and memory stays bounded.
//!
//! [`sniff_format`] tells stream-json (NDJSON) from the shapes seen in the
//! wild: a JSON array (`--output-format json`, claude-code-action's
//! execution log), a pretty-printed JSON document, lines behind a logger
//! prefix (`[2025-10-13T01:16:00Z] [INFO] {...`), lines a logger cut at a
//! fixed width, session transcripts (`~/.claude/projects/*/*.jsonl`: one
//! JSON object a line too, but records with `parentUuid`, `sessionId`,
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
//! // A logger's own line first: the events after it decide.
//! assert_eq!(sniff_format(b"[INFO] starting\n{\"type\":\"user\"}\n"), Format::Ndjson);
//! assert!(Format::JsonArray.describe().contains("jq -c '.[]'"));
//! ```

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many non-blank lines [`sniff_format`] looks at, from the first that
/// opens a JSON value (the lines of text before it are passed over,
/// however many).
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
    /// brace: cut by a logger at a fixed width. Read as lines: each is an
    /// error (`truncated` or `invalid_json`) at its place.
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
    /// JSON objects, one a line, none of which is an event: no string
    /// `type` (a model's structured answer such as `{"splittable": false}`,
    /// a settings file). Never told from a prefix: what an input read to
    /// its end without an event is found to be
    /// ([`crate::report::Shape::describe`]); read as lines.
    JsonValues,
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
    /// The format an input is read as (its reading: [`Format::reading`]),
    /// from `held`, its first bytes as
    /// [`prefix_is_enough`] holds them; `whole` when they are all of it.
    /// The format is [`FormatChoice::resolve`]'s, read as
    /// [`Format::reading`] says, but for an input that goes on past bytes
    /// that hold no JSON line ([`MAX_HELD`] of text, or of blank lines): it
    /// is read as stream-json lines ([`Format::Ndjson`],
    /// [`Reading::StreamLines`]), so that an event after them is read and
    /// each line of text is an error at its place (with no event at all, the
    /// input is then found to be text, [`crate::report::Shape::describe`]).
    /// Text is one finding only when the whole of it was seen.
    ///
    /// ```
    /// use cctape::sniff::{Format, FormatChoice, Reading};
    /// let text = b"API Error: Unable to connect to API (ConnectionRefused)\n";
    /// let whole = FormatChoice::Auto.decide(text, true);
    /// assert_eq!((whole, whole.reading()), (Format::Text, Reading::NotEvents));
    /// let goes_on = FormatChoice::Auto.decide(text, false);
    /// assert_eq!((goes_on, goes_on.reading()), (Format::Ndjson, Reading::StreamLines));
    /// ```
    pub fn decide(self, held: &[u8], whole: bool) -> Format {
        let mut format = self.resolve(held);
        if matches!(format, Format::Empty | Format::Text) && !whole {
            format = match self {
                FormatChoice::Json => Format::PrettyJson,
                FormatChoice::Transcript => Format::Transcript,
                _ => Format::Ndjson,
            };
        }
        format
    }

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
    /// How the format is read.
    pub fn reading(self) -> Reading {
        match self {
            Format::Ndjson | Format::CutLines | Format::JsonValues => Reading::StreamLines,
            Format::JsonArray | Format::PrettyJson => Reading::StreamElements,
            Format::Transcript => Reading::TranscriptLines,
            Format::LoggerPrefixed => Reading::LoggedElements,
            Format::Empty | Format::Text | Format::Binary => Reading::NotEvents,
        }
    }

    /// A short stable name for JSON output and tables (`stream`,
    /// `json-array`, `json-pretty`, `transcript`, `text`, `binary`, `empty`,
    /// `logger-prefixed`, `cut-lines`, `json-values`).
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
            Format::JsonValues => "json-values",
        }
    }

    /// A sentence for the user: what an input without events looks like and
    /// what to do (an input with events needs none).
    pub fn describe(self) -> &'static str {
        match self {
            Format::Empty => {
                "the input is empty (no bytes, or only whitespace): there are no events to read"
            }
            Format::Ndjson => {
                "one JSON object a line, as stream-json is, but no line of it is an event: each line's error \
                 says why"
            }
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
            Format::Text => "the input is text, not JSON: no line of it starts a JSON value",
            Format::Binary => {
                "the input is binary data, not JSON or text (it holds NUL bytes): compressed inputs are read \
                 when they are gzip, zstd, xz, bzip2 or LZ4; decompress other formats first"
            }
            Format::Transcript => {
                "a Claude Code session transcript (`~/.claude/projects`): one record a line, read as transcript \
                 records"
            }
            Format::JsonValues => {
                "the input is JSON values, not stream-json events: no object in it has a string `type` (a \
                 model's structured answer or a settings file, say), so it is not a stream and holds no run"
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
/// A file is not its first line: logs start with a warning (`claude ...
/// 2>&1` puts Node's on stdout), a second byte order mark, a logger's
/// `[INFO]` line, or half a line (a file cut with `split -b` or `tail -c`).
/// So the format is told from the first line that opens a JSON value (`{`,
/// or `[` and a value, behind byte order marks, whitespace or a logger
/// prefix); the lines of text before it do not decide, and the reading
/// makes each of them an error at its place. An input is
/// [`Format::Text`] only when no line of the prefix opens a JSON value.
///
/// Rules (byte order marks, spaces, tabs and CRs around a line ignored):
/// - no non-blank byte: [`Format::Empty`];
/// - no line that opens a JSON value: [`Format::Binary`] when the prefix
///   holds a NUL byte (as ripgrep tells binary files), else
///   [`Format::LoggerPrefixed`] when a line carries a logger prefix, else
///   [`Format::Text`] (`API Error: ...`, `[Stream timed out]`);
/// - a NUL byte in the lines before the first that opens a JSON value:
///   [`Format::Binary`] (a stream whose first JSON line came first stays a
///   stream whatever bytes come later: its bad lines are errors at their
///   places);
/// - otherwise, on the lines from that first JSON line on (64 of them):
///   - a logger prefix before the value, or on more of the lines than hold
///     a JSON object: [`Format::LoggerPrefixed`];
///   - `[`: [`Format::JsonArray`];
///   - `{` alone on the line, or a line that opens an object and whose next
///     line is an indented `"key":`: [`Format::PrettyJson`];
///   - every complete line that starts with `{` stops short of a closing
///     `}`: [`Format::CutLines`];
///   - otherwise [`Format::Transcript`] when more of the object lines carry
///     the transcript's top-level keys (`parentUuid`, `sessionId`,
///     `isSidechain`, `leafUuid`, `requestId`, `snapshot`, or a `type` only
///     transcripts have) than the stream's (`session_id`,
///     `parent_tool_use_id`), else [`Format::Ndjson`] (a line longer than
///     the prefix counts as one object; its keys up to the cut are read).
///
/// ```
/// use cctape::sniff::{sniff_format, Format};
///
/// // A Node warning on stdout before the events: a stream, its warning an
/// // error at line 1 when read.
/// let log = b"(node:7) Warning: something\n{\"type\":\"system\",\"subtype\":\"init\"}\n";
/// assert_eq!(sniff_format(log), Format::Ndjson);
/// // A file cut by `tail -c`: its first line is the end of an event.
/// assert_eq!(sniff_format(b"1}]}}\n{\"type\":\"result\"}\n"), Format::Ndjson);
/// assert_eq!(sniff_format(b"Working...\nError: Reached max turns (30)\n"), Format::Text);
/// ```
pub fn sniff_format(prefix: &[u8]) -> Format {
    let body = strip_boms(prefix);
    let mut saw_text = false;
    let mut logged = false;
    let mut start = None;
    let mut rest = body;
    let mut at = 0;
    while !rest.is_empty() {
        let (line, next) = split_line(rest);
        match line_kind(line) {
            LineKind::Blank => {}
            LineKind::Json | LineKind::LoggedJson
                if !is_lone_bracket(line) || value_follows(next) =>
            {
                start = Some(at);
                break;
            }
            LineKind::LoggedText => {
                saw_text = true;
                logged = true;
            }
            _ => saw_text = true,
        }
        at += rest.len() - next.len();
        rest = next;
    }
    let Some(start) = start else {
        return if !saw_text {
            Format::Empty
        } else if memchr::memchr(0, body).is_some() {
            Format::Binary
        } else if logged {
            Format::LoggerPrefixed
        } else {
            Format::Text
        };
    };
    if memchr::memchr(0, &body[..start]).is_some() {
        return Format::Binary;
    }
    from_json_line(&body[start..])
}

/// The format of `window`, whose first line opens a JSON value (see
/// [`sniff_format`]).
fn from_json_line(window: &[u8]) -> Format {
    // Its non-blank lines, trimmed, and whether each is complete (ended by
    // an LF within the prefix).
    let mut lines: Vec<(&[u8], bool)> = Vec::new();
    let mut rest = window;
    while lines.len() < LINES_LOOKED_AT && !rest.is_empty() {
        let (line, next) = split_line(rest);
        // An LF ends it within the prefix.
        let done = line.len() < rest.len();
        let l = trim_line(line);
        if !l.is_empty() {
            lines.push((l, done));
        }
        rest = next;
    }
    let Some(&(first, first_done)) = lines.first() else {
        return Format::Empty;
    };
    let (head, after) = split_line(window);
    if line_kind(head) == LineKind::LoggedJson {
        return Format::LoggerPrefixed;
    }
    let logger = lines.iter().filter(|(l, _)| is_logger_line(l)).count();
    let objects = lines
        .iter()
        .filter(|(l, _)| l.first() == Some(&b'{'))
        .count();
    if logger > 0 && logger >= objects {
        return Format::LoggerPrefixed;
    }
    if first[0] == b'[' {
        return Format::JsonArray;
    }
    if first == b"{" {
        return Format::PrettyJson;
    }
    if !first_done {
        return if transcript_votes(&lines) > 0 {
            Format::Transcript
        } else {
            Format::Ndjson
        };
    }
    let second_is_member = lines
        .get(1)
        .is_some_and(|(l, _)| l.first() == Some(&b'"') && memchr::memchr(b':', l).is_some());
    let closed = |l: &[u8]| l.last() == Some(&b'}');
    let mut complete = lines
        .iter()
        .filter(|(l, done)| *done && l.first() == Some(&b'{'));
    if !closed(first) && second_is_member && indented_first(after) {
        Format::PrettyJson
    } else if complete.all(|(l, _)| !closed(l)) {
        Format::CutLines
    } else if transcript_votes(&lines) > 0 {
        Format::Transcript
    } else {
        Format::Ndjson
    }
}

/// What one line is, for telling a format: whether it opens a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineKind {
    /// Spaces, tabs, CRs and byte order marks only.
    Blank,
    /// `{`, or `[` and a value (or `[` alone).
    Json,
    /// A logger prefix, then `{` or `[` and a value.
    LoggedJson,
    /// A logger prefix, then text.
    LoggedText,
    /// Anything else.
    Text,
}

fn line_kind(line: &[u8]) -> LineKind {
    let l = trim_line(line);
    match l.first() {
        None => LineKind::Blank,
        Some(b'{') => LineKind::Json,
        Some(b'[') => match logger_prefix_len(l) {
            Some(n) => {
                let rest = trim_line(&l[n..]);
                if rest.first() == Some(&b'{') || (rest.first() == Some(&b'[') && opens_array(rest))
                {
                    LineKind::LoggedJson
                } else {
                    LineKind::LoggedText
                }
            }
            None if opens_array(l) => LineKind::Json,
            None => LineKind::Text,
        },
        Some(_) => LineKind::Text,
    }
}

/// True when `l`, which starts with `[`, opens a JSON array: what follows
/// on the line starts a value or closes the array, or nothing follows.
fn opens_array(l: &[u8]) -> bool {
    let after = trim(&l[1..]);
    after.is_empty() || starts_value(after)
}

/// True for a line that is `[` alone: whether it opens an array is told by
/// the next non-blank line.
fn is_lone_bracket(line: &[u8]) -> bool {
    trim_line(line) == b"["
}

/// True when the first non-blank line of `rest` starts a JSON value or
/// closes an array, or there is none (the prefix ends first).
fn value_follows(mut rest: &[u8]) -> bool {
    while !rest.is_empty() {
        let (line, next) = split_line(rest);
        let l = trim_line(line);
        if !l.is_empty() {
            return starts_value(l);
        }
        rest = next;
    }
    true
}

/// True when `b` starts a JSON value or closes an array.
fn starts_value(b: &[u8]) -> bool {
    match b[0] {
        b'{' | b'[' | b']' | b'"' | b'-' | b'0'..=b'9' => true,
        b't' => b.starts_with(b"true"),
        b'f' => b.starts_with(b"false"),
        b'n' => b.starts_with(b"null"),
        _ => false,
    }
}

/// The first line of `b` (without its LF) and what follows its LF.
fn split_line(b: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'\n', b) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &[]),
    }
}

/// `b` without the byte order marks it starts with (a file concatenated
/// from UTF-8 files with marks has several).
fn strip_boms(mut b: &[u8]) -> &[u8] {
    while let Some(rest) = b.strip_prefix(BOM) {
        b = rest;
    }
    b
}

/// The line without the whitespace around it and the byte order marks it
/// starts with.
fn trim_line(l: &[u8]) -> &[u8] {
    trim(strip_boms(trim(l)))
}

/// How much of an input's first bytes [`prefix_is_enough`] wants at least
/// before it calls a line that opens JSON but has not ended, or a NUL
/// byte, enough.
pub const SNIFF_BYTES: usize = 64 << 10;

/// The most of an input's first bytes held to tell its format: 1 MiB. An
/// input whose first MiB holds no line that opens a JSON value and goes on
/// is read line by line ([`FormatChoice::decide`]): its lines of text are
/// then errors, each at its place, and its events are read.
pub const MAX_HELD: usize = 1 << 20;

/// True when `held`, the first bytes of an input, say its format: they
/// hold a complete line that opens a JSON value (the lines of text before
/// it do not decide), or [`SNIFF_BYTES`] with such a line started or a NUL
/// byte before it (binary), or [`MAX_HELD`] bytes. The caller also stops
/// at the input's end. A reader of a live stream holds its first bytes
/// until then: a harness's warning on the first line waits for the first
/// event, not for the end.
///
/// ```
/// use cctape::sniff::prefix_is_enough;
/// assert!(!prefix_is_enough(b"(node:7) Warning: something\n"));
/// assert!(prefix_is_enough(b"(node:7) Warning: something\n{\"type\":\"user\"}\n"));
/// assert!(!prefix_is_enough(b"{\"type\":\"us"));
/// ```
pub fn prefix_is_enough(held: &[u8]) -> bool {
    if held.len() >= MAX_HELD {
        return true;
    }
    let long = held.len() >= SNIFF_BYTES;
    let mut rest = strip_boms(held);
    while !rest.is_empty() {
        let (line, next) = split_line(rest);
        let complete = line.len() < rest.len();
        match line_kind(line) {
            LineKind::Json | LineKind::LoggedJson => return complete || long,
            LineKind::Blank => {}
            LineKind::Text | LineKind::LoggedText => {
                if long && memchr::memchr(0, line).is_some() {
                    return true;
                }
            }
        }
        rest = next;
    }
    false
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
        let root = crate::json::RawValue::starting(l);
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

/// True when the first non-blank line of `rest` starts with whitespace
/// (pretty-printers indent members).
fn indented_first(rest: &[u8]) -> bool {
    let mut it = rest.split(|&b| b == b'\n').filter(|l| !trim(l).is_empty());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs whose first line is not JSON, and what they are.
    fn cases() -> Vec<(&'static str, Vec<u8>, Format)> {
        let run = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s\"}\n";
        let with = |head: &[u8]| [head, &run[..]].concat();
        let mut log = b"Solution draft log\n\n# Log\n".to_vec();
        for i in 0..50 {
            log.extend(format!("[2025-11-04T04:47:2{}.98Z] [INFO] step {i}\n", i % 10).bytes());
        }
        log.extend(b"[2025-11-04T04:48:05.544Z] [INFO] {\n[2025-11-04T04:48:05.544Z] [INFO]   \"type\": \"user\"\n");
        vec![
            (
                "node",
                with(b"(node:7) Warning: x\n(Use `node --trace-warnings ...`)\n"),
                Format::Ndjson,
            ),
            ("boms", with(b"\xEF\xBB\xBF\xEF\xBB\xBF"), Format::Ndjson),
            (
                "info",
                with(b"[2026-01-05T10:00:00Z] [INFO] starting\n"),
                Format::Ndjson,
            ),
            ("tail-c", with(b"t\":\"x\"}]}}\n"), Format::Ndjson),
            ("text", b"API Error: 500\n\nbye\n".to_vec(), Format::Text),
            (
                "stream-timeout",
                b"[Stream timed out after 159s]\n".to_vec(),
                Format::Text,
            ),
            (
                "pretty after text",
                with(b"note\n{\n  \"type\": \"user\"\n}\n"),
                Format::PrettyJson,
            ),
            (
                "array after text",
                b"note\n[\n  {\"type\": \"user\"}\n]\n".to_vec(),
                Format::JsonArray,
            ),
            ("logger", log, Format::LoggerPrefixed),
            (
                "binary first",
                with(b"\x00\x01\x02garbage\n"),
                Format::Binary,
            ),
        ]
    }

    #[test]
    fn the_first_json_line_decides_and_a_stream_prefix_decides_as_the_whole() {
        for (name, bytes, want) in cases() {
            assert_eq!(sniff_format(&bytes), want, "{name}");
            // A pipe's prefix: the bytes up to where they are enough
            // (else the whole input, held to its end); the same decision.
            let enough = (0..=bytes.len()).find(|&cut| prefix_is_enough(&bytes[..cut]));
            let held = &bytes[..enough.unwrap_or(bytes.len())];
            assert_eq!(
                sniff_format(held),
                want,
                "{name}: held {} bytes",
                held.len()
            );
            // Only text, logs without JSON and binary data are held whole.
            if enough.is_none() {
                assert!(matches!(want, Format::Text | Format::Binary), "{name}");
            }
        }
    }

    #[test]
    fn text_is_text_only_when_it_was_all_seen() {
        let text = b"I changed two files.\n".repeat(10);
        let whole = FormatChoice::Auto.decide(&text, true);
        assert_eq!((whole, whole.reading()), (Format::Text, Reading::NotEvents));
        let more = FormatChoice::Auto.decide(&text, false);
        assert_eq!(
            (more, more.reading()),
            (Format::Ndjson, Reading::StreamLines)
        );
        assert_eq!(FormatChoice::Auto.decide(b"\n\n", false), Format::Ndjson);
        assert_eq!(FormatChoice::Auto.decide(b"\n\n", true), Format::Empty);
        assert_eq!(FormatChoice::Json.decide(b"", false), Format::PrettyJson);
        assert_eq!(FormatChoice::Stream.decide(&text, true), Format::Ndjson);
        // Held bytes: text alone never decides before MAX_HELD.
        assert!(!prefix_is_enough(&text));
        assert!(prefix_is_enough(&vec![b'a'; MAX_HELD]));
        let cut_lines = b"{\"type\":\"result\",\"subty\n{\"type\":\"result\",\"subty\n";
        assert_eq!(sniff_format(cut_lines), Format::CutLines);
        assert_eq!(Format::CutLines.reading(), Reading::StreamLines);
    }
}
