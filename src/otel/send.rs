//! OTLP over HTTP (`http/protobuf` or `http/json`), as the OpenTelemetry
//! exporters send it: batches posted to `ENDPOINT/v1/traces` and
//! `ENDPOINT/v1/metrics` by one worker thread, retried with exponential
//! backoff on 429, 502, 503, 504 and connection errors (a `Retry-After`
//! in seconds is honoured), behind a bounded queue.
//!
//! Reading never waits for the receiver: [`Sender::push`] hands a batch
//! over when the queue has room and otherwise drops it, counting its spans
//! and points ([`Outcome::dropped_spans`]). What could not be delivered
//! in the end is in [`Outcome::failures`].
//!
//! The HTTP client is ureq (blocking, plain HTTP: no TLS stack is built
//! in; put a local collector in front of an `https` receiver).

use super::{
    MAX_EXPORT_SPANS, RunTelemetry, into_metrics_request, into_trace_requests, to_json, to_protobuf,
};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// The OTLP/HTTP encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Protocol {
    /// `application/x-protobuf` (the default of the OTLP exporters).
    #[default]
    HttpProtobuf,
    /// `application/json` (OTLP/JSON).
    HttpJson,
}

impl Protocol {
    /// `http/protobuf` or `http/json`, as `OTEL_EXPORTER_OTLP_PROTOCOL`
    /// names them.
    pub fn parse(s: &str) -> Option<Protocol> {
        match s {
            "http/protobuf" => Some(Protocol::HttpProtobuf),
            "http/json" => Some(Protocol::HttpJson),
            _ => None,
        }
    }
}

/// Where and how to send.
#[derive(Clone, Debug)]
pub struct Config {
    /// The receiver: a base URL (`http://localhost:4318`, to which
    /// `/v1/traces` and `/v1/metrics` are added, as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is read), or a traces URL ending in
    /// `/v1/traces` (metrics then go to its `/v1/metrics`).
    pub endpoint: String,
    /// The encoding.
    pub protocol: Protocol,
    /// Send the spans.
    pub traces: bool,
    /// Send the metric points.
    pub metrics: bool,
    /// Runs per batch: one metrics request, and trace requests of at most
    /// [`max_spans`](Config::max_spans) spans each.
    pub batch_runs: usize,
    /// Spans per trace request at most ([`MAX_EXPORT_SPANS`] by default).
    pub max_spans: usize,
    /// Batches waiting for the worker before new ones are dropped.
    pub queue: usize,
    /// Retries of a request after the first try.
    pub retries: u32,
    /// The first retry's wait; each next one doubles it (at most 30 s).
    pub backoff: Duration,
    /// One request's time limit.
    pub timeout: Duration,
    /// Extra request headers (`Authorization`, ...).
    pub headers: Vec<(String, String)>,
}

impl Config {
    /// Defaults for this endpoint: protobuf, traces and metrics, 64 runs a
    /// batch, 512 spans a trace request, 64 batches queued, 5 retries from 250 ms, 10 s per request.
    pub fn new(endpoint: &str) -> Config {
        Config {
            endpoint: endpoint.to_owned(),
            protocol: Protocol::HttpProtobuf,
            traces: true,
            metrics: true,
            batch_runs: 64,
            max_spans: MAX_EXPORT_SPANS,
            queue: 64,
            retries: 5,
            backoff: Duration::from_millis(250),
            timeout: Duration::from_secs(10),
            headers: Vec::new(),
        }
    }

    /// The traces and metrics URLs.
    pub(crate) fn urls(&self) -> (String, String) {
        let e = self.endpoint.trim_end_matches('/');
        match e.strip_suffix("/v1/traces") {
            Some(base) => (e.to_owned(), format!("{base}/v1/metrics")),
            None => (format!("{e}/v1/traces"), format!("{e}/v1/metrics")),
        }
    }
}

/// What a [`Sender`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// Spans the receiver accepted.
    pub sent_spans: u64,
    /// Metric data points it accepted.
    pub sent_points: u64,
    /// Requests made (first tries and retries).
    pub requests: u64,
    /// Retries among them.
    pub retries: u64,
    /// Spans dropped because the queue was full (the receiver was slower
    /// than the reading).
    pub dropped_spans: u64,
    /// Metric points dropped with them.
    pub dropped_points: u64,
    /// Spans that could not be delivered (retries exhausted, or refused).
    pub failed_spans: u64,
    /// Metric points that could not be delivered.
    pub failed_points: u64,
    /// Why delivery failed: the URL and the reason, the first failure of
    /// each URL.
    pub failures: Vec<String>,
}

struct Batch {
    runs: Vec<RunTelemetry>,
}

fn points(r: &RunTelemetry) -> u64 {
    r.metrics
        .scope_metrics
        .iter()
        .flat_map(|s| &s.metrics)
        .map(|m| match &m.data {
            Some(opentelemetry_proto::tonic::metrics::v1::metric::Data::Sum(s)) => {
                s.data_points.len() as u64
            }
            _ => 0,
        })
        .sum()
}

/// Sends runs' telemetry on a worker thread.
pub struct Sender {
    tx: Option<SyncSender<Batch>>,
    worker: Option<JoinHandle<Outcome>>,
    pending: Vec<RunTelemetry>,
    batch_runs: usize,
    dropped_spans: u64,
    dropped_points: u64,
}

impl Sender {
    /// Start the worker.
    pub fn start(config: Config) -> Sender {
        let (tx, rx) = sync_channel(config.queue.max(1));
        let batch_runs = config.batch_runs.max(1);
        let worker = std::thread::Builder::new()
            .name("cctape-otlp".to_owned())
            .spawn(move || work(&config, rx))
            .ok();
        Sender {
            tx: Some(tx),
            worker,
            pending: Vec::new(),
            batch_runs,
            dropped_spans: 0,
            dropped_points: 0,
        }
    }

    /// Add a run; a full batch is handed to the worker, or dropped (and
    /// counted) when the queue is full. Never waits.
    pub fn push(&mut self, run: RunTelemetry) {
        self.pending.push(run);
        if self.pending.len() >= self.batch_runs {
            self.hand_over();
        }
    }

    /// Hand the runs added so far to the worker now (a live stream calls it
    /// after each run; [`finish`](Sender::finish) does it too).
    pub fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        let runs = std::mem::take(&mut self.pending);
        let Some(tx) = &self.tx else { return };
        if let Err(TrySendError::Full(b) | TrySendError::Disconnected(b)) =
            tx.try_send(Batch { runs })
        {
            for r in &b.runs {
                self.dropped_spans += r.span_count() as u64;
                self.dropped_points += points(r);
            }
        }
    }

    /// Send what is left, wait for the worker, and say what was done.
    pub fn finish(mut self) -> Outcome {
        self.flush_blocking();
        self.tx = None;
        let mut out = match self.worker.take().map(JoinHandle::join) {
            Some(Ok(o)) => o,
            _ => Outcome {
                failures: vec!["the sending thread could not run".to_owned()],
                ..Outcome::default()
            },
        };
        out.dropped_spans += self.dropped_spans;
        out.dropped_points += self.dropped_points;
        out
    }

    /// The last batch waits for room (the reading is over: nothing is
    /// held up by waiting now).
    fn flush_blocking(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let runs = std::mem::take(&mut self.pending);
        if let Some(tx) = &self.tx
            && let Err(e) = tx.send(Batch { runs })
        {
            for r in &e.0.runs {
                self.dropped_spans += r.span_count() as u64;
                self.dropped_points += points(r);
            }
        }
    }
}

/// The worker: each batch as trace requests of at most
/// [`Config::max_spans`] spans each, and one metrics request.
fn work(config: &Config, rx: Receiver<Batch>) -> Outcome {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(config.timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let (traces_url, metrics_url) = config.urls();
    let mut out = Outcome::default();
    // A URL whose retries ran out: later batches try it once each (an
    // unreachable receiver does not cost every batch the whole backoff).
    let mut down = [false, false];
    while let Ok(batch) = rx.recv() {
        let pts: u64 = batch.runs.iter().map(points).sum();
        let (spans, metrics): (Vec<_>, Vec<_>) =
            batch.runs.into_iter().map(|r| (r.spans, r.metrics)).unzip();
        if config.traces {
            for req in into_trace_requests(spans, config.max_spans) {
                let spans: u64 = req
                    .resource_spans
                    .iter()
                    .flat_map(|r| &r.scope_spans)
                    .map(|s| s.spans.len() as u64)
                    .sum();
                if spans == 0 {
                    continue;
                }
                let body = encode(config.protocol, &req);
                drop(req);
                if deliver(&agent, config, &traces_url, &body, &mut down[0], &mut out) {
                    out.sent_spans += spans;
                } else {
                    out.failed_spans += spans;
                }
            }
        }
        if config.metrics && pts > 0 {
            let req = into_metrics_request(metrics);
            let body = encode(config.protocol, &req);
            if deliver(&agent, config, &metrics_url, &body, &mut down[1], &mut out) {
                out.sent_points += pts;
            } else {
                out.failed_points += pts;
            }
        }
    }
    out
}

/// [`post`] one request to `url`, which is `down` once its retries ran out
/// (then tried once, until it answers again): true when it was taken; the
/// first failure of a URL that was up is said in `out`.
fn deliver(
    agent: &ureq::Agent,
    config: &Config,
    url: &str,
    body: &[u8],
    down: &mut bool,
    out: &mut Outcome,
) -> bool {
    match post(agent, config, url, body, *down, out) {
        Ok(()) => {
            *down = false;
            true
        }
        Err(e) => {
            if !*down {
                out.failures.push(format!("{url}: {e}"));
            }
            *down = true;
            false
        }
    }
}

fn encode<T: serde::Serialize + prost::Message>(p: Protocol, req: &T) -> Vec<u8> {
    match p {
        Protocol::HttpJson => to_json(req),
        Protocol::HttpProtobuf => to_protobuf(req),
    }
}

/// Statuses worth a retry (the OTLP/HTTP specification's list).
fn retryable(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// One request, retried (tried once when `down`); `Err` says why it was
/// given up.
fn post(
    agent: &ureq::Agent,
    config: &Config,
    url: &str,
    body: &[u8],
    down: bool,
    out: &mut Outcome,
) -> Result<(), String> {
    let retries = if down { 0 } else { config.retries };
    let content_type = match config.protocol {
        Protocol::HttpJson => "application/json",
        Protocol::HttpProtobuf => "application/x-protobuf",
    };
    let mut wait = config.backoff;
    let mut tries = 0;
    loop {
        tries += 1;
        out.requests += 1;
        let mut req = agent.post(url).header("Content-Type", content_type);
        for (k, v) in &config.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let (why, retry_after) = match req.send(body) {
            Ok(mut resp) => {
                let status = resp.status().as_u16();
                if (200..300).contains(&status) {
                    return Ok(());
                }
                let after = resp
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let text = resp
                    .body_mut()
                    .with_config()
                    .limit(512)
                    .read_to_string()
                    .unwrap_or_default();
                let why = format!(
                    "HTTP {status}{}{}",
                    if text.is_empty() { "" } else { ": " },
                    text.trim()
                );
                if !retryable(status) {
                    return Err(why);
                }
                (why, after)
            }
            Err(e) => (e.to_string(), None),
        };
        if tries > retries {
            return Err(format!("{why} (after {tries} tries)"));
        }
        out.retries += 1;
        std::thread::sleep(retry_after.unwrap_or(wait).min(Duration::from_secs(30)));
        wait = (wait * 2).min(Duration::from_secs(30));
    }
}
