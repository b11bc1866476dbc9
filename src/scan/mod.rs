//! The scanner's first home, kept while callers move to [`crate::json`],
//! which owns the scanner, the structural index and the lazy value now:
//! every item here is that module's.

pub use crate::json::{
    Backend, RawElements, RawEntries, RawStr, RawValue, ScanMode, Scanned, Scanner, block_masks,
    find_escaped, prune_into,
};
