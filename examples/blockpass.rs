//! A floor for issue 23 item 8: what a structure pass over whole 64-byte
//! blocks costs before it checks any grammar, beside the validating scan.
//!
//! ```text
//! cargo build --release --example blockpass
//! taskset -c 1 target/release/examples/blockpass FILE [ROUNDS]
//! ```
//!
//! Item 8 asks for simdjson's first stage in the validator: every 64-byte
//! block of a line classified whole (quotes, escapes, the inside of
//! strings by a carry-less multiply, the six structural characters,
//! whitespace, the starts of numbers and literals), its structural
//! positions handed to a grammar check. This example builds only that
//! first stage, and the writing out of the positions, and none of what
//! must follow before a line is known valid: the grammar check over the
//! positions, escape and `\u` validity, UTF-8, numbers' syntax, literals,
//! the structural index's nodes. So each block-pass reader here costs
//! less than a validator built on it would; if it is not well above the
//! scan's speed, the design cannot pass the scan.
//!
//! Readers (the first frames the lines and nothing else, for scale), each
//! over every line of FILE in turn (as many passes as make
//! 600 MB), ROUNDS rounds (default 9), medians of the thread's CPU time:
//! - the scan (`json::Scanner`) with the detected backend, top-level index
//!   (classification, `filter --count`) and full index (the folds);
//! - the block pass, first stage only, with AVX-512 and with AVX2;
//! - the block pass with the positions written out (simdjson's flatten).
//!
//! Every block-pass reader must count the same structurals (checked each
//! pass), and prints how many a kilobyte there are: a grammar check pays
//! per structural.

use cctape::framing::Lines;
use cctape::json::{IndexDepth, Scanner};
use std::hint::black_box;

#[path = "support/clock.rs"]
mod clock;

type Reader = (String, Box<dyn FnMut(&[u8]) -> u64>);

#[cfg(target_arch = "x86_64")]
mod pass {
    //! The first stage, per instruction set. Each block is read from the
    //! line where 64 bytes remain, else from a copy padded with spaces.
    use std::arch::x86_64::*;

    const EVEN: u64 = 0x5555_5555_5555_5555;

    /// Bits of the bytes a backslash escapes (simdjson's odd-run rule).
    #[inline(always)]
    fn escaped(bs: u64, prev: &mut u64) -> u64 {
        let bs = bs & !*prev;
        let follows = (bs << 1) | *prev;
        let odd_starts = bs & !EVEN & !follows;
        let (seq, carry) = odd_starts.overflowing_add(bs);
        *prev = u64::from(carry);
        (EVEN ^ (seq << 1)) & follows
    }

    /// Bits inside strings (from an opening quote up to its closing one).
    #[inline(always)]
    fn prefix_xor(q: u64) -> u64 {
        // SAFETY: inlined only into `run_512` and `run_256`, compiled with
        // pclmulqdq and reached after `usable` detected it; the operands
        // are registers.
        unsafe {
            let a = _mm_set_epi64x(0, q as i64);
            let ones = _mm_set1_epi8(-1);
            _mm_cvtsi128_si64(_mm_clmulepi64_si128(a, ones, 0)) as u64
        }
    }

    /// Bit masks of one block: quote, backslash, structural character
    /// (`{}[],:`), whitespace, control, high.
    type Raw = [u64; 6];

    /// Whether this machine has what both passes need.
    pub fn usable(avx512: bool) -> bool {
        is_x86_feature_detected!("pclmulqdq")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && if avx512 {
                is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
            } else {
                is_x86_feature_detected!("avx2")
            }
    }

    // Nibble tables: class = LO[b & 15] & HI[b >> 4]. Bits 0 and 1 are
    // whitespace (`\t \n \r` and the space), bits 2 to 4 the structural
    // characters (`,`; `:`; `[ ] { }`).
    const LO: [u8; 16] = [2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 9, 16, 4, 17, 0, 0];
    const HI: [u8; 16] = [1, 0, 6, 8, 0, 16, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0];
    const WS: i8 = 0x03;
    const OP: i8 = 0x1c;

    #[inline(always)]
    fn raw512(p: *const u8) -> Raw {
        // SAFETY: inlined only into `run_512` (AVX-512 F and BW, detected
        // by `usable`); the caller passes a pointer to 64 readable bytes.
        unsafe {
            let v = _mm512_loadu_si512(p.cast());
            let lo = _mm512_broadcast_i32x4(_mm_loadu_si128(LO.as_ptr().cast()));
            let hi = _mm512_broadcast_i32x4(_mm_loadu_si128(HI.as_ptr().cast()));
            let nib = _mm512_set1_epi8(0x0f);
            let c = _mm512_and_si512(
                _mm512_shuffle_epi8(lo, _mm512_and_si512(v, nib)),
                _mm512_shuffle_epi8(hi, _mm512_and_si512(_mm512_srli_epi16(v, 4), nib)),
            );
            [
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
                _mm512_test_epi8_mask(c, _mm512_set1_epi8(OP)),
                _mm512_test_epi8_mask(c, _mm512_set1_epi8(WS)),
                _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
                _mm512_movepi8_mask(v),
            ]
        }
    }

    #[inline(always)]
    fn raw256(p: *const u8) -> Raw {
        // SAFETY: inlined only into `run_256` (AVX2, detected by
        // `usable`); the caller passes a pointer to 64 readable bytes.
        unsafe {
            let lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(LO.as_ptr().cast()));
            let hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(HI.as_ptr().cast()));
            let nib = _mm256_set1_epi8(0x0f);
            let zero = _mm256_setzero_si256();
            let lim = _mm256_set1_epi8(0x1f);
            // Macros, not closures: a closure is compiled as a function of
            // its own, without the AVX2 its caller was compiled with.
            macro_rules! mask {
                ($x:expr) => {
                    _mm256_movemask_epi8($x) as u32
                };
            }
            macro_rules! half {
                ($v:expr) => {{
                    let v = $v;
                    let c = _mm256_and_si256(
                        _mm256_shuffle_epi8(lo, _mm256_and_si256(v, nib)),
                        _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib)),
                    );
                    let op = _mm256_and_si256(c, _mm256_set1_epi8(OP));
                    let ws = _mm256_and_si256(c, _mm256_set1_epi8(WS));
                    [
                        mask!(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8))),
                        mask!(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8))),
                        !mask!(_mm256_cmpeq_epi8(op, zero)),
                        !mask!(_mm256_cmpeq_epi8(ws, zero)),
                        mask!(_mm256_cmpeq_epi8(_mm256_max_epu8(v, lim), lim)),
                        mask!(v),
                    ]
                }};
            }
            let a = half!(_mm256_loadu_si256(p.cast()));
            let b = half!(_mm256_loadu_si256(p.add(32).cast()));
            let j = |x: u32, y: u32| u64::from(x) | (u64::from(y) << 32);
            [
                j(a[0], b[0]),
                j(a[1], b[1]),
                j(a[2], b[2]),
                j(a[3], b[3]),
                j(a[4], b[4]),
                j(a[5], b[5]),
            ]
        }
    }

    /// The carried state between blocks, and what the pass found.
    #[derive(Default)]
    struct State {
        prev_escaped: u64,
        prev_in_string: u64,
        prev_scalar: u64,
        /// A control character inside a string (an error a validator
        /// must report).
        bad: u64,
        /// A byte of 0x80 and above (a validator must check UTF-8).
        high: u64,
    }

    /// One block's structural bits: structural characters outside
    /// strings, opening quotes, and the first byte of each number or
    /// literal.
    #[inline(always)]
    fn structurals(r: Raw, st: &mut State) -> u64 {
        let [quote, bs, op, ws, ctrl, high] = r;
        let q = quote & !escaped(bs, &mut st.prev_escaped);
        let inside = prefix_xor(q) ^ st.prev_in_string;
        st.prev_in_string = ((inside as i64) >> 63) as u64;
        st.bad |= ctrl & inside & !q;
        st.high |= high;
        let outside = !inside;
        let scalar = !(op | ws | q) & outside;
        let scalar_start = scalar & !((scalar << 1) | st.prev_scalar);
        st.prev_scalar = scalar >> 63;
        (op & outside) | (q & inside) | scalar_start
    }

    /// What one line gave: structurals counted, and a checksum of their
    /// positions when written out (so the writing cannot be dropped).
    #[inline(always)]
    fn line<const FLATTEN: bool>(
        line: &[u8],
        raw: impl Fn(*const u8) -> Raw,
        st_bits: impl Fn(Raw, &mut State) -> u64,
        out: &mut [u32],
    ) -> u64 {
        let mut st = State::default();
        let mut n = 0usize;
        let mut i = 0usize;
        let mut pad = [b' '; 64];
        let len = line.len();
        while i < len {
            // The last block: the line's last 64 bytes, their masks
            // shifted down to start at `i` (a short line is copied).
            let (r, valid) = if i + 64 <= len {
                (raw(line[i..].as_ptr()), u64::MAX)
            } else if len >= 64 {
                let sh = (i + 64 - len) as u32;
                (
                    raw(line[len - 64..].as_ptr()).map(|m| m >> sh),
                    u64::MAX >> sh,
                )
            } else {
                pad[..len].copy_from_slice(line);
                (raw(pad.as_ptr()), u64::MAX >> (64 - len))
            };
            let mut s = st_bits(r, &mut st) & valid;
            if FLATTEN {
                // simdjson's habit: eight positions written whether or not
                // there are eight, the count moved by the true number.
                let cnt = s.count_ones() as usize;
                let base = i as u32;
                let mut k = n;
                while s != 0 {
                    // `out` has room for the line's bytes and 72 more, so
                    // eight from `k` always fit.
                    let w = &mut out[k..k + 8];
                    for slot in w {
                        *slot = base + s.trailing_zeros();
                        s &= s.wrapping_sub(1);
                    }
                    k += 8;
                }
                n += cnt;
            } else {
                n += s.count_ones() as usize;
            }
            i += 64;
        }
        let mut sum = n as u64 + st.bad.count_ones() as u64 * 1_000_000_007;
        sum += u64::from(st.high != 0) << 40;
        if FLATTEN {
            sum = sum.wrapping_add(out[..n.min(out.len())].iter().map(|&p| p as u64).sum());
        }
        sum
    }

    /// The first stage over every line of `data`, by AVX-512 or AVX2, or
    /// (`whole`) over `data` as one buffer, framing nothing. Returns
    /// structurals counted plus, with `flatten`, a checksum.
    pub fn run(data: &[u8], avx512: bool, flatten: bool, whole: bool, out: &mut Vec<u32>) -> u64 {
        // SAFETY: `usable(avx512)` was checked before a reader was made.
        unsafe { run_features(data, avx512, flatten, whole, out) }
    }

    /// Every line of `data` (or `data` as one buffer), its blocks
    /// classified by `raw`.
    #[inline(always)]
    fn lines(
        data: &[u8],
        flatten: bool,
        whole: bool,
        out: &mut Vec<u32>,
        raw: impl Fn(*const u8) -> Raw + Copy,
        bits: impl Fn(Raw, &mut State) -> u64 + Copy,
    ) -> u64 {
        if whole {
            return line::<false>(data, raw, bits, out);
        }
        let mut total = 0u64;
        for l in cctape::framing::Lines::new(data) {
            let need = l.bytes.len() + 72;
            if out.len() < need {
                out.resize(need, 0);
            }
            total += if flatten {
                line::<true>(l.bytes, raw, bits, out)
            } else {
                line::<false>(l.bytes, raw, bits, out)
            };
        }
        total
    }

    // The closures below are not redundant: a closure is compiled with the
    // features of the function it is written in, and the intrinsics of
    // `raw512`, `raw256` and `prefix_xor` inline into it. Passed as
    // function items they were not inlined: 8,658 M instructions against
    // 2,065 M for the AVX2 pass with positions on 8.5 MB of partial, 71
    // passes.
    #[allow(clippy::redundant_closure)]
    #[target_feature(enable = "avx512f,avx512bw,avx2,pclmulqdq,popcnt,bmi1,bmi2")]
    unsafe fn run_512(data: &[u8], flatten: bool, whole: bool, out: &mut Vec<u32>) -> u64 {
        lines(
            data,
            flatten,
            whole,
            out,
            |p| raw512(p),
            |r, st: &mut State| structurals(r, st),
        )
    }

    #[allow(clippy::redundant_closure)]
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
    unsafe fn run_256(data: &[u8], flatten: bool, whole: bool, out: &mut Vec<u32>) -> u64 {
        lines(
            data,
            flatten,
            whole,
            out,
            |p| raw256(p),
            |r, st: &mut State| structurals(r, st),
        )
    }

    unsafe fn run_features(
        data: &[u8],
        avx512: bool,
        flatten: bool,
        whole: bool,
        out: &mut Vec<u32>,
    ) -> u64 {
        // SAFETY: the caller checked `usable(avx512)`.
        unsafe {
            if avx512 {
                run_512(data, flatten, whole, out)
            } else {
                run_256(data, flatten, whole, out)
            }
        }
    }

    /// Structurals of every line (no checksum), for the density line.
    pub fn count(data: &[u8], avx512: bool) -> u64 {
        let mut out = Vec::new();
        let mut n = 0;
        for l in cctape::framing::Lines::new(data) {
            // The pass without flatten counts structurals, plus 1e9+7 per
            // control character in a string and 2^40 for a line with a
            // high byte: take the count modulo 2^20 per line.
            n += run(l.bytes, avx512, false, false, &mut out) & 0xF_FFFF;
        }
        n
    }
}

fn scan_reader(name: &str, depth: IndexDepth) -> Reader {
    let mut sc = Scanner::new();
    sc.set_index_depth(depth);
    (
        name.to_string(),
        Box::new(move |d| {
            let mut n = 0u64;
            for line in Lines::new(d) {
                match sc.scan(&line) {
                    Ok(e) => n += u64::from(e.kind().is_result()),
                    Err(_) => n += 1 << 32,
                }
            }
            n
        }),
    )
}

fn readers() -> Vec<Reader> {
    let mut v: Vec<Reader> = vec![
        (
            "framing only (every reader's lines)".to_string(),
            Box::new(|d| Lines::new(d).map(|l| l.bytes.len() as u64).sum()),
        ),
        scan_reader(
            "scan, top-level index (validated classification)",
            IndexDepth::TopLevel,
        ),
        scan_reader("scan, full index (the folds' scan)", IndexDepth::Full),
    ];
    #[cfg(target_arch = "x86_64")]
    for avx512 in [true, false] {
        if !pass::usable(avx512) {
            continue;
        }
        let isa = if avx512 { "AVX-512" } else { "AVX2" };
        for (flatten, whole, what) in [
            (
                false,
                true,
                "first stage over the whole file as one buffer, no lines",
            ),
            (false, false, "first stage only"),
            (true, false, "first stage + positions written"),
        ] {
            let mut out = Vec::new();
            v.push((
                format!("block pass, {what}, {isa} (no grammar)"),
                Box::new(move |d| pass::run(d, avx512, flatten, whole, &mut out)),
            ));
        }
    }
    v
}

fn main() {
    let (path, data, rounds, filter) = clock::args("blockpass");
    let mb = data.len() as f64 / 1e6;
    let mut rs = readers();
    if let Some(f) = &filter {
        rs.retain(|r| r.0.contains(f.as_str()));
    }
    // Each timed pass crosses at least 600 MB: the thread's CPU clock
    // here moves in steps of a few milliseconds.
    let reps = (600e6 / data.len().max(1) as f64).ceil() as usize;
    let mut speeds = vec![Vec::new(); rs.len()];
    let mut results: Vec<Option<u64>> = vec![None; rs.len()];
    for _ in 0..rounds {
        for (k, (name, f)) in rs.iter_mut().enumerate() {
            let (n, secs) = clock::timed(|| {
                let mut n = 0;
                for _ in 0..reps {
                    n = f(black_box(&data));
                }
                n
            });
            speeds[k].push(mb * reps as f64 / secs);
            match results[k] {
                None => results[k] = Some(n),
                Some(e) => assert_eq!(n, e, "{name}: {n} then {e}"),
            }
        }
    }
    let lines = data.iter().filter(|&&b| b == b'\n').count();
    println!("file: {path} ({mb:.1} MB, {lines} lines), {rounds} rounds of {reps} passes, medians");
    #[cfg(target_arch = "x86_64")]
    if pass::usable(false) {
        let n = pass::count(&data, false);
        println!(
            "structurals: {n} ({:.1} a KB, {:.1} a line)",
            n as f64 / (data.len() as f64 / 1000.0),
            n as f64 / lines.max(1) as f64
        );
    }
    println!("| reader | MB/s | x validated classification |");
    println!("|---|---:|---:|");
    let med: Vec<f64> = speeds.iter_mut().map(|v| clock::median(v)).collect();
    // The ratio is to the scan with the top-level index, when the filter
    // kept it.
    let base = rs
        .iter()
        .zip(&med)
        .find(|((name, _), _)| name.starts_with("scan, top-level"))
        .map(|(_, m)| *m);
    for ((name, _), m) in rs.iter().zip(&med) {
        match base {
            Some(b) => println!("| {name} | {m:.0} | {:.2} |", m / b),
            None => println!("| {name} | {m:.0} | - |"),
        }
    }
}
