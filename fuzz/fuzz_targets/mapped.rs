//! A plain file read through the truncation-proof map
//! (`ReadOptions::map`) against the same file read with `read`: the same
//! items and the same end. Then the file is cut at a fuzzer-chosen byte
//! after a fuzzer-chosen item while the map reads it: the process lives,
//! every event handed out is one of the file's own lines (its number,
//! offset and bytes), and the only errors are the file's own bad lines,
//! the cut line and the shrinking.
//!
//! Structure-aware: generated events (escapes, emoji, U+2028, lone
//! surrogates, long tool results) with raw and bad lines, repeated up to
//! the size from which files are mapped (1 MiB).
#![no_main]

use cctape_fuzz::checks::check_mapped;
use cctape_fuzz::generate::Script;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Script, u16, u32)| {
    let (s, after, cut) = input;
    let (bytes, _) = s.bytes();
    let _ = check_mapped(&bytes, after as usize, cut as usize);
});
