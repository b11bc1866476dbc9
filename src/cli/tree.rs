//! `cctape tree`: each run's subagents and tasks as a tree, with tokens,
//! tool calls, duration and status per node.

use super::exec::{self, Done, Piece, Sink, Split};
use super::output::{thousands, write_json_value};
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::Event;
use cctape::run::{RunFolder, RunSummary, SubagentNode};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Arguments of `cctape tree`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One JSON object per run per line instead of a drawing.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    common: Common,
}

#[derive(Default)]
struct TreeSink(RunFolder);

impl Sink for TreeSink {
    fn event(&mut self, _: &Piece<'_>, ev: &Event<'_>, _: &mut Vec<u8>) {
        self.0.push(ev);
    }

    fn error(&mut self, _: &Piece<'_>, e: &Error, _: Option<&[u8]>, _: &mut Vec<u8>) {
        self.0.push_error(e);
    }

    fn split(&self) -> Split {
        Split::Never
    }
}

/// Tokens, tool calls and duration of a node: its own calls where the
/// stream shows them, else what its task events report.
fn node_figures(n: &SubagentNode) -> (u64, u64, Option<u64>) {
    let task = n.final_usage.or(n.last_progress);
    let tokens = match (n.usage.tokens.total(), task.and_then(|t| t.total_tokens)) {
        (0, Some(t)) => t,
        (own, _) => own,
    };
    let tools = match (n.tool_calls, task.and_then(|t| t.tool_uses)) {
        (0, Some(t)) => t,
        (own, _) => own,
    };
    (tokens, tools, task.and_then(|t| t.duration_ms))
}

fn node_label(n: &SubagentNode) -> String {
    let kind = n
        .subagent_type
        .as_deref()
        .or(n.task_type.as_deref())
        .or(n.tool_name.as_deref())
        .unwrap_or("task");
    match &n.description {
        Some(d) => format!("{kind}: {d}"),
        None => kind.to_string(),
    }
}

fn node_json(n: &SubagentNode) -> Value {
    let (tokens, tools, duration) = node_figures(n);
    json!({
        "tool_use_id": n.tool_use_id,
        "task_id": n.task_id,
        "label": node_label(n),
        "status": n.status,
        "tokens": tokens,
        "tool_calls": tools,
        "duration_ms": duration,
        "children": n.children.iter().map(node_json).collect::<Vec<_>>(),
    })
}

fn draw(n: &SubagentNode, prefix: &str, last: bool, o: &mut String) {
    let (tokens, tools, duration) = node_figures(n);
    let branch = if last { "└─ " } else { "├─ " };
    let dur = duration.map_or(String::new(), |d| format!(", {:.1}s", d as f64 / 1000.0));
    let _ = writeln!(
        o,
        "{prefix}{branch}{}  [{}] {} tokens, {} tool calls{dur}",
        node_label(n),
        n.status.as_deref().unwrap_or("?"),
        thousands(tokens),
        thousands(tools)
    );
    let next = format!("{prefix}{}", if last { "   " } else { "│  " });
    for (i, c) in n.children.iter().enumerate() {
        draw(c, &next, i + 1 == n.children.len(), o);
    }
}

fn run_line(file: &str, r: &RunSummary, o: &mut String) {
    let main = &r.usage.main;
    let duration = r
        .last_result
        .as_ref()
        .and_then(|x| x.duration_ms)
        .map_or(String::new(), |d| format!(", {:.1}s", d as f64 / 1000.0));
    let _ = writeln!(
        o,
        "{file}  session {}  [{}] main agent: {} calls, {} tokens; {} tool calls in all{duration}",
        r.session_id.as_deref().unwrap_or("-"),
        r.verdict.as_str(),
        thousands(main.messages),
        thousands(main.tokens.total()),
        thousands(r.tools.iter().map(|t| t.calls).sum::<u64>()),
    );
    for (i, c) in r.subagents.iter().enumerate() {
        draw(c, "", i + 1 == r.subagents.len(), o);
    }
}

/// Run the command; returns the exit code.
pub fn run(args: &Args) -> i32 {
    let (inputs, mut failed) = expand(&args.common);
    let opts = exec::Opts::new(&args.common);
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
    exec::run(&inputs, &opts, TreeSink::default, |done: Done<TreeSink>| {
        let name = &names[done.input];
        failed |= done.failure.is_some();
        let mut out = Vec::new();
        let mut text = String::new();
        for r in done.sink.0.finish() {
            if args.json {
                let v = json!({
                    "file": name,
                    "session_id": r.session_id,
                    "verdict": r.verdict.as_str(),
                    "main": {
                        "messages": r.usage.main.messages,
                        "tokens": r.usage.main.tokens.total(),
                        "tool_calls": r.tools.iter().map(|t| t.calls).sum::<u64>(),
                        "duration_ms": r.last_result.as_ref().and_then(|x| x.duration_ms),
                    },
                    "children": r.subagents.iter().map(node_json).collect::<Vec<_>>(),
                });
                write_json_value(&v, &mut out);
            } else {
                run_line(&shown[done.input], &r, &mut text);
            }
        }
        out.extend_from_slice(text.as_bytes());
        exec::write_out(&mut out);
    });
    if failed { 2 } else { 0 }
}
