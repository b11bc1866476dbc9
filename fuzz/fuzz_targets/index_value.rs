//! One line through the structural index and the lazy value on it, against
//! serde_json (recursion limit lifted): every value, key and path, and
//! `get_many` over all paths at once; the tape and trusting backends behind
//! the same type; every backend writes the same index.
#![no_main]

use cctape_fuzz::serde_unbounded;
use cctape_fuzz::value_checks::{check_backends_agree, check_index_value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_index_value(data, serde_unbounded);
    check_backends_agree(data);
});
