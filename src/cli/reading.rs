//! Options about what inputs are and what they cost, shared by the commands
//! that read transcripts and JSON captures: `--format` (how each input is
//! read), `--pricing` and `--timezone` (transcripts' cost and days).

use cctape::pricing::PriceTable;
use cctape::sniff::FormatChoice;
use cctape::time::Zone;
use std::path::PathBuf;

/// How inputs are read.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputFormat {
    /// Tell each input's format from its first bytes: stream-json lines, a
    /// JSON array or pretty JSON (`--output-format json`), a session
    /// transcript, or text (one finding, not an error per line).
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

/// A transcript input's records, folded on its worker (see
/// [`Transcripts`]).
#[derive(Debug, Default)]
pub struct TranscriptPiece {
    /// The records folded.
    pub fold: cctape::transcript::TranscriptFold,
    file: cctape::transcript::TranscriptFile,
}

impl TranscriptPiece {
    /// The input is a transcript named `name`: its path says its project,
    /// session and agent.
    pub fn begin(&mut self, name: &str) {
        self.file = cctape::transcript::TranscriptFile::from_path(std::path::Path::new(name));
    }

    /// Fold one record.
    pub fn add(&mut self, rec: &cctape::transcript::Record<'_>) {
        self.fold.add(rec, &self.file);
    }
}

/// Every transcript input's records folded together, in input order (a
/// session's subagent files are other inputs, and a request replayed in two
/// files counts once), then made into sessions, each under the input of
/// its own file.
#[derive(Debug, Default)]
pub struct Transcripts {
    fold: cctape::transcript::TranscriptFold,
}

impl Transcripts {
    /// List each session's tool calls when finishing (for `export`).
    pub fn record_calls(&mut self) {
        self.fold.record_calls(true);
    }

    /// Add an input's records (call in input order).
    pub fn add(&mut self, piece: TranscriptPiece) {
        if piece.fold.records() > 0 {
            self.fold.merge(piece.fold);
        }
    }

    /// The sessions, each with the index of its own file among `names`, in
    /// input order (then by session id); `None` when no input was a
    /// transcript.
    pub fn finish(
        self,
        names: &[String],
        prices: &PriceTable,
        zone: &Zone,
    ) -> Option<(cctape::transcript::Report, Vec<usize>)> {
        if self.fold.records() == 0 {
            return None;
        }
        let mut report = self.fold.finish(prices, zone);
        let index: std::collections::HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let input_of = |s: &cctape::transcript::SessionSummary| {
            s.files
                .first()
                .and_then(|f| index.get(f.as_str()))
                .copied()
                .unwrap_or(0)
        };
        report.sessions.sort_by_cached_key(|s| input_of(s));
        let inputs = report.sessions.iter().map(input_of).collect();
        Some((report, inputs))
    }
}

/// Where Claude Code keeps session transcripts, when that folder exists:
/// `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. Never read
/// unless named: only said in the terminal hint.
pub fn projects_folder() -> Option<PathBuf> {
    let dir = match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(d) => PathBuf::from(d).join("projects"),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".claude/projects"),
    };
    dir.is_dir().then_some(dir)
}
