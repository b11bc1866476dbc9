//! The `cctape stats` report: counts over every input, the runs' figures
//! summed by the accounting model ([`RunTotals`]), grouped with `--by`, and
//! the JSON and CSV it prints (key orders in `docs/accounting.md`).
//!
//! Streams give runs as they are read; transcripts are folded across every
//! input first (a session's subagent files are other inputs, and a request
//! replayed in two files counts once), then each session joins the same
//! sums as a run ([`SessionSummary::to_run`]), under the input of its own
//! file. So a folder mixing streams and transcripts sums one way.

use super::shape::{NoEvents, Shape};
use crate::event::TokenCounts;
use crate::pricing::PriceTable;
use crate::run::{ModelRole, RunSummary, RunTotals, SumValue, Verdict, tokens_json};
use crate::sniff::Format;
use crate::stats::Stats;
use crate::time::{
    BLOCK_MILLIS, BlockStart, Blocks, Day, DayRange, Zone, format_millis, parse_millis,
};
use crate::transcript::{RecordKind, Report, SessionSummary, TranscriptFold};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

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

/// In front of a stream run's start (milliseconds) in its `--by block` key,
/// until blocks are made.
const INSTANT: &str = "@";

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
    /// Per group (with `--by`).
    pub groups: BTreeMap<GroupKey, RunTotals>,
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
    fn add_run(&mut self, input: usize, file: &str, r: &RunSummary, g: &Grouping) {
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
    /// run, and with `--by day` its requests on their own days.
    pub fn add_session(&mut self, input: usize, file: &str, s: &SessionSummary, g: &Grouping) {
        let r = s.to_run();
        if r.events == 0 {
            return;
        }
        self.all.add_from(&r, input);
        let by = match g.by {
            Some(GroupBy::Block) => {
                for (block, slice) in s.block_runs() {
                    let key = block.map_or_else(|| UNKNOWN.to_string(), |b| b.to_string());
                    self.groups
                        .entry((key, None))
                        .or_default()
                        .add_from(&slice, input);
                }
                return;
            }
            Some(by) if by.is_calendar() => by,
            _ => {
                self.add_grouped(input, file, s.project.as_deref(), &r, g);
                return;
            }
        };
        for (day, slice) in s.day_runs() {
            let key = by.period_key(day);
            self.groups
                .entry((key, None))
                .or_default()
                .add_from(&slice, input);
        }
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
                // One group per model and role; the run's counts (tools,
                // subagents, retries, warnings) go to its main model's row.
                let rows = &r.usage.by_role;
                let main = rows
                    .iter()
                    .position(|x| x.role == ModelRole::Main)
                    .unwrap_or(0);
                for (i, row) in rows.iter().enumerate() {
                    self.groups
                        .entry((row.model.clone(), Some(row.role)))
                        .or_default()
                        .add_role(r, i, input, i == main);
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
            // The run's start for now: blocks are made once every instant
            // is known ([`StatsReport::finish`] puts the run in its block).
            GroupBy::Block => match r.started_at.as_deref().and_then(parse_millis) {
                Some(ms) => format!("{INSTANT}{ms}"),
                None => UNKNOWN.to_string(),
            },
        };
        self.groups
            .entry((key, None))
            .or_default()
            .add_from(r, input);
    }

    /// The stream runs' starts kept in `--by block` keys.
    fn run_instants(&self) -> impl Iterator<Item = i64> + '_ {
        self.groups
            .keys()
            .filter_map(|(k, _)| k.strip_prefix(INSTANT)?.parse().ok())
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
    pub fn merge(&mut self, o: &RunFigures) {
        if self.without_events.is_none() {
            self.without_events.clone_from(&o.without_events);
        }
        self.all.merge(&o.all, 0);
        for (k, g) in &o.groups {
            self.groups.entry(k.clone()).or_default().merge(g, 0);
        }
    }

    /// The groups in the order they are printed: versions in semantic
    /// order (2.1.41 before 2.1.238), days in date order with `unknown`
    /// last, everything else by key.
    pub fn ordered(&self, by: GroupBy) -> Vec<(&GroupKey, &RunTotals)> {
        let mut v: Vec<_> = self.groups.iter().collect();
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
    pub fn merge(&mut self, o: &InputFigures) {
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

/// Inputs without events, by what they look like.
#[derive(Debug, Default)]
pub struct NoEventInputs {
    /// How many of each format ([`Format::name`]).
    pub by_format: BTreeMap<&'static str, u64>,
    /// Each, with its name.
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
            "inputs": self.inputs.iter().take(100).map(|(f, n)| json!({
                "file": f,
                "format": n.format.name(),
                "first_line": n.first_line,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Sums over every input, filled as inputs are read, finished once.
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
    inputs: Vec<InputFigures>,
    fold: TranscriptFold,
}

impl StatsReport {
    /// A report over inputs with these names (in input order), grouped so,
    /// transcripts priced with `prices`.
    pub fn new(names: Vec<String>, grouping: Grouping, prices: PriceTable) -> StatsReport {
        let inputs = names.iter().map(|_| InputFigures::default()).collect();
        StatsReport {
            names,
            grouping,
            prices,
            inputs,
            fold: TranscriptFold::new(),
        }
    }

    /// How runs are grouped.
    pub fn grouping(&self) -> &Grouping {
        &self.grouping
    }

    /// Add (a piece of) input `input`'s figures.
    pub fn add_input(&mut self, input: usize, f: InputFigures) {
        if let Some(mine) = self.inputs.get_mut(input) {
            mine.merge(&f);
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
    pub fn finish(self) -> StatsFigures {
        let StatsReport {
            names,
            grouping,
            prices,
            mut inputs,
            fold,
        } = self;
        // Blocks are made of every request and every stream run's start.
        let blocks = (grouping.by == Some(GroupBy::Block)).then(|| {
            let mut instants = fold.request_instants(&grouping.zone, &grouping.range);
            for f in &inputs {
                instants.extend(f.runs.run_instants());
            }
            Blocks::new(instants)
        });
        if let Some(b) = &blocks {
            for f in &mut inputs {
                f.runs.rekey_by_block(b);
            }
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
                if let Some(f) = inputs.get_mut(input) {
                    f.runs.add_session(input, &names[input], s, &grouping);
                }
            }
            report
        });
        let mut total = InputFigures::default();
        let mut no_events = NoEventInputs::default();
        let mut formats: BTreeMap<&'static str, u64> = BTreeMap::new();
        for (i, (f, name)) in inputs.iter_mut().zip(&names).enumerate() {
            let without = f.without_events();
            if let Some(n) = &without {
                // The one run such an input is, as `verdict` gives it.
                let folded = f.runs.without_events.take().map(|r| *r);
                let r = super::no_events_run(folded, n, None);
                f.runs.add_run(i, name, &r, &grouping);
            }
            total.stats.merge(&f.stats, 0);
            total.runs.merge(&f.runs);
            for (k, n) in &f.records_by_type {
                *total.records_by_type.entry(k.clone()).or_default() += n;
            }
            if let Some(fmt) = f.format {
                *formats.entry(fmt.name()).or_default() += 1;
            }
            if let Some(n) = without {
                *no_events.by_format.entry(n.format.name()).or_default() += 1;
                no_events.inputs.push((name.clone(), n));
            }
        }
        StatsFigures {
            names,
            grouping,
            inputs,
            total,
            formats,
            no_events,
            transcripts,
            blocks,
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
    /// Each input's figures.
    pub inputs: Vec<InputFigures>,
    /// Everything.
    pub total: InputFigures,
    /// Inputs per format they were read as ([`Format::name`]).
    pub formats: BTreeMap<&'static str, u64>,
    /// Inputs without events.
    pub no_events: NoEventInputs,
    /// The transcripts' sessions and days, when any input was a transcript.
    pub transcripts: Option<Report>,
    /// With `--by block`, the blocks.
    pub blocks: Option<Blocks>,
}

impl StatsFigures {
    /// The `stats --json` object; keys in the order of
    /// `docs/accounting.md` ("stats keys").
    pub fn to_json(&self) -> Value {
        let names = &self.names;
        let mut obj = stats_json(&self.total.stats, names, Some(&self.formats));
        obj.insert("inputs_without_events".into(), self.no_events.to_json());
        if let Some(t) = &self.transcripts {
            obj.insert(
                "transcripts".into(),
                transcripts_json(t, &self.grouping.zone),
            );
        }
        runs_json(&self.total.runs.all, names, &mut obj);
        let range = &self.grouping.range;
        if !range.is_all() {
            obj.insert("since".into(), json!(range.since.map(|d| d.to_string())));
            obj.insert("until".into(), json!(range.until.map(|d| d.to_string())));
        }
        let calendar = self.grouping.by.is_some_and(GroupBy::is_calendar);
        if calendar || !range.is_all() {
            obj.insert("time_zone".into(), json!(self.grouping.zone.name()));
        }
        if let Some(by) = self.grouping.by {
            let groups: Vec<Value> = self
                .total
                .runs
                .ordered(by)
                .into_iter()
                .map(|((k, role), g)| {
                    let mut o = Map::new();
                    o.insert("key".into(), json!(k));
                    if let Some(role) = role {
                        o.insert("role".into(), json!(role.as_str()));
                    }
                    if let (Some(blocks), Some(start)) = (&self.blocks, parse_millis(k)) {
                        // ccusage's `endTime` and `actualEndTime`.
                        let end = format_millis(start + BLOCK_MILLIS);
                        let last = blocks
                            .last_instant(BlockStart::at(start))
                            .and_then(format_millis);
                        o.insert("block_end".into(), json!(end));
                        o.insert("last_activity".into(), json!(last));
                    }
                    o.extend(group_json(g));
                    Value::Object(o)
                })
                .collect();
            obj.insert("groups".into(), Value::Array(groups));
        }
        let files: Vec<Value> = self
            .inputs
            .iter()
            .zip(names)
            .map(|(f, n)| {
                let mut o = Map::new();
                o.insert("file".into(), json!(n));
                o.insert("format".into(), json!(f.format.map(Format::name)));
                o.extend(stats_json(&f.stats, names, None));
                if f.format == Some(Format::Transcript) {
                    o.insert("records_by_type".into(), json!(f.records_by_type));
                }
                runs_json(&f.runs.all, names, &mut o);
                Value::Object(o)
            })
            .collect();
        obj.insert("per_file".into(), Value::Array(files));
        Value::Object(obj)
    }

    /// The `stats --csv` records, header first: the key (and the role with
    /// `--by model`), `runs`, the verdicts, then [`CSV_COLUMNS`].
    pub fn csv_records(&self) -> Vec<Vec<String>> {
        let by = self.grouping.by.unwrap_or(GroupBy::File);
        let mut header = vec![by.name().to_string()];
        if by == GroupBy::Model {
            header.push("role".into());
        }
        header.push("runs".into());
        header.extend(Verdict::ALL.iter().map(|v| v.as_str().to_string()));
        header.extend(CSV_COLUMNS.iter().map(|c| c.to_string()));
        let mut out = vec![header];
        for ((k, role), g) in self.total.runs.ordered(by) {
            let mut rec: Vec<String> = vec![k.clone()];
            if let Some(role) = role {
                rec.push(role.as_str().to_string());
            }
            rec.push(g.runs.to_string());
            rec.extend(g.verdicts.iter().map(u64::to_string));
            rec.push(match g.cost.value() {
                SumValue::Finite(c) => c.to_string(),
                SumValue::Beyond(t) => t,
            });
            let t = g.all_models();
            let (calls, errors) = g.tool_calls();
            for n in [
                t.input_tokens,
                t.output_tokens,
                t.cache_read_input_tokens,
                t.cache_creation_input_tokens,
                g.main.output_tokens,
                g.subagents.output_tokens,
                calls,
                errors,
                g.subagent_count,
                g.api_retries,
                g.main_lower_bound_runs,
                g.subagents_lower_bound_runs,
            ] {
                rec.push(n.to_string());
            }
            out.push(rec);
        }
        out
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

/// The run figures of totals into a stats JSON object (warnings' first
/// positions with file names).
fn runs_json(t: &RunTotals, names: &[String], o: &mut Map<String, Value>) {
    if let Value::Object(mut r) = t.to_json() {
        if let Some(Value::Object(w)) = r.get_mut("warnings") {
            for (code, v) in w.iter_mut() {
                let first = t.warnings.get(code.as_str()).and_then(|x| x.first);
                if let (Some((i, line)), Value::Object(v)) = (first, v) {
                    v.insert(
                        "first".into(),
                        json!({"file": names.get(i).map(String::as_str).unwrap_or("?"), "line": line}),
                    );
                }
            }
        }
        o.extend(r);
    }
}

/// A group's figures: runs, verdicts, cost, tokens (over every model),
/// tool calls and errors, subagents, api retries.
fn group_json(g: &RunTotals) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("runs".into(), json!(g.runs));
    o.insert("verdicts".into(), g.verdicts_json());
    o.insert("total_cost_usd".into(), g.cost.value().to_json());
    o.insert("tokens".into(), tokens_json(&g.all_models()));
    o.insert("main".into(), tokens_json(&g.main));
    o.insert("subagents_tokens".into(), tokens_json(&g.subagents));
    let (calls, errors) = g.tool_calls();
    o.insert("tool_calls".into(), json!(calls));
    o.insert("tool_errors".into(), json!(errors));
    o.insert("subagents".into(), json!(g.subagent_count));
    o.insert("api_retries".into(), json!(g.api_retries));
    // ccusage's `modelBreakdowns`: the group's figures per model.
    o.insert("by_model".into(), g.by_model_json());
    o
}

/// The counts of [`Stats`] as JSON; `formats` (the total's) after `files`.
fn stats_json(
    s: &Stats,
    names: &[String],
    formats: Option<&BTreeMap<&'static str, u64>>,
) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("files".into(), json!(s.files));
    if let Some(f) = formats {
        o.insert("formats".into(), json!(f));
    }
    o.insert("bytes".into(), json!(s.bytes));
    o.insert("lines".into(), json!(s.counts.lines));
    o.insert("blank_lines".into(), json!(s.counts.blank_lines));
    o.insert("events".into(), json!(s.counts.events));
    o.insert("by_type".into(), json!(s.by_type()));
    o.insert("unknown".into(), json!(s.unknown()));
    o.insert("error_count".into(), json!(s.counts.errors));
    let errors: Vec<Value> = s
        .errors
        .iter()
        .map(|e| {
            json!({
                "file": names.get(e.file).map(String::as_str).unwrap_or("?"),
                "line": e.line,
                "offset": e.offset,
                "column": e.column,
                "kind": e.kind,
                "message": e.message,
            })
        })
        .collect();
    o.insert("errors".into(), Value::Array(errors));
    o
}

/// `{"sessions", "projects", "records", "records_by_type", "requests",
/// "undated_requests", "main", "subagents", "unpriced_models", "prices":
/// {"taken", "source"}, "time_zone"}` (`main` and `subagents`: the four
/// counts of the sessions' main chains and subagents, included in the
/// report's `usage`).
/// A record kind's name in counts: `type` or `type/subtype`, `system` for
/// other system subtypes, `other` for other types.
pub(crate) fn kind_name(k: RecordKind) -> &'static str {
    k.name().unwrap_or(match k {
        RecordKind::SystemOther => "system",
        _ => "other",
    })
}

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
        let r = s.to_run();
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
