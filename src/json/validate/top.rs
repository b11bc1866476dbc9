//! The walk that indexes the top level only ([`IndexDepth::TopLevel`]):
//! the same grammar, UTF-8 and depth checks as the full walk, but nodes are
//! written for the root and its members alone. A member that is a container
//! gets its two nodes with its end flagged [`FLAG`] ("sealed": its inside is
//! not indexed), and [`Value`](crate::json::Value) reads such a container
//! from its validated bytes. Below the top level the walk keeps its open
//! containers in a stack of 1024 bits and writes nothing.
//!
//! This is what classification costs: a command that reads only `type`,
//! `subtype` and top-level fields pays for no node it never reads
//! (BENCHMARKS.md, "The structural index").
//!
//! [`IndexDepth::TopLevel`]: crate::json::IndexDepth::TopLevel

use super::super::MAX_DEPTH;
use super::super::index::{FLAG, Node};
use super::{
    Classify, Input, Notes, Outcome, Window, at, bad, flag, next, past, scalar, skip_ws, string,
};

/// Validate the line `b`, whose root object opens at `i`, writing nodes for
/// the root and its members into `nodes`: the end of the root's closing
/// bracket, or how the walk stopped.
#[inline(always)]
pub(super) fn walk_top<C: Classify>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    slots: &mut [Node],
    len: &mut usize,
    notes: &mut Notes<'_>,
    i: usize,
) -> Result<usize, Outcome> {
    let mut nodes = Local { slots, len: 0 };
    let out = members(c, inp, win, &mut nodes, notes, i);
    *len = nodes.len;
    out
}

/// The slots with their count in a local (a register through the walk,
/// stored once at its end).
struct Local<'a> {
    slots: &'a mut [Node],
    len: usize,
}

impl Local<'_> {
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
    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> Option<&mut Node> {
        self.slots.get_mut(i)
    }
}

#[inline(always)]
fn members<C: Classify>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    nodes: &mut Local<'_>,
    notes: &mut Notes<'_>,
    mut i: usize,
) -> Result<usize, Outcome> {
    let b = inp.b;
    let mut stack = [0u64; MAX_DEPTH / 64];
    // The root, node 0, and its second node (its own parent).
    for _ in 0..2 {
        let Some(n) = nodes.grow() else {
            return Err(Outcome::Full);
        };
        n.key = 0;
        n.start = i as u32;
    }
    let (j, mut t) = next(b, i + 1);
    i = j;
    if t == b'}' {
        i += 1;
    } else {
        loop {
            if t != b'"' {
                return Err(bad(i));
            }
            let ks = i + 1;
            let Some((kend, kesc)) = string(c, inp, win, ks) else {
                return Err(bad(i));
            };
            let (vstart, v) = match past(b, kend, b':') {
                Ok(next) => next,
                Err(j) => return Err(bad(j)),
            };
            i = vstart;
            let me = nodes.len();
            notes.key(b, ks, kend - 1, kesc, me as u32);
            // The member's node goes in before its value is crossed, its end
            // set after: nothing about the key stays live (in registers)
            // through the crossing.
            let Some(n) = nodes.grow() else {
                return Err(Outcome::Full);
            };
            n.key = ks as u32 | flag(kesc);
            n.start = vstart as u32;
            let end = match v {
                b'"' => {
                    let Some((end, esc)) = string(c, inp, win, i + 1) else {
                        return Err(bad(i));
                    };
                    i = end;
                    end as u32 | flag(esc)
                }
                b'{' | b'[' => {
                    // Its second node: the root, its parent.
                    let Some(p) = nodes.grow() else {
                        return Err(Outcome::Full);
                    };
                    p.key = 0;
                    p.start = vstart as u32;
                    i = skip(c, inp, win, &mut stack, i, 1)?;
                    if let Some(n) = nodes.get_mut(me) {
                        n.next = me as u32 + 2;
                    }
                    i as u32 | FLAG
                }
                _ => {
                    let Some(end) = scalar(b, i, v) else {
                        return Err(bad(i));
                    };
                    i = end;
                    end as u32
                }
            };
            if let Some(n) = nodes.get_mut(me) {
                n.end = end;
            }
            match past(b, i, b',') {
                Ok((j, k)) => {
                    i = j;
                    t = k;
                }
                Err(j) if at(b, j) == b'}' => {
                    i = j + 1;
                    break;
                }
                Err(j) => return Err(bad(j)),
            }
        }
    }
    let len = nodes.len() as u32;
    if let Some(root) = nodes.get_mut(0) {
        root.end = i as u32;
        root.next = len;
    }
    debug_assert!(skip_ws(b, 0) <= i);
    Ok(i)
}

/// Validate the container opening at `i` (`{` or `[`) with `base` levels
/// already open, indexing nothing; returns the index after its closing
/// bracket. Whether the innermost open container is an object is kept in a
/// register and read back from the bit stack only when one closes.
#[inline(always)]
fn skip<C: Classify>(
    c: C,
    inp: &Input<'_>,
    win: &mut Window,
    stack: &mut [u64; MAX_DEPTH / 64],
    mut i: usize,
    base: usize,
) -> Result<usize, Outcome> {
    let b = inp.b;
    let mut depth = base;
    let mut in_obj = false;

    // `"key"` `:` at `i` (the quote checked by the caller): `i` becomes the
    // index of the value.
    macro_rules! key {
        () => {{
            let Some((kend, _)) = string(c, inp, win, i + 1) else {
                return Err(bad(i));
            };
            i = match past(b, kend, b':') {
                Ok((j, _)) => j,
                Err(j) => return Err(bad(j)),
            };
        }};
    }
    // The container just closed (`i` past its bracket): back to its parent,
    // or done.
    macro_rules! close {
        () => {{
            depth -= 1;
            if depth == base {
                return Ok(i);
            }
            // `depth` is below MAX_DEPTH here: the word is in the stack.
            in_obj = stack[(depth - 1) / 64] & (1u64 << ((depth - 1) % 64)) != 0;
        }};
    }

    'value: loop {
        let v = at(b, i);
        if v == b'"' {
            let Some((end, _)) = string(c, inp, win, i + 1) else {
                return Err(bad(i));
            };
            i = end;
        } else if v == b'{' || v == b'[' {
            if depth >= MAX_DEPTH {
                return Err(Outcome::Invalid { depth: true, at: i });
            }
            in_obj = v == b'{';
            // Below MAX_DEPTH (checked above): the word is in the stack.
            let (w, bit) = (depth / 64, 1u64 << (depth % 64));
            if in_obj {
                stack[w] |= bit;
            } else {
                stack[w] &= !bit;
            }
            depth += 1;
            let (j, t) = next(b, i + 1);
            i = j;
            if in_obj {
                if t == b'"' {
                    key!();
                    continue 'value;
                }
                if t != b'}' {
                    return Err(bad(i));
                }
            } else if t != b']' {
                continue 'value;
            }
            i += 1;
            close!();
        } else {
            i = match scalar(b, i, v) {
                Some(end) => end,
                None => return Err(bad(i)),
            };
        }
        // A value ends at `i`.
        loop {
            match past(b, i, b',') {
                Ok((j, t)) => {
                    i = j;
                    if in_obj {
                        if t != b'"' {
                            return Err(bad(i));
                        }
                        key!();
                    }
                    continue 'value;
                }
                Err(j) => {
                    i = j;
                    if at(b, i) != if in_obj { b'}' } else { b']' } {
                        return Err(bad(i));
                    }
                    i += 1;
                    close!();
                }
            }
        }
    }
}
