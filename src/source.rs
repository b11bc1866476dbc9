//! Sources: getting a file's bytes into memory, by memory map or by read.
//!
//! One place decides how an input is read. Large regular files are memory
//! mapped (no copy; the page cache is the buffer); small ones are read whole,
//! which is cheaper than setting up a mapping. Streams (stdin, pipes,
//! decompressors) go through [`crate::stream::EventReader`] instead.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;

/// Files at least this large are memory mapped: 1 MiB.
pub const MMAP_THRESHOLD: u64 = 1 << 20;

/// A whole file's bytes: mapped or read.
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
    /// Open `path`: memory mapped when it is a regular file of at least
    /// [`MMAP_THRESHOLD`] bytes, read whole otherwise. A mapping that fails
    /// falls back to reading.
    pub fn open(path: &Path) -> io::Result<FileBytes> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file()
            && meta.len() >= MMAP_THRESHOLD
            && let Ok(map) = map_file(&file)
        {
            return Ok(FileBytes::Mapped(map));
        }
        let mut v = Vec::with_capacity(meta.len().try_into().unwrap_or(0));
        file.read_to_end(&mut v)?;
        Ok(FileBytes::Read(v))
    }

    /// True when the bytes are a memory map.
    pub fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }
}

/// How an input is compressed, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed (or not a format we know).
    None,
    /// gzip (`1f 8b`); concatenated members are read as one stream.
    Gzip,
    /// zstd (`28 b5 2f fd`); concatenated frames are read as one stream.
    Zstd,
}

impl Compression {
    /// Tell the compression from an input's first bytes (four are enough).
    ///
    /// ```
    /// use cctape::source::Compression;
    /// assert_eq!(Compression::detect(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
    /// assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd]), Compression::Zstd);
    /// assert_eq!(Compression::detect(b"{\"type\""), Compression::None);
    /// ```
    pub fn detect(prefix: &[u8]) -> Compression {
        if prefix.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if prefix.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// The name used in messages (`gzip`, `zstd`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }

    /// Wrap `rdr` in the matching decoder (or return it as is).
    pub fn decoder<'a, R: Read + 'a>(self, rdr: R) -> io::Result<Box<dyn Read + 'a>> {
        Ok(match self {
            Compression::None => Box::new(rdr),
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
                io::BufReader::with_capacity(256 << 10, rdr),
            )),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(rdr)?),
        })
    }
}

/// Open a stream, detecting gzip or zstd by its first bytes: the bytes read
/// to sniff are put back in front of the stream.
pub fn decompressing<'a, R: Read + 'a>(
    mut rdr: R,
) -> io::Result<(Compression, Box<dyn Read + 'a>)> {
    let mut head = [0u8; 4];
    let mut n = 0;
    while n < head.len() {
        match rdr.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let c = Compression::detect(&head[..n]);
    let whole = io::Cursor::new(head).take(n as u64).chain(rdr);
    Ok((c, c.decoder(whole)?))
}

#[allow(unsafe_code)]
fn map_file(file: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. The one hazard
    // is another process truncating or rewriting the file while it is mapped,
    // which can raise SIGBUS or show changing bytes; like ripgrep, we accept
    // that for regular files given on the command line (a log still being
    // appended to only grows, which is safe). Nothing here assumes the bytes
    // are valid UTF-8 or JSON: every consumer validates what it reads.
    let map = unsafe { memmap2::Mmap::map(file)? };
    #[cfg(unix)]
    {
        // Sequential access: let the kernel read ahead aggressively.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_and_zstd_streams_are_detected_and_decoded() {
        use std::io::Write;
        let body = b"{\"type\":\"user\"}\n".repeat(1000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&body).unwrap();
        let mut gz = gz.finish().unwrap();
        // Two members concatenated read as one stream.
        let second = gz.clone();
        gz.extend_from_slice(&second);
        let (c, mut r) = decompressing(&gz[..]).unwrap();
        assert_eq!(c, Compression::Gzip);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out.len(), body.len() * 2);
        let zs = zstd::encode_all(&body[..], 1).unwrap();
        let (c, mut r) = decompressing(&zs[..]).unwrap();
        assert_eq!(c, Compression::Zstd);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, body);
        let (c, mut r) = decompressing(&b"ab"[..]).unwrap();
        assert_eq!(c, Compression::None);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"ab");
    }

    #[test]
    fn small_files_are_read_and_large_ones_mapped() {
        let dir = std::env::temp_dir().join(format!("cctape-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small.jsonl");
        std::fs::write(&small, b"{\"type\":\"user\"}\n").unwrap();
        let b = FileBytes::open(&small).unwrap();
        assert!(!b.is_mapped());
        assert_eq!(&b[..], b"{\"type\":\"user\"}\n");
        let large = dir.join("large.jsonl");
        let body = b"{\"type\":\"user\"}\n".repeat((MMAP_THRESHOLD as usize / 16) + 1);
        std::fs::write(&large, &body).unwrap();
        let b = FileBytes::open(&large).unwrap();
        assert!(b.is_mapped());
        assert_eq!(&b[..], &body[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
