//! `cctape export`: streams to Parquet tables (`events`, `runs`, `tools`)
//! under an output directory, for DuckDB, Spark, Trino or DataFusion.
//!
//! Inputs are read in parallel like every command (each input whole, since
//! runs are followed across lines); a writer thread encodes each input's
//! rows, in input order, while later inputs are read, so the files are the
//! same whatever `--jobs`. An input's `events` rows past
//! [`ExportOptions::spill_bytes`] wait in a spill file in the staging
//! folder, so memory is bounded by that, the row groups and the run layer,
//! not by the input.
//!
//! The export is written into a staging folder in `--out` and swapped in
//! whole at the end (`cctape::export::Writer`): a failure, SIGINT, SIGTERM
//! or SIGHUP before the swap removes it, keeps the previous export and
//! exits 2 with the reason.
//!
//! JSON arrays and pretty captures give their events and runs. A session
//! transcript gives one `events` row per record (its `sessionId` as the
//! session, no usage) and, once every input is read, one `runs` row per
//! session with the transcript's figures, and one `tools` row per tool call
//! of the session under the same key (docs/export-schema.md says which
//! columns are null for transcripts).

use super::exec::{self, Done, Item, Piece, Reads, Sink};
use super::output::{human_bytes, print_json, thousands};
use super::reading::{Costing, ReadAsInput, TranscriptPiece, Transcripts};
use super::{Common, expand};
use cctape::export::{AbortHandle, Batch, ExportOptions, InputRows, TableReport, Writer};
use cctape::report::{NoEvents, Shape, no_events_run};
use cctape::sniff::Format as InputFormat;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet, zstd-compressed.
    Parquet,
}

/// Arguments of `cctape export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "parquet")]
    format: Format,
    /// Output directory: tables go to DIR/events, DIR/runs and DIR/tools,
    /// written in DIR/.cctape-tmp-* and swapped in whole once complete (the
    /// previous export stays until then, and on any failure).
    #[arg(long, short = 'o', value_name = "DIR")]
    out: PathBuf,
    /// Keep each event's line, bytes unchanged, in the `raw` column of
    /// `events`.
    #[arg(long)]
    raw: bool,
    /// Start a new part file after this many rows.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_file_rows: Option<u64>,
    /// Start a new part file once one is this large (suffixes K, M, G; 0:
    /// no limit).
    #[arg(long, value_name = "BYTES", default_value = "512M", value_parser = super::parse_size)]
    max_file_bytes: u64,
    /// Rows per row group.
    #[arg(long, value_name = "N", default_value_t = 128 << 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    row_group_rows: u64,
    /// Print what was written as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    read: ReadAsInput,
    #[command(flatten)]
    costing: Costing,
    #[command(flatten)]
    common: Common,
}

struct ExportSink<'a> {
    rows: Option<InputRows>,
    raw: bool,
    /// Where and past what size an input's rows are spilled.
    spill: (&'a Path, usize),
    /// Lines that were not events: reported, not dropped silently.
    bad: super::shape::BadLines,
    transcript: TranscriptPiece,
    /// What the input was read as, and what it is when it holds no event
    /// (then it is one `runs` row, as it is one run everywhere).
    format: Option<InputFormat>,
    shape: Shape,
    finding: Option<NoEvents>,
}

impl ExportSink<'_> {
    fn rows(&mut self, piece: &Piece<'_>) -> &mut InputRows {
        let (raw, (dir, bytes)) = (self.raw, self.spill);
        self.rows
            .get_or_insert_with(|| InputRows::new(piece.name, raw).spill_to(dir, bytes))
    }
}

impl Sink for ExportSink<'_> {
    /// Runs are followed across lines (inputs still run in parallel):
    /// whole events, parsed ahead on the pool for a large file.
    fn reads(&self) -> Reads {
        Reads::FOLDS
    }

    fn format(&mut self, p: &Piece<'_>, format: InputFormat) {
        self.format = Some(format);
        if format == InputFormat::Transcript {
            self.transcript.begin(p.name);
        }
    }

    #[inline(always)]
    fn item(&mut self, piece: &Piece<'_>, item: Item<'_, '_>, _: &mut Vec<u8>) {
        match item {
            Item::Event(ev) => self.rows(piece).push(ev),
            // A transcript record: folded into its session, and its
            // `events` row from the record's own event (the line is not
            // scanned again).
            Item::Record(rec) => {
                self.transcript.add(rec);
                self.rows(piece).push_record(rec);
            }
            Item::Error { error, bytes } => {
                self.rows(piece).push_error(error);
                self.bad.note(piece.name, error, bytes);
                self.shape.note(bytes);
            }
            Item::NotEvents(shape) => {
                self.bad.finding(shape);
                self.finding = Some(shape.describe());
            }
            _ => {}
        }
    }
}

/// Write batches as they come (in input order); after a failure, drop the
/// writer (its staging folder goes at once) and keep receiving so that the
/// sender never blocks, and report it at the end.
fn write_all(w: Writer, rx: mpsc::Receiver<Batch>) -> io::Result<[TableReport; 3]> {
    let mut w = Some(w);
    let mut failure: Option<io::Error> = None;
    for b in rx {
        if let Some(writer) = w.as_mut()
            && let Err(e) = writer.write(&b)
        {
            failure = Some(e);
            w = None;
        }
    }
    match (failure, w) {
        (Some(e), _) => Err(e),
        (None, Some(w)) => w.finish(),
        (None, None) => Err(io::Error::other("the writer stopped")),
    }
}

/// On SIGINT, SIGTERM or SIGHUP before the tables are swapped in: remove the
/// staging folder, say so and exit 2, the previous export kept. After the
/// swap, the signal does what it would have done.
#[cfg(unix)]
fn stop_on_signals(stop: AbortHandle, out: String) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            exec::note(&format!(
                "cannot handle signals ({e}): an interrupted export leaves its staging folder in {out}"
            ));
            return;
        }
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if stop.abort() || !stop.swapped_in() {
                let name = signal_hook::low_level::signal_name(sig).unwrap_or("a signal");
                exec::note(&format!(
                    "export stopped by {name}: {out} keeps its previous export"
                ));
                std::process::exit(2);
            }
            let _ = signal_hook::low_level::emulate_default_handler(sig);
        }
    });
}

#[cfg(not(unix))]
fn stop_on_signals(_: AbortHandle, _: String) {}

/// Run the command; returns the exit code: 0, or 2 for an error (an input
/// that could not be read, a bad line missing from the tables, output that
/// could not be written).
pub fn run(args: &Args) -> i32 {
    let Format::Parquet = args.format;
    let (prices, zone) = match (args.costing.prices(), args.costing.zone()) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(e), _) | (_, Err(e)) => {
            exec::note(&e);
            return 2;
        }
    };
    let (inputs, failed) = expand(&args.common);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    // A finished input holds all its rows until the writer takes them: start
    // no more inputs ahead of the writer than there are workers, so memory
    // stays near the one-job figure.
    opts.ahead = opts.jobs;
    let export = ExportOptions {
        raw: args.raw,
        row_group_rows: usize::try_from(args.row_group_rows).unwrap_or(usize::MAX),
        max_file_rows: args.max_file_rows,
        max_file_bytes: (args.max_file_bytes > 0).then_some(args.max_file_bytes),
        ..ExportOptions::default()
    };
    let shown_out = super::inputs::shown_path(&args.out);
    let writer = match Writer::create(&args.out, &export) {
        Ok(w) => w,
        Err(e) => {
            exec::note(&format!(
                "cannot export into {shown_out}: {e}; nothing was changed there"
            ));
            return 2;
        }
    };
    for n in writer.notes() {
        exec::note(n);
    }
    stop_on_signals(writer.abort_handle(), shown_out.clone());
    let spill_dir = writer.spill_dir().to_path_buf();
    let spill_bytes = export.spill_bytes;
    let names: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
    let data_names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let mut bad = super::shape::InputReport::default();
    let mut transcripts = Transcripts::default();
    transcripts.record_calls();
    // A writer thread encodes an input's rows while the next are read.
    let (tx, rx) = mpsc::sync_channel::<Batch>(1);
    let mut trouble = exec::Trouble::default();
    let result = std::thread::scope(|scope| {
        let handle = scope.spawn(move || write_all(writer, rx));
        let raw = args.raw;
        trouble = exec::run(
            &inputs,
            &opts,
            || ExportSink {
                rows: None,
                raw,
                spill: (&spill_dir, spill_bytes),
                bad: Default::default(),
                transcript: TranscriptPiece::default(),
                format: None,
                shape: Shape::default(),
                finding: None,
            },
            |done: Done<ExportSink>| {
                bad.absorb(
                    &done.sink.bad,
                    &names[done.input],
                    done.counts.events,
                    done.unreadable,
                );
                let sink = done.sink;
                if done.counts.events == 0
                    && done.failure.is_none()
                    && (sink.format.is_some() || sink.finding.is_some())
                {
                    // No event: the input is one run (its row as `verdict`
                    // prints its record).
                    let n = sink.finding.unwrap_or_else(|| sink.shape.describe());
                    let rows = sink
                        .rows
                        .unwrap_or_else(|| InputRows::new(&data_names[done.input], raw));
                    let _ = tx.send(rows.finish_without_events(|f| no_events_run(f, &n, None)));
                    return;
                }
                transcripts.add(sink.transcript);
                if let Some(rows) = sink.rows {
                    let _ = tx.send(rows.finish());
                }
            },
        );
        // Transcript sessions, once every input is read.
        if let Some((report, files)) =
            std::mem::take(&mut transcripts).finish(&data_names, &prices, &zone)
        {
            let mut batch = Batch::default();
            batch.push_sessions(
                report
                    .sessions
                    .iter()
                    .zip(&files)
                    .map(|(s, &i)| (data_names[i].as_str(), s)),
            );
            let _ = tx.send(batch);
        }
        drop(tx);
        handle.join()
    });
    let reports = match result {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            exec::note(&format!(
                "writing {shown_out}: {e}; {shown_out} keeps its previous export"
            ));
            return 2;
        }
        Err(_) => {
            exec::note(&format!(
                "writing {shown_out}: the writer stopped; {shown_out} keeps its previous export"
            ));
            return 2;
        }
    };
    if args.json {
        let mut tables = Map::new();
        for r in &reports {
            let files: Vec<String> = r.files.iter().map(|f| f.display().to_string()).collect();
            tables.insert(
                r.name.into(),
                json!({"rows": r.rows, "row_groups": r.row_groups, "files": files, "bytes": r.bytes}),
            );
        }
        let mut o = Map::new();
        o.insert("out".into(), json!(args.out.display().to_string()));
        o.insert("inputs".into(), json!(inputs.len()));
        o.insert("tables".into(), Value::Object(tables));
        o.extend(bad.to_json());
        print_json(&Value::Object(o));
    } else {
        let mut o = String::new();
        for r in &reports {
            let _ = writeln!(
                o,
                "{:<6}  {:>12} row{}  {:>4} file{}  {:>10}  {}",
                r.name,
                thousands(r.rows),
                if r.rows == 1 { " " } else { "s" },
                r.files.len(),
                if r.files.len() == 1 { " " } else { "s" },
                human_bytes(r.bytes),
                super::inputs::shown_path(&args.out.join(r.name))
            );
        }
        exec::write_out(&mut o.into_bytes());
    }
    if !args.common.no_messages {
        bad.eprint_summary();
    }
    trouble.and(failed).exit_code(0)
}
