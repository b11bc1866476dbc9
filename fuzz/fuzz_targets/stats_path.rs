//! The read `cctape stats` does by default (long lines with long tool
//! payloads read from a pruned copy, `cctape::stats::PrunedReader`) against
//! building every line whole (`--exact`): the same stats (events by type,
//! counts, errors) and the same run summaries.
//!
//! Structure-aware: generated events with tool results, tool inputs and
//! hook output of several KB (escapes, emoji, U+2028, lone surrogates) so
//! that lines pass 4096 bytes and the 256-byte cut lands anywhere, mixed
//! with raw and bad lines. Set `CCTAPE_FUZZ_DUMP=path` to write the stream.
#![no_main]

use cctape_fuzz::checks::check_stats_path;
use cctape_fuzz::generate::Script;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|s: Script| {
    let (bytes, _) = s.bytes();
    if let Some(path) = std::env::var_os("CCTAPE_FUZZ_DUMP") {
        let _ = std::fs::write(path, &bytes);
    }
    check_stats_path(&bytes);
});
