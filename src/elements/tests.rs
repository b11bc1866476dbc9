//! Tests of the element splitter: arrays on one line and pretty, bad
//! wrappers and brackets, truncated arrays, text before a value and
//! elements past the maximum, each at every chunking, with each element's
//! index, line and offset.

use super::*;
use crate::error::ErrorKind;

/// An element owned (bytes, index, line, offset, complete), or an error.
type Item = Result<(Vec<u8>, u64, u64, u64, bool), (ErrorKind, Position)>;

fn items(input: &[u8]) -> Vec<Item> {
    Elements::new(input).map(owned).collect()
}

/// An element or error owned, to compare.
fn owned(r: Result<Element<'_>, Error>) -> Item {
    r.map(|e| (e.bytes.to_vec(), e.index, e.line, e.offset, e.complete))
        .map_err(|e| (e.kind(), e.position()))
}

fn chunked(input: &[u8], size: usize, max: usize) -> Vec<Item> {
    pushed(ElementDecoder::with_max(max), input, size)
}

/// The items of `input` pushed into `dec` `size` bytes at a time.
fn pushed(mut dec: ElementDecoder, input: &[u8], size: usize) -> Vec<Item> {
    let mut out = Vec::new();
    let mut take = |dec: &mut ElementDecoder| {
        while let Some(r) = dec.next_element() {
            out.push(owned(r));
        }
    };
    for c in input.chunks(size.max(1)) {
        dec.push(c);
        take(&mut dec);
    }
    dec.finish();
    take(&mut dec);
    out
}

#[test]
fn arrays_objects_and_errors_give_the_same_items_at_every_chunking() {
    let cases: &[&[u8]] = &[
        b"[{\"a\":1},{\"b\":[1,{\"c\":\"]}\\\"\"}]}]",
        b"\xEF\xBB\xBF[\n  {\n    \"a\": 1\n  },\n  {\n    \"b\": 2\n  }\n]\n",
        b"{\"a\":1}\n{\"b\":2}\n",
        b"{\n \"a\": 1\n}\n{\n \"b\": \"x\\\\\"\n}",
        b"[{\"a\":1} {\"b\":2},,{\"c\":3},]",
        b"[{\"a\":1},{\"b\":",
        b"[{\"a\":1},",
        b"[{\"a\":[1,},{\"b\":2}]",
        b"{\"a\":[1}\n{\"b\":2}\n",
        b"API Error: Unable to connect\nstill text\n{\"a\":1}\n]",
        b"[1, \"s\", true, null, [2]]",
        b"[]\n[]\n",
        b"",
        b"   \n",
    ];
    for input in cases {
        let whole = items(input);
        for size in 1..=17 {
            assert_eq!(
                chunked(input, size, DEFAULT_MAX_LINE),
                whole,
                "{:?} at {size}",
                String::from_utf8_lossy(input)
            );
        }
    }
}

#[test]
fn elements_of_an_array_on_one_line_and_pretty() {
    let got = items(b"[{\"a\":1},{\"b\":2}]");
    assert_eq!(
        got,
        [
            Ok((b"{\"a\":1}".to_vec(), 0, 1, 1, true)),
            Ok((b"{\"b\":2}".to_vec(), 1, 1, 9, true))
        ]
    );
    let got = items(b"[\n  {\n    \"a\": 1\n  },\n  {\"b\": 2}\n]\n");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].as_ref().unwrap().2, 2);
    assert_eq!(got[1].as_ref().unwrap().2, 5);
}

#[test]
fn wrapper_errors_keep_the_elements_around_them() {
    let got = items(b"[{\"a\":1} {\"b\":2},,{\"c\":3},]");
    let kinds: Vec<_> = got
        .iter()
        .map(|r| match r {
            Ok((b, ..)) => String::from_utf8_lossy(b).into_owned(),
            Err((k, p)) => format!("{k}@{}", p.byte()),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "{\"a\":1}",
            "invalid_json@9",
            "{\"b\":2}",
            "invalid_json@17",
            "{\"c\":3}",
            "invalid_json@26"
        ]
    );
}

#[test]
fn a_mismatched_bracket_ends_its_element_and_the_rest_is_read() {
    let got = items(b"[{\"a\":[1,},{\"b\":2}]");
    assert_eq!(got[0], Ok((b"{\"a\":[1,}".to_vec(), 0, 1, 1, true)));
    assert_eq!(got[1], Ok((b"{\"b\":2}".to_vec(), 1, 1, 11, true)));
    assert_eq!(got.len(), 2);
}

#[test]
fn a_truncated_array_is_truncated_at_its_position() {
    let got = items(b"[{\"a\":1},{\"b\":");
    assert_eq!(got[0].as_ref().unwrap().0, b"{\"a\":1}");
    assert_eq!(got[1], Ok((b"{\"b\":".to_vec(), 1, 1, 9, false)));
    assert_eq!(got.len(), 2);
    let got = items(b"[{\"a\":1},\n");
    assert_eq!(got.len(), 2);
    let (k, p) = got[1].clone().unwrap_err();
    assert_eq!((k, p.line, p.byte()), (ErrorKind::Truncated, 2, 10));
}

#[test]
fn text_is_one_error_until_a_line_starts_a_value() {
    let got =
        items(b"API Error: Unable to connect to API (ConnectionRefused)\nmore\ntext\n{\"a\":1}\n");
    assert_eq!(got.len(), 2);
    let (k, p) = got[0].clone().unwrap_err();
    assert_eq!((k, p.line, p.byte()), (ErrorKind::InvalidJson, 1, 0));
    assert_eq!(got[1], Ok((b"{\"a\":1}".to_vec(), 0, 4, 66, true)));
}

#[test]
fn an_element_past_the_maximum_is_skipped_with_one_error() {
    let input = b"[{\"a\":\"xxxxxxxxxxxxxxxxxxxx\"},{\"b\":1}]";
    let whole: Vec<_> = Elements::with_max(input, 10)
        .map(|r| {
            r.map(|e| e.bytes.to_vec())
                .map_err(|e| (e.kind(), e.position()))
        })
        .collect();
    assert_eq!(whole.len(), 2);
    assert_eq!(whole[0].clone().unwrap_err().0, ErrorKind::LineTooLong);
    assert_eq!(whole[1], Ok(b"{\"b\":1}".to_vec()));
    for size in 1..=9 {
        let got: Vec<_> = chunked(input, size, 10)
            .into_iter()
            .map(|r| r.map(|e| e.0))
            .collect();
        assert_eq!(got, whole, "chunk {size}");
    }
}

#[test]
fn locate_names_the_physical_line_of_an_error() {
    let input = b"[\n  {\n    \"type\": \"user\",\n    \"n\": tru\n  }\n]\n";
    let el = Elements::new(input).next().unwrap().unwrap();
    let mut scanner = crate::json::Scanner::new();
    let err = el.locate(scanner.scan(&el.as_line()).unwrap_err());
    let p = err.position();
    assert_eq!(err.kind(), ErrorKind::InvalidJson);
    assert_eq!((p.line, p.element), (4, Some(0)));
    let line4_start = input
        .split(|&b| b == b'\n')
        .take(3)
        .map(|l| l.len() + 1)
        .sum::<usize>() as u64;
    assert_eq!(p.offset, line4_start);
    // The offending byte: the LF where `true` should go on.
    let at = p.byte() as usize;
    assert_eq!((&input[at - 3..at], input[at]), (&b"tru"[..], b'\n'));
    assert_eq!(p.column, Some(12));
}

/// The items of a log read from a `Read` handing out `size` bytes a call
/// ([`LogValues`] under an [`ElementReader`]).
fn log_read(input: &[u8], size: usize) -> Vec<Item> {
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut r = ElementReader::new(LogValues::new(Trickle(input, size.max(1))));
    let mut out = Vec::new();
    while let Some(el) = r.next_element() {
        out.push(owned(el));
    }
    out
}

/// The items of a log pushed `size` bytes at a time into a logged decoder.
fn log_pushed(input: &[u8], size: usize) -> Vec<Item> {
    pushed(ElementDecoder::new().logged(), input, size)
}

#[test]
fn a_log_pushed_gives_what_it_gives_read_at_every_chunking() {
    let long_text = format!("[2025-10-13T01:16:00Z] [INFO] {}\n", "x".repeat(400));
    let cases: Vec<Vec<u8>> = vec![
        b"[2025-10-13T01:16:00Z] [INFO] starting\n[2025-10-13T01:16:01Z] [INFO] {\n[2025-10-13T01:16:01Z] [INFO]   \"type\": \"user\"\n[2025-10-13T01:16:01Z] [INFO] }\n".to_vec(),
        b"[2025-10-13T01:16:02Z] [INFO] {\"type\":\"result\",\n[2025-10-13T01:16:02Z] [INFO] \"subtype\":\"success\"}\n[t] [WARN] done\n".to_vec(),
        // Cut inside a string: the value is damaged, an error at its line.
        b"[a] [INFO] {\"type\":\"assis\n[a] [INFO] tant\"}\n[a] [INFO] {\"type\":\"user\"}".to_vec(),
        // The log's own text, long lines of it, and no LF at the end.
        [long_text.as_bytes(), b"[b] [INFO] [{\"a\":1},\n[b] [INFO] {\"b\":\"]\\\\\"}]"].concat(),
        // A bracket on one line, its close on the next: not a prefix.
        b"[2025-10-13\n] [INFO] {\"a\":1}\n".to_vec(),
        b"".to_vec(),
        b"\n\n".to_vec(),
    ];
    for input in &cases {
        let whole = log_read(input, usize::MAX);
        assert!(
            input.len() < 10 || !whole.is_empty(),
            "{}",
            String::from_utf8_lossy(input)
        );
        for size in [1, 2, 3, 7, 31, 64, 159, 160, 161, 400, 4096] {
            assert_eq!(log_read(input, size), whole, "read {size}");
            assert_eq!(log_pushed(input, size), whole, "pushed {size}");
        }
    }
}

#[test]
fn a_log_gives_its_values_at_their_lines() {
    let log = b"[2025-10-13T01:16:00Z] [INFO] starting\n[2025-10-13T01:16:01Z] [INFO] {\n[2025-10-13T01:16:01Z] [INFO]   \"type\": \"user\"\n[2025-10-13T01:16:01Z] [INFO] }\n[2025-10-13\n] [INFO] {\"a\":1}\n";
    let got: Vec<String> = log_pushed(log, 5)
        .into_iter()
        .map(|i| match i {
            Ok((bytes, _, line, offset, complete)) => format!(
                "{line}:{offset}:{complete}:{}",
                String::from_utf8_lossy(&bytes)
                    .split_whitespace()
                    .collect::<String>()
            ),
            Err((kind, pos)) => format!("{kind:?} at {}:{}", pos.line, pos.offset),
        })
        .collect();
    // The pretty object from line 2; the `[2025-10-13` line is not a
    // prefix (its `]` is on the next line, where a prefix never reaches),
    // so it is an array whose element is the bad number `2025-10-13`, and
    // `[INFO]` another; the layer above reports both as bad values.
    assert_eq!(
        got,
        [
            "2:69:true:{\"type\":\"user\"}",
            "5:151:true:2025-10-13",
            "6:165:true:INFO",
            "6:171:true:{\"a\":1}"
        ]
    );
}
