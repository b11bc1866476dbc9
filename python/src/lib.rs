//! `cctape._cctape`: the Rust side of the Python package `cctape`.
//!
//! A thin layer over the library: reading (`read`, the iterator of lazy
//! events and bad lines; `Decoder`, the push reader under `follow`), the
//! verdict records and the stats report (as `cctape verdict --json` and
//! `cctape stats --json` print them), and the export's tables as Arrow
//! data. Every function releases the GIL while Rust reads, and reads
//! several inputs in parallel as the command does. The Python package
//! (`python/cctape/__init__.py`) adds `follow` and `runs` and the docs.

mod arrow;
mod decoder;
mod errors;
mod items;
mod json;
mod reader;
mod report;
mod sources;
mod stats_report;
mod tail;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sources::{Inputs, read_options};
use std::collections::HashMap;

/// Worker threads for `jobs` (0: one per core).
fn jobs_or_cores(jobs: usize) -> usize {
    if jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        jobs
    }
}

/// Read events and bad lines from a path (a file, or a directory walked for
/// stream files), bytes, a binary file object, or a list of these.
#[pyfunction]
#[pyo3(signature = (source, *, format="auto", errors="yield", jobs=0, max_line=None, name=None))]
fn read(
    source: &Bound<'_, PyAny>,
    format: &str,
    errors: &str,
    jobs: usize,
    max_line: Option<usize>,
    name: Option<&str>,
) -> PyResult<reader::Reader> {
    let opts = read_options(format, max_line, false)?;
    let on_error = reader::OnError::parse(errors)?;
    let inputs = Inputs::of(source, name)?;
    Ok(reader::Reader::start(
        inputs,
        opts,
        jobs_or_cores(jobs),
        on_error,
    ))
}

/// Exit codes: one for every input, or one per input name.
enum ExitCodes {
    None,
    All(i32),
    ByName(HashMap<String, i32>),
}

impl ExitCodes {
    fn of(v: Option<&Bound<'_, PyAny>>) -> PyResult<ExitCodes> {
        let Some(v) = v.filter(|v| !v.is_none()) else {
            return Ok(ExitCodes::None);
        };
        if let Ok(code) = v.extract::<i32>() {
            return Ok(ExitCodes::All(code));
        }
        if let Ok(d) = v.cast::<PyDict>() {
            let mut m = HashMap::new();
            for (k, c) in d.iter() {
                let key = match k.extract::<std::path::PathBuf>() {
                    Ok(p) => p.display().to_string(),
                    Err(_) => k.str()?.to_string(),
                };
                m.insert(key, c.extract::<i32>()?);
            }
            return Ok(ExitCodes::ByName(m));
        }
        Err(PyTypeError::new_err(
            "exit_code must be an int or a dict of input name to int",
        ))
    }

    fn get(&self, name: &str) -> Option<i32> {
        match self {
            ExitCodes::None => None,
            ExitCodes::All(c) => Some(*c),
            ExitCodes::ByName(m) => m.get(name).copied(),
        }
    }
}

/// The verdict records of every run, as `cctape verdict --json` prints them
/// (transcript sessions' after every input's).
#[pyfunction]
#[pyo3(signature = (source, *, exit_code=None, format="auto", jobs=0, max_line=None, name=None, pricing=None, timezone=None, since=None, until=None))]
#[allow(clippy::too_many_arguments)]
fn verdict<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    exit_code: Option<&Bound<'py, PyAny>>,
    format: &str,
    jobs: usize,
    max_line: Option<usize>,
    name: Option<&str>,
    pricing: Option<std::path::PathBuf>,
    timezone: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let opts = read_options(format, max_line, true)?;
    let codes = ExitCodes::of(exit_code)?;
    let (prices, zone) = report::costing(pricing.as_deref(), timezone)?;
    let range = stats_report::day_range(since, until)?;
    let inputs = Inputs::of(source, name)?;
    let all = report::verdict_records(
        py,
        &inputs,
        &opts,
        jobs,
        |name| codes.get(name),
        &prices,
        &(range, zone),
    )?;
    report::records_to_py(py, &all)
}

/// The report `cctape stats --json [--by KEY]` prints, as one dict.
#[pyfunction]
#[pyo3(signature = (source, *, by=None, format="auto", jobs=0, max_line=None, name=None, pricing=None, timezone=None, since=None, until=None))]
#[allow(clippy::too_many_arguments)]
fn stats<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    by: Option<&str>,
    format: &str,
    jobs: usize,
    max_line: Option<usize>,
    name: Option<&str>,
    pricing: Option<std::path::PathBuf>,
    timezone: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let by = stats_report::group_by(by)?;
    let opts = read_options(format, max_line, true)?;
    let (prices, zone) = report::costing(pricing.as_deref(), timezone)?;
    let range = stats_report::day_range(since, until)?;
    let inputs = Inputs::of(source, name)?;
    let grouping = cctape::report::Grouping { by, zone, range };
    let report = stats_report::stats_report(py, &inputs, grouping, &opts, jobs, prices)?;
    json::serde_to_py(py, &report)
}

/// The export's table as Arrow data (`events`, `runs` or `tools`).
#[pyfunction]
#[pyo3(signature = (source, table="events", *, raw=false, format="auto", jobs=0, max_line=None, name=None, pricing=None, timezone=None))]
#[allow(clippy::too_many_arguments)]
fn to_arrow(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    table: &str,
    raw: bool,
    format: &str,
    jobs: usize,
    max_line: Option<usize>,
    name: Option<&str>,
    pricing: Option<std::path::PathBuf>,
    timezone: Option<&str>,
) -> PyResult<arrow::ArrowTable> {
    let which = arrow::Which::parse(table)?;
    let opts = read_options(format, max_line, true)?;
    let costing = report::costing(pricing.as_deref(), timezone)?;
    let inputs = Inputs::of(source, name)?;
    arrow::to_arrow(py, &inputs, which, raw, &opts, jobs, costing)
}

/// The inputs a path names, as `cctape` finds them: a file as it is, a
/// directory walked recursively in name order for stream files (`*.jsonl`,
/// `*.ndjson`, `*.json`, `*.log` and their `.gz`/`.zst` forms). Entries passed
/// over are warned about; directories that cannot be read raise `OSError`.
/// `glob` and `iglob` are the command's `--glob` and `--iglob` (ripgrep's).
#[pyfunction]
#[pyo3(signature = (path, *, follow_links=false, glob=Vec::new(), iglob=Vec::new()))]
fn walk(
    py: Python<'_>,
    path: std::path::PathBuf,
    follow_links: bool,
    glob: Vec<String>,
    iglob: Vec<String>,
) -> PyResult<Vec<String>> {
    if !path.is_dir() {
        return Ok(vec![path.display().to_string()]);
    }
    let mut globs = cctape::inputs::Globs::default();
    for (list, ci) in [(&glob, false), (&iglob, true)] {
        for g in list {
            globs
                .add(g, ci)
                .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        }
    }
    let mut w = cctape::inputs::Walk {
        globs,
        ..Default::default()
    };
    py.detach(|| w.dir(&path, follow_links));
    sources::warn_skipped(py, &w.skipped)?;
    if let Some((p, e)) = w.errors.into_iter().next() {
        return Err(pyo3::exceptions::PyOSError::new_err(format!(
            "{}: {e}",
            p.display()
        )));
    }
    Ok(w.files.iter().map(|p| p.display().to_string()).collect())
}

/// The inputs `source` names, grouped into units that can be read apart
/// (by separate processes, on separate machines) and give together what
/// one reading of them all gives: a session transcript's files by project,
/// every other input alone. The partitions of the Spark data source.
#[pyfunction]
#[pyo3(signature = (source, *, format="auto", jobs=0))]
fn units(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: &str,
    jobs: usize,
) -> PyResult<Vec<Vec<String>>> {
    let opts = read_options(format, None, true)?;
    let inputs = Inputs::of(source, None)?;
    sources::units(py, &inputs, &opts, jobs_or_cores(jobs))
}

#[pymodule]
fn _cctape(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(verdict, m)?)?;
    m.add_function(wrap_pyfunction!(to_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(walk, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(units, m)?)?;
    m.add_class::<items::Event>()?;
    m.add_class::<items::LineError>()?;
    m.add_class::<reader::Reader>()?;
    m.add_class::<decoder::Decoder>()?;
    m.add_class::<tail::Tail>()?;
    m.add_class::<arrow::ArrowTable>()?;
    m.add("ReadError", m.py().get_type::<errors::ReadError>())?;
    m.add("InputError", errors::input_error_type(m.py())?)?;
    m.add("SCHEMA_VERSION", cctape::export::SCHEMA_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
