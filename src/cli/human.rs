//! Output for people: money and counts with thousands separators, plurals,
//! names made safe to print, and aligned tables.
//!
//! Tables are laid out here rather than with a table crate (comfy-table,
//! tabled): the commands print plain left/right-aligned columns with no
//! borders or colour, which is a few lines over the widths; a crate would
//! add a dependency for nothing it does better here.

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
    aligns: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers and alignments.
    pub fn new(header: &[(&str, Align)]) -> Table {
        Table {
            aligns: header.iter().map(|h| h.1).collect(),
            rows: vec![header.iter().map(|h| h.0.to_string()).collect()],
        }
    }

    /// Add a row (missing cells are empty).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table's lines, each ending in a newline, trailing spaces cut.
    pub fn render(&self) -> String {
        let n = self.aligns.len();
        let width = |c: &str| c.chars().count();
        let mut w = vec![0; n];
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(n) {
                w[i] = w[i].max(width(c));
            }
        }
        let mut out = String::new();
        for r in &self.rows {
            let mut line = String::from(" ");
            for (i, (&wi, &align)) in w.iter().zip(&self.aligns).enumerate() {
                let c = r.get(i).map_or("", String::as_str);
                let pad = wi - width(c);
                line.push(' ');
                match align {
                    Align::Left => {
                        line.push_str(c);
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                    Align::Right => {
                        line.extend(std::iter::repeat_n(' ', pad));
                        line.push_str(c);
                    }
                }
                line.push(' ');
            }
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
        assert_eq!(clean("a\u{1b}[31mb\nc"), "a\\x1b[31mb\\nc");
        let mut t = Table::new(&[("model", Align::Left), ("runs", Align::Right)]);
        t.row(vec!["m".into(), "1,000".into()]);
        assert_eq!(t.render(), "  model   runs\n  m      1,000\n");
    }
}
