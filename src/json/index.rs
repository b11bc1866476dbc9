//! The structural index: where each value of a validated line starts and
//! ends, written by the validator in the pass it makes anyway.
//!
//! One [`Node`] of 16 bytes a value, in document order (a container before
//! what it holds): the value's first byte and its end, with a flag for a
//! string holding a backslash escape; an object member's key (its first
//! byte, and a flag for an escaped key; the key ends at the quote before the
//! member's colon); and for a container, the node after its subtree
//! (`next`: a lookup steps from member to member without looking inside
//! them) and, in a second node right after its own, the node of its parent
//! (which the validator also uses as its stack of open containers). A
//! value's JSON type is its first byte's. So a scalar takes one node, a
//! container two; the walk writes three or four words a value, and what it
//! does not write (a scalar's `next`, an element's key) it never reads.
//!
//! The buffer is the caller's and is reused from line to line (simd-json's
//! `Tape::reset`, csv-core's habit of writing into the caller's buffers):
//! after the line with the most values, nothing is allocated. Offsets are 31
//! bits (the top bit holds the flags), so a line indexes up to 2 GiB.
//!
//! Node 0 of a line is its root; an object's or array's children start two
//! nodes after it (past its parent node).

use std::fmt;

/// The flag bit of [`Node::key`] and [`Node::end`].
pub(crate) const FLAG: u32 = 1 << 31;

/// The longest line the index takes (offsets are 31 bits).
pub(crate) const MAX_LINE: usize = (FLAG as usize) - 64;

/// One value of a line, or a container's second node (whose `key` is its
/// parent's node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// Members: the key's first byte after its opening quote, with
    /// [`FLAG`] set when the key holds an escape. A container's second
    /// node: the parent's node. Elements: not written.
    pub(crate) key: u32,
    /// The value's first byte.
    pub(crate) start: u32,
    /// One past the value's last byte, with [`FLAG`] set for a string
    /// holding an escape.
    pub(crate) end: u32,
    /// Containers: the node after the subtree. Scalars: not written (the
    /// next node is the one after).
    pub(crate) next: u32,
}

impl Node {
    /// A node not yet filled in.
    pub(crate) const EMPTY: Node = Node {
        key: 0,
        start: 0,
        end: 0,
        next: 0,
    };

    /// The key's first byte.
    #[inline(always)]
    pub(crate) fn key_start(&self) -> usize {
        (self.key & !FLAG) as usize
    }

    /// True when the key holds an escape.
    #[inline(always)]
    pub(crate) fn key_escaped(&self) -> bool {
        self.key & FLAG != 0
    }

    /// One past the value's last byte.
    #[inline(always)]
    pub(crate) fn end(&self) -> usize {
        (self.end & !FLAG) as usize
    }

    /// True for a string holding an escape.
    #[inline(always)]
    pub(crate) fn escaped(&self) -> bool {
        self.end & FLAG != 0
    }
}

/// True when a value starting with `c` is a container (it takes two nodes,
/// and its `next` is written).
#[inline(always)]
pub(crate) fn is_container(c: u8) -> bool {
    c == b'{' || c == b'['
}

/// The key of the member whose value starts at `start`: the closing quote
/// before the colon (whitespace allowed around it; minified JSON takes two
/// compares).
#[inline(always)]
pub(crate) fn key_end(b: &[u8], start: usize) -> usize {
    if b.get(start.wrapping_sub(2)..start) == Some(b"\":") {
        return start - 2;
    }
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let mut i = start;
    while i > 0 && ws(at(i - 1)) {
        i -= 1;
    }
    // The colon.
    i = i.saturating_sub(1);
    while i > 0 && ws(at(i - 1)) {
        i -= 1;
    }
    // Past the closing quote.
    i.saturating_sub(1)
}

/// The structural index of validated lines: a buffer the caller owns and
/// reuses.
///
/// A [`Scanner`](super::Scanner) keeps one and refills it for every line;
/// [`Scanned::value`](super::Scanned::value) reads a line through it. It
/// holds, for each value of the line, where the value starts and ends, its
/// key and escape flag when it is an object member, and for each container
/// its parent and where the next value after it is, so that
/// [`Value::get`](super::Value::get) jumps from member to member instead of
/// walking bytes. Clearing it keeps its capacity.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::Scanner;
///
/// let mut scanner = Scanner::new();
/// let line = Lines::new(br#"{"type":"user","message":{"content":[1,{"a":"b"}]}}"#).next().unwrap();
/// let ev = scanner.scan(&line).unwrap();
/// assert!(ev.value().get_path("message.content.1.a").unwrap().str_eq("b"));
/// drop(ev);
/// // Two nodes for each container (the root, `message`, `content` and the
/// // object), one for each scalar (`"user"`, 1 and `"b"`).
/// assert_eq!(scanner.index().len(), 11);
/// ```
#[derive(Clone, Default)]
pub struct Index {
    /// Every slot, initialized: the validator writes nodes in place (the
    /// first `len`), and grows this only on a second walk of a line that
    /// did not fit.
    pub(crate) nodes: Vec<Node>,
    /// How many of the slots hold the current line's nodes.
    pub(crate) len: usize,
}

impl fmt::Debug for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Index")
            .field("len", &self.len)
            .field("capacity", &self.nodes.len())
            .finish()
    }
}

impl Index {
    /// An empty index; it grows to the largest line it holds and stays.
    ///
    /// ```
    /// assert!(cctape::json::Index::new().is_empty());
    /// ```
    pub fn new() -> Index {
        Index::default()
    }

    /// An empty index with room for `nodes` nodes before it grows (a
    /// scalar takes one, an object or array two).
    ///
    /// ```
    /// assert!(cctape::json::Index::with_capacity(64).capacity() >= 64);
    /// ```
    pub fn with_capacity(nodes: usize) -> Index {
        Index {
            nodes: vec![Node::EMPTY; nodes],
            len: 0,
        }
    }

    /// The nodes of the current line.
    #[inline]
    pub(crate) fn nodes(&self) -> &[Node] {
        self.nodes.get(..self.len).unwrap_or_default()
    }

    /// Forget the line, keeping the buffer (simd-json's `Tape::reset`).
    ///
    /// ```
    /// let mut index = cctape::json::Index::with_capacity(8);
    /// index.clear();
    /// assert!(index.is_empty() && index.capacity() >= 8);
    /// ```
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// How many nodes the current line takes: one for each scalar, two for
    /// each object or array (the root included).
    ///
    /// ```
    /// assert_eq!(cctape::json::Index::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the index holds no line.
    ///
    /// ```
    /// assert!(cctape::json::Index::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many nodes it holds room for without growing.
    ///
    /// ```
    /// assert_eq!(cctape::json::Index::new().capacity(), 0);
    /// ```
    pub fn capacity(&self) -> usize {
        self.nodes.len()
    }
}
