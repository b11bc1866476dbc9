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
use cctape::event::{EventKind, Field};
use cctape::framing::{Line, LineDecoder};
use cctape::inputs::{Item, Items, LineRead, ReadOptions};
use cctape::report::{Shape, no_events_record, no_events_run, run_record, session_record};
use cctape::run::{RunFolder, RunSummary};
use cctape::sniff::{Format, Reading};
use cctape::transcript::{TranscriptFile, TranscriptFold};
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
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
    #[command(flatten)]
    live: LiveArgs,
    /// With -F, the files and folders to follow (without it, standard
    /// input is read).
    #[arg(value_name = "PATH", requires = "follow_name")]
    paths: Vec<std::path::PathBuf>,
}

/// The flags of a live reading of runs, shared by `watch` and `verdict -F`.
#[derive(clap::Args, Debug, Clone)]
pub struct LiveArgs {
    /// A run's verdict is printed once its result came and no line came
    /// for this long (or as soon as the next run starts): seconds, or with
    /// a unit (`500ms`, `2s`, `1m`).
    #[arg(long, value_name = "TIME", default_value = "2s", value_parser = parse_idle)]
    pub idle: Duration,
    #[command(flatten)]
    pub follow: super::live::Follow,
}

/// An `--idle` value.
fn parse_idle(s: &str) -> Result<Duration, String> {
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("expected a time such as 2, 2s or 500ms, got `{s}`"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        _ => return Err(format!("unknown unit `{unit}` in `{s}` (ms, s or m)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{s}` is not a time"))
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
    /// Lines: stream-json events, transcript records, or text; each read
    /// by the library's reader.
    Lines(LineDecoder, LineRead),
    /// JSON elements read as events, by the library's reader (those of a
    /// log behind its logger's prefixes included).
    Elements(Box<ElementDecoder>, LineRead),
}

/// Everything the input is folded into.
struct Fold {
    format: Format,
    folder: RunFolder,
    status: Status,
    shape: Shape,
    transcripts: TranscriptFold,
    file: TranscriptFile,
    /// The first bytes of an input of elements or text, to say what it
    /// is when it holds no events.
    prefix: Vec<u8>,
    /// Messages about bad lines not yet written (see [`super::said`]).
    said: Vec<u8>,
    /// Bad lines past [`SAID_PER_INPUT`], counted only.
    unsaid: u64,
    /// Messages formatted so far.
    written: u64,
    /// Bad lines are said (not `-s`).
    messages: bool,
    /// The input's name as shown (`<stdin>`, a followed file).
    name: String,
    /// The last line read (for the idle clock).
    seen: u64,
    /// A `system/init` came since the runs were last looked at.
    init: bool,
    clock: cctape::run::IdleClock,
    /// Where the last `system/init` line starts (stream offset).
    init_offset: u64,
    /// Where the first run not yet said starts (stream offset): where a
    /// restart from a checkpoint reads again.
    run_start: Option<u64>,
}

/// One event: the status, the runs, and at a result the run's figures.
fn fold_event(status: &mut Status, folder: &mut RunFolder, ev: &cctape::Event<'_>) -> bool {
    status.update(ev);
    folder.push(ev);
    if ev.kind().is_result()
        && let Some(run) = folder.current_summary()
    {
        status.settle(&run);
    }
    ev.kind() == EventKind::SystemInit
}

impl Fold {
    /// A bad line: counted in its run, said as every command says it.
    fn bad(&mut self, e: &Error, line: Option<&[u8]>) {
        self.folder.push_error(e);
        if line.is_some() {
            self.shape.note(line);
        }
        if !self.messages {
        } else if self.written < SAID_PER_INPUT {
            said::message(&self.name, e, &mut self.said);
            self.written += 1;
        } else {
            self.unsaid += 1;
        }
    }

    /// What is noted of a line before it is read: the idle clock's line,
    /// and where a run that starts with it starts.
    fn before(&mut self, line: &Line<'_>) {
        self.seen = line.number;
        if !line.is_blank()
            && !matches!(
                self.format.reading(),
                Reading::TranscriptLines | Reading::NotEvents
            )
            && self.folder.is_empty()
        {
            self.run_start = Some(line.offset);
        }
    }
}

/// The fold as the library's reader hands it items: a line's (its offset)
/// or an element's.
struct Took<'f> {
    fold: &'f mut Fold,
    /// The line's offset; `None` for an element.
    line_offset: Option<u64>,
}

impl Items for Took<'_> {
    fn item(&mut self, item: Item<'_, '_>) -> ControlFlow<()> {
        let fold = &mut *self.fold;
        match item {
            Item::Event(ev) => {
                let init = fold_event(&mut fold.status, &mut fold.folder, ev);
                match self.line_offset {
                    Some(offset) if init => {
                        fold.init = true;
                        fold.init_offset = offset;
                    }
                    Some(_) => {}
                    None => {
                        fold.seen = ev.line();
                        fold.init |= init;
                    }
                }
            }
            Item::Record(rec) => fold.transcripts.add(rec, &fold.file),
            Item::Error { error, bytes } => {
                fold.bad(error, bytes.filter(|_| self.line_offset.is_some()));
            }
            Item::NotEvents(shape) => fold.shape = shape.clone(),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// Hand whatever the reader holds complete to the fold.
fn drain(reader: &mut Reader, fold: &mut Fold) {
    match reader {
        Reader::Sniffing(_) => {}
        Reader::Lines(dec, taker) => {
            while let Some(item) = dec.next_line() {
                let _ = match item {
                    Ok(l) => {
                        fold.before(&l);
                        let line_offset = Some(l.offset);
                        taker.line(&l, &mut Took { fold, line_offset })
                    }
                    Err(e) => taker.framing_error(
                        e,
                        &mut Took {
                            fold,
                            line_offset: Some(0),
                        },
                    ),
                };
            }
        }
        Reader::Elements(dec, taker) => {
            while let Some(item) = dec.next_element() {
                let took = &mut Took {
                    fold,
                    line_offset: None,
                };
                let _ = match item {
                    Ok(el) => taker.element(&el, took),
                    Err(e) => taker.framing_error(e, took),
                };
            }
        }
    }
}

/// The end of the input: an input without events (text, no element) gets
/// its finding from the library's reader.
fn end_reading(reader: &mut Reader, fold: &mut Fold) {
    match std::mem::replace(reader, Reader::Sniffing(Vec::new())) {
        Reader::Sniffing(_) => {}
        Reader::Lines(_, taker) | Reader::Elements(_, taker) => {
            let (prefix, line_offset) = (std::mem::take(&mut fold.prefix), None);
            let _ = taker.finish(&prefix, &mut Took { fold, line_offset });
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
    if matches!(
        fold.format.reading(),
        Reading::StreamElements | Reading::LoggedElements | Reading::NotEvents
    ) {
        fold.prefix = held[..held.len().min(cctape::sniff::SNIFF_BYTES)].to_vec();
    }
    let opts = ReadOptions {
        records: true,
        ..ReadOptions::default()
    };
    let taker = LineRead::new(&opts, fold.format);
    *reader = match fold.format.reading() {
        reading @ (Reading::StreamElements | Reading::LoggedElements) => {
            let mut dec = ElementDecoder::new();
            if reading == Reading::LoggedElements {
                dec = dec.logged();
            }
            dec.push(&held);
            Reader::Elements(Box::new(dec), taker)
        }
        _ => {
            let mut dec = LineDecoder::new();
            dec.push(&held);
            Reader::Lines(dec, taker)
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

/// What a live reading of runs does besides printing verdicts.
pub struct Mode {
    /// Every byte read goes on to stdout (`watch`); else nothing does
    /// (`verdict -F`).
    pub passthrough: bool,
    /// The verdicts go to stdout (`verdict -F`), else to stderr.
    pub verdicts_to_stdout: bool,
    /// JSON records (else the line for people).
    pub json: bool,
    /// The status line is drawn on stderr.
    pub status: bool,
    /// Bad lines are said.
    pub messages: bool,
    /// What a followed folder's walk takes (`verdict`'s `--glob`, `-L`).
    pub globs: cctape::inputs::Globs,
    /// Symlinks to folders are followed.
    pub follow_links: bool,
}

/// Run the command; returns the exit code of the verdict (0 every run
/// succeeded, 1 any did not (no result and no events included), 2 a read
/// error, or a write error other than a closed pipe).
pub fn run(args: &Args) -> i32 {
    let mode = Mode {
        passthrough: true,
        verdicts_to_stdout: false,
        // For people on a terminal, as `cctape verdict` prints there; JSON
        // for programs.
        json: args.json || !std::io::stderr().is_terminal(),
        status: !args.quiet && std::io::stderr().is_terminal(),
        messages: !args.no_messages,
        globs: cctape::inputs::Globs::default(),
        follow_links: false,
    };
    #[cfg(feature = "otel")]
    let mut telemetry = Telemetry {
        live: super::otel::Live::start(&args.otlp),
    };
    #[cfg(not(feature = "otel"))]
    let mut telemetry = Telemetry::default();
    let code = run_live(
        &args.read,
        &args.costing,
        &args.live,
        &args.paths,
        &mode,
        &mut telemetry,
    );
    if telemetry.finish() {
        code
    } else {
        code.max(2)
    }
}

/// Where each judged run goes besides the verdict: OpenTelemetry with
/// `watch --otlp` (the `otel` feature), else nowhere.
#[derive(Default)]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    live: Option<super::otel::Live>,
}

impl Telemetry {
    /// True when runs are sent, so the folds keep their call lists.
    fn wants_calls(&self) -> bool {
        #[cfg(feature = "otel")]
        return self.live.is_some();
        #[cfg(not(feature = "otel"))]
        false
    }

    /// A finished run: a stream's, or a transcript session's.
    fn run(&mut self, _r: &RunSummary, _name: &str) {
        #[cfg(feature = "otel")]
        if let Some(l) = &mut self.live {
            l.run(_r, _name);
        }
    }

    /// Wait for what is queued; false (said) when something was dropped or
    /// not delivered.
    fn finish(self) -> bool {
        #[cfg(feature = "otel")]
        if let Some(l) = self.live {
            return l.finish();
        }
        true
    }
}

/// One input being read: how, and what it is folded into.
struct Stream {
    reader: Reader,
    fold: Fold,
    tally: Tally,
    /// Runs whose verdicts were printed as they ended.
    said_runs: u64,
    /// Bytes pushed so far (the stream offsets of its lines).
    pushed: u64,
    /// Where the current file began: (stream offset, file offset).
    seg: (u64, u64),
    /// The file offset the next bytes continue from, if the same file.
    expect: Option<u64>,
}

impl Stream {
    fn new(name: String, messages: bool, idle: Duration, calls: bool) -> Stream {
        let mut folder = RunFolder::new();
        let mut transcripts = TranscriptFold::new();
        folder.record_calls(calls);
        transcripts.record_calls(calls);
        Stream {
            reader: Reader::Sniffing(Vec::new()),
            fold: Fold {
                format: Format::Empty,
                folder,
                status: Status::default(),
                shape: Shape::default(),
                transcripts,
                file: TranscriptFile {
                    name: Some(name.clone()),
                    ..TranscriptFile::default()
                },
                prefix: Vec::new(),
                said: Vec::new(),
                unsaid: 0,
                written: 0,
                messages,
                name,
                seen: 0,
                init: false,
                clock: cctape::run::IdleClock::new(idle),
                init_offset: 0,
                run_start: None,
            },
            tally: Tally::default(),
            said_runs: 0,
            pushed: 0,
            seg: (0, 0),
            expect: None,
        }
    }

    /// Bytes that start at `offset` in their file.
    fn push(&mut self, bytes: &[u8], offset: u64) {
        if self.expect != Some(offset) {
            self.seg = (self.pushed, offset);
        }
        self.expect = Some(offset + bytes.len() as u64);
        self.pushed += bytes.len() as u64;
        match &mut self.reader {
            Reader::Sniffing(held) => held.extend_from_slice(bytes),
            Reader::Lines(dec, _) => dec.push(bytes),
            Reader::Elements(dec, _) => dec.push(bytes),
        }
    }

    /// Where a restart reads this stream's file again from: the start of
    /// the first run not said yet (the current file's start if it began
    /// in a file before it); `None` when every run was said.
    fn replay(&self) -> Option<u64> {
        let at = self.fold.run_start?;
        Some(self.seg.1 + at.saturating_sub(self.seg.0))
    }

    /// The runs over by now: those the next run's `system/init` closed, and
    /// those quiet for the idle time since their result.
    fn ended(&mut self, now: Instant) -> Vec<RunSummary> {
        let fold = &mut self.fold;
        fold.clock.mark(now, fold.seen);
        let mut done = Vec::new();
        if std::mem::take(&mut fold.init) {
            // The next run started: those before it are over.
            done.extend(fold.folder.drain_others());
            fold.run_start = Some(fold.init_offset);
        }
        if let Some(n) = fold.clock.quiet_through(now) {
            done.extend(fold.folder.drain_quiet(n + 1));
        }
        if fold.folder.is_empty() {
            fold.run_start = None;
        }
        done.retain(|r| r.events > 0);
        self.said_runs += done.len() as u64;
        done
    }
}

/// The verdict of one run, as a JSON record or a line for people.
fn write_run(r: &RunSummary, name: &str, json: bool, out: &mut Vec<u8>) {
    if json {
        write_json_value(&run_record(r, name), out);
    } else {
        out.extend_from_slice(super::verdict::human_line(name, r).as_bytes());
    }
}

/// Write verdicts where the mode says; false when that failed.
fn say_verdicts(out: &[u8], mode: &Mode) -> bool {
    if out.is_empty() {
        return true;
    }
    let r = if mode.verdicts_to_stdout {
        let mut o = std::io::stdout().lock();
        o.write_all(out).and_then(|_| o.flush())
    } else {
        std::io::stderr().lock().write_all(out)
    };
    if let Err(e) = r {
        if e.kind() == std::io::ErrorKind::BrokenPipe && mode.verdicts_to_stdout {
            std::process::exit(0);
        }
        eprintln!("cctape: writing the verdict: {e}");
        return false;
    }
    true
}

/// How often a live reading looks at the time when no byte comes.
const TICK: Duration = Duration::from_millis(100);

/// Read standard input, or the files `-F` follows, printing each run's
/// verdict as it ends and the rest at the end (standard input's end, or
/// SIGINT/SIGTERM); returns the exit code.
pub fn run_live(
    read: &ReadAs,
    costing: &Costing,
    live: &LiveArgs,
    paths: &[std::path::PathBuf],
    mode: &Mode,
    telemetry: &mut Telemetry,
) -> i32 {
    let calls = telemetry.wants_calls();
    let (prices, zone) = match (costing.prices(), costing.zone()) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(e), _) | (_, Err(e)) => {
            super::exec::note(&e);
            return 2;
        }
    };
    let walk = (mode.globs.clone(), mode.follow_links);
    let mut source = match super::live::Source::open(&live.follow, paths, walk) {
        Ok(s) => s,
        Err(e) => {
            super::exec::note(&e);
            return 2;
        }
    };
    let stop = super::live::stop_flag();
    let choice = read.input_format.choice();
    let show = mode.status;
    let mut stdout = std::io::stdout().lock();
    let mut streams: Vec<Option<Stream>> = Vec::new();
    let mut last_draw = Instant::now() - Duration::from_secs(1);
    let mut read_error = None;
    let mut write_error = None;
    let mut out_open = mode.passthrough;
    let mut any_not_ok = false;
    let mut unreadable = false;
    let tick = TICK.min(live.idle.max(Duration::from_millis(1)));
    let mut current = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        match source.next(tick) {
            super::live::Got::End(e) => {
                read_error = e;
                break;
            }
            super::live::Got::Nothing => {}
            super::live::Got::Bytes {
                stream,
                name,
                bytes,
                offset,
                replayed,
            } => {
                // Lines read again after a checkpoint (to fold the run they
                // belong to) went through before the restart.
                let fresh = &bytes[replayed.min(bytes.len())..];
                if out_open
                    && !fresh.is_empty()
                    && let Err(e) = stdout.write_all(fresh).and_then(|_| stdout.flush())
                {
                    // Keep reading so the verdict is still right. A closed
                    // pipe is quiet; any other failure (a full disk) loses
                    // the transcript: said now, and the exit code is 2.
                    out_open = false;
                    if e.kind() != std::io::ErrorKind::BrokenPipe {
                        super::exec::note(&format!(
                            "writing output: {e}; reading on for the verdict, exit code 2"
                        ));
                        write_error = Some(e);
                    }
                }
                if streams.len() <= stream {
                    streams.resize_with(stream + 1, || None);
                }
                let st = streams[stream]
                    .get_or_insert_with(|| Stream::new(name, mode.messages, live.idle, calls));
                st.push(bytes, offset);
                decide(&mut st.reader, &mut st.fold, choice, false);
                drain(&mut st.reader, &mut st.fold);
                say_bad(&mut st.fold, &mut st.tally, show);
                current = stream;
            }
        }
        // Runs over by now, as they end.
        let now = Instant::now();
        let mut out = Vec::new();
        for st in streams.iter_mut().flatten() {
            for r in st.ended(now) {
                telemetry.run(&r, &st.fold.name);
                any_not_ok |= !r.ok();
                write_run(&r, &st.fold.name, mode.json, &mut out);
            }
        }
        if !out.is_empty() && show {
            eprint!("\r\x1b[2K");
        }
        unreadable |= !say_verdicts(&out, mode);
        let replay = |i: usize| streams.get(i)?.as_ref()?.replay();
        if let Err(e) = source.handled(false, &replay) {
            super::exec::note(&e);
            unreadable = true;
        }
        if show
            && let Some(Some(st)) = streams.get(current)
            && (!out.is_empty() || last_draw.elapsed() >= Duration::from_millis(100))
        {
            eprint!("\r\x1b[2K{}", st.fold.status.line());
            last_draw = Instant::now();
        }
    }
    let replay = |i: usize| streams.get(i)?.as_ref()?.replay();
    if let Err(e) = source.handled(true, &replay) {
        super::exec::note(&e);
        unreadable = true;
    }
    // With a checkpoint, the runs not over yet are read again from their
    // start on the next run of the command, and said then: not now.
    let resumable = live.follow.follow_name && live.follow.checkpoint.is_some();
    if streams.is_empty() && !live.follow.follow_name {
        // Nothing came on standard input: its verdict all the same.
        streams.push(Some(Stream::new(
            super::inputs::STDIN_NAME.to_string(),
            mode.messages,
            live.idle,
            calls,
        )));
    }
    if show {
        eprint!("\r\x1b[2K");
    }
    unreadable |= read_error.is_some() || write_error.is_some();
    let mut out = Vec::new();
    for st in streams.iter_mut().flatten().filter(|_| !resumable) {
        any_not_ok |= finish_stream(st, choice, (&prices, &zone), mode, telemetry, &mut out);
    }
    if let Some(e) = read_error.as_ref().filter(|_| mode.messages) {
        eprintln!("cctape: {}: read failed: {e}", super::inputs::STDIN_NAME);
    }
    unreadable |= !say_verdicts(&out, mode);
    let trouble = Trouble {
        unreadable,
        bad_lines: 0,
    };
    trouble.exit_code(if any_not_ok { 1 } else { 0 })
}

/// The end of one stream: what it holds read, its runs' verdicts (the
/// runs not said yet, its sessions, or its finding) written to `out`;
/// true when any is not a success.
fn finish_stream(
    st: &mut Stream,
    choice: cctape::sniff::FormatChoice,
    (prices, zone): (&cctape::pricing::PriceTable, &cctape::time::Zone),
    mode: &Mode,
    telemetry: &mut Telemetry,
    out: &mut Vec<u8>,
) -> bool {
    let said_runs = st.said_runs;
    let (reader, fold) = (&mut st.reader, &mut st.fold);
    decide(reader, fold, choice, true);
    match reader {
        Reader::Sniffing(_) => {}
        Reader::Lines(dec, _) => dec.finish(),
        Reader::Elements(dec, _) => dec.finish(),
    }
    drain(reader, fold);
    end_reading(reader, fold);
    say_bad(fold, &mut st.tally, mode.status);
    let name = fold.name.clone();
    if let Some(rest) = st.tally.end(&name) {
        eprintln!("cctape: {rest}");
    }
    let mut any_not_ok = false;
    let json = mode.json;
    let sessions = (fold.transcripts.records() > 0)
        .then(|| std::mem::take(&mut fold.transcripts).finish(prices, zone));
    let (runs, bad): (Vec<_>, Vec<_>) = std::mem::take(&mut fold.folder)
        .finish()
        .into_iter()
        .partition(|r| r.events > 0);
    if let Some(report) = &sessions {
        for s in &report.sessions {
            let r = s.to_run();
            telemetry.run(&r, &name);
            any_not_ok |= !r.ok();
            if json {
                write_json_value(&session_record(&r, &name, s, report), out);
            } else {
                out.extend_from_slice(super::verdict::human_line(&name, &r).as_bytes());
            }
        }
    } else if runs.is_empty() && said_runs == 0 {
        // No events: what the process wrote is passed through above; its
        // last line may be the CLI's own final error.
        let n = fold.shape.describe();
        let r = no_events_run(bad.into_iter().next(), &n, None);
        any_not_ok |= !r.ok();
        if json {
            write_json_value(&no_events_record(&r, &name, &n), out);
        } else {
            out.extend_from_slice(super::verdict::no_events_line(&name, &r, &n).as_bytes());
        }
    }
    for r in &runs {
        telemetry.run(r, &name);
        any_not_ok |= !r.ok();
        write_run(r, &name, json, out);
    }
    any_not_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctape::event::parse_event;
    use cctape::framing::Lines;
    use cctape::json::Scanner;

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
        let mut parser = Scanner::new();
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
