//! The common case in one call: [`runs`], the runs of a file whatever it
//! holds, as `cctape verdict` computes them.
//!
//! It puts together what the layers offer one by one: [`Source`] opens the
//! file and undoes its compression (gzip, zstd, xz, bzip2, LZ4: told by
//! their magic bytes, not the name),
//! [`crate::sniff`] decides how it is read from its first bytes (as every
//! command does: [`read_prefix`]), and the reader of that reading feeds a [`RunFolder`] (stream-json lines, JSON arrays
//! and pretty captures, a logger's prefixed values) or a
//! [`TranscriptFold`] (a session transcript). An input without events
//! (text, an empty file) is one run saying so ([`no_events_run`]), its
//! verdict from the CLI's final error line when it ends with one.

use crate::elements::LogValues;
use crate::error::{Error, Position};
use crate::framing::LineReader;
use crate::inputs::{Prefixed, read_prefix};
use crate::json::{ScanMode, Scanner};
use crate::pricing::PriceTable;
use crate::report::{Shape, no_events_run};
use crate::run::{RunFolder, RunSummary};
use crate::sniff::{Format, FormatChoice, Reading};
use crate::source::Source;
use crate::stream::{Counts, ElementEventReader, EventReader};
use crate::time::Zone;
use crate::transcript::{Record, TranscriptFile, TranscriptFold};
use std::io::Read;
use std::path::Path;

/// The longest last line kept for an input without events.
const LAST_LINE_KEPT: usize = 4 << 10;

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
    let src = Source::open(path).map_err(Error::open)?;
    let report = src.report().clone();
    let stream = src.kind().size().is_none();
    let mut rdr = src.into_reader();
    let held = read_prefix(&mut rdr, stream);
    let format = held.decide(FormatChoice::Auto);
    let reading = format.reading();
    let prefix = held.shown();
    let whole = Prefixed::new(held, rdr);
    let mut shape = Shape::default();
    let (runs, counts, bytes) = match reading {
        Reading::StreamElements => fold_events(ElementEventReader::new(whole), &mut shape)?,
        Reading::LoggedElements => {
            fold_events(ElementEventReader::new(LogValues::new(whole)), &mut shape)?
        }
        Reading::TranscriptLines => transcript_runs(whole, path)?,
        Reading::NotEvents => {
            let (found, counts, bytes) = not_events_shape(whole, &prefix, format)?;
            shape = found;
            (Vec::new(), counts, bytes)
        }
        _ => fold_events(EventReader::new(whole), &mut shape)?,
    };
    if let Some(e) = report.take() {
        // A file that shrank, or data after the compressed stream.
        let reason = if e.kind() == std::io::ErrorKind::UnexpectedEof {
            "the input ended early"
        } else {
            "data after the compressed stream"
        };
        return Err(Error::io_with(
            e,
            Position::new(counts.lines + 1, bytes),
            reason,
        ));
    }
    if counts.events > 0 {
        return Ok(runs);
    }
    // Not a run: one summary saying the input has no events, its bad lines
    // counted (what `verdict` prints for it). JSON elements none of which
    // is an event, and no error either, are described by their first bytes.
    let elements = matches!(reading, Reading::StreamElements | Reading::LoggedElements);
    if elements && counts.errors == 0 {
        shape = Shape::of_input(&prefix, format, None);
    }
    Ok(vec![no_events_run(
        runs.into_iter().next(),
        &shape.describe(),
        None,
    )])
}

/// The event readers' common surface, so that one fold serves them all.
trait EventSource {
    fn next_event(&mut self) -> Option<Result<crate::Event<'_>, Error>>;
    /// The bytes of the last line (or element) read.
    fn last_bytes(&self) -> Option<&[u8]>;
    fn counts(&self) -> Counts;
    fn bytes_read(&self) -> u64;
}

macro_rules! event_source {
    ($reader:ident, $last:ident) => {
        impl<R: Read> EventSource for $reader<R> {
            fn next_event(&mut self) -> Option<Result<crate::Event<'_>, Error>> {
                $reader::next_event(self)
            }
            fn last_bytes(&self) -> Option<&[u8]> {
                self.$last().map(|l| l.bytes)
            }
            fn counts(&self) -> Counts {
                $reader::counts(self)
            }
            fn bytes_read(&self) -> u64 {
                $reader::bytes_read(self)
            }
        }
    };
}

event_source!(EventReader, last_line);
event_source!(ElementEventReader, last_element);

/// Every event of a reader folded into runs, with the reader's counts
/// and the bytes it read; an I/O error ends the call.
fn fold_events(
    mut rdr: impl EventSource,
    shape: &mut Shape,
) -> Result<(Vec<RunSummary>, Counts, u64), Error> {
    let mut folder = RunFolder::new();
    loop {
        let e = match rdr.next_event() {
            None => break,
            Some(Ok(ev)) => {
                folder.push(&ev);
                continue;
            }
            Some(Err(e)) => e,
        };
        if e.is_fatal() {
            return Err(e);
        }
        // Kept for the description of an input none of whose lines is an
        // event, as verdict keeps them.
        shape.note(rdr.last_bytes());
        folder.push_error(&e);
    }
    Ok((folder.finish(), rdr.counts(), rdr.bytes_read()))
}

/// A transcript's sessions, each as a run.
/// Its records are counted as events (a transcript without any is not a
/// run).
fn transcript_runs(rdr: impl Read, path: &Path) -> Result<(Vec<RunSummary>, Counts, u64), Error> {
    let file = TranscriptFile::from_path(path);
    let mut fold = TranscriptFold::default();
    let mut scanner = Scanner::new();
    let mut lines = LineReader::new(rdr);
    let mut counts = Counts::default();
    while let Some(item) = lines.next_span() {
        counts.lines += 1;
        match item {
            Ok(span) => {
                let line = lines.line(span);
                if line.is_blank() {
                    continue;
                }
                // A line that is not a record is skipped, as `verdict` does.
                match scanner.scan_with(&line, ScanMode::Validated) {
                    Ok(s) => {
                        fold.add(&Record::new(s), &file);
                        counts.events += 1;
                    }
                    Err(_) => counts.errors += 1,
                }
            }
            Err(e) if e.is_fatal() => return Err(e),
            Err(_) => counts.errors += 1,
        }
    }
    let report = fold.finish(PriceTable::builtin(), &Zone::system());
    let runs = report.sessions.iter().map(|s| s.to_run()).collect();
    Ok((runs, counts, lines.bytes_read()))
}

/// An input read to its end as one finding: its first bytes, format and
/// last non-blank line.
fn not_events_shape(
    rdr: impl Read,
    prefix: &[u8],
    format: Format,
) -> Result<(Shape, Counts, u64), Error> {
    let mut lines = LineReader::new(rdr);
    let mut last: Vec<u8> = Vec::new();
    let mut counts = Counts::default();
    while let Some(item) = lines.next_span() {
        counts.lines += 1;
        match item {
            Ok(span) => {
                let line = lines.line(span);
                if !line.is_blank() {
                    last.clear();
                    last.extend_from_slice(&line.bytes[..line.bytes.len().min(LAST_LINE_KEPT)]);
                }
            }
            Err(e) if e.is_fatal() => return Err(e),
            Err(_) => {}
        }
    }
    let shape = Shape::of_input(prefix, format, (!last.is_empty()).then_some(&last[..]));
    Ok((shape, counts, lines.bytes_read()))
}
