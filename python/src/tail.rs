//! `cctape._Tail`: a followed path (the library's [`cctape::follow`]: the
//! rules of `tail -F`, file-system events with a poll interval) under
//! `cctape.follow(path)`. `read` waits, the GIL released, for the next
//! whole lines and hands them out as bytes; `None` when none came in the
//! time asked, so that the Python loop never spins.

use cctape::follow::{Change, FollowOptions, Follower, Item};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// Whole lines of a followed path, as they are written.
#[pyclass(module = "cctape", name = "_Tail")]
pub struct Tail {
    follower: Mutex<Option<Follower>>,
    /// Changes seen (`"truncated"`, `"replaced"`, `"gone"`), oldest first.
    changes: Mutex<Vec<String>>,
}

#[pymethods]
impl Tail {
    #[new]
    #[pyo3(signature = (path, *, poll=0.25, from_end=false))]
    fn new(path: PathBuf, poll: f64, from_end: bool) -> PyResult<Tail> {
        let poll = Duration::try_from_secs_f64(poll)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("poll must be > 0 seconds"))?;
        let opts = FollowOptions {
            from_end,
            poll,
            ..FollowOptions::default()
        };
        let follower =
            Follower::new(&[path], opts).map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(Tail {
            follower: Mutex::new(Some(follower)),
            changes: Mutex::new(Vec::new()),
        })
    }

    /// The next whole lines (bytes), waiting at most `timeout` seconds;
    /// `None` when none came (or the tail is closed).
    fn read<'py>(&self, py: Python<'py>, timeout: f64) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let timeout = Duration::try_from_secs_f64(timeout.max(0.0)).unwrap_or(Duration::ZERO);
        let got: std::io::Result<Option<Vec<u8>>> = py.detach(|| {
            let mut guard = self.follower.lock().unwrap_or_else(|p| p.into_inner());
            let Some(f) = guard.as_mut() else {
                return Ok(None);
            };
            let deadline = std::time::Instant::now() + timeout;
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match f.next_item(left)? {
                    Some(Item::Lines { bytes, .. }) => return Ok(Some(bytes.to_vec())),
                    Some(Item::Change { change, .. }) => {
                        let name = match change {
                            Change::Truncated => "truncated",
                            Change::Replaced => "replaced",
                            Change::Gone => "gone",
                            _ => continue,
                        };
                        self.changes
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(name.to_string());
                    }
                    None => return Ok(None),
                }
            }
        });
        match got {
            Ok(Some(b)) => Ok(Some(PyBytes::new(py, &b))),
            Ok(None) => Ok(None),
            Err(e) => Err(PyOSError::new_err(e.to_string())),
        }
    }

    /// What happened to the file so far: `"truncated"`, `"replaced"`
    /// (renamed away and re-created), `"gone"` (deleted; waited for).
    #[getter]
    fn changes(&self) -> Vec<String> {
        self.changes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Stop following (the file-system watch is dropped).
    fn close(&self) {
        *self.follower.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}
