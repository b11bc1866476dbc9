//! `cctape check`: read streams against the field reference and report what
//! does not fit, per `claude_code_version`: a drift census with counts and
//! one example position each. Exit 1 when anything was found.
//!
//! JSON arrays and pretty captures are checked event by event. A session
//! transcript is checked in its own dialect, per the `version` of each
//! record: record types and system subtypes without a typed view, fields
//! of its typed view holding what their accessor does not read (a
//! fractional count), unknown content blocks, and lines that are not
//! records.

use super::exec::{self, BadLine, Done, Item, Piece, Reads, Sink};
use super::human::{Align, Table, clean, version_order};
use super::output::{print_json, thousands};
use super::reading::ReadAs;
use super::{Common, expand};
use cctape::error::Error;
use cctape::event::{Event, EventKind};
use cctape::json::Value;
use cctape::transcript::{RecordHeader, RecordView};
use cctape::views::{Answer, Block, FromValue, View, Visitor};
use serde_json::json;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Arguments of `cctape check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print one JSON object instead of a report for people.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    read: ReadAs,
    #[command(flatten)]
    common: Common,
}

/// What kind of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Category {
    /// A type or subtype without a typed view.
    UnknownKind,
    /// A field its view does not know.
    UnknownField,
    /// A field of a JSON type its accessor does not read.
    UnexpectedType,
    /// A content block type the reference does not define.
    UnknownContentBlock,
    /// An assistant event with more than one content block.
    SeveralContentBlocks,
    /// An event without the `uuid` the reference requires.
    MissingUuid,
    /// A tool_result whose tool_use never appeared in the input.
    ResultWithoutUse,
    /// A line that ended the input in the middle.
    Truncated,
    /// A line that holds several objects separated by CR only.
    CrLineEnds,
    /// A line that is not an event (not JSON, no type, ...).
    NotAnEvent,
}

impl Category {
    fn name(self) -> &'static str {
        match self {
            Category::UnknownKind => "unknown_kind",
            Category::UnknownField => "unknown_field",
            Category::UnexpectedType => "unexpected_type",
            Category::UnknownContentBlock => "unknown_content_block",
            Category::SeveralContentBlocks => "several_content_blocks",
            Category::MissingUuid => "missing_uuid",
            Category::ResultWithoutUse => "tool_result_without_tool_use",
            Category::Truncated => "truncated",
            Category::CrLineEnds => "cr_line_ends",
            Category::NotAnEvent => "not_an_event",
        }
    }
}

/// (version, category, kind, detail)
type Key = (String, Category, String, String);

/// Distinct details kept per (version, category, kind); further ones are
/// counted together under [`OTHER`], so a stream where every line brings a
/// new field name stays in bounded memory and output.
const DETAILS_KEPT: usize = 64;

/// The detail of the bucket for details past [`DETAILS_KEPT`].
const OTHER: &str = "(other)";

/// Findings with distinct details capped per (version, category, kind).
#[derive(Default)]
struct Findings {
    map: BTreeMap<Key, Finding>,
    /// Distinct details kept per (version, category, kind).
    details: HashMap<(String, Category, String), usize>,
}

impl Findings {
    /// Add `f` under `key`, or under the kind's `(other)` bucket when the
    /// kind already has [`DETAILS_KEPT`] distinct details.
    fn add(&mut self, mut key: Key, f: Finding) {
        if !self.map.contains_key(&key) && !key.3.is_empty() && key.3 != OTHER {
            let n = self
                .details
                .entry((key.0.clone(), key.1, key.2.clone()))
                .or_default();
            if *n >= DETAILS_KEPT {
                OTHER.clone_into(&mut key.3);
            } else {
                *n += 1;
            }
        }
        self.map
            .entry(key)
            .and_modify(|g| g.count += f.count)
            .or_insert(f);
    }
}

#[derive(Clone, Debug)]
struct Finding {
    count: u64,
    input: usize,
    line: u64,
    offset: u64,
}

#[derive(Default)]
struct CheckSink {
    version: String,
    findings: Findings,
    tool_uses: HashSet<Box<str>>,
    /// Results seen before (or without) their use: (id, version, the
    /// event's kind, line, offset).
    pending_results: Vec<(Box<str>, String, String, u64, u64)>,
}

impl CheckSink {
    fn add(
        &mut self,
        cat: Category,
        kind: &str,
        detail: String,
        p: &Piece<'_>,
        line: u64,
        offset: u64,
    ) {
        let key = (self.version.clone(), cat, kind.to_string(), detail);
        self.findings.add(
            key,
            Finding {
                count: 1,
                input: p.input,
                line,
                offset,
            },
        );
    }
}

fn kind_name(ev: &Event<'_>) -> String {
    match ev.kind().name() {
        Some(n) => n.to_string(),
        None => match ev.raw_subtype() {
            Some(s) => format!("{}/{s}", ev.raw_type()),
            None => ev.raw_type().to_string(),
        },
    }
}

/// Whether the reference gives this kind a `uuid` (every event of its
/// `EventBase` except `system/api_retry`).
fn requires_uuid(k: EventKind) -> bool {
    !matches!(
        k,
        EventKind::SystemApiRetry
            | EventKind::SystemCompactBoundary
            | EventKind::SystemNotification
            | EventKind::SystemOther
            | EventKind::ControlRequest
            | EventKind::ControlResponse
            | EventKind::ControlCancelRequest
            | EventKind::ToolProgress
            | EventKind::SystemDevIntent
            | EventKind::ResultOther
            | EventKind::Unknown
    )
}

struct Drift {
    stack: Vec<&'static str>,
    out: Vec<(Category, String)>,
    /// Fields a view does not know are findings (a stream's events, against
    /// the reference); a transcript's records are checked for types alone.
    unknown: bool,
}

impl Drift {
    /// A drift visitor; `unknown`: fields a view does not know are
    /// findings.
    fn new(unknown: bool) -> Drift {
        Drift {
            stack: Vec::new(),
            out: Vec::new(),
            unknown,
        }
    }

    fn path(&self, key: &str) -> String {
        let mut s = String::new();
        for k in self.stack.iter().skip(1) {
            s.push_str(k);
            s.push('.');
        }
        s.push_str(key);
        s
    }
}

/// What is unusual about a value a field could not read: a number says
/// which number (`Number: negative, -1`), anything else its JSON type.
fn unusual(v: &Value<'_>) -> String {
    use cctape::Number;
    match v.number() {
        Some(Number::I64(n)) => format!("Number: negative, {n}"),
        Some(Number::F64(f)) if f.fract() != 0.0 => format!("Number: fractional, {f}"),
        Some(Number::F64(f)) => format!("Number: written with a fraction or exponent, {f}"),
        Some(Number::Big(t)) => format!("Number: beyond u64/i64/f64, {t}"),
        Some(Number::U64(n)) => format!("Number: {n}"),
        None => format!("{:?}", v.kind()),
    }
}

impl<'d> Visitor<'d> for Drift {
    fn enter(&mut self, key: &'static str, _view: &'static str, _obj: Value<'d>) {
        self.stack.push(key);
    }

    fn leave(&mut self) {
        self.stack.pop();
    }

    fn field(
        &mut self,
        _obj: Value<'d>,
        key: &'static str,
        raw: Option<Value<'d>>,
        read: &dyn Answer<'d>,
    ) {
        // A member the accessor read nothing from holds another type.
        if !read.is_present()
            && let Some(raw) = raw
        {
            let p = format!("{} (is {})", self.path(key), unusual(&raw));
            self.out.push((Category::UnexpectedType, p));
        }
    }

    fn unknown(&mut self, _obj: Value<'d>, key: &'d str, _value: Value<'d>) {
        let p = self.path(key);
        self.out.push((Category::UnknownField, p));
    }

    fn wants_unknown(&self) -> bool {
        self.unknown
    }

    /// Whether a field reads is all a drift finding needs.
    fn readings(&self) -> bool {
        false
    }
}

impl Sink for CheckSink {
    /// Whole events, parsed ahead on the pool for a large file; the
    /// version and the tool-use ids follow the input in order.
    fn reads(&self) -> Reads {
        Reads::FOLDS
    }

    #[inline(always)]
    fn item(&mut self, p: &Piece<'_>, item: Item<'_, '_>, _: &mut Vec<u8>) {
        match item {
            Item::Event(ev) => self.event(p, ev),
            Item::Record(rec) => self.record(p, rec),
            Item::Error { error, .. } => self.bad(p, error),
            _ => {}
        }
    }

    /// A bad line is a finding (`not_an_event`, `truncated`,
    /// `cr_line_ends`): said, and the exit code is the census's.
    fn bad_line(&self, _: &Error, _: Option<&[u8]>) -> BadLine {
        BadLine::Counted
    }
}

impl CheckSink {
    /// An event: its kind, drift, uuid and content blocks.
    fn event(&mut self, p: &Piece<'_>, ev: &Event<'_>) {
        let (line, offset) = (ev.line(), ev.offset());
        if ev.kind() == EventKind::SystemInit
            && let Some(v) = ev.get("claude_code_version").and_then(|v| v.as_str())
        {
            v.clone_into(&mut self.version);
        }
        let kind = kind_name(ev);
        let view = ev.view();
        if let View::Other(_) = view {
            self.add(Category::UnknownKind, &kind, String::new(), p, line, offset);
            return;
        }
        let mut d = Drift::new(true);
        view.visit_all(&mut d);
        for (cat, detail) in d.out {
            self.add(cat, &kind, detail, p, line, offset);
        }
        if requires_uuid(ev.kind()) && ev.uuid().is_none() {
            self.add(Category::MissingUuid, &kind, String::new(), p, line, offset);
        }
        if matches!(ev.kind(), EventKind::Assistant | EventKind::User)
            && let Some(content) = ev.message().and_then(|m| m.get("content"))
        {
            if ev.kind() == EventKind::Assistant && content.len() > 1 {
                let n = content.len().to_string();
                self.add(Category::SeveralContentBlocks, &kind, n, p, line, offset);
            }
            for block in content.elements() {
                let ty = block.get("type").and_then(|t| t.as_str()).unwrap_or("");
                // The block's view says what it is (server tools' use and
                // result blocks included).
                let typed = Block::from_value(block);
                if matches!(typed, Some(Block::Other(_))) {
                    self.add(
                        Category::UnknownContentBlock,
                        &kind,
                        ty.to_string(),
                        p,
                        line,
                        offset,
                    );
                }
                match typed {
                    Some(Block::ToolUse(_) | Block::ServerToolUse(_)) => {
                        if let Some(id) = block.get("id").and_then(|v| v.as_str()) {
                            self.tool_uses.insert(id.into());
                        }
                    }
                    Some(Block::ToolResult(_) | Block::ServerToolResult(_)) => {
                        if let Some(id) = block.get("tool_use_id").and_then(|v| v.as_str())
                            && !self.tool_uses.contains(id)
                        {
                            self.pending_results.push((
                                id.into(),
                                self.version.clone(),
                                kind.clone(),
                                line,
                                offset,
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// A bad line: a finding by its kind.
    fn bad(&mut self, p: &Piece<'_>, e: &Error) {
        if e.is_fatal() {
            // A broken input is not drift: reported on stderr, exit 2.
            return;
        }
        let pos = e.position();
        let cat = if e.reason() == exec::CR_LINE_ENDS {
            Category::CrLineEnds
        } else if e.kind() == cctape::ErrorKind::Truncated {
            Category::Truncated
        } else {
            Category::NotAnEvent
        };
        self.add(cat, e.kind().name(), String::new(), p, pos.line, pos.offset);
    }

    /// A transcript record: its `version`, a type without a typed view, its
    /// content blocks.
    fn record(&mut self, p: &Piece<'_>, rec: &Event<'_>) {
        let pos = rec.position();
        match RecordHeader::new(rec.root()).version() {
            Some(v) => v.clone_into(&mut self.version),
            None => self.version.clear(),
        }
        // The kind as written, made only for a finding.
        let kind = || match rec.raw_subtype() {
            Some(sub) => format!("{}/{sub}", rec.raw_type()),
            None => rec.raw_type().to_string(),
        };
        if matches!(rec.kind(), EventKind::Unknown | EventKind::SystemOther) {
            self.add(
                Category::UnknownKind,
                &kind(),
                String::new(),
                p,
                pos.line,
                pos.offset,
            );
        }
        // A field of its typed view that holds what its accessor does not
        // read (a count that is fractional, a cost that is a string), as
        // a stream's event is checked; the fields a view does not list are
        // the stream reference's question, not a transcript's.
        let view = RecordView::of(rec);
        if !matches!(view, RecordView::Other(_)) {
            let mut d = Drift::new(false);
            view.visit_all(&mut d);
            for (cat, detail) in d.out {
                self.add(cat, &kind(), detail, p, pos.line, pos.offset);
            }
        }
        if matches!(rec.kind(), EventKind::User | EventKind::Assistant)
            && let Some(content) = rec.get_path("message.content")
        {
            for block in content.elements() {
                let ty = block
                    .get("type")
                    .and_then(|t| t.as_str())
                    .unwrap_or_default();
                if !matches!(
                    ty,
                    "text"
                        | "thinking"
                        | "tool_use"
                        | "tool_result"
                        | "server_tool_use"
                        | "mcp_tool_use"
                ) && !ty.ends_with("_tool_result")
                {
                    let ty = ty.to_string();
                    self.add(
                        Category::UnknownContentBlock,
                        &kind(),
                        ty,
                        p,
                        pos.line,
                        pos.offset,
                    );
                }
            }
        }
    }
}

impl CheckSink {
    /// Results whose use never appeared, once the whole input is read.
    fn settle(&mut self, p: &Piece<'_>) {
        let pending = std::mem::take(&mut self.pending_results);
        for (id, version, kind, line, offset) in pending {
            if !self.tool_uses.contains(&id) {
                let saved = std::mem::replace(&mut self.version, version);
                self.add(
                    Category::ResultWithoutUse,
                    &kind,
                    String::new(),
                    p,
                    line,
                    offset,
                );
                self.version = saved;
            }
        }
    }
}

/// Run the command; returns the exit code: 0 nothing found, 1 something
/// (bad lines included), 2 an input could not be read.
pub fn run(args: &Args) -> i32 {
    let (inputs, failed) = expand(&args.common);
    let mut opts = exec::Opts::new(&args.common);
    opts.format = args.read.input_format.choice();
    let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
    let shown: Vec<String> = inputs.iter().map(|i| i.shown()).collect();
    let mut found = Findings::default();
    let trouble = exec::run(
        &inputs,
        &opts,
        CheckSink::default,
        |mut done: Done<CheckSink>| {
            let piece = Piece {
                input: done.input,
                name: &names[done.input],
            };
            done.sink.settle(&piece);
            for (k, f) in done.sink.findings.map {
                found.add(k, f);
            }
        },
    );
    let version_name = |v: &str| {
        if v.is_empty() {
            "unknown".to_string()
        } else {
            v.to_string()
        }
    };
    let all = found.map;
    let capped: Vec<&Key> = all.keys().filter(|k| k.3 == OTHER).collect();
    // Versions in semantic order (2.1.41 before 2.1.238), unknown last;
    // within a version, by category, kind and detail.
    let mut rows: Vec<(&Key, &Finding)> = all.iter().collect();
    rows.sort_by(|a, b| {
        let (v, w) = (version_name(&a.0.0), version_name(&b.0.0));
        version_order(&v, &w).then_with(|| a.0.cmp(b.0))
    });
    if args.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|((v, c, k, d), f)| {
                json!({
                    "claude_code_version": version_name(v),
                    "category": c.name(),
                    "kind": k,
                    "detail": d,
                    "count": f.count,
                    "example": {"file": names[f.input], "line": f.line, "offset": f.offset},
                })
            })
            .collect();
        let total: u64 = all.values().map(|f| f.count).sum();
        print_json(&json!({
            "findings": rows,
            "total": total,
            // Details past this many distinct ones per (version, category,
            // kind) are counted under the detail "(other)".
            "details_kept_per_kind": DETAILS_KEPT,
            "capped_kinds": capped.len(),
        }));
    } else {
        use std::fmt::Write as _;
        let mut o = String::new();
        // One aligned table, a row per finding, each row whole (its
        // version on it), so that `grep 2.1.41` keeps what it needs; the
        // detail before the first position, whose long paths would push
        // it out of a terminal's width (rows alike up to there).
        let mut t = Table::new(&[
            ("version", Align::Left),
            ("count", Align::Right),
            ("category", Align::Left),
            ("kind", Align::Left),
            ("detail", Align::Left),
            ("first", Align::Left),
        ]);
        for ((v, c, k, d), f) in &rows {
            t.row(vec![
                clean(&version_name(v)),
                thousands(f.count),
                c.name().to_string(),
                clean(k),
                clean(d),
                format!("{}:{}", shown[f.input], f.line),
            ]);
        }
        if !all.is_empty() {
            o.push_str(&t.render());
        }
        if all.is_empty() {
            o.push_str("nothing found: every line fits the reference\n");
        }
        if !capped.is_empty() {
            let _ = writeln!(
                o,
                "(other): details past the first {DETAILS_KEPT} distinct ones of a kind, counted together ({} kind{})",
                capped.len(),
                if capped.len() == 1 { "" } else { "s" }
            );
        }
        exec::write_out(&mut o.into_bytes());
    }
    trouble
        .and(failed)
        .exit_code(if all.is_empty() { 0 } else { 1 })
}
