//! What a transcript file's path says: its project, its session and, for
//! a subagent's file, the agent.

use std::path::Path;

/// What a transcript file's path says: under `~/.claude/projects`,
/// `<project>/<session>.jsonl` or `<project>/<session>/subagents/agent-<id>.jsonl`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscriptFile {
    /// The project folder's name (Claude Code's encoded working directory).
    pub project: Option<String>,
    /// The session the file belongs to.
    pub session: Option<String>,
    /// For a subagent file: the agent's id (`agent-<id>.jsonl`).
    pub agent: Option<String>,
    /// The file as named (the path given), to tell which files a session's
    /// records came from ([`SessionSummary::files`](super::SessionSummary::files)).
    pub name: Option<String>,
}

impl TranscriptFile {
    /// What `path` says.
    ///
    /// ```
    /// use cctape::transcript::TranscriptFile;
    /// use std::path::Path;
    ///
    /// let f = TranscriptFile::from_path(Path::new("/h/.claude/projects/-w-app/1b2c/subagents/agent-a7be2f0.jsonl"));
    /// assert_eq!(f.project.as_deref(), Some("-w-app"));
    /// assert_eq!(f.session.as_deref(), Some("1b2c"));
    /// assert_eq!(f.agent.as_deref(), Some("a7be2f0"));
    /// let f = TranscriptFile::from_path(Path::new("-w-app/9f3e.jsonl"));
    /// assert_eq!((f.project.as_deref(), f.session.as_deref(), f.agent), (Some("-w-app"), Some("9f3e"), None));
    /// ```
    pub fn from_path(path: &Path) -> TranscriptFile {
        // Names that are not UTF-8 as `cctape stats` names its inputs:
        // their bytes escaped, so that two are never merged.
        let text = |s: &std::ffi::OsStr| {
            crate::inputs::name_text(&crate::inputs::os_bytes(s)).into_owned()
        };
        let name = |p: Option<&Path>| p.and_then(|p| p.file_name()).map(text);
        let stem = path.file_stem().map(text);
        let parent = path.parent();
        let file = Some(text(path.as_os_str()));
        if name(parent).as_deref() == Some("subagents") {
            let session_dir = parent.and_then(Path::parent);
            return TranscriptFile {
                project: name(session_dir.and_then(Path::parent)),
                session: name(session_dir),
                agent: stem.map(|s| s.strip_prefix("agent-").unwrap_or(&s).to_owned()),
                name: file,
            };
        }
        TranscriptFile {
            project: name(parent),
            session: stem,
            agent: None,
            name: file,
        }
    }
}
