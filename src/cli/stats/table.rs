//! `stats`' tables for people: the run and file table, the `--by` table
//! with its bar chart column, and the token and cost cells they share
//! (the JSON and CSV outputs are the report's own writers).

use super::*;

/// Eighths of a cell, the partial end of a bar.
const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// A bar `width` cells long at `max`, in Unicode blocks (a value above
/// zero shows at least an eighth).
fn bar(v: f64, max: f64, width: usize) -> String {
    if !(v > 0.0 && max > 0.0 && v.is_finite() && max.is_finite()) {
        return String::new();
    }
    let eighths = ((v / max).min(1.0) * (width * 8) as f64).round().max(1.0) as usize;
    format!("{}{}", "█".repeat(eighths / 8), EIGHTHS[eighths % 8])
}

/// The cost of a group as the chart draws it.
fn cost_f64(v: &SumValue) -> f64 {
    match v {
        SumValue::Finite(c) => *c,
        SumValue::Beyond(_) => f64::MAX,
    }
}

/// ccusage's columns: input, output, cache create, cache read, total
/// tokens, cost (compact: input, output, cost).
fn token_cells(t: &cctape::event::TokenCounts, cost: &SumValue, compact: bool) -> Vec<String> {
    if compact {
        return vec![
            thousands(t.input_tokens),
            thousands(t.output_tokens),
            money_sum(cost),
        ];
    }
    vec![
        thousands(t.input_tokens),
        thousands(t.output_tokens),
        thousands(t.cache_creation_input_tokens),
        thousands(t.cache_read_input_tokens),
        thousands(t.total()),
        money_sum(cost),
    ]
}

/// The `--by` table. Over transcripts alone, for the groupings ccusage
/// has (day, week, month, session, block), it has ccusage's columns and
/// a Total row; otherwise the run columns. Per-model rows with
/// `--breakdown`, a bar of each group's cost for calendar and block
/// groupings with a chart.
fn group_table(o: &mut String, f: &StatsFigures, by: GroupBy, style: TableStyle) {
    let transcripts = f.transcripts.is_some() && f.formats.keys().all(|k| *k == "transcript");
    let ccusage = transcripts
        && matches!(
            by,
            GroupBy::Day | GroupBy::Week | GroupBy::Month | GroupBy::Session | GroupBy::Block
        );
    let chart = style.chart && (by.is_calendar() || by == GroupBy::Block);
    let mut header = vec![(by.name(), Align::Left)];
    if by == GroupBy::Model {
        header.push(("role", Align::Left));
    }
    let run_columns: &[&str] = if style.compact {
        &["runs", "failed", "cost $"]
    } else {
        &[
            "runs",
            "failed",
            "cost $",
            "output tokens",
            "tool calls",
            "subagents",
            "api retries",
        ]
    };
    let token_columns: &[&str] = if style.compact {
        &["input", "output", "cost $"]
    } else {
        &[
            "input",
            "output",
            "cache create",
            "cache read",
            "total tokens",
            "cost $",
        ]
    };
    let columns = if ccusage { token_columns } else { run_columns };
    header.extend(columns.iter().map(|c| (*c, Align::Right)));
    if by == GroupBy::Model {
        // Each run's best figure, its share on each model.
        header.push(("tokens from", Align::Left));
    }
    if chart {
        header.push(("cost bar", Align::Left));
    }
    let mut max = 0.0f64;
    f.groups(by, |_, g| max = max.max(cost_f64(&g.cost.value())));
    let width = if style.compact { 10 } else { 24 };
    let run_cells = |row: &mut Vec<String>, g: &RunTotals| {
        row.extend([
            thousands(g.runs),
            thousands(g.failed()),
            money_sum(&g.cost.value()),
        ]);
        if !style.compact {
            row.extend([
                thousands(g.all_models().output_tokens),
                thousands(g.tool_calls().0),
                thousands(g.subagent_count),
                thousands(g.api_retries),
            ]);
        }
    };
    let model_cells = |row: &mut Vec<String>, m: &RoleTotals| {
        if ccusage {
            row.extend(token_cells(&m.tokens, &m.cost.value(), style.compact));
            return;
        }
        row.extend([thousands(m.runs), String::new(), money_sum(&m.cost.value())]);
        if !style.compact {
            row.push(thousands(m.tokens.output_tokens));
            row.extend([String::new(), String::new(), String::new()]);
        }
    };
    // Made twice, widths then lines: a table of 100,000 files holds one row
    // at a time.
    let rows = |out: &mut dyn FnMut(&[String])| {
        let mut row: Vec<String> = Vec::with_capacity(header.len());
        f.groups(by, |(k, role), g| {
            row.clear();
            let key = if by == GroupBy::Project {
                shown_project(k)
            } else {
                k.clone()
            };
            row.push(clean(&key));
            if let Some(role) = role {
                row.push(role.as_str().to_string());
            }
            if ccusage {
                row.extend(token_cells(&g.all_models(), &g.cost.value(), style.compact));
            } else {
                run_cells(&mut row, g);
            }
            if by == GroupBy::Model {
                row.push(
                    g.by_role
                        .values()
                        .next()
                        .map_or_else(String::new, |m| m.sources_text()),
                );
            }
            if chart {
                row.push(bar(cost_f64(&g.cost.value()), max, width));
            }
            out(&row);
            if style.breakdown && by != GroupBy::Model {
                for (model, m) in g.per_model() {
                    row.clear();
                    row.push(format!("  └ {}", clean(model)));
                    model_cells(&mut row, &m);
                    out(&row);
                }
            }
        });
        if ccusage {
            let all = &f.total.runs.all;
            row.clear();
            row.push("Total".to_string());
            row.extend(token_cells(
                &all.all_models(),
                &all.cost.value(),
                style.compact,
            ));
            out(&row);
        }
    };
    stream_table(o, &header, rows);
}

/// A token count for people, `≥` in front when some run's figure is a lower
/// bound.
fn tokens_cell(n: u64, lower: bool) -> String {
    format!("{}{}", if lower { "≥" } else { "" }, thousands(n))
}

/// How the `--by` table is laid out.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TableStyle {
    /// A row per model under each group.
    pub(super) breakdown: bool,
    /// Fewer columns.
    pub(super) compact: bool,
    /// A bar chart column (day, week, month, block).
    pub(super) chart: bool,
}

pub(super) fn print_human(f: &StatsFigures, names: &[String], style: TableStyle) {
    let total = &f.total;
    let by = f.grouping.by;
    let no_events = &f.no_events;
    let s = &total.stats;
    let r = &total.runs.all;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}, {}, {} ({} blank), {}, {}",
        count(s.files, "file", "files"),
        human_bytes(s.bytes),
        count(s.counts.lines, "line", "lines"),
        thousands(s.counts.blank_lines),
        count(s.counts.events, "event", "events"),
        count(s.counts.errors, "error", "errors"),
    );
    let verdicts: Vec<String> = Verdict::ALL
        .iter()
        .filter_map(|v| {
            let n = r.count(*v);
            (n > 0).then(|| format!("{} {}", thousands(n), v.as_str()))
        })
        .collect();
    let _ = writeln!(
        o,
        "{}: {}; cost ${}{}",
        count(r.runs, "run", "runs"),
        if verdicts.is_empty() {
            "-".to_string()
        } else {
            verdicts.join(", ")
        },
        money_sum(&r.cost.value()),
        if r.costs_not_summed > 0 {
            format!(
                " ({} beyond f64 not summed)",
                count(r.costs_not_summed, "cost", "costs")
            )
        } else {
            String::new()
        }
    );
    let range = &f.grouping.range;
    if !range.is_all() {
        let day = |d: Option<Day>| d.map_or("any day".into(), |d| d.to_string());
        let _ = writeln!(
            o,
            "days kept: {} to {} ({}): runs by the day they started, requests by their own",
            day(range.since),
            day(range.until),
            f.grouping.zone.name().unwrap_or("local time"),
        );
    }
    let sources: Vec<String> = r
        .cost_by_source
        .iter()
        .map(|(k, v)| {
            format!(
                "{} ${}",
                k.as_str().replace('_', " "),
                money_sum(&v.value())
            )
        })
        .collect();
    if sources.len() > 1 || r.cost_by_source.keys().any(|k| k.as_str() != "results") {
        let _ = writeln!(o, "cost by source: {}", sources.join(", "));
    }
    if f.formats.len() > 1 || f.formats.keys().any(|k| *k != "stream") {
        let list: Vec<String> = f
            .formats
            .iter()
            .map(|(k, n)| format!("{} {k}", thousands(*n)))
            .collect();
        let _ = writeln!(o, "formats: {}", list.join(", "));
    }
    if let Some(t) = &f.transcripts {
        let projects: std::collections::BTreeSet<&str> = t
            .sessions
            .iter()
            .filter_map(|s| s.project.as_deref())
            .collect();
        let _ = writeln!(
            o,
            "transcripts: {} in {}, {}{}; prices taken {}{}",
            count(t.sessions.len() as u64, "session", "sessions"),
            count(projects.len() as u64, "project", "projects"),
            count(t.total.requests, "API request", "API requests"),
            if t.undated.requests > 0 {
                format!(" ({} without a date)", thousands(t.undated.requests))
            } else {
                String::new()
            },
            clean(&t.prices_taken),
            if t.unpriced_models.is_empty() {
                String::new()
            } else {
                format!("; no price for {}", clean(&t.unpriced_models.join(", ")))
            },
        );
    }
    if no_events.count() > 0 {
        let kinds: Vec<String> = no_events
            .by_format
            .iter()
            .map(|(k, n)| format!("{} {k}", thousands(*n)))
            .collect();
        let _ = writeln!(
            o,
            "{} without events (each one run of its own): {}",
            count(no_events.count(), "input", "inputs"),
            kinds.join(", ")
        );
        const LISTED: usize = 10;
        for (name, n) in no_events.inputs.iter().take(LISTED) {
            let what = match (&n.final_error, &n.first_line) {
                (Some(e), _) => {
                    format!("{}, its last line: {}", e.verdict.as_str(), clean(&e.line))
                }
                (None, Some(l)) => format!("{}: {}", n.format.name(), clean(l)),
                (None, None) => n.format.name().to_string(),
            };
            let _ = writeln!(o, "  {}: {what}", clean(name));
        }
        if no_events.count() > LISTED as u64 {
            let _ = writeln!(
                o,
                "  ({} more)",
                thousands(no_events.count() - LISTED as u64)
            );
        }
    }
    let by_type = s.by_type();
    if !by_type.is_empty() {
        let mut rows: Vec<_> = by_type.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut t = Table::new(&[("type", Align::Left), ("events", Align::Right)]);
        for (k, n) in rows {
            t.row(vec![clean(&k), thousands(n)]);
        }
        let _ = write!(o, "\nevents by type\n{}", t.render());
    }
    if !total.records_by_type.is_empty() {
        let mut rows: Vec<_> = total.records_by_type.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut t = Table::new(&[("type", Align::Left), ("records", Align::Right)]);
        for (k, n) in rows {
            t.row(vec![clean(k), thousands(*n)]);
        }
        let _ = write!(o, "\ntranscript records by type\n{}", t.render());
    }
    if !r.by_role.is_empty() {
        let mut t = Table::new(&[
            ("model", Align::Left),
            ("role", Align::Left),
            ("runs", Align::Right),
            ("input", Align::Right),
            ("output", Align::Right),
            ("cache read", Align::Right),
            ("cache write", Align::Right),
            ("cost $", Align::Right),
        ]);
        for ((m, role), x) in &r.by_role {
            let tk = &x.tokens;
            t.row(vec![
                clean(m),
                role.as_str().to_string(),
                thousands(x.runs),
                thousands(tk.input_tokens),
                thousands(tk.output_tokens),
                thousands(tk.cache_read_input_tokens),
                thousands(tk.cache_creation_input_tokens),
                money_sum(&x.cost.value()),
            ]);
        }
        let _ = write!(o, "\ntokens and cost by model and role\n{}", t.render());
    }
    if r.runs > 0 {
        let mut t = Table::new(&[
            ("agent", Align::Left),
            ("calls", Align::Right),
            ("input", Align::Right),
            ("output", Align::Right),
            ("cache read", Align::Right),
            ("cache write", Align::Right),
            ("lower-bound runs", Align::Right),
        ]);
        // Claude Code's own calls: their modelUsage, in no agent's figure.
        let aux = (r.auxiliary != Default::default()).then_some(("auxiliary", &r.auxiliary, 0, 0));
        for (name, tk, calls, lower) in [
            Some(("main", &r.main, r.main_messages, r.main_lower_bound_runs)),
            Some((
                "subagents",
                &r.subagents,
                r.subagent_messages,
                r.subagents_lower_bound_runs,
            )),
            aux,
        ]
        .into_iter()
        .flatten()
        {
            t.row(vec![
                name.to_string(),
                if name == "auxiliary" {
                    "-".to_string()
                } else {
                    thousands(calls)
                },
                tokens_cell(tk.input_tokens, lower > 0),
                tokens_cell(tk.output_tokens, lower > 0),
                tokens_cell(tk.cache_read_input_tokens, lower > 0),
                tokens_cell(tk.cache_creation_input_tokens, lower > 0),
                thousands(lower),
            ]);
        }
        let _ = write!(
            o,
            "\ntokens by agent (best figure of each run; ≥ where some run's is a lower bound)\n{}",
            t.render()
        );
    }
    if !r.tools.is_empty() {
        let mut rows: Vec<_> = r.tools.iter().collect();
        rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
        let mut t = Table::new(&[
            ("tool", Align::Left),
            ("calls", Align::Right),
            ("errors", Align::Right),
            ("rejected", Align::Right),
        ]);
        for (k, x) in rows {
            t.row(vec![
                clean(k),
                thousands(x.calls),
                thousands(x.errors),
                thousands(x.rejections),
            ]);
        }
        let _ = write!(o, "\ntools\n{}", t.render());
    }
    if r.subagent_count > 0 || r.api_retries > 0 || !r.task_types.is_empty() {
        let _ = writeln!(o);
        let list = |m: &cctape::run::SmallMap<String, u64>| -> String {
            m.iter()
                .map(|(k, n)| format!("{} {}", clean(k), thousands(*n)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if r.subagent_count > 0 {
            let _ = writeln!(
                o,
                "subagents: {} ({})",
                thousands(r.subagent_count),
                list(&r.subagent_types)
            );
        }
        if !r.task_types.is_empty() {
            let n: u64 = r.task_types.values().sum();
            let _ = writeln!(
                o,
                "background tasks: {} ({})",
                thousands(n),
                list(&r.task_types)
            );
        }
        let _ = writeln!(o, "api retries: {}", thousands(r.api_retries));
    }
    let unknown = s.unknown();
    if !unknown.is_empty() {
        let mut t = Table::new(&[("kind", Align::Left), ("events", Align::Right)]);
        for (k, n) in unknown {
            t.row(vec![clean(&k), thousands(n)]);
        }
        let _ = write!(o, "\nkinds without a typed view\n{}", t.render());
    }
    if let Some(by) = by {
        let _ = write!(o, "\nby {}\n", by.name());
        group_table(&mut o, f, by, style);
    }
    if !s.errors.is_empty() {
        let _ = writeln!(
            o,
            "\nerrors (first {} of {})",
            thousands(s.errors.len() as u64),
            thousands(s.counts.errors)
        );
        for e in &s.errors {
            let name = clean(names.get(e.file).map(String::as_str).unwrap_or("?"));
            let message = clean(&e.message);
            let mut at = cctape::Position::new(e.line, e.offset);
            at.column = e.column;
            // Said as every command says a bad line (the library's one
            // formatter).
            let said = cctape::error::Described {
                input: Some(&name),
                position: at,
                kind: e.kind,
                reason: &message,
                io: None,
            };
            let _ = writeln!(o, "  {said}");
        }
    }
    // Last: every warning kind, with how often and where first.
    let _ = writeln!(o, "\nwarnings");
    if r.warnings.is_empty() {
        let _ = writeln!(o, "  none");
    } else {
        let mut t = Table::new(&[
            ("warning", Align::Left),
            ("count", Align::Right),
            ("first", Align::Left),
        ]);
        for (code, w) in &r.warnings {
            let first = match w.first {
                Some((i, line)) => {
                    let name = clean(names.get(i).map(String::as_str).unwrap_or("?"));
                    match line {
                        Some(l) => format!("{name}:{l}"),
                        None => name,
                    }
                }
                None => String::new(),
            };
            t.row(vec![code.to_string(), thousands(w.count), first]);
        }
        o.push_str(&t.render());
    }
    exec::write_out(&mut o.into_bytes());
}

/// A table laid out as [`Table`] lays it out (each column as wide as its
/// widest cell by display width, two spaces before each, trailing spaces
/// cut), its rows made by `rows` twice, once for the widths and once for
/// the lines, instead of held: `--by file` over 100,000 inputs.
fn stream_table(
    o: &mut String,
    header: &[(&str, Align)],
    rows: impl Fn(&mut dyn FnMut(&[String])),
) {
    use unicode_width::UnicodeWidthStr;
    let mut widths: Vec<usize> = header.iter().map(|(h, _)| h.width()).collect();
    rows(&mut |row| {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.width());
        }
    });
    let line = |o: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let start = o.len();
        for ((w, (_, align)), c) in widths
            .iter()
            .zip(header)
            .zip(cells.chain(std::iter::repeat("")))
        {
            let pad = w.saturating_sub(c.width());
            o.push_str("  ");
            if *align == Align::Right {
                o.extend(std::iter::repeat_n(' ', pad));
                o.push_str(c);
            } else {
                o.push_str(c);
                o.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let end = o[start..].trim_end().len() + start;
        o.truncate(end);
        o.push('\n');
    };
    line(o, &mut header.iter().map(|(h, _)| *h));
    rows(&mut |row| line(o, &mut row.iter().map(String::as_str)));
}
