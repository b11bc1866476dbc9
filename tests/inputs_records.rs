//! `ReadOptions::records`: a session transcript's bad line read as a record
//! gets the error every other reading gives it (the tape parser's reason
//! and column, not the scanner's bare "invalid JSON"), as `cctape stats`
//! and `cctape cat` report it, so the Python package's figures and errors
//! are the command's.

use cctape::event::parse_event;
use cctape::framing::LineReader;
use cctape::inputs::{Item, ReadOptions, read_source};
use cctape::json::Scanner;
use cctape::sniff::FormatChoice;
use cctape::source::{EndReport, Source, SourceKind};
use std::ops::ControlFlow;

/// A bad line's line, offset, column, kind and reason.
type Bad = (u64, u64, Option<u64>, String, String);

/// Each bad line and the number of records, the input read as a
/// transcript's records.
fn bad_records(bytes: &[u8]) -> (Vec<Bad>, usize) {
    let report = EndReport::new();
    let src = Source::new(bytes, SourceKind::Stream, &report).expect("a source over bytes");
    let opts = ReadOptions {
        format: FormatChoice::Transcript,
        records: true,
        ..ReadOptions::default()
    };
    let (mut bad, mut records) = (Vec::new(), 0);
    read_source(src, &opts, |item| {
        match item {
            Item::Record(_) => records += 1,
            Item::Error { error, .. } => {
                let p = error.position();
                bad.push((
                    p.line,
                    p.offset,
                    p.column,
                    error.kind().name().to_string(),
                    error.reason().to_string(),
                ));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    (bad, records)
}

/// The same lines' errors as the event parser gives them.
fn parsed_errors(bytes: &[u8]) -> Vec<Bad> {
    let mut lines = LineReader::new(bytes);
    let mut parser = Scanner::new();
    let mut out = Vec::new();
    while let Some(line) = lines.next_line() {
        let line = line.expect("a line");
        if line.is_blank() {
            continue;
        }
        if let Err(e) = parse_event(&mut parser, &line) {
            let p = e.position();
            out.push((
                p.line,
                p.offset,
                p.column,
                e.kind().name().to_string(),
                e.reason().to_string(),
            ));
        }
    }
    out
}

#[test]
fn a_bad_records_error_is_the_parsers_with_what_was_expected() {
    // A pretty-printed object's lines read as records: `"type": "user",`
    // is a string followed by more (the parser says what it expected), `{`
    // is cut short.
    let input = b"{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":\"u1\"}\n  \"type\": \"user\",\n{\"type\":\"assistant\",\"sessionId\":\"s\",\"uuid\":\"u2\"}\n";
    let (bad, records) = bad_records(input);
    assert_eq!(records, 2);
    assert_eq!(bad, parsed_errors(input));
    assert_eq!(bad.len(), 1);
    let (line, offset, _, kind, message) = &bad[0];
    assert_eq!((*line, *offset), (2, 44));
    assert_eq!(kind, "invalid_json");
    assert!(
        message.contains("expected the end of the line after the JSON value"),
        "{message}"
    );
}
