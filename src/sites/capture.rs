//! One capture of a crawl as the sites step holds it, and chunks of them: the records
//! the step's single read of the `documents` and `agents` tables routes to buckets
//! ([`crate::spill`]) and reads back to decide.
//!
//! A capture is 88 bytes of fixed fields; its site name and URL are text in its
//! chunk's `names`, and its agents' facts (one byte per agent, [`super::facts`]) are in
//! the chunk's `facts`. URLs are matched as 128-bit keys.

use std::hash::{Hash, Hasher};

use crate::output::rows::DocId;
use crate::spill::codec::{put_bytes, put_u64, Reader};
use crate::spill::Chunk;

/// A URL reduced to a 128-bit key for lookups (two SipHash passes over its
/// [`crate::census::urls::lookup_key`] form): a collision among 10^9 URLs has a chance
/// below 10^-20.
pub type UrlKey = u128;

/// The [`UrlKey`] of a URL already in the lookup form (`documents.url_key` and
/// `location_key`, which `run` computes once per capture).
pub fn key_of(text: &str) -> UrlKey {
    let half = |seed: u64| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        text.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// A [`UrlKey`] as its two halves (high, low: they order as the number does), so
/// that a [`Capture`] is 8-byte aligned (a `u128` is 16-byte aligned on x86-64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Key([u64; 2]);

impl From<UrlKey> for Key {
    fn from(key: UrlKey) -> Key {
        Key([(key >> 64) as u64, key as u64])
    }
}

impl Key {
    pub fn get(self) -> UrlKey {
        (u128::from(self.0[0]) << 64) | u128::from(self.0[1])
    }

    /// The low half: what the redirect graph holds of a URL (see [`super::targets`]).
    pub fn short(self) -> u64 {
        self.0[1]
    }
}

/// No site: the capture is not of a `/robots.txt` URL (only a redirect may reach it).
const NO_SITE: u32 = u32::MAX;

/// One capture of a crawl, as much as the site step needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub doc_id: DocId,
    /// Microseconds since the epoch; `i64::MIN` when unknown (ranks below any date).
    pub fetch_time: i64,
    pub url_key: Key,
    /// Key of the resolved `Location` of a 3xx; 0 when there is none.
    pub location_key: Key,
    /// Where the capture's site name (if any) and then its URL start in
    /// [`Captures::names`].
    text: u64,
    /// Where its agents' facts start in [`Captures::facts`] ([`Captures::width`] bytes).
    facts: u64,
    site_len: u32,
    url_len: u32,
    pub status: Option<u16>,
    /// Common Crawl's MIME filter passes (see [`crate::census::site_classes::robots_mime`]).
    pub mime_ok: bool,
    /// Some allow/disallow line inside a group (documents.n_allow + n_disallow > 0).
    pub has_rules: bool,
}

/// What a capture is, without its text: the fields [`Captures::push`] takes.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub doc_id: DocId,
    pub fetch_time: i64,
    pub url_key: UrlKey,
    pub location_key: UrlKey,
    pub status: Option<u16>,
    pub mime_ok: bool,
    pub has_rules: bool,
}

/// Captures with their text: a chunk read from one batch, or a whole bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captures {
    pub list: Vec<Capture>,
    names: String,
    facts: Vec<u8>,
    /// Facts per capture: the crawl's agents.
    width: usize,
}

impl Captures {
    /// An empty chunk of captures with `width` agents' facts each.
    pub fn new(width: usize) -> Self {
        Captures {
            width,
            ..Captures::default()
        }
    }

    /// Adds a capture: its fields, its site (a capture of a `/robots.txt` URL), its URL
    /// and its agents' facts (`width` of them).
    pub fn push(&mut self, fields: Fields, site: Option<&str>, url: &str, facts: &[u8]) {
        debug_assert_eq!(facts.len(), self.width);
        let text = self.names.len() as u64;
        let site_len = match site {
            Some(site) => {
                self.names.push_str(site);
                // A site name is a host name: never 4 GiB long.
                u32::try_from(site.len()).unwrap_or(NO_SITE - 1)
            }
            None => NO_SITE,
        };
        self.names.push_str(url);
        let start = self.facts.len() as u64;
        self.facts.extend_from_slice(facts);
        self.list.push(Capture {
            doc_id: fields.doc_id,
            fetch_time: fields.fetch_time,
            url_key: fields.url_key.into(),
            location_key: fields.location_key.into(),
            text,
            facts: start,
            site_len,
            url_len: u32::try_from(url.len()).unwrap_or(u32::MAX),
            status: fields.status,
            mime_ok: fields.mime_ok,
            has_rules: fields.has_rules,
        });
    }

    /// Moves `other`'s captures to the end of these.
    pub fn append(&mut self, other: Captures) {
        let (names, facts) = (self.names.len() as u64, self.facts.len() as u64);
        self.names.push_str(&other.names);
        self.facts.extend_from_slice(&other.facts);
        self.width = self.width.max(other.width);
        self.list.extend(other.list.into_iter().map(|mut c| {
            c.text += names;
            c.facts += facts;
            c
        }));
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Agents' facts per capture.
    pub fn width(&self) -> usize {
        self.width
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The site of `c` (one of these), when it is a capture of a `/robots.txt` URL.
    pub fn site(&self, c: &Capture) -> Option<&str> {
        if c.site_len == NO_SITE {
            return None;
        }
        let start = c.text as usize;
        self.names.get(start..start + c.site_len as usize)
    }

    /// The URL of `c` (one of these).
    pub fn url(&self, c: &Capture) -> &str {
        let start = c.text as usize
            + if c.site_len == NO_SITE {
                0
            } else {
                c.site_len as usize
            };
        self.names
            .get(start..start + c.url_len as usize)
            .unwrap_or_default()
    }

    /// The agents' facts of `c` (one of these).
    pub fn facts(&self, c: &Capture) -> &[u8] {
        let start = c.facts as usize;
        self.facts
            .get(start..start + self.width)
            .unwrap_or_default()
    }

    /// The captures `keep` says yes to, with their text, in a chunk of their own.
    pub fn filtered(&self, keep: impl Fn(&Capture) -> bool) -> Captures {
        let mut kept = Captures::new(self.width);
        for c in self.list.iter().filter(|c| keep(c)) {
            let fields = Fields {
                doc_id: c.doc_id,
                fetch_time: c.fetch_time,
                url_key: c.url_key.get(),
                location_key: c.location_key.get(),
                status: c.status,
                mime_ok: c.mime_ok,
                has_rules: c.has_rules,
            };
            kept.push(fields, self.site(c), self.url(c), self.facts(c));
        }
        kept
    }
}

impl Chunk for Captures {
    fn encode(&self, out: &mut Vec<u8>) {
        put_u64(out, self.width as u64);
        put_u64(out, self.list.len() as u64);
        for c in &self.list {
            out.extend_from_slice(&c.doc_id);
            put_u64(out, c.fetch_time as u64);
            for half in c.url_key.0.into_iter().chain(c.location_key.0) {
                put_u64(out, half);
            }
            put_u64(out, c.text);
            put_u64(out, c.facts);
            out.extend_from_slice(&c.site_len.to_le_bytes());
            out.extend_from_slice(&c.url_len.to_le_bytes());
            let status = c.status.map_or(u32::MAX, u32::from);
            out.extend_from_slice(&status.to_le_bytes());
            out.push(u8::from(c.mime_ok) | u8::from(c.has_rules) << 1);
        }
        put_bytes(out, self.names.as_bytes());
        put_bytes(out, &self.facts);
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut r = Reader::new(bytes);
        let width = r.usize()?;
        let n = r.usize()?;
        let mut list = Vec::with_capacity(n.min(bytes.len() / 80));
        for _ in 0..n {
            let mut doc_id = [0u8; 16];
            doc_id.copy_from_slice(r.take(16)?);
            let fetch_time = r.u64()? as i64;
            let url_key = Key([r.u64()?, r.u64()?]);
            let location_key = Key([r.u64()?, r.u64()?]);
            let (text, facts) = (r.u64()?, r.u64()?);
            let u32_of = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let site_len = u32_of(r.take(4)?);
            let url_len = u32_of(r.take(4)?);
            let status = match u32_of(r.take(4)?) {
                u32::MAX => None,
                s => Some(u16::try_from(s).map_err(|_| format!("status {s}"))?),
            };
            let flags = r.take(1)?[0];
            list.push(Capture {
                doc_id,
                fetch_time,
                url_key,
                location_key,
                text,
                facts,
                site_len,
                url_len,
                status,
                mime_ok: flags & 1 == 1,
                has_rules: flags & 2 == 2,
            });
        }
        let names = String::from_utf8(r.bytes()?.to_vec()).map_err(|e| e.to_string())?;
        let facts = r.bytes()?.to_vec();
        let captures = Captures {
            list,
            names,
            facts,
            width,
        };
        // Every span must lie in the text (and on character boundaries), so that the
        // accessors above never fall back to an empty value.
        for c in &captures.list {
            let site = c.site_len != NO_SITE;
            let end =
                c.text as usize + if site { c.site_len as usize } else { 0 } + c.url_len as usize;
            let ok = end <= captures.names.len()
                && captures.names.is_char_boundary(c.text as usize)
                && captures.names.is_char_boundary(end)
                && (!site
                    || captures
                        .names
                        .is_char_boundary(c.text as usize + c.site_len as usize))
                && c.facts as usize + width <= captures.facts.len();
            if !ok {
                return Err("a capture's text lies outside its chunk".to_owned());
            }
        }
        Ok(captures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(n: u8) -> Fields {
        Fields {
            doc_id: [n; 16],
            fetch_time: i64::from(n) - 3,
            url_key: u128::from(n) << 70 | 7,
            location_key: if n % 2 == 0 { 0 } else { u128::MAX - 1 },
            status: (n != 3).then_some(200 + u16::from(n)),
            mime_ok: n % 3 == 0,
            has_rules: n % 2 == 1,
        }
    }

    #[test]
    fn a_capture_is_88_bytes_and_keys_order_as_numbers() {
        assert_eq!(std::mem::size_of::<Capture>(), 88);
        let keys = [
            0u128,
            1,
            u128::from(u64::MAX),
            1 << 64,
            (1 << 64) | 5,
            u128::MAX,
        ];
        for pair in keys.windows(2) {
            assert!(Key::from(pair[0]) < Key::from(pair[1]), "{pair:?}");
            assert_eq!(Key::from(pair[1]).get(), pair[1]);
        }
    }

    #[test]
    fn captures_keep_their_text_through_append_filter_and_the_codec() {
        let mut a = Captures::new(2);
        a.push(
            fields(1),
            Some("a.example"),
            "https://a.example/robots.txt",
            &[1, 2],
        );
        a.push(fields(2), None, "https://é.example/x", &[3, 4]);
        let mut b = Captures::new(2);
        b.push(fields(3), Some(""), "", &[5, 6]);
        a.append(b);
        let texts = |c: &Captures| -> Vec<(Option<String>, String, Vec<u8>)> {
            c.list
                .iter()
                .map(|x| {
                    (
                        c.site(x).map(str::to_owned),
                        c.url(x).to_owned(),
                        c.facts(x).to_vec(),
                    )
                })
                .collect()
        };
        let want = vec![
            (
                Some("a.example".to_owned()),
                "https://a.example/robots.txt".to_owned(),
                vec![1, 2],
            ),
            (None, "https://é.example/x".to_owned(), vec![3, 4]),
            (Some(String::new()), String::new(), vec![5, 6]),
        ];
        assert_eq!(texts(&a), want);
        let mut bytes = Vec::new();
        a.encode(&mut bytes);
        let back = Captures::decode(&bytes).expect("decoded");
        assert_eq!(back, a);
        let odd = a.filtered(|c| c.has_rules);
        assert_eq!(texts(&odd), vec![want[0].clone(), want[2].clone()]);
        assert_eq!(odd.list[1].status, None);
        // A cut chunk, or text spans that point outside it, do not decode.
        assert!(Captures::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut broken = a.clone();
        broken.list[1].url_len += 100;
        let mut bytes = Vec::new();
        broken.encode(&mut bytes);
        assert!(Captures::decode(&bytes).is_err());
    }
}
