//! Bar charts: horizontal bars, stacked horizontal bars, bars on both sides of zero,
//! vertical bars with a marked cut. Label columns are as wide as their longest label
//! (up to a cap, past which a label is cut with an ellipsis and keeps its whole text
//! in a `<title>`).

use maud::{html, Markup};

use super::{fmt_tick, nice, px, svg, Series, LABEL_PX, TICK_PX, VALUE_PX, WIDTH};
use crate::report::text::{fit, widest, width, wrap};

const ROW_H: f64 = 22.0;
/// The widest a label column grows before labels are cut.
const MAX_LABEL_W: f64 = 240.0;

/// One bar: its label, its length in chart units, the text written at its end.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub text: String,
    /// Its own colour, instead of the chart's.
    pub color: Option<&'static str>,
}

/// The width of a label column for `labels`: room for the longest, within the cap.
fn label_column<'a>(labels: impl IntoIterator<Item = &'a str>) -> f64 {
    (widest(labels, LABEL_PX) + 12.0).clamp(60.0, MAX_LABEL_W)
}

/// A row label, right-aligned at `x`: cut to `room` when longer, with its whole text
/// as a tooltip.
fn row_label(label: &str, x: f64, y: f64, room: f64) -> Markup {
    match fit(label, LABEL_PX, room) {
        None => html! { text class="label" x=(px(x)) y=(px(y)) text-anchor="end" { (label) } },
        Some(cut) => html! {
            text class="label" x=(px(x)) y=(px(y)) text-anchor="end" { title { (label) } (cut) }
        },
    }
}

/// Vertical grid lines and their labels along the bottom: `n` intervals up to `max`.
fn grid(left: f64, width: f64, top: f64, bottom: f64, (max, n): (f64, u32), unit: &str) -> Markup {
    html! {
        @for k in 0..=n {
            @let x = left + width * f64::from(k) / f64::from(n);
            line class="grid" x1=(px(x)) x2=(px(x)) y1=(px(top)) y2=(px(bottom)) {}
            text class="tick" x=(px(x)) y=(px(bottom + 14.0)) text-anchor="middle" {
                (fmt_tick(max * f64::from(k) / f64::from(n))) (unit)
            }
        }
    }
}

/// Horizontal bars on a common scale from 0 to the largest value.
pub fn hbars(id: &str, title: &str, bars: &[Bar], color: &str, unit: &str) -> Markup {
    let scale = nice(bars.iter().map(|b| b.value).fold(0.0, f64::max));
    let max = scale.0;
    let label_w = label_column(bars.iter().map(|b| b.label.as_str()));
    // Room after the longest bar for its value, and for the last tick's half.
    let value_w = widest(bars.iter().map(|b| b.text.as_str()), VALUE_PX) + 8.0;
    let tick_w = width(&format!("{}{unit}", fmt_tick(max)), TICK_PX) / 2.0 + 4.0;
    let plot_w = WIDTH - label_w - value_w.max(tick_w);
    let bottom = 10.0 + ROW_H * bars.len() as f64;
    svg(
        id,
        title,
        (WIDTH, bottom + 24.0),
        1.4,
        html! {
            (grid(label_w, plot_w, 6.0, bottom, scale, unit))
            @for (i, b) in bars.iter().enumerate() {
                @let y = 10.0 + ROW_H * i as f64;
                @let w = plot_w * b.value / max;
                (row_label(&b.label, label_w - 6.0, y + 14.0, label_w - 10.0))
                rect x=(px(label_w)) y=(px(y + 3.0)) width=(px(w)) height=(px(ROW_H - 6.0)) fill=(b.color.unwrap_or(color)) {}
                text class="value" x=(px(label_w + w + 4.0)) y=(px(y + 14.0)) { (b.text) }
            }
        },
    )
}

/// A legend of coloured squares, laid out in as many equal columns as fit in
/// `width`; returns the markup and its height.
fn legend(series: &[Series<'_>], width: f64) -> (Markup, f64) {
    let item_w = widest(series.iter().map(|s| s.name), LABEL_PX) + 16.0 + 18.0;
    let columns = ((width - 10.0) / item_w).floor().max(1.0) as usize;
    let rows = series.len().div_ceil(columns);
    let markup = html! {
        @for (k, s) in series.iter().enumerate() {
            @let x = 10.0 + item_w * (k % columns) as f64;
            @let y = 6.0 + 18.0 * (k / columns) as f64;
            rect x=(px(x)) y=(px(y)) width="12" height="12" fill=(s.color) {}
            text class="legend" x=(px(x + 16.0)) y=(px(y + 10.5)) { (s.name) }
        }
    };
    (markup, 8.0 + 18.0 * rows as f64)
}

/// Horizontal bars made of stacked segments (values in chart units, scale 0..max),
/// with a legend above.
pub fn stacked(
    id: &str,
    title: &str,
    rows: &[(String, Vec<f64>)],
    series: &[Series<'_>],
    max: f64,
    unit: &str,
) -> Markup {
    let scale = nice(max);
    let max = scale.0;
    let label_w = label_column(rows.iter().map(|(l, _)| l.as_str()));
    let tick_w = width(&format!("{}{unit}", fmt_tick(max)), TICK_PX) / 2.0 + 4.0;
    let plot_w = WIDTH - label_w - tick_w;
    let (legend, top) = legend(series, WIDTH);
    let bottom = top + ROW_H * rows.len() as f64;
    svg(
        id,
        title,
        (WIDTH, bottom + 24.0),
        1.4,
        html! {
            (legend)
            (grid(label_w, plot_w, top - 2.0, bottom, scale, unit))
            @for (i, (label, values)) in rows.iter().enumerate() {
                @let y = top + ROW_H * i as f64;
                (row_label(label, label_w - 6.0, y + 14.0, label_w - 10.0))
                @for (v, s, x, w) in segments(values, series, label_w, plot_w / max.max(f64::MIN_POSITIVE)) {
                    rect x=(px(x)) y=(px(y + 3.0)) width=(px(w)) height=(px(ROW_H - 6.0)) fill=(s.color) {
                        title { (s.name) ": " (fmt_tick(v)) (unit) }
                    }
                }
            }
        },
    )
}

/// The segments of a stacked bar: (value, series, x, width), laid end to end.
fn segments<'s>(
    values: &[f64],
    series: &'s [Series<'s>],
    left: f64,
    per_unit: f64,
) -> Vec<(f64, &'s Series<'s>, f64, f64)> {
    let mut x = left;
    values
        .iter()
        .zip(series)
        .map(|(&v, s)| {
            let w = v * per_unit;
            x += w;
            (v, s, x - w, w)
        })
        .collect()
}

/// Vertical bars; `cut` draws a dashed line after bar `index` with a label above the
/// bars. With `log`, heights are log10(1 + value), so single files beside thousands
/// stay visible. Labels under the bars wrap onto two lines when a slot is too narrow.
pub fn vbars(id: &str, title: &str, bars: &[Bar], cut: Option<(usize, &str)>, log: bool) -> Markup {
    let scale = |v: f64| if log { (1.0 + v).log10() } else { v };
    let max = bars
        .iter()
        .map(|b| scale(b.value))
        .fold(0.0, f64::max)
        .max(1.0);
    let slot = (WIDTH - 40.0) / bars.len().max(1) as f64;
    let labels: Vec<Vec<String>> = bars
        .iter()
        .map(|b| wrap(&b.label, TICK_PX, slot - 6.0, 2))
        .collect();
    let label_lines = labels.iter().map(Vec::len).max().unwrap_or(1) as f64;
    // The cut's label sits above the tallest bar's value.
    let top = if cut.is_some() { 40.0 } else { 22.0 };
    let (left, plot_h) = (20.0, 170.0);
    let bottom = top + plot_h;
    let under = bottom + 4.0 + 12.0 * label_lines;
    let height = under + if log { 18.0 } else { 6.0 };
    svg(
        id,
        title,
        (WIDTH, height),
        1.4,
        html! {
            line class="axis" x1=(px(left)) x2=(px(WIDTH - left)) y1=(px(bottom)) y2=(px(bottom)) {}
            @for (i, (b, lines)) in bars.iter().zip(&labels).enumerate() {
                @let h = plot_h * scale(b.value) / max;
                @let x = left + slot * i as f64;
                rect x=(px(x + slot * 0.15)) y=(px(bottom - h)) width=(px(slot * 0.7)) height=(px(h)) fill=(super::PALETTE[0]) {}
                text class="value" x=(px(x + slot / 2.0)) y=(px(bottom - h - 4.0)) text-anchor="middle" { (b.text) }
                @for (k, line) in lines.iter().enumerate() {
                    text class="tick" x=(px(x + slot / 2.0)) y=(px(bottom + 14.0 + 12.0 * k as f64)) text-anchor="middle" { (line) }
                }
            }
            @if let Some((index, label)) = cut {
                @let x = left + slot * (index + 1) as f64;
                line class="cut" x1=(px(x)) x2=(px(x)) y1="6" y2=(px(bottom + 4.0)) {}
                @let room = x - 6.0;
                text class="cut-label" x=(px(x - 4.0)) y="16" text-anchor="end" {
                    (fit(label, LABEL_PX, room).unwrap_or_else(|| label.to_owned()))
                }
            }
            @if log {
                text class="tick" x=(px(WIDTH - left)) y=(px(height - 4.0)) text-anchor="end" { "bar heights: log scale" }
            }
        },
    )
}

/// Horizontal bars on both sides of zero, one row per label: `left` drawn leftwards
/// in `colors.0`, `right` rightwards in `colors.1`, both on one scale (counts, so
/// removals and additions compare at a glance), with a legend above.
pub fn diverging(
    id: &str,
    title: &str,
    rows: &[(String, f64, f64)],
    names: (&str, &str),
    colors: (&str, &str),
) -> Markup {
    let (max, n) = nice(rows.iter().map(|r| r.1.max(r.2)).fold(0.0, f64::max));
    let label_w = label_column(rows.iter().map(|r| r.0.as_str()));
    let tick_w = width(&fmt_tick(max), TICK_PX) / 2.0 + 4.0;
    let half = (WIDTH - label_w - 2.0 * tick_w) / 2.0;
    let zero = label_w + tick_w + half;
    let series = [
        Series {
            name: names.0,
            color: colors.0,
        },
        Series {
            name: names.1,
            color: colors.1,
        },
    ];
    let (legend, top) = legend(&series, WIDTH);
    let bottom = top + ROW_H * rows.len() as f64;
    let x_of = |v: f64| half * v / max;
    // Grid lines and their labels on both sides of zero (tick_w keeps the outermost
    // labels inside the picture and off the row labels).
    let ticks: Vec<(f64, f64)> = (0..=n)
        .flat_map(|k| {
            let v = max * f64::from(k) / f64::from(n);
            let both = if k == 0 {
                vec![zero]
            } else {
                vec![zero - x_of(v), zero + x_of(v)]
            };
            both.into_iter().map(move |x| (x, v))
        })
        .collect();
    svg(
        id,
        title,
        (WIDTH, bottom + 24.0),
        1.4,
        html! {
            (legend)
            @for (x, v) in &ticks {
                line class="grid" x1=(px(*x)) x2=(px(*x)) y1=(px(top - 2.0)) y2=(px(bottom)) {}
                text class="tick" x=(px(*x)) y=(px(bottom + 14.0)) text-anchor="middle" { (fmt_tick(*v)) }
            }
            line class="axis" x1=(px(zero)) x2=(px(zero)) y1=(px(top - 2.0)) y2=(px(bottom)) {}
            @for (i, (label, left, right)) in rows.iter().enumerate() {
                @let y = top + ROW_H * i as f64;
                (row_label(label, label_w - 6.0, y + 14.0, label_w - 10.0))
                rect x=(px(zero - x_of(*left))) y=(px(y + 3.0)) width=(px(x_of(*left))) height=(px(ROW_H - 6.0)) fill=(colors.0) {
                    title { (names.0) ": " (fmt_tick(*left)) }
                }
                rect x=(px(zero)) y=(px(y + 3.0)) width=(px(x_of(*right))) height=(px(ROW_H - 6.0)) fill=(colors.1) {
                    title { (names.1) ": " (fmt_tick(*right)) }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_and_escape_labels() {
        let bars = [
            Bar {
                label: "<a&b>".into(),
                value: 10.0,
                text: "10".into(),
                color: None,
            },
            Bar {
                label: "b".into(),
                value: 5.0,
                text: "5".into(),
                color: None,
            },
        ];
        let svg = hbars("x", "t", &bars, "#000", "").into_string();
        assert!(svg.contains("&lt;a&amp;b&gt;"), "{svg}");
        let label_w = label_column(["<a&b>", "b"]);
        let value_w = widest(["10", "5"], VALUE_PX) + 8.0;
        let plot_w = WIDTH - label_w - value_w.max(width("10", TICK_PX) / 2.0 + 4.0);
        assert!(svg.contains(&format!("width=\"{}\"", px(plot_w))), "{svg}");
        assert!(
            svg.contains(&format!("width=\"{}\"", px(plot_w / 2.0))),
            "{svg}"
        );
    }

    #[test]
    fn a_label_too_long_for_its_column_is_cut_and_keeps_its_text() {
        let long = "Googlebot-News · CC-MAIN-2026-05 and then some more words".to_owned();
        let bars = [Bar {
            label: long.clone(),
            value: 1.0,
            text: "1".into(),
            color: None,
        }];
        let svg = hbars("x", "t", &bars, "#000", "").into_string();
        assert!(svg.contains(&format!("<title>{long}</title>")), "{svg}");
        let cut = fit(&long, LABEL_PX, MAX_LABEL_W - 10.0).expect("cut");
        assert!(
            cut.starts_with("Googlebot-News") && cut.ends_with('…'),
            "{cut}"
        );
        assert!(svg.contains(&format!("</title>{cut}</text>")), "{svg}");
    }
}
