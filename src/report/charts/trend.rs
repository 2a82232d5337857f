//! Small multiples: one small line chart per agent, every one on the same scale, so
//! that thirty agents read as thirty shapes side by side rather than thirty colours
//! in one tangle. Each chart has one line, named by its title, with its latest value
//! written at its end; the x axis names the first and the last crawl.

use maud::{html, Markup};

use super::{fmt_tick, px, svg, LABEL_PX, TICK_PX, VALUE_PX};
use crate::report::text::{fitted, width};

/// The size of one small chart, in user units.
const W: f64 = 210.0;
const H: f64 = 118.0;

/// One small chart's content.
pub struct Trend<'a> {
    pub id: &'a str,
    /// The agent, the chart's title.
    pub name: &'a str,
    /// The x labels (crawls), first and last drawn.
    pub x_labels: &'a [String],
    /// One value per x label; `None` where there is none.
    pub values: &'a [Option<f64>],
    /// The common scale: (top, intervals) of [`super::nice`].
    pub scale: (f64, u32),
    pub unit: &'a str,
    pub color: &'a str,
}

/// Draws one small chart.
pub fn small_multiple(t: &Trend<'_>) -> Markup {
    let (max, _) = t.scale;
    let top_tick = format!("{}{}", fmt_tick(max), t.unit);
    let left = width(&top_tick, TICK_PX).max(width("0", TICK_PX)) + 6.0;
    let last = t.values.iter().rev().flatten().next().copied();
    let end_text = last.map(|v| format!("{v:.1}{}", t.unit));
    let right = end_text
        .as_deref()
        .map_or(6.0, |s| width(s, VALUE_PX) + 10.0);
    let (top, bottom) = (26.0, H - 20.0);
    let plot_w = W - left - right;
    let step = plot_w / (t.x_labels.len().max(2) - 1) as f64;
    let y_of = |v: f64| bottom - (bottom - top) * (v / max).clamp(0.0, 1.0);
    let points: Vec<(f64, f64)> = t
        .values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (left + step * i as f64, y_of(v))))
        .collect();
    let first_x = t.x_labels.first().map(String::as_str).unwrap_or_default();
    let last_x = t.x_labels.last().map(String::as_str).unwrap_or_default();
    // The two x labels, each at its end of the axis; only the last when they would meet.
    let both = t.x_labels.len() > 1
        && width(first_x, TICK_PX) + width(last_x, TICK_PX) + 8.0 <= plot_w + left + right - 4.0;
    svg(
        t.id,
        &format!("{}: percent of sites fully blocking it, per crawl", t.name),
        (W, H),
        1.25,
        html! {
            text class="label strong" x="2" y="13" { (fitted(t.name, LABEL_PX * 1.15, W - 4.0)) }
            line class="grid" x1=(px(left)) x2=(px(left + plot_w)) y1=(px(top)) y2=(px(top)) {}
            line class="axis" x1=(px(left)) x2=(px(left + plot_w)) y1=(px(bottom)) y2=(px(bottom)) {}
            text class="tick" x=(px(left - 4.0)) y=(px(top + 4.0)) text-anchor="end" { (top_tick) }
            text class="tick" x=(px(left - 4.0)) y=(px(bottom + 3.0)) text-anchor="end" { "0" }
            @if both {
                text class="tick" x="2" y=(px(H - 3.0)) { (first_x) }
            }
            text class="tick" x=(px(W - 2.0)) y=(px(H - 3.0)) text-anchor="end" { (last_x) }
            polyline class="series" fill="none" stroke=(t.color) stroke-width="2"
                points=(points.iter().map(|(x, y)| format!("{},{}", px(*x), px(*y))).collect::<Vec<_>>().join(" ")) {}
            @if let (Some((x, y)), Some(text)) = (points.last(), &end_text) {
                circle cx=(px(*x)) cy=(px(*y)) r="2.5" fill=(t.color) {}
                text class="value" x=(px(x + 5.0)) y=(px(y + 3.5)) { (text) }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_with_its_latest_value_at_the_end() {
        let labels = vec![
            "2024-10".to_owned(),
            "2024-18".to_owned(),
            "2024-22".to_owned(),
        ];
        let values = [Some(2.0), None, Some(35.26)];
        let svg = small_multiple(&Trend {
            id: "chart-trend-0",
            name: "GPTBot",
            x_labels: &labels,
            values: &values,
            scale: (50.0, 5),
            unit: "%",
            color: "#D55E00",
        })
        .into_string();
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
        assert!(svg.contains(">35.3%</text>"), "{svg}");
        assert!(svg.contains(">2024-10</text>") && svg.contains(">2024-22</text>"));
        assert!(svg.contains("class=\"chart small\""), "{svg}");
    }
}
