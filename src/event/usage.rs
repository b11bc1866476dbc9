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
        self.count(i).and_then(|v| v.as_u64()).unwrap_or(0)
    }

    /// `cache_creation`, the cache writes split by retention, when it is
    /// an object: its 5-minute and 1-hour counts (missing ones 0).
    pub(crate) fn cache_creation(&self) -> Option<(u64, u64)> {
        let c = self
            .0
            .get(4)
            .filter(|c| c.kind() == crate::json::ValueKind::Object)?;
        let n = |k: &str| c.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        Some((
            n("ephemeral_5m_input_tokens"),
            n("ephemeral_1h_input_tokens"),
        ))
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
