//! The report's charts as inline SVG: bars (horizontal, stacked, on both sides of
//! zero, vertical with a marked cut), heatmaps (a value and a colour per cell) and
//! small multiples (one small line chart per agent, all on one scale).
//!
//! Written by hand with maud rather than with a chart crate: plotters' SVG backend
//! (the maintained choice) draws to a fixed pixel size with its own font settings and
//! no `<title>`/`role` for screen readers, and brings a drawing stack for a few simple
//! shapes. These SVGs use a `viewBox` (they scale with the page and print sharply),
//! inherit the page's system font (nothing is fetched), carry `role="img"` and a
//! `<title>`, and leave the exact numbers to the tables. Every label is measured
//! ([`super::text`]) and given the room it needs, cut with an ellipsis (the whole text
//! in its `<title>` and in the table) or wrapped, so none leaves its picture or runs
//! over another. (A judgement, not a measurement: plotters was not built and compared.)

mod bars;
mod heatmap;
mod trend;

pub use bars::{diverging, hbars, stacked, vbars, Bar};
pub use heatmap::{heatmap, Cell, HeatRow, Heatmap, Scale};
pub use trend::{small_multiple, Trend};

use maud::{html, Markup};

/// Colour-blind-safe colours (Okabe and Ito), then greys.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C6D1F", "#555555",
];

/// Font sizes of the style sheet's SVG classes (report.css), in user units.
pub const LABEL_PX: f64 = 11.0;
pub const VALUE_PX: f64 = 10.5;
pub const TICK_PX: f64 = 10.0;

/// The usual width of a chart, in user units.
pub const WIDTH: f64 = 640.0;

/// A series of a stacked chart: name and colour.
pub struct Series<'a> {
    pub name: &'a str,
    pub color: &'a str,
}

/// An `<svg class="chart">` of `width` x `height` user units. It scales with the page
/// but is never drawn larger than `zoom` times its own size (a narrow chart in a
/// wide column would otherwise print its text huge).
fn svg(id: &str, title: &str, (width, height): (f64, f64), zoom: f64, body: Markup) -> Markup {
    let classes = if id.starts_with("chart-trend-") {
        "chart small"
    } else {
        "chart"
    };
    html! {
        svg class=(classes) id=(id) role="img" aria-labelledby={ (id) "-title" }
            viewBox={ "0 0 " (px(width)) " " (px(height)) } xmlns="http://www.w3.org/2000/svg"
            style={ "max-width: " (px(width * zoom)) "px" } {
            title id={ (id) "-title" } { (title) }
            (body)
        }
    }
}

/// A coordinate, to a tenth of a unit.
fn px(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
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

fn fmt_tick(v: f64) -> String {
    if v >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Crawl names as axis labels: Common Crawl's "CC-MAIN-" dropped when every name
/// has it, so "CC-MAIN-2025-43" reads "2025-43"; (labels, the prefix dropped).
pub fn short_crawls(crawls: &[String]) -> (Vec<String>, &'static str) {
    const PREFIX: &str = "CC-MAIN-";
    if crawls.is_empty()
        || !crawls
            .iter()
            .all(|c| c.len() > PREFIX.len() && c.starts_with(PREFIX))
    {
        return (crawls.to_vec(), "");
    }
    (
        crawls
            .iter()
            .map(|c| c[PREFIX.len()..].to_owned())
            .collect(),
        PREFIX,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn crawl_labels_drop_the_shared_prefix() {
        let crawls = ["CC-MAIN-2024-10".to_owned(), "CC-MAIN-2025-43".to_owned()];
        assert_eq!(
            short_crawls(&crawls),
            (vec!["2024-10".into(), "2025-43".into()], "CC-MAIN-")
        );
        let mixed = ["CC-MAIN-2024-10".to_owned(), "unknown".to_owned()];
        assert_eq!(short_crawls(&mixed).1, "");
    }
}
