//! The report's charts as inline SVG: horizontal bars, stacked horizontal bars, bars
//! on both sides of zero, vertical bars with a marked cut, and lines across crawls.
//!
//! Written by hand with maud rather than with a chart crate: plotters' SVG backend
//! (the maintained choice) draws to a fixed pixel size with its own font settings and
//! no `<title>`/`role` for screen readers, and brings a drawing stack for four simple
//! chart shapes. These SVGs use a `viewBox` (they scale with the page and print
//! sharply), inherit the page's system font (nothing is fetched), carry `role="img"`
//! and a `<title>`, and leave the exact numbers to the table beside each chart.
//! (A judgement, not a measurement: plotters was not built and compared here.)

use maud::{html, Markup};

/// Colour-blind-safe colours (Okabe and Ito), then greys.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C6D1F", "#555555",
];

const WIDTH: f64 = 640.0;
const LABEL_W: f64 = 190.0;
const ROW_H: f64 = 22.0;

/// One bar: its label, its length in chart units, the text written at its end.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub text: String,
    /// Its own colour, instead of the chart's.
    pub color: Option<&'static str>,
}

/// A series of a stacked or line chart: name and colour.
pub struct Series<'a> {
    pub name: &'a str,
    pub color: &'a str,
}

fn short(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        return label.to_owned();
    }
    let mut s: String = label.chars().take(max - 1).collect();
    s.push('…');
    s
}

fn svg(id: &str, title: &str, height: f64, body: Markup) -> Markup {
    html! {
        svg class="chart" id=(id) role="img" aria-labelledby={ (id) "-title" }
            viewBox={ "0 0 " (WIDTH) " " (height) } xmlns="http://www.w3.org/2000/svg" {
            title id={ (id) "-title" } { (title) }
            (body)
        }
    }
}

/// A round scale for values up to `v`: (top, intervals), the interval a 1, 2 or 5
/// times a power of ten and at most five of them.
pub fn nice(v: f64) -> (f64, u32) {
    let v = if v.is_finite() && v > 0.0 { v } else { 1.0 };
    let mut magnitude = 10f64.powf((v / 5.0).log10().floor());
    loop {
        for step in [1.0, 2.0, 5.0] {
            let step = step * magnitude;
            let n = (v / step).ceil();
            if n <= 5.0 {
                return (n.max(1.0) * step, n.max(1.0) as u32);
            }
        }
        magnitude *= 10.0;
    }
}

/// Vertical grid lines and their labels along the bottom: `n` intervals up to `max`.
fn grid(left: f64, width: f64, top: f64, bottom: f64, (max, n): (f64, u32), unit: &str) -> Markup {
    html! {
        @for k in 0..=n {
            @let x = left + width * f64::from(k) / f64::from(n);
            line class="grid" x1=(x) x2=(x) y1=(top) y2=(bottom) {}
            text class="tick" x=(x) y=(bottom + 14.0) text-anchor="middle" {
                (fmt_tick(max * f64::from(k) / f64::from(n))) (unit)
            }
        }
    }
}

fn fmt_tick(v: f64) -> String {
    if v >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Horizontal bars on a common scale from 0 to the largest value.
pub fn hbars(id: &str, title: &str, bars: &[Bar], color: &str, unit: &str) -> Markup {
    let scale = nice(bars.iter().map(|b| b.value).fold(0.0, f64::max));
    let max = scale.0;
    let plot_w = WIDTH - LABEL_W - 60.0;
    let height = 10.0 + ROW_H * bars.len() as f64 + 24.0;
    let bottom = 10.0 + ROW_H * bars.len() as f64;
    svg(
        id,
        title,
        height,
        html! {
            (grid(LABEL_W, plot_w, 6.0, bottom, scale, unit))
            @for (i, b) in bars.iter().enumerate() {
                @let y = 10.0 + ROW_H * i as f64;
                @let w = plot_w * b.value / max;
                text class="label" x=(LABEL_W - 6.0) y=(y + 14.0) text-anchor="end" { (short(&b.label, 30)) }
                rect x=(LABEL_W) y=(y + 3.0) width=(w) height=(ROW_H - 6.0) fill=(b.color.unwrap_or(color)) {}
                text class="value" x=(LABEL_W + w + 4.0) y=(y + 14.0) { (b.text) }
            }
        },
    )
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
    let plot_w = WIDTH - LABEL_W - 20.0;
    let legend_rows = series.len().div_ceil(3) as f64;
    let top = 8.0 + 18.0 * legend_rows;
    let bottom = top + ROW_H * rows.len() as f64;
    svg(
        id,
        title,
        bottom + 24.0,
        html! {
            @for (k, s) in series.iter().enumerate() {
                @let x = 10.0 + 210.0 * (k % 3) as f64;
                @let y = 6.0 + 18.0 * (k / 3) as f64;
                rect x=(x) y=(y) width="12" height="12" fill=(s.color) {}
                text class="legend" x=(x + 16.0) y=(y + 10.5) { (short(s.name, 30)) }
            }
            (grid(LABEL_W, plot_w, top - 2.0, bottom, scale, unit))
            @for (i, (label, values)) in rows.iter().enumerate() {
                @let y = top + ROW_H * i as f64;
                text class="label" x=(LABEL_W - 6.0) y=(y + 14.0) text-anchor="end" { (short(label, 30)) }
                @for (v, s, x, w) in segments(values, series, LABEL_W, plot_w / max.max(f64::MIN_POSITIVE)) {
                    rect x=(x) y=(y + 3.0) width=(w) height=(ROW_H - 6.0) fill=(s.color) {
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

/// Vertical bars; `cut` draws a dashed line after bar `index` with a label. With `log`,
/// heights are log10(1 + value), so single files beside thousands stay visible.
pub fn vbars(id: &str, title: &str, bars: &[Bar], cut: Option<(usize, &str)>, log: bool) -> Markup {
    let scale = |v: f64| if log { (1.0 + v).log10() } else { v };
    let max = bars
        .iter()
        .map(|b| scale(b.value))
        .fold(0.0, f64::max)
        .max(1.0);
    let (left, top, plot_h) = (20.0, 26.0, 170.0);
    let slot = (WIDTH - 2.0 * left) / bars.len().max(1) as f64;
    let bottom = top + plot_h;
    svg(
        id,
        title,
        bottom + 40.0,
        html! {
            line class="axis" x1=(left) x2=(WIDTH - left) y1=(bottom) y2=(bottom) {}
            @for (i, b) in bars.iter().enumerate() {
                @let h = plot_h * scale(b.value) / max;
                @let x = left + slot * i as f64;
                rect x=(x + slot * 0.15) y=(bottom - h) width=(slot * 0.7) height=(h) fill=(PALETTE[0]) {}
                text class="value" x=(x + slot / 2.0) y=(bottom - h - 4.0) text-anchor="middle" { (b.text) }
                text class="tick" x=(x + slot / 2.0) y=(bottom + 16.0) text-anchor="middle" { (b.label) }
            }
            @if let Some((index, label)) = cut {
                @let x = left + slot * (index + 1) as f64;
                line class="cut" x1=(x) x2=(x) y1=(top - 14.0) y2=(bottom + 24.0) {}
                text class="cut-label" x=(x - 4.0) y=(top - 4.0) text-anchor="end" { (label) }
            }
            @if log {
                text class="tick" x=(WIDTH - left) y=(bottom + 34.0) text-anchor="end" { "bar heights: log scale" }
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
    let half = (WIDTH - LABEL_W - 20.0) / 2.0;
    let zero = LABEL_W + half;
    let top = 26.0;
    let bottom = top + ROW_H * rows.len() as f64;
    let x_of = |v: f64| half * v / max;
    svg(
        id,
        title,
        bottom + 24.0,
        html! {
            rect x="10" y="6" width="12" height="12" fill=(colors.0) {}
            text class="legend" x="26" y="16.5" { (names.0) }
            rect x="220" y="6" width="12" height="12" fill=(colors.1) {}
            text class="legend" x="236" y="16.5" { (names.1) }
            @for k in 0..=n {
                @let v = max * f64::from(k) / f64::from(n);
                @for x in [zero - x_of(v), zero + x_of(v)] {
                    line class="grid" x1=(x) x2=(x) y1=(top - 2.0) y2=(bottom) {}
                    text class="tick" x=(x) y=(bottom + 14.0) text-anchor="middle" { (fmt_tick(v)) }
                }
            }
            line class="axis" x1=(zero) x2=(zero) y1=(top - 2.0) y2=(bottom) {}
            @for (i, (label, left, right)) in rows.iter().enumerate() {
                @let y = top + ROW_H * i as f64;
                text class="label" x=(LABEL_W - 6.0) y=(y + 14.0) text-anchor="end" { (short(label, 30)) }
                rect x=(zero - x_of(*left)) y=(y + 3.0) width=(x_of(*left)) height=(ROW_H - 6.0) fill=(colors.0) {
                    title { (names.0) ": " (fmt_tick(*left)) }
                }
                rect x=(zero) y=(y + 3.0) width=(x_of(*right)) height=(ROW_H - 6.0) fill=(colors.1) {
                    title { (names.1) ": " (fmt_tick(*right)) }
                }
            }
        },
    )
}

/// One line per series across the x labels (crawls); values in 0..=max.
pub fn lines(
    id: &str,
    title: &str,
    x_labels: &[String],
    series: &[(Series<'_>, Vec<Option<f64>>)],
    max: f64,
    unit: &str,
) -> Markup {
    let (left, right, top, plot_h) = (50.0, 150.0, 14.0, 190.0);
    let plot_w = WIDTH - left - right;
    let bottom = top + plot_h;
    let step = plot_w / (x_labels.len().max(2) - 1) as f64;
    let (max, n) = nice(max);
    let y_of = |v: f64| bottom - plot_h * v / max;
    svg(
        id,
        title,
        bottom + 30.0,
        html! {
            @for k in 0..=n {
                @let v = max * f64::from(k) / f64::from(n);
                line class="grid" x1=(left) x2=(left + plot_w) y1=(y_of(v)) y2=(y_of(v)) {}
                text class="tick" x=(left - 6.0) y=(y_of(v) + 4.0) text-anchor="end" { (fmt_tick(v)) (unit) }
            }
            @for (i, label) in x_labels.iter().enumerate() {
                text class="tick" x=(left + step * i as f64) y=(bottom + 16.0) text-anchor="middle" { (label) }
            }
            @for (k, (s, values)) in series.iter().enumerate() {
                @let points: Vec<(f64, f64)> = values.iter().enumerate()
                    .filter_map(|(i, v)| v.map(|v| (left + step * i as f64, y_of(v)))).collect();
                polyline fill="none" stroke=(s.color) stroke-width="2.5"
                    points=(points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")) {}
                @for (x, y) in &points {
                    circle cx=(format!("{x:.1}")) cy=(format!("{y:.1}")) r="3.5" fill=(s.color) {}
                }
                @let ly = top + 4.0 + 18.0 * k as f64;
                rect x=(left + plot_w + 14.0) y=(ly) width="12" height="12" fill=(s.color) {}
                text class="legend" x=(left + plot_w + 30.0) y=(ly + 10.5) { (short(s.name, 18)) }
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
        let plot_w = WIDTH - LABEL_W - 60.0;
        assert!(svg.contains(&format!("width=\"{plot_w}\"")), "{svg}");
        assert!(
            svg.contains(&format!("width=\"{}\"", plot_w / 2.0)),
            "{svg}"
        );
    }

    #[test]
    fn scales_are_round() {
        assert_eq!(nice(231.0), (250.0, 5));
        assert_eq!(nice(48.43), (50.0, 5));
        assert_eq!(nice(13.0), (15.0, 3));
        assert_eq!(nice(100.0), (100.0, 5));
        assert_eq!(nice(0.0), (1.0, 5));
        assert_eq!(nice(3.0), (3.0, 3));
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(short("abcdef", 4), "abc…");
        assert_eq!(short("abc", 4), "abc");
    }
}
