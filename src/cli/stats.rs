//! `cctape stats`: counts and sums over every input — lines, events by kind,
//! errors with positions, runs and verdicts, tokens and cost per model,
//! tools, subagents, api retries — for people, as JSON or as CSV, optionally
//! grouped by file, session, project, model, version or day.
//!
//! Inputs of every format are read: stream-json, JSON arrays and pretty
//! captures (as events), session transcripts (folded across inputs, each
//! session then summed as a run), text (one finding). The figures and the
//! JSON are composed by the library ([`cctape::report`]); this module reads
//! and prints.

use super::exec::{self, BadLine, Done, Piece, Sink, Split};
use super::human::{Align, Table, clean, count, money_sum};
use super::output::{human_bytes, thousands};
use super::project::{Project, shown_project};
use super::reading::{Costing, Days, ReadAs};
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::{Event, parse_event};
use cctape::framing::Line;
use cctape::json::Scanner;
use cctape::pricing::PriceTable;
use cctape::report::{
    GroupBy, Grouping, InputFigures, RunFigures, Shape, StatsFigures, StatsReport,
};
use cctape::run::{RoleTotals, RunFolder, RunSummary, RunTotals, SumValue, Verdict};
use cctape::sniff::Format;
use cctape::stats::Stats;
use cctape::time::Day;
use cctape::transcript::{Record, TranscriptFile, TranscriptFold};
use std::fmt::Write as _;
use std::sync::Arc;

/// How `--by` groups rows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// One row per input file (a transcript session under its own file).
    File,
    /// One row per run (session_id) or transcript session.
    Session,
    /// One row per project: a transcript's project folder
    /// (`~/.claude/projects/<project>`), the folder a stream file is in.
    Project,
    /// One row per model and role (each run giving each model its role in
    /// that run; a transcript's main chain and subagents): tokens are each
    /// run's best figures on its models, adding up to main plus subagents.
    Model,
    /// One row per claude_code_version (a transcript's first `version`).
    Version,
    /// One row per day (local, or --timezone): a run on the day it started,
    /// a transcript's requests each on the day it was made.
    Day,
    /// One row per ISO week (Monday to Sunday, keyed by its Monday, as
    /// ccusage weekly), days as --by day takes them.
    Week,
    /// One row per month (YYYY-MM, as ccusage monthly), days as --by day
    /// takes them.
    Month,
    /// One row per five-hour billing block (as ccusage blocks, keyed by its
    /// start in UTC): a transcript's requests each in its own block, a
    /// stream's run in the block it started in.
    Block,
}

impl By {
    fn library(self) -> GroupBy {
        match self {
            By::File => GroupBy::File,
            By::Session => GroupBy::Session,
            By::Project => GroupBy::Project,
            By::Model => GroupBy::Model,
            By::Version => GroupBy::Version,
            By::Day => GroupBy::Day,
            By::Week => GroupBy::Week,
            By::Month => GroupBy::Month,
            By::Block => GroupBy::Block,
        }
    }
}

/// Arguments of `cctape stats`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print one JSON object instead of tables for people.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print CSV rows (one per group; `--by file` unless given).
    #[arg(long)]
    csv: bool,
    /// Group run figures by this.
    #[arg(long, value_enum, value_name = "KEY")]
    by: Option<By>,
    /// Accepted for scripts that pass it: every line is read whole (its
    /// structural index, written by the validating scan) whether given or
    /// not, so the figures are those it always gave.
    #[arg(long)]
    exact: bool,
    /// Under each group of the table, a row per model (its runs, cost and
    /// output tokens; over transcripts, ccusage's token columns and cost),
    /// as ccusage's --breakdown; `--json` always has them (`by_model` in
    /// each group).
    #[arg(long)]
    breakdown: bool,
    /// Fewer columns in the --by table, for narrow terminals (ccusage's
    /// --compact): the key, input and output tokens and cost of
    /// transcripts; the key, runs, failed runs and cost of streams.
    #[arg(long)]
    compact: bool,
    /// No bar chart column in --by day|week|month|block tables (it is drawn
    /// when standard output is a terminal).
    #[arg(long, overrides_with = "chart")]
    no_chart: bool,
    /// The bar chart column even when standard output is not a terminal.
    #[arg(long, overrides_with = "no_chart")]
    chart: bool,
    #[command(flatten)]
    project: Project,
    #[command(flatten)]
    days: Days,
    #[command(flatten)]
    read: ReadAs,
    #[command(flatten)]
    costing: Costing,
    #[command(flatten)]
    common: Common,
}

/// What a command that reads as `stats` reads (`cctape report`) sees
/// besides the figures: each event, and each run of its piece once it is
/// summed.
pub(super) trait Tap: Send {
    /// Keep each run's model and tool calls, and each transcript session's
    /// tool calls (what a timeline draws).
    fn wants_calls(&self) -> bool {
        false
    }
    /// An event, as the run folder is given it.
    fn event(&mut self, ev: &Event<'_>) {
        let _ = ev;
    }
    /// A run, as it is summed.
    fn run(&mut self, p: &Piece<'_>, r: &RunSummary) {
        let _ = (p, r);
    }
}

/// `stats` itself sees nothing more.
impl Tap for () {}

struct StatsSink<T: Tap = ()> {
    /// What else sees the events and runs.
    tap: T,
    /// The inputs' names as the report keys them (bytes that are not UTF-8
    /// escaped: `cctape::inputs::name_text`), and their paths.
    names: Arc<[String]>,
    paths: Arc<[Option<std::path::PathBuf>]>,
    stats: Stats,
    runs: RunFolder,
    scanner: Scanner,
    grouping: Grouping,
    /// Runs already summed (drained when long over, or at the end).
    figures: RunFigures,
    since_drain: u32,
    /// The first lines that were not events (for inputs without events).
    shape: Shape,
    /// What the input was read as, and what it is when it holds no events.
    format: Option<Format>,
    finding: Option<cctape::report::NoEvents>,
    /// A transcript's records, and what its path says.
    transcripts: TranscriptFold,
    file: TranscriptFile,
}

/// Runs with a result and no line in the last this many lines are summed
/// and dropped, so a long stream is read in bounded memory: the library's
/// bound, past which a session seen again is a new run in every command.
const IDLE_LINES: u64 = cctape::run::IDLE_LINES;

impl<T: Tap> StatsSink<T> {
    fn new(
        grouping: Grouping,
        names: &Arc<[String]>,
        paths: &Arc<[Option<std::path::PathBuf>]>,
        tap: T,
    ) -> StatsSink<T> {
        let mut runs = RunFolder::new();
        let mut transcripts = TranscriptFold::new();
        if tap.wants_calls() {
            runs.record_calls(true);
            transcripts.record_calls(true);
        }
        StatsSink {
            tap,
            names: Arc::clone(names),
            paths: Arc::clone(paths),
            stats: Stats::new(),
            runs,
            scanner: Scanner::new(),
            grouping,
            figures: RunFigures::default(),
            since_drain: 0,
            shape: Shape::default(),
            format: None,
            finding: None,
            transcripts,
            file: TranscriptFile::default(),
        }
    }

    fn take_run(&mut self, p: &Piece<'_>, r: &RunSummary) {
        let name = self.names.get(p.input).map_or(p.name, |n| n.as_str());
        self.figures.add(p.input, name, r, &self.grouping);
        self.tap.run(p, r);
    }

    /// Sum the runs long over (every 4096 lines).
    fn drain_idle(&mut self, p: &Piece<'_>, line: u64) {
        self.since_drain += 1;
        if self.since_drain < 4096 {
            return;
        }
        self.since_drain = 0;
        for r in self.runs.drain_idle(line.saturating_sub(IDLE_LINES)) {
            self.take_run(p, &r);
        }
    }

    /// Sum every run left, at the end of the piece.
    fn finish_runs(&mut self, p: &Piece<'_>) {
        for r in std::mem::take(&mut self.runs).finish() {
            self.take_run(p, &r);
        }
    }
}

impl<T: Tap> Sink for StatsSink<T> {
    fn reads_lines(&self) -> bool {
        true
    }

    /// Every line validated and indexed by the scanner once, every field
    /// read through that index.
    fn line(&mut self, p: &Piece<'_>, line: &Line<'_>, _: &mut Vec<u8>) -> Result<(), Error> {
        self.drain_idle(p, line.number);
        let ev = parse_event(&mut self.scanner, line)?;
        self.stats.record_event(&ev);
        self.runs.push(&ev);
        self.tap.event(&ev);
        Ok(())
    }

    fn reads_ahead(&self) -> bool {
        true
    }

    /// The line as [`line`](Sink::line) reads it, scanned ahead on another
    /// thread.
    fn line_ahead(
        &mut self,
        p: &Piece<'_>,
        line: &Line<'_>,
        ev: Event<'_>,
        _: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.drain_idle(p, line.number);
        self.stats.record_event(&ev);
        self.runs.push(&ev);
        self.tap.event(&ev);
        Ok(())
    }

    /// The report lists errors with their positions (the first 100, and
    /// how many): not said again on stderr.
    fn bad_line(&self, _: &Error, _: Option<&[u8]>) -> BadLine {
        BadLine::Listed
    }

    fn error(&mut self, p: &Piece<'_>, e: &Error, line: Option<&[u8]>, _: &mut Vec<u8>) {
        self.stats.record_error(p.input, e);
        if self.format != Some(Format::Transcript) {
            self.runs.push_error(e);
        }
        self.shape.note(line);
    }

    fn split(&self) -> Split {
        // Runs are folded in order on one thread (a large file read ahead
        // on the pool, see exec).
        Split::Never
    }

    fn format(&mut self, p: &Piece<'_>, format: Format) {
        self.format = Some(format);
        if format == Format::Transcript {
            self.file = match self.paths.get(p.input) {
                Some(Some(path)) => TranscriptFile::from_path(path),
                _ => TranscriptFile::from_path(std::path::Path::new(p.name)),
            };
        }
    }

    fn reads_records(&self) -> bool {
        true
    }

    fn record(&mut self, _: &Piece<'_>, rec: &Record<'_>, _: &mut Vec<u8>) {
        self.transcripts.add(rec, &self.file);
    }

    fn not_events(&mut self, _: &Piece<'_>, shape: &Shape, _: &mut Vec<u8>) {
        self.finding = Some(shape.describe());
    }
}

/// A finished piece as the report's input figures; gives back the
/// piece's tap.
fn absorb<T: Tap>(done: Done<StatsSink<T>>, report: &mut StatsReport) -> T {
    let sink = done.sink;
    let mut s = sink.stats;
    s.bytes += done.bytes;
    s.counts.add(&done.counts);
    if let (Some(e), true) = (&done.failure, done.unreadable) {
        // Counted by the driver; the sink never saw it.
        s.record_error(done.input, e);
    }
    if done.last {
        s.files += 1;
    }
    let mut f = InputFigures {
        stats: s,
        runs: sink.figures,
        shape: sink.shape,
        format: done.format,
        finding: sink.finding,
        ..InputFigures::default()
    };
    f.count_records(&sink.transcripts);
    report.add_transcripts(sink.transcripts);
    report.add_input(done.input, f);
    sink.tap
}

/// Run the command; returns the exit code: 0, or 2 when an input could not
/// be read (or a usage error). `stats` is a report: failed runs are what it
/// counts, not a failure of the command (`cctape verdict` exits 1 for
/// them), so a report over a folder with failures still exits 0.
pub fn run(args: &Args) -> i32 {
    let (prices, zone) = match (args.costing.prices(), args.costing.zone()) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(e), _) | (_, Err(e)) => {
            exec::note(&e);
            return 2;
        }
    };
    let by = match (args.by, args.csv) {
        (None, true) => Some(By::File),
        (b, _) => b,
    };
    let range = match args.days.range() {
        Ok(r) => r,
        Err(e) => {
            exec::note(&e);
            return 2;
        }
    };
    let grouping = Grouping {
        by: by.map(By::library),
        zone,
        range,
    };
    let how = Reading {
        common: &args.common,
        read: &args.read,
        project: &args.project,
        no_event_runs: false,
    };
    // Only --json prints per_file.
    let Read {
        figures,
        shown,
        trouble,
    } = read(&how, grouping, prices, args.json, || (), |()| {});
    if args.json {
        write_json(&figures);
    } else if args.csv {
        if let Err(e) = print_csv(&figures) {
            exec::note(&format!("writing CSV: {e}"));
            return 2;
        }
    } else {
        use std::io::IsTerminal;
        let chart = args.chart || (!args.no_chart && std::io::stdout().is_terminal());
        let table = TableStyle {
            breakdown: args.breakdown,
            compact: args.compact,
            chart,
        };
        print_human(&figures, &shown, table);
    }
    trouble.exit_code(0)
}

/// How every input is read, as `stats` reads it.
pub(super) struct Reading<'a> {
    /// The inputs and how they are walked.
    pub common: &'a Common,
    /// How each input is read.
    pub read: &'a ReadAs,
    /// Which project's inputs are read.
    pub project: &'a Project,
    /// Keep the run each input without events becomes
    /// ([`StatsFigures::no_event_runs`]).
    pub no_event_runs: bool,
}

/// What reading gave.
pub(super) struct Read {
    /// The finished figures.
    pub figures: StatsFigures,
    /// The inputs' names for people, in input order.
    pub shown: Vec<String>,
    /// What went wrong while reading (an input that could not be read).
    pub trouble: exec::Trouble,
}

/// Read every input into a stats report grouped by `grouping`, its
/// transcripts priced with `prices`; each piece gets a tap made by `tap`,
/// which goes to `tapped` once the piece is read, in input order.
pub(super) fn read<T: Tap>(
    how: &Reading<'_>,
    grouping: Grouping,
    prices: PriceTable,
    per_file: bool,
    tap: impl Fn() -> T + Sync,
    mut tapped: impl FnMut(T),
) -> Read {
    let (mut inputs, failed) = expand(how.common);
    how.project.retain(&mut inputs);
    let mut opts = exec::Opts::new(how.common);
    opts.format = how.read.input_format.choice();
    // Names as the report keys them: bytes that are not UTF-8 escaped.
    let paths: Arc<[Option<std::path::PathBuf>]> = inputs
        .iter()
        .map(|i| match i {
            super::inputs::Input::File(p) => Some(p.clone()),
            super::inputs::Input::Stdin | super::inputs::Input::Follow(_) => None,
        })
        .collect();
    let names: Arc<[String]> = inputs
        .iter()
        .zip(paths.iter())
        .map(|(i, p)| match p {
            Some(p) => {
                cctape::inputs::name_text(&cctape::inputs::os_bytes(p.as_os_str())).into_owned()
            }
            None => i.name(),
        })
        .collect();
    // The report's copy of the names; the sinks share the other.
    let mut report = StatsReport::new(names.to_vec(), grouping.clone(), prices);
    if !per_file {
        report = report.without_per_file();
    }
    if how.no_event_runs {
        report = report.keeping_no_event_runs();
    }
    let trouble = exec::run(
        &inputs,
        &opts,
        || StatsSink::new(grouping.clone(), &names, &paths, tap()),
        |mut done: Done<StatsSink<T>>| {
            let i = done.input;
            let piece = Piece {
                input: i,
                name: &names[i],
            };
            done.sink.finish_runs(&piece);
            tapped(absorb(done, &mut report));
        },
    );
    Read {
        figures: report.finish(),
        shown: inputs.iter().map(|i| i.shown()).collect(),
        trouble: trouble.and(failed),
    }
}

/// Eighths of a cell, the partial end of a bar.
const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// A bar `width` cells long at `max`, in Unicode blocks (a value above
/// zero shows at least an eighth).
fn bar(v: f64, max: f64, width: usize) -> String {
    if !(v > 0.0 && max > 0.0 && v.is_finite() && max.is_finite()) {
        return String::new();
    }
    let eighths = ((v / max).min(1.0) * (width * 8) as f64).round().max(1.0) as usize;
    format!("{}{}", "█".repeat(eighths / 8), EIGHTHS[eighths % 8])
}

/// The cost of a group as the chart draws it.
fn cost_f64(v: &SumValue) -> f64 {
    match v {
        SumValue::Finite(c) => *c,
        SumValue::Beyond(_) => f64::MAX,
    }
}

/// ccusage's columns: input, output, cache create, cache read, total
/// tokens, cost (compact: input, output, cost).
fn token_cells(t: &cctape::event::TokenCounts, cost: &SumValue, compact: bool) -> Vec<String> {
    if compact {
        return vec![
            thousands(t.input_tokens),
            thousands(t.output_tokens),
            money_sum(cost),
        ];
    }
    vec![
        thousands(t.input_tokens),
        thousands(t.output_tokens),
        thousands(t.cache_creation_input_tokens),
        thousands(t.cache_read_input_tokens),
        thousands(t.total()),
        money_sum(cost),
    ]
}

/// The `--by` table. Over transcripts alone, for the groupings ccusage
/// has (day, week, month, session, block), it has ccusage's columns and
/// a Total row; otherwise the run columns. Per-model rows with
/// `--breakdown`, a bar of each group's cost for calendar and block
/// groupings with a chart.
fn group_table(o: &mut String, f: &StatsFigures, by: GroupBy, style: TableStyle) {
    let transcripts = f.transcripts.is_some() && f.formats.keys().all(|k| *k == "transcript");
    let ccusage = transcripts
        && matches!(
            by,
            GroupBy::Day | GroupBy::Week | GroupBy::Month | GroupBy::Session | GroupBy::Block
        );
    let chart = style.chart && (by.is_calendar() || by == GroupBy::Block);
    let mut header = vec![(by.name(), Align::Left)];
    if by == GroupBy::Model {
        header.push(("role", Align::Left));
    }
    let run_columns: &[&str] = if style.compact {
        &["runs", "failed", "cost $"]
    } else {
        &[
            "runs",
            "failed",
            "cost $",
            "output tokens",
            "tool calls",
            "subagents",
            "api retries",
        ]
    };
    let token_columns: &[&str] = if style.compact {
        &["input", "output", "cost $"]
    } else {
        &[
            "input",
            "output",
            "cache create",
            "cache read",
            "total tokens",
            "cost $",
        ]
    };
    let columns = if ccusage { token_columns } else { run_columns };
    header.extend(columns.iter().map(|c| (*c, Align::Right)));
    if by == GroupBy::Model {
        // Each run's best figure, its share on each model.
        header.push(("tokens from", Align::Left));
    }
    if chart {
        header.push(("cost bar", Align::Left));
    }
    let mut max = 0.0f64;
    f.groups(by, |_, g| max = max.max(cost_f64(&g.cost.value())));
    let width = if style.compact { 10 } else { 24 };
    let run_cells = |row: &mut Vec<String>, g: &RunTotals| {
        row.extend([
            thousands(g.runs),
            thousands(g.failed()),
            money_sum(&g.cost.value()),
        ]);
        if !style.compact {
            row.extend([
                thousands(g.all_models().output_tokens),
                thousands(g.tool_calls().0),
                thousands(g.subagent_count),
                thousands(g.api_retries),
            ]);
        }
    };
    let model_cells = |row: &mut Vec<String>, m: &RoleTotals| {
        if ccusage {
            row.extend(token_cells(&m.tokens, &m.cost.value(), style.compact));
            return;
        }
        row.extend([thousands(m.runs), String::new(), money_sum(&m.cost.value())]);
        if !style.compact {
            row.push(thousands(m.tokens.output_tokens));
            row.extend([String::new(), String::new(), String::new()]);
        }
    };
    // Made twice, widths then lines: a table of 100,000 files holds one row
    // at a time.
    let rows = |out: &mut dyn FnMut(&[String])| {
        let mut row: Vec<String> = Vec::with_capacity(header.len());
        f.groups(by, |(k, role), g| {
            row.clear();
            let key = if by == GroupBy::Project {
                shown_project(k)
            } else {
                k.clone()
            };
            row.push(clean(&key));
            if let Some(role) = role {
                row.push(role.as_str().to_string());
            }
            if ccusage {
                row.extend(token_cells(&g.all_models(), &g.cost.value(), style.compact));
            } else {
                run_cells(&mut row, g);
            }
            if by == GroupBy::Model {
                row.push(
                    g.by_role
                        .values()
                        .next()
                        .map_or_else(String::new, |m| m.sources_text()),
                );
            }
            if chart {
                row.push(bar(cost_f64(&g.cost.value()), max, width));
            }
            out(&row);
            if style.breakdown && by != GroupBy::Model {
                for (model, m) in g.per_model() {
                    row.clear();
                    row.push(format!("  └ {}", clean(model)));
                    model_cells(&mut row, &m);
                    out(&row);
                }
            }
        });
        if ccusage {
            let all = &f.total.runs.all;
            row.clear();
            row.push("Total".to_string());
            row.extend(token_cells(
                &all.all_models(),
                &all.cost.value(),
                style.compact,
            ));
            out(&row);
        }
    };
    stream_table(o, &header, rows);
}

/// The report's JSON, a group and a file at a time (a write error ends the
/// process as every output's does).
fn write_json(f: &StatsFigures) {
    let mut w = std::io::BufWriter::with_capacity(exec::FLUSH_AT, std::io::stdout().lock());
    let done = f
        .write_json(&mut w)
        .and_then(|_| std::io::Write::write_all(&mut w, b"\n"))
        .and_then(|_| std::io::Write::flush(&mut w));
    if let Err(e) = done {
        exec::write_failed(&e);
    }
}

/// The report's CSV records, written with the `csv` crate a row at a time.
fn print_csv(f: &StatsFigures) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    let done = f
        .for_each_csv_record(|rec| w.write_record(rec))
        .and_then(|_| w.flush().map_err(csv::Error::from));
    match done {
        Err(e) => match e.kind() {
            csv::ErrorKind::Io(io) => exec::write_failed(io),
            _ => Err(e),
        },
        ok => ok,
    }
}

/// A token count for people, `≥` in front when some run's figure is a lower
/// bound.
fn tokens_cell(n: u64, lower: bool) -> String {
    format!("{}{}", if lower { "≥" } else { "" }, thousands(n))
}

/// How the `--by` table is laid out.
#[derive(Clone, Copy, Debug, Default)]
struct TableStyle {
    /// A row per model under each group.
    breakdown: bool,
    /// Fewer columns.
    compact: bool,
    /// A bar chart column (day, week, month, block).
    chart: bool,
}

fn print_human(f: &StatsFigures, names: &[String], style: TableStyle) {
    let total = &f.total;
    let by = f.grouping.by;
    let no_events = &f.no_events;
    let s = &total.stats;
    let r = &total.runs.all;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}, {}, {} ({} blank), {}, {}",
        count(s.files, "file", "files"),
        human_bytes(s.bytes),
        count(s.counts.lines, "line", "lines"),
        thousands(s.counts.blank_lines),
        count(s.counts.events, "event", "events"),
        count(s.counts.errors, "error", "errors"),
    );
    let verdicts: Vec<String> = Verdict::ALL
        .iter()
        .filter_map(|v| {
            let n = r.count(*v);
            (n > 0).then(|| format!("{} {}", thousands(n), v.as_str()))
        })
        .collect();
    let _ = writeln!(
        o,
        "{}: {}; cost ${}{}",
        count(r.runs, "run", "runs"),
        if verdicts.is_empty() {
            "-".to_string()
        } else {
            verdicts.join(", ")
        },
        money_sum(&r.cost.value()),
        if r.costs_not_summed > 0 {
            format!(
                " ({} beyond f64 not summed)",
                count(r.costs_not_summed, "cost", "costs")
            )
        } else {
            String::new()
        }
    );
    let range = &f.grouping.range;
    if !range.is_all() {
        let day = |d: Option<Day>| d.map_or("any day".into(), |d| d.to_string());
        let _ = writeln!(
            o,
            "days kept: {} to {} ({}): runs by the day they started, requests by their own",
            day(range.since),
            day(range.until),
            f.grouping.zone.name().unwrap_or("local time"),
        );
    }
    let sources: Vec<String> = r
        .cost_by_source
        .iter()
        .map(|(k, v)| {
            format!(
                "{} ${}",
                k.as_str().replace('_', " "),
                money_sum(&v.value())
            )
        })
        .collect();
    if sources.len() > 1 || r.cost_by_source.keys().any(|k| k.as_str() != "results") {
        let _ = writeln!(o, "cost by source: {}", sources.join(", "));
    }
    if f.formats.len() > 1 || f.formats.keys().any(|k| *k != "stream") {
        let list: Vec<String> = f
            .formats
            .iter()
            .map(|(k, n)| format!("{} {k}", thousands(*n)))
            .collect();
        let _ = writeln!(o, "formats: {}", list.join(", "));
    }
    if let Some(t) = &f.transcripts {
        let projects: std::collections::BTreeSet<&str> = t
            .sessions
            .iter()
            .filter_map(|s| s.project.as_deref())
            .collect();
        let _ = writeln!(
            o,
            "transcripts: {} in {}, {}{}; prices taken {}{}",
            count(t.sessions.len() as u64, "session", "sessions"),
            count(projects.len() as u64, "project", "projects"),
            count(t.total.requests, "API request", "API requests"),
            if t.undated.requests > 0 {
                format!(" ({} without a date)", thousands(t.undated.requests))
            } else {
                String::new()
            },
            clean(&t.prices_taken),
            if t.unpriced_models.is_empty() {
                String::new()
            } else {
                format!("; no price for {}", clean(&t.unpriced_models.join(", ")))
            },
        );
    }
    if no_events.count() > 0 {
        let kinds: Vec<String> = no_events
            .by_format
            .iter()
            .map(|(k, n)| format!("{} {k}", thousands(*n)))
            .collect();
        let _ = writeln!(
            o,
            "{} without events (each one run of its own): {}",
            count(no_events.count(), "input", "inputs"),
            kinds.join(", ")
        );
        const LISTED: usize = 10;
        for (name, n) in no_events.inputs.iter().take(LISTED) {
            let what = match (&n.final_error, &n.first_line) {
                (Some(e), _) => {
                    format!("{}, its last line: {}", e.verdict.as_str(), clean(&e.line))
                }
                (None, Some(l)) => format!("{}: {}", n.format.name(), clean(l)),
                (None, None) => n.format.name().to_string(),
            };
            let _ = writeln!(o, "  {}: {what}", clean(name));
        }
        if no_events.count() > LISTED as u64 {
            let _ = writeln!(
                o,
                "  ({} more)",
                thousands(no_events.count() - LISTED as u64)
            );
        }
    }
    let by_type = s.by_type();
    if !by_type.is_empty() {
        let mut rows: Vec<_> = by_type.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut t = Table::new(&[("type", Align::Left), ("events", Align::Right)]);
        for (k, n) in rows {
            t.row(vec![clean(&k), thousands(n)]);
        }
        let _ = write!(o, "\nevents by type\n{}", t.render());
    }
    if !total.records_by_type.is_empty() {
        let mut rows: Vec<_> = total.records_by_type.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut t = Table::new(&[("type", Align::Left), ("records", Align::Right)]);
        for (k, n) in rows {
            t.row(vec![clean(k), thousands(*n)]);
        }
        let _ = write!(o, "\ntranscript records by type\n{}", t.render());
    }
    if !r.by_role.is_empty() {
        let mut t = Table::new(&[
            ("model", Align::Left),
            ("role", Align::Left),
            ("runs", Align::Right),
            ("input", Align::Right),
            ("output", Align::Right),
            ("cache read", Align::Right),
            ("cache write", Align::Right),
            ("cost $", Align::Right),
        ]);
        for ((m, role), x) in &r.by_role {
            let tk = &x.tokens;
            t.row(vec![
                clean(m),
                role.as_str().to_string(),
                thousands(x.runs),
                thousands(tk.input_tokens),
                thousands(tk.output_tokens),
                thousands(tk.cache_read_input_tokens),
                thousands(tk.cache_creation_input_tokens),
                money_sum(&x.cost.value()),
            ]);
        }
        let _ = write!(o, "\ntokens and cost by model and role\n{}", t.render());
    }
    if r.runs > 0 {
        let mut t = Table::new(&[
            ("agent", Align::Left),
            ("calls", Align::Right),
            ("input", Align::Right),
            ("output", Align::Right),
            ("cache read", Align::Right),
            ("cache write", Align::Right),
            ("lower-bound runs", Align::Right),
        ]);
        // Claude Code's own calls: their modelUsage, in no agent's figure.
        let aux = (r.auxiliary != Default::default()).then_some(("auxiliary", &r.auxiliary, 0, 0));
        for (name, tk, calls, lower) in [
            Some(("main", &r.main, r.main_messages, r.main_lower_bound_runs)),
            Some((
                "subagents",
                &r.subagents,
                r.subagent_messages,
                r.subagents_lower_bound_runs,
            )),
            aux,
        ]
        .into_iter()
        .flatten()
        {
            t.row(vec![
                name.to_string(),
                if name == "auxiliary" {
                    "-".to_string()
                } else {
                    thousands(calls)
                },
                tokens_cell(tk.input_tokens, lower > 0),
                tokens_cell(tk.output_tokens, lower > 0),
                tokens_cell(tk.cache_read_input_tokens, lower > 0),
                tokens_cell(tk.cache_creation_input_tokens, lower > 0),
                thousands(lower),
            ]);
        }
        let _ = write!(
            o,
            "\ntokens by agent (best figure of each run; ≥ where some run's is a lower bound)\n{}",
            t.render()
        );
    }
    if !r.tools.is_empty() {
        let mut rows: Vec<_> = r.tools.iter().collect();
        rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
        let mut t = Table::new(&[
            ("tool", Align::Left),
            ("calls", Align::Right),
            ("errors", Align::Right),
            ("rejected", Align::Right),
        ]);
        for (k, x) in rows {
            t.row(vec![
                clean(k),
                thousands(x.calls),
                thousands(x.errors),
                thousands(x.rejections),
            ]);
        }
        let _ = write!(o, "\ntools\n{}", t.render());
    }
    if r.subagent_count > 0 || r.api_retries > 0 || !r.task_types.is_empty() {
        let _ = writeln!(o);
        let list = |m: &cctape::run::SmallMap<String, u64>| -> String {
            m.iter()
                .map(|(k, n)| format!("{} {}", clean(k), thousands(*n)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if r.subagent_count > 0 {
            let _ = writeln!(
                o,
                "subagents: {} ({})",
                thousands(r.subagent_count),
                list(&r.subagent_types)
            );
        }
        if !r.task_types.is_empty() {
            let n: u64 = r.task_types.values().sum();
            let _ = writeln!(
                o,
                "background tasks: {} ({})",
                thousands(n),
                list(&r.task_types)
            );
        }
        let _ = writeln!(o, "api retries: {}", thousands(r.api_retries));
    }
    let unknown = s.unknown();
    if !unknown.is_empty() {
        let mut t = Table::new(&[("kind", Align::Left), ("events", Align::Right)]);
        for (k, n) in unknown {
            t.row(vec![clean(&k), thousands(n)]);
        }
        let _ = write!(o, "\nkinds without a typed view\n{}", t.render());
    }
    if let Some(by) = by {
        let _ = write!(o, "\nby {}\n", by.name());
        group_table(&mut o, f, by, style);
    }
    if !s.errors.is_empty() {
        let _ = writeln!(
            o,
            "\nerrors (first {} of {})",
            thousands(s.errors.len() as u64),
            thousands(s.counts.errors)
        );
        for e in &s.errors {
            let name = clean(names.get(e.file).map(String::as_str).unwrap_or("?"));
            let message = clean(&e.message);
            let mut at = cctape::Position::new(e.line, e.offset);
            at.column = e.column;
            // Said as every command says a bad line (the library's one
            // formatter).
            let said = cctape::error::Described {
                input: Some(&name),
                position: at,
                kind: e.kind,
                reason: &message,
                io: None,
            };
            let _ = writeln!(o, "  {said}");
        }
    }
    // Last: every warning kind, with how often and where first.
    let _ = writeln!(o, "\nwarnings");
    if r.warnings.is_empty() {
        let _ = writeln!(o, "  none");
    } else {
        let mut t = Table::new(&[
            ("warning", Align::Left),
            ("count", Align::Right),
            ("first", Align::Left),
        ]);
        for (code, w) in &r.warnings {
            let first = match w.first {
                Some((i, line)) => {
                    let name = clean(names.get(i).map(String::as_str).unwrap_or("?"));
                    match line {
                        Some(l) => format!("{name}:{l}"),
                        None => name,
                    }
                }
                None => String::new(),
            };
            t.row(vec![code.to_string(), thousands(w.count), first]);
        }
        o.push_str(&t.render());
    }
    exec::write_out(&mut o.into_bytes());
}

/// A table laid out as [`Table`] lays it out (each column as wide as its
/// widest cell by display width, two spaces before each, trailing spaces
/// cut), its rows made by `rows` twice, once for the widths and once for
/// the lines, instead of held: `--by file` over 100,000 inputs.
fn stream_table(
    o: &mut String,
    header: &[(&str, Align)],
    rows: impl Fn(&mut dyn FnMut(&[String])),
) {
    use unicode_width::UnicodeWidthStr;
    let mut widths: Vec<usize> = header.iter().map(|(h, _)| h.width()).collect();
    rows(&mut |row| {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.width());
        }
    });
    let line = |o: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let start = o.len();
        for ((w, (_, align)), c) in widths
            .iter()
            .zip(header)
            .zip(cells.chain(std::iter::repeat("")))
        {
            let pad = w.saturating_sub(c.width());
            o.push_str("  ");
            if *align == Align::Right {
                o.extend(std::iter::repeat_n(' ', pad));
                o.push_str(c);
            } else {
                o.push_str(c);
                o.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let end = o[start..].trim_end().len() + start;
        o.truncate(end);
        o.push('\n');
    };
    line(o, &mut header.iter().map(|(h, _)| *h));
    rows(&mut |row| line(o, &mut row.iter().map(String::as_str)));
}
