//! Command-line parsing and dispatch. Each command lives in its own module
//! and returns the process exit code: 0 fine, 1 findings or failed runs,
//! 2 usage or I/O error.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

mod check;
mod exec;
#[cfg(feature = "parquet")]
mod export;
mod fields;
mod filter;
mod human;
mod inputs;
mod output;
mod progress;
mod shape;
mod stats;
mod tree;
mod verdict;
mod watch;

/// Read Claude Code stream-json event streams
/// (`claude -p --output-format stream-json --verbose`): counts, verdicts,
/// filters and fields, fast.
///
/// Inputs are files, directories (walked for *.jsonl, *.ndjson, *.json,
/// *.log and their .gz/.zst forms) and `-` for stdin; gzip and zstd are
/// detected by their first bytes whatever the name.
///
/// Exit codes: 0 fine; 1 findings or failed runs (verdict, check); 2 usage
/// error or an input that could not be read.
#[derive(Parser, Debug)]
#[command(name = "cctape", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options every reading command takes.
#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// Files or directories to read; `-` (or nothing) reads standard input.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Worker threads (0: one per core; 1: everything in order on one thread).
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N")]
    pub jobs: usize,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Counts and sums: events by type/subtype, errors, runs and verdicts,
    /// tokens and cost per model, tools, subagents, api retries.
    ///
    /// Group run figures with --by file|session|model|version|day; --json and
    /// --csv for scripts.
    ///
    /// Example: cctape stats --json runs/
    Stats(stats::Args),
    /// Print the raw lines (bytes unchanged) that match every given test.
    ///
    /// Example: cctape filter --type result runs/ | head
    Filter(filter::Args),
    /// One row per event with the fields named by path.
    ///
    /// Example: cctape fields -f type -f subtype -f message.usage.output_tokens run.jsonl
    Fields(fields::Args),
    /// Drift census: what does not fit the field reference, per
    /// claude_code_version.
    ///
    /// Reports unknown types, subtypes, fields and content blocks, tool
    /// results without a tool use, assistant events with several content
    /// blocks, missing uuids, truncation and lines that are not events, with
    /// counts and a first position. Exits 1 when it found anything.
    ///
    /// Example: cctape check --json runs/
    Check(check::Args),
    /// The verdict of every run: one JSON object per run per line.
    ///
    /// Exit code 0 when every run succeeded, 1 when any failed, 2 when any
    /// has no verdict (no result, empty) or an input could not be read.
    ///
    /// Example: cctape verdict --exit-code 0 run.jsonl
    Verdict(verdict::Args),
    /// Each run's subagents and tasks as a tree, with tokens, tool calls,
    /// duration and status per node.
    ///
    /// Example: cctape tree run.jsonl
    Tree(tree::Args),
    /// For a live run: pass stdin through, keep a status line, end with the
    /// verdict.
    ///
    /// Every byte goes to stdout unchanged as it arrives; stderr keeps one
    /// status line (turn, current tool, tokens, cost, subagents running) when
    /// it is a terminal; at the end the verdict of each run is printed to
    /// stderr as JSON and the exit code is the verdict's.
    ///
    /// Example: claude -p "..." --output-format stream-json --verbose | cctape watch > run.jsonl
    Watch(watch::Args),
    /// Parquet tables for DuckDB, Spark, Trino or DataFusion.
    ///
    /// DIR/events (one row per event), DIR/runs (one per run, with its
    /// verdict and totals) and DIR/tools (one per tool call), split into
    /// part files. Usage is counted once per model call (`carries_usage`).
    ///
    /// Example: cctape export --format parquet --out exported/ runs/
    #[cfg(feature = "parquet")]
    Export(export::Args),
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
        Command::Filter(a) => filter::run(&a),
        Command::Fields(a) => fields::run(&a),
        Command::Check(a) => check::run(&a),
        Command::Verdict(a) => verdict::run(&a),
        Command::Tree(a) => tree::run(&a),
        Command::Watch(a) => watch::run(&a),
        #[cfg(feature = "parquet")]
        Command::Export(a) => export::run(&a),
    }
}

/// Expand the paths, reporting directories that could not be read. Returns
/// the inputs and whether anything failed.
pub fn expand(common: &Common) -> (Vec<inputs::Input>, bool) {
    let (inputs, errors) = inputs::collect(&common.paths);
    for (p, e) in &errors {
        eprintln!("cctape: {}: {e}", p.display());
    }
    (inputs, !errors.is_empty())
}
