//! A JSON array read through a reader stays in bounded memory: under 64 MiB
//! of resident memory plus the largest element, whatever the array's size
//! (its own binary, one test, so that the process's peak is this reading's).
//!
//! The array is generated on the fly (no file): 256 MiB by default, with one
//! 8 MiB element in the middle; `CCTAPE_JSON_BYTES=1073741824` reads 1 GiB:
//!
//! ```text
//! CCTAPE_JSON_BYTES=1073741824 cargo test --release --test formats_memory -- --nocapture
//! ```

use cctape::stream::ElementEventReader;
use std::io::Read;

/// `[` elements `]` of about `total` bytes, one of them `big` bytes long.
struct ArrayGen {
    total: u64,
    produced: u64,
    big: usize,
    big_done: bool,
    pending: Vec<u8>,
    at: usize,
    n: u64,
    closed: bool,
}

impl ArrayGen {
    fn refill(&mut self) {
        self.pending.clear();
        self.at = 0;
        if self.produced == 0 {
            self.pending.push(b'[');
        } else if self.produced >= self.total {
            if !self.closed {
                self.pending.extend_from_slice(b"\n]\n");
                self.closed = true;
            }
            return;
        } else {
            self.pending.extend_from_slice(b",\n");
        }
        self.n += 1;
        let pad = if !self.big_done && self.produced > self.total / 2 {
            self.big_done = true;
            self.big
        } else {
            1500
        };
        let text = "x".repeat(pad);
        self.pending.extend_from_slice(
            format!(
                "{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_{}\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}],\"usage\":{{\"input_tokens\":1,\"output_tokens\":2}}}},\"session_id\":\"s\"}}",
                self.n
            )
            .as_bytes(),
        );
    }
}

impl Read for ArrayGen {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            self.refill();
            if self.pending.is_empty() {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        self.produced += n as u64;
        Ok(n)
    }
}

#[path = "support/rss.rs"]
mod rss;
use rss::peak_rss_bytes;

#[test]
fn a_large_json_array_through_a_reader_stays_in_bounded_memory() {
    let total: u64 = std::env::var("CCTAPE_JSON_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256 << 20);
    let big = 8 << 20;
    let source = ArrayGen {
        total,
        produced: 0,
        big,
        big_done: false,
        pending: Vec::new(),
        at: 0,
        n: 0,
        closed: false,
    };
    let mut r = ElementEventReader::new(source);
    let (mut events, mut output) = (0u64, 0u64);
    let mut largest = 0usize;
    while let Some(item) = r.next_event() {
        let ev = item.expect("every element is an event");
        events += 1;
        largest = largest.max(ev.raw().len());
        output += ev.usage().map_or(0, |u| u.output_tokens);
    }
    assert_eq!(r.counts().errors, 0);
    assert_eq!(output, 2 * events, "every element read");
    assert!(
        r.bytes_read() >= total,
        "{} of {total} bytes",
        r.bytes_read()
    );
    assert!(largest >= big);
    let Some(peak) = peak_rss_bytes() else {
        println!("skipped the memory check: no /proc/self/status");
        return;
    };
    let limit = (64 << 20) + largest as u64;
    println!(
        "read {} bytes, {events} elements, largest {largest} bytes: peak RSS {:.1} MiB (limit {:.1} MiB)",
        r.bytes_read(),
        peak as f64 / (1 << 20) as f64,
        limit as f64 / (1 << 20) as f64
    );
    assert!(peak < limit, "peak RSS {peak} over {limit}");
}
