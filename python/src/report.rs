//! `cctape.verdict(...)` and the pieces `cctape.stats(...)` shares: the
//! records `cctape verdict --json` prints, composed by the library
//! (`cctape::report`) as the command composes them, computed over the
//! inputs in parallel with the GIL released; session transcripts folded
//! across inputs and their sessions' records after every input's.

use crate::errors::Failure;
use crate::json::serde_to_py;
use crate::sources::{Input, Inputs, read_input, unopened};
use cctape::error::Error;
use cctape::event::Event;
use cctape::inputs::{InputEnd, Item, ReadOptions};
use cctape::pricing::PriceTable;
use cctape::report::{
    NoEvents, Shape, TranscriptPiece, Transcripts, no_events_record, no_events_run, run_record,
    session_record, unreadable_record,
};
use cctape::run::{RunFolder, RunSummary};
use cctape::sniff::Format;
use cctape::time::{Day, DayRange, Zone};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;
use serde_json::Value;
use std::ops::ControlFlow;

/// One input's runs as they are folded, with what it looks like (for an
/// input without events).
#[derive(Debug, Default)]
pub struct InputRuns {
    folder: RunFolder,
    shape: Shape,
    finding: Option<NoEvents>,
    /// Set once the fold is finished.
    done: Option<Vec<RunSummary>>,
}

impl Clone for InputRuns {
    /// Only a finished fold is cloned whole (a fold in progress cannot be);
    /// the decoder finishes before it reports.
    fn clone(&self) -> Self {
        InputRuns {
            folder: RunFolder::new(),
            shape: self.shape.clone(),
            finding: self.finding.clone(),
            done: self.done.clone(),
        }
    }
}

impl InputRuns {
    pub fn push(&mut self, ev: &Event<'_>) {
        self.folder.push(ev);
    }

    pub fn push_error(&mut self, e: &Error, line: Option<&[u8]>) {
        self.folder.push_error(e);
        self.shape.note(line);
    }

    /// The input was read as one finding (text, empty).
    pub fn not_events(&mut self, shape: &Shape) {
        self.finding = Some(shape.describe());
    }

    /// What an input without events is.
    fn no_events(&self) -> NoEvents {
        self.finding
            .clone()
            .unwrap_or_else(|| self.shape.describe())
    }

    /// Finish the fold (once) and take the runs.
    pub fn finish(&mut self) -> &mut Vec<RunSummary> {
        if self.done.is_none() {
            let runs = std::mem::take(&mut self.folder).finish();
            self.done = Some(runs);
        }
        self.done.get_or_insert_with(Vec::new)
    }

    /// The `cctape verdict --json` records of this input: one per run, or
    /// one record for an input without events (its verdict from its last
    /// line, else `startup_failure`).
    pub fn records(self, name: &str, events: u64, exit_code: Option<i32>) -> Vec<Value> {
        let all = (DayRange::default(), Zone::utc());
        self.records_within(name, events, exit_code, &all)
    }

    /// [`records`](InputRuns::records) of the runs that started on a day
    /// `days` keeps (in its zone): `verdict --since/--until`, where an input
    /// without events has no date and gives no record.
    pub fn records_within(
        mut self,
        name: &str,
        events: u64,
        exit_code: Option<i32>,
        (range, zone): &(DayRange, Zone),
    ) -> Vec<Value> {
        if events == 0 && !range.is_all() {
            return Vec::new();
        }
        if events == 0 {
            let n = self.no_events();
            let folded = std::mem::take(self.finish()).into_iter().next();
            let r = no_events_run(folded, &n, exit_code);
            return vec![no_events_record(&r, name, &n).to_value()];
        }
        let runs = self.finish();
        if let (Some(code), Some(last)) = (exit_code, runs.last_mut()) {
            last.apply_exit_code(code);
        }
        runs.iter()
            .filter(|r| {
                range.is_all()
                    || range.contains(
                        r.started_at
                            .as_deref()
                            .and_then(|t| Day::of_timestamp(t, zone)),
                    )
            })
            .map(|r| run_record(r, name).to_value())
            .collect()
    }
}

/// `pricing` (a JSON price file overriding the shipped table) and
/// `timezone` (an IANA name; the system's by default), as `--pricing` and
/// `--timezone`: what transcripts' requests cost and which day they were
/// made on.
pub fn costing(
    pricing: Option<&std::path::Path>,
    timezone: Option<&str>,
) -> PyResult<(PriceTable, Zone)> {
    let base = PriceTable::builtin();
    let prices = match pricing {
        None => base.clone(),
        Some(p) => PriceTable::from_file(p)
            .map(|t| base.overriding(&t))
            .map_err(|e| PyValueError::new_err(format!("pricing {}: {e}", p.display())))?,
    };
    let zone = match timezone {
        None => Zone::system(),
        Some(n) => Zone::named(n).map_err(|e| PyValueError::new_err(format!("timezone: {e}")))?,
    };
    Ok((prices, zone))
}

pub fn records_to_py<'py>(py: Python<'py>, records: &[Value]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in records {
        list.append(serde_to_py(py, r)?)?;
    }
    Ok(list)
}

/// A thread pool of `jobs` threads (0: one per core).
pub fn pool(jobs: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
}

/// Map every input in parallel (order kept), the GIL released.
pub fn map_inputs<T: Send>(
    py: Python<'_>,
    inputs: &Inputs,
    jobs: usize,
    f: impl Fn(usize, &Input) -> T + Sync + Send,
) -> PyResult<Vec<T>> {
    let pool = pool(jobs)?;
    Ok(py.detach(|| {
        pool.install(|| {
            inputs
                .list
                .par_iter()
                .enumerate()
                .map(|(i, input)| f(i, input))
                .collect()
        })
    }))
}

/// Read one input as the reports read it: a session transcript's lines as
/// records, folded into the input's piece (its path says its project,
/// session and agent) and handed to `f` too; every other item to `f`.
pub fn read_folding(
    input: &Input,
    opts: &ReadOptions,
    mut f: impl FnMut(Item<'_, '_>),
) -> (InputEnd, TranscriptPiece) {
    let mut piece = TranscriptPiece::default();
    piece.begin(&input.name);
    let opts = ReadOptions {
        records: true,
        ..*opts
    };
    let end = read_input(input, &opts, |item| {
        if let Item::Record(rec) = item {
            piece.add(rec);
        }
        f(item);
        ControlFlow::Continue(())
    });
    (end, piece)
}

/// The verdict records of one input, or its transcript records folded
/// (its sessions' records come once every input is read).
fn input_records(
    input: &Input,
    opts: &ReadOptions,
    exit_code: Option<i32>,
    days: &(DayRange, Zone),
) -> Result<(Vec<Value>, Option<TranscriptPiece>), Failure> {
    let mut runs = InputRuns::default();
    let (end, piece) = read_folding(input, opts, |item| match item {
        Item::Event(ev) => runs.push(ev),
        Item::Error { error, bytes } => runs.push_error(error, bytes),
        Item::NotEvents(shape) => runs.not_events(shape),
        // Records are folded; scanned lines are not asked for.
        _ => {}
    });
    if let Some(f) = unopened(input, &end) {
        return Err(f);
    }
    // Broke off before any event: no run, the record `cctape verdict`
    // prints for it (as `stats` counts it).
    if let Some(why) = end.failure.as_ref().filter(|_| end.counts.events == 0) {
        return Ok((vec![unreadable_record(&input.name, &why.to_string())], None));
    }
    if end.format == Some(Format::Transcript) && end.counts.events > 0 {
        return Ok((Vec::new(), Some(piece)));
    }
    let records = runs.records_within(&input.name, end.counts.events, exit_code, days);
    Ok((records, None))
}

/// Every input's verdict records in input order, then the transcript
/// sessions' (as `cctape verdict --json` prints them), or the `OSError` of
/// the first input that could not be opened; `exit_code` gives
/// an input's exit code by its name; `days`: the days kept, in that zone
/// (`--since`/`--until`, `--timezone`).
pub fn verdict_records(
    py: Python<'_>,
    inputs: &Inputs,
    opts: &ReadOptions,
    jobs: usize,
    exit_code: impl Fn(&str) -> Option<i32> + Sync + Send,
    prices: &PriceTable,
    days: &(DayRange, Zone),
) -> PyResult<Vec<Value>> {
    let per_input = map_inputs(py, inputs, jobs, |_, input| {
        input_records(input, opts, exit_code(&input.name), days)
    })?;
    let mut all = Vec::new();
    let mut transcripts = Transcripts::default();
    for got in per_input {
        let (records, piece) = got.map_err(|f| f.os_error(py))?;
        all.extend(records);
        if let Some(p) = piece {
            transcripts.add(p);
        }
    }
    let names: &[String] = &inputs.names;
    if let Some((report, files)) =
        py.detach(|| transcripts.finish_within(names, prices, &days.1, &days.0))
    {
        for (s, &i) in report.sessions.iter().zip(&files) {
            let mut r = s.to_run();
            if let Some(code) = exit_code(&names[i]) {
                r.apply_exit_code(code);
            }
            all.push(session_record(&r, &names[i], s, &report).to_value());
        }
    }
    Ok(all)
}
