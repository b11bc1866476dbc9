//! Writing tables as Parquet part files: `DIR/<table>/part-NNNNN.parquet`,
//! row groups of a bounded number of rows and bytes, a new file past a size
//! limit.

use super::SCHEMA_VERSION;
use super::columns::{ColumnDef, Kind, message_type};
use super::input::Batch;
use super::tables::{EventRows, RunRows, Table, ToolRows};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, TypePtr};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How to write.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// Keep each event's line in the `raw` column of `events`.
    pub raw: bool,
    /// A row group ends at this many rows (default 131,072).
    pub row_group_rows: usize,
    /// ... or when its rows take about this many bytes in memory (default
    /// 128 MiB).
    pub row_group_bytes: usize,
    /// A part file holds at most this many rows (default: no limit).
    pub max_file_rows: Option<u64>,
    /// A part file is closed once it is this large (checked after each row
    /// group, so a file ends up between this and this plus one row group;
    /// default 512 MiB).
    pub max_file_bytes: Option<u64>,
    /// zstd level of the column chunks (default 1).
    pub zstd_level: i32,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            raw: false,
            row_group_rows: 128 << 10,
            row_group_bytes: 128 << 20,
            max_file_rows: None,
            max_file_bytes: Some(512 << 20),
            zstd_level: 1,
        }
    }
}

/// What was written for one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableReport {
    /// The table's name.
    pub name: &'static str,
    /// Rows written.
    pub rows: u64,
    /// Row groups written.
    pub row_groups: u64,
    /// The part files, in order.
    pub files: Vec<PathBuf>,
    /// Bytes of the part files.
    pub bytes: u64,
}

fn other<E: std::error::Error + Send + Sync + 'static>(e: E) -> io::Error {
    io::Error::other(e)
}

/// Rows appended to a row group between two checks of its size.
const APPEND_STEP: usize = 4096;

/// Columns that are nearly unique per row: no dictionary for them.
const HIGH_CARDINALITY: &[&str] = &[
    "line",
    "byte_offset",
    "uuid",
    "raw",
    "tool_use_id",
    "message_id",
];

/// One table's part files.
struct TableWriter<T: Table> {
    dir: PathBuf,
    schema: TypePtr,
    props: Arc<WriterProperties>,
    /// Which of `T::COLUMNS` are written (all but `raw` without `--raw`).
    keep: Vec<bool>,
    buf: T,
    file: Option<SerializedFileWriter<BufWriter<File>>>,
    file_rows: u64,
    opts: ExportOptions,
    report: TableReport,
}

impl<T: Table> TableWriter<T> {
    fn create(out: &Path, opts: &ExportOptions) -> io::Result<Self> {
        let dir = out.join(T::NAME);
        std::fs::create_dir_all(&dir)?;
        remove_parts(&dir)?;
        let keep: Vec<bool> = T::COLUMNS
            .iter()
            .map(|c| opts.raw || c.name != "raw")
            .collect();
        let defs: Vec<ColumnDef> = T::COLUMNS
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| *c)
            .collect();
        let schema = message_type(T::NAME, &defs).map_err(other)?;
        let level = ZstdLevel::try_new(opts.zstd_level).map_err(other)?;
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_created_by(format!("cctape {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(vec![
                KeyValue::new("cctape.schema_version".into(), SCHEMA_VERSION.to_string()),
                KeyValue::new("cctape.table".into(), T::NAME.to_string()),
            ]));
        for c in &defs {
            let path = ColumnPath::from(c.name);
            if HIGH_CARDINALITY.contains(&c.name) {
                props = props.set_column_dictionary_enabled(path.clone(), false);
            }
            if c.name == "raw" {
                props = props.set_column_statistics_enabled(path, EnabledStatistics::None);
            } else if c.kind == Kind::Str {
                props = props.set_column_statistics_enabled(path, EnabledStatistics::Chunk);
            }
        }
        Ok(TableWriter {
            dir,
            schema,
            props: Arc::new(props.build()),
            keep,
            buf: T::default(),
            file: None,
            file_rows: 0,
            opts: opts.clone(),
            report: TableReport {
                name: T::NAME,
                ..TableReport::default()
            },
        })
    }

    fn group_rows(&self) -> usize {
        let mut n = self.opts.row_group_rows.max(1);
        if let Some(max) = self.opts.max_file_rows {
            let left = max.saturating_sub(self.file_rows).max(1);
            n = n.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        n
    }

    fn append(&mut self, rows: &T) -> io::Result<()> {
        let total = rows.len();
        let mut at = 0;
        while at < total {
            // A few thousand rows at a time, so that the byte limit is
            // checked often.
            let room = self
                .group_rows()
                .saturating_sub(self.buf.len())
                .clamp(1, APPEND_STEP);
            let end = total.min(at + room);
            self.buf.append_range(rows, at..end);
            at = end;
            if self.buf.len() >= self.group_rows() || self.buf.bytes() >= self.opts.row_group_bytes
            {
                self.flush_group()?;
            }
        }
        Ok(())
    }

    fn open(&mut self) -> io::Result<()> {
        if self.file.is_none() {
            let path = self
                .dir
                .join(format!("part-{:05}.parquet", self.report.files.len()));
            let f = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            let w = SerializedFileWriter::new(f, Arc::clone(&self.schema), Arc::clone(&self.props))
                .map_err(other)?;
            self.report.files.push(path);
            self.file_rows = 0;
            self.file = Some(w);
        }
        Ok(())
    }

    fn flush_group(&mut self) -> io::Result<()> {
        let n = self.buf.len();
        if n == 0 {
            return Ok(());
        }
        self.open()?;
        let w = self
            .file
            .as_mut()
            .ok_or_else(|| io::Error::other("no open part file"))?;
        let mut rg = w.next_row_group().map_err(other)?;
        let cols = self.buf.cols_mut().into_iter().zip(T::COLUMNS);
        for ((col, def), keep) in cols.zip(&self.keep) {
            if !*keep {
                col.clear();
                continue;
            }
            let mut cw = rg
                .next_column()
                .map_err(other)?
                .ok_or_else(|| io::Error::other("schema has fewer columns than the table"))?;
            col.write(cw.untyped(), def.nullable).map_err(other)?;
            cw.close().map_err(other)?;
        }
        rg.close().map_err(other)?;
        self.report.rows += n as u64;
        self.report.row_groups += 1;
        self.file_rows += n as u64;
        let full_rows = self.opts.max_file_rows.is_some_and(|m| self.file_rows >= m);
        let full_bytes = self.opts.max_file_bytes.is_some_and(|m| {
            self.file
                .as_ref()
                .is_some_and(|f| f.bytes_written() as u64 >= m)
        });
        if full_rows || full_bytes {
            self.close_file()?;
        }
        Ok(())
    }

    fn close_file(&mut self) -> io::Result<()> {
        if let Some(w) = self.file.take() {
            let f = w.into_inner().map_err(other)?;
            let f = f.into_inner().map_err(|e| e.into_error())?;
            self.report.bytes += f.metadata()?.len();
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<TableReport> {
        self.flush_group()?;
        if self.report.files.is_empty() {
            // An empty table is still a file, so that readers find the schema.
            self.open()?;
        }
        self.close_file()?;
        Ok(self.report)
    }
}

/// Remove `part-*.parquet` files left by an earlier export.
fn remove_parts(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("part-") && name.ends_with(".parquet") && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Writes batches of rows into `DIR/events`, `DIR/runs` and `DIR/tools`.
///
/// Rows are written in the order they are given; part files are numbered
/// from `part-00000.parquet`. Creating a writer removes the `part-*.parquet`
/// files already in those folders.
pub struct Writer {
    events: TableWriter<EventRows>,
    runs: TableWriter<RunRows>,
    tools: TableWriter<ToolRows>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("events", &self.events.report)
            .field("runs", &self.runs.report)
            .field("tools", &self.tools.report)
            .finish()
    }
}

impl Writer {
    /// A writer into `dir` (created if needed).
    pub fn create(dir: &Path, opts: &ExportOptions) -> io::Result<Writer> {
        Ok(Writer {
            events: TableWriter::create(dir, opts)?,
            runs: TableWriter::create(dir, opts)?,
            tools: TableWriter::create(dir, opts)?,
        })
    }

    /// Append a batch's rows.
    pub fn write(&mut self, batch: &Batch) -> io::Result<()> {
        self.events.append(&batch.events)?;
        self.runs.append(&batch.runs)?;
        self.tools.append(&batch.tools)
    }

    /// Write what is buffered and close the files; what was written, per
    /// table (`events`, `runs`, `tools`).
    pub fn finish(self) -> io::Result<[TableReport; 3]> {
        Ok([
            self.events.finish()?,
            self.runs.finish()?,
            self.tools.finish()?,
        ])
    }
}
