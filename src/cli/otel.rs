//! `cctape otel`: archives (streams, captures, session transcripts) as
//! OpenTelemetry, in bulk: OTLP JSON files in a folder (`--out DIR`) and/or
//! OTLP over HTTP to a receiver (`--otlp ENDPOINT`). The mapping is the
//! library's ([`cctape::otel`]); the runs are the ones `verdict` prints.
//!
//! A stream's runs long over are made telemetry while the input is read
//! and handed, encoded, through the reading's ordered output
//! ([`exec::run_into`]) to the thread that writes the files and feeds the
//! sender: one input of many runs is exported in bounded memory. The
//! files get 64 runs a line (`--otlp-batch`) and at most 512 spans
//! (`--otlp-max-spans`), whatever the reading's blocks, so they do not
//! depend on `--jobs`.

use super::exec::{self, BadLine, Done, Item, Piece, Reads, Sink};
use super::reading::{Costing, ReadAs, Transcripts};
use super::{Common, expand};
use cctape::error::Error;
use cctape::otel::send::{Config, Outcome, Protocol, Sender};
use cctape::otel::{RunTelemetry, into_metrics_request, into_trace_requests, run_telemetry};
use cctape::sniff::Format;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How to send OTLP (shared with `watch --otlp`).
#[derive(clap::Args, Debug, Clone)]
pub struct OtlpArgs {
    /// Send to this OTLP/HTTP receiver: a base URL (`/v1/traces` and
    /// `/v1/metrics` are added, as OTEL_EXPORTER_OTLP_ENDPOINT is read), or
    /// a URL ending in /v1/traces. Phoenix: http://localhost:6006.
    #[arg(long, value_name = "ENDPOINT")]
    pub otlp: Option<String>,
    /// The encoding: http/protobuf (the default) or http/json.
    #[arg(long, value_name = "PROTOCOL", default_value = "http/protobuf", value_parser = protocol_arg)]
    pub otlp_protocol: String,
    /// What to send: traces, metrics, or both (a receiver of traces only,
    /// as Phoenix is, takes `--signals traces`).
    #[arg(long, value_name = "LIST", default_value = "traces,metrics", value_parser = signals_arg)]
    pub signals: String,
    /// Extra request header `NAME=VALUE` (repeat it), as
    /// OTEL_EXPORTER_OTLP_HEADERS gives them.
    #[arg(long = "otlp-header", value_name = "NAME=VALUE", value_parser = header_arg)]
    pub otlp_headers: Vec<String>,
    /// Retries of a request refused with 429, 502, 503 or 504, or not
    /// answered, with exponential backoff from 250 ms.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub otlp_retries: u32,
    /// Batches waiting to be sent before more are dropped (and counted):
    /// the reading never waits for a slow receiver.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub otlp_queue: usize,
    /// Runs per batch: a metrics request (or line of `--out`'s
    /// metrics.jsonl) holds at most this many runs' points.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub otlp_batch: usize,
    /// Spans per trace request (or line of `--out`'s traces.jsonl) at most:
    /// a long run's spans are split across requests (512 by default, the
    /// OpenTelemetry SDKs' OTEL_BSP_MAX_EXPORT_BATCH_SIZE; receivers cap a
    /// request's size).
    #[arg(long, value_name = "N", default_value_t = cctape::otel::MAX_EXPORT_SPANS)]
    pub otlp_max_spans: usize,
}

fn protocol_arg(s: &str) -> Result<String, String> {
    Protocol::parse(s)
        .map(|_| s.to_owned())
        .ok_or_else(|| format!("{s:?}: expected http/protobuf or http/json"))
}

fn signals_arg(s: &str) -> Result<String, String> {
    for part in s.split(',') {
        if !matches!(part.trim(), "traces" | "metrics") {
            return Err(format!("{part:?}: expected traces, metrics or both"));
        }
    }
    Ok(s.to_owned())
}

fn header_arg(s: &str) -> Result<String, String> {
    match s.split_once('=') {
        Some((k, _)) if !k.trim().is_empty() => Ok(s.to_owned()),
        _ => Err(format!("{s:?}: expected NAME=VALUE")),
    }
}

impl OtlpArgs {
    /// The sender's configuration, when `--otlp` was given.
    pub fn config(&self) -> Option<Config> {
        let endpoint = self.otlp.as_deref()?;
        let mut c = Config::new(endpoint);
        c.protocol = Protocol::parse(&self.otlp_protocol).unwrap_or_default();
        c.traces = self.wants("traces");
        c.metrics = self.wants("metrics");
        c.retries = self.otlp_retries;
        c.queue = self.otlp_queue.max(1);
        c.batch_runs = self.otlp_batch.max(1);
        c.max_spans = self.otlp_max_spans.max(1);
        c.headers = self
            .otlp_headers
            .iter()
            .filter_map(|h| h.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        Some(c)
    }

    /// Whether the signal is asked for.
    pub fn wants(&self, signal: &str) -> bool {
        self.signals.split(',').any(|s| s.trim() == signal)
    }
}

/// What a sender did, said on stderr; false when something was not
/// delivered (dropped or refused).
pub fn report_outcome(o: &Outcome) -> bool {
    let mut ok = true;
    if o.dropped_spans > 0 || o.dropped_points > 0 {
        exec::note(&format!(
            "otlp: {} spans and {} metric points dropped: the receiver was slower than the reading (--otlp-queue)",
            o.dropped_spans, o.dropped_points
        ));
        ok = false;
    }
    if !o.failures.is_empty() {
        exec::note(&format!(
            "otlp: {} spans and {} metric points not delivered: {}",
            o.failed_spans,
            o.failed_points,
            o.failures.join("; ")
        ));
        ok = false;
    }
    ok
}

/// Arguments of `cctape otel`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Write OTLP JSON files into DIR: traces.jsonl and metrics.jsonl, one
    /// export request a line (the OpenTelemetry Collector's file exporter
    /// format; at most --otlp-max-spans spans and --otlp-batch runs'
    /// points a line), each replaced atomically.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    otlp: OtlpArgs,
    #[command(flatten)]
    read: ReadAs,
    #[command(flatten)]
    costing: Costing,
    #[command(flatten)]
    common: Common,
}

#[derive(Default)]
struct OtelSink {
    runs: exec::PerRun,
    /// Where the input's runs without timestamps are placed (its
    /// modification time when it was opened).
    anchor: i64,
}

impl OtelSink {
    fn new() -> OtelSink {
        let mut sink = OtelSink::default();
        sink.runs.folder.record_calls(true);
        // A transcript's model calls keep their message and request ids
        // (the chat spans' keys) as its records are read.
        sink.runs.transcript.fold.record_calls(true);
        sink
    }
}

/// A run's telemetry through the reading's ordered output ([`exec::run_into`]):
/// its spans and its points, each as protobuf after its length (eight
/// bytes, little-endian: a run's spans may pass 4 GiB).
fn encode_run(t: &RunTelemetry, out: &mut Vec<u8>) {
    use prost::Message;
    for len_and_bytes in [t.spans.encode_to_vec(), t.metrics.encode_to_vec()] {
        out.extend_from_slice(&(len_and_bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&len_and_bytes);
    }
}

/// The runs [`encode_run`] wrote into `bytes`, which it empties.
fn decode_runs(bytes: &mut Vec<u8>) -> Vec<RunTelemetry> {
    use cctape::otel::proto::tonic::metrics::v1::ResourceMetrics;
    use cctape::otel::proto::tonic::trace::v1::ResourceSpans;
    use prost::Message;
    fn next<'b>(b: &mut &'b [u8]) -> Option<&'b [u8]> {
        let (len, rest) = b.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        let (msg, rest) = (rest.get(..len)?, rest.get(len..)?);
        *b = rest;
        Some(msg)
    }
    let mut runs = Vec::new();
    let mut b = &bytes[..];
    // Written whole by this process just before: a part that does not
    // decode cannot happen; if it did, it is said, not dropped quietly.
    let mut lost = false;
    while let (Some(s), Some(m)) = (next(&mut b), next(&mut b)) {
        match (ResourceSpans::decode(s), ResourceMetrics::decode(m)) {
            (Ok(spans), Ok(metrics)) => runs.push(RunTelemetry { spans, metrics }),
            _ => {
                lost = true;
                break;
            }
        }
    }
    if lost || !b.is_empty() {
        exec::note(
            "otel: internal error: finished runs could not be read back; their telemetry is missing",
        );
    }
    bytes.clear();
    runs
}

impl Sink for OtelSink {
    fn reads(&self) -> Reads {
        Reads::FOLDS
    }

    fn format(&mut self, p: &Piece<'_>, format: Format) {
        self.anchor = anchor_of(p.name);
        self.runs.format(p, format);
    }

    /// A run long over is made telemetry as the input is read
    /// ([`exec::PerRun`]); a bad line is counted in its run.
    #[inline(always)]
    fn item(&mut self, p: &Piece<'_>, item: Item<'_, '_>, out: &mut Vec<u8>) {
        let anchor = self.anchor;
        self.runs.item(item, |r| {
            if r.events > 0 {
                encode_run(&run_telemetry(&r, p.name, anchor), out);
            }
        });
    }

    /// A stream's runs may be folded apart, their calls kept as this
    /// folder keeps them: nothing but the folder sees its events.
    fn apart(&self) -> Option<exec::Apart> {
        self.runs.apart(true)
    }

    fn adopt(&mut self, p: &Piece<'_>, part: &mut exec::Apart, out: &mut Vec<u8>) -> bool {
        let anchor = self.anchor;
        self.runs.adopt(part, |r| {
            if r.events > 0 {
                encode_run(&run_telemetry(&r, p.name, anchor), out);
            }
        })
    }

    /// A bad line is counted in its run (its record in `verdict`), said on
    /// stderr.
    fn bad_line(&self, _: &Error, _: Option<&[u8]>) -> BadLine {
        BadLine::Counted
    }
}

/// A file in the output folder, written under a temporary name and
/// renamed over its own when complete.
struct OutFile {
    path: PathBuf,
    tmp: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    /// The line being made.
    line: Vec<u8>,
}

impl OutFile {
    fn create(dir: &Path, name: &str) -> std::io::Result<OutFile> {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        Ok(OutFile {
            path,
            tmp,
            file: std::io::BufWriter::new(file),
            line: Vec::new(),
        })
    }

    /// One request as a line of OTLP/JSON (as [`cctape::otel::to_json`]
    /// writes it), made in a buffer kept from line to line.
    fn line<T: serde::Serialize>(&mut self, request: &T) -> std::io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, request)?;
        self.line.push(b'\n');
        self.file.write_all(&self.line)
    }

    fn commit(self) -> std::io::Result<()> {
        let OutFile {
            path, tmp, file, ..
        } = self;
        let done = (|| {
            let f = file.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        done
    }

    fn abandon(self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// The OTLP JSON files of `--out DIR`.
struct OutDir {
    traces: OutFile,
    metrics: OutFile,
    /// Spans per traces line, runs per metrics line, at most.
    max_spans: usize,
    batch_runs: usize,
}

impl OutDir {
    fn create(dir: &Path, otlp: &OtlpArgs) -> std::io::Result<OutDir> {
        std::fs::create_dir_all(dir)?;
        let traces = OutFile::create(dir, "traces.jsonl")?;
        match OutFile::create(dir, "metrics.jsonl") {
            Ok(metrics) => Ok(OutDir {
                traces,
                metrics,
                max_spans: otlp.otlp_max_spans.max(1),
                batch_runs: otlp.otlp_batch.max(1),
            }),
            Err(e) => {
                traces.abandon();
                Err(e)
            }
        }
    }

    /// One export request per line for this input's runs: at most
    /// `max_spans` spans a traces line, `batch_runs` runs a metrics line;
    /// the runs' spans and points are moved into the requests, not copied.
    fn write(&mut self, runs: Vec<RunTelemetry>) -> std::io::Result<()> {
        let (spans, metrics): (Vec<_>, Vec<_>) =
            runs.into_iter().map(|r| (r.spans, r.metrics)).unzip();
        for req in into_trace_requests(spans, self.max_spans) {
            self.traces.line(&req)?;
        }
        let mut metrics = metrics.into_iter();
        loop {
            let batch: Vec<_> = metrics.by_ref().take(self.batch_runs).collect();
            if batch.is_empty() {
                return Ok(());
            }
            self.metrics.line(&into_metrics_request(batch))?;
        }
    }

    fn commit(self) -> std::io::Result<()> {
        let OutDir {
            traces, metrics, ..
        } = self;
        match traces.commit() {
            Ok(()) => metrics.commit(),
            Err(e) => {
                metrics.abandon();
                Err(e)
            }
        }
    }
}

/// The input's modification time (ms since the epoch): where a run
/// without timestamps is placed; 0 for standard input.
fn anchor_of(name: &str) -> i64 {
    std::fs::metadata(name)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0))
}

/// Where the telemetry goes: files, a receiver, or both.
struct Outputs {
    dir: Option<OutDir>,
    dir_error: Option<std::io::Error>,
    sender: Option<Sender>,
    /// Runs not yet written to `dir`: written `batch_runs` at a time, and
    /// at the end of each input, so that the lines do not depend on how
    /// the reading handed the runs over.
    pending: Vec<RunTelemetry>,
    batch_runs: usize,
    runs: u64,
    spans: u64,
}

impl Outputs {
    fn put(&mut self, runs: Vec<RunTelemetry>) {
        for r in runs {
            self.runs += 1;
            self.spans += r.span_count() as u64;
            if self.dir.is_none() {
                if let Some(s) = &mut self.sender {
                    s.push(r);
                }
                continue;
            }
            self.pending.push(r);
            if self.pending.len() >= self.batch_runs {
                self.flush();
            }
        }
    }

    /// Write the pending runs (the end of an input), then send them.
    fn flush(&mut self) {
        let runs = std::mem::take(&mut self.pending);
        // Written from a copy only when they are also sent.
        let (to_write, runs) = match (&self.dir, &self.sender) {
            (Some(_), Some(_)) => (runs.clone(), runs),
            (Some(_), None) => (runs, Vec::new()),
            (None, _) => (Vec::new(), runs),
        };
        if let Some(d) = &mut self.dir
            && let Err(e) = d.write(to_write)
        {
            self.dir_error = Some(e);
            if let Some(d) = self.dir.take() {
                d.traces.abandon();
                d.metrics.abandon();
            }
        }
        if let Some(s) = &mut self.sender {
            for r in runs {
                s.push(r);
            }
        }
    }
}

/// Run the command. Exit code: 0 when everything was written and
/// delivered; 2 for a usage error, an input that could not be read, files
/// not written, or telemetry dropped or not delivered (the reason said).
pub fn run(args: &Args) -> i32 {
    if args.out.is_none() && args.otlp.otlp.is_none() {
        exec::note("otel: say where to: --out DIR (OTLP JSON files) and/or --otlp ENDPOINT");
        return 2;
    }
    let (prices, zone) = match (args.costing.prices(), args.costing.zone()) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(e), _) | (_, Err(e)) => {
            exec::note(&e);
            return 2;
        }
    };
    let dir = match args.out.as_deref().map(|d| OutDir::create(d, &args.otlp)) {
        None => None,
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => {
            exec::note(&format!(
                "otel: --out {}: {e}",
                args.out.as_deref().unwrap_or(Path::new("")).display()
            ));
            return 2;
        }
    };
    let (inputs, unreadable) = expand(&args.common);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    // Shared by the reading's output (the runs drained while an input is
    // read) and the end of each input (the rest), which never overlap.
    let out = std::cell::RefCell::new(Outputs {
        dir,
        dir_error: None,
        sender: args.otlp.config().map(Sender::start),
        pending: Vec::new(),
        batch_runs: args.otlp.otlp_batch.max(1),
        runs: 0,
        spans: 0,
    });
    let mut transcripts = Transcripts::default();
    transcripts.record_calls();
    let trouble = exec::run_into(
        &inputs,
        &opts,
        OtelSink::new,
        |done: Done<OtelSink>| {
            let name = &names[done.input];
            let (sink, anchor) = (done.sink.runs, done.sink.anchor);
            if done.unreadable || done.counts.events == 0 {
                return;
            }
            if sink.format == Some(Format::Transcript) {
                transcripts.add(sink.transcript);
                return;
            }
            let runs: Vec<RunTelemetry> = sink
                .folder
                .finish()
                .iter()
                .filter(|r| r.events > 0)
                .map(|r| run_telemetry(r, name, anchor))
                .collect();
            let mut out = out.borrow_mut();
            out.put(runs);
            out.flush();
        },
        |bytes: &mut Vec<u8>| out.borrow_mut().put(decode_runs(bytes)),
    );
    let mut out = out.into_inner();
    if let Some((report, files)) = transcripts.finish(&names, &prices, &zone) {
        for (s, &i) in report.sessions.iter().zip(&files) {
            let t = run_telemetry(&s.to_run(), &names[i], anchor_of(&names[i]));
            out.put(vec![t]);
            out.flush();
        }
    }
    out.flush();
    let mut failed = false;
    if let Some(e) = &out.dir_error {
        exec::note(&format!("otel: --out: {e}"));
        failed = true;
    } else if let Some(d) = out.dir.take()
        && let Err(e) = d.commit()
    {
        exec::note(&format!("otel: --out: {e}"));
        failed = true;
    }
    if let Some(s) = out.sender.take() {
        let o = s.finish();
        failed |= !report_outcome(&o);
        if !args.common.quiet {
            exec::note(&format!(
                "otel: {} runs, {} spans; sent {} spans and {} metric points in {} requests ({} retries)",
                out.runs, out.spans, o.sent_spans, o.sent_points, o.requests, o.retries
            ));
        }
    } else if !args.common.quiet {
        exec::note(&format!("otel: {} runs, {} spans", out.runs, out.spans));
    }
    trouble
        .and(unreadable)
        .exit_code(if failed { 2 } else { 0 })
}

/// `watch --otlp`: each finished run handed to a sender as it is printed,
/// never waiting for the receiver (a full queue drops, counted).
pub struct Live {
    sender: Sender,
}

impl Live {
    /// A sender when `--otlp` was given.
    pub fn start(args: &OtlpArgs) -> Option<Live> {
        args.config().map(|c| Live {
            sender: Sender::start(c),
        })
    }

    /// Send a finished run, a stream's or a transcript session's (folded
    /// with its call lists).
    pub fn run(&mut self, run: &cctape::run::RunSummary, name: &str) {
        self.sender.push(run_telemetry(run, name, now_ms()));
        self.sender.flush();
    }

    /// Wait for what is queued; false (said) when something was dropped or
    /// not delivered.
    pub fn finish(self) -> bool {
        report_outcome(&self.sender.finish())
    }
}

/// Now, in milliseconds since the epoch: where a live run without
/// timestamps is placed.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0))
}
