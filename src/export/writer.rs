//! Writing tables as Parquet part files: `DIR/<table>/part-NNNNN.parquet`,
//! row groups of a bounded number of rows and bytes, a new file past a size
//! limit; written in a staging folder and swapped in whole at the end
//! ([`super::stage`]).

use super::SCHEMA_VERSION;
use super::columns::{ColumnDef, Kind, message_type};
use super::input::Batch;
use super::stage::{AbortHandle, PARTIAL, Stage};
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
    /// 64 MiB: with the spill bound and the run layer, what bounds the
    /// export's memory).
    pub row_group_bytes: usize,
    /// A part file holds at most this many rows (default: no limit).
    pub max_file_rows: Option<u64>,
    /// A part file is closed once it is this large (checked after each row
    /// group, so a file ends up between this and this plus one row group;
    /// default 512 MiB).
    pub max_file_bytes: Option<u64>,
    /// zstd level of the column chunks (default 1).
    pub zstd_level: i32,
    /// `events` rows of one input kept in memory, in bytes, before they go
    /// to a spill file (default 16 MiB; see [`InputRows::spill_to`]).
    ///
    /// [`InputRows::spill_to`]: super::InputRows::spill_to
    pub spill_bytes: usize,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            raw: false,
            row_group_rows: 128 << 10,
            row_group_bytes: 64 << 20,
            max_file_rows: None,
            max_file_bytes: Some(512 << 20),
            zstd_level: 1,
            spill_bytes: 16 << 20,
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
    /// The part files, in order (where they are once the export is in
    /// place).
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
    /// Where the files are written (the staging folder's).
    dir: PathBuf,
    /// Where they will be (the output's).
    dest: PathBuf,
    schema: TypePtr,
    props: Arc<WriterProperties>,
    /// Which of `T::COLUMNS` are written (all but `raw` without `--raw`).
    keep: Vec<bool>,
    buf: T,
    file: Option<SerializedFileWriter<BufWriter<File>>>,
    /// The open file's name while it is written, and once complete.
    file_path: (PathBuf, PathBuf),
    file_rows: u64,
    /// Rows left to append before the next check of the row group's size:
    /// carried from one piece of an input's rows to the next, so that the
    /// groups are the same however the rows are cut (spilled or not).
    step_left: usize,
    opts: ExportOptions,
    report: TableReport,
}

impl<T: Table> TableWriter<T> {
    fn create(stage: &Path, out: &Path, opts: &ExportOptions) -> io::Result<Self> {
        let dir = stage.join(T::NAME);
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
            dest: out.join(T::NAME),
            schema,
            props: Arc::new(props.build()),
            keep,
            buf: T::default(),
            file: None,
            file_path: Default::default(),
            file_rows: 0,
            step_left: 0,
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

    /// Append rows; `last` when they end a batch (an input's rows, which
    /// may come in several pieces: the row group's size is checked every
    /// few thousand rows, and at the end of each batch).
    fn append(&mut self, rows: &T, last: bool) -> io::Result<()> {
        let total = rows.len();
        let mut at = 0;
        while at < total {
            if self.step_left == 0 {
                // A few thousand rows at a time, so that the byte limit is
                // checked often.
                self.step_left = self
                    .group_rows()
                    .saturating_sub(self.buf.len())
                    .clamp(1, APPEND_STEP);
            }
            let end = total.min(at + self.step_left);
            self.buf.append_range(rows, at..end);
            self.step_left -= end - at;
            at = end;
            if self.step_left == 0 {
                self.check()?;
            }
        }
        if last && self.step_left != 0 {
            self.step_left = 0;
            self.check()?;
        }
        Ok(())
    }

    /// Write the row group if it is full.
    fn check(&mut self) -> io::Result<()> {
        if self.buf.len() >= self.group_rows() || self.buf.bytes() >= self.opts.row_group_bytes {
            self.flush_group()?;
        }
        Ok(())
    }

    fn open(&mut self) -> io::Result<()> {
        if self.file.is_none() {
            let name = format!("part-{:05}.parquet", self.report.files.len());
            let done = self.dir.join(&name);
            let partial = self.dir.join(format!("{name}{PARTIAL}"));
            let f = File::create_new(&partial).map_err(|e| {
                io::Error::new(e.kind(), format!("creating {}: {e}", partial.display()))
            })?;
            let f = BufWriter::with_capacity(1 << 20, f);
            let w = SerializedFileWriter::new(f, Arc::clone(&self.schema), Arc::clone(&self.props))
                .map_err(other)?;
            self.report.files.push(self.dest.join(name));
            self.file_path = (partial, done);
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

    /// Write the footer, sync the file and give it its name.
    fn close_file(&mut self) -> io::Result<()> {
        if let Some(w) = self.file.take() {
            let f = w.into_inner().map_err(other)?;
            let f = f.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            self.report.bytes += f.metadata()?.len();
            drop(f);
            let (partial, done) = std::mem::take(&mut self.file_path);
            std::fs::rename(&partial, &done)?;
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

/// Writes batches of rows into `DIR/events`, `DIR/runs` and `DIR/tools`,
/// replacing the previous export there whole, or not at all.
///
/// Rows are written in the order they are given; part files are numbered
/// from `part-00000.parquet`. Everything is written into a staging folder
/// in `DIR` (`.cctape-tmp-*`), and [`finish`](Writer::finish) swaps each
/// table folder in once all are complete and synced: until then `DIR` is
/// as it was, and a failure, an [`AbortHandle::abort`] or dropping the
/// writer removes the staging folder. The part files of the previous export
/// are removed after the swap; other files in a table's folder stay in it.
/// A staging folder left by a process killed outright is removed by the
/// next writer into `DIR`. Two writers cannot write into one `DIR` at once
/// (the second fails; Unix).
pub struct Writer {
    events: TableWriter<EventRows>,
    runs: TableWriter<RunRows>,
    tools: TableWriter<ToolRows>,
    stage: Stage,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("stage", &self.stage.dir())
            .field("events", &self.events.report)
            .field("runs", &self.runs.report)
            .field("tools", &self.tools.report)
            .finish()
    }
}

fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "the export was stopped")
}

impl Writer {
    /// A writer into `dir` (created if needed).
    ///
    /// # Errors
    ///
    /// When `dir` cannot be made or written, another writer holds it, or
    /// `DIR/events`, `DIR/runs` or `DIR/tools` is there but not a folder.
    pub fn create(dir: &Path, opts: &ExportOptions) -> io::Result<Writer> {
        let stage = Stage::create(dir)?;
        Ok(Writer {
            events: TableWriter::create(stage.dir(), dir, opts)?,
            runs: TableWriter::create(stage.dir(), dir, opts)?,
            tools: TableWriter::create(stage.dir(), dir, opts)?,
            stage,
        })
    }

    /// The staging folder: where the files are written until they are
    /// swapped in, and where [`InputRows::spill_to`] should spill.
    ///
    /// [`InputRows::spill_to`]: super::InputRows::spill_to
    pub fn spill_dir(&self) -> &Path {
        self.stage.dir()
    }

    /// What the writer found of earlier exports that were killed (their
    /// staging folders are removed; anything in them cctape did not write
    /// is kept and named here).
    pub fn notes(&self) -> &[String] {
        self.stage.notes()
    }

    /// A handle to stop this export from another thread.
    pub fn abort_handle(&self) -> AbortHandle {
        self.stage.abort_handle()
    }

    /// Append a batch's rows (its spilled `events` rows first, read back
    /// one chunk at a time, each with the usage of its calls).
    ///
    /// # Errors
    ///
    /// A write error, a failure to spill the batch's rows, or an export
    /// stopped by [`AbortHandle::abort`].
    pub fn write(&mut self, batch: &Batch) -> io::Result<()> {
        if !self.stage.writing() {
            return Err(stopped());
        }
        if let Some(e) = &batch.spill_error {
            return Err(io::Error::new(e.kind(), format!("spilling rows: {e}")));
        }
        if let Some(s) = &batch.spilled {
            if let Some(spill) = &s.events {
                let mut calls = &s.calls[..];
                for i in 0..spill.chunks() {
                    let mut rows = spill.read(i)?;
                    let last = spill.last_line(i);
                    let n = calls.partition_point(|c| c.line <= last);
                    for c in &calls[..n] {
                        rows.apply_call(c.line, c.message_id.as_deref(), &c.usage);
                    }
                    calls = &calls[n..];
                    self.events.append(&rows, false)?;
                }
            }
            if let Some(spill) = &s.runs {
                for i in 0..spill.chunks() {
                    self.runs.append(&spill.read(i)?, false)?;
                }
            }
            if let Some(spill) = &s.tools {
                for i in 0..spill.chunks() {
                    self.tools.append(&spill.read(i)?, false)?;
                }
            }
        }
        self.events.append(&batch.events, true)?;
        self.runs.append(&batch.runs, true)?;
        self.tools.append(&batch.tools, true)
    }

    /// Write what is buffered, close and sync the files and swap the tables
    /// in; what was written, per table (`events`, `runs`, `tools`).
    ///
    /// # Errors
    ///
    /// A write error (the output is then as it was), or an export stopped
    /// by [`AbortHandle::abort`].
    pub fn finish(self) -> io::Result<[TableReport; 3]> {
        let Writer {
            events,
            runs,
            tools,
            stage,
        } = self;
        if !stage.writing() {
            return Err(stopped());
        }
        let reports = [events.finish()?, runs.finish()?, tools.finish()?];
        stage.swap_in()?;
        Ok(reports)
    }
}
