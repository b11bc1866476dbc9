//! The report's charts, drawn by plotters' SVG back end (no hand-written
//! SVG): stacked columns over categories (days, blocks, versions, weeks),
//! horizontal bars (tools), and a run's timeline (lanes of spans and
//! ticks). Each returns one `<svg>` element to inline in the page.
//!
//! Text is left to the browser's own sans-serif font (plotters' font
//! features are off: no font file is read or embedded). The SVG namespace
//! attribute is dropped: an `<svg>` inside HTML needs none, and the page
//! then names no `http:` URL at all.

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordusize};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One stacked series: its name, colour and a value per category.
#[derive(Clone, Debug)]
pub(super) struct Series {
    pub(crate) name: String,
    pub(crate) color: RGBColor,
    pub(crate) values: Vec<f64>,
}

/// Stacked bars: the categories (in order) and the series stacked on them.
#[derive(Clone, Debug)]
pub(super) struct Bars {
    pub(crate) keys: Vec<String>,
    pub(crate) series: Vec<Series>,
    /// The value axis' name.
    pub(crate) unit: String,
}

/// A span (`end > start`) or a tick (`end == start`) in a lane.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    pub(crate) start: f64,
    pub(crate) end: f64,
    pub(crate) color: RGBColor,
}

/// A run's timeline: lanes top to bottom, over an axis of lines or seconds.
#[derive(Clone, Debug, Default)]
pub(super) struct Lanes {
    pub(crate) names: Vec<String>,
    pub(crate) marks: Vec<Vec<Mark>>,
    /// The axis' name.
    pub(crate) axis: String,
    /// Where the axis starts.
    pub(crate) start: f64,
    /// The axis counts whole units (lines): labelled at whole numbers.
    pub(crate) whole: bool,
}

/// Colours that stay apart (Tableau 10), for series without a colour of
/// their own.
pub(super) const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// Errors drawn red, the rest in these.
pub(super) const OK: RGBColor = RGBColor(0x4e, 0x79, 0xa7);
pub(super) const FAILED: RGBColor = RGBColor(0xd6, 0x27, 0x28);
pub(super) const MUTED: RGBColor = RGBColor(0x9a, 0x9a, 0x9a);

const FONT: &str = "sans-serif";
/// Categories labelled at most (plotters picks which).
const MOST_LABELS: usize = 24;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing a chart: {e:?}")
}

/// Draw into an SVG of `size` pixels; the `<svg>` element as a string.
fn svg(size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Drawn) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(out.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1))
}

/// The top of the value axis: the highest stack, and a little room.
fn top(stacks: impl Iterator<Item = f64>) -> f64 {
    let m = stacks.fold(0.0f64, f64::max);
    if m > 0.0 && m.is_finite() {
        m * 1.08
    } else {
        1.0
    }
}

/// A short number for an axis: `1.2M`, `35k`, `0.25`.
pub(super) fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || a == 0.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Stacked columns, one per category, series bottom to top in order, with
/// a legend.
pub(super) fn columns(b: &Bars, width: u32, height: u32) -> Result<String, String> {
    let n = b.keys.len().max(1);
    let stacks = (0..n).map(|i| {
        b.series
            .iter()
            .map(|s| s.values.get(i).copied().unwrap_or(0.0))
            .sum::<f64>()
    });
    let max = top(stacks);
    let keys: Vec<String> = b.keys.iter().map(|k| axis_key(k)).collect();
    let long = keys.iter().map(|k| k.chars().count()).max().unwrap_or(1);
    // As many labels as fit side by side.
    let plot = width.saturating_sub(LEGEND + 90);
    let fit = (plot as usize / (long * 7 + 14)).max(1);
    svg((width, height), |root| {
        let (left, right) = root.split_horizontally(width.saturating_sub(LEGEND));
        legend(&right, &b.series)?;
        let mut chart = ChartBuilder::on(&left)
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(64)
            .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..max)
            .map_err(err)?;
        let fmt_x = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                keys.get(*i).cloned().unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        };
        let fmt_y = |v: &f64| short(*v);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(n.min(fit).min(MOST_LABELS))
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .x_label_style((FONT, 11))
            .y_label_style((FONT, 11))
            .y_desc(b.unit.as_str())
            .axis_desc_style((FONT, 12))
            .draw()
            .map_err(err)?;
        let mut base = vec![0.0f64; n];
        for s in &b.series {
            let color = s.color;
            let rects: Vec<_> = (0..n)
                .filter_map(|i| {
                    let v = s.values.get(i).copied().unwrap_or(0.0);
                    let y0 = base[i];
                    base[i] += v;
                    (v > 0.0).then(|| {
                        let mut r = Rectangle::new(
                            [
                                (SegmentValue::Exact(i), y0),
                                (SegmentValue::Exact(i + 1), y0 + v),
                            ],
                            color.filled(),
                        );
                        r.set_margin(0, 0, 1, 1);
                        r
                    })
                })
                .collect();
            chart.draw_series(rects).map_err(err)?;
        }
        Ok(())
    })
}

/// Room on the right of a chart for its legend.
const LEGEND: u32 = 300;

/// The legend: a swatch and a name per series, top to bottom, in `area`.
fn legend(area: &Area<'_>, series: &[Series]) -> Drawn {
    let style = TextStyle::from((FONT, 12).into_font()).color(&BLACK);
    for (i, s) in series.iter().enumerate() {
        let y = 16 + i as i32 * 18;
        area.draw(&Rectangle::new([(8, y - 5), (20, y + 6)], s.color.filled()))
            .map_err(err)?;
        let name: String = s.name.chars().take(42).collect();
        area.draw_text(
            &name,
            &style.pos(Pos::new(HPos::Left, VPos::Center)),
            (26, y),
        )
        .map_err(err)?;
    }
    Ok(())
}

/// A category's label on an axis: an instant (a block's start) as
/// `MM-DD HH:MM`, anything else as it is.
fn axis_key(k: &str) -> String {
    let b = k.as_bytes();
    if b.len() >= 16 && b[4] == b'-' && b[10] == b'T' && b[13] == b':' {
        return format!("{} {}", &k[5..10], &k[11..16]);
    }
    k.to_string()
}

/// A chart of rows over a numeric axis.
type RowChart<'a> =
    ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, SegmentedCoord<RangedCoordusize>>>;

/// A chart of rows (one category a row, the first drawn highest) over a
/// numeric axis from `x.start` to `x.end`, its mesh drawn: bars of tools,
/// lanes of a timeline.
fn row_chart<'a>(
    area: &Area<'a>,
    names: &[String],
    x: std::ops::Range<f64>,
    (desc, labels): (&str, usize),
) -> Result<RowChart<'a>, String> {
    let n = names.len().max(1);
    let long = names.iter().map(|k| k.chars().count()).max().unwrap_or(0);
    let label_area = (long as u32 * 7 + 12).clamp(40, 260);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(label_area)
        .build_cartesian_2d(x, (0..n - 1).into_segmented())
        .map_err(err)?;
    let fmt_y = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => n
            .checked_sub(i + 1)
            .and_then(|k| names.get(k))
            .cloned()
            .unwrap_or_default(),
        SegmentValue::Last => String::new(),
    };
    let fmt_x = |v: &f64| short(*v);
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(TRANSPARENT)
        .y_labels(n)
        .x_labels(labels)
        .y_label_formatter(&fmt_y)
        .x_label_formatter(&fmt_x)
        .label_style((FONT, 11))
        .x_desc(desc)
        .axis_desc_style((FONT, 12))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Horizontal bars, one per category top to bottom, series stacked left
/// to right, with a legend.
pub(super) fn rows(b: &Bars, width: u32) -> Result<String, String> {
    let n = b.keys.len().max(1);
    let height = (n as u32 * 22 + 70).min(2400);
    let stacks = (0..n).map(|i| {
        b.series
            .iter()
            .map(|s| s.values.get(i).copied().unwrap_or(0.0))
            .sum::<f64>()
    });
    let max = top(stacks);
    svg((width, height), |root| {
        let (left, right) = root.split_horizontally(width.saturating_sub(LEGEND));
        legend(&right, &b.series)?;
        let mut chart = row_chart(&left, &b.keys, 0f64..max, (b.unit.as_str(), 10))?;
        let mut base = vec![0.0f64; n];
        for s in &b.series {
            let color = s.color;
            let rects: Vec<_> = (0..n)
                .filter_map(|i| {
                    let v = s.values.get(i).copied().unwrap_or(0.0);
                    let x0 = base[i];
                    base[i] += v;
                    let row = n - 1 - i;
                    (v > 0.0).then(|| {
                        let mut r = Rectangle::new(
                            [
                                (x0, SegmentValue::Exact(row)),
                                (x0 + v, SegmentValue::Exact(row + 1)),
                            ],
                            color.filled(),
                        );
                        r.set_margin(3, 3, 0, 0);
                        r
                    })
                })
                .collect();
            chart.draw_series(rects).map_err(err)?;
        }
        Ok(())
    })
}

/// A timeline: one lane a row, spans as bars, ticks as thin bars, over
/// `0..end` of the axis.
pub(super) fn timeline(l: &Lanes, width: u32) -> Result<String, String> {
    let n = l.names.len().max(1);
    let height = n as u32 * 26 + 60;
    let end = l
        .marks
        .iter()
        .flatten()
        .map(|m| m.end.max(m.start))
        .fold(0.0f64, f64::max);
    let start = l.start.min(end);
    let end = if l.whole {
        end + 1.0
    } else if end > start {
        end + (end - start) * 0.02
    } else {
        start + 1.0
    };
    // A tick is drawn about two pixels wide.
    let tick = (end - start) / f64::from(width.max(100)) * 2.0;
    // Whole units are labelled at whole numbers: no more labels than units.
    let labels = if l.whole {
        ((end - start) as usize).clamp(1, 12)
    } else {
        12
    };
    svg((width, height), |root| {
        let mut chart = row_chart(root, &l.names, start..end, (l.axis.as_str(), labels))?;
        let rects: Vec<_> = l
            .marks
            .iter()
            .enumerate()
            .flat_map(|(lane, marks)| {
                let row = n - 1 - lane;
                marks.iter().map(move |m| {
                    let x1 = if m.end > m.start {
                        m.end
                    } else {
                        m.start + tick
                    };
                    let mut r = Rectangle::new(
                        [
                            (m.start, SegmentValue::Exact(row)),
                            (x1, SegmentValue::Exact(row + 1)),
                        ],
                        m.color.filled(),
                    );
                    r.set_margin(4, 4, 0, 0);
                    r
                })
            })
            .collect();
        chart.draw_series(rects).map_err(err)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_svg_rects_with_no_namespace_url() {
        let b = Bars {
            keys: vec!["2026-01-01".into(), "2026-01-02".into()],
            series: vec![
                Series {
                    name: "a".into(),
                    color: PALETTE[0],
                    values: vec![1.0, 0.0],
                },
                Series {
                    name: "b".into(),
                    color: PALETTE[1],
                    values: vec![2.0, 3.0],
                },
            ],
            unit: "$".into(),
        };
        let s = columns(&b, 400, 300).unwrap();
        assert!(s.starts_with("<svg "), "{s}");
        assert!(!s.contains("http"), "{s}");
        // Three non-empty values, three bars (plus the legend's two swatches).
        let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert_eq!(s.matches(&fill(PALETTE[0])).count(), 2, "{s}");
        assert_eq!(s.matches(&fill(PALETTE[1])).count(), 3, "{s}");
        assert!(
            s.contains(">2026-01-02<") || s.contains("2026-01-02\n"),
            "{s}"
        );
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(0.0), "0");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(35_000.0), "35k");
        assert_eq!(short(1_250_000.0), "1.2M");
        assert_eq!(short(12.0), "12");
    }
}
