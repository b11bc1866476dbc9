//! `cctape fields`: one row per event with the fields named by path, as TSV,
//! CSV or NDJSON.

use super::exec::{self, Done, Piece, Sink};
use super::output::{csv_cell, write_json, write_json_str};
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::Event;
use cctape::parse::ValueKind;

/// Output formats of `cctape fields`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Tab-separated; tabs, newlines and backslashes in values escaped as
    /// `\t`, `\n`, `\\`.
    Tsv,
    /// RFC 4180 CSV.
    Csv,
    /// One JSON object per event, keyed by path.
    Ndjson,
}

/// Arguments of `cctape fields`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// A field by dotted path (`message.usage.output_tokens`,
    /// `message.content.0.type`); repeat for more columns. Also `@file`,
    /// `@line`, `@offset` and `@kind` (type/subtype); other names starting
    /// with `@` are a usage error.
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
    common: Common,
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

struct FieldsSink {
    fields: Vec<String>,
    format: Format,
    cell: Vec<u8>,
}

impl FieldsSink {
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

impl Sink for FieldsSink {
    fn event(&mut self, piece: &Piece<'_>, ev: &Event<'_>, out: &mut Vec<u8>) {
        let fields = std::mem::take(&mut self.fields);
        if self.format == Format::Ndjson {
            out.push(b'{');
        }
        for (i, path) in fields.iter().enumerate() {
            let present = self.cell_text(piece, ev, path);
            match self.format {
                Format::Tsv => {
                    if i > 0 {
                        out.push(b'\t');
                    }
                    for &b in &self.cell {
                        match b {
                            b'\t' => out.extend_from_slice(b"\\t"),
                            b'\n' => out.extend_from_slice(b"\\n"),
                            b'\r' => out.extend_from_slice(b"\\r"),
                            b'\\' => out.extend_from_slice(b"\\\\"),
                            _ => out.push(b),
                        }
                    }
                }
                Format::Csv => {
                    if i > 0 {
                        out.push(b',');
                    }
                    csv_cell(&self.cell, out);
                }
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
        if self.format == Format::Ndjson {
            out.push(b'}');
        }
        out.push(b'\n');
        self.fields = fields;
    }

    fn error(&mut self, _: &Piece<'_>, _: &Error, _: Option<&[u8]>, _: &mut Vec<u8>) {}
}

/// Run the command; returns the exit code.
pub fn run(args: &Args) -> i32 {
    let (inputs, mut failed) = expand(&args.common);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    if !args.no_header && args.format != Format::Ndjson {
        let mut head = Vec::new();
        for (i, f) in args.fields.iter().enumerate() {
            match args.format {
                Format::Tsv => {
                    if i > 0 {
                        head.push(b'\t');
                    }
                    head.extend_from_slice(f.as_bytes());
                }
                _ => {
                    if i > 0 {
                        head.push(b',');
                    }
                    csv_cell(f.as_bytes(), &mut head);
                }
            }
        }
        head.push(b'\n');
        exec::write_out(&mut head);
    }
    exec::run(
        &inputs,
        &opts,
        || FieldsSink {
            fields: args.fields.clone(),
            format: args.format,
            cell: Vec::new(),
        },
        |done: Done<FieldsSink>| failed |= done.failure.is_some(),
    );
    if failed { 2 } else { 0 }
}
