//! The failed runs: a list (one row per run `stats` counts failed, with
//! what `verdict --json` says of it), a timeline for each of the first
//! ones, and the inputs that held no events.
//!
//! A stream run's timeline is drawn over its event lines (streams carry
//! few timestamps): the main agent's model calls (its turns), its tool
//! calls from the `tool_use` to the `tool_result` (red when the result was
//! an error), its `system/api_retry` events, and one lane per subagent
//! with that subagent's calls. A transcript session's is drawn over
//! seconds from its first record, the same lanes from its records' times:
//! its API requests (the turns), tool calls from their `tool_use` to their
//! result where both have a timestamp, its API retries
//! (`system/api_error` records), and one lane per subagent.

use super::ReportFigures;
use super::charts::{self, FAILED, Lanes, MUTED, Mark, OK, PALETTE};
use super::figures::KeptRun;
use super::page::{esc, int, verdict_color};
use crate::report::{no_events_run, node_label};
use crate::run::{RunSummary, SubagentNode, ToolCall, VerdictSource};
use crate::time::parse_millis;
use std::fmt::Write as _;

/// Failed runs listed at most (the count above is always whole).
pub const LISTED: usize = 2000;
/// Failed runs whose timeline is drawn at most.
pub const TIMELINES: usize = 60;
/// Subagent lanes in a timeline at most (the rest share one).
const AGENT_LANES: usize = 8;

/// The list and timelines of failed runs, then the inputs without events.
pub(super) fn failed(o: &mut String, f: &ReportFigures) -> Result<(), String> {
    let failed: Vec<&KeptRun> = f.failed().collect();
    let _ = write!(
        o,
        "<h2 id=\"failed-title\">Failed runs</h2>\n<p>{} of {} runs did not succeed.",
        int(failed.len() as u64),
        int(f.stats.total.runs.all.runs)
    );
    if failed.len() > LISTED {
        let _ = write!(
            o,
            " The first {} are listed (<code>cctape verdict</code> lists them all).",
            int(LISTED as u64)
        );
    }
    o.push_str("</p>\n");
    if !failed.is_empty() {
        o.push_str(
            "<div class=\"scroll\"><table id=\"failed\"><caption>Failed runs (verdict --json)</caption><thead><tr>\
             <th>#</th><th class=\"t\">verdict</th><th class=\"t\">file</th>\
             <th class=\"t\">session</th><th class=\"t\">version</th><th>turns</th>\
             <th>seconds</th><th>cost</th><th>tool calls</th><th>tool errors</th>\
             <th>API retries</th><th class=\"t\">last error</th></tr></thead><tbody>",
        );
        for (i, k) in failed.iter().take(LISTED).enumerate() {
            row(o, i, k, f.name(k.input), drawn(i, k));
        }
        o.push_str("</tbody></table></div>\n");
    }
    if failed.len() > TIMELINES {
        let _ = writeln!(
            o,
            "<p class=\"note\">Timelines of the first {TIMELINES} failed runs.</p>"
        );
    }
    for (i, k) in failed.iter().take(TIMELINES).enumerate() {
        if drawn(i, k) {
            timeline(o, i, k, f.name(k.input))?;
        }
    }
    no_events(o, f);
    Ok(())
}

/// Whether the `i`th failed run gets a timeline: one of the first
/// [`TIMELINES`], with events to draw (an input without events has none).
fn drawn(i: usize, k: &KeptRun) -> bool {
    i < TIMELINES && k.run.events > 0
}

/// The last error a run's record holds: its result's `errors`, else its
/// last API retry's error, else its last API error message.
fn last_error(r: &RunSummary) -> Option<&str> {
    r.last_result
        .as_ref()
        .and_then(|l| l.errors.last())
        .map(String::as_str)
        .or(r.api_retries.last_error.as_deref())
        .or(r.api_errors.last().map(|e| e.text.as_str()))
}

fn row(o: &mut String, i: usize, k: &KeptRun, file: &str, drawn: bool) {
    let r = &k.run;
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let turns = r.last_result.as_ref().and_then(|l| l.num_turns);
    let ms = r.wall_ms.or(r.duration_ms_sum);
    let cost = r.cost_json();
    let id = if drawn {
        format!("<a href=\"#timeline-{i}\">{}</a>", i + 1)
    } else {
        (i + 1).to_string()
    };
    let error = last_error(r).map(|e| {
        let cut: String = e.chars().take(160).collect();
        if cut.len() < e.len() {
            format!("{cut}…")
        } else {
            cut
        }
    });
    let _ = write!(
        o,
        "<tr data-verdict=\"{}\"><td>{id}</td><td class=\"t\">{}</td>\
         <td class=\"w\">{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td>{}</td>\
         <td>{}</td><td data-cost=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
         <td class=\"w\">{}</td></tr>",
        r.verdict.as_str(),
        r.verdict.as_str(),
        esc(file),
        esc(r.session_id.as_deref().unwrap_or("-")),
        esc(r.claude_code_version.as_deref().unwrap_or("-")),
        opt(turns.map(|n| n.to_string())),
        opt(ms.map(|m| format!("{:.1}", m as f64 / 1000.0))),
        esc(&cost.to_string()),
        match &cost {
            serde_json::Value::Number(n) => n.as_f64().map_or("-".into(), |c| format!("${c:.4}")),
            serde_json::Value::String(s) => esc(s),
            _ => "-".into(),
        },
        int(r.tool_calls_total()),
        int(r.tool_errors_total()),
        int(r.api_retries.count),
        esc(error.as_deref().unwrap_or(""))
    );
}

/// A subagent's lane name, from the node that its calls' `agent` names.
fn agent_name(nodes: &[SubagentNode], id: &str) -> Option<String> {
    let mut stack: Vec<&SubagentNode> = nodes.iter().collect();
    while let Some(n) = stack.pop() {
        if n.tool_use_id == id || n.task_id.as_deref() == Some(id) {
            return Some(node_label(n));
        }
        stack.extend(&n.children);
    }
    None
}

/// The lane of a subagent (by the id its calls carry), made on first use;
/// past [`AGENT_LANES`] they share the last.
fn agent_lane(l: &mut Lanes, ids: &mut Vec<String>, id: &str, name: String) -> usize {
    if let Some(i) = ids.iter().position(|x| x == id) {
        return i + 3;
    }
    if ids.len() == AGENT_LANES {
        if l.names.len() == AGENT_LANES + 3 {
            l.names.push("other subagents".into());
            l.marks.push(Vec::new());
        }
        return AGENT_LANES + 3;
    }
    ids.push(id.to_owned());
    l.names.push(name);
    l.marks.push(Vec::new());
    ids.len() + 2
}

/// A tool call's mark: from its line to its result's (red for an error,
/// grey when never answered).
fn call_mark(c: &ToolCall) -> Mark {
    let start = c.line as f64;
    Mark {
        start,
        end: c.result_line.map_or(start, |l| l as f64),
        color: if c.error {
            FAILED
        } else if c.answered {
            OK
        } else {
            MUTED
        },
    }
}

/// The lanes of a stream run, over its lines from its first.
fn stream_lanes(k: &KeptRun) -> Lanes {
    let r = &k.run;
    let mut l = Lanes {
        names: vec!["turns".into(), "tool calls".into(), "API retries".into()],
        marks: vec![Vec::new(), Vec::new(), Vec::new()],
        axis: "event line".into(),
        start: r.first_line as f64,
        whole: true,
    };
    let mut ids = Vec::new();
    for c in &r.model_calls {
        let lane = match agent_of(&c.agent_id, &c.agent) {
            None => 0,
            Some(a) => agent_lane(&mut l, &mut ids, a, lane_name(r, a)),
        };
        let at = c.line as f64;
        l.marks[lane].push(Mark {
            start: at,
            end: at,
            color: PALETTE[4],
        });
    }
    for c in &r.tool_calls {
        let lane = match agent_of(&c.agent_id, &c.agent) {
            None => 1,
            Some(a) => agent_lane(&mut l, &mut ids, a, lane_name(r, a)),
        };
        l.marks[lane].push(call_mark(c));
    }
    for &(_, line) in &k.retries {
        l.marks[2].push(Mark {
            start: line as f64,
            end: line as f64,
            color: PALETTE[1],
        });
    }
    l
}

fn lane_name(r: &RunSummary, id: &str) -> String {
    let name = agent_name(&r.subagents, id).unwrap_or_else(|| format!("subagent {id}"));
    let cut: String = name.chars().take(36).collect();
    if cut.len() < name.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// The lanes of a transcript session, over seconds from its first record
/// (its lines are of several files): none for a stream's run, or a
/// session without a time.
fn session_lanes(k: &KeptRun) -> Option<Lanes> {
    let r = &k.run;
    if r.verdict_source != VerdictSource::Transcript {
        return None;
    }
    let t0 = r.started_at.as_deref().and_then(parse_millis)?;
    let secs = |ms: i64| (ms - t0) as f64 / 1000.0;
    let mut l = Lanes {
        names: vec!["turns".into(), "tool calls".into(), "API retries".into()],
        marks: vec![Vec::new(), Vec::new(), Vec::new()],
        axis: "seconds from the session's first record".into(),
        start: 0.0,
        whole: false,
    };
    let mut ids = Vec::new();
    // The model calls as a stream's are drawn, at their records' times.
    for c in &r.model_calls {
        let Some(at) = c.started_ms else { continue };
        let lane = match agent_of(&c.agent_id, &c.agent) {
            None => 0,
            Some(a) => agent_lane(&mut l, &mut ids, a, lane_name(r, a)),
        };
        l.marks[lane].push(Mark {
            start: secs(at),
            end: secs(at),
            color: PALETTE[4],
        });
    }
    for c in &r.tool_calls {
        let Some(at) = c.started_ms else {
            continue;
        };
        let start = secs(at);
        let end = c.duration_ms.map_or(start, |d| start + d as f64 / 1000.0);
        let lane = match agent_of(&c.agent_id, &c.agent) {
            None => 1,
            Some(a) => agent_lane(&mut l, &mut ids, a, lane_name(r, a)),
        };
        l.marks[lane].push(Mark {
            start,
            end,
            color: if c.error { FAILED } else { OK },
        });
    }
    for at in k.retries.iter().filter_map(|(ms, _)| *ms) {
        l.marks[2].push(Mark {
            start: secs(at),
            end: secs(at),
            color: PALETTE[1],
        });
    }
    Some(l)
}

/// The subagent that made a call: its own id when the call says it (a
/// transcript's), else the call that launched it; none for the main agent.
fn agent_of<'a>(agent_id: &'a Option<String>, agent: &'a Option<String>) -> Option<&'a str> {
    agent_id.as_deref().or(agent.as_deref())
}

/// A failed run's timeline and its calls as a table, in a `<details>`.
fn timeline(o: &mut String, i: usize, k: &KeptRun, file: &str) -> Result<(), String> {
    let r = &k.run;
    let (lanes, transcript) = match session_lanes(k) {
        Some(l) => (l, true),
        None => (stream_lanes(k), false),
    };
    let _ = writeln!(
        o,
        "<details id=\"timeline-{i}\" data-verdict=\"{}\"{}><summary>{}. <b style=\"color:#{}\">{}</b> {} \
         <span class=\"note\">{}</span></summary>",
        r.verdict.as_str(),
        // The first is open, so that the page shows what a timeline is.
        if i == 0 { " open" } else { "" },
        i + 1,
        hex(verdict_color(r.verdict)),
        r.verdict.as_str(),
        esc(file),
        esc(r.session_id.as_deref().unwrap_or("-")),
    );
    if lanes.marks.iter().all(Vec::is_empty) {
        o.push_str("<p class=\"note\">No calls to draw.</p></details>\n");
        return Ok(());
    }
    let svg = charts::timeline(&lanes, 1100)?;
    let _ = writeln!(
        o,
        "<figure role=\"img\" aria-label=\"timeline of failed run {}\">{svg}</figure>",
        i + 1
    );
    if transcript {
        o.push_str(
            "<p class=\"note\">A transcript session is drawn by its records' times; a line \
             below is its record's line in its own file.</p>\n",
        );
    }
    calls_table(o, i, k);
    o.push_str("</details>\n");
    Ok(())
}

fn hex(c: plotters::style::RGBColor) -> String {
    format!("{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// An API retry's row of the calls table.
fn retry_row(o: &mut String, line: u64) {
    let _ = write!(
        o,
        "<tr><td class=\"t\">main</td><td class=\"t\">API retry</td><td>{line}</td><td></td>\
         <td></td><td class=\"t\"></td></tr>"
    );
}

/// The calls the timeline draws, one row each.
fn calls_table(o: &mut String, i: usize, k: &KeptRun) {
    let r = &k.run;
    let _ = write!(
        o,
        "<table id=\"timeline-{i}-calls\"><caption>Calls (numbers)</caption><thead><tr>\
         <th class=\"t\">agent</th><th class=\"t\">call</th><th>line</th><th>result line</th>\
         <th>ms</th><th class=\"t\">outcome</th></tr></thead><tbody>"
    );
    let opt = |v: Option<String>| v.unwrap_or_default();
    let who = |a: Option<&str>| a.map_or("main".to_string(), |a| lane_name(r, a));
    for c in &r.model_calls {
        let _ = write!(
            o,
            "<tr><td class=\"t\">{}</td><td class=\"t\">model call</td><td>{}</td><td></td>\
             <td></td><td class=\"t\">{}</td></tr>",
            esc(&who(agent_of(&c.agent_id, &c.agent))),
            c.line,
            esc(c.model.as_deref().unwrap_or(""))
        );
    }
    for (_, line) in &k.retries {
        retry_row(o, *line);
    }
    for c in &r.tool_calls {
        let outcome = if c.rejected {
            "rejected"
        } else if c.error {
            "error"
        } else if c.answered {
            "ok"
        } else {
            "no result"
        };
        let _ = write!(
            o,
            "<tr><td class=\"t\">{}</td><td class=\"t\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"t\">{outcome}</td></tr>",
            esc(&who(agent_of(&c.agent_id, &c.agent))),
            esc(&c.name),
            c.line,
            opt(c.result_line.map(|l| l.to_string())),
            opt(c.duration_ms.map(|d| d.to_string())),
        );
    }
    o.push_str("</tbody></table>\n");
}

/// The inputs that held no events, with the verdict `verdict` gives each.
fn no_events(o: &mut String, f: &ReportFigures) {
    let n = &f.stats.no_events;
    if n.inputs.is_empty() {
        return;
    }
    let _ = write!(
        o,
        "<h2>Inputs without events</h2>\n<p>{} held no events: each is one run of its own, \
         counted above with the verdict below (the first 100 are listed).</p>\n<table id=\"no-events\"><caption>Inputs without \
         events</caption><thead><tr><th class=\"t\">file</th><th class=\"t\">format</th>\
         <th class=\"t\">verdict</th><th class=\"t\">what it holds</th></tr></thead><tbody>",
        if n.count() == 1 {
            "1 input".to_string()
        } else {
            format!("{} inputs", int(n.count()))
        }
    );
    for (name, what) in n.inputs.iter().take(100) {
        let r = no_events_run(None, what, None);
        let line = what
            .final_error
            .as_ref()
            .map(|e| e.line.as_str())
            .or(what.first_line.as_deref())
            .unwrap_or("");
        let _ = write!(
            o,
            "<tr data-verdict=\"{}\"><td class=\"t\">{}</td><td class=\"t\">{}</td>\
             <td class=\"t\">{}</td><td class=\"w\">{}</td></tr>",
            r.verdict.as_str(),
            esc(name),
            what.format.name(),
            r.verdict.as_str(),
            esc(line)
        );
    }
    o.push_str("</tbody></table>\n");
}
