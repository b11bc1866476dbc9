//! Events: the three paths ([`SliceEvents`], [`EventReader`], the decoder
//! and the scanner) agree; a valid stream cut at any byte; raw separators
//! inside strings; an I/O error.
use cctape::event::parse_event;
use cctape::{Error, ErrorKind, EventKind, EventReader, LineDecoder, LineReader, SliceEvents};
use proptest::prelude::*;
use std::io::{self, Read};

use crate::{BOM, NO_MAX, OwnedLine, ShortReader, atom, chunk_sizes, naive_lines};

// ---------------------------------------------------------------------------
// Events: the three paths agree
// ---------------------------------------------------------------------------

/// One event or error, with what identifies it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct EventItem {
    line: u64,
    offset: u64,
    what: Result<(EventKind, Vec<u8>), (ErrorKind, Option<u64>)>,
}

fn event_item(r: Result<cctape::Event<'_>, Error>) -> EventItem {
    match r {
        Ok(ev) => EventItem {
            line: ev.line(),
            offset: ev.offset(),
            what: Ok((ev.kind(), ev.raw().to_vec())),
        },
        Err(e) => EventItem {
            line: e.position().line,
            offset: e.position().offset,
            what: Err((e.kind(), e.position().column)),
        },
    }
}

fn slice_events(input: &[u8]) -> (Vec<EventItem>, cctape::Counts) {
    let mut events = SliceEvents::new(input);
    let mut out = Vec::new();
    while let Some(item) = events.next_event() {
        out.push(event_item(item));
    }
    assert!(events.next_event().is_none());
    (out, events.counts())
}

fn reader_events(
    input: &[u8],
    read_size: usize,
    short: &[usize],
) -> (Vec<EventItem>, cctape::Counts) {
    let rdr = ShortReader::new(input, short, 0);
    let mut events = EventReader::with_capacity(rdr, read_size, 1 << 20);
    let mut out = Vec::new();
    while let Some(item) = events.next_event() {
        out.push(event_item(item));
    }
    assert!(events.next_event().is_none());
    assert_eq!(events.bytes_read(), input.len() as u64);
    (out, events.counts())
}

fn decoder_events(input: &[u8], sizes: &[usize]) -> Vec<EventItem> {
    fn take(dec: &mut LineDecoder, parser: &mut cctape::json::Scanner, out: &mut Vec<EventItem>) {
        while let Some(r) = dec.next_line() {
            match r {
                Ok(line) if line.is_blank() => {}
                Ok(line) => out.push(event_item(parse_event(parser, &line))),
                Err(e) => out.push(event_item(Err(e))),
            }
        }
    }
    let mut dec = LineDecoder::new();
    let mut parser = cctape::json::Scanner::new();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    while pos < input.len() {
        let n = sizes[i % sizes.len()].max(1).min(input.len() - pos);
        i += 1;
        dec.push(&input[pos..pos + n]);
        pos += n;
        take(&mut dec, &mut parser, &mut out);
    }
    dec.finish();
    take(&mut dec, &mut parser, &mut out);
    out
}

/// Lines to build event streams from: events, edge cases and garbage.
const POOL: &[&[u8]] = &[
    r#"{"type":"user"}"#.as_bytes(),
    r#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}"#.as_bytes(),
    r#"{"is_error":false,"num_turns":2,"subtype":"success","type":"result","total_cost_usd":0.5}"#.as_bytes(),
    r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"a b c"}]},"parent_tool_use_id":null}"#.as_bytes(),
    "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"x\u{2028}y\u{2029}z\u{85}w\u{feff}\"}]}}".as_bytes(),
    "{\"type\":\"user\",\"text\":\"emoji \u{1F600} and \u{4e2d}\u{6587}\"}".as_bytes(),
    "{\"type\":\"system\",\"subtype\":\"status\"}\r".as_bytes(),
    r#"{"type":"stream_event","event":{"type":"message_stop"}}"#.as_bytes(),
    r#"{"type":"progress","data":{"a":[1,2,{"b":null}]}}"#.as_bytes(),
    r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":18446744073709551616}"#.as_bytes(),
    r#"{"type":"system","subtype":"task_summary","detail":"cut \ud83d"}"#.as_bytes(),
    r#"{"type":"user","type":"assistant"}"#.as_bytes(),
    r#"{"type":"user","type":"user"}"#.as_bytes(),
    "".as_bytes(),
    "   ".as_bytes(),
    " \t\r".as_bytes(),
    "not json".as_bytes(),
    "[1,2]".as_bytes(),
    "7".as_bytes(),
    r#"{"foo":1}"#.as_bytes(),
    r#"{"type":7}"#.as_bytes(),
    r#"{"type":"user","a":}"#.as_bytes(),
    b"{\"type\":\"user\",\"s\":\"\xff\"}",
    "{\"type\":\"user\",\"s\":\"bad \x01 control\"}".as_bytes(),
    r#"{"type":"user","s":"unterminated"#.as_bytes(),
    r#"{"type":"result","subtype":"success""#.as_bytes(),
];

fn event_stream() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec(
            prop_oneof![
                6 => prop::sample::select(POOL).prop_map(<[u8]>::to_vec),
                1 => prop::collection::vec(atom(), 0..6).prop_map(|a| a.concat()),
                1 => Just(vec![0xFF, b'{']),
            ],
            0..24,
        ),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, final_lf)| {
            let mut v = if bom { BOM.to_vec() } else { Vec::new() };
            let n = lines.len();
            for (i, l) in lines.into_iter().enumerate() {
                v.extend_from_slice(&l);
                if i + 1 < n || final_lf {
                    v.push(b'\n');
                }
            }
            v
        })
}

#[test]
fn pool_lines_read_as_expected() {
    // The pool must hold events and errors of every per-line kind, or the
    // comparisons below could pass by comparing nothing.
    let mut input = POOL.join(&b'\n');
    input.push(b'\n');
    let (items, counts) = slice_events(&input);
    let kinds: Vec<_> = items.iter().map(|i| i.what.clone()).collect();
    let errs: Vec<ErrorKind> = kinds
        .iter()
        .filter_map(|k| k.as_ref().err().map(|e| e.0))
        .collect();
    for k in [
        ErrorKind::InvalidJson,
        ErrorKind::InvalidUtf8,
        ErrorKind::NotAnObject,
        ErrorKind::MissingType,
        ErrorKind::DuplicateKey,
    ] {
        assert!(errs.contains(&k), "no {k} in {errs:?}");
    }
    assert_eq!(counts.lines, POOL.len() as u64);
    assert_eq!(counts.blank_lines, 3);
    assert_eq!(counts.events + counts.errors, POOL.len() as u64 - 3);
    assert!(counts.events >= 12, "{counts:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn events_are_the_same_on_all_three_paths(
        input in event_stream(),
        sizes in chunk_sizes(),
        read_size in 1usize..=64,
    ) {
        let (want, want_counts) = slice_events(&input);
        prop_assert_eq!(want_counts.events + want_counts.errors, want.len() as u64);
        let (got, got_counts) = reader_events(&input, read_size, &sizes);
        prop_assert_eq!(&got, &want, "EventReader, read size {}", read_size);
        prop_assert_eq!(got_counts, want_counts);
        prop_assert_eq!(decoder_events(&input, &sizes), want);
    }
}

// ---------------------------------------------------------------------------
// A valid stream cut at any byte
// ---------------------------------------------------------------------------

fn serde_is_event(b: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(b)
        .ok()
        .is_some_and(|v| v.get("type").is_some_and(serde_json::Value::is_string))
}

/// Check what `prefix` (a valid stream cut) gives, against `full` (what the
/// whole stream gives, every line an event).
fn check_cut(stream: &[u8], full: &[EventItem], cut: usize, read_size: usize) {
    let prefix = &stream[..cut];
    let lines = naive_lines(prefix);
    // Events of the lines whose LF is inside the prefix.
    let complete = lines.iter().filter(|l| l.terminated).count();
    let mut want: Vec<EventItem> = full
        .iter()
        .filter(|e| e.line as usize <= complete)
        .cloned()
        .collect();
    let mut want_errors = 0;
    if let Some(tail) = lines.last().filter(|l| !l.terminated) {
        let blank = tail.bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
        if blank {
        } else if serde_is_event(&tail.bytes) {
            let whole = full
                .iter()
                .find(|e| e.line == tail.number)
                .expect("a complete tail is a line of the full stream");
            let kind = whole.what.as_ref().expect("full stream is all events").0;
            want.push(EventItem {
                line: tail.number,
                offset: tail.offset,
                what: Ok((kind, tail.bytes.clone())),
            });
        } else {
            want_errors = 1;
        }
    }
    let (got, counts) = slice_events(prefix);
    let (got_events, got_errors): (Vec<_>, Vec<_>) = got.into_iter().partition(|i| i.what.is_ok());
    assert_eq!(got_events, want, "cut at {cut}");
    assert_eq!(
        got_errors.len(),
        want_errors,
        "cut at {cut}: {got_errors:?}"
    );
    if let Some(e) = got_errors.first() {
        let tail = lines.last().unwrap();
        assert_eq!(
            (e.line, e.offset, e.what.as_ref().unwrap_err().0),
            (tail.number, tail.offset, ErrorKind::Truncated),
            "cut at {cut}"
        );
    }
    assert_eq!(counts.lines, lines.len() as u64, "cut at {cut}");
    assert_eq!(counts.errors, want_errors as u64);
    let (via_reader, reader_counts) = reader_events(prefix, read_size, &[read_size]);
    let (slice_again, _) = slice_events(prefix);
    assert_eq!(
        via_reader, slice_again,
        "cut at {cut}, read size {read_size}"
    );
    assert_eq!(reader_counts, counts);
}

fn full_events(stream: &[u8]) -> Vec<EventItem> {
    let (full, counts) = slice_events(stream);
    assert_eq!(counts.errors, 0, "the stream must be valid: {full:?}");
    assert_eq!(counts.events as usize, full.len());
    assert!(full.len() >= 3);
    full
}

/// A small valid stream, ASCII only.
const ASCII_STREAM: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-5-5","tools":["Bash","Read"]}"#,
    "\n",
    r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la"}}],"usage":{"input_tokens":2,"output_tokens":5}},"parent_tool_use_id":null}"#,
    "\n",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a\nb","is_error":false}]}}"#,
    "\r\n",
    r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"{\"x\":[1,2]}"}}}"#,
    "\n\n",
    r#"{"is_error":false,"duration_ms":1234,"num_turns":1,"total_cost_usd":0.0123,"subtype":"success","type":"result"}"#,
    "\n",
);

/// The same with multi-byte characters inside strings.
const UNICODE_STREAM: &str = concat!(
    "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\n",
    "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"line\u{2028}sep\u{2029}para \u{1F600} \u{4e2d}\u{6587} \u{85}\"}]}}\n",
    "{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"caf\u{e9}\"}\n",
);

#[test]
fn ascii_stream_cut_at_any_byte_gives_complete_events_and_one_truncated() {
    let stream = ASCII_STREAM.as_bytes();
    let full = full_events(stream);
    for cut in 0..=stream.len() {
        check_cut(stream, &full, cut, cut % 64 + 1);
    }
}

#[test]
fn unicode_stream_cut_at_any_byte_gives_complete_events_and_one_truncated() {
    let stream = UNICODE_STREAM.as_bytes();
    let full = full_events(stream);
    for cut in 0..=stream.len() {
        check_cut(stream, &full, cut, cut % 64 + 1);
    }
}

fn corpus_stream(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/streams")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const VALID_STREAMS: &[&str] = &[
    "success-basic.jsonl",
    "two-subagents.jsonl",
    "interrupted.jsonl",
    "max-turns.jsonl",
    "api-error.jsonl",
    "no-result.jsonl",
    "partial-messages.jsonl",
    "background-task.jsonl",
    "tool-errors.jsonl",
    "hooks.jsonl",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn corpus_streams_cut_at_random_bytes(file in prop::sample::select(VALID_STREAMS), at in any::<prop::sample::Index>(), read_size in 1usize..=64) {
        let stream = corpus_stream(file);
        let full = full_events(&stream);
        check_cut(&stream, &full, at.index(stream.len() + 1), read_size);
    }
}

// ---------------------------------------------------------------------------
// Separators inside strings
// ---------------------------------------------------------------------------

fn separator_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "\u{2028}", "\u{2029}", "\u{85}", "\u{feff}", "a", " ", "\\n", "\\r", "\\u2028", "{",
            "}", "\\\"",
        ]),
        0..16,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn raw_separators_inside_strings_never_split_a_line(texts in prop::collection::vec(separator_text(), 1..8), read_size in 1usize..=64) {
        let mut input = String::new();
        for t in &texts {
            input.push_str(&format!("{{\"type\":\"user\",\"text\":\"{t}\"}}\n"));
        }
        let (items, counts) = slice_events(input.as_bytes());
        prop_assert_eq!(counts.lines, texts.len() as u64);
        prop_assert_eq!(counts.events, texts.len() as u64);
        let mut offset = 0;
        for (i, (item, raw)) in items.iter().zip(input.split_terminator('\n')).enumerate() {
            prop_assert_eq!(item.line, i as u64 + 1);
            prop_assert_eq!(item.offset, offset);
            prop_assert_eq!(&item.what, &Ok((EventKind::User, raw.as_bytes().to_vec())));
            offset += raw.len() as u64 + 1;
        }
        // The decoded text equals serde_json's.
        let mut events = SliceEvents::new(input.as_bytes());
        for raw in input.split_terminator('\n') {
            let ev = events.next_event().unwrap().unwrap();
            let want: serde_json::Value = serde_json::from_str(raw).unwrap();
            prop_assert_eq!(ev.get("text").and_then(|v| v.as_str()), want["text"].as_str());
        }
        let (via_reader, _) = reader_events(input.as_bytes(), read_size, &[read_size]);
        prop_assert_eq!(via_reader, items);
    }
}

// ---------------------------------------------------------------------------
// I/O errors
// ---------------------------------------------------------------------------

/// Hands out `data`, then fails.
struct FailingReader<'a> {
    data: &'a [u8],
    pos: usize,
    step: usize,
}

impl Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.data.len() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn io_error_ends_the_stream_after_the_complete_lines_before_it() {
    let data =
        b"{\"type\":\"user\"}\n\n{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"res";
    for step in 1..=8 {
        let rdr = FailingReader { data, pos: 0, step };
        let mut lines = LineReader::with_capacity(rdr, step, NO_MAX);
        let mut got = Vec::new();
        let mut err = None;
        while let Some(item) = lines.next_line() {
            match item {
                Ok(l) => got.push(OwnedLine::of(&l)),
                Err(e) => {
                    assert!(err.is_none(), "a second error");
                    err = Some(e);
                }
            }
        }
        let want: Vec<OwnedLine> = naive_lines(data)
            .into_iter()
            .filter(|l| l.terminated)
            .collect();
        assert_eq!(got, want, "step {step}");
        let err = err.expect("the I/O error is handed out");
        assert_eq!(err.kind(), ErrorKind::Io);
        assert!(err.is_fatal());
        assert_eq!(
            err.io_error().map(|e| e.to_string()).as_deref(),
            Some("disk on fire")
        );
        // The position is where the reader had got to: the line after the
        // complete ones, at the end of what was read.
        assert_eq!(err.position().line, 4);
        assert_eq!(err.position().offset, data.len() as u64);
        assert!(lines.next_line().is_none());

        let rdr = FailingReader { data, pos: 0, step };
        let mut events = EventReader::with_capacity(rdr, step, NO_MAX);
        let mut items = Vec::new();
        while let Some(item) = events.next_event() {
            items.push(event_item(item));
        }
        assert_eq!(items.len(), 3, "{items:?}");
        assert_eq!(
            items[0].what,
            Ok((EventKind::User, b"{\"type\":\"user\"}".to_vec()))
        );
        assert_eq!(items[1].line, 3);
        assert_eq!(items[1].what.as_ref().unwrap().0, EventKind::SystemInit);
        assert_eq!(items[2].what, Err((ErrorKind::Io, None)));
        let c = events.counts();
        assert_eq!((c.lines, c.blank_lines, c.events, c.errors), (3, 1, 2, 1));
    }
}
