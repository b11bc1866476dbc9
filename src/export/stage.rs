//! The staging folder of an export, and the swap that puts its tables in
//! place: what makes an export replace the previous one whole or not at
//! all.
//!
//! An export into `DIR` writes everything into `DIR/.cctape-tmp-<pid>-<n>/`
//! (a hidden folder beside the tables, on the same file system, that no
//! table's glob or folder read reaches): `events/`, `runs/` and `tools/`,
//! each part file under `part-NNNNN.parquet.partial` until its footer is
//! written and it is synced to disk, then renamed to `part-NNNNN.parquet`
//! (so that a file cut short never has a `.parquet` name anywhere); the
//! spill files of large inputs are anonymous files there. When every table
//! is complete, the folders are synced and each table folder is swapped
//! with `DIR/<table>` in one rename (`renameat2(RENAME_EXCHANGE)` on Linux,
//! `renamex_np(RENAME_SWAP)` on macOS, through `rustix`; elsewhere, or on a
//! file system without it, two renames, between which the table is absent
//! for an instant, never mixed). A reader of one table sees all the old
//! parts or all the new ones. The three tables are swapped one after the
//! other, so a reader of several may, for that instant, see one table new
//! and another old. Files in `DIR/<table>` that are not part files (a
//! README, a `_SUCCESS`) are moved into the new folder before its swap.
//! The old folders, now in the staging folder, are removed last, and `DIR`
//! is synced.
//!
//! A failure before the swap (a full disk, a read-only folder, an input
//! that breaks the writer), a signal handled by the CLI ([`AbortHandle`])
//! or dropping the [`Writer`](super::Writer) removes the staging folder
//! and leaves `DIR` as it was. A process killed outright leaves the
//! staging folder, which the next export into `DIR` removes (only what
//! cctape writes there: anything else is kept, and said). While an export
//! writes, it holds an advisory lock on `DIR` (`flock`, Unix), so that a
//! second export into the same folder fails at once instead of mixing
//! their tables.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The staging folder's name starts with this.
pub(crate) const PREFIX: &str = ".cctape-tmp-";

/// A part file being written ends with this.
pub(crate) const PARTIAL: &str = ".partial";

/// Made in the staging folder once the swap starts: a staging folder left
/// with it was interrupted during the swap.
const SWAPPING: &str = "SWAPPING";

/// The tables, in the order they are swapped.
pub(crate) const TABLES: [&str; 3] = ["events", "runs", "tools"];

/// Where an export stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Writing,
    Swapping,
    Done,
    Aborted,
}

/// The staging folder of one export into `out`.
#[derive(Debug)]
pub(crate) struct Stage {
    out: PathBuf,
    dir: PathBuf,
    state: Arc<Mutex<State>>,
    /// The lock on `out`, held until the export ends.
    _lock: Option<File>,
    /// What cleaning earlier staging folders left, for the user.
    notes: Vec<String>,
}

/// Stops an export from another thread (the CLI's signal handler): removes
/// its staging folder unless its tables are already being swapped in.
///
/// ```
/// use cctape::export::{ExportOptions, Writer};
///
/// let dir = std::env::temp_dir().join(format!("cctape-doc-abort-{}", std::process::id()));
/// let w = Writer::create(&dir, &ExportOptions::default())?;
/// let stop = w.abort_handle();
/// assert!(stop.abort(), "nothing was swapped in yet");
/// assert!(w.finish().is_err(), "an aborted export writes nothing");
/// assert!(!dir.join("events").exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct AbortHandle {
    state: Arc<Mutex<State>>,
    dir: PathBuf,
}

impl AbortHandle {
    /// Remove the staging folder and make the export fail, unless its
    /// swap has begun: then wait for the swap to end and return false (the
    /// new export is in place, or was rolled back on a failure). True when
    /// the export was stopped before touching the output.
    pub fn abort(&self) -> bool {
        let mut g = lock(&self.state);
        if *g != State::Writing {
            return false;
        }
        *g = State::Aborted;
        abandon(&self.dir);
        true
    }
}

impl AbortHandle {
    /// True once the new tables are in place (the swap is over).
    pub fn swapped_in(&self) -> bool {
        *lock(&self.state) == State::Done
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remove a staging folder being written: first renamed (so that no file
/// can be made under its name any more by a thread still writing), then
/// what cctape wrote in it.
fn abandon(dir: &Path) {
    let mut gone = dir.as_os_str().to_owned();
    gone.push("-aborted");
    let gone = PathBuf::from(gone);
    let at = if fs::rename(dir, &gone).is_ok() {
        gone
    } else {
        dir.to_path_buf()
    };
    let _ = remove_own(&at);
}

fn with_path(e: io::Error, what: &str, p: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", p.display()))
}

/// A part file's name, complete or being written.
pub(crate) fn is_part_name(name: &str) -> bool {
    let name = name.strip_suffix(PARTIAL).unwrap_or(name);
    name.strip_prefix("part-")
        .and_then(|n| n.strip_suffix(".parquet"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn is_part_file(e: &fs::DirEntry) -> bool {
    e.file_type().is_ok_and(|t| t.is_file()) && e.file_name().to_str().is_some_and(is_part_name)
}

/// Remove what cctape writes in a staging folder (its table folders with
/// their part files, the swap marker) and the folder itself; returns what
/// was not cctape's and is kept.
fn remove_own(stage: &Path) -> io::Result<Vec<PathBuf>> {
    let mut kept = Vec::new();
    for e in fs::read_dir(stage)? {
        let e = e?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ty = e.file_type()?;
        let table = TABLES
            .iter()
            .any(|t| name == *t || name.strip_suffix(".old") == Some(t));
        if ty.is_dir() && table {
            for f in fs::read_dir(e.path())? {
                let f = f?;
                if is_part_file(&f) {
                    fs::remove_file(f.path())?;
                } else {
                    kept.push(f.path());
                }
            }
            let _ = fs::remove_dir(e.path());
        } else if ty.is_file() && name == SWAPPING {
            fs::remove_file(e.path())?;
        } else {
            kept.push(e.path());
        }
    }
    if kept.is_empty() {
        fs::remove_dir(stage)?;
    }
    Ok(kept)
}

/// Sync a folder's entries to disk (Unix; elsewhere a folder cannot be
/// opened to be synced, and this does nothing).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| with_path(e, "syncing", dir))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Take the advisory lock on `out` (Unix: `flock` on the folder).
fn lock_out(out: &Path) -> io::Result<Option<File>> {
    #[cfg(unix)]
    {
        let f = File::open(out).map_err(|e| with_path(e, "opening", out))?;
        match f.try_lock() {
            Ok(()) => Ok(Some(f)),
            Err(fs::TryLockError::WouldBlock) => Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "{}: another export is writing into this folder",
                    out.display()
                ),
            )),
            Err(fs::TryLockError::Error(e)) => Err(with_path(e, "locking", out)),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = out;
        Ok(None)
    }
}

/// Each table's path in `out` must be a folder or absent.
fn check_tables(out: &Path) -> io::Result<()> {
    for t in TABLES {
        let p = out.join(t);
        match fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} is not a folder (an export replaces its table folders whole)",
                        p.display()
                    ),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(with_path(e, "reading", &p)),
        }
    }
    Ok(())
}

/// Remove the staging folders earlier exports left (killed outright); what
/// to tell the user.
fn clean_stale(out: &Path) -> io::Result<Vec<String>> {
    let mut notes = Vec::new();
    for e in fs::read_dir(out).map_err(|e| with_path(e, "reading", out))? {
        let e = e?;
        let stale = e
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(PREFIX))
            && e.file_type().is_ok_and(|t| t.is_dir());
        if !stale {
            continue;
        }
        let p = e.path();
        if p.join(SWAPPING).is_file() {
            notes.push(format!(
                "{}: an earlier export was stopped while it swapped its tables in, so some \
                 tables were from it and others from the one before; this export replaces them all",
                p.display()
            ));
        }
        let kept = remove_own(&p).map_err(|e| with_path(e, "removing", &p))?;
        if !kept.is_empty() {
            let names: Vec<String> = kept.iter().map(|k| k.display().to_string()).collect();
            notes.push(format!(
                "kept {}: left by an earlier export that was stopped, not written by cctape",
                names.join(", ")
            ));
        }
    }
    Ok(notes)
}

impl Stage {
    /// Lock `out` (made if needed), clean what earlier exports left, check
    /// that the tables can be swapped, and make the staging folder with a
    /// folder per table.
    pub(crate) fn create(out: &Path) -> io::Result<Stage> {
        fs::create_dir_all(out).map_err(|e| with_path(e, "creating", out))?;
        let lock = lock_out(out)?;
        check_tables(out)?;
        let notes = clean_stale(out)?;
        static N: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = out.join(format!(
            "{PREFIX}{}-{:x}{nanos:08x}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir(&dir).map_err(|e| with_path(e, "creating", &dir))?;
        let stage = Stage {
            out: out.to_path_buf(),
            dir,
            state: Arc::new(Mutex::new(State::Writing)),
            _lock: lock,
            notes,
        };
        for t in TABLES {
            let p = stage.dir.join(t);
            fs::create_dir(&p).map_err(|e| with_path(e, "creating", &p))?;
        }
        Ok(stage)
    }

    /// The staging folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// What cleaning earlier staging folders left or found.
    pub(crate) fn notes(&self) -> &[String] {
        &self.notes
    }

    /// A handle that stops the export from another thread.
    pub(crate) fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            state: Arc::clone(&self.state),
            dir: self.dir.clone(),
        }
    }

    /// True while the export may go on writing.
    pub(crate) fn writing(&self) -> bool {
        *lock(&self.state) == State::Writing
    }

    /// Swap every table in (its part files complete and synced), then
    /// remove the old ones. On a failure before the last swap, the tables
    /// swapped are swapped back and the output is as it was.
    pub(crate) fn swap_in(&self) -> io::Result<()> {
        let mut g = lock(&self.state);
        if *g != State::Writing {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "the export was stopped",
            ));
        }
        *g = State::Swapping;
        let r = self.swap_tables();
        *g = if r.is_ok() {
            State::Done
        } else {
            State::Writing
        };
        r
    }

    fn swap_tables(&self) -> io::Result<()> {
        for t in TABLES {
            sync_dir(&self.dir.join(t))?;
        }
        let marker = self.dir.join(SWAPPING);
        File::create(&marker)
            .and_then(|f| f.sync_all())
            .map_err(|e| with_path(e, "creating", &marker))?;
        sync_dir(&self.dir)?;
        check_tables(&self.out)?;
        let mut done: Vec<Swapped> = Vec::new();
        for t in TABLES {
            match self.swap_one(t) {
                Ok(s) => done.push(s),
                Err(e) => {
                    // Back as it was, last swapped first.
                    for s in done.iter().rev() {
                        let _ = self.unswap(s);
                    }
                    let _ = fs::remove_file(&marker);
                    return Err(e);
                }
            }
        }
        sync_dir(&self.out)?;
        sync_dir(&self.dir)?;
        // The old tables are in the staging folder now: removed with it.
        // Anything that is not cctape's stays there (the next export says
        // so).
        let _ = remove_own(&self.dir);
        let _ = sync_dir(&self.out);
        Ok(())
    }

    /// Put the staged table `t` in place of `out/t`.
    fn swap_one(&self, t: &str) -> io::Result<Swapped> {
        let new = self.dir.join(t);
        let live = self.out.join(t);
        if !live.exists() {
            fs::rename(&new, &live).map_err(|e| with_path(e, "renaming into", &live))?;
            return Ok(Swapped {
                table: t.to_string(),
                old: None,
                moved: Vec::new(),
            });
        }
        // Files of the old folder that are not part files go along.
        let mut moved = Vec::new();
        for e in fs::read_dir(&live).map_err(|e| with_path(e, "reading", &live))? {
            let e = e?;
            if is_part_file(&e) {
                continue;
            }
            let to = new.join(e.file_name());
            if let Err(err) = fs::rename(e.path(), &to) {
                for (from, to) in moved.iter().rev() {
                    let _ = fs::rename(to, from);
                }
                return Err(with_path(err, "moving", &e.path()));
            }
            moved.push((e.path(), to));
        }
        let undo = |moved: &[(PathBuf, PathBuf)]| {
            for (from, to) in moved.iter().rev() {
                let _ = fs::rename(to, from);
            }
        };
        match exchange(&new, &live) {
            Ok(true) => {
                return Ok(Swapped {
                    table: t.to_string(),
                    old: Some(new),
                    moved,
                });
            }
            Ok(false) => {}
            Err(e) => {
                undo(&moved);
                return Err(e);
            }
        }
        let old = self.dir.join(format!("{t}.old"));
        if let Err(e) = fs::rename(&live, &old) {
            undo(&moved);
            return Err(with_path(e, "renaming", &live));
        }
        if let Err(e) = fs::rename(&new, &live) {
            let _ = fs::rename(&old, &live);
            undo(&moved);
            return Err(with_path(e, "renaming into", &live));
        }
        Ok(Swapped {
            table: t.to_string(),
            old: Some(old),
            moved,
        })
    }

    /// Undo [`Stage::swap_one`].
    fn unswap(&self, s: &Swapped) -> io::Result<()> {
        let live = self.out.join(&s.table);
        let new = self.dir.join(&s.table);
        match &s.old {
            None => fs::rename(&live, &new)?,
            Some(old) if *old == new => {
                exchange(&new, &live)?;
            }
            Some(old) => {
                fs::rename(&live, &new)?;
                fs::rename(old, &live)?;
            }
        }
        for (from, to) in s.moved.iter().rev() {
            let _ = fs::rename(to, from);
        }
        Ok(())
    }
}

/// One table swapped in: where the old folder went (none when there was
/// none), and the files carried from it into the new one.
struct Swapped {
    table: String,
    old: Option<PathBuf>,
    moved: Vec<(PathBuf, PathBuf)>,
}

/// Swap two folders in one rename; false when the system or the file
/// system cannot.
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        use rustix::io::Errno;
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => Ok(false),
            Err(e) => Err(with_path(e.into(), "swapping", b)),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

impl Drop for Stage {
    /// An export not swapped in (a failure, a panic, dropped unfinished)
    /// leaves nothing behind.
    fn drop(&mut self) {
        let mut g = lock(&self.state);
        if *g == State::Writing {
            *g = State::Aborted;
            abandon(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names() {
        for ok in [
            "part-00000.parquet",
            "part-7.parquet",
            "part-00012.parquet.partial",
        ] {
            assert!(is_part_name(ok), "{ok}");
        }
        for no in [
            "part-.parquet",
            "part-0a.parquet",
            "part-00000.parquet.tmp",
            "x-00000.parquet",
            "README",
        ] {
            assert!(!is_part_name(no), "{no}");
        }
    }
}
