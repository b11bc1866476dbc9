//! Reading a file with `read` into large buffers against a memory map, on
//! the two paths the command line runs: `filter` (validated scan of every
//! line, matched lines copied to an output buffer) and `stats` (every line
//! validated and indexed, the counters and the run fold).
//!
//! ```text
//! cargo run --release --example readmap -- FILE [ROUNDS]
//! cargo run --release --example readmap -- FILE 1 map|KIB filter|stats   # one pass
//! ```
//!
//! Each round runs every variant once per path, in a rotating order, so
//! drift on a busy machine hits all alike; the table gives per variant the
//! median wall time and the medians of its ratios to the map in the same
//! round, in wall time and in CPU time of the reading thread (user + system,
//! `getrusage(RUSAGE_THREAD)`: the kernel's copy for `read` and its page
//! faults for the map are both in it, and it moves less than wall time when
//! other processes share the cores).
//! Every variant must see the same number of lines and matches, or the run
//! stops. The page cache is warm after the first round (the file is read
//! once before timing starts).
//!
//! A map is re-created for every pass, as the command does once per input:
//! its page faults are part of what is measured.

use cctape::event::parse_event;
use cctape::framing::{DEFAULT_MAX_LINE, Line, LineReader, Lines};
use cctape::json::{ScanMode, Scanner};
use cctape::run::RunFolder;
use cctape::stats::Stats;
use std::fs::File;
use std::time::Instant;

/// What a pass saw: lines and matches (or events), to check every variant
/// read the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    lines: u64,
    hits: u64,
}

trait Path {
    fn line(&mut self, line: &Line<'_>);
    fn seen(&self) -> Seen;
}

/// `cctape filter --type result`: validate every line, copy the matches.
struct Filter {
    scanner: Scanner,
    out: Vec<u8>,
    seen: Seen,
}

impl Path for Filter {
    fn line(&mut self, line: &Line<'_>) {
        self.seen.lines += 1;
        if let Ok(s) = self.scanner.scan_with(line, ScanMode::Validated)
            && s.raw_type() == "result"
        {
            self.seen.hits += 1;
            self.out.extend_from_slice(s.raw());
            self.out.push(b'\n');
            if self.out.len() > 1 << 20 {
                std::hint::black_box(&self.out);
                self.out.clear();
            }
        }
    }
    fn seen(&self) -> Seen {
        self.seen
    }
}

/// `cctape stats`: the indexed read, counters and the run fold.
struct StatsPath {
    scanner: Scanner,
    stats: Stats,
    runs: RunFolder,
    seen: Seen,
}

impl Path for StatsPath {
    fn line(&mut self, line: &Line<'_>) {
        self.seen.lines += 1;
        if line.is_blank() {
            return;
        }
        if let Ok(ev) = parse_event(&mut self.scanner, line) {
            self.seen.hits += 1;
            self.stats.record_event(&ev);
            self.runs.push(&ev);
        }
        if self.seen.lines.is_multiple_of(4096) {
            std::hint::black_box(self.runs.drain_idle(line.number.saturating_sub(50_000)));
        }
    }
    fn seen(&self) -> Seen {
        self.seen
    }
}

fn new_path(stats: bool) -> Box<dyn Path> {
    if stats {
        Box::new(StatsPath {
            scanner: Scanner::new(),
            stats: Stats::new(),
            runs: RunFolder::new(),
            seen: Seen { lines: 0, hits: 0 },
        })
    } else {
        Box::new(Filter {
            scanner: Scanner::new(),
            out: Vec::new(),
            seen: Seen { lines: 0, hits: 0 },
        })
    }
}

#[derive(Clone, Copy)]
enum Variant {
    Map,
    Read(usize),
}

impl Variant {
    fn name(self) -> String {
        match self {
            Variant::Map => "map (memmap2, MADV_SEQUENTIAL)".into(),
            Variant::Read(n) => format!("read, {} KiB buffer", n >> 10),
        }
    }
}

/// User + system time of this thread, seconds.
#[allow(unsafe_code)]
fn cpu() -> f64 {
    // SAFETY: getrusage writes into the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// One pass: (wall seconds, CPU seconds, what it saw).
#[allow(unsafe_code)]
fn pass(file: &str, v: Variant, stats: bool) -> (f64, f64, Seen) {
    let mut path = new_path(stats);
    let c = cpu();
    let t = Instant::now();
    let f = File::open(file).expect("open");
    match v {
        Variant::Map => {
            // SAFETY: a benchmark over a file nobody else writes.
            let map = unsafe { memmap2::Mmap::map(&f) }.expect("map");
            let _ = map.advise(memmap2::Advice::Sequential);
            for line in Lines::new(&map) {
                path.line(&line);
            }
        }
        Variant::Read(n) => {
            let mut r = LineReader::with_capacity(f, n, DEFAULT_MAX_LINE);
            while let Some(line) = r.next_line() {
                match line {
                    Ok(l) => path.line(&l),
                    Err(e) => panic!("{e}"),
                }
            }
        }
    }
    (t.elapsed().as_secs_f64(), cpu() - c, path.seen())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).expect("usage: readmap FILE [ROUNDS]");
    let rounds: usize = args.get(2).map_or(7, |r| r.parse().expect("rounds"));
    let len = std::fs::metadata(file).expect("stat").len() as f64;
    let _ = std::fs::read(file).expect("warm the page cache");
    if let (Some(v), Some(path)) = (args.get(3), args.get(4)) {
        // One pass of one variant (for callgrind): `map` or a buffer in KiB;
        // `filter` or `stats`.
        let v = match v.as_str() {
            "map" => Variant::Map,
            kib => Variant::Read(kib.parse::<usize>().expect("KiB") << 10),
        };
        let (secs, cpu, seen) = pass(file, v, path == "stats");
        println!("{} {path}: {secs:.3} s, {cpu:.3} s CPU, {seen:?}", v.name());
        return;
    }
    let variants = [
        Variant::Map,
        Variant::Read(64 << 10),
        Variant::Read(256 << 10),
        Variant::Read(1 << 20),
        Variant::Read(4 << 20),
    ];
    for stats in [false, true] {
        let mut times = vec![Vec::new(); variants.len()];
        let mut ratios = vec![Vec::new(); variants.len()];
        let mut cpu_ratios = vec![Vec::new(); variants.len()];
        let mut want = None;
        for round in 0..rounds {
            let mut t = vec![0.0; variants.len()];
            let mut c = vec![0.0; variants.len()];
            for k in 0..variants.len() {
                let i = (k + round) % variants.len();
                let (secs, cpu, seen) = pass(file, variants[i], stats);
                match want {
                    None => want = Some(seen),
                    Some(w) => assert_eq!(w, seen, "{} saw other lines", variants[i].name()),
                }
                t[i] = secs;
                c[i] = cpu;
            }
            for i in 0..variants.len() {
                times[i].push(t[i]);
                ratios[i].push(t[i] / t[0]);
                cpu_ratios[i].push(c[i] / c[0]);
            }
        }
        let name = if stats {
            "stats"
        } else {
            "filter --type result"
        };
        println!(
            "\n{name}: {file}, {rounds} rounds, {:?}",
            want.expect("a pass")
        );
        println!("| variant | median MB/s | wall / map | CPU / map |");
        println!("|---|---:|---:|---:|");
        for (i, v) in variants.iter().enumerate() {
            let secs = median(&mut times[i]);
            println!(
                "| {} | {:.0} | {:.3} | {:.3} |",
                v.name(),
                len / secs / 1e6,
                median(&mut ratios[i]),
                median(&mut cpu_ratios[i])
            );
        }
    }
}
