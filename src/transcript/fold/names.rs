//! The fold's names: each name seen stored once ([`Names`], the run
//! layer's interner, a name's id its symbol's number), and the last name
//! read of a kind with its id ([`Recent`]), as consecutive records repeat
//! their session, version, agent and model.

use crate::json::RawStr;
use crate::run::intern::Interner;

/// Names seen, each stored once: the run layer's [`Interner`] (one buffer,
/// no allocation per name), with a name's id its symbol's number.
#[derive(Debug, Default)]
pub(super) struct Names(Interner);

impl Names {
    pub(super) fn id(&mut self, s: &str) -> u32 {
        self.0.intern(s).index()
    }

    pub(super) fn id_raw(&mut self, s: RawStr<'_>, buf: &mut String) -> u32 {
        match s.as_str() {
            Some(t) => self.id(t),
            None => {
                buf.clear();
                s.unescape_into(buf);
                self.id(buf)
            }
        }
    }

    pub(super) fn get(&self, i: u32) -> Option<&str> {
        self.0.by_index(i)
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter()
    }
}

/// A name as last written, and its id.
#[derive(Debug, Default)]
pub(super) struct Recent {
    raw: Vec<u8>,
    id: Option<u32>,
}

impl Recent {
    /// The id of `s`, from the cache or from `names` (and then cached).
    pub(super) fn id(&mut self, s: RawStr<'_>, names: &mut Names, buf: &mut String) -> u32 {
        if let Some(id) = self.id
            && self.raw == s.raw()
        {
            return id;
        }
        let id = names.id_raw(s, buf);
        self.raw.clear();
        self.raw.extend_from_slice(s.raw());
        self.id = Some(id);
        id
    }
}
