//! `ReadOptions::pruned`: an input read as `cctape stats` reads it by
//! default (long lines with long tool payloads from a pruned copy) gives
//! the run summaries, counts and bad lines of every line parsed whole, and
//! its long lines' events are built from the shorter copy.

use cctape::inputs::{Item, ReadOptions, read_path, read_source};
use cctape::run::RunFolder;
use cctape::source::{EndReport, Source, SourceKind};
use std::ops::ControlFlow;

#[path = "support/realworld.rs"]
mod realworld;

#[path = "support/realworld_present.rs"]
mod realworld_present;

/// What one reading gives: the runs as JSON, the counts, each bad line's
/// (line, offset, kind), and each event's (line, raw length).
type Reading = (
    Vec<serde_json::Value>,
    cctape::stream::Counts,
    Vec<(u64, u64, String)>,
    Vec<(u64, usize)>,
);

fn fold(
    read: impl FnOnce(&mut dyn FnMut(Item<'_, '_>) -> ControlFlow<()>) -> cctape::inputs::InputEnd,
) -> Reading {
    let mut folder = RunFolder::new();
    let (mut errors, mut events) = (Vec::new(), Vec::new());
    let end = read(&mut |item| {
        match item {
            Item::Event(ev) => {
                folder.push(ev);
                events.push((ev.line(), ev.raw().len()));
            }
            Item::Error { error, .. } => {
                folder.push_error(error);
                let p = error.position();
                errors.push((p.line, p.offset, error.kind().name().to_string()));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    let runs = folder.finish().iter().map(|r| r.to_json()).collect();
    (runs, end.counts, errors, events)
}

fn options(pruned: bool) -> ReadOptions {
    ReadOptions {
        pruned,
        ..ReadOptions::default()
    }
}

fn read_bytes(bytes: &[u8], pruned: bool) -> Reading {
    fold(|f| {
        let report = EndReport::new();
        let src = Source::new(bytes, SourceKind::Stream, &report).expect("a source over bytes");
        read_source(src, &options(pruned), f)
    })
}

#[test]
fn a_long_tool_result_is_read_from_a_shorter_copy_with_the_same_run() {
    let long = "y".repeat(6000);
    let input = format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}}\n\
         {{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"is_error\":true,\"content\":\"Error: {long}\"}}]}},\"session_id\":\"s\"}}\n\
         not json\n\
         {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"s\"}}\n"
    );
    let whole = read_bytes(input.as_bytes(), false);
    let pruned = read_bytes(input.as_bytes(), true);
    assert_eq!(pruned.0, whole.0, "runs");
    assert_eq!(pruned.1, whole.1, "counts");
    assert_eq!(pruned.2, whole.2, "bad lines");
    assert_eq!(whole.1.events, 3);
    let at = input.find("not json").expect("the bad line") as u64;
    assert_eq!(whole.2, [(3, at, "invalid_json".to_string())]);
    // The tool result's line: whole, then from the copy cut to 256 bytes.
    assert!(whole.3[1].1 > 6000, "{:?}", whole.3);
    assert!(pruned.3[1].1 < 600, "{:?}", pruned.3);
    assert_eq!(whole.0[0]["tool_errors"], pruned.0[0]["tool_errors"]);
}

#[test]
fn every_real_capture_folds_the_same_runs_pruned() {
    let Some(dir) = realworld::realworld_dir() else {
        return;
    };
    let (mut files, mut shorter) = (0, 0);
    for path in realworld::all_files(&dir) {
        let whole = fold(|f| read_path(&path, &options(false), f));
        let pruned = fold(|f| read_path(&path, &options(true), f));
        let name = path.display();
        assert_eq!(pruned.0, whole.0, "{name}: runs");
        assert_eq!(pruned.1, whole.1, "{name}: counts");
        assert_eq!(pruned.2, whole.2, "{name}: bad lines");
        let lines = |r: &Reading| r.3.iter().map(|e| e.0).collect::<Vec<_>>();
        assert_eq!(lines(&pruned), lines(&whole), "{name}: events");
        shorter += pruned
            .3
            .iter()
            .zip(&whole.3)
            .filter(|(p, w)| p.1 < w.1)
            .count();
        files += 1;
    }
    assert!(files > 55, "{files} files");
    // Some real lines were read from a pruned copy.
    assert!(shorter > 100, "{shorter} events read from a pruned copy");
}
