//! Scratch directories for tests: one fresh directory per call under the
//! system's temporary directory, removed when the guard drops (also when
//! the test panics), so that a test run leaves nothing behind. Set
//! `CCTAPE_KEEP_SCRATCH=1` to keep them for a look after a failure.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A directory removed on drop; reads as a [`Path`].
#[derive(Debug)]
pub struct Scratch(PathBuf);

/// A new empty directory named `cctape-TAG-PID-N`.
pub fn scratch(tag: &str) -> Scratch {
    static N: AtomicU64 = AtomicU64::new(0);
    let p = std::env::temp_dir().join(format!(
        "cctape-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).expect("scratch directory");
    Scratch(p)
}

impl Scratch {
    /// The directory's path, owned.
    pub fn to_path_buf(&self) -> PathBuf {
        self.0.clone()
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("CCTAPE_KEEP_SCRATCH").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
