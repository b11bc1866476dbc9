//! The tool calls of a run or session and their results, kept by the one
//! rule both dialects fold them by. The stream's run state
//! (`run/state/tools.rs`) and the transcript fold
//! (`transcript/fold/tools.rs`) each keep theirs here, with their own key
//! (an interned id, a hash of the id as written) and their own places (a
//! line, a file and line in a session); the rule is this module's:
//!
//! - a call is kept once: the first by place (a later one with the same
//!   key is dropped, an earlier one takes its place);
//! - its result is the first by place, wherever it comes from, before or
//!   after its call;
//! - it failed if any of its results says so, and was rejected if any
//!   result, denial or notice says so;
//! - a result whose call never came is counted as one without a use.
//!
//! The calls stay in the order their keys were first seen (the order of
//! the lines for a stream).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

/// What came back for one call: its first result by place, and whether
/// any result said it failed or any notice that it was rejected.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Answer<R> {
    /// The first result by place; `None` when only a rejection came.
    pub(crate) first: Option<R>,
    /// A result said the call failed.
    pub(crate) error: bool,
    /// A result, a denial or a notice said the user rejected the call.
    pub(crate) rejected: bool,
}

impl<R> Answer<R> {
    /// One result, failed or not.
    pub(crate) fn result(r: R, error: bool) -> Answer<R> {
        Answer {
            first: Some(r),
            error,
            rejected: false,
        }
    }

    /// A rejection, without a result.
    pub(crate) fn rejection() -> Answer<R> {
        Answer {
            first: None,
            error: false,
            rejected: true,
        }
    }
}

/// Where and when a result was written: what a call's outcome reads of
/// its first result.
pub(crate) trait ResultPlace {
    /// The result's time, in milliseconds since the epoch.
    fn millis(&self) -> Option<i64>;
    /// The line of its event or record.
    fn line(&self) -> u64;
}

/// How one call ended, the same for both dialects: answered (a result
/// came), failed, rejected, how long it took from the call's time to its
/// first result's, and that result's line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Outcome {
    pub(crate) answered: bool,
    pub(crate) error: bool,
    pub(crate) rejected: bool,
    pub(crate) duration_ms: Option<i64>,
    pub(crate) result_line: Option<u64>,
}

impl<R: ResultPlace> Answer<R> {
    /// The outcome of the call made at `started_ms` that this answers.
    pub(crate) fn outcome(&self, started_ms: Option<i64>) -> Outcome {
        let first = self.first.as_ref();
        Outcome {
            answered: first.is_some(),
            error: self.error,
            rejected: self.rejected,
            duration_ms: started_ms
                .zip(first.and_then(R::millis))
                .map(|(s, e)| e - s),
            result_line: first.map(R::line),
        }
    }
}

impl<R> Default for Answer<R> {
    fn default() -> Self {
        Answer {
            first: None,
            error: false,
            rejected: false,
        }
    }
}

/// One key's call, once it came, and what came back for it.
#[derive(Clone, Debug)]
struct Entry<C, R> {
    call: Option<C>,
    answer: Answer<R>,
}

/// Tool calls by key, in the order they came, and their answers: one
/// entry per key, found by one lookup for a call or a result.
#[derive(Clone, Debug)]
pub(crate) struct ToolLedger<K, C, R, S> {
    entries: HashMap<K, Entry<C, R>, S>,
    /// The keys of the calls, in the order the calls came.
    order: Vec<K>,
}

impl<K, C, R, S: Default> Default for ToolLedger<K, C, R, S> {
    fn default() -> Self {
        ToolLedger {
            entries: HashMap::default(),
            order: Vec::new(),
        }
    }
}

impl<K: Hash + Eq + Copy, C, R, S: BuildHasher> ToolLedger<K, C, R, S> {
    /// `key`'s entry, made when it is new.
    fn entry(&mut self, key: K) -> &mut Entry<C, R> {
        self.entries.entry(key).or_insert_with(|| Entry {
            call: None,
            answer: Answer::default(),
        })
    }

    /// A call with `key`. `earlier(new, old)` tells whether the new call
    /// comes before the one kept (and may carry what it keeps of the old
    /// one into the new); if so the new one takes its place. Returns the
    /// call when it is the first with its key, for what is set only once.
    pub(crate) fn call(
        &mut self,
        key: K,
        call: C,
        earlier: impl FnOnce(&mut C, &C) -> bool,
    ) -> Option<&mut C> {
        let e = self.entries.entry(key).or_insert_with(|| Entry {
            call: None,
            answer: Answer::default(),
        });
        match &mut e.call {
            Some(old) => {
                let mut call = call;
                if earlier(&mut call, old) {
                    *old = call;
                }
                None
            }
            slot @ None => {
                self.order.push(key);
                Some(slot.insert(call))
            }
        }
    }

    /// An answer for the call with `key` (a result, a rejection, or
    /// another ledger's answer): errors and rejections add up, and the
    /// first result by place (`earlier(new, old)`) is kept.
    pub(crate) fn answer(&mut self, key: K, a: Answer<R>, earlier: impl FnOnce(&R, &R) -> bool) {
        let old = &mut self.entry(key).answer;
        old.error |= a.error;
        old.rejected |= a.rejected;
        match (&mut old.first, a.first) {
            (Some(o), Some(n)) => {
                if earlier(&n, o) {
                    *o = n;
                }
            }
            (o @ None, n) => *o = n,
            (Some(_), None) => {}
        }
    }

    /// The call kept for `key`.
    pub(crate) fn get(&self, key: &K) -> Option<&C> {
        self.entries.get(key)?.call.as_ref()
    }

    /// The calls with their keys and answers, in the order they came.
    pub(crate) fn calls(&self) -> impl Iterator<Item = (&K, &C, &Answer<R>)> {
        self.order.iter().filter_map(|k| {
            let e = self.entries.get(k)?;
            Some((k, e.call.as_ref()?, &e.answer))
        })
    }

    /// What came back for the call with `key` (nothing yet: no result,
    /// no error, no rejection).
    pub(crate) fn answer_of(&self, key: &K) -> Option<&Answer<R>> {
        Some(&self.entries.get(key)?.answer)
    }

    /// The results whose call never came (in no set order).
    pub(crate) fn results_without_call(&self) -> impl Iterator<Item = &R> {
        self.entries
            .values()
            .filter(|e| e.call.is_none())
            .filter_map(|e| e.answer.first.as_ref())
    }

    /// Every key's call (if it came) and answer (in no set order), to be
    /// taken into another ledger.
    pub(crate) fn into_parts(self) -> impl Iterator<Item = (K, Option<C>, Answer<R>)> {
        self.entries.into_iter().map(|(k, e)| (k, e.call, e.answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::RandomState;

    type Ledger = ToolLedger<u32, (u64, &'static str), u64, RandomState>;

    fn first_wins(_: &mut (u64, &'static str), _: &(u64, &'static str)) -> bool {
        false
    }

    #[test]
    fn a_call_is_kept_once_and_an_earlier_one_takes_its_place() {
        let mut l = Ledger::default();
        assert!(l.call(1, (10, "Bash"), first_wins).is_some());
        assert!(l.call(2, (11, "Read"), first_wins).is_some());
        assert!(l.call(1, (12, "Edit"), first_wins).is_none());
        assert_eq!(l.get(&1), Some(&(10, "Bash")));
        let by_line = |new: &mut (u64, &'static str), old: &(u64, &'static str)| new.0 < old.0;
        assert!(l.call(1, (3, "Grep"), by_line).is_none());
        assert!(l.call(1, (30, "Glob"), by_line).is_none());
        // In the order first seen, the earlier call in the first one's slot.
        let calls: Vec<_> = l.calls().map(|(k, c, _)| (*k, *c)).collect();
        assert_eq!(calls, vec![(1, (3, "Grep")), (2, (11, "Read"))]);
    }

    impl ResultPlace for u64 {
        fn millis(&self) -> Option<i64> {
            Some(*self as i64 * 1000)
        }
        fn line(&self) -> u64 {
            *self
        }
    }

    #[test]
    fn an_outcome_reads_the_first_result() {
        let a = Answer {
            rejected: true,
            ..Answer::result(7u64, true)
        };
        let o = a.outcome(Some(2_500));
        assert_eq!(
            (
                o.answered,
                o.error,
                o.rejected,
                o.duration_ms,
                o.result_line
            ),
            (true, true, true, Some(4_500), Some(7))
        );
        let none = Answer::<u64>::rejection().outcome(Some(2_500));
        assert_eq!(
            (
                none.answered,
                none.rejected,
                none.duration_ms,
                none.result_line
            ),
            (false, true, None, None)
        );
        assert_eq!(Answer::result(7u64, false).outcome(None).duration_ms, None);
    }

    #[test]
    fn the_first_result_by_place_is_kept_and_errors_and_rejections_add_up() {
        let mut l = Ledger::default();
        let earlier = |n: &u64, o: &u64| n < o;
        // Before its call, a rejection first, then results out of order.
        l.answer(1, Answer::rejection(), earlier);
        assert!(l.answer_of(&1).is_some_and(|a| a.first.is_none()));
        l.answer(1, Answer::result(20, false), earlier);
        l.answer(1, Answer::result(15, true), earlier);
        l.answer(1, Answer::result(30, false), earlier);
        let a = l.answer_of(&1).copied();
        assert_eq!(
            a.map(|a| (a.first, a.error, a.rejected)),
            Some((Some(15), true, true))
        );
        // Counted without a use until its call comes; a lone rejection is not.
        l.answer(2, Answer::rejection(), earlier);
        assert_eq!(
            l.results_without_call().copied().collect::<Vec<_>>(),
            vec![15]
        );
        // A call whose key came first with a result is listed in the order
        // the calls came.
        l.call(3, (35, "Read"), first_wins);
        assert!(l.call(1, (40, "Bash"), first_wins).is_some());
        assert_eq!(l.results_without_call().count(), 0);
        let listed: Vec<u32> = l.calls().map(|(k, _, _)| *k).collect();
        assert_eq!(listed, vec![3, 1]);
        let mut parts: Vec<(u32, bool)> =
            l.into_parts().map(|(k, c, _)| (k, c.is_some())).collect();
        parts.sort_unstable();
        assert_eq!(parts, vec![(1, true), (2, false), (3, true)]);
    }
}
