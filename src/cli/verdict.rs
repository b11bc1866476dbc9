//! `cctape verdict`: one record per run, and an exit code a harness can act
//! on as it acts on grep's and diff's: 0 every run succeeded, 1 some run did
//! not (a failure, no result, an input without events), 2 only for usage
//! errors and inputs that could not be read.
//!
//! On a terminal each run is one line for people; piped, or with `--json`,
//! one JSON object per run per line, keys in the stable order documented in
//! `docs/accounting.md` (`verdict`, `ok`, `file` first); the records are
//! composed by the library ([`cctape::report`]).
//!
//! A stream's records are written as its runs end: a run long over (a
//! result, and no line of it in the last [`cctape::run::IDLE_LINES`]) as
//! the input is read, in the order the runs began, the rest when the input
//! ends, so one input of many runs is judged in bounded memory.
//!
//! Every format is read: JSON arrays and pretty captures give their runs;
//! a text output is one record, whose verdict is its last line when that
//! is the CLI's own final error (`Error: Reached max turns (30)`); session
//! transcripts are folded across inputs (a session's subagent files are
//! other inputs) and each session's record comes after every input is
//! read.

use super::exec::{self, BadLine, Done, Item, Piece, Reads, Sink};
use super::human::{clean, count, money_sum, seconds};
use super::inputs::shown_path;
use super::output::{thousands, write_json_value};
use super::project::Project;
use super::reading::{Costing, Days, ReadAs, Transcripts};
use super::{Common, expand};
use cctape::error::Error;
use cctape::report::{
    NoEvents, no_events_record, no_events_run, run_record, session_record, unreadable_record,
};
use cctape::run::{RunSummary, RunTotals, Verdict};
use cctape::sniff::Format;
use cctape::time::{Day, DayRange, Zone};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Arguments of `cctape verdict`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The claude process's exit code: non-zero means failed whatever the
    /// stream says; zero over a failed run is a warning. Applies to the last
    /// run of each input (the run the exiting process wrote last).
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "exit_codes"
    )]
    exit_code: Option<i32>,
    /// Exit codes of many inputs at once: a file of `PATH<TAB>CODE` lines
    /// (blank lines and lines starting with `#` skipped). PATH names an
    /// input as given or found in a directory (compared as written, else
    /// as the same file); each code applies as `--exit-code` does to that
    /// input alone.
    #[arg(long, value_name = "FILE")]
    exit_codes: Option<PathBuf>,
    /// JSON records even on a terminal (they are the default when standard
    /// output is not a terminal).
    #[arg(long)]
    json: bool,
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
    /// With -F: each run's verdict as it ends (see `cctape watch`).
    #[command(flatten)]
    live: super::watch::LiveArgs,
}

/// How the runs of a stream are written as they end: shared by the sinks.
struct Emit<'a> {
    json: bool,
    shown: &'a [String],
    range: &'a DayRange,
    zone: &'a Zone,
}

impl Emit<'_> {
    /// Kept by `--since`/`--until`: by the day the run started.
    fn kept(&self, r: &RunSummary) -> bool {
        self.range.is_all()
            || self.range.contains(
                r.started_at
                    .as_deref()
                    .and_then(|t| Day::of_timestamp(t, self.zone)),
            )
    }
}

struct VerdictSink<'a> {
    emit: &'a Emit<'a>,
    runs: exec::PerRun,
    /// The runs already written (long over, handed out in order while the
    /// input is read), for the closing line.
    written: RunTotals,
    written_not_ok: bool,
}

impl<'a> VerdictSink<'a> {
    fn new(emit: &'a Emit<'a>) -> VerdictSink<'a> {
        VerdictSink {
            emit,
            runs: exec::PerRun::default(),
            written: RunTotals::new(),
            written_not_ok: false,
        }
    }
}

impl VerdictSink<'_> {
    /// The input's runs, and what is done with a run long over: written
    /// (when `--since`/`--until` keep it) and counted for the closing line.
    fn over<'s>(
        &'s mut self,
        p: &'s Piece<'_>,
        out: &'s mut Vec<u8>,
    ) -> (&'s mut exec::PerRun, impl FnMut(RunSummary) + 's) {
        let (emit, written, not_ok) = (self.emit, &mut self.written, &mut self.written_not_ok);
        let over = move |r: RunSummary| {
            if emit.kept(&r) {
                *not_ok |= !r.ok();
                written.add(&r);
                write_run(emit, p, &r, out);
            }
        };
        (&mut self.runs, over)
    }
}

/// One run's record, as JSON or as a line for people.
fn write_run(emit: &Emit<'_>, p: &Piece<'_>, r: &RunSummary, out: &mut Vec<u8>) {
    if emit.json {
        write_json_value(&run_record(r, p.name), out);
    } else {
        let shown = emit.shown.get(p.input).map_or(p.name, String::as_str);
        out.extend_from_slice(human_line(shown, r).as_bytes());
    }
}

impl Sink for VerdictSink<'_> {
    /// Whole events, parsed ahead on the pool for a large file.
    fn reads(&self) -> Reads {
        Reads::FOLDS
    }

    fn format(&mut self, p: &Piece<'_>, format: Format) {
        self.runs.format(p, format);
    }

    /// A run long over is written as the input is read
    /// ([`exec::PerRun`]); never the input's last run, which
    /// `--exit-code` may still change.
    #[inline(always)]
    fn item(&mut self, p: &Piece<'_>, item: Item<'_, '_>, out: &mut Vec<u8>) {
        let (runs, mut over) = self.over(p, out);
        runs.item(item, &mut over);
    }

    /// A stream's runs may be folded apart: nothing but the folder sees
    /// its events.
    fn apart(&self) -> Option<exec::Apart> {
        self.runs.apart(false)
    }

    fn adopt(&mut self, p: &Piece<'_>, part: &mut exec::Apart, out: &mut Vec<u8>) -> bool {
        let (runs, mut over) = self.over(p, out);
        runs.adopt(part, &mut over)
    }

    /// A bad line is in its run's record (`bad_lines`, a `bad_line` or
    /// `truncated` warning): said, and the exit code is the verdict's.
    fn bad_line(&self, _: &Error, _: Option<&[u8]>) -> BadLine {
        BadLine::Counted
    }
}

/// Exit codes by input, from a `PATH<TAB>CODE` file.
struct ExitCodes {
    by_name: HashMap<String, i32>,
    by_file: HashMap<PathBuf, i32>,
}

impl ExitCodes {
    fn read(path: &Path) -> Result<ExitCodes, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", shown_path(path)))?;
        let mut by_name = HashMap::new();
        let mut by_file = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_end_matches('\r');
            if l.trim().is_empty() || l.starts_with('#') {
                continue;
            }
            let Some((p, c)) = l.rsplit_once('\t') else {
                return Err(format!(
                    "{}:{}: expected PATH<TAB>CODE, found {l:?}",
                    shown_path(path),
                    i + 1
                ));
            };
            let code: i32 = c.trim().parse().map_err(|_| {
                format!(
                    "{}:{}: {c:?} is not an exit code (an integer)",
                    shown_path(path),
                    i + 1
                )
            })?;
            by_name.insert(p.to_string(), code);
            if let Ok(canon) = std::fs::canonicalize(p) {
                by_file.insert(canon, code);
            }
        }
        Ok(ExitCodes { by_name, by_file })
    }

    fn get(&self, name: &str) -> Option<i32> {
        self.by_name.get(name).copied().or_else(|| {
            let canon = std::fs::canonicalize(name).ok()?;
            self.by_file.get(&canon).copied()
        })
    }
}

/// One run as a line for people. Lines, not a table: each run is printed
/// as soon as its input is read (output streams), and a table would wait
/// for the last run to know its widths.
pub(super) fn human_line(name: &str, r: &RunSummary) -> String {
    let mut parts = Vec::new();
    let last = r.last_result.as_ref();
    if let Some(n) = last.and_then(|l| l.num_turns) {
        parts.push(match u64::try_from(n) {
            Ok(n) => count(n, "turn", "turns"),
            Err(_) => format!("{n} turns"),
        });
    }
    if let Some(ms) = r.wall_ms.or(r.duration_ms_sum) {
        parts.push(seconds(ms));
    }
    match (
        r.cost.total_cost_usd,
        last.and_then(|l| l.total_cost_text.as_deref()),
    ) {
        (Some(c), _) => parts.push(format!("${}", super::human::money(c))),
        (None, Some(t)) => parts.push(format!("${t}")),
        _ => {}
    }
    let m = &r.usage.main;
    if m.messages > 0 || m.tokens.output_tokens > 0 {
        parts.push(format!(
            "{}{} ({})",
            if m.lower_bound() { "≥" } else { "" },
            count(m.tokens.output_tokens, "output token", "output tokens"),
            m.source.as_str()
        ));
    }
    let calls = r.tool_calls_total();
    if calls > 0 {
        parts.push(format!(
            "{} ({})",
            count(calls, "tool call", "tool calls"),
            count(r.tool_errors_total(), "error", "errors")
        ));
    }
    if let Some(code) = r.exit_code {
        parts.push(format!("exit {code}"));
    }
    let mut codes: Vec<&str> = Vec::new();
    for w in &r.warnings {
        if !codes.contains(&w.code) {
            codes.push(w.code);
        }
    }
    let warn = if codes.is_empty() {
        String::new()
    } else {
        format!("  warnings: {}", codes.join(", "))
    };
    format!(
        "{:<15} {}  {}  {}{warn}\n",
        r.verdict.as_str(),
        clean(name),
        clean(r.session_id.as_deref().unwrap_or("-")),
        parts.join(", ")
    )
}

/// An input without events as a line for people: its verdict, what it
/// is, and its last (or first) line.
pub(super) fn no_events_line(name: &str, r: &RunSummary, n: &NoEvents) -> String {
    let line = n
        .final_error
        .as_ref()
        .map(|e| format!(": its last line: {}", clean(&e.line)))
        .or_else(|| n.first_line.as_deref().map(|f| format!(": {}", clean(f))))
        .unwrap_or_default();
    format!(
        "{:<15} {}  no events ({}){line}\n",
        r.verdict.as_str(),
        clean(name),
        n.format.name(),
    )
}

/// The closing line for people: `35 runs: 20 success, 2 max_turns, ...;
/// $31.2000` (the runs, verdicts and cost `stats` gives the same inputs,
/// an input without events one run of them), then how many of them are
/// inputs without events, by verdict.
fn summary_line(runs: &RunTotals, without_events: &RunTotals) -> String {
    let verdicts = |t: &RunTotals| -> String {
        Verdict::ALL
            .iter()
            .filter(|v| t.count(**v) > 0)
            .map(|v| format!("{} {}", thousands(t.count(*v)), v.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut line = format!(
        "{}{}{}; ${}",
        count(runs.runs, "run", "runs"),
        if runs.runs > 0 { ": " } else { "" },
        verdicts(runs),
        money_sum(&runs.cost.value())
    );
    if without_events.runs > 0 {
        line.push_str(&format!(
            "; {} without events among them ({})",
            count(without_events.runs, "input", "inputs"),
            verdicts(without_events)
        ));
    }
    line.push('\n');
    line
}

/// Run the command. Exit code: 0 when every run succeeded, 1 when any did
/// not (including no result and inputs without events), 2 for a usage error
/// or an input that could not be read (bad lines are in the records, see
/// [`exec::BadLine::Counted`]).
pub fn run(args: &Args) -> i32 {
    if args.live.follow.follow_name {
        // Each run's record as it ends, from the followed files.
        let mode = super::watch::Mode {
            passthrough: false,
            verdicts_to_stdout: true,
            json: args.json || !std::io::stdout().is_terminal(),
            status: false,
            messages: !args.common.no_messages,
            globs: args.common.globs(),
            follow_links: args.common.follow,
        };
        return super::watch::run_live(
            &args.read,
            &args.costing,
            &args.live,
            &args.common.paths,
            &mode,
            &mut super::watch::Telemetry::default(),
        );
    }
    let codes = match &args.exit_codes {
        None => None,
        Some(p) => match ExitCodes::read(p) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("cctape: --exit-codes {e}");
                return 2;
            }
        },
    };
    let (prices, zone, range) = match (
        args.costing.prices(),
        args.costing.zone(),
        args.days.range(),
    ) {
        (Ok(p), Ok(z), Ok(r)) => (p, z, r),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            exec::note(&e);
            return 2;
        }
    };
    let (mut inputs, unreadable) = expand(&args.common);
    args.project.retain(&mut inputs);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
    let json_out = args.json || !std::io::stdout().is_terminal();
    let emit = Emit {
        json: json_out,
        shown: &shown,
        range: &range,
        zone: &zone,
    };
    let mut any_not_ok = false;
    // For the closing line on a terminal: the runs as `stats` sums them,
    // and the inputs without events by verdict.
    let mut seen = RunTotals::new();
    let mut without_events = RunTotals::new();
    let mut transcripts = Transcripts::default();
    let exit_code_of = |name: &str| {
        args.exit_code
            .or_else(|| codes.as_ref().and_then(|c| c.get(name)))
    };
    let trouble = exec::run(
        &inputs,
        &opts,
        || VerdictSink::new(&emit),
        |done: Done<VerdictSink>| {
            let name = &names[done.input];
            let mut out = Vec::new();
            if let Some(why) = &done.failure
                && (done.unreadable || done.counts.events == 0)
            {
                // Could not be read, or broke off before any event: no run
                // (as `stats` counts it).
                if json_out {
                    write_json_value(&unreadable_record(name, &why.to_string()), &mut out);
                } else {
                    out.extend_from_slice(
                        format!("{:<15} {}  {why}\n", "unreadable", clean(name)).as_bytes(),
                    );
                }
                exec::write_out(&mut out);
                return;
            }
            let code = exit_code_of(name);
            let (written, written_not_ok) = (done.sink.written, done.sink.written_not_ok);
            let sink = done.sink.runs;
            if sink.format == Some(Format::Transcript) && done.counts.events > 0 {
                // Its sessions' records come once every input is read.
                transcripts.add(sink.transcript);
                return;
            }
            if done.counts.events == 0 && !range.is_all() {
                // No date: not kept.
                return;
            }
            if done.counts.events == 0 {
                // One run of its own: one record saying the input has no
                // events, with every key a run record has (its bad lines
                // counted).
                let n = sink.finding.unwrap_or_else(|| sink.shape.describe());
                let r = no_events_run(sink.folder.finish().into_iter().next(), &n, code);
                any_not_ok |= !r.ok();
                seen.add(&r);
                without_events.add_counts(&r, done.input);
                if json_out {
                    write_json_value(&no_events_record(&r, name, &n), &mut out);
                } else {
                    out.extend_from_slice(no_events_line(&shown[done.input], &r, &n).as_bytes());
                }
                exec::write_out(&mut out);
                return;
            }
            // The runs written while it was read, then the rest.
            any_not_ok |= written_not_ok;
            seen.merge(&written, 0);
            let mut runs = sink.folder.finish();
            if let (Some(code), Some(last)) = (code, runs.last_mut()) {
                last.apply_exit_code(code);
            }
            runs.retain(|r| emit.kept(r));
            let piece = Piece {
                input: done.input,
                name,
            };
            for r in &runs {
                any_not_ok |= !r.ok();
                seen.add(r);
                write_run(&emit, &piece, r, &mut out);
            }
            exec::write_out(&mut out);
        },
    );
    if let Some((report, files)) = transcripts.finish_within(&names, &prices, &zone, &range) {
        let mut out = Vec::new();
        for (s, &i) in report.sessions.iter().zip(&files) {
            let mut r = s.to_run();
            if let Some(code) = exit_code_of(&names[i]) {
                r.apply_exit_code(code);
            }
            any_not_ok |= !r.ok();
            seen.add(&r);
            if json_out {
                write_json_value(&session_record(&r, &names[i], s, &report), &mut out);
            } else {
                out.extend_from_slice(human_line(&shown[i], &r).as_bytes());
            }
            if out.len() >= exec::FLUSH_AT {
                exec::write_out(&mut out);
            }
        }
        exec::write_out(&mut out);
    }
    if !json_out {
        let mut line = summary_line(&seen, &without_events).into_bytes();
        exec::write_out(&mut line);
    }
    trouble
        .and(unreadable)
        .exit_code(if any_not_ok { 1 } else { 0 })
}
