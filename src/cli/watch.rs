//! `cctape watch`: for a live run (`claude -p ... | cctape watch`). Every
//! byte goes through to stdout unchanged as soon as it arrives; stderr keeps
//! one status line (turn, current tool, tokens, cost, subagents running)
//! when it is a terminal; at the end the verdict of each run is printed to
//! stderr, one line for people on a terminal (as `cctape verdict` prints
//! it there), else (or with `--json`) as JSON, and the exit code is the
//! verdict's.
//!
//! The status line's tokens are the live sum of the calls seen (`≥` while
//! some call's figure is its `message_start` placeholder); once a result
//! came, the run's best figure with its source, from the run layer
//! ([`cctape::RunFolder::current_summary`]): the figure the verdict gives.
//! Bad lines are said on stderr as every reading command says them
//! ([`super::said`]); the verdict counts them.
//!
//! The input's format is told from its first complete line (or `--format`):
//! a `--output-format json` array is read element by element as it
//! arrives, a session transcript record by record (its sessions' verdicts
//! at the end), and text is one finding whose verdict is its last line when
//! that is the CLI's own final error.

use super::human::{clean, money};
use super::output::{thousands, write_json_value};
use super::reading::{Costing, ReadAs};
use super::said::{self, SAID_PER_INPUT, Tally, Trouble};
use cctape::elements::ElementDecoder;
use cctape::error::Error;
use cctape::event::{EventKind, Field, parse_event};
use cctape::framing::{Line, LineDecoder};
use cctape::parse::Parser;
use cctape::report::{Shape, no_events_record, no_events_run, run_record, session_record};
use cctape::run::{RunFolder, RunSummary};
use cctape::scan::Scanner;
use cctape::sniff::{Format, Reading};
use cctape::transcript::{Record, TranscriptFile, TranscriptFold};
use std::collections::HashSet;
use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

/// Arguments of `cctape watch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// No status line, even on a terminal.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// The verdicts as JSON records (one per run per line) even when
    /// stderr is a terminal (they are the default when it is not).
    #[arg(long)]
    json: bool,
    /// Say nothing about bad lines (grep's -s); the verdict still counts
    /// them.
    #[arg(long, short = 's')]
    no_messages: bool,
    #[command(flatten)]
    read: ReadAs,
    #[command(flatten)]
    costing: Costing,
    /// `--otlp ENDPOINT`: each run as OpenTelemetry (see `cctape otel`).
    #[cfg(feature = "otel")]
    #[command(flatten)]
    otlp: super::otel::OtlpArgs,
}

/// What the status line shows, updated from hot fields.
#[derive(Default)]
struct Status {
    turns: u64,
    last_message: String,
    tool: String,
    tool_id: String,
    /// Output tokens of the calls over since the last result (or the
    /// start).
    output_tokens: u64,
    last_output: u64,
    /// The current call's usage is final (its `message_delta`, or a whole
    /// message), not a snapshot.
    last_final: bool,
    /// Some finished call's output was a snapshot: the sum is a lower bound.
    lower_bound: bool,
    /// A call's usage was seen since the last result.
    live: bool,
    /// The run's best output figure at its last result: tokens, a lower
    /// bound, its source (as the verdict says them).
    settled: Option<(u64, bool, &'static str)>,
    cost: Option<f64>,
    /// Agent/Task calls of the main agent not yet answered (every version
    /// writes them; 2.1.41 has no task_started).
    agent_calls: HashSet<String>,
    /// `local_agent` tasks started and not yet notified (background agents
    /// outlive their tool result).
    agent_tasks: HashSet<String>,
}

impl Status {
    fn update(&mut self, ev: &cctape::Event<'_>) {
        match ev.kind() {
            EventKind::Assistant => {
                let main = !matches!(ev.parent_tool_use_id(), Field::Value(_));
                if let Some(id) = ev.message_id()
                    && id != self.last_message
                {
                    id.clone_into(&mut self.last_message);
                    if main {
                        self.turns += 1;
                    }
                    self.finish_call();
                }
                if let Some(u) = ev.usage()
                    && !self.last_final
                {
                    self.live = true;
                    self.last_output = u.output_tokens;
                    self.last_final = ev
                        .get_path("message.stop_reason")
                        .is_some_and(|v| v.as_str().is_some());
                }
                if let (Some(name), Some(id)) = (ev.tool_name(), ev.tool_use_id()) {
                    name.clone_into(&mut self.tool);
                    id.clone_into(&mut self.tool_id);
                    if main && matches!(name, "Agent" | "Task") {
                        self.agent_calls.insert(id.to_string());
                    }
                }
            }
            EventKind::StreamEvent => {
                if ev.get_path("event.type").and_then(|v| v.as_str()) == Some("message_delta")
                    && let Some(n) = ev
                        .get_path("event.usage.output_tokens")
                        .and_then(|v| v.as_u64())
                {
                    self.live = true;
                    self.last_output = n;
                    self.last_final = true;
                }
            }
            EventKind::User => {
                if let Some(id) = ev.tool_result_id() {
                    if id == self.tool_id {
                        self.tool.clear();
                    }
                    self.agent_calls.remove(id);
                }
            }
            EventKind::SystemTaskStarted => {
                if ev.get("task_type").and_then(|v| v.as_str()) == Some("local_agent")
                    && let Some(id) = ev.get("tool_use_id").and_then(|v| v.as_str())
                {
                    self.agent_tasks.insert(id.to_string());
                }
            }
            EventKind::SystemTaskNotification => {
                if let Some(id) = ev.get("tool_use_id").and_then(|v| v.as_str()) {
                    self.agent_tasks.remove(id);
                    self.agent_calls.remove(id);
                }
            }
            k if k.is_result() => {
                self.cost = ev.total_cost_usd().filter(|c| c.is_finite());
                self.tool.clear();
            }
            _ => {}
        }
    }

    /// A result came: from now on the run's figures are `run`'s (the
    /// verdict's), and the live sum counts the calls after it.
    fn settle(&mut self, run: &RunSummary) {
        let m = &run.usage.main;
        self.settled = Some((m.tokens.output_tokens, m.lower_bound(), m.source.as_str()));
        if let Some(c) = run.cost.total_cost_usd.filter(|c| c.is_finite()) {
            self.cost = Some(c);
        }
        self.output_tokens = 0;
        self.last_output = 0;
        self.last_final = false;
        self.lower_bound = false;
        self.live = false;
    }

    /// The current call is over: add its output.
    fn finish_call(&mut self) {
        self.output_tokens += self.last_output;
        if self.last_output > 0 || !self.last_final {
            self.lower_bound |= !self.last_final;
        }
        self.last_output = 0;
        self.last_final = false;
    }

    fn running(&self) -> usize {
        self.agent_calls.union(&self.agent_tasks).count()
    }

    fn line(&self) -> String {
        let cost = self
            .cost
            .map_or("-".to_string(), |c| format!("${}", money(c)));
        let tool = if self.tool.is_empty() {
            "-"
        } else {
            &self.tool
        };
        let live = self.output_tokens + self.last_output;
        let live_lower = self.lower_bound || !self.last_final;
        let tokens = match self.settled {
            // The verdict's figure, with its source.
            Some((n, lower, source)) if !self.live => {
                format!(
                    "{}{} ({source})",
                    if lower { "≥" } else { "" },
                    thousands(n)
                )
            }
            // Calls after the result: its figure plus theirs so far.
            Some((n, lower, _)) => format!(
                "{}{}",
                if lower || live_lower { "≥" } else { "" },
                thousands(n.saturating_add(live))
            ),
            None => format!("{}{}", if live_lower { "≥" } else { "" }, thousands(live)),
        };
        format!(
            "turn {}  tool {}  output tokens {tokens}  cost {}  subagents running {}",
            thousands(self.turns),
            clean(tool),
            cost,
            thousands(self.running() as u64)
        )
    }
}

/// What the input is read with, once its format is known.
enum Reader {
    /// Bytes held until the format is told.
    Sniffing(Vec<u8>),
    /// Lines: stream-json events, transcript records, or text.
    Lines(LineDecoder),
    /// JSON elements read as events.
    Elements(ElementDecoder),
}

/// Everything the input is folded into.
struct Fold {
    format: Format,
    parser: Parser,
    scanner: Scanner,
    folder: RunFolder,
    status: Status,
    shape: Shape,
    transcripts: TranscriptFold,
    file: TranscriptFile,
    /// The first bytes and the last non-blank line of a text input.
    prefix: Vec<u8>,
    last_line: Vec<u8>,
    /// Messages about bad lines not yet written (see [`super::said`]).
    said: Vec<u8>,
    /// Bad lines past [`SAID_PER_INPUT`], counted only.
    unsaid: u64,
    /// Messages formatted so far.
    written: u64,
    /// Bad lines are said (not `-s`).
    messages: bool,
}

/// One event: the status, the runs, and at a result the run's figures.
fn fold_event(status: &mut Status, folder: &mut RunFolder, ev: &cctape::Event<'_>) {
    status.update(ev);
    folder.push(ev);
    if ev.kind().is_result()
        && let Some(run) = folder.current_summary()
    {
        status.settle(&run);
    }
}

impl Fold {
    /// A bad line: counted in its run, said as every command says it.
    fn bad(&mut self, e: Error, line: Option<&[u8]>) {
        let e = cctape::inputs::explain_line_error(e, line);
        self.folder.push_error(&e);
        if line.is_some() {
            self.shape.note(line);
        }
        if !self.messages {
        } else if self.written < SAID_PER_INPUT {
            said::message(super::inputs::STDIN_NAME, &e, &mut self.said);
            self.written += 1;
        } else {
            self.unsaid += 1;
        }
    }

    fn line(&mut self, line: &Line<'_>) {
        if line.is_blank() {
            return;
        }
        match self.format.reading() {
            Reading::TranscriptLines => match self.scanner.scan(line) {
                Ok(s) => self.transcripts.add(&Record::new(s), &self.file),
                Err(e) => self.bad(e, Some(line.bytes)),
            },
            Reading::NotEvents => {
                self.last_line.clear();
                self.last_line
                    .extend_from_slice(&line.bytes[..line.bytes.len().min(4 << 10)]);
            }
            _ => {
                let bad = match parse_event(&mut self.parser, line) {
                    Ok(ev) => {
                        fold_event(&mut self.status, &mut self.folder, &ev);
                        None
                    }
                    Err(e) => Some(e),
                };
                if let Some(e) = bad {
                    self.bad(e, Some(line.bytes));
                }
            }
        }
    }
}

/// Hand whatever the reader holds complete to the fold.
fn drain(reader: &mut Reader, fold: &mut Fold) {
    match reader {
        Reader::Sniffing(_) => {}
        Reader::Lines(dec) => {
            while let Some(item) = dec.next_line() {
                match item {
                    Ok(l) => fold.line(&l),
                    Err(e) => fold.bad(e, None),
                }
            }
        }
        Reader::Elements(dec) => {
            while let Some(item) = dec.next_element() {
                match item {
                    Ok(el) => {
                        let bad = match parse_event(&mut fold.parser, &el.as_line()) {
                            Ok(ev) => {
                                fold_event(&mut fold.status, &mut fold.folder, &ev);
                                None
                            }
                            Err(e) => Some(el.locate(e)),
                        };
                        if let Some(e) = bad {
                            fold.bad(e, None);
                        }
                    }
                    Err(e) => fold.bad(e, None),
                }
            }
        }
    }
}

/// Tell how the input is read once the held bytes say it (the library's
/// rule, [`cctape::sniff::prefix_is_enough`]: a complete line that opens
/// JSON, so that a warning first waits for the first event; or the end),
/// and start the reader for it.
fn decide(reader: &mut Reader, fold: &mut Fold, choice: cctape::sniff::FormatChoice, end: bool) {
    let Reader::Sniffing(held) = reader else {
        return;
    };
    if !(end || cctape::sniff::prefix_is_enough(held)) {
        return;
    }
    let held = std::mem::take(held);
    fold.format = choice.decide(&held, end);
    if fold.format.reading() == Reading::NotEvents {
        fold.prefix = held[..held.len().min(cctape::sniff::SNIFF_BYTES)].to_vec();
    }
    *reader = match fold.format.reading() {
        Reading::StreamElements => {
            let mut dec = ElementDecoder::new();
            dec.push(&held);
            Reader::Elements(dec)
        }
        _ => {
            let mut dec = LineDecoder::new();
            dec.push(&held);
            Reader::Lines(dec)
        }
    };
}

/// Write the messages gathered about bad lines, the status line cleared
/// first (it is drawn again at its next turn).
fn say_bad(fold: &mut Fold, tally: &mut Tally, show: bool) {
    if fold.said.is_empty() && fold.unsaid == 0 {
        return;
    }
    let mut all = Vec::new();
    if show {
        all.extend_from_slice(b"\r\x1b[2K");
    }
    for l in tally
        .take(&fold.said, std::mem::take(&mut fold.unsaid))
        .split_inclusive(|&b| b == b'\n')
    {
        all.extend_from_slice(b"cctape: ");
        all.extend_from_slice(l);
    }
    fold.said.clear();
    let _ = std::io::stderr().lock().write_all(&all);
}

/// Run the command; returns the exit code of the verdict (0 every run
/// succeeded, 1 any did not (no result and no events included), 2 a read
/// error, or a write error other than a closed pipe).
pub fn run(args: &Args) -> i32 {
    let (prices, zone) = match (args.costing.prices(), args.costing.zone()) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(e), _) | (_, Err(e)) => {
            super::exec::note(&e);
            return 2;
        }
    };
    let choice = args.read.input_format.choice();
    let show = !args.quiet && std::io::stderr().is_terminal();
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut reader = Reader::Sniffing(Vec::new());
    let mut fold = Fold {
        format: Format::Empty,
        parser: Parser::new(),
        scanner: Scanner::new(),
        folder: RunFolder::new(),
        status: Status::default(),
        shape: Shape::default(),
        transcripts: TranscriptFold::new(),
        file: TranscriptFile {
            name: Some(super::inputs::STDIN_NAME.into()),
            ..TranscriptFile::default()
        },
        prefix: Vec::new(),
        last_line: Vec::new(),
        said: Vec::new(),
        unsaid: 0,
        written: 0,
        messages: !args.no_messages,
    };
    #[cfg(feature = "otel")]
    let mut live = super::otel::Live::start(&args.otlp);
    #[cfg(feature = "otel")]
    if live.is_some() {
        fold.folder.record_calls(true);
        fold.transcripts.record_calls(true);
    }
    let mut tally = Tally::default();
    let mut buf = vec![0u8; 64 << 10];
    let mut last_draw = Instant::now() - Duration::from_secs(1);
    let mut read_error = None;
    let mut write_error = None;
    let mut out_open = true;
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                read_error = Some(e);
                break;
            }
        };
        if out_open && let Err(e) = stdout.write_all(&buf[..n]).and_then(|_| stdout.flush()) {
            // Keep reading so the verdict is still right. A closed pipe is
            // quiet; any other failure (a full disk) loses the transcript:
            // said now, and the exit code is 2.
            out_open = false;
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                super::exec::note(&format!(
                    "writing output: {e}; reading on for the verdict, exit code 2"
                ));
                write_error = Some(e);
            }
        }
        match &mut reader {
            Reader::Sniffing(held) => held.extend_from_slice(&buf[..n]),
            Reader::Lines(dec) => dec.push(&buf[..n]),
            Reader::Elements(dec) => dec.push(&buf[..n]),
        }
        decide(&mut reader, &mut fold, choice, false);
        drain(&mut reader, &mut fold);
        say_bad(&mut fold, &mut tally, show);
        if show && last_draw.elapsed() >= Duration::from_millis(100) {
            eprint!("\r\x1b[2K{}", fold.status.line());
            last_draw = Instant::now();
        }
    }
    decide(&mut reader, &mut fold, choice, true);
    match &mut reader {
        Reader::Sniffing(_) => {}
        Reader::Lines(dec) => dec.finish(),
        Reader::Elements(dec) => dec.finish(),
    }
    drain(&mut reader, &mut fold);
    say_bad(&mut fold, &mut tally, show);
    if show {
        eprint!("\r\x1b[2K");
    }
    if let Some(rest) = tally.end(super::inputs::STDIN_NAME) {
        eprintln!("cctape: {rest}");
    }
    let mut unreadable = read_error.is_some() || write_error.is_some();
    if let Some(e) = read_error.as_ref().filter(|_| !args.no_messages) {
        eprintln!("cctape: {}: read failed: {e}", super::inputs::STDIN_NAME);
    }
    let mut any_not_ok = false;
    let mut out = Vec::new();
    // For people on a terminal, as `cctape verdict` prints there; JSON
    // for programs.
    let json = args.json || !std::io::stderr().is_terminal();
    let name = super::inputs::STDIN_NAME;
    let sessions = (fold.transcripts.records() > 0)
        .then(|| std::mem::take(&mut fold.transcripts).finish(&prices, &zone));
    let (runs, bad): (Vec<_>, Vec<_>) =
        fold.folder.finish().into_iter().partition(|r| r.events > 0);
    if let Some(report) = &sessions {
        for s in &report.sessions {
            let r = s.to_run();
            #[cfg(feature = "otel")]
            if let Some(l) = &mut live {
                l.session(s, &r, name);
            }
            any_not_ok |= !r.ok();
            if json {
                write_json_value(&session_record(&r, name, s, report), &mut out);
            } else {
                out.extend_from_slice(super::verdict::human_line(name, &r).as_bytes());
            }
        }
    } else if runs.is_empty() {
        // No events: what the process wrote is passed through above; its
        // last line may be the CLI's own final error.
        if fold.format.reading() == Reading::NotEvents {
            let last = (!fold.last_line.is_empty()).then_some(&fold.last_line[..]);
            fold.shape = Shape::of_input(&fold.prefix, fold.format, last);
        }
        let n = fold.shape.describe();
        let r = no_events_run(bad.into_iter().next(), &n, None);
        any_not_ok |= !r.ok();
        if json {
            write_json_value(&no_events_record(&r, name, &n), &mut out);
        } else {
            out.extend_from_slice(super::verdict::no_events_line(name, &r, &n).as_bytes());
        }
    }
    for r in &runs {
        #[cfg(feature = "otel")]
        if let Some(l) = &mut live {
            l.run(r, name);
        }
        any_not_ok |= !r.ok();
        if json {
            write_json_value(&run_record(r, name), &mut out);
        } else {
            out.extend_from_slice(super::verdict::human_line(name, r).as_bytes());
        }
    }
    if let Err(e) = std::io::stderr().write_all(&out) {
        eprintln!("cctape: writing the verdict: {e}");
        unreadable = true;
    }
    #[cfg(feature = "otel")]
    if let Some(l) = live {
        unreadable |= !l.finish();
    }
    let trouble = Trouble {
        unreadable,
        bad_lines: 0,
    };
    trouble.exit_code(if any_not_ok { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctape::framing::Lines;

    /// 2.1.41 writes no task_started: the Task call alone says a subagent
    /// runs (`TomOfekKafka__ThePerfectSnake__claude-stream@4873604.jsonl`).
    #[test]
    fn subagents_running_from_agent_calls_without_task_events() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/realworld/TomOfekKafka__ThePerfectSnake__claude-stream@4873604.jsonl");
        let Ok(bytes) = std::fs::read(&path) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{} missing",
                path.display()
            );
            return;
        };
        let mut parser = Parser::new();
        let mut status = Status::default();
        let mut max_running = 0;
        let mut task_events = 0;
        for line in Lines::new(&bytes) {
            let Ok(ev) = parse_event(&mut parser, &line) else {
                continue;
            };
            task_events += u32::from(ev.raw_subtype().is_some_and(|s| s.starts_with("task_")));
            status.update(&ev);
            max_running = max_running.max(status.running());
        }
        assert_eq!(task_events, 0);
        assert_eq!(max_running, 1, "the Task subagent ran");
        assert_eq!(status.running(), 0, "and ended with its tool result");
        assert!(status.line().contains("subagents running 0"));
    }
}
