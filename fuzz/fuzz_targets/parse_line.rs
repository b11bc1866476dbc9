//! One line through `parse_event`, every hot accessor and a full walk of the
//! value, and the same line through serde_json (accept/reject and hot fields
//! agree, except the documented differences).
#![no_main]

use cctape_fuzz::checks::check_parse_line;
use cctape_fuzz::serde_unbounded;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_parse_line(data, serde_unbounded);
});
