//! The verdict: how a run ended, from its last `result` (and the process's
//! exit code when known).

use std::fmt;

/// How a run ended.
///
/// Decided by the run's last `result` event, whatever follows it:
///
/// | verdict | when |
/// |---|---|
/// | [`Success`](Verdict::Success) | subtype `success` and `is_error` false (or absent) |
/// | [`MaxTurns`](Verdict::MaxTurns) | subtype `error_max_turns`, whatever `is_error` says (2.1.41 writes false) |
/// | [`MaxBudget`](Verdict::MaxBudget) | subtype `error_max_budget_usd` |
/// | [`Interrupted`](Verdict::Interrupted) | `error_during_execution` whose `terminal_reason` starts with `aborted`, or that follows a `[Request interrupted by user…` message in its round |
/// | [`Error`](Verdict::Error) | any other failure: other `error_during_execution`, an unknown subtype, `success` with `is_error` true (API errors) |
/// | [`NoResult`](Verdict::NoResult) | no `result` at all (killed, still running, or empty) |
/// | [`StartupFailure`](Verdict::StartupFailure) | an empty stream with a non-zero exit code |
///
/// A result without a `subtype` (1.0.x streams) is decided by `is_error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Verdict {
    /// The run finished its turn without error.
    Success,
    /// The run hit `--max-turns`.
    MaxTurns,
    /// The run hit `--max-budget-usd`.
    MaxBudget,
    /// The run was interrupted (SIGINT, a cancelled permission prompt).
    Interrupted,
    /// The run failed otherwise (API error, execution error, unknown).
    Error,
    /// The run has events but no result (killed or still running), or no
    /// events at all.
    NoResult,
    /// The process wrote nothing and exited non-zero (bad options, missing
    /// `--verbose`).
    StartupFailure,
}

impl Verdict {
    /// Every verdict, in declaration order.
    pub const ALL: [Verdict; 7] = [
        Verdict::Success,
        Verdict::MaxTurns,
        Verdict::MaxBudget,
        Verdict::Interrupted,
        Verdict::Error,
        Verdict::NoResult,
        Verdict::StartupFailure,
    ];

    /// The stable snake_case name: `success`, `max_turns`, `max_budget`,
    /// `interrupted`, `error`, `no_result`, `startup_failure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Success => "success",
            Verdict::MaxTurns => "max_turns",
            Verdict::MaxBudget => "max_budget",
            Verdict::Interrupted => "interrupted",
            Verdict::Error => "error",
            Verdict::NoResult => "no_result",
            Verdict::StartupFailure => "startup_failure",
        }
    }

    /// True only for [`Verdict::Success`].
    pub fn is_ok(self) -> bool {
        self == Verdict::Success
    }

    /// True when the run has no verdict of its own: [`Verdict::NoResult`].
    pub fn is_undecided(self) -> bool {
        self == Verdict::NoResult
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict for a last result with this `subtype`, `is_error` and
/// `terminal_reason`; `interrupt_seen` says whether a
/// `[Request interrupted by user…` message came in the result's round.
pub fn classify_result(
    subtype: Option<&str>,
    is_error: Option<bool>,
    terminal_reason: Option<&str>,
    interrupt_seen: bool,
) -> Verdict {
    let aborted = terminal_reason.is_some_and(|r| r.starts_with("aborted"));
    match subtype {
        Some("success") => {
            if is_error == Some(true) {
                Verdict::Error
            } else {
                Verdict::Success
            }
        }
        Some("error_max_turns") => Verdict::MaxTurns,
        Some("error_max_budget_usd") => Verdict::MaxBudget,
        Some("error_during_execution") => {
            if aborted || interrupt_seen {
                Verdict::Interrupted
            } else {
                Verdict::Error
            }
        }
        Some(_) => Verdict::Error,
        None => match is_error {
            Some(false) => Verdict::Success,
            Some(true) if aborted || interrupt_seen => Verdict::Interrupted,
            // No subtype and no is_error: nothing says it succeeded.
            _ => Verdict::Error,
        },
    }
}

/// Apply the process's exit code to a verdict decided from the stream: a
/// non-zero code means failure whatever the stream says (a success becomes
/// [`Verdict::Error`]); an empty stream (`had_events` false) with a
/// non-zero code is [`Verdict::StartupFailure`]. A zero code changes
/// nothing: the stream decides.
pub fn apply_exit_code(verdict: Verdict, had_events: bool, exit_code: i32) -> Verdict {
    if exit_code == 0 {
        return verdict;
    }
    if !had_events {
        return Verdict::StartupFailure;
    }
    match verdict {
        Verdict::Success => Verdict::Error,
        v => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable() {
        let names: Vec<_> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(
            names,
            [
                "success",
                "max_turns",
                "max_budget",
                "interrupted",
                "error",
                "no_result",
                "startup_failure"
            ]
        );
        assert!(Verdict::Success.is_ok());
        assert!(!Verdict::MaxTurns.is_ok());
    }

    #[test]
    fn classification_table() {
        use Verdict::*;
        let c = classify_result;
        assert_eq!(
            c(Some("success"), Some(false), Some("completed"), false),
            Success
        );
        assert_eq!(
            c(Some("success"), Some(true), Some("api_error"), false),
            Error
        );
        assert_eq!(
            c(Some("error_max_turns"), Some(false), None, false),
            MaxTurns
        );
        assert_eq!(
            c(Some("error_max_turns"), Some(true), None, false),
            MaxTurns
        );
        assert_eq!(
            c(Some("error_max_budget_usd"), Some(true), None, false),
            MaxBudget
        );
        assert_eq!(
            c(
                Some("error_during_execution"),
                Some(true),
                Some("aborted_tools"),
                false
            ),
            Interrupted
        );
        assert_eq!(
            c(
                Some("error_during_execution"),
                Some(true),
                Some("aborted_streaming"),
                false
            ),
            Interrupted
        );
        assert_eq!(
            c(Some("error_during_execution"), Some(true), None, true),
            Interrupted
        );
        assert_eq!(
            c(Some("error_during_execution"), Some(true), None, false),
            Error
        );
        assert_eq!(c(Some("error_new_kind"), Some(false), None, false), Error);
        assert_eq!(c(None, Some(false), None, false), Success);
        assert_eq!(c(None, Some(true), None, false), Error);
        assert_eq!(c(None, None, None, false), Error);
    }

    #[test]
    fn exit_code_overrides() {
        use Verdict::*;
        assert_eq!(apply_exit_code(Success, true, 0), Success);
        assert_eq!(apply_exit_code(Success, true, 1), Error);
        assert_eq!(apply_exit_code(MaxTurns, true, 1), MaxTurns);
        assert_eq!(apply_exit_code(NoResult, false, 1), StartupFailure);
        assert_eq!(apply_exit_code(NoResult, false, 0), NoResult);
        assert_eq!(apply_exit_code(NoResult, true, 137), NoResult);
    }
}
