//! The unescape arena: where the strings of indexed lines that hold an
//! escape are unescaped when read as `&str`.
//!
//! A [`Value`](super::Value) read through an index borrows its strings from
//! the line; a string with a backslash escape has no such text, so the
//! first read unescapes it into this arena, which the line's buffer owns
//! (a [`Scanner`](super::Scanner), an event batch) and resets when the
//! buffer is reused. The arena is bumpalo's [`Bump`](bumpalo::Bump) (the
//! well-kept crate for this): reset keeps its largest chunk, so once it has
//! grown to the most a buffer's lines unescape, nothing is allocated.

use super::raw::RawStr;
use std::cell::RefCell;
use std::fmt;

/// The arena that unescaped strings of indexed lines live in, until the
/// buffer that owns it is reused ([`reset`](Strings::reset)).
#[derive(Default)]
pub struct Strings {
    bump: bumpalo::Bump,
    /// Where a string is unescaped before it is copied into `bump` (kept
    /// from string to string).
    scratch: RefCell<String>,
}

impl fmt::Debug for Strings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Strings")
            .field("allocated", &self.bump.allocated_bytes())
            .finish()
    }
}

impl Strings {
    /// An empty arena.
    pub fn new() -> Strings {
        Strings::default()
    }

    /// Forget every string, keeping the largest chunk.
    pub fn reset(&mut self) {
        self.bump.reset();
    }

    /// The text of `s`: borrowed when it holds no escape, unescaped into the
    /// arena when it does (bytes that are not a valid JSON string, which
    /// only a line read in trusting mode holds, read lossily).
    pub(crate) fn text<'a>(&'a self, s: RawStr<'a>) -> &'a str {
        if !s.has_escapes() {
            // Ids, names, models, timestamps: ASCII, checked in a few word
            // compares rather than by the UTF-8 validator behind a call.
            if let Some(t) = super::simd::ascii_str(s.raw()) {
                return t;
            }
        }
        if let Some(t) = s.as_str() {
            return t;
        }
        let Ok(mut buf) = self.scratch.try_borrow_mut() else {
            // Not reentered (nothing runs while the buffer is held).
            return "";
        };
        buf.clear();
        if !s.unescape_into(&mut buf) {
            buf.clear();
            buf.push_str(&String::from_utf8_lossy(s.raw()));
        }
        self.bump.alloc_str(&buf)
    }
}
