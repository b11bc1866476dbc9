//! `cctape stats`: counts over every input, for people or as JSON.

use super::inputs::{self, Input};
use super::output::{human_bytes, print_json, thousands};
use cctape::error::{Error, ErrorKind, Position};
use cctape::source::FileBytes;
use cctape::stats::Stats;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// Arguments of `cctape stats`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print one JSON object instead of a summary for people.
    #[arg(long)]
    json: bool,
    /// Files to read; `-` (or nothing) reads standard input.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Run the command; returns the exit code (2 when an input could not be read).
pub fn run(args: &Args) -> i32 {
    let inputs = inputs::collect(&args.files);
    let mut total = Stats::new();
    let mut per_file = Vec::with_capacity(inputs.len());
    let mut failed = false;
    for (i, input) in inputs.iter().enumerate() {
        let mut s = Stats::new();
        match input {
            Input::Stdin => {
                let stdin = std::io::stdin();
                if let Some(e) = s.read_stream(0, stdin.lock()) {
                    eprintln!("cctape: {}: {e}", input.name());
                    failed = true;
                }
            }
            Input::File(p) => match FileBytes::open(p) {
                Ok(bytes) => s.read_slice(0, &bytes),
                Err(e) => {
                    eprintln!("cctape: {}: {e}", input.name());
                    failed = true;
                    s.files += 1;
                    s.counts.errors += 1;
                    s.record_error(0, &Error::io(e, Position::default()));
                }
            },
        }
        total.merge(&s, i);
        per_file.push(s);
    }
    let names: Vec<String> = inputs.iter().map(Input::name).collect();
    if args.json {
        let mut obj = stats_json(&total, &names);
        let files: Vec<Value> = per_file
            .iter()
            .zip(&names)
            .map(|(s, n)| {
                let mut o = stats_json(s, std::slice::from_ref(n));
                o.insert("file".into(), json!(n));
                Value::Object(o)
            })
            .collect();
        obj.insert("per_file".into(), Value::Array(files));
        print_json(&Value::Object(obj));
    } else {
        print_human(&total, &names);
    }
    if failed { 2 } else { 0 }
}

fn stats_json(s: &Stats, names: &[String]) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("files".into(), json!(s.files));
    o.insert("bytes".into(), json!(s.bytes));
    o.insert("lines".into(), json!(s.counts.lines));
    o.insert("blank_lines".into(), json!(s.counts.blank_lines));
    o.insert("events".into(), json!(s.counts.events));
    o.insert("by_type".into(), json!(s.by_type()));
    o.insert("unknown".into(), json!(s.unknown()));
    o.insert("error_count".into(), json!(s.counts.errors));
    let errors: Vec<Value> = s
        .errors
        .iter()
        .map(|e| {
            json!({
                "file": names.get(e.file).map(String::as_str).unwrap_or("?"),
                "line": e.line,
                "offset": e.offset,
                "column": e.column,
                "kind": e.kind,
                "message": e.message,
            })
        })
        .collect();
    o.insert("errors".into(), Value::Array(errors));
    o
}

fn print_human(s: &Stats, names: &[String]) {
    println!(
        "{} files, {}, {} lines ({} blank), {} events, {} errors",
        thousands(s.files),
        human_bytes(s.bytes),
        thousands(s.counts.lines),
        thousands(s.counts.blank_lines),
        thousands(s.counts.events),
        thousands(s.counts.errors),
    );
    let by = s.by_type();
    if !by.is_empty() {
        let mut rows: Vec<_> = by.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        println!("\nevents by type");
        for (k, n) in rows {
            println!("  {k:<w$}  {:>10}", thousands(n));
        }
    }
    let unknown = s.unknown();
    if !unknown.is_empty() {
        println!("\nkinds without a typed view");
        for (k, n) in unknown {
            println!("  {k}  {}", thousands(n));
        }
    }
    if !s.errors.is_empty() {
        println!(
            "\nerrors (first {} of {})",
            s.errors.len(),
            thousands(s.counts.errors)
        );
        for e in &s.errors {
            let name = names.get(e.file).map(String::as_str).unwrap_or("?");
            let at = match e.column {
                Some(c) if e.kind != ErrorKind::Io.name() => format!(", column {c}"),
                _ => String::new(),
            };
            println!(
                "  {name}:{}: byte {}{at}: {}: {}",
                e.line, e.offset, e.kind, e.message
            );
        }
    }
}
