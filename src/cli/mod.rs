//! Command-line parsing and dispatch. Each command lives in its own module
//! and returns the process exit code: 0 fine, 1 findings or failed runs,
//! 2 usage or I/O error.

use clap::{Parser, Subcommand};

mod inputs;
mod output;
mod stats;
mod verdict;

/// Read Claude Code stream-json event streams
/// (`claude -p --output-format stream-json --verbose`): counts, verdicts and
/// fields, fast.
#[derive(Parser, Debug)]
#[command(name = "cctape", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count lines, events by type/subtype, unknown kinds and errors.
    ///
    /// Example: cctape stats --json run1.jsonl run2.jsonl
    Stats(stats::Args),
    /// The verdict of every run: one JSON object per run per line.
    ///
    /// Exit code 0 when every run succeeded, 1 when any failed, 2 when any
    /// has no verdict (no result, empty) or an input could not be read.
    ///
    /// Example: cctape verdict --exit-code 0 run.jsonl
    Verdict(verdict::Args),
}

/// Parse the arguments and run the command; returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Stats(a) => stats::run(&a),
        Command::Verdict(a) => verdict::run(&a),
    }
}
