//! One line's view visited, listed, copied and counted, and the scanner on
//! every backend against the tape (part of `checks.rs`).

use cctape::event::parse_event;
use cctape::json::{Scanner, Value, ValueKind};
use cctape::views::{Answer, Census, View, Visitor as ViewVisitor};
use cctape::{EventKind, Field};

use super::{close, line_at, show, tape_event};

#[path = "../calls.rs"]
mod calls;
use calls::Calls;

// ---------------------------------------------------------------------------
// Views

/// A visitor that walks everything: counts fields and enters, turns every
/// reading into owned JSON, and notes what a reading says against the raw
/// value it read.
#[derive(Default)]
struct WalkAll {
    depth: usize,
    enters: u64,
    fields: u64,
    unknown: u64,
    /// Fields present in their object whose reading is absent: each one
    /// counted a type mismatch.
    absent: u64,
}

impl<'d> ViewVisitor<'d> for WalkAll {
    fn enter(&mut self, _key: &'static str, _view: &'static str, obj: Value<'d>) {
        self.depth += 1;
        self.enters += 1;
        assert!(self.depth <= cctape::json::MAX_DEPTH + 2, "enter too deep");
        let _ = obj.kind();
    }

    fn leave(&mut self) {
        assert!(self.depth > 0, "leave without enter");
        self.depth -= 1;
    }

    fn field(
        &mut self,
        obj: Value<'d>,
        key: &'static str,
        raw: Option<Value<'d>>,
        read: &dyn Answer<'d>,
    ) {
        self.fields += 1;
        // The member the walk found is the one `get` finds.
        let got = obj.get(key);
        assert_eq!(
            raw.and_then(|v| v.raw().map(<[u8]>::as_ptr)),
            got.and_then(|v| v.raw().map(<[u8]>::as_ptr)),
            "{key}"
        );
        assert_eq!(raw.is_some(), got.is_some(), "{key}");
        let owned = read.to_json();
        assert_eq!(owned.is_some(), read.is_present() && owned.is_some());
        match raw {
            None => assert!(!read.is_present(), "{key}: read present, not in the object"),
            Some(v) => {
                if !read.is_present() {
                    self.absent += 1;
                } else if let Some(o) = &owned {
                    // A string or bool field reads as itself.
                    if matches!(v.kind(), ValueKind::String | ValueKind::Bool) {
                        assert_eq!(o, &cctape::views::to_json(v), "{key}");
                    }
                }
            }
        }
    }

    fn unknown(&mut self, obj: Value<'d>, key: &'d str, value: Value<'d>) {
        self.unknown += 1;
        assert!(
            obj.get(key).is_some(),
            "unknown key {key:?} not in its object"
        );
        let _ = value.kind();
    }
}

/// A view's visit makes the same calls with and without readings.
fn same_calls_without_readings(view: &View<'_>) {
    let with = Calls::of(view, true);
    assert!(!with.is_empty());
    assert_eq!(
        with,
        Calls::of(view, false),
        "a visit without readings differs"
    );
}

/// Owned JSON survives a round trip through serde_json text.
pub(super) fn reparses(j: &serde_json::Value) {
    let text = serde_json::to_string(j).expect("owned JSON serializes");
    let back: serde_json::Value = serde_json::from_str(&text).expect("owned JSON re-parses");
    assert!(
        json_close(&back, j),
        "owned JSON changed through text: {j} vs {back}"
    );
}

/// Equal JSON, floats within 2 ULP (serde_json's default float parser is
/// off by one in the last bit on some numbers; see [`F`]).
pub fn json_close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) if x.is_f64() || y.is_f64() => close(
            x.as_f64().unwrap_or(f64::NAN),
            y.as_f64().unwrap_or(f64::NAN),
        ),
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_close(p, q))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, p), (l, q))| k == l && json_close(p, q))
        }
        _ => a == b,
    }
}

/// One line through `parse_event`, its view's `visit_all`,
/// `unknown_fields`, `to_owned_json` and a [`Census`]: no panic; the owned
/// JSON re-parses; `type_mismatches` never decreases, a visit adds at
/// least one per field read as absent while present, and the same visit
/// adds the same number each time.
pub fn check_views(data: &[u8]) {
    let mut parser = Scanner::new();
    let line = line_at(data, true);
    let Ok(ev) = parse_event(&mut parser, &line) else {
        return;
    };
    // The view over the tape (the opt-in backend, which counts type
    // mismatches on its document) reads what the view over the index reads.
    let mut tape = cctape::json::tape::Parser::new();
    let Ok(doc) = tape.parse(&line) else {
        panic!("the tape refuses a line the scanner took");
    };
    let m0 = doc.type_mismatches();
    let view = View::new(ev.kind(), doc.value());
    let _ = (view.name(), format!("{view:?}"));
    assert_eq!(view.to_owned_json(), ev.view().to_owned_json());

    let mut w = WalkAll::default();
    view.visit_all(&mut w);
    assert_eq!(w.depth, 0, "enter and leave unbalanced");
    let m1 = doc.type_mismatches();
    assert!(m1 >= m0, "type_mismatches decreased");

    let root = view.value();
    let known: Vec<&str> = view.unknown_fields().map(|(k, _)| k).collect();
    assert!(known.len() <= root.len());
    for k in &known {
        assert!(root.get(k).is_some(), "unknown field {k:?} not in the line");
    }
    if let View::Other(_) = view {
        assert_eq!(known.len(), root.len(), "Other: every field is unknown");
    }
    let m2 = doc.type_mismatches();
    assert!(m2 >= m1);

    let owned = view.to_owned_json();
    assert_eq!(owned, cctape::views::to_json(root));
    assert!(owned.is_object());
    reparses(&owned);
    let m3 = doc.type_mismatches();
    assert!(m3 >= m2);

    // Visiting again counts the same again.
    let mut w2 = WalkAll::default();
    view.visit_all(&mut w2);
    let m4 = doc.type_mismatches();
    assert_eq!(
        (w2.enters, w2.fields, w2.unknown, w2.absent),
        (w.enters, w.fields, w.unknown, w.absent)
    );
    assert_eq!(m4 - m3, m1 - m0, "a second visit counted differently");
    // A visitor that reads nothing more (WalkAll also turns every reading
    // into owned JSON, which reads arrays again) counts at most as much,
    // and at least one per field read as absent while present.
    view.visit_all(&mut cctape::views::NoVisitor);
    let m5 = doc.type_mismatches();
    assert!(m5 - m4 <= m1 - m0);
    assert!(
        u64::from(m5 - m4) >= w.absent,
        "{} fields read absent while present, {} mismatches counted",
        w.absent,
        m5 - m4
    );

    same_calls_without_readings(&view);
    same_calls_without_readings(&ev.view());

    let mut census = Census::default();
    census.add(&ev);
    assert_eq!(census.events.values().sum::<u64>(), 1);
    let mismatched: u64 = census.mismatched.values().sum();
    if !matches!(view, View::Other(_)) {
        assert_eq!(mismatched, w.absent, "census and visitor disagree");
    }
    let _ = census.to_string();
    let mut twice = census.clone();
    twice.merge(&census);
    assert_eq!(twice.events.values().sum::<u64>(), 2);
}

/// What the scanner and the tape both say about a line, owned.
#[derive(Debug, PartialEq)]
struct ScanFacts {
    kind: EventKind,
    ty: String,
    subtype: Option<String>,
    strs: [Option<String>; 9],
    parent: Field<String>,
    usage: Option<cctape::TokenCounts>,
    flags: [Option<bool>; 2],
    nums: [Option<u64>; 3],
}

/// The accessors of an [`Event`] (the tape's, the index's, a scanned
/// line's), as [`ScanFacts`]:
/// `own` turns a string accessor's answer into an owned one.
macro_rules! scan_facts {
    ($e:expr, $own:expr) => {{
        let e = $e;
        ScanFacts {
            kind: e.kind(),
            ty: e.raw_type().to_owned(),
            subtype: e.raw_subtype().map(str::to_owned),
            strs: [
                e.session_id(),
                e.uuid(),
                e.timestamp(),
                e.message_id(),
                e.model(),
                e.content_block_type(),
                e.tool_use_id(),
                e.tool_name(),
                e.tool_result_id(),
            ]
            .map($own),
            parent: match e.parent_tool_use_id() {
                Field::Missing => Field::Missing,
                Field::Null => Field::Null,
                Field::Value(v) => $own(Some(v)).map_or(Field::Missing, Field::Value),
            },
            usage: e.usage(),
            flags: [e.is_error(), e.tool_result_is_error()],
            nums: [
                e.num_turns(),
                e.duration_ms(),
                e.total_cost_usd().map(f64::to_bits),
            ],
        }
    }};
}

/// The scanner (validated, on every backend this CPU runs) and
/// [`parse_event`] against the tape ([`tape_event`]) on one line,
/// terminated and not: the same decision and error kind and position, and
/// on an event the same kind, `type`, `subtype` and hot fields. Trusting
/// mode never panics and reads the same kind on a valid event.
pub fn check_scan_line(data: &[u8]) {
    use cctape::json::Backend;
    let mut tape = cctape::json::tape::Parser::new();
    let mut indexed = Scanner::new();
    for terminated in [true, false] {
        let line = line_at(data, terminated);
        let want = tape_event(&mut tape, &line, |e| {
            scan_facts!(e, |s: Option<&str>| s.map(str::to_owned))
        })
        .map_err(|e| (e.kind(), e.position().line, e.position().offset));
        let event = parse_event(&mut indexed, &line)
            .map(|e| scan_facts!(&e, |s: Option<&str>| s.map(str::to_owned)))
            .map_err(|e| (e.kind(), e.position().line, e.position().offset));
        assert_eq!(
            event,
            want,
            "parse_event against the tape on {}",
            show(data)
        );
        for backend in Backend::available() {
            let mut sc = Scanner::with_backend(backend).expect("an available backend");
            let got = sc
                .scan(&line)
                .map(|e| scan_facts!(&e.event(), |s: Option<&str>| s.map(str::to_owned)))
                .map_err(|e| (e.kind(), e.position().line, e.position().offset));
            assert_eq!(got, want, "backend {} on {}", backend.name(), show(data));
            let trusting = sc.scan_trusting(&line).map(|e| e.kind());
            if let Ok(w) = &want {
                assert_eq!(
                    trusting.ok(),
                    Some(w.kind),
                    "trusting, backend {}",
                    backend.name()
                );
            }
        }
    }
}
