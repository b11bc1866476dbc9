//! Inputs named on the command line: files and `-` for stdin.

use std::path::PathBuf;

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
}

/// The inputs for a list of arguments; none means standard input.
pub fn collect(args: &[PathBuf]) -> Vec<Input> {
    if args.is_empty() {
        return vec![Input::Stdin];
    }
    args.iter()
        .map(|a| {
            if a.as_os_str() == "-" {
                Input::Stdin
            } else {
                Input::File(a.clone())
            }
        })
        .collect()
}
