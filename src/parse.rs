//! The tape parser's first home, kept while callers move to
//! [`crate::json`], which owns the tape backend ([`crate::json::tape`]) and
//! the types every backend reads alike now: every item here is that
//! module's.

pub use crate::json::tape::{ArrayElements, Document, Entries, ParsedLines, Parser, Value};
pub use crate::json::{MAX_DEPTH, Number, NumberError, ValueKind};
