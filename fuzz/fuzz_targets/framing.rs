//! Framing: `Lines` against a naive split on b'\n'; U+2028, U+2029, U+0085,
//! CR, VT and FF never end a line.
#![no_main]

use cctape_fuzz::checks::check_framing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_framing(data);
});
