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
        if meta.is_file() && meta.len() >= MMAP_THRESHOLD {
            if let Ok(map) = map_file(&file) {
                return Ok(FileBytes::Mapped(map));
            }
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
