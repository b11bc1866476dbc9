//! The transcript fold's unusual numbers: a number a record holds that is
//! not what its field takes (a token count that is not a u64, in a
//! `message.usage` or a subagent's reported `toolUseResult.usage`; a
//! `costUSD` that is not a number, or is negative). The readers read such
//! a count as 0 and price such a cost from the table, as a stream's run
//! does; the session says so with one `unusual_number` warning, at the
//! first of them by place (file name, then line: the same whatever the
//! order of the files or `--jobs`), with how many there were.

use super::{At, Names, TranscriptFold};
use crate::event::usage::UsageFields;
use crate::json::Value;

/// A session's unusual numbers, as folded.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Unusual {
    /// How many.
    count: u64,
    /// The first by place, and what it says (a name id).
    first: Option<(At, u32)>,
}

impl Unusual {
    /// Whether a number at `at` would be the first by place.
    fn would_be_first(&self, at: At, names: &Names) -> bool {
        self.first.is_none_or(|(old, _)| at.before(old, names))
    }

    /// Take another fold's numbers of the same session (its names mapped
    /// by `t`), placed by `names` (this fold's).
    pub(super) fn absorb(&mut self, of: Unusual, names: &Names, t: &impl Fn(u32) -> u32) {
        self.count += of.count;
        if let Some((at, what)) = of.first {
            let at = At {
                file: t(at.file),
                ..at
            };
            if self.would_be_first(at, names) {
                self.first = Some((at, t(what)));
            }
        }
    }

    /// How many, and the first's file name, line and what it says.
    pub(super) fn finish(
        &self,
        name: impl Fn(u32) -> Option<String>,
    ) -> (u64, Option<(String, u64, String)>) {
        let first = self.first.map(|(at, what)| {
            let file = name(at.file).unwrap_or_default();
            (file, at.line, name(what).unwrap_or_default())
        });
        (self.count, first)
    }
}

impl TranscriptFold {
    /// Session `sid`'s record at `at` holds `usage`, a count of which is
    /// not one.
    #[cold]
    pub(super) fn unusual_usage(&mut self, sid: u32, at: At, usage: Option<Value<'_>>) {
        if let Some((key, v)) = usage.and_then(|u| UsageFields::of(u).first_unusual()) {
            self.unusual(sid, at, key, v, "is not a token count (0 used)");
        }
    }

    /// Session `sid`'s record at `at` holds `cost` as its `costUSD`: noted
    /// when it is not a number (priced from the table) or is negative
    /// (kept).
    #[cold]
    pub(super) fn unusual_cost(&mut self, sid: u32, at: At, cost: Value<'_>) {
        match cost.as_f64() {
            Some(c) if c < 0.0 => self.unusual(sid, at, "costUSD", cost, "is negative (kept)"),
            None if !cost.is_null() => self.unusual(
                sid,
                at,
                "costUSD",
                cost,
                "is not a cost (priced from the table)",
            ),
            _ => {}
        }
    }

    /// Counted; its text is made and kept only when it is the first by
    /// place (so that memory does not grow with the numbers a file holds).
    fn unusual(&mut self, sid: u32, at: At, field: &str, v: Value<'_>, what: &str) {
        let u = &mut self.facts[sid as usize].unusual;
        u.count += 1;
        if !u.would_be_first(at, &self.strings) {
            return;
        }
        let text = format!("{field} {} {what}", crate::run::number_text(&v));
        let what = self.strings.id(&text);
        self.facts[sid as usize].unusual.first = Some((at, what));
    }
}
