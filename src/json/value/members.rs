//! Many keys of one object found in one walk: a table of where the members
//! a caller names are, so that reading them afterwards jumps to each one,
//! and a key the walk did not meet is known absent without walking again.
//!
//! An event's readers ask its root for a dozen keys and its message for
//! five (issue 23: one walk per key was 11% of `stats`' instructions on the
//! archive corpus); the event builds a table of each once (see
//! [`crate::event::Event`]).

use super::{Repr, Value, key_end};

/// Where the members of one object that a key table names are: for each
/// slot, the member's node (0 when the object has no such key; node 0 is
/// the root, never a member).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Members<const N: usize> {
    nodes: [u32; N],
}

impl<'a> Value<'a> {
    /// Walk this object's members once, noting for each key that `slot`
    /// gives a place the first member with it (as [`get`](Value::get)
    /// finds the first of a key given twice). `None` when a table cannot
    /// stand in for `get`: the value is not an object read through an
    /// index, or a key holds an escape (which `get` compares unescaped).
    #[inline]
    pub(crate) fn members<const N: usize>(
        &self,
        slot: impl Fn(&[u8]) -> Option<usize>,
    ) -> Option<Members<N>> {
        let Repr::Index(x) = &self.repr else {
            return None;
        };
        if x.first() != b'{' {
            return None;
        }
        let mut table = Members { nodes: [0; N] };
        let (mut j, end) = x.children();
        while j < end {
            let m = x.nodes.get(j)?;
            if m.key_escaped() {
                return None;
            }
            let key = x.b.get(m.key_start()..key_end(x.b, m.start as usize))?;
            if let Some(n) = slot(key).and_then(|i| table.nodes.get_mut(i))
                && *n == 0
            {
                *n = j as u32;
            }
            j = x.after(j);
        }
        Some(table)
    }

    /// The member in slot `i` of `table`, which [`members`](Value::members)
    /// made of this value.
    #[inline]
    pub(crate) fn member<const N: usize>(&self, table: &Members<N>, i: usize) -> Option<Value<'a>> {
        let Repr::Index(x) = &self.repr else {
            return None;
        };
        match table.nodes.get(i) {
            Some(&at) if at != 0 => Some(Value::of(x.at(at as usize))),
            _ => None,
        }
    }
}

/// An object with the table of the members its reader names: `get(i)` is
/// the member of `keys[i]`, through the table when there is one, else
/// through [`Value::get`] (an escaped key, a value not read through an
/// index), so that both give what `get` gives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tabled<'a, const N: usize> {
    value: Value<'a>,
    table: Option<Members<N>>,
    keys: &'static [&'static str; N],
}

impl<'a, const N: usize> Tabled<'a, N> {
    /// `value`'s members named by `keys`, found in one walk; `slot` gives
    /// a key's place in `keys` (a `match` on the bytes is the fast one).
    #[inline]
    pub(crate) fn new(
        value: Value<'a>,
        keys: &'static [&'static str; N],
        slot: impl Fn(&[u8]) -> Option<usize>,
    ) -> Tabled<'a, N> {
        Tabled {
            value,
            table: value.members(slot),
            keys,
        }
    }

    /// Whether the members were found in one walk (else `get` reads
    /// them: the value is not an object over an index, or a key holds an
    /// escape).
    #[inline]
    pub(crate) fn walked(&self) -> bool {
        self.table.is_some()
    }

    /// The member of `keys[i]` (the first, should the object give it
    /// twice).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<Value<'a>> {
        match &self.table {
            Some(t) => self.value.member(t, i),
            None => self.value.get(self.keys.get(i)?),
        }
    }
}
