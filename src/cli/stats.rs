//! `cctape stats`: counts and sums over every input — lines, events by kind,
//! errors with positions, runs and verdicts, tokens and cost per model,
//! tools, subagents, api retries — for people, as JSON or as CSV, optionally
//! grouped by file, session, model, version or day.

use super::exec::{self, Done, Piece, Sink, Split};
use super::inputs::escape;
use super::output::{csv_cell, human_bytes, print_json, thousands};
use super::{Common, expand};
use cctape::error::{Error, ErrorKind};
use cctape::event::{TokenCounts, parse_event};
use cctape::framing::Line;
use cctape::parse::Parser;
use cctape::run::{RunFolder, RunSummary, Verdict};
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
    /// One row per model (from each run's `modelUsage`).
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
        }
    }

    fn take_run(&mut self, name: &str, r: &RunSummary) {
        self.figures.add(name, r, self.by);
    }

    /// Sum the runs long over (every 4096 lines).
    fn drain_idle(&mut self, name: &str, line: u64) {
        self.since_drain += 1;
        if self.since_drain < 4096 {
            return;
        }
        self.since_drain = 0;
        for r in self.runs.drain_idle(line.saturating_sub(IDLE_LINES)) {
            self.take_run(name, &r);
        }
    }

    /// Sum every run left, at the end of the piece.
    fn finish_runs(&mut self, name: &str) {
        for r in std::mem::take(&mut self.runs).finish() {
            self.take_run(name, &r);
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
        self.drain_idle(p.name, line.number);
        let ev = if self.exact {
            parse_event(&mut self.parser, line)?
        } else {
            self.reader.read(&mut self.parser, line)?
        };
        self.stats.record_event(&ev);
        self.runs.push(&ev);
        Ok(())
    }

    fn error(&mut self, p: &Piece<'_>, e: &Error, _: Option<&[u8]>, _: &mut Vec<u8>) {
        self.stats.record_error(p.input, e);
        self.runs.push_error(e);
    }

    fn split(&self) -> Split {
        // Runs are folded in order: one input on one worker (see exec).
        Split::Never
    }
}

/// Figures summed over runs.
#[derive(Clone, Debug, Default)]
struct Group {
    runs: u64,
    verdicts: BTreeMap<&'static str, u64>,
    cost: f64,
    tokens: TokenCounts,
    tool_calls: u64,
    tool_errors: u64,
    subagents: u64,
    api_retries: u64,
}

impl Group {
    fn add_run(&mut self, r: &RunSummary) {
        self.runs += 1;
        *self.verdicts.entry(r.verdict.as_str()).or_default() += 1;
        self.cost += r.cost.total_cost_usd.unwrap_or(0.0);
        self.tokens.add(&run_tokens(r));
        self.tool_calls += r.tools.iter().map(|t| t.calls).sum::<u64>();
        self.tool_errors += r.tools.iter().map(|t| t.errors).sum::<u64>();
        self.subagents += r.subagents.len() as u64;
        self.api_retries += r.api_retries.count;
    }

    fn merge(&mut self, o: &Group) {
        self.runs += o.runs;
        for (k, n) in &o.verdicts {
            *self.verdicts.entry(k).or_default() += n;
        }
        self.cost += o.cost;
        self.tokens.add(&o.tokens);
        self.tool_calls += o.tool_calls;
        self.tool_errors += o.tool_errors;
        self.subagents += o.subagents;
        self.api_retries += o.api_retries;
    }

    fn to_json(&self) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("runs".into(), json!(self.runs));
        o.insert("verdicts".into(), verdicts_json(&self.verdicts));
        o.insert("total_cost_usd".into(), json!(self.cost));
        o.insert("tokens".into(), tokens_json(&self.tokens));
        o.insert("tool_calls".into(), json!(self.tool_calls));
        o.insert("tool_errors".into(), json!(self.tool_errors));
        o.insert("subagents".into(), json!(self.subagents));
        o.insert("api_retries".into(), json!(self.api_retries));
        o
    }
}

/// A run's tokens over every model: `modelUsage` when the run has it (it
/// covers subagents and auxiliary calls), the per-call sums otherwise.
fn run_tokens(r: &RunSummary) -> TokenCounts {
    if r.usage.by_model.is_empty() {
        let mut t = r.usage.main.tokens;
        t.add(&r.usage.subagents.tokens);
        t
    } else {
        let mut t = r.usage.models;
        t.add(&r.usage.auxiliary);
        t
    }
}

fn tokens_json(t: &TokenCounts) -> Value {
    json!({
        "input_tokens": t.input_tokens,
        "output_tokens": t.output_tokens,
        "cache_read_input_tokens": t.cache_read_input_tokens,
        "cache_creation_input_tokens": t.cache_creation_input_tokens,
    })
}

fn verdicts_json(v: &BTreeMap<&'static str, u64>) -> Value {
    let mut o = Map::new();
    for verdict in Verdict::ALL {
        o.insert(
            verdict.as_str().into(),
            json!(v.get(verdict.as_str()).copied().unwrap_or(0)),
        );
    }
    Value::Object(o)
}

#[derive(Clone, Debug, Default)]
struct ModelRow {
    runs: u64,
    tokens: TokenCounts,
    cost: f64,
    auxiliary: bool,
}

#[derive(Clone, Debug, Default)]
struct ToolRow {
    calls: u64,
    errors: u64,
    rejections: u64,
}

/// Everything `stats` reports about runs.
#[derive(Clone, Debug, Default)]
struct RunFigures {
    all: Group,
    main: TokenCounts,
    subagent_tokens: TokenCounts,
    models: BTreeMap<String, ModelRow>,
    tools: BTreeMap<String, ToolRow>,
    subagent_types: BTreeMap<String, u64>,
    warnings: BTreeMap<String, u64>,
    groups: BTreeMap<String, Group>,
}

impl RunFigures {
    fn add(&mut self, file: &str, r: &RunSummary, by: Option<By>) {
        self.all.add_run(r);
        self.main.add(&r.usage.main.tokens);
        self.subagent_tokens.add(&r.usage.subagents.tokens);
        let mut models: Vec<(String, TokenCounts, f64, bool)> = r
            .usage
            .by_model
            .iter()
            .map(|m| {
                (
                    m.model.clone(),
                    m.tokens,
                    m.cost_usd.unwrap_or(0.0),
                    m.auxiliary,
                )
            })
            .collect();
        if models.is_empty()
            && let Some(m) = &r.model
        {
            let mut t = r.usage.main.tokens;
            t.add(&r.usage.subagents.tokens);
            let cost = r.cost.total_cost_usd.unwrap_or(0.0);
            models.push((m.clone(), t, cost, false));
        }
        for (name, t, cost, aux) in &models {
            let row = self.models.entry(name.clone()).or_default();
            row.runs += 1;
            row.tokens.add(t);
            row.cost += cost;
            row.auxiliary |= *aux;
        }
        for t in &r.tools {
            let row = self.tools.entry(t.name.clone()).or_default();
            row.calls += t.calls;
            row.errors += t.errors;
            row.rejections += t.rejections;
        }
        for s in &r.subagents {
            let ty = s
                .subagent_type
                .clone()
                .or_else(|| s.task_type.clone())
                .unwrap_or_else(|| "unknown".into());
            *self.subagent_types.entry(ty).or_default() += 1;
        }
        for w in &r.warnings {
            *self.warnings.entry(w.code.to_string()).or_default() += 1;
        }
        let Some(by) = by else { return };
        if by == By::Model {
            for (name, t, cost, _) in &models {
                let g = self.groups.entry(name.clone()).or_default();
                g.runs += 1;
                *g.verdicts.entry(r.verdict.as_str()).or_default() += 1;
                g.tokens.add(t);
                g.cost += cost;
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
        self.groups.entry(key).or_default().add_run(r);
    }

    fn merge(&mut self, o: &RunFigures) {
        self.all.merge(&o.all);
        self.main.add(&o.main);
        self.subagent_tokens.add(&o.subagent_tokens);
        for (k, m) in &o.models {
            let row = self.models.entry(k.clone()).or_default();
            row.runs += m.runs;
            row.tokens.add(&m.tokens);
            row.cost += m.cost;
            row.auxiliary |= m.auxiliary;
        }
        for (k, t) in &o.tools {
            let row = self.tools.entry(k.clone()).or_default();
            row.calls += t.calls;
            row.errors += t.errors;
            row.rejections += t.rejections;
        }
        for (k, n) in &o.subagent_types {
            *self.subagent_types.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &o.warnings {
            *self.warnings.entry(k.clone()).or_default() += n;
        }
        for (k, g) in &o.groups {
            self.groups.entry(k.clone()).or_default().merge(g);
        }
    }

    fn to_json(&self, o: &mut Map<String, Value>) {
        o.insert("runs".into(), json!(self.all.runs));
        o.insert("verdicts".into(), verdicts_json(&self.all.verdicts));
        o.insert("total_cost_usd".into(), json!(self.all.cost));
        let mut usage = Map::new();
        usage.insert("main".into(), tokens_json(&self.main));
        usage.insert("subagents".into(), tokens_json(&self.subagent_tokens));
        usage.insert("all_models".into(), tokens_json(&self.all.tokens));
        o.insert("usage".into(), Value::Object(usage));
        let models: Map<String, Value> = self
            .models
            .iter()
            .map(|(k, m)| {
                let mut v = tokens_json(&m.tokens);
                if let Value::Object(ref mut vo) = v {
                    vo.insert("runs".into(), json!(m.runs));
                    vo.insert("cost_usd".into(), json!(m.cost));
                    vo.insert("auxiliary".into(), json!(m.auxiliary));
                }
                (k.clone(), v)
            })
            .collect();
        o.insert("by_model".into(), Value::Object(models));
        let tools: Map<String, Value> = self
            .tools
            .iter()
            .map(|(k, t)| {
                (
                    k.clone(),
                    json!({"calls": t.calls, "errors": t.errors, "rejections": t.rejections}),
                )
            })
            .collect();
        o.insert("tools".into(), Value::Object(tools));
        o.insert(
            "subagents".into(),
            json!({"count": self.all.subagents, "by_type": self.subagent_types}),
        );
        o.insert("api_retries".into(), json!(self.all.api_retries));
        o.insert("warnings".into(), json!(self.warnings));
    }
}

#[derive(Default)]
struct FileFigures {
    stats: Stats,
    runs: RunFigures,
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
    failed
}

/// Run the command; returns the exit code (2 when an input could not be read).
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
            done.sink.finish_runs(&names[i]);
            failed |= absorb(&mut per_file[i], done);
        },
    );
    let mut total = FileFigures::default();
    for f in &per_file {
        total.stats.merge(&f.stats, 0);
        total.runs.merge(&f.runs);
    }
    if args.json {
        let mut obj = stats_json(&total.stats, &names);
        total.runs.to_json(&mut obj);
        if by.is_some() {
            let groups: Vec<Value> = total
                .runs
                .groups
                .iter()
                .map(|(k, g)| {
                    let mut o = Map::new();
                    o.insert("key".into(), json!(k));
                    o.extend(g.to_json());
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
                f.runs.to_json(&mut o);
                o.remove("groups");
                Value::Object(o)
            })
            .collect();
        obj.insert("per_file".into(), Value::Array(files));
        print_json(&Value::Object(obj));
    } else if args.csv {
        print_csv(&total.runs.groups, by.unwrap_or(By::File));
    } else {
        let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
        print_human(&total, &shown, by);
    }
    if failed { 2 } else { 0 }
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

const CSV_HEADER: &str = "runs,success,max_turns,max_budget,interrupted,error,no_result,startup_failure,total_cost_usd,input_tokens,output_tokens,cache_read_input_tokens,cache_creation_input_tokens,tool_calls,tool_errors,subagents,api_retries";

fn print_csv(groups: &BTreeMap<String, Group>, by: By) {
    let mut o = String::new();
    let _ = writeln!(o, "{},{CSV_HEADER}", by_name(by));
    for (k, g) in groups {
        let mut cell = Vec::new();
        csv_cell(k.as_bytes(), &mut cell);
        o.push_str(&String::from_utf8_lossy(&cell));
        let _ = write!(o, ",{}", g.runs);
        for v in Verdict::ALL {
            let _ = write!(o, ",{}", g.verdicts.get(v.as_str()).copied().unwrap_or(0));
        }
        let t = &g.tokens;
        let _ = writeln!(
            o,
            ",{},{},{},{},{},{},{},{},{}",
            g.cost,
            t.input_tokens,
            t.output_tokens,
            t.cache_read_input_tokens,
            t.cache_creation_input_tokens,
            g.tool_calls,
            g.tool_errors,
            g.subagents,
            g.api_retries
        );
    }
    exec::write_out(&mut o.into_bytes());
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

fn print_human(total: &FileFigures, names: &[String], by: Option<By>) {
    let s = &total.stats;
    let r = &total.runs;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} files, {}, {} lines ({} blank), {} events, {} errors",
        thousands(s.files),
        human_bytes(s.bytes),
        thousands(s.counts.lines),
        thousands(s.counts.blank_lines),
        thousands(s.counts.events),
        thousands(s.counts.errors),
    );
    let verdicts: Vec<String> = Verdict::ALL
        .iter()
        .filter_map(|v| {
            let n = r.all.verdicts.get(v.as_str()).copied().unwrap_or(0);
            (n > 0).then(|| format!("{} {}", thousands(n), v.as_str()))
        })
        .collect();
    let _ = writeln!(
        o,
        "{} runs: {}; cost ${:.4}",
        thousands(r.all.runs),
        if verdicts.is_empty() {
            "-".to_string()
        } else {
            verdicts.join(", ")
        },
        r.all.cost
    );
    let by_type = s.by_type();
    if !by_type.is_empty() {
        let mut rows: Vec<_> = by_type.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let _ = writeln!(o, "\nevents by type");
        for (k, n) in rows {
            let _ = writeln!(o, "  {k:<w$}  {:>10}", thousands(n));
        }
    }
    if !r.models.is_empty() {
        let w = r.models.keys().map(String::len).max().unwrap_or(0).max(5);
        let _ = writeln!(
            o,
            "\ntokens and cost by model\n  {:<w$}  {:>6}  {:>12}  {:>12}  {:>14}  {:>14}  {:>10}",
            "model", "runs", "input", "output", "cache read", "cache write", "cost $"
        );
        for (k, m) in &r.models {
            let t = &m.tokens;
            let _ = writeln!(
                o,
                "  {:<w$}  {:>6}  {:>12}  {:>12}  {:>14}  {:>14}  {:>10.4}{}",
                k,
                thousands(m.runs),
                thousands(t.input_tokens),
                thousands(t.output_tokens),
                thousands(t.cache_read_input_tokens),
                thousands(t.cache_creation_input_tokens),
                m.cost,
                if m.auxiliary { "  (auxiliary)" } else { "" }
            );
        }
    }
    if !r.tools.is_empty() {
        let mut rows: Vec<_> = r.tools.iter().collect();
        rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(4);
        let _ = writeln!(
            o,
            "\ntools\n  {:<w$}  {:>8}  {:>8}  {:>10}",
            "tool", "calls", "errors", "rejected"
        );
        for (k, t) in rows {
            let _ = writeln!(
                o,
                "  {k:<w$}  {:>8}  {:>8}  {:>10}",
                thousands(t.calls),
                thousands(t.errors),
                thousands(t.rejections)
            );
        }
    }
    if !r.subagent_types.is_empty() || r.all.api_retries > 0 {
        let _ = writeln!(o);
        if !r.subagent_types.is_empty() {
            let list: Vec<String> = r
                .subagent_types
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let _ = writeln!(o, "subagents: {} ({})", r.all.subagents, list.join(", "));
        }
        let _ = writeln!(o, "api retries: {}", thousands(r.all.api_retries));
    }
    let unknown = s.unknown();
    if !unknown.is_empty() {
        let _ = writeln!(o, "\nkinds without a typed view");
        for (k, n) in unknown {
            let _ = writeln!(o, "  {k}  {}", thousands(n));
        }
    }
    if let Some(by) = by {
        let w = r.groups.keys().map(String::len).max().unwrap_or(0).max(5);
        let _ = writeln!(
            o,
            "\nby {}\n  {:<w$}  {:>6}  {:>8}  {:>10}  {:>14}  {:>8}",
            by_name(by),
            "key",
            "runs",
            "failed",
            "cost $",
            "output tokens",
            "tools"
        );
        for (k, g) in &r.groups {
            let ok = g.verdicts.get("success").copied().unwrap_or(0);
            let k = escape(k);
            let _ = writeln!(
                o,
                "  {k:<w$}  {:>6}  {:>8}  {:>10.4}  {:>14}  {:>8}",
                thousands(g.runs),
                thousands(g.runs - ok),
                g.cost,
                thousands(g.tokens.output_tokens),
                thousands(g.tool_calls)
            );
        }
    }
    if !s.errors.is_empty() {
        let _ = writeln!(
            o,
            "\nerrors (first {} of {})",
            s.errors.len(),
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
                "  {name}:{}: byte {}{at}: {}: {}",
                e.line, e.offset, e.kind, e.message
            );
        }
    }
    exec::write_out(&mut o.into_bytes());
}
