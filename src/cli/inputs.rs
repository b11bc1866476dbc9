//! Inputs named on the command line: files, directories (walked) and `-`.

use std::path::{Path, PathBuf};

/// One input: a path, or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The name shown in output and errors.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }

    /// The size on disk, when known (0 for stdin or an unreadable file).
    pub fn size(&self) -> u64 {
        match self {
            Input::Stdin => 0,
            Input::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
        }
    }
}

/// Names that a directory walk picks up: stream files and their compressed
/// forms. Files named explicitly are read whatever their name.
fn wanted(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let base = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .or_else(|| name.strip_suffix(".zstd"))
        .unwrap_or(&name);
    [".jsonl", ".ndjson", ".json", ".log"]
        .iter()
        .any(|ext| base.ends_with(ext))
}

fn walk(dir: &Path, out: &mut Vec<Input>, errors: &mut Vec<(PathBuf, std::io::Error)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push((dir.to_path_buf(), e));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => paths.push(e.path()),
            Err(e) => errors.push((dir.to_path_buf(), e)),
        }
    }
    // A walk in name order gives the same output on every machine.
    paths.sort();
    for p in paths {
        // Symlinked directories are not followed (no cycles); symlinked
        // files are read.
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            walk(&p, out, errors);
        } else if wanted(&p) && (meta.is_file() || p.is_file()) {
            out.push(Input::File(p));
        }
    }
}

/// The inputs for a list of arguments, directories walked recursively in
/// name order; none means standard input. Directories that could not be
/// read are returned apart.
pub fn collect(args: &[PathBuf]) -> (Vec<Input>, Vec<(PathBuf, std::io::Error)>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    if args.is_empty() {
        out.push(Input::Stdin);
    }
    for a in args {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if a.is_dir() {
            walk(a, &mut out, &mut errors);
        } else {
            out.push(Input::File(a.clone()));
        }
    }
    (out, errors)
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
}
