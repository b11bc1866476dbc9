//! Reports: what `cctape stats` and `cctape verdict` print, composed once in
//! the library so that every front end (the CLI, a Python package) prints
//! the same figures in the same JSON.

mod shape;

pub use shape::{FinalError, NoEvents, Shape};
mod stats;

pub use stats::{
    CSV_COLUMNS, GroupBy, GroupKey, Grouping, InputFigures, NoEventInputs, RunFigures,
    StatsFigures, StatsReport,
};
mod verdict;

pub use verdict::{
    RunRecord, no_events_record, no_events_run, run_record, session_record, unreadable_record,
};
mod transcripts;

pub use transcripts::{TranscriptPiece, Transcripts};
#[cfg(feature = "html")]
pub mod html;
mod nodes;

pub use nodes::{node_figures, node_label};
