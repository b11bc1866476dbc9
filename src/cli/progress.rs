//! A progress line on stderr: bytes and files done, throughput, time left.
//!
//! Shown only when stderr is a terminal, `--quiet` is off, and the job has
//! run for more than a second; redrawn four times a second and erased at the
//! end.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
    stop: AtomicBool,
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

/// The drawing thread; stops and erases its line when dropped.
pub struct Bar {
    state: Arc<Progress>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Bar {
    /// True when a bar would be drawn: stderr is a terminal and `quiet` is
    /// off.
    pub fn shown(quiet: bool) -> bool {
        !quiet && std::io::stderr().is_terminal()
    }

    /// Start drawing `state` if stderr is a terminal and `quiet` is off.
    pub fn start(state: Arc<Progress>, quiet: bool) -> Bar {
        let thread = if !Bar::shown(quiet) {
            None
        } else {
            let s = Arc::clone(&state);
            std::thread::Builder::new()
                .name("cctape-progress".into())
                .spawn(move || draw_loop(&s))
                .ok()
        };
        Bar { state, thread }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn draw_loop(s: &Progress) {
    let start = Instant::now();
    let mut drawn = false;
    while !s.stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        let elapsed = start.elapsed();
        if elapsed < Duration::from_secs(1) {
            continue;
        }
        let line = render(s, elapsed);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
        drawn = true;
    }
    if drawn {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}

fn render(s: &Progress, elapsed: Duration) -> String {
    let done = s.bytes.load(Ordering::Relaxed);
    let total = s.total_bytes.load(Ordering::Relaxed);
    let files = s.files.load(Ordering::Relaxed);
    let total_files = s.total_files.load(Ordering::Relaxed);
    let secs = elapsed.as_secs_f64().max(1e-3);
    let rate = done as f64 / secs;
    let mut line = format!(
        "{} files {}/{}  {}  {}/s",
        "",
        files,
        total_files,
        super::output::human_bytes(done),
        super::output::human_bytes(rate as u64)
    );
    if total > 0 && done <= total && rate > 0.0 {
        let pct = done as f64 * 100.0 / total as f64;
        let left = (total - done) as f64 / rate;
        line.push_str(&format!("  {pct:.0}%  {left:.0}s left"));
    }
    line.trim_start().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_shows_rate_and_time_left() {
        let p = Progress::default();
        p.total_bytes.store(4 << 20, Ordering::Relaxed);
        p.bytes.store(2 << 20, Ordering::Relaxed);
        p.total_files.store(3, Ordering::Relaxed);
        p.files.store(1, Ordering::Relaxed);
        let line = render(&p, Duration::from_secs(2));
        assert_eq!(line, "files 1/3  2.0 MiB  1.0 MiB/s  50%  2s left");
    }
}
