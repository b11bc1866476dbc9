//! Sources: opening an input once, telling what it is, and handing out its
//! bytes, decoded, to be read once from start to end.
//!
//! This module owns how an input's bytes are got: what kind of input it is
//! ([`SourceKind`]: a regular file, or a stream such as a pipe, a FIFO, a
//! character device or stdin), how it is compressed ([`Compression`]: told
//! by its first bytes, whatever its name), and the readers that decode it.
//! Every input is read once, in order; nothing is re-opened, sized after
//! opening, or read again.
//!
//! Files are read with `read` into buffers, or, when a reading asks for it
//! ([`crate::inputs::ReadOptions::map`], as the command does), a large
//! settled plain file is mapped ([`FileMap`]): that saves the kernel's copy,
//! 12% to 14% of `cctape stats`' CPU on long lines (BENCHMARKS.md,
//! "Reading against mapping"). A file truncated while it is mapped would
//! kill the process with SIGBUS (`logrotate copytruncate` does that to live
//! logs); its `map` module installs a handler that zeroes the lost pages instead,
//! and the reader reads on with `read` from the first line it cannot vouch
//! for, so a file that shrinks is an error with a position either way.
//! [`FileBytes::map`] stays for callers who own their files, as an `unsafe
//! fn` with no handler (grep-searcher's `MmapChoice` makes that choice).
//!
//! When a source ends for a reason worth reporting, the bytes before it are
//! handed out in full and the reason is left in an [`EndReport`]: a file
//! that shrank while it was read, data after the last gzip member or zstd
//! frame (zero padding or garbage), each with its byte offset.
//!
//! [`ChunkReader`] cuts a stream into owned chunks that end at LF, for
//! reading one input on several threads without reading any byte twice.

mod chunks;
mod compress;
pub(crate) mod map;
mod utf16;

pub use chunks::{Chunk, ChunkReader};
pub use compress::Compression;
use compress::MAGIC_MAX;
pub use map::FileMap;
use utf16::{Utf16, decoded_utf16, utf16_order};

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// What an input is, told once when it is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceKind {
    /// A regular file; `len` is its size when it was opened.
    Regular {
        /// The size in bytes when the file was opened.
        len: u64,
    },
    /// Anything else: stdin, a pipe, a FIFO, `<(...)`, a character device,
    /// a socket. Read as a stream, once; never sized, mapped or split.
    Stream,
}

impl SourceKind {
    /// The size of a regular file when it was opened; `None` for a stream.
    pub fn size(self) -> Option<u64> {
        match self {
            SourceKind::Regular { len } => Some(len),
            SourceKind::Stream => None,
        }
    }
}

/// Why a source ended before its bytes did, when that is worth reporting;
/// shared between a [`Source`] and the readers it is made of.
///
/// The readers end their stream cleanly (every byte before the problem is
/// handed out) and leave the reason here; take it once the stream is read.
#[derive(Clone, Debug, Default)]
pub struct EndReport(Arc<Mutex<Option<io::Error>>>);

impl EndReport {
    /// A new, empty report.
    pub fn new() -> EndReport {
        EndReport::default()
    }

    fn set(&self, e: io::Error) {
        if let Ok(mut slot) = self.0.lock()
            && slot.is_none()
        {
            *slot = Some(e);
        }
    }

    /// The reason the source ended early, if it did; `None` after the
    /// first call.
    pub fn take(&self) -> Option<io::Error> {
        self.0.lock().ok().and_then(|mut s| s.take())
    }
}

/// A regular file read from its start, that reports (through its
/// [`EndReport`]) a file that ended before the size it had when opened:
/// truncated under the reader, as `logrotate copytruncate` does. A file
/// that grows is read to its new end.
#[derive(Debug)]
pub struct FileReader {
    file: File,
    len_at_open: u64,
    read: u64,
    report: EndReport,
    /// An error to hand out at the first read (reading could not resume).
    failed: Option<io::Error>,
}

impl FileReader {
    /// Wrap an open regular file whose size was `len_at_open`.
    pub fn new(file: File, len_at_open: u64, report: EndReport) -> FileReader {
        FileReader {
            file,
            len_at_open,
            read: 0,
            report,
            failed: None,
        }
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// Go on reading from byte `at` (which the caller has read otherwise:
    /// a map), counting bytes and telling shrinking from there. Should the
    /// file not seek, the first read fails with why.
    pub(crate) fn resume_at(mut self, at: u64) -> FileReader {
        use std::io::{Seek, SeekFrom};
        if let Err(e) = self.file.seek(SeekFrom::Start(at)) {
            self.failed = Some(e);
        }
        self.read = at;
        self
    }
}

impl Read for FileReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let n = self.file.read(buf)?;
        if n == 0 && !buf.is_empty() && self.read < self.len_at_open {
            self.report.set(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the file shrank while it was read: {} bytes when opened, it ended at byte {} \
                     (truncated under the reader, e.g. by logrotate copytruncate)",
                    self.len_at_open, self.read
                ),
            ));
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// Open `path` once and tell what it is: a regular file (read through a
/// [`FileReader`] that reports shrinking into `report`) or a stream. A
/// regular file also comes back as a second handle, for
/// [`Source::mappable`].
pub fn open_file(
    path: &Path,
    report: &EndReport,
) -> io::Result<(Box<dyn Read + Send>, SourceKind, Option<File>)> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if meta.is_file() {
        let len = meta.len();
        // A second handle (one `dup`) only where a map could be made.
        let other = if map::worth_mapping(&file, len) {
            file.try_clone().ok()
        } else {
            None
        };
        let r = FileReader::new(file, len, report.clone());
        Ok((Box::new(r), SourceKind::Regular { len }, other))
    } else {
        Ok((Box::new(file), SourceKind::Stream, None))
    }
}

/// An input opened once: what it is, how it is compressed, and its decoded
/// bytes. The one place where an input is classified; format detection
/// (JSON arrays, transcripts) hooks in after it, on the decoded bytes.
/// ([`crate::runs`] does all of it for a path.)
///
/// ```
/// use cctape::source::{Compression, EndReport, Source, SourceKind};
/// use cctape::EventReader;
/// use std::io::Write;
///
/// // A rotated log, gzipped: told by its magic bytes, not its name.
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
/// gz.write_all(b"{\"type\":\"user\"}\n{\"type\":\"result\",\"subtype\":\"success\"}\n")?;
/// let bytes = gz.finish()?;
/// let src = Source::new(&bytes[..], SourceKind::Stream, &EndReport::new())?;
/// assert_eq!(src.compression(), Compression::Gzip);
/// let mut events = EventReader::new(src.into_reader());
/// let mut n = 0;
/// while let Some(item) = events.next_event() {
///     item.unwrap();
///     n += 1;
/// }
/// assert_eq!(n, 2);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Source<'a> {
    kind: SourceKind,
    compression: Compression,
    utf16: bool,
    reader: Box<dyn Read + 'a>,
    report: EndReport,
    /// The file the raw bytes come from, when it may be mapped.
    file: Option<File>,
}

impl std::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("kind", &self.kind)
            .field("compression", &self.compression)
            .finish_non_exhaustive()
    }
}

impl<'a> Source<'a> {
    /// Tell the compression of `raw` from its first bytes (read once and
    /// put back in front) and put the decoder in place. `kind` says what
    /// the raw input is; `report` receives why it ended early, if it did.
    pub fn new<R: Read + 'a>(
        mut raw: R,
        kind: SourceKind,
        report: &EndReport,
    ) -> io::Result<Source<'a>> {
        let mut head = [0u8; MAGIC_MAX];
        let mut n = 0;
        let mut ended = false;
        while n < head.len() {
            match raw.read(&mut head[n..]) {
                Ok(0) => {
                    ended = true;
                    break;
                }
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let compression = Compression::detect(&head[..n]);
        let utf16 = utf16_order(&head[..n]);
        let head = io::Cursor::new(head).take(n as u64);
        // A terminal's end of input (Ctrl-D) is read once: past it, never
        // read the raw input again.
        let whole: Box<dyn Read + 'a> = if ended {
            Box::new(head)
        } else {
            Box::new(head.chain(raw))
        };
        let (reader, utf16): (Box<dyn Read + 'a>, _) = match utf16 {
            Some(order) => (Box::new(Utf16::new(whole, order)), true),
            None if compression == Compression::None => (whole, false),
            // A UTF-16 capture compressed (`gzip out.jsonl` after
            // PowerShell's `>`): UTF-16 is looked for in the decoded bytes.
            None => decoded_utf16(compression.decoder(whole, report)?),
        };
        Ok(Source {
            kind,
            compression,
            utf16,
            reader,
            report: report.clone(),
            file: None,
        })
    }

    /// Open a file (or a FIFO, a device, `/dev/stdin`) by path.
    pub fn open(path: &Path) -> io::Result<Source<'static>> {
        let report = EndReport::new();
        let (raw, kind, file) = open_file(path, &report)?;
        let src = Source::new(raw, kind, &report)?;
        Ok(match file {
            Some(f) => src.mappable(f),
            None => src,
        })
    }

    /// Say which file the raw bytes come from (as [`open_file`] gives
    /// it), so that a reading with [`ReadOptions::map`](crate::inputs::ReadOptions::map)
    /// may map it instead of reading it. Only a plain file
    /// ([`is_plain_file`](Source::is_plain_file)) of a line format is ever
    /// mapped, and the map survives the file being truncated under it.
    pub fn mappable(mut self, file: File) -> Source<'a> {
        self.file = Some(file);
        self
    }

    /// The file to map, with its size when opened: a plain file only.
    pub(crate) fn take_file(&mut self) -> Option<(File, u64)> {
        let len = self.kind.size()?;
        let file = self.file.take()?;
        self.is_plain_file().then_some((file, len))
    }

    /// What the raw input is.
    pub fn kind(&self) -> SourceKind {
        self.kind
    }

    /// How it is compressed.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// True when the text was UTF-16 and is handed out as UTF-8: told by a
    /// byte order mark (as Windows PowerShell's `>` writes it), or without
    /// one by the NUL bytes of ASCII text in UTF-16LE or UTF-16BE. Offsets
    /// then count the UTF-8 bytes, not the file's.
    pub fn is_utf16(&self) -> bool {
        self.utf16
    }

    /// True when the decoded bytes are the file's bytes (a regular file, not
    /// compressed, not transcoded): the only kind of input that may be cut
    /// into chunks by offset.
    pub fn is_plain_file(&self) -> bool {
        matches!(self.kind, SourceKind::Regular { .. })
            && self.compression == Compression::None
            && !self.utf16
    }

    /// Where the reason the source ended early is left.
    pub(crate) fn report(&self) -> &EndReport {
        &self.report
    }

    /// The decoded bytes.
    pub fn into_reader(self) -> Box<dyn Read + 'a> {
        self.reader
    }
}

/// Open a stream, detecting gzip, zstd, xz, bzip2 or LZ4 by its first bytes: the bytes read
/// to sniff are put back in front of the stream. What ends compressed data
/// early (zero padding, garbage after the last member) ends the stream
/// quietly here; use [`Source::new`] to get it reported.
pub fn decompressing<'a, R: Read + 'a>(rdr: R) -> io::Result<(Compression, Box<dyn Read + 'a>)> {
    let s = Source::new(rdr, SourceKind::Stream, &EndReport::new())?;
    Ok((s.compression, s.reader))
}

/// A reader that ends a stream whose bytes go on without an LF for more
/// than `limit` bytes (`/dev/zero`, a binary file, a disk image): the bytes
/// up to the first one past the limit are handed out, then an
/// [`io::ErrorKind::InvalidData`] error, so an endless line has an end. The
/// framing above it is unchanged (a line past its maximum is skipped to its
/// LF in bounded memory); this only decides when skipping stops. It looks at
/// every byte only where a run could pass the limit within one read
/// (otherwise it finds the last LF from the end).
#[derive(Debug)]
pub struct LfWatch<R> {
    inner: R,
    limit: u64,
    /// Bytes since the last LF.
    run: u64,
    failed: bool,
}

impl<R: Read> LfWatch<R> {
    /// Watch `inner` for runs of more than `limit` bytes without an LF.
    pub fn new(inner: R, limit: u64) -> LfWatch<R> {
        LfWatch {
            inner,
            limit,
            run: 0,
            failed: false,
        }
    }

    fn error(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "no LF in more than {} bytes: not a line-delimited stream; the rest is not read",
                self.limit
            ),
        )
    }
}

impl<R: Read> Read for LfWatch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failed {
            return Err(self.error());
        }
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        if self.run + n as u64 <= self.limit {
            self.run = match memchr::memrchr(b'\n', got) {
                Some(i) => (n - i - 1) as u64,
                None => self.run + n as u64,
            };
            return Ok(n);
        }
        // A run may pass the limit inside this read: find where.
        let mut run = self.run;
        let mut from = 0;
        for lf in memchr::memchr_iter(b'\n', got).chain(std::iter::once(n)) {
            if run + (lf - from) as u64 > self.limit {
                // Hand out up to the first byte past the limit, then fail.
                self.failed = true;
                let cut = from + (self.limit - run) as usize + 1;
                self.run = self.limit + 1;
                return Ok(cut);
            }
            run = 0;
            from = lf + 1;
        }
        self.run = (n - memchr::memrchr(b'\n', got).map_or(0, |i| i + 1)) as u64;
        Ok(n)
    }
}

/// A whole file's bytes in memory: read, or (see [`FileBytes::map`])
/// mapped.
#[derive(Debug)]
pub enum FileBytes {
    /// A read-only memory map of the file.
    Mapped(memmap2::Mmap),
    /// The file read into memory.
    Read(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

impl FileBytes {
    /// Read `path` whole into memory (whatever it is: a FIFO or a device is
    /// read to its end, so mind what you pass).
    pub fn open(path: &Path) -> io::Result<FileBytes> {
        let mut file = File::open(path)?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut v = Vec::with_capacity(len.try_into().unwrap_or(0));
        file.read_to_end(&mut v)?;
        Ok(FileBytes::Read(v))
    }

    /// Map `path` into memory (no copy) when it is a regular file, read it
    /// otherwise.
    ///
    /// # Safety
    ///
    /// While the map lives, no process may truncate or rewrite the file: a
    /// truncated file kills this process with SIGBUS when a page past the
    /// new end is touched, and a rewritten one changes bytes already read.
    /// Use it only for files nobody writes (an archive, a test fixture).
    #[allow(unsafe_code)]
    pub unsafe fn map(path: &Path) -> io::Result<FileBytes> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.len() == 0 {
            return FileBytes::open(path);
        }
        // SAFETY: the caller promises that nobody truncates or rewrites the
        // file while the map lives (see above); the map is read-only and
        // private, and every consumer validates the bytes it reads.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        #[cfg(unix)]
        {
            // Sequential access: let the kernel read ahead.
            let _ = map.advise(memmap2::Advice::Sequential);
        }
        Ok(FileBytes::Mapped(map))
    }

    /// True when the bytes are a memory map.
    pub fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }
}

/// What the tests of this module and of its children share.
#[cfg(test)]
mod testing {
    use std::io::{self, Read, Write};

    /// Everything `r` hands out, or its error.
    pub(super) fn read_all(mut r: impl Read) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    /// `body` gzipped.
    pub(super) fn gzip(body: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(body).unwrap();
        gz.finish().unwrap()
    }

    /// `text` in UTF-16, little or big endian, without a byte order mark.
    pub(super) fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| {
                if big_endian {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    }

    /// A reader handing out at most `step` bytes a call, cycling 1..=step.
    pub(super) struct Trickle<'a> {
        bytes: &'a [u8],
        at: usize,
        step: usize,
        next: usize,
    }

    /// `bytes`, at most `step` a read.
    pub(super) fn trickle(bytes: &[u8], step: usize) -> Trickle<'_> {
        Trickle {
            bytes,
            at: 0,
            step,
            next: 0,
        }
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.next = self.next % self.step + 1;
            let n = self.next.min(buf.len()).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::read_all;
    use super::*;

    #[test]
    fn a_file_that_shrinks_under_the_reader_is_reported() {
        let dir = std::env::temp_dir().join(format!("cctape-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("live.jsonl");
        std::fs::write(&p, b"{\"type\":\"user\"}\n".repeat(10_000)).unwrap();
        let report = EndReport::new();
        let (mut r, kind, _) = open_file(&p, &report).unwrap();
        assert_eq!(kind, SourceKind::Regular { len: 160_000 });
        let mut buf = vec![0u8; 1000];
        r.read_exact(&mut buf).unwrap();
        // logrotate copytruncate, under the reader.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(0)
            .unwrap();
        assert_eq!(read_all(&mut r).unwrap(), b"");
        let e = report.take().expect("shrinking reported").to_string();
        assert!(
            e.contains("160000 bytes when opened, it ended at byte 1000"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The watch fails at the first byte past the limit, whatever the read
    /// sizes, and hands out every byte before it.
    #[test]
    fn lf_watch_ends_a_run_without_lf_at_the_same_byte_for_any_reads() {
        let mut input = b"ab\ncd\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 30));
        input.extend(b"\nok\n");
        for limit in [10u64, 29, 30, 31] {
            for size in 1..12 {
                let mut w = LfWatch::new(&input[..], limit);
                let mut got = Vec::new();
                let mut buf = vec![0u8; size];
                let err = loop {
                    match w.read(&mut buf) {
                        Ok(0) => break None,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                        Err(e) => break Some(e),
                    }
                };
                if limit < 30 {
                    assert!(err.is_some(), "limit {limit} size {size}");
                    // Up to and including the first byte past the limit.
                    assert_eq!(got.len() as u64, 6 + limit + 1, "limit {limit} size {size}");
                } else {
                    assert!(err.is_none(), "limit {limit} size {size}");
                    assert_eq!(got, input);
                }
            }
        }
    }

    #[test]
    fn files_are_read_and_mapped_only_on_request() {
        let dir = std::env::temp_dir().join(format!("cctape-bytes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let large = dir.join("large.jsonl");
        let body = b"{\"type\":\"user\"}\n".repeat(100_000);
        std::fs::write(&large, &body).unwrap();
        let b = FileBytes::open(&large).unwrap();
        assert!(!b.is_mapped());
        assert_eq!(&b[..], &body[..]);
        // SAFETY: nobody else writes this file.
        #[allow(unsafe_code)]
        let m = unsafe { FileBytes::map(&large) }.unwrap();
        assert!(m.is_mapped());
        assert_eq!(&m[..], &body[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
