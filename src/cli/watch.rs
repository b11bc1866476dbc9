//! `cctape watch`: for a live run (`claude -p ... | cctape watch`). Every
//! byte goes through to stdout unchanged as soon as it arrives; stderr keeps
//! one status line (turn, current tool, tokens, cost, subagents running)
//! when it is a terminal; at the end the verdict of each run is printed to
//! stderr as JSON and the exit code is the verdict's.

use super::human::{clean, money};
use super::output::{thousands, write_json_value};
use super::shape::Shape;
use cctape::event::{EventKind, Field, parse_event};
use cctape::framing::LineDecoder;
use cctape::parse::Parser;
use cctape::run::RunFolder;
use std::collections::HashSet;
use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

/// Arguments of `cctape watch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// No status line, even on a terminal.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// What the status line shows, updated from hot fields.
#[derive(Default)]
struct Status {
    turns: u64,
    last_message: String,
    tool: String,
    tool_id: String,
    output_tokens: u64,
    last_output: u64,
    /// The current call's usage is final (its `message_delta`, or a whole
    /// message), not a snapshot.
    last_final: bool,
    /// Some finished call's output was a snapshot: the sum is a lower bound.
    lower_bound: bool,
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
        format!(
            "turn {}  tool {}  output tokens {}{}  cost {}  subagents running {}",
            thousands(self.turns),
            clean(tool),
            if self.lower_bound || !self.last_final {
                "≥"
            } else {
                ""
            },
            thousands(self.output_tokens + self.last_output),
            cost,
            thousands(self.running() as u64)
        )
    }
}

/// Run the command; returns the exit code of the verdict (0 every run
/// succeeded, 1 any did not (no result and no events included), 2 a read
/// error, or a write error other than a closed pipe).
pub fn run(args: &Args) -> i32 {
    let show = !args.quiet && std::io::stderr().is_terminal();
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut dec = LineDecoder::new();
    let mut parser = Parser::new();
    let mut folder = RunFolder::new();
    let mut status = Status::default();
    let mut shape = Shape::default();
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
        dec.push(&buf[..n]);
        drain(&mut dec, &mut parser, &mut folder, &mut status, &mut shape);
        if show && last_draw.elapsed() >= Duration::from_millis(100) {
            eprint!("\r\x1b[2K{}", status.line());
            last_draw = Instant::now();
        }
    }
    dec.finish();
    drain(&mut dec, &mut parser, &mut folder, &mut status, &mut shape);
    if show {
        eprint!("\r\x1b[2K");
    }
    let mut unreadable = read_error.is_some() || write_error.is_some();
    if let Some(e) = &read_error {
        eprintln!("cctape: -: {e}");
    }
    let mut any_not_ok = false;
    let (runs, bad): (Vec<_>, Vec<_>) = folder.finish().into_iter().partition(|r| r.events > 0);
    let mut out = Vec::new();
    if runs.is_empty() {
        // No events: a startup failure (what the process wrote is passed
        // through above).
        any_not_ok = true;
        let mut r = bad
            .into_iter()
            .next()
            .unwrap_or_else(cctape::run::RunSummary::empty);
        r.verdict = cctape::run::Verdict::StartupFailure;
        r.stream_verdict = cctape::run::Verdict::StartupFailure;
        write_json_value(
            &super::verdict::no_events_record(
                &r,
                super::inputs::STDIN_NAME,
                shape.describe().to_json(),
            ),
            &mut out,
        );
    }
    for r in &runs {
        any_not_ok |= !r.ok();
        write_json_value(
            &r.to_json_with_file(Some(super::inputs::STDIN_NAME)),
            &mut out,
        );
    }
    if let Err(e) = std::io::stderr().write_all(&out) {
        eprintln!("cctape: writing the verdict: {e}");
        unreadable = true;
    }
    if unreadable {
        2
    } else if any_not_ok {
        1
    } else {
        0
    }
}

fn drain(
    dec: &mut LineDecoder,
    parser: &mut Parser,
    folder: &mut RunFolder,
    status: &mut Status,
    shape: &mut Shape,
) {
    while let Some(item) = dec.next_line() {
        let line = match item {
            Ok(l) => l,
            Err(e) => {
                folder.push_error(&e);
                continue;
            }
        };
        if line.is_blank() {
            continue;
        }
        match parse_event(parser, &line) {
            Ok(ev) => {
                status.update(&ev);
                folder.push(&ev);
            }
            Err(e) => {
                folder.push_error(&e);
                shape.note(Some(line.bytes));
            }
        }
    }
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
