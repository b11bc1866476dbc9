//! cctape reads the event streams Claude Code writes with
//! `claude -p --output-format stream-json --verbose`: one JSON object a line,
//! dispatched by `type` and `subtype`.
//!
//! The common case is one call, [`runs`]: the runs of a file (plain, gzip
//! or zstd; stream-json lines, a JSON array or pretty capture, a session
//! transcript, text) as `cctape verdict` computes them.
//!
//! Each run's token figure is the best its stream gives, with its source
//! (see [`run`]): not the sum of the assistant events' `usage`, whose
//! `output_tokens` is a `message_start` placeholder where the event was
//! written before the message ended.
//!
//! ```
//! for run in cctape::runs("corpus/run/usage-reconcile-mismatch.jsonl")? {
//!     let main = &run.usage.main;
//!     assert_eq!(run.verdict, cctape::Verdict::Success);
//!     assert_eq!((main.tokens.output_tokens, main.source.as_str()), (145, "results"));
//!     assert_eq!(main.calls.output_tokens, 4, "the placeholder, kept for audit");
//! }
//! # Ok::<(), cctape::Error>(())
//! ```
//!
//! Layers, each usable alone, data flowing one way (every module is
//! listed; `tests/structure.rs` keeps it so):
//!
//! 1. input: [`source`] opens an input once, decompresses it (or maps a
//!    large settled file, truncation-proof) and hands out its bytes; [`sniff`] tells from the first bytes what it holds and so
//!    how it is read; [`inputs`] walks the paths a front end is given;
//!    [`follow`] reads a file as it grows, as `tail -F` does; `aio`
//!    (feature `tokio`, off by default) reads bytes that arrive through an
//!    `AsyncRead`;
//! 2. frame: [`framing`] cuts LF boundaries with memchr over a slice, a push
//!    decoder or a refilling reader, with line numbers and byte offsets;
//!    [`elements`] cuts a JSON array, or JSON values one after another, into
//!    elements;
//! 3. [`json`]: the validating scanner, the structural index it writes in
//!    the same pass, and the one lazy value type that reads a line through
//!    it (a simd-json tape per line, buffers reused, as an opt-in backend);
//!    [`error`] is the one error type with its [`Position`], and a private
//!    `column` module finds where a bad line stops being JSON;
//! 4. event: [`event`] gives [`EventKind`] from `type`/`subtype` (one kind
//!    for both dialects: stream events and transcript records) and the hot
//!    fields, read lazily through the line's index without allocating;
//!    [`views`] a typed, borrowed view per event kind, every field of the
//!    reference reachable, and per transcript record type; [`stream`] puts
//!    framing, scan and kind together, with counts;
//! 5. fold: [`run`] folds a stream's events into what each run did;
//!    [`transcript`] reads session transcripts and folds their records into
//!    sessions; [`pricing`] prices the tokens of records that carry no
//!    cost; [`time`] reads timestamps and days in a time zone; [`version`]
//!    orders Claude Code versions; [`stats`] counts what streams hold;
//!    [`runs`] is the common case in one call;
//! 6. out: [`report`] composes what `stats` and `verdict` print, for every
//!    front end; `export` (feature `parquet`, on by default) writes runs
//!    and events as Parquet tables for DuckDB, Spark and other engines;
//!    `otel` (feature `otel`, on by default) turns runs into OpenTelemetry
//!    GenAI spans and metrics as OTLP messages, with a sender over
//!    OTLP/HTTP.
//!
//! Bad lines are errors with a [`Position`] that the stream continues past
//! (the line, the byte offset of its start, the byte within it: every
//! front end says it that way, [`error::Described`]); only an I/O error
//! ends a stream.
//!
//! ```
//! use cctape::{EventKind, SliceEvents};
//!
//! let input = br#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-5-5"}
//! {"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},"session_id":"s1"}
//! {"type":"user","oops"}
//! {"is_error":false,"num_turns":1,"total_cost_usd":0.01,"session_id":"s1","subtype":"success","type":"result"}
//! "#;
//! let mut events = SliceEvents::new(input);
//! let (mut tools, mut cost, mut bad) = (0, None, Vec::new());
//! while let Some(item) = events.next_event() {
//!     match item {
//!         Ok(ev) if ev.kind() == EventKind::Assistant => tools += ev.tool_name().is_some() as u32,
//!         Ok(ev) if ev.kind().is_result() => cost = ev.total_cost_usd(),
//!         Ok(_) => {}
//!         Err(e) => bad.push(e.to_string()),
//!     }
//! }
//! assert_eq!((tools, cost), (1, Some(0.01)));
//! assert_eq!(bad, ["line 3, byte 212, column 21: invalid_json: expected `:` after an object key"]);
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![warn(unreachable_pub)]

#[cfg(feature = "tokio")]
pub mod aio;
mod column;
pub mod elements;
pub mod error;
pub mod event;
#[cfg(feature = "export")]
pub mod export;
pub mod follow;
pub mod framing;
pub mod inputs;
pub mod json;
#[cfg(feature = "otel")]
pub mod otel;
pub mod pricing;
pub mod report;
pub mod run;
mod runs;
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
pub use json::tape::{Document, Parser};
pub use json::{Number, Value, ValueKind};
pub use run::{RunFolder, RunSummary, Verdict};
pub use runs::runs;
pub use stream::{Counts, EventReader, SliceEvents};

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
