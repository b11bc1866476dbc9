//! `cctape.verdict(...)` and `cctape.stats(...)`: the records and the report
//! `cctape verdict --json` and `cctape stats --json` print, as Python
//! values, computed over the inputs in parallel with the GIL released.

use crate::json::serde_to_py;
use crate::sources::{Input, Inputs, read_input};
use cctape::error::Error;
use cctape::event::Event;
use cctape::inputs::{Item, ReadOptions};
use cctape::run::{RunFolder, RunSummary, Verdict};
use cctape::sniff::{Format, sniff_format};
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;
use serde_json::{Map, Value, json};
use std::ops::ControlFlow;

/// How many bytes of non-event lines are kept to tell what an input
/// without events is.
const SHAPE_KEEP: usize = 64 << 10;
/// How much of such an input's first line is shown.
const FIRST_LINE: usize = 200;

/// One input's runs as they are folded, with the first bytes of the lines
/// that were not events (for an input without events).
#[derive(Debug, Default)]
pub struct InputRuns {
    folder: RunFolder,
    prefix: Vec<u8>,
    /// Set once the fold is finished.
    done: Option<Vec<RunSummary>>,
}

impl Clone for InputRuns {
    /// Only a finished fold is cloned whole (a fold in progress cannot be);
    /// the decoder finishes before it reports.
    fn clone(&self) -> Self {
        InputRuns {
            folder: RunFolder::new(),
            prefix: self.prefix.clone(),
            done: self.done.clone(),
        }
    }
}

/// The stable name of a format in `no_events` (as `cctape verdict` and
/// `cctape stats` write it).
fn format_name(f: Format) -> &'static str {
    match f {
        Format::Empty => "empty",
        Format::Ndjson => "ndjson",
        Format::JsonArray => "json_array",
        Format::PrettyJson => "pretty_json",
        Format::LoggerPrefixed => "logger_prefixed",
        Format::CutLines => "cut_lines",
        Format::Text => "text",
        _ => "other",
    }
}

impl InputRuns {
    pub fn push(&mut self, ev: &Event<'_>) {
        self.folder.push(ev);
    }

    pub fn push_error(&mut self, e: &Error, line: Option<&[u8]>) {
        self.folder.push_error(e);
        if let Some(l) = line
            && self.prefix.len() < SHAPE_KEEP
        {
            let room = SHAPE_KEEP - self.prefix.len();
            self.prefix.extend_from_slice(&l[..l.len().min(room)]);
            self.prefix.push(b'\n');
        }
    }

    /// `no_events` of an input without events: its format, first line and
    /// what to do.
    pub fn no_events(&self) -> Value {
        let format = sniff_format(&self.prefix);
        let first_line: Option<String> = self
            .prefix
            .split(|&b| b == b'\n')
            .map(|l| String::from_utf8_lossy(l).trim().to_string())
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(FIRST_LINE).collect());
        json!({"format": format_name(format), "first_line": first_line, "advice": format.describe()})
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
    /// one `startup_failure` record for an input without events, or the
    /// unreadable record.
    pub fn records(
        mut self,
        name: &str,
        events: u64,
        unreadable: Option<&Error>,
        exit_code: Option<i32>,
    ) -> Vec<Value> {
        if let Some(why) = unreadable {
            return vec![
                json!({"verdict": null, "ok": false, "file": name, "error": why.to_string()}),
            ];
        }
        let no_events = (events == 0).then(|| self.no_events());
        let runs = self.finish();
        if let Some(no_events) = no_events {
            // Not a run: one record with every key a run record has (its
            // bad lines counted), `no_events` after `file`.
            let mut r = if runs.is_empty() {
                RunSummary::empty()
            } else {
                runs.remove(0)
            };
            r.verdict = Verdict::StartupFailure;
            r.stream_verdict = Verdict::StartupFailure;
            r.exit_code = exit_code;
            let mut o = Map::new();
            if let Value::Object(rest) = r.to_json_with_file(Some(name)) {
                for (k, v) in rest {
                    let file = k == "file";
                    o.insert(k, v);
                    if file {
                        o.insert("no_events".into(), no_events.clone());
                    }
                }
            }
            return vec![Value::Object(o)];
        }
        if let (Some(code), Some(last)) = (exit_code, runs.last_mut()) {
            last.apply_exit_code(code);
        }
        runs.iter()
            .map(|r| r.to_json_with_file(Some(name)))
            .collect()
    }
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

/// The verdict records of one input.
pub fn input_records(input: &Input, opts: &ReadOptions, exit_code: Option<i32>) -> Vec<Value> {
    let mut runs = InputRuns::default();
    let end = read_input(input, opts, |item| {
        match item {
            Item::Event(ev) => runs.push(ev),
            // Not asked for (`ReadOptions::scan` is off here).
            Item::Scanned(_) => {}
            Item::Error { error, bytes } => runs.push_error(error, bytes),
        }
        ControlFlow::Continue(())
    });
    let unreadable = end.failure.as_ref().filter(|_| end.unreadable);
    runs.records(&input.name, end.counts.events, unreadable, exit_code)
}
