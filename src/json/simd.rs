//! Byte classification of 64-byte blocks, per instruction set.
//!
//! The only module of the crate with `unsafe`: `std::arch` intrinsics, each
//! call guarded by a runtime feature check made once when a [`Backend`] is
//! chosen, and the `#[target_feature]` entry points that let those
//! intrinsics inline into the scanner's loops.
//!
//! Every classifier returns the same [`Masks`] for the same block (bit `i`
//! describes byte `i`); `tests/scan.rs` checks that on random blocks.

use super::scan::{Backend, Scratch};
use super::validate::{self, Outcome};

/// One bit per byte of a 64-byte block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    /// `"`
    pub(crate) quote: u64,
    /// `\`
    pub(crate) backslash: u64,
    /// bytes below 0x20
    pub(crate) ctrl: u64,
    /// bytes 0x80 and above
    pub(crate) high: u64,
}

/// Escape classes of a 64-byte block (only computed where escapes are).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EscMasks {
    /// bytes that may follow a backslash: `" \ / b f n r t u`
    pub(crate) esc: u64,
    /// hex digits `0-9 A-F a-f`
    pub(crate) hex: u64,
    /// `u`
    pub(crate) u: u64,
}

/// A block classifier. Implementations are zero-sized and `Copy`.
pub(crate) trait Classify: Copy {
    /// Quote, backslash, control and high-bit masks.
    fn classify(self, block: &[u8; 64]) -> Masks;
    /// Escape-character, hex-digit and `u` masks.
    fn classify_esc(self, block: &[u8; 64]) -> EscMasks;
}

// Nibble tables: class = LO[b & 15] & HI[b >> 4]. Bits: 0x01 `"` `/`,
// 0x02 `0-9`, 0x04 `A-F`, 0x08 `\`, 0x10 `b f n`, 0x20 `a-f`, 0x40 `r t`,
// 0x80 `u`.
const LO_NIB: [u8; 16] = [
    0x02, 0x26, 0x77, 0x26, 0x66, 0xA6, 0x36, 0x02, 0x02, 0x02, 0x00, 0x00, 0x08, 0x00, 0x10, 0x01,
];
const HI_NIB: [u8; 16] = [
    0x00, 0x00, 0x01, 0x02, 0x04, 0x08, 0x30, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0,
];
const CLASS_ESC: u8 = 0x01 | 0x08 | 0x10 | 0x40 | 0x80;
const CLASS_HEX: u8 = 0x02 | 0x04 | 0x20;
const CLASS_U: u8 = 0x80;

#[inline(always)]
fn class_of(b: u8) -> u8 {
    LO_NIB[(b & 15) as usize] & HI_NIB[(b >> 4) as usize]
}

/// The portable classifier: one byte at a time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl Classify for Scalar {
    #[inline(always)]
    fn classify(self, block: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = 1u64 << i;
            if b == b'"' {
                m.quote |= bit;
            }
            if b == b'\\' {
                m.backslash |= bit;
            }
            if b < 0x20 {
                m.ctrl |= bit;
            }
            if b >= 0x80 {
                m.high |= bit;
            }
        }
        m
    }

    #[inline(always)]
    fn classify_esc(self, block: &[u8; 64]) -> EscMasks {
        scalar_esc(block)
    }
}

#[inline(always)]
fn scalar_esc(block: &[u8; 64]) -> EscMasks {
    let mut m = EscMasks::default();
    for (i, &b) in block.iter().enumerate() {
        let c = class_of(b);
        let bit = 1u64 << i;
        if c & CLASS_ESC != 0 {
            m.esc |= bit;
        }
        if c & CLASS_HEX != 0 {
            m.hex |= bit;
        }
        if c & CLASS_U != 0 {
            m.u |= bit;
        }
    }
    m
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{CLASS_ESC, CLASS_HEX, Classify, EscMasks, HI_NIB, LO_NIB, Masks, scalar_esc};
    use std::arch::x86_64::*;

    /// SSE2: part of the x86_64 baseline, so always available.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Sse2;

    impl Classify for Sse2 {
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            let mut m = Masks::default();
            let p = block.as_ptr();
            for k in 0..4 {
                // SAFETY: SSE2 is enabled on every x86_64 target; the load
                // reads bytes 16k..16k+16 of a 64-byte array (unaligned load).
                unsafe {
                    let v = _mm_loadu_si128(p.add(16 * k).cast());
                    let q = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)));
                    let b = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)));
                    let lim = _mm_set1_epi8(0x1f);
                    let c = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, lim), lim));
                    let h = _mm_movemask_epi8(v);
                    let sh = 16 * k as u32;
                    m.quote |= (q as u16 as u64) << sh;
                    m.backslash |= (b as u16 as u64) << sh;
                    m.ctrl |= (c as u16 as u64) << sh;
                    m.high |= (h as u16 as u64) << sh;
                }
            }
            m
        }

        #[inline(always)]
        fn classify_esc(self, block: &[u8; 64]) -> EscMasks {
            scalar_esc(block)
        }
    }

    /// AVX2 (checked at run time).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx2;

    impl Classify for Avx2 {
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            let p = block.as_ptr();
            // SAFETY: an `Avx2` value is only used inside functions compiled
            // with `target_feature(enable = "avx2")`, reached after
            // `is_x86_feature_detected!("avx2")`; the loads read the two
            // 32-byte halves of a 64-byte array.
            unsafe {
                let lo = _mm256_loadu_si256(p.cast());
                let hi = _mm256_loadu_si256(p.add(32).cast());
                let quote = _mm256_set1_epi8(b'"' as i8);
                let bs = _mm256_set1_epi8(b'\\' as i8);
                let lim = _mm256_set1_epi8(0x1f);
                macro_rules! join {
                    ($a:expr, $b:expr) => {
                        (_mm256_movemask_epi8($a) as u32 as u64)
                            | ((_mm256_movemask_epi8($b) as u32 as u64) << 32)
                    };
                }
                Masks {
                    quote: join!(_mm256_cmpeq_epi8(lo, quote), _mm256_cmpeq_epi8(hi, quote)),
                    backslash: join!(_mm256_cmpeq_epi8(lo, bs), _mm256_cmpeq_epi8(hi, bs)),
                    ctrl: join!(
                        _mm256_cmpeq_epi8(_mm256_max_epu8(lo, lim), lim),
                        _mm256_cmpeq_epi8(_mm256_max_epu8(hi, lim), lim)
                    ),
                    high: join!(lo, hi),
                }
            }
        }

        #[inline(always)]
        fn classify_esc(self, block: &[u8; 64]) -> EscMasks {
            let p = block.as_ptr();
            // SAFETY: as in `classify`.
            unsafe {
                let lot = _mm256_broadcastsi128_si256(_mm_loadu_si128(LO_NIB.as_ptr().cast()));
                let hit = _mm256_broadcastsi128_si256(_mm_loadu_si128(HI_NIB.as_ptr().cast()));
                let nib = _mm256_set1_epi8(0x0f);
                let zero = _mm256_setzero_si256();
                let esc = _mm256_set1_epi8(CLASS_ESC as i8);
                let hex = _mm256_set1_epi8(CLASS_HEX as i8);
                macro_rules! half {
                    ($v:expr) => {{
                        let v = $v;
                        let l = _mm256_shuffle_epi8(lot, _mm256_and_si256(v, nib));
                        let h = _mm256_shuffle_epi8(
                            hit,
                            _mm256_and_si256(_mm256_srli_epi16(v, 4), nib),
                        );
                        let c = _mm256_and_si256(l, h);
                        let not_esc =
                            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(c, esc), zero));
                        let not_hex =
                            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(c, hex), zero));
                        let u = _mm256_movemask_epi8(c);
                        (!not_esc as u32, !not_hex as u32, u as u32)
                    }};
                }
                let (e0, h0, u0) = half!(_mm256_loadu_si256(p.cast()));
                let (e1, h1, u1) = half!(_mm256_loadu_si256(p.add(32).cast()));
                EscMasks {
                    esc: e0 as u64 | (e1 as u64) << 32,
                    hex: h0 as u64 | (h1 as u64) << 32,
                    u: u0 as u64 | (u1 as u64) << 32,
                }
            }
        }
    }

    /// AVX-512 BW (checked at run time).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx512;

    impl Classify for Avx512 {
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            // SAFETY: an `Avx512` value is only used inside functions
            // compiled with `target_feature(enable = "avx512f,avx512bw")`,
            // reached after both were detected; the load reads exactly the
            // 64-byte array.
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr().cast());
                Masks {
                    quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
                    backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
                    ctrl: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
                    high: _mm512_movepi8_mask(v),
                }
            }
        }

        #[inline(always)]
        fn classify_esc(self, block: &[u8; 64]) -> EscMasks {
            // SAFETY: as in `classify`.
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr().cast());
                let lot = _mm512_broadcast_i32x4(_mm_loadu_si128(LO_NIB.as_ptr().cast()));
                let hit = _mm512_broadcast_i32x4(_mm_loadu_si128(HI_NIB.as_ptr().cast()));
                let nib = _mm512_set1_epi8(0x0f);
                let l = _mm512_shuffle_epi8(lot, _mm512_and_si512(v, nib));
                let h = _mm512_shuffle_epi8(hit, _mm512_and_si512(_mm512_srli_epi16(v, 4), nib));
                let c = _mm512_and_si512(l, h);
                EscMasks {
                    esc: _mm512_test_epi8_mask(c, _mm512_set1_epi8(CLASS_ESC as i8)),
                    hex: _mm512_test_epi8_mask(c, _mm512_set1_epi8(CLASS_HEX as i8)),
                    u: _mm512_movepi8_mask(c),
                }
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn validate_avx2(s: &mut super::Scratch, b: &[u8]) -> super::Outcome {
        super::validate::validate(Avx2, s, b)
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn validate_avx512(s: &mut super::Scratch, b: &[u8]) -> super::Outcome {
        super::validate::validate(Avx512, s, b)
    }

    pub(super) fn validate_sse2(s: &mut super::Scratch, b: &[u8]) -> super::Outcome {
        super::validate::validate(Sse2, s, b)
    }

    /// Masks of one block by the named backend (tests compare them).
    pub(super) fn masks(backend: super::Backend, block: &[u8; 64]) -> (Masks, EscMasks) {
        #[target_feature(enable = "avx2")]
        fn avx2(block: &[u8; 64]) -> (Masks, EscMasks) {
            (Avx2.classify(block), Avx2.classify_esc(block))
        }
        #[target_feature(enable = "avx512f,avx512bw")]
        fn avx512(block: &[u8; 64]) -> (Masks, EscMasks) {
            (Avx512.classify(block), Avx512.classify_esc(block))
        }
        match backend {
            // SAFETY: `Backend::Avx2` exists only after detection (see
            // `Backend::detect` and `Backend::is_available`).
            super::Backend::Avx2 => unsafe { avx2(block) },
            // SAFETY: as above, for AVX-512 F and BW.
            super::Backend::Avx512 => unsafe { avx512(block) },
            super::Backend::Sse2 => (Sse2.classify(block), Sse2.classify_esc(block)),
            super::Backend::Scalar => (
                super::Scalar.classify(block),
                super::Scalar.classify_esc(block),
            ),
        }
    }
}

/// `b` as text when it is ASCII. The scanner's `type` and `subtype` are
/// short ASCII words; `std::str::from_utf8` walks short input a byte at a
/// time behind a call (a tenth of the time of classifying a partial-message
/// line went there), this check is a few word compares.
#[inline(always)]
pub(crate) fn ascii_str(b: &[u8]) -> Option<&str> {
    if !b.is_ascii() {
        return None;
    }
    // SAFETY: every ASCII byte sequence is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(b) })
}

/// Whether `backend` can run on this machine.
pub(crate) fn available(backend: Backend) -> bool {
    match backend {
        Backend::Scalar => true,
        #[cfg(target_arch = "x86_64")]
        Backend::Sse2 => true,
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
        }
        #[cfg(not(target_arch = "x86_64"))]
        _ => false,
    }
}

/// Validate and index `b` with `backend`, which must be [`available`].
pub(crate) fn validate(backend: Backend, s: &mut Scratch, b: &[u8]) -> Outcome {
    match backend {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a Scanner only holds a backend that `available` approved
        // (AVX2 detected at run time).
        Backend::Avx2 => unsafe { x86::validate_avx2(s, b) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512 F and BW detected at run time.
        Backend::Avx512 => unsafe { x86::validate_avx512(s, b) },
        #[cfg(target_arch = "x86_64")]
        Backend::Sse2 => x86::validate_sse2(s, b),
        _ => validate::validate(Scalar, s, b),
    }
}

/// Masks of one block by `backend` (for tests comparing backends).
pub(crate) fn block_masks(backend: Backend, block: &[u8; 64]) -> (Masks, EscMasks) {
    #[cfg(target_arch = "x86_64")]
    if available(backend) {
        return x86::masks(backend, block);
    }
    let _ = backend;
    (Scalar.classify(block), Scalar.classify_esc(block))
}

/// The classifier the navigator uses (no dispatch: SSE2 is baseline on
/// x86_64).
#[cfg(target_arch = "x86_64")]
pub(crate) type Nav = x86::Sse2;
/// The classifier the navigator uses.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type Nav = Scalar;

/// The navigator's classifier value.
#[inline(always)]
pub(crate) fn nav() -> Nav {
    #[cfg(target_arch = "x86_64")]
    {
        x86::Sse2
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Scalar
    }
}
