//! The transcript fold's retries and hooks: what the CLI's own records say
//! of a session, as the stream's runs say it (the same
//! [`ApiRetries`] and [`Hooks`]).
//!
//! - A `system/api_error` record is one failed attempt of an API request
//!   that the CLI retries (`retryAttempt` of `maxRetries`, `retryInMs`):
//!   the stream's `system/api_retry`. Its `error` is an object, whose
//!   `status`, when there is one, is the stream's `error_status`; it has
//!   no category (the stream's `error`), so `last_error` stays empty. A
//!   request that failed for good is the assistant record the CLI writes
//!   (`isApiErrorMessage`), an API error.
//!   Its `error` (`rate_limit`) and first text are the run's
//!   [`ApiErrorMessage`], as a stream's `<synthetic>` message is.
//! - A `progress` record whose `data.type` is `hook_progress` is a hook
//!   that started (the stream's `system/hook_started`), one per hook
//!   command run.
//! - A `system/stop_hook_summary` is the outcome of the Stop hooks:
//!   `hookCount` hooks answered (the stream's `system/hook_response`), one
//!   failure per element of `hookErrors`. Transcripts record no other
//!   hook's outcome.

use super::NONE;
use crate::json::Value;
use crate::run::{ApiErrorMessage, ApiRetries, HookFailure, Hooks};

/// One `system/api_error` record: its time, the order it was seen in, and
/// `error.status`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Retry {
    pub(super) millis: Option<i64>,
    order: u64,
    status: Option<u64>,
    /// Its record's line.
    line: u64,
}

/// A session's retries and hooks, as folded.
#[derive(Clone, Debug, Default)]
pub(super) struct SystemFacts {
    /// Each retry, in the order seen.
    pub(super) retries: Vec<Retry>,
    hooks_started: u64,
    hook_responses: u64,
    /// (time or `i64::MIN`, order seen, line) of each failed Stop hook.
    hook_failures: Vec<(i64, u64, u64)>,
    /// Each API error message: (time or `i64::MIN`, order seen, `error`
    /// and text as the fold's names, line).
    api_errors: Vec<(i64, u64, u32, u32, u64)>,
}

impl SystemFacts {
    /// A `system/api_error` record (its root `rec`) at `millis`, the
    /// `order`-th record folded, on `line`.
    pub(super) fn retry(&mut self, rec: Value<'_>, millis: Option<i64>, order: u64, line: u64) {
        let status = rec.get_path("error.status").and_then(|v| v.as_u64());
        self.retries.push(Retry {
            millis,
            order,
            status,
            line,
        });
    }

    /// An `isApiErrorMessage` record at `at` (time or `i64::MIN`, order
    /// seen) on `line`, its `error` and text as the fold's names (`NONE`
    /// when absent).
    pub(super) fn api_error(&mut self, error: u32, text: u32, at: (i64, u64), line: u64) {
        self.api_errors.push((at.0, at.1, error, text, line));
    }

    /// A `hook_progress` record: a hook started.
    pub(super) fn hook_started(&mut self) {
        self.hooks_started += 1;
    }

    /// A `system/stop_hook_summary` record (its root `rec`) at `at` (time
    /// or `i64::MIN`, order seen), on `line`.
    pub(super) fn stop_hooks(&mut self, rec: Value<'_>, at: (i64, u64), line: u64) {
        self.hook_responses += rec.get("hookCount").and_then(|v| v.as_u64()).unwrap_or(0);
        if let Some(errors) = rec.get("hookErrors") {
            for _ in errors.elements() {
                self.hook_failures.push((at.0, at.1, line));
            }
        }
    }

    /// Take another fold's facts of the same session, its order numbers
    /// after `base`, its names mapped by `t`.
    pub(super) fn absorb(&mut self, of: SystemFacts, base: u64, t: &impl Fn(u32) -> u32) {
        self.api_errors.extend(
            of.api_errors
                .into_iter()
                .map(|(ms, o, e, x, line)| (ms, base + o, t(e), t(x), line)),
        );
        self.retries.extend(of.retries.into_iter().map(|r| Retry {
            order: base + r.order,
            ..r
        }));
        self.hooks_started += of.hooks_started;
        self.hook_responses += of.hook_responses;
        self.hook_failures.extend(
            of.hook_failures
                .into_iter()
                .map(|(ms, o, line)| (ms, base + o, line)),
        );
    }

    /// The retries that `keep` keeps (by their time), counted in their
    /// records' order of time as a stream's run counts its events
    /// ([`ApiRetries::add_retry`]): how many, per status (ascending), and
    /// the status of the latest one that has one.
    pub(super) fn api_retries(&self, keep: impl Fn(Option<i64>) -> bool) -> ApiRetries {
        let mut out = ApiRetries::default();
        for r in self.kept_retries(keep) {
            out.add_retry(r.status);
        }
        out.statuses.sort_unstable();
        out
    }

    /// The time and line of each retry `keep` keeps, in the order
    /// [`api_retries`](SystemFacts::api_retries) counts them.
    pub(super) fn retry_marks(
        &self,
        keep: impl Fn(Option<i64>) -> bool,
    ) -> Vec<(Option<i64>, u64)> {
        let kept = self.kept_retries(keep);
        kept.into_iter().map(|r| (r.millis, r.line)).collect()
    }

    fn kept_retries(&self, keep: impl Fn(Option<i64>) -> bool) -> Vec<&Retry> {
        let mut kept: Vec<&Retry> = self.retries.iter().filter(|r| keep(r.millis)).collect();
        kept.sort_unstable_by_key(|r| (r.millis.unwrap_or(i64::MIN), r.order));
        kept
    }

    /// The hooks, their failures in the order of their records' times.
    pub(super) fn hooks(&self) -> Hooks {
        let mut failures = self.hook_failures.clone();
        failures.sort_unstable();
        Hooks {
            started: self.hooks_started,
            responses: self.hook_responses,
            failures: failures
                .into_iter()
                .map(|(_, _, line)| HookFailure {
                    hook_name: "Stop".to_owned(),
                    line,
                    ..HookFailure::default()
                })
                .collect(),
        }
    }

    /// The API error messages in the order of their records' times, their
    /// names read by `name`.
    pub(super) fn api_errors(&self, name: impl Fn(u32) -> Option<String>) -> Vec<ApiErrorMessage> {
        let mut all = self.api_errors.clone();
        all.sort_unstable_by_key(|&(ms, o, ..)| (ms, o));
        all.into_iter()
            .map(|(_, _, error, text, line)| ApiErrorMessage {
                error: if error == NONE { None } else { name(error) },
                text: if text == NONE {
                    String::new()
                } else {
                    name(text).unwrap_or_default()
                },
                line,
            })
            .collect()
    }
}
