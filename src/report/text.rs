//! How wide a label is drawn, so that the charts can make room for it instead of
//! letting it run out of the picture or over its neighbour.
//!
//! The page names no font file (nothing is fetched): it asks for the system's sans
//! serif, which is DejaVu Sans on most Linux desktops and narrower elsewhere (Arial,
//! Liberation Sans, Helvetica, Segoe UI are all narrower, character for character).
//! So the widths below are DejaVu Sans's advance widths (read from DejaVuSans.ttf's
//! `hmtx` table, in ems), and a label measured with them fits in every common font.
//! Characters outside ASCII count as one em, which is wider than all but a few.

/// Advance widths of ASCII 0x20..=0x7E in DejaVu Sans, in ems. (Font metrics: a width
/// of 0.318 em is not 1/π, whatever clippy's `approx_constant` suspects.)
#[allow(clippy::approx_constant)]
const ASCII_EM: [f64; 95] = [
    0.318, 0.401, 0.46, 0.838, 0.636, 0.95, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318, 0.361,
    0.318, 0.337, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337,
    0.337, 0.838, 0.838, 0.838, 0.531, 1.0, 0.684, 0.686, 0.698, 0.77, 0.632, 0.575, 0.775, 0.752,
    0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695, 0.635, 0.611, 0.732,
    0.684, 0.989, 0.685, 0.611, 0.685, 0.39, 0.337, 0.39, 0.838, 0.5, 0.5, 0.613, 0.635, 0.55,
    0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635,
    0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636,
    0.838,
];

/// A few non-ASCII characters the charts write themselves (font metrics again).
#[allow(clippy::approx_constant)]
fn other_em(c: char) -> f64 {
    match c {
        '·' => 0.318,
        '–' => 0.5,
        '→' | '≤' => 0.838,
        _ => 1.0,
    }
}

/// The width of `text` drawn at `px` pixels (regular weight).
pub fn width(text: &str, px: f64) -> f64 {
    let ems: f64 = text
        .chars()
        .map(|c| match c as u32 {
            n @ 0x20..=0x7E => ASCII_EM[(n - 0x20) as usize],
            _ => other_em(c),
        })
        .sum();
    ems * px
}

/// `text` cut to fit in `max` pixels at `px`, an ellipsis marking the cut; `None` when
/// it fits whole.
pub fn fit(text: &str, px: f64, max: f64) -> Option<String> {
    if width(text, px) <= max {
        return None;
    }
    let budget = max - width("…", px);
    let mut used = 0.0;
    let mut out = String::new();
    for c in text.chars() {
        let w = width(c.encode_utf8(&mut [0; 4]), px);
        if used + w > budget {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    Some(out)
}

/// `text` at most `max` pixels wide: whole, or cut with an ellipsis.
pub fn fitted(text: &str, px: f64, max: f64) -> String {
    fit(text, px, max).unwrap_or_else(|| text.to_owned())
}

/// `text` in lines of at most `max` pixels, broken after spaces and hyphens, at most
/// `lines` of them (the last cut with an ellipsis when the text is longer).
pub fn wrap(text: &str, px: f64, max: f64, lines: usize) -> Vec<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == ' ' || c == '-' || c == '–' {
            let end = i + c.len_utf8();
            words.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        words.push(&text[start..]);
    }
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in words {
        let joined = format!("{line}{word}");
        if line.is_empty() || width(joined.trim_end(), px) <= max {
            line = joined;
        } else {
            out.push(line.trim_end().to_owned());
            line = word.to_owned();
        }
    }
    if !line.is_empty() {
        out.push(line.trim_end().to_owned());
    }
    if out.len() > lines.max(1) {
        let rest = out.split_off(lines.max(1) - 1).join(" ");
        out.push(rest);
    }
    out.into_iter().map(|l| fitted(&l, px, max)).collect()
}

/// The widest of `texts` at `px`.
pub fn widest<'a>(texts: impl IntoIterator<Item = &'a str>, px: f64) -> f64 {
    texts.into_iter().map(|t| width(t, px)).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_add_up_per_character() {
        assert!((width("0", 10.0) - 6.36).abs() < 1e-9);
        assert!((width("iW", 10.0) - (2.78 + 9.89)).abs() < 1e-9);
        assert_eq!(width("", 12.0), 0.0);
        // Outside ASCII: one em.
        assert!((width("é", 10.0) - 10.0).abs() < 1e-9);
    }

    #[test]
    fn labels_are_cut_to_the_room_they_have() {
        assert_eq!(fit("GPTBot", 11.0, 200.0), None);
        let cut = fit("Googlebot-News · CC-MAIN-2026-05", 11.0, 100.0).expect("cut");
        assert!(cut.ends_with('…') && cut.starts_with("Googlebot"), "{cut}");
        assert!(width(&cut, 11.0) <= 100.0, "{cut}");
        assert_eq!(fitted("abc", 11.0, 100.0), "abc");
    }

    #[test]
    fn long_labels_wrap_at_spaces_and_hyphens() {
        assert_eq!(
            wrap("100 KiB-500 KiB", 10.0, 60.0, 2),
            ["100 KiB-", "500 KiB"]
        );
        assert_eq!(wrap("0 B", 10.0, 60.0, 2), ["0 B"]);
        let three = wrap("one two three four five six", 10.0, 40.0, 2);
        assert_eq!(three.len(), 2);
        assert!(three[1].ends_with('…'), "{three:?}");
        assert!(three.iter().all(|l| width(l, 10.0) <= 40.0), "{three:?}");
    }
}
