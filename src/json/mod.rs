//! JSON: everything that reads the bytes of a JSON line, and the one value
//! type that reads them.
//!
//! This module owns
//!
//! - the validating scanner ([`Scanner`]): RFC 8259 grammar, UTF-8, escapes
//!   and depth checked in one left-to-right pass, strings crossed 64 bytes
//!   at a time with SIMD masks chosen at run time ([`Backend`]), the line
//!   classified as an event ([`Scanned`]);
//! - the structural index ([`Index`]) the scanner writes in that same pass,
//!   into a buffer it keeps and reuses: each value's span, each member's key
//!   span and escape flags, each container's end and parent; as deep as
//!   the caller reads ([`IndexDepth`]: every value, or the top level only
//!   for classification, which then pays for no node it never reads);
//! - the lazy value ([`Value`]) that reads a line through its index
//!   ([`get`](Value::get) steps from member to member, never through the
//!   bytes of the members it passes), and many paths at once in one walk
//!   ([`Paths`], [`Value::get_many`]);
//! - the simd-json tape ([`tape`]), an opt-in backend behind the same value
//!   type for owned documents, whole-document filters and differential
//!   tests;
//! - a string's text as the line holds it ([`RawStr`]: unescaped only when
//!   asked), what [`Value`] hands out for keys and strings; underneath, a
//!   crate-private navigator reads the bytes nobody indexed (trusting mode)
//!   through the same [`Value`];
//! - what every backend reads alike: [`ValueKind`], [`Number`] (big numbers
//!   kept as their text), [`MAX_DEPTH`].
//!
//! ```
//! use cctape::framing::Lines;
//! use cctape::json::{Paths, Scanner};
//! use cctape::EventKind;
//!
//! let input = br#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":5}},"session_id":"s1"}"#;
//! let mut scanner = Scanner::new();
//! let paths = Paths::new(["message.id", "message.usage.output_tokens", "session_id"]);
//! for line in Lines::new(input) {
//!     let mut out = [None; 3];
//!     let ev = scanner.scan(&line).unwrap();
//!     assert_eq!(ev.kind(), EventKind::Assistant);
//!     ev.value().get_many(&paths, &mut out);
//!     assert!(out[0].unwrap().str_eq("msg_1"));
//!     assert_eq!(out[1].and_then(|v| v.as_u64()), Some(5));
//!     assert!(out[2].unwrap().str_eq("s1"));
//! }
//! ```

mod batch;
mod index;
mod number;
mod paths;
mod raw;
mod scan;
#[allow(unsafe_code)]
mod simd;
mod strings;
pub mod tape;
mod validate;
mod value;

pub use batch::IndexedLines;
pub use index::Index;
pub use number::{Number, NumberError, ValueKind};
pub use paths::Paths;
pub use raw::RawStr;
pub(crate) use raw::RawValue;
pub use scan::{Backend, IndexDepth, ScanMode, Scanned, Scanner, block_masks, find_escaped};
pub use strings::Strings;
pub use value::{Elements, Entries, Value};
pub(crate) use value::{Members, Tabled};

/// The deepest nesting accepted; the root object is level 1.
pub const MAX_DEPTH: usize = 1024;
