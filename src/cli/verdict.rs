//! `cctape verdict`: one JSON object per run per line, and an exit code a
//! harness can act on.

use super::inputs::{self, Input};
use super::output::print_json;
use cctape::run::{RunSummary, runs_of_reader, runs_of_slice};
use cctape::source::FileBytes;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// Arguments of `cctape verdict`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The claude process's exit code: non-zero means failed whatever the
    /// stream says, and an empty stream with a non-zero code is
    /// `startup_failure`. Applies to the last run of each input (the run
    /// the exiting process wrote last).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    exit_code: Option<i32>,
    /// Files to read; `-` (or nothing) reads standard input.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Run the command. Exit code: 0 when every run succeeded, 1 when any
/// failed, 2 when any run has no verdict (`no_result`, empty) or an input
/// could not be read.
pub fn run(args: &Args) -> i32 {
    let mut any_failed = false;
    let mut any_undecided = false;
    for input in inputs::collect(&args.files) {
        let name = input.name();
        let (mut runs, error) = match &input {
            Input::Stdin => runs_of_reader(std::io::stdin().lock()),
            Input::File(p) => match FileBytes::open(p) {
                Ok(bytes) => (runs_of_slice(&bytes), None),
                Err(e) => {
                    eprintln!("cctape: {name}: {e}");
                    any_undecided = true;
                    print_json(&json!({
                        "file": name,
                        "error": e.to_string(),
                        "verdict": null,
                        "ok": false,
                    }));
                    continue;
                }
            },
        };
        if let Some(e) = error {
            eprintln!("cctape: {name}: {e}");
            any_undecided = true;
        }
        if runs.is_empty() {
            runs.push(RunSummary::empty());
        }
        if let (Some(code), Some(last)) = (args.exit_code, runs.last_mut()) {
            last.apply_exit_code(code);
        }
        for r in &runs {
            if r.verdict.is_undecided() {
                any_undecided = true;
            } else if !r.ok() {
                any_failed = true;
            }
            let mut o = Map::new();
            o.insert("file".into(), json!(name));
            if let Value::Object(rest) = r.to_json() {
                o.extend(rest);
            }
            if !print_json(&Value::Object(o)) {
                // stdout closed: stop writing, keep the exit code meaningful.
                break;
            }
        }
    }
    if any_undecided {
        2
    } else if any_failed {
        1
    } else {
        0
    }
}
