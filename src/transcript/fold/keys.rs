//! The keys of requests and tool calls: a message's id and request id (or
//! a tool call's id) hashed into 128 bits once, and the hasher of the maps
//! keyed by them, which uses the key's own bits.

use super::Request;
use std::collections::HashMap;
use std::hash::Hasher;

/// A hasher for keys that are already hashes ([`request_key`]): their low
/// bits, without hashing them again.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, n: u128) {
        self.0 = n as u64;
    }
}

pub(super) type Requests = HashMap<u128, Request, std::hash::BuildHasherDefault<KeyHasher>>;

/// Where a request's `message.id` and `requestId` are in the fold's text
/// of call ids (one after the other, as written), by its key.
pub(super) type CallIds = HashMap<u128, CallIdSpan, std::hash::BuildHasherDefault<KeyHasher>>;

/// A request's ids in the text of call ids: from `start`, the message id
/// (`id` bytes), then the request id (`request` bytes, `None` without one).
#[derive(Clone, Copy, Debug)]
pub(super) struct CallIdSpan {
    pub(super) start: usize,
    pub(super) id: u32,
    pub(super) request: Option<u32>,
}

impl CallIdSpan {
    /// The message id and request id, in `text`.
    pub(super) fn ids(self, text: &str) -> (Option<&str>, Option<&str>) {
        let mid = self.start + self.id as usize;
        let request = self.request.and_then(|n| text.get(mid..mid + n as usize));
        (text.get(self.start..mid), request)
    }

    /// The same span `offset` bytes on (its text appended to another's).
    pub(super) fn moved(self, offset: usize) -> CallIdSpan {
        CallIdSpan {
            start: self.start + offset,
            ..self
        }
    }
}

/// A 128-bit key for (message id, request id), or for a tool call's id
/// (`request` `None`): two 64-bit lanes of multiply-fold mixing over the
/// bytes, eight at a time, with the lengths mixed in so that `("ab", "c")`
/// and `("a", "bc")` differ. Hand-written rather than a hashing crate: a
/// key is made per assistant record and per tool block, the inputs are
/// short ids (`msg_…`, `req_…`, `toolu_…`, 20 to 40 bytes), and two
/// SipHash passes cost 4.5% of a `stats` over transcripts; this costs a
/// tenth of that. Accidental collisions of 128 bits are out of reach for
/// any archive (the keys only tell ids apart, never leave the process).
pub(super) fn request_key(message: &[u8], request: Option<&[u8]>) -> u128 {
    let mut k = KeyMix::new();
    k.bytes(message);
    match request {
        Some(r) => {
            k.word(1);
            k.bytes(r);
        }
        None => k.word(2),
    }
    k.finish()
}

/// The two lanes of [`request_key`].
struct KeyMix(u64, u64);

impl KeyMix {
    const A: u64 = 0x9E37_79B9_7F4A_7C15;
    const B: u64 = 0xD6E8_FEB8_6659_FD93;

    fn new() -> KeyMix {
        KeyMix(0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344)
    }

    /// The high and low halves of a 128-bit product, folded.
    #[inline(always)]
    fn fold(x: u64, k: u64) -> u64 {
        let p = u128::from(x) * u128::from(k);
        (p as u64) ^ ((p >> 64) as u64)
    }

    #[inline(always)]
    fn word(&mut self, w: u64) {
        self.0 = Self::fold(self.0 ^ w, Self::A);
        self.1 = Self::fold(self.1 ^ w.rotate_left(29), Self::B).rotate_left(17);
    }

    /// The bytes, then their length (so that where one input ends is part
    /// of the key).
    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        let mut chunks = b.chunks_exact(8);
        for c in chunks.by_ref() {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.word(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        self.word(u64::from_le_bytes(w));
        self.word(b.len() as u64);
    }

    fn finish(self) -> u128 {
        let (a, b) = (
            Self::fold(self.0 ^ self.1.rotate_left(32), Self::B),
            Self::fold(self.1 ^ self.0.rotate_left(32), Self::A),
        );
        (u128::from(a) << 64) | u128::from(b)
    }
}
