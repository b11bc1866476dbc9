//! `cctape verdict`: one record per run, and an exit code a harness can act
//! on as it acts on grep's and diff's: 0 every run succeeded, 1 some run did
//! not (a failure, no result, an input without events), 2 only for usage
//! errors and inputs that could not be read.
//!
//! On a terminal each run is one line for people; piped, or with `--json`,
//! one JSON object per run per line, keys in the stable order documented in
//! `docs/accounting.md` (`verdict`, `ok`, `file` first).

use super::exec::{self, Done, Piece, Sink, Split};
use super::human::{clean, count, seconds};
use super::inputs::shown_path;
use super::output::write_json_value;
use super::shape::Shape;
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::Event;
use cctape::run::{RunFolder, RunSummary, Verdict};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Arguments of `cctape verdict`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The claude process's exit code: non-zero means failed whatever the
    /// stream says; zero over a failed run is a warning. Applies to the last
    /// run of each input (the run the exiting process wrote last).
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "exit_codes"
    )]
    exit_code: Option<i32>,
    /// Exit codes of many inputs at once: a file of `PATH<TAB>CODE` lines
    /// (blank lines and lines starting with `#` skipped). PATH names an
    /// input as given or found in a directory (compared as written, else
    /// as the same file); each code applies as `--exit-code` does to that
    /// input alone.
    #[arg(long, value_name = "FILE")]
    exit_codes: Option<PathBuf>,
    /// JSON records even on a terminal (they are the default when standard
    /// output is not a terminal).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    common: Common,
}

#[derive(Default)]
struct VerdictSink {
    folder: RunFolder,
    shape: Shape,
}

impl Sink for VerdictSink {
    fn event(&mut self, _: &Piece<'_>, ev: &Event<'_>, _: &mut Vec<u8>) {
        self.folder.push(ev);
    }

    fn error(&mut self, _: &Piece<'_>, e: &Error, line: Option<&[u8]>, _: &mut Vec<u8>) {
        self.folder.push_error(e);
        self.shape.note(line);
    }

    fn split(&self) -> Split {
        Split::Never
    }
}

/// Exit codes by input, from a `PATH<TAB>CODE` file.
struct ExitCodes {
    by_name: HashMap<String, i32>,
    by_file: HashMap<PathBuf, i32>,
}

impl ExitCodes {
    fn read(path: &Path) -> Result<ExitCodes, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", shown_path(path)))?;
        let mut by_name = HashMap::new();
        let mut by_file = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_end_matches('\r');
            if l.trim().is_empty() || l.starts_with('#') {
                continue;
            }
            let Some((p, c)) = l.rsplit_once('\t') else {
                return Err(format!(
                    "{}:{}: expected PATH<TAB>CODE, found {l:?}",
                    shown_path(path),
                    i + 1
                ));
            };
            let code: i32 = c.trim().parse().map_err(|_| {
                format!(
                    "{}:{}: {c:?} is not an exit code (an integer)",
                    shown_path(path),
                    i + 1
                )
            })?;
            by_name.insert(p.to_string(), code);
            if let Ok(canon) = std::fs::canonicalize(p) {
                by_file.insert(canon, code);
            }
        }
        Ok(ExitCodes { by_name, by_file })
    }

    fn get(&self, name: &str) -> Option<i32> {
        self.by_name.get(name).copied().or_else(|| {
            let canon = std::fs::canonicalize(name).ok()?;
            self.by_file.get(&canon).copied()
        })
    }
}

/// The record of an input without events: a run record (verdict
/// `startup_failure`) with `no_events` after `file`.
pub fn no_events_record(r: &RunSummary, name: &str, no_events: Value) -> Value {
    let mut o = Map::new();
    if let Value::Object(rest) = r.to_json_with_file(Some(name)) {
        for (k, v) in rest {
            let file = k == "file";
            o.insert(k, v);
            if file {
                o.insert("no_events".into(), no_events.clone());
            }
        }
    }
    Value::Object(o)
}

/// One run as a line for people. Lines, not a table: each run is printed
/// as soon as its input is read (output streams), and a table would wait
/// for the last run to know its widths.
fn human_line(name: &str, r: &RunSummary) -> String {
    let mut parts = Vec::new();
    let last = r.last_result.as_ref();
    if let Some(n) = last.and_then(|l| l.num_turns) {
        parts.push(match u64::try_from(n) {
            Ok(n) => count(n, "turn", "turns"),
            Err(_) => format!("{n} turns"),
        });
    }
    if let Some(ms) = r.wall_ms.or(r.duration_ms_sum) {
        parts.push(seconds(ms));
    }
    match (
        r.cost.total_cost_usd,
        last.and_then(|l| l.total_cost_text.as_deref()),
    ) {
        (Some(c), _) => parts.push(format!("${}", super::human::money(c))),
        (None, Some(t)) => parts.push(format!("${t}")),
        _ => {}
    }
    let m = &r.usage.main;
    if m.messages > 0 || m.tokens.output_tokens > 0 {
        parts.push(format!(
            "{}{} ({})",
            if m.lower_bound() { "≥" } else { "" },
            count(m.tokens.output_tokens, "output token", "output tokens"),
            m.source.as_str()
        ));
    }
    if let Some(code) = r.exit_code {
        parts.push(format!("exit {code}"));
    }
    let mut codes: Vec<&str> = Vec::new();
    for w in &r.warnings {
        if !codes.contains(&w.code) {
            codes.push(w.code);
        }
    }
    let warn = if codes.is_empty() {
        String::new()
    } else {
        format!("  warnings: {}", codes.join(", "))
    };
    format!(
        "{:<15} {}  {}  {}{warn}\n",
        r.verdict.as_str(),
        clean(name),
        clean(r.session_id.as_deref().unwrap_or("-")),
        parts.join(", ")
    )
}

/// Run the command. Exit code: 0 when every run succeeded, 1 when any did
/// not (including no result and inputs without events), 2 for a usage error
/// or an input that could not be read.
pub fn run(args: &Args) -> i32 {
    let codes = match &args.exit_codes {
        None => None,
        Some(p) => match ExitCodes::read(p) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("cctape: --exit-codes {e}");
                return 2;
            }
        },
    };
    let (inputs, mut unreadable) = expand(&args.common);
    let opts = exec::Opts::new(&args.common);
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let json_out = args.json || !std::io::stdout().is_terminal();
    let mut any_not_ok = false;
    exec::run(
        &inputs,
        &opts,
        VerdictSink::default,
        |done: Done<VerdictSink>| {
            let name = &names[done.input];
            let mut out = Vec::new();
            if let Some(why) = &done.failure {
                unreadable = true;
                if done.unreadable {
                    if json_out {
                        let row = json!({"verdict": null, "ok": false, "file": name, "error": why.to_string()});
                        write_json_value(&row, &mut out);
                    } else {
                        out.extend_from_slice(
                            format!("{:<15} {}  {why}\n", "unreadable", clean(name)).as_bytes(),
                        );
                    }
                    exec::write_out(&mut out);
                    return;
                }
            }
            let code = args
                .exit_code
                .or_else(|| codes.as_ref().and_then(|c| c.get(name)));
            if done.counts.events == 0 {
                // Not a run: one record saying the input has no events, with
                // every key a run record has (its bad lines counted).
                any_not_ok = true;
                let shape = done.sink.shape.describe();
                let mut r = done
                    .sink
                    .folder
                    .finish()
                    .into_iter()
                    .next()
                    .unwrap_or_else(RunSummary::empty);
                r.verdict = Verdict::StartupFailure;
                r.stream_verdict = Verdict::StartupFailure;
                r.exit_code = code;
                if json_out {
                    write_json_value(&no_events_record(&r, name, shape.to_json()), &mut out);
                } else {
                    let first = shape.first_line.as_deref().unwrap_or("");
                    out.extend_from_slice(
                        format!(
                            "{:<15} {}  no events ({}){}{}\n",
                            r.verdict.as_str(),
                            clean(name),
                            shape.format,
                            if first.is_empty() { "" } else { ": " },
                            clean(first)
                        )
                        .as_bytes(),
                    );
                }
                exec::write_out(&mut out);
                return;
            }
            let mut runs = done.sink.folder.finish();
            if let (Some(code), Some(last)) = (code, runs.last_mut()) {
                last.apply_exit_code(code);
            }
            for r in &runs {
                any_not_ok |= !r.ok();
                if json_out {
                    write_json_value(&r.to_json_with_file(Some(name)), &mut out);
                } else {
                    out.extend_from_slice(human_line(name, r).as_bytes());
                }
            }
            exec::write_out(&mut out);
        },
    );
    if unreadable {
        2
    } else if any_not_ok {
        1
    } else {
        0
    }
}
