//! A batch of indexed lines: many lines validated on one thread, read on
//! another.
//!
//! [`IndexedLines`] keeps, for each line a [`Scanner`](super::Scanner)
//! validated, the structural index that scan wrote, appended to one buffer
//! of nodes the batch reuses (and one unescape arena for the strings read
//! from them). The lines' bytes stay where they were read; a line is read
//! back with the bytes it was scanned from.

use super::index::Node;
use super::scan::Scanned;
use super::strings::Strings;
use super::value::Value;
use std::fmt;
use std::ops::Range;

/// The structural indexes of many lines, in one buffer that is kept from
/// batch to batch: after the largest batch, nothing is allocated.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::{IndexedLines, Scanner};
///
/// let input = b"{\"type\":\"user\",\"n\":1}\n{\"type\":\"result\",\"n\":2}\n";
/// let (mut scanner, mut batch) = (Scanner::new(), IndexedLines::new());
/// let mut at = Vec::new();
/// for line in Lines::new(input) {
///     let s = scanner.scan(&line).unwrap();
///     at.push((batch.push(&s), line));
/// }
/// let batch = std::thread::spawn(move || batch).join().unwrap();
/// let (i, line) = at[1];
/// assert_eq!(batch.value(i, line.bytes).get("n").and_then(|v| v.as_u64()), Some(2));
/// ```
#[derive(Default)]
pub struct IndexedLines {
    nodes: Vec<Node>,
    lines: Vec<Range<usize>>,
    strings: Strings,
}

impl fmt::Debug for IndexedLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IndexedLines")
            .field("lines", &self.lines.len())
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

impl IndexedLines {
    /// An empty batch.
    pub fn new() -> IndexedLines {
        IndexedLines::default()
    }

    /// Forget every line, keeping the buffers.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.lines.clear();
        self.strings.reset();
    }

    /// Keep the index of a line just scanned (validated; a line scanned in
    /// trusting mode has none and reads as empty); returns its place in the
    /// batch.
    pub fn push(&mut self, scanned: &Scanned<'_>) -> usize {
        let from = self.nodes.len();
        self.nodes.extend_from_slice(scanned.nodes());
        self.lines.push(from..self.nodes.len());
        self.lines.len() - 1
    }

    /// Keep the index of a line's root read through one (an event's
    /// [`root`](crate::event::Event::root), say), so that the line is read
    /// again later from a copy of `line` (the bytes the root was read
    /// from) without being scanned again; returns its place in the batch,
    /// or `None` for a value with no index behind it (the tape backend,
    /// trusting mode, a value below the root) or not read from `line`.
    pub fn push_root(&mut self, root: &Value<'_>, line: &[u8]) -> Option<usize> {
        let nodes = root.root_nodes(line)?;
        let from = self.nodes.len();
        self.nodes.extend_from_slice(nodes);
        self.lines.push(from..self.nodes.len());
        Some(self.lines.len() - 1)
    }

    /// Free the strings unescaped by the reads so far, keeping the lines:
    /// a batch read again and again stays the size of its indexes.
    pub fn forget_strings(&mut self) {
        self.strings.reset();
    }

    /// Number of lines kept.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when no line is kept.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The root of line `i`, read from `bytes` (the bytes it was scanned
    /// from). A line not in the batch reads as an empty value.
    #[inline]
    pub fn value<'a>(&'a self, i: usize, bytes: &'a [u8]) -> Value<'a> {
        let nodes = self
            .lines
            .get(i)
            .and_then(|r| self.nodes.get(r.clone()))
            .unwrap_or_default();
        Value::indexed(bytes, nodes, 0, &self.strings)
    }
}
