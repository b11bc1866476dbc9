//! Session transcripts read across inputs: each input's records folded on
//! its worker ([`TranscriptPiece`]), then every input's folds joined in
//! input order and made into sessions, each under its own file
//! ([`Transcripts`]), as every command and the Python package do.

use crate::pricing::PriceTable;
use crate::time::{DayRange, Zone};

/// A transcript input's records, folded on its worker (see
/// [`Transcripts`]).
#[derive(Debug, Default)]
pub struct TranscriptPiece {
    /// The records folded.
    pub fold: crate::transcript::TranscriptFold,
    file: crate::transcript::TranscriptFile,
}

impl TranscriptPiece {
    /// The input is a transcript named `name`: its path says its project,
    /// session and agent.
    pub fn begin(&mut self, name: &str) {
        self.file = crate::transcript::TranscriptFile::from_path(std::path::Path::new(name));
    }

    /// Fold one record.
    pub fn add(&mut self, rec: &crate::event::Event<'_>) {
        self.fold.add(rec, &self.file);
    }
}

/// Every transcript input's records folded together, in input order (a
/// session's subagent files are other inputs, and a request replayed in two
/// files counts once), then made into sessions, each under the input of
/// its own file.
#[derive(Debug, Default)]
pub struct Transcripts {
    fold: crate::transcript::TranscriptFold,
}

impl Transcripts {
    /// List each session's model and tool calls when finishing (for
    /// `export`, `otel`, `report --html`: [`TranscriptFold::record_calls`](crate::transcript::TranscriptFold::record_calls)).
    /// A model call's `message_id` and `request_id` are kept by the pieces
    /// whose folds keep calls as they read ([`TranscriptPiece::fold`]).
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
    ) -> Option<(crate::transcript::Report, Vec<usize>)> {
        self.finish_within(names, prices, zone, &DayRange::default())
    }

    /// [`finish`](Transcripts::finish) keeping only the requests and tool
    /// calls made on a day in `range`, and the sessions with any (`verdict
    /// --since/--until`, as `stats` keeps them).
    pub fn finish_within(
        self,
        names: &[String],
        prices: &PriceTable,
        zone: &Zone,
        range: &DayRange,
    ) -> Option<(crate::transcript::Report, Vec<usize>)> {
        if self.fold.records() == 0 {
            return None;
        }
        let mut report = self.fold.finish_within(prices, zone, range, None);
        let index: std::collections::HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let input_of = |s: &crate::transcript::SessionSummary| {
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
