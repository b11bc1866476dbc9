//! Columnar export: streams turned into Parquet files that DuckDB, Spark,
//! Trino or DataFusion read (`cctape export`). Behind the cargo feature
//! `parquet` (on by default); it uses the `parquet` crate's column writers,
//! not arrow. The feature `export` alone gives the tables' rows and column
//! buffers without the writer (the Python package lays them out as Arrow).
//!
//! # Layout
//!
//! ```text
//! DIR/events/part-00000.parquet   one row per event
//! DIR/runs/part-00000.parquet     one row per run
//! DIR/tools/part-00000.parquet    one row per tool call
//! ```
//!
//! so that `read_parquet('DIR/events/*.parquet')` (DuckDB) and
//! `spark.read.parquet('DIR/events')` read a table. Row groups hold about
//! 128K rows (or 64 MiB); a part file is closed past a size limit, so that
//! each shard's output is several files engines read in parallel. Every
//! table has at least one file, possibly with no rows. Each file carries
//! `cctape.schema_version` ([`SCHEMA_VERSION`]) and `cctape.table` in its
//! key-value metadata. Columns are zstd-compressed, dictionary-encoded where
//! values repeat.
//!
//! # Schema
//!
//! Types: `string` is `BYTE_ARRAY` (UTF-8, `STRING`), `int64` is `INT64`,
//! `timestamp` is `INT64` `TIMESTAMP(MILLIS, isAdjustedToUTC=true)`,
//! `double` is `DOUBLE`, `boolean` is `BOOLEAN`. Every column is listed in
//! [`EventRows::COLUMNS`], [`RunRows::COLUMNS`] and [`ToolRows::COLUMNS`]
//! (name, type, nullability, meaning), and in `docs/export-schema.md`.
//!
//! **events**: `file`, `line`, `byte_offset`, `run_line`, `session_id`, `uuid`,
//! `type`, `subtype`, `kind`, `parent_tool_use_id`, `timestamp`, `model`,
//! `message_id`, `content_type`, `stream_event_type`, `tool_name`,
//! `tool_use_id`, `is_error`, `carries_usage`, `input_tokens`,
//! `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`,
//! `total_cost_usd`, `num_turns`, `duration_ms`, `duration_api_ms`, and
//! `raw` with `--raw`.
//!
//! **runs**: `file`, `first_line`, `last_line`, `session_id`, `verdict`,
//! `ok`, `results`, `subtype`, `is_error`, `terminal_reason`, `stop_reason`,
//! `api_error_status`, `num_turns`, `duration_ms`, `duration_api_ms`,
//! `total_cost_usd`, `model`, `claude_code_version`, `started_at`,
//! `events`, `rounds`, `main_calls` and the main agent's four token sums,
//! `subagent_calls` and the subagents' four, `tool_calls`, `tool_errors`,
//! `tool_rejections`, `subagents`, `api_retries`, `api_errors`,
//! `bad_lines`, `truncated`, `warnings`, `warning_codes`.
//!
//! **tools**: `file`, `run_line`, `session_id`, `tool_use_id`, `tool_name`,
//! `parent_tool_use_id`, `line`, `result_line`, `started_at`,
//! `duration_ms`, `answered`, `is_error`, `rejected`.
//!
//! A run is `(file, first_line)` in `runs` and `(file, run_line)` in the
//! other two.
//!
//! # Usage counted once
//!
//! A model call (one `message.id`) is spread over one assistant event per
//! content block, each repeating the usage. Its usage is put on exactly one
//! row, flagged `carries_usage`: the row whose usage the run layer keeps for
//! the call ([`ModelCall::line`](crate::run::ModelCall::line)): the last
//! assistant event of the message id within the run, or, in streams with
//! partial messages, its last `message_delta` (whose count is final). So
//! `sum(output_tokens) WHERE parent_tool_use_id IS NULL` over `events` is
//! `cctape stats`' `usage.main.calls.output_tokens` (the per-call sum),
//! exactly; the best figure of each run (which may come from its results,
//! see `docs/accounting.md`) is in `runs.main_output_tokens`, which sums to
//! `usage.main.output_tokens`.
//!
//! # Writing
//!
//! [`InputRows`] folds one input's events into rows (a [`RunFolder`]
//! underneath, the same fold as `cctape stats`); [`Writer`] writes rows to
//! the part files.
//!
//! ```
//! use cctape::export::{ExportOptions, InputRows, Writer};
//! use cctape::SliceEvents;
//!
//! let dir = std::env::temp_dir().join(format!("cctape-doc-export-{}", std::process::id()));
//! let input = br#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}
//! {"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":0.5,"session_id":"s1"}
//! "#;
//! let mut rows = InputRows::new("a.jsonl", false);
//! let mut events = SliceEvents::new(input);
//! while let Some(item) = events.next_event() {
//!     match item {
//!         Ok(ev) => rows.push(&ev),
//!         Err(e) => rows.push_error(&e),
//!     }
//! }
//! let mut w = Writer::create(&dir, &ExportOptions::default())?;
//! w.write(&rows.finish())?;
//! let [events, runs, tools] = w.finish()?;
//! assert_eq!((events.rows, runs.rows, tools.rows), (2, 1, 0));
//! assert!(dir.join("events/part-00000.parquet").is_file());
//! assert!(dir.join("tools/part-00000.parquet").is_file());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! [`RunFolder`]: crate::run::RunFolder

mod columns;
// Spilled rows are read back only by the Parquet writer: without it the
// spill side of these two modules is built (Python's tables use `InputRows`)
// but never read.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
mod input;
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
mod spill;
#[cfg(feature = "parquet")]
mod stage;
mod tables;
#[cfg(feature = "parquet")]
mod writer;

pub use columns::{ColMut, ColRef, ColumnDef, Kind, NumCol, StrCol};
pub use input::{Batch, InputRows};
#[cfg(feature = "parquet")]
pub use stage::AbortHandle;
pub use tables::{EventRows, RunRows, Table, ToolRows};
#[cfg(feature = "parquet")]
pub use writer::{ExportOptions, TableReport, Writer};

/// The version of the tables' schema, written into every file's key-value
/// metadata as `cctape.schema_version`. It changes when a column changes
/// meaning or type or goes away; new columns may be added at the end
/// without changing it.
pub const SCHEMA_VERSION: &str = "2";
