//! cctape reads the event streams Claude Code writes with
//! `claude -p --output-format stream-json --verbose`: one JSON object a line,
//! dispatched by `type` and `subtype`.
//!
//! The common case is one call, [`runs`]: the runs of a file (plain, gzip
//! or zstd; stream-json lines, a JSON array or pretty capture, a session
//! transcript, text) as `cctape verdict` computes them.
//!
//! ```
//! for run in cctape::runs("corpus/streams/max-turns.jsonl")? {
//!     assert_eq!(run.verdict, cctape::Verdict::MaxTurns);
//!     assert_eq!(run.usage.main.tokens.output_tokens, 183);
//!     assert_eq!((run.tool_calls_total(), run.tool_errors_total()), (3, 0));
//! }
//! # Ok::<(), cctape::Error>(())
//! ```
//!
//! Layers, each usable alone, data flowing one way:
//!
//! 1. [`framing`]: LF boundaries with memchr over a slice, a push decoder or a
//!    refilling reader, with line numbers and byte offsets;
//! 2. [`parse`]: a simd-json tape per line, buffers reused, strings borrowed;
//! 3. [`event`]: [`EventKind`] from `type`/`subtype` and the hot fields,
//!    read lazily without allocating;
//! 4. [`stream`]: the three put together, with counts;
//! 5. [`views`]: a typed, borrowed view per event kind, every field of the
//!    reference reachable;
//! 6. [`run`]: what a run did, folded from its events.
//! 7. `export` (feature `parquet`, on by default): runs and events as Parquet
//!    tables for DuckDB, Spark and other engines.
//! 8. `aio` (feature `tokio`, off by default): a `tokio_util` codec over the
//!    push decoder and an event stream over any `AsyncRead`.
//!
//! Bad lines are errors with a [`Position`] that the stream continues past;
//! only an I/O error ends a stream.
//!
//! ```
//! use cctape::{EventKind, SliceEvents};
//!
//! let input = br#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-5-5"}
//! {"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-5-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":2,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"s1"}
//! {"is_error":false,"num_turns":1,"total_cost_usd":0.01,"session_id":"s1","subtype":"success","type":"result"}
//! "#;
//! let mut events = SliceEvents::new(input);
//! let mut output_tokens = 0;
//! let mut cost = None;
//! while let Some(item) = events.next_event() {
//!     let ev = item.expect("every line here is an event");
//!     match ev.kind() {
//!         EventKind::Assistant => output_tokens += ev.usage().unwrap_or_default().output_tokens,
//!         k if k.is_result() => cost = ev.total_cost_usd(),
//!         _ => {}
//!     }
//! }
//! assert_eq!(output_tokens, 5);
//! assert_eq!(cost, Some(0.01));
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

#[cfg(feature = "tokio")]
pub mod aio;
mod column;
pub mod elements;
pub mod error;
pub mod event;
#[cfg(feature = "export")]
pub mod export;
pub mod framing;
pub mod inputs;
pub mod parse;
pub mod pricing;
pub mod report;
pub mod run;
mod runs;
pub mod scan;
pub mod sniff;
pub mod source;
pub mod stats;
pub mod stream;
pub mod time;
pub mod transcript;
pub mod version;
pub mod views;

pub use error::{Error, ErrorKind, Position};
pub use event::{Event, EventKind, Field, TokenCounts};
pub use framing::{Line, LineDecoder, LineReader, Lines};
pub use parse::{Document, Number, Parser, Value, ValueKind};
pub use run::{RunFolder, RunSummary, Verdict};
pub use runs::runs;
pub use stream::{Counts, EventReader, SliceEvents};

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
