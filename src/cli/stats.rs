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

use super::exec::{self, Apart, BadLine, Done, Item, Piece, Reads, Sink};
use super::human::{Align, Table, clean, count, money_sum};
use super::output::{human_bytes, thousands};
use super::project::{Project, shown_project};
use super::reading::{Costing, Days, ReadAs};
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::Event;
use cctape::pricing::PriceTable;
use cctape::report::{
    GroupBy, Grouping, InputFigures, RunFigures, Shape, StatsFigures, StatsReport,
};
use cctape::run::{RoleTotals, RunFolder, RunSummary, RunTotals, SumValue, Verdict};
use cctape::sniff::Format;
use cctape::stats::Stats;
use cctape::time::Day;
use cctape::transcript::{TranscriptFile, TranscriptFold};
use std::fmt::Write as _;
use std::sync::Arc;

mod table;
use table::{TableStyle, print_human};

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
    /// Sees nothing per event: a chunk's runs may be folded apart
    /// ([`exec::Apart`]).
    fn apart(&self) -> bool {
        false
    }
}

/// `stats` itself sees nothing more.
impl Tap for () {
    fn apart(&self) -> bool {
        true
    }
}

struct StatsSink<T: Tap = ()> {
    /// What else sees the events and runs.
    tap: T,
    /// The inputs' names as the report keys them (bytes that are not UTF-8
    /// escaped: `cctape::inputs::name_text`), and their paths.
    names: Arc<[String]>,
    paths: Arc<[Option<std::path::PathBuf>]>,
    stats: Stats,
    runs: RunFolder,

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

/// How often (in events) the runs long over are summed.
const DRAIN_EVERY: u32 = 4096;

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

    /// Sum the runs long over (every [`DRAIN_EVERY`] events).
    fn drain_idle(&mut self, p: &Piece<'_>, line: u64) {
        self.since_drain += 1;
        if self.since_drain < DRAIN_EVERY {
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
    /// Runs are folded in order on one thread (a large file read ahead on
    /// the pool, see exec).
    fn reads(&self) -> Reads {
        Reads::FOLDS
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

    /// Every line validated and indexed by the library's reader once,
    /// every field read through that index.
    #[inline(always)]
    fn item(&mut self, p: &Piece<'_>, item: Item<'_, '_>, _: &mut Vec<u8>) {
        match item {
            Item::Event(ev) => {
                self.drain_idle(p, ev.line());
                self.stats.record_event(ev);
                self.runs.push(ev);
                self.tap.event(ev);
            }
            Item::Record(rec) => self.transcripts.add(rec, &self.file),
            Item::Error { error, bytes } => {
                self.stats.record_error(p.input, error);
                if self.format != Some(Format::Transcript) {
                    self.runs.push_error(error);
                }
                self.shape.note(bytes);
            }
            Item::NotEvents(shape) => self.finding = Some(shape.describe()),
            _ => {}
        }
    }

    /// A stream's runs, when nothing else sees its events.
    fn apart(&self) -> Option<Apart> {
        let lines = self.format.map(Format::reading) == Some(cctape::sniff::Reading::StreamLines);
        (lines && self.tap.apart()).then(|| Apart::new(self.tap.wants_calls(), true))
    }

    /// The part's events counted, the runs it holds after this sink's,
    /// and the runs long over summed where its lines would have summed
    /// them.
    fn adopt(&mut self, p: &Piece<'_>, part: &mut Apart, _: &mut Vec<u8>) -> bool {
        // No run of the part's is long over at its own lines: the sums
        // made at those lines take the runs before it only, as they
        // would have.
        let taken = part.adopt_into(
            self,
            |s| &mut s.runs,
            |s, line| s.drain_idle(p, line),
            |s| s.since_drain = s.since_drain.checked_sub(1).unwrap_or(DRAIN_EVERY - 1),
        );
        if taken {
            self.stats.add_events(&part.stats);
        }
        taken
    }

    /// The report lists errors with their positions (the first 100, and
    /// how many): not said again on stderr.
    fn bad_line(&self, _: &Error, _: Option<&[u8]>) -> BadLine {
        BadLine::Listed
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
