//! The one reader of a `usage` object (a model call's token counts, on
//! `message.usage`, the `message_start` and `message_delta` stream events,
//! `result.usage`, an Agent tool result's `tool_use_result.usage`, and a
//! transcript's assistant records): the members every fold and view reads
//! are found in one walk, and each is read one way, whichever dialect or
//! fold asks.

use crate::json::{Tabled, Value};

/// The keys read, in slot order; [`slot`] is their `match`.
const KEYS: [&str; 6] = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "cache_creation",
    "speed",
];

/// A usage key's slot in [`KEYS`].
#[inline(always)]
fn slot(k: &[u8]) -> Option<usize> {
    Some(match k {
        b"input_tokens" => 0,
        b"output_tokens" => 1,
        b"cache_read_input_tokens" => 2,
        b"cache_creation_input_tokens" => 3,
        b"cache_creation" => 4,
        b"speed" => 5,
        _ => return None,
    })
}

/// The keys of `cache_creation`, the cache writes split by retention.
const SPLIT: [&str; 2] = ["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"];

/// A count as read: missing, or not a u64, 0.
#[inline(always)]
pub(crate) fn read_0(v: Option<Value<'_>>) -> u64 {
    v.and_then(|v| v.as_u64()).unwrap_or(0)
}

/// A count read as 0 that is not one: present, not null, not a u64.
#[cold]
pub(crate) fn not_a_count(v: Option<Value<'_>>) -> bool {
    v.is_some_and(|v| match v.number_text() {
        // The counts read as 0 are mostly a literal 0: no parse.
        Some("0") => false,
        Some(_) => v.as_u64().is_none(),
        None => !v.is_null() && v.as_u64().is_none(),
    })
}

/// The members of a `usage` object the library reads, found in one walk
/// of its members (the first of a key given twice, as
/// [`Value::get`] finds it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct UsageFields<'t>(Tabled<'t, 6>);

impl<'t> UsageFields<'t> {
    /// The four counts' slots, in [`TokenCounts`](super::TokenCounts)'
    /// order: input, output, cache read, cache creation.
    pub(crate) const COUNTS: [&'static str; 4] = [KEYS[0], KEYS[1], KEYS[2], KEYS[3]];

    /// Read `usage`'s members.
    #[inline]
    pub(crate) fn of(usage: Value<'t>) -> UsageFields<'t> {
        UsageFields(Tabled::new(usage, &KEYS, slot))
    }

    /// The value of count `i` of [`COUNTS`](UsageFields::COUNTS), as
    /// written (a count that is not a u64 is the reader's to judge).
    #[inline(always)]
    pub(crate) fn count(&self, i: usize) -> Option<Value<'t>> {
        debug_assert!(i < Self::COUNTS.len());
        self.0.get(i)
    }

    /// Count `i`, a missing one or one that is not a u64 read as 0.
    #[inline(always)]
    pub(crate) fn count_or_0(&self, i: usize) -> u64 {
        read_0(self.count(i))
    }

    /// `cache_creation`, the cache writes split by retention, when it is
    /// an object: its 5-minute and 1-hour counts (missing ones, and ones
    /// that are not a u64, 0).
    #[cfg(test)]
    pub(crate) fn cache_creation(&self) -> Option<(u64, u64)> {
        let (m5, h1) = self.split_counts()?;
        Some((read_0(m5), read_0(h1)))
    }

    /// The values of `cache_creation`'s two counts (5-minute, 1-hour),
    /// when it is an object.
    #[inline]
    pub(crate) fn split_counts(&self) -> Option<(Option<Value<'t>>, Option<Value<'t>>)> {
        let c = self.split()?;
        Some((c.get(SPLIT[0]), c.get(SPLIT[1])))
    }

    fn split(&self) -> Option<Value<'t>> {
        self.0
            .get(4)
            .filter(|c| c.kind() == crate::json::ValueKind::Object)
    }

    /// The first count this object holds that is not one (present, not
    /// null and not a u64: a negative, a fraction, a string), with its
    /// key: the four counts, then the cache split's. Readers read it as
    /// 0; the folds say so (`unusual_number`).
    pub(crate) fn first_unusual(&self) -> Option<(&'static str, Value<'t>)> {
        let odd = |v: &Value<'_>| not_a_count(Some(*v));
        let counts = Self::COUNTS.iter().enumerate();
        if let Some((k, v)) = counts
            .filter_map(|(i, k)| Some((*k, self.count(i)?)))
            .find(|(_, v)| odd(v))
        {
            return Some((k, v));
        }
        let c = self.split()?;
        SPLIT
            .iter()
            .find_map(|k| c.get(k).filter(odd).map(|v| (*k, v)))
    }

    /// `speed` is `"fast"` (the requests priced at the fast rate).
    pub(crate) fn fast(&self) -> bool {
        self.0.get(5).is_some_and(|v| v.str_eq("fast"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `match` puts every key in the slot the list gives it (the list
    /// is what an escaped key or a value read without an index falls back
    /// to).
    #[test]
    fn the_slot_match_agrees_with_the_key_list() {
        for (i, k) in KEYS.iter().enumerate() {
            assert_eq!(slot(k.as_bytes()), Some(i), "{k}");
        }
        assert_eq!(slot(b"service_tier"), None);
    }

    /// What the three readers of a usage (the event's token counts, the
    /// stream fold's, the transcript fold's priced tokens) get from one
    /// object: a key given twice is read at its first place, an escaped
    /// key as its text, the cache split when it is an object, else every
    /// cache write a 5-minute one.
    /// A null count is no count; a count in the cache split that is not one
    /// is named, after the four counts.
    #[test]
    fn unusual_counts_are_named_and_null_is_not_one() {
        use crate::event::parse_event;
        use crate::framing::Lines;
        use crate::json::Scanner;
        let mut p = Scanner::new();
        let line = br#"{"type":"assistant","message":{"usage":{"output_tokens":null,"input_tokens":4,"cache_creation":{"ephemeral_5m_input_tokens":"12","ephemeral_1h_input_tokens":2.5}}}}"#;
        let l = Lines::new(line).next().unwrap();
        let ev = parse_event(&mut p, &l).unwrap();
        let f = UsageFields::of(ev.message_get("usage").unwrap());
        assert_eq!((f.count_or_0(1), f.count_or_0(0)), (0, 4));
        assert_eq!(f.cache_creation(), Some((0, 0)));
        let (key, v) = f.first_unusual().unwrap();
        assert_eq!((key, v.as_str()), ("ephemeral_5m_input_tokens", Some("12")));
    }

    #[test]
    fn one_walk_reads_as_get_does() {
        use crate::event::{TokenCounts, parse_event};
        use crate::framing::Lines;
        use crate::json::Scanner;
        let mut p = Scanner::new();
        let line = br#"{"type":"assistant","message":{"usage":{"output_tokens":7,"input_tokens":3,"output_tokens":9,"cache_read_input_tokens":-1,"cache_creation_input_tokens":40,"cache_creation":{"ephemeral_1h_input_tokens":30,"ephemeral_5m_input_tokens":10},"speed":"fast"}}}"#;
        let l = Lines::new(line).next().unwrap();
        let ev = parse_event(&mut p, &l).unwrap();
        let u = ev.message_get("usage").unwrap();
        let f = UsageFields::of(u);
        assert_eq!(f.count(1).and_then(|v| v.as_u64()), Some(7));
        assert_eq!(
            (0..4).map(|i| f.count_or_0(i)).collect::<Vec<_>>(),
            [3, 7, 0, 40]
        );
        assert_eq!(f.cache_creation(), Some((10, 30)));
        // The negative cache read is the first count that is not one.
        let (key, v) = f.first_unusual().unwrap();
        assert_eq!(
            (key, v.number_text()),
            ("cache_read_input_tokens", Some("-1"))
        );
        assert!(not_a_count(f.count(2)) && !not_a_count(f.count(0)));
        assert!(f.fast());
        assert_eq!(
            TokenCounts::from_usage(u),
            TokenCounts {
                input_tokens: 3,
                output_tokens: 7,
                cache_read_input_tokens: 0,
                cache_creation_input_tokens: 40,
            }
        );
        let t = crate::transcript::usage(u).unwrap();
        assert_eq!(
            (
                t.input,
                t.output,
                t.cache_read,
                t.cache_write_5m,
                t.cache_write_1h,
                t.fast
            ),
            (3, 7, 0, 10, 30, true)
        );
        // No split: every cache write a 5-minute one; not an object: none.
        let line = br#"{"type":"assistant","message":{"usage":{"cache_creation_input_tokens":40,"cache_creation":null,"speed":"standard"},"id":[1]}}"#;
        let l = Lines::new(line).next().unwrap();
        let ev = parse_event(&mut p, &l).unwrap();
        let t = crate::transcript::usage(ev.message_get("usage").unwrap()).unwrap();
        assert_eq!((t.cache_write_5m, t.cache_write_1h, t.fast), (40, 0, false));
        assert!(crate::transcript::usage(ev.message_get("id").unwrap()).is_none());
        assert_eq!(
            TokenCounts::from_usage(ev.message_get("id").unwrap()),
            TokenCounts::default()
        );
    }
}
