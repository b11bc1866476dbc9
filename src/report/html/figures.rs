//! What the HTML report shows, gathered in one read: the `stats` figures
//! (grouped by five-hour block, the grouping only the stats report itself
//! can finish), the same runs grouped by day, week and Claude Code
//! version, and the runs the page lists one by one (failed runs, runs with
//! subagents) as `verdict` has them.
//!
//! Nothing here computes a figure: runs go to [`RunFigures::add`] and
//! transcript sessions to [`RunFigures::add_session`], as `cctape stats
//! --by day|week|version` puts them; a run is kept for the failed-run list
//! when that same call counted it and its verdict is not a success, so the
//! list's length is the `failed` count `stats` gives.

use crate::report::{GroupBy, Grouping, RunFigures, StatsFigures};
use crate::run::RunSummary;
use crate::time::{DayRange, Zone};
use crate::transcript::SessionSummary;
use std::collections::HashMap;

/// The groupings the page draws besides blocks, in this order.
const GROUPS: [GroupBy; 3] = [GroupBy::Day, GroupBy::Week, GroupBy::Version];

/// A run the page lists on its own: a failed run (with its timeline) or a
/// run with subagents (in the subagent tree).
#[derive(Clone, Debug)]
pub struct KeptRun {
    /// The input it was read from.
    pub(crate) input: usize,
    /// The run, as `cctape verdict` reports it; its model and tool calls
    /// are kept only when it failed (they draw its timeline).
    pub(crate) run: RunSummary,
    /// Its API retries (a stream's `system/api_retry` events, a
    /// transcript's `system/api_error` records): each one's time when it
    /// has one (a transcript's), and its line.
    pub(crate) retries: Vec<(Option<i64>, u64)>,
}

impl KeptRun {
    /// Not a success (counted in `stats`' `failed`).
    pub(crate) fn failed(&self) -> bool {
        !self.run.verdict.is_ok()
    }
}

/// The runs of one input as the report takes them, besides what the stats
/// report sums: fill one per reading worker, hand it to
/// [`ReportFigures::finish`].
#[derive(Debug)]
pub struct RunsSeen {
    groups: Vec<(Grouping, RunFigures)>,
    kept: Vec<KeptRun>,
    /// `system/api_retry` lines not yet given to a finished run, with the
    /// session they name.
    retries: Vec<(u64, Option<String>)>,
}

impl RunsSeen {
    /// Runs with days in `zone`, kept within `range` (`--since/--until`).
    pub fn new(zone: &Zone, range: DayRange) -> RunsSeen {
        RunsSeen {
            groups: GROUPS
                .iter()
                .map(|&by| {
                    let g = Grouping {
                        by: Some(by),
                        zone: zone.clone(),
                        range,
                    };
                    (g, RunFigures::default())
                })
                .collect(),
            kept: Vec::new(),
            retries: Vec::new(),
        }
    }

    /// A `system/api_retry` event at `line`, of session `session`.
    pub fn retry(&mut self, line: u64, session: Option<&str>) {
        self.retries.push((line, session.map(str::to_owned)));
    }

    /// A finished run of input `input` (named `file`).
    pub fn add(&mut self, input: usize, file: &str, r: &RunSummary) {
        let mut counted = false;
        for (g, f) in &mut self.groups {
            let before = f.all.runs;
            f.add(input, file, r, g);
            counted = f.all.runs > before;
        }
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.retries)
            .into_iter()
            .partition(|(line, s)| {
                (r.first_line..=r.last_line).contains(line)
                    && (s.is_none() || r.session_id.is_none() || *s == r.session_id)
            });
        self.retries = rest;
        if !counted || (r.verdict.is_ok() && r.subagents.is_empty()) {
            return;
        }
        let mut run = r.clone();
        if run.verdict.is_ok() {
            // In the tree only: its calls are not drawn.
            run.model_calls = Vec::new();
            run.tool_calls = Vec::new();
        }
        self.kept.push(KeptRun {
            input,
            run,
            retries: mine.into_iter().map(|(l, _)| (None, l)).collect(),
        });
    }

    /// Add another input's (or piece's) runs.
    pub fn merge(&mut self, o: RunsSeen) {
        for ((_, mine), (_, theirs)) in self.groups.iter_mut().zip(&o.groups) {
            mine.merge(theirs);
        }
        self.kept.extend(o.kept);
    }
}

/// Everything the page shows.
#[derive(Debug)]
pub struct ReportFigures {
    /// The `stats` figures, grouped by five-hour block (`stats --by block
    /// --json`; its totals are those of `stats --json`).
    pub stats: StatsFigures,
    /// The runs by day (`stats --by day`).
    pub(crate) days: RunFigures,
    /// The runs by ISO week (`stats --by week`).
    pub(crate) weeks: RunFigures,
    /// The runs by Claude Code version (`stats --by version`).
    pub(crate) versions: RunFigures,
    /// Failed runs and runs with subagents, streams in input order, then
    /// transcript sessions in input order.
    pub(crate) runs: Vec<KeptRun>,
}

impl ReportFigures {
    /// The figures of a finished stats report (made with `--by block`) and
    /// the runs every input gave (merged in input order): transcript
    /// sessions join the day, week and version groups as `stats` adds
    /// them.
    pub fn finish(stats: StatsFigures, seen: RunsSeen) -> ReportFigures {
        let RunsSeen {
            mut groups,
            mut kept,
            ..
        } = seen;
        // Inputs without events, each one run (as `stats` adds them when
        // the input closes), among the streams' runs in input order.
        let mut streams: Vec<KeptRun> = std::mem::take(&mut kept);
        for (input, run) in &stats.no_event_runs {
            let name = stats.names.get(*input).map_or("", String::as_str);
            for (g, f) in &mut groups {
                f.add_run(*input, name, run, g);
            }
            if !run.verdict.is_ok() {
                streams.push(KeptRun {
                    input: *input,
                    run: run.clone(),
                    retries: Vec::new(),
                });
            }
        }
        // Stable: the runs of one input keep their order.
        streams.sort_by_key(|k| k.input);
        kept = streams;
        if let Some(t) = &stats.transcripts {
            let index: HashMap<&str, usize> = stats
                .names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i))
                .collect();
            let mut sessions: Vec<(usize, &SessionSummary)> = t
                .sessions
                .iter()
                .map(|s| {
                    let input = s.files.first().and_then(|f| index.get(f.as_str()));
                    (input.copied().unwrap_or(0), s)
                })
                .collect();
            sessions.sort_by_key(|(i, _)| *i);
            for (input, s) in sessions {
                let name = stats.names.get(input).map_or("", String::as_str);
                let mut counted = false;
                for (g, f) in &mut groups {
                    let before = f.all.runs;
                    f.add_session(input, name, s, g, None);
                    counted = f.all.runs > before;
                }
                let mut run = s.run_without_calls();
                if counted && (!run.verdict.is_ok() || !run.subagents.is_empty()) {
                    let failed = !run.verdict.is_ok();
                    if failed {
                        // Its calls draw its timeline (a run in the tree
                        // only has none kept, as a stream's).
                        run.model_calls = s.model_calls.clone();
                        run.tool_calls = s.tool_calls.clone();
                    }
                    kept.push(KeptRun {
                        input,
                        run,
                        retries: if failed {
                            s.facts.api_retry_marks.clone()
                        } else {
                            Vec::new()
                        },
                    });
                }
            }
        }
        let mut take = || groups.remove(0).1;
        let (days, weeks, versions) = (take(), take(), take());
        ReportFigures {
            stats,
            days,
            weeks,
            versions,
            runs: kept,
        }
    }

    /// The failed runs (as many as `stats` counts failed).
    pub fn failed(&self) -> impl Iterator<Item = &KeptRun> {
        self.runs.iter().filter(|k| k.failed())
    }

    /// The name of input `i`.
    pub(crate) fn name(&self, i: usize) -> &str {
        self.stats.names.get(i).map_or("?", String::as_str)
    }
}
