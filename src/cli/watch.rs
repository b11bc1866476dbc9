//! `cctape watch`: for a live run (`claude -p ... | cctape watch`). Every
//! byte goes through to stdout unchanged as soon as it arrives; stderr keeps
//! one status line (turn, current tool, tokens, cost, subagents running)
//! when it is a terminal; at the end the verdict of each run is printed to
//! stderr as JSON and the exit code is the verdict's.

use super::output::write_json_value;
use cctape::event::{EventKind, Field, parse_event};
use cctape::framing::LineDecoder;
use cctape::parse::Parser;
use cctape::run::RunFolder;
use serde_json::{Map, Value, json};
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
    cost: Option<f64>,
    running: i64,
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
                    self.output_tokens += self.last_output;
                    self.last_output = 0;
                }
                if let Some(u) = ev.usage() {
                    self.last_output = u.output_tokens;
                }
                if let (Some(name), Some(id)) = (ev.tool_name(), ev.tool_use_id()) {
                    name.clone_into(&mut self.tool);
                    id.clone_into(&mut self.tool_id);
                }
            }
            EventKind::StreamEvent => {
                let usage = ev
                    .get_path("event.usage.output_tokens")
                    .and_then(|v| v.as_u64());
                if let Some(n) = usage {
                    self.last_output = n;
                }
            }
            EventKind::User if ev.tool_result_id() == Some(self.tool_id.as_str()) => {
                self.tool.clear();
            }
            EventKind::SystemTaskStarted => self.running += 1,
            EventKind::SystemTaskNotification => self.running -= 1,
            k if k.is_result() => {
                self.cost = ev.total_cost_usd();
                self.tool.clear();
            }
            _ => {}
        }
    }

    fn line(&self) -> String {
        let cost = self.cost.map_or("-".to_string(), |c| format!("${c:.4}"));
        let tool = if self.tool.is_empty() {
            "-"
        } else {
            &self.tool
        };
        format!(
            "turn {}  tool {}  output tokens {}  cost {}  subagents running {}",
            self.turns,
            tool,
            self.output_tokens + self.last_output,
            cost,
            self.running.max(0)
        )
    }
}

/// Run the command; returns the exit code of the verdict (0 every run
/// succeeded, 1 any failed, 2 any without a verdict, a read error, or a
/// write error other than a closed pipe).
pub fn run(args: &Args) -> i32 {
    let show = !args.quiet && std::io::stderr().is_terminal();
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut dec = LineDecoder::new();
    let mut parser = Parser::new();
    let mut folder = RunFolder::new();
    let mut status = Status::default();
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
        drain(&mut dec, &mut parser, &mut folder, &mut status);
        if show && last_draw.elapsed() >= Duration::from_millis(100) {
            eprint!("\r\x1b[2K{}", status.line());
            last_draw = Instant::now();
        }
    }
    dec.finish();
    drain(&mut dec, &mut parser, &mut folder, &mut status);
    if show {
        eprint!("\r\x1b[2K");
    }
    let mut any_failed = false;
    let mut any_undecided = read_error.is_some() || write_error.is_some();
    if let Some(e) = &read_error {
        eprintln!("cctape: -: {e}");
    }
    let mut runs = folder.finish();
    if runs.is_empty() {
        runs.push(cctape::run::RunSummary::empty());
    }
    let mut out = Vec::new();
    for r in &runs {
        if r.verdict.is_undecided() {
            any_undecided = true;
        } else if !r.ok() {
            any_failed = true;
        }
        let mut o = Map::new();
        o.insert("file".into(), json!("-"));
        if let Value::Object(rest) = r.to_json() {
            o.extend(rest);
        }
        write_json_value(&Value::Object(o), &mut out);
    }
    let _ = std::io::stderr().write_all(&out);
    if any_undecided {
        2
    } else if any_failed {
        1
    } else {
        0
    }
}

fn drain(dec: &mut LineDecoder, parser: &mut Parser, folder: &mut RunFolder, status: &mut Status) {
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
            Err(e) => folder.push_error(&e),
        }
    }
}
