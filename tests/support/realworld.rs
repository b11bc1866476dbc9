//! Where the real captures are (`../shared/realworld`, beside the clone),
//! for the test files that walk them: one definition of "present", of the
//! CI rule, and of the walk.
#![allow(dead_code)]

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
