//! Shared code of the cctape fuzz targets.
//!
//! The properties themselves live in `tests/support/checks.rs` (with its
//! parts in `tests/support/checks/`), included here and in the crate's test
//! binaries, so that `cargo test` replays every regression input through
//! exactly the checks the fuzzer ran.

#[path = "../../tests/support/checks.rs"]
pub mod checks;
pub mod generate;
#[path = "../../tests/support/value_checks.rs"]
pub mod value_checks;

use checks::{J, json_depth};
use serde::Deserialize;

/// The deepest nesting the unbounded oracle parses (past cctape's 1024, so
/// the `too_deep` difference is checked, but short of a stack overflow).
pub const ORACLE_MAX_DEPTH: usize = 1100;

/// serde_json with its recursion limit lifted (feature `unbounded_depth`),
/// for lines up to [`ORACLE_MAX_DEPTH`] deep.
pub fn serde_unbounded(b: &[u8]) -> Result<J, Option<String>> {
    if json_depth(b) > ORACLE_MAX_DEPTH {
        return Err(None);
    }
    let mut de = serde_json::Deserializer::from_slice(b);
    de.disable_recursion_limit();
    let v = J::deserialize(&mut de).map_err(|e| Some(e.to_string()))?;
    de.end().map_err(|e| Some(e.to_string()))?;
    Ok(v)
}
