//! Any bytes read by the library's one reader three ways: from a `Read`
//! (whole reads, then reads of a fuzzer-chosen size), pushed to a decoder
//! that many bytes at a time (as `watch` reads), and as one slice (as the
//! command reads a chunk), each as events, as transcript records and as
//! scanned lines, with a chosen maximum line: the same items in the same
//! order (`checks::check_one_reader_input`).
#![no_main]

use cctape_fuzz::checks::check_one_reader_input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_one_reader_input(data);
});
