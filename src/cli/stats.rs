//! `cctape stats`: counts over every input, for people or as JSON.

use super::exec::{self, Done, Piece, Sink};
use super::output::{human_bytes, print_json, thousands};
use super::{Common, expand};
use cctape::error::{Error, ErrorKind, Position};
use cctape::event::Event;
use cctape::stats::Stats;
use serde_json::{Map, Value, json};

/// Arguments of `cctape stats`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print one JSON object instead of a summary for people.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    common: Common,
}

struct StatsSink(Stats);

impl Sink for StatsSink {
    fn event(&mut self, _: &Piece<'_>, ev: &Event<'_>, _: &mut Vec<u8>) {
        self.0.record_event(ev);
    }

    fn error(&mut self, p: &Piece<'_>, e: &Error, _: Option<&[u8]>, _: &mut Vec<u8>) {
        self.0.record_error(p.input, e);
    }
}

/// Run the command; returns the exit code (2 when an input could not be read).
pub fn run(args: &Args) -> i32 {
    let (inputs, mut failed) = expand(&args.common);
    let opts = exec::Opts::new(args.common.jobs, args.common.quiet);
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let mut per_file: Vec<Stats> = (0..inputs.len()).map(|_| Stats::new()).collect();
    exec::run(
        &inputs,
        &opts,
        || StatsSink(Stats::new()),
        |done: Done<StatsSink>| {
            let mut s = done.sink.0;
            s.bytes += done.bytes;
            s.counts.add(&done.counts);
            if let Some(why) = &done.failure {
                eprintln!("cctape: {}: {why}", names[done.input]);
                failed = true;
                if done.counts.lines == 0 && done.bytes == 0 {
                    s.counts.errors += 1;
                    let io = std::io::Error::other(why.clone());
                    s.record_error(done.input, &Error::io(io, Position::default()));
                }
            }
            if done.last {
                s.files += 1;
            }
            per_file[done.input].merge(&s, 0);
        },
    );
    let mut total = Stats::new();
    for s in &per_file {
        total.merge(s, 0);
    }
    if args.json {
        let mut obj = stats_json(&total, &names);
        let files: Vec<Value> = per_file
            .iter()
            .zip(&names)
            .map(|(s, n)| {
                let mut o = Map::new();
                o.insert("file".into(), json!(n));
                o.extend(stats_json(s, &names));
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
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
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
        let _ = writeln!(o, "\nevents by type");
        for (k, n) in rows {
            let _ = writeln!(o, "  {k:<w$}  {:>10}", thousands(n));
        }
    }
    let unknown = s.unknown();
    if !unknown.is_empty() {
        let _ = writeln!(o, "\nkinds without a typed view");
        for (k, n) in unknown {
            let _ = writeln!(o, "  {k}  {}", thousands(n));
        }
    }
    if !s.errors.is_empty() {
        let _ = writeln!(
            o,
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
            let _ = writeln!(
                o,
                "  {name}:{}: byte {}{at}: {}: {}",
                e.line, e.offset, e.kind, e.message
            );
        }
    }
    super::exec::write_out(&mut o.into_bytes());
}
