//! Mutations of real bodies from ../shared/corpus/robots: byte flips, lines
//! duplicated, deleted, moved or inserted from the grammar, keys retyped, line
//! endings rewritten, BOMs and NULs inserted, cuts, and now and then padding
//! across the 512,000-byte cut. Each mutation says its name, for the report.

use super::grammar;
use super::rng::Rng;

/// Bytes a flip prefers: robots.txt syntax and the bytes robots.cc treats specially.
const INTERESTING: &[u8] = b":*$/#%\n\r\0 \t\x0b\xef\xbb\xbf\x80\xffaA?";

/// Applies one to four mutations to `body`; returns their names.
pub fn mutate(rng: &mut Rng, body: &mut Vec<u8>) -> Vec<&'static str> {
    (0..rng.range(1, 4))
        .map(|_| mutate_once(rng, body))
        .collect()
}

fn mutate_once(rng: &mut Rng, body: &mut Vec<u8>) -> &'static str {
    match rng.below(23) {
        0..=3 => {
            for _ in 0..rng.range(1, 8) {
                if !body.is_empty() {
                    let at = rng.below(body.len());
                    body[at] = if rng.chance(70) {
                        rng.choose(INTERESTING)
                    } else {
                        rng.byte()
                    };
                }
            }
            "flip bytes"
        }
        4 | 5 => {
            edit_lines(rng, body, |rng, lines| {
                let from = rng.below(lines.len());
                let line = lines[from].clone();
                let to = rng.below(lines.len() + 1);
                lines.insert(to, line);
            });
            "duplicate a line"
        }
        6 | 7 => {
            edit_lines(rng, body, |rng, lines| {
                for _ in 0..rng.range(1, 3) {
                    if !lines.is_empty() {
                        lines.remove(rng.below(lines.len()));
                    }
                }
            });
            "delete lines"
        }
        8 => {
            edit_lines(rng, body, |rng, lines| {
                let line = lines.remove(rng.below(lines.len()));
                lines.insert(rng.below(lines.len() + 1), line);
            });
            "move a line"
        }
        9..=11 => {
            edit_lines(rng, body, |rng, lines| {
                let mut line = grammar::any_line(rng);
                line.push(b'\n');
                lines.insert(rng.below(lines.len() + 1), line);
            });
            "insert a grammar line"
        }
        12 | 13 => {
            edit_lines(rng, body, |rng, lines| {
                let i = rng.below(lines.len());
                if let Some(colon) = lines[i].iter().position(|b| *b == b':') {
                    let mut key = grammar::any_line(rng);
                    key.truncate(key.iter().position(|b| *b == b':').unwrap_or(0));
                    lines[i].splice(..colon, key);
                }
            });
            "retype a key"
        }
        14 | 15 => {
            rewrite_eols(rng, body);
            "rewrite line endings"
        }
        16 => {
            let bom: &[u8] = rng.choose(&[&b"\xef\xbb\xbf"[..], b"\xef\xbb", b"\xef"]);
            let at = if rng.chance(60) {
                0
            } else {
                rng.below(body.len() + 1)
            };
            body.splice(at..at, bom.iter().copied());
            "insert a BOM"
        }
        17 | 18 => {
            let at = rng.below(body.len() + 1);
            body.insert(at, 0);
            "insert a NUL"
        }
        19 | 20 => {
            body.truncate(rng.below(body.len() + 1));
            "cut"
        }
        21 => {
            let (a, b) = (rng.below(body.len() + 1), rng.below(body.len() + 1));
            let range = a.min(b)..a.max(b).min(a.min(b) + 64);
            for byte in &mut body[range] {
                *byte = if rng.chance(50) {
                    byte.to_ascii_uppercase()
                } else {
                    byte.to_ascii_lowercase()
                };
            }
            "change case"
        }
        _ => {
            if rng.chance(10) {
                let head = std::mem::take(body);
                *body = grammar::across_the_cut(rng, head).body;
                "pad across the 512,000-byte cut"
            } else {
                let line = grammar::long_line(rng);
                edit_lines(rng, body, |rng, lines| {
                    let mut line = line.clone();
                    line.push(b'\n');
                    lines.insert(rng.below(lines.len() + 1), line);
                });
                "insert a line near the 16,663-byte cut"
            }
        }
    }
}

/// Splits `body` into lines (each with its terminator), lets `edit` change them
/// (never called with no lines), joins them again.
fn edit_lines(rng: &mut Rng, body: &mut Vec<u8>, edit: impl FnOnce(&mut Rng, &mut Vec<Vec<u8>>)) {
    let mut lines: Vec<Vec<u8>> = body
        .split_inclusive(|b| *b == b'\n' || *b == b'\r')
        .map(<[u8]>::to_vec)
        .collect();
    if lines.is_empty() {
        lines.push(Vec::new());
    }
    edit(rng, &mut lines);
    *body = lines.concat();
}

/// Every line ending (CR, LF or CRLF) becomes one style, or a random one each.
fn rewrite_eols(rng: &mut Rng, body: &mut Vec<u8>) {
    const EOLS: [&[u8]; 3] = [b"\n", b"\r\n", b"\r"];
    let style = rng.below(4);
    let mut out = Vec::with_capacity(body.len() + body.len() / 16);
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\r' | b'\n' => {
                let crlf = body[i] == b'\r' && body.get(i + 1) == Some(&b'\n');
                i += if crlf { 2 } else { 1 };
                let eol = if style < 3 {
                    EOLS[style]
                } else {
                    rng.choose(&EOLS)
                };
                out.extend_from_slice(eol);
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    *body = out;
}
