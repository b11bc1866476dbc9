//! `cctape.stats(...)`: the report `cctape stats --json [--by KEY]` prints.
//!
//! Until the report's composition is a library module (the fcli
//! workstream moves it out of `src/cli/stats.rs`), this module composes it
//! from the library's pieces (`Stats`, `RunFolder`, `RunTotals`, and their
//! `to_json`) the way `src/cli/stats.rs` does: the grouping of runs
//! (`RunFigures`), the JSON of counts and errors (`stats_json`), the
//! warnings' first positions (`runs_json`) and the groups (`group_json`).
//! `python/tests/test_stats.py` checks the output against the command's on
//! every real capture and for every `--by`.

use crate::report::InputRuns;
use crate::sources::{Inputs, read_input};
use cctape::error::ErrorKind;
use cctape::inputs::{Item, ReadOptions};
use cctape::run::{ModelRole, RunSummary, RunTotals};
use cctape::stats::Stats;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// `--by`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    File,
    Session,
    Model,
    Version,
    Day,
}

impl By {
    pub fn parse(s: Option<&str>) -> PyResult<Option<By>> {
        Ok(match s {
            None => None,
            Some("file") => Some(By::File),
            Some("session") => Some(By::Session),
            Some("model") => Some(By::Model),
            Some("version") => Some(By::Version),
            Some("day") => Some(By::Day),
            Some(o) => {
                return Err(PyValueError::new_err(format!(
                    "by must be 'file', 'session', 'model', 'version' or 'day', not {o:?}"
                )));
            }
        })
    }
}

type GroupKey = (String, Option<ModelRole>);

/// The run figures: over all runs and per group.
#[derive(Debug, Default)]
struct RunFigures {
    all: RunTotals,
    groups: BTreeMap<GroupKey, RunTotals>,
}

impl RunFigures {
    fn add(&mut self, input: usize, file: &str, r: &RunSummary, by: Option<By>) {
        if r.events == 0 {
            // Bad lines alone are not a run.
            return;
        }
        self.all.add_from(r, input);
        let Some(by) = by else { return };
        if by == By::Model {
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

    fn ordered(&self, by: By) -> Vec<(&GroupKey, &RunTotals)> {
        let mut v: Vec<_> = self.groups.iter().collect();
        if by == By::Version {
            v.sort_by_key(|g| version_key(&g.0.0));
        }
        v
    }
}

fn version_key(v: &str) -> (bool, Vec<u64>, String) {
    let nums: Option<Vec<u64>> = v.split('.').map(|p| p.parse().ok()).collect();
    match nums {
        Some(n) if !n.is_empty() => (false, n, String::new()),
        _ => (true, Vec::new(), v.to_string()),
    }
}

/// One input's figures.
#[derive(Default)]
struct FileFigures {
    stats: Stats,
    runs: RunFigures,
    no_events: Option<Value>,
}

fn read_file_figures(
    i: usize,
    input: &crate::sources::Input,
    opts: &ReadOptions,
    by: Option<By>,
) -> FileFigures {
    let mut stats = Stats::new();
    let mut runs = InputRuns::default();
    let end = read_input(input, opts, |item| {
        match item {
            Item::Event(ev) => {
                stats.record_event(ev);
                runs.push(ev);
            }
            // Not asked for (`ReadOptions::scan` is off here).
            Item::Scanned(_) => {}
            Item::Error { error, bytes } => {
                stats.record_error(i, error);
                runs.push_error(error, bytes);
            }
        }
        ControlFlow::Continue(())
    });
    if let (Some(e), true) = (&end.failure, end.unreadable) {
        stats.record_error(i, e);
    }
    stats.files += 1;
    stats.bytes += end.bytes;
    stats.counts.add(&end.counts);
    let no_events = (stats.counts.events == 0
        && !stats.errors.iter().any(|e| e.kind == ErrorKind::Io.name()))
    .then(|| runs.no_events());
    let mut figures = RunFigures::default();
    for r in runs.finish().iter() {
        figures.add(i, &input.name, r, by);
    }
    FileFigures {
        stats,
        runs: figures,
        no_events,
    }
}

/// The report, as `cctape stats --json` prints it.
pub fn stats_report(
    py: Python<'_>,
    inputs: &Inputs,
    by: Option<By>,
    opts: &ReadOptions,
    jobs: usize,
) -> PyResult<Value> {
    let per_file = crate::report::map_inputs(py, inputs, jobs, |i, input| {
        read_file_figures(i, input, opts, by)
    })?;
    let names: &[String] = &inputs.names;
    let mut stats = Stats::new();
    let mut runs = RunFigures::default();
    let mut by_format: BTreeMap<String, u64> = BTreeMap::new();
    let mut without = Vec::new();
    for (f, name) in per_file.iter().zip(names) {
        stats.merge(&f.stats, 0);
        runs.merge(&f.runs);
        if let Some(n) = &f.no_events {
            let format = n["format"].as_str().unwrap_or("other").to_string();
            *by_format.entry(format.clone()).or_default() += 1;
            if without.len() < 100 {
                without
                    .push(json!({"file": name, "format": format, "first_line": n["first_line"]}));
            }
        }
    }
    let mut obj = stats_json(&stats, names);
    obj.insert(
        "inputs_without_events".into(),
        json!({"count": by_format.values().sum::<u64>(), "by_format": by_format, "inputs": without}),
    );
    runs_json(&runs.all, names, &mut obj);
    if let Some(by) = by {
        let groups: Vec<Value> = runs
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
        .zip(names)
        .map(|(f, n)| {
            let mut o = Map::new();
            o.insert("file".into(), json!(n));
            o.extend(stats_json(&f.stats, names));
            runs_json(&f.runs.all, names, &mut o);
            Value::Object(o)
        })
        .collect();
    obj.insert("per_file".into(), Value::Array(files));
    Ok(Value::Object(obj))
}

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
