//! A heatmap: rows (agents, under group headings) by columns (crawls, or pairs of
//! crawls), each cell its value as text on a colour of a binned scale, with the
//! scale's legend below. Column labels turn upright when they do not fit across.

use maud::{html, Markup};

use super::{px, svg, LABEL_PX, TICK_PX};
use crate::report::text::{fit, widest, width};

const CELL_H: f64 = 18.0;
const HEADING_H: f64 = 22.0;
const CELL_PX: f64 = 10.0;
const MAX_LABEL_W: f64 = 200.0;

/// A binned colour scale: a value falls in the first bin whose upper bound is above
/// it (or equal, for the last); each bin has a fill, an ink for the text on it, and
/// a legend label.
pub struct Scale {
    pub bins: Vec<(f64, &'static str, &'static str, String)>,
    /// What the colours mean, before the legend's swatches.
    pub caption: String,
}

impl Scale {
    fn bin(&self, v: f64) -> Option<&(f64, &'static str, &'static str, String)> {
        self.bins
            .iter()
            .find(|(upper, ..)| v < *upper)
            .or(self.bins.last())
    }

    /// Percent of sites, 0 to 100, in light-to-dark blues (ColorBrewer "Blues",
    /// readable in every common colour-vision deficiency and in grey print).
    pub fn percent(caption: &str) -> Scale {
        let bins = [
            (1.0, "#F7FBFF", "#1B1F24", "under 1%"),
            (5.0, "#DEEBF7", "#1B1F24", "1–5%"),
            (10.0, "#C6DBEF", "#1B1F24", "5–10%"),
            (20.0, "#9ECAE1", "#1B1F24", "10–20%"),
            (40.0, "#4292C6", "#FFFFFF", "20–40%"),
            (f64::INFINITY, "#08519C", "#FFFFFF", "40% and over"),
        ];
        Scale {
            bins: bins
                .into_iter()
                .map(|(u, fill, ink, label)| (u, fill, ink, label.to_owned()))
                .collect(),
            caption: caption.to_owned(),
        }
    }

    /// Signed counts around zero: orange below (losses), blue above (gains), the
    /// darker shades past half of the largest magnitude `max`.
    pub fn signed(caption: &str, max: f64) -> Scale {
        let half = (max / 2.0).ceil().max(1.0);
        let bins = [
            (-half + 0.5, "#E66101", "#FFFFFF", format!("≤ -{half}")),
            (-0.5, "#FDB863", "#1B1F24", "below 0".to_owned()),
            (0.5, "#F7F7F7", "#1B1F24", "0".to_owned()),
            (half - 0.5, "#92C5DE", "#1B1F24", "above 0".to_owned()),
            (f64::INFINITY, "#0571B0", "#FFFFFF", format!("≥ +{half}")),
        ];
        Scale {
            bins: bins.into_iter().collect(),
            caption: caption.to_owned(),
        }
    }
}

/// One cell: its value (for the colour), its text, and its tooltip.
pub struct Cell {
    pub value: f64,
    pub text: String,
    pub tip: String,
}

/// A row of the heatmap.
pub enum HeatRow {
    /// A group heading across the whole width.
    Heading(String),
    /// A labelled row; `None` where the column has no value.
    Cells(String, Vec<Option<Cell>>),
}

/// The heatmap's content.
pub struct Heatmap<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub columns: &'a [String],
    pub rows: &'a [HeatRow],
    pub scale: &'a Scale,
}

/// Draws the heatmap.
pub fn heatmap(h: &Heatmap<'_>) -> Markup {
    let labels = h.rows.iter().filter_map(|r| match r {
        HeatRow::Cells(label, _) => Some(label.as_str()),
        HeatRow::Heading(_) => None,
    });
    let label_w = (widest(labels, LABEL_PX) + 12.0).clamp(60.0, MAX_LABEL_W);
    let texts = h.rows.iter().flat_map(|r| match r {
        HeatRow::Cells(_, cells) => cells.iter().flatten().map(|c| c.text.as_str()).collect(),
        HeatRow::Heading(_) => Vec::new(),
    });
    let cell_w = (widest(texts, CELL_PX) + 8.0).max(26.0);
    let column_w = widest(h.columns.iter().map(String::as_str), TICK_PX);
    // Across when every column label fits its column, else upright.
    let upright = column_w + 4.0 > cell_w;
    let head_h = if upright { column_w + 10.0 } else { 18.0 };
    let grid_w = label_w + cell_w * h.columns.len() as f64;
    let mut y = head_h;
    let mut placed = Vec::new();
    for row in h.rows {
        placed.push((y, row));
        y += match row {
            HeatRow::Heading(_) => HEADING_H,
            HeatRow::Cells(..) => CELL_H,
        };
    }
    // The legend: caption, then swatches, wrapped onto more lines as needed.
    let total_w = grid_w.max(360.0);
    let mut legend = Vec::new();
    let (mut lx, mut ly) = (0.0, y + 34.0);
    for (_, fill, _, label) in &h.scale.bins {
        let item_w = 16.0 + width(label, LABEL_PX) + 14.0;
        if lx > 0.0 && lx + item_w > total_w {
            lx = 0.0;
            ly += 18.0;
        }
        legend.push((lx, ly, *fill, label.as_str()));
        lx += item_w;
    }
    let height = ly + 10.0;
    let caption =
        fit(&h.scale.caption, LABEL_PX, total_w).unwrap_or_else(|| h.scale.caption.clone());
    svg(
        h.id,
        h.title,
        (total_w, height),
        1.3,
        html! {
            @for (i, column) in h.columns.iter().enumerate() {
                @let x = label_w + cell_w * (i as f64 + 0.5);
                @if upright {
                    text class="tick" x=(px(x + 3.5)) y=(px(head_h - 4.0)) text-anchor="start"
                        transform={ "rotate(-90 " (px(x + 3.5)) " " (px(head_h - 4.0)) ")" } { (column) }
                } @else {
                    text class="tick" x=(px(x)) y=(px(head_h - 5.0)) text-anchor="middle" { (column) }
                }
            }
            @for (y, row) in &placed {
                @match row {
                    HeatRow::Heading(name) => {
                        text class="group" x="2" y=(px(y + 15.0)) { (fit(name, LABEL_PX * 1.15, grid_w).unwrap_or_else(|| name.clone())) }
                    }
                    HeatRow::Cells(label, cells) => {
                        @match fit(label, LABEL_PX, label_w - 10.0) {
                            None => text class="label" x=(px(label_w - 6.0)) y=(px(y + 13.0)) text-anchor="end" { (label) },
                            Some(cut) => text class="label" x=(px(label_w - 6.0)) y=(px(y + 13.0)) text-anchor="end" { title { (label) } (cut) },
                        }
                        @for (i, cell) in cells.iter().enumerate() {
                            @let x = label_w + cell_w * i as f64;
                            @if let Some(cell) = cell {
                                @if let Some((_, fill, ink, _)) = h.scale.bin(cell.value) {
                                    rect x=(px(x + 1.0)) y=(px(y + 1.0)) width=(px(cell_w - 2.0)) height=(px(CELL_H - 2.0)) fill=(fill) {
                                        title { (cell.tip) }
                                    }
                                    text class="cell" x=(px(x + cell_w / 2.0)) y=(px(y + 12.5)) text-anchor="middle" fill=(ink) { (cell.text) }
                                }
                            } @else {
                                text class="cell none" x=(px(x + cell_w / 2.0)) y=(px(y + 12.5)) text-anchor="middle" { "·" }
                            }
                        }
                    }
                }
            }
            text class="legend" x="0" y=(px(y + 16.0)) { (caption) }
            @for (x, y, fill, label) in &legend {
                rect x=(px(*x)) y=(px(y - 9.5)) width="12" height="12" fill=(fill) stroke="#D8DDE3" {}
                text class="legend" x=(px(x + 16.0)) y=(px(*y)) { (label) }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_fall_in_their_bins() {
        let s = Scale::percent("x");
        assert_eq!(s.bin(0.0).map(|b| b.1), Some("#F7FBFF"));
        assert_eq!(s.bin(1.0).map(|b| b.1), Some("#DEEBF7"));
        assert_eq!(s.bin(35.0).map(|b| b.1), Some("#4292C6"));
        assert_eq!(s.bin(100.0).map(|b| b.1), Some("#08519C"));
        let d = Scale::signed("x", 10.0);
        assert_eq!(d.bin(0.0).map(|b| b.1), Some("#F7F7F7"));
        assert_eq!(d.bin(-1.0).map(|b| b.1), Some("#FDB863"));
        assert_eq!(d.bin(-5.0).map(|b| b.1), Some("#E66101"));
        assert_eq!(d.bin(4.0).map(|b| b.1), Some("#92C5DE"));
        assert_eq!(d.bin(5.0).map(|b| b.1), Some("#0571B0"));
    }

    #[test]
    fn column_labels_turn_upright_when_they_do_not_fit() {
        let columns = vec!["2025-43".to_owned(), "2025-38".to_owned()];
        let rows = [HeatRow::Cells(
            "GPTBot".into(),
            vec![
                Some(Cell {
                    value: 3.0,
                    text: "3".into(),
                    tip: "t".into(),
                }),
                None,
            ],
        )];
        let scale = Scale::percent("Percent");
        let svg = heatmap(&Heatmap {
            id: "h",
            title: "t",
            columns: &columns,
            rows: &rows,
            scale: &scale,
        })
        .into_string();
        assert!(svg.contains("rotate(-90"), "{svg}");
        let wide = vec!["a".to_owned(), "b".to_owned()];
        let svg = heatmap(&Heatmap {
            id: "h",
            title: "t",
            columns: &wide,
            rows: &rows,
            scale: &scale,
        })
        .into_string();
        assert!(!svg.contains("rotate(-90"), "{svg}");
    }
}
