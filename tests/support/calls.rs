//! A visitor that lists the calls a view's visit makes, shared by
//! `tests/views.rs` and the views check of `tests/support/checks/`.

use cctape::json::Value;
use cctape::views::{Answer, View, Visitor};

/// The calls a visit makes and what each field says of whether it reads:
/// a visitor that wants no readings ([`Visitor::readings`], as `check`'s
/// and the census's) must be told what one that wants them is told.
#[derive(Debug, PartialEq)]
pub struct Calls {
    readings: bool,
    calls: Vec<(&'static str, String, bool)>,
}

impl Calls {
    pub fn of(view: &View<'_>, readings: bool) -> Vec<(&'static str, String, bool)> {
        let mut c = Calls {
            readings,
            calls: Vec::new(),
        };
        view.visit_all(&mut c);
        c.calls
    }
}

impl<'d> Visitor<'d> for Calls {
    fn enter(&mut self, key: &'static str, view: &'static str, _obj: Value<'d>) {
        self.calls.push(("enter", format!("{key} {view}"), true));
    }
    fn leave(&mut self) {
        self.calls.push(("leave", String::new(), true));
    }
    fn field(
        &mut self,
        obj: Value<'d>,
        key: &'static str,
        raw: Option<Value<'d>>,
        read: &dyn Answer<'d>,
    ) {
        assert_eq!(raw.is_some(), obj.get(key).is_some(), "{key}");
        let at = format!("{key} {}", raw.is_some());
        self.calls.push(("field", at, read.is_present()));
    }
    fn unknown(&mut self, _obj: Value<'d>, key: &'d str, _value: Value<'d>) {
        self.calls.push(("unknown", key.to_string(), true));
    }
    fn readings(&self) -> bool {
        self.readings
    }
}
