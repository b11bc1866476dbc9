//! A stream of valid events (the event lines of the input) cut at a
//! fuzzer-chosen byte: exactly the events of its complete lines, then at
//! most one `truncated` error.
#![no_main]

use cctape_fuzz::checks::{Chunking, check_truncate, valid_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (ch, rest) = Chunking::from_bytes(data);
    let (c, body) = rest.split_at(rest.len().min(3));
    let cut = c.iter().fold(0usize, |a, &b| a << 8 | b as usize);
    let stream = valid_stream(body);
    check_truncate(&stream, cut % (stream.len() + 1), &ch);
});
