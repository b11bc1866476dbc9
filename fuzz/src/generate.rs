//! A structure-aware generator of realistic stream-json: events with the
//! field reference's keys and values, keys in any order, strings full of
//! the bytes other tools break lines at, and numbers of every size.

use arbitrary::Arbitrary;
use std::fmt::Write;

/// Pieces strings are made of: the separators other tools treat as line
/// ends (U+2028, U+2029, U+0085, CR, VT, FF), a BOM, NUL, LF, quotes,
/// backslashes, an emoji, ANSI escapes, and plain text.
const PIECES: &[&str] = &[
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\r",
    "\u{b}",
    "\u{c}",
    "\u{feff}",
    "\0",
    "\n",
    "\r\n",
    "\"",
    "\\",
    "\\ud83d",
    LONE_HIGH,
    LONE_LOW,
    "😀",
    "é",
    "\u{1b}[31m",
    "\t",
    "{\"type\":\"user\"}",
    "toolu_01",
    "msg_01",
    "hello",
    " ",
    "\\u00e9",
    "2026-01-02T03:04:05.678Z",
    "[Request interrupted by user]",
    "<tool_use_error>",
    "Error: ",
    "      ",
];

/// Stands for a lone high surrogate escape (`\ud83d`), written after
/// serialization, since a Rust string cannot hold one.
const LONE_HIGH: &str = "\u{E000}";
/// Stands for a lone low surrogate escape (`\udc00`).
const LONE_LOW: &str = "\u{E001}";

/// A string: a list of pieces.
#[derive(Arbitrary, Debug, Clone)]
pub struct Str(Vec<Piece>);

/// One piece of a [`Str`].
#[derive(Arbitrary, Debug, Clone)]
pub enum Piece {
    /// One of [`PIECES`].
    Known(u8),
    /// Any char.
    Char(char),
    /// Printable ASCII.
    Ascii(u8),
    /// One of [`PIECES`] repeated (up to 1,023 times): long tool payloads
    /// that reach the pruned read, with the 256-byte cut landing anywhere.
    Run(u8, u16),
    /// Up to 4,095 ASCII letters: padding that moves the cut.
    Pad(u16),
}

/// The longest text a [`Str`] makes.
const MAX_TEXT: usize = 24 * 1024;

impl Str {
    fn text(&self) -> String {
        let mut s = String::new();
        for p in self.0.iter().take(64) {
            if s.len() > MAX_TEXT {
                break;
            }
            match p {
                Piece::Known(i) => s.push_str(PIECES[*i as usize % PIECES.len()]),
                Piece::Char(c) => s.push(*c),
                Piece::Ascii(b) => s.push((b' ' + b % 95) as char),
                Piece::Run(i, n) => {
                    let piece = PIECES[*i as usize % PIECES.len()];
                    for _ in 0..*n % 1024 {
                        s.push_str(piece);
                    }
                }
                Piece::Pad(n) => {
                    s.extend((0..*n % 4096).map(|k| (b'a' + (k % 26) as u8) as char));
                }
            }
        }
        s
    }

    /// A string of exactly these ASCII characters (for fixed ids).
    pub fn plain(text: &str) -> Str {
        Str(text
            .bytes()
            .map(|b| Piece::Ascii(b.wrapping_sub(b' ')))
            .collect())
    }
    fn json(&self) -> String {
        quote(&self.text())
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A number of any size, written as JSON text.
#[derive(Arbitrary, Debug, Clone)]
pub enum Num {
    /// A small count.
    Small(u16),
    /// Any u64.
    U64(u64),
    /// Any i64.
    I64(i64),
    /// A finite f64.
    F64(f64),
    /// An integer past u64 (digits).
    HugeInt(u8),
    /// A float past f64 (`1e400`-like).
    HugeExp(u16),
    /// A long mantissa.
    LongFraction(u64, u64),
}

impl Num {
    fn json(&self) -> String {
        match self {
            Num::Small(v) => v.to_string(),
            Num::U64(v) => v.to_string(),
            Num::I64(v) => v.to_string(),
            Num::F64(v) if v.is_finite() => {
                let s = serde_json::to_string(v).unwrap_or_else(|_| "0".into());
                if s == "null" { "0".into() } else { s }
            }
            Num::F64(_) => "0.5".into(),
            Num::HugeInt(n) => format!("1{}", "0".repeat(20 + *n as usize % 40)),
            Num::HugeExp(e) => format!("1e{}", 309 + *e as usize % 1000),
            Num::LongFraction(a, b) => format!("{a}.{b:019}{b}"),
        }
    }
}

/// A non-negative count, sometimes out of range or of the wrong type.
#[derive(Arbitrary, Debug, Clone)]
pub enum Count {
    /// The usual.
    N(u32),
    /// Any number.
    Any(Num),
    /// `null`.
    Null,
    /// A string where a number belongs.
    Text(Str),
}

impl Count {
    fn json(&self) -> String {
        match self {
            Count::N(v) => v.to_string(),
            Count::Any(n) => n.json(),
            Count::Null => "null".into(),
            Count::Text(s) => s.json(),
        }
    }
}

/// A value picked from the reference's vocabulary, or any string.
#[derive(Arbitrary, Debug, Clone)]
pub enum Word {
    /// Index into the given list.
    Pick(u8),
    /// Any string.
    Any(Str),
}

impl Word {
    fn json(&self, list: &[&str]) -> String {
        match self {
            Word::Pick(i) => quote(list[*i as usize % list.len()]),
            Word::Any(s) => s.json(),
        }
    }
}

const MODELS: &[&str] = &[
    "claude-sonnet-5-5",
    "claude-opus-5[1m]",
    "claude-opus-4-6",
    "<synthetic>",
    "glm-5.1",
];
const SYSTEM_SUBTYPES: &[&str] = &[
    "init",
    "status",
    "task_summary",
    "post_turn_summary",
    "thinking_tokens",
    "api_retry",
    "permission_denied",
    "hook_started",
    "hook_response",
    "background_tasks_changed",
    "task_started",
    "task_progress",
    "task_updated",
    "task_notification",
    "compact_boundary",
    "notification",
    "local_command",
];
const RESULT_SUBTYPES: &[&str] = &[
    "success",
    "error_during_execution",
    "error_max_turns",
    "error_max_budget_usd",
    "error_unknown",
];
const OTHER_TYPES: &[&str] = &[
    "active_goal",
    "autocompact_state",
    "rate_limit_event",
    "control_request",
    "control_response",
    "control_cancel_request",
    "tool_progress",
    "progress",
    "file-history-snapshot",
    "",
];
const STREAM_EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
];
const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Write",
    "Edit",
    "Agent",
    "Task",
    "mcp__x__y",
];

/// `parent_tool_use_id`: absent, null or an id.
#[derive(Arbitrary, Debug, Clone)]
pub enum Parent {
    /// Not there.
    Missing,
    /// `null`.
    Null,
    /// An id.
    Id(Str),
    /// A number (wrong type).
    Wrong(u8),
}

/// A content block.
#[derive(Arbitrary, Debug, Clone)]
pub enum Block {
    /// `text`.
    Text(Str),
    /// `thinking`.
    Thinking(Str, Str),
    /// `tool_use`.
    ToolUse {
        /// `id`.
        id: Str,
        /// `name`.
        name: Word,
        /// `input.command`.
        input: Str,
    },
    /// `tool_result`.
    ToolResult {
        /// `tool_use_id`.
        id: Str,
        /// `is_error`: absent, or a bool.
        is_error: Option<bool>,
        /// `content`.
        content: Str,
    },
}

impl Block {
    fn json(&self) -> String {
        match self {
            Block::Text(t) => format!(r#"{{"type":"text","text":{}}}"#, t.json()),
            Block::Thinking(t, s) => format!(
                r#"{{"type":"thinking","thinking":{},"signature":{}}}"#,
                t.json(),
                s.json()
            ),
            Block::ToolUse { id, name, input } => format!(
                r#"{{"type":"tool_use","id":{},"name":{},"input":{{"command":{}}},"caller":{{"type":"direct"}}}}"#,
                id.json(),
                name.json(TOOLS),
                input.json()
            ),
            Block::ToolResult {
                id,
                is_error,
                content,
            } => {
                let mut s = format!(r#"{{"type":"tool_result","tool_use_id":{}"#, id.json());
                if let Some(e) = is_error {
                    let _ = write!(s, r#","is_error":{e}"#);
                }
                let _ = write!(s, r#","content":{}}}"#, content.json());
                s
            }
        }
    }
}

/// `tool_use_result`: a string, or an object with a status and a report.
#[derive(Arbitrary, Debug, Clone)]
pub enum Tur {
    /// A string (`Error: ...`).
    Text(Str),
    /// `{"status":...,"handbackReport":{"text":...},"stdout":...}`.
    Obj {
        /// `status`.
        status: Str,
        /// `handbackReport.text`.
        report: Str,
        /// `stdout`.
        stdout: Str,
    },
}

impl Tur {
    fn json(&self) -> String {
        match self {
            Tur::Text(t) => t.json(),
            Tur::Obj {
                status,
                report,
                stdout,
            } => format!(
                r#"{{"status":{},"handbackReport":{{"text":{}}},"stdout":{}}}"#,
                status.json(),
                report.json(),
                stdout.json()
            ),
        }
    }
}

/// One event.
#[derive(Arbitrary, Debug, Clone)]
pub enum Ev {
    /// `system/init`.
    Init {
        /// `model`.
        model: Word,
        /// `tools`.
        tools: Vec<Word>,
        /// `claude_code_version`.
        version: Option<Str>,
        /// `cwd`.
        cwd: Str,
    },
    /// Another `system` subtype.
    System {
        /// `subtype`.
        subtype: Word,
        /// Some payload.
        text: Str,
        /// A number.
        n: Count,
        /// `hook_name`, `exit_code` and `outcome` (hook responses).
        hook: Option<(Str, Count, Str)>,
    },
    /// `assistant`.
    Assistant {
        /// `message.id`.
        id: Str,
        /// `message.model`.
        model: Word,
        /// The content block.
        block: Block,
        /// Four token counts.
        usage: Option<[Count; 4]>,
        /// `stop_reason`.
        stop: Option<Str>,
    },
    /// `user`.
    User {
        /// The content block.
        block: Block,
        /// `tool_use_result`.
        tool_use_result: Option<Tur>,
        /// `timestamp`.
        timestamp: Option<Str>,
    },
    /// `result`.
    Result {
        /// `subtype`.
        subtype: Word,
        /// `is_error`.
        is_error: bool,
        /// `num_turns`.
        num_turns: Count,
        /// `duration_ms`.
        duration_ms: Count,
        /// `total_cost_usd` (or a legacy key).
        cost: Num,
        /// Which cost key.
        legacy_cost: u8,
        /// `result`.
        result: Option<Str>,
    },
    /// `stream_event`.
    StreamEvent {
        /// `event.type`.
        kind: Word,
        /// `event.delta.text`.
        text: Str,
    },
    /// Any other type.
    Other {
        /// `type`.
        ty: Word,
        /// Payload.
        value: Str,
    },
}

/// A whole stream, and how to cut and chunk it.
#[derive(Arbitrary, Debug, Clone)]
pub struct Stream {
    /// The events, one a line.
    pub events: Vec<(Ev, Common)>,
    /// A BOM before the first line.
    pub bom: bool,
    /// CRLF line ends.
    pub crlf: bool,
    /// The last line ends with LF.
    pub final_lf: bool,
    /// Blank lines between events (count per gap, mod 3).
    pub blank: u8,
    /// Where to cut, for the truncation check.
    pub cut: u32,
    /// Bytes for [`crate::checks::Chunking::from_bytes`].
    pub chunking: [u8; 6],
}

/// Fields every event may carry, and the key order.
#[derive(Arbitrary, Debug, Clone)]
pub struct Common {
    /// `session_id`.
    pub session_id: Option<Str>,
    /// `uuid`.
    pub uuid: Option<Str>,
    /// `parent_tool_use_id`.
    pub parent: Parent,
    /// Seeds the key order.
    pub order: u64,
    /// Whitespace around `:` and `,` (space, tab, CR).
    pub spacing: u8,
}

/// One generated line: its text and the type/subtype it was given.
pub struct GenLine {
    /// The JSON object, one line.
    pub text: String,
    /// `type`.
    pub ty: String,
    /// `subtype`.
    pub subtype: Option<String>,
}

impl Ev {
    /// Serialize with the common fields, keys in the order `c.order` picks.
    pub fn line(&self, c: &Common) -> GenLine {
        let mut kv: Vec<(&str, String)> = Vec::new();
        let (ty, subtype): (String, Option<String>);
        match self {
            Ev::Init {
                model,
                tools,
                version,
                cwd,
            } => {
                ty = "system".into();
                subtype = Some("init".into());
                kv.push(("subtype", quote("init")));
                kv.push(("model", model.json(MODELS)));
                let tools: Vec<String> = tools.iter().take(16).map(|t| t.json(TOOLS)).collect();
                kv.push(("tools", format!("[{}]", tools.join(","))));
                if let Some(v) = version {
                    kv.push(("claude_code_version", v.json()));
                }
                kv.push(("cwd", cwd.json()));
                kv.push(("permissionMode", quote("auto")));
            }
            Ev::System {
                subtype: s,
                text,
                n,
                hook,
            } => {
                if let Some((name, code, outcome)) = hook {
                    kv.push(("hook_name", name.json()));
                    kv.push(("exit_code", code.json()));
                    kv.push(("outcome", outcome.json()));
                    kv.push(("output", text.json()));
                }
                ty = "system".into();
                let sj = s.json(SYSTEM_SUBTYPES);
                subtype = serde_json::from_str::<String>(&sj).ok();
                kv.push(("text", text.json()));
                kv.push(("attempt", n.json()));
                kv.push(("status", quote("requesting")));
                kv.push(("__subtype", sj));
            }
            Ev::Assistant {
                id,
                model,
                block,
                usage,
                stop,
            } => {
                ty = "assistant".into();
                subtype = None;
                let mut m = format!(
                    r#"{{"id":{},"type":"message","role":"assistant","model":{},"content":[{}]"#,
                    id.json(),
                    model.json(MODELS),
                    block.json()
                );
                if let Some(u) = usage {
                    let _ = write!(
                        m,
                        r#","usage":{{"input_tokens":{},"output_tokens":{},"cache_read_input_tokens":{},"cache_creation_input_tokens":{},"service_tier":"standard"}}"#,
                        u[0].json(),
                        u[1].json(),
                        u[2].json(),
                        u[3].json()
                    );
                }
                let stop = stop.as_ref().map_or("null".into(), Str::json);
                let _ = write!(m, r#","stop_reason":{stop}}}"#);
                kv.push(("message", m));
            }
            Ev::User {
                block,
                tool_use_result,
                timestamp,
            } => {
                ty = "user".into();
                subtype = None;
                kv.push((
                    "message",
                    format!(r#"{{"role":"user","content":[{}]}}"#, block.json()),
                ));
                if let Some(t) = tool_use_result {
                    kv.push(("tool_use_result", t.json()));
                }
                if let Some(t) = timestamp {
                    kv.push(("timestamp", t.json()));
                }
            }
            Ev::Result {
                subtype: s,
                is_error,
                num_turns,
                duration_ms,
                cost,
                legacy_cost,
                result,
            } => {
                ty = "result".into();
                let sj = s.json(RESULT_SUBTYPES);
                subtype = serde_json::from_str::<String>(&sj).ok();
                kv.push(("__subtype", sj));
                kv.push(("is_error", is_error.to_string()));
                kv.push(("num_turns", num_turns.json()));
                kv.push(("duration_ms", duration_ms.json()));
                kv.push(("duration_api_ms", "1".into()));
                let key = ["total_cost_usd", "cost_usd", "total_cost"][*legacy_cost as usize % 3];
                kv.push((key, cost.json()));
                if let Some(r) = result {
                    kv.push(("result", r.json()));
                }
                kv.push(("usage", r#"{"input_tokens":1,"output_tokens":2}"#.into()));
            }
            Ev::StreamEvent { kind, text } => {
                ty = "stream_event".into();
                subtype = None;
                kv.push((
                    "event",
                    format!(
                        r#"{{"type":{},"index":0,"delta":{{"type":"text_delta","text":{}}}}}"#,
                        kind.json(STREAM_EVENTS),
                        text.json()
                    ),
                ));
            }
            Ev::Other { ty: t, value } => {
                let tj = t.json(OTHER_TYPES);
                ty = serde_json::from_str::<String>(&tj).unwrap_or_default();
                subtype = None;
                kv.push(("__type", tj));
                kv.push(("value", value.json()));
            }
        }
        if !kv.iter().any(|(k, _)| *k == "__type") {
            kv.push(("type", quote(&ty)));
        }
        if let Some(s) = &c.session_id {
            kv.push(("session_id", s.json()));
        }
        if let Some(u) = &c.uuid {
            kv.push(("uuid", u.json()));
        }
        match &c.parent {
            Parent::Missing => {}
            Parent::Null => kv.push(("parent_tool_use_id", "null".into())),
            Parent::Id(s) => kv.push(("parent_tool_use_id", s.json())),
            Parent::Wrong(n) => kv.push(("parent_tool_use_id", n.to_string())),
        }
        // Shuffle the keys: `type` need not come first.
        let mut seed = c.order | 1;
        for i in (1..kv.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            kv.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        let ws = [" ", "\t", "\r", "", "  "];
        let sp = ws[c.spacing as usize % ws.len()];
        let mut text = String::from("{");
        for (i, (k, v)) in kv.iter().enumerate() {
            if i > 0 {
                text.push(',');
                text.push_str(sp);
            }
            let k = k.trim_start_matches("__");
            let _ = write!(text, "{}{sp}:{sp}{v}", quote(k));
        }
        text.push('}');
        let text = text
            .replace(LONE_HIGH, "\\ud83d")
            .replace(LONE_LOW, "\\udc00");
        GenLine { text, ty, subtype }
    }
}

impl Stream {
    /// The stream's bytes and, per event, its line's type and subtype.
    pub fn bytes(&self) -> (Vec<u8>, Vec<GenLine>) {
        let mut out = Vec::new();
        let mut lines = Vec::new();
        if self.bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        let n = self.events.len().min(32);
        for (i, (ev, c)) in self.events.iter().take(n).enumerate() {
            let g = ev.line(c);
            out.extend_from_slice(g.text.as_bytes());
            let last = i + 1 == n;
            if !last || self.final_lf {
                if self.crlf {
                    out.push(b'\r');
                }
                out.push(b'\n');
            }
            if !last {
                for _ in 0..self.blank % 3 {
                    out.extend_from_slice(b" \t\r\n");
                }
            }
            lines.push(g);
        }
        (out, lines)
    }
}

/// Bad lines for a script: each one is not an event, or is cut.
const BAD_LINES: &[&[u8]] = &[
    b"not json",
    b"{\"type\":\"user\"",
    b"{\"type\":1}",
    b"[1,2]",
    b"{\"type\":\"user\",\"a\":\"\xff\"}",
    b"{\"no_type\":true}",
    b"{\"type\":\"user\",\"type\":\"assistant\"}",
    b"\xEF\xBB\xBF{\"type\":\"user\"}",
];

/// Session ids a script's events share, so that runs interleave, end and
/// come back.
const SESSIONS: &[&str] = &["s1", "s2", "s3", "s4"];

/// One step of a [`Script`].
#[derive(Arbitrary, Debug, Clone)]
pub enum Step {
    /// A generated event; `session` picks its `session_id` (0: the
    /// event's own, 1 to 4: a shared one, 5: a shared one of 300 bytes,
    /// 6: none).
    Event(Ev, Common, u8),
    /// Raw bytes as one line (LFs dropped).
    Raw(Vec<u8>),
    /// A bad line.
    Bad(u8),
    /// A blank line.
    Blank,
    /// A drain point: `RunFolder::drain_complete` here (`run_fold`).
    Drain,
}

/// A sequence of lines for the run fold and the stats path: generated
/// events (with shared session ids), raw lines and bad lines.
#[derive(Arbitrary, Debug, Clone)]
pub struct Script {
    /// The steps.
    pub steps: Vec<Step>,
    /// The last line ends with LF.
    pub final_lf: bool,
}

impl Script {
    /// The stream's bytes, and the line numbers after which to drain (the
    /// number of lines written before each [`Step::Drain`]).
    pub fn bytes(&self) -> (Vec<u8>, Vec<u64>) {
        let mut out = Vec::new();
        let mut drains = Vec::new();
        let mut lines = 0u64;
        for step in self.steps.iter().take(64) {
            match step {
                Step::Event(ev, c, session) => {
                    let mut c = c.clone();
                    match session % 7 {
                        0 => {}
                        k @ 1..=4 => c.session_id = Some(Str::plain(SESSIONS[k as usize - 1])),
                        5 => {
                            let n = (session / 7) as usize % 4;
                            c.session_id =
                                Some(Str::plain(&format!("{}{}", SESSIONS[n], "x".repeat(300))));
                        }
                        _ => c.session_id = None,
                    }
                    out.extend_from_slice(ev.line(&c).text.as_bytes());
                }
                Step::Raw(b) => out.extend(b.iter().copied().filter(|&x| x != b'\n')),
                Step::Bad(i) => out.extend_from_slice(BAD_LINES[*i as usize % BAD_LINES.len()]),
                Step::Blank => out.extend_from_slice(b" \t"),
                Step::Drain => {
                    drains.push(lines);
                    continue;
                }
            }
            out.push(b'\n');
            lines += 1;
        }
        if !self.final_lf && out.last() == Some(&b'\n') {
            out.pop();
        }
        (out, drains)
    }
}
