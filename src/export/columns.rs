//! Column buffers: rows are appended column by column, then a range of them
//! is encoded as one Parquet column chunk (or, for rows spilled while an
//! input is read, dumped as they are and loaded back: [`ColRef::dump`],
//! [`ColMut::load`]).

#[cfg(feature = "parquet")]
use bytes::Bytes;
#[cfg(feature = "parquet")]
use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as Physical};
#[cfg(feature = "parquet")]
use parquet::column::writer::ColumnWriter;
#[cfg(feature = "parquet")]
use parquet::data_type::ByteArray;
#[cfg(feature = "parquet")]
use parquet::errors::{ParquetError, Result};
#[cfg(feature = "parquet")]
use parquet::schema::types::{Type, TypePtr};
use std::io::{self, Read, Write};
use std::ops::Range;
#[cfg(feature = "parquet")]
use std::sync::Arc;

/// What a column holds, and how it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text: `BYTE_ARRAY` annotated `STRING`.
    Str,
    /// A signed 64-bit integer: `INT64`.
    I64,
    /// Milliseconds since the Unix epoch: `INT64` annotated
    /// `TIMESTAMP(MILLIS, isAdjustedToUTC=true)`.
    Timestamp,
    /// A 64-bit float: `DOUBLE`.
    F64,
    /// `BOOLEAN`.
    Bool,
}

impl Kind {
    /// The type as `docs/export-schema.md` writes it.
    pub fn sql_name(self) -> &'static str {
        match self {
            Kind::Str => "string",
            Kind::I64 => "int64",
            Kind::Timestamp => "timestamp (ms, UTC)",
            Kind::F64 => "double",
            Kind::Bool => "boolean",
        }
    }
}

/// A column of a table: its name, kind, nullability and meaning.
#[derive(Clone, Copy, Debug)]
pub struct ColumnDef {
    /// The column's name.
    pub name: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// Whether it may be null.
    pub nullable: bool,
    /// What it means and where it comes from.
    pub doc: &'static str,
}

impl ColumnDef {
    #[cfg(feature = "parquet")]
    /// The Parquet schema node of this column.
    pub(crate) fn parquet_type(&self) -> Result<TypePtr> {
        let rep = if self.nullable {
            Repetition::OPTIONAL
        } else {
            Repetition::REQUIRED
        };
        let b = match self.kind {
            Kind::Str => Type::primitive_type_builder(self.name, Physical::BYTE_ARRAY)
                .with_logical_type(Some(LogicalType::String))
                .with_converted_type(ConvertedType::UTF8),
            Kind::I64 => Type::primitive_type_builder(self.name, Physical::INT64),
            Kind::Timestamp => Type::primitive_type_builder(self.name, Physical::INT64)
                .with_logical_type(Some(LogicalType::timestamp(true, TimeUnit::MILLIS)))
                .with_converted_type(ConvertedType::TIMESTAMP_MILLIS),
            Kind::F64 => Type::primitive_type_builder(self.name, Physical::DOUBLE),
            Kind::Bool => Type::primitive_type_builder(self.name, Physical::BOOLEAN),
        };
        Ok(Arc::new(b.with_repetition(rep).build()?))
    }
}

#[cfg(feature = "parquet")]
/// The Parquet schema (a `message`) of a table.
pub(crate) fn message_type(name: &str, defs: &[ColumnDef]) -> Result<TypePtr> {
    let fields = defs
        .iter()
        .map(ColumnDef::parquet_type)
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(
        Type::group_type_builder(name).with_fields(fields).build()?,
    ))
}

/// Strings: bytes end to end, one end offset and one validity flag per row.
#[derive(Clone, Debug, Default)]
pub struct StrCol {
    data: Vec<u8>,
    ends: Vec<usize>,
    valid: Vec<bool>,
}

impl StrCol {
    /// Append a value (or a null).
    #[inline]
    pub(crate) fn push(&mut self, v: Option<&str>) {
        self.push_bytes(v.map(str::as_bytes));
    }

    /// Append a value given as bytes (UTF-8 expected) or a null.
    #[inline]
    pub(crate) fn push_bytes(&mut self, v: Option<&[u8]>) {
        if let Some(v) = v {
            self.data.extend_from_slice(v);
        }
        self.ends.push(self.data.len());
        self.valid.push(v.is_some());
    }

    /// The buffers: every value's bytes end to end, the end offset of each
    /// row in them, and whether each row holds a value (a null row adds no
    /// bytes): for handing the column to another columnar format (Arrow)
    /// without reading it row by row.
    pub fn parts(&self) -> (&[u8], &[usize], &[bool]) {
        (&self.data, &self.ends, &self.valid)
    }

    /// The value of row `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        if !*self.valid.get(i)? {
            return None;
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.data[start..self.ends[i]])
    }

    pub(crate) fn len(&self) -> usize {
        self.valid.len()
    }

    pub(crate) fn bytes(&self) -> usize {
        self.data.len() + self.ends.len() * 9
    }

    fn append_range(&mut self, o: &StrCol, r: Range<usize>) {
        if r.is_empty() {
            return;
        }
        let start = if r.start == 0 { 0 } else { o.ends[r.start - 1] };
        let end = o.ends[r.end - 1];
        let base = self.data.len();
        self.data.extend_from_slice(&o.data[start..end]);
        self.ends
            .extend(o.ends[r.clone()].iter().map(|e| e - start + base));
        self.valid.extend_from_slice(&o.valid[r]);
    }

    fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
        self.valid.clear();
    }

    #[cfg(feature = "parquet")]
    fn write(&mut self, w: &mut ColumnWriter<'_>, nullable: bool) -> Result<()> {
        let ColumnWriter::ByteArrayColumnWriter(w) = w else {
            return Err(ParquetError::General("string column expected".into()));
        };
        // The buffer moves into one shared `Bytes`; values are slices of it.
        let data = Bytes::from(std::mem::take(&mut self.data));
        let mut values = Vec::with_capacity(self.len());
        let mut start = 0;
        for (&end, &ok) in self.ends.iter().zip(&self.valid) {
            if ok {
                values.push(ByteArray::from(data.slice(start..end)));
            }
            start = end;
        }
        let levels = levels(&self.valid, nullable);
        w.write_batch(&values, levels.as_deref(), None)?;
        Ok(())
    }
}

/// Fixed-size values (integers, floats, booleans) with a validity flag per
/// row.
#[derive(Clone, Debug, Default)]
pub struct NumCol<T> {
    pub(crate) vals: Vec<T>,
    valid: Vec<bool>,
}

impl<T: Copy + Default> NumCol<T> {
    /// Append a value (or a null).
    #[inline]
    pub(crate) fn push(&mut self, v: Option<T>) {
        self.vals.push(v.unwrap_or_default());
        self.valid.push(v.is_some());
    }

    /// Overwrite row `i`.
    pub(crate) fn set(&mut self, i: usize, v: Option<T>) {
        if let (Some(slot), Some(ok)) = (self.vals.get_mut(i), self.valid.get_mut(i)) {
            *slot = v.unwrap_or_default();
            *ok = v.is_some();
        }
    }

    /// The buffers: one value per row (the type's default on null rows)
    /// and whether each row holds a value; see [`StrCol::parts`].
    pub fn parts(&self) -> (&[T], &[bool]) {
        (&self.vals, &self.valid)
    }

    /// The value of row `i`.
    pub fn get(&self, i: usize) -> Option<T> {
        if *self.valid.get(i)? {
            Some(self.vals[i])
        } else {
            None
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.valid.len()
    }

    pub(crate) fn bytes(&self) -> usize {
        self.vals.len() * (std::mem::size_of::<T>() + 1)
    }

    fn append_range(&mut self, o: &NumCol<T>, r: Range<usize>) {
        self.vals.extend_from_slice(&o.vals[r.clone()]);
        self.valid.extend_from_slice(&o.valid[r]);
    }

    fn clear(&mut self) {
        self.vals.clear();
        self.valid.clear();
    }

    #[cfg(feature = "parquet")]
    fn present(&self) -> Vec<T> {
        self.vals
            .iter()
            .zip(&self.valid)
            .filter(|(_, ok)| **ok)
            .map(|(v, _)| *v)
            .collect()
    }
}

#[cfg(feature = "parquet")]
fn levels(valid: &[bool], nullable: bool) -> Option<Vec<i16>> {
    nullable.then(|| valid.iter().map(|&v| i16::from(v)).collect())
}

/// A column buffer of any kind, borrowed.
#[derive(Clone, Copy, Debug)]
pub enum ColRef<'a> {
    /// Strings.
    Str(&'a StrCol),
    /// Integers and timestamps.
    I64(&'a NumCol<i64>),
    /// Floats.
    F64(&'a NumCol<f64>),
    /// Booleans.
    Bool(&'a NumCol<bool>),
}

/// A column buffer of any kind, borrowed mutably.
#[derive(Debug)]
pub enum ColMut<'a> {
    /// Strings.
    Str(&'a mut StrCol),
    /// Integers and timestamps.
    I64(&'a mut NumCol<i64>),
    /// Floats.
    F64(&'a mut NumCol<f64>),
    /// Booleans.
    Bool(&'a mut NumCol<bool>),
}

impl<'a> From<&'a StrCol> for ColRef<'a> {
    fn from(c: &'a StrCol) -> Self {
        ColRef::Str(c)
    }
}
impl<'a> From<&'a NumCol<i64>> for ColRef<'a> {
    fn from(c: &'a NumCol<i64>) -> Self {
        ColRef::I64(c)
    }
}
impl<'a> From<&'a NumCol<f64>> for ColRef<'a> {
    fn from(c: &'a NumCol<f64>) -> Self {
        ColRef::F64(c)
    }
}
impl<'a> From<&'a NumCol<bool>> for ColRef<'a> {
    fn from(c: &'a NumCol<bool>) -> Self {
        ColRef::Bool(c)
    }
}
impl<'a> From<&'a mut StrCol> for ColMut<'a> {
    fn from(c: &'a mut StrCol) -> Self {
        ColMut::Str(c)
    }
}
impl<'a> From<&'a mut NumCol<i64>> for ColMut<'a> {
    fn from(c: &'a mut NumCol<i64>) -> Self {
        ColMut::I64(c)
    }
}
impl<'a> From<&'a mut NumCol<f64>> for ColMut<'a> {
    fn from(c: &'a mut NumCol<f64>) -> Self {
        ColMut::F64(c)
    }
}
impl<'a> From<&'a mut NumCol<bool>> for ColMut<'a> {
    fn from(c: &'a mut NumCol<bool>) -> Self {
        ColMut::Bool(c)
    }
}

impl ColRef<'_> {
    /// Rows.
    pub(crate) fn len(self) -> usize {
        match self {
            ColRef::Str(c) => c.len(),
            ColRef::I64(c) => c.len(),
            ColRef::F64(c) => c.len(),
            ColRef::Bool(c) => c.len(),
        }
    }

    /// About how many bytes the buffer holds.
    pub(crate) fn bytes(self) -> usize {
        match self {
            ColRef::Str(c) => c.bytes(),
            ColRef::I64(c) => c.bytes(),
            ColRef::F64(c) => c.bytes(),
            ColRef::Bool(c) => c.bytes(),
        }
    }
}

impl ColMut<'_> {
    /// Append rows `r` of another buffer of the same kind.
    pub(crate) fn append_range(self, o: ColRef<'_>, r: Range<usize>) {
        match (self, o) {
            (ColMut::Str(a), ColRef::Str(b)) => a.append_range(b, r),
            (ColMut::I64(a), ColRef::I64(b)) => a.append_range(b, r),
            (ColMut::F64(a), ColRef::F64(b)) => a.append_range(b, r),
            (ColMut::Bool(a), ColRef::Bool(b)) => a.append_range(b, r),
            _ => debug_assert!(false, "columns of different kinds"),
        }
    }

    /// Empty the buffer.
    pub(crate) fn clear(self) {
        match self {
            ColMut::Str(c) => c.clear(),
            ColMut::I64(c) => c.clear(),
            ColMut::F64(c) => c.clear(),
            ColMut::Bool(c) => c.clear(),
        }
    }

    #[cfg(feature = "parquet")]
    /// Encode every row into a column writer, then empty the buffer.
    pub(crate) fn write(self, w: &mut ColumnWriter<'_>, nullable: bool) -> Result<()> {
        match (self, w) {
            (ColMut::Str(c), w) => {
                c.write(w, nullable)?;
                c.clear();
            }
            (ColMut::I64(c), ColumnWriter::Int64ColumnWriter(w)) => {
                w.write_batch(&c.present(), levels(&c.valid, nullable).as_deref(), None)?;
                c.clear();
            }
            (ColMut::F64(c), ColumnWriter::DoubleColumnWriter(w)) => {
                w.write_batch(&c.present(), levels(&c.valid, nullable).as_deref(), None)?;
                c.clear();
            }
            (ColMut::Bool(c), ColumnWriter::BoolColumnWriter(w)) => {
                w.write_batch(&c.present(), levels(&c.valid, nullable).as_deref(), None)?;
                c.clear();
            }
            _ => return Err(ParquetError::General("column kind mismatch".into())),
        }
        Ok(())
    }
}

/// Fixed-size values as little-endian bytes (for rows spilled to a file).
trait Le: Copy {
    const N: usize;
    fn put(self, out: &mut [u8]);
    fn get(b: &[u8]) -> Self;
}

macro_rules! le_int {
    ($($t:ty),*) => {$(
        impl Le for $t {
            const N: usize = 8;
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0; 8];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}

le_int!(i64, u64);

impl Le for f64 {
    const N: usize = 8;
    fn put(self, out: &mut [u8]) {
        self.to_bits().put(out);
    }
    fn get(b: &[u8]) -> Self {
        f64::from_bits(u64::get(b))
    }
}

impl Le for bool {
    const N: usize = 1;
    fn put(self, out: &mut [u8]) {
        out[0] = u8::from(self);
    }
    fn get(b: &[u8]) -> Self {
        b[0] != 0
    }
}

/// Bytes encoded or decoded at a time.
const DUMP_STEP: usize = 8 << 10;

fn dump_fixed<T: Le>(vals: impl ExactSizeIterator<Item = T>, w: &mut dyn Write) -> io::Result<()> {
    let mut buf = [0u8; DUMP_STEP];
    let mut n = 0;
    for v in vals {
        if n + T::N > DUMP_STEP {
            w.write_all(&buf[..n])?;
            n = 0;
        }
        v.put(&mut buf[n..n + T::N]);
        n += T::N;
    }
    w.write_all(&buf[..n])
}

fn load_fixed<T: Le>(rows: usize, r: &mut dyn Read, into: &mut Vec<T>) -> io::Result<()> {
    let mut buf = [0u8; DUMP_STEP];
    let mut left = rows;
    // What the file says, up to a bound (it is ours, but may be cut).
    into.reserve(rows.min(1 << 20));
    while left > 0 {
        let k = left.min(DUMP_STEP / T::N);
        let b = &mut buf[..k * T::N];
        r.read_exact(b)?;
        into.extend(b.chunks_exact(T::N).map(T::get));
        left -= k;
    }
    Ok(())
}

fn bad_dump(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("spilled rows: {what}"))
}

impl StrCol {
    fn dump(&self, w: &mut dyn Write) -> io::Result<()> {
        dump_fixed(self.valid.iter().copied(), w)?;
        w.write_all(&(self.data.len() as u64).to_le_bytes())?;
        w.write_all(&self.data)?;
        dump_fixed(self.ends.iter().map(|&e| e as u64), w)
    }

    fn load(&mut self, rows: usize, r: &mut dyn Read) -> io::Result<()> {
        if self.len() != 0 {
            return Err(bad_dump("loaded into a column that has rows"));
        }
        load_fixed(rows, r, &mut self.valid)?;
        let mut n = [0; 8];
        r.read_exact(&mut n)?;
        let n = usize::try_from(u64::from_le_bytes(n)).map_err(|_| bad_dump("too large"))?;
        self.data.clear();
        r.take(n as u64).read_to_end(&mut self.data)?;
        if self.data.len() != n {
            return Err(bad_dump("cut short"));
        }
        let mut ends = Vec::new();
        load_fixed::<u64>(rows, r, &mut ends)?;
        let mut last = 0;
        self.ends.reserve(rows.min(1 << 20));
        for e in ends {
            let e = usize::try_from(e).map_err(|_| bad_dump("offset too large"))?;
            if e < last || e > n {
                return Err(bad_dump("offsets out of order"));
            }
            self.ends.push(e);
            last = e;
        }
        Ok(())
    }
}

fn dump_num<T: Le>(c: &NumCol<T>, w: &mut dyn Write) -> io::Result<()> {
    dump_fixed(c.valid.iter().copied(), w)?;
    dump_fixed(c.vals.iter().copied(), w)
}

fn load_num<T: Le + Default>(c: &mut NumCol<T>, rows: usize, r: &mut dyn Read) -> io::Result<()> {
    if c.len() != 0 {
        return Err(bad_dump("loaded into a column that has rows"));
    }
    load_fixed(rows, r, &mut c.valid)?;
    load_fixed(rows, r, &mut c.vals)
}

impl ColRef<'_> {
    /// Write the buffer as it is (rows spilled to a file while an input is
    /// read), to be read back by [`ColMut::load`].
    pub(crate) fn dump(self, w: &mut dyn Write) -> io::Result<()> {
        match self {
            ColRef::Str(c) => c.dump(w),
            ColRef::I64(c) => dump_num(c, w),
            ColRef::F64(c) => dump_num(c, w),
            ColRef::Bool(c) => dump_num(c, w),
        }
    }
}

impl ColMut<'_> {
    /// Read `rows` rows written by [`ColRef::dump`] into this empty buffer.
    pub(crate) fn load(self, rows: usize, r: &mut dyn Read) -> io::Result<()> {
        match self {
            ColMut::Str(c) => c.load(rows, r),
            ColMut::I64(c) => load_num(c, rows, r),
            ColMut::F64(c) => load_num(c, rows, r),
            ColMut::Bool(c) => load_num(c, rows, r),
        }
    }
}
