//! The spans of a run, a stream's or a session transcript's (see the
//! module above for the mapping): built from the run's call lists, then
//! each parent stretched over its children.

use super::SCOPE;
use super::attrs::{Attrs, nanos, span_id, trace_id};
use crate::event::TokenCounts;
use crate::run::{RunSummary, SubagentNode};
use crate::time::parse_millis;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
use std::collections::HashMap;

/// The GenAI provider, as the conventions name Anthropic.
const PROVIDER: &str = "anthropic";

/// A span being built: its times in milliseconds, its parent an index.
struct Node {
    span: Span,
    parent: Option<usize>,
    start: i64,
    end: i64,
}

/// The spans of one trace.
struct Trace {
    id: Vec<u8>,
    nodes: Vec<Node>,
    /// Where order-placed events start, and the line they count from.
    anchor: i64,
    first_line: u64,
}

impl Trace {
    fn new(seed: &str, anchor: i64, first_line: u64) -> Trace {
        Trace {
            id: trace_id(&[b"cctape", seed.as_bytes()]),
            nodes: Vec::new(),
            anchor,
            first_line,
        }
    }

    /// The time of a line placed by its order: one millisecond a line.
    fn at_line(&self, line: u64) -> i64 {
        let n = i64::try_from(line.saturating_sub(self.first_line)).unwrap_or(i64::MAX);
        self.anchor.saturating_add(n)
    }

    fn span_id(&self, what: &str, key: &[u8]) -> Vec<u8> {
        span_id(&[&self.id, what.as_bytes(), key])
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        id: Vec<u8>,
        parent: Option<usize>,
        name: String,
        kind: SpanKind,
        (start, end): (i64, i64),
        attrs: &mut Attrs,
        status: Option<(bool, &str)>,
    ) -> usize {
        let status = status.map(|(error, message)| Status {
            message: message.to_owned(),
            code: if error {
                StatusCode::Error
            } else {
                StatusCode::Ok
            } as i32,
        });
        self.nodes.push(Node {
            span: Span {
                trace_id: self.id.clone(),
                span_id: id,
                name,
                kind: kind as i32,
                attributes: attrs.take(),
                status,
                ..Span::default()
            },
            parent,
            start,
            // (i64::MAX, i64::MIN): no times of its own, its children's.
            end: if start == i64::MAX {
                end
            } else {
                end.max(start)
            },
        });
        self.nodes.len() - 1
    }

    /// Each parent stretched over its children, then the spans with their
    /// parents' ids and their times.
    fn finish(
        mut self,
        resource: Vec<opentelemetry_proto::tonic::common::v1::KeyValue>,
    ) -> ResourceSpans {
        // Deepest first, each child's bounds into its parent's: one pass,
        // however deep the spans nest.
        let order = shallowest_first(&self.nodes);
        for &i in order.iter().rev() {
            let Some(p) = self.nodes[i].parent else {
                continue;
            };
            let (s, e) = (self.nodes[i].start, self.nodes[i].end);
            let parent = &mut self.nodes[p];
            parent.start = parent.start.min(s);
            parent.end = parent.end.max(e);
        }
        settle_empty(&mut self, &order);
        let ids: Vec<Vec<u8>> = self.nodes.iter().map(|n| n.span.span_id.clone()).collect();
        let spans = self
            .nodes
            .into_iter()
            .map(|n| {
                let mut s = n.span;
                s.parent_span_id = n.parent.map(|p| ids[p].clone()).unwrap_or_default();
                s.start_time_unix_nano = nanos(n.start);
                s.end_time_unix_nano = nanos(n.end);
                s
            })
            .collect();
        ResourceSpans {
            resource: Some(Resource {
                attributes: resource,
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: SCOPE.to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    ..InstrumentationScope::default()
                }),
                spans,
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }
    }
}

/// The GenAI usage attributes of a token count: `input_tokens` with the
/// cache (the convention), the cache parts, and Anthropic's uncached input.
fn usage(a: &mut Attrs, t: &TokenCounts) {
    let input = t
        .input_tokens
        .saturating_add(t.cache_read_input_tokens)
        .saturating_add(t.cache_creation_input_tokens);
    a.int("gen_ai.usage.input_tokens", input)
        .int("gen_ai.usage.output_tokens", t.output_tokens)
        .int(
            "gen_ai.usage.cache_read.input_tokens",
            t.cache_read_input_tokens,
        )
        .int(
            "gen_ai.usage.cache_creation.input_tokens",
            t.cache_creation_input_tokens,
        )
        .int("cctape.usage.input_tokens", t.input_tokens);
}

/// The resource of a run: the session, the model, the Claude Code version.
pub(super) fn resource(
    run: &RunSummary,
    input: &str,
) -> Vec<opentelemetry_proto::tonic::common::v1::KeyValue> {
    let mut a = Attrs::default();
    a.str("service.name", "claude-code")
        .opt("service.version", run.claude_code_version.as_deref())
        .opt("app.version", run.claude_code_version.as_deref())
        .opt("session.id", run.session_id.as_deref())
        .opt("gen_ai.request.model", run.model.as_deref())
        .str("cctape.input", input);
    a.take()
}

/// The root span's attributes and status: the run's outcome and totals.
fn root_attrs(run: &RunSummary, a: &mut Attrs) {
    let mut tokens = run.usage.main.tokens;
    tokens.add(&run.usage.subagents.tokens);
    a.str("gen_ai.operation.name", "invoke_agent")
        .str("gen_ai.provider.name", PROVIDER)
        .str("gen_ai.agent.name", "claude-code")
        .opt("gen_ai.conversation.id", run.session_id.as_deref())
        .opt("gen_ai.request.model", run.model.as_deref())
        .str("cctape.verdict", run.verdict.as_str())
        .float("cctape.cost_usd", run.cost.total_cost_usd)
        .int("cctape.tool_calls", run.tool_calls_total())
        .int("cctape.tool_errors", run.tool_errors_total());
    usage(a, &tokens);
}

/// The subagents (the nodes that are agents: background Bash and Workflow
/// tasks are not), depth first, with the agent that launched each.
fn flatten<'a>(
    nodes: &'a [SubagentNode],
    parent: Option<usize>,
    out: &mut Vec<(&'a SubagentNode, Option<usize>)>,
) {
    for n in nodes {
        let mut me = parent;
        if n.is_agent() {
            me = Some(out.len());
            out.push((n, parent));
        }
        flatten(&n.children, me, out);
    }
}

/// A subagent's key among the spans: the call that launched it, or its id
/// when no record names its call (a transcript's subagent whose parent's
/// records do not say).
fn agent_key(n: &SubagentNode) -> &str {
    match (n.tool_use_id.as_str(), n.task_id.as_deref()) {
        ("", Some(id)) => id,
        (call, _) => call,
    }
}

/// The spans of a run (a stream's, or a session transcript's).
pub(super) fn of_run(run: &RunSummary, input: &str, anchor_ms: i64) -> ResourceSpans {
    let seed = run.session_id.as_deref().unwrap_or(input);
    let first_ms = run.started_at.as_deref().and_then(parse_millis);
    let last_ms = run.ended_at.as_deref().and_then(parse_millis);
    let mut t = Trace::new(seed, first_ms.unwrap_or(anchor_ms), run.first_line);
    let run_key = match &run.started_at {
        Some(s) => s.clone(),
        None => run.first_line.to_string(),
    };
    let root_times = (
        first_ms.unwrap_or(t.anchor),
        last_ms.unwrap_or_else(|| t.at_line(run.last_line).saturating_add(1)),
    );
    let mut a = Attrs::default();
    root_attrs(run, &mut a);
    let root = t.add(
        t.span_id("run", run_key.as_bytes()),
        None,
        "invoke_agent claude-code".to_owned(),
        SpanKind::Internal,
        root_times,
        &mut a,
        Some((!run.ok(), run.verdict.as_str())),
    );

    // Subagents first (their spans are parents), each under the tool call
    // that launched it once the tool spans exist.
    let mut agents = Vec::new();
    flatten(&run.subagents, None, &mut agents);
    // By the call that launched it, and by its own id (a transcript's
    // calls name their agent by its id).
    let mut agent_span: HashMap<&str, usize> = HashMap::new();
    let mut agent_by_id: HashMap<&str, usize> = HashMap::new();
    let mut agent_index = Vec::new();
    for (n, _) in &agents {
        let mut a = Attrs::default();
        let name = n.subagent_type.as_deref().unwrap_or("subagent");
        a.str("gen_ai.operation.name", "invoke_agent")
            .str("gen_ai.provider.name", PROVIDER)
            .str("gen_ai.agent.name", name)
            .opt("gen_ai.agent.id", n.task_id.as_deref())
            .opt("gen_ai.agent.description", n.description.as_deref())
            .opt("gen_ai.conversation.id", run.session_id.as_deref())
            .opt(
                "gen_ai.tool.call.id",
                Some(n.tool_use_id.as_str()).filter(|c| !c.is_empty()),
            )
            .opt("cctape.task_type", n.task_type.as_deref())
            .opt("cctape.status", n.status.as_deref());
        usage(&mut a, &n.usage.tokens);
        let i = t.add(
            t.span_id("agent", agent_key(n).as_bytes()),
            Some(root),
            format!("invoke_agent {name}"),
            SpanKind::Internal,
            (i64::MAX, i64::MIN),
            &mut a,
            n.result_error.then_some((true, "subagent_error")),
        );
        if !n.tool_use_id.is_empty() {
            agent_span.insert(n.tool_use_id.as_str(), i);
        }
        if let Some(id) = n.task_id.as_deref() {
            agent_by_id.entry(id).or_insert(i);
        }
        agent_index.push(i);
    }
    // A call's agent: by its own id when the call says it (a
    // transcript's), else by the call that launched it.
    let parent_of = |agent: Option<&str>, agent_id: Option<&str>| {
        agent_id
            .and_then(|a| agent_by_id.get(a))
            .or_else(|| agent.and_then(|a| agent_span.get(a)))
            .copied()
            .unwrap_or(root)
    };

    let mut tool_span: HashMap<&str, usize> = HashMap::new();
    for c in &run.tool_calls {
        let start = c.started_ms.unwrap_or_else(|| t.at_line(c.line));
        let end = match (c.started_ms, c.duration_ms, c.result_line) {
            (Some(s), Some(d), _) => s.saturating_add(d),
            (None, _, Some(l)) => t.at_line(l),
            _ => start,
        };
        let mut a = Attrs::default();
        a.str("gen_ai.operation.name", "execute_tool")
            .str("gen_ai.tool.name", &c.name)
            .str("gen_ai.tool.call.id", &c.tool_use_id)
            .str("gen_ai.tool.type", "function");
        if c.rejected {
            a.str("error.type", "rejected");
        } else if c.error {
            a.str("error.type", "tool_error");
        }
        if !c.answered {
            a.str("cctape.tool.answered", "false");
        }
        let status = c
            .error
            .then_some((true, if c.rejected { "rejected" } else { "tool_error" }));
        let i = t.add(
            t.span_id("tool", c.tool_use_id.as_bytes()),
            Some(parent_of(c.agent.as_deref(), c.agent_id.as_deref())),
            format!("execute_tool {}", c.name),
            SpanKind::Internal,
            (start, end),
            &mut a,
            status,
        );
        tool_span.insert(c.tool_use_id.as_str(), i);
    }
    // A subagent under the Agent call that launched it, else under the
    // subagent that did, else the run.
    for (k, (n, launcher)) in agents.iter().enumerate() {
        let i = agent_index[k];
        t.nodes[i].parent = tool_span
            .get(n.tool_use_id.as_str())
            .copied()
            .or_else(|| launcher.map(|l| agent_index[l]))
            .or(Some(root));
    }

    for (k, c) in run.model_calls.iter().enumerate() {
        let start = c.started_ms.unwrap_or_else(|| t.at_line(c.first_line));
        let end = match (c.started_ms, c.ended_ms) {
            (Some(_), Some(e)) => e,
            _ => t.at_line(c.last_line).saturating_add(1),
        };
        let model = c.model.as_deref().unwrap_or("unknown");
        let mut a = Attrs::default();
        a.str("gen_ai.operation.name", "chat")
            .str("gen_ai.provider.name", PROVIDER)
            .str("gen_ai.request.model", model)
            .str("gen_ai.response.model", model)
            .opt("gen_ai.response.id", c.message_id.as_deref())
            .str("cctape.usage.source", c.source.as_str())
            .float("cctape.cost_usd", c.cost_usd);
        usage(&mut a, &c.usage);
        // A transcript counts a request per message id and request id.
        let key = match (&c.message_id, &c.request_id) {
            (Some(id), None) => id.clone(),
            (Some(id), Some(r)) => format!("{id}/{r}"),
            (None, _) => format!("#{k}:{}", c.line),
        };
        t.add(
            t.span_id("chat", key.as_bytes()),
            Some(parent_of(c.agent.as_deref(), c.agent_id.as_deref())),
            format!("chat {model}"),
            SpanKind::Client,
            (start, end),
            &mut a,
            None,
        );
    }
    t.finish(resource(run, input))
}

/// Spans still without times (a subagent with nothing under it): their
/// parent's start, zero long; parents first (`order`), so a parent that
/// comes after its child (a subagent under its Agent call) is settled
/// before it.
fn settle_empty(t: &mut Trace, order: &[usize]) {
    for &i in order {
        if t.nodes[i].start != i64::MAX {
            continue;
        }
        let at = match t.nodes[i].parent {
            None => Some(t.anchor),
            Some(p) => Some(t.nodes[p].start).filter(|s| *s != i64::MAX),
        };
        if let Some(at) = at {
            (t.nodes[i].start, t.nodes[i].end) = (at, at);
        }
    }
}

/// The nodes in order of depth, roots first (a subagent's spans sit under
/// the Agent call that launched it, in the agent that made the call, and
/// so on up the stream's chain, however deep). A parent link that would
/// close a cycle counts as none here; the spans keep theirs.
fn shallowest_first(nodes: &[Node]) -> Vec<usize> {
    let mut parents: Vec<Option<usize>> = nodes.iter().map(|n| n.parent).collect();
    let depth = crate::run::depths_cutting_cycles(&mut parents);
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&i| depth[i]);
    order
}
