//! Tells the tests whether the real-world captures are beside the crate.
//!
//! The tests that read `../shared/realworld` (public captures kept outside
//! the repository, see the README) are marked
//! `#[cfg_attr(cctape_no_realworld, ignore = "...")]`, so that without the
//! folder cargo lists them as ignored, with the reason, instead of passing
//! them silently. Under CI (`CI` set) the cfg is never set: there a missing
//! folder must fail the tests, not hide them.
//!
//! Nothing in the library or the binary depends on this cfg.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(cctape_no_realworld)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CI");
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let realworld = Path::new(&manifest).join("../shared/realworld");
    if realworld.is_dir() {
        // Rerun if it goes away. (A folder that does not exist cannot be
        // watched without making cargo rerun this script on every build, so
        // after adding it, `touch build.rs`; the ignore reason says so.)
        println!("cargo::rerun-if-changed={}", realworld.display());
    } else if std::env::var_os("CI").is_none() {
        println!("cargo::rustc-cfg=cctape_no_realworld");
    }
}
