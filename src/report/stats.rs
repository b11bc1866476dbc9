//! The `cctape stats` report: counts over every input, the runs' figures
//! summed by the accounting model ([`RunTotals`]), grouped with `--by`, and
//! the JSON and CSV it prints (key orders in `docs/accounting.md`).
//!
//! Streams give runs as they are read; transcripts are folded across every
//! input first (a session's subagent files are other inputs, and a request
//! replayed in two files counts once), then each session joins the same
//! sums as a run ([`SessionSummary::to_run`]), under the input of its own
//! file. So a folder mixing streams and transcripts sums one way.
//!
//! What is kept of an input once it is read is what the report prints of
//! it: its part of the totals at once, and, only for `per_file`
//! ([`StatsReport::without_per_file`] leaves it out), its own counts and
//! totals ([`FileFigures`], a few hundred bytes). The JSON is written a
//! group and a file at a time ([`StatsFigures::write_json`]), the CSV a row
//! at a time.

use super::shape::{NoEvents, Shape};
use crate::event::{EventKind, TokenCounts};
use crate::pricing::PriceTable;
use crate::run::{ModelRole, RunSummary, RunTotals, SumValue, Verdict, tokens_json};
use crate::sniff::Format;
use crate::stats::Stats;
use crate::time::{
    BLOCK_MILLIS, BlockStart, Blocks, Day, DayRange, Zone, format_millis, parse_millis,
};
use crate::transcript::{Report, SessionSummary, TranscriptFold};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

mod write;

/// How `--by` groups run figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GroupBy {
    /// One row per input file (a transcript session under its own file).
    File,
    /// One row per run (`session_id`) or transcript session.
    Session,
    /// One row per project: a transcript's project folder
    /// (`~/.claude/projects/<project>/...`), a stream's folder.
    Project,
    /// One row per model and role.
    Model,
    /// One row per `claude_code_version` (a transcript's first `version`).
    Version,
    /// One row per day in the report's time zone: a run on the day it
    /// started, a transcript's requests each on its own day.
    Day,
    /// One row per ISO 8601 week (Monday to Sunday, keyed by its Monday, as
    /// ccusage's `weekly`), days taken as [`GroupBy::Day`] takes them.
    Week,
    /// One row per month (`YYYY-MM`, as ccusage's `monthly`), days taken as
    /// [`GroupBy::Day`] takes them.
    Month,
    /// One row per five-hour billing block (ccusage's `blocks`, keyed by
    /// its start: [`Blocks`]), made of every transcript request and every
    /// stream run's start; a transcript's requests each in its own block.
    Block,
}

impl GroupBy {
    /// `file`, `session`, `project`, `model`, `version`, `day`, `week`,
    /// `month`: the key column's name.
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::File => "file",
            GroupBy::Session => "session",
            GroupBy::Project => "project",
            GroupBy::Model => "model",
            GroupBy::Version => "version",
            GroupBy::Day => "day",
            GroupBy::Week => "week",
            GroupBy::Month => "month",
            GroupBy::Block => "block",
        }
    }

    /// True for the groupings by calendar period (day, week, month), which
    /// take days in the report's time zone.
    pub fn is_calendar(self) -> bool {
        matches!(self, GroupBy::Day | GroupBy::Week | GroupBy::Month)
    }

    /// The key of the period `day` falls in, for a calendar grouping
    /// (`unknown` without a day).
    fn period_key(self, day: Option<Day>) -> String {
        match (self, day) {
            (_, None) => UNKNOWN.to_string(),
            (GroupBy::Week, Some(d)) => d.week_start().to_string(),
            (GroupBy::Month, Some(d)) => d.month_key(),
            (_, Some(d)) => d.to_string(),
        }
    }
}

/// The key of runs without one (no session id, version or date).
const UNKNOWN: &str = "unknown";

/// In front of a stream run's hour (milliseconds) in its `--by block` key,
/// until blocks are made.
const INSTANT: &str = "@";

/// An hour in milliseconds.
const HOUR: i64 = 3_600_000;

/// The bucket of a stream run's start in `--by block` until blocks are
/// made: its hour (plus 1 ms), or the instant itself when it is on the
/// hour. Blocks start on hours and end five hours on, on an instant that
/// belongs to the earlier block, so every start in one bucket lands in the
/// same block: runs are summed per bucket, not kept one by one.
fn block_bucket(ms: i64) -> i64 {
    match ms.rem_euclid(HOUR) {
        0 => ms,
        r => ms - r + 1,
    }
}

/// How run figures are grouped: by what, and days in which zone (see
/// [`RunFigures`] for an example).
#[derive(Clone, Debug)]
pub struct Grouping {
    /// The grouping (`None`: totals only).
    pub by: Option<GroupBy>,
    /// The zone days are taken in.
    pub zone: Zone,
    /// The days kept (`--since`, `--until`): runs by the day they started,
    /// transcript requests and tool calls each by its own day.
    pub range: DayRange,
}

/// A group of `--by`: its key, and for `--by model` the role.
pub type GroupKey = (String, Option<ModelRole>);

/// The project of an input by its path: the folder it is in.
fn folder_of(file: &str) -> Option<String> {
    let p = Path::new(file).parent()?.file_name()?;
    Some(p.to_string_lossy().into_owned())
}

/// Runs summed over all inputs and per group (`cctape stats --by`).
///
/// Group keys are text: names that are not UTF-8 as
/// [`name_text`](crate::inputs::name_text) escapes them (`x\xff`), so that
/// they are keyed by their bytes.
///
/// ```
/// use cctape::report::{GroupBy, Grouping, RunFigures};
/// use cctape::run::runs_of_slice;
/// use cctape::time::Zone;
///
/// let log = br#"{"type":"system","subtype":"init","session_id":"a1","model":"claude-sonnet-4-5","claude_code_version":"2.1.41"}
/// {"type":"result","subtype":"success","is_error":false,"num_turns":2,"total_cost_usd":0.25,"session_id":"a1"}
/// {"type":"system","subtype":"init","session_id":"b2","model":"claude-sonnet-4-5","claude_code_version":"2.1.158"}
/// {"type":"result","subtype":"success","is_error":false,"num_turns":4,"total_cost_usd":0.5,"session_id":"b2"}
/// "#;
/// let g = Grouping { by: Some(GroupBy::Version), zone: Zone::utc(), range: Default::default() };
/// let mut figures = RunFigures::default();
/// for run in runs_of_slice(log) {
///     figures.add(0, "runs/log.jsonl", &run, &g);
/// }
/// assert_eq!(figures.all.runs, 2);
/// let cost = |v: &str| figures.groups[&(v.to_string(), None)].cost.value().as_f64();
/// assert_eq!((cost("2.1.41"), cost("2.1.158")), (Some(0.25), Some(0.5)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct RunFigures {
    /// Every run.
    pub all: RunTotals,
    /// Per group (with `--by`), each boxed: a tree node holds eleven.
    pub groups: BTreeMap<GroupKey, Box<RunTotals>>,
    /// With `--by block`, every stream run's start (what blocks are made
    /// of with the transcripts' requests).
    instants: Vec<i64>,
    /// What the bad lines of an input without events folded into: kept
    /// until the input is known to hold no event, when it becomes that
    /// input's one run ([`StatsReport::finish`], [`super::no_events_run`]).
    without_events: Option<Box<RunSummary>>,
}

impl RunFigures {
    /// Add a run of input `input` (named `file`). A run without events
    /// (the bad lines of an input none of whose lines is an event) is kept
    /// aside: such an input is one run, made once it is known to hold no
    /// event ([`StatsReport::finish`]).
    pub fn add(&mut self, input: usize, file: &str, r: &RunSummary, g: &Grouping) {
        if r.events == 0 {
            if self.without_events.is_none() {
                self.without_events = Some(Box::new(r.clone()));
            }
            return;
        }
        self.add_run(input, file, r, g);
    }

    /// Add a run, whatever its events.
    pub(crate) fn add_run(&mut self, input: usize, file: &str, r: &RunSummary, g: &Grouping) {
        if !g.range.is_all() {
            let day = r
                .started_at
                .as_deref()
                .and_then(|t| Day::of_timestamp(t, &g.zone));
            if !g.range.contains(day) {
                return;
            }
        }
        self.all.add_from(r, input);
        let project = folder_of(file);
        self.add_grouped(input, file, project.as_deref(), r, g);
    }

    /// Add a transcript session whose own file is input `input`: as one
    /// run, and with `--by day` (`week`, `month`, `block`) its requests on
    /// their own days (blocks), each subagent on the day (block) of its
    /// first request. Returns the run as added (with `--since`/`--until`,
    /// the subagents with a request kept).
    pub(crate) fn add_session(
        &mut self,
        input: usize,
        file: &str,
        s: &SessionSummary,
        g: &Grouping,
        blocks: Option<&Blocks>,
    ) -> RunSummary {
        let mut r = s.run_without_calls();
        // Its subagents are its facts' agents, in order.
        let mut firsts: Vec<Option<i64>> =
            s.facts.agents.iter().map(|a| a.first_request_ms).collect();
        if !g.range.is_all() && firsts.len() == r.subagents.len() {
            let mut keep = firsts.iter().map(Option::is_some);
            r.subagents.retain(|_| keep.next().unwrap_or(true));
            firsts.retain(Option::is_some);
        }
        if r.events == 0 {
            return r;
        }
        self.all.add_from(&r, input);
        let by = match g.by {
            Some(GroupBy::Block) => {
                for (block, slice) in s.block_runs() {
                    self.group(block_key(block)).add_from(&slice, input);
                }
                for (n, first) in r.subagents.iter().zip(&firsts) {
                    let block = first.and_then(|ms| blocks?.block_of(ms));
                    self.group(block_key(block))
                        .add_subagents(std::slice::from_ref(n));
                }
                return r;
            }
            Some(by) if by.is_calendar() => by,
            _ => {
                self.add_grouped(input, file, s.project.as_deref(), &r, g);
                return r;
            }
        };
        for (day, slice) in s.day_runs() {
            self.group(by.period_key(day)).add_from(&slice, input);
        }
        for (n, first) in r.subagents.iter().zip(&firsts) {
            let day = first.map(|ms| Day::of_millis(ms, &g.zone));
            self.group(by.period_key(day))
                .add_subagents(std::slice::from_ref(n));
        }
        r
    }

    /// The group of a key without a role.
    fn group(&mut self, key: String) -> &mut RunTotals {
        self.groups.entry((key, None)).or_default()
    }

    fn add_grouped(
        &mut self,
        input: usize,
        file: &str,
        project: Option<&str>,
        r: &RunSummary,
        g: &Grouping,
    ) {
        let Some(by) = g.by else { return };
        let key = match by {
            GroupBy::Model => {
                // One group per model and role, each with its share of the
                // run's best figures; the run's counts (tools, subagents,
                // retries, warnings) go to its main model's row.
                let shares = crate::run::shares(r);
                let main = shares
                    .iter()
                    .position(|x| x.role == ModelRole::Main)
                    .unwrap_or(0);
                for (i, share) in shares.iter().enumerate() {
                    self.groups
                        .entry((share.model.to_string(), Some(share.role)))
                        .or_default()
                        .add_role(r, share, input, i == main);
                }
                return;
            }
            GroupBy::File => file.to_string(),
            GroupBy::Session => r.session_id.clone().unwrap_or_else(|| "-".into()),
            GroupBy::Project => project.unwrap_or("-").to_string(),
            GroupBy::Version => r
                .claude_code_version
                .clone()
                .unwrap_or_else(|| UNKNOWN.into()),
            GroupBy::Day | GroupBy::Week | GroupBy::Month => by.period_key(
                r.started_at
                    .as_deref()
                    .and_then(|t| Day::of_timestamp(t, &g.zone)),
            ),
            // The run's hour for now: blocks are made once every instant
            // is known ([`StatsReport::finish`] puts the run in its block).
            GroupBy::Block => match r.started_at.as_deref().and_then(parse_millis) {
                Some(ms) => {
                    self.instants.push(ms);
                    format!("{INSTANT}{}", block_bucket(ms))
                }
                None => UNKNOWN.to_string(),
            },
        };
        self.groups
            .entry((key, None))
            .or_default()
            .add_from(r, input);
    }

    /// Each stream run moved from its start to the block it falls in.
    fn rekey_by_block(&mut self, blocks: &Blocks) {
        let groups = std::mem::take(&mut self.groups);
        for ((key, role), g) in groups {
            let key = match key.strip_prefix(INSTANT).and_then(|ms| ms.parse().ok()) {
                Some(ms) => blocks
                    .block_of(ms)
                    .map_or_else(|| UNKNOWN.to_string(), |b| b.to_string()),
                None => key,
            };
            self.groups.entry((key, role)).or_default().merge(&g, 0);
        }
    }

    /// Add another set of figures.
    pub(crate) fn merge(&mut self, o: &RunFigures) {
        if self.without_events.is_none() {
            self.without_events.clone_from(&o.without_events);
        }
        self.all.merge(&o.all, 0);
        for (k, g) in &o.groups {
            match self.groups.get_mut(k) {
                Some(mine) => mine.merge(g, 0),
                None => {
                    self.groups.insert(k.clone(), g.clone());
                }
            }
        }
        self.instants.extend_from_slice(&o.instants);
    }

    /// The groups in the order they are printed: versions in semantic
    /// order (2.1.41 before 2.1.238), days in date order with `unknown`
    /// last, everything else by key.
    pub fn ordered(&self, by: GroupBy) -> Vec<(&GroupKey, &RunTotals)> {
        let mut v: Vec<(&GroupKey, &RunTotals)> =
            self.groups.iter().map(|(k, g)| (k, &**g)).collect();
        match by {
            GroupBy::Version => v.sort_by(|a, b| crate::version::version_order(&a.0.0, &b.0.0)),
            GroupBy::Day | GroupBy::Week | GroupBy::Month | GroupBy::Block => {
                v.sort_by_key(|g| (g.0.0 == UNKNOWN, g.0.0.clone()));
            }
            _ => {}
        }
        v
    }
}

/// The key of a block (`unknown` without one).
fn block_key(block: Option<BlockStart>) -> String {
    block.map_or_else(|| UNKNOWN.to_string(), |b| b.to_string())
}

/// What one input gave.
#[derive(Debug, Default)]
pub struct InputFigures {
    /// Its counts.
    pub stats: Stats,
    /// Its runs (and the transcript sessions whose own file it is).
    pub runs: RunFigures,
    /// Its first lines that were not events (to say what an input without
    /// events is).
    pub shape: Shape,
    /// The format it was read as (`None`: it could not be read).
    pub format: Option<Format>,
    /// What it is, when it was read as one finding (text, empty).
    pub finding: Option<NoEvents>,
    /// A transcript's records by type (`type` or `type/subtype`).
    pub records_by_type: BTreeMap<String, u64>,
}

impl InputFigures {
    /// Add another piece of the same input (pieces in order).
    pub(crate) fn merge(&mut self, o: &InputFigures) {
        self.stats.merge(&o.stats, 0);
        self.runs.merge(&o.runs);
        self.shape.append(&o.shape);
        self.format = self.format.or(o.format);
        if o.finding.is_some() {
            self.finding.clone_from(&o.finding);
        }
        for (k, n) in &o.records_by_type {
            *self.records_by_type.entry(k.clone()).or_default() += n;
        }
    }

    /// Count a transcript's records (a fold of this input's, before it
    /// joins the others).
    pub fn count_records(&mut self, fold: &TranscriptFold) {
        for (k, n) in fold.records_by_kind() {
            *self
                .records_by_type
                .entry(kind_name(k).to_string())
                .or_default() += n;
        }
    }

    /// What the input is when it gave no event and was read to its end
    /// (`None` otherwise: an input that could not be read, or broke off
    /// before any event, is no run): the inputs `verdict` gives a record
    /// with `no_events`.
    fn without_events(&self) -> Option<NoEvents> {
        let io = crate::error::ErrorKind::Io.name();
        if self.stats.counts.events > 0 || self.stats.errors.iter().any(|e| e.kind == io) {
            return None;
        }
        if let Some(f) = &self.finding {
            return Some(f.clone());
        }
        (self.stats.files > 0).then(|| self.shape.describe())
    }
}

/// What the report keeps of one input for `per_file`: what it prints of
/// it.
#[derive(Clone, Debug, Default)]
pub struct FileFigures {
    /// The format it was read as (`None`: it could not be read).
    pub format: Option<Format>,
    /// Its counts.
    pub stats: Stats,
    /// A transcript's records by type.
    pub records_by_type: BTreeMap<String, u64>,
    /// Its runs (and the transcript sessions whose own file it is).
    pub runs: RunTotals,
}

/// How many inputs without events are listed by name (all are counted).
pub(super) const NO_EVENTS_LISTED: usize = 100;

/// Inputs without events, by what they look like.
#[derive(Debug, Default)]
pub struct NoEventInputs {
    /// How many of each format ([`Format::name`]).
    pub by_format: BTreeMap<&'static str, u64>,
    /// The first 100 of them (`NO_EVENTS_LISTED`), with their names.
    pub inputs: Vec<(String, NoEvents)>,
}

impl NoEventInputs {
    /// How many.
    pub fn count(&self) -> u64 {
        self.by_format.values().sum()
    }

    /// `{"count", "by_format", "inputs": [{"file", "format", "first_line"}]}`
    /// (the first 100 inputs).
    pub fn to_json(&self) -> Value {
        json!({
            "count": self.count(),
            "by_format": self.by_format,
            "inputs": self.inputs.iter().take(NO_EVENTS_LISTED).map(|(f, n)| json!({
                "file": f,
                "format": n.format.name(),
                "first_line": n.first_line,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Sums over every input, filled as inputs are read, finished once.
///
/// Inputs are added in input order (the pieces of one input one after
/// the other); each joins the totals when the next begins, and then only
/// its per-file figures are kept, when `per_file` is.
///
/// ```
/// use cctape::pricing::PriceTable;
/// use cctape::report::{Grouping, InputFigures, StatsReport};
/// use cctape::time::Zone;
///
/// let grouping = Grouping { by: None, zone: Zone::utc(), range: Default::default() };
/// let mut report = StatsReport::new(vec!["-".into()], grouping, PriceTable::builtin().clone());
/// report.add_input(0, InputFigures::default());
/// let figures = report.finish();
/// assert_eq!(figures.to_json()["runs"], 0);
/// ```
#[derive(Debug)]
pub struct StatsReport {
    names: Vec<String>,
    grouping: Grouping,
    prices: PriceTable,
    per_file: bool,
    /// The input being added, while its pieces come.
    current: Option<(usize, InputFigures)>,
    /// Each input's, with `per_file` (indexed by input).
    files: Vec<FileFigures>,
    total: InputFigures,
    formats: BTreeMap<&'static str, u64>,
    no_events: NoEventInputs,
    fold: TranscriptFold,
    /// The run each input without events became, when asked for
    /// ([`StatsReport::keeping_no_event_runs`]).
    no_event_runs: Option<Vec<(usize, RunSummary)>>,
}

impl StatsReport {
    /// A report over inputs with these names (in input order; names that
    /// are not UTF-8 as [`name_text`](crate::inputs::name_text) gives
    /// them), grouped so, transcripts priced with `prices`; it keeps each
    /// input's figures for `per_file`.
    pub fn new(names: Vec<String>, grouping: Grouping, prices: PriceTable) -> StatsReport {
        StatsReport {
            names,
            grouping,
            prices,
            per_file: true,
            current: None,
            files: Vec::new(),
            total: InputFigures::default(),
            formats: BTreeMap::new(),
            no_events: NoEventInputs::default(),
            no_event_runs: None,
            fold: TranscriptFold::new(),
        }
    }

    /// Keep nothing of each input beyond its part of the totals: for the
    /// outputs without `per_file` (the tables, the CSV); the finished
    /// report's [`inputs`](StatsFigures::inputs) are then empty.
    pub fn without_per_file(mut self) -> StatsReport {
        self.per_file = false;
        self
    }

    /// Also keep the run each input without events becomes (for a page
    /// that groups runs in other ways too: `cctape report`), handed out in
    /// [`StatsFigures::no_event_runs`].
    pub fn keeping_no_event_runs(mut self) -> StatsReport {
        self.no_event_runs = Some(Vec::new());
        self
    }

    /// How runs are grouped.
    pub fn grouping(&self) -> &Grouping {
        &self.grouping
    }

    /// Add (a piece of) input `input`'s figures.
    pub fn add_input(&mut self, input: usize, f: InputFigures) {
        if input >= self.names.len() {
            return;
        }
        if self.current.as_ref().is_some_and(|(i, _)| *i != input) {
            self.close_input();
        }
        match &mut self.current {
            Some((_, mine)) => mine.merge(&f),
            None => self.current = Some((input, f)),
        }
    }

    /// True when `--by file` groups are the inputs' own runs, kept once in
    /// their [`FileFigures`] (with `per_file`).
    fn files_are_groups(&self) -> bool {
        self.per_file && self.grouping.by == Some(GroupBy::File)
    }

    /// The input being added joins the totals.
    fn close_input(&mut self) {
        let Some((i, mut f)) = self.current.take() else {
            return;
        };
        let without = f.without_events();
        if let Some(n) = &without {
            // The one run such an input is, as `verdict` gives it.
            let folded = f.runs.without_events.take().map(|r| *r);
            let r = super::no_events_run(folded, n, None);
            f.runs.add_run(i, &self.names[i], &r, &self.grouping);
            if let Some(kept) = &mut self.no_event_runs {
                kept.push((i, r));
            }
        }
        let files_are_groups = self.files_are_groups();
        let t = &mut self.total;
        t.stats.merge(&f.stats, 0);
        if files_are_groups {
            // Its group is its FileFigures' runs: not kept twice.
            t.runs.all.merge(&f.runs.all, 0);
        } else {
            t.runs.merge(&f.runs);
        }
        for (k, n) in &f.records_by_type {
            *t.records_by_type.entry(k.clone()).or_default() += n;
        }
        if let Some(fmt) = f.format {
            *self.formats.entry(fmt.name()).or_default() += 1;
        }
        if let Some(n) = without {
            *self.no_events.by_format.entry(n.format.name()).or_default() += 1;
            if self.no_events.inputs.len() < NO_EVENTS_LISTED {
                self.no_events.inputs.push((self.names[i].clone(), n));
            }
        }
        if self.per_file {
            if self.files.len() <= i {
                self.files.resize_with(i + 1, FileFigures::default);
            }
            let mut stats = f.stats;
            stats.shrink();
            self.files[i] = FileFigures {
                format: f.format,
                stats,
                records_by_type: f.records_by_type,
                runs: f.runs.all,
            };
        }
    }

    /// Add the transcript records folded from (a piece of) an input; call
    /// it in input order, so that what is kept first does not depend on
    /// the order inputs finished in.
    pub fn add_transcripts(&mut self, fold: TranscriptFold) {
        if fold.records() > 0 {
            self.fold.merge(fold);
        }
    }

    /// Every transcript session joins its own file's figures as a run, and
    /// the totals are made.
    pub fn finish(mut self) -> StatsFigures {
        self.close_input();
        let files_are_groups = self.files_are_groups();
        let StatsReport {
            names,
            grouping,
            prices,
            per_file,
            mut files,
            mut total,
            formats,
            no_events,
            fold,
            no_event_runs,
            ..
        } = self;
        if per_file {
            files.resize_with(names.len(), FileFigures::default);
        }
        // Blocks are made of every request and every stream run's start.
        let blocks = (grouping.by == Some(GroupBy::Block)).then(|| {
            let mut instants = fold.request_instants(&grouping.zone, &grouping.range);
            instants.extend_from_slice(&total.runs.instants);
            Blocks::new(instants)
        });
        if let Some(b) = &blocks {
            total.runs.rekey_by_block(b);
        }
        let transcripts = (fold.records() > 0).then(|| {
            let report =
                fold.finish_within(&prices, &grouping.zone, &grouping.range, blocks.as_ref());
            let index: HashMap<&str, usize> = names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i))
                .collect();
            for s in &report.sessions {
                let input = s
                    .files
                    .first()
                    .and_then(|f| index.get(f.as_str()))
                    .copied()
                    .unwrap_or(0);
                let Some(name) = names.get(input) else {
                    continue;
                };
                let g = Grouping {
                    by: grouping.by.filter(|_| !files_are_groups),
                    ..grouping.clone()
                };
                let r = total.runs.add_session(input, name, s, &g, blocks.as_ref());
                if let Some(f) = files.get_mut(input)
                    && r.events > 0
                {
                    f.runs.add_from(&r, input);
                }
            }
            report
        });
        StatsFigures {
            names,
            grouping,
            inputs: files,
            total,
            formats,
            no_events,
            no_event_runs: no_event_runs.unwrap_or_default(),
            transcripts,
            blocks,
            files_are_groups,
        }
    }
}

/// The finished report: what `cctape stats` prints.
#[derive(Debug)]
pub struct StatsFigures {
    /// The inputs' names, in input order.
    pub names: Vec<String>,
    /// How runs are grouped.
    pub grouping: Grouping,
    /// Each input's figures (empty when the report was made
    /// [`without_per_file`](StatsReport::without_per_file)).
    pub inputs: Vec<FileFigures>,
    /// Everything.
    pub total: InputFigures,
    /// Inputs per format they were read as ([`Format::name`]).
    pub formats: BTreeMap<&'static str, u64>,
    /// Inputs without events.
    pub no_events: NoEventInputs,
    /// The run each input without events became (input, run), in input
    /// order, when the report was
    /// [`keeping_no_event_runs`](StatsReport::keeping_no_event_runs).
    pub no_event_runs: Vec<(usize, RunSummary)>,
    /// The transcripts' sessions and days, when any input was a transcript.
    pub transcripts: Option<Report>,
    /// With `--by block`, the blocks.
    pub blocks: Option<Blocks>,
    /// With `--by file` and `per_file`, the groups are the inputs' runs
    /// ([`FileFigures::runs`], merged by name), not in
    /// [`total`](StatsFigures::total)`.runs.groups`: see
    /// [`groups`](StatsFigures::groups).
    files_are_groups: bool,
}

impl StatsFigures {
    /// The groups in the order they are printed ([`RunFigures::ordered`]),
    /// handed to `f` one at a time; with `--by file` and `per_file`, made
    /// of the inputs' own runs (inputs of one name merged).
    pub fn groups(&self, by: GroupBy, mut f: impl FnMut(&GroupKey, &RunTotals)) {
        if !(self.files_are_groups && by == GroupBy::File) {
            for (k, g) in self.total.runs.ordered(by) {
                f(k, g);
            }
            return;
        }
        let mut order: Vec<usize> = (0..self.inputs.len().min(self.names.len()))
            .filter(|&i| self.inputs[i].runs.runs > 0)
            .collect();
        order.sort_by(|&a, &b| self.names[a].cmp(&self.names[b]));
        let mut i = 0;
        while i < order.len() {
            let name = &self.names[order[i]];
            let mut j = i + 1;
            while j < order.len() && self.names[order[j]] == *name {
                j += 1;
            }
            let key = (name.clone(), None);
            if j == i + 1 {
                f(&key, &self.inputs[order[i]].runs);
            } else {
                let mut merged = RunTotals::default();
                for &k in &order[i..j] {
                    merged.merge(&self.inputs[k].runs, 0);
                }
                f(&key, &merged);
            }
            i = j;
        }
    }
}

/// CSV columns after the group's key (and role), `runs` and the verdicts.
pub const CSV_COLUMNS: [&str; 13] = [
    "total_cost_usd",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "main_output_tokens",
    "subagent_output_tokens",
    "tool_calls",
    "tool_errors",
    "subagents",
    "api_retries",
    "main_lower_bound_runs",
    "subagents_lower_bound_runs",
];

/// A record kind's name in counts: `type` or `type/subtype`, `system` for
/// other system subtypes, `other` for other types.
pub(crate) fn kind_name(k: EventKind) -> &'static str {
    k.name().unwrap_or(match k {
        EventKind::SystemOther => "system",
        _ => "other",
    })
}

/// `{"sessions", "projects", "records", "records_by_type", "requests",
/// "undated_requests", "main", "subagents", "unpriced_models", "prices":
/// {"taken", "source"}, "time_zone"}` (`main` and `subagents`: the four
/// counts of the sessions' main chains and subagents, included in the
/// report's `usage`).
fn transcripts_json(t: &Report, zone: &Zone) -> Value {
    let mut by_type: BTreeMap<&str, u64> = BTreeMap::new();
    let mut records = 0;
    let mut projects = std::collections::BTreeSet::new();
    let (mut main, mut subagents) = (TokenCounts::default(), TokenCounts::default());
    for s in &t.sessions {
        for (k, n) in &s.facts.records {
            records += n;
            *by_type.entry(kind_name(*k)).or_default() += n;
        }
        if let Some(p) = &s.project {
            projects.insert(p.as_str());
        }
        let r = s.run_without_calls();
        main.add(&r.usage.main.tokens);
        subagents.add(&r.usage.subagents.tokens);
    }
    json!({
        "sessions": t.sessions.len(),
        "projects": projects.len(),
        "records": records,
        "records_by_type": by_type,
        "requests": t.total.requests,
        "undated_requests": t.undated.requests,
        "main": tokens_json(&main),
        "subagents": tokens_json(&subagents),
        "unpriced_models": t.unpriced_models,
        "prices": {"taken": t.prices_taken, "source": t.prices_source},
        "time_zone": zone.name(),
    })
}
