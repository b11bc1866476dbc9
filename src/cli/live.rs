//! The flags of live inputs, shared by `watch`, `verdict`, `filter` and
//! `fields`: `-F` (follow the named files and folders as `tail -F` does,
//! through [`cctape::follow`]), `--from-end`, `--checkpoint`, `--poll`, and
//! `--line-buffered` (grep's). What following means is the library's; this
//! module only turns the flags into its options.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// `-F` and the flags that go with it.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Live inputs")]
pub struct Follow {
    /// Follow the PATHs as `tail -F` does: read what they hold, then what
    /// is appended, reopening a file renamed, replaced or truncated (told
    /// by device and inode), waiting for one deleted to come back; a
    /// folder is watched for new files (the names and globs a walk
    /// takes). Runs until interrupted (SIGINT, SIGTERM).
    #[arg(short = 'F', long = "follow-name")]
    pub follow_name: bool,
    /// With -F, start at the end of the files that exist (new files and
    /// files that come back are read from their start).
    #[arg(long, requires = "follow_name")]
    pub from_end: bool,
    /// With -F, keep where each file was read to in FILE (device, inode,
    /// offset; replaced atomically) and resume from it on the next start:
    /// no line is read twice or missed across a restart.
    #[arg(long, value_name = "FILE", requires = "follow_name")]
    pub checkpoint: Option<PathBuf>,
    /// With -F, look at the files at least this often (milliseconds), in
    /// case a file-system event was missed (network file systems, or no
    /// event support).
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 250,
        requires = "follow_name"
    )]
    pub poll: u64,
}

impl Follow {
    /// The library's options.
    pub fn options(&self) -> cctape::follow::FollowOptions {
        cctape::follow::FollowOptions {
            from_end: self.from_end,
            poll: Duration::from_millis(self.poll.max(1)),
            ..cctape::follow::FollowOptions::default()
        }
    }
}

impl Follow {
    /// What `-F` follows for `filter` and `fields`: the paths as one
    /// stream input, with the walk's globs.
    pub fn input(&self, common: &super::Common) -> super::inputs::Input {
        let globs = (common.glob.iter().map(|g| (g.clone(), false)))
            .chain(common.iglob.iter().map(|g| (g.clone(), true)))
            .collect();
        super::inputs::Input::Follow(Box::new(super::inputs::Followed {
            paths: common.paths.clone(),
            from_end: self.from_end,
            poll_ms: self.poll,
            checkpoint: self.checkpoint.clone(),
            globs,
            links: common.follow,
        }))
    }
}

/// The reader of a `-F` input: the followed files' lines as one stream,
/// the checkpoint saved as they are read, ended by SIGINT or SIGTERM at a
/// line boundary.
pub fn reader(f: &super::inputs::Followed) -> std::io::Result<cctape::follow::FollowReader> {
    if f.paths.is_empty() {
        return Err(std::io::Error::other("-F needs a file or folder to follow"));
    }
    let mut globs = cctape::inputs::Globs::default();
    for (g, ci) in &f.globs {
        // Checked when parsed.
        let _ = globs.add(g, *ci);
    }
    let opts = cctape::follow::FollowOptions {
        from_end: f.from_end,
        poll: Duration::from_millis(f.poll_ms.max(1)),
        globs,
        follow_links: f.links,
        ..cctape::follow::FollowOptions::default()
    };
    let checkpoint = match &f.checkpoint {
        Some(p) => cctape::follow::Checkpoint::load(p)?,
        None => cctape::follow::Checkpoint::default(),
    };
    let follower = cctape::follow::Follower::resume(&f.paths, opts, &checkpoint)?;
    let mut r = cctape::follow::FollowReader::new(follower).stop_on(stop_flag());
    if let Some(p) = &f.checkpoint {
        r = r.checkpoint_to(p.clone());
    }
    Ok(r)
}

/// `--line-buffered`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Buffering {
    /// Write each record to stdout as soon as it is made (grep's flag).
    /// Without it, output from a live input (a pipe, -F) is written as
    /// soon as the reader has caught up with the writer, and from files in
    /// large blocks.
    #[arg(long)]
    pub line_buffered: bool,
}

/// Where a live command's bytes come from: standard input, read on a
/// thread of its own so that the command can act while no byte comes (a
/// run's verdict once it has been idle), or the files `-F` follows.
pub enum Source {
    /// Standard input, read on a thread.
    Stdin(
        std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
        Vec<u8>,
        u64,
    ),
    /// Followed files (their lines; changes said on stderr).
    Files(Box<Files>),
}

/// The state of `-F`: the follower, its checkpoint and when it was saved.
pub struct Files {
    follower: cctape::follow::Follower,
    checkpoint: Option<PathBuf>,
    saved: std::time::Instant,
    dirty: bool,
}

/// What came from a [`Source`].
pub enum Got<'a> {
    /// Bytes of stream `stream` (0 for stdin, the file's index for `-F`),
    /// named `name`; from a file, whole lines only.
    Bytes {
        /// The stream.
        stream: usize,
        /// Its name as shown.
        name: String,
        /// The bytes.
        bytes: &'a [u8],
        /// The offset of the first one in the file (in standard input).
        offset: u64,
        /// How many of the first bytes were handled before the checkpoint
        /// this run resumed from: read again to fold a run, not printed.
        replayed: usize,
    },
    /// Nothing within the time asked.
    Nothing,
    /// The input ended (standard input), after a read error if one came.
    End(Option<std::io::Error>),
}

/// A checkpoint is saved at most this often while lines come (and when
/// the command stops).
const SAVE_EVERY: Duration = Duration::from_millis(500);

impl Source {
    /// Standard input, or with `-F` the paths followed.
    pub fn open(
        follow: &Follow,
        paths: &[PathBuf],
        walk: (cctape::inputs::Globs, bool),
    ) -> Result<Source, String> {
        if !follow.follow_name {
            let (tx, rx) = std::sync::mpsc::sync_channel(16);
            std::thread::spawn(move || {
                use std::io::Read;
                let mut stdin = std::io::stdin().lock();
                loop {
                    let mut buf = vec![0u8; 64 << 10];
                    let r = match stdin.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            buf.truncate(n);
                            Ok(buf)
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => Err(e),
                    };
                    let failed = r.is_err();
                    if tx.send(r).is_err() || failed {
                        break;
                    }
                }
            });
            return Ok(Source::Stdin(rx, Vec::new(), 0));
        }
        if paths.is_empty() {
            return Err("-F needs a file or folder to follow".into());
        }
        let checkpoint = match &follow.checkpoint {
            Some(p) => cctape::follow::Checkpoint::load(p).map_err(|e| e.to_string())?,
            None => cctape::follow::Checkpoint::default(),
        };
        let opts = cctape::follow::FollowOptions {
            globs: walk.0,
            follow_links: walk.1,
            ..follow.options()
        };
        let follower = cctape::follow::Follower::resume(paths, opts, &checkpoint)
            .map_err(|e| e.to_string())?;
        Ok(Source::Files(Box::new(Files {
            follower,
            checkpoint: follow.checkpoint.clone(),
            saved: std::time::Instant::now(),
            dirty: false,
        })))
    }

    /// The next bytes, waiting at most `timeout`. Changes to followed
    /// files are said on stderr as `tail -F` says them.
    pub fn next(&mut self, timeout: Duration) -> Got<'_> {
        match self {
            Source::Stdin(rx, held, at) => match rx.recv_timeout(timeout) {
                Ok(Ok(b)) => {
                    *held = b;
                    let offset = *at;
                    *at += held.len() as u64;
                    Got::Bytes {
                        stream: 0,
                        name: super::inputs::STDIN_NAME.to_string(),
                        bytes: held,
                        offset,
                        replayed: 0,
                    }
                }
                Ok(Err(e)) => Got::End(Some(e)),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Got::Nothing,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Got::End(None),
            },
            Source::Files(f) => f.next(timeout),
        }
    }

    /// The lines handed out last have been handled: a checkpoint may be
    /// saved (at most every [`SAVE_EVERY`], or now with `now`); `replay`
    /// gives, by stream, where a restart reads again from (the start of a
    /// run not finished), if before the end of what was handled.
    pub fn handled(
        &mut self,
        now: bool,
        replay: &dyn Fn(usize) -> Option<u64>,
    ) -> Result<(), String> {
        let Source::Files(f) = self else {
            return Ok(());
        };
        let Some(path) = &f.checkpoint else {
            return Ok(());
        };
        if !f.dirty || (!now && f.saved.elapsed() < SAVE_EVERY) {
            return Ok(());
        }
        let mut cp = f.follower.checkpoint();
        let paths: Vec<PathBuf> = f.follower.paths().map(Path::to_path_buf).collect();
        for (i, p) in paths.iter().enumerate() {
            if let Some(mut pos) = cp.get(p) {
                pos.replay = replay(i).filter(|&r| r < pos.offset);
                cp.set(p, pos);
            }
        }
        cp.save(path)
            .map_err(|e| format!("--checkpoint {}: {e}", super::inputs::shown_path(path)))?;
        f.saved = std::time::Instant::now();
        f.dirty = false;
        Ok(())
    }
}

impl Files {
    fn next(&mut self, timeout: Duration) -> Got<'_> {
        for (p, why) in self.follower.take_problems() {
            super::exec::note(&format!("{}: {why}", super::inputs::shown_path(&p)));
        }
        match self.follower.next_item(timeout) {
            Ok(Some(cctape::follow::Item::Lines {
                file,
                path,
                bytes,
                offset,
                replayed,
            })) => {
                self.dirty = true;
                Got::Bytes {
                    stream: file,
                    name: super::inputs::shown_path(path),
                    bytes,
                    offset,
                    replayed,
                }
            }
            Ok(Some(cctape::follow::Item::Change { file, path, change })) => {
                use cctape::follow::Change;
                // A replaced or truncated file goes on as the same stream
                // (a run goes on in the new file), as `tail -F` prints it.
                let _ = file;
                if change != Change::Opened {
                    super::exec::note(&format!("{}: {change}", super::inputs::shown_path(path)));
                }
                Got::Nothing
            }
            Ok(None) => Got::Nothing,
            Err(e) => {
                super::exec::note(&format!("following: {e}"));
                Got::Nothing
            }
        }
    }
}

/// Set once SIGINT or SIGTERM came: a live command stops at its next
/// turn, says what it has (a checkpoint saved), and exits.
pub fn stop_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    #[cfg(unix)]
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(sig, std::sync::Arc::clone(&flag));
    }
    flag
}
