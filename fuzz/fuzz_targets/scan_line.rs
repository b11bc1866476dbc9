//! One line through the scanner on every backend this CPU runs, against
//! `parse_event`: the same decision, error kind, event kind and hot fields.
#![no_main]

use cctape_fuzz::checks::check_scan_line;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_scan_line(data);
});
