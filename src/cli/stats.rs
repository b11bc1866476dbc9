//! `cctape stats`: counts and sums over every input — lines, events by kind,
//! errors with positions, runs and verdicts, tokens and cost per model,
//! tools, subagents, api retries — for people, as JSON or as CSV, optionally
//! grouped by file, session, model, version or day.

use super::exec::{self, Done, Piece, Sink, Split};
use super::human::{Align, Table, clean, count, money_sum};
use super::output::{human_bytes, print_json, thousands};
use super::shape::{NoEvents, Shape};
use super::{Common, expand};
use cctape::error::{Error, ErrorKind};
use cctape::event::parse_event;
use cctape::framing::Line;
use cctape::parse::Parser;
use cctape::run::{ModelRole, RunFolder, RunSummary, RunTotals, Verdict};
use cctape::stats::{PrunedReader, Stats};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How `--by` groups rows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// One row per input file.
    File,
    /// One row per run (session_id).
    Session,
    /// One row per model and role (from each run's `modelUsage`, each run
    /// giving each model its role in that run).
    Model,
    /// One row per claude_code_version.
    Version,
    /// One row per UTC day the run started.
    Day,
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
    /// Build the full tape of every line. By default a long line's tool
    /// results and tool inputs are read only as far as stats need them (ids,
    /// flags, the first 256 bytes of each string); the figures are the same.
    #[arg(long)]
    exact: bool,
    #[command(flatten)]
    common: Common,
}

struct StatsSink {
    stats: Stats,
    runs: RunFolder,
    exact: bool,
    parser: Parser,
    /// The default read: long lines with long tool payloads are read from a
    /// pruned copy (see `cctape::stats::PrunedReader`).
    reader: PrunedReader,
    by: Option<By>,
    /// Runs already summed (drained when long over, or at the end).
    figures: RunFigures,
    since_drain: u32,
    /// The first lines that were not events (for inputs without events).
    shape: Shape,
}

/// Runs with a result and no line in the last this many lines are summed
/// and dropped, so a long stream is read in bounded memory.
const IDLE_LINES: u64 = 50_000;

impl StatsSink {
    fn new(exact: bool, by: Option<By>) -> StatsSink {
        StatsSink {
            stats: Stats::new(),
            runs: RunFolder::new(),
            exact,
            parser: Parser::new(),
            reader: PrunedReader::new(),
            by,
            figures: RunFigures::default(),
            since_drain: 0,
            shape: Shape::default(),
        }
    }

    fn take_run(&mut self, p: &Piece<'_>, r: &RunSummary) {
        self.figures.add(p.input, p.name, r, self.by);
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

impl Sink for StatsSink {
    fn reads_lines(&self) -> bool {
        true
    }

    /// Stats read every field they need from the tape, but a tool result's
    /// or a tool input's long strings only as far as their first bytes: a
    /// long line is validated by the scanner and, when pruning applies,
    /// its tape is built from the pruned copy (see `cctape::scan::prune_into`).
    fn line(&mut self, p: &Piece<'_>, line: &Line<'_>, _: &mut Vec<u8>) -> Result<(), Error> {
        self.drain_idle(p, line.number);
        let ev = if self.exact {
            parse_event(&mut self.parser, line)?
        } else {
            self.reader.read(&mut self.parser, line)?
        };
        self.stats.record_event(&ev);
        self.runs.push(&ev);
        Ok(())
    }

    fn error(&mut self, p: &Piece<'_>, e: &Error, line: Option<&[u8]>, _: &mut Vec<u8>) {
        self.stats.record_error(p.input, e);
        self.runs.push_error(e);
        self.shape.note(line);
    }

    fn split(&self) -> Split {
        // Runs are folded in order: one input on one worker (see exec).
        Split::Never
    }
}

/// A group of `--by`: its key, and for `--by model` the role.
type GroupKey = (String, Option<ModelRole>);

/// Everything `stats` reports about runs: the library's totals, over all
/// runs and per group.
#[derive(Clone, Debug, Default)]
struct RunFigures {
    all: RunTotals,
    groups: BTreeMap<GroupKey, RunTotals>,
}

impl RunFigures {
    fn add(&mut self, input: usize, file: &str, r: &RunSummary, by: Option<By>) {
        if r.events == 0 {
            // Bad lines alone are not a run (they are counted as errors).
            return;
        }
        self.all.add_from(r, input);
        let Some(by) = by else { return };
        if by == By::Model {
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
        let key = match by {
            By::File => file.to_string(),
            By::Session => r.session_id.clone().unwrap_or_else(|| "-".into()),
            By::Version => r
                .claude_code_version
                .clone()
                .unwrap_or_else(|| "unknown".into()),
            By::Day => r
                .started_at
                .as_deref()
                .and_then(|t| t.get(..10))
                .unwrap_or("unknown")
                .to_string(),
            // Handled above: a run adds one row per model it used.
            By::Model => return,
        };
        self.groups
            .entry((key, None))
            .or_default()
            .add_from(r, input);
    }

    fn merge(&mut self, o: &RunFigures) {
        self.all.merge(&o.all, 0);
        for (k, g) in &o.groups {
            self.groups.entry(k.clone()).or_default().merge(g, 0);
        }
    }

    /// The groups in the order they are printed: versions in semantic
    /// order (2.1.41 before 2.1.238), everything else by key.
    fn ordered(&self, by: By) -> Vec<(&GroupKey, &RunTotals)> {
        let mut v: Vec<_> = self.groups.iter().collect();
        if by == By::Version {
            v.sort_by(|a, b| super::human::version_order(&a.0.0, &b.0.0));
        }
        v
    }
}

#[derive(Default)]
struct FileFigures {
    stats: Stats,
    runs: RunFigures,
    shape: Shape,
}

/// Add a finished piece to its file's figures; true when the input failed.
fn absorb(f: &mut FileFigures, done: Done<StatsSink>) -> bool {
    let mut s = done.sink.stats;
    s.bytes += done.bytes;
    s.counts.add(&done.counts);
    let failed = done.failure.is_some();
    if let (Some(e), true) = (&done.failure, done.unreadable) {
        // Counted by the driver; the sink never saw it.
        s.record_error(done.input, e);
    }
    if done.last {
        s.files += 1;
    }
    f.stats.merge(&s, 0);
    f.runs.merge(&done.sink.figures);
    f.shape.append(&done.sink.shape);
    failed
}

/// Inputs without events, by what they look like.
#[derive(Default)]
struct NoEventInputs {
    by_format: BTreeMap<&'static str, u64>,
    inputs: Vec<(String, NoEvents)>,
}

impl NoEventInputs {
    fn count(&self) -> u64 {
        self.by_format.values().sum()
    }

    fn to_json(&self) -> Value {
        json!({
            "count": self.count(),
            "by_format": self.by_format,
            "inputs": self.inputs.iter().take(100).map(|(f, n)| json!({
                "file": f,
                "format": n.format,
                "first_line": n.first_line,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Run the command; returns the exit code: 0, or 2 when an input could not
/// be read (or a usage error). `stats` is a report: failed runs are what it
/// counts, not a failure of the command (`cctape verdict` exits 1 for
/// them), so a report over a folder with failures still exits 0.
pub fn run(args: &Args) -> i32 {
    let (inputs, mut failed) = expand(&args.common);
    let opts = exec::Opts::new(&args.common);
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let by = match (args.by, args.csv) {
        (None, true) => Some(By::File),
        (b, _) => b,
    };
    let mut per_file: Vec<FileFigures> =
        (0..inputs.len()).map(|_| FileFigures::default()).collect();
    exec::run(
        &inputs,
        &opts,
        || StatsSink::new(args.exact, by),
        |mut done: Done<StatsSink>| {
            let i = done.input;
            let piece = Piece {
                input: i,
                name: &names[i],
            };
            done.sink.finish_runs(&piece);
            failed |= absorb(&mut per_file[i], done);
        },
    );
    let mut total = FileFigures::default();
    let mut no_events = NoEventInputs::default();
    for (f, name) in per_file.iter().zip(&names) {
        total.stats.merge(&f.stats, 0);
        total.runs.merge(&f.runs);
        if f.stats.counts.events == 0
            && f.stats.files > 0
            && !f
                .stats
                .errors
                .iter()
                .any(|e| e.kind == ErrorKind::Io.name())
        {
            let n = f.shape.describe();
            *no_events.by_format.entry(n.format).or_default() += 1;
            no_events.inputs.push((name.clone(), n));
        }
    }
    if args.json {
        let mut obj = stats_json(&total.stats, &names);
        obj.insert("inputs_without_events".into(), no_events.to_json());
        runs_json(&total.runs.all, &names, &mut obj);
        if let Some(by) = by {
            let groups: Vec<Value> = total
                .runs
                .ordered(by)
                .into_iter()
                .map(|((k, role), g)| {
                    let mut o = Map::new();
                    o.insert("key".into(), json!(k));
                    if let Some(role) = role {
                        o.insert("role".into(), json!(role.as_str()));
                    }
                    o.extend(group_json(g));
                    Value::Object(o)
                })
                .collect();
            obj.insert("groups".into(), Value::Array(groups));
        }
        let files: Vec<Value> = per_file
            .iter()
            .zip(&names)
            .map(|(f, n)| {
                let mut o = Map::new();
                o.insert("file".into(), json!(n));
                o.extend(stats_json(&f.stats, &names));
                runs_json(&f.runs.all, &names, &mut o);
                Value::Object(o)
            })
            .collect();
        obj.insert("per_file".into(), Value::Array(files));
        print_json(&Value::Object(obj));
    } else if args.csv {
        let by = by.unwrap_or(By::File);
        if let Err(e) = print_csv(&total.runs, by) {
            eprintln!("cctape: writing CSV: {e}");
            return 2;
        }
    } else {
        let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
        print_human(&total, &shown, by, &no_events);
    }
    if failed { 2 } else { 0 }
}

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
    o.insert("tokens".into(), cctape::run::tokens_json(&g.all_models()));
    o.insert("main".into(), cctape::run::tokens_json(&g.main));
    o.insert(
        "subagents_tokens".into(),
        cctape::run::tokens_json(&g.subagents),
    );
    let (calls, errors) = g.tool_calls();
    o.insert("tool_calls".into(), json!(calls));
    o.insert("tool_errors".into(), json!(errors));
    o.insert("subagents".into(), json!(g.subagent_count));
    o.insert("api_retries".into(), json!(g.api_retries));
    o
}

fn stats_json(s: &Stats, names: &[String]) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("files".into(), json!(s.files));
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

/// CSV columns after the group's key (and role), `runs` and the verdicts.
const CSV_COLUMNS: [&str; 13] = [
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

/// One row per group, written with the `csv` crate. For `--by model` the
/// second column is the role; the tokens are then the model's in that role.
fn print_csv(f: &RunFigures, by: By) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec![by_name(by)];
    if by == By::Model {
        header.push("role");
    }
    header.push("runs");
    header.extend(Verdict::ALL.iter().map(|v| v.as_str()));
    header.extend(CSV_COLUMNS);
    w.write_record(&header)?;
    for ((k, role), g) in f.ordered(by) {
        let mut rec: Vec<String> = vec![k.clone()];
        if let Some(role) = role {
            rec.push(role.as_str().to_string());
        }
        rec.push(g.runs.to_string());
        rec.extend(g.verdicts.iter().map(u64::to_string));
        rec.push(match g.cost.value() {
            cctape::run::SumValue::Finite(c) => c.to_string(),
            cctape::run::SumValue::Beyond(t) => t,
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
        w.write_record(&rec)?;
    }
    let mut out = w.into_inner().map_err(|e| e.into_error())?;
    exec::write_out(&mut out);
    Ok(())
}

fn by_name(by: By) -> &'static str {
    match by {
        By::File => "file",
        By::Session => "session",
        By::Model => "model",
        By::Version => "version",
        By::Day => "day",
    }
}

/// A token count for people, `≥` in front when some run's figure is a lower
/// bound.
fn tokens_cell(n: u64, lower: bool) -> String {
    format!("{}{}", if lower { "≥" } else { "" }, thousands(n))
}

fn print_human(total: &FileFigures, names: &[String], by: Option<By>, no_events: &NoEventInputs) {
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
    if no_events.count() > 0 {
        let kinds: Vec<String> = no_events
            .by_format
            .iter()
            .map(|(k, n)| format!("{} {k}", thousands(*n)))
            .collect();
        let _ = writeln!(
            o,
            "{} without events, not counted as runs: {}",
            count(no_events.count(), "input", "inputs"),
            kinds.join(", ")
        );
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
        for (name, tk, calls, lower) in [
            ("main", &r.main, r.main_messages, r.main_lower_bound_runs),
            (
                "subagents",
                &r.subagents,
                r.subagent_messages,
                r.subagents_lower_bound_runs,
            ),
        ] {
            t.row(vec![
                name.to_string(),
                thousands(calls),
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
        let list = |m: &BTreeMap<String, u64>| -> String {
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
        let mut header = vec![(by_name(by), Align::Left)];
        if by == By::Model {
            header.push(("role", Align::Left));
        }
        header.extend([
            ("runs", Align::Right),
            ("failed", Align::Right),
            ("cost $", Align::Right),
            ("output tokens", Align::Right),
            ("tool calls", Align::Right),
            ("subagents", Align::Right),
            ("api retries", Align::Right),
        ]);
        let mut t = Table::new(&header);
        for ((k, role), g) in total.runs.ordered(by) {
            let mut row = vec![clean(k)];
            if let Some(role) = role {
                row.push(role.as_str().to_string());
            }
            row.extend([
                thousands(g.runs),
                thousands(g.failed()),
                money_sum(&g.cost.value()),
                thousands(g.all_models().output_tokens),
                thousands(g.tool_calls().0),
                thousands(g.subagent_count),
                thousands(g.api_retries),
            ]);
            t.row(row);
        }
        let _ = write!(o, "\nby {}\n{}", by_name(by), t.render());
    }
    if !s.errors.is_empty() {
        let _ = writeln!(
            o,
            "\nerrors (first {} of {})",
            thousands(s.errors.len() as u64),
            thousands(s.counts.errors)
        );
        for e in &s.errors {
            let name = names.get(e.file).map(String::as_str).unwrap_or("?");
            let at = match e.column {
                Some(c) if e.kind != ErrorKind::Io.name() => format!(", column {c}"),
                _ => String::new(),
            };
            let _ = writeln!(
                o,
                "  {}:{}: byte {}{at}: {}: {}",
                clean(name),
                e.line,
                e.offset,
                e.kind,
                clean(&e.message)
            );
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
