//! The transcript fold (`cctape::transcript::TranscriptFold`), which reads
//! records through the structural index: it never panics, and three ways
//! of feeding it agree on the report (`Report`, compared whole):
//!
//! - one slice against a reader handing out a few bytes at a time;
//! - two files folded in one fold against each folded apart and merged (as
//!   `-j N` does).
//!
//! Structure-aware: records of the shapes the fold reads (assistant
//! messages with usage and tool calls, tool results, interrupts, relayed
//! subagent messages, system records, summaries), with ids drawn from a
//! small pool so that requests and calls repeat across records and files,
//! keys given twice or escaped, odd values, and raw bytes between them.
#![no_main]

use arbitrary::Arbitrary;
use cctape::pricing::PriceTable;
use cctape::time::Zone;
use cctape::transcript::{TranscriptFile, TranscriptFold};
use libfuzzer_sys::fuzz_target;
use std::io::Read;
use std::path::Path;

#[derive(Arbitrary, Debug)]
enum Val {
    Str(u8),
    Text(String),
    Num(u32),
    Big,
    Float,
    Null,
    Bool(bool),
    Obj,
}

impl Val {
    fn json(&self) -> String {
        match self {
            Val::Str(i) => format!("\"{}\"", POOL[*i as usize % POOL.len()]),
            Val::Text(s) => serde_json::to_string(s).unwrap_or_default(),
            Val::Num(n) => n.to_string(),
            Val::Big => "18446744073709551616".into(),
            Val::Float => "-1.5e3".into(),
            Val::Null => "null".into(),
            Val::Bool(b) => b.to_string(),
            Val::Obj => r#"{"a":[1,{"b":"}"}]}"#.into(),
        }
    }
}

/// Ids, names and times shared by records, so that they meet.
const POOL: [&str; 12] = [
    "msg_1",
    "req_1",
    "toolu_1",
    "Task",
    "Agent",
    "a1",
    "s1",
    "2026-01-02T00:01:00.000Z",
    "2026-01-01T23:59:59.999Z",
    "[Request interrupted by user]",
    "<command-name>",
    "m\\u0073g_1",
];

#[derive(Arbitrary, Debug)]
enum Rec {
    Assistant {
        session: Val,
        time: Val,
        id: Val,
        request: Val,
        model: Val,
        usage: [Val; 4],
        split: Option<(Val, Val)>,
        stop: Val,
        calls: Vec<(Val, Val, Val)>,
        sidechain: Val,
        api_error: Val,
        twice: bool,
    },
    User {
        session: Val,
        time: Val,
        text: Val,
        results: Vec<(Val, Val)>,
        meta: Val,
    },
    Progress {
        agent: Val,
        by: Val,
        id: Val,
        request: Val,
        time: Val,
        usage: [Val; 2],
    },
    System {
        subtype: Val,
        duration: Val,
    },
    Summary(Val),
    Raw(Vec<u8>),
}

impl Rec {
    fn line(&self, out: &mut Vec<u8>) {
        let s = match self {
            Rec::Assistant {
                session,
                time,
                id,
                request,
                model,
                usage,
                split,
                stop,
                calls,
                sidechain,
                api_error,
                twice,
            } => {
                let split = split.as_ref().map_or(String::new(), |(a, b)| {
                    format!(
                        r#","cache_creation":{{"ephemeral_5m_input_tokens":{},"ephemeral_1h_input_tokens":{}}}"#,
                        a.json(),
                        b.json()
                    )
                });
                let blocks: Vec<String> = calls
                    .iter()
                    .map(|(i, n, d)| {
                        format!(
                            r#"{{"type":"tool_use","id":{},"name":{},"input":{{"subagent_type":{},"description":"x"}}}}"#,
                            i.json(),
                            n.json(),
                            d.json()
                        )
                    })
                    .collect();
                let again = if *twice {
                    format!(
                        r#","stop_reason":{},"usage":{{"output_tokens":7}}"#,
                        stop.json()
                    )
                } else {
                    String::new()
                };
                format!(
                    r#"{{"type":"assistant","sessionId":{},"timestamp":{},"isSidechain":{},"isApiErrorMessage":{},"requestId":{},"message":{{"id":{},"model":{},"content":[{}],"stop_reason":{},"usage":{{"input_tokens":{},"output_tokens":{},"cache_read_input_tokens":{},"cache_creation_input_tokens":{}{}}}{}}}}}"#,
                    session.json(),
                    time.json(),
                    sidechain.json(),
                    api_error.json(),
                    request.json(),
                    id.json(),
                    model.json(),
                    blocks.join(","),
                    stop.json(),
                    usage[0].json(),
                    usage[1].json(),
                    usage[2].json(),
                    usage[3].json(),
                    split,
                    again
                )
            }
            Rec::User {
                session,
                time,
                text,
                results,
                meta,
            } => {
                let blocks: Vec<String> = results
                    .iter()
                    .map(|(i, e)| {
                        format!(
                            r#"{{"type":"tool_result","tool_use_id":{},"is_error":{},"content":"out"}}"#,
                            i.json(),
                            e.json()
                        )
                    })
                    .collect();
                let content = if blocks.is_empty() {
                    text.json()
                } else {
                    format!("[{}]", blocks.join(","))
                };
                format!(
                    r#"{{"type":"user","sessionId":{},"timestamp":{},"isMeta":{},"message":{{"role":"user","content":{}}}}}"#,
                    session.json(),
                    time.json(),
                    meta.json(),
                    content
                )
            }
            Rec::Progress {
                agent,
                by,
                id,
                request,
                time,
                usage,
            } => format!(
                r#"{{"type":"progress","sessionId":"s1","parentToolUseID":{},"data":{{"type":"agent_progress","agentId":{},"message":{{"type":"assistant","requestId":{},"timestamp":{},"message":{{"id":{},"model":"claude-opus-4-6","usage":{{"input_tokens":{},"output_tokens":{}}}}}}}}}}}"#,
                by.json(),
                agent.json(),
                request.json(),
                time.json(),
                id.json(),
                usage[0].json(),
                usage[1].json()
            ),
            Rec::System { subtype, duration } => format!(
                r#"{{"type":"system","subtype":{},"durationMs":{}}}"#,
                subtype.json(),
                duration.json()
            ),
            Rec::Summary(v) => format!(r#"{{"type":"summary","summary":{}}}"#, v.json()),
            Rec::Raw(b) => {
                out.extend_from_slice(b);
                out.push(b'\n');
                return;
            }
        };
        out.extend_from_slice(s.as_bytes());
        out.push(b'\n');
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    first: Vec<Rec>,
    second: Vec<Rec>,
    chunk: u8,
}

/// A reader handing out at most `n` bytes a call.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(self.1).min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn report(fold: TranscriptFold) -> String {
    let zone = Zone::utc();
    format!("{:?}", fold.finish(PriceTable::builtin(), &zone))
}

fuzz_target!(|input: Input| {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for r in &input.first {
        r.line(&mut a);
    }
    for r in &input.second {
        r.line(&mut b);
    }
    let fa = TranscriptFile::from_path(Path::new("p/s1.jsonl"));
    let fb = TranscriptFile::from_path(Path::new("p/s1/subagents/agent-a1.jsonl"));

    // One slice against a trickle of bytes.
    let mut whole = TranscriptFold::new();
    let ca = whole.read_slice(&a, &fa, |_| {});
    let mut trickled = TranscriptFold::new();
    let chunk = usize::from(input.chunk % 61) + 1;
    let ct = trickled.read(Trickle(&a, chunk), &fa, |_| {});
    assert_eq!(format!("{ca:?}"), format!("{ct:?}"));

    // Both files in one fold against each apart, merged.
    whole.read_slice(&b, &fb, |_| {});
    let mut other = TranscriptFold::new();
    other.read_slice(&b, &fb, |_| {});
    trickled.merge(other);
    assert_eq!(whole.records(), trickled.records());
    assert_eq!(report(whole), report(trickled));
});
