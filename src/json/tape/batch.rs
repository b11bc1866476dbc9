//! A batch of tapes: many lines parsed on one thread, read on another.

use super::repair::{map_error, repair_line};
use super::{Ctx, Document, Nodes, Parser, not_an_object, repairable};
use crate::error::Error;
use crate::framing::Line;
use simd_json::{Buffers, INPUT_PADDING, Node, Tape};
use std::cell::Cell;
use std::fmt;

impl Parser {
    /// Parse one line into `batch`, as [`parse`](Parser::parse) does (same
    /// errors, same repairs), and keep its tape there: the line is read
    /// back with [`ParsedLines::document`] once this thread or another
    /// holds the batch. Returns the line's index in the batch.
    pub fn parse_into(&mut self, line: &Line<'_>, batch: &mut ParsedLines) -> Result<usize, Error> {
        let raw = line.bytes;
        let len = raw.len();
        let Parser {
            buffers,
            tape: home,
            containers,
            bigs: found,
            ..
        } = self;
        let ParsedLines {
            nodes,
            segments,
            current,
            bigs,
            lines,
        } = batch;
        let slot = slot_for(segments, current, raw);
        let base = slot.as_ptr() as usize;
        let big_start = bigs.len();
        let start = nodes.len();
        let mut result = keep_tape(slot, len, buffers, home, nodes);
        if let Err(e) = &result
            && repairable(e)
        {
            // The first try unescaped part of the slot: start again from
            // the line's bytes.
            slot[..len].copy_from_slice(raw);
            found.clear();
            if repair_line(&mut slot[..len], found, containers) {
                bigs.extend_from_slice(found);
                result = keep_tape(slot, len, buffers, home, nodes);
            }
        }
        let checked = match result {
            Ok(true) => Ok(()),
            Ok(false) => Err(not_an_object(line)),
            Err(e) => Err(map_error(&e, line)),
        };
        if let Err(e) = checked {
            bigs.truncate(big_start);
            return Err(e);
        }
        lines.push(BatchLine {
            nodes: (start, nodes.len()),
            base,
            bigs: (big_start, bigs.len()),
            line: line.number,
            offset: line.offset,
        });
        Ok(lines.len() - 1)
    }
}

/// Parse the padded `slot` and, when its root is an object, append its
/// tape to `nodes` (`Ok(false)`: another JSON value, nothing appended).
/// The parser's tape storage goes back to `home` either way.
#[allow(unsafe_code)]
fn keep_tape(
    slot: &mut [u8],
    len: usize,
    buffers: &mut Buffers,
    home: &mut Tape<'static>,
    nodes: &mut Vec<Node<'static>>,
) -> Result<bool, simd_json::Error> {
    let mut tape: Tape<'_> = std::mem::replace(home, Tape(Vec::new())).reset();
    let result = simd_json::fill_tape_padded(slot, len, buffers, &mut tape);
    let object = result.is_ok() && matches!(tape.0.first(), Some(Node::Object { .. }));
    if object {
        // SAFETY: the nodes' strings point into `slot`, a part of one of a
        // `ParsedLines`' segments (see `slot_for`). A segment's heap buffer
        // is never written, grown or freed while the batch's `nodes` holds
        // anything: `slot_for` only writes past the last slot handed out
        // and within the buffer's capacity, `ParsedLines::clear` empties
        // `nodes` first, and a move of the batch moves the `Vec` headers,
        // not the bytes. The nodes are only handed out as `&'a [Node<'a>]`
        // borrowed from the batch (`ParsedLines::document`), so no string
        // is read after its bytes are gone. A slot whose first parse failed
        // is parsed again before anything from it is appended.
        let kept: &[Node<'static>] = unsafe {
            std::slice::from_raw_parts(tape.0.as_ptr().cast::<Node<'static>>(), tape.0.len())
        };
        nodes.extend_from_slice(kept);
    }
    *home = tape.reset();
    result.map(|()| object)
}

/// A padded copy of `raw` (`INPUT_PADDING` spaces after it) in a batch's
/// segments: past the last copy in the current segment when it fits within
/// its capacity, else in the next segment (made, or grown while empty, to
/// fit). Never grows a segment that holds a copy.
fn slot_for<'s>(segments: &'s mut Vec<Vec<u8>>, current: &mut usize, raw: &[u8]) -> &'s mut [u8] {
    let need = raw.len() + INPUT_PADDING;
    let fits = |seg: &Vec<u8>| seg.capacity() - seg.len() >= need;
    if !segments.get(*current).is_some_and(fits) {
        if !segments.is_empty() {
            *current += 1;
        }
        if *current == segments.len() {
            segments.push(Vec::new());
        }
        let seg = &mut segments[*current];
        // Empty: nothing points into it yet, so it may move.
        seg.clear();
        seg.reserve(need.max(SEGMENT));
    }
    let seg = &mut segments[*current];
    let at = seg.len();
    seg.extend_from_slice(raw);
    seg.resize(at + need, b' ');
    &mut seg[at..]
}

/// The size of one of a batch's buffers of line copies.
const SEGMENT: usize = 1 << 20;

/// Where one line of a [`ParsedLines`] batch is.
#[derive(Clone, Copy, Debug)]
struct BatchLine {
    nodes: (usize, usize),
    base: usize,
    bigs: (usize, usize),
    line: u64,
    offset: u64,
}

/// Many lines' tapes in one owned batch, made by
/// [`Parser::parse_into`] on one thread and read on another (`cctape stats`
/// parses the chunks of a large file ahead on a pool while one thread folds
/// them in order). Every buffer is kept from batch to batch.
///
/// ```
/// use cctape::framing::Lines;
/// use cctape::json::tape::{ParsedLines, Parser};
///
/// let input = b"{\"type\":\"user\",\"n\":1}\n{\"type\":\"result\",\"n\":2}\n";
/// let mut parser = Parser::new();
/// let mut batch = ParsedLines::new();
/// let lines: Vec<_> = Lines::new(input).collect();
/// for line in &lines {
///     parser.parse_into(line, &mut batch).unwrap();
/// }
/// let batch = std::thread::spawn(move || batch).join().unwrap();
/// let doc = batch.document(1, lines[1].bytes);
/// assert_eq!(doc.value().get("n").and_then(|v| v.as_u64()), Some(2));
/// assert_eq!(doc.line(), 2);
/// ```
#[derive(Default)]
pub struct ParsedLines {
    /// Declared first: dropped before the bytes they point into.
    nodes: Vec<Node<'static>>,
    segments: Vec<Vec<u8>>,
    current: usize,
    bigs: Vec<u32>,
    lines: Vec<BatchLine>,
}

impl fmt::Debug for ParsedLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParsedLines")
            .field("lines", &self.lines.len())
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

impl ParsedLines {
    /// An empty batch.
    pub fn new() -> ParsedLines {
        ParsedLines::default()
    }

    /// Forget every line, keeping the buffers.
    pub fn clear(&mut self) {
        // The nodes first: nothing may point into a segment once it is
        // written again.
        self.nodes.clear();
        self.lines.clear();
        self.bigs.clear();
        for seg in &mut self.segments {
            seg.clear();
        }
        self.current = 0;
    }

    /// How many lines the batch holds.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when the batch holds no line.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Line `i` as a document; `raw` is the line's bytes as they were
    /// parsed (its [`Document::raw`]).
    ///
    /// # Panics
    ///
    /// When `i` is not below [`len`](ParsedLines::len).
    pub fn document<'a>(&'a self, i: usize, raw: &'a [u8]) -> Document<'a> {
        let l = self.lines[i];
        Document {
            nodes: Nodes::Borrowed(&self.nodes[l.nodes.0..l.nodes.1]),
            ctx: Ctx {
                raw,
                base: l.base,
                bigs: &self.bigs[l.bigs.0..l.bigs.1],
                line: l.line,
                offset: l.offset,
                mismatches: Cell::new(0),
            },
        }
    }
}
