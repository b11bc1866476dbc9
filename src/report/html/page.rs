//! The page's frame and its summary sections: totals, models, cost per day
//! and per block, tokens per day, verdicts per version and per week,
//! tools. Each chart is followed by its numbers as a table; the figures
//! carry stable `id`s and `data-*` attributes (the exact JSON text of
//! `stats --json` for a cost), so that a test reading the DOM compares them
//! exactly.

use super::ReportFigures;
use super::charts::{self, Bars, FAILED, MUTED, PALETTE, Series};
use crate::event::TokenCounts;
use crate::report::GroupBy;
use crate::run::{ModelRole, RunTotals, SumValue, Verdict};
use plotters::style::RGBColor;
use std::fmt::Write as _;

/// Text escaped for HTML, in an element or a quoted attribute.
pub(super) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(o, "\\u{{{:x}}}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

/// `1234567` as `1,234,567`.
pub(super) fn int(n: u64) -> String {
    let s = n.to_string();
    let mut o = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    o
}

/// A cost for people (`$1,234.5678`), or the text of a sum beyond `f64`.
pub(super) fn money(v: &SumValue) -> String {
    match v {
        SumValue::Finite(f) => {
            let s = format!("{:.4}", f.abs());
            let (i, frac) = s.split_once('.').unwrap_or((&s, "0000"));
            let i = i.parse::<u64>().map_or_else(|_| i.to_string(), int);
            format!("{}${i}.{frac}", if *f < 0.0 { "-" } else { "" })
        }
        SumValue::Beyond(t) => format!("${t}"),
    }
}

/// A sum's exact JSON text, as `stats --json` prints it.
pub(super) fn exact(v: &SumValue) -> String {
    v.to_json().to_string()
}

/// The colour of a verdict.
pub(super) fn verdict_color(v: Verdict) -> RGBColor {
    match v {
        Verdict::Success => RGBColor(0x59, 0xa1, 0x4f),
        Verdict::MaxTurns => RGBColor(0xf2, 0x8e, 0x2b),
        Verdict::MaxBudget => RGBColor(0xed, 0xc9, 0x48),
        Verdict::Interrupted => RGBColor(0xb0, 0x7a, 0xa1),
        Verdict::Error => FAILED,
        Verdict::NoResult => MUTED,
        _ => RGBColor(0x9c, 0x75, 0x5f),
    }
}

/// `model (role)`, the name of a series of costs.
fn model_role(model: &str, role: ModelRole) -> String {
    format!("{model} ({})", role.as_str())
}

const CSS: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1180px;padding:0 16px 48px;color:#222}\
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}div.scroll{overflow-x:auto}\
div.scroll,figure,details{content-visibility:auto;contain-intrinsic-size:auto 360px}\
caption{text-align:left;font-weight:600;padding:4px 0}\
th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}\
th:first-child,td:first-child,td.t,th.t,td.w{text-align:left}\
td.w{white-space:normal;max-width:520px;overflow-wrap:anywhere}\
dl.totals{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px}\
dl.totals div{border:1px solid #ddd;border-radius:6px;padding:6px 10px}\
dt{font-size:12px;color:#555}dd{margin:0;font-size:18px;font-weight:600}\
figure{margin:8px 0}svg{max-width:100%;height:auto}\
details{margin:4px 0 4px 12px}summary{cursor:pointer}.leaf{margin:2px 0 2px 28px}\
.note{color:#555;font-size:13px}.bad{color:#b00}";

/// The page's head, title and opening summary.
pub(super) fn head(o: &mut String, f: &ReportFigures, p: &super::Page) {
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"generator\" content=\"cctape {}\">\
         <title>{}</title><style>{CSS}</style></head><body>\n<h1>{}</h1>\n",
        esc(&p.version),
        esc(&p.title),
        esc(&p.title)
    );
    let s = &f.stats;
    let all = &s.total.runs.all;
    let zone = s.grouping.zone.name().unwrap_or("local time");
    let range = &s.grouping.range;
    let days = match (range.since, range.until) {
        (None, None) => String::new(),
        (a, b) => format!(
            "; days {} to {}",
            a.map_or("any".into(), |d| d.to_string()),
            b.map_or("any".into(), |d| d.to_string())
        ),
    };
    let _ = writeln!(
        o,
        "<p class=\"note\">{} inputs ({} bytes), {} runs; days and weeks in {}{}. \
         Every figure is the one <code>cctape stats --json</code> and \
         <code>cctape verdict --json</code> give for the same inputs.</p>",
        int(s.total.stats.files),
        int(s.total.stats.bytes),
        int(all.runs),
        esc(zone),
        esc(&days)
    );
}

/// One figure of the totals.
fn total(o: &mut String, id: &str, label: &str, value: &str, shown: &str) {
    let _ = write!(
        o,
        "<div><dt>{label}</dt><dd id=\"{id}\" data-value=\"{}\">{}</dd></div>",
        esc(value),
        esc(shown)
    );
}

/// The totals: runs, failed, cost, tokens, tools, subagents, retries.
pub(super) fn totals(o: &mut String, f: &ReportFigures) {
    let all = &f.stats.total.runs.all;
    let t = all.all_models();
    let (calls, errors) = all.tool_calls();
    o.push_str("<h2 id=\"totals-title\">Totals</h2>\n<dl class=\"totals\" id=\"totals\">");
    let cost = all.cost.value();
    total(
        o,
        "total-runs",
        "runs",
        &all.runs.to_string(),
        &int(all.runs),
    );
    total(
        o,
        "failed-runs",
        "failed runs",
        &all.failed().to_string(),
        &int(all.failed()),
    );
    total(o, "total-cost", "cost", &exact(&cost), &money(&cost));
    for (id, label, n) in [
        ("total-input", "input tokens", t.input_tokens),
        ("total-output", "output tokens", t.output_tokens),
        (
            "total-cache-write",
            "cache write tokens",
            t.cache_creation_input_tokens,
        ),
        (
            "total-cache-read",
            "cache read tokens",
            t.cache_read_input_tokens,
        ),
        ("total-tool-calls", "tool calls", calls),
        ("total-tool-errors", "tool errors", errors),
        ("total-subagents", "subagents", all.subagent_count),
        ("total-api-retries", "API retries", all.api_retries),
        (
            "inputs-without-events",
            "inputs without events",
            f.stats.no_events.count(),
        ),
    ] {
        total(o, id, label, &n.to_string(), &int(n));
    }
    o.push_str("</dl>\n");
}

/// The models (and roles) of every run, in one order for every chart: by
/// cost, highest first, then by name.
pub(super) fn model_order(all: &RunTotals) -> Vec<(String, ModelRole)> {
    let mut v: Vec<_> = all.by_role.iter().collect();
    v.sort_by(|a, b| {
        let c = |x: &crate::run::RoleTotals| x.cost.value().as_f64().unwrap_or(f64::MAX);
        c(b.1).total_cmp(&c(a.1)).then(a.0.cmp(b.0))
    });
    v.into_iter().map(|(k, _)| k.clone()).collect()
}

/// The per-model table (`stats --json`'s `by_model`, per role).
pub(super) fn models(o: &mut String, f: &ReportFigures) {
    let all = &f.stats.total.runs.all;
    o.push_str(
        "<h2>Models</h2>\n<table id=\"models\"><caption>Tokens and cost per model and role \
         (stats: by_model)</caption><thead><tr><th>model</th><th class=\"t\">role</th>\
         <th>runs</th><th>input</th><th>output</th><th>cache write</th><th>cache read</th>\
         <th>cost</th></tr></thead><tbody>",
    );
    for (m, role) in model_order(all) {
        let Some(x) = all.by_role.get(&(m.clone(), role)) else {
            continue;
        };
        let tk = &x.tokens;
        let cost = x.cost.value();
        let _ = write!(
            o,
            "<tr data-model=\"{}\" data-role=\"{}\" data-cost=\"{}\" data-runs=\"{}\">\
             <td>{}</td><td class=\"t\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            esc(&m),
            role.as_str(),
            esc(&exact(&cost)),
            x.runs,
            esc(&m),
            role.as_str(),
            int(x.runs),
            int(tk.input_tokens),
            int(tk.output_tokens),
            int(tk.cache_creation_input_tokens),
            int(tk.cache_read_input_tokens),
            money(&cost)
        );
    }
    o.push_str("</tbody></table>\n");
}

/// A chart and its table: `<figure>` with the SVG, then the table whose
/// rows are the categories (`data-key`) and whose columns are the series
/// (and the category's total, `data-total`), each cell's figure in
/// `data-value`.
fn chart_with_table(
    o: &mut String,
    id: &str,
    title: &str,
    key: &str,
    bars: &Bars,
    cells: &dyn Fn(usize, usize) -> (String, String),
    total: &dyn Fn(usize) -> (String, String),
) -> Result<(), String> {
    let _ = writeln!(o, "<h2 id=\"{id}-title\">{}</h2>", esc(title));
    if bars.keys.is_empty() {
        o.push_str("<p class=\"note\">Nothing to draw.</p>\n");
        return Ok(());
    }
    let svg = charts::columns(bars, 1100, 320)?;
    let _ = write!(
        o,
        "<figure role=\"img\" aria-labelledby=\"{id}-title\">{svg}</figure>\n\
         <div class=\"scroll\"><table id=\"{id}\"><caption>{} (numbers)</caption><thead><tr><th>{}</th>",
        esc(title),
        esc(key)
    );
    for s in &bars.series {
        let _ = write!(o, "<th>{}</th>", esc(&s.name));
    }
    o.push_str("<th>total</th></tr></thead><tbody>");
    for (i, k) in bars.keys.iter().enumerate() {
        let _ = write!(o, "<tr data-key=\"{}\"><td>{}</td>", esc(k), esc(k));
        for j in 0..bars.series.len() {
            // The column says the series; an empty cell has no value.
            match cells(i, j) {
                (exact, _) if exact.is_empty() => o.push_str("<td></td>"),
                (exact, shown) => {
                    let _ = write!(o, "<td data-value=\"{}\">{}</td>", esc(&exact), esc(&shown));
                }
            }
        }
        let (exact, shown) = total(i);
        let _ = write!(
            o,
            "<td data-total=\"{}\">{}</td></tr>",
            esc(&exact),
            esc(&shown)
        );
    }
    o.push_str("</tbody></table></div>\n");
    Ok(())
}

/// The groups of a grouping in the order `stats` prints them.
fn ordered(g: &crate::report::RunFigures, by: GroupBy) -> Vec<(String, &RunTotals)> {
    g.ordered(by)
        .into_iter()
        .map(|((k, _), t)| (k.clone(), t))
        .collect()
}

/// Cost per category, stacked by model and role.
fn cost_chart(
    o: &mut String,
    id: &str,
    title: &str,
    key: &str,
    groups: &[(String, &RunTotals)],
    order: &[(String, ModelRole)],
) -> Result<(), String> {
    // Each key with its place in `order` (its color): a search of `order`
    // per series was quadratic in the models (3.3 of the 5.6 billion
    // instructions of a report on 10,000 models).
    let used: Vec<(usize, &(String, ModelRole))> = order
        .iter()
        .enumerate()
        .filter(|(_, k)| groups.iter().any(|(_, g)| g.by_role.contains_key(*k)))
        .collect();
    let cost = |g: &RunTotals, k: &(String, ModelRole)| g.by_role.get(k).map(|r| r.cost.value());
    let bars = Bars {
        keys: groups.iter().map(|(k, _)| k.clone()).collect(),
        series: used
            .iter()
            .map(|&(place, k)| Series {
                name: model_role(&k.0, k.1),
                color: PALETTE[place % PALETTE.len()],
                values: groups
                    .iter()
                    .map(|(_, g)| cost(g, k).and_then(|v| v.as_f64()).unwrap_or(0.0))
                    .collect(),
            })
            .collect(),
        unit: "cost (USD)".into(),
    };
    let cells = |i: usize, j: usize| match cost(groups[i].1, used[j].1) {
        Some(v) => (exact(&v), money(&v)),
        None => (String::new(), String::new()),
    };
    let total = |i: usize| {
        let v = groups[i].1.cost.value();
        (exact(&v), money(&v))
    };
    chart_with_table(o, id, title, key, &bars, &cells, &total)
}

/// Cost per day and per five-hour block, stacked by model and role.
pub(super) fn costs(o: &mut String, f: &ReportFigures) -> Result<(), String> {
    let order = model_order(&f.stats.total.runs.all);
    let days = ordered(&f.days, GroupBy::Day);
    cost_chart(
        o,
        "cost-by-day",
        "Cost per day, by model (role)",
        "day",
        &days,
        &order,
    )?;
    let blocks = ordered(&f.stats.total.runs, GroupBy::Block);
    cost_chart(
        o,
        "cost-by-block",
        "Cost per five-hour block, by model (role)",
        "block start (UTC)",
        &blocks,
        &order,
    )
}

/// The four token counts of a day, in the chart's order.
fn token_kinds(t: &TokenCounts) -> [u64; 4] {
    [
        t.input_tokens,
        t.output_tokens,
        t.cache_creation_input_tokens,
        t.cache_read_input_tokens,
    ]
}

/// The token mix per day: input, output, cache write, cache read.
pub(super) fn tokens(o: &mut String, f: &ReportFigures) -> Result<(), String> {
    let days = ordered(&f.days, GroupBy::Day);
    let mix: Vec<[u64; 4]> = days
        .iter()
        .map(|(_, g)| token_kinds(&g.all_models()))
        .collect();
    let names = ["input", "output", "cache write", "cache read"];
    let colors = [
        PALETTE[0],
        PALETTE[1],
        PALETTE[2],
        RGBColor(0xc7, 0xd4, 0xe2),
    ];
    let bars = Bars {
        keys: days.iter().map(|(k, _)| k.clone()).collect(),
        series: (0..4)
            .map(|j| Series {
                name: names[j].into(),
                color: colors[j],
                values: mix.iter().map(|m| m[j] as f64).collect(),
            })
            .collect(),
        unit: "tokens".into(),
    };
    let cells = |i: usize, j: usize| (mix[i][j].to_string(), int(mix[i][j]));
    let total = |i: usize| {
        let n: u64 = mix[i].iter().sum();
        (n.to_string(), int(n))
    };
    chart_with_table(
        o,
        "tokens-by-day",
        "Tokens per day: input, output, cache write, cache read",
        "day",
        &bars,
        &cells,
        &total,
    )
}

/// Verdicts per category, stacked.
fn verdict_chart(
    o: &mut String,
    id: &str,
    title: &str,
    key: &str,
    groups: &[(String, &RunTotals)],
) -> Result<(), String> {
    let used: Vec<Verdict> = Verdict::ALL
        .into_iter()
        .filter(|v| groups.iter().any(|(_, g)| g.count(*v) > 0))
        .collect();
    let bars = Bars {
        keys: groups.iter().map(|(k, _)| k.clone()).collect(),
        series: used
            .iter()
            .map(|v| Series {
                name: v.as_str().into(),
                color: verdict_color(*v),
                values: groups.iter().map(|(_, g)| g.count(*v) as f64).collect(),
            })
            .collect(),
        unit: "runs".into(),
    };
    let cells = |i: usize, j: usize| {
        let n = groups[i].1.count(used[j]);
        (n.to_string(), int(n))
    };
    let total = |i: usize| (groups[i].1.runs.to_string(), int(groups[i].1.runs));
    chart_with_table(o, id, title, key, &bars, &cells, &total)
}

/// The verdict mix per Claude Code version and per week.
pub(super) fn verdicts(o: &mut String, f: &ReportFigures) -> Result<(), String> {
    let versions = ordered(&f.versions, GroupBy::Version);
    verdict_chart(
        o,
        "verdicts-by-version",
        "Verdicts per Claude Code version",
        "version",
        &versions,
    )?;
    let weeks = ordered(&f.weeks, GroupBy::Week);
    verdict_chart(
        o,
        "verdicts-by-week",
        "Verdicts per week (keyed by its Monday)",
        "week",
        &weeks,
    )
}

/// Tool calls and error rates per tool, most called first.
pub(super) fn tools(o: &mut String, f: &ReportFigures) -> Result<(), String> {
    let all = &f.stats.total.runs.all;
    let mut rows: Vec<_> = all.tools.iter().collect();
    rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
    o.push_str("<h2 id=\"tools-title\">Tool calls and errors per tool</h2>\n");
    if rows.is_empty() {
        o.push_str("<p class=\"note\">No tool calls.</p>\n");
        return Ok(());
    }
    let bars = Bars {
        keys: rows.iter().map(|(k, _)| (*k).clone()).collect(),
        series: vec![
            Series {
                name: "answered without error".into(),
                color: PALETTE[0],
                values: rows
                    .iter()
                    .map(|(_, t)| t.calls.saturating_sub(t.errors) as f64)
                    .collect(),
            },
            Series {
                name: "errors".into(),
                color: FAILED,
                values: rows.iter().map(|(_, t)| t.errors as f64).collect(),
            },
        ],
        unit: "calls".into(),
    };
    let svg = charts::rows(&bars, 1100)?;
    let _ = write!(
        o,
        "<figure role=\"img\" aria-labelledby=\"tools-title\">{svg}</figure>\n\
         <table id=\"tools\"><caption>Tool calls and errors per tool (numbers)</caption>\
         <thead><tr><th>tool</th><th>calls</th><th>errors</th><th>rejected</th>\
         <th>error rate</th></tr></thead><tbody>"
    );
    for (name, t) in rows {
        let rate = if t.calls > 0 {
            format!("{:.1}%", t.errors as f64 * 100.0 / t.calls as f64)
        } else {
            "-".into()
        };
        let _ = write!(
            o,
            "<tr data-tool=\"{}\" data-calls=\"{}\" data-errors=\"{}\"><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{rate}</td></tr>",
            esc(name),
            t.calls,
            t.errors,
            esc(name),
            int(t.calls),
            int(t.errors),
            int(t.rejections)
        );
    }
    o.push_str("</tbody></table>\n");
    Ok(())
}

/// The lines that were not events, as `stats` lists them: the first
/// [`crate::stats::MAX_ERRORS_KEPT`] with their positions (the library's
/// one formatter), and how many there were.
pub(super) fn errors(o: &mut String, f: &ReportFigures) {
    let s = &f.stats.total.stats;
    if s.counts.errors == 0 {
        return;
    }
    let _ = write!(
        o,
        "<h2 id=\"errors-title\">Lines that are not events</h2>\n<p id=\"error-count\" \
         data-errors=\"{}\">{} in all; the first {} with their positions (file, line, the \
         byte where the line starts, the column in it).</p>\n<table id=\"errors\"><caption>Lines \
         that are not events</caption><thead><tr><th class=\"t\">where and why</th></tr></thead>\
         <tbody>",
        s.counts.errors,
        int(s.counts.errors),
        int(s.errors.len() as u64),
    );
    for e in &s.errors {
        let name = f.stats.names.get(e.file).map_or("?", String::as_str);
        let mut at = crate::Position::new(e.line, e.offset);
        at.column = e.column;
        let said = crate::error::Described {
            input: Some(name),
            position: at,
            kind: e.kind,
            reason: &e.message,
            io: None,
        };
        let _ = write!(
            o,
            "<tr data-kind=\"{}\"><td class=\"w\">{}</td></tr>",
            e.kind,
            esc(&said.to_string())
        );
    }
    o.push_str("</tbody></table>\n");
}
