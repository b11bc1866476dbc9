//! Snapshots of what users see (insta): every reading command's output over
//! the shipped corpus, the real captures (`../shared/realworld`, every
//! wave) and a generated transcript tree, with its stderr and exit code.
//!
//! A change to any of these outputs shows as a diff of a `.snap` file under
//! `tests/snapshots/`, to be reviewed like code and explained in the commit
//! (`cargo insta review`, or `INSTA_UPDATE=always cargo test --test
//! snapshots` and `git diff`). Under CI (`CI` set) a mismatch fails and
//! nothing is written.
//!
//! JSON outputs are pretty-printed (one key a line, so that a diff names the
//! field); outputs too long to read (`filter`'s lines, `fields`' rows, the
//! Parquet part files) are kept as their size and a 64-bit FNV-1a digest of
//! their bytes, which any change of a byte changes.

use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
#[path = "../examples/gentranscripts.rs"]
mod gentranscripts;

#[path = "support/scratch.rs"]
mod scratch;

/// FNV-1a, 64 bits: a digest of an output too long to keep in a snapshot.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn digest(bytes: &[u8]) -> String {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    format!(
        "{lines} lines, {} bytes, fnv1a {:016x}\n",
        bytes.len(),
        fnv1a(bytes)
    )
}

/// How an output is kept in the snapshot.
#[derive(Clone, Copy)]
enum Keep {
    /// As it is (text for people).
    Text,
    /// One JSON document, pretty-printed.
    Json,
    /// One JSON document a line, each pretty-printed.
    JsonLines,
    /// Its size and digest.
    Digest,
}

fn render(bytes: &[u8], keep: Keep) -> String {
    let text = || String::from_utf8_lossy(bytes).into_owned();
    let pretty = |line: &str| match serde_json::from_str::<serde_json::Value>(line) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| line.to_owned()) + "\n",
        Err(_) => format!("{line}\n"),
    };
    match keep {
        Keep::Text => text(),
        Keep::Json if bytes.is_empty() => String::new(),
        Keep::Json => pretty(text().trim_end()),
        Keep::JsonLines => text().lines().map(pretty).collect(),
        Keep::Digest => digest(bytes),
    }
}

/// Runs `cctape ARGS` in `cwd` and renders what a user sees.
fn run(cwd: &Path, args: &[&str], keep: Keep) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cctape"))
        .current_dir(cwd)
        .args(args)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("TZ", "UTC")
        .output()
        .expect("run cctape");
    format!(
        "$ cctape {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        render(&out.stdout, keep),
        String::from_utf8_lossy(&out.stderr),
    )
}

/// The commands every input set goes through, with how each is kept.
const COMMANDS: &[(&str, &[&str], Keep)] = &[
    ("stats", &["stats"], Keep::Text),
    ("stats_json", &["stats", "--json"], Keep::Json),
    (
        "stats_by_file_csv",
        &["stats", "--csv", "--by", "file"],
        Keep::Text,
    ),
    (
        "stats_by_model_json",
        &["stats", "--json", "--by", "model"],
        Keep::Json,
    ),
    // The table people read (ccusage's columns over transcripts; piped,
    // so no chart column).
    (
        "stats_by_day",
        &["stats", "--by", "day", "--breakdown"],
        Keep::Text,
    ),
    // The HTML page: its size and digest.
    ("report_html", &["report", "--html", "-"], Keep::Digest),
    ("verdict_json", &["verdict", "--json"], Keep::JsonLines),
    ("tree", &["tree"], Keep::Text),
    ("tree_json", &["tree", "--json"], Keep::JsonLines),
    ("check", &["check"], Keep::Text),
    ("filter_count", &["filter", "--count"], Keep::Text),
    ("filter_errors", &["filter", "--errors", "-n"], Keep::Digest),
    ("filter_all", &["filter", "-n"], Keep::Digest),
    (
        "fields",
        &[
            "fields",
            "-f",
            "@file",
            "-f",
            "@line",
            "-f",
            "@offset",
            "-f",
            "@kind",
            "-f",
            "session_id",
            "-f",
            "message.usage",
            "-f",
            "total_cost_usd",
        ],
        Keep::Digest,
    ),
];

/// Every command over `input` (relative to `cwd`), one snapshot each, and
/// the Parquet export's files as digests.
fn snapshot_all(set: &str, cwd: &Path, input: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, args, keep) in COMMANDS {
            let mut argv = args.to_vec();
            argv.push(input);
            insta::assert_snapshot!(format!("{set}__{name}"), run(cwd, &argv, *keep));
        }
        let out = scratch::scratch(&format!("snap-export-{set}"));
        let dir = out.to_path_buf();
        let dir_arg = dir.to_string_lossy().into_owned();
        let mut report = run(
            cwd,
            &["export", "--json", "--out", &dir_arg, input],
            Keep::Json,
        )
        .replace(&dir_arg, "OUT");
        for table in ["events", "runs", "tools"] {
            let mut parts: Vec<PathBuf> = std::fs::read_dir(dir.join(table))
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            parts.sort();
            for p in parts {
                let bytes = std::fs::read(&p).expect("part file");
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                report += &format!("{table}/{}: {}", name.unwrap_or_default(), digest(&bytes));
            }
        }
        insta::assert_snapshot!(format!("{set}__export"), report);
    });
}

#[test]
fn corpus() {
    snapshot_all("corpus", Path::new(env!("CARGO_MANIFEST_DIR")), "corpus");
}

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn realworld() {
    snapshot_all(
        "realworld",
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "../shared/realworld",
    );
}

#[test]
fn generated_transcripts() {
    let tmp = scratch::scratch("snap-transcripts");
    let opts = gentranscripts::Opts {
        projects: 3,
        sessions: 3,
        turns: 6,
        seed: 11,
    };
    gentranscripts::generate(&tmp, &opts).expect("generate a tree");
    snapshot_all("transcripts", &tmp, ".claude/projects");
}
