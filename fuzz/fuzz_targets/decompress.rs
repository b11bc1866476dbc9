//! Any bytes behind a compressed format's magic (gzip, zstd, xz, bzip2,
//! LZ4), read through `cctape::source::Source`: the read ends without a
//! panic, however corrupt or cut the data.
#![no_main]

use cctape_fuzz::checks::check_decompress;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_decompress(data);
});
