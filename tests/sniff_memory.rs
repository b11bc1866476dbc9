//! Deciding how an input is read holds a bounded prefix, never the input
//! (issue 22, item 1): a pipe of text before the first event (128 MiB by
//! default) is read through [`read_source`] under 32 MiB of resident memory,
//! and every event after the text is read (its own binary, one test, so
//! that the process's peak is this reading's). `CCTAPE_TEXT_BYTES` sets the
//! size:
//!
//! ```text
//! CCTAPE_TEXT_BYTES=1073741824 cargo test --release --test sniff_memory -- --nocapture
//! ```

use cctape::inputs::{Item, ReadOptions, read_source, stream_source};
use std::io::Read;

/// `total` bytes of text lines (rounded up to a whole line), then a run of
/// three events.
struct TextThenRun {
    total: u64,
    produced: u64,
    tail: Vec<u8>,
    /// What is being handed out: lines of text, then the tail.
    pending: Vec<u8>,
    at: usize,
    done: bool,
}

const LINE: &[u8] = b"(node:4242) Warning: a harness wrote this line before the stream began.\n";

impl Read for TextThenRun {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            self.pending.clear();
            self.at = 0;
            if self.produced < self.total {
                for _ in 0..1024 {
                    self.pending.extend_from_slice(LINE);
                    self.produced += LINE.len() as u64;
                    if self.produced >= self.total {
                        break;
                    }
                }
            } else if !self.done {
                self.done = true;
                self.pending = std::mem::take(&mut self.tail);
            } else {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[path = "support/rss.rs"]
mod rss;
use rss::peak_rss_bytes;

#[test]
fn text_before_the_events_of_a_pipe_is_read_in_bounded_memory() {
    let total: u64 = std::env::var("CCTAPE_TEXT_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128 << 20);
    let tail = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\
{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":2}},\"session_id\":\"s\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"s\"}\n"
        .to_vec();
    let src = stream_source(TextThenRun {
        total,
        produced: 0,
        tail,
        pending: Vec::new(),
        at: 0,
        done: false,
    })
    .unwrap();
    let (mut events, mut errors, mut found) = (0u64, 0u64, false);
    let end = read_source(src, &ReadOptions::default(), |item| {
        match item {
            Item::Event(_) => events += 1,
            Item::Error { .. } => errors += 1,
            Item::NotEvents(_) => found = true,
            _ => {}
        }
        std::ops::ControlFlow::Continue(())
    });
    let lines = total.div_ceil(LINE.len() as u64);
    assert_eq!(events, 3);
    assert_eq!(errors, lines, "each line of text an error at its place");
    assert!(!found);
    assert_eq!(end.counts.events, 3);
    let Some(peak) = peak_rss_bytes() else {
        println!("skipped the memory check: no /proc/self/status");
        return;
    };
    let limit = 32u64 << 20;
    println!(
        "read {} bytes: peak RSS {:.1} MiB (limit {:.1} MiB)",
        end.bytes,
        peak as f64 / (1 << 20) as f64,
        limit as f64 / (1 << 20) as f64
    );
    assert!(peak < limit, "peak RSS {peak} over {limit}");
}
