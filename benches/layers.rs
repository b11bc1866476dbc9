//! Each layer alone and stacked, on both corpus profiles, with
//! `Throughput::Bytes`:
//!
//! - `framing`: memchr LF framing alone;
//! - `tape_classify`: framing + simd-json tape (the opt-in backend) +
//!   type/subtype;
//! - `tape_hot`: the same + hot fields through the event accessors;
//! - `event_hot`: framing + `parse_event` (validated scan, index) + the same
//!   accessors over the index;
//! - `scan_classify`: framing + validated scan (every line checked as JSON);
//! - `scan_hot`: the same + hot fields read from the raw bytes;
//! - `trusting_classify`: framing + trusting scan (type/subtype only);
//! - `index_path` / `tape_path`: framing, the validated scan (or the tape)
//!   and `message.usage.output_tokens` read through the structural index
//!   (`json::Value`) and the tape;
//! - `index_many` / `index_paths` / `tape_paths`: a fold's dozen fields,
//!   through the index with `get_many` and with a `get_path` each, and
//!   through the tape.
//!
//! Input: `CCTAPE_BENCH_FILE` (one file, used for both profile names), or
//! `corpus/generated/{archive,partial}.jsonl`, generated on first use with
//! `cargo run --release --example gencorpus -- --profile P --bytes 256M --seed 7 --out ...`.
//! The first `CCTAPE_BENCH_BYTES` (default 32M) of whole lines are used.
//! Every iteration checks its event count (and the hot-field sums).

use cctape::event::{Event, EventKind, parse_event};
use cctape::framing::Lines;
use cctape::json::tape::Parser;
use cctape::json::{Paths, Scanner, Value};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn corpus(profile: &str) -> Vec<u8> {
    let path = match std::env::var_os("CCTAPE_BENCH_FILE") {
        Some(p) => PathBuf::from(p),
        None => {
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
            let p = root.join(format!("corpus/generated/{profile}.jsonl"));
            if !p.exists() {
                std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
                let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
                let st = std::process::Command::new(cargo)
                    .current_dir(&root)
                    .args([
                        "run",
                        "--release",
                        "--example",
                        "gencorpus",
                        "--",
                        "--profile",
                    ])
                    .arg(profile)
                    .args(["--bytes", "256M", "--seed", "7", "--out"])
                    .arg(&p)
                    .status()
                    .expect("run gencorpus");
                assert!(st.success(), "gencorpus failed");
            }
            p
        }
    };
    let mut data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let want: usize = std::env::var("CCTAPE_BENCH_BYTES")
        .ok()
        .map(|s| parse_size(&s))
        .unwrap_or(32 << 20);
    if data.len() > want {
        let cut = memchr::memrchr(b'\n', &data[..want]).map_or(want, |i| i + 1);
        data.truncate(cut);
    }
    data
}

fn parse_size(s: &str) -> usize {
    let (n, mul) = match s.as_bytes().last() {
        Some(b'K') => (&s[..s.len() - 1], 1 << 10),
        Some(b'M') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<usize>().expect("CCTAPE_BENCH_BYTES") * mul
}

/// The hot fields, folded into numbers so that both paths can be compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Hot {
    events: u64,
    results: u64,
    output_tokens: u64,
    tool_uses: u64,
    tool_errors: u64,
    subagent: u64,
    ids: u64,
}

fn hot_of_event(h: &mut Hot, e: &Event<'_>) {
    h.events += 1;
    h.ids += u64::from(e.session_id().is_some()) + u64::from(e.uuid().is_some());
    h.subagent += u64::from(e.parent_tool_use_id().value().is_some());
    match e.kind() {
        EventKind::Assistant => {
            h.ids += u64::from(e.message_id().is_some()) + u64::from(e.model().is_some());
            h.output_tokens += e.usage().unwrap_or_default().output_tokens;
            h.tool_uses += u64::from(e.tool_use_id().is_some() && e.tool_name().is_some());
        }
        EventKind::User => {
            h.ids += u64::from(e.tool_result_id().is_some());
            h.tool_errors += u64::from(e.tool_result_is_error() == Some(true));
        }
        k if k.is_result() => {
            h.results += 1;
            h.ids += u64::from(e.is_error().is_some())
                + u64::from(e.num_turns().is_some())
                + u64::from(e.duration_ms().is_some())
                + u64::from(e.total_cost_usd().is_some());
        }
        _ => {}
    }
}

/// A line read the tape's way (the opt-in backend): parsed into a tape,
/// classified, read through the event accessors over the tape.
fn with_tape_event<R>(
    p: &mut Parser,
    line: &cctape::Line<'_>,
    f: impl FnOnce(&Event<'_>) -> R,
) -> R {
    let doc = p.parse(line).expect("valid corpus");
    let root = doc.value();
    let ty = root
        .get("type")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    let kind = EventKind::from_type(ty, root.get("subtype").and_then(|v| v.as_str()));
    f(&Event::from_parts(root, *line, kind))
}

fn tape_classify(p: &mut Parser, data: &[u8]) -> (u64, u64) {
    let (mut n, mut r) = (0, 0);
    for line in Lines::new(data) {
        n += 1;
        r += with_tape_event(p, &line, |e| u64::from(e.kind().is_result()));
    }
    (n, r)
}

fn tape_hot(p: &mut Parser, data: &[u8]) -> Hot {
    let mut h = Hot::default();
    for line in Lines::new(data) {
        with_tape_event(p, &line, |e| hot_of_event(&mut h, e));
    }
    h
}

/// The index path of the event type (`parse_event`: scan, index, accessors).
fn event_hot(s: &mut Scanner, data: &[u8]) -> Hot {
    let mut h = Hot::default();
    for line in Lines::new(data) {
        let e = parse_event(s, &line).expect("valid corpus");
        hot_of_event(&mut h, &e);
    }
    h
}

fn scan_classify(s: &mut Scanner, data: &[u8]) -> (u64, u64) {
    let (mut n, mut r) = (0, 0);
    for line in Lines::new(data) {
        let e = s.scan(&line).expect("valid corpus");
        n += 1;
        r += u64::from(e.kind().is_result());
    }
    (n, r)
}

fn scan_hot(s: &mut Scanner, data: &[u8]) -> Hot {
    let mut h = Hot::default();
    for line in Lines::new(data) {
        let e = s.scan(&line).expect("valid corpus");
        hot_of_event(&mut h, &e.event());
    }
    h
}

fn trusting_classify(s: &mut Scanner, data: &[u8]) -> (u64, u64) {
    let (mut n, mut r) = (0, 0);
    for line in Lines::new(data) {
        let e = s.scan_trusting(&line).expect("valid corpus");
        n += 1;
        r += u64::from(e.kind().is_result());
    }
    (n, r)
}

/// The path one field is read at, and a fold's dozen.
const PATH: &str = "message.usage.output_tokens";
const FIELDS: [&str; 12] = [
    "session_id",
    "uuid",
    "parent_tool_use_id",
    "message.id",
    "message.model",
    "message.stop_reason",
    "message.usage.input_tokens",
    "message.usage.output_tokens",
    "message.usage.cache_read_input_tokens",
    "message.usage.cache_creation_input_tokens",
    "message.content.0.type",
    "event.type",
];

/// What a read of the fields found, folded into numbers: how many were
/// there, and the sum of those that are integers.
fn tally(found: &mut (u64, u64), v: Option<Value<'_>>) {
    if let Some(v) = v {
        found.0 += 1;
        found.1 += v.as_u64().unwrap_or(0);
    }
}

fn index_path(s: &mut Scanner, data: &[u8]) -> (u64, u64) {
    let mut f = (0, 0);
    for line in Lines::new(data) {
        let e = s.scan(&line).expect("valid corpus");
        tally(&mut f, e.value().get_path(PATH));
    }
    f
}

fn tape_path(p: &mut Parser, data: &[u8]) -> (u64, u64) {
    let mut f = (0, 0);
    for line in Lines::new(data) {
        let doc = p.parse(&line).expect("valid corpus");
        tally(&mut f, doc.value().get_path(PATH));
    }
    f
}

fn index_many(s: &mut Scanner, paths: &Paths, data: &[u8]) -> (u64, u64) {
    let mut f = (0, 0);
    for line in Lines::new(data) {
        let mut out = [None; FIELDS.len()];
        let e = s.scan(&line).expect("valid corpus");
        e.value().get_many(paths, &mut out);
        for v in out {
            tally(&mut f, v);
        }
    }
    f
}

fn index_paths(s: &mut Scanner, data: &[u8]) -> (u64, u64) {
    let mut f = (0, 0);
    for line in Lines::new(data) {
        let e = s.scan(&line).expect("valid corpus");
        let root = e.value();
        for p in FIELDS {
            tally(&mut f, root.get_path(p));
        }
    }
    f
}

fn tape_paths(p: &mut Parser, data: &[u8]) -> (u64, u64) {
    let mut f = (0, 0);
    for line in Lines::new(data) {
        let doc = p.parse(&line).expect("valid corpus");
        let root = doc.value();
        for p in FIELDS {
            tally(&mut f, root.get_path(p));
        }
    }
    f
}

fn bench_profile(c: &mut Criterion, profile: &str) {
    let data = corpus(profile);
    let lines = Lines::new(&data).count() as u64;
    let mut parser = Parser::new();
    let mut scanner = Scanner::new();
    let classes = tape_classify(&mut parser, &data);
    assert_eq!(classes.0, lines);
    let hot = tape_hot(&mut parser, &data);
    assert_eq!(scan_classify(&mut scanner, &data), classes);
    assert_eq!(scan_hot(&mut scanner, &data), hot);
    assert_eq!(event_hot(&mut scanner, &data), hot);
    assert_eq!(trusting_classify(&mut scanner, &data), classes);
    let paths = Paths::new(FIELDS);
    let one = tape_path(&mut parser, &data);
    assert_eq!(index_path(&mut scanner, &data), one);
    let dozen = tape_paths(&mut parser, &data);
    assert_eq!(index_many(&mut scanner, &paths, &data), dozen);
    assert_eq!(index_paths(&mut scanner, &data), dozen);

    let mut g = c.benchmark_group(profile);
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(4));
    g.bench_function("framing", |b| {
        b.iter(|| assert_eq!(Lines::new(black_box(&data)).count() as u64, lines))
    });
    g.bench_function("tape_classify", |b| {
        b.iter(|| assert_eq!(tape_classify(&mut parser, black_box(&data)), classes))
    });
    g.bench_function("tape_hot", |b| {
        b.iter(|| assert_eq!(tape_hot(&mut parser, black_box(&data)), hot))
    });
    g.bench_function("event_hot", |b| {
        b.iter(|| assert_eq!(event_hot(&mut scanner, black_box(&data)), hot))
    });
    g.bench_function("scan_classify", |b| {
        b.iter(|| assert_eq!(scan_classify(&mut scanner, black_box(&data)), classes))
    });
    g.bench_function("scan_hot", |b| {
        b.iter(|| assert_eq!(scan_hot(&mut scanner, black_box(&data)), hot))
    });
    g.bench_function("trusting_classify", |b| {
        b.iter(|| assert_eq!(trusting_classify(&mut scanner, black_box(&data)), classes))
    });
    g.bench_function("index_path", |b| {
        b.iter(|| assert_eq!(index_path(&mut scanner, black_box(&data)), one))
    });
    g.bench_function("tape_path", |b| {
        b.iter(|| assert_eq!(tape_path(&mut parser, black_box(&data)), one))
    });
    g.bench_function("index_many", |b| {
        b.iter(|| assert_eq!(index_many(&mut scanner, &paths, black_box(&data)), dozen))
    });
    g.bench_function("index_paths", |b| {
        b.iter(|| assert_eq!(index_paths(&mut scanner, black_box(&data)), dozen))
    });
    g.bench_function("tape_paths", |b| {
        b.iter(|| assert_eq!(tape_paths(&mut parser, black_box(&data)), dozen))
    });
    g.finish();
}

fn layers(c: &mut Criterion) {
    bench_profile(c, "archive");
    bench_profile(c, "partial");
}

criterion_group!(benches, layers);
criterion_main!(benches);
