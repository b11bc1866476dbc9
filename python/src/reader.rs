//! `cctape.read(...)`: the events and bad lines of inputs read
//! by worker threads, without the GIL, in input order.
//!
//! As the command does: up to `jobs` workers take inputs in order (never
//! more than [`AHEAD`] per worker past the one being handed out); each reads
//! its input into batches and sends them through a bounded channel, so a
//! worker ahead of the consumer waits instead of buffering, and memory is
//! bounded by a few batches per worker whatever the input's size. The
//! consumer (the Python loop) takes the batches of input 0, then 1, ...
//! Dropping the iterator stops the workers at their next batch.

use crate::errors::ReadError;
use crate::items::{Batch, HotStrings, item_object};
use crate::sources::{Input, Inputs, read_input};
use cctape::inputs::{Item, ReadOptions};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

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
    /// Leave them out (they are still counted); an input that broke off
    /// still raises `InputError`.
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
        // The reader handed out nothing for an input it could not open:
        // the consumer raises its OSError when it comes to it.
        batch.push_unopened(idx, e);
    }
    if !batch.recs.is_empty() && tx.send(Msg::Batch(Arc::new(batch))).is_err() {
        return;
    }
    let _ = tx.send(Msg::End(end.counts));
}

/// What `cctape.read` iterates over: batches of items, taken as lists
/// (`cctape.Reader`, in the package, is the iterator).
#[pyclass(module = "cctape._cctape", name = "_Reader", unsendable)]
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
        opts.scan = Some(cctape::json::ScanMode::Validated);
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

/// What to do with the record at a position.
enum Step {
    /// Hand it out.
    Item,
    /// Leave it out (a bad line with `errors="skip"`).
    Skip,
    /// Raise (an input that could not be opened; with `errors="raise"`, a
    /// bad line; unless `errors="yield"`, an input that broke off).
    Raise,
}

impl Reader {
    fn step(&self, batch: &Batch, i: usize) -> Step {
        match &batch.recs[i].what {
            crate::items::What::Error(e) => match (e.unopened, self.on_error, e.fatal) {
                (true, _, _) => Step::Raise,
                (false, OnError::Yield, _) => Step::Item,
                (false, OnError::Skip, false) => Step::Skip,
                (false, _, _) => Step::Raise,
            },
            crate::items::What::Event { .. } => Step::Item,
        }
    }

    /// The exception for the error record `i` of `batch`.
    fn raised(&mut self, py: Python<'_>, batch: &Arc<Batch>, i: usize) -> PyResult<PyErr> {
        let crate::items::What::Error(e) = &batch.recs[i].what else {
            return Ok(pyo3::exceptions::PyRuntimeError::new_err("not an error"));
        };
        let file = batch.names.get(batch.recs[i].input as usize);
        let file = file.map_or("", String::as_str);
        if e.unopened {
            return Ok(e.failure(file).os_error(py));
        }
        let obj = item_object(py, batch, i, &mut self.hot)?;
        if e.fatal {
            return Ok(e.failure(file).input_error(py, obj));
        }
        let err = ReadError::new_err(obj.bind(py).str()?.to_string());
        err.value(py).setattr("error", obj)?;
        Ok(err)
    }

    /// Wait for the next batch (the GIL released); false when every input
    /// has ended.
    fn next_batch(&mut self, py: Python<'_>) -> bool {
        loop {
            let Some(rx) = self.rxs.get_mut(self.cur_input).and_then(Option::take) else {
                return false;
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
                    return true;
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
}

#[pymethods]
impl Reader {
    /// The next items, in order, as a list: the rest of the current batch
    /// up to the first record that raises (which the next call raises), at
    /// least one item; an empty list once every input has ended. The
    /// package's `Reader` iterates over these lists (in C: no call per
    /// item).
    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        loop {
            if let Some(batch) = self.cur.clone() {
                let list = PyList::empty(py);
                while self.idx < batch.recs.len() {
                    let i = self.idx;
                    match self.step(&batch, i) {
                        Step::Item => list.append(item_object(py, &batch, i, &mut self.hot)?)?,
                        Step::Skip => {}
                        Step::Raise if list.is_empty() => {
                            self.idx += 1;
                            return Err(self.raised(py, &batch, i)?);
                        }
                        Step::Raise => return Ok(list),
                    }
                    self.idx += 1;
                }
                self.cur = None;
                if !list.is_empty() {
                    return Ok(list);
                }
            }
            if !self.next_batch(py) {
                return Ok(PyList::empty(py));
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
