//! The metric points of a run, under Claude Code's own names: one
//! session, its tokens by model and type, its cost by model.

use super::SCOPE;
use super::attrs::{Attrs, nanos};
use super::spans::resource;
use crate::run::RunSummary;
use crate::time::parse_millis;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Metric, NumberDataPoint, ResourceMetrics, ScopeMetrics, Sum, metric,
    number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use std::collections::BTreeMap;

/// A monotonic delta sum of these points.
fn sum(name: &str, description: &str, unit: &str, points: Vec<NumberDataPoint>) -> Metric {
    Metric {
        name: name.to_owned(),
        description: description.to_owned(),
        unit: unit.to_owned(),
        data: Some(metric::Data::Sum(Sum {
            data_points: points,
            aggregation_temporality: AggregationTemporality::Delta as i32,
            is_monotonic: true,
        })),
        ..Metric::default()
    }
}

/// The metrics of a run (a stream's or a session transcript's).
pub(super) fn of_run(run: &RunSummary, input: &str, anchor_ms: i64) -> ResourceMetrics {
    let start = run
        .started_at
        .as_deref()
        .and_then(parse_millis)
        .unwrap_or(anchor_ms);
    let end = run
        .ended_at
        .as_deref()
        .and_then(parse_millis)
        .unwrap_or(start)
        .max(start);
    let point = |extra: &[(&str, &str)], value: number_data_point::Value| {
        let mut a = Attrs::default();
        a.opt("session.id", run.session_id.as_deref())
            .opt("app.version", run.claude_code_version.as_deref());
        for (k, v) in extra {
            a.str(k, v);
        }
        NumberDataPoint {
            attributes: a.take(),
            start_time_unix_nano: nanos(start),
            time_unix_nano: nanos(end),
            value: Some(value),
            ..NumberDataPoint::default()
        }
    };
    // Tokens and cost per model, main agent and subagents together (the
    // rows `verdict --json` gives per model and role).
    let mut by_model: BTreeMap<&str, (crate::event::TokenCounts, Option<f64>)> = BTreeMap::new();
    for r in &run.usage.by_role {
        let e = by_model.entry(r.model.as_str()).or_default();
        e.0.add(&r.tokens);
        if let Some(c) = r.cost_usd {
            e.1 = Some(e.1.unwrap_or(0.0) + c);
        }
    }
    let mut tokens = Vec::new();
    let mut cost = Vec::new();
    for (model, (t, c)) in &by_model {
        for (ty, n) in [
            ("input", t.input_tokens),
            ("output", t.output_tokens),
            ("cacheRead", t.cache_read_input_tokens),
            ("cacheCreation", t.cache_creation_input_tokens),
        ] {
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            tokens.push(point(
                &[("model", model), ("type", ty)],
                number_data_point::Value::AsInt(n),
            ));
        }
        if let Some(c) = c.filter(|c| c.is_finite()) {
            cost.push(point(
                &[("model", model)],
                number_data_point::Value::AsDouble(c),
            ));
        }
    }
    let mut metrics = vec![sum(
        "claude_code.session.count",
        "Count of CLI sessions started",
        "count",
        vec![point(&[], number_data_point::Value::AsInt(1))],
    )];
    if !tokens.is_empty() {
        metrics.push(sum(
            "claude_code.token.usage",
            "Number of tokens used",
            "tokens",
            tokens,
        ));
    }
    if !cost.is_empty() {
        metrics.push(sum(
            "claude_code.cost.usage",
            "Cost of the Claude Code session",
            "USD",
            cost,
        ));
    }
    ResourceMetrics {
        resource: Some(Resource {
            attributes: resource(run, input),
            ..Resource::default()
        }),
        scope_metrics: vec![ScopeMetrics {
            scope: Some(InstrumentationScope {
                name: SCOPE.to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                ..InstrumentationScope::default()
            }),
            metrics,
            schema_url: String::new(),
        }],
        schema_url: String::new(),
    }
}
