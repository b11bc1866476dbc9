//! The command line: inputs (directories, gzip, zstd, stdin, unreadable
//! files), `--jobs 1` against `--jobs 2`, `filter` and `fields`.
//!
//! The helpers are here; the tests are in [`inputs`], [`filter`] (with
//! `fields`), [`reports`] (`check`, `stats`, `verdict`, `watch`, `tree`) and
//! [`terminal`] (the progress line, the hint).

use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "../support/run.rs"]
mod run;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("JSON output")
}

fn temp_dir(name: &str) -> Scratch {
    scratch(&format!("cli-{name}"))
}

#[path = "../support/scratch.rs"]
mod scratch_dir;
use scratch_dir::{Scratch, scratch};

mod filter;
mod inputs;
mod reports;
mod terminal;

const STREAMS: &str = "corpus/streams";

fn stream(name: &str) -> String {
    format!("{STREAMS}/{name}")
}

/// A large input made of the corpus streams repeated, so that it is cut into
/// chunks when read with more than one job.
fn big_file(dir: &Path) -> PathBuf {
    let mut body = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(STREAMS)
        .expect("corpus/streams")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    for _ in 0..400 {
        for n in &names {
            let b = std::fs::read(n).expect("read stream");
            body.extend_from_slice(&b);
            if !b.ends_with(b"\n") {
                body.push(b'\n');
            }
        }
    }
    assert!(
        body.len() > 32 << 20,
        "big enough to be cut: {}",
        body.len()
    );
    let p = dir.join("big.jsonl");
    std::fs::write(&p, &body).expect("write big");
    p
}

/// The real-data part of reports::stats_prune_gives_the_same_figures_as_exact reads
/// ../shared/realworld and passes without it; this test makes that skip show in
/// cargo's summary.
#[path = "../support/realworld_present.rs"]
mod realworld_present;
