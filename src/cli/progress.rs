//! A progress line on stderr: bytes and files done, throughput, time left,
//! drawn by `indicatif` (the crate the Rust CLI ecosystem uses for this).
//!
//! Shown only when stderr is a terminal (indicatif's stderr target draws
//! nothing otherwise), `--quiet` is off, and the job has run for more than
//! a second ([`DELAY`]); redrawn four times a second. It is cleared before
//! any other message goes to stderr ([`suspend`], which `exec::note` uses)
//! and at the end, also when a closed pipe ends the process early
//! ([`clear`], which `exec::write_failed` calls).
//!
//! The workers bump plain atomic counters ([`Progress`]); one thread reads
//! them into the bar, so reading costs an atomic add per read whether a bar
//! is drawn or not.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a job runs before its progress line appears: a short job
/// never flashes one. `CCTAPE_PROGRESS_AFTER_MS` changes it (for tests).
pub const DELAY: Duration = Duration::from_secs(1);

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(250);

/// Counters the workers bump and the drawing thread reads.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes of input consumed.
    pub bytes: AtomicU64,
    /// Bytes of input in all (0 when unknown, as for stdin).
    pub total_bytes: AtomicU64,
    /// Inputs finished.
    pub files: AtomicU64,
    /// Inputs in all.
    pub total_files: AtomicU64,
}

impl Progress {
    /// Add consumed bytes.
    pub fn add_bytes(&self, n: u64) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }

    /// Count a finished input.
    pub fn file_done(&self) {
        self.files.fetch_add(1, Ordering::Relaxed);
    }
}

/// The bar being drawn, if any: what [`suspend`] and [`clear`] act on.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Run `f` (which writes to stderr) with the progress line cleared, and
/// draw it again after.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let bar = SHOWN.lock().ok().and_then(|b| b.clone());
    match bar {
        Some(b) => b.suspend(f),
        None => f(),
    }
}

/// Clear the progress line for good (the job is over, or the process is
/// about to end).
pub fn clear() {
    let bar = SHOWN.lock().ok().and_then(|mut b| b.take());
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

/// The drawing thread; stops and clears the line when dropped.
pub struct Bar {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Bar {
    /// True when a bar would be drawn: stderr is a terminal and `quiet` is
    /// off.
    pub fn shown(quiet: bool) -> bool {
        !quiet && std::io::stderr().is_terminal()
    }

    /// Start drawing `state` if stderr is a terminal and `quiet` is off.
    pub fn start(state: Arc<Progress>, quiet: bool) -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = if Bar::shown(quiet) {
            let delay = std::env::var("CCTAPE_PROGRESS_AFTER_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .map_or(DELAY, Duration::from_millis);
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("cctape-progress".into())
                .spawn(move || draw_loop(&state, &stop, delay))
                .ok()
        } else {
            None
        };
        Bar { stop, thread }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The line's layout: with a known size, a bar, percent and time left.
fn template(sized: bool) -> &'static str {
    if sized {
        "{bytes}/{total_bytes} [{bar:24}] {percent}%  {binary_bytes_per_sec}  {eta} left  {msg}"
    } else {
        "{bytes}  {binary_bytes_per_sec}  {msg}"
    }
}

fn style(sized: bool) -> ProgressStyle {
    ProgressStyle::with_template(template(sized))
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// Copy the counters into the bar.
fn update(bar: &ProgressBar, s: &Progress) {
    bar.set_position(s.bytes.load(Ordering::Relaxed));
    bar.set_message(files_text(s));
}

fn files_text(s: &Progress) -> String {
    format!(
        "files {}/{}",
        s.files.load(Ordering::Relaxed),
        s.total_files.load(Ordering::Relaxed)
    )
}

fn draw_loop(s: &Progress, stop: &AtomicBool, delay: Duration) {
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    loop {
        std::thread::park_timeout(TICK);
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if start.elapsed() < delay {
            continue;
        }
        let bar = bar.get_or_insert_with(|| {
            let total = s.total_bytes.load(Ordering::Relaxed);
            let b = ProgressBar::with_draw_target(
                (total > 0).then_some(total),
                ProgressDrawTarget::stderr_with_hz(4),
            )
            .with_style(style(total > 0))
            // The rate and time left count from the start of the job.
            .with_elapsed(start.elapsed());
            if let Ok(mut shown) = SHOWN.lock() {
                *shown = Some(b.clone());
            }
            b
        });
        update(bar, s);
    }
    if bar.is_some() {
        clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_bytes_files_rate_and_time_left() {
        let p = Progress::default();
        p.files.store(1, Ordering::Relaxed);
        p.total_files.store(3, Ordering::Relaxed);
        assert_eq!(files_text(&p), "files 1/3");
        // Both templates are valid (a bad one would fall back silently).
        for sized in [true, false] {
            assert!(ProgressStyle::with_template(template(sized)).is_ok());
        }
    }
}
