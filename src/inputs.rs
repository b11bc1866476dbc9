//! Inputs: finding them and reading one whole. This module owns what every
//! front end (the command, the Python package) does with the paths it is
//! given: directories walked for stream files ([`Walk`]), names shown
//! safely ([`shown_path`], [`escape_bytes`]), and one input read from its
//! first byte to its last the way its format is read ([`read_source`],
//! through [`Sniffed`] and [`LineRead`], the one reader, which the command
//! and `watch` also drive for the readings they frame themselves: chunks on
//! a pool, lines read ahead, bytes pushed as they arrive):
//! decompressed, sniffed ([`crate::sniff`]), then lines of stream-json or
//! JSON elements as events, each bad line an error with its position and
//! the bytes it held, and why the input ended early, if it did, as the
//! last error.
//!
//! Directories are walked with `walkdir` (a well-kept crate: sorted entries,
//! non-UTF-8 names, and a guard against symlink loops when links are
//! followed) rather than by hand. What a walk passes over that has a stream
//! file's name but cannot be read as one (a broken symlink, a FIFO, a
//! socket, a device, a symlinked directory not followed, a symlink loop) is
//! listed in [`Walk::skipped`], never skipped in silence.
//!
//! ```
//! use cctape::inputs::{read_source, Item, ReadOptions};
//! use cctape::source::{EndReport, Source, SourceKind};
//!
//! let bytes = &b"[{\"type\":\"system\",\"subtype\":\"init\"},\n {\"type\":\"user\"}]\n"[..];
//! let report = EndReport::new();
//! let src = Source::new(bytes, SourceKind::Stream, &report)?;
//! let mut kinds = Vec::new();
//! let end = read_source(src, &ReadOptions::default(), |item| {
//!     if let Item::Event(ev) = item {
//!         kinds.push((ev.raw_type().to_string(), ev.line()));
//!     }
//!     std::ops::ControlFlow::Continue(())
//! });
//! assert_eq!(kinds, [("system".to_string(), 1), ("user".to_string(), 2)]);
//! assert_eq!(end.format.map(|f| f.name()), Some("json-array"));
//! assert_eq!(end.counts.events, 2);
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Position};
use crate::event::Event;
use crate::framing::DEFAULT_MAX_LINE;
use crate::json::{IndexDepth, ScanMode, Scanned};
use crate::report::Shape;
use crate::sniff::{Format, FormatChoice};
use crate::source::{EndReport, Source};
use crate::stream::Counts;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// True for names a directory walk picks up: `*.jsonl`, `*.ndjson`,
/// `*.json`, `*.log` and their compressed forms (`.gz`, `.zst`, `.zstd`,
/// `.xz`, `.bz2`, `.lz4`), in any
/// case. Files named explicitly are read whatever their name. Names that
/// are not UTF-8 are matched on their bytes.
///
/// ```
/// use cctape::inputs::is_stream_file_name;
/// use std::path::Path;
/// assert!(is_stream_file_name(Path::new("runs/a.JSONL.zst")));
/// assert!(is_stream_file_name(Path::new("runs/2026-11.log.xz")));
/// assert!(!is_stream_file_name(Path::new("runs/a.jsonl.bak")));
/// ```
pub fn is_stream_file_name(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    #[cfg(unix)]
    let name = {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().to_ascii_lowercase()
    };
    #[cfg(not(unix))]
    let name = name.to_string_lossy().as_bytes().to_ascii_lowercase();
    let base = name
        .strip_suffix(b".gz")
        .or_else(|| name.strip_suffix(b".zst"))
        .or_else(|| name.strip_suffix(b".zstd"))
        .or_else(|| name.strip_suffix(b".xz"))
        .or_else(|| name.strip_suffix(b".bz2"))
        .or_else(|| name.strip_suffix(b".lz4"))
        .unwrap_or(&name);
    [&b".jsonl"[..], b".ndjson", b".json", b".log"]
        .iter()
        .any(|ext| base.ends_with(ext))
}

/// `path` for people (messages, human output): see [`escape_bytes`].
pub fn shown_path(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    escape_bytes(&bytes)
}

/// The bytes of an OS string: as they are on Unix; elsewhere its text
/// (lossy: Windows names are UTF-16).
pub fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        s.as_bytes().into()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().into_owned().into_bytes().into()
    }
}

/// A name (a path, a folder) as `cctape stats` keys and shows it, one
/// `/`-separated part at a time: a part that is UTF-8 as it is, a part
/// that is not with each byte that is not UTF-8 escaped (`\xff`) and its
/// backslashes doubled, as ripgrep escapes bytes. So two names that
/// differ in such bytes are two rows (`x\xff` and `x\xfe`, not one
/// `x\u{fffd}`), in the text, CSV and JSON output alike (JSON: this
/// string). Only a UTF-8 name spelling out such an escape reads like one.
///
/// ```
/// use cctape::inputs::name_text;
/// assert_eq!(name_text(b"runs/a.jsonl"), "runs/a.jsonl");
/// assert_eq!(name_text(b"r\\un/x\xff.jsonl"), "r\\un/x\\xff.jsonl");
/// assert_eq!(name_text(b"x\\\xfe/a\\b"), "x\\\\\\xfe/a\\b");
/// assert_ne!(name_text(b"x\xff"), name_text(b"x\xfe"));
/// ```
pub fn name_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.into();
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for (i, part) in bytes.split(|&b| b == b'/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        if let Ok(s) = std::str::from_utf8(part) {
            out.push_str(s);
            continue;
        }
        for chunk in part.utf8_chunks() {
            out.push_str(&chunk.valid().replace('\\', "\\\\"));
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.into()
}

/// Text for a terminal: control characters (C0, DEL, C1) and bytes that
/// are not UTF-8 escaped (`\n`, `\x1b`, `\xff`), so that a name cannot move
/// the cursor or clear a terminal; everything else as is.
///
/// ```
/// use cctape::inputs::escape_bytes;
/// assert_eq!(escape_bytes(b"a\nb\x1b[2J \xff.jsonl"), "a\\nb\\x1b[2J \\xff.jsonl");
/// ```
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() => {
                    let n = c as u32;
                    if n < 0x100 {
                        out.push_str(&format!("\\x{n:02x}"));
                    } else {
                        out.push_str(&format!("\\u{{{n:x}}}"));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// What walking directories found: the stream files in order, the
/// directories that could not be read, and the entries passed over with
/// why.
///
/// ```
/// use cctape::inputs::Walk;
/// let mut w = Walk::default();
/// w.dir(std::path::Path::new("corpus/streams"), false);
/// assert!(w.files.iter().any(|f| f.ends_with("success-basic.jsonl")));
/// assert!(w.files.windows(2).all(|p| p[0] < p[1]), "in name order");
/// ```
#[derive(Debug, Default)]
pub struct Walk {
    /// Which entries the walk keeps beyond the stream file names
    /// (`--glob`); none by default.
    pub globs: Globs,
    /// The stream files found, in the walk's order (entries sorted by name).
    pub files: Vec<PathBuf>,
    /// Directories (or entries) that could not be read: errors.
    pub errors: Vec<(PathBuf, io::Error)>,
    /// Entries passed over, with why: notes for the user.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Globs that choose what a directory walk reads, as ripgrep's `-g`/`--glob`
/// and `--iglob` do, matched by the `ignore` crate's overrides (ripgrep's
/// own matcher, rather than a second reading of gitignore syntax here):
///
/// - a glob is gitignore syntax, matched against the path below the walked
///   directory (one without a `/` matches a name at any depth);
/// - `!GLOB` passes over what matches, and a directory that matches is not
///   entered;
/// - where several match, the one given last wins;
/// - with any glob that is not `!`, a file must match one to be read, and a
///   file that matches is read whatever its name (`-g '*.txt'` reads text
///   outputs, which the walk passes over by name);
/// - files named explicitly are read whatever the globs say.
///
/// ```
/// use cctape::inputs::{Globs, Walk};
/// let mut globs = Globs::default();
/// globs.add("!*basic*", false)?;
/// let mut w = Walk { globs, ..Walk::default() };
/// w.dir(std::path::Path::new("corpus/streams"), false);
/// assert!(!w.files.is_empty());
/// assert!(w.files.iter().all(|f| !f.to_string_lossy().contains("basic")));
/// # Ok::<(), cctape::inputs::GlobError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Globs {
    /// Each glob, and whether it ignores case, in the order given.
    globs: Vec<(String, bool)>,
}

/// A glob that is not one (an unclosed `[`, a bad `{`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobError {
    glob: String,
    why: String,
}

impl std::fmt::Display for GlobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "glob `{}`: {}", self.glob, self.why)
    }
}

impl std::error::Error for GlobError {}

impl Globs {
    /// Add a glob (`!` in front: pass over what it matches), ignoring case
    /// with `case_insensitive` (`--iglob`); an error when it is no glob.
    pub fn add(&mut self, glob: &str, case_insensitive: bool) -> Result<(), GlobError> {
        let mut check = ignore::overrides::OverrideBuilder::new("");
        check
            .case_insensitive(case_insensitive)
            .and_then(|b| b.add(glob))
            .map_err(|e| GlobError {
                glob: glob.to_owned(),
                why: glob_error_text(&e),
            })?;
        self.globs.push((glob.to_owned(), case_insensitive));
        Ok(())
    }

    /// True when no glob was given.
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    /// The matcher for a walk of `root`; `None` without globs. Globs were
    /// checked when added, so building cannot fail on them.
    fn matcher(&self, root: &Path) -> Option<ignore::overrides::Override> {
        if self.globs.is_empty() {
            return None;
        }
        // ripgrep adds its case-sensitive globs first, then --iglob's; the
        // builder takes case per glob as it is added.
        let mut b = ignore::overrides::OverrideBuilder::new(root);
        for (g, ci) in &self.globs {
            let _ = b.case_insensitive(*ci).and_then(|b| b.add(g));
        }
        b.build().ok()
    }
}

/// The text of a glob error without the glob repeated.
fn glob_error_text(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Glob { err, .. } => err.clone(),
        e => e.to_string(),
    }
}

/// Whether a walk reads the file at `path`: what the globs say, else its
/// name.
fn walk_reads(globs: Option<&ignore::overrides::Override>, path: &Path) -> bool {
    match globs.map(|o| o.matched(path, false)) {
        Some(ignore::Match::Whitelist(_)) => true,
        Some(ignore::Match::Ignore(_)) => false,
        Some(ignore::Match::None) | None => is_stream_file_name(path),
    }
}

/// What a non-regular file is, for a note.
fn file_kind(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        } else if ft.is_socket() {
            return "a socket";
        } else if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
    }
    let _ = ft;
    "not a regular file"
}

impl Walk {
    /// Walk `dir` recursively in name order, symlinks to directories
    /// followed with `follow` (a loop is noted, not entered), adding what
    /// it finds.
    pub fn dir(&mut self, dir: &Path, follow: bool) {
        let globs = self.globs.matcher(dir);
        let globs = globs.as_ref();
        let walker = walkdir::WalkDir::new(dir)
            .follow_links(follow)
            .sort_by_file_name()
            .into_iter()
            // A directory a `!` glob matches is not entered (the walked
            // directory itself is always read).
            .filter_entry(|e| {
                e.depth() == 0
                    || !e.file_type().is_dir()
                    || !globs.is_some_and(|o| o.matched(e.path(), true).is_ignore())
            });
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.walk_error(dir, follow, e);
                    continue;
                }
            };
            let ft = entry.file_type();
            if ft.is_dir() {
                continue;
            }
            let path = entry.path();
            if ft.is_symlink() {
                // Not followed (without `follow`): a link to a file is
                // read, anything else is said.
                match std::fs::metadata(path) {
                    Ok(m) if m.is_file() => {
                        if walk_reads(globs, path) {
                            self.files.push(entry.into_path());
                        }
                    }
                    Ok(m) if m.is_dir() => self.skipped.push((
                        entry.into_path(),
                        "a symlink to a directory, not followed (-L follows links)".into(),
                    )),
                    Ok(m) => {
                        if walk_reads(globs, path) {
                            let why =
                                format!("a symlink to {}, not read", file_kind(&m.file_type()));
                            self.skipped.push((entry.into_path(), why));
                        }
                    }
                    Err(_) => {
                        if walk_reads(globs, path) {
                            self.skipped
                                .push((entry.into_path(), "a broken symlink".into()));
                        }
                    }
                }
            } else if walk_reads(globs, path) {
                if ft.is_file() {
                    self.files.push(entry.into_path());
                } else {
                    let why = format!(
                        "{}, not read (reading it could block; name it to read it)",
                        file_kind(&ft)
                    );
                    self.skipped.push((entry.into_path(), why));
                }
            }
        }
    }

    fn walk_error(&mut self, dir: &Path, follow: bool, e: walkdir::Error) {
        let path = e.path().unwrap_or(dir).to_path_buf();
        if let Some(ancestor) = e.loop_ancestor() {
            let why = format!(
                "a symlink loop back to {}, not followed",
                shown_path(ancestor)
            );
            self.skipped.push((path, why));
        } else if follow
            && e.io_error()
                .is_some_and(|io| io.kind() == io::ErrorKind::NotFound)
            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink())
        {
            if is_stream_file_name(&path) {
                self.skipped.push((path, "a broken symlink".into()));
            }
        } else {
            let io = e
                .into_io_error()
                .unwrap_or_else(|| io::Error::other("cannot be walked"));
            self.errors.push((path, io));
        }
    }
}

/// How inputs are read.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// Sniffed from the first bytes, or forced (`--format`).
    pub format: FormatChoice,
    /// The longest line (or JSON element) read; a longer one is a
    /// `line_too_long` error, skipped. Default 256 MiB.
    pub max_line: usize,
    /// `Some(mode)`: lines are read by the lazy scanner (no tape; every
    /// byte still checked in [`ScanMode::Validated`]) and handed out as
    /// [`Item::Scanned`], for readers that need the hot fields only. JSON
    /// elements are always parsed ([`Item::Event`]). Default `None`.
    pub scan: Option<ScanMode>,
    /// True: the lines of a session transcript are handed out as
    /// [`Item::Record`] (scanned and validated) instead of as events.
    /// Default false.
    pub records: bool,
    /// How deep a line read with [`scan`](ReadOptions::scan) is indexed:
    /// [`IndexDepth::TopLevel`] for readers of `type`, `subtype` and
    /// top-level fields, whose nested reads then walk validated bytes.
    /// Default [`IndexDepth::Full`].
    pub scan_depth: IndexDepth,
    /// True: a plain file of lines opened with [`Source::mappable`]
    /// (as [`Source::open`] opens one) of 1 MiB or more, not modified in
    /// the last two seconds, is read through a memory map instead of
    /// `read` (12% to 14% less CPU for `cctape stats` on long lines, 2% to 9% on
    /// partial-message streams). The map survives the file being
    /// truncated under it: the first map installs a SIGBUS handler that
    /// zeroes the lost pages, and the rest of the file is then read with
    /// `read`, which tells the shrinking as usual. Default false (a
    /// library does not install signal handlers unasked); the command
    /// sets it.
    pub map: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: FormatChoice::Auto,
            max_line: DEFAULT_MAX_LINE,
            scan: None,
            records: false,
            scan_depth: IndexDepth::Full,
            map: false,
        }
    }
}

/// An input whose bytes go on without an LF for this many times the
/// longest line ends with an error (`/dev/zero`): 1 GiB by default. A line
/// past the maximum is skipped to its LF in bounded memory; this decides
/// when skipping gives up.
pub const RUNAWAY_FACTOR: u64 = 4;

/// How many decoded bytes are looked at first to tell an input's format
/// (more while they hold text only; see [`read_prefix`]).
pub use crate::sniff::SNIFF_BYTES;

/// One thing [`read_source`] found, in input order.
#[derive(Debug)]
#[non_exhaustive]
pub enum Item<'a, 'e> {
    /// An event.
    Event(&'a Event<'e>),
    /// An event read by the scanner (with [`ReadOptions::scan`]).
    Scanned(&'a Scanned<'e>),
    /// A session transcript's record (with [`ReadOptions::records`]).
    Record(&'a Event<'e>),
    /// The input holds no events (text, empty, a reading of elements that
    /// found none): what it looks like, once it was read to its end.
    NotEvents(&'a Shape),
    /// A line (or element) that is not an event, or why the input ended
    /// (an I/O error, the last item). `bytes` holds the bad line's bytes
    /// when they were kept (not for a line past the maximum, nor for an
    /// I/O error).
    Error {
        /// What went wrong, where.
        error: &'a Error,
        /// The line's (or element's) bytes.
        bytes: Option<&'a [u8]>,
    },
}

/// How an input ended: what [`read_source`] counted.
#[derive(Debug, Default)]
pub struct InputEnd {
    /// Lines, blank lines, events and errors (the final error included).
    pub counts: Counts,
    /// Decoded bytes read.
    pub bytes: u64,
    /// The format it was read as (`None` when no byte could be read).
    pub format: Option<Format>,
    /// Why the input could not be read, or broke off (the last item
    /// handed out, unless the input failed before its first byte).
    pub failure: Option<Error>,
    /// True when the input failed before its first byte: no item was
    /// handed out for the failure.
    pub unreadable: bool,
    /// True when the caller stopped the reading before the end.
    pub stopped: bool,
}

/// The reason given to a line that holds several JSON objects separated by
/// CR only (classic Mac line ends): lines end at LF only, so such a file is
/// one long line, and the parser's `truncated` or `invalid_json` alone would
/// not say why.
pub const CR_LINE_ENDS: &str = "the line holds JSON objects separated by CR only (classic Mac line ends); \
lines end at LF: convert with tr '\\r' '\\n'";

/// Name CR line ends in the error of a line that has them (see
/// [`CR_LINE_ENDS`]); other errors are returned as they are.
pub fn explain_line_error(e: Error, line: Option<&[u8]>) -> Error {
    let cr_ended = matches!(e.kind(), ErrorKind::InvalidJson | ErrorKind::Truncated)
        && line.is_some_and(|b| {
            memchr::memchr_iter(b'\r', b).any(|i| {
                b[i + 1..]
                    .iter()
                    .find(|&&c| !matches!(c, b' ' | b'\t' | b'\r'))
                    .is_some_and(|&c| c == b'{')
            })
        });
    if cr_ended {
        Error::new(e.kind(), e.position(), CR_LINE_ENDS)
    } else {
        e
    }
}

/// The error for a source that ended early (a file that shrank, data after
/// the compressed stream), at the position reached.
pub fn ended_early(e: io::Error, line: u64, offset: u64) -> Error {
    let reason = if e.kind() == io::ErrorKind::UnexpectedEof {
        "the input ended early"
    } else {
        "data after the compressed stream"
    };
    Error::io_with(e, Position::new(line, offset), reason)
}

mod prefix;
pub use prefix::{Prefix, Prefixed, read_prefix};
mod read;
pub use read::{Items, LineRead, Sniffed, read_slice};

/// Read one opened input whole, the way its format is read, handing every
/// item to `f` in input order, as `cctape` reads it: the format is told
/// from the first decoded bytes ([`FormatChoice::resolve`]); JSON arrays
/// and pretty JSON are read as elements ([`crate::elements`]), a
/// logger's output as the JSON values behind its prefixes
/// ([`crate::elements::LogValues`]); the lines of stream-json as events (scanned with
/// [`ReadOptions::scan`]); a session transcript's lines as records with
/// [`ReadOptions::records`] (else as events); an input that holds no
/// events (text, empty, cut lines) as one [`Item::NotEvents`] once it was
/// read to its end, and so is an element reading that found no element.
/// A line that holds JSON objects separated by CR alone says so
/// ([`explain_line_error`]); an input that ends early (a file that shrank,
/// garbage after the compressed data) ends with that error
/// ([`ended_early`]); an endless line (`/dev/zero`) ends a line-read input
/// after [`RUNAWAY_FACTOR`] times the longest line. `f` returns
/// [`ControlFlow::Break`] to stop reading (the input is then left unread
/// past that item, and [`InputEnd::stopped`] is set).
pub fn read_source(
    src: Source<'_>,
    opts: &ReadOptions,
    mut f: impl FnMut(Item<'_, '_>) -> ControlFlow<()>,
) -> InputEnd {
    Sniffed::new(src, opts.format).read(opts, &mut f)
}

/// Open `path` and read it with [`read_source`]; a file that cannot be
/// opened is an [`InputEnd`] with its failure (`unreadable`) and no item.
pub fn read_path(
    path: &Path,
    opts: &ReadOptions,
    f: impl FnMut(Item<'_, '_>) -> ControlFlow<()>,
) -> InputEnd {
    match Source::open(path) {
        Ok(src) => read_source(src, opts, f),
        Err(e) => InputEnd {
            counts: Counts {
                errors: 1,
                ..Counts::default()
            },
            failure: Some(Error::open(e)),
            unreadable: true,
            ..InputEnd::default()
        },
    }
}

/// A [`Source`] over any reader (bytes in memory, a caller's stream): a
/// stream, its compression told by its first bytes.
pub fn stream_source<'a, R: Read + 'a>(rdr: R) -> io::Result<Source<'a>> {
    Source::new(rdr, crate::source::SourceKind::Stream, &EndReport::new())
}
