//! Output for people: money and counts with thousands separators, plurals,
//! names made safe to print, and aligned tables.
//!
//! Tables are laid out by `comfy-table` (default features off: no terminal
//! queries, no colour), in a plain style: no borders, columns two spaces
//! apart, numbers right-aligned, indented by two, no trailing spaces. Its
//! widths are display widths (a CJK name takes two columns), which a
//! count of characters gets wrong.

use super::output::thousands;
use cctape::run::SumValue;

/// A cost with thousands separators and 4 decimals: `1,234.5678`.
pub fn money(c: f64) -> String {
    let s = format!("{:.4}", c.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let int = int.parse::<u64>().map_or(int.to_string(), thousands);
    format!("{}{int}.{frac}", if c < 0.0 { "-" } else { "" })
}

/// A sum for people: [`money`], or the text of a sum beyond `f64`.
pub fn money_sum(v: &SumValue) -> String {
    match v {
        SumValue::Finite(f) => money(*f),
        SumValue::Beyond(t) => t.clone(),
    }
}

/// A duration for people, in seconds rounded to a tenth: `0.4s`,
/// `1,234.5s` (a negative one, from clocks that disagree, keeps its sign).
pub fn seconds(ms: i64) -> String {
    let tenths = ms.unsigned_abs().saturating_add(50) / 100;
    let sign = if ms < 0 { "-" } else { "" };
    format!("{sign}{}.{}s", thousands(tenths / 10), tenths % 10)
}

/// `1 tool call`, `2 tool calls`, `1,234 runs`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// A name safe to print on a terminal: control characters (escape codes,
/// line ends) shown as escapes ([`super::inputs::escape`], the one place
/// that decides how).
pub fn clean(s: &str) -> String {
    super::inputs::escape(s).into_owned()
}

pub use cctape::version::version_order;

/// How a column is aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A table: a header and rows of cells, laid out with each column as wide
/// as its widest cell, two spaces apart, indented by two.
pub struct Table {
    table: comfy_table::Table,
}

impl Table {
    /// A table with these column headers and alignments.
    pub fn new(header: &[(&str, Align)]) -> Table {
        use comfy_table::{CellAlignment, presets};
        let mut table = comfy_table::Table::new();
        table.load_style(presets::NOTHING);
        table.set_header(header.iter().map(|h| h.0));
        for (col, (_, align)) in table.column_iter_mut().zip(header) {
            // Two spaces before every column: the indent, then the gaps.
            col.set_padding((2, 0));
            col.set_cell_alignment(match align {
                Align::Left => CellAlignment::Left,
                Align::Right => CellAlignment::Right,
            });
        }
        Table { table }
    }

    /// Add a row (missing cells are empty).
    pub fn row(&mut self, cells: Vec<String>) {
        self.table.add_row(cells);
    }

    /// The table's lines, each ending in a newline, trailing spaces cut.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for line in self.table.lines() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_formats() {
        assert_eq!(money(0.0), "0.0000");
        assert_eq!(money(1234.56789), "1,234.5679");
        assert_eq!(money(-0.5), "-0.5000");
        assert_eq!(count(1, "tool call", "tool calls"), "1 tool call");
        assert_eq!(count(1200, "run", "runs"), "1,200 runs");
        assert_eq!(seconds(400), "0.4s");
        assert_eq!(seconds(1_234_567), "1,234.6s");
        assert_eq!(seconds(6360), "6.4s");
        assert_eq!(seconds(6349), "6.3s");
        assert_eq!(seconds(999_960), "1,000.0s");
        assert_eq!(seconds(-1500), "-1.5s");
        assert_eq!(clean("a\u{1b}[31mb\nc"), "a\\x1b[31mb\\nc");
        let mut t = Table::new(&[("model", Align::Left), ("runs", Align::Right)]);
        t.row(vec!["m".into(), "1,000".into()]);
        assert_eq!(t.render(), "  model   runs\n  m      1,000\n");
        // Display width, not characters: a CJK name takes two columns each.
        let mut t = Table::new(&[("model", Align::Left), ("runs", Align::Right)]);
        t.row(vec!["模型".into(), "1".into()]);
        assert_eq!(t.render(), "  model  runs\n  模型      1\n");
    }

    #[test]
    fn versions_in_semantic_order() {
        let mut v = vec![
            "unknown",
            "2.1.238",
            "2.1.41",
            "2.0.76",
            "10.0.0",
            "2.1.41-beta.2",
            "2.1.41-beta.10",
            "2.1.41-alpha",
            "2.1.41-1",
            "2.1",
            "2.1.41+build.5",
            "abc",
        ];
        v.sort_by(|a, b| version_order(a, b));
        assert_eq!(
            v,
            [
                "2.0.76",
                "2.1",
                "2.1.41-1",
                "2.1.41-alpha",
                "2.1.41-beta.2",
                "2.1.41-beta.10",
                "2.1.41",
                "2.1.41+build.5",
                "2.1.238",
                "10.0.0",
                "abc",
                "unknown",
            ]
        );
    }
}
