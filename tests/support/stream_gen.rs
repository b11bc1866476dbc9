//! Generated stream-json for the export's tests: runs whose sessions come
//! back after other sessions' events, model calls whose last assistant
//! event (the row that carries its usage) is far from its first, tool calls
//! with their results, a subagent's events and results, and a padding text
//! that is hard to compress (so that the Parquet files are about as large as
//! the lines). The same arguments give the same bytes.
#![allow(dead_code)]

use std::fmt::Write as _;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pad(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n + 16);
        while s.len() < n {
            let _ = write!(s, "{:016x}", self.next());
        }
        s.truncate(n);
        s
    }
}

/// The lines of one run's first or second half.
fn half(out: &mut String, rng: &mut Rng, run: usize, second: bool, pad: usize, calls: usize) {
    let sid = format!("sess-{run:06}");
    let line = |out: &mut String, body: String| {
        out.push_str(&body);
        out.push('\n');
    };
    if !second {
        line(
            out,
            format!(
                r#"{{"type":"system","subtype":"init","session_id":"{sid}","model":"claude-test","claude_code_version":"2.1.0","tools":["Bash"]}}"#
            ),
        );
    }
    if second && calls > 0 {
        // The first half's last call again: its usage (and the row that
        // carries it) is now this line, far from its first.
        let mid = format!("msg_{run}_0_{}", calls - 1);
        line(
            out,
            format!(
                r#"{{"type":"assistant","message":{{"id":"{mid}","model":"claude-test","content":[{{"type":"text","text":"again"}}],"usage":{{"input_tokens":7,"output_tokens":{}}}}},"parent_tool_use_id":null,"session_id":"{sid}"}}"#,
                900 + rng.next() % 100
            ),
        );
    }
    for c in 0..calls {
        let mid = format!("msg_{run}_{}_{c}", u8::from(second));
        let tid = format!("toolu_{run}_{}_{c}", u8::from(second));
        let text = rng.pad(pad);
        let (inp, outp) = (10 + c, 20 + rng.next() % 500);
        line(
            out,
            format!(
                r#"{{"type":"assistant","message":{{"id":"{mid}","model":"claude-test","content":[{{"type":"text","text":"{text}"}}],"usage":{{"input_tokens":{inp},"output_tokens":1}}}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"u-{run}-{c}-a"}}"#
            ),
        );
        line(
            out,
            format!(
                r#"{{"type":"assistant","message":{{"id":"{mid}","model":"claude-test","content":[{{"type":"tool_use","id":"{tid}","name":"Bash","input":{{"command":"ls"}}}}],"usage":{{"input_tokens":{inp},"output_tokens":{outp}}}}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"u-{run}-{c}-b"}}"#
            ),
        );
        let result = rng.pad(pad / 2);
        let err = rng.next().is_multiple_of(7);
        line(
            out,
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{tid}","content":"{result}","is_error":{err}}}]}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"u-{run}-{c}-c"}}"#
            ),
        );
        if c == 1 {
            // A subagent's call.
            let sub = format!("msg_{run}_{}_sub", u8::from(second));
            line(
                out,
                format!(
                    r#"{{"type":"assistant","message":{{"id":"{sub}","model":"claude-sub","content":[{{"type":"text","text":"sub"}}],"usage":{{"input_tokens":3,"output_tokens":4}}}},"parent_tool_use_id":"{tid}","session_id":"{sid}"}}"#
                ),
            );
        }
    }
    if second {
        let cost = (run % 97) as f64 / 1000.0;
        line(
            out,
            format!(
                r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":{},"duration_ms":{},"total_cost_usd":{cost},"session_id":"{sid}","result":"ok"}}"#,
                calls * 2,
                100 + run
            ),
        );
    }
}

/// `runs` runs of `2 * calls` calls each, every session in two halves: the
/// first half of run `r + 1` comes between the two halves of run `r`.
/// `pad` sets the size of each call's lines (about `2.5 * pad` bytes a
/// call).
pub fn stream(runs: usize, calls: usize, pad: usize, seed: u64) -> Vec<u8> {
    stream_from(0, runs, calls, pad, seed)
}

/// [`stream`] of the runs numbered from `first` (their sessions' names).
fn stream_from(first: usize, runs: usize, calls: usize, pad: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = String::new();
    if runs > 0 {
        half(&mut out, &mut rng, first, false, pad, calls);
    }
    for r in first..first + runs {
        if r + 1 < first + runs {
            half(&mut out, &mut rng, r + 1, false, pad, calls);
        }
        half(&mut out, &mut rng, r, true, pad, calls);
    }
    out.into_bytes()
}

/// About `bytes` of [`stream`], in runs of 20 calls.
pub fn stream_of_size(bytes: usize, pad: usize, seed: u64) -> Vec<u8> {
    let per_run = stream(4, 10, pad, seed).len() / 4;
    stream((bytes / per_run.max(1)).max(1), 10, pad, seed)
}

/// Write about `bytes` of stream-json to `path`: a piece of a few MiB made
/// once, then written again and again with its sessions renamed (every
/// session its own), so that a GiB is quick to make even in a debug build.
pub fn write_stream(path: &std::path::Path, bytes: u64, pad: usize, seed: u64) {
    use std::io::Write;
    let piece_bytes = (bytes as usize).min(8 << 20);
    let piece = String::from_utf8(stream_of_size(piece_bytes, pad, seed)).expect("UTF-8");
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let (mut written, mut copy) = (0u64, 0u32);
    while written < bytes {
        // "sess-" is five bytes, as the tag.
        let tagged = piece.replace("sess-", &format!("{:04x}-", copy & 0xffff));
        f.write_all(tagged.as_bytes()).expect("write");
        written += tagged.len() as u64;
        copy += 1;
    }
    f.flush().expect("flush");
}
