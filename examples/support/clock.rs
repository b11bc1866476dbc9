//! What the side-by-side examples (`sidebyside`, `blockpass`) share: their
//! arguments, and the clock they time their readers with (the thread's CPU
//! time where Linux gives it, else wall time).

use std::time::Instant;

/// Nanoseconds this thread has run on a CPU, where Linux says
/// (`/proc/thread-self/schedstat`): on a shared machine, time spent
/// waiting for the core is not counted.
pub fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// What `f` returns, and the seconds it took: thread CPU time where
/// available, else wall time.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let (c0, t0) = (cpu_ns(), Instant::now());
    let r = f();
    let wall = t0.elapsed().as_secs_f64();
    let secs = match (c0, cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (r, secs)
}

/// The median of `v` (sorted in place; the upper one of an even count).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The arguments both examples take, `FILE [ROUNDS] [FILTER]`: the path,
/// the file's bytes (read once, into memory), the rounds (default 9) and
/// the filter on readers' names.
pub fn args(example: &str) -> (String, Vec<u8>, usize, Option<String>) {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| panic!("usage: {example} FILE [ROUNDS] [FILTER]"));
    let rounds: usize = args.next().map_or(9, |r| r.parse().expect("rounds"));
    let filter = args.next();
    let data = std::fs::read(&path).expect("read FILE");
    (path, data, rounds, filter)
}
