//! One line through `parse_event` and its typed view: `visit_all` with a
//! visitor that walks everything, `unknown_fields`, `to_owned_json` (which
//! must re-parse) and a `Census`. No panic; `type_mismatches` never
//! decreases and counts every present field read as absent.
//!
//! Each input is read twice: as the line's raw bytes, and as the
//! structure-aware generator's event (`Ev`, `Common`) built from them.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use cctape_fuzz::checks::check_views;
use cctape_fuzz::generate::{Common, Ev};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_views(data);
    let mut u = Unstructured::new(data);
    if let (Ok(ev), Ok(c)) = (Ev::arbitrary(&mut u), Common::arbitrary(&mut u)) {
        let line = ev.line(&c).text;
        if let Some(path) = std::env::var_os("CCTAPE_FUZZ_DUMP") {
            let _ = std::fs::write(path, &line);
        }
        check_views(line.as_bytes());
    }
});
