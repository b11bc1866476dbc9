//! `cctape report --html`: one self-contained, offline HTML page of a set
//! of runs: totals and models, cost per day and per five-hour block
//! stacked by model and role, the token mix per day, verdicts per Claude
//! Code version and per week, tool calls and errors per tool, the failed
//! runs with a timeline each, and the subagent tree.
//!
//! This module owns the page; it computes no figure of its own. The
//! figures are those of [`StatsFigures`](crate::report::StatsFigures) and
//! [`RunFigures`](crate::report::RunFigures) (what `stats --json` prints,
//! gathered by [`ReportFigures`]) and the runs' [`RunSummary`] records (what
//! `verdict --json` prints). Charts are drawn by plotters' SVG back end and
//! inlined; the page loads nothing (no script, font, style sheet or image
//! from anywhere), and each chart is followed by its numbers as a table.
//!
//! ```
//! use cctape::pricing::PriceTable;
//! use cctape::report::html::{Page, ReportFigures, RunsSeen, render};
//! use cctape::report::{GroupBy, Grouping, InputFigures, StatsReport};
//! use cctape::run::runs_of_slice;
//! use cctape::time::Zone;
//!
//! let log = br#"{"type":"system","subtype":"init","session_id":"a1","model":"claude-sonnet-4-5","claude_code_version":"2.1.41"}
//! {"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":30,"total_cost_usd":0.25,"session_id":"a1"}
//! "#;
//! let zone = Zone::utc();
//! let g = Grouping { by: Some(GroupBy::Block), zone: zone.clone(), range: Default::default() };
//! let mut stats = StatsReport::new(vec!["run.jsonl".into()], g.clone(), PriceTable::builtin().clone());
//! let mut input = InputFigures::default();
//! let mut seen = RunsSeen::new(&zone, Default::default());
//! for run in runs_of_slice(log) {
//!     input.runs.add(0, "run.jsonl", &run, &g);
//!     seen.add(0, "run.jsonl", &run);
//! }
//! stats.add_input(0, input);
//! let figures = ReportFigures::finish(stats.finish(), seen);
//! assert_eq!(figures.failed().count(), 1);
//! let html = render(&figures, &Page::default()).unwrap();
//! assert!(html.contains(r#"id="failed-runs" data-value="1""#));
//! assert!(!html.contains("http:") && !html.contains("https:"));
//! ```
//!
//! [`RunSummary`]: crate::run::RunSummary

mod charts;
mod figures;
mod page;
mod runs;
mod tree;

pub use figures::{KeptRun, ReportFigures, RunsSeen};
pub use runs::{LISTED, TIMELINES};
pub use tree::TREE_RUNS;

/// What the page says of itself.
#[derive(Clone, Debug)]
pub struct Page {
    /// Its title.
    pub title: String,
    /// The cctape version that made it (in a `generator` meta tag).
    pub version: String,
}

impl Default for Page {
    fn default() -> Page {
        Page {
            title: "cctape report".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The whole page; an error only when a chart could not be drawn.
pub fn render(f: &ReportFigures, p: &Page) -> Result<String, String> {
    let mut o = String::with_capacity(256 << 10);
    page::head(&mut o, f, p);
    page::totals(&mut o, f);
    page::models(&mut o, f);
    page::costs(&mut o, f)?;
    page::tokens(&mut o, f)?;
    page::verdicts(&mut o, f)?;
    page::tools(&mut o, f)?;
    runs::failed(&mut o, f)?;
    tree::subagents(&mut o, f);
    page::errors(&mut o, f);
    o.push_str("</body></html>\n");
    Ok(o)
}
