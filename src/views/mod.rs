//! Views: one typed, borrowed view per event kind of the field reference.
//!
//! A view is a small `Copy` struct around the event's [`Value`] with one
//! accessor per field that the reference's TypeScript definitions give
//! (nested objects included, each with its own view), plus the fields real
//! streams carry beyond it (see `shared/realworld/README.md`). Reach one by
//! matching [`Event::view`] or with an `as_*` shortcut:
//!
//! ```
//! use cctape::SliceEvents;
//! use cctape::views::{Block, View};
//!
//! let input = br#"{"type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-5-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":2,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"s1"}
//! {"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.01,"modelUsage":{"claude-sonnet-5-5":{"costUSD":0.01}}}
//! "#;
//! let mut events = SliceEvents::new(input);
//! let mut commands = Vec::new();
//! let mut cost = None;
//! while let Some(Ok(ev)) = events.next_event() {
//!     match ev.view() {
//!         View::Assistant(a) => {
//!             if let Some(Block::ToolUse(t)) = a.block() {
//!                 let input = t.tool_input().and_then(|i| i.command());
//!                 commands.push(input.unwrap_or_default().to_owned());
//!             }
//!         }
//!         View::Result(r) => {
//!             cost = r.total_cost_usd();
//!             let per_model: f64 = r.model_usage().into_iter().flatten().filter_map(|(_, m)| m.cost_usd()).sum();
//!             assert_eq!(cost, Some(per_model));
//!         }
//!         _ => {}
//!     }
//! }
//! assert_eq!(commands, ["ls"]);
//! assert_eq!(cost, Some(0.01));
//! ```
//!
//! **Conventions.**
//! - Accessors are named after their JSON key in snake_case
//!   (`permission_mode()` reads `permissionMode`, `type_()` reads `type`);
//!   each one's doc starts with the key.
//! - Every accessor returns `Option` (real streams omit even fields the
//!   reference always shows); a field the reference types `| null` returns a
//!   [`Field`] that tells null from missing. A value of the wrong JSON type
//!   reads as absent (and is counted on the line over a tape,
//!   [`Document::type_mismatches`](crate::json::tape::Document::type_mismatches));
//!   nothing panics.
//! - Nothing allocates: strings are `&str` into the line (or, for a string
//!   holding an escape, into the arena of the line's buffer,
//!   [`Strings`](crate::json::Strings)), arrays are
//!   [`Array`] iterators, maps (`modelUsage`, `wire_tool_inputs`, `by_type`,
//!   `startup_timing.phases`) are [`Map`] iterators with a `get(key)`.
//! - Enumerated strings (`stop_reason`, `terminal_reason`, `task_type`, ...)
//!   are `&str`: real streams carry values the reference does not list.
//! - Every view has `value()` (the raw object, for any field through the
//!   generic accessor), `unknown_fields()` (the keys its [`ObjectView::KNOWN`]
//!   list does not name: what a drift census counts), `visit_all()` (calls
//!   every accessor and walks nested views, reporting to a [`Visitor`]) and
//!   `to_owned_json()` (an owned [`serde_json::Value`] that outlives the line;
//!   see [`to_json`] for how numbers are rendered).

use crate::event::{Event, EventKind, Field};
use crate::json::{Elements as ArrayElements, Entries, Tabled, Value, ValueKind};
use std::fmt;
use std::marker::PhantomData;

/// Defines an object view: the struct, one accessor per field, the known-key
/// list, `visit_all` and the `Answer` impl, all from one field table.
///
/// Field kinds: `opt T` (`Option<T>`), `null T` (`Field<T>`), `arr T`
/// (`Option<Array<T>>`), `nullarr T` (`Field<Array<T>>`), `map T`
/// (`Option<Map<T>>`). A field marked `[extra]` is one real streams carry
/// that the reference does not define (listed in `EXTRA`).
macro_rules! view {
    (
        $(#[$m:meta])*
        struct $name:ident = $label:literal, open = $open:literal;
        $(
            $(#[$fm:meta])*
            $([$extra:ident])? $method:ident : $key:literal => $how:ident $ty:ty
        ),* $(,)?
        $(; calls [$($helper:ident),* $(,)?])?
    ) => {
        $(#[$m])*
        #[derive(Clone, Copy)]
        pub struct $name<'d>(Value<'d>);

        impl<'d> $name<'d> {
            /// Wrap a value as this view (no check; accessors on a value that
            /// is not an object read as absent).
            #[inline]
            pub fn new(value: Value<'d>) -> Self {
                $name(value)
            }

            $(
                #[doc = concat!("`", $key, "`: ")]
                $(#[$fm])*
                #[inline]
                pub fn $method(&self) -> view!(@ret $how $ty) {
                    view!(@read $how self.0, $key)
                }
            )*

            /// The raw object, for any field through the generic accessor.
            #[inline]
            pub fn value(&self) -> Value<'d> {
                self.0
            }

            /// The fields this view has no accessor for, in line order.
            #[inline]
            pub fn unknown_fields(&self) -> UnknownFields<'d> {
                UnknownFields::new(self.0, <Self as ObjectView<'d>>::KNOWN)
            }

            /// Call every accessor, walk every nested view, and report each
            /// field and each unknown field to `vis`. Allocates nothing.
            ///
            /// The object's members are found in one walk (a table of
            /// where each known key is), so that a wide object costs one
            /// walk, not one per accessor; each field then reads what its
            /// accessor reads.
            pub fn visit_all(&self, vis: &mut dyn Visitor<'d>) {
                const KEYS: [&str; <[&str]>::len(&[$($key),*])] = [$($key),*];
                // Whether the walk met a key no accessor reads.
                let others = std::cell::Cell::new(false);
                let table = Tabled::new(self.0, &KEYS, |k| {
                    let at = KEYS.iter().position(|x| x.as_bytes() == k);
                    others.set(others.get() || at.is_none());
                    at
                });
                let mut _slot = 0;
                let readings = vis.readings();
                $(
                    {
                        let raw = table.get(_slot);
                        _slot += 1;
                        if readings {
                            let r: view!(@ret $how $ty) = view!(@from $how raw);
                            vis.field(self.0, $key, raw, &r);
                            r.walk($key, vis);
                        } else {
                            view!(@presence $how $ty, self.0, $key, raw, vis);
                        }
                    }
                )*
                // The view's helpers too, for a visitor that wants readings
                // (one that does not is told nothing of them).
                if readings {
                    $($( std::hint::black_box(self.$helper()); )*)?
                }
                // The walk that lists unknown fields only when the table's
                // walk met a key it does not name.
                if !$open && vis.wants_unknown() && (others.get() || !table.walked()) {
                    for (k, v) in self.unknown_fields() {
                        vis.unknown(self.0, k, v);
                    }
                }
            }

            /// An owned copy of the whole object (see [`to_json`]).
            pub fn to_owned_json(&self) -> serde_json::Value {
                to_json(self.0)
            }
        }

        impl<'d> ObjectView<'d> for $name<'d> {
            const NAME: &'static str = $label;
            const KNOWN: &'static [&'static str] = &[$($key),*];
            const EXTRA: &'static [&'static str] = &[$($(view!(@extra $extra $key),)?)*];
            const OPEN: bool = $open;
            #[inline]
            fn wrap(value: Value<'d>) -> Self {
                $name(value)
            }
            #[inline]
            fn value(&self) -> Value<'d> {
                self.0
            }
            fn visit_all(&self, vis: &mut dyn Visitor<'d>) {
                $name::visit_all(self, vis)
            }
        }

        impl<'d> FromValue<'d> for $name<'d> {
            #[inline]
            fn from_value(v: Value<'d>) -> Option<Self> {
                (v.kind() == ValueKind::Object).then_some($name(v))
            }
        }

        impl<'d> Answer<'d> for $name<'d> {
            fn is_present(&self) -> bool {
                true
            }
            fn to_json(&self) -> Option<serde_json::Value> {
                Some(to_json(self.0))
            }
            fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
                vis.enter(key, $label, self.0);
                self.visit_all(vis);
                vis.leave();
            }
        }

        impl fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0).finish()
            }
        }
    };
    (@extra extra $key:literal) => { $key };
    (@ret opt $ty:ty) => { Option<$ty> };
    (@ret null $ty:ty) => { Field<$ty> };
    (@ret arr $ty:ty) => { Option<Array<'d, $ty>> };
    (@ret nullarr $ty:ty) => { Field<Array<'d, $ty>> };
    (@ret map $ty:ty) => { Option<Map<'d, $ty>> };
    (@read $how:ident $v:expr, $key:literal) => { view!(@from $how $v.get($key)) };
    (@presence opt $ty:ty, $obj:expr, $key:literal, $raw:expr, $vis:expr) => {
        presence::<$ty>($obj, $key, $raw, false, $vis)
    };
    (@presence null $ty:ty, $obj:expr, $key:literal, $raw:expr, $vis:expr) => {
        presence::<$ty>($obj, $key, $raw, true, $vis)
    };
    (@presence arr $ty:ty, $obj:expr, $key:literal, $raw:expr, $vis:expr) => {
        presence::<Array<'d, $ty>>($obj, $key, $raw, false, $vis)
    };
    (@presence nullarr $ty:ty, $obj:expr, $key:literal, $raw:expr, $vis:expr) => {
        presence::<Array<'d, $ty>>($obj, $key, $raw, true, $vis)
    };
    (@presence map $ty:ty, $obj:expr, $key:literal, $raw:expr, $vis:expr) => {
        presence::<Map<'d, $ty>>($obj, $key, $raw, false, $vis)
    };
    (@from opt $raw:expr) => { read_opt($raw) };
    (@from null $raw:expr) => { read_field($raw) };
    (@from arr $raw:expr) => { read_array($raw) };
    (@from nullarr $raw:expr) => { read_null_array($raw) };
    (@from map $raw:expr) => { read_map($raw) };
}

/// Implements `FromValue` (objects only, dispatched by `type`), `Answer`,
/// `value`, `unknown_fields`, `visit_all` and `to_owned_json` for an enum of
/// views whose every variant wraps an object view.
macro_rules! view_enum {
    ($name:ident { $($var:ident),* $(,)? }) => {
        impl<'d> $name<'d> {
            /// The raw object.
            pub fn value(&self) -> Value<'d> {
                match self { $($name::$var(v) => v.value(),)* }
            }
            /// The fields the variant's view does not know.
            pub fn unknown_fields(&self) -> UnknownFields<'d> {
                match self { $($name::$var(v) => v.unknown_fields(),)* }
            }
            /// Call every accessor of the variant's view (see [`Visitor`]).
            pub fn visit_all(&self, vis: &mut dyn Visitor<'d>) {
                match self { $($name::$var(v) => v.visit_all(vis),)* }
            }
            /// An owned copy (see [`to_json`]).
            pub fn to_owned_json(&self) -> serde_json::Value {
                to_json(self.value())
            }
        }

        impl<'d> Answer<'d> for $name<'d> {
            fn is_present(&self) -> bool {
                true
            }
            fn to_json(&self) -> Option<serde_json::Value> {
                Some(to_json(self.value()))
            }
            fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
                match self { $($name::$var(v) => v.walk(key, vis),)* }
            }
        }
    };
}

mod assistant;
mod census;
mod dispatch;
mod other;
mod owned;
mod result;
mod stream_event;
mod system;
mod transcript;
mod usage;
mod user;

pub use assistant::*;
pub use census::Census;
pub use dispatch::{CATALOG, View, ViewInfo};
pub use other::*;
pub use owned::{ToOwnedJson, to_json};
pub use result::*;
pub use stream_event::*;
pub use system::*;
pub use transcript::*;
pub use usage::*;
pub use user::*;

/// A typed reading of one JSON value: what [`FromValue`] turns a [`Value`]
/// into (`&str`, numbers, bools, views).
pub trait FromValue<'d>: Sized {
    /// The typed reading, or `None` when the value has the wrong JSON type.
    fn from_value(v: Value<'d>) -> Option<Self>;

    /// Whether `v` reads as this type (`from_value(v).is_some()`), without
    /// making the reading: a string is not unescaped.
    #[inline]
    fn fits(v: Value<'d>) -> bool {
        Self::from_value(v).is_some()
    }
}

impl<'d> FromValue<'d> for &'d str {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        v.as_str()
    }
    #[inline]
    fn fits(v: Value<'d>) -> bool {
        v.kind() == ValueKind::String
    }
}

impl<'d> FromValue<'d> for u64 {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        v.as_u64()
    }
}

impl<'d> FromValue<'d> for i64 {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        v.as_i64()
    }
}

impl<'d> FromValue<'d> for f64 {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        v.as_f64()
    }
}

impl<'d> FromValue<'d> for bool {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        v.as_bool()
    }
}

impl<'d> FromValue<'d> for Value<'d> {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        Some(v)
    }
}

// A field's reading from its member (`None`: the object has no such
// key); an accessor passes `get(key)`, `visit_all` the member its table
// found.

#[inline]
fn read_opt<'d, T: FromValue<'d>>(raw: Option<Value<'d>>) -> Option<T> {
    let v = raw?;
    let t = T::from_value(v);
    if t.is_none() {
        v.note_mismatch();
    }
    t
}

#[inline]
fn read_field<'d, T: FromValue<'d>>(raw: Option<Value<'d>>) -> Field<T> {
    Field::read(raw, |v| T::from_value(*v))
}

#[inline]
fn read_array<'d, T: FromValue<'d>>(raw: Option<Value<'d>>) -> Option<Array<'d, T>> {
    let v = raw?;
    let a = Array::from_value(v);
    if a.is_none() {
        v.note_mismatch();
    }
    a
}

#[inline]
fn read_null_array<'d, T: FromValue<'d>>(raw: Option<Value<'d>>) -> Field<Array<'d, T>> {
    Field::read(raw, |v| Array::from_value(*v))
}

#[inline]
fn read_map<'d, T: FromValue<'d>>(raw: Option<Value<'d>>) -> Option<Map<'d, T>> {
    let v = raw?;
    let m = Map::from_value(v);
    if m.is_none() {
        v.note_mismatch();
    }
    m
}

/// A borrowed JSON array read as items of type `T`: an iterator that skips
/// (and counts, as type mismatches) elements of the wrong JSON type.
pub struct Array<'d, T> {
    value: Value<'d>,
    elements: ArrayElements<'d>,
    _t: PhantomData<fn() -> T>,
}

impl<'d, T> Clone for Array<'d, T> {
    fn clone(&self) -> Self {
        Array {
            value: self.value,
            elements: self.elements.clone(),
            _t: PhantomData,
        }
    }
}

impl<'d, T: FromValue<'d>> Array<'d, T> {
    /// The raw array.
    #[inline]
    pub fn value(&self) -> Value<'d> {
        self.value
    }

    /// Number of elements in the raw array (of any type).
    #[inline]
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// True when the raw array is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// The `i`th element, if it exists and has the right type.
    pub fn get(&self, i: usize) -> Option<T> {
        T::from_value(self.value.index(i)?)
    }

    /// The first element, if it exists and has the right type (content
    /// arrays hold exactly one block).
    #[inline]
    pub fn first(&self) -> Option<T> {
        self.get(0)
    }
}

impl<'d, T: FromValue<'d>> FromValue<'d> for Array<'d, T> {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        (v.kind() == ValueKind::Array).then(|| Array {
            value: v,
            elements: v.elements(),
            _t: PhantomData,
        })
    }
    #[inline]
    fn fits(v: Value<'d>) -> bool {
        v.kind() == ValueKind::Array
    }
}

impl<'d, T: FromValue<'d>> Iterator for Array<'d, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        loop {
            let e = self.elements.next()?;
            match T::from_value(e) {
                Some(t) => return Some(t),
                None => e.note_mismatch(),
            }
        }
    }
}

impl<T> fmt::Debug for Array<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Array").field(&self.value).finish()
    }
}

/// A borrowed JSON object used as a map (`modelUsage`, `wire_tool_inputs`,
/// `by_type`, `startup_timing.phases`): an iterator of `(key, T)` that skips
/// (and counts) values of the wrong JSON type, with [`Map::get`].
pub struct Map<'d, T> {
    value: Value<'d>,
    entries: Entries<'d>,
    _t: PhantomData<fn() -> T>,
}

impl<'d, T> Clone for Map<'d, T> {
    fn clone(&self) -> Self {
        Map {
            value: self.value,
            entries: self.entries.clone(),
            _t: PhantomData,
        }
    }
}

impl<'d, T: FromValue<'d>> Map<'d, T> {
    /// The raw object.
    #[inline]
    pub fn value(&self) -> Value<'d> {
        self.value
    }

    /// Number of entries in the raw object.
    #[inline]
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// True when the raw object is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// The value of `key`, if present and of the right type.
    pub fn get(&self, key: &str) -> Option<T> {
        T::from_value(self.value.get(key)?)
    }
}

impl<'d, T: FromValue<'d>> FromValue<'d> for Map<'d, T> {
    #[inline]
    fn from_value(v: Value<'d>) -> Option<Self> {
        (v.kind() == ValueKind::Object).then(|| Map {
            value: v,
            entries: v.entries(),
            _t: PhantomData,
        })
    }
    #[inline]
    fn fits(v: Value<'d>) -> bool {
        v.kind() == ValueKind::Object
    }
}

impl<'d, T: FromValue<'d>> Iterator for Map<'d, T> {
    type Item = (&'d str, T);

    #[inline]
    fn next(&mut self) -> Option<(&'d str, T)> {
        loop {
            let (k, v) = self.entries.next()?;
            match T::from_value(v) {
                Some(t) => return Some((k, t)),
                None => v.note_mismatch(),
            }
        }
    }
}

impl<T> fmt::Debug for Map<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Map").field(&self.value).finish()
    }
}

/// The fields of an object that a view's known list does not name; from
/// `unknown_fields()` on every view.
#[derive(Clone)]
pub struct UnknownFields<'d> {
    entries: Entries<'d>,
    known: &'static [&'static str],
}

impl<'d> UnknownFields<'d> {
    /// The entries of `obj` whose key is not in `known` (none when `obj` is
    /// not an object).
    pub fn new(obj: Value<'d>, known: &'static [&'static str]) -> Self {
        UnknownFields {
            entries: obj.entries(),
            known,
        }
    }
}

impl<'d> Iterator for UnknownFields<'d> {
    type Item = (&'d str, Value<'d>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.entries.find(|(k, _)| !self.known.contains(k))
    }
}

impl fmt::Debug for UnknownFields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.clone().map(|(k, _)| k))
            .finish()
    }
}

/// What a view's `visit_all` reports. Every method has an empty default.
///
/// Calls come in document order: `enter` when a nested view is reached
/// (its key in the parent, the view's name, its object), then one `field`
/// per accessor (with the accessor's result, see [`Answer`]) and walks
/// into nested views, then one `unknown` per field the view has no accessor
/// for, then `leave`. The event's own view is entered with its kind's name.
pub trait Visitor<'d> {
    /// A nested view begins: `key` is its field in the parent (the kind's
    /// name for the event itself), `view` the view's name.
    fn enter(&mut self, key: &'static str, view: &'static str, obj: Value<'d>) {
        let _ = (key, view, obj);
    }

    /// The nested view entered last ends.
    fn leave(&mut self) {}

    /// The accessor for `key` of `obj` returned `read`; `raw` is the
    /// member it read (what `obj.get(key)` gives: `None` when `obj` has no
    /// such key), so that a visitor need not look it up again.
    fn field(
        &mut self,
        obj: Value<'d>,
        key: &'static str,
        raw: Option<Value<'d>>,
        read: &dyn Answer<'d>,
    ) {
        let _ = (obj, key, raw, read);
    }

    /// `obj` holds `key`, which its view does not know.
    fn unknown(&mut self, obj: Value<'d>, key: &'d str, value: Value<'d>) {
        let _ = (obj, key, value);
    }

    /// Whether [`field`](Visitor::field) needs the readings themselves. A
    /// visitor that returns false is told only whether each field reads
    /// ([`Answer::is_present`]; `to_json` answers `None`), and a string
    /// is then not unescaped to make its reading (a type check is cheap),
    /// nor are the views' derived readings made (`block()`,
    /// `request_tokens()`, ...), which a visit otherwise calls too.
    fn readings(&self) -> bool {
        true
    }

    /// Whether [`unknown`](Visitor::unknown) is wanted: a visitor that
    /// returns false spares the walk that finds the unknown fields.
    fn wants_unknown(&self) -> bool {
        true
    }
}

/// A visitor that does nothing (visiting with it calls every accessor).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoVisitor;

impl<'d> Visitor<'d> for NoVisitor {}

/// What an accessor returned, as a [`Visitor`] sees it.
pub trait Answer<'d> {
    /// True unless the accessor answered "absent" (`None`, [`Field::Missing`]).
    fn is_present(&self) -> bool;

    /// The reading as owned JSON (`None` when absent; [`Field::Null`] is
    /// `Some(Null)`). Allocates.
    fn to_json(&self) -> Option<serde_json::Value>;

    /// Walk into the reading: views are entered and visited, arrays and
    /// maps iterated. Allocates nothing.
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>);

    /// Walk into `v` read as this type, for a visitor that wants no
    /// readings ([`Visitor::readings`]): as [`walk`](Answer::walk) of
    /// the reading, except that strings are not made (unescaped).
    fn walk_raw(v: Value<'d>, key: &'static str, vis: &mut dyn Visitor<'d>)
    where
        Self: FromValue<'d>,
    {
        if let Some(t) = Self::from_value(v) {
            t.walk(key, vis);
        }
    }
}

/// What a visitor that wants no readings is told of a field: whether it
/// reads (see [`Visitor::readings`]).
struct Presence(bool);

impl<'d> Answer<'d> for Presence {
    fn is_present(&self) -> bool {
        self.0
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        None
    }
    fn walk(&self, _key: &'static str, _vis: &mut dyn Visitor<'d>) {}
}

/// One field for a visitor that wants no readings: whether `raw` reads as
/// `R` (null reads, for a `| null` field), then the walk into it.
#[inline]
fn presence<'d, R: FromValue<'d> + Answer<'d>>(
    obj: Value<'d>,
    key: &'static str,
    raw: Option<Value<'d>>,
    nullable: bool,
    vis: &mut dyn Visitor<'d>,
) {
    let Some(v) = raw else {
        vis.field(obj, key, raw, &Presence(false));
        return;
    };
    if nullable && v.is_null() {
        vis.field(obj, key, raw, &Presence(true));
        return;
    }
    let fits = R::fits(v);
    if !fits {
        v.note_mismatch();
    }
    vis.field(obj, key, raw, &Presence(fits));
    if fits {
        R::walk_raw(v, key, vis);
    }
}

macro_rules! scalar_reading {
    ($($t:ty => $to:expr),* $(,)?) => {$(
        impl<'d> Answer<'d> for $t {
            #[inline]
            fn is_present(&self) -> bool {
                true
            }
            fn to_json(&self) -> Option<serde_json::Value> {
                #[allow(clippy::redundant_closure_call)]
                Some(($to)(*self))
            }
            #[inline]
            fn walk(&self, _key: &'static str, _vis: &mut dyn Visitor<'d>) {
                std::hint::black_box(self);
            }
            #[inline]
            fn walk_raw(_v: Value<'d>, _key: &'static str, _vis: &mut dyn Visitor<'d>) {}
        }
    )*};
}

scalar_reading! {
    &str => |s: &str| serde_json::Value::String(s.to_owned()),
    u64 => |n: u64| serde_json::Value::from(n),
    i64 => |n: i64| serde_json::Value::from(n),
    f64 => |n: f64| serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number),
    bool => serde_json::Value::Bool,
    Value<'d> => to_json,
}

impl<'d, T: Answer<'d>> Answer<'d> for Option<T> {
    #[inline]
    fn is_present(&self) -> bool {
        self.is_some()
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        self.as_ref().and_then(|t| t.to_json())
    }
    #[inline]
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        if let Some(t) = self {
            t.walk(key, vis);
        }
    }
}

impl<'d, T: Answer<'d>> Answer<'d> for Field<T> {
    #[inline]
    fn is_present(&self) -> bool {
        !self.is_missing()
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        match self {
            Field::Missing => None,
            Field::Null => Some(serde_json::Value::Null),
            Field::Value(t) => t.to_json(),
        }
    }
    #[inline]
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        if let Field::Value(t) = self {
            t.walk(key, vis);
        }
    }
}

impl<'d, T: FromValue<'d> + Answer<'d>> Answer<'d> for Array<'d, T> {
    #[inline]
    fn is_present(&self) -> bool {
        true
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        Some(serde_json::Value::Array(
            self.clone().filter_map(|t| t.to_json()).collect(),
        ))
    }
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        for t in self.clone() {
            t.walk(key, vis);
        }
    }
    fn walk_raw(v: Value<'d>, key: &'static str, vis: &mut dyn Visitor<'d>) {
        for e in v.elements() {
            if T::fits(e) {
                T::walk_raw(e, key, vis);
            } else {
                e.note_mismatch();
            }
        }
    }
}

impl<'d, T: FromValue<'d> + Answer<'d>> Answer<'d> for Map<'d, T> {
    #[inline]
    fn is_present(&self) -> bool {
        true
    }
    fn to_json(&self) -> Option<serde_json::Value> {
        let mut m = serde_json::Map::new();
        for (k, t) in self.clone() {
            if let Some(j) = t.to_json() {
                m.entry(k.to_owned()).or_insert(j);
            }
        }
        Some(serde_json::Value::Object(m))
    }
    fn walk(&self, key: &'static str, vis: &mut dyn Visitor<'d>) {
        for (k, t) in self.clone() {
            std::hint::black_box(k);
            t.walk(key, vis);
        }
    }
    fn walk_raw(v: Value<'d>, key: &'static str, vis: &mut dyn Visitor<'d>) {
        for (_, e) in v.entries() {
            if T::fits(e) {
                T::walk_raw(e, key, vis);
            } else {
                e.note_mismatch();
            }
        }
    }
}

/// What every object view has; lets generic code (a drift census, a
/// re-emitter) handle views alike. Each view also has the same methods
/// inherently, so callers need not import this trait.
pub trait ObjectView<'d>: Copy + Answer<'d> + FromValue<'d> {
    /// The view's name as reported to [`Visitor::enter`] (`"system/init"`,
    /// `"Usage"`, ...).
    const NAME: &'static str;
    /// The keys this view has accessors for: the reference's keys plus the
    /// real-stream extras. `unknown_fields` lists the others.
    const KNOWN: &'static [&'static str];
    /// The keys of [`KNOWN`](ObjectView::KNOWN) that the reference does not
    /// define: real-stream extras.
    const EXTRA: &'static [&'static str];
    /// True when the reference lets the object hold any key (tool inputs,
    /// `autocompact_state.value`): unknown fields are then listed by
    /// `unknown_fields` but not reported by `visit_all`.
    const OPEN: bool;
    /// Wrap a value as this view (no check).
    fn wrap(value: Value<'d>) -> Self;
    /// The raw object.
    fn value(&self) -> Value<'d>;
    /// Call every accessor and walk nested views (see [`Visitor`]).
    fn visit_all(&self, vis: &mut dyn Visitor<'d>);
    /// The fields not in [`KNOWN`](ObjectView::KNOWN).
    fn unknown_fields(&self) -> UnknownFields<'d> {
        UnknownFields::new(self.value(), Self::KNOWN)
    }
}

/// The `type` string of an object, for enums dispatched by it.
#[inline]
fn type_of<'d>(v: Value<'d>) -> Option<&'d str> {
    v.get("type")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_lists_are_consistent() {
        let mut names = std::collections::BTreeSet::new();
        for v in CATALOG {
            assert!(names.insert(v.name), "{} twice", v.name);
            let keys: std::collections::BTreeSet<_> = v.known.iter().collect();
            assert_eq!(keys.len(), v.known.len(), "{}: a key twice", v.name);
            for e in v.extra {
                assert!(v.known.contains(e), "{}: extra {e} not known", v.name);
            }
        }
    }

    #[test]
    fn every_kind_with_a_name_has_a_view() {
        let mut p = crate::json::Scanner::new();
        for k in EventKind::ALL {
            let Some(name) = k.name() else { continue };
            let (ty, sub) = name.split_once('/').unwrap_or((name, ""));
            if EventKind::from_type(ty, Some(sub)) != k {
                // A transcript record's kind: its views are the records'.
                assert_eq!(EventKind::from_record_type(ty, Some(sub)), k, "{name}");
                continue;
            }
            let line = format!(r#"{{"type":"{ty}","subtype":"{sub}"}}"#);
            let l = crate::framing::Lines::new(line.as_bytes()).next().unwrap();
            let ev = crate::event::parse_event(&mut p, &l).unwrap();
            let v = ev.view();
            assert!(!matches!(v, View::Other(_)), "{name}");
            assert_eq!(v.name(), if k.is_result() { "result" } else { name });
        }
    }
}
