//! The validating first stage: RFC 8259 grammar, UTF-8, escapes, depth,
//! without unescaping, writing the structural index on the way.
//!
//! One pass, left to right. Every value gets a node of the index
//! ([`super::index`]) as it is met; a container's node is completed (its end,
//! the node after its subtree) when it closes, and the nodes' `parent` links
//! are the walk's stack of open containers (so nothing else is kept, and
//! nothing is allocated once the index has grown to the longest line).
//! Strings are crossed 64 bytes at a time with the masks of
//! [`super::simd`]: the first unescaped quote ends the string; within it,
//! control characters, bad escapes and non-hex `\u` digits are found with mask
//! arithmetic, not byte by byte. The masks of the last 64 bytes classified
//! are kept ([`Window`]): the strings that follow within them (keys, ids,
//! short values, as on lines of partial messages) end without another
//! classification. A string with bytes of 0x80 and above is
//! checked as UTF-8 once it ends; bytes outside strings must be ASCII grammar,
//! so a line that passes is valid UTF-8.
//!
//! On failure this says only that the line is bad (and whether the depth
//! limit was the first problem); [`super::Scanner`] then works out which kind
//! of error the tape path would report.

use super::MAX_DEPTH;
use super::index::{FLAG, MAX_LINE, Node};
use super::scan::{IndexDepth, Scratch};
use super::simd::{Classify, Masks};

mod top;

/// What a validation found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A valid object; its values are in the scratch index.
    Object,
    /// Valid JSON whose root is not an object.
    NotObject,
    /// Invalid; `depth` is true when the first problem met was nesting past
    /// the limit.
    Invalid {
        /// The first problem was the depth limit.
        depth: bool,
        /// Where the validator stopped.
        at: usize,
    },
    /// The line is longer than the index's 31-bit offsets allow (2 GiB).
    TooLarge,
    /// The line has more values than the index's slots (the walk writes
    /// into slots it never grows, so that no call, and no reload of the
    /// walk's registers after one, sits on its path): validate again with a
    /// growing sink.
    Full,
}

/// Where the walk writes the index's nodes.
pub(crate) trait Sink {
    /// A new node at the end, its fields as an earlier line left them (the
    /// walk writes those it uses); `None` when there is no room (then the
    /// walk stops with [`Outcome::Full`]).
    fn grow(&mut self) -> Option<&mut Node>;
    /// How many nodes are written.
    fn len(&self) -> usize;
    /// The node at `i`.
    fn get(&self, i: usize) -> Option<&Node>;
    /// The node at `i`, to complete it.
    fn get_mut(&mut self, i: usize) -> Option<&mut Node>;
    /// The slots and the count written, for a walk that keeps the count
    /// in a register ([`top`]); `None` for a growing sink.
    fn slots(&mut self) -> Option<(&mut [Node], &mut usize)>;
}

/// The index's slots, written in place: no allocation and no call.
pub(crate) struct Slots<'a> {
    pub(crate) slots: &'a mut [Node],
    pub(crate) len: usize,
}

impl Sink for Slots<'_> {
    #[inline(always)]
    fn grow(&mut self) -> Option<&mut Node> {
        let n = self.slots.get_mut(self.len)?;
        self.len += 1;
        Some(n)
    }
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    // Past `len` are the nodes of an earlier line, never asked for.
    #[inline(always)]
    fn get(&self, i: usize) -> Option<&Node> {
        self.slots.get(i)
    }
    #[inline(always)]
    fn slots(&mut self) -> Option<(&mut [Node], &mut usize)> {
        Some((&mut *self.slots, &mut self.len))
    }
    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> Option<&mut Node> {
        self.slots.get_mut(i)
    }
}

/// A vector that grows as needed: the second walk of a line that did not
/// fit the slots.
impl Sink for Vec<Node> {
    #[inline(always)]
    fn grow(&mut self) -> Option<&mut Node> {
        self.push(Node::EMPTY);
        self.last_mut()
    }
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline(always)]
    fn get(&self, i: usize) -> Option<&Node> {
        <[Node]>::get(self, i)
    }
    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> Option<&mut Node> {
        <[Node]>::get_mut(self, i)
    }
    fn slots(&mut self) -> Option<(&mut [Node], &mut usize)> {
        None
    }
}

const EVEN_BITS: u64 = 0x5555_5555_5555_5555;

/// Bits of the bytes escaped by a backslash (the byte after an odd run),
/// given the backslash mask and whether the block's first byte is escaped
/// (`prev`, 0 or 1, updated for the next block).
#[inline(always)]
pub(crate) fn find_escaped(backslash: u64, prev: &mut u64) -> u64 {
    let backslash = backslash & !*prev;
    let follows_escape = (backslash << 1) | *prev;
    let odd_sequence_starts = backslash & !EVEN_BITS & !follows_escape;
    let (sequences_starting_on_even_bits, overflow) =
        odd_sequence_starts.overflowing_add(backslash);
    *prev = overflow as u64;
    let invert_mask = sequences_starting_on_even_bits << 1;
    (EVEN_BITS ^ invert_mask) & follows_escape
}

/// A line with its last 64 bytes copied once into a zero-padded buffer, so
/// that every 64-byte block of it can be read without a copy per string.
/// Past the end come NULs: control characters, so a string running off the
/// end fails.
pub(crate) struct Input<'a> {
    pub(crate) b: &'a [u8],
    tail: &'a [u8; 128],
    base: usize,
}

impl<'a> Input<'a> {
    /// `tail` is the caller's zeroed buffer (the caller's, so that the
    /// 128 bytes are written once, not built here and moved).
    #[inline(always)]
    pub(crate) fn new(b: &'a [u8], tail: &'a mut [u8; 128]) -> Input<'a> {
        let base = b.len().saturating_sub(64);
        // A copy of constant length where the line allows it: inline moves,
        // not a call to `memcpy`, once per line.
        match b.last_chunk::<64>() {
            Some(last) => tail[..64].copy_from_slice(last),
            None => tail[..b.len()].copy_from_slice(b),
        }
        Input { b, tail, base }
    }

    /// The 64 bytes at `i` (NUL past the end).
    #[inline(always)]
    fn block(&self, i: usize) -> &[u8; 64] {
        if let Some(blk) = self.b.get(i..).and_then(|r| r.first_chunk::<64>()) {
            return blk;
        }
        let k = i.saturating_sub(self.base).min(64);
        match self.tail[k..].first_chunk::<64>() {
            Some(blk) => blk,
            None => &ZEROS,
        }
    }
}

static ZEROS: [u8; 64] = [0u8; 64];

/// The masks of the 64 bytes from `start`, kept from the string that last
/// needed them: the next strings often start and end within the same 64
/// bytes (a key, its value; ids, short deltas), and then their end is a
/// shift and a `tzcnt` away, not a load, compares and mask moves that the
/// next token waits on.
#[derive(Clone, Copy)]
pub(crate) struct Window {
    start: usize,
    /// Quotes.
    quote: u64,
    /// Backslashes, control characters, bytes of 0x80 and above: what the
    /// one-block fast path does not handle.
    special: u64,
    /// A string holding bytes of 0x80 and above was crossed: the line is
    /// checked as UTF-8 once the walk ends (outside strings the grammar
    /// allows only ASCII, so that checks every string at once, and keeps a
    /// call, which would take the vector registers the walk keeps its
    /// constants in, out of the walk). Kept here, in what the walk owns
    /// and passes down anyway: a flag in the shared input would make every
    /// store in the walk a possible write to it, and the line's bounds
    /// would be loaded again after each.
    high: bool,
}

impl Window {
    pub(crate) const EMPTY: Window = Window {
        start: usize::MAX,
        quote: 0,
        special: 0,
        high: false,
    };
}

/// Validate the string whose content starts at `start` (after its opening
/// quote). Returns the index after the closing quote and whether it holds a
/// backslash.
#[inline(always)]
pub(crate) fn string<C: Classify>(
    c: C,
    inp: &Input<'_>,
    w: &mut Window,
    start: usize,
) -> Option<(usize, bool)> {
    // Fast path: the closing quote within 64 bytes, nothing to check before
    // it (most keys and ids); first from the masks at hand.
    let off = start.wrapping_sub(w.start);
    if off < 64 {
        let q = w.quote >> off;
        let upto = q ^ q.wrapping_sub(1);
        if q != 0 && (w.special >> off) & upto == 0 {
            return Some((start + q.trailing_zeros() as usize + 1, false));
        }
    }
    let m = c.classify(inp.block(start));
    let special = m.backslash | m.ctrl | m.high;
    w.start = start;
    w.quote = m.quote;
    w.special = special;
    let upto = m.quote ^ m.quote.wrapping_sub(1);
    if m.quote != 0 && special & upto == 0 {
        return Some((start + m.quote.trailing_zeros() as usize + 1, false));
    }
    string_slow(c, inp, &mut w.high, start, m)
}

/// The string from `start` block by block; `first` holds the masks of the
/// first block (the fast path made them).
#[inline(always)]
fn string_slow<C: Classify>(
    c: C,
    inp: &Input<'_>,
    high_seen: &mut bool,
    start: usize,
    first: Masks,
) -> Option<(usize, bool)> {
    let mut i = start;
    let mut prev = 0u64;
    let mut hex_carry = 0u64;
    let mut high = 0u64;
    let mut any_bs = 0u64;
    let mut m = first;
    loop {
        let blk = inp.block(i);
        if i != start {
            m = c.classify(blk);
        }
        let escaped = find_escaped(m.backslash, &mut prev);
        let q = m.quote & !escaped;
        let region = q ^ q.wrapping_sub(1);
        let mut bad = m.ctrl;
        let esc_here = escaped | hex_carry;
        if esc_here & region != 0 {
            let e = c.classify_esc(blk);
            let u = escaped & e.u;
            bad |= escaped & !e.esc;
            // `\u` is rare (text is UTF-8 here, not `\uXXXX`): the hex digits
            // are checked only where one is.
            if u | hex_carry != 0 {
                let need_hex = (u << 1) | (u << 2) | (u << 3) | (u << 4) | hex_carry;
                bad |= need_hex & !e.hex;
                hex_carry = (u >> 60) | (u >> 61) | (u >> 62) | (u >> 63);
            }
        } else {
            hex_carry = 0;
        }
        if bad & region != 0 {
            return None;
        }
        high |= m.high & region;
        any_bs |= m.backslash & region;
        if q != 0 {
            let end = i + q.trailing_zeros() as usize;
            if high != 0 {
                *high_seen = true;
            }
            return Some((end + 1, any_bs != 0));
        }
        i += 64;
    }
}

/// The 64 bytes at `i`, or the bytes left padded with NUL.
#[inline(always)]
fn block_at<'a>(b: &'a [u8], i: usize, tail: &'a mut [u8; 64]) -> &'a [u8; 64] {
    match b.get(i..).and_then(|r| r.first_chunk::<64>()) {
        Some(blk) => blk,
        None => {
            *tail = [0u8; 64];
            let rest = b.get(i..).unwrap_or_default();
            tail[..rest.len()].copy_from_slice(rest);
            tail
        }
    }
}

/// Find the end of a string whose content starts at `start`, trusting the
/// bytes: the first quote not escaped by a backslash. Returns the index
/// after it and whether a backslash came before it, or `None` when the line
/// ends first.
#[inline(always)]
pub(crate) fn skip_string<C: Classify>(c: C, b: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut i = start;
    let mut prev = 0u64;
    let mut any_bs = 0u64;
    let mut tail = [0u8; 64];
    while i < b.len() {
        let blk = block_at(b, i, &mut tail);
        let m = c.classify(blk);
        let escaped = find_escaped(m.backslash, &mut prev);
        let q = m.quote & !escaped;
        if q != 0 {
            let end = i + q.trailing_zeros() as usize;
            if end >= b.len() {
                return None;
            }
            any_bs |= m.backslash & (q ^ (q - 1));
            return Some((end + 1, any_bs != 0));
        }
        any_bs |= m.backslash;
        i += 64;
    }
    None
}

#[inline(always)]
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if c > b' ' || !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        }
        i += 1;
    }
    i
}

/// End of a JSON number starting at `i` (grammar checked, any size).
#[inline(always)]
pub(crate) fn number(b: &[u8], mut i: usize) -> Option<usize> {
    if at(b, i) == b'-' {
        i += 1;
    }
    match at(b, i) {
        b'0' => i += 1,
        b'1'..=b'9' => {
            i += 1;
            while at(b, i).is_ascii_digit() {
                i += 1;
            }
        }
        _ => return None,
    }
    if at(b, i) == b'.' {
        i += 1;
        if !at(b, i).is_ascii_digit() {
            return None;
        }
        while at(b, i).is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(at(b, i), b'e' | b'E') {
        i += 1;
        if matches!(at(b, i), b'+' | b'-') {
            i += 1;
        }
        if !at(b, i).is_ascii_digit() {
            return None;
        }
        while at(b, i).is_ascii_digit() {
            i += 1;
        }
    }
    Some(i)
}

/// The first byte at or after `i` that is not JSON whitespace, and its
/// index (0 past the end). Minified JSON has no whitespace between tokens:
/// one compare decides.
#[inline(always)]
fn next(b: &[u8], i: usize) -> (usize, u8) {
    match b.get(i) {
        Some(&c) if c > b' ' => (i, c),
        _ => {
            let i = skip_ws(b, i);
            (i, at(b, i))
        }
    }
}

/// Past the separator `sep` (`:` or `,`) expected at `i`, whitespace
/// allowed around it: the next token's index and first byte, or the index
/// of the byte found instead of `sep`. Minified JSON (`":"`, `","`) takes
/// one bounds check and two compares.
#[inline(always)]
fn past(b: &[u8], i: usize, sep: u8) -> Result<(usize, u8), usize> {
    if i < b.len().saturating_sub(1) && b[i] == sep && b[i + 1] > b' ' {
        return Ok((i + 1, b[i + 1]));
    }
    let (j, s) = next(b, i);
    if s != sep {
        return Err(j);
    }
    Ok(next(b, j + 1))
}

/// An invalid line, the walk stopped at `at`.
#[inline(always)]
fn bad(at: usize) -> Outcome {
    Outcome::Invalid { depth: false, at }
}

/// [`FLAG`] when `set`.
#[inline(always)]
fn flag(set: bool) -> u32 {
    u32::from(set) << 31
}

/// The most slots [`validate`] makes before a line needs them (16 bytes
/// each: 256 KiB).
const MAX_ROOM: usize = 1 << 14;

/// Validate the whole line `b` and index it into `s`: into its slots (made
/// as many as the line could need at one node every 16 bytes, up to
/// [`MAX_ROOM`]), and when they are too few for the line, again into a
/// vector that grows (the slots are then as many as the line needed).
#[inline(always)]
pub(crate) fn validate<C: Classify>(c: C, s: &mut Scratch, b: &[u8]) -> Outcome {
    let Scratch {
        index,
        type_at,
        subtype_at,
        keys_plain,
        depth,
    } = s;
    let top = *depth == IndexDepth::TopLevel;
    // Room for a node every 16 bytes (these lines take one every 20 to 200):
    // a line longer than any before then fits without a second walk (one a
    // new longest line would cost, as often as the lines grow). Up to
    // `MAX_ROOM` nodes only: a long line is long for its strings (the
    // captures' and the generated corpora's lines of 64 KiB and more take
    // at most 4,929 nodes), and slots made are written, so room for every
    // 16 bytes of a 4 MiB line was 4 MiB of index touched for 10 nodes, in
    // every scanner that had read such a line. A line that needs more
    // walks again into a vector that grows, and the slots stay that many.
    let room = (b.len() / 16 + 64).min(MAX_ROOM);
    if index.nodes.len() < room {
        index.nodes.resize(room, Node::EMPTY);
    }
    let mut slots = Slots {
        slots: &mut index.nodes[..],
        len: 0,
    };
    let out = walk(c, &mut slots, type_at, subtype_at, keys_plain, top, b);
    index.len = slots.len;
    if out != Outcome::Full {
        return out;
    }
    // The top-level walk writes slots only: twice as many, again (a
    // member takes five bytes or more, so this ends). Written out rather
    // than folded into one loop with the first walk: that loop cost 0.8%
    // more instructions on archive lines and 1% on transcripts (callgrind,
    // `filter --count`, `stats`), from the layout of the inlined walk.
    if top {
        loop {
            let more = index.nodes.len() * 2;
            index.nodes.resize(more, Node::EMPTY);
            let mut slots = Slots {
                slots: &mut index.nodes[..],
                len: 0,
            };
            let out = walk(c, &mut slots, type_at, subtype_at, keys_plain, top, b);
            index.len = slots.len;
            if out != Outcome::Full {
                return out;
            }
        }
    }
    let nodes = &mut index.nodes;
    nodes.clear();
    let out = walk(c, nodes, type_at, subtype_at, keys_plain, top, b);
    index.len = nodes.len();
    nodes.resize(nodes.capacity(), Node::EMPTY);
    out
}

/// Push a node for a value starting at `start` (`key`: its key word, 0 for
/// an element); a container's second node, holding `parent`, too.
macro_rules! open {
    ($nodes:expr, $key:expr, $start:expr) => {{
        let Some(n) = $nodes.grow() else {
            return Err(Outcome::Full);
        };
        n.key = $key;
        n.start = $start as u32;
    }};
}

/// Where the top-level keys `type` and `subtype` are, noted by the walk for
/// the scanner (see [`Scratch`]).
pub(crate) struct Notes<'a> {
    type_at: &'a mut Option<u32>,
    subtype_at: &'a mut Option<u32>,
    keys_plain: &'a mut bool,
}

impl Notes<'_> {
    /// A top-level key from `ks` to `ke` (escaped or not) whose value's
    /// node is `me`.
    #[inline(always)]
    fn key(&mut self, b: &[u8], ks: usize, ke: usize, escaped: bool, me: u32) {
        let slot = match b.get(ks..ke) {
            _ if escaped => {
                *self.keys_plain = false;
                return;
            }
            Some(b"type") => &mut *self.type_at,
            Some(b"subtype") => &mut *self.subtype_at,
            _ => return,
        };
        if slot.is_some() {
            *self.keys_plain = false;
        }
        *slot = Some(me);
    }
}

/// Validate the whole line `b` and write its index into `nodes`.
#[inline(always)]
fn walk<C: Classify, S: Sink>(
    c: C,
    nodes: &mut S,
    type_at: &mut Option<u32>,
    subtype_at: &mut Option<u32>,
    keys_plain: &mut bool,
    top: bool,
    b: &[u8],
) -> Outcome {
    *type_at = None;
    *subtype_at = None;
    *keys_plain = true;
    if b.len() > MAX_LINE {
        return Outcome::TooLarge;
    }
    let mut notes = Notes {
        type_at,
        subtype_at,
        keys_plain,
    };
    let mut tail = [0u8; 128];
    let inp = Input::new(b, &mut tail);
    let mut win = Window::EMPTY;
    let (i, first) = next(b, 0);
    let end = match first {
        b'{' if top => match nodes.slots() {
            Some((slots, len)) => top::walk_top(c, &inp, &mut win, slots, len, &mut notes, i),
            None => return Outcome::Full,
        },
        b'{' => {
            // The root, node 0, and its second node (its own parent); its
            // end and `next` are set when it closes.
            let mut open = || {
                let n = nodes.grow()?;
                n.key = 0;
                n.start = i as u32;
                Some(())
            };
            if open().is_none() || open().is_none() {
                return Outcome::Full;
            }
            nested(c, &inp, &mut win, nodes, &mut notes, i, 0)
        }
        _ => root_value(c, &inp, &mut win, nodes, &mut notes, i),
    };
    match end {
        Ok(end) if skip_ws(b, end) != b.len() => bad(end),
        Ok(_) if !utf8(&inp, &win) => bad(0),
        Ok(_) if first == b'{' => Outcome::Object,
        Ok(_) => Outcome::NotObject,
        Err(stop) => stop,
    }
}

/// The line's strings are UTF-8 (checked on the whole line, once, when a
/// string held bytes of 0x80 and above).
#[inline(always)]
fn utf8(inp: &Input<'_>, win: &Window) -> bool {
    !win.high || simdutf8::basic::from_utf8(inp.b).is_ok()
}

/// A literal or a number starting with `v` at `i`: its end.
#[inline(always)]
fn scalar(b: &[u8], i: usize, v: u8) -> Option<usize> {
    match v {
        b't' => (b.get(i..i + 4) == Some(b"true")).then_some(i + 4),
        b'f' => (b.get(i..i + 5) == Some(b"false")).then_some(i + 5),
        b'n' => (b.get(i..i + 4) == Some(b"null")).then_some(i + 4),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

/// A root that is not an object, indexed (an event line fails, but
/// [`Scanner::validate`](super::Scanner::validate) reads any JSON value):
/// its end.
#[inline(never)]
fn root_value<C: Classify, S: Sink>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    nodes: &mut S,
    notes: &mut Notes<'_>,
    i: usize,
) -> Result<usize, Outcome> {
    let v = at(inp.b, i);
    open!(nodes, 0, i);
    if v == b'[' {
        open!(nodes, 0, i);
        return nested(c, inp, win, nodes, notes, i, 0);
    }
    let end = match v {
        b'"' => match string(c, inp, win, i + 1) {
            Some((end, esc)) => end as u32 | flag(esc),
            None => return Err(bad(i)),
        },
        _ => scalar(inp.b, i, v).ok_or(bad(i))? as u32,
    };
    if let Some(n) = nodes.get_mut(0) {
        n.end = end;
    }
    Ok((end & !FLAG) as usize)
}

/// Validate and index the container opening at `i` (`{` or `[`), whose two
/// nodes are the last of `nodes`, with `base` levels open around it (0 for
/// the root); returns the index after its closing bracket. Every value
/// inside gets its node; a container's end and `next` are set when it
/// closes; the root object's keys `type` and `subtype` are noted.
///
/// One loop for every level, the root's included: what it keeps in
/// registers is only the walk's (a loop of its own for the top level kept
/// more live across the walk of each of its values, and spilled them).
///
/// A value's node is written where the value starts (after its key and
/// colon, or after the comma or bracket before an element) with what is
/// known there, and completed where it ends: nothing about a key stays live
/// (in registers) while its value is crossed. The nodes are the walk's
/// stack: the innermost open container is `cur`, and a closing bracket goes
/// back to the parent its second node holds. Whether `cur` is an object is
/// kept in a register and read back from the line only when a container
/// closes.
#[inline(always)]
fn nested<C: Classify, S: Sink>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    nodes: &mut S,
    notes: &mut Notes<'_>,
    mut i: usize,
    base: usize,
) -> Result<usize, Outcome> {
    let b = inp.b;
    let mut depth = base + 1;
    let mut cur = nodes.len() as u32 - 2;
    let mut in_obj = at(b, i) == b'{';

    // `"key"` `:` at `i` (the quote checked by the caller): `i` becomes the
    // index of the value, whose node is written.
    macro_rules! key {
        () => {{
            let Some((kend, kesc)) = string(c, inp, win, i + 1) else {
                return Err(bad(i));
            };
            let ks = i + 1;
            i = match past(b, kend, b':') {
                Ok((j, _)) => j,
                Err(j) => return Err(bad(j)),
            };
            if cur == 0 {
                notes.key(b, ks, kend - 1, kesc, nodes.len() as u32);
            }
            open!(nodes, ks as u32 | flag(kesc), i);
        }};
    }
    // The value at `i` ended at `end` (with a string's flag): its node's
    // end.
    macro_rules! ended {
        ($end:expr) => {{
            let end: u32 = $end;
            let last = nodes.len().wrapping_sub(1);
            if let Some(n) = nodes.get_mut(last) {
                n.end = end;
            }
            i = (end & !FLAG) as usize;
        }};
    }
    // The container `cur` just closed (`i` past its bracket): back to its
    // parent, or done.
    macro_rules! close {
        () => {{
            let len = nodes.len() as u32;
            let Some(n) = nodes.get_mut(cur as usize) else {
                return Err(bad(i));
            };
            n.end = i as u32;
            n.next = len;
            depth -= 1;
            if depth == base {
                return Ok(i);
            }
            cur = nodes.get(cur as usize + 1).map_or(0, |p| p.key);
            let open = nodes.get(cur as usize).map_or(0, |p| p.start as usize);
            in_obj = at(b, open) == b'{';
        }};
    }

    // Past the opening bracket: the loop takes it from there as if a value
    // had ended (a comma right after it is not JSON).
    let (j, t) = next(b, i + 1);
    if t == b',' {
        return Err(bad(j));
    }
    i = j;
    loop {
        // Between values: past one, or past an opening bracket (then the
        // container's second node is the last). Each of key, element and
        // close has one place in the loop.
        let (j, t) = match past(b, i, b',') {
            Ok(next) => next,
            Err(j) => {
                let t = at(b, j);
                if t == if in_obj { b'}' } else { b']' } {
                    i = j + 1;
                    close!();
                    continue;
                }
                if nodes.len() != cur as usize + 2 {
                    return Err(bad(j));
                }
                (j, t)
            }
        };
        i = j;
        if in_obj {
            if t != b'"' {
                return Err(bad(i));
            }
            key!();
        } else {
            open!(nodes, 0, i);
        }
        // The value at `i`; its node is the last.
        let v = at(b, i);
        let end = if v == b'"' {
            let Some((end, esc)) = string(c, inp, win, i + 1) else {
                return Err(bad(i));
            };
            end as u32 | flag(esc)
        } else if v == b'{' || v == b'[' {
            if depth >= MAX_DEPTH {
                return Err(Outcome::Invalid { depth: true, at: i });
            }
            let me = nodes.len() as u32 - 1;
            // Its second node: its parent.
            open!(nodes, cur, i);
            cur = me;
            in_obj = v == b'{';
            depth += 1;
            let (j, t) = next(b, i + 1);
            if t == b',' {
                return Err(bad(j));
            }
            i = j;
            continue;
        } else {
            let Some(end) = scalar(b, i, v) else {
                return Err(bad(i));
            };
            end as u32
        };
        ended!(end);
    }
}
