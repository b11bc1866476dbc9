//! `cctape.stats(...)`: the report `cctape stats --json [--by KEY]` prints,
//! composed by the library (`cctape::report::StatsReport`) from each
//! input's figures, gathered as the command gathers them (counts and
//! errors, runs grouped, what an input without events is, transcripts'
//! records folded across inputs). `python/tests/test_stats.py` checks the
//! output against the command's on every real capture and for every `--by`.

use crate::errors::Failure;
use crate::report::read_folding;
use crate::sources::{Input, Inputs, unopened};
use cctape::inputs::{Item, ReadOptions};
use cctape::pricing::PriceTable;
use cctape::report::{GroupBy, Grouping, InputFigures, RunFigures, Shape, StatsReport};
use cctape::run::RunFolder;
use cctape::sniff::Format;
use cctape::stats::Stats;
use cctape::time::{Day, DayRange};
use cctape::transcript::TranscriptFold;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;

/// `by=`: `--by`.
pub fn group_by(s: Option<&str>) -> PyResult<Option<GroupBy>> {
    Ok(match s {
        None => None,
        Some("file") => Some(GroupBy::File),
        Some("session") => Some(GroupBy::Session),
        Some("project") => Some(GroupBy::Project),
        Some("model") => Some(GroupBy::Model),
        Some("version") => Some(GroupBy::Version),
        Some("day") => Some(GroupBy::Day),
        Some("week") => Some(GroupBy::Week),
        Some("month") => Some(GroupBy::Month),
        Some("block") => Some(GroupBy::Block),
        Some(o) => {
            return Err(PyValueError::new_err(format!(
                "by must be 'file', 'session', 'project', 'model', 'version', 'day', 'week', \
                 'month' or 'block', not {o:?}"
            )));
        }
    })
}

/// One input's figures, and its transcript records folded (joined with
/// the other inputs' in input order).
fn input_figures(
    i: usize,
    input: &Input,
    opts: &ReadOptions,
    grouping: &Grouping,
) -> Result<(InputFigures, TranscriptFold), Failure> {
    let mut stats = Stats::new();
    let mut runs = RunFolder::new();
    let mut shape = Shape::default();
    let mut finding = None;
    let (end, piece) = read_folding(input, opts, |item| match item {
        Item::Event(ev) => {
            stats.record_event(ev);
            runs.push(ev);
        }
        Item::Error { error, bytes } => {
            stats.record_error(i, error);
            // A transcript's folder holds no event, so gives no run.
            runs.push_error(error);
            shape.note(bytes);
        }
        Item::NotEvents(s) => finding = Some(s.describe()),
        // Records are folded; scanned lines are not asked for.
        _ => {}
    });
    if let Some(f) = unopened(input, &end) {
        return Err(f);
    }
    stats.files += 1;
    stats.bytes += end.bytes;
    stats.counts.add(&end.counts);
    let mut figures = RunFigures::default();
    if end.format != Some(Format::Transcript) {
        for r in runs.finish() {
            figures.add(i, &input.name, &r, grouping);
        }
    }
    let mut f = InputFigures {
        stats,
        runs: figures,
        shape,
        format: end.format,
        finding,
        ..InputFigures::default()
    };
    f.count_records(&piece.fold);
    Ok((f, piece.fold))
}

/// `since=` and `until=` (`YYYY-MM-DD` or `YYYYMMDD`) as the days kept;
/// `ValueError` for anything else, or a `since` after the `until`.
pub fn day_range(since: Option<&str>, until: Option<&str>) -> PyResult<DayRange> {
    let day = |what: &str, s: Option<&str>| -> PyResult<Option<Day>> {
        s.map(|s| {
            Day::parse(s).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{what}: expected a day as YYYY-MM-DD or YYYYMMDD, got {s:?}"
                ))
            })
        })
        .transpose()
    };
    let range = DayRange {
        since: day("since", since)?,
        until: day("until", until)?,
    };
    if let (Some(a), Some(b)) = (range.since, range.until)
        && a > b
    {
        return Err(PyValueError::new_err(format!(
            "since {a} is after until {b}: no day is kept"
        )));
    }
    Ok(range)
}

/// The report, as `cctape stats --json` prints it, or the `OSError` of the
/// first input that could not be opened.
pub fn stats_report(
    py: Python<'_>,
    inputs: &Inputs,
    grouping: Grouping,
    opts: &ReadOptions,
    jobs: usize,
    prices: PriceTable,
) -> PyResult<Value> {
    let per_input = crate::report::map_inputs(py, inputs, jobs, |i, input| {
        input_figures(i, input, opts, &grouping)
    })?
    .into_iter()
    .collect::<Result<Vec<_>, Failure>>()
    .map_err(|f| f.os_error(py))?;
    let names: Vec<String> = inputs.names.as_ref().clone();
    Ok(py.detach(move || {
        let mut report = StatsReport::new(names, grouping, prices);
        for (i, (f, fold)) in per_input.into_iter().enumerate() {
            report.add_transcripts(fold);
            report.add_input(i, f);
        }
        report.finish().to_json()
    }))
}
