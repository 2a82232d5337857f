//! Java number parsing as crawler-commons 1.6 `SimpleRobotRulesParser.handleCrawlDelay` gets it
//! from the JDK: `Integer.parseInt` (Unicode digits, int range), `Double.parseDouble`
//! (`FloatingDecimal`: trim, `NaN`/`Infinity`, hex floats, `fFdD` suffixes) and `Math.round`.
//! Exactness matters: a value Java rejects leaves the Crawl-delay unset.

use super::text::java_trim;

/// `handleCrawlDelay`: a value containing `.` goes through `Double.parseDouble(s) * 1000.0` and
/// `Math.round`, anything else through `Integer.parseInt(s) * 1000L`. `None` = empty or
/// unparsable (a warning in the library; the group's crawl-delay collection still stops).
pub(super) fn parse_crawl_delay(data: &str) -> Option<i64> {
    if data.is_empty() {
        return None;
    }
    if data.contains('.') {
        let d = java_parse_double(data)?;
        Some(java_math_round(d * 1000.0))
    } else {
        java_parse_int(data).map(|v| v * 1000)
    }
}

/// `Math.round(double)`: floor(x + 1/2) computed exactly, NaN => 0, saturating.
fn java_math_round(x: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let f = x.floor();
    let r = if x - f >= 0.5 { f + 1.0 } else { f };
    r as i64 // saturating cast, like Java's (long) of a huge double
}

/// Zeros of the BMP Unicode decimal-digit (Nd) runs `Character.digit(char, 10)` accepts
/// (Java 17, Unicode 13). Integer.parseInt works on UTF-16 chars, so only the BMP counts.
const ND_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
];

fn java_digit(c: char) -> Option<i64> {
    let cp = c as u32;
    for &z in ND_ZEROS {
        if cp >= z && cp < z + 10 {
            return Some((cp - z) as i64);
        }
    }
    None
}

/// `Integer.parseInt(s)`: optional sign, Unicode decimal digits, int range.
pub(super) fn java_parse_int(s: &str) -> Option<i64> {
    let mut chars = s.chars().peekable();
    let mut neg = false;
    match chars.peek() {
        Some('-') => {
            neg = true;
            chars.next();
        }
        Some('+') => {
            chars.next();
        }
        _ => {}
    }
    let mut v: i64 = 0;
    let mut any = false;
    for c in chars {
        let d = java_digit(c)?;
        v = v * 10 + d;
        if v > 1i64 << 31 {
            return None;
        }
        any = true;
    }
    if !any {
        return None;
    }
    let v = if neg { -v } else { v };
    if v > i32::MAX as i64 || v < i32::MIN as i64 {
        return None;
    }
    Some(v)
}

/// `Double.parseDouble(s)` (FloatingDecimal.readJavaFormatString): trim, sign, `NaN`,
/// `Infinity`, hex floats `0x1.8p1`, decimal with optional exponent, optional `fFdD` suffix.
fn java_parse_double(s: &str) -> Option<f64> {
    let s = java_trim(s);
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let sign = if neg { -1.0 } else { 1.0 };
    if rest == "NaN" {
        return Some(f64::NAN);
    }
    if rest == "Infinity" {
        return Some(sign * f64::INFINITY);
    }
    let rb = rest.as_bytes();
    if rb.len() >= 2 && rb[0] == b'0' && (rb[1] == b'x' || rb[1] == b'X') {
        return parse_hex_double(&rb[2..]).map(|v| sign * v);
    }
    // decimal
    let mut j = 0;
    let mut mant = String::new();
    let mut digits = 0;
    let mut dot = false;
    while j < rb.len() {
        let c = rb[j];
        if c.is_ascii_digit() {
            mant.push(c as char);
            digits += 1;
        } else if c == b'.' && !dot {
            dot = true;
            mant.push('.');
        } else {
            break;
        }
        j += 1;
    }
    if digits == 0 {
        return None;
    }
    let mut exp = String::new();
    if j < rb.len() && (rb[j] == b'e' || rb[j] == b'E') {
        j += 1;
        let mut e = String::from("e");
        if j < rb.len() && (rb[j] == b'+' || rb[j] == b'-') {
            e.push(rb[j] as char);
            j += 1;
        }
        let st = j;
        while j < rb.len() && rb[j].is_ascii_digit() {
            e.push(rb[j] as char);
            j += 1;
        }
        if j == st {
            return None;
        }
        exp = e;
    }
    if j < rb.len() {
        if j == rb.len() - 1 && matches!(rb[j], b'f' | b'F' | b'd' | b'D') {
            // type suffix; 'f' means float precision in Java
            let v: f64 = format!("{}{}", mant, exp).parse().ok()?;
            if matches!(rb[j], b'f' | b'F') {
                return Some(sign * (v as f32) as f64);
            }
            return Some(sign * v);
        }
        return None;
    }
    let v: f64 = format!("{}{}", mant, exp).parse().ok()?;
    Some(sign * v)
}

fn parse_hex_double(b: &[u8]) -> Option<f64> {
    let mut j = 0;
    let mut mant: f64 = 0.0;
    let mut exp_adj: i64 = 0;
    let mut digits = 0;
    let mut dot = false;
    while j < b.len() {
        let c = b[j];
        if let Some(d) = (c as char).to_digit(16) {
            mant = mant * 16.0 + d as f64;
            if dot {
                exp_adj -= 4;
            }
            digits += 1;
        } else if c == b'.' && !dot {
            dot = true;
        } else {
            break;
        }
        j += 1;
    }
    if digits == 0 || j >= b.len() || (b[j] != b'p' && b[j] != b'P') {
        return None;
    }
    j += 1;
    let mut eneg = false;
    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
        eneg = b[j] == b'-';
        j += 1;
    }
    let st = j;
    let mut e: i64 = 0;
    while j < b.len() && b[j].is_ascii_digit() {
        e = (e * 10 + (b[j] - b'0') as i64).min(1 << 20);
        j += 1;
    }
    if j == st {
        return None;
    }
    if j < b.len() && !(j == b.len() - 1 && matches!(b[j], b'f' | b'F' | b'd' | b'D')) {
        return None;
    }
    let e = if eneg { -e } else { e } + exp_adj;
    Some(mant * 2f64.powi(e.clamp(-2000, 2000) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of `crawl_delay_number_forms` (mod.rs), on the parser alone.
    #[test]
    fn parse_crawl_delay_direct() {
        for (v, exp) in [
            ("10", 10000),
            ("+3", 3000),
            ("1.5", 1500),
            ("1.", 1000),
            (".25", 250),
            ("2.5e1", 25000),
            ("1.5d", 1500),
            ("0x1.8p1", 3000),
            ("\u{0663}", 3000),
        ] {
            assert_eq!(parse_crawl_delay(v), Some(exp), "{v}");
        }
        for v in ["", "abc", "1,5", "3000000000", "1e3", "10s"] {
            assert_eq!(parse_crawl_delay(v), None, "{v}");
        }
        // Math.round: half up, towards positive infinity; NaN => 0
        assert_eq!(java_math_round(2.5), 3);
        assert_eq!(java_math_round(-0.5), 0);
        assert_eq!(java_math_round(f64::NAN), 0);
    }
}
