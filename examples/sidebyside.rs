//! Side by side: every reader over the same bytes, in one process, one core.
//!
//! ```text
//! cargo run --release --example sidebyside -- FILE [ROUNDS]
//! ```
//!
//! Reads FILE into memory once, then runs ROUNDS (default 9) rounds; each
//! round runs every reader once over the whole file, in turn (ABAB...), so
//! that drift in the machine's speed hits every reader alike. Prints the
//! median MB/s of each reader and its ratio to the framing limit (memchr
//! counting LF) and to the best validated peer. Every reader must count the
//! same number of `result` events (checked on every pass).
//!
//! Pin it to one core for stable numbers: `taskset -c 1 cargo run ...`.
//! Each pass is timed by the CPU time of the thread where Linux gives it
//! (`/proc/thread-self/schedstat`, nanoseconds): on a machine shared with
//! other work, time spent waiting for the core is not counted (what the
//! other work does to the caches still is). Elsewhere, wall time.

use cctape::event::EventKind;
use cctape::framing::Lines;
use cctape::json::tape::Parser;
use cctape::json::{Paths, Scanner};
use serde::Deserialize;
use std::borrow::Cow;
use std::hint::black_box;

#[path = "support/clock.rs"]
mod clock;
use clock::{cpu_ns, median, timed};

#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(borrow, rename = "type")]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
}

fn is_result(ty: &str) -> bool {
    ty == "result"
}

type Reader = (&'static str, bool, Box<dyn FnMut(&[u8]) -> u64>);

fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    data.split(|&b| b == b'\n').filter(|l| !l.is_empty())
}

fn readers() -> Vec<Reader> {
    let mut v: Vec<Reader> = Vec::new();
    v.push((
        "memchr count LF (framing limit)",
        false,
        Box::new(|d| memchr::memchr_iter(b'\n', d).count() as u64),
    ));
    v.push((
        "simdutf8 validate whole file",
        false,
        Box::new(|d| u64::from(simdutf8::basic::from_utf8(d).is_ok())),
    ));
    v.push((
        "serde_json borrowed struct (type/subtype)",
        true,
        Box::new(|d| {
            let mut n = 0;
            for l in lines(d) {
                let t: TypeOnly = serde_json::from_slice(l).expect("valid");
                black_box(&t.subtype);
                n += u64::from(is_result(&t.ty));
            }
            n
        }),
    ));
    v.push((
        "serde_json Value",
        true,
        Box::new(|d| {
            let mut n = 0;
            for l in lines(d) {
                let t: serde_json::Value = serde_json::from_slice(l).expect("valid");
                n += u64::from(t["type"] == "result");
            }
            n
        }),
    ));
    v.push((
        "sonic-rs get type (lazy, not validated)",
        false,
        Box::new(|d| {
            let mut n = 0;
            for l in lines(d) {
                let t = sonic_rs::get(l, ["type"]).expect("type");
                n += u64::from(t.as_raw_str() == "\"result\"");
            }
            n
        }),
    ));
    v.push((
        "sonic-rs typed struct (type/subtype)",
        true,
        Box::new(|d| {
            let mut n = 0;
            for l in lines(d) {
                let t: TypeOnly = sonic_rs::from_slice(l).expect("valid");
                black_box(&t.subtype);
                n += u64::from(is_result(&t.ty));
            }
            n
        }),
    ));
    let mut scratch = Vec::new();
    v.push((
        "simd-json owned value",
        true,
        Box::new(move |d| {
            let mut n = 0;
            for l in lines(d) {
                scratch.clear();
                scratch.extend_from_slice(l);
                let t = simd_json::to_owned_value(&mut scratch).expect("valid");
                use simd_json::prelude::*;
                n += u64::from(t.get_str("type") == Some("result"));
            }
            n
        }),
    ));
    let mut scratch = Vec::new();
    let mut bufs = simd_json::Buffers::default();
    v.push((
        "simd-json borrowed value (reused buffers)",
        true,
        Box::new(move |d| {
            let mut n = 0;
            for l in lines(d) {
                scratch.clear();
                scratch.extend_from_slice(l);
                let t = simd_json::to_borrowed_value_with_buffers(&mut scratch, &mut bufs)
                    .expect("valid");
                use simd_json::prelude::*;
                n += u64::from(t.get_str("type") == Some("result"));
            }
            n
        }),
    ));
    let mut scratch = Vec::new();
    let mut bufs = simd_json::Buffers::default();
    let mut tape_store = simd_json::Tape(Vec::new());
    v.push((
        "simd-json fill_tape (reused buffers)",
        true,
        Box::new(move |d| {
            let mut n = 0;
            for l in lines(d) {
                scratch.clear();
                scratch.extend_from_slice(l);
                let mut tape =
                    std::mem::replace(&mut tape_store, simd_json::Tape(Vec::new())).reset();
                simd_json::fill_tape(&mut scratch, &mut bufs, &mut tape).expect("valid");
                use simd_json::prelude::*;
                let v = tape.as_value();
                n += u64::from(v.get_str("type") == Some("result"));
                tape_store = tape.reset();
            }
            n
        }),
    ));
    let mut parser = Parser::new();
    v.push((
        "cctape tape (parse, type)",
        true,
        Box::new(move |d| {
            let mut n = 0;
            for line in Lines::new(d) {
                let doc = parser.parse(&line).expect("valid");
                n += u64::from(tape_is_result(&doc.value()));
            }
            n
        }),
    ));
    let mut sc = Scanner::new();
    v.push((
        "cctape scan (validated classification, detected backend)",
        true,
        Box::new(move |d| {
            let mut n = 0;
            for line in Lines::new(d) {
                let e = sc.scan(&line).expect("valid");
                n += u64::from(e.kind().is_result());
            }
            n
        }),
    ));
    if let Some(mut sc) = Scanner::with_backend(cctape::json::Backend::Avx2) {
        v.push((
            "cctape scan, AVX2 backend forced",
            true,
            Box::new(move |d| {
                let mut n = 0;
                for line in Lines::new(d) {
                    let e = sc.scan(&line).expect("valid");
                    n += u64::from(e.kind().is_result());
                }
                n
            }),
        ));
    }
    let mut sc = Scanner::new();
    v.push((
        "cctape scan + hot fields",
        true,
        Box::new(move |d| {
            let mut n = 0;
            let mut tokens = 0u64;
            for line in Lines::new(d) {
                let e = sc.scan(&line).expect("valid").event();
                black_box(e.session_id());
                black_box(e.uuid());
                black_box(e.parent_tool_use_id());
                match e.kind() {
                    EventKind::Assistant => {
                        black_box(e.message_id());
                        black_box(e.model());
                        tokens += e.usage().unwrap_or_default().output_tokens;
                        black_box(e.tool_use_id());
                        black_box(e.tool_name());
                    }
                    EventKind::User => {
                        black_box(e.tool_result_id());
                        black_box(e.tool_result_is_error());
                    }
                    k if k.is_result() => {
                        n += 1;
                        black_box(e.is_error());
                        black_box(e.num_turns());
                        black_box(e.duration_ms());
                        black_box(e.total_cost_usd());
                    }
                    _ => {}
                }
            }
            black_box(tokens);
            n
        }),
    ));
    fields_readers(&mut v);
    let mut sc = Scanner::new();
    v.push((
        "cctape trusting (type/subtype only)",
        false,
        Box::new(move |d| {
            let mut n = 0;
            for line in Lines::new(d) {
                let e = sc.scan_trusting(&line).expect("valid");
                n += u64::from(e.kind().is_result());
            }
            n
        }),
    ));
    v
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

/// Reading fields after validated classification: through the structural
/// index (`json::Value`) and the tape (the opt-in backend); one path, and
/// a dozen. (The byte navigator, which walked members byte by byte, is
/// crate-private since the one value type; BENCHMARKS.md keeps its
/// figures.)
fn fields_readers(v: &mut Vec<Reader>) {
    let mut sc = Scanner::new();
    v.push((
        "cctape index get_path(message.usage.output_tokens)",
        true,
        Box::new(move |d| {
            let (mut n, mut t) = (0, 0u64);
            for line in Lines::new(d) {
                let e = sc.scan(&line).expect("valid");
                t += e
                    .value()
                    .get_path(PATH)
                    .and_then(|x| x.as_u64())
                    .unwrap_or(0);
                n += u64::from(e.kind().is_result());
            }
            black_box(t);
            n
        }),
    ));
    let mut parser = Parser::new();
    v.push((
        "cctape tape get_path(message.usage.output_tokens)",
        true,
        Box::new(move |d| {
            let (mut n, mut t) = (0, 0u64);
            for line in Lines::new(d) {
                let doc = parser.parse(&line).expect("valid");
                t += doc
                    .value()
                    .get_path(PATH)
                    .and_then(|x| x.as_u64())
                    .unwrap_or(0);
                n += u64::from(tape_is_result(&doc.value()));
            }
            black_box(t);
            n
        }),
    ));
    let mut sc = Scanner::new();
    let paths = Paths::new(FIELDS);
    v.push((
        "cctape index get_many(12 fields)",
        true,
        Box::new(move |d| {
            let (mut n, mut t) = (0, 0u64);
            for line in Lines::new(d) {
                let mut out = [None; FIELDS.len()];
                let e = sc.scan(&line).expect("valid");
                e.value().get_many(&paths, &mut out);
                t += out.iter().flatten().count() as u64;
                black_box(&out);
                n += u64::from(e.kind().is_result());
            }
            black_box(t);
            n
        }),
    ));
    let mut sc = Scanner::new();
    v.push((
        "cctape index 12 x get_path",
        true,
        Box::new(move |d| {
            let (mut n, mut t) = (0, 0u64);
            for line in Lines::new(d) {
                let e = sc.scan(&line).expect("valid");
                let root = e.value();
                for p in FIELDS {
                    t += u64::from(black_box(root.get_path(p)).is_some());
                }
                n += u64::from(e.kind().is_result());
            }
            black_box(t);
            n
        }),
    ));
    let mut parser = Parser::new();
    let paths = Paths::new(FIELDS);
    v.push((
        "cctape tape get_many(12 fields)",
        true,
        Box::new(move |d| {
            let (mut n, mut t) = (0, 0u64);
            for line in Lines::new(d) {
                let mut out = [None; FIELDS.len()];
                let doc = parser.parse(&line).expect("valid");
                doc.value().get_many(&paths, &mut out);
                t += out.iter().flatten().count() as u64;
                black_box(&out);
                n += u64::from(tape_is_result(&doc.value()));
            }
            black_box(t);
            n
        }),
    ));
    let mut parser = Parser::new();
    v.push((
        "cctape tape 12 x get_path",
        true,
        Box::new(move |d| {
            let (mut n, mut t) = (0, 0u64);
            for line in Lines::new(d) {
                let doc = parser.parse(&line).expect("valid");
                let root = doc.value();
                for p in FIELDS {
                    t += u64::from(black_box(root.get_path(p)).is_some());
                }
                n += u64::from(tape_is_result(&doc.value()));
            }
            black_box(t);
            n
        }),
    ));
}

fn main() {
    let (path, data, rounds, filter) = clock::args("sidebyside");
    let mb = data.len() as f64 / 1e6;
    let mut rs = readers();
    if let Some(f) = &filter {
        rs.retain(|r| r.0.contains(f.as_str()) || r.0.starts_with("memchr"));
    }
    let mut speeds = vec![Vec::new(); rs.len()];
    let mut expect = None;
    for round in 0..rounds {
        for (k, (name, _, f)) in rs.iter_mut().enumerate() {
            let (n, s) = timed(|| f(black_box(&data)));
            speeds[k].push(mb / s);
            if k >= 2 {
                match expect {
                    None => expect = Some(n),
                    Some(e) => assert_eq!(n, e, "{name} counted {n} results, expected {e}"),
                }
            }
            let _ = round;
        }
    }
    let med: Vec<f64> = speeds.iter_mut().map(|v| median(v)).collect();
    let limit = med[0];
    let best_peer = rs
        .iter()
        .zip(&med)
        .filter(|((n, validated, _), _)| *validated && !n.starts_with("cctape"))
        .map(|(_, m)| *m)
        .fold(0.0, f64::max);
    println!(
        "file: {path} ({mb:.0} MB, {} lines), {rounds} rounds, medians of {}",
        data.iter().filter(|&&b| b == b'\n').count(),
        if cpu_ns().is_some() {
            "thread CPU time"
        } else {
            "wall time"
        }
    );
    println!("| reader | validated | MB/s | x limit | x best validated peer |");
    println!("|---|:-:|---:|---:|---:|");
    for ((name, validated, _), m) in rs.iter().zip(&med) {
        println!(
            "| {name} | {} | {m:.0} | {:.3} | {:.2} |",
            if *validated { "yes" } else { "no" },
            m / limit,
            m / best_peer
        );
    }
}

/// The tape reader's classification: the root's `type` is `result`.
fn tape_is_result(root: &cctape::Value<'_>) -> bool {
    root.get("type").is_some_and(|t| t.str_eq("result"))
}
