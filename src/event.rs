//! Events: what a parsed line is, and its hot fields, read lazily.
//!
//! This module owns [`EventKind`] (from `type` and `subtype`, whatever their
//! position among the keys; one kind for the stream's events and the
//! transcripts' records), [`Event`] (a parsed line known to be an event, in
//! either dialect), [`Field`] (missing, null or a value), and the rules
//! both dialects' folds read a message by: its `usage` (one reader of the
//! counts) and its content blocks (`blocks`: tool calls, results and
//! whether they failed, interrupts). An event reads
//! its line through the structural index the validating scan wrote
//! ([`crate::json::Value`]): nothing here allocates, every accessor jumps
//! through the index and borrows from the line (or from the arena its
//! escaped strings are unescaped into, [`crate::json::Strings`]).

use crate::error::{Error, Position};
use crate::framing::Line;
use crate::json::{IndexedLines, Members, Scanned, Scanner, Value};
use std::cell::RefCell;
use std::fmt;

pub(crate) mod blocks;
mod kind;
pub use kind::EventKind;
pub(crate) mod usage;
pub(crate) use usage::UsageFields;

/// A field that the reference types as `T | null`: missing, null, or a
/// value. A value of the wrong JSON type reads as [`Field::Missing`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Field<T> {
    /// The key is absent (or holds the wrong JSON type).
    #[default]
    Missing,
    /// The key holds `null`.
    Null,
    /// The key holds a value.
    Value(T),
}

impl<T> Field<T> {
    /// The value, if there is one.
    pub fn value(self) -> Option<T> {
        match self {
            Field::Value(v) => Some(v),
            _ => None,
        }
    }

    /// True for [`Field::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Field::Null)
    }

    /// True for [`Field::Missing`].
    pub fn is_missing(&self) -> bool {
        matches!(self, Field::Missing)
    }

    /// Map the value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Field<U> {
        match self {
            Field::Missing => Field::Missing,
            Field::Null => Field::Null,
            Field::Value(v) => Field::Value(f(v)),
        }
    }

    /// Read a field from an optional value with a typed getter.
    pub(crate) fn read<'d>(
        v: Option<Value<'d>>,
        get: impl FnOnce(&Value<'d>) -> Option<T>,
    ) -> Field<T> {
        match v {
            None => Field::Missing,
            Some(v) if v.is_null() => Field::Null,
            Some(v) => match get(&v) {
                Some(t) => Field::Value(t),
                None => {
                    v.note_mismatch();
                    Field::Missing
                }
            },
        }
    }
}

/// The four token counts of a model call (`message.usage`). Missing counts
/// read as 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TokenCounts {
    /// `input_tokens`: input not read from the cache.
    pub input_tokens: u64,
    /// `output_tokens`: output, thinking included.
    pub output_tokens: u64,
    /// `cache_read_input_tokens`.
    pub cache_read_input_tokens: u64,
    /// `cache_creation_input_tokens`.
    pub cache_creation_input_tokens: u64,
}

impl TokenCounts {
    /// Read the four counts of a usage object.
    pub(crate) fn from_usage(u: Value<'_>) -> TokenCounts {
        let f = UsageFields::of(u);
        TokenCounts {
            input_tokens: f.count_or_0(0),
            output_tokens: f.count_or_0(1),
            cache_read_input_tokens: f.count_or_0(2),
            cache_creation_input_tokens: f.count_or_0(3),
        }
    }

    /// Add another call's counts (saturating: counts come from the input,
    /// which may hold any u64).
    pub fn add(&mut self, o: &TokenCounts) {
        self.input_tokens = self.input_tokens.saturating_add(o.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(o.output_tokens);
        self.cache_read_input_tokens = self
            .cache_read_input_tokens
            .saturating_add(o.cache_read_input_tokens);
        self.cache_creation_input_tokens = self
            .cache_creation_input_tokens
            .saturating_add(o.cache_creation_input_tokens);
    }

    /// All four summed (saturating at `u64::MAX`).
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_read_input_tokens)
            .saturating_add(self.cache_creation_input_tokens)
    }
}

/// A validated line that is an event: a JSON object with a string `type`,
/// read through its structural index.
///
/// Borrowed from the [`Scanner`] (or the batch) that read it; drop it before
/// reading the next line (or copy out what must outlive it). The readers of
/// [`crate::stream`] hand events out; one line is read with
/// [`parse_event`].
///
/// ```
/// use cctape::event::parse_event;
/// use cctape::framing::Lines;
/// use cctape::json::Scanner;
/// use cctape::views::View;
/// use cctape::EventKind;
///
/// let line = br#"{"type":"assistant","message":{"id":"msg_01","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":3,"output_tokens":7}},"parent_tool_use_id":"toolu_9","session_id":"5b1e","uuid":"u-1"}"#;
/// let mut scanner = Scanner::new();
/// let line = Lines::new(line).next().unwrap();
/// let ev = parse_event(&mut scanner, &line)?;
/// assert_eq!(ev.kind(), EventKind::Assistant);
/// assert_eq!(ev.session_id(), Some("5b1e"));
/// // null, absent and present are three answers.
/// assert_eq!(ev.parent_tool_use_id().value(), Some("toolu_9"));
/// assert_eq!(ev.usage().unwrap_or_default().output_tokens, 7);
/// // Any field by path, and a typed view per kind.
/// assert_eq!(ev.get_path("message.model").and_then(|v| v.as_str()), Some("claude-sonnet-4-5"));
/// assert!(matches!(ev.view(), View::Assistant(_)));
/// # Ok::<(), cctape::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Event<'t> {
    root: Value<'t>,
    line: Line<'t>,
    kind: EventKind,
    /// Where the root's members that the readers ask for are (one walk at
    /// the event's making; `None` when the root cannot be read so).
    top: Option<Members<TOP>>,
    /// The same for `message`'s members, on events that carry one.
    msg: Option<Members<MSG>>,
}

/// The root keys the folds and views read, each with its slot.
const TOP: usize = 16;
#[inline(always)]
const fn top_slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"type" => 0,
        b"subtype" => 1,
        b"session_id" => 2,
        b"uuid" => 3,
        b"parent_tool_use_id" => 4,
        b"timestamp" => 5,
        b"message" => 6,
        b"is_error" => 7,
        b"num_turns" => 8,
        b"duration_ms" => 9,
        b"total_cost_usd" => 10,
        b"cost_usd" => 11,
        b"total_cost" => 12,
        b"usage" => 13,
        b"tool_use_result" => 14,
        b"event" => 15,
        _ => return None,
    })
}
/// `message`'s slot, from the table itself.
const MESSAGE: usize = match top_slot(b"message") {
    Some(i) => i,
    None => panic!("message has a slot"),
};

/// The keys of `message` read on every assistant and user event.
const MSG: usize = 6;
#[inline(always)]
fn msg_slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"id" => 0,
        b"model" => 1,
        b"usage" => 2,
        b"content" => 3,
        b"stop_reason" => 4,
        b"role" => 5,
        _ => return None,
    })
}

impl fmt::Debug for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("kind", &self.kind)
            .field("line", &self.line.number)
            .field("offset", &self.line.offset)
            .finish()
    }
}

/// Validate `line` with `scanner`, index it and check that it is an event.
///
/// Errors: [`ErrorKind::InvalidJson`](crate::ErrorKind::InvalidJson),
/// `invalid_utf8`, `not_an_object`, `too_deep`, `truncated` (an
/// unterminated last line that is not complete JSON),
/// [`ErrorKind::MissingType`](crate::ErrorKind::MissingType) (no `type` or
/// not a string) and
/// [`ErrorKind::DuplicateKey`](crate::ErrorKind::DuplicateKey) (a top-level
/// `type` or `subtype` given twice with different values). A line that is
/// not JSON is told as the tape parser tells it (what was expected, where),
/// read again on that rare path only.
///
/// ```
/// use cctape::event::{parse_event, EventKind};
/// use cctape::framing::Lines;
/// use cctape::json::Scanner;
///
/// let mut scanner = Scanner::new();
/// let input = br#"{"is_error":false,"subtype":"success","num_turns":3,"type":"result"}"#;
/// let line = Lines::new(input).next().unwrap();
/// let ev = parse_event(&mut scanner, &line).unwrap();
/// assert_eq!(ev.kind(), EventKind::ResultSuccess);
/// assert_eq!(ev.num_turns(), Some(3));
/// ```
pub fn parse_event<'t>(scanner: &'t mut Scanner, line: &Line<'t>) -> Result<Event<'t>, Error> {
    match scanner.scan(line) {
        Ok(s) => Ok(Event::scanned(&s)),
        Err(e) => Err(told(line, e)),
    }
}

/// [`parse_event`] into a batch of lines read ahead: the line's nodes are
/// appended to `batch`; returns the line's index there and its kind.
pub(crate) fn parse_event_into(
    scanner: &mut Scanner,
    line: &Line<'_>,
    batch: &mut IndexedLines,
) -> Result<(usize, EventKind), Error> {
    match scanner.scan(line) {
        Ok(s) => Ok((batch.push(&s), s.kind())),
        Err(e) => Err(told(line, e)),
    }
}

thread_local! {
    /// The tape parser that tells what a line that is not JSON lacks (made
    /// on a thread's first bad line, kept for the next).
    static TELLER: RefCell<Option<crate::json::tape::Parser>> = const { RefCell::new(None) };
}

/// The error for a line the scanner rejected, as every reader tells it: a
/// line that is not JSON (or is cut, too deep, not UTF-8) as the tape
/// parser describes it, with the same kind.
#[cold]
fn told(line: &Line<'_>, e: Error) -> Error {
    use crate::ErrorKind as K;
    if !matches!(
        e.kind(),
        K::InvalidJson | K::Truncated | K::TooDeep | K::InvalidUtf8
    ) {
        return e;
    }
    let told = TELLER
        .try_with(|t| {
            let mut t = t.try_borrow_mut().ok()?;
            let parser = t.get_or_insert_with(crate::json::tape::Parser::new);
            parser.tell(line)
        })
        .ok()
        .flatten();
    match told {
        // The tape's words, in the scanner's error's allocation.
        Some((kind, pos, reason)) if kind == e.kind() => e.restated(kind, pos, reason),
        _ => e,
    }
}

/// A scanned line read as an event (here, not in [`crate::json`], which
/// knows nothing of events but their kind).
impl<'s> Scanned<'s> {
    /// The line read as an event, with this scan's kind: every field
    /// through the one reader of fields, [`Event`], without its member
    /// tables (a scanned line's readers ask for a few fields) (through the index when
    /// validated, from the unchecked bytes in trusting mode).
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"assistant","session_id":"s1","message":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash"}]}}"#).next().unwrap();
    /// let ev = scanner.scan(&line).unwrap().event();
    /// assert_eq!((ev.session_id(), ev.model(), ev.tool_name()), (Some("s1"), Some("m"), Some("Bash")));
    /// ```
    #[inline]
    pub fn event(&self) -> Event<'s> {
        Event::from_parts(self.value(), self.line(), self.kind())
    }

    /// The line read as a session transcript's record: the same event, its
    /// kind from the record's `type` and `subtype`
    /// ([`EventKind::from_record_type`]), so that [`Event::kind`] is one of
    /// [`EventKind::RECORDS`]. Its typed view is
    /// [`RecordView::of`](crate::transcript::RecordView::of).
    ///
    /// ```
    /// use cctape::EventKind;
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    ///
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(br#"{"type":"file-history-snapshot","messageId":"m1"}"#).next().unwrap();
    /// let rec = scanner.scan(&line).unwrap().record();
    /// assert_eq!(rec.kind(), EventKind::FileHistorySnapshot);
    /// ```
    #[inline]
    pub fn record(&self) -> Event<'s> {
        let kind = EventKind::from_record_type(self.raw_type(), self.raw_subtype());
        Event::from_parts(self.value(), self.line(), kind)
    }
}

impl<'t> Event<'t> {
    /// The event of a line the scanner validated and classified.
    #[inline]
    pub(crate) fn scanned(s: &Scanned<'t>) -> Event<'t> {
        Event::tabled(s.value(), s.line(), s.kind())
    }

    /// An event whose root's (and message's) wanted members are found now,
    /// in one walk each.
    #[inline]
    fn tabled(root: Value<'t>, line: Line<'t>, kind: EventKind) -> Event<'t> {
        let top = root.members(top_slot);
        let msg = top
            .as_ref()
            .and_then(|t| root.member(t, MESSAGE))
            .and_then(|m| m.members(msg_slot));
        Event {
            root,
            line,
            kind,
            top,
            msg,
        }
    }

    /// An event over any value of `line` taken as classified `kind` (no
    /// check): for the opt-in tape backend in differential tests, whose
    /// events then read through the same accessors.
    #[doc(hidden)]
    #[inline]
    pub fn from_parts(root: Value<'t>, line: Line<'t>, kind: EventKind) -> Event<'t> {
        Event {
            root,
            line,
            kind,
            top: None,
            msg: None,
        }
    }

    /// Line `index` of `batch` (read from `line`, the bytes it was scanned
    /// from), classified as `kind` when it was read: the line read again
    /// through the index kept there
    /// ([`IndexedLines::push_root`](crate::json::IndexedLines::push_root)), not
    /// scanned again.
    ///
    /// ```
    /// use cctape::event::{Event, parse_event};
    /// use cctape::framing::Lines;
    /// use cctape::json::{IndexedLines, Scanner};
    ///
    /// let input = b"{\"type\":\"assistant\",\"uuid\":\"u1\",\"message\":{\"model\":\"claude\"}}\n";
    /// let (mut scanner, mut batch) = (Scanner::new(), IndexedLines::new());
    /// let line = Lines::new(input).next().unwrap();
    /// let (i, kind) = {
    ///     let ev = parse_event(&mut scanner, &line).unwrap();
    ///     (batch.push_root(&ev.root(), ev.raw()).unwrap(), ev.kind())
    /// };
    /// let ev = Event::in_batch(&batch, i, line, kind);
    /// assert_eq!((ev.uuid(), ev.model()), (Some("u1"), Some("claude")));
    /// ```
    #[inline]
    pub fn in_batch(
        batch: &'t IndexedLines,
        index: usize,
        line: Line<'t>,
        kind: EventKind,
    ) -> Event<'t> {
        Event::tabled(batch.value(index, line.bytes), line, kind)
    }
}

impl<'t> Event<'t> {
    /// What this event is.
    #[inline]
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// The root object, for any field (generic borrowed access).
    #[inline]
    pub fn root(&self) -> Value<'t> {
        self.root
    }

    /// The top-level value of `key`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'t>> {
        if let Some(t) = &self.top
            && let Some(i) = top_slot(key.as_bytes())
        {
            return self.root.member(t, i);
        }
        self.root.get(key)
    }

    /// The value of `key` in `message` (on assistant and user events).
    #[inline]
    pub(crate) fn message_get(&self, key: &str) -> Option<Value<'t>> {
        if let Some(t) = &self.msg
            && let Some(i) = msg_slot(key.as_bytes())
        {
            return self.message()?.member(t, i);
        }
        self.message()?.get(key)
    }

    /// The value at a dotted path (`"message.usage.output_tokens"`).
    pub fn get_path(&self, path: &str) -> Option<Value<'t>> {
        if self.top.is_none() {
            return self.root.get_path(path);
        }
        match path.split_once('.') {
            Some((first, rest)) => self.get(first)?.get_path(rest),
            None if path.is_empty() => Some(self.root),
            None => self.get(path),
        }
    }

    /// The line exactly as read, without its LF.
    pub fn raw(&self) -> &'t [u8] {
        self.line.bytes
    }

    /// The line's position.
    pub fn position(&self) -> Position {
        self.line.position()
    }

    /// 1-based line number.
    pub fn line(&self) -> u64 {
        self.line.number
    }

    /// 0-based byte offset of the line.
    pub fn offset(&self) -> u64 {
        self.line.offset
    }

    fn str_field(&self, key: &str) -> Option<&'t str> {
        self.get(key)?.as_str()
    }

    /// `type`, as written.
    pub fn raw_type(&self) -> &'t str {
        self.get("type")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    }

    /// `subtype`, if it is a string.
    pub fn raw_subtype(&self) -> Option<&'t str> {
        self.get("subtype").and_then(|v| v.as_str())
    }

    /// `session_id`.
    pub fn session_id(&self) -> Option<&'t str> {
        self.str_field("session_id")
    }

    /// `uuid` (absent on `system/api_retry` and old streams).
    pub fn uuid(&self) -> Option<&'t str> {
        self.str_field("uuid")
    }

    /// `parent_tool_use_id`: null on the main agent, the launching Agent
    /// call's id inside a subagent, missing on events that do not carry it.
    pub fn parent_tool_use_id(&self) -> Field<&'t str> {
        Field::read(self.get("parent_tool_use_id"), |v| v.as_str())
    }

    /// `timestamp` (ISO 8601) on assistant and user events.
    pub fn timestamp(&self) -> Option<&'t str> {
        self.str_field("timestamp")
    }

    /// `message` on assistant and user events.
    #[inline]
    pub fn message(&self) -> Option<Value<'t>> {
        self.get("message")
    }

    /// `message.id` (`msg_...`; a uuid on synthetic messages).
    pub fn message_id(&self) -> Option<&'t str> {
        self.message_get("id")?.as_str()
    }

    /// `message.model`.
    pub fn model(&self) -> Option<&'t str> {
        self.message_get("model")?.as_str()
    }

    /// `message.usage`, as the four token counts.
    pub fn usage(&self) -> Option<TokenCounts> {
        self.message_get("usage").map(TokenCounts::from_usage)
    }

    /// The message's single content block (`message.content[0]`), when
    /// `content` is an array.
    pub fn content_block(&self) -> Option<Value<'t>> {
        self.message_get("content")?.index(0)
    }

    /// The content block's `type` (`text`, `thinking`, `tool_use`,
    /// `tool_result`).
    pub fn content_block_type(&self) -> Option<&'t str> {
        self.content_block()?.get("type")?.as_str()
    }

    /// For a `tool_use` block: its `id`.
    pub fn tool_use_id(&self) -> Option<&'t str> {
        let b = self.content_block()?;
        if b.get("type")?.as_str()? != "tool_use" {
            return None;
        }
        b.get("id")?.as_str()
    }

    /// For a `tool_use` block: the tool's `name`.
    pub fn tool_name(&self) -> Option<&'t str> {
        let b = self.content_block()?;
        if b.get("type")?.as_str()? != "tool_use" {
            return None;
        }
        b.get("name")?.as_str()
    }

    /// For a `tool_result` block: the `tool_use_id` it answers.
    pub fn tool_result_id(&self) -> Option<&'t str> {
        let b = self.content_block()?;
        if b.get("type")?.as_str()? != "tool_result" {
            return None;
        }
        b.get("tool_use_id")?.as_str()
    }

    /// For a `tool_result` block: `is_error` (often absent on success).
    pub fn tool_result_is_error(&self) -> Option<bool> {
        let b = self.content_block()?;
        if b.get("type")?.as_str()? != "tool_result" {
            return None;
        }
        b.get("is_error")?.as_bool()
    }

    /// `is_error` of a result.
    pub fn is_error(&self) -> Option<bool> {
        self.get("is_error")?.as_bool()
    }

    /// `subtype` of a system or result event.
    pub fn subtype(&self) -> Option<&'t str> {
        self.raw_subtype()
    }

    /// `num_turns` of a result.
    pub fn num_turns(&self) -> Option<u64> {
        self.get("num_turns")?.as_u64()
    }

    /// `duration_ms` of a result.
    pub fn duration_ms(&self) -> Option<u64> {
        self.get("duration_ms")?.as_u64()
    }

    /// `total_cost_usd` of a result, or the older `cost_usd` / `total_cost`
    /// of 1.0.x streams.
    pub fn total_cost_usd(&self) -> Option<f64> {
        ["total_cost_usd", "cost_usd", "total_cost"]
            .iter()
            .find_map(|k| self.get(k).and_then(|v| v.as_f64()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::framing::Lines;

    fn kind_of(s: &str) -> Result<EventKind, ErrorKind> {
        let mut p = Scanner::new();
        let line = Lines::new(s.as_bytes()).next().unwrap();
        parse_event(&mut p, &line)
            .map(|e| e.kind())
            .map_err(|e| e.kind())
    }

    #[test]
    fn kinds_from_type_and_subtype_anywhere() {
        assert_eq!(
            kind_of(r#"{"type":"system","subtype":"init"}"#),
            Ok(EventKind::SystemInit)
        );
        assert_eq!(
            kind_of(r#"{"is_error":true,"subtype":"error_max_turns","type":"result"}"#),
            Ok(EventKind::ResultErrorMaxTurns)
        );
        assert_eq!(kind_of(r#"{"type":"result"}"#), Ok(EventKind::ResultOther));
        assert_eq!(
            kind_of(r#"{"type":"system","subtype":"local_command"}"#),
            Ok(EventKind::SystemOther)
        );
        assert_eq!(kind_of(r#"{"type":"progress"}"#), Ok(EventKind::Unknown));
        assert_eq!(
            kind_of(r#"{"type":"control_cancel_request","request_id":"x"}"#),
            Ok(EventKind::ControlCancelRequest)
        );
    }

    #[test]
    fn member_tables_read_as_get_does() {
        let mut p = Scanner::new();
        let read = |p: &mut Scanner, s: &str, f: &dyn Fn(&Event<'_>)| {
            let line = Lines::new(s.as_bytes()).next().unwrap();
            f(&parse_event(p, &line).unwrap());
        };
        // A key given twice: the first wins, in the root and in `message`,
        // as `Value::get` finds it; absent keys are absent.
        read(
            &mut p,
            r#"{"type":"assistant","session_id":"a","message":{"model":"m","id":"i","model":"n","usage":{"output_tokens":4}},"session_id":"b","num_turns":"x"}"#,
            &|ev| {
                assert_eq!(ev.session_id(), Some("a"));
                assert_eq!(ev.model(), Some("m"));
                assert_eq!(ev.message_id(), Some("i"));
                assert_eq!(ev.usage().map(|u| u.output_tokens), Some(4));
                assert_eq!(ev.num_turns(), None);
                assert!(ev.get("uuid").is_none() && ev.timestamp().is_none());
                assert!(ev.message_get("stop_reason").is_none());
                // A key no table names, and paths, are read by walking.
                assert_eq!(
                    ev.get_path("message.usage.output_tokens")
                        .and_then(|v| v.as_u64()),
                    Some(4)
                );
                assert_eq!(
                    ev.get_path("session_id").and_then(|v| v.as_str()),
                    Some("a")
                );
                assert!(ev.get_path("").is_some_and(|v| v.get("type").is_some()));
            },
        );
        // An escaped key is compared unescaped: the table stands aside.
        read(
            &mut p,
            r#"{"type":"result","session\u005fid":"s","message":{"mod\u0065l":"m"},"num_turns":3}"#,
            &|ev| {
                assert_eq!(ev.session_id(), Some("s"));
                assert_eq!(ev.num_turns(), Some(3));
                assert_eq!(ev.model(), Some("m"));
            },
        );
        // `message` that is not an object has no table, and no fields.
        read(&mut p, r#"{"type":"user","message":"hi"}"#, &|ev| {
            assert!(ev.message().is_some() && ev.model().is_none());
        });
    }

    #[test]
    fn all_lists_every_kind_at_its_index() {
        for (i, k) in EventKind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
            if let Some(name) = k.name() {
                let (ty, sub) = match name.split_once('/') {
                    Some((t, s)) => (t, Some(s)),
                    None => (name, None),
                };
                // Each dialect gives the kinds it names; the transcript
                // gives its own and the stream's it shares.
                let (stream, record) = (
                    EventKind::from_type(ty, sub),
                    EventKind::from_record_type(ty, sub),
                );
                assert!(stream == *k || record == *k, "{name}");
                if stream != *k {
                    assert!(EventKind::RECORDS.contains(k), "{name}");
                }
            }
        }
        // RECORDS lists each kind records are given once.
        let records: std::collections::BTreeSet<_> = EventKind::RECORDS.iter().collect();
        assert_eq!(records.len(), EventKind::RECORDS.len());
        for ty in [
            "user",
            "assistant",
            "summary",
            "progress",
            "result",
            "queue-operation",
            "x",
        ] {
            assert!(
                records.contains(&EventKind::from_record_type(ty, None)),
                "{ty}"
            );
        }
        assert!(records.contains(&EventKind::from_record_type("system", Some("init"))));
    }

    #[test]
    fn type_errors() {
        assert_eq!(kind_of(r#"{"foo":1}"#), Err(ErrorKind::MissingType));
        assert_eq!(kind_of(r#"{"type":7}"#), Err(ErrorKind::MissingType));
        assert_eq!(
            kind_of(r#"{"type":"user","type":"assistant"}"#),
            Err(ErrorKind::DuplicateKey)
        );
        assert_eq!(
            kind_of(r#"{"type":"result","subtype":"success","subtype":"x"}"#),
            Err(ErrorKind::DuplicateKey)
        );
        assert_eq!(
            kind_of(r#"{"type":"user","type":"user"}"#),
            Ok(EventKind::User)
        );
    }

    #[test]
    fn field_tells_null_from_missing() {
        let mut p = Scanner::new();
        let src = br#"{"type":"assistant","parent_tool_use_id":null}
{"type":"assistant","parent_tool_use_id":"toolu_1"}
{"type":"assistant"}
{"type":"assistant","parent_tool_use_id":5}"#;
        let want = [
            Field::Null,
            Field::Value("toolu_1"),
            Field::Missing,
            Field::Missing,
        ];
        for (line, want) in Lines::new(src).zip(want) {
            let ev = parse_event(&mut p, &line).unwrap();
            assert_eq!(ev.parent_tool_use_id(), want);
        }
    }
}
