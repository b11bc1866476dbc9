//! Projects: `--project NAME` (which inputs a report reads) and a
//! transcript project folder shown as the path it encodes, as ccusage
//! shows it.
//!
//! Claude Code names a session's folder under `~/.claude/projects` after
//! its working directory, every character but ASCII letters and digits
//! written `-`: `/home/u/x` is `-home-u-x`, `/home/u/my-app` is
//! `-home-u-my-app`, `C:\Users\x` is `C--Users-x`. The encoding loses
//! which `-` was a `/`: a folder is shown with every `-` as `/`
//! (`/home/u/my/app`), its name kept as written in `--json` and CSV; and
//! `--project` compares names encoded the same way, so `my-app`,
//! `/home/u/my-app` and `-home-u-my-app` all name that folder.

use cctape::transcript::TranscriptFile;
use std::path::Path;

/// `--project`, for the commands that report on transcripts.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Project {
    /// Read only the inputs of this project: a transcript's project folder
    /// (`~/.claude/projects/<folder>`), a stream file's folder. NAME is the
    /// project's path or its last components (`/home/u/app`, `app`), or the
    /// folder's name (`-home-u-app`), compared as Claude Code encodes a path
    /// (every character but letters and digits as `-`; a NAME starting
    /// with `-` is taken as the value).
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    pub project: Option<String>,
}

/// A path as Claude Code names its project folder.
fn encode(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

impl Project {
    /// Whether an input at `path` belongs to the project (every input does
    /// without `--project`; standard input never does with it).
    pub fn keeps(&self, path: Option<&Path>) -> bool {
        let Some(want) = &self.project else {
            return true;
        };
        let Some(folder) = path.and_then(|p| TranscriptFile::from_path(p).project) else {
            return false;
        };
        let want = encode(want.trim_end_matches(['/', '\\']));
        !want.is_empty()
            && (folder == want
                || (folder.ends_with(&want)
                    && (want.starts_with('-')
                        || folder[..folder.len() - want.len()].ends_with('-'))))
    }
}

impl Project {
    /// Keep the inputs of the project.
    pub fn retain(&self, inputs: &mut Vec<super::inputs::Input>) {
        use super::inputs::Input;
        inputs.retain(|i| {
            self.keeps(match i {
                Input::File(p) => Some(p.as_path()),
                Input::Stdin | Input::Follow(_) => None,
            })
        });
    }
}

/// A project folder's name as the path it encodes (`-home-u-x` as
/// `/home/u/x`, `C--Users-x` as `C:/Users/x`); any other name as it is.
pub fn shown_project(folder: &str) -> String {
    let b = folder.as_bytes();
    if b.len() > 3 && b[0].is_ascii_alphabetic() && &b[1..3] == b"--" {
        return format!("{}:/{}", &folder[..1], folder[3..].replace('-', "/"));
    }
    if folder.starts_with('-') {
        return folder.replace('-', "/");
    }
    folder.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_shown_as_the_paths_they_encode() {
        assert_eq!(shown_project("-home-u-x"), "/home/u/x");
        assert_eq!(shown_project("-home-u-my-app"), "/home/u/my/app");
        assert_eq!(shown_project("C--Users-x"), "C:/Users/x");
        assert_eq!(shown_project("batch-00"), "batch-00");
        assert_eq!(shown_project("-"), "/");
    }

    #[test]
    fn project_names_match_encoded() {
        let p = |s: &str| Project {
            project: Some(s.into()),
        };
        let file = Path::new("/h/.claude/projects/-home-u-my-app/s1.jsonl");
        let agent = Path::new("/h/.claude/projects/-home-u-my-app/s1/subagents/agent-a.jsonl");
        for name in [
            "my-app",
            "/home/u/my-app",
            "-home-u-my-app",
            "u/my-app",
            "/home/u/my-app/",
        ] {
            assert!(p(name).keeps(Some(file)), "{name}");
            assert!(p(name).keeps(Some(agent)), "{name}");
        }
        for name in ["app-x", "y-app", "home", "", "/"] {
            assert!(!p(name).keeps(Some(file)), "{name}");
        }
        // `app` is the last component of what `-home-u-my-app` encodes as
        // far as the encoding can tell (`/home/u/my/app`).
        assert!(p("app").keeps(Some(file)));
        assert!(p("batch-00").keeps(Some(Path::new("runs/batch-00/task-1.jsonl"))));
        assert!(!p("x").keeps(None));
        assert!(Project::default().keeps(None));
    }
}
