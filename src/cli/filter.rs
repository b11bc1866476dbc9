//! `cctape filter`: the raw lines that match every given test, bytes
//! unchanged. The fast answer to `jq -c 'select(...)'`, with grep's and
//! ripgrep's habits: exit 1 when nothing matched, file names before lines
//! from several inputs (`-H`, `--no-filename`, `--null`), `--count` per
//! input, `-v` to invert, `-m` to stop at a number of lines, `-l` and
//! `--files-without-match` to list inputs.
//!
//! The tests themselves ([`Filters`], [`Matcher`]) are shared with `cctape
//! fields`: OR among the values of one flag, AND across flags.

use super::exec::{self, BadLine, Done, Item, Piece, Reads, Sink, Split};
use super::inputs::Input;
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::{Event, Field};
use cctape::json::{ScanMode, Scanned};
use std::collections::HashSet;
use std::io::IsTerminal;

/// Tests on events, shared by `filter` and `fields`. Each flag may be
/// repeated, or given a comma-separated list: an event passes a flag when
/// it matches any of its values (OR), and passes the filters when it passes
/// every flag given (AND).
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Filters (repeat a flag or give a comma list for OR; flags AND)")]
pub struct Filters {
    /// Events whose `type` is one of these (e.g. result, assistant, system).
    #[arg(long = "type", value_name = "TYPE", value_delimiter = ',')]
    types: Vec<String>,
    /// Events whose `subtype` is one of these (e.g. init, success,
    /// api_retry).
    #[arg(long = "subtype", value_name = "SUBTYPE", value_delimiter = ',')]
    subtypes: Vec<String>,
    /// Events of one of these session_ids.
    #[arg(long = "session", value_name = "ID", value_delimiter = ',')]
    sessions: Vec<String>,
    /// Calls of one of these tools (assistant tool_use blocks) and their
    /// results (user tool_result blocks answering such a call earlier in the
    /// input).
    #[arg(long = "tool", value_name = "NAME", value_delimiter = ',')]
    tools: Vec<String>,
    /// Events whose model is one of these (`message.model`, or `model` of
    /// init).
    #[arg(long = "model", value_name = "MODEL", value_delimiter = ',')]
    models: Vec<String>,
    /// Events of the main agent (parent_tool_use_id null or absent).
    #[arg(long, conflicts_with = "subagent")]
    main: bool,
    /// Events inside a subagent (parent_tool_use_id set).
    #[arg(long)]
    subagent: bool,
}

impl Filters {
    /// Where an input may be cut into chunks read apart: anywhere, unless a
    /// test follows the input in order (`--tool` matches results through the
    /// calls seen before them).
    pub fn split(&self) -> Split {
        if self.tools.is_empty() {
            Split::Anywhere
        } else {
            Split::Never
        }
    }
}

/// The tool block of an event, as the tests see it.
pub enum ToolBlock<'a> {
    /// A `tool_use` block: whether its tool is one of the names asked for,
    /// and its id.
    Use {
        /// The tool is one of the names.
        wanted: bool,
        /// The block's `id`.
        id: Option<&'a str>,
    },
    /// A `tool_result` block answering this id.
    Result(&'a str),
    /// Neither.
    Neither,
}

/// The first content block of `ev` as a call of one of `names` (with its
/// id) or a tool's result.
fn tool_block<'a>(ev: &Event<'a>, names: &[String]) -> ToolBlock<'a> {
    if let Some(name) = ev.tool_name() {
        ToolBlock::Use {
            wanted: names.iter().any(|n| n == name),
            id: ev.tool_use_id(),
        }
    } else if let Some(id) = ev.tool_result_id() {
        ToolBlock::Result(id)
    } else {
        ToolBlock::Neither
    }
}

/// `s` is one of `any`.
fn one_of(s: Option<&str>, any: &[String]) -> bool {
    s.is_some_and(|s| any.iter().any(|x| x == s))
}

/// [`Filters`] applied to the events of one input (or chunk), in order.
pub struct Matcher<'f> {
    filters: &'f Filters,
    /// The input is a session transcript: `sessionId` and `isSidechain`
    /// say the session and the agent.
    pub transcript: bool,
    /// Ids of the calls of the wanted tools seen so far (only with --tool).
    tool_ids: HashSet<Box<str>>,
}

impl<'f> Matcher<'f> {
    /// A matcher for these filters, with no call seen yet.
    pub fn new(filters: &'f Filters) -> Matcher<'f> {
        Matcher {
            filters,
            transcript: false,
            tool_ids: HashSet::new(),
        }
    }

    /// True when no flag was given: every event passes, none need be read.
    pub fn passes_all(&self) -> bool {
        let f = self.filters;
        f.types.is_empty()
            && f.subtypes.is_empty()
            && f.sessions.is_empty()
            && f.tools.is_empty()
            && f.models.is_empty()
            && !f.main
            && !f.subagent
    }

    /// False when an event of this `type` and `subtype` cannot pass (with
    /// no `--tool`, whose calls must be seen whatever else is asked), so
    /// that a scanned line is not read further.
    pub fn may_match(&self, ty: &str, subtype: Option<&str>) -> bool {
        !self.filters.tools.is_empty() || self.named(|| ty, || subtype)
    }

    /// The `--type` and `--subtype` tests (each name read only when its
    /// flag was given).
    fn named<'e>(
        &self,
        ty: impl FnOnce() -> &'e str,
        subtype: impl FnOnce() -> Option<&'e str>,
    ) -> bool {
        let f = self.filters;
        let one_of = |s: &str, any: &[String]| any.iter().any(|x| x == s);
        (f.types.is_empty() || one_of(ty(), &f.types))
            && (f.subtypes.is_empty() || subtype().is_some_and(|s| one_of(s, &f.subtypes)))
    }

    /// True when the event passes every flag given; `ty` and `subtype`
    /// give its `type` and `subtype` (a scanned line has them at hand).
    pub fn matches<'e>(
        &mut self,
        ev: &Event<'e>,
        ty: impl FnOnce() -> &'e str,
        subtype: impl FnOnce() -> Option<&'e str>,
    ) -> bool {
        let f = self.filters;
        // First, so that a call is remembered even when another test turns
        // it down: its result answers a call of the tool all the same.
        if !f.tools.is_empty() {
            let tool_ok = match tool_block(ev, &f.tools) {
                ToolBlock::Use { wanted, id } => {
                    if wanted
                        && let Some(id) = id
                        && !self.tool_ids.contains(id)
                    {
                        self.tool_ids.insert(id.into());
                    }
                    wanted
                }
                ToolBlock::Result(id) => self.tool_ids.contains(id),
                ToolBlock::Neither => false,
            };
            if !tool_ok {
                return false;
            }
        }
        if !self.named(ty, subtype) {
            return false;
        }
        if !f.sessions.is_empty() {
            let ok = match self.transcript {
                true => one_of(ev.get("sessionId").and_then(|v| v.as_str()), &f.sessions),
                false => one_of(ev.session_id(), &f.sessions),
            };
            if !ok {
                return false;
            }
        }
        let model = || {
            ev.model()
                .or_else(|| ev.get("model").and_then(|v| v.as_str()))
        };
        if !f.models.is_empty() && !one_of(model(), &f.models) {
            return false;
        }
        if f.main || f.subagent {
            let in_subagent = match self.transcript {
                true => ev.get("isSidechain").and_then(|v| v.as_bool()) == Some(true),
                false => matches!(ev.parent_tool_use_id(), Field::Value(_)),
            };
            if in_subagent != f.subagent {
                return false;
            }
        }
        true
    }
}

/// Arguments of `cctape filter`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// Lazy mode for input you trust: read type/subtype and the fields the
    /// tests need, and do not check the rest of each line as JSON (a broken
    /// line may be printed, not reported). Off by default: every line is
    /// validated.
    #[arg(long, conflicts_with = "errors")]
    trust: bool,
    #[command(flatten)]
    read: super::reading::ReadAs,
    #[command(flatten)]
    buffering: super::live::Buffering,
    #[command(flatten)]
    live: super::live::Follow,
    // Last but the output flags: its help heading holds for what follows.
    #[command(flatten)]
    filters: Filters,
    /// The lines that failed to read (not JSON, cut, no type, ...) instead of
    /// events, as matches: printed, not said on stderr, not an error (exit
    /// 0 when one was printed). A line past the maximum length cannot be
    /// printed (its bytes are not kept): it is said on stderr instead, an
    /// error (exit 2), and not counted.
    #[arg(long)]
    errors: bool,
    /// The events that do not pass the tests (as grep -v); bad lines are
    /// not events and stay out (see --errors).
    #[arg(long, short = 'v', conflicts_with = "errors")]
    invert_match: bool,
    /// At most NUM lines per input (as grep -m): each input is then read
    /// in order on one worker, its count stops at NUM, and its reading
    /// stops there.
    #[arg(long, short = 'm', value_name = "NUM")]
    max_count: Option<u64>,
    /// Print only how many lines would be printed, per input: `NAME:N` when
    /// names are shown (inputs with none left out unless --include-zero, as
    /// ripgrep does), else `N` (0 included, as grep -c). --total gives one
    /// number for everything.
    #[arg(long, short = 'c', help_heading = "Output")]
    count: bool,
    /// Print only how many lines would be printed over every input: one
    /// number.
    #[arg(long, conflicts_with = "count", help_heading = "Output")]
    total: bool,
    /// With --count, list the inputs with no line too.
    #[arg(long, requires = "count", help_heading = "Output")]
    include_zero: bool,
    /// Print only the names of the inputs with a line to print, one a line
    /// (NUL-ended with --null), as grep -l and ripgrep -l.
    #[arg(
        long,
        short = 'l',
        conflicts_with_all = ["count", "total", "files_without_match"],
        help_heading = "Output"
    )]
    files_with_matches: bool,
    /// Print only the names of the inputs with no line to print (an input
    /// that could not be read is not listed: its error is said on stderr).
    #[arg(long, conflicts_with_all = ["count", "total"], help_heading = "Output")]
    files_without_match: bool,
    /// Print each line's input name first (`NAME:LINE`). The default when
    /// more than one path is given or a directory is walked.
    #[arg(
        long,
        short = 'H',
        overrides_with = "no_filename",
        help_heading = "Output"
    )]
    with_filename: bool,
    /// Never print input names.
    #[arg(
        long,
        short = 'I',
        overrides_with = "with_filename",
        help_heading = "Output"
    )]
    no_filename: bool,
    /// Print a NUL byte after each input name instead of `:` (for
    /// `xargs -0`, `cut -d ''`).
    #[arg(long, short = '0', help_heading = "Output")]
    null: bool,
    /// Print each line's 1-based line number in its input first
    /// (`NAME:N:LINE`, or `N:LINE`).
    #[arg(long, short = 'n', help_heading = "Output")]
    line_number: bool,
}

impl Args {
    /// `-l` or `--files-without-match`: input names are printed, not lines.
    fn lists_inputs(&self) -> bool {
        self.files_with_matches || self.files_without_match
    }
}

/// True when names are shown by default: more than one path, or a
/// directory (as grep -r and ripgrep decide).
pub fn several_inputs(common: &Common) -> bool {
    common.paths.len() > 1 || common.paths.iter().any(|p| p.is_dir())
}

/// An input's name as printed before its lines: the path's own bytes when
/// the output goes to a pipe or a file (so that `cut -d:` and `--null` give
/// the real path), escaped when it goes to a terminal (as `ls` does).
fn printed_name(input: &Input, terminal: bool) -> Vec<u8> {
    match input {
        Input::File(p) if !terminal => {
            #[cfg(unix)]
            {
                use std::os::unix::ffi::OsStrExt;
                p.as_os_str().as_bytes().to_vec()
            }
            #[cfg(not(unix))]
            {
                input.name().into_bytes()
            }
        }
        _ => input.shown().into_bytes(),
    }
}

/// What `filter` prints, decided once for every sink.
struct Conf<'a> {
    args: &'a Args,
    /// Per input: its name and the separator after it, or nothing.
    prefixes: Option<Vec<Vec<u8>>>,
}

impl Conf<'_> {
    /// Lines are counted, not printed.
    fn counting(&self) -> bool {
        self.args.count
            || self.args.total
            || self.args.files_with_matches
            || self.args.files_without_match
    }

    /// One more line may be taken from an input that has `matched`.
    fn room(&self, matched: u64) -> bool {
        self.args.max_count.is_none_or(|m| matched < m)
    }

    /// An input with `matched` lines needs reading no further: its first
    /// NUM lines are out (`-m`), or one line decides its listing (`-l`,
    /// `--files-without-match`).
    fn enough(&self, matched: u64) -> bool {
        let listing = self.args.lists_inputs();
        !self.room(matched) || (listing && matched > 0)
    }

    /// Append one matched line with its name and number as asked.
    fn line(&self, input: usize, number: u64, line: &[u8], out: &mut Vec<u8>) {
        if let Some(p) = &self.prefixes {
            out.extend_from_slice(&p[input]);
        }
        if self.args.line_number {
            use std::io::Write as _;
            let _ = write!(out, "{number}:");
        }
        // One line per match, also for a pretty JSON element.
        cctape::elements::compact_into(line, out);
        out.push(b'\n');
    }
}

struct FilterSink<'c> {
    conf: &'c Conf<'c>,
    matcher: Matcher<'c>,
    matched: u64,
}

impl Sink for FilterSink<'_> {
    fn reads(&self) -> Reads {
        let args = self.conf.args;
        Reads {
            scan: Some(if args.trust {
                ScanMode::Trusting
            } else {
                ScanMode::Validated
            }),
            // The first NUM lines of an input are known only in order, and
            // reading stops there (or at the first line, for a listing).
            split: if args.max_count.is_some() || args.lists_inputs() {
                Split::Never
            } else {
                args.filters.split()
            },
            numbers: args.line_number,
            ..Reads::default()
        }
    }

    fn format(&mut self, _: &Piece<'_>, format: cctape::sniff::Format) {
        self.matcher.transcript = format == cctape::sniff::Format::Transcript;
    }

    #[inline(always)]
    fn item(&mut self, piece: &Piece<'_>, item: Item<'_, '_>, out: &mut Vec<u8>) {
        match item {
            Item::Scanned(s) => self.scanned(piece, s, out),
            Item::Error { error, bytes } => self.bad(piece, error, bytes, out),
            _ => {}
        }
    }

    /// With `--errors`, bad lines are what is printed; one whose bytes are
    /// not kept (past the maximum) cannot be, and is an error.
    fn bad_line(&self, _: &Error, line: Option<&[u8]>) -> BadLine {
        if self.conf.args.errors && line.is_some() {
            BadLine::Listed
        } else {
            BadLine::Error
        }
    }

    fn has_enough(&self) -> bool {
        self.conf.enough(self.matched)
    }
}

impl FilterSink<'_> {
    /// One scanned line: selected or not.
    #[inline]
    fn scanned(&mut self, piece: &Piece<'_>, s: &Scanned<'_>, out: &mut Vec<u8>) {
        // The matcher sees every event (a --tool test follows calls), then
        // the answer is inverted for -v.
        let (m, ty, subtype) = (&mut self.matcher, s.raw_type(), s.raw_subtype());
        let passes = m.passes_all()
            || (m.may_match(ty, subtype) && m.matches(&s.event(), || ty, || subtype));
        let selected = passes != self.conf.args.invert_match;
        if self.conf.args.errors || !selected || !self.conf.room(self.matched) {
            return;
        }
        self.matched += 1;
        if !self.conf.counting() {
            self.conf.line(piece.input, s.position().line, s.raw(), out);
        }
    }

    /// A bad line: printed with `--errors`.
    fn bad(&mut self, piece: &Piece<'_>, e: &Error, line: Option<&[u8]>, out: &mut Vec<u8>) {
        if !self.conf.args.errors || e.is_fatal() {
            // A broken input is reported by the driver; it is not a line.
            return;
        }
        if !self.conf.room(self.matched) {
            return;
        }
        // Without its bytes: said by the driver (see `bad_line`).
        let Some(line) = line else { return };
        self.matched += 1;
        if !self.conf.counting() {
            self.conf.line(piece.input, e.position().line, line, out);
        }
    }
}

/// The exit code of a command that selects, when no error occurred (see
/// [`exec::Trouble::exit_code`]): 0 when something was selected and 1
/// when nothing was, as grep and ripgrep exit.
pub fn select_exit_code(selected: u64) -> i32 {
    if selected > 0 { 0 } else { 1 }
}

/// Run the command; returns the exit code: 0 a line matched, 1 none did,
/// 2 an error (an input that could not be read, a bad line missing from
/// the output; a write error ends the process with 2).
pub fn run(args: &Args) -> i32 {
    let (inputs, failed) = if args.live.follow_name {
        (vec![args.live.input(&args.common)], false)
    } else {
        expand(&args.common)
    };
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    opts.line_buffered = args.buffering.line_buffered;
    let names = args.with_filename || (!args.no_filename && several_inputs(&args.common));
    let terminal = std::io::stdout().is_terminal();
    let prefixes = names.then(|| {
        inputs
            .iter()
            .map(|i| {
                let mut p = printed_name(i, terminal);
                p.push(if args.null { 0 } else { b':' });
                p
            })
            .collect()
    });
    let conf = Conf { args, prefixes };
    let mut total = 0u64;
    let mut per_input = 0u64;
    let mut listed = 0u64;
    let trouble = exec::run(
        &inputs,
        &opts,
        || FilterSink {
            conf: &conf,
            matcher: Matcher::new(&args.filters),
            matched: 0,
        },
        |done: Done<FilterSink>| {
            total += done.sink.matched;
            per_input += done.sink.matched;
            // An input that could not be read has no count (grep and
            // ripgrep print none): its error was said on stderr.
            let listing = args.lists_inputs();
            if done.last && listing && !done.unreadable {
                let n = std::mem::take(&mut per_input);
                if (n > 0) == args.files_with_matches {
                    listed += 1;
                    let mut out = printed_name(&inputs[done.input], terminal);
                    out.push(if args.null { 0 } else { b'\n' });
                    exec::write_out(&mut out);
                }
            }
            if done.last && args.count && !done.unreadable {
                let n = std::mem::take(&mut per_input);
                let mut out = Vec::new();
                match &conf.prefixes {
                    Some(p) if n > 0 || args.include_zero => {
                        out.extend_from_slice(&p[done.input]);
                        out.extend_from_slice(format!("{n}\n").as_bytes());
                    }
                    Some(_) => {}
                    None => out.extend_from_slice(format!("{n}\n").as_bytes()),
                }
                exec::write_out(&mut out);
            }
        },
    );
    if args.total {
        exec::write_out(&mut format!("{total}\n").into_bytes());
    }
    // As ripgrep: 0 when a name was printed.
    let selected = if args.lists_inputs() { listed } else { total };
    trouble.and(failed).exit_code(select_exit_code(selected))
}
