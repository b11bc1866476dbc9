//! A drift census: which fields real streams carry that the views do not
//! know, which known extras (fields the reference lacks) they use, and which
//! fields hold an unexpected JSON type. This is the one part of the views
//! that allocates (its tallies), and only when something is recorded.

use super::*;
use crate::transcript::RecordView;
use std::collections::BTreeMap;

/// Tallies over many events, keyed by event kind (`"system/init"`, or the
/// raw `type/subtype` of events without a view) and field path (nested
/// views' keys joined by `.`, each followed by its view's name in
/// parentheses, e.g. `message(AssistantMessage).usage(Usage).speed`).
///
/// ```
/// use cctape::SliceEvents;
/// use cctape::views::Census;
///
/// let input = br#"{"type":"system","subtype":"status","status":"requesting","mood":"good"}
/// {"type":"system","subtype":"api_retry","uuid":"u1","attempt":"two"}
/// "#;
/// let mut census = Census::default();
/// let mut events = SliceEvents::new(input);
/// while let Some(Ok(ev)) = events.next_event() {
///     census.add(&ev);
/// }
/// assert_eq!(census.unknown[&("system/status".into(), "mood".into())], 1);
/// assert_eq!(census.extras[&("system/api_retry".into(), "uuid".into())], 1);
/// assert_eq!(census.mismatched[&("system/api_retry".into(), "attempt (is String)".into())], 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Census {
    /// Events by kind.
    pub events: BTreeMap<String, u64>,
    /// Events without a view ([`View::Other`]), by raw `type/subtype`.
    pub without_view: BTreeMap<String, u64>,
    /// Fields unknown to their view, by (kind, path).
    pub unknown: BTreeMap<(String, String), u64>,
    /// Known fields the reference lacks ([`ObjectView::EXTRA`]) found
    /// present, by (kind, path).
    pub extras: BTreeMap<(String, String), u64>,
    /// Fields present with a JSON type their accessor does not read (so
    /// read as absent), by (kind, `path (is Kind)`).
    pub mismatched: BTreeMap<(String, String), u64>,
}

impl Census {
    /// Count one event: visit its view and tally what is found.
    pub fn add(&mut self, ev: &Event<'_>) {
        let kind = match ev.kind().name() {
            Some(n) => n.to_owned(),
            None => match ev.raw_subtype() {
                Some(s) => format!("{}/{s}", ev.raw_type()),
                None => ev.raw_type().to_owned(),
            },
        };
        let view = ev.view();
        if let Some(mut t) = self.tally(kind, !matches!(view, View::Other(_))) {
            view.visit_all(&mut t);
        }
    }

    /// Count one transcript record (a line read in that dialect,
    /// [`Scanned::record`](crate::json::Scanned::record)): visit its typed
    /// view ([`RecordView::of`]) and tally what is found, under
    /// `transcript/` and its `type` (and `subtype`).
    ///
    /// ```
    /// use cctape::framing::Lines;
    /// use cctape::json::Scanner;
    /// use cctape::views::Census;
    ///
    /// let input = br#"{"type":"summary","summary":"Fix the build","leafUuid":"u9","mood":"good"}"#;
    /// let mut scanner = Scanner::new();
    /// let line = Lines::new(input).next().unwrap();
    /// let mut census = Census::default();
    /// census.add_record(&scanner.scan(&line).unwrap().record());
    /// assert_eq!(census.events["transcript/summary"], 1);
    /// assert_eq!(census.unknown[&("transcript/summary".into(), "mood".into())], 1);
    /// ```
    pub fn add_record(&mut self, rec: &crate::event::Event<'_>) {
        let kind = match rec.raw_subtype() {
            Some(s) => format!("transcript/{}/{s}", rec.raw_type()),
            None => format!("transcript/{}", rec.raw_type()),
        };
        let view = RecordView::of(rec);
        if let Some(mut t) = self.tally(kind, !matches!(view, RecordView::Other(_))) {
            view.visit_all(&mut t);
        }
    }

    /// Count one event or record of `kind`; a [`Tally`] to visit its view
    /// with, or `None` (and counted without a view) when it has none.
    fn tally(&mut self, kind: String, has_view: bool) -> Option<Tally<'_>> {
        *self.events.entry(kind.clone()).or_default() += 1;
        if !has_view {
            *self.without_view.entry(kind).or_default() += 1;
            return None;
        }
        Some(Tally {
            census: self,
            kind,
            stack: Vec::new(),
        })
    }

    /// Add another census's tallies.
    pub fn merge(&mut self, o: &Census) {
        fn add<K: Ord + Clone>(a: &mut BTreeMap<K, u64>, b: &BTreeMap<K, u64>) {
            for (k, n) in b {
                *a.entry(k.clone()).or_default() += n;
            }
        }
        add(&mut self.events, &o.events);
        add(&mut self.without_view, &o.without_view);
        add(&mut self.unknown, &o.unknown);
        add(&mut self.extras, &o.extras);
        add(&mut self.mismatched, &o.mismatched);
    }

    /// Unknown-field counts summed per kind.
    pub(crate) fn unknown_per_kind(&self) -> BTreeMap<&str, u64> {
        let mut m = BTreeMap::new();
        for ((k, _), n) in &self.unknown {
            *m.entry(k.as_str()).or_default() += n;
        }
        m
    }
}

impl fmt::Display for Census {
    /// A plain-text report: events per kind, then each tally.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "events by kind:")?;
        for (k, n) in &self.events {
            writeln!(f, "  {k:<32} {n}")?;
        }
        if !self.without_view.is_empty() {
            writeln!(f, "events without a view (View::Other):")?;
            for (k, n) in &self.without_view {
                writeln!(f, "  {k:<32} {n}")?;
            }
        }
        let sections = [
            ("fields unknown to their view", &self.unknown),
            (
                "real-stream extras read by accessors (not in the reference)",
                &self.extras,
            ),
            (
                "fields of an unexpected JSON type (read as absent)",
                &self.mismatched,
            ),
        ];
        for (title, m) in sections {
            writeln!(f, "{title}:")?;
            if m.is_empty() {
                writeln!(f, "  (none)")?;
            }
            for ((k, path), n) in m {
                writeln!(f, "  {k:<32} {path:<64} {n}")?;
            }
        }
        writeln!(f, "unknown fields per kind:")?;
        for (k, n) in self.unknown_per_kind() {
            writeln!(f, "  {k:<32} {n}")?;
        }
        Ok(())
    }
}

struct Tally<'c> {
    census: &'c mut Census,
    kind: String,
    /// (key, view name) per view entered.
    stack: Vec<(&'static str, &'static str)>,
}

impl Tally<'_> {
    fn path(&self, key: &str) -> String {
        let mut s = String::new();
        for (k, view) in self.stack.iter().skip(1) {
            s.push_str(k);
            s.push('(');
            s.push_str(view);
            s.push_str(").");
        }
        s.push_str(key);
        s
    }
}

fn extras_of(view: &str) -> &'static [&'static str] {
    CATALOG
        .iter()
        .find(|v| v.name == view)
        .map_or(&[], |v| v.extra)
}

impl<'d> Visitor<'d> for Tally<'_> {
    fn enter(&mut self, key: &'static str, view: &'static str, _obj: Value<'d>) {
        self.stack.push((key, view));
    }

    fn leave(&mut self) {
        self.stack.pop();
    }

    fn field(
        &mut self,
        _obj: Value<'d>,
        key: &'static str,
        raw: Option<Value<'d>>,
        read: &dyn Answer<'d>,
    ) {
        let Some(raw) = raw else { return };
        if !read.is_present() {
            let at = format!("{} (is {:?})", self.path(key), raw.kind());
            *self
                .census
                .mismatched
                .entry((self.kind.clone(), at))
                .or_default() += 1;
        } else if self
            .stack
            .last()
            .is_some_and(|(_, view)| extras_of(view).contains(&key))
        {
            let at = self.path(key);
            *self
                .census
                .extras
                .entry((self.kind.clone(), at))
                .or_default() += 1;
        }
    }

    /// Whether a field reads is all a census counts.
    fn readings(&self) -> bool {
        false
    }

    fn unknown(&mut self, _obj: Value<'d>, key: &'d str, _value: Value<'d>) {
        let at = self.path(key);
        *self
            .census
            .unknown
            .entry((self.kind.clone(), at))
            .or_default() += 1;
    }
}
