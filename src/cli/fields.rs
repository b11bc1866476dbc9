//! `cctape fields`: one row per event with the fields named by path, as TSV,
//! CSV or NDJSON, for the events that pass the filters `filter` takes.

use super::exec::{self, Done, Item, Piece, Reads, Sink};
use super::filter::{Filters, Matcher, select_exit_code};
use super::output::{CsvRows, write_json, write_json_str};
use super::{Common, expand};
use cctape::event::Event;
use cctape::json::ValueKind;

/// Output formats of `cctape fields`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Tab-separated; tabs, newlines and backslashes in values escaped as
    /// `\t`, `\n`, `\\` (as jq's @tsv and PostgreSQL's text format: a
    /// value never spans lines, so `cut` and `awk` read it).
    Tsv,
    /// RFC 4180 CSV (written by the `csv` crate: quoted where needed).
    Csv,
    /// One JSON object per event, keyed by path.
    Ndjson,
}

/// Arguments of `cctape fields`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// A field by dotted path (`message.usage.output_tokens`,
    /// `message.content.0.type`); repeat for more columns. Also `@file`
    /// (`<stdin>` for standard input), `@line`, `@offset` and `@kind`
    /// (type/subtype); other names starting with `@` are a usage error.
    #[arg(short = 'f', long = "field", value_name = "FIELD", required = true,
          value_parser = parse_field)]
    fields: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Tsv)]
    format: Format,
    /// No header row (TSV and CSV).
    #[arg(long)]
    no_header: bool,
    #[command(flatten)]
    read: super::reading::ReadAsInput,
    #[command(flatten)]
    buffering: super::live::Buffering,
    #[command(flatten)]
    live: super::live::Follow,
    #[command(flatten)]
    common: Common,
    // Last: its help heading holds for what follows.
    #[command(flatten)]
    filters: Filters,
}

/// The fields that are not paths into the event.
const AT_NAMES: [&str; 4] = ["@file", "@line", "@offset", "@kind"];

/// A field: a path, or one of [`AT_NAMES`] (anything else starting with `@`
/// would silently be a null column).
fn parse_field(s: &str) -> Result<String, String> {
    if s.starts_with('@') && !AT_NAMES.contains(&s) {
        return Err(format!(
            "unknown field {s:?}: the @-names are {}",
            AT_NAMES.join(", ")
        ));
    }
    Ok(s.to_string())
}

struct FieldsSink<'a> {
    args: &'a Args,
    matcher: Matcher<'a>,
    cell: Vec<u8>,
    csv: CsvRows,
    rows: u64,
}

impl<'a> FieldsSink<'a> {
    fn new(args: &'a Args) -> FieldsSink<'a> {
        FieldsSink {
            args,
            matcher: Matcher::new(&args.filters),
            cell: Vec::new(),
            csv: CsvRows::default(),
            rows: 0,
        }
    }

    fn cell_text(&mut self, piece: &Piece<'_>, ev: &Event<'_>, path: &str) -> Option<bool> {
        // Fills self.cell with the raw text; returns Some(is_string) or None
        // when the field is missing.
        self.cell.clear();
        match path {
            "@file" => {
                self.cell.extend_from_slice(piece.name.as_bytes());
                return Some(true);
            }
            "@line" => {
                self.cell
                    .extend_from_slice(ev.line().to_string().as_bytes());
                return Some(false);
            }
            "@offset" => {
                self.cell
                    .extend_from_slice(ev.offset().to_string().as_bytes());
                return Some(false);
            }
            "@kind" => {
                self.cell.extend_from_slice(ev.raw_type().as_bytes());
                if let Some(s) = ev.raw_subtype() {
                    self.cell.push(b'/');
                    self.cell.extend_from_slice(s.as_bytes());
                }
                return Some(true);
            }
            _ => {}
        }
        let v = ev.get_path(path)?;
        if v.kind() == ValueKind::String {
            self.cell
                .extend_from_slice(v.as_str().unwrap_or_default().as_bytes());
            Some(true)
        } else {
            write_json(&v, &mut self.cell);
            Some(false)
        }
    }
}

/// Append `cell` as a TSV value: tab, line ends and backslash escaped.
fn tsv_cell(cell: &[u8], out: &mut Vec<u8>) {
    for &b in cell {
        match b {
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            _ => out.push(b),
        }
    }
}

impl Sink for FieldsSink<'_> {
    fn format(&mut self, _: &Piece<'_>, format: cctape::sniff::Format) {
        // A transcript says its session and agent in `sessionId` and
        // `isSidechain`.
        self.matcher.transcript = format == cctape::sniff::Format::Transcript;
    }

    fn reads(&self) -> Reads {
        Reads {
            split: self.args.filters.split(),
            numbers: self.args.fields.iter().any(|f| f == "@line"),
            ..Reads::default()
        }
    }

    /// An event's row; bad lines are said by the driver.
    #[inline(always)]
    fn item(&mut self, piece: &Piece<'_>, item: Item<'_, '_>, out: &mut Vec<u8>) {
        if let Item::Event(ev) = item {
            self.row(piece, ev, out);
        }
    }
}

impl FieldsSink<'_> {
    /// One event's row, when it passes the filters.
    #[inline]
    fn row(&mut self, piece: &Piece<'_>, ev: &Event<'_>, out: &mut Vec<u8>) {
        let m = &mut self.matcher;
        if !(m.passes_all() || m.matches(ev, || ev.raw_type(), || ev.raw_subtype())) {
            return;
        }
        self.rows += 1;
        let args = self.args;
        if args.format == Format::Ndjson {
            out.push(b'{');
        }
        for (i, path) in args.fields.iter().enumerate() {
            let present = self.cell_text(piece, ev, path);
            match args.format {
                Format::Tsv => {
                    if i > 0 {
                        out.push(b'\t');
                    }
                    tsv_cell(&self.cell, out);
                }
                Format::Csv => self.csv.field(&self.cell, out),
                Format::Ndjson => {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_json_str(path, out);
                    out.push(b':');
                    match present {
                        None => out.extend_from_slice(b"null"),
                        Some(true) => write_json_str(&String::from_utf8_lossy(&self.cell), out),
                        Some(false) => out.extend_from_slice(&self.cell),
                    }
                }
            }
        }
        match args.format {
            Format::Csv => self.csv.end(out),
            Format::Ndjson => out.extend_from_slice(b"}\n"),
            Format::Tsv => out.push(b'\n'),
        }
    }
}

/// The header row, in the output format.
fn header(args: &Args) -> Vec<u8> {
    let mut head = Vec::new();
    match args.format {
        Format::Ndjson => {}
        Format::Tsv => {
            for (i, f) in args.fields.iter().enumerate() {
                if i > 0 {
                    head.push(b'\t');
                }
                tsv_cell(f.as_bytes(), &mut head);
            }
            head.push(b'\n');
        }
        Format::Csv => CsvRows::default().row(&args.fields, &mut head),
    }
    head
}

/// Run the command; returns the exit code: 0 a row was printed, 1 none was
/// (no event passed the filters), 2 an error (an input that could not be
/// read, a bad line missing from the rows).
pub fn run(args: &Args) -> i32 {
    let (inputs, failed) = if args.live.follow_name {
        (vec![args.live.input(&args.common)], false)
    } else {
        expand(&args.common)
    };
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    opts.line_buffered = args.buffering.line_buffered;
    if !args.no_header {
        exec::write_out(&mut header(args));
    }
    let mut rows = 0;
    let trouble = exec::run(
        &inputs,
        &opts,
        || FieldsSink::new(args),
        |done: Done<FieldsSink>| {
            rows += done.sink.rows;
        },
    );
    trouble.and(failed).exit_code(select_exit_code(rows))
}
