//! Event rows spilled while an input is read: a large input's `events` rows
//! wait in a temporary file, not in memory, until its runs are complete (a
//! model call's usage is put on its row only then, see
//! [`InputRows`](super::InputRows)), and are read back chunk by chunk when
//! the input's turn to be written comes.
//!
//! The file is anonymous (`tempfile::tempfile_in`: unlinked as soon as it
//! is made, so that nothing is left whatever ends the process), in the
//! export's staging folder, so that it takes room on the output's disk, not
//! in `/tmp` (often memory). Each chunk is the rows as they are held
//! ([`Table::dump`]), LZ4-framed (`lz4_flex`, already the input side's
//! LZ4 reader): the rows repeat names and ids, so the file is several
//! times smaller than the rows, for little time.

use super::tables::Table;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Rows of one table written in chunks to an anonymous temporary file.
#[derive(Debug)]
pub(crate) struct Spill<T> {
    file: Mutex<File>,
    chunks: Vec<Chunk>,
    end: u64,
    table: PhantomData<fn() -> T>,
}

/// Where a chunk is in the file, and what it holds.
#[derive(Clone, Copy, Debug)]
struct Chunk {
    offset: u64,
    len: u64,
    rows: usize,
    last_line: u64,
}

fn poisoned() -> io::Error {
    io::Error::other("the spill file's lock was poisoned")
}

impl<T: Table> Spill<T> {
    /// An empty spill file in `dir`.
    pub(crate) fn create(dir: &Path) -> io::Result<Spill<T>> {
        Ok(Spill {
            file: Mutex::new(tempfile::tempfile_in(dir)?),
            chunks: Vec::new(),
            end: 0,
            table: PhantomData,
        })
    }

    /// Append `rows` as one chunk, noting `last_line` (the line of its last
    /// row, for `events`).
    pub(crate) fn write(&mut self, rows: &T, last_line: u64) -> io::Result<()> {
        let file = self.file.get_mut().map_err(|_| poisoned())?;
        let mut enc =
            lz4_flex::frame::FrameEncoder::new(BufWriter::with_capacity(256 << 10, &*file));
        rows.dump(&mut enc)?;
        enc.finish()?.flush()?;
        let end = file.stream_position()?;
        self.chunks.push(Chunk {
            offset: self.end,
            len: end - self.end,
            rows: rows.len(),
            last_line,
        });
        self.end = end;
        Ok(())
    }

    /// Chunks written.
    pub(crate) fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Rows written, every chunk together.
    pub(crate) fn rows(&self) -> usize {
        self.chunks.iter().map(|c| c.rows).sum()
    }

    /// The line noted with chunk `i`.
    pub(crate) fn last_line(&self, i: usize) -> u64 {
        self.chunks.get(i).map_or(0, |c| c.last_line)
    }

    /// Read chunk `i` back.
    pub(crate) fn read(&self, i: usize) -> io::Result<T> {
        let c = *self
            .chunks
            .get(i)
            .ok_or_else(|| io::Error::other("no such spilled chunk"))?;
        let mut f = self.file.lock().map_err(|_| poisoned())?;
        f.seek(SeekFrom::Start(c.offset))?;
        let mut dec = lz4_flex::frame::FrameDecoder::new(BufReader::with_capacity(
            256 << 10,
            (&*f).take(c.len),
        ));
        let mut rows = T::default();
        rows.load(&mut dec)?;
        if rows.len() != c.rows {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "spilled rows: a chunk read back has another number of rows",
            ));
        }
        Ok(rows)
    }
}

/// One table's rows of an input: in memory up to a bound, the earlier ones
/// spilled past it.
#[derive(Debug, Default)]
pub(crate) struct Spool<T> {
    /// The rows in memory (after the spilled ones).
    pub(crate) rows: T,
    /// Where to spill, and past how many bytes (none: never).
    to: Option<(PathBuf, usize)>,
    pub(crate) spill: Option<Spill<T>>,
    /// Why spilling failed: the rows are dropped from then on, and the
    /// batch fails to be written.
    pub(crate) error: Option<io::Error>,
}

impl<T: Table> Spool<T> {
    /// Spill into `dir` past `bytes` of rows.
    pub(crate) fn spill_to(&mut self, dir: &Path, bytes: usize) {
        self.to = Some((dir.to_path_buf(), bytes));
    }

    /// True when the rows are past the bound.
    pub(crate) fn full(&self) -> bool {
        self.to
            .as_ref()
            .is_some_and(|(_, bytes)| self.rows.bytes() >= *bytes)
    }

    /// Spill the rows held (noting `last_line` with them).
    pub(crate) fn spill(&mut self, last_line: u64) {
        let Some((dir, _)) = &self.to else {
            return;
        };
        if self.error.is_none() && !self.rows.is_empty() {
            let r = match &mut self.spill {
                Some(f) => f.write(&self.rows, last_line),
                None => Spill::create(dir).and_then(|mut f| {
                    let r = f.write(&self.rows, last_line);
                    self.spill = Some(f);
                    r
                }),
            };
            if let Err(e) = r {
                self.error = Some(e);
            }
        }
        self.rows.clear();
    }

    /// Rows, spilled ones included.
    pub(crate) fn len(&self) -> usize {
        self.rows.len() + self.spill.as_ref().map_or(0, Spill::rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::TokenCounts;
    use crate::export::EventRows;

    #[test]
    fn rows_read_back_are_the_rows_written() {
        let dir = std::env::temp_dir();
        let mut spill = Spill::<EventRows>::create(&dir).unwrap();
        let mut a = EventRows::default();
        for i in 0..3000u64 {
            a.file.push(Some("f.jsonl"));
            a.line.push(Some(i as i64 + 1));
            a.session_id.push((i % 3 != 0).then_some("s"));
            a.total_cost_usd
                .push((i % 5 == 0).then_some(i as f64 / 7.0));
            a.carries_usage.push(Some(i % 2 == 0));
            a.raw.push_bytes(Some(format!("{{\"n\":{i}}}").as_bytes()));
            for c in a.cols_mut() {
                // Columns not set above get a null per row.
                match c {
                    crate::export::ColMut::Str(s) if s.len() < a_len(i) => s.push(None),
                    crate::export::ColMut::I64(n) if n.len() < a_len(i) => n.push(None),
                    crate::export::ColMut::F64(n) if n.len() < a_len(i) => n.push(None),
                    crate::export::ColMut::Bool(n) if n.len() < a_len(i) => n.push(None),
                    _ => {}
                }
            }
        }
        a.set_usage(
            7,
            &TokenCounts {
                output_tokens: 9,
                ..TokenCounts::default()
            },
        );
        spill.write(&a, 3000).unwrap();
        spill.write(&a, 3000).unwrap();
        assert_eq!((spill.chunks(), spill.rows()), (2, 6000));
        assert_eq!(spill.last_line(0), 3000);
        for i in 0..2 {
            let b = spill.read(i).unwrap();
            assert_eq!(b.len(), 3000);
            for (x, y) in a.cols().into_iter().zip(b.cols()) {
                assert_eq!(format!("{x:?}"), format!("{y:?}"));
            }
            assert_eq!(b.output_tokens.get(7), Some(9));
            assert_eq!(b.raw.get(2999), Some(&b"{\"n\":2999}"[..]));
        }
        assert!(spill.read(2).is_err());
    }

    fn a_len(i: u64) -> usize {
        i as usize + 1
    }
}
