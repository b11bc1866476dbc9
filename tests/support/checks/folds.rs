//! The run fold (with and without `record_calls`, drained or not) and
//! `cctape stats`'s read ahead against the one-thread read (part of
//! `checks.rs`).

use cctape::event::parse_event;
use cctape::framing::Lines;
use cctape::json::Scanner;
use cctape::run::{RunFolder, RunSummary};
use cctape::stats::{AheadLine, ReadAhead, Stats};
use cctape::{Counts, Event, SliceEvents};

use super::reparses;

// ---------------------------------------------------------------------------
// Run fold

/// The summaries of a manual fold of `bytes`, draining after each line
/// number in `drains` (sorted); true beside them when an event carried the
/// session of a run drained before it (which the docs say starts a new
/// run).
pub fn fold_runs(bytes: &[u8], record_calls: bool, drains: &[u64]) -> (Vec<RunSummary>, bool) {
    let mut folder = RunFolder::new();
    folder.record_calls(record_calls);
    let mut out = Vec::new();
    let mut drained: Vec<String> = Vec::new();
    let mut came_back = false;
    let mut next = 0;
    let mut events = SliceEvents::new(bytes);
    while let Some(item) = events.next_event() {
        let line = match &item {
            Ok(ev) => ev.line(),
            Err(e) => e.position().line,
        };
        while next < drains.len() && drains[next] < line {
            for r in folder.drain_complete() {
                assert!(r.results > 0, "a drained run has no result");
                drained.extend(r.session_id.clone());
                out.push(r);
            }
            next += 1;
        }
        match item {
            Ok(ev) => {
                if ev
                    .session_id()
                    .is_some_and(|s| drained.iter().any(|d| d == s))
                {
                    came_back = true;
                }
                folder.push(&ev);
                assert!(folder.current_first_line().is_some());
            }
            Err(e) => folder.push_error(&e),
        }
    }
    out.extend(folder.finish());
    out.sort_by_key(|r| r.first_line);
    (out, came_back)
}

fn runs_json(runs: &[RunSummary]) -> Vec<serde_json::Value> {
    runs.iter()
        .map(|r| {
            let j = r.to_json();
            reparses(&j);
            let _ = (r.ok(), format!("{r:?}"));
            j
        })
        .collect()
}

/// The run fold over any lines: with and without `record_calls`, draining
/// after the lines in `drains` or only finishing, and `runs_of_slice`, all
/// agree (draining only changes runs when a drained session comes back,
/// and then the events and bad lines are still all counted once).
pub fn check_run_fold(bytes: &[u8], drains: &[u64]) {
    let (plain, _) = fold_runs(bytes, false, &[]);
    let want = runs_json(&plain);
    let mut firsts: Vec<u64> = plain.iter().map(|r| r.first_line).collect();
    firsts.dedup();
    assert_eq!(firsts.len(), plain.len(), "two runs with one first line");
    for r in &plain {
        assert!(r.first_line <= r.last_line);
    }

    let sliced = cctape::run::runs_of_slice(bytes);
    assert_eq!(
        runs_json(&sliced),
        want,
        "runs_of_slice differs from the fold"
    );

    let (calls, _) = fold_runs(bytes, true, &[]);
    assert_eq!(
        runs_json(&calls),
        want,
        "record_calls changed the summaries"
    );
    for (r, p) in calls.iter().zip(&plain) {
        assert!(p.model_calls.is_empty() && p.tool_calls.is_empty());
        let _ = (r.model_calls.len(), r.tool_calls.len());
    }

    let mut drains = drains.to_vec();
    drains.sort_unstable();
    for record in [false, true] {
        let (got, came_back) = fold_runs(bytes, record, &drains);
        let got_json = runs_json(&got);
        if !came_back {
            assert_eq!(got_json, want, "draining at {drains:?} changed the runs");
        } else {
            assert!(got.len() >= plain.len());
            let sum = |rs: &[RunSummary]| {
                (
                    rs.iter().map(|r| r.events).sum::<u64>(),
                    rs.iter().map(|r| r.bad_lines).sum::<u64>(),
                )
            };
            assert_eq!(sum(&got), sum(&plain), "draining lost or doubled events");
        }
    }
}

// ---------------------------------------------------------------------------
// The stats path

/// What `cctape stats` reads from one input: the stats and the runs.
pub struct StatsRead {
    /// Events by type, counts and errors.
    pub stats: Stats,
    /// Counts as the CLI's driver keeps them.
    pub counts: Counts,
    /// The runs.
    pub runs: Vec<RunSummary>,
}

/// Read `bytes` as `cctape stats` does on one thread: every non-blank line
/// through `parse_event`, into [`Stats`] and a [`RunFolder`].
pub fn stats_read(bytes: &[u8]) -> StatsRead {
    let mut stats = Stats::new();
    let mut runs = RunFolder::new();
    let mut scanner = Scanner::new();
    let mut counts = Counts::default();
    for line in Lines::new(bytes) {
        counts.lines += 1;
        if line.is_blank() {
            counts.blank_lines += 1;
            continue;
        }
        let read = parse_event(&mut scanner, &line);
        fold_read(read, &mut counts, &mut stats, &mut runs);
    }
    StatsRead {
        stats,
        counts,
        runs: runs.finish(),
    }
}

/// One line's read, counted and folded as the CLI's stats sink does.
fn fold_read(
    read: Result<Event<'_>, cctape::Error>,
    counts: &mut Counts,
    stats: &mut Stats,
    runs: &mut RunFolder,
) {
    match read {
        Ok(ev) => {
            counts.events += 1;
            stats.record_event(&ev);
            runs.push(&ev);
        }
        Err(e) => {
            counts.errors += 1;
            stats.record_error(0, &e);
            runs.push_error(&e);
        }
    }
}

/// [`stats_read`] through [`ReadAhead`], as `cctape stats` reads a large
/// file on two cores: `bytes` cut after the first LF at or past every
/// `size` bytes, each chunk validated and indexed ahead (on another
/// thread), then folded in order.
pub fn stats_read_ahead(bytes: &[u8], size: usize) -> StatsRead {
    let mut stats = Stats::new();
    let mut runs = RunFolder::new();
    let mut counts = Counts::default();
    let (mut scanner, mut ahead) = (cctape::json::Scanner::new(), ReadAhead::new());
    let (mut at, mut number) = (0usize, 1u64);
    while at < bytes.len() {
        let from = (at + size.max(1)).min(bytes.len()) - 1;
        let end = memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i + 1);
        let chunk = &bytes[at..end];
        ahead.read(
            &mut scanner,
            chunk,
            (at as u64, number),
            cctape::framing::DEFAULT_MAX_LINE,
        );
        ahead = std::thread::spawn(move || ahead).join().expect("thread");
        for (line, item) in ahead.lines(chunk) {
            counts.lines += 1;
            let read = match item {
                AheadLine::Blank => {
                    counts.blank_lines += 1;
                    continue;
                }
                AheadLine::Event(event) => Ok(event),
                AheadLine::Failed(e) => Err(e),
                AheadLine::TooLong => panic!("line {}: past the default maximum", line.number),
            };
            fold_read(read, &mut counts, &mut stats, &mut runs);
        }
        number += memchr::memchr_iter(b'\n', chunk).count() as u64;
        at = end;
    }
    StatsRead {
        stats,
        counts,
        runs: runs.finish(),
    }
}

/// The property `cctape stats` relies on: the read ahead in chunks gives
/// the same stats (events by type, counts, errors with positions) and the
/// same run summaries as the one-thread read; and that read agrees with
/// `Stats::read_slice` and `runs_of_slice`. Returns the number of runs.
pub fn check_stats_path(bytes: &[u8]) -> usize {
    let one = stats_read(bytes);
    // Read ahead in chunks (one line each, and about a third of the
    // input each): the same as the one-thread read.
    for size in [1, bytes.len() / 3] {
        let ahead = stats_read_ahead(bytes, size);
        assert_eq!(ahead.counts, one.counts, "counts differ ahead");
        assert_eq!(ahead.stats.by_type(), one.stats.by_type());
        assert_eq!(ahead.stats.errors, one.stats.errors, "errors ahead");
        assert_eq!(
            runs_json(&ahead.runs),
            runs_json(&one.runs),
            "run summaries differ ahead"
        );
    }

    let mut lib = Stats::new();
    lib.read_slice(0, bytes);
    assert_eq!(lib.by_type(), one.stats.by_type());
    assert_eq!(lib.errors, one.stats.errors);
    assert_eq!(lib.counts, one.counts);
    assert_eq!(
        runs_json(&cctape::run::runs_of_slice(bytes)),
        runs_json(&one.runs)
    );
    one.runs.len()
}
