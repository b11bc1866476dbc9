//! JSON into Python values: a line's value (`cctape::json::Value`, through
//! its index or its tape) and the report records (`serde_json::Value`, keys
//! in their documented order).

use cctape::json::{Number, Value, ValueKind};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// A number beyond u64/i64/f64, from its text: an int when it is an
/// integer (Python ints have no limit), a float otherwise (`1e400` is inf,
/// as `json.loads` reads it).
fn big_number<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let builtins = py.import("builtins")?;
    if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        builtins.getattr("float")?.call1((text,))
    } else {
        builtins.getattr("int")?.call1((text,))
    }
}

/// A value as Python values. An object's duplicate key keeps its first
/// value (as every cctape accessor reads it).
pub fn value_to_py<'py>(py: Python<'py>, v: &Value<'_>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v.kind() {
        ValueKind::Null => py.None().into_bound(py),
        ValueKind::Bool => v.as_bool().unwrap_or(false).into_bound_py_any(py)?,
        ValueKind::Number => match v.number() {
            Some(Number::U64(n)) => n.into_bound_py_any(py)?,
            Some(Number::I64(n)) => n.into_bound_py_any(py)?,
            Some(Number::F64(x)) => x.into_bound_py_any(py)?,
            Some(Number::Big(t)) => big_number(py, t)?,
            None => py.None().into_bound(py),
        },
        ValueKind::String => PyString::new(py, v.as_str().unwrap_or("")).into_any(),
        ValueKind::Array => {
            let list = PyList::empty(py);
            for e in v.elements() {
                list.append(value_to_py(py, &e)?)?;
            }
            list.into_any()
        }
        ValueKind::Object => {
            let d = PyDict::new(py);
            for (k, e) in v.entries() {
                if !d.contains(k)? {
                    d.set_item(k, value_to_py(py, &e)?)?;
                }
            }
            d.into_any()
        }
    })
}

/// A report value as Python values (dicts keep the key order).
pub fn serde_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None().into_bound(py),
        J::Bool(b) => b.into_bound_py_any(py)?,
        J::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?
            }
        }
        J::String(s) => PyString::new(py, s).into_any(),
        J::Array(a) => {
            let list = PyList::empty(py);
            for e in a {
                list.append(serde_to_py(py, e)?)?;
            }
            list.into_any()
        }
        J::Object(o) => {
            let d = PyDict::new(py);
            for (k, e) in o {
                d.set_item(k, serde_to_py(py, e)?)?;
            }
            d.into_any()
        }
    })
}
