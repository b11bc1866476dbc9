//! The read `cctape stats` does on two cores (chunks validated and indexed
//! ahead into batches, `cctape::stats::ReadAhead`, folded in order) against
//! the one-thread read: the same stats (events by type, counts, errors) and
//! the same run summaries, which also agree with `Stats::read_slice` and
//! `runs_of_slice`.
//!
//! Structure-aware: generated events with tool results, tool inputs and
//! hook output of several KB (escapes, emoji, U+2028, lone surrogates),
//! mixed with raw and bad lines. Set `CCTAPE_FUZZ_DUMP=path` to write the
//! stream.
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
