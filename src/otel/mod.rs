//! OpenTelemetry (feature `otel`): runs as OTLP traces and metrics, the
//! messages of the [`opentelemetry-proto`](opentelemetry_proto) crate
//! (prost types, their protobuf encoding, and the OTLP JSON mapping), and
//! a sender over OTLP/HTTP ([`send`]).
//!
//! **Traces** follow the OpenTelemetry GenAI semantic conventions:
//!
//! | span | name | attributes |
//! |---|---|---|
//! | one per run (and per session transcript) | `invoke_agent claude-code` | `gen_ai.operation.name` `invoke_agent`, `gen_ai.agent.name`, `gen_ai.conversation.id`, the run's tokens |
//! | one per subagent, under the tool call that launched it | `invoke_agent SUBAGENT_TYPE` | `gen_ai.agent.id`, `gen_ai.agent.description`, its tokens |
//! | one per model call (distinct `message.id`; a transcript's request) | `chat MODEL` | `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens`, `cctape.usage.source`; a transcript's request also its `cctape.cost_usd` |
//! | one per tool call (`tool_use` block) | `execute_tool NAME` | `gen_ai.tool.name`, `gen_ai.tool.call.id`; status `ERROR` and `error.type` `tool_error` when its result failed, `rejected` when the call was rejected |
//!
//! A stream's run and a session transcript's run ([`SessionSummary::to_run`])
//! make their spans by the same rules from the same lists (the run's model
//! and tool calls and its subagents): a call is under the subagent that made
//! it (found by the call that launched the subagent, else by the
//! subagent's own id, which a transcript's calls carry), a subagent under
//! the call that launched it.
//!
//! `gen_ai.usage.input_tokens` counts every input token, cached ones
//! included (the convention: the cache attributes are parts of it);
//! Anthropic's own `input_tokens` (uncached) is `cctape.usage.input_tokens`.
//! The counts are the ones `cctape verdict --json` sums: a call's final
//! usage, each `message.id` once.
//!
//! **Times** come from the records' own `timestamp`s where they have them
//! (transcripts; assistant and user events of 2.x streams). An event
//! without one is placed by its order: one millisecond per line after the
//! run's first timestamp, or after the anchor the caller gives (`cctape
//! otel` gives the input's modification time) when the run has none. A
//! span's end is never before its start, and a run's or subagent's span
//! covers its children.
//!
//! **Ids** are hashes (XXH3-128) of the session id (or the input's name
//! when a run has none) and of what each span stands for (the run's start,
//! the `message.id` and a transcript's `requestId`, the `tool_use` id, the
//! call that launched a subagent or else its id): reading an archive again
//! gives the same trace and span ids, so a receiver that keys on them
//! deduplicates a re-send.
//!
//! **Resource** attributes: `service.name` `claude-code`, `service.version`
//! and `app.version` (the Claude Code version), `session.id`,
//! `gen_ai.request.model` (the run's model) and `cctape.input`.
//!
//! **Metrics** use the names of Claude Code's own exporter (its
//! monitoring documentation), so its dashboards work unchanged:
//! `claude_code.session.count` (one per run), `claude_code.token.usage`
//! (unit `tokens`, attribute `type`: `input`, `output`, `cacheRead`,
//! `cacheCreation`, and `model`), `claude_code.cost.usage` (unit `USD`,
//! attribute `model`), each a monotonic sum with delta temporality over
//! the run's time, with `session.id` and `app.version` on every point.
//!
//! ```
//! use cctape::{RunFolder, SliceEvents};
//! use cctape::otel::{MAX_EXPORT_SPANS, run_telemetry, to_json, to_protobuf, trace_requests};
//!
//! let input = std::fs::read("corpus/streams/success-basic.jsonl")?;
//! let mut folder = RunFolder::new();
//! folder.record_calls(true); // the chat and execute_tool spans need them
//! let mut events = SliceEvents::new(&input);
//! while let Some(item) = events.next_event() {
//!     if let Ok(ev) = item {
//!         folder.push(&ev);
//!     }
//! }
//! let run = &folder.finish()[0];
//! let t = run_telemetry(run, "success-basic.jsonl", 0);
//! let names: Vec<&str> = t.spans.scope_spans[0].spans.iter().map(|s| s.name.as_str()).collect();
//! assert_eq!(names[0], "invoke_agent claude-code");
//! assert!(names.iter().any(|n| n.starts_with("chat ")));
//! let request = trace_requests(std::slice::from_ref(&t), MAX_EXPORT_SPANS).next().unwrap();
//! assert!(to_json(&request).starts_with(b"{\"resourceSpans\""));
//! assert!(!to_protobuf(&request).is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::run::RunSummary;
#[cfg(doc)]
use crate::transcript::SessionSummary;
pub use opentelemetry_proto as proto;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::metrics::v1::ResourceMetrics;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};

mod attrs;
mod metrics;
pub mod send;
mod spans;

/// The instrumentation scope cctape's spans and metrics carry.
pub(crate) const SCOPE: &str = "cctape";

/// What one run (or one session transcript) becomes: its spans and its
/// metric points, each under the run's resource.
#[derive(Clone, Debug, PartialEq)]
pub struct RunTelemetry {
    /// The run's spans.
    pub spans: ResourceSpans,
    /// The run's metric points.
    pub metrics: ResourceMetrics,
}

impl RunTelemetry {
    /// Spans in [`spans`](RunTelemetry::spans).
    pub fn span_count(&self) -> usize {
        self.spans.scope_spans.iter().map(|s| s.spans.len()).sum()
    }
}

/// The telemetry of a run: a stream's, or a session transcript's
/// ([`SessionSummary::to_run`]). The run must have been folded with its
/// calls kept ([`RunFolder::record_calls`](crate::RunFolder::record_calls),
/// [`TranscriptFold::record_calls`](crate::transcript::TranscriptFold::record_calls));
/// without its call lists there is one span, the run's, and one per
/// subagent. `input` names the input (its ids when the run has no session
/// id); `anchor_ms` places a run without any timestamp (milliseconds since
/// the Unix epoch).
pub fn run_telemetry(run: &RunSummary, input: &str, anchor_ms: i64) -> RunTelemetry {
    RunTelemetry {
        spans: spans::of_run(run, input, anchor_ms),
        metrics: metrics::of_run(run, input, anchor_ms),
    }
}

/// Spans an export request holds at most, by default: the OpenTelemetry
/// SDKs' batch span processor default (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`,
/// 512). A request of one long run's spans whole would exceed what
/// receivers take in one request (they cap a request's size), and a line
/// of `cctape otel --out` with it would be hundreds of megabytes.
pub const MAX_EXPORT_SPANS: usize = 512;

/// OTLP trace export requests of these runs' spans, in order, each with
/// at most `max_spans` spans (at least 1): runs go together while they
/// fit, and a run with more spans is split across requests, each part
/// under the run's resource and scope. A run is copied into a request
/// part by part, never whole when split.
///
/// ```
/// use cctape::otel::{RunTelemetry, run_telemetry, trace_requests};
/// # use cctape::{RunFolder, SliceEvents};
/// # let input = std::fs::read("corpus/streams/success-basic.jsonl")?;
/// # let mut folder = RunFolder::new();
/// # folder.record_calls(true);
/// # let mut events = SliceEvents::new(&input);
/// # while let Some(Ok(ev)) = events.next_event() { folder.push(&ev); }
/// let t = run_telemetry(&folder.finish()[0], "success-basic.jsonl", 0);
/// let parts: Vec<_> = trace_requests(std::slice::from_ref(&t), 1).collect();
/// assert_eq!(parts.len(), t.span_count());
/// assert!(parts.iter().all(|r| r.resource_spans[0].scope_spans[0].spans.len() == 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn trace_requests(
    runs: &[RunTelemetry],
    max_spans: usize,
) -> impl Iterator<Item = ExportTraceServiceRequest> + '_ {
    Requests::new(runs.iter().map(|r| r.spans.clone()), max_spans)
}

/// As [`trace_requests`], taking the runs' spans: they are moved into the
/// requests, not copied (`cctape otel` writes and sends this way).
pub fn into_trace_requests(
    spans: impl IntoIterator<Item = ResourceSpans>,
    max_spans: usize,
) -> impl Iterator<Item = ExportTraceServiceRequest> {
    Requests::new(spans.into_iter(), max_spans)
}

/// Trace requests made of runs' spans, taken in order: a run goes whole
/// while it fits, else its spans fill requests in turn, each part under
/// the run's resource and scope.
struct Requests<I> {
    runs: I,
    /// The run being split: what its next requests take from.
    rest: Option<Split>,
    max: usize,
}

/// A run whose spans are split across requests: its resource, and each
/// scope with the spans not yet taken (moved out one by one, so a run of
/// many spans is never copied or shifted).
struct Split {
    resource: Option<Resource>,
    schema_url: String,
    scopes: std::collections::VecDeque<(
        Option<InstrumentationScope>,
        String,
        std::vec::IntoIter<Span>,
    )>,
}

impl<I: Iterator<Item = ResourceSpans>> Requests<I> {
    fn new(runs: I, max_spans: usize) -> Requests<I> {
        Requests {
            runs,
            rest: None,
            max: max_spans.max(1),
        }
    }
}

impl<I: Iterator<Item = ResourceSpans>> Iterator for Requests<I> {
    type Item = ExportTraceServiceRequest;

    fn next(&mut self) -> Option<ExportTraceServiceRequest> {
        let mut req = ExportTraceServiceRequest::default();
        let mut room = self.max;
        while room > 0 {
            if let Some(split) = &mut self.rest {
                let mut part = ResourceSpans {
                    resource: split.resource.clone(),
                    scope_spans: Vec::new(),
                    schema_url: split.schema_url.clone(),
                };
                while room > 0
                    && let Some((scope, url, spans)) = split.scopes.front_mut()
                {
                    let take = spans.len().min(room);
                    part.scope_spans.push(ScopeSpans {
                        scope: scope.clone(),
                        spans: spans.by_ref().take(take).collect(),
                        schema_url: url.clone(),
                    });
                    room -= take;
                    if spans.len() == 0 {
                        split.scopes.pop_front();
                    }
                }
                req.resource_spans.push(part);
                if split.scopes.is_empty() {
                    self.rest = None;
                }
                continue;
            }
            let Some(r) = self.runs.next() else {
                break;
            };
            let count: usize = r.scope_spans.iter().map(|s| s.spans.len()).sum();
            if count <= room {
                room -= count;
                req.resource_spans.push(r);
                continue;
            }
            self.rest = Some(Split {
                resource: r.resource,
                schema_url: r.schema_url,
                scopes: r
                    .scope_spans
                    .into_iter()
                    .map(|s| (s.scope, s.schema_url, s.spans.into_iter()))
                    .collect(),
            });
        }
        (!req.resource_spans.is_empty()).then_some(req)
    }
}

/// An OTLP metrics export request of these runs' points.
pub fn metrics_request<'a>(
    runs: impl IntoIterator<Item = &'a RunTelemetry>,
) -> ExportMetricsServiceRequest {
    ExportMetricsServiceRequest {
        resource_metrics: runs.into_iter().map(|r| r.metrics.clone()).collect(),
    }
}

/// As [`metrics_request`], taking the runs' points (moved, not copied).
pub fn into_metrics_request(
    metrics: impl IntoIterator<Item = ResourceMetrics>,
) -> ExportMetricsServiceRequest {
    ExportMetricsServiceRequest {
        resource_metrics: metrics.into_iter().collect(),
    }
}

/// A request as OTLP/JSON (the protobuf JSON mapping: lowerCamelCase
/// keys, ids in hex, 64-bit integers as strings).
pub fn to_json<T: serde::Serialize>(request: &T) -> Vec<u8> {
    // The generated types serialize without failing (no maps with
    // non-string keys, no custom errors).
    serde_json::to_vec(request).unwrap_or_default()
}

/// A request as OTLP protobuf.
pub fn to_protobuf<T: prost::Message>(request: &T) -> Vec<u8> {
    request.encode_to_vec()
}

#[cfg(test)]
mod tests;
