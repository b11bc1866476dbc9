//! The tape's own value: a borrowed JSON value inside a parsed line.

use super::Ctx;
use crate::json::number::{Number, ValueKind};
use simd_json::{Node, StaticNode};
use std::fmt;

/// A borrowed JSON value inside a parsed line. Cheap to copy.
///
/// Strings are already unescaped (a lone surrogate escape reads as U+FFFD).
/// In an object with a key given twice, lookups find the first occurrence.
#[derive(Clone, Copy)]
pub(crate) struct Value<'d> {
    pub(super) nodes: &'d [Node<'d>],
    pub(super) ctx: &'d Ctx<'d>,
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            ValueKind::Null => f.write_str("null"),
            ValueKind::Bool => write!(f, "{}", self.as_bool().unwrap_or_default()),
            ValueKind::Number => write!(f, "{:?}", self.number()),
            ValueKind::String => write!(f, "{:?}", self.as_str().unwrap_or_default()),
            ValueKind::Array => f.debug_list().entries(self.elements()).finish(),
            ValueKind::Object => f.debug_map().entries(self.entries()).finish(),
        }
    }
}

#[inline]
fn span(node: &Node<'_>) -> usize {
    match node {
        Node::Object { count, .. } | Node::Array { count, .. } => count + 1,
        _ => 1,
    }
}

impl<'d> Value<'d> {
    #[inline]
    fn head(&self) -> &'d Node<'d> {
        // Every Value is built from a non-empty slice: the root of a parsed
        // object, or a child located by walking the tape.
        &self.nodes[0]
    }

    #[inline]
    fn at(&self, i: usize) -> Value<'d> {
        let n = span(&self.nodes[i]);
        Value {
            nodes: &self.nodes[i..i + n],
            ctx: self.ctx,
        }
    }

    /// The JSON type of this value.
    pub(crate) fn kind(&self) -> ValueKind {
        match self.head() {
            Node::String(_) if self.big_text().is_some() => ValueKind::Number,
            Node::String(_) => ValueKind::String,
            Node::Object { .. } => ValueKind::Object,
            Node::Array { .. } => ValueKind::Array,
            Node::Static(StaticNode::Null) => ValueKind::Null,
            Node::Static(StaticNode::Bool(_)) => ValueKind::Bool,
            Node::Static(_) => ValueKind::Number,
        }
    }

    /// True for `null`.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self.head(), Node::Static(StaticNode::Null))
    }

    /// The text of an out-of-range number that the parser stored as a
    /// placeholder string.
    fn big_text(&self) -> Option<&'d str> {
        if self.ctx.bigs.is_empty() {
            return None;
        }
        let Node::String(s) = self.head() else {
            return None;
        };
        let start = (s.as_ptr() as usize)
            .checked_sub(self.ctx.base)?
            .checked_sub(1)?;
        self.ctx.bigs.binary_search(&(start as u32)).ok()?;
        let text = self.ctx.raw.get(start..start + s.len() + 2)?;
        std::str::from_utf8(text).ok()
    }

    /// The string, if this is a string.
    #[inline]
    pub(crate) fn as_str(&self) -> Option<&'d str> {
        match self.head() {
            Node::String(s) if self.ctx.bigs.is_empty() || self.big_text().is_none() => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is `true` or `false`.
    #[inline]
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self.head() {
            Node::Static(StaticNode::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub(crate) fn number(&self) -> Option<Number<'d>> {
        match self.head() {
            Node::Static(StaticNode::U64(v)) => Some(Number::U64(*v)),
            Node::Static(StaticNode::I64(v)) if *v >= 0 => Some(Number::U64(*v as u64)),
            Node::Static(StaticNode::I64(v)) => Some(Number::I64(*v)),
            Node::Static(StaticNode::F64(v)) => Some(Number::F64(*v)),
            Node::String(_) => self.big_text().map(Number::Big),
            _ => None,
        }
    }

    /// The number as u64, if it is an integer that fits.
    #[inline]
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self.head() {
            Node::Static(StaticNode::U64(v)) => Some(*v),
            Node::Static(StaticNode::I64(v)) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// The number as i64, if it is an integer that fits.
    #[inline]
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self.head() {
            Node::Static(StaticNode::U64(v)) => i64::try_from(*v).ok(),
            Node::Static(StaticNode::I64(v)) => Some(*v),
            _ => None,
        }
    }

    /// Any number as f64.
    #[inline]
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self.head() {
            Node::Static(StaticNode::F64(v)) => Some(*v),
            Node::Static(StaticNode::U64(v)) => Some(*v as f64),
            Node::Static(StaticNode::I64(v)) => Some(*v as f64),
            _ => self.number().map(Number::to_f64),
        }
    }

    /// Number of elements (array) or entries (object); 0 otherwise.
    pub(crate) fn len(&self) -> usize {
        match self.head() {
            Node::Object { len, .. } | Node::Array { len, .. } => *len,
            _ => 0,
        }
    }

    /// The value of `key` in this object (the first, if given twice).
    #[inline]
    pub(crate) fn get(&self, key: &str) -> Option<Value<'d>> {
        let Node::Object { len, .. } = self.head() else {
            return None;
        };
        let mut i = 1;
        for _ in 0..*len {
            let k = match self.nodes.get(i)? {
                Node::String(k) => *k,
                _ => return None,
            };
            let n = span(self.nodes.get(i + 1)?);
            if k == key {
                return Some(Value {
                    nodes: &self.nodes[i + 1..i + 1 + n],
                    ctx: self.ctx,
                });
            }
            i += 1 + n;
        }
        None
    }

    /// The `i`th element of this array.
    pub(crate) fn index(&self, idx: usize) -> Option<Value<'d>> {
        let Node::Array { len, .. } = self.head() else {
            return None;
        };
        if idx >= *len {
            return None;
        }
        self.elements().nth(idx)
    }

    /// The entries of this object in their order (duplicates included);
    /// empty for anything else.
    pub(crate) fn entries(&self) -> Entries<'d> {
        let (left, i) = match self.head() {
            Node::Object { len, .. } => (*len, 1),
            _ => (0, 1),
        };
        Entries { v: *self, i, left }
    }

    /// The elements of this array; empty for anything else.
    pub(crate) fn elements(&self) -> ArrayElements<'d> {
        let left = match self.head() {
            Node::Array { len, .. } => *len,
            _ => 0,
        };
        ArrayElements {
            v: *self,
            i: 1,
            left,
        }
    }

    /// Note that a typed read found the wrong JSON type here. Views call
    /// this; [`Document::type_mismatches`](super::Document::type_mismatches)
    /// reports the count.
    pub(crate) fn note_mismatch(&self) {
        self.ctx
            .mismatches
            .set(self.ctx.mismatches.get().saturating_add(1));
    }
}

/// Iterator over an object's `(key, value)` pairs; from [`Value::entries`].
#[derive(Clone)]
pub(crate) struct Entries<'d> {
    v: Value<'d>,
    i: usize,
    left: usize,
}

impl<'d> Iterator for Entries<'d> {
    type Item = (&'d str, Value<'d>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = match self.v.nodes.get(self.i)? {
            Node::String(k) => *k,
            _ => return None,
        };
        let val = self.v.at(self.i + 1);
        self.i += 1 + val.nodes.len();
        Some((key, val))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

/// Iterator over the elements of a parsed array; from [`Value::elements`]
/// (the elements of an array still in bytes are [`crate::elements::Elements`]).
#[derive(Clone)]
pub(crate) struct ArrayElements<'d> {
    v: Value<'d>,
    i: usize,
    left: usize,
}

impl<'d> Iterator for ArrayElements<'d> {
    type Item = Value<'d>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 || self.i >= self.v.nodes.len() {
            return None;
        }
        self.left -= 1;
        let val = self.v.at(self.i);
        self.i += val.nodes.len();
        Some(val)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}
