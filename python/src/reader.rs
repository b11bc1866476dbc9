//! `cctape.read(...)`: an iterator of events and bad lines over inputs read
//! by worker threads, without the GIL, in input order.
//!
//! As the command does: up to `jobs` workers take inputs in order (never
//! more than [`AHEAD`] per worker past the one being handed out); each reads
//! its input into batches and sends them through a bounded channel, so a
//! worker ahead of the consumer waits instead of buffering, and memory is
//! bounded by a few batches per worker whatever the input's size. The
//! consumer (the Python loop) takes the batches of input 0, then 1, ...
//! Dropping the iterator stops the workers at their next batch.

use crate::items::{Batch, HotStrings, item_object};
use crate::sources::{Input, Inputs, read_input};
use cctape::inputs::{Item, ReadOptions};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

create_exception!(
    _cctape,
    ReadError,
    PyException,
    "A bad line or an input that broke off, raised when reading with `errors=\"raise\"`; its `error` attribute is the `LineError`."
);

/// Batches one worker may have waiting for the consumer.
const BATCHES_AHEAD: usize = 4;
/// Inputs each worker may start past the one being handed out.
const AHEAD: usize = 4;

/// What a worker sends for its input.
pub enum Msg {
    Batch(Arc<Batch>),
    /// The input ended: its counts.
    End(cctape::stream::Counts),
}

/// What to do with bad lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// Hand them out as `LineError` objects (the default).
    Yield,
    /// Raise `ReadError` (the iteration ends).
    Raise,
    /// Leave them out (they are still counted).
    Skip,
}

impl OnError {
    pub fn parse(s: &str) -> PyResult<OnError> {
        match s {
            "yield" => Ok(OnError::Yield),
            "raise" => Ok(OnError::Raise),
            "skip" => Ok(OnError::Skip),
            _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "errors must be 'yield', 'raise' or 'skip', not {s:?}"
            ))),
        }
    }
}

/// Shared by the consumer and the workers.
struct Sched {
    /// (next input to start, inputs handed out)
    state: Mutex<(usize, usize)>,
    turn: Condvar,
    ahead: usize,
    n: usize,
    stop: AtomicBool,
}

impl Sched {
    fn take(&self) -> Option<usize> {
        let mut g = self.state.lock().ok()?;
        while g.0 < self.n && g.0 >= g.1 + self.ahead && !self.stop.load(Ordering::Relaxed) {
            g = self.turn.wait(g).ok()?;
        }
        if self.stop.load(Ordering::Relaxed) || g.0 >= self.n {
            return None;
        }
        g.0 += 1;
        Some(g.0 - 1)
    }

    fn handed_out(&self, n: usize) {
        if let Ok(mut g) = self.state.lock() {
            g.1 = n;
        }
        self.turn.notify_all();
    }
}

/// Read input `i` into batches sent through `tx`; stop when the consumer
/// is gone.
fn read_one(
    i: usize,
    input: &Input,
    names: &Arc<Vec<String>>,
    opts: &ReadOptions,
    tx: &SyncSender<Msg>,
) {
    let mut batch = Batch::sized(Arc::clone(names));
    let idx = i as u32;
    let end = read_input(input, opts, |item| {
        // A line that would make the batch's buffer grow starts a new one.
        let len = match &item {
            Item::Scanned(sc) => sc.raw().len(),
            Item::Event(ev) => ev.raw().len(),
            Item::Error { bytes, .. } => bytes.map_or(0, <[u8]>::len),
            _ => 0,
        };
        if !batch.fits(len) {
            let full = std::mem::replace(&mut batch, Batch::sized(Arc::clone(names)));
            if tx.send(Msg::Batch(Arc::new(full))).is_err() {
                return ControlFlow::Break(());
            }
        }
        match item {
            Item::Event(ev) => batch.push_event(idx, ev),
            Item::Scanned(sc) => batch.push_scanned(idx, sc),
            Item::Error { error, bytes } => batch.push_error(idx, error, bytes),
            // An input without events (text, empty) gives no item; its
            // lines are counted. Records are not asked for.
            _ => {}
        }
        if batch.is_full() {
            let full = std::mem::replace(&mut batch, Batch::sized(Arc::clone(names)));
            if tx.send(Msg::Batch(Arc::new(full))).is_err() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    if let (Some(e), true) = (&end.failure, end.unreadable) {
        // The reader handed out nothing for an input it could not open.
        batch.push_error(idx, e, None);
    }
    if !batch.recs.is_empty() && tx.send(Msg::Batch(Arc::new(batch))).is_err() {
        return;
    }
    let _ = tx.send(Msg::End(end.counts));
}

/// The iterator `cctape.read` returns.
#[pyclass(module = "cctape", unsendable)]
pub struct Reader {
    rxs: Vec<Option<Receiver<Msg>>>,
    cur_input: usize,
    cur: Option<Arc<Batch>>,
    idx: usize,
    on_error: OnError,
    sched: Arc<Sched>,
    counts: cctape::stream::Counts,
    /// Inputs finished.
    done: usize,
    hot: HotStrings,
}

impl Reader {
    /// Start the workers. Lines are read by the validating scanner (the hot
    /// fields without a tape; other fields are parsed when asked for).
    pub fn start(inputs: Inputs, mut opts: ReadOptions, jobs: usize, on_error: OnError) -> Reader {
        opts.scan = Some(cctape::scan::ScanMode::Validated);
        let n = inputs.list.len();
        let jobs = jobs.clamp(1, n.max(1));
        let mut txs = Vec::with_capacity(n);
        let mut rxs = Vec::with_capacity(n);
        for _ in 0..n {
            let (tx, rx) = sync_channel(BATCHES_AHEAD);
            txs.push(Some(tx));
            rxs.push(Some(rx));
        }
        let sched = Arc::new(Sched {
            state: Mutex::new((0, 0)),
            turn: Condvar::new(),
            ahead: AHEAD * jobs,
            n,
            stop: AtomicBool::new(false),
        });
        let txs = Arc::new(Mutex::new(txs));
        let inputs = Arc::new(inputs);
        for _ in 0..jobs.min(n) {
            let (sched, txs, inputs) = (Arc::clone(&sched), Arc::clone(&txs), Arc::clone(&inputs));
            std::thread::spawn(move || {
                while let Some(i) = sched.take() {
                    let tx = txs.lock().ok().and_then(|mut t| t[i].take());
                    if let Some(tx) = tx {
                        read_one(i, &inputs.list[i], &inputs.names, &opts, &tx);
                    }
                }
            });
        }
        Reader {
            rxs,
            cur_input: 0,
            cur: None,
            idx: 0,
            on_error,
            sched,
            counts: Default::default(),
            done: 0,
            hot: HotStrings::default(),
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.sched.stop.store(true, Ordering::Relaxed);
        self.rxs.clear();
        self.sched.turn.notify_all();
    }
}

#[pymethods]
impl Reader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            if let Some(batch) = &self.cur {
                if self.idx < batch.recs.len() {
                    let i = self.idx;
                    self.idx += 1;
                    let is_error = matches!(batch.recs[i].what, crate::items::What::Error(_));
                    if is_error && self.on_error == OnError::Skip {
                        continue;
                    }
                    let obj = item_object(py, batch, i, &mut self.hot)?;
                    if is_error && self.on_error == OnError::Raise {
                        let err = ReadError::new_err(obj.bind(py).str()?.to_string());
                        err.value(py).setattr("error", obj)?;
                        return Err(err);
                    }
                    return Ok(Some(obj));
                }
                self.cur = None;
            }
            let Some(rx) = self.rxs.get_mut(self.cur_input).and_then(Option::take) else {
                return Ok(None);
            };
            // The receiver moves into the closure and back: it is not Sync.
            let (rx, msg) = py.detach(move || {
                let m = rx.recv();
                (rx, m)
            });
            self.rxs[self.cur_input] = Some(rx);
            match msg {
                Ok(Msg::Batch(b)) => {
                    self.cur = Some(b);
                    self.idx = 0;
                }
                Ok(Msg::End(c)) => {
                    self.counts.add(&c);
                    self.done += 1;
                    self.next_input();
                }
                // A worker that panicked: the input ends here.
                Err(_) => self.next_input(),
            }
        }
    }

    /// What was read so far over every input finished: `lines`,
    /// `blank_lines`, `events`, `errors`, `inputs`.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, &self.counts, self.done)
    }
}

impl Reader {
    fn next_input(&mut self) {
        if let Some(slot) = self.rxs.get_mut(self.cur_input) {
            *slot = None;
        }
        self.cur_input += 1;
        self.sched.handed_out(self.cur_input);
    }
}

/// Counts as a dict.
pub fn counts_dict<'py>(
    py: Python<'py>,
    c: &cctape::stream::Counts,
    inputs: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("inputs", inputs)?;
    d.set_item("lines", c.lines)?;
    d.set_item("blank_lines", c.blank_lines)?;
    d.set_item("events", c.events)?;
    d.set_item("errors", c.errors)?;
    Ok(d)
}
