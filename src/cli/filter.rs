//! `cctape filter`: the raw lines that match every given test, bytes
//! unchanged. The fast answer to `jq -c 'select(...)'`.

use super::exec::{self, Done, Piece, Sink, Split};
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::Field;
use cctape::scan::{RawStr, ScanMode, Scanned};
use std::collections::HashSet;

/// Arguments of `cctape filter`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Events whose `type` is this (e.g. result, assistant, system).
    #[arg(long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Events whose `subtype` is this (e.g. init, success, api_retry).
    #[arg(long, value_name = "SUBTYPE")]
    subtype: Option<String>,
    /// Events of this session_id.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Calls of this tool (assistant tool_use blocks) and their results
    /// (user tool_result blocks answering such a call earlier in the input).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// Events whose model is this (`message.model`, or `model` of init).
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// Events of the main agent (parent_tool_use_id null or absent).
    #[arg(long, conflicts_with = "subagent")]
    main: bool,
    /// Events inside a subagent (parent_tool_use_id set).
    #[arg(long)]
    subagent: bool,
    /// The lines that failed to read (not JSON, cut, no type, ...) instead of
    /// events. A line past the maximum length cannot be printed (its bytes
    /// are not kept): it is named on stderr instead, and not counted.
    #[arg(long)]
    errors: bool,
    /// Print only the number of lines that would be printed.
    #[arg(long)]
    count: bool,
    /// Lazy mode for input you trust: read type/subtype and the fields the
    /// tests need, and do not check the rest of each line as JSON (a broken
    /// line may be printed, not reported). Off by default: every line is
    /// validated.
    #[arg(long, conflicts_with = "errors")]
    trust: bool,
    #[command(flatten)]
    read: super::reading::ReadAs,
    #[command(flatten)]
    common: Common,
}

struct FilterSink {
    args: Args,
    /// The input is a session transcript: `sessionId` and `isSidechain`
    /// say the session and the agent.
    transcript: bool,
    /// Tool-use ids of the wanted tool seen so far (only with --tool).
    tool_ids: HashSet<Box<str>>,
    scratch: String,
    matched: u64,
    /// Bad lines that `--errors` cannot print, to say so on stderr in
    /// order.
    unprinted: Vec<String>,
}

impl FilterSink {
    /// The text of a raw string (unescaped into `buf` when it has escapes).
    fn text<'a>(r: &'a RawStr<'a>, buf: &'a mut String) -> &'a str {
        match r.as_str() {
            Some(s) => s,
            None => {
                buf.clear();
                r.unescape_into(buf);
                buf.as_str()
            }
        }
    }

    fn matches(&mut self, s: &Scanned<'_>) -> bool {
        let a = &self.args;
        if let Some(t) = &a.ty
            && s.raw_type() != t
        {
            return false;
        }
        if let Some(sub) = &a.subtype
            && s.raw_subtype() != Some(sub.as_str())
        {
            return false;
        }
        if let Some(id) = &a.session {
            let session = match self.transcript {
                true => s.get("sessionId").and_then(|v| v.as_raw_str()),
                false => s.session_id(),
            };
            if !session.is_some_and(|r| r.str_eq(id)) {
                return false;
            }
        }
        if let Some(m) = &a.model {
            let ok = match s.model() {
                Some(r) => r.str_eq(m),
                None => s.get("model").is_some_and(|v| v.str_eq(m)),
            };
            if !ok {
                return false;
            }
        }
        if a.main || a.subagent {
            let sub = match self.transcript {
                true => s.get("isSidechain").and_then(|v| v.as_bool()) == Some(true),
                false => matches!(s.parent_tool_use_id(), Field::Value(_)),
            };
            if sub != a.subagent {
                return false;
            }
        }
        if let Some(tool) = &a.tool {
            if let Some(name) = s.tool_name() {
                if !name.str_eq(tool) {
                    return false;
                }
                if let Some(id) = s.tool_use_id() {
                    let id = Self::text(&id, &mut self.scratch);
                    if !self.tool_ids.contains(id) {
                        self.tool_ids.insert(id.into());
                    }
                }
            } else if let Some(id) = s.tool_result_id() {
                if !self.tool_ids.contains(Self::text(&id, &mut self.scratch)) {
                    return false;
                }
            } else {
                return false;
            }
        }
        true
    }
}

impl Sink for FilterSink {
    fn scan_mode(&self) -> Option<ScanMode> {
        Some(if self.args.trust {
            ScanMode::Trusting
        } else {
            ScanMode::Validated
        })
    }

    fn scanned(&mut self, _: &Piece<'_>, s: &Scanned<'_>, out: &mut Vec<u8>) {
        if self.args.errors || !self.matches(s) {
            return;
        }
        self.matched += 1;
        if !self.args.count {
            // One line per match, also for a pretty JSON element.
            cctape::elements::compact_into(s.raw(), out);
            out.push(b'\n');
        }
    }

    fn format(&mut self, _: &Piece<'_>, format: cctape::sniff::Format) {
        self.transcript = format == cctape::sniff::Format::Transcript;
    }

    fn error(&mut self, _: &Piece<'_>, e: &Error, line: Option<&[u8]>, out: &mut Vec<u8>) {
        if !self.args.errors || e.is_fatal() {
            // A broken input is reported by the driver; it is not a line.
            return;
        }
        let Some(line) = line else {
            self.unprinted
                .push(format!("{e}; not printed (its bytes are not kept)"));
            return;
        };
        self.matched += 1;
        if !self.args.count {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }

    fn split(&self) -> Split {
        // Results of a tool are matched through ids seen earlier in the input.
        if self.args.tool.is_none() {
            Split::Anywhere
        } else {
            Split::Never
        }
    }
}

/// Run the command; returns the exit code.
pub fn run(args: &Args) -> i32 {
    let (inputs, mut failed) = expand(&args.common);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
    let mut total = 0u64;
    exec::run(
        &inputs,
        &opts,
        || FilterSink {
            args: args.clone(),
            transcript: false,
            tool_ids: HashSet::new(),
            scratch: String::new(),
            matched: 0,
            unprinted: Vec::new(),
        },
        |done: Done<FilterSink>| {
            failed |= done.failure.is_some();
            total += done.sink.matched;
            for e in &done.sink.unprinted {
                exec::note_for(&shown[done.input], e);
            }
        },
    );
    if args.count {
        exec::write_out(&mut format!("{total}\n").into_bytes());
    }
    if failed { 2 } else { 0 }
}
