//! The subagent tree: each run with subagents as a collapsible
//! `<details>`, each subagent or task under the one that launched it, with
//! its output tokens (its best figure, as `cctape tree` gives it), tool
//! calls, duration and status.

use super::ReportFigures;
use super::figures::KeptRun;
use super::page::{esc, int};
use crate::report::{node_figures, node_label};
use crate::run::SubagentNode;
use std::fmt::Write as _;

/// Runs drawn in the tree at most: those whose subagents wrote the most.
pub const TREE_RUNS: usize = 100;

fn secs(ms: Option<u64>) -> String {
    ms.map_or(String::new(), |ms| format!(", {:.1} s", ms as f64 / 1000.0))
}

fn node(o: &mut String, n: &SubagentNode) {
    let (tokens, tools, ms) = node_figures(n);
    let status = n.status.as_deref().unwrap_or("?");
    let text = format!(
        "{} <span class=\"note\">[{}] {}{} output tokens ({}), {} tool calls{}</span>",
        esc(&node_label(n)),
        esc(status),
        if n.usage.lower_bound() { "≥" } else { "" },
        int(tokens),
        n.usage.source.as_str(),
        int(tools),
        secs(ms)
    );
    let attrs = format!(
        "data-output-tokens=\"{tokens}\" data-tool-calls=\"{tools}\"{}",
        ms.map_or(String::new(), |d| format!(" data-duration-ms=\"{d}\""))
    );
    if n.children.is_empty() {
        let _ = write!(o, "<div class=\"leaf\" {attrs}>• {text}</div>");
        return;
    }
    let _ = write!(o, "<details {attrs}><summary>{text}</summary>");
    for c in &n.children {
        node(o, c);
    }
    o.push_str("</details>");
}

/// The tree of every run with subagents (the [`TREE_RUNS`] whose
/// subagents wrote the most output tokens).
pub(super) fn subagents(o: &mut String, f: &ReportFigures) {
    let mut runs: Vec<&KeptRun> = f
        .runs
        .iter()
        .filter(|k| !k.run.subagents.is_empty())
        .collect();
    o.push_str("<h2 id=\"subagents-title\">Subagent tree</h2>\n");
    let _ = write!(
        o,
        "<p>{} runs launched subagents or tasks ({} subagents in all).",
        int(runs.len() as u64),
        int(f.stats.total.runs.all.subagent_count)
    );
    if runs.len() > TREE_RUNS {
        let _ = write!(
            o,
            " The {TREE_RUNS} whose subagents wrote the most are drawn (<code>cctape tree</code> \
             draws them all)."
        );
    }
    o.push_str("</p>\n<div id=\"subagent-tree\">");
    runs.sort_by_key(|k| std::cmp::Reverse(k.run.usage.subagents.tokens.output_tokens));
    for k in runs.into_iter().take(TREE_RUNS) {
        let r = &k.run;
        let main = &r.usage.main;
        let _ = write!(
            o,
            "<details class=\"run\" data-file=\"{}\" data-subagents=\"{}\"><summary>{} \
             <span class=\"note\">session {} [{}]: main agent {} output tokens; {} subagents, \
             {} output tokens{}</span></summary>",
            esc(f.name(k.input)),
            r.subagent_count(),
            esc(f.name(k.input)),
            esc(r.session_id.as_deref().unwrap_or("-")),
            r.verdict.as_str(),
            int(main.tokens.output_tokens),
            int(r.subagent_count()),
            int(r.usage.subagents.tokens.output_tokens),
            secs(r.wall_ms.and_then(|m| u64::try_from(m).ok()))
        );
        for n in &r.subagents {
            node(o, n);
        }
        o.push_str("</details>\n");
    }
    o.push_str("</div>\n");
}
