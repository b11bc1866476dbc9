//! `cctape verdict`: one JSON object per run per line, and an exit code a
//! harness can act on.

use super::exec::{self, Done, Piece, Sink, Split};
use super::output::write_json_value;
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::Event;
use cctape::run::{RunFolder, RunSummary};
use serde_json::{Map, Value, json};

/// Arguments of `cctape verdict`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The claude process's exit code: non-zero means failed whatever the
    /// stream says, and an empty stream with a non-zero code is
    /// `startup_failure`. Applies to the last run of each input (the run
    /// the exiting process wrote last).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    exit_code: Option<i32>,
    #[command(flatten)]
    common: Common,
}

#[derive(Default)]
struct VerdictSink(RunFolder);

impl Sink for VerdictSink {
    fn event(&mut self, _: &Piece<'_>, ev: &Event<'_>, _: &mut Vec<u8>) {
        self.0.push(ev);
    }

    fn error(&mut self, _: &Piece<'_>, e: &Error, _: Option<&[u8]>, _: &mut Vec<u8>) {
        self.0.push_error(e);
    }

    fn split(&self) -> Split {
        Split::Never
    }
}

/// Run the command. Exit code: 0 when every run succeeded, 1 when any
/// failed, 2 when any run has no verdict (`no_result`, empty) or an input
/// could not be read.
pub fn run(args: &Args) -> i32 {
    let (inputs, failed) = expand(&args.common);
    let opts = exec::Opts::new(&args.common);
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let mut any_failed = false;
    let mut any_undecided = failed;
    exec::run(
        &inputs,
        &opts,
        VerdictSink::default,
        |done: Done<VerdictSink>| {
            let name = &names[done.input];
            let mut out = Vec::new();
            if let Some(why) = &done.failure {
                any_undecided = true;
                if done.unreadable {
                    let row = json!({"file": name, "error": why.to_string(), "verdict": null, "ok": false});
                    write_json_value(&row, &mut out);
                    exec::write_out(&mut out);
                    return;
                }
            }
            let mut runs = done.sink.0.finish();
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
                write_json_value(&Value::Object(o), &mut out);
            }
            exec::write_out(&mut out);
        },
    );
    if any_undecided {
        2
    } else if any_failed {
        1
    } else {
        0
    }
}
