//! Where the real captures are (`../shared/realworld`, beside the clone),
//! for the test files that walk them: one definition of "present", of the
//! CI rule, and of the walk.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `../shared/realworld`, or `None` (after saying so) when it is missing;
/// under CI (`CI` set) a missing folder fails the test instead.
pub fn realworld_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    if dir.is_dir() {
        return Some(dir);
    }
    println!("skipped: ../shared/realworld not found");
    assert!(
        std::env::var_os("CI").is_none(),
        "../shared/realworld not found and CI is set: these tests must run in CI"
    );
    None
}

/// Every file below `dir`, sorted by path.
pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every table row of every README below `dir` (./README.md, wave2/,
/// wave3/, ... : one a collection) that names files in its first cell:
/// file name (as written, without a folder) -> (section heading, row text).
pub fn readme_rows(dir: &Path) -> BTreeMap<String, Vec<(String, String)>> {
    let mut rows: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for path in all_files(dir) {
        if path.file_name().is_none_or(|n| n != "README.md") {
            continue;
        }
        let readme = std::fs::read_to_string(&path).unwrap();
        let mut section = String::new();
        for line in readme.lines() {
            if line.starts_with('#') {
                section = line.trim_start_matches('#').trim().to_string();
                continue;
            }
            if !line.starts_with('|') {
                continue;
            }
            let first = line.split('|').nth(1).unwrap_or("");
            for (i, piece) in first.split('`').enumerate() {
                if i % 2 == 1 {
                    let name = piece.rsplit('/').next().unwrap_or(piece).to_string();
                    rows.entry(name)
                        .or_default()
                        .push((section.clone(), line.to_string()));
                }
            }
        }
    }
    rows
}

/// True when a cell of one of `rows` starts with `what` (wave3's "not
/// JSON: the run's final text").
pub fn a_cell_starts_with(rows: &[(String, String)], what: &str) -> bool {
    rows.iter()
        .any(|(_, r)| r.split('|').any(|cell| cell.trim().starts_with(what)))
}

/// What the READMEs say of the lines of the file `name`: `Some(false)` when
/// its row says none of them is an event (a text output kept as `.jsonl`:
/// "not JSON"; a JSON object that "is not an event"), `Some(true)` when it
/// is named and not so, `None` when no README names it.
pub fn readme_says_events(
    rows: &BTreeMap<String, Vec<(String, String)>>,
    name: &str,
) -> Option<bool> {
    let r = rows.get(name)?;
    let none =
        a_cell_starts_with(r, "not JSON") || r.iter().any(|(_, row)| row.contains("not an event"));
    Some(!none)
}

/// What the READMEs say a file is (its rows in [`readme_rows`]), as
/// [`cctape::sniff::sniff_format`] should tell it.
pub fn readme_format(name: &str, rows: &[(String, String)]) -> cctape::sniff::Format {
    use cctape::sniff::Format;
    let said = |what: &str| {
        rows.iter()
            .any(|(s, r)| s.contains(what) || r.contains(what))
    };
    if said("Session transcript") || said("Session-transcript") || said("session transcript") {
        return Format::Transcript;
    }
    if name.ends_with(".json") && (said("pretty JSON array") || said("JSON array of")) {
        return Format::JsonArray;
    }
    if name.ends_with(".pretty.json") && said("pretty-printed") {
        return Format::PrettyJson;
    }
    if name.ends_with(".txt") && said("non-JSON prefixes") {
        return Format::LoggerPrefixed;
    }
    if said("Truncated (not valid JSON)") {
        return Format::CutLines;
    }
    // wave3/README: "not JSON: the run's final text" (a `.jsonl` that holds
    // a harness's text output).
    if a_cell_starts_with(rows, "not JSON") {
        return Format::Text;
    }
    Format::Ndjson
}

/// How many lines of the file the READMEs say are errors when it is read:
/// every non-blank line of a file whose row says it "is not an event", `N`
/// where a row says "N not JSON" (a harness's line in a stream, lines a
/// logger cut), none for a text output ("not JSON: ..."), which is one
/// finding.
pub fn readme_bad_lines(rows: &[(String, String)], bytes: &[u8]) -> u64 {
    if a_cell_starts_with(rows, "not JSON") {
        return 0;
    }
    if rows.iter().any(|(_, r)| r.contains("not an event")) {
        return bytes
            .split(|&b| b == b'\n')
            .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .count() as u64;
    }
    rows.iter()
        .filter_map(|(_, r)| {
            let at = r.find(" not JSON")?;
            r[..at]
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap_or(0)
}
