//! The records `cctape verdict` prints, one JSON object a run, keys in the
//! order `docs/accounting.md` lists ("verdict keys"): a run of a stream, an
//! input without events (`no_events` after `file`), a transcript session
//! (`transcript` after `file`), an input that could not be read.

use super::shape::NoEvents;
use crate::run::{
    RunJson, RunSummary, WARN_FAILED_EXIT_ZERO, WARN_TEXT_RUN, Warning, without_events,
};
use crate::transcript::{Report, SessionEnd, SessionSummary};
use serde_json::{Map, Value, json};

/// A run's record as `cctape verdict` writes it: the run's object
/// ([`RunSummary::to_json`]) with `file` after `ok`, and for some records
/// one more entry after `file`. It is written as it is serialized
/// (`serde_json::to_writer`), with no map built for the run; `to_value`
/// gives the same object as a [`Value`].
#[derive(Debug)]
pub struct RunRecord<'a> {
    run: &'a RunSummary,
    file: &'a str,
    extra: Option<(&'static str, Value)>,
}

impl RunRecord<'_> {
    /// The record as a JSON value.
    pub fn to_value(&self) -> Value {
        // Every key is a string: this does not fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl serde::Serialize for RunRecord<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RunJson {
            run: self.run,
            file: Some(self.file),
            extra: self.extra.as_ref().map(|(k, v)| (*k, v)),
        }
        .serialize(s)
    }
}

/// A run's record: its JSON with `file` after `ok`.
pub fn run_record<'a>(r: &'a RunSummary, file: &'a str) -> RunRecord<'a> {
    RunRecord {
        run: r,
        file,
        extra: None,
    }
}

/// The run standing for an input without events: what its bad lines folded
/// into (`folded`, or an empty run), with the verdict
/// [`without_events`](crate::run::without_events) gives: its last line's
/// when that is the CLI's own final error (`Error: Reached max turns (30)`
/// is `max_turns`, `API Error: ...` is `error`, that line in `errors`),
/// else `success` for a zero exit code (a text-mode run: the input holds the
/// answer), else `startup_failure`; `exit_code` and `verdict_source` are
/// recorded. This is the one run such an input is, in every command
/// (`docs/accounting.md`, "What a run is").
///
/// ```
/// use cctape::report::{Shape, no_events_run};
/// use cctape::run::{Verdict, VerdictSource};
/// use cctape::sniff::Format;
///
/// let n = Shape::of_input(b"", Format::Text, Some(b"API Error: Unable to connect to API (ConnectionRefused)")).describe();
/// let r = no_events_run(None, &n, Some(1));
/// assert_eq!(r.verdict, Verdict::Error);
/// assert_eq!(r.last_result.unwrap().errors, ["API Error: Unable to connect to API (ConnectionRefused)"]);
///
/// // The run's final text, kept by a harness; the process exited 0.
/// let n = Shape::of_input(b"All four children created.\n", Format::Text, Some(b"All four children created.")).describe();
/// let r = no_events_run(None, &n, Some(0));
/// assert_eq!((r.verdict, r.verdict_source, r.ok()), (Verdict::Success, VerdictSource::ExitCode, true));
/// assert_eq!(no_events_run(None, &n, None).verdict, Verdict::StartupFailure);
/// ```
pub fn no_events_run(
    folded: Option<RunSummary>,
    n: &NoEvents,
    exit_code: Option<i32>,
) -> RunSummary {
    let mut r = folded.unwrap_or_else(RunSummary::empty);
    let final_error = n.final_error.as_ref().map(|e| e.verdict);
    let (stream, _) = without_events(final_error, None);
    let (v, source) = without_events(final_error, exit_code);
    r.verdict = v;
    r.stream_verdict = stream;
    r.verdict_source = source;
    r.exit_code = exit_code;
    if let Some(e) = &n.final_error {
        let mut last = r.last_result.take().unwrap_or_default();
        last.errors = vec![e.line.clone()];
        r.last_result = Some(last);
        if exit_code == Some(0) {
            r.warnings.push(Warning {
                code: WARN_FAILED_EXIT_ZERO,
                message: format!("exit code 0, but the run's verdict is {v}"),
                line: None,
            });
        }
    } else if exit_code == Some(0) {
        r.warnings.push(Warning {
            code: WARN_TEXT_RUN,
            message: format!(
                "no events ({}): the verdict is the exit code's",
                n.format.name()
            ),
            line: None,
        });
    }
    r
}

/// The record of an input without events: a run record (see
/// [`no_events_run`]) with `no_events` after `file`.
pub fn no_events_record<'a>(r: &'a RunSummary, file: &'a str, n: &NoEvents) -> RunRecord<'a> {
    RunRecord {
        run: r,
        file,
        extra: Some(("no_events", n.to_json())),
    }
}

/// The record of an input that could not be read: `{"verdict": null, "ok":
/// false, "file", "error"}`.
pub fn unreadable_record(file: &str, error: &str) -> Value {
    json!({"verdict": null, "ok": false, "file": file, "error": error})
}

/// A session transcript's record: the session as a run
/// ([`SessionSummary::to_run`]), with `transcript` after `file` holding
/// what its records say (`docs/transcripts.md`).
pub fn session_record<'a>(
    r: &'a RunSummary,
    file: &'a str,
    s: &SessionSummary,
    t: &Report,
) -> RunRecord<'a> {
    RunRecord {
        run: r,
        file,
        extra: Some(("transcript", session_json(s, t))),
    }
}

/// What a transcript's records say of its session.
pub(crate) fn session_json(s: &SessionSummary, t: &Report) -> Value {
    let f = &s.facts;
    let mut by_type: Map<String, Value> = Map::new();
    for (k, n) in &f.records {
        by_type.insert(super::stats::kind_name(*k).into(), json!(n));
    }
    let ended = f.ending.as_ref().map(|e| match e {
        SessionEnd::Reply { .. } => "reply",
        SessionEnd::ApiError => "api_error",
        SessionEnd::Interrupted => "interrupted",
        SessionEnd::AwaitingReply => "awaiting_reply",
    });
    let totals = &s.totals;
    json!({
        "project": s.project,
        "files": s.files,
        "records": f.records.iter().map(|(_, n)| n).sum::<u64>(),
        "records_by_type": by_type,
        "versions": f.versions,
        "ended_with": ended,
        "last_stop_reason": f.last_stop_reason,
        "api_errors": f.api_errors,
        "interrupted_turns": f.interrupted_turns,
        "tool_errors": f.tool_errors,
        "compactions": f.compactions,
        "turn_duration_ms": f.turn_duration_ms,
        "summary": f.summary,
        "requests": totals.requests,
        "undated_requests": s.undated.requests,
        "cache_write_5m_input_tokens": totals.cache_write_5m,
        "cache_write_1h_input_tokens": totals.cache_write_1h,
        "cost": {
            "records_cost_usd": (totals.stated_requests > 0).then_some(totals.cost_from_records_usd),
            "priced_cost_usd": (totals.priced_requests > 0).then_some(totals.cost_priced_usd),
            "unpriced_requests": totals.unpriced_requests,
            "prices": {"taken": t.prices_taken, "source": t.prices_source},
        },
        "agents": f.agents.iter().map(|a| json!({
            "agent_id": a.agent_id,
            "spawned_by": a.spawned_by,
            "tool_name": a.tool_name,
            "subagent_type": a.subagent_type,
            "description": a.description,
            "records": a.records,
            "tool_calls": a.tool_calls,
            "requests": a.totals.requests,
            "output_tokens": a.totals.output,
            "cost_usd": a.totals.cost_usd,
        })).collect::<Vec<_>>(),
    })
}
