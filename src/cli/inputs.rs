//! Inputs named on the command line: files, directories (walked) and `-`;
//! and how their names are shown.
//!
//! Directories are walked with `walkdir` (a well-kept crate: sorted entries,
//! non-UTF-8 names, and a guard against symlink loops when links are
//! followed) rather than by hand. What a walk passes over that has a stream
//! file's name but cannot be read as one (a broken symlink, a FIFO, a
//! socket, a device, a symlinked directory not followed, a symlink loop) is
//! reported as a note on stderr and counted, never skipped in silence.

use std::path::{Path, PathBuf};

/// How standard input is named in every output, as ripgrep names it (`-`
/// on the command line means standard input, but as a name in output it
/// would read as a file called `-`).
pub const STDIN_NAME: &str = "<stdin>";

/// One input: a path, or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The name in data output (JSON, CSV, Parquet, `@file`): the path as
    /// text, non-UTF-8 bytes replaced by U+FFFD; control characters are left
    /// to the format's own escaping. Standard input is [`STDIN_NAME`].
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }

    /// The name for people (human output, messages on stderr): control
    /// characters and bytes that are not UTF-8 escaped (`\n`, `\x1b`,
    /// `\xff`), so a name cannot move the cursor or clear a terminal.
    pub fn shown(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => shown_path(p),
        }
    }

    /// The size on disk of a regular file (0 for stdin, streams and
    /// unreadable files); for the progress line only.
    pub fn size(&self) -> u64 {
        match self {
            Input::Stdin => 0,
            Input::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map_or(0, |m| m.len()),
        }
    }
}

/// `path` for people: see [`Input::shown`].
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

/// Text for a terminal: control characters (C0, DEL, C1) and bytes that
/// are not UTF-8 escaped; everything else as is.
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

/// [`escape_bytes`] for text that is already a string.
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        escape_bytes(s.as_bytes()).into()
    } else {
        s.into()
    }
}

/// Names that a directory walk picks up: stream files and their compressed
/// forms. Files named explicitly are read whatever their name. Names that
/// are not UTF-8 are matched on their bytes.
fn wanted(path: &Path) -> bool {
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
        .unwrap_or(&name);
    [&b".jsonl"[..], b".ndjson", b".json", b".log"]
        .iter()
        .any(|ext| base.ends_with(ext))
}

/// What collecting the inputs found besides them.
#[derive(Debug, Default)]
pub struct Walked {
    /// The inputs, in order.
    pub inputs: Vec<Input>,
    /// Directories (or arguments) that could not be read: errors.
    pub errors: Vec<(PathBuf, std::io::Error)>,
    /// Entries of walked folders passed over, with why: notes.
    pub skipped: Vec<(PathBuf, String)>,
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

fn walk(dir: &Path, follow: bool, w: &mut Walked) {
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(follow)
        .sort_by_file_name();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_path_buf();
                if let Some(ancestor) = e.loop_ancestor() {
                    let why = format!(
                        "a symlink loop back to {}, not followed",
                        shown_path(ancestor)
                    );
                    w.skipped.push((path, why));
                } else if follow
                    && e.io_error()
                        .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
                    && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink())
                {
                    if wanted(&path) {
                        w.skipped.push((path, "a broken symlink".into()));
                    }
                } else {
                    let io = e
                        .into_io_error()
                        .unwrap_or_else(|| std::io::Error::other("cannot be walked"));
                    w.errors.push((path, io));
                }
                continue;
            }
        };
        let ft = entry.file_type();
        if ft.is_dir() {
            continue;
        }
        let path = entry.path();
        if ft.is_symlink() {
            // Not followed (without -L): a link to a file is read, anything
            // else is said.
            match std::fs::metadata(path) {
                Ok(m) if m.is_file() => {
                    if wanted(path) {
                        w.inputs.push(Input::File(entry.into_path()));
                    }
                }
                Ok(m) if m.is_dir() => w.skipped.push((
                    entry.into_path(),
                    "a symlink to a directory, not followed (-L follows links)".into(),
                )),
                Ok(m) => {
                    if wanted(path) {
                        let why = format!("a symlink to {}, not read", file_kind(&m.file_type()));
                        w.skipped.push((entry.into_path(), why));
                    }
                }
                Err(_) => {
                    if wanted(path) {
                        w.skipped
                            .push((entry.into_path(), "a broken symlink".into()));
                    }
                }
            }
        } else if wanted(path) {
            if ft.is_file() {
                w.inputs.push(Input::File(entry.into_path()));
            } else {
                let why = format!(
                    "{}, not read (reading it could block; name it to read it)",
                    file_kind(&ft)
                );
                w.skipped.push((entry.into_path(), why));
            }
        }
    }
}

/// The inputs for a list of arguments, directories walked recursively in
/// name order (symlinks followed with `follow`); none means standard input.
pub fn collect(args: &[PathBuf], follow: bool) -> Walked {
    let mut w = Walked::default();
    if args.is_empty() {
        w.inputs.push(Input::Stdin);
    }
    for a in args {
        if a.as_os_str() == "-" {
            w.inputs.push(Input::Stdin);
        } else if a.is_dir() {
            walk(a, follow, &mut w);
        } else {
            w.inputs.push(Input::File(a.clone()));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_picks_stream_files_and_compressed_forms() {
        assert!(wanted(Path::new("a/run.jsonl")));
        assert!(wanted(Path::new("a/run.NDJSON")));
        assert!(wanted(Path::new("a/run.json.gz")));
        assert!(wanted(Path::new("a/run.log.zst")));
        assert!(!wanted(Path::new("a/notes.txt")));
        assert!(!wanted(Path::new("a/run.jsonl.bak")));
    }

    #[test]
    fn names_for_people_escape_control_characters_and_bad_bytes() {
        assert_eq!(escape_bytes(b"a\nb\x1b[2Jc\td"), "a\\nb\\x1b[2Jc\\td");
        assert_eq!(escape_bytes(b"caf\xc3\xa9 \xff.jsonl"), "café \\xff.jsonl");
        assert_eq!(escape_bytes("\u{9b}x".as_bytes()), "\\x9bx");
        assert_eq!(escape("plain"), "plain");
    }
}
