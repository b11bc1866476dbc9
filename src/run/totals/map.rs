//! [`SmallMap`]: the map of the run totals (models, tools, subagent types,
//! warning codes), small while it is small and never quadratic when an
//! input holds many keys.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::collections::btree_map;
use std::fmt;

/// Up to this many entries a map is a sorted vector; past it, a B-tree.
const SMALL: usize = 32;

/// A map read like a `BTreeMap` (`iter`, `get`, `keys`, `values`, in key
/// order). Up to 32 entries it is a vector sorted by key, so a small map
/// costs its entries, not a B-tree node of eleven (a one-entry `BTreeMap`
/// of role totals takes 1.4 KB), and a lookup is a binary search. Past 32
/// it becomes a `BTreeMap`: an input with 80,000 tool names took 9.4 s
/// when every new key was inserted into the sorted vector (each insert
/// moving the entries after it).
///
/// ```
/// use cctape::run::SmallMap;
/// let mut m: SmallMap<String, u64> = SmallMap::new();
/// *m.entry_or_default("b") += 1;
/// *m.entry_or_default("a") += 2;
/// *m.entry_or_default("b") += 1;
/// assert_eq!(m.iter().collect::<Vec<_>>(), [(&"a".to_string(), &2), (&"b".to_string(), &2)]);
/// assert_eq!(m.get("b"), Some(&2));
/// ```
#[derive(Clone)]
pub struct SmallMap<K, V> {
    repr: Repr<K, V>,
}

#[derive(Clone)]
enum Repr<K, V> {
    Sorted(Vec<(K, V)>),
    Tree(BTreeMap<K, V>),
}

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap {
            repr: Repr::Sorted(Vec::new()),
        }
    }
}

impl<K: Ord, V> SmallMap<K, V> {
    /// An empty map (no allocation).
    pub fn new() -> SmallMap<K, V> {
        SmallMap::default()
    }

    /// Entries.
    pub(crate) fn len(&self) -> usize {
        match &self.repr {
            Repr::Sorted(v) => v.len(),
            Repr::Tree(t) => t.len(),
        }
    }

    /// True without entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `k`.
    pub fn get<Q: Ord + ?Sized>(&self, k: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        match &self.repr {
            Repr::Sorted(v) => v
                .binary_search_by(|(x, _)| x.borrow().cmp(k))
                .ok()
                .map(|i| &v[i].1),
            Repr::Tree(t) => t.get(k),
        }
    }

    /// True when `k` has a value.
    pub(crate) fn contains_key<Q: Ord + ?Sized>(&self, k: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.get(k).is_some()
    }

    /// The value of `k`, inserted as the default when missing (the key is
    /// made only then).
    pub fn entry_or_default<Q: Ord + ?Sized + ToOwned<Owned = K>>(&mut self, k: &Q) -> &mut V
    where
        K: Borrow<Q>,
        V: Default,
    {
        self.entry_with(|x| x.borrow().cmp(k), || k.to_owned())
    }

    /// The value of the key that `cmp` finds (comparing a key with the one
    /// looked for), inserted as `make()` and the default when missing. In
    /// the tree form the key is made at every call (the tree has no search
    /// by comparison): a map past 32 keys pays one key a call.
    pub(super) fn entry_with(
        &mut self,
        cmp: impl Fn(&K) -> std::cmp::Ordering,
        make: impl FnOnce() -> K,
    ) -> &mut V
    where
        V: Default,
    {
        let found = match &self.repr {
            Repr::Sorted(v) => v.binary_search_by(|(x, _)| cmp(x)),
            Repr::Tree(_) => Err(0),
        };
        if let (Repr::Sorted(v), Err(_)) = (&mut self.repr, found)
            && v.len() >= SMALL
        {
            let tree: BTreeMap<K, V> = std::mem::take(v).into_iter().collect();
            self.repr = Repr::Tree(tree);
        }
        match &mut self.repr {
            Repr::Tree(t) => t.entry(make()).or_default(),
            Repr::Sorted(v) => match found {
                Ok(i) => &mut v[i].1,
                Err(i) => {
                    let n = v.len();
                    if n == v.capacity() {
                        v.reserve_exact(if n < 8 { 1 } else { n });
                    }
                    v.insert(i, (make(), V::default()));
                    &mut v[i].1
                }
            },
        }
    }

    /// The entries from the first key not below `start`, in key order.
    pub(super) fn range_from(&self, start: &K) -> Iter<'_, K, V> {
        Iter(match &self.repr {
            Repr::Sorted(v) => {
                let from = v.partition_point(|(k, _)| k < start);
                IterRepr::Sorted(v[from..].iter())
            }
            Repr::Tree(t) => IterRepr::Range(t.range(start..)),
        })
    }
}

impl<K, V> SmallMap<K, V> {
    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter(match &self.repr {
            Repr::Sorted(v) => IterRepr::Sorted(v.iter()),
            Repr::Tree(t) => IterRepr::Tree(t.iter()),
        })
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.iter().map(|(_, v)| v)
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for SmallMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl<K: Eq, V: Eq> Eq for SmallMap<K, V> {}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SmallMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The entries of a [`SmallMap`] in key order.
pub struct Iter<'a, K, V>(IterRepr<'a, K, V>);

enum IterRepr<'a, K, V> {
    Sorted(std::slice::Iter<'a, (K, V)>),
    Tree(btree_map::Iter<'a, K, V>),
    Range(btree_map::Range<'a, K, V>),
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::Sorted(i) => i.next().map(|(k, v)| (k, v)),
            IterRepr::Tree(i) => i.next(),
            IterRepr::Range(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IterRepr::Sorted(i) => i.size_hint(),
            IterRepr::Tree(i) => i.size_hint(),
            IterRepr::Range(i) => i.size_hint(),
        }
    }
}

impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::Sorted(i) => i.next_back().map(|(k, v)| (k, v)),
            IterRepr::Tree(i) => i.next_back(),
            IterRepr::Range(i) => i.next_back(),
        }
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

impl<'a, K, V> IntoIterator for &'a SmallMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The entries of an owned [`SmallMap`] in key order.
pub struct IntoIter<K, V>(IntoIterRepr<K, V>);

enum IntoIterRepr<K, V> {
    Sorted(std::vec::IntoIter<(K, V)>),
    Tree(btree_map::IntoIter<K, V>),
}

impl<K, V> Iterator for IntoIter<K, V> {
    type Item = (K, V);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IntoIterRepr::Sorted(i) => i.next(),
            IntoIterRepr::Tree(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IntoIterRepr::Sorted(i) => i.size_hint(),
            IntoIterRepr::Tree(i) => i.size_hint(),
        }
    }
}

impl<K, V> ExactSizeIterator for IntoIter<K, V> {}

impl<K, V> IntoIterator for SmallMap<K, V> {
    type Item = (K, V);
    type IntoIter = IntoIter<K, V>;
    fn into_iter(self) -> Self::IntoIter {
        IntoIter(match self.repr {
            Repr::Sorted(v) => IntoIterRepr::Sorted(v.into_iter()),
            Repr::Tree(t) => IntoIterRepr::Tree(t.into_iter()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_tree_forms_read_alike() {
        // Keys in a scrambled order, past the vector's bound.
        let keys: Vec<String> = (0..100u32)
            .map(|i| format!("k{:03}", (i * 37) % 100))
            .collect();
        let mut m: SmallMap<String, u64> = SmallMap::new();
        let mut want = BTreeMap::new();
        for (n, k) in keys.iter().enumerate() {
            *m.entry_or_default(k.as_str()) += n as u64;
            *want.entry(k.clone()).or_insert(0u64) += n as u64;
            *m.entry_or_default(k.as_str()) += 1;
            *want.get_mut(k).unwrap() += 1;
            assert_eq!(m.len(), want.len());
            assert!(m.iter().eq(want.iter()), "after {n} keys");
            assert!(m.iter().rev().eq(want.iter().rev()));
            assert_eq!(m.keys().len(), want.len());
        }
        assert!(matches!(m.repr, Repr::Tree(_)));
        assert_eq!(m.get("k042"), want.get("k042"));
        assert!(!m.contains_key("k100"));
        // A map that grew into a tree equals one built in another order.
        let mut other: SmallMap<String, u64> = SmallMap::new();
        for (k, v) in want.iter().rev() {
            *other.entry_or_default(k.as_str()) = *v;
        }
        assert_eq!(m, other);
        assert!(m.clone().into_iter().eq(want.into_iter()));
        let small: SmallMap<String, u64> = SmallMap::new();
        assert_ne!(m, small);
        assert_eq!(format!("{small:?}"), "{}");
    }
}
