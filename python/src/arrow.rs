//! `cctape.to_arrow(...)`: the export's tables (`events`, `runs`, `tools`)
//! as Arrow record batches handed to Python through the Arrow C stream
//! interface (`__arrow_c_stream__`): pyarrow, polars and DuckDB take them
//! without a copy into Python objects.
//!
//! The rows are the Parquet export's (`cctape::export::InputRows`, the same
//! fold) and the columns its column definitions (`Table::COLUMNS`: names,
//! kinds, nullability); this module only lays the column buffers out as
//! Arrow arrays. Types as in `docs/export-schema.md`: string is `utf8`,
//! int64 `int64`, timestamp `timestamp[ms, tz=UTC]`, double `float64`,
//! boolean `bool`; required columns are non-nullable fields.

use crate::errors::Failure;
use crate::items::LineError;
use crate::report::read_folding;
use crate::sources::Inputs;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, RecordBatchIterator,
    StringArray, TimestampMillisecondArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use cctape::export::{Batch, ColRef, ColumnDef, InputRows, Kind, SCHEMA_VERSION, Table};
use cctape::inputs::{Item, ReadOptions};
use cctape::pricing::PriceTable;
use cctape::report::{Shape, Transcripts, no_events_run};
use cctape::time::Zone;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// Rows per record batch at most (as the export's row groups).
const BATCH_ROWS: usize = 128 << 10;

/// Which table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Events,
    Runs,
    Tools,
}

impl Which {
    pub fn parse(s: &str) -> PyResult<Which> {
        match s {
            "events" => Ok(Which::Events),
            "runs" => Ok(Which::Runs),
            "tools" => Ok(Which::Tools),
            _ => Err(PyValueError::new_err(format!(
                "table must be 'events', 'runs' or 'tools', not {s:?}"
            ))),
        }
    }
}

/// The columns a table is written with: all but `raw` unless asked for.
fn kept<T: Table>(raw: bool) -> Vec<(usize, &'static ColumnDef)> {
    T::COLUMNS
        .iter()
        .enumerate()
        .filter(|(_, c)| raw || c.name != "raw")
        .collect()
}

fn data_type(k: Kind) -> DataType {
    match k {
        Kind::Str => DataType::Utf8,
        Kind::I64 => DataType::Int64,
        Kind::Timestamp => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        Kind::F64 => DataType::Float64,
        Kind::Bool => DataType::Boolean,
    }
}

/// The Arrow schema of a table, with the export's key-value metadata
/// (`cctape.schema_version`, `cctape.table`).
fn schema<T: Table>(raw: bool) -> SchemaRef {
    let fields: Vec<Field> = kept::<T>(raw)
        .into_iter()
        .map(|(_, c)| Field::new(c.name, data_type(c.kind), c.nullable))
        .collect();
    let meta = HashMap::from([
        (
            "cctape.schema_version".to_string(),
            SCHEMA_VERSION.to_string(),
        ),
        ("cctape.table".to_string(), T::NAME.to_string()),
    ]);
    Arc::new(Schema::new_with_metadata(fields, meta))
}

/// Validity of rows `r` (None when every row holds a value).
fn nulls(valid: &[bool], r: &Range<usize>) -> Option<NullBuffer> {
    let v = &valid[r.clone()];
    if v.iter().all(|&x| x) {
        None
    } else {
        Some(NullBuffer::from(v.to_vec()))
    }
}

/// Rows `r` of one column as an Arrow array.
fn column(c: ColRef<'_>, def: &ColumnDef, r: &Range<usize>) -> Result<ArrayRef, ArrowError> {
    Ok(match c {
        ColRef::Str(s) => {
            let (data, ends, valid) = s.parts();
            let start = if r.start == 0 { 0 } else { ends[r.start - 1] };
            let end = if r.is_empty() { start } else { ends[r.end - 1] };
            let mut offsets = Vec::with_capacity(r.len() + 1);
            offsets.push(0i32);
            for &e in &ends[r.clone()] {
                offsets.push(i32::try_from(e - start).map_err(|_| {
                    ArrowError::ComputeError("a string column past 2 GiB in one batch".into())
                })?);
            }
            Arc::new(StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                Buffer::from(data[start..end].to_vec()),
                nulls(valid, r),
            )?)
        }
        ColRef::I64(n) => {
            let (vals, valid) = n.parts();
            let values = ScalarBuffer::from(vals[r.clone()].to_vec());
            if def.kind == Kind::Timestamp {
                Arc::new(
                    TimestampMillisecondArray::try_new(values, nulls(valid, r))?
                        .with_timezone("UTC"),
                )
            } else {
                Arc::new(Int64Array::try_new(values, nulls(valid, r))?)
            }
        }
        ColRef::F64(n) => {
            let (vals, valid) = n.parts();
            Arc::new(Float64Array::try_new(
                ScalarBuffer::from(vals[r.clone()].to_vec()),
                nulls(valid, r),
            )?)
        }
        ColRef::Bool(n) => {
            let (vals, valid) = n.parts();
            let bits = BooleanBuffer::from(vals[r.clone()].to_vec());
            Arc::new(BooleanArray::new(bits, nulls(valid, r)))
        }
    })
}

/// Row ranges of at most [`BATCH_ROWS`] rows whose string columns hold less
/// than 1 GiB each (so that 32-bit offsets always fit).
fn ranges(cols: &[ColRef<'_>], rows: usize) -> Vec<Range<usize>> {
    const MAX_BYTES: usize = 1 << 30;
    let strs: Vec<&[usize]> = cols
        .iter()
        .filter_map(|c| match c {
            ColRef::Str(s) => Some(s.parts().1),
            _ => None,
        })
        .collect();
    let bytes = |a: usize, b: usize| {
        strs.iter()
            .map(|ends| {
                let s = if a == 0 { 0 } else { ends[a - 1] };
                ends[b - 1] - s
            })
            .max()
            .unwrap_or(0)
    };
    let mut out = Vec::new();
    let mut a = 0;
    while a < rows {
        let mut b = (a + BATCH_ROWS).min(rows);
        while b > a + 1 && bytes(a, b) >= MAX_BYTES {
            b = a + (b - a) / 2;
        }
        out.push(a..b);
        a = b;
    }
    out
}

/// A table's rows as record batches.
fn batches<T: Table>(t: &T, schema: &SchemaRef, raw: bool) -> Result<Vec<RecordBatch>, ArrowError> {
    let cols = t.cols();
    let keep = kept::<T>(raw);
    ranges(&cols, t.len())
        .into_iter()
        .map(|r| {
            let arrays = keep
                .iter()
                .map(|&(i, def)| column(cols[i], def, &r))
                .collect::<Result<Vec<_>, _>>()?;
            RecordBatch::try_new(Arc::clone(schema), arrays)
        })
        .collect()
}

/// Arrow data: one table's schema and record batches, held in Rust and
/// handed out through the Arrow PyCapsule interface as often as asked (each
/// call a new stream over the same buffers).
#[pyclass(module = "cctape", frozen)]
pub struct ArrowTable {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    name: &'static str,
}

/// Why an input gave no rows.
enum ReadFailure {
    /// It could not be opened: the `OSError` `open` raises.
    Unopened(Failure),
    /// It broke off while it was read: an `InputError`.
    BrokeOff(Failure, Box<LineError>),
}

/// Read every input into the table asked for (inputs in parallel, rows in
/// input order, as `cctape export` writes them): a transcript's records
/// are `events` rows, and its sessions (folded across inputs) `runs` rows
/// after every input's; an input without events is one `runs` row (the
/// run `verdict` prints a record for). An input that could not be opened raises its
/// `OSError`, and one that broke off an `InputError` (as `cctape export`
/// fails with exit 2): the table never leaves an input out in silence.
pub fn to_arrow(
    py: Python<'_>,
    inputs: &Inputs,
    which: Which,
    raw: bool,
    opts: &ReadOptions,
    jobs: usize,
    (prices, zone): (PriceTable, Zone),
) -> PyResult<ArrowTable> {
    let per_input = crate::report::map_inputs(py, inputs, jobs, |_, input| {
        let mut rows = InputRows::new(&input.name, raw);
        // What an input without events is (its lines that were not
        // events, or its one finding).
        let mut shape = Shape::default();
        let mut finding = None;
        let (end, piece) = read_folding(input, opts, |item| match item {
            Item::Event(ev) => rows.push(ev),
            Item::Error { error, bytes } => {
                rows.push_error(error);
                shape.note(bytes);
            }
            // Its `events` row: the record's line read as an event (the
            // same index, not parsed again).
            Item::Record(rec) => rows.push_record(rec),
            Item::NotEvents(s) => finding = Some(s.describe()),
            // Scanned lines are not asked for.
            _ => {}
        });
        // Rows of an input that could not be read whole are never handed
        // out as if it had been: the call raises.
        match (&end.failure, end.unreadable) {
            (Some(e), true) => Err(ReadFailure::Unopened(Failure::of(&input.name, e))),
            (Some(e), false) => Err(ReadFailure::BrokeOff(
                Failure::of(&input.name, e),
                Box::new(LineError::of_error(&input.name, e)),
            )),
            // No event: the input is one run, its `runs` row the record
            // `verdict` prints for it (as `cctape export` writes it), and
            // no `events` rows.
            (None, _) if end.counts.events == 0 && (end.format.is_some() || finding.is_some()) => {
                let n = finding.unwrap_or_else(|| shape.describe());
                let batch = rows.finish_without_events(|f| no_events_run(f, &n, None));
                Ok((batch_of(&batch, which, raw), None))
            }
            (None, _) => Ok((batch_of(&rows.finish(), which, raw), Some(piece))),
        }
    })?;
    let mut all = Vec::new();
    let mut transcripts = Transcripts::default();
    for got in per_input {
        let (b, piece) = match got {
            Ok(x) => x,
            Err(ReadFailure::Unopened(f)) => return Err(f.os_error(py)),
            Err(ReadFailure::BrokeOff(f, le)) => {
                return Err(f.input_error(py, Py::new(py, *le)?.into_any()));
            }
        };
        all.extend(b.map_err(|e| PyRuntimeError::new_err(e.to_string()))?);
        if let Some(p) = piece {
            transcripts.add(p);
        }
    }
    let names: &[String] = &inputs.names;
    if which == Which::Tools {
        transcripts.record_calls();
    }
    if matches!(which, Which::Runs | Which::Tools)
        && let Some((report, files)) = py.detach(|| transcripts.finish(names, &prices, &zone))
    {
        // A session's run row and its tool calls' rows, as the export
        // writes them.
        let mut b = Batch::default();
        b.push_sessions(
            report
                .sessions
                .iter()
                .zip(&files)
                .map(|(s, &i)| (names[i].as_str(), s)),
        );
        all.extend(batch_of(&b, which, raw).map_err(|e| PyRuntimeError::new_err(e.to_string()))?);
    }
    let (schema, name) = match which {
        Which::Events => (schema::<cctape::export::EventRows>(raw), "events"),
        Which::Runs => (schema::<cctape::export::RunRows>(raw), "runs"),
        Which::Tools => (schema::<cctape::export::ToolRows>(raw), "tools"),
    };
    Ok(ArrowTable {
        schema,
        batches: all,
        name,
    })
}

/// The record batches of one of `b`'s tables.
fn batch_of(b: &Batch, which: Which, raw: bool) -> Result<Vec<RecordBatch>, ArrowError> {
    match which {
        Which::Events => table_batches(&b.events, raw),
        Which::Runs => table_batches(&b.runs, raw),
        Which::Tools => table_batches(&b.tools, raw),
    }
}

fn table_batches<T: Table>(t: &T, raw: bool) -> Result<Vec<RecordBatch>, ArrowError> {
    batches(t, &schema::<T>(raw), raw)
}

#[pymethods]
impl ArrowTable {
    /// The Arrow C stream interface: a PyCapsule holding an
    /// `ArrowArrayStream` over the table's batches (`requested_schema` is
    /// not used: the table has one schema).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            Arc::clone(&self.schema),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The Arrow C data interface's schema: a PyCapsule holding an
    /// `ArrowSchema`.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let s = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, s, c"arrow_schema")
    }

    /// `events`, `runs` or `tools`.
    #[getter]
    fn table(&self) -> &'static str {
        self.name
    }

    /// Rows in all.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// Record batches.
    #[getter]
    fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// As a `pyarrow.Table` (no copy; needs pyarrow).
    fn to_pyarrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("pyarrow")?.call_method1("table", (slf,))
    }

    /// As a pandas DataFrame (through pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        ArrowTable::to_pyarrow(slf)?.call_method0("to_pandas")
    }

    /// As a polars DataFrame (no copy; needs polars). `polars.from_arrow`
    /// makes a struct Series of any stream that is not a pyarrow table;
    /// `polars.DataFrame` takes the stream as a table.
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("polars")?.call_method1("DataFrame", (slf,))
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "cctape.ArrowTable({:?}: {} rows, {} columns)",
            self.name,
            self.num_rows(),
            self.schema.fields().len()
        )
    }
}
