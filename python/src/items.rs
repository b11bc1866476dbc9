//! What `read`, `follow` and `Decoder.feed` hand out: events, read lazily
//! from their line's bytes, and bad lines as error objects with their
//! positions.
//!
//! Rust reads lines into a [`Batch`] (the lines' bytes end to end, each
//! event's hot fields decoded once) with the GIL released; a Python
//! [`Event`] is a reference to one record of a shared batch, so handing it
//! out copies nothing. Any other field is read on demand through the
//! line's structural index, kept in the batch when the line was scanned
//! (`json::IndexedLines`): the line is not scanned again. An event made
//! from bytes in Python (`Event(raw)`, unpickling) has no index kept and
//! is scanned again for each field.

use crate::json::value_to_py;
use cctape::error::Error;
use cctape::event::{Event as RsEvent, EventKind, parse_event};
use cctape::framing::Line;
use cctape::json::Scanned;
use cctape::json::{IndexedLines, Scanner};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyType};
use std::cell::RefCell;
use std::ops::Range;
use std::sync::{Arc, Mutex, TryLockError};

/// One thing read: an event or a bad line.
#[derive(Debug)]
pub struct Rec {
    /// Index of the input in the batch's names.
    pub input: u32,
    pub line: u64,
    pub offset: u64,
    /// The line's (or element's) bytes in [`Batch::buf`] (empty when not
    /// kept: a line past the maximum, an I/O error).
    pub raw: Range<usize>,
    pub what: What,
}

/// An event's hot fields (ranges in [`Batch::strs`]), or an error.
#[derive(Debug)]
pub enum What {
    Event {
        kind: EventKind,
        /// `type/subtype` as `cctape stats` names kinds.
        name: Range<usize>,
        ty: Range<usize>,
        subtype: Option<Range<usize>>,
        session_id: Option<Range<usize>>,
        /// The line's place in [`Batch::index`], when its index was kept.
        slot: Option<usize>,
    },
    Error(Box<ErrRec>),
}

/// A bad line, or why an input ended.
#[derive(Debug, Clone)]
pub struct ErrRec {
    pub kind: &'static str,
    pub message: String,
    pub column: Option<u64>,
    pub element: Option<u64>,
    pub fatal: bool,
    pub raw_kept: bool,
    /// The input could not be opened (no item came before it): reading it
    /// raises its `OSError`.
    pub unopened: bool,
    /// An I/O error's number, when the system gave one.
    pub errno: Option<i32>,
}

impl ErrRec {
    pub fn of(e: &Error) -> ErrRec {
        let p = e.position();
        let message = match e.io_error() {
            Some(io) => format!("{}: {io}", e.reason()),
            None => e.reason().to_string(),
        };
        ErrRec {
            kind: e.kind().name(),
            message,
            column: p.column,
            element: p.element,
            fatal: e.is_fatal(),
            raw_kept: false,
            unopened: false,
            errno: e.io_error().and_then(std::io::Error::raw_os_error),
        }
    }

    /// Why input `file` failed, as the exceptions take it.
    pub fn failure(&self, file: &str) -> crate::errors::Failure {
        crate::errors::Failure {
            file: file.to_string(),
            errno: self.errno,
            message: self.message.clone(),
        }
    }
}

/// An event's hot fields, as read.
pub struct Hot<'a> {
    pub kind: EventKind,
    pub ty: &'a str,
    pub subtype: Option<&'a str>,
    pub session_id: Option<&'a str>,
}

/// Records read together, with the bytes they point into.
#[derive(Debug, Default)]
pub struct Batch {
    /// The inputs' names (shared by every batch of one reading).
    pub names: Arc<Vec<String>>,
    pub buf: Vec<u8>,
    pub strs: String,
    pub recs: Vec<Rec>,
    /// The structural indexes of the events' lines (read through a lock:
    /// its arena of unescaped strings is not shared between threads).
    pub index: Mutex<IndexedLines>,
}

/// A batch is handed on once it holds this many records...
pub const BATCH_RECORDS: usize = 1024;
/// ... or this many bytes of lines.
pub const BATCH_BYTES: usize = 1 << 20;

impl Batch {
    /// An empty batch that grows as needed (a live reader's, which holds
    /// what one chunk completes).
    pub fn new(names: Arc<Vec<String>>) -> Batch {
        Batch {
            names,
            ..Batch::default()
        }
    }

    /// An empty batch whose line buffer is made once at its full size
    /// ([`BATCH_BYTES`]), for a reader that hands it on before a line would
    /// make it grow ([`fits`](Batch::fits)): lines are copied once, never
    /// moved again by a reallocation.
    pub fn sized(names: Arc<Vec<String>>) -> Batch {
        Batch {
            names,
            buf: Vec::with_capacity(BATCH_BYTES),
            strs: String::new(),
            recs: Vec::with_capacity(BATCH_RECORDS),
            index: Mutex::default(),
        }
    }

    pub fn is_full(&self) -> bool {
        self.recs.len() >= BATCH_RECORDS || self.buf.len() >= BATCH_BYTES
    }

    /// True when a line of `len` bytes goes in without growing the line
    /// buffer, or the batch is empty (a longer line then has a batch of
    /// its own).
    pub fn fits(&self, len: usize) -> bool {
        self.recs.is_empty() || self.buf.len() + len <= self.buf.capacity()
    }

    fn put_str(&mut self, s: &str) -> Range<usize> {
        let start = self.strs.len();
        self.strs.push_str(s);
        start..self.strs.len()
    }

    fn put_raw(&mut self, b: &[u8]) -> Range<usize> {
        let start = self.buf.len();
        self.buf.extend_from_slice(b);
        start..self.buf.len()
    }

    /// Add an event of input `input`.
    pub fn push_event(&mut self, input: u32, ev: &RsEvent<'_>) {
        let hot = Hot {
            kind: ev.kind(),
            ty: ev.raw_type(),
            subtype: ev.raw_subtype(),
            session_id: ev.session_id(),
        };
        let slot = self.keep_index(&ev.root(), ev.raw());
        self.push_fields(input, ev.line(), ev.offset(), ev.raw(), hot, slot);
    }

    /// Keep the index of a line's root read from `line`, for its fields
    /// read later ([`Event`]'s properties).
    fn keep_index(&mut self, root: &cctape::json::Value<'_>, line: &[u8]) -> Option<usize> {
        let index = self.index.get_mut().unwrap_or_else(|e| e.into_inner());
        index.push_root(root, line)
    }

    /// Add an event read by the scanner, of input `input`.
    pub fn push_scanned(&mut self, input: u32, sc: &Scanned<'_>) {
        let kind = sc.kind();
        let ty = self.put_str(sc.raw_type());
        let subtype = sc.raw_subtype().map(|s| self.put_str(s));
        let name = self.kind_name(kind, &ty, &subtype);
        let session_id = sc.event().session_id().map(|s| self.put_str(s));
        let raw = self.put_raw(sc.raw());
        let slot = self.keep_index(&sc.value(), sc.raw());
        let p = sc.position();
        self.recs.push(Rec {
            input,
            line: p.line,
            offset: p.offset,
            raw,
            what: What::Event {
                kind,
                name,
                ty,
                subtype,
                session_id,
                slot,
            },
        });
    }

    /// Add an event from its hot fields and its bytes (an event read, one
    /// made again from its pickled state, or from a line given to
    /// `Event(...)`).
    /// `slot`: where the line's index was kept, if it was.
    pub fn push_fields(
        &mut self,
        input: u32,
        line: u64,
        offset: u64,
        raw: &[u8],
        hot: Hot<'_>,
        slot: Option<usize>,
    ) {
        let ty = self.put_str(hot.ty);
        let subtype = hot.subtype.map(|s| self.put_str(s));
        let name = self.kind_name(hot.kind, &ty, &subtype);
        let session_id = hot.session_id.map(|s| self.put_str(s));
        let raw = self.put_raw(raw);
        self.recs.push(Rec {
            input,
            line,
            offset,
            raw,
            what: What::Event {
                kind: hot.kind,
                name,
                ty,
                subtype,
                session_id,
                slot,
            },
        });
    }

    /// `type/subtype` as `cctape stats` names the kind.
    fn kind_name(
        &mut self,
        kind: EventKind,
        ty: &Range<usize>,
        subtype: &Option<Range<usize>>,
    ) -> Range<usize> {
        match kind.name() {
            Some(n) => self.put_str(n),
            None => match subtype {
                Some(sub) => {
                    let start = self.strs.len();
                    let joined = format!("{}/{}", &self.strs[ty.clone()], &self.strs[sub.clone()]);
                    self.strs.push_str(&joined);
                    start..self.strs.len()
                }
                None => ty.clone(),
            },
        }
    }

    /// Add a bad line (with its bytes when kept) or a final error of input
    /// `input`.
    pub fn push_error(&mut self, input: u32, e: &Error, bytes: Option<&[u8]>) {
        self.push_error_rec(input, e, bytes, false);
    }

    /// Add the error of an input that could not be opened.
    pub fn push_unopened(&mut self, input: u32, e: &Error) {
        self.push_error_rec(input, e, None, true);
    }

    fn push_error_rec(&mut self, input: u32, e: &Error, bytes: Option<&[u8]>, unopened: bool) {
        let p = e.position();
        let mut rec = ErrRec::of(e);
        rec.raw_kept = bytes.is_some();
        rec.unopened = unopened;
        let raw = match bytes {
            Some(b) => self.put_raw(b),
            None => self.buf.len()..self.buf.len(),
        };
        self.recs.push(Rec {
            input,
            line: p.line,
            offset: p.offset,
            raw,
            what: What::Error(Box::new(rec)),
        });
    }
}

/// Python strings of the hot fields, made once and handed to every event
/// that has the same value: a stream has a few types and kinds and runs of
/// one `session_id`, so an event's getters return a shared object (no
/// string built per event, its hash kept for `set`s and `dict`s).
#[derive(Default)]
pub struct HotStrings {
    /// `type` and kind names seen (few: a linear search is cheapest).
    names: Vec<(Box<str>, Py<PyString>)>,
    /// The last `session_id`.
    session: Option<(Box<str>, Py<PyString>)>,
}

/// How many distinct type and kind names are kept.
const NAMES_KEPT: usize = 64;

impl HotStrings {
    fn name(&mut self, py: Python<'_>, s: &str) -> Py<PyString> {
        if let Some((_, o)) = self.names.iter().find(|(k, _)| &**k == s) {
            return o.clone_ref(py);
        }
        let o = PyString::new(py, s).unbind();
        if self.names.len() < NAMES_KEPT {
            self.names.push((s.into(), o.clone_ref(py)));
        }
        o
    }

    fn session(&mut self, py: Python<'_>, s: &str) -> Py<PyString> {
        match &self.session {
            Some((k, o)) if &**k == s => o.clone_ref(py),
            _ => {
                let o = PyString::new(py, s).unbind();
                self.session = Some((s.into(), o.clone_ref(py)));
                o
            }
        }
    }
}

/// The Python object for record `i` of `batch`.
pub fn item_object(
    py: Python<'_>,
    batch: &Arc<Batch>,
    i: usize,
    hot: &mut HotStrings,
) -> PyResult<Py<PyAny>> {
    let rec = &batch.recs[i];
    match &rec.what {
        What::Event { .. } => Ok(Py::new(py, event_at(py, batch, i, hot))?.into_any()),
        What::Error(e) => Ok(Py::new(py, LineError::of(batch, rec, e))?.into_any()),
    }
}

/// The event of record `i` of `batch` (an event record).
fn event_at(py: Python<'_>, batch: &Arc<Batch>, i: usize, hot: &mut HotStrings) -> Event {
    let strs = &batch.strs;
    let (ty, kind, session_id) = match &batch.recs[i].what {
        What::Event {
            name,
            ty,
            session_id,
            ..
        } => (
            &strs[ty.clone()],
            &strs[name.clone()],
            session_id.clone().map(|r| &strs[r]),
        ),
        What::Error(_) => ("", "", None),
    };
    Event {
        ty: hot.name(py, ty),
        kind: hot.name(py, kind),
        session_id: session_id.map(|s| hot.session(py, s)),
        batch: Arc::clone(batch),
        i,
    }
}

thread_local! {
    /// A parser per thread for reading events' fields on demand.
    static PARSER: RefCell<Scanner> = RefCell::new(Scanner::new());
}

/// An event: one JSON object with a `type`, read from an input.
///
/// The hot fields (`type`, `subtype`, `kind`, `session_id`, `line`,
/// `offset`, `file`) are decoded once when the line is read; any other field
/// is read on demand: `ev["message.usage.output_tokens"]` (a dotted path,
/// array indexes as numbers), `ev.get(path, default)`, `ev.json()` for the
/// whole object as a dict, `ev.raw` for the line's bytes.
#[pyclass(module = "cctape", frozen)]
pub struct Event {
    batch: Arc<Batch>,
    i: usize,
    /// `type`, kind and `session_id` as Python strings ([`HotStrings`]).
    ty: Py<PyString>,
    kind: Py<PyString>,
    session_id: Option<Py<PyString>>,
}

impl Event {
    fn rec(&self) -> &Rec {
        &self.batch.recs[self.i]
    }

    fn raw_bytes(&self) -> &[u8] {
        &self.batch.buf[self.rec().raw.clone()]
    }

    fn hot(&self) -> (&str, Option<&str>, &str, Option<&str>) {
        let strs = &self.batch.strs;
        match &self.rec().what {
            What::Event {
                name,
                ty,
                subtype,
                session_id,
                ..
            } => (
                &strs[ty.clone()],
                subtype.clone().map(|r| &strs[r]),
                &strs[name.clone()],
                session_id.clone().map(|r| &strs[r]),
            ),
            What::Error(_) => ("", None, "", None),
        }
    }

    /// Look at the line's event: through the index kept in the batch, or,
    /// for an event with none (made from bytes in Python) or a batch being
    /// read already on this thread (a field read from a finalizer during
    /// another), by scanning the line again.
    fn with_event<R>(&self, f: impl FnOnce(&RsEvent<'_>) -> R) -> PyResult<R> {
        let rec = self.rec();
        let line = Line {
            bytes: self.raw_bytes(),
            number: rec.line,
            offset: rec.offset,
            terminated: true,
        };
        if let What::Event {
            kind,
            slot: Some(i),
            ..
        } = &rec.what
        {
            let held = match self.batch.index.try_lock() {
                Ok(g) => Some(g),
                Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            };
            if let Some(mut index) = held {
                let r = f(&RsEvent::in_batch(&index, *i, line, *kind));
                // The strings unescaped for this read are not kept.
                index.forget_strings();
                return Ok(r);
            }
        }
        PARSER.with(|p| {
            let mut parser = p.borrow_mut();
            match parse_event(&mut parser, &line) {
                Ok(ev) => Ok(f(&ev)),
                Err(e) => Err(PyValueError::new_err(format!(
                    "line {}: {}: {}",
                    rec.line,
                    e.kind().name(),
                    e.reason()
                ))),
            }
        })
    }

    fn path_value(&self, py: Python<'_>, path: &str) -> PyResult<Option<Py<PyAny>>> {
        self.with_event(|ev| {
            ev.get_path(path)
                .map(|v| value_to_py(py, &v).map(Bound::unbind))
                .transpose()
        })?
    }
}

/// An event's hot fields as pickled: `type`, `subtype`, `session_id`.
type HotState = (String, Option<String>, Option<String>);

/// What `Event.__reduce__` gives: the class and its constructor's
/// arguments.
type EventReduce<'py> = (
    Bound<'py, PyType>,
    (Bound<'py, PyBytes>, String, u64, u64, HotState),
);

#[pymethods]
impl Event {
    /// An event from a line's bytes (`raw`), named as read from `file` at
    /// `line` and byte `offset`; `ValueError` when the bytes are not one
    /// event. (`_hot` is the pickled state: the hot fields as read.)
    #[new]
    #[pyo3(signature = (raw, file="<bytes>", line=1, offset=0, _hot=None))]
    fn new(
        py: Python<'_>,
        raw: &[u8],
        file: &str,
        line: u64,
        offset: u64,
        _hot: Option<HotState>,
    ) -> PyResult<Event> {
        let mut batch = Batch::new(Arc::new(vec![file.to_string()]));
        match _hot {
            Some((ty, subtype, sid)) => {
                let hot = Hot {
                    kind: EventKind::from_type(&ty, subtype.as_deref()),
                    ty: &ty,
                    subtype: subtype.as_deref(),
                    session_id: sid.as_deref(),
                };
                batch.push_fields(0, line, offset, raw, hot, None);
            }
            None => {
                let l = Line {
                    bytes: raw,
                    number: line,
                    offset,
                    terminated: true,
                };
                let mut parser = Scanner::new();
                let ev = parse_event(&mut parser, &l).map_err(|e| {
                    PyValueError::new_err(format!(
                        "not an event: {}: {}",
                        e.kind().name(),
                        e.reason()
                    ))
                })?;
                let hot = Hot {
                    kind: ev.kind(),
                    ty: ev.raw_type(),
                    subtype: ev.raw_subtype(),
                    session_id: ev.session_id(),
                };
                batch.push_fields(0, line, offset, raw, hot, None);
            }
        }
        Ok(event_at(
            py,
            &Arc::new(batch),
            0,
            &mut HotStrings::default(),
        ))
    }

    /// Pickling: the line's bytes, where it was read, and its hot fields
    /// as read (so that every property comes back the same, in another
    /// process too).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<EventReduce<'py>> {
        let me = slf.get();
        let py = slf.py();
        let (ty, subtype, _, sid) = me.hot();
        let state = (
            ty.to_string(),
            subtype.map(str::to_string),
            sid.map(str::to_string),
        );
        let rec = me.rec();
        Ok((
            slf.get_type(),
            (
                me.raw(py),
                me.file().to_string(),
                rec.line,
                rec.offset,
                state,
            ),
        ))
    }

    /// `type`, as written.
    #[getter(r#type)]
    fn type_(&self, py: Python<'_>) -> Py<PyString> {
        self.ty.clone_ref(py)
    }

    /// `subtype`, when it is a string.
    #[getter]
    fn subtype(&self) -> Option<&str> {
        self.hot().1
    }

    /// `type/subtype` for system and result events (and unknown types
    /// with a subtype), `type` otherwise: the keys of `cctape stats`
    /// `by_type`.
    #[getter]
    fn kind(&self, py: Python<'_>) -> Py<PyString> {
        self.kind.clone_ref(py)
    }

    /// `session_id` (None when absent).
    #[getter]
    fn session_id(&self, py: Python<'_>) -> Option<Py<PyString>> {
        self.session_id.as_ref().map(|s| s.clone_ref(py))
    }

    /// The 1-based line number in the input (the first line of a JSON
    /// element).
    #[getter]
    fn line(&self) -> u64 {
        self.rec().line
    }

    /// The byte offset of the line's (or element's) first byte.
    #[getter]
    fn offset(&self) -> u64 {
        self.rec().offset
    }

    /// The input's name (a path as given or found in a directory).
    #[getter]
    fn file(&self) -> &str {
        self.batch
            .names
            .get(self.rec().input as usize)
            .map_or("", String::as_str)
    }

    /// The line's bytes, unchanged.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.raw_bytes())
    }

    /// Always True (a bad line is a `LineError`, whose `ok` is False): a
    /// class attribute, read without a call.
    #[classattr]
    fn ok() -> bool {
        true
    }

    /// The whole object as Python values (dict, list, str, int, float,
    /// bool, None). A duplicate key keeps its first value, as cctape reads
    /// it; numbers of any size are ints.
    fn json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with_event(|ev| value_to_py(py, &ev.root()).map(Bound::unbind))?
    }

    /// The value at a dotted path (`"message.usage.output_tokens"`,
    /// `"message.content.0.type"`), or `default` when it is absent.
    #[pyo3(signature = (path, default=None))]
    fn get(&self, py: Python<'_>, path: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        Ok(match self.path_value(py, path)? {
            Some(v) => v,
            None => default.unwrap_or_else(|| py.None()),
        })
    }

    fn __getitem__(&self, py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
        self.path_value(py, path)?
            .ok_or_else(|| PyKeyError::new_err(path.to_string()))
    }

    fn __contains__(&self, path: &str) -> PyResult<bool> {
        self.with_event(|ev| ev.get_path(path).is_some())
    }

    /// `uuid`.
    #[getter]
    fn uuid(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.uuid().map(str::to_string))
    }

    /// `parent_tool_use_id` (None for the main agent's events).
    #[getter]
    fn parent_tool_use_id(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.parent_tool_use_id().value().map(str::to_string))
    }

    /// `timestamp`, as written.
    #[getter]
    fn timestamp(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.timestamp().map(str::to_string))
    }

    /// `message.model` (assistant events).
    #[getter]
    fn model(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.model().map(str::to_string))
    }

    /// `message.id` (assistant events).
    #[getter]
    fn message_id(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.message_id().map(str::to_string))
    }

    /// `message.usage` (or a result's `usage`) as the four counts:
    /// `input_tokens`, `output_tokens`, `cache_read_input_tokens`,
    /// `cache_creation_input_tokens`.
    #[getter]
    fn usage<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let u = self.with_event(|ev| ev.usage())?;
        u.map(|t| {
            let d = PyDict::new(py);
            d.set_item("input_tokens", t.input_tokens)?;
            d.set_item("output_tokens", t.output_tokens)?;
            d.set_item("cache_read_input_tokens", t.cache_read_input_tokens)?;
            d.set_item("cache_creation_input_tokens", t.cache_creation_input_tokens)?;
            Ok(d)
        })
        .transpose()
    }

    /// A result's `total_cost_usd`.
    #[getter]
    fn total_cost_usd(&self) -> PyResult<Option<f64>> {
        self.with_event(|ev| ev.total_cost_usd())
    }

    /// A result's `is_error`.
    #[getter]
    fn is_error(&self) -> PyResult<Option<bool>> {
        self.with_event(|ev| ev.is_error())
    }

    /// A result's `num_turns`.
    #[getter]
    fn num_turns(&self) -> PyResult<Option<u64>> {
        self.with_event(|ev| ev.num_turns())
    }

    /// A result's `duration_ms`.
    #[getter]
    fn duration_ms(&self) -> PyResult<Option<u64>> {
        self.with_event(|ev| ev.duration_ms())
    }

    /// The first content block's `type` (`text`, `tool_use`, ...).
    #[getter]
    fn content_type(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.content_block_type().map(str::to_string))
    }

    /// A `tool_use` block's `name`.
    #[getter]
    fn tool_name(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| ev.tool_name().map(str::to_string))
    }

    /// A `tool_use` block's `id`, or the `tool_use_id` a `tool_result`
    /// answers.
    #[getter]
    fn tool_use_id(&self) -> PyResult<Option<String>> {
        self.with_event(|ev| {
            ev.tool_use_id()
                .or_else(|| ev.tool_result_id())
                .map(str::to_string)
        })
    }

    fn __repr__(&self) -> String {
        let (_, _, kind, sid) = self.hot();
        format!(
            "Event(kind={kind:?}, session_id={}, file={:?}, line={})",
            sid.map_or("None".to_string(), |s| format!("{s:?}")),
            self.file(),
            self.rec().line
        )
    }
}

/// A line that is not an event (not JSON, not an object, no `type`, cut
/// short, too long ...), or why an input broke off (`kind == "io"`):
/// where it is and what was expected. Reading goes on after it (after an
/// `io` error, with the next input).
#[pyclass(module = "cctape", frozen, get_all)]
pub struct LineError {
    /// The input's name.
    pub file: String,
    /// 1-based line number (0 for an input that could not be opened).
    pub line: u64,
    /// Byte offset of the line's start.
    pub offset: u64,
    /// Byte within the line where reading stopped, when known.
    pub column: Option<u64>,
    /// For JSON arrays: the 0-based index of the element.
    pub element: Option<u64>,
    /// `invalid_json`, `invalid_utf8`, `not_an_object`, `missing_type`,
    /// `duplicate_key`, `too_deep`, `line_too_long`, `truncated`, `io`.
    pub kind: String,
    /// What was expected or found.
    pub message: String,
    /// The bad line's bytes (None for a line past the maximum, or `io`).
    pub raw: Option<Py<PyBytes>>,
}

impl LineError {
    pub fn of(batch: &Batch, rec: &Rec, e: &ErrRec) -> LineError {
        let raw = e
            .raw_kept
            .then(|| Python::attach(|py| PyBytes::new(py, &batch.buf[rec.raw.clone()]).unbind()));
        LineError {
            file: batch
                .names
                .get(rec.input as usize)
                .cloned()
                .unwrap_or_default(),
            line: rec.line,
            offset: rec.offset,
            column: e.column,
            element: e.element,
            kind: e.kind.to_string(),
            message: e.message.clone(),
            raw,
        }
    }

    /// The error object of a library error of input `file` (its bytes not
    /// kept).
    pub fn of_error(file: &str, e: &Error) -> LineError {
        let p = e.position();
        let r = ErrRec::of(e);
        LineError {
            file: file.to_string(),
            line: p.line,
            offset: p.offset,
            column: r.column,
            element: r.element,
            kind: r.kind.to_string(),
            message: r.message,
            raw: None,
        }
    }

    /// As the command line says a bad line, with the library's one
    /// formatter (`cctape::error::Described`): `file:line: byte N, column
    /// C: kind: message`.
    pub fn describe(&self) -> String {
        let mut at = cctape::Position::new(self.line, self.offset);
        at.column = self.column;
        at.element = self.element;
        cctape::error::Described {
            input: Some(&self.file),
            position: at,
            kind: &self.kind,
            reason: &self.message,
            io: None,
        }
        .to_string()
    }
}

/// A `LineError`'s fields, in the constructor's order.
type LineErrorState = (
    String,
    u64,
    u64,
    Option<u64>,
    Option<u64>,
    String,
    String,
    Option<Py<PyBytes>>,
);

#[pymethods]
impl LineError {
    /// A bad line's error from its fields (as pickled).
    #[new]
    #[pyo3(signature = (file, line, offset, column, element, kind, message, raw=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        file: String,
        line: u64,
        offset: u64,
        column: Option<u64>,
        element: Option<u64>,
        kind: String,
        message: String,
        raw: Option<Py<PyBytes>>,
    ) -> LineError {
        LineError {
            file,
            line,
            offset,
            column,
            element,
            kind,
            message,
            raw,
        }
    }

    /// Pickling: every field.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, LineErrorState) {
        let me = slf.get();
        let py = slf.py();
        (
            slf.get_type(),
            (
                me.file.clone(),
                me.line,
                me.offset,
                me.column,
                me.element,
                me.kind.clone(),
                me.message.clone(),
                me.raw.as_ref().map(|r| r.clone_ref(py)),
            ),
        )
    }

    /// Always False (events' `ok` is True): a class attribute.
    #[classattr]
    fn ok() -> bool {
        false
    }

    /// True when the input broke off here (`io`).
    #[getter]
    fn fatal(&self) -> bool {
        self.kind == "io"
    }

    /// As `cctape stats --json` lists errors: `file`, `line`, `offset`,
    /// `column`, `kind`, `message`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("file", &self.file)?;
        d.set_item("line", self.line)?;
        d.set_item("offset", self.offset)?;
        d.set_item("column", self.column)?;
        d.set_item("kind", &self.kind)?;
        d.set_item("message", &self.message)?;
        Ok(d)
    }

    fn __str__(&self) -> String {
        self.describe()
    }

    fn __repr__(&self) -> String {
        let column = self.column.map_or("None".to_string(), |c| c.to_string());
        format!(
            "LineError(kind={:?}, file={:?}, line={}, offset={}, column={column}, message={:?})",
            self.kind, self.file, self.line, self.offset, self.message
        )
    }
}
