//! Command-line parsing and dispatch. Each command lives in its own module
//! and returns the process exit code: 0 fine, 1 nothing selected, findings
//! or failed runs, 2 an error (usage, an input that could not be read, a
//! bad line missing from an output made of events, output not written: the
//! rule is [`said`]'s). Each command's `--help` ends with its examples, its
//! exit codes (`EXITS_*`, one line a code, which tests/exit_codes.rs checks
//! against the behaviour, the man pages and the README) and the bad-line
//! rule.

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
mod live;
#[cfg(feature = "otel")]
mod otel;
mod output;
mod packaging;
mod progress;
mod project;
mod reading;
mod report;
mod said;
#[cfg(feature = "parquet")]
mod shape;
mod stats;
mod tree;
mod verdict;
mod watch;

/// Read what Claude Code writes: stream-json runs and the session transcripts in ~/.claude/projects (tokens and cost equal to ccusage's); verdicts, reports, filters, fields.
///
/// Which command does which job: `stats` (counts, tokens and cost, `--by
/// day|week|month|session|block` as ccusage's tables), `report --html`
/// (one page of charts), `verdict` (each run's outcome, an exit code for
/// harnesses), `filter` (raw lines), `fields` (columns), `tree` (subagents),
/// `check` (drift from the field reference), `watch` (a live run),
/// `export` (Parquet), `otel` (OpenTelemetry).
///
/// Streams come from `claude -p --output-format stream-json --verbose`;
/// transcripts are `~/.claude/projects/<project>/<session>.jsonl`, priced
/// with the shipped table: their tokens and cost per session, day, week,
/// month and block are ccusage's (checked against ccusage 20.0.24).
///
/// Inputs are files, directories (walked for *.jsonl, *.ndjson, *.json,
/// *.log and their .gz/.zst/.xz/.bz2/.lz4 forms) and `-` for stdin; gzip,
/// zstd, xz, bzip2 and LZ4 are detected by their first bytes whatever the
/// name.
///
/// Every input is read once, from start to end, whatever it is (a file, a
/// pipe, a FIFO, a device); output streams in input order.
///
/// Exit codes: 0 fine; 1 nothing selected (filter, fields: as grep),
/// findings (check) or failed runs (verdict, watch); 2 an error: a usage
/// error, an input that could not be read, a bad line missing from an output
/// made of events (filter, fields, tree, export), or output that could not
/// be written, whatever else was found (as grep and ripgrep exit). Each
/// command's --help lists its own. A closed pipe (`| head`) ends quietly
/// with 0.
///
/// A bad line (not JSON, cut short, no type) is said on stderr by every
/// reading command but stats (whose report lists it), as `cctape:
/// FILE:LINE: byte OFFSET, column COL: KIND: REASON`: OFFSET where the line
/// starts in its input, COL the byte in the line; -s leaves it out.
#[derive(Parser, Debug)]
#[command(name = "cctape", version, after_help = EXAMPLES)]
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
    /// Worker threads (0: one per core; 1: everything in order on one
    /// thread). Never more than the inputs and chunks need; more than 4 per
    /// core is clamped, with a note.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N")]
    pub jobs: usize,
    /// No progress line (nor hint) on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Say nothing on stderr about bad lines and inputs that could not be
    /// read (grep's -s); the exit code still counts them.
    #[arg(long, short = 's')]
    pub no_messages: bool,
    /// The longest line read (suffixes K, M, G; default 256M): a longer one
    /// is a `line_too_long` error, skipped to its LF, and memory stays
    /// below it. An input with no LF for 4 times this ends with an error
    /// (`/dev/zero` ends after 1 GiB).
    #[arg(long, value_name = "BYTES", value_parser = parse_line_size)]
    pub max_line: Option<usize>,
    /// Follow symlinks to directories in walked folders (a symlink loop is
    /// noted and not entered).
    #[arg(long, short = 'L')]
    pub follow: bool,
    /// Read only the walked files that match GLOB, or with `!GLOB` pass
    /// over the files and folders that do (ripgrep's -g: gitignore syntax,
    /// from the walked folder; the last glob that matches wins; repeat it).
    /// A file that matches is read whatever its name (`-g '*.txt'`); files
    /// named on the command line are always read.
    #[arg(long, short = 'g', value_name = "GLOB", value_parser = glob_arg)]
    pub glob: Vec<String>,
    /// As --glob, ignoring case.
    #[arg(long, value_name = "GLOB", value_parser = glob_arg)]
    pub iglob: Vec<String>,
}

/// A `--glob` value, checked (an unclosed `[` is a usage error).
fn glob_arg(s: &str) -> Result<String, String> {
    cctape::inputs::Globs::default()
        .add(s, false)
        .map(|()| s.to_owned())
        .map_err(|e| e.to_string())
}

impl Common {
    /// The walk's globs: `--glob` then `--iglob`, as ripgrep adds them.
    pub fn globs(&self) -> cctape::inputs::Globs {
        let mut g = cctape::inputs::Globs::default();
        for (list, ci) in [(&self.glob, false), (&self.iglob, true)] {
            for s in list {
                // Checked when parsed.
                let _ = g.add(s, ci);
            }
        }
        g
    }
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

/// A command's after-help: its examples, its exit codes and, for reading
/// commands, the bad-line rule ([`said`]).
fn after(examples: &str, exits: &str, bad_lines: Option<&str>) -> String {
    let mut s = format!("{examples}\n\n{exits}");
    if let Some(b) = bad_lines {
        s.push_str("\n\n");
        s.push_str(b);
    }
    s
}

// Exit codes, one line a code: what `--help`, the man pages and the README
// say, checked against the behaviour by tests/exit_codes.rs.
const EXITS_STATS: &str = "\
Exit codes:
  0  the report was printed (bad lines are in it, with their positions)
  2  an error: a usage error, an input that could not be read, or output that could not be written";
const EXITS_REPORT: &str = "\
Exit codes:
  0  the page was written (bad lines are in it, with their positions)
  2  an error: a usage error, an input that could not be read, or a page that could not be written (the previous page is kept)";
const EXITS_FILTER: &str = "\
Exit codes:
  0  a line was printed, counted or its input listed (with --errors, a bad line was printed)
  1  no line was
  2  an error, even when lines were printed: a usage error, an input that could not be read, a bad line (missing from the output), or output that could not be written";
const EXITS_FIELDS: &str = "\
Exit codes:
  0  a row was printed
  1  no row was (no event passed the filters; the header is not a row)
  2  an error, even when rows were printed: a usage error, an input that could not be read, a bad line (missing from the rows), or output that could not be written";
const EXITS_CHECK: &str = "\
Exit codes:
  0  nothing was found
  1  something was found (bad lines included)
  2  an error: a usage error, an input that could not be read, or output that could not be written";
const EXITS_VERDICT: &str = "\
Exit codes:
  0  every run succeeded
  1  some run did not (a failure, no result, an input without events; bad lines are in its record)
  2  an error: a usage error, an input that could not be read, or output that could not be written";
const EXITS_TREE: &str = "\
Exit codes:
  0  every tree was printed
  2  an error, even when trees were printed: a usage error, an input that could not be read, a bad line (missing from the trees), or output that could not be written";
const EXITS_WATCH: &str = "\
Exit codes:
  0  every run succeeded
  1  some run did not (a failure, no result, no events; bad lines are in its record)
  2  an error: a usage error, standard input that could not be read, standard output that could not be written (a closed pipe aside), or telemetry dropped or not delivered (--otlp)";
#[cfg(feature = "parquet")]
const EXITS_EXPORT: &str = "\
Exit codes:
  0  the tables were written
  2  an error: a usage error, an input that could not be read, a bad line (missing from the tables, which are written without it), or tables that could not be written";
#[cfg(feature = "otel")]
const EXITS_OTEL: &str = "\
Exit codes:
  0  every run was written and delivered
  2  an error: a usage error, an input that could not be read, files that could not be written, or telemetry dropped or not delivered (the reason is said)";
const EXITS_COMPLETIONS: &str = "\
Exit codes:
  0  the script was printed
  2  an error: a usage error (a shell it does not know), or output that could not be written";
const EXITS_MAN: &str = "\
Exit codes:
  0  the page was printed, or every page written
  2  an error: a usage error (a command it does not know), or a page that could not be written";

const STATS_EXAMPLES: &str = "\
Examples:
  cctape stats runs/                         tables for people
  cctape stats --by day ~/.claude/projects   your sessions, day by day (local days)
  cctape stats --by block --since 20261101 ~/.claude/projects   five-hour billing blocks (ccusage blocks)
  cctape stats --by model runs/              run figures per model
  cctape stats --json runs/ | jq .usage      one JSON object
  cctape stats --csv --by day runs/ > days.csv
  zstd -dc archive.jsonl.zst | cctape stats  stdin (compressed files are read as they are)";

const FILTER_EXAMPLES: &str = "\
Examples:
  cctape filter --type result runs/ | head   the raw result lines, each after its file name
  cctape filter --type result,assistant run.jsonl          OR inside a flag (or repeat it)
  cctape filter --type system --subtype api_retry --total runs/    one number
  cctape filter --count --tool Bash runs/    NAME:N per file with a Bash call or result
  cctape filter -l --type result --subtype error_max_turns runs/   the files of runs that hit max turns
  cctape filter -v --type stream_event run.jsonl    everything but the partial-message deltas
  cctape filter --tool Bash --subagent run.jsonl
  cctape filter --errors -n runs/            the lines that are not events, NAME:LINE:...";

const FIELDS_EXAMPLES: &str = "\
Examples:
  cctape fields -f type -f subtype -f message.usage.output_tokens run.jsonl
  cctape fields -f @file -f @line -f @kind --format csv runs/ > events.csv
  cctape fields --type result -f @file -f total_cost_usd -f num_turns runs/
  cctape fields --format ndjson -f session_id -f total_cost_usd run.jsonl
  cctape filter --type result runs/ | cctape fields -f @file -f total_cost_usd";

const CHECK_EXAMPLES: &str = "\
Examples:
  cctape check runs/                         what does not fit the reference, by version
  cctape check --json runs/ | jq .";

const VERDICT_EXAMPLES: &str = "\
Examples:
  cctape verdict run.jsonl
  claude -p \"...\" --output-format stream-json --verbose > run.jsonl; cctape verdict --exit-code $? run.jsonl
  cctape verdict runs/ | jq -r 'select(.ok | not) | .file'";

const REPORT_EXAMPLES: &str = "\
Examples:
  cctape report ~/.claude/projects --html usage.html     your sessions as one page
  cctape report runs/ --html runs.html                  a harness's runs: verdicts, failures, timelines
  cctape report --since 20261101 --timezone UTC runs/ --html nov.html
  cctape report -g '*.jsonl.zst' archive/ --html - > page.html";

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

#[cfg(feature = "otel")]
const OTEL_EXAMPLES: &str = "\
Examples:
  cctape otel --out otlp/ runs/ ~/.claude/projects     OTLP JSON files (traces.jsonl, metrics.jsonl)
  cctape otel --otlp http://localhost:6006 --signals traces runs/    to Arize Phoenix
  cctape otel --otlp http://localhost:4318 --otlp-protocol http/json runs/   to a collector";

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
    /// Group run figures with --by file|session|project|model|version|day|week|month;
    /// --json and --csv for scripts.
    ///
    /// Every format is read, each input in its own: stream-json, JSON arrays
    /// and pretty captures (`--output-format json`), session transcripts
    /// (`cctape stats ~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects`;
    /// priced with the shipped table, or --pricing), text (one finding). With
    /// no PATH, standard input is read, even where ~/.claude/projects exists:
    /// name the folder to read your sessions.
    #[command(after_help = after(STATS_EXAMPLES, EXITS_STATS, Some(said::BAD_LINES_LISTED_HELP)))]
    Stats(stats::Args),
    /// Print the raw lines (bytes unchanged) that match every given test.
    #[command(after_help = after(FILTER_EXAMPLES, EXITS_FILTER, Some(said::BAD_LINES_HELP)))]
    Filter(filter::Args),
    /// One row per event with the fields named by path.
    #[command(after_help = after(FIELDS_EXAMPLES, EXITS_FIELDS, Some(said::BAD_LINES_HELP)))]
    Fields(fields::Args),
    /// Drift census: what does not fit the field reference, per
    /// claude_code_version.
    ///
    /// Reports unknown types, subtypes, fields and content blocks, tool
    /// results without a tool use, assistant events with several content
    /// blocks, missing uuids, truncation and lines that are not events, with
    /// counts and a first position.
    #[command(after_help = after(CHECK_EXAMPLES, EXITS_CHECK, Some(said::BAD_LINES_COUNTED_HELP)))]
    Check(check::Args),
    /// The verdict of every run: one line for people per run on a terminal,
    /// else (or with --json) one JSON object per run per line.
    #[command(after_help = after(VERDICT_EXAMPLES, EXITS_VERDICT, Some(said::BAD_LINES_COUNTED_HELP)))]
    Verdict(verdict::Args),
    /// One self-contained HTML page: cost per day and block by model,
    /// tokens, verdicts per version and week, tools, failed runs with
    /// timelines, the subagent tree.
    ///
    /// Every figure is the one `stats --json` and `verdict --json` give;
    /// the charts are inline SVG, each followed by its numbers as a table;
    /// the page loads nothing from anywhere. FILE is replaced atomically.
    #[command(after_help = after(REPORT_EXAMPLES, EXITS_REPORT, Some(said::BAD_LINES_LISTED_HELP)))]
    Report(report::Args),
    /// Each run's subagents and tasks as a tree, with tokens, tool calls,
    /// duration and status per node.
    #[command(after_help = after(TREE_EXAMPLES, EXITS_TREE, Some(said::BAD_LINES_HELP)))]
    Tree(tree::Args),
    /// For a live run: pass stdin through, keep a status line, end with the
    /// verdict.
    ///
    /// Every byte goes to stdout unchanged as it arrives; stderr keeps one
    /// status line (turn, current tool, output tokens, cost, subagents
    /// running) when it is a terminal, the tokens the run's best figure
    /// with its source once a result came; at the end the verdict of each
    /// run is printed to stderr, one line for people on a terminal (as
    /// verdict prints there), else or with --json as JSON, and the exit
    /// code is the verdict's.
    #[command(after_help = after(WATCH_EXAMPLES, EXITS_WATCH, Some(said::BAD_LINES_COUNTED_HELP)))]
    Watch(watch::Args),
    /// Parquet tables for DuckDB, Spark, Trino or DataFusion.
    ///
    /// DIR/events (one row per event), DIR/runs (one per run, with its
    /// verdict and totals) and DIR/tools (one per tool call), split into
    /// part files. Usage is counted once per model call (`carries_usage`).
    #[cfg(feature = "parquet")]
    #[command(after_help = after(EXPORT_EXAMPLES, EXITS_EXPORT, Some(said::BAD_LINES_HELP)))]
    Export(export::Args),
    /// Runs as OpenTelemetry: GenAI traces (invoke_agent, chat and
    /// execute_tool spans) and Claude Code's metrics, as OTLP JSON files or
    /// over OTLP/HTTP.
    ///
    /// One `invoke_agent` span per run and per subagent, a `chat` span per
    /// model call, an `execute_tool` span per tool call (status ERROR when
    /// its result failed); times from the records' timestamps, else from
    /// the order of events; trace and span ids derived from the session and
    /// the events, so a re-sent archive deduplicates. Metrics:
    /// claude_code.session.count, claude_code.token.usage (type),
    /// claude_code.cost.usage. The runs are the ones `verdict` prints.
    #[cfg(feature = "otel")]
    #[command(after_help = after(OTEL_EXAMPLES, EXITS_OTEL, Some(said::BAD_LINES_COUNTED_HELP)))]
    Otel(otel::Args),
    /// Shell completions for bash, zsh, fish, elvish or powershell, on
    /// stdout.
    #[command(after_help = after(COMPLETIONS_EXAMPLES, EXITS_COMPLETIONS, None))]
    Completions(packaging::CompletionsArgs),
    /// Man pages, generated from this help: cctape(1) on stdout, or every
    /// page into a directory.
    #[command(after_help = after(MAN_EXAMPLES, EXITS_MAN, None))]
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
        Command::Report(a) => report::run(&a),
        Command::Tree(a) => tree::run(&a),
        Command::Watch(a) => watch::run(&a),
        #[cfg(feature = "parquet")]
        Command::Export(a) => export::run(&a),
        #[cfg(feature = "otel")]
        Command::Otel(a) => otel::run(&a),
        Command::Completions(a) => packaging::completions(&a),
        Command::Man(a) => packaging::man(&a),
    }
}

/// Expand the paths, reporting directories that could not be read (errors)
/// and entries of walked folders passed over (notes, counted). Returns the
/// inputs and whether anything failed. With no path and a terminal on
/// stdin, says what it waits for.
pub fn expand(common: &Common) -> (Vec<inputs::Input>, bool) {
    use std::io::IsTerminal;
    let w = inputs::collect(&common.paths, common.follow, &common.globs());
    for (p, e) in w.errors.iter().filter(|_| !common.no_messages) {
        exec::note_for(&inputs::shown_path(p), e);
    }
    const SHOWN: usize = 20;
    for (p, why) in w.skipped.iter().take(SHOWN) {
        exec::note(&format!("note: {}: {why}", inputs::shown_path(p)));
    }
    if !w.skipped.is_empty() {
        exec::note(&format!(
            "note: {} entr{} of walked folders passed over{}",
            w.skipped.len(),
            if w.skipped.len() == 1 { "y" } else { "ies" },
            if w.skipped.len() > SHOWN {
                format!(" ({} not listed)", w.skipped.len() - SHOWN)
            } else {
                String::new()
            }
        ));
    }
    if common.paths.is_empty() && !common.quiet && std::io::stdin().is_terminal() {
        exec::note(
            "reading a stream-json event stream from standard input (the terminal); \
             end it with Ctrl-D, or name files or directories to read: cctape COMMAND PATH...",
        );
        let folders: Vec<String> = reading::projects_folders()
            .iter()
            .map(|p| inputs::shown_path(p))
            .collect();
        if !folders.is_empty() {
            exec::note(&format!(
                "your Claude Code sessions are in {}: cctape COMMAND {}",
                folders.join(" and "),
                folders.join(" ")
            ));
        }
    }
    (w.inputs, !w.errors.is_empty())
}

/// `123`, `64K`, `512M`, `1G`, `2T` (binary units).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown size suffix in {s:?} (K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size such as 512M"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// A line length: a size from 1 byte to 4 GiB.
fn parse_line_size(s: &str) -> Result<usize, String> {
    let n = parse_size(s)?;
    if n == 0 || n > 4 << 30 {
        return Err(format!("{s:?}: the longest line is 1 byte to 4G"));
    }
    usize::try_from(n).map_err(|_| format!("{s:?} is too large for this machine"))
}
