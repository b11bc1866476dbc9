//! The fold layer's one string interner: every id and name a run meets
//! (message ids, tool ids, tool names, models, task ids), and every name a
//! transcript fold meets (sessions, files, models, agents, versions), is
//! stored once in one growing buffer and named by a [`Sym`], a `u32`. A
//! stream run has one of its own; a transcript fold has two (sessions, and
//! every other name).
//!
//! Interning a string already seen hashes it and compares bytes; it does not
//! allocate. A new string is appended to the shared buffer (amortised
//! growth, no allocation per string). Maps elsewhere in the run layer are
//! keyed by [`Sym`] with [`SymMap`], whose hasher is one multiply.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// An interned string of one run's [`Interner`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Sym(u32);

impl Sym {
    /// The symbol's number: symbols are numbered 0, 1, 2, ... in the order
    /// their strings were first interned.
    pub(crate) fn index(self) -> u32 {
        self.0
    }
}

/// Strings in one buffer, looked up by an open-addressing table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Interner {
    bytes: String,
    /// Each string's start and end in `bytes` (offsets past 4 GiB allowed:
    /// one interner can serve a whole tree of transcripts).
    spans: Vec<(usize, usize)>,
    /// Slot values are `sym + 1`; 0 is an empty slot. Length is 0 or a power
    /// of two.
    table: Vec<u32>,
}

/// Eight bytes at a time, each word mixed in by a rotate, a xor and a
/// multiply, then the high half folded into the low (the table indexes by
/// the low bits): short ids, no adversary (the input is a log). The ids
/// interned most (`toolu_…`, `msg_…`, 30 bytes or so) cost four rounds
/// here, against thirty for FNV-1a's byte at a time (1.6% of `verdict`'s
/// instructions on long lines). Only the table's layout depends on it:
/// symbols are numbered in the order strings are first seen.
fn hash(s: &str) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |h: u64, w: u64| (h.rotate_left(23) ^ w).wrapping_mul(K);
    let b = s.as_bytes();
    let mut h = b.len() as u64;
    let mut words = b.chunks_exact(8);
    for c in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = mix(h, u64::from_le_bytes(w));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = mix(h, u64::from_le_bytes(w));
    }
    h ^ (h >> 32)
}

impl Interner {
    /// The symbol for `s`, adding it if new.
    pub(crate) fn intern(&mut self, s: &str) -> Sym {
        if self.table.is_empty() || (self.spans.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut i = (hash(s) as usize) & mask;
        loop {
            let slot = self.table[i];
            if slot == 0 {
                let sym = Sym(self.spans.len() as u32);
                let start = self.bytes.len();
                self.bytes.push_str(s);
                self.spans.push((start, self.bytes.len()));
                self.table[i] = sym.0 + 1;
                return sym;
            }
            let sym = Sym(slot - 1);
            if self.resolve(sym) == s {
                return sym;
            }
            i = (i + 1) & mask;
        }
    }

    /// The symbol for `s` if it was interned.
    pub(crate) fn get(&self, s: &str) -> Option<Sym> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut i = (hash(s) as usize) & mask;
        loop {
            let slot = self.table[i];
            if slot == 0 {
                return None;
            }
            let sym = Sym(slot - 1);
            if self.resolve(sym) == s {
                return Some(sym);
            }
            i = (i + 1) & mask;
        }
    }

    /// The string of the symbol numbered `index` ([`Sym::index`]), if there
    /// is one.
    pub(crate) fn by_index(&self, index: u32) -> Option<&str> {
        let &(start, end) = self.spans.get(index as usize)?;
        self.bytes.get(start..end)
    }

    /// How many strings were interned.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The strings in symbol order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.spans
            .iter()
            .map(|&(start, end)| self.bytes.get(start..end).unwrap_or_default())
    }

    /// The string of a symbol of this interner ("" for a foreign one).
    pub(crate) fn resolve(&self, sym: Sym) -> &str {
        self.by_index(sym.0).unwrap_or_default()
    }

    fn grow(&mut self) {
        let cap = (self.table.len() * 2).max(64);
        let mut table = vec![0u32; cap];
        let mask = cap - 1;
        for (n, s) in self.iter().enumerate() {
            let mut i = (hash(s) as usize) & mask;
            while table[i] != 0 {
                i = (i + 1) & mask;
            }
            table[i] = n as u32 + 1;
        }
        self.table = table;
    }
}

/// A hasher for [`Sym`] keys: one multiply (Fibonacci hashing).
#[derive(Default, Clone, Copy)]
pub(crate) struct SymHasher(u64);

impl Hasher for SymHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by interned symbols.
pub(crate) type SymMap<V> = HashMap<Sym, V, BuildHasherDefault<SymHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once_and_resolves() {
        let mut i = Interner::default();
        let a = i.intern("toolu_01A");
        let b = i.intern("msg_01A");
        assert_ne!(a, b);
        assert_eq!(i.intern("toolu_01A"), a);
        assert_eq!(i.resolve(a), "toolu_01A");
        assert_eq!(i.get("msg_01A"), Some(b));
        assert_eq!(i.get("nope"), None);
        assert_eq!(i.intern(""), i.intern(""));
        assert_eq!((a.index(), b.index()), (0, 1));
        assert_eq!(i.by_index(1), Some("msg_01A"));
        assert_eq!(i.by_index(3), None);
        assert_eq!(i.len(), 3);
        assert_eq!(i.iter().collect::<Vec<_>>(), ["toolu_01A", "msg_01A", ""]);
    }

    #[test]
    fn survives_growth() {
        let mut i = Interner::default();
        let syms: Vec<Sym> = (0..5000).map(|n| i.intern(&format!("id{n}"))).collect();
        for (n, s) in syms.iter().enumerate() {
            assert_eq!(i.resolve(*s), format!("id{n}"));
            assert_eq!(i.get(&format!("id{n}")), Some(*s));
        }
    }

    /// Ids that share a long prefix and differ in a few bytes (`toolu_01`
    /// and 22 characters, as Claude Code writes them) spread over the
    /// table: a string is found within a few probes of its home slot.
    #[test]
    fn ids_with_one_prefix_spread_over_the_table() {
        const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut i = Interner::default();
        let ids: Vec<String> = (0u64..20_000)
            .map(|n| {
                let mut id = String::from("toolu_01");
                let mut x = n.wrapping_mul(0x2545_f491_4f6c_dd1d);
                for _ in 0..22 {
                    id.push(DIGITS[(x % 62) as usize] as char);
                    x /= 62;
                }
                id
            })
            .collect();
        for id in &ids {
            i.intern(id);
        }
        let mask = i.table.len() - 1;
        let probes: Vec<usize> = ids
            .iter()
            .map(|id| {
                let mut at = (hash(id) as usize) & mask;
                let mut n = 1;
                while i.resolve(Sym(i.table[at] - 1)) != id {
                    at = (at + 1) & mask;
                    n += 1;
                }
                n
            })
            .collect();
        let mean = probes.iter().sum::<usize>() as f64 / probes.len() as f64;
        assert!(mean < 2.0, "{mean} probes a lookup on average");
        assert!(probes.iter().max().is_some_and(|m| *m < 64), "{probes:?}");
        // Same ids but the last byte: no two share a hash.
        let (a, b) = (
            hash("toolu_01AAAAAAAAAAAAAAAAAAAAAB"),
            hash("toolu_01AAAAAAAAAAAAAAAAAAAAAC"),
        );
        assert_ne!(a & 0xffff, b & 0xffff);
    }
}
