//! A URL reduced to what robots.cc matches against: path, params and query.
//!
//! The URL is not normalised or percent-encoded here, exactly as robots.cc's
//! `GetPathParamsQuery`: callers pass URLs in the escaped form they crawl.

use std::borrow::Cow;

/// The part of a URL that rules are matched against; always starts with '/'. Reduce a
/// URL once to ask many agents about it ([`RobotsTxt::verdict_for_path`]).
///
/// ```
/// use robots_census_engine::{RobotsTxt, UrlPath};
///
/// let path = UrlPath::new(b"https://example.com/a/b?q=1#top");
/// assert_eq!(path.as_bytes(), b"/a/b?q=1");
/// let doc = RobotsTxt::parse(b"User-agent: GPTBot\nDisallow: /a\n");
/// let blocked: Vec<bool> = [&b"GPTBot"[..], b"CCBot"]
///     .iter()
///     .map(|agent| !doc.verdict_for_path(agent, &path).allowed)
///     .collect();
/// assert_eq!(blocked, [true, false]);
/// ```
///
/// [`RobotsTxt::verdict_for_path`]: crate::RobotsTxt::verdict_for_path
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPath<'a>(Cow<'a, [u8]>);

impl<'a> UrlPath<'a> {
    /// Reduces `url` to path+params+query. Borrows unless a '/' must be prepended
    /// (`http://h?q` -> `/?q`).
    pub fn new(url: &'a [u8]) -> Self {
        let path = path_params_query(url);
        // robots.cc passes the path on as a C string: a NUL ends it.
        UrlPath(match path {
            Cow::Borrowed(p) => Cow::Borrowed(&p[..memchr::memchr(0, p).unwrap_or(p.len())]),
            Cow::Owned(mut p) => {
                p.truncate(memchr::memchr(0, &p).unwrap_or(p.len()));
                Cow::Owned(p)
            }
        })
    }

    /// The path, params and query, as matched.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The same path, owning its bytes.
    pub fn into_owned(self) -> UrlPath<'static> {
        UrlPath(Cow::Owned(self.0.into_owned()))
    }
}

fn find_any(hay: &[u8], from: usize, set: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .iter()
        .position(|b| set.contains(b))
        .map(|i| i + from)
}

/// robots.cc's `GetPathParamsQuery`.
pub(crate) fn path_params_query(url: &[u8]) -> Cow<'_, [u8]> {
    // Initial two slashes are ignored.
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    let early_path = find_any(url, search_start, b"/?;");
    let scheme_end = url
        .get(search_start..)
        .and_then(|s| memchr::memmem::find(s, b"://"))
        .map(|i| i + search_start);
    let authority_start = match (scheme_end, early_path) {
        // A path, param or query before "://" means "://" is no scheme separator.
        (Some(p), Some(e)) if e < p => search_start,
        (Some(p), _) => p + 3,
        (None, _) => search_start,
    };
    let Some(path_start) = find_any(url, authority_start, b"/?;") else {
        return Cow::Borrowed(b"/");
    };
    let hash = memchr::memchr(b'#', &url[search_start..]).map(|i| i + search_start);
    if hash.is_some_and(|h| h < path_start) {
        return Cow::Borrowed(b"/");
    }
    let path = &url[path_start..hash.unwrap_or(url.len())];
    if path.first() == Some(&b'/') {
        Cow::Borrowed(path)
    } else {
        let mut owned = Vec::with_capacity(path.len() + 1);
        owned.push(b'/');
        owned.extend_from_slice(path);
        Cow::Owned(owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(url: &str) -> String {
        String::from_utf8(path_params_query(url.as_bytes()).into_owned()).unwrap()
    }

    /// The cases of robots_test.cc `TestGetPathParamsQuery`.
    #[test]
    fn google_get_path_params_query() {
        assert_eq!(p(""), "/");
        assert_eq!(p("http://www.example.com"), "/");
        assert_eq!(p("http://www.example.com/"), "/");
        assert_eq!(p("http://www.example.com/a"), "/a");
        assert_eq!(p("http://www.example.com/a/"), "/a/");
        assert_eq!(
            p("http://www.example.com/a/b?c=http://d.e/"),
            "/a/b?c=http://d.e/"
        );
        assert_eq!(
            p("http://www.example.com/a/b?c=d&e=f#fragment"),
            "/a/b?c=d&e=f"
        );
        assert_eq!(p("example.com"), "/");
        assert_eq!(p("example.com/"), "/");
        assert_eq!(p("example.com/a"), "/a");
        assert_eq!(p("example.com/a/"), "/a/");
        assert_eq!(p("example.com/a/b?c=d&e=f#fragment"), "/a/b?c=d&e=f");
        assert_eq!(p("a"), "/");
        assert_eq!(p("a/"), "/");
        assert_eq!(p("/a"), "/a");
        assert_eq!(p("a/b"), "/b");
        assert_eq!(p("example.com?a"), "/?a");
        assert_eq!(p("example.com/a;b#c"), "/a;b");
        assert_eq!(p("//a/b/c"), "/b/c");
    }

    #[test]
    fn google_url_path_stops_at_nul() {
        assert_eq!(UrlPath::new(b"http://a.com/a\0b").as_bytes(), b"/a");
    }
}
