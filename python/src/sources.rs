//! What the Python functions accept as input: a path (a file, or a
//! directory walked as the command walks it), bytes, a binary file object,
//! or a list of these; and how each is opened and read (the library's
//! `cctape::inputs`, so that every input is read as `cctape` reads it).
//!
//! A path that cannot be opened raises the `OSError` Python's `open`
//! raises (`FileNotFoundError`, `PermissionError`, ...) when the call is
//! made, and so does a directory that cannot be walked; a file found in a
//! walk that cannot be opened when its turn comes raises then
//! ([`unopened`]).

use crate::errors::Failure;
use cctape::inputs::{InputEnd, Item, ReadOptions, Walk, read_path, read_source, stream_source};
use cctape::sniff::FormatChoice;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

/// Where one input's bytes come from.
pub enum Src {
    Path(PathBuf),
    Bytes(Arc<[u8]>),
    /// A Python binary file object (read with the GIL, on a worker thread).
    File(Py<PyAny>),
}

/// One input and its name in every output.
pub struct Input {
    pub name: String,
    pub src: Src,
}

/// The inputs of one call, in order.
pub struct Inputs {
    pub list: Vec<Input>,
    pub names: Arc<Vec<String>>,
}

/// The reading options of every function: `format` and `max_line`, and
/// whether large settled files are mapped as the command maps them
/// ([`ReadOptions::map`]; a file truncated under the map is an error with
/// its position, never SIGBUS, and the handler passes every other fault on
/// to the one before it, Python's `faulthandler` included).
///
/// `map` is for the functions that fold every byte before they return
/// (`verdict`, `runs`, `stats`, `to_arrow`, `units`): each mapped chunk is
/// folded only after the file was found still to hold it, and nothing
/// reads it after. `read` hands out events that read their bytes later,
/// from their batch, and over a map a file truncated after its batch was
/// vouched for would give them zeroed bytes (the mapped version failed
/// `test_a_large_settled_file_truncated_while_read_is_told` about three
/// times in eight), so it reads.
pub fn read_options(format: &str, max_line: Option<usize>, map: bool) -> PyResult<ReadOptions> {
    let format = FormatChoice::from_name(format).ok_or_else(|| {
        PyValueError::new_err(format!(
            "format must be 'auto', 'stream', 'json' or 'transcript', not {format:?}"
        ))
    })?;
    let mut o = ReadOptions {
        format,
        map,
        ..ReadOptions::default()
    };
    if let Some(m) = max_line {
        o.max_line = m.max(1);
    }
    Ok(o)
}

/// The name of a file object: its `name` when it is a string, else
/// `<stream>`.
fn file_name(obj: &Bound<'_, PyAny>) -> String {
    obj.getattr("name")
        .ok()
        .and_then(|n| n.extract::<String>().ok())
        .unwrap_or_else(|| "<stream>".to_string())
}

fn add(obj: &Bound<'_, PyAny>, name: Option<&str>, out: &mut Vec<Input>) -> PyResult<()> {
    let py = obj.py();
    if let Ok(b) = obj.cast::<PyBytes>() {
        out.push(Input {
            name: name.unwrap_or("<bytes>").to_string(),
            src: Src::Bytes(Arc::from(b.as_bytes())),
        });
        return Ok(());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        out.push(Input {
            name: name.unwrap_or("<bytes>").to_string(),
            src: Src::Bytes(Arc::from(b.to_vec())),
        });
        return Ok(());
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        for x in obj.try_iter()? {
            add(&x?, name, out)?;
        }
        return Ok(());
    }
    if obj.hasattr("read")? && !obj.is_instance_of::<PyString>() {
        out.push(Input {
            name: name.map_or_else(|| file_name(obj), str::to_string),
            src: Src::File(obj.clone().unbind()),
        });
        return Ok(());
    }
    let memoryview = py.import("builtins")?.getattr("memoryview")?;
    if obj.is_instance(&memoryview)? {
        let b: Vec<u8> = obj.call_method0("tobytes")?.extract()?;
        out.push(Input {
            name: name.unwrap_or("<bytes>").to_string(),
            src: Src::Bytes(Arc::from(b)),
        });
        return Ok(());
    }
    let path: PathBuf = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a path, bytes, a binary file object or a list of them, not {}",
            obj.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    if path.as_os_str() == "-" {
        let stdin = py.import("sys")?.getattr("stdin")?.getattr("buffer")?;
        out.push(Input {
            name: name.unwrap_or("-").to_string(),
            src: Src::File(stdin.unbind()),
        });
    } else if path.is_dir() {
        let mut walk = Walk::default();
        py.detach(|| walk.dir(&path, false));
        warn_skipped(py, &walk.skipped)?;
        if let Some((p, e)) = walk.errors.first() {
            return Err(Failure::of_io(&p.display().to_string(), e).os_error(py));
        }
        out.extend(walk.files.into_iter().map(|p| Input {
            name: p.display().to_string(),
            src: Src::Path(p),
        }));
    } else {
        let name = name.map_or_else(|| path.display().to_string(), str::to_string);
        if let Err(e) = openable(&path) {
            return Err(Failure::of_io(&name, &e).os_error(py));
        }
        out.push(Input {
            name,
            src: Src::Path(path),
        });
    }
    Ok(())
}

/// Whether `path` can be opened, told without waiting: a path that is
/// missing (or whose folder is) fails its `stat`, and a regular file is
/// opened and closed at once; a FIFO or a device, whose open may wait for
/// a writer, is left to the reader (which raises when it fails).
fn openable(path: &std::path::Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        std::fs::File::open(path)?;
    }
    Ok(())
}

/// The failure of an input that could not be opened when its turn came
/// (the reader handed out no item for it), or None.
pub fn unopened(input: &Input, end: &InputEnd) -> Option<Failure> {
    match (&end.failure, end.unreadable) {
        (Some(e), true) => Some(Failure::of(&input.name, e)),
        _ => None,
    }
}

/// A `UserWarning` for each entry a walk passed over (never in silence).
pub fn warn_skipped(py: Python<'_>, skipped: &[(PathBuf, String)]) -> PyResult<()> {
    for (p, why) in skipped {
        let msg = format!("cctape: {}: {why}", cctape::inputs::shown_path(p));
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(py, &category, &std::ffi::CString::new(msg)?, 1)?;
    }
    Ok(())
}

impl Inputs {
    /// The inputs named by `source` (see the module's doc); `name`
    /// overrides the name of a single bytes or file-object input.
    pub fn of(source: &Bound<'_, PyAny>, name: Option<&str>) -> PyResult<Inputs> {
        let mut list = Vec::new();
        add(source, name, &mut list)?;
        let names = Arc::new(list.iter().map(|i| i.name.clone()).collect());
        Ok(Inputs { list, names })
    }
}

/// A Python file object as a reader: `read1` when it has one (a buffered
/// stream hands out what it has instead of waiting to fill the request),
/// else `read`; text chunks are encoded as UTF-8.
pub struct PyRead {
    obj: Py<PyAny>,
    method: &'static str,
    pending: Vec<u8>,
    at: usize,
}

impl PyRead {
    pub fn new(obj: Py<PyAny>) -> PyRead {
        let method = Python::attach(|py| {
            if obj.bind(py).hasattr("read1").unwrap_or(false) {
                "read1"
            } else {
                "read"
            }
        });
        PyRead {
            obj,
            method,
            pending: Vec::new(),
            at: 0,
        }
    }
}

impl Read for PyRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.pending.len() {
            let want = buf.len().max(1);
            let chunk = Python::attach(|py| -> PyResult<Option<Vec<u8>>> {
                let r = self.obj.bind(py).call_method1(self.method, (want,))?;
                if r.is_none() {
                    // A non-blocking stream with nothing yet: nothing read.
                    return Ok(Some(Vec::new()));
                }
                if let Ok(s) = r.cast::<PyString>() {
                    return Ok(Some(s.to_cow()?.as_bytes().to_vec()));
                }
                Ok(Some(r.extract::<Vec<u8>>()?))
            })
            .map_err(|e| io::Error::other(e.to_string()))?;
            self.pending = chunk.unwrap_or_default();
            self.at = 0;
            if self.pending.is_empty() {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Read one input whole with the library's reader, handing every item to
/// `f` (which may stop it).
pub fn read_input(
    input: &Input,
    opts: &ReadOptions,
    f: impl FnMut(Item<'_, '_>) -> ControlFlow<()>,
) -> InputEnd {
    let opened = match &input.src {
        Src::Path(p) => return read_path(p, opts, f),
        Src::Bytes(b) => stream_source(io::Cursor::new(Arc::clone(b))),
        Src::File(obj) => {
            let obj = Python::attach(|py| obj.clone_ref(py));
            stream_source(PyRead::new(obj))
        }
    };
    match opened {
        Ok(src) => read_source(src, opts, f),
        Err(e) => InputEnd {
            counts: cctape::stream::Counts {
                errors: 1,
                ..Default::default()
            },
            failure: Some(cctape::error::Error::open(e)),
            unreadable: true,
            ..InputEnd::default()
        },
    }
}

/// The inputs grouped into units that can be read apart and give, put
/// together, what reading them all at once gives: a session transcript's
/// files by project (the fold joins a session's files, its subagents'
/// among them, by the project and session their paths name:
/// `TranscriptFile`), every other input alone (a stream's run never spans
/// inputs). Each input is read up to its first item to tell its format.
/// Units in the order of their first input.
pub fn units(
    py: Python<'_>,
    inputs: &Inputs,
    opts: &ReadOptions,
    jobs: usize,
) -> PyResult<Vec<Vec<String>>> {
    use cctape::sniff::Format;
    use cctape::transcript::TranscriptFile;
    let projects = crate::report::map_inputs(py, inputs, jobs, |_, input| {
        let end = read_input(input, opts, |_| ControlFlow::Break(()));
        match (&input.src, end.format) {
            (Src::Path(p), Some(Format::Transcript)) => TranscriptFile::from_path(p).project,
            _ => None,
        }
    })?;
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut by_project: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (input, project) in inputs.list.iter().zip(projects) {
        match project {
            Some(p) => {
                let at = *by_project.entry(p).or_insert_with(|| {
                    out.push(Vec::new());
                    out.len() - 1
                });
                out[at].push(input.name.clone());
            }
            None => out.push(vec![input.name.clone()]),
        }
    }
    Ok(out)
}
