//! `cctape export`: streams to Parquet tables (`events`, `runs`, `tools`)
//! under an output directory, for DuckDB, Spark, Trino or DataFusion.
//!
//! Inputs are read in parallel like every command (each input whole, since
//! runs are followed across lines); a writer thread encodes each input's
//! rows, in input order, while later inputs are read, so the files are the
//! same whatever `--jobs`.
//!
//! JSON arrays and pretty captures give their events and runs. A session
//! transcript gives one `events` row per record (its `sessionId` as the
//! session, no usage) and, once every input is read, one `runs` row per
//! session with the transcript's figures, and one `tools` row per tool call
//! of the session under the same key (docs/export-schema.md says which
//! columns are null for transcripts).

use super::exec::{self, Done, Piece, Sink, Split};
use super::output::{human_bytes, print_json, thousands};
use super::reading::{Costing, ReadAsInput, TranscriptPiece, Transcripts};
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::{Event, parse_event};
use cctape::export::{Batch, ExportOptions, InputRows, TableReport, Writer};
use cctape::framing::Line;
use cctape::parse::Parser;
use cctape::report::Shape;
use cctape::sniff::Format as InputFormat;
use cctape::transcript::Record;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;
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
    /// Output directory: tables go to DIR/events, DIR/runs and DIR/tools
    /// (their part-*.parquet files from an earlier export are removed).
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

struct ExportSink {
    rows: Option<InputRows>,
    raw: bool,
    /// Lines that were not events: reported, not dropped silently.
    bad: super::shape::BadLines,
    transcript: TranscriptPiece,
    parser: Parser,
}

impl ExportSink {
    fn rows(&mut self, piece: &Piece<'_>) -> &mut InputRows {
        let raw = self.raw;
        self.rows
            .get_or_insert_with(|| InputRows::new(piece.name, raw))
    }
}

impl Sink for ExportSink {
    fn event(&mut self, piece: &Piece<'_>, ev: &Event<'_>, _: &mut Vec<u8>) {
        self.rows(piece).push(ev);
    }

    fn error(&mut self, piece: &Piece<'_>, e: &Error, line: Option<&[u8]>, _: &mut Vec<u8>) {
        self.rows(piece).push_error(e);
        self.bad.note(piece.name, e, line);
    }

    /// Whole events, parsed ahead on the pool for a large file.
    fn reads_ahead(&self) -> Option<bool> {
        Some(true)
    }

    fn split(&self) -> Split {
        // Runs are followed across lines; inputs still run in parallel.
        Split::Never
    }

    fn format(&mut self, p: &Piece<'_>, format: InputFormat) {
        if format == InputFormat::Transcript {
            self.transcript.begin(p.name);
        }
    }

    fn reads_records(&self) -> bool {
        true
    }

    /// A transcript record: folded into its session, and its `events` row.
    fn record(&mut self, piece: &Piece<'_>, rec: &Record<'_>, _: &mut Vec<u8>) {
        self.transcript.add(rec);
        let s = rec.scanned();
        let p = s.position();
        let line = Line {
            bytes: s.raw(),
            number: p.line,
            offset: p.offset,
            terminated: true,
        };
        if let Ok(ev) = parse_event(&mut self.parser, &line) {
            let raw = self.raw;
            self.rows
                .get_or_insert_with(|| InputRows::new(piece.name, raw))
                .push_record(&ev);
        }
    }

    fn not_events(&mut self, _: &Piece<'_>, shape: &Shape, _: &mut Vec<u8>) {
        self.bad.finding(shape);
    }
}

/// Write batches as they come (in input order); after a failure, keep
/// receiving so that the sender never blocks, and report it at the end.
fn write_all(mut w: Writer, rx: mpsc::Receiver<Batch>) -> io::Result<[TableReport; 3]> {
    let mut failure: Option<io::Error> = None;
    for b in rx {
        if failure.is_none()
            && let Err(e) = w.write(&b)
        {
            failure = Some(e);
        }
    }
    match failure {
        Some(e) => Err(e),
        None => w.finish(),
    }
}

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
    let writer = match Writer::create(&args.out, &export) {
        Ok(w) => w,
        Err(e) => {
            exec::note(&format!("{}: {e}", super::inputs::shown_path(&args.out)));
            return 2;
        }
    };
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
                bad: Default::default(),
                transcript: TranscriptPiece::default(),
                parser: Parser::new(),
            },
            |done: Done<ExportSink>| {
                bad.absorb(
                    &done.sink.bad,
                    &names[done.input],
                    done.counts.events,
                    done.unreadable,
                );
                transcripts.add(done.sink.transcript);
                if let Some(rows) = done.sink.rows {
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
                "writing {}: {e}",
                super::inputs::shown_path(&args.out)
            ));
            return 2;
        }
        Err(_) => {
            exec::note(&format!(
                "writing {}: the writer stopped",
                super::inputs::shown_path(&args.out)
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
