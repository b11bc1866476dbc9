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
mod packaging;
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
#[command(name = "cctape", version, about, long_about, after_help = EXAMPLES)]
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

// Examples, shown by both -h and --help (clap's after_help), one block per
// command.
const EXAMPLES: &str = "\
Examples:
  cctape stats runs/                        counts, runs, tokens, cost and tools
  cctape verdict --exit-code 0 run.jsonl    each run's verdict as JSON; exit 1 if one failed
  cctape filter --type result runs/ | head  the raw result lines
  cctape fields -f @kind -f total_cost_usd run.jsonl
  cctape completions bash > ~/.local/share/bash-completion/completions/cctape
  cctape man | man -l -                     this manual as a man page";

const STATS_EXAMPLES: &str = "\
Examples:
  cctape stats runs/                         tables for people
  cctape stats --by model runs/              run figures per model
  cctape stats --json runs/ | jq .usage      one JSON object
  cctape stats --csv --by day runs/ > days.csv
  zstd -dc archive.jsonl.zst | cctape stats  stdin (compressed files are read as they are)";

const FILTER_EXAMPLES: &str = "\
Examples:
  cctape filter --type result runs/ | head
  cctape filter --type system --subtype api_retry --count runs/
  cctape filter --tool Bash --subagent run.jsonl
  cctape filter --errors runs/               the lines that are not events";

const FIELDS_EXAMPLES: &str = "\
Examples:
  cctape fields -f type -f subtype -f message.usage.output_tokens run.jsonl
  cctape fields -f @file -f @line -f @kind --format csv runs/ > events.csv
  cctape fields --format ndjson -f session_id -f total_cost_usd run.jsonl
  cctape filter --type result runs/ | cctape fields -f total_cost_usd";

const CHECK_EXAMPLES: &str = "\
Examples:
  cctape check runs/                         what does not fit the reference, by version
  cctape check --json runs/ | jq .";

const VERDICT_EXAMPLES: &str = "\
Examples:
  cctape verdict run.jsonl
  claude -p \"...\" --output-format stream-json --verbose > run.jsonl; cctape verdict --exit-code $? run.jsonl
  cctape verdict runs/ | jq -r 'select(.ok | not) | .file'";

const TREE_EXAMPLES: &str = "\
Examples:
  cctape tree run.jsonl
  cctape tree --json run.jsonl | jq .";

const WATCH_EXAMPLES: &str = "\
Examples:
  claude -p \"...\" --output-format stream-json --verbose | cctape watch > run.jsonl
  tail -f -n +1 run.jsonl | cctape watch --quiet > /dev/null";

#[cfg(feature = "parquet")]
const EXPORT_EXAMPLES: &str = "\
Examples:
  cctape export --format parquet --out exported/ runs/
  cctape export --raw --max-file-bytes 1G --out exported/ archive/
  duckdb -c \"SELECT verdict, count(*) FROM 'exported/runs/*.parquet' GROUP BY 1\"";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  cctape completions bash > ~/.local/share/bash-completion/completions/cctape
  cctape completions zsh > ~/.zfunc/_cctape        (with fpath+=~/.zfunc in ~/.zshrc)
  cctape completions fish > ~/.config/fish/completions/cctape.fish";

const MAN_EXAMPLES: &str = "\
Examples:
  cctape man | man -l -                      read cctape(1) now
  cctape man stats | man -l -                read cctape-stats(1)
  cctape man --dir ~/.local/share/man/man1   install every page";

#[derive(Subcommand, Debug)]
enum Command {
    /// Counts and sums: events by type/subtype, errors, runs and verdicts,
    /// tokens and cost per model, tools, subagents, api retries.
    ///
    /// Group run figures with --by file|session|model|version|day; --json and
    /// --csv for scripts.
    #[command(after_help = STATS_EXAMPLES)]
    Stats(stats::Args),
    /// Print the raw lines (bytes unchanged) that match every given test.
    #[command(after_help = FILTER_EXAMPLES)]
    Filter(filter::Args),
    /// One row per event with the fields named by path.
    #[command(after_help = FIELDS_EXAMPLES)]
    Fields(fields::Args),
    /// Drift census: what does not fit the field reference, per
    /// claude_code_version.
    ///
    /// Reports unknown types, subtypes, fields and content blocks, tool
    /// results without a tool use, assistant events with several content
    /// blocks, missing uuids, truncation and lines that are not events, with
    /// counts and a first position. Exits 1 when it found anything.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(check::Args),
    /// The verdict of every run: one JSON object per run per line.
    ///
    /// Exit code 0 when every run succeeded, 1 when any failed, 2 when any
    /// has no verdict (no result, empty) or an input could not be read.
    #[command(after_help = VERDICT_EXAMPLES)]
    Verdict(verdict::Args),
    /// Each run's subagents and tasks as a tree, with tokens, tool calls,
    /// duration and status per node.
    #[command(after_help = TREE_EXAMPLES)]
    Tree(tree::Args),
    /// For a live run: pass stdin through, keep a status line, end with the
    /// verdict.
    ///
    /// Every byte goes to stdout unchanged as it arrives; stderr keeps one
    /// status line (turn, current tool, tokens, cost, subagents running) when
    /// it is a terminal; at the end the verdict of each run is printed to
    /// stderr as JSON and the exit code is the verdict's.
    #[command(after_help = WATCH_EXAMPLES)]
    Watch(watch::Args),
    /// Parquet tables for DuckDB, Spark, Trino or DataFusion.
    ///
    /// DIR/events (one row per event), DIR/runs (one per run, with its
    /// verdict and totals) and DIR/tools (one per tool call), split into
    /// part files. Usage is counted once per model call (`carries_usage`).
    #[cfg(feature = "parquet")]
    #[command(after_help = EXPORT_EXAMPLES)]
    Export(export::Args),
    /// Shell completions for bash, zsh, fish, elvish or powershell, on
    /// stdout.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(packaging::CompletionsArgs),
    /// Man pages, generated from this help: cctape(1) on stdout, or every
    /// page into a directory.
    #[command(after_help = MAN_EXAMPLES)]
    Man(packaging::ManArgs),
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
        Command::Completions(a) => packaging::completions(&a),
        Command::Man(a) => packaging::man(&a),
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
