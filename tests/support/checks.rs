//! Properties checked by the fuzz targets (`fuzz/`) and replayed by
//! `cargo test` (`tests/regressions.rs`, `tests/differential.rs`).
//!
//! One file, compiled into both: the fuzz crate's library includes it with
//! `#[path]`, and so do the test binaries. It depends only on `cctape`,
//! `serde_json` and `serde`, which both sides have. Every check panics on a
//! violated property, which is what libFuzzer and the test harness expect.
//!
//! - [`check_framing`]: [`Lines`](cctape::framing::Lines) against a naive
//!   split on b'\n'.
//! - [`check_parse_line`]: one line through
//!   [`parse_event`](cctape::event::parse_event), every hot accessor and a
//!   full walk of the [`Value`](cctape::json::Value), plus [`differential`].
//! - [`check_chunked`]: the same bytes through
//!   [`SliceEvents`](cctape::SliceEvents), a
//!   [`LineDecoder`](cctape::framing::LineDecoder) fed chunks of chosen
//!   sizes and an [`EventReader`](cctape::EventReader) over a reader that
//!   returns short reads, with tiny buffers: the same items.
//! - [`check_truncate`]: a stream of valid events cut at any byte gives the
//!   events of its complete lines and at most one `truncated` error.
//! - [`check_views`]: one line's view visited, listed, copied and counted.
//! - [`check_run_fold`]: the run fold with and without `record_calls` and
//!   draining, and `runs_of_slice`, agree.
//! - [`check_stats_path`]: `cctape stats`'s read ahead in chunks gives the
//!   stats and runs of the one-thread read.
//! - [`check_scan_line`]: the scanner, on every backend this CPU runs,
//!   against [`parse_event`](cctape::event::parse_event) on one line.
//! - [`check_decompress`]: any bytes behind a compressed format's magic
//!   (gzip, zstd, xz, bzip2, LZ4 and its legacy frames) read through
//!   [`Source`](cctape::source::Source) to their end, an error or a cap,
//!   and never past it.
//! - [`check_one_reader`]: an input read from a `Read`, pushed to a
//!   decoder and read as one slice, through the library's one reader
//!   ([`LineRead`](cctape::inputs::LineRead)): the same items.
//!
//! The checks are in `checks/`, one file a topic, each re-exported here so
//! that every name is `checks::NAME` as before:
//! [`line`] (framing, one line), [`oracle`] (the hot fields, serde_json's
//! reading, [`differential`]), [`streams`] (every source, cut streams,
//! compressed inputs), [`readers`] (the one reader's framings), [`views`]
//! (views, the scanner), [`folds`] (the run fold, the stats path).
#![allow(dead_code)]

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Byte sequences that other tools treat as line ends but cctape must not:
/// U+2028, U+2029, U+0085, CR, VT, FF.
pub const NOT_LINE_ENDS: [&[u8]; 6] = [
    b"\xE2\x80\xA8",
    b"\xE2\x80\xA9",
    b"\xC2\x85",
    b"\r",
    b"\x0B",
    b"\x0C",
];

#[path = "checks/folds.rs"]
mod folds;
#[path = "checks/line.rs"]
mod line;
#[path = "checks/oracle.rs"]
mod oracle;
#[path = "checks/readers.rs"]
mod readers;
#[path = "checks/streams.rs"]
mod streams;
#[path = "checks/views.rs"]
mod views;

// Each includer uses some of the checks: the re-exports it leaves unused
// are no warning, as the unused checks are none (`dead_code` above).
#[allow(unused_imports)]
pub use folds::*;
#[allow(unused_imports)]
pub use line::*;
#[allow(unused_imports)]
pub use oracle::*;
#[allow(unused_imports)]
pub use readers::*;
#[allow(unused_imports)]
pub use streams::*;
#[allow(unused_imports)]
pub use views::*;
