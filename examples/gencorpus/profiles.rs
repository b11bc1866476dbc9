//! The profiles that are more than one stream: the many-file harness
//! archive and the log of recurring sessions.

use std::fs::File;
use std::io;
use std::path::Path;

use crate::generator::Gen;
use crate::{FLUSH_AT, Res};

// ---------------------------------------------------------------------------
// Many-file harness archive
// ---------------------------------------------------------------------------

/// Outputs of the harness archive that are not a whole stream-json run.
#[derive(Default)]
pub(crate) struct HarnessKinds {
    pub(crate) text: u64,
    pub(crate) empty: u64,
    pub(crate) cli_error: u64,
    pub(crate) killed: u64,
}

/// Files in one batch directory of the harness archive.
const BATCH: u64 = 50;

/// Writes `files` outputs of an agent harness into `dir`, one file per
/// `claude -p` invocation (`batch-NN/task-NNNN.jsonl`), `bytes` in all
/// (about: each output's size is drawn around `bytes / files`, heavy
/// tailed). Most are whole `--include-partial-messages` runs that think at
/// length; some are what a harness also collects: runs made in text mode
/// (plain text, same file name), empty outputs, a CLI error printed instead
/// of a stream, and runs killed mid-line.
pub(crate) fn harness(g: &mut Gen<'_>, dir: &Path, files: u64, bytes: u64) -> Res<HarnessKinds> {
    let mut kinds = HarnessKinds::default();
    // Sizes log-uniform over five octaves around the mean, then scaled so
    // that they add up to `bytes` (a run overshoots its size by its last
    // call and result; a killed one is cut short: about even).
    let mean = (bytes / files).max(4096);
    let mut sizes: Vec<u64> = (0..files)
        .map(|_| g.rng.log_uniform(mean / 8, mean * 4))
        .collect();
    let sum: u128 = sizes.iter().map(|&v| u128::from(v)).sum();
    for v in &mut sizes {
        *v = (u128::from(*v) * u128::from(bytes) / sum.max(1)) as u64;
    }
    for (k, &target) in (0u64..).zip(&sizes) {
        let batch = dir.join(format!("batch-{:02}", k / BATCH));
        std::fs::create_dir_all(&batch)?;
        g.flush()?;
        g.out.flush()?;
        g.out = Box::new(io::BufWriter::with_capacity(
            1 << 20,
            File::create(batch.join(format!("task-{k:04}.jsonl")))?,
        ));
        match g.rng.below(1000) {
            0..=29 => {
                kinds.text += 1;
                let esc = g.prose(500, 30_000);
                g.w.b.extend_from_slice(&unescape(&esc));
                g.w.b.push(b'\n');
            }
            30..=34 => kinds.empty += 1,
            35..=44 => {
                kinds.cli_error += 1;
                let msg = *g.rng.pick(&[
                    "Error: Invalid API key · Please run /login",
                    "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
                    "Error: Claude Code process exited with code 1",
                    "Credit balance is too low",
                ]);
                g.w.b.extend_from_slice(msg.as_bytes());
                g.w.b.push(b'\n');
            }
            45..=64 => {
                kinds.killed += 1;
                g.run_bytes = Some(target);
                let run = g.capture(|g| g.run())?;
                let cut = g.rng.urange(run.len() / 3, run.len().max(1) - 1);
                // Inside a line: the process died while writing it.
                let cut = if run.get(cut) == Some(&b'\n') {
                    cut + 1
                } else {
                    cut
                };
                g.w.b.extend_from_slice(&run[..cut.min(run.len())]);
            }
            _ => {
                g.run_bytes = Some(target);
                g.run()?;
            }
        }
        g.run_bytes = None;
    }
    Ok(kinds)
}

/// JSON string contents (as in the pools) turned back into text, for
/// outputs made in text mode.
fn unescape(esc: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(esc.len());
    let mut i = 0;
    while i < esc.len() {
        let c = esc[i];
        if c != b'\\' || i + 1 >= esc.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = esc[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' => {
                let hex = esc.get(i..i + 4).and_then(|h| std::str::from_utf8(h).ok());
                if let Some(ch) = hex
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                i += 4;
            }
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Recurring sessions
// ---------------------------------------------------------------------------

#[derive(Default)]
pub(crate) struct RecurringCounts {
    pub(crate) resumed: u64,
    pub(crate) interleaved: u64,
}

/// An appended log in which the same sessions come back far apart: runs of
/// `sessions` sessions, in a new order every round (every session once a
/// round), each a resumption of its session (a new `init`, the same
/// `session_id`), until `bytes`. A session recurs about every `sessions`
/// runs, megabytes later; one run in five is written interleaved line by
/// line with the next (two runs appending to one log at once).
pub(crate) fn recurring(g: &mut Gen<'_>, sessions: u64, bytes: u64) -> Res<RecurringCounts> {
    let mut counts = RecurringCounts::default();
    let ids: Vec<String> = (0..sessions).map(|_| g.uuid()).collect();
    let mut seen = vec![false; ids.len()];
    let mut order: Vec<usize> = Vec::new();
    while g.total_bytes() < bytes {
        if order.is_empty() {
            // A new round, in an order of its own (Fisher-Yates).
            order = (0..ids.len()).collect();
            for i in (1..order.len()).rev() {
                let j = g.rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        let a = order.pop().unwrap_or(0);
        counts.resumed += u64::from(std::mem::replace(&mut seen[a], true));
        if g.rng.pm(200)
            && let Some(b) = order.pop()
        {
            counts.resumed += u64::from(std::mem::replace(&mut seen[b], true));
            counts.interleaved += 1;
            let ra = g.capture(|g| g.run_as(Some(ids[a].clone())))?;
            let rb = g.capture(|g| g.run_as(Some(ids[b].clone())))?;
            let (mut la, mut lb) = (
                ra.split_inclusive(|&c| c == b'\n'),
                rb.split_inclusive(|&c| c == b'\n'),
            );
            loop {
                let pick_a = g.rng.pm(500);
                let line = if pick_a {
                    la.next().or_else(|| lb.next())
                } else {
                    lb.next().or_else(|| la.next())
                };
                match line {
                    Some(l) => g.w.b.extend_from_slice(l),
                    None => break,
                }
            }
            if g.w.b.len() >= FLUSH_AT {
                g.flush()?;
            }
        } else {
            g.run_as(Some(ids[a].clone()))?;
        }
    }
    Ok(counts)
}
