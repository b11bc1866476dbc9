//! Options about what inputs are and what they cost, shared by the commands
//! that read transcripts and JSON captures: `--format` (how each input is
//! read), `--pricing` and `--timezone` (transcripts' cost and days).

use cctape::pricing::PriceTable;
use cctape::sniff::FormatChoice;
use cctape::time::{Day, DayRange, Zone};
use std::path::PathBuf;

/// How inputs are read.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputFormat {
    /// Tell each input's format from its first line that opens JSON (lines
    /// of text before it, such as a warning, are errors at their places):
    /// stream-json lines, a JSON array or pretty JSON (`--output-format
    /// json`), a session transcript, or text when no line of it is JSON (one
    /// finding, not an error per line).
    #[default]
    Auto,
    /// stream-json, one object a line, whatever it looks like.
    Stream,
    /// JSON elements: an array (one line or pretty), or pretty objects one
    /// after another.
    Json,
    /// A session transcript (`~/.claude/projects/<project>/<session>.jsonl`).
    Transcript,
}

impl InputFormat {
    /// The library's choice.
    pub fn choice(self) -> FormatChoice {
        match self {
            InputFormat::Auto => FormatChoice::Auto,
            InputFormat::Stream => FormatChoice::Stream,
            InputFormat::Json => FormatChoice::Json,
            InputFormat::Transcript => FormatChoice::Transcript,
        }
    }
}

/// `--format` (also `--input-format`), for commands whose `--format` is
/// free.
#[derive(clap::Args, Debug, Clone)]
pub struct ReadAs {
    /// How to read each input (auto: from its first bytes).
    #[arg(
        long = "format",
        visible_alias = "input-format",
        value_enum,
        default_value_t = InputFormat::Auto,
        value_name = "FORMAT"
    )]
    pub input_format: InputFormat,
}

/// `--input-format`, for commands whose `--format` names their output.
#[derive(clap::Args, Debug, Clone)]
pub struct ReadAsInput {
    /// How to read each input (auto: from its first bytes).
    #[arg(
        long = "input-format",
        value_enum,
        default_value_t = InputFormat::Auto,
        value_name = "FORMAT"
    )]
    pub input_format: InputFormat,
}

/// `--pricing` and `--timezone`: what transcripts' requests cost, and which
/// day they were made on.
#[derive(clap::Args, Debug, Clone)]
pub struct Costing {
    /// Prices for session transcripts, which carry no cost: a JSON file in
    /// the shape of the shipped table (per-million-token prices per model)
    /// whose entries override it.
    #[arg(long, value_name = "FILE")]
    pub pricing: Option<PathBuf>,
    /// The time zone days are taken in (an IANA name: UTC, Europe/Paris);
    /// by default the system's (local days).
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
}

impl Costing {
    /// The shipped price table, overridden by `--pricing`.
    pub fn prices(&self) -> Result<PriceTable, String> {
        let base = PriceTable::builtin();
        match &self.pricing {
            None => Ok(base.clone()),
            Some(p) => PriceTable::from_file(p)
                .map(|t| base.overriding(&t))
                .map_err(|e| format!("--pricing {}: {e}", super::inputs::shown_path(p))),
        }
    }

    /// `--timezone`, or the system's zone.
    pub fn zone(&self) -> Result<Zone, String> {
        match &self.timezone {
            None => Ok(Zone::system()),
            Some(n) => Zone::named(n).map_err(|e| format!("--timezone: {e}")),
        }
    }
}

/// `--since` and `--until`: the days a report keeps (`stats`, `verdict`).
#[derive(clap::Args, Debug, Clone)]
pub struct Days {
    /// Keep only the runs that started, and the transcript requests made,
    /// on or after this day (YYYY-MM-DD, or YYYYMMDD as ccusage takes it),
    /// in the report's time zone; what has no date is left out.
    #[arg(long, value_name = "DAY", value_parser = parse_day)]
    pub since: Option<Day>,
    /// Keep only what happened on or before this day (as --since).
    #[arg(long, value_name = "DAY", value_parser = parse_day)]
    pub until: Option<Day>,
}

impl Days {
    /// The days kept; an error when `--since` is after `--until`.
    pub fn range(&self) -> Result<DayRange, String> {
        match (self.since, self.until) {
            (Some(a), Some(b)) if a > b => {
                Err(format!("--since {a} is after --until {b}: no day is kept"))
            }
            (since, until) => Ok(DayRange { since, until }),
        }
    }
}

/// A `--since`/`--until` value.
fn parse_day(s: &str) -> Result<Day, String> {
    Day::parse(s).ok_or_else(|| format!("expected a day as YYYY-MM-DD or YYYYMMDD, got `{s}`"))
}

// A transcript input's records and every input's sessions: the library's
// (shared with the Python package).
pub use cctape::report::{TranscriptPiece, Transcripts};

/// Where Claude Code keeps session transcripts, the folders that exist:
/// each of `$CLAUDE_CONFIG_DIR`'s folders (a comma-separated list, as
/// ccusage reads it) with `projects` below it, else
/// `~/.config/claude/projects` (where Claude Code keeps them since 1.0.30)
/// and `~/.claude/projects`. Never read unless named: only said in the
/// terminal hint.
pub fn projects_folders() -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = match std::env::var("CLAUDE_CONFIG_DIR") {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| PathBuf::from(d).join("projects"))
            .collect(),
        _ => match std::env::var_os("HOME") {
            Some(h) => {
                let home = PathBuf::from(h);
                vec![
                    home.join(".config/claude/projects"),
                    home.join(".claude/projects"),
                ]
            }
            None => Vec::new(),
        },
    };
    dirs.into_iter().filter(|d| d.is_dir()).collect()
}
