//! The verdict: how a run ended, from its last `result` (and the process's
//! exit code when known).

use std::fmt;

/// How a run ended.
///
/// A stream's run is decided by its last `result` event, whatever follows
/// it:
///
/// | verdict | when |
/// |---|---|
/// | [`Success`](Verdict::Success) | subtype `success` and `is_error` false (or absent) |
/// | [`MaxTurns`](Verdict::MaxTurns) | subtype `error_max_turns`, whatever `is_error` says (2.1.41 writes false) |
/// | [`MaxBudget`](Verdict::MaxBudget) | subtype `error_max_budget_usd` |
/// | [`Interrupted`](Verdict::Interrupted) | `error_during_execution` whose `terminal_reason` starts with `aborted`, or that follows a `[Request interrupted by user…` message in its round |
/// | [`Error`](Verdict::Error) | any other failure: other `error_during_execution`, an unknown subtype, `success` with `is_error` true (API errors) |
/// | [`NoResult`](Verdict::NoResult) | no `result` at all (killed, still running) |
/// | [`StartupFailure`](Verdict::StartupFailure) | a result that names why Claude Code refused to start (`startup_failure_reason`, 2.1.274+), or an input without events that says nothing else (see [`without_events`]) |
///
/// A result without a `subtype` (1.0.x streams) is decided by `is_error`.
///
/// A session transcript has no result by nature; its verdict is what its
/// records show of the main chain's last turn ([`Ended`](Verdict::Ended),
/// [`Interrupted`](Verdict::Interrupted), [`ApiError`](Verdict::ApiError),
/// [`CutOff`](Verdict::CutOff), [`Error`](Verdict::Error) for a reply cut
/// short by `max_tokens` or a `refusal`, [`NoResult`](Verdict::NoResult)
/// when the main chain has no turn at all).
///
/// [`VerdictSource`] says which of these decided a run's verdict.
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
    /// The run has events but no result (killed or still running); a
    /// transcript session whose main chain has no turn.
    NoResult,
    /// Claude Code did not start: a result naming the cause
    /// (`startup_failure_reason`), or an input without events and without
    /// a zero exit code (bad options, missing `--verbose`).
    StartupFailure,
    /// A transcript session whose main chain's last turn got its reply:
    /// the session ended there (a healthy session; [`is_ok`](Verdict::is_ok)).
    Ended,
    /// A transcript session whose last turn ended on an API error
    /// (`isApiErrorMessage`, `system/api_error`).
    ApiError,
    /// A transcript session cut off mid-turn: its last turn is a prompt or
    /// a tool result no reply followed (killed, still running, or the
    /// file was cut).
    CutOff,
}

impl Verdict {
    /// Every verdict, in declaration order.
    pub const ALL: [Verdict; 10] = [
        Verdict::Success,
        Verdict::MaxTurns,
        Verdict::MaxBudget,
        Verdict::Interrupted,
        Verdict::Error,
        Verdict::NoResult,
        Verdict::StartupFailure,
        Verdict::Ended,
        Verdict::ApiError,
        Verdict::CutOff,
    ];

    /// The stable snake_case name: `success`, `max_turns`, `max_budget`,
    /// `interrupted`, `error`, `no_result`, `startup_failure`, `ended`,
    /// `api_error`, `cut_off`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Success => "success",
            Verdict::MaxTurns => "max_turns",
            Verdict::MaxBudget => "max_budget",
            Verdict::Interrupted => "interrupted",
            Verdict::Error => "error",
            Verdict::NoResult => "no_result",
            Verdict::StartupFailure => "startup_failure",
            Verdict::Ended => "ended",
            Verdict::ApiError => "api_error",
            Verdict::CutOff => "cut_off",
        }
    }

    /// True for the verdicts of a healthy run: [`Verdict::Success`] (a
    /// stream's) and [`Verdict::Ended`] (a transcript session's).
    pub fn is_ok(self) -> bool {
        matches!(self, Verdict::Success | Verdict::Ended)
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

/// What decided a run's verdict: the stream (its last result, or its end
/// without one), a text output's last line, a transcript's records, the
/// process's exit code, or nothing at all.
///
/// The exit code decides only what the stream cannot say: a non-zero code
/// over a stream that says success (the stream cannot know how the process
/// ended), and an input without events, which says nothing of the run
/// (see [`without_events`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum VerdictSource {
    /// The run's last `result` event.
    #[default]
    Result,
    /// The stream has events but ended without a result.
    StreamEnd,
    /// A text output's last line is the CLI's own final error
    /// (`Error: Reached max turns (30)`, `API Error: ...`).
    FinalError,
    /// The process's exit code: a non-zero code over a stream that says
    /// success, or any code over an input without events.
    ExitCode,
    /// A session transcript's records (how its main chain's last turn
    /// ended).
    Transcript,
    /// Nothing: an input without events, no final error line and no exit
    /// code ([`Verdict::StartupFailure`]).
    NoEvents,
}

impl VerdictSource {
    /// `result`, `stream_end`, `final_error`, `exit_code`, `transcript`,
    /// `no_events`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictSource::Result => "result",
            VerdictSource::StreamEnd => "stream_end",
            VerdictSource::FinalError => "final_error",
            VerdictSource::ExitCode => "exit_code",
            VerdictSource::Transcript => "transcript",
            VerdictSource::NoEvents => "no_events",
        }
    }
}

impl fmt::Display for VerdictSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Apply the process's exit code to a verdict decided from the stream: a
/// non-zero code means failure whatever the stream says (a success, or a
/// transcript's [`Verdict::Ended`], becomes [`Verdict::Error`]); an empty
/// stream (`had_events` false) is decided by [`without_events`] (no final
/// error line). A zero code over events changes nothing: the stream
/// decides.
pub fn apply_exit_code(verdict: Verdict, had_events: bool, exit_code: i32) -> Verdict {
    if !had_events {
        return without_events(None, Some(exit_code)).0;
    }
    match verdict {
        v if v.is_ok() && exit_code != 0 => Verdict::Error,
        v => v,
    }
}

/// The verdict of an input without events (a text output, an empty file,
/// JSON that is not events, lines cut by a logger), and what decided it.
/// Such an input says nothing of how the run went unless its last line is
/// the CLI's own final error (`final_error`: that line's verdict, whatever
/// the exit code); otherwise the exit code decides, as the stream cannot:
///
/// | final error line | exit code | verdict | source |
/// |---|---|---|---|
/// | its verdict | any | `max_turns` or `error` | [`FinalError`](VerdictSource::FinalError) |
/// | none | 0 | [`Success`](Verdict::Success): a text-mode run (`--output-format text`, or a harness that kept only the answer) | [`ExitCode`](VerdictSource::ExitCode) |
/// | none | non-zero | [`StartupFailure`](Verdict::StartupFailure) | [`ExitCode`](VerdictSource::ExitCode) |
/// | none | unknown | [`StartupFailure`](Verdict::StartupFailure) | [`NoEvents`](VerdictSource::NoEvents) |
///
/// ```
/// use cctape::run::{Verdict, VerdictSource, without_events};
///
/// assert_eq!(without_events(None, Some(0)), (Verdict::Success, VerdictSource::ExitCode));
/// assert_eq!(without_events(None, Some(1)), (Verdict::StartupFailure, VerdictSource::ExitCode));
/// assert_eq!(without_events(None, None), (Verdict::StartupFailure, VerdictSource::NoEvents));
/// assert_eq!(
///     without_events(Some(Verdict::MaxTurns), Some(0)),
///     (Verdict::MaxTurns, VerdictSource::FinalError)
/// );
/// ```
pub fn without_events(
    final_error: Option<Verdict>,
    exit_code: Option<i32>,
) -> (Verdict, VerdictSource) {
    match (final_error, exit_code) {
        (Some(v), _) => (v, VerdictSource::FinalError),
        (None, Some(0)) => (Verdict::Success, VerdictSource::ExitCode),
        (None, Some(_)) => (Verdict::StartupFailure, VerdictSource::ExitCode),
        (None, None) => (Verdict::StartupFailure, VerdictSource::NoEvents),
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
                "startup_failure",
                "ended",
                "api_error",
                "cut_off"
            ]
        );
        assert!(Verdict::Success.is_ok());
        assert!(Verdict::Ended.is_ok());
        assert!(!Verdict::MaxTurns.is_ok());
        assert!(!Verdict::CutOff.is_ok());
        assert!(!Verdict::ApiError.is_ok());
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
        // Nothing in the input: the zero code says the run succeeded.
        assert_eq!(apply_exit_code(NoResult, false, 0), Success);
        assert_eq!(apply_exit_code(NoResult, true, 137), NoResult);
        assert_eq!(apply_exit_code(NoResult, true, 0), NoResult);
    }
}
