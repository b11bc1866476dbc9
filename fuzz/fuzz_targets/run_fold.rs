//! Arbitrary event sequences (generated events with shared session ids,
//! raw lines, bad lines) through `RunFolder`: with and without
//! `record_calls`, draining at the script's drain points or only finishing,
//! and `runs_of_slice`, give the same summaries (`to_json`).
//!
//! Set `CCTAPE_FUZZ_DUMP=path` to write the stream to `path` and its drain
//! points to `path.drains` (a regression input).
#![no_main]

use cctape_fuzz::checks::check_run_fold;
use cctape_fuzz::generate::Script;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|s: Script| {
    let (bytes, drains) = s.bytes();
    if let Some(path) = std::env::var_os("CCTAPE_FUZZ_DUMP") {
        let _ = std::fs::write(&path, &bytes);
        let list: Vec<String> = drains.iter().map(u64::to_string).collect();
        let mut p = path.clone();
        p.push(".drains");
        let _ = std::fs::write(p, list.join(","));
    }
    check_run_fold(&bytes, &drains);
});
