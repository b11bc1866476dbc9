//! Inputs named on the command line: files, directories (walked) and `-`;
//! and how their names are shown.
//!
//! The walk and the escaping of names are the library's
//! ([`cctape::inputs`]), shared with the Python package. What a walk passes
//! over that has a stream file's name but cannot be read as one (a broken
//! symlink, a FIFO, a socket, a device, a symlinked directory not followed,
//! a symlink loop) is reported as a note on stderr and counted, never
//! skipped in silence.

use std::path::PathBuf;

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
    /// Files and folders followed as one stream (`-F`; see
    /// [`super::live`]).
    Follow(Box<Followed>),
}

/// What `-F` follows, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Followed {
    /// The files and folders.
    pub paths: Vec<PathBuf>,
    /// Start at the end of the files that exist.
    pub from_end: bool,
    /// The poll interval, in milliseconds.
    pub poll_ms: u64,
    /// Where the checkpoint is kept.
    pub checkpoint: Option<PathBuf>,
    /// The walk's globs (`--glob` then `--iglob`) and `-L`.
    pub globs: Vec<(String, bool)>,
    /// Symlinks to folders are followed.
    pub links: bool,
}

impl Followed {
    /// The name of the stream: its one path, or the paths joined.
    fn name(&self, shown: bool) -> String {
        let names: Vec<String> = self
            .paths
            .iter()
            .map(|p| {
                if shown {
                    shown_path(p)
                } else {
                    p.display().to_string()
                }
            })
            .collect();
        names.join(",")
    }
}

impl Input {
    /// The name in data output (JSON, CSV, Parquet, `@file`): the path as
    /// text, non-UTF-8 bytes replaced by U+FFFD; control characters are left
    /// to the format's own escaping. Standard input is [`STDIN_NAME`].
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => p.display().to_string(),
            Input::Follow(f) => f.name(false),
        }
    }

    /// The name for people (human output, messages on stderr): control
    /// characters and bytes that are not UTF-8 escaped (`\n`, `\x1b`,
    /// `\xff`), so a name cannot move the cursor or clear a terminal.
    pub fn shown(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => shown_path(p),
            Input::Follow(f) => f.name(true),
        }
    }

    /// The size on disk of a regular file (0 for stdin, streams and
    /// unreadable files); for the progress line only.
    pub fn size(&self) -> u64 {
        match self {
            Input::Stdin | Input::Follow(_) => 0,
            Input::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map_or(0, |m| m.len()),
        }
    }
}

pub use cctape::inputs::{escape_bytes, shown_path};

/// [`escape_bytes`] for text that is already a string.
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        escape_bytes(s.as_bytes()).into()
    } else {
        s.into()
    }
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

/// The inputs for a list of arguments, directories walked recursively in
/// name order (symlinks followed with `follow`, entries chosen by `globs`);
/// none means standard input.
pub fn collect(args: &[PathBuf], follow: bool, globs: &cctape::inputs::Globs) -> Walked {
    let mut w = Walked::default();
    if args.is_empty() {
        w.inputs.push(Input::Stdin);
    }
    for a in args {
        if a.as_os_str() == "-" {
            w.inputs.push(Input::Stdin);
        } else if a.is_dir() {
            let mut walk = cctape::inputs::Walk {
                globs: globs.clone(),
                ..Default::default()
            };
            walk.dir(a, follow);
            w.inputs.extend(walk.files.into_iter().map(Input::File));
            w.errors.extend(walk.errors);
            w.skipped.extend(walk.skipped);
        } else {
            w.inputs.push(Input::File(a.clone()));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn walk_picks_stream_files_and_compressed_forms() {
        let wanted = cctape::inputs::is_stream_file_name;
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
