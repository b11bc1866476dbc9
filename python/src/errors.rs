//! The exceptions of the package, and how a failure to read an input
//! becomes one: `ReadError` (a bad line, with `errors="raise"`),
//! `InputError` (an input that broke off while it was read: both a
//! `ReadError` and an `OSError`), and the `OSError` Python's own `open`
//! raises for a path that cannot be opened (`FileNotFoundError`,
//! `PermissionError`, ... chosen by Python from the errno).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use std::io;

create_exception!(
    _cctape,
    ReadError,
    PyException,
    "A bad line, raised when reading with `errors=\"raise\"`; its `error` attribute is the `LineError`."
);

/// `InputError`, made once (a class with two bases, which
/// `create_exception!` cannot make).
static INPUT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const INPUT_ERROR_SRC: &std::ffi::CStr = cr#"
class InputError(ReadError, OSError):
    """An input that broke off while it was read (an I/O error, a corrupt or
    cut compressed stream), raised by `read` with ``errors="raise"`` or
    ``errors="skip"`` and by `to_arrow`. Both a `ReadError` and an
    `OSError`: ``errno`` and ``strerror`` are the system's when it gave
    one, ``filename`` the input's name, and ``error`` the `LineError` with
    the position where reading stopped."""

    __module__ = "cctape"

    def __str__(self):
        e = getattr(self, "error", None)
        return str(e) if e is not None else OSError.__str__(self)
"#;

/// The `InputError` class.
pub fn input_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let t = INPUT_ERROR.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let globals = PyDict::new(py);
        globals.set_item("ReadError", py.get_type::<ReadError>())?;
        globals.set_item("__name__", "cctape")?;
        py.run(INPUT_ERROR_SRC, Some(&globals), None)?;
        Ok(globals
            .get_item("InputError")?
            .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("InputError not defined"))?
            .cast_into::<PyType>()?
            .unbind())
    })?;
    Ok(t.bind(py))
}

/// Why an input could not be read, as plain data (made without the GIL,
/// raised with it).
#[derive(Debug, Clone)]
pub struct Failure {
    /// The input's name.
    pub file: String,
    /// The system's error number, when the system gave one.
    pub errno: Option<i32>,
    /// What went wrong (the I/O error's text).
    pub message: String,
}

impl Failure {
    pub fn of_io(file: &str, e: &io::Error) -> Failure {
        Failure {
            file: file.to_string(),
            errno: e.raw_os_error(),
            message: e.to_string(),
        }
    }

    /// The failure of a library error (an I/O error, or why an input
    /// ended).
    pub fn of(file: &str, e: &cctape::error::Error) -> Failure {
        match e.io_error() {
            Some(io) => Failure::of_io(file, io),
            None => Failure {
                file: file.to_string(),
                errno: None,
                message: e.reason().to_string(),
            },
        }
    }

    /// `(errno, strerror)` as `OSError` takes them: the system's text for
    /// an error number (`os.strerror`), else ours.
    fn errno_and_text(&self, py: Python<'_>) -> PyResult<(Option<i32>, String)> {
        Ok(match self.errno {
            Some(n) => (
                Some(n),
                py.import("os")?.call_method1("strerror", (n,))?.extract()?,
            ),
            None => (None, self.message.clone()),
        })
    }

    /// The `OSError` `open(file)` raises: `FileNotFoundError`,
    /// `PermissionError`, `IsADirectoryError` ... by errno (Python picks the
    /// subclass), with `filename`.
    pub fn os_error(&self, py: Python<'_>) -> PyErr {
        let make = || -> PyResult<PyErr> {
            let oserror = py.get_type::<pyo3::exceptions::PyOSError>();
            let (errno, text) = self.errno_and_text(py)?;
            let e = match errno {
                Some(n) => oserror.call1((n, text, &self.file))?,
                None => {
                    let e = oserror.call1((format!("{}: {text}", self.file),))?;
                    e.setattr("strerror", text)?;
                    e.setattr("filename", &self.file)?;
                    e
                }
            };
            Ok(PyErr::from_value(e))
        };
        make().unwrap_or_else(|e| e)
    }

    /// An `InputError` for this failure, with `error` set to the
    /// `LineError` that says where reading stopped.
    pub fn input_error(&self, py: Python<'_>, line_error: Py<PyAny>) -> PyErr {
        let make = || -> PyResult<PyErr> {
            let t = input_error_type(py)?;
            let (errno, text) = self.errno_and_text(py)?;
            let e = t.call1((errno, text, &self.file))?;
            e.setattr("error", line_error)?;
            Ok(PyErr::from_value(e))
        };
        make().unwrap_or_else(|e| e)
    }
}
