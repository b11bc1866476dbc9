//! The common case in one call: [`runs`], the runs of a file whatever it
//! holds, as `cctape verdict` computes them.
//!
//! It reads the file through the library's one reader,
//! [`read_path`]: the file opened, its compression undone (gzip, zstd, xz,
//! bzip2, LZ4: told by their magic bytes, not the name), its format told
//! from its first bytes and each of its items handed out as every command
//! reads them. The items feed a [`RunFolder`] (stream-json lines, JSON
//! arrays and pretty captures, a logger's prefixed values) or a
//! [`TranscriptFold`] (a session transcript's records). An input without
//! events (text, an empty file) is one run saying so ([`no_events_run`]),
//! its verdict from the CLI's final error line when it ends with one.

use crate::error::Error;
use crate::inputs::{Item, ReadOptions, read_path};
use crate::pricing::PriceTable;
use crate::report::{Shape, no_events_run};
use crate::run::{RunFolder, RunSummary};
use crate::sniff::Format;
use crate::time::Zone;
use crate::transcript::{TranscriptFile, TranscriptFold};
use std::ops::ControlFlow;
use std::path::Path;

/// The runs of the file at `path`, with the rules and fields of
/// `cctape verdict --json` (one [`RunSummary`] per record it prints).
///
/// The file may be plain or compressed (gzip, zstd, xz, bzip2, LZ4: told
/// by its first bytes), and
/// hold stream-json lines, a JSON array or pretty-printed capture
/// (`--output-format json`), a session transcript, or text. Lines that are
/// not events do not fail the call: they are counted in the runs'
/// [`bad_lines`](RunSummary::bad_lines), as `verdict` counts them. An input
/// without events is one run whose verdict says why
/// ([`Verdict::StartupFailure`](crate::Verdict::StartupFailure), or the
/// verdict of the CLI's final error line such as
/// `Error: Reached max turns (30)`). A transcript gives one run per
/// session in it, costed with the shipped price table; a session's
/// subagent files are other files (`cctape verdict` given all of them
/// folds them together, this call reads one file).
///
/// # Errors
///
/// The file cannot be opened or read, or its compressed stream is damaged
/// or cut short ([`ErrorKind::Io`](crate::ErrorKind::Io), with the
/// position reached).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("cctape-runs-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # let path = dir.join("run.jsonl");
/// # std::fs::write(&path, br#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5"}
/// # {"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":12}},"parent_tool_use_id":null,"session_id":"s1"}
/// # not json
/// # {"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"hi","total_cost_usd":0.0021,"session_id":"s1"}
/// # "#).unwrap();
/// // `path` is a stream-json capture with one bad line (plain, .gz or .zst alike).
/// for run in cctape::runs(&path)? {
///     println!("{} {:?} ${:?}", run.verdict, run.session_id, run.cost.total_cost_usd);
///     assert!(run.ok());
///     assert_eq!(run.usage.main.tokens.output_tokens, 12);
///     assert_eq!(run.bad_lines, 1);
/// }
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), cctape::Error>(())
/// ```
pub fn runs(path: impl AsRef<Path>) -> Result<Vec<RunSummary>, Error> {
    let path = path.as_ref();
    let opts = ReadOptions {
        records: true,
        ..ReadOptions::default()
    };
    let file = TranscriptFile::from_path(path);
    let (mut folder, mut transcript) = (RunFolder::new(), TranscriptFold::default());
    // What an input none of whose lines is an event looks like: its bad
    // lines noted as verdict notes them, or the reader's finding.
    let (mut shape, mut found) = (Shape::default(), None);
    let end = read_path(path, &opts, |item| {
        match item {
            Item::Event(ev) => folder.push(ev),
            Item::Record(rec) => transcript.add(rec, &file),
            Item::Error { error, bytes } if !error.is_fatal() => {
                shape.note(bytes);
                folder.push_error(error);
            }
            Item::NotEvents(s) => found = Some(s.describe()),
            _ => {}
        }
        ControlFlow::Continue(())
    });
    if let Some(e) = end.failure {
        return Err(e);
    }
    let runs = if end.format == Some(Format::Transcript) {
        let report = transcript.finish(PriceTable::builtin(), &Zone::system());
        report.sessions.iter().map(|s| s.to_run()).collect()
    } else {
        folder.finish()
    };
    if end.counts.events > 0 {
        return Ok(runs);
    }
    // Not a run: one summary saying the input has no events, its bad lines
    // counted (what `verdict` prints for it).
    let described = found.unwrap_or_else(|| shape.describe());
    Ok(vec![no_events_run(
        runs.into_iter().next(),
        &described,
        None,
    )])
}
