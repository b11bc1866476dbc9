//! Many paths in one walk: a set of dotted paths kept as a tree of steps
//! (sonic-rs's `PointerTree`), filled by [`Value::get_many`].
//!
//! A fold that wants a dozen fields of a line asks once: the tree is built
//! once (the only allocation), and each line's walk crosses each object on
//! the way once, comparing each member's key with the steps wanted there
//! and leaving the object when all of them are found.

use super::number::ValueKind;
use super::value::Value;
use std::fmt;

/// One step of the tree: a key (or an array index) below its parent step.
#[derive(Clone, Debug)]
struct Step {
    /// The step's text, in `Paths::text`.
    text: (u32, u32),
    /// The text as an array index, when it reads as one.
    index: Option<usize>,
    /// The paths (their positions in the input) that end here, in
    /// `Paths::slots`.
    slots: (u32, u32),
    /// The steps below this one, in `Paths::steps`.
    children: (u32, u32),
}

/// A set of paths to read from a [`Value`] in one walk with
/// [`Value::get_many`]: dotted, as [`Value::get_path`] takes them (keys,
/// and array indexes as numbers).
///
/// ```
/// use cctape::json::Paths;
///
/// let paths = Paths::new(["message.id", "message.usage.output_tokens", "session_id"]);
/// assert_eq!(paths.len(), 3);
/// assert_eq!(paths.path(1), Some("message.usage.output_tokens"));
/// ```
#[derive(Clone)]
pub struct Paths {
    /// Step 0 is the root (the empty path); a step's children are
    /// contiguous.
    steps: Vec<Step>,
    text: String,
    slots: Vec<u32>,
    /// Each path as given.
    paths: Vec<(u32, u32)>,
}

impl fmt::Debug for Paths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((0..self.len()).filter_map(|k| self.path(k)))
            .finish()
    }
}

/// A step of the tree while it is built.
struct Building {
    text: String,
    slots: Vec<u32>,
    children: Vec<usize>,
}

/// How many steps below one step a walk tells apart with a bit each; the
/// others are read with [`Value::get`] after it.
const WIDE: usize = 64;

impl Paths {
    /// The tree of `paths`, each dotted (`"message.usage.output_tokens"`;
    /// the empty path is the value itself). A path may be given twice, and
    /// one may be a prefix of another.
    ///
    /// ```
    /// let paths = cctape::json::Paths::new(["a.b", "a", "a.b", "c.0"]);
    /// assert_eq!(paths.len(), 4);
    /// ```
    pub fn new<'p>(paths: impl IntoIterator<Item = &'p str>) -> Paths {
        let mut tree = vec![Building {
            text: String::new(),
            slots: Vec::new(),
            children: Vec::new(),
        }];
        let mut all = String::new();
        let mut spans = Vec::new();
        for (k, path) in paths.into_iter().enumerate() {
            let start = all.len() as u32;
            all.push_str(path);
            spans.push((start, all.len() as u32));
            let mut at = 0;
            if !path.is_empty() {
                for part in path.split('.') {
                    let found = tree[at]
                        .children
                        .iter()
                        .copied()
                        .find(|&c| tree[c].text == part);
                    at = match found {
                        Some(c) => c,
                        None => {
                            tree.push(Building {
                                text: part.to_owned(),
                                slots: Vec::new(),
                                children: Vec::new(),
                            });
                            let c = tree.len() - 1;
                            tree[at].children.push(c);
                            c
                        }
                    };
                }
            }
            tree[at].slots.push(k as u32);
        }
        // Breadth first, so that each step's children are contiguous.
        let mut order = vec![0usize];
        let mut i = 0;
        while i < order.len() {
            order.extend(tree[order[i]].children.iter().copied());
            i += 1;
        }
        let mut place = vec![0u32; tree.len()];
        for (p, &t) in order.iter().enumerate() {
            place[t] = p as u32;
        }
        let mut text = all;
        let mut slots = Vec::new();
        let mut steps = Vec::with_capacity(order.len());
        for &t in &order {
            let b = &tree[t];
            let ts = text.len() as u32;
            text.push_str(&b.text);
            let ss = slots.len() as u32;
            slots.extend_from_slice(&b.slots);
            let children = match (b.children.first(), b.children.last()) {
                (Some(&f), Some(&l)) => (place[f], place[l] + 1),
                _ => (0, 0),
            };
            steps.push(Step {
                text: (ts, text.len() as u32),
                index: b.text.parse().ok(),
                slots: (ss, slots.len() as u32),
                children,
            });
        }
        Paths {
            steps,
            text,
            slots,
            paths: spans,
        }
    }

    /// How many paths were given.
    ///
    /// ```
    /// assert_eq!(cctape::json::Paths::new(["a", "b.c"]).len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// True when no path was given.
    ///
    /// ```
    /// assert!(cctape::json::Paths::new([]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The `k`th path as given.
    ///
    /// ```
    /// let paths = cctape::json::Paths::new(["a", "b.c"]);
    /// assert_eq!(paths.path(1), Some("b.c"));
    /// assert_eq!(paths.path(2), None);
    /// ```
    pub fn path(&self, k: usize) -> Option<&str> {
        let &(s, e) = self.paths.get(k)?;
        self.text.get(s as usize..e as usize)
    }

    fn text_of(&self, s: &Step) -> &str {
        self.text
            .get(s.text.0 as usize..s.text.1 as usize)
            .unwrap_or_default()
    }

    fn children(&self, s: &Step) -> &[Step] {
        self.steps
            .get(s.children.0 as usize..s.children.1 as usize)
            .unwrap_or_default()
    }

    /// Fill `out` with the value at each path below `v` (see
    /// [`Value::get_many`]).
    pub(crate) fn fill<'a>(&self, v: Value<'a>, out: &mut [Option<Value<'a>>]) {
        assert!(
            out.len() >= self.len(),
            "get_many: {} slots for {} paths",
            out.len(),
            self.len()
        );
        out.fill(None);
        if let Some(root) = self.steps.first() {
            self.visit(v, root, out);
        }
    }

    fn visit<'a>(&self, v: Value<'a>, step: &Step, out: &mut [Option<Value<'a>>]) {
        for &k in self
            .slots
            .get(step.slots.0 as usize..step.slots.1 as usize)
            .unwrap_or_default()
        {
            if let Some(slot) = out.get_mut(k as usize) {
                *slot = Some(v);
            }
        }
        let kids = self.children(step);
        if kids.is_empty() {
            return;
        }
        match v.kind() {
            ValueKind::Object => {
                // One bit a step wanted here: set once its first occurrence
                // is found (later duplicates are passed over, as `get` does).
                let narrow = kids.len().min(WIDE);
                let all = if narrow == WIDE {
                    u64::MAX
                } else {
                    (1u64 << narrow) - 1
                };
                let mut seen = 0u64;
                for (key, child) in v.entries().raw() {
                    for (c, s) in kids[..narrow].iter().enumerate() {
                        if seen & (1 << c) == 0 && key.str_eq(self.text_of(s)) {
                            seen |= 1 << c;
                            self.visit(child, s, out);
                            break;
                        }
                    }
                    if seen == all {
                        break;
                    }
                }
                for s in &kids[narrow..] {
                    if let Some(child) = v.get(self.text_of(s)) {
                        self.visit(child, s, out);
                    }
                }
            }
            ValueKind::Array => {
                let Some(last) = kids.iter().filter_map(|s| s.index).max() else {
                    return;
                };
                for (i, e) in v.elements().enumerate().take(last + 1) {
                    for s in kids.iter().filter(|s| s.index == Some(i)) {
                        self.visit(e, s, out);
                    }
                }
            }
            _ => {}
        }
    }
}
