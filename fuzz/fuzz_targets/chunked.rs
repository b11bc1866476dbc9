//! The same bytes through `SliceEvents`, a `LineDecoder` fed chunks of
//! fuzzer-chosen sizes, and an `EventReader` over short reads with tiny
//! buffers and a small maximum line: the same events and errors.
#![no_main]

use cctape_fuzz::checks::{Chunking, check_chunked};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (ch, body) = Chunking::from_bytes(data);
    check_chunked(body, &ch);
});
