//! Following files as they grow, as `tail -F` does: the input layer's
//! reading of a live file. This module owns how a followed path is read:
//! from its start (or its end), on as it grows, reopened by name when the
//! file there is another one (renamed away and re-created: told by device
//! and inode) or was truncated, waited for while it is missing; a folder
//! watched for new stream files (the names and globs a walk takes,
//! [`crate::inputs::Walk`]); and where each file was read to, kept in a
//! [`Checkpoint`] so that a restart resumes there.
//!
//! A [`Follower`] hands out [`Item`]s: bytes of one file that end at an
//! LF (complete lines only, so that what was handed out always ends at a
//! line boundary and the positions are where a restart resumes), and
//! [`Change`]s (a file opened, replaced, truncated, gone) for the reader to
//! say. The bytes of one file come out in order; the files' lines are
//! interleaved line-wise as they grow. A file that was replaced is read to
//! its end first, so lines written before the rename are not lost; a line
//! cut off by a rotation or a truncation is handed out with an LF added.
//!
//! File-system events come from the `notify` crate (inotify, kqueue,
//! FSEvents, ReadDirectoryChanges: a well-kept crate rather than
//! hand-written inotify); every file is also looked at each
//! [`FollowOptions::poll`], so that a missed event (network file systems,
//! a platform without events, a watch that could not be set) only delays a
//! line. Nothing spins: waiting is on the event channel with the poll
//! interval as its timeout.
//!
//! ```no_run
//! use cctape::follow::{Follower, FollowOptions, Item};
//! use std::time::Duration;
//!
//! let mut f = Follower::new(&["run.jsonl".into()], FollowOptions::default())?;
//! loop {
//!     match f.next_item(Duration::from_secs(1))? {
//!         Some(Item::Lines { bytes, .. }) => print!("{}", String::from_utf8_lossy(bytes)),
//!         Some(Item::Change { path, change, .. }) => eprintln!("{}: {change}", path.display()),
//!         None => {} // a second without a line
//!     }
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::inputs::{Globs, Walk};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How files are followed.
#[derive(Clone, Debug)]
pub struct FollowOptions {
    /// Start at the end of the files that exist when following starts
    /// (`tail -n 0 -F`); files that appear later are read from their
    /// start. Ignored for a file the checkpoint has.
    pub from_end: bool,
    /// How often every file is looked at even without a file-system event.
    pub poll: Duration,
    /// Use file-system events (on by default); off, files are only polled.
    pub events: bool,
    /// Which files found in a followed folder are read (`--glob`).
    pub globs: Globs,
    /// Follow symlinks to directories in followed folders.
    pub follow_links: bool,
    /// Bytes without an LF held at most per file; past it they are handed
    /// out as they are (the line reader reports the over-long line).
    pub max_held: usize,
}

impl Default for FollowOptions {
    fn default() -> FollowOptions {
        FollowOptions {
            from_end: false,
            poll: Duration::from_millis(250),
            events: true,
            globs: Globs::default(),
            follow_links: false,
            max_held: crate::framing::DEFAULT_MAX_LINE,
        }
    }
}

/// Where a file was read to: its device and inode (which file it is,
/// whatever its name), and the offset after the last line handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The file's device.
    pub dev: u64,
    /// The file's inode.
    pub ino: u64,
    /// The offset after the last complete line handed out.
    pub offset: u64,
    /// Where reading starts again on resume, when before `offset`: a
    /// reader that folds runs (`cctape watch`) reads the start of a run it
    /// has not finished again, and the lines before `offset` come out
    /// marked as handled already ([`Item::Lines`]'s `replayed`).
    pub replay: Option<u64>,
}

/// What happened to a followed file, for the reader to say (as `tail -F`
/// says it) and, for a stream, to know that what follows is new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The file was opened (at start, found in a folder, or back after it
    /// was missing).
    Opened,
    /// The name now holds another file (renamed away, re-created): the old
    /// one was read to its end, the new one is read from its start.
    Replaced,
    /// The file is shorter than what was read: read again from its start.
    Truncated,
    /// The name holds no file any more (or it cannot be read): waited for.
    Gone,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Change::Opened => "following",
            Change::Replaced => "has been replaced; following the new file",
            Change::Truncated => "file truncated",
            Change::Gone => "has become inaccessible; waiting for it to come back",
        })
    }
}

/// What a [`Follower`] hands out.
#[derive(Debug)]
pub enum Item<'a> {
    /// Complete lines of one file, in order.
    Lines {
        /// The file's index (in the order files were first followed).
        file: usize,
        /// Its path.
        path: &'a Path,
        /// The offset in the file of the first byte.
        offset: u64,
        /// The lines, each with its LF.
        bytes: &'a [u8],
        /// How many of the first bytes were handled before the checkpoint
        /// the follower resumed from (read again for a
        /// [`Position::replay`]); 0 otherwise.
        replayed: usize,
    },
    /// A change to one file.
    Change {
        /// The file's index.
        file: usize,
        /// Its path.
        path: &'a Path,
        /// What happened.
        change: Change,
    },
}

/// One followed path.
#[derive(Debug)]
struct Tracked {
    path: PathBuf,
    file: Option<File>,
    /// (device, inode) of the open file.
    id: (u64, u64),
    /// Bytes read from the open file.
    read: u64,
    /// Bytes read after the last LF.
    held: Vec<u8>,
    /// Said gone (not said again until it comes back).
    gone: bool,
    /// Where to start when it is first opened: an offset to resume at if
    /// the file is still the one the checkpoint saw, or its end.
    start: Start,
    /// Bytes before this offset were handled before the checkpoint.
    handled: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    Beginning,
    End,
    At(Position),
}

/// A file's identity.
#[cfg(unix)]
fn id_of(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

/// A file's identity (no inodes here: the size alone tells truncation).
#[cfg(not(unix))]
fn id_of(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// Read at most this much of one file before looking at the others.
const READ_TURN: usize = 1 << 20;

impl Tracked {
    fn new(path: PathBuf, start: Start) -> Tracked {
        Tracked {
            path,
            file: None,
            id: (0, 0),
            read: 0,
            held: Vec::new(),
            gone: false,
            start,
            handled: 0,
        }
    }

    fn position(&self) -> Option<Position> {
        self.file.as_ref().map(|_| Position {
            dev: self.id.0,
            ino: self.id.1,
            offset: self.read - self.held.len() as u64,
            replay: None,
        })
    }

    /// Open the file at its path, at the place its start says.
    fn open(&mut self) -> io::Result<bool> {
        let mut f = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        let m = f.metadata()?;
        if !m.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        let id = id_of(&m);
        self.handled = 0;
        let at = match std::mem::replace(&mut self.start, Start::Beginning) {
            Start::Beginning => 0,
            Start::End => m.len(),
            // The same file, not shorter than where it was read to.
            Start::At(p) if (p.dev, p.ino) == id && p.offset <= m.len() => {
                self.handled = p.offset;
                p.replay.filter(|&r| r <= p.offset).unwrap_or(p.offset)
            }
            Start::At(_) => 0,
        };
        if at > 0 {
            f.seek(SeekFrom::Start(at))?;
        }
        self.file = Some(f);
        self.id = id;
        self.read = at;
        self.held.clear();
        self.gone = false;
        Ok(true)
    }

    /// Read what the open file has past what was read, appending it to
    /// `held`; true when anything came.
    fn read_more(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        let Some(f) = self.file.as_mut() else {
            return Ok(false);
        };
        let mut any = false;
        let mut turn = 0;
        while turn < READ_TURN {
            let n = match f.read(buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.held.extend_from_slice(&buf[..n]);
            self.read += n as u64;
            turn += n;
            any = true;
        }
        Ok(any)
    }

    /// What the path holds now compared with the open file: `None` when it
    /// is still the file being read and not shorter.
    fn check(&self) -> Option<Change> {
        match std::fs::metadata(&self.path) {
            Err(_) => Some(Change::Gone),
            Ok(m) if id_of(&m) != self.id => Some(Change::Replaced),
            Ok(m) if m.len() < self.read => Some(Change::Truncated),
            Ok(_) => None,
        }
    }
}

/// Follows files and folders; see [the module](self).
pub struct Follower {
    files: Vec<Tracked>,
    /// Folders watched for new files.
    folders: Vec<PathBuf>,
    opts: FollowOptions,
    /// File-system events (any event: something may have changed).
    events: Option<mpsc::Receiver<()>>,
    _watcher: Option<notify::RecommendedWatcher>,
    /// Lines and changes waiting to be handed out.
    queue: std::collections::VecDeque<Queued>,
    /// The bytes of the item handed out last.
    out: Vec<u8>,
    buf: Vec<u8>,
    last_scan: Option<Instant>,
    /// Problems met (a folder that cannot be walked, a file that cannot
    /// be read), each once, for the reader to say.
    problems: Vec<(PathBuf, String)>,
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("files", &self.files.len())
            .field("folders", &self.folders)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
enum Queued {
    Lines(usize, u64, Vec<u8>, usize),
    Change(usize, Change),
}

/// Folders are walked again at most this often without an event for them.
const RESCAN_EVERY: u32 = 8;

impl Follower {
    /// Follow `paths`: files (which need not exist yet) and folders.
    pub fn new(paths: &[PathBuf], opts: FollowOptions) -> io::Result<Follower> {
        Follower::resume(paths, opts, &Checkpoint::default())
    }

    /// Follow `paths`, each file the checkpoint has resumed where it was
    /// read to if it is still the same file (device and inode) and not
    /// shorter, else read from its start.
    pub fn resume(
        paths: &[PathBuf],
        opts: FollowOptions,
        checkpoint: &Checkpoint,
    ) -> io::Result<Follower> {
        let (tx, rx) = mpsc::channel();
        let watcher = if opts.events {
            notify::recommended_watcher(move |_res: notify::Result<notify::Event>| {
                let _ = tx.send(());
            })
            .ok()
        } else {
            None
        };
        let mut f = Follower {
            files: Vec::new(),
            folders: Vec::new(),
            events: watcher.as_ref().map(|_| rx),
            _watcher: watcher,
            queue: std::collections::VecDeque::new(),
            out: Vec::new(),
            buf: vec![0; 256 << 10],
            last_scan: None,
            problems: Vec::new(),
            opts,
        };
        for p in paths {
            if p.is_dir() {
                f.watch(p, notify::RecursiveMode::Recursive);
                f.folders.push(p.clone());
            } else {
                // The parent folder tells a rename, a deletion, a re-creation.
                let parent = match p.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                f.watch(&parent, notify::RecursiveMode::NonRecursive);
                f.add(p.clone(), checkpoint, true);
            }
        }
        f.scan(checkpoint, true);
        Ok(f)
    }

    fn watch(&mut self, path: &Path, mode: notify::RecursiveMode) {
        use notify::Watcher;
        if let Some(w) = self._watcher.as_mut()
            && let Err(e) = w.watch(path, mode)
        {
            // Polled only: said once.
            self.problems.push((
                path.to_path_buf(),
                format!("no file-system events ({e}); polling"),
            ));
        }
    }

    fn add(&mut self, path: PathBuf, checkpoint: &Checkpoint, at_start: bool) {
        if self.files.iter().any(|t| t.path == path) {
            return;
        }
        let start = match checkpoint.get(&path) {
            Some(p) => Start::At(p),
            None if at_start && self.opts.from_end => Start::End,
            None => Start::Beginning,
        };
        self.files.push(Tracked::new(path, start));
    }

    /// Walk the folders for files not followed yet.
    fn scan(&mut self, checkpoint: &Checkpoint, at_start: bool) {
        self.last_scan = Some(Instant::now());
        for d in self.folders.clone() {
            let mut w = Walk {
                globs: self.opts.globs.clone(),
                ..Walk::default()
            };
            w.dir(&d, self.opts.follow_links);
            for (p, e) in w.errors {
                if !self.problems.iter().any(|(q, _)| *q == p) {
                    self.problems.push((p, e.to_string()));
                }
            }
            for p in w.files {
                self.add(p, checkpoint, at_start);
            }
        }
    }

    /// Problems met since the last call (a folder that cannot be walked, a
    /// file that cannot be read, no file-system events for a path).
    pub fn take_problems(&mut self) -> Vec<(PathBuf, String)> {
        std::mem::take(&mut self.problems)
    }

    /// The paths followed, by index.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|t| t.path.as_path())
    }

    /// Where each open file was read to (after the last line handed out):
    /// what a [`Checkpoint`] keeps.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            files: self
                .files
                .iter()
                .filter_map(|t| Some((t.path.clone(), t.position()?)))
                .collect(),
        }
    }

    /// Look at every file once: read what it has, reopen it if it changed.
    fn look(&mut self) {
        for i in 0..self.files.len() {
            if let Err(e) = self.look_at(i) {
                let t = &mut self.files[i];
                let msg = e.to_string();
                if !self.problems.iter().any(|(p, m)| *p == t.path && *m == msg) {
                    self.problems.push((t.path.clone(), msg));
                }
                t.file = None;
                t.held.clear();
            }
        }
    }

    fn look_at(&mut self, i: usize) -> io::Result<()> {
        let t = &mut self.files[i];
        if t.file.is_none() {
            if t.open()? {
                self.queue.push_back(Queued::Change(i, Change::Opened));
            } else {
                if !t.gone {
                    // Missing: said once, waited for.
                    t.gone = true;
                    self.queue.push_back(Queued::Change(i, Change::Gone));
                }
                return Ok(());
            }
        }
        let t = &mut self.files[i];
        t.read_more(&mut self.buf)?;
        let change = t.check();
        if change.is_some() {
            // Read to its end before leaving it: lines written before the
            // rename are not lost.
            t.read_more(&mut self.buf)?;
        }
        let offset = t.read - t.held.len() as u64;
        let cut = match change {
            // A line cut off by the rotation is handed out with its LF.
            Some(_) if !t.held.is_empty() => {
                if t.held.last() != Some(&b'\n') {
                    t.held.push(b'\n');
                }
                t.held.len()
            }
            _ if t.held.len() > self.opts.max_held => t.held.len(),
            _ => memchr::memrchr(b'\n', &t.held).map_or(0, |lf| lf + 1),
        };
        if cut > 0 {
            let rest = t.held.split_off(cut);
            let lines = std::mem::replace(&mut t.held, rest);
            let replayed = t.handled.saturating_sub(offset).min(lines.len() as u64) as usize;
            self.queue
                .push_back(Queued::Lines(i, offset, lines, replayed));
        }
        let Some(c) = change else {
            return Ok(());
        };
        t.file = None;
        t.held.clear();
        t.read = 0;
        t.gone = c == Change::Gone;
        self.queue.push_back(Queued::Change(i, c));
        if c != Change::Gone && t.open()? {
            // The new file (or the truncated one) from its start.
            return self.look_at(i);
        }
        Ok(())
    }

    /// The next item, waiting at most `timeout` for one; `None` when none
    /// came in that time.
    pub fn next_item(&mut self, timeout: Duration) -> io::Result<Option<Item<'_>>> {
        let deadline = Instant::now() + timeout;
        let mut scans = 0u32;
        loop {
            if let Some(q) = self.queue.pop_front() {
                return Ok(Some(match q {
                    Queued::Lines(file, offset, bytes, replayed) => {
                        self.out = bytes;
                        Item::Lines {
                            file,
                            path: &self.files[file].path,
                            offset,
                            bytes: &self.out,
                            replayed,
                        }
                    }
                    Queued::Change(file, change) => Item::Change {
                        file,
                        path: &self.files[file].path,
                        change,
                    },
                }));
            }
            self.look();
            if !self.queue.is_empty() {
                continue;
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let wait = self.opts.poll.min(deadline - now);
            let woke = match &self.events {
                Some(rx) => match rx.recv_timeout(wait) {
                    Ok(()) => {
                        // Take the burst at once.
                        while rx.try_recv().is_ok() {}
                        true
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => false,
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        self.events = None;
                        false
                    }
                },
                None => {
                    std::thread::sleep(wait);
                    false
                }
            };
            scans += 1;
            if !self.folders.is_empty() && (woke || scans.is_multiple_of(RESCAN_EVERY)) {
                self.scan(&Checkpoint::default(), false);
            }
        }
    }
}

/// Where each followed file was read to, by path: saved after lines are
/// handled, loaded at the next start ([`Follower::resume`]).
///
/// Saved as JSON (`{"version":1,"files":[{"path":...,"dev":...,"ino":...,
/// "offset":...}]}`, and `"replay"` where [`Position::replay`] is set), replaced atomically: written to a temporary file in
/// the same folder, synced, then renamed over the old one, so a crash
/// leaves the old checkpoint or the new one, never half of one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// Each file's path and position.
    pub files: Vec<(PathBuf, Position)>,
}

impl Checkpoint {
    /// The position kept for `path`.
    pub fn get(&self, path: &Path) -> Option<Position> {
        self.files.iter().find(|(p, _)| p == path).map(|(_, q)| *q)
    }

    /// Set the position kept for `path`.
    pub fn set(&mut self, path: &Path, pos: Position) {
        match self.files.iter_mut().find(|(p, _)| p == path) {
            Some(e) => e.1 = pos,
            None => self.files.push((path.to_path_buf(), pos)),
        }
    }

    /// Read a checkpoint; a missing file is an empty one, a file that is
    /// not one is an error that says where it is wrong.
    pub fn load(path: &Path) -> io::Result<Checkpoint> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Checkpoint::default()),
            Err(e) => return Err(e),
        };
        let bad = |what: String| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: not a checkpoint: {what}",
                    crate::inputs::shown_path(path)
                ),
            )
        };
        let v: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| bad(format!("line {} column {}: {e}", e.line(), e.column())))?;
        let list = v
            .get("files")
            .and_then(|f| f.as_array())
            .ok_or_else(|| bad("no `files` array".into()))?;
        let mut files = Vec::with_capacity(list.len());
        for (i, e) in list.iter().enumerate() {
            let num = |k: &str| {
                e.get(k)
                    .and_then(serde_json::Value::as_u64)
                    .ok_or_else(|| bad(format!("files[{i}].{k}: expected a number")))
            };
            let p = e
                .get("path")
                .and_then(|p| p.as_str())
                .ok_or_else(|| bad(format!("files[{i}].path: expected a string")))?;
            files.push((
                PathBuf::from(p),
                Position {
                    dev: num("dev")?,
                    ino: num("ino")?,
                    offset: num("offset")?,
                    replay: e.get("replay").and_then(serde_json::Value::as_u64),
                },
            ));
        }
        Ok(Checkpoint { files })
    }

    /// Write the checkpoint to `path`, replacing it atomically.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        use std::io::Write;
        let files: Vec<serde_json::Value> = self
            .files
            .iter()
            .map(|(p, q)| {
                let mut e = serde_json::json!({
                    "path": p.to_string_lossy(),
                    "dev": q.dev,
                    "ino": q.ino,
                    "offset": q.offset,
                });
                if let Some(r) = q.replay {
                    e["replay"] = r.into();
                }
                e
            })
            .collect();
        let doc = serde_json::json!({ "version": 1, "files": files });
        let mut text = serde_json::to_vec_pretty(&doc).map_err(io::Error::other)?;
        text.push(b'\n');
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned());
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let written = (|| {
            let mut f = File::create(&tmp)?;
            f.write_all(&text)?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }
}

/// The lines of followed files as one [`Read`] stream (the files' lines
/// interleaved line-wise), for readers that take any `Read`:
/// [`crate::stream::EventReader`], [`crate::run::RunReader`]. A read
/// waits for lines; with [`read_timeout`](FollowReader::read_timeout) set,
/// one that waited that long without a line fails with
/// [`io::ErrorKind::TimedOut`], as a socket's read does, which
/// [`crate::run::RunReader::idle_for`] takes as "nothing yet". Changes are
/// not told; the reader never ends.
#[derive(Debug)]
pub struct FollowReader {
    follower: Follower,
    pending: Vec<u8>,
    at: usize,
    timeout: Option<Duration>,
    save_to: Option<PathBuf>,
    saved: Option<Instant>,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// A checkpoint is saved at most this often while lines come.
const SAVE_EVERY: Duration = Duration::from_millis(500);

impl FollowReader {
    /// Read the lines `follower` hands out.
    pub fn new(follower: Follower) -> FollowReader {
        FollowReader {
            follower,
            pending: Vec::new(),
            at: 0,
            timeout: None,
            save_to: None,
            saved: None,
            stop: None,
        }
    }

    /// A read that waits this long without a line fails with `TimedOut`;
    /// `None` (the default) waits for ever.
    pub fn read_timeout(mut self, timeout: Option<Duration>) -> FollowReader {
        self.timeout = timeout;
        self
    }

    /// Save the [`Checkpoint`] to `path` (atomically) as lines are read:
    /// each time the bytes handed out so far were all taken by the caller
    /// (it asks for more), at most every half second, and when the reader
    /// stops. A checkpoint that cannot be written fails the read.
    pub fn checkpoint_to(mut self, path: PathBuf) -> FollowReader {
        self.save_to = Some(path);
        self
    }

    /// End the stream (a read returns 0, after the checkpoint is saved)
    /// once `flag` is set, at the next line boundary: what was handed out
    /// is whole lines, and the checkpoint says where to resume.
    pub fn stop_on(mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> FollowReader {
        self.stop = Some(flag);
        self
    }

    /// The follower.
    pub fn follower(&self) -> &Follower {
        &self.follower
    }

    fn save(&mut self, now: bool) -> io::Result<()> {
        let Some(path) = &self.save_to else {
            return Ok(());
        };
        if !now && self.saved.is_some_and(|t| t.elapsed() < SAVE_EVERY) {
            return Ok(());
        }
        self.follower.checkpoint().save(path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("checkpoint {}: {e}", crate::inputs::shown_path(path)),
            )
        })?;
        self.saved = Some(Instant::now());
        Ok(())
    }
}

impl Read for FollowReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let start = Instant::now();
        let mut fresh = true;
        while self.at == self.pending.len() {
            // Everything handed out was taken: where a restart resumes.
            if !self.pending.is_empty() || fresh {
                self.save(false)?;
                fresh = false;
            }
            let stopped = self
                .stop
                .as_ref()
                .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed));
            if stopped {
                self.save(true)?;
                return Ok(0);
            }
            let wait = match self.timeout {
                Some(t) => match t.checked_sub(start.elapsed()) {
                    Some(w) if !w.is_zero() => w,
                    _ => return Err(io::Error::from(io::ErrorKind::TimedOut)),
                },
                // Looked at the stop flag this often.
                None => Duration::from_millis(100),
            };
            self.pending.clear();
            self.at = 0;
            if let Some(Item::Lines { bytes, .. }) = self.follower.next_item(wait)? {
                self.pending.extend_from_slice(bytes);
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
