//! `cctape tree`: each run's subagents and tasks as a tree, with tokens,
//! tool calls, duration and status per node.
//!
//! A session transcript's tree is its sidechains: each subagent (its own
//! `subagents/agent-<id>.jsonl` file, or its records relayed in the
//! parent's `agent_progress` records) under the session, with the tool call
//! that spawned it and its requests' tokens; sessions are drawn once every
//! input is read (a session's subagent files are other inputs).

use super::exec::{self, Done, Item, Piece, Reads, Sink};
use super::human::{clean, count, money, seconds};
use super::output::write_json_value;
use super::reading::{Costing, ReadAs, Transcripts};
use super::{Common, expand};
use cctape::report::{NoEvents, no_events_run, node_figures, node_label};
use cctape::run::{AgentUsage, RunSummary, SubagentNode, agent_json};
use cctape::sniff::Format;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;

/// Arguments of `cctape tree`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One JSON object per run per line instead of a drawing.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    read: ReadAs,
    #[command(flatten)]
    costing: Costing,
    #[command(flatten)]
    common: Common,
}

struct TreeSink<'a> {
    /// The inputs' names for people, and whether runs are JSON lines.
    shown: &'a [String],
    json: bool,
    /// The input's runs; an input without events is one run, as
    /// everywhere.
    runs: exec::PerRun,
}

impl<'a> TreeSink<'a> {
    fn new(shown: &'a [String], json: bool) -> TreeSink<'a> {
        TreeSink {
            shown,
            json,
            runs: exec::PerRun::default(),
        }
    }
}

/// One run's tree (`found`: what the input is when it has no events).
fn write_run(
    shown: &[String],
    json: bool,
    p: &Piece<'_>,
    r: &RunSummary,
    found: Option<&NoEvents>,
    out: &mut Vec<u8>,
) {
    if json {
        write_json_value(&run_json(r, p.name, found), out);
    } else {
        let mut text = String::new();
        run_line(
            shown.get(p.input).map_or(p.name, String::as_str),
            r,
            &mut text,
        );
        out.extend_from_slice(text.as_bytes());
    }
}

impl Sink for TreeSink<'_> {
    /// Whole events, parsed ahead on the pool for a large file.
    fn reads(&self) -> Reads {
        Reads::FOLDS
    }

    fn format(&mut self, p: &Piece<'_>, format: Format) {
        self.runs.format(p, format);
    }

    /// A run long over is drawn as the input is read ([`exec::PerRun`]).
    #[inline(always)]
    fn item(&mut self, p: &Piece<'_>, item: Item<'_, '_>, out: &mut Vec<u8>) {
        let (shown, json) = (self.shown, self.json);
        self.runs
            .item(item, |r| write_run(shown, json, p, &r, None, out));
    }

    /// A stream's runs may be folded apart: nothing but the folder sees
    /// its events.
    fn apart(&self) -> Option<exec::Apart> {
        self.runs.apart(false)
    }

    fn adopt(&mut self, p: &Piece<'_>, part: &mut exec::Apart, out: &mut Vec<u8>) -> bool {
        let (shown, json) = (self.shown, self.json);
        self.runs
            .adopt(part, |r| write_run(shown, json, p, &r, None, out))
    }
}

fn node_json(n: &SubagentNode) -> Value {
    let (tokens, tools, duration) = node_figures(n);
    json!({
        "tool_use_id": n.tool_use_id,
        "task_id": n.task_id,
        "label": node_label(n),
        "status": n.status,
        "output_tokens": tokens,
        "usage": agent_json(&n.usage),
        "tool_calls": tools,
        "duration_ms": duration,
        "children": n.children.iter().map(node_json).collect::<Vec<_>>(),
    })
}

/// `7,550 output tokens` with `≥` for a lower bound and the source.
fn tokens_text(a: &AgentUsage) -> String {
    format!(
        "{}{} ({})",
        if a.lower_bound() { "≥" } else { "" },
        count(a.tokens.output_tokens, "output token", "output tokens"),
        a.source.as_str()
    )
}

fn draw(n: &SubagentNode, prefix: &str, last: bool, o: &mut String) {
    let (_, tools, duration) = node_figures(n);
    let branch = if last { "└─ " } else { "├─ " };
    let dur = duration.map_or(String::new(), |d| {
        format!(", {}", seconds(i64::try_from(d).unwrap_or(i64::MAX)))
    });
    let _ = writeln!(
        o,
        "{prefix}{branch}{}  [{}] {}, {}{dur}",
        clean(&node_label(n)),
        clean(n.status.as_deref().unwrap_or("?")),
        tokens_text(&n.usage),
        count(tools, "tool call", "tool calls")
    );
    let next = format!("{prefix}{}", if last { "   " } else { "│  " });
    for (i, c) in n.children.iter().enumerate() {
        draw(c, &next, i + 1 == n.children.len(), o);
    }
}

fn run_line(file: &str, r: &RunSummary, o: &mut String) {
    let main = &r.usage.main;
    let ms = r.wall_ms.or(r.duration_ms_sum);
    let duration = ms.map_or(String::new(), |d| format!(", {}", seconds(d)));
    let cost = r
        .cost
        .total_cost_usd
        .map_or(String::new(), |c| format!(", ${}", money(c)));
    let subs = if r.subagent_count() > 0 {
        format!(
            "; {}: {}",
            count(r.subagent_count(), "subagent", "subagents"),
            tokens_text(&r.usage.subagents)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "{}  session {}  [{}] main agent: {}, {}{subs}; {} in all{cost}{duration}",
        clean(file),
        clean(r.session_id.as_deref().unwrap_or("-")),
        r.verdict.as_str(),
        count(main.messages, "call", "calls"),
        tokens_text(main),
        count(r.tool_calls_total(), "tool call", "tool calls"),
    );
    for (i, c) in r.subagents.iter().enumerate() {
        draw(c, "", i + 1 == r.subagents.len(), o);
    }
}

/// One run's tree as JSON; an input without events says what it holds in
/// `no_events` after `file`, as `verdict --json` does.
fn run_json(r: &RunSummary, name: &str, no_events: Option<&NoEvents>) -> Value {
    let mut o = Map::new();
    o.insert("verdict".into(), json!(r.verdict.as_str()));
    o.insert("ok".into(), json!(r.ok()));
    o.insert("file".into(), json!(name));
    if let Some(n) = no_events {
        o.insert("no_events".into(), n.to_json());
    }
    o.insert("session_id".into(), json!(r.session_id));
    let mut main = match agent_json(&r.usage.main) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    main.insert("tool_calls".into(), json!(r.tool_calls_total()));
    main.insert(
        "duration_ms".into(),
        json!(r.last_result.as_ref().and_then(|x| x.duration_ms)),
    );
    o.insert("main".into(), Value::Object(main));
    o.insert("subagents".into(), agent_json(&r.usage.subagents));
    o.insert("subagent_count".into(), json!(r.subagent_count()));
    o.insert("total_cost_usd".into(), r.cost_json());
    o.insert("wall_ms".into(), json!(r.wall_ms));
    o.insert("duration_ms_sum".into(), json!(r.duration_ms_sum));
    o.insert(
        "children".into(),
        Value::Array(r.subagents.iter().map(node_json).collect()),
    );
    Value::Object(o)
}

/// Run the command; returns the exit code: 0, or 2 for an error (an input
/// that could not be read, a bad line missing from the trees).
pub fn run(args: &Args) -> i32 {
    let (prices, zone) = match (args.costing.prices(), args.costing.zone()) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(e), _) | (_, Err(e)) => {
            exec::note(&e);
            return 2;
        }
    };
    let (inputs, failed) = expand(&args.common);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
    let mut transcripts = Transcripts::default();
    let make = || TreeSink::new(&shown, args.json);
    let trouble = exec::run(&inputs, &opts, make, |done: Done<TreeSink>| {
        let name = &names[done.input];
        let sink = done.sink.runs;
        if sink.format == Some(Format::Transcript) && done.counts.events > 0 {
            transcripts.add(sink.transcript);
            return;
        }
        if done.failure.is_some() && done.counts.events == 0 {
            // Could not be read, or broke off before any event: no run.
            return;
        }
        // The runs not drawn while it was read.
        let mut out = Vec::new();
        let mut runs = sink.folder.finish();
        let mut found = None;
        if done.counts.events == 0 {
            // An input without events is one run, as in every command.
            let n = sink.finding.unwrap_or_else(|| sink.shape.describe());
            runs = vec![no_events_run(runs.into_iter().next(), &n, None)];
            found = Some(n);
        }
        let piece = Piece {
            input: done.input,
            name,
        };
        for r in runs {
            write_run(&shown, args.json, &piece, &r, found.as_ref(), &mut out);
        }
        exec::write_out(&mut out);
    });
    if let Some((report, files)) = transcripts.finish(&names, &prices, &zone) {
        let mut out = Vec::new();
        for (s, &i) in report.sessions.iter().zip(&files) {
            let r = s.to_run();
            if args.json {
                write_json_value(&run_json(&r, &names[i], None), &mut out);
            } else {
                let mut text = String::new();
                run_line(&shown[i], &r, &mut text);
                out.extend_from_slice(text.as_bytes());
            }
        }
        exec::write_out(&mut out);
    }
    trouble.and(failed).exit_code(0)
}
