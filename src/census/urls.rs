//! Every fact about a URL a column holds, computed here and nowhere else: scheme,
//! host and port as WHATWG parsing gives them, the `host[:port]` authority URLs are
//! joined by, the registrable domain (Public Suffix List), a redirect's `Location`
//! resolved to an absolute URL, whether a URL is a site's `/robots.txt`, and the
//! form redirects are looked up by.

use std::net::IpAddr;

/// Version of the Public Suffix List compiled in: the `psl` crate republishes at
/// every change of the list, so its version names the list. Recorded in manifests.
/// (A unit test keeps it equal to the version in Cargo.lock.)
pub const PSL_VERSION: &str = "psl 2.1.247";

/// The Public Suffix List version, for the run's manifest.
pub fn psl_version() -> &'static str {
    PSL_VERSION
}

/// The host name of an authority (`host[:port]`), without the port or a trailing
/// dot, lower-cased. IPv6 literals keep their brackets.
pub fn host_name(authority: &str) -> &str {
    let host = if authority.starts_with('[') {
        authority
            .find(']')
            .map_or(authority, |end| &authority[..=end])
    } else {
        authority
            .rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(authority, |(host, _)| host)
    };
    host.strip_suffix('.').unwrap_or(host)
}

/// The registrable domain of a host name (the public suffix plus one label, e.g.
/// `shop.example.co.uk` -> `example.co.uk`), from the Public Suffix List with its
/// implicit `*` rule. `None` for IP addresses and for names that are a public
/// suffix themselves. The name is expected lower-cased.
pub fn registrable_domain(host: &str) -> Option<&str> {
    let host = host_name(host);
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() || bare.parse::<IpAddr>().is_ok() {
        return None;
    }
    psl::domain_str(host)
}

/// Scheme, host and non-default port of a URL, as WHATWG URL parsing gives them
/// (the `url` crate: lower-cased, IDNA to punycode). Empty when it does not parse.
pub fn url_parts(url: &str) -> (String, String, Option<u16>) {
    url_parts_of(url::Url::parse(url).ok().as_ref())
}

/// [`url_parts`] of a URL parsed already (`None`: it did not parse).
pub fn url_parts_of(url: Option<&url::Url>) -> (String, String, Option<u16>) {
    match url {
        Some(u) => (
            u.scheme().to_owned(),
            u.host_str().unwrap_or_default().to_owned(),
            u.port(),
        ),
        None => (String::new(), String::new(), None),
    }
}

/// `host[:port]` (port only when not the scheme's default).
pub fn authority(host: &str, port: Option<u16>) -> String {
    match port {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// The host of an absolute URL (see [`url_parts`]); `None` when it has none.
pub fn url_host(url: &str) -> Option<String> {
    let (_, host, _) = url_parts(url);
    (!host.is_empty()).then_some(host)
}

/// The `host[:port]` of an absolute URL, the key sampled URLs are joined by.
pub fn url_authority(url: &str) -> Option<String> {
    let (_, host, port) = url_parts(url);
    (!host.is_empty()).then(|| authority(&host, port))
}

/// [`resolve_location_against`] a URL not parsed yet (`None` when it does not parse).
#[cfg(test)]
pub fn resolve_location(base: &str, location: &str) -> Option<String> {
    resolve_location_against(&url::Url::parse(base).ok()?, location)
}

/// A 3xx response's `Location`, resolved against the capture's URL, parsed already
/// (RFC 9110: a relative reference is relative to the target URI). `None` when it
/// does not parse or the header is empty.
pub fn resolve_location_against(base: &url::Url, location: &str) -> Option<String> {
    let location = location.trim();
    if location.is_empty() {
        return None;
    }
    base.join(location).ok().map(String::from)
}

/// A URL in the form redirects are looked up by: WHATWG-serialised (lower-cased
/// scheme and host, default port dropped, dot segments removed), fragment dropped;
/// the text itself when it does not parse.
pub fn lookup_key(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_fragment(None);
            parsed.into()
        }
        Err(_) => url.to_owned(),
    }
}

/// [`lookup_key`] of a URL parsed already: its serialisation up to the fragment,
/// which is what dropping the fragment and serialising again gives, without the copy.
pub fn lookup_key_of(parsed: &url::Url) -> &str {
    &parsed[..url::Position::AfterQuery]
}

/// [`is_robots_parsed`] of a URL not parsed yet.
#[cfg(test)]
pub fn is_robots_url(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|parsed| is_robots_parsed(&parsed))
}

/// Whether a URL, parsed already, is a site's robots.txt as Common Crawl selects them:
/// http(s), a host, the path exactly `/robots.txt`, no query.
pub fn is_robots_parsed(parsed: &url::Url) -> bool {
    matches!(parsed.scheme(), "http" | "https")
        && parsed.host().is_some()
        && parsed.path() == "/robots.txt"
        && parsed.query().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_drop_ports_and_trailing_dots() {
        assert_eq!(host_name("example.com:8080"), "example.com");
        assert_eq!(host_name("example.com."), "example.com");
        assert_eq!(host_name("[::1]:443"), "[::1]");
        assert_eq!(host_name("example.com"), "example.com");
    }

    #[test]
    fn registrable_domains_follow_the_public_suffix_list() {
        assert_eq!(
            registrable_domain("shop.example.co.uk"),
            Some("example.co.uk")
        );
        assert_eq!(registrable_domain("example.co.uk"), Some("example.co.uk"));
        assert_eq!(
            registrable_domain("a.b.example.com:8080"),
            Some("example.com")
        );
        // A private-section suffix: each GitHub Pages user is its own domain.
        assert_eq!(
            registrable_domain("docs.someone.github.io"),
            Some("someone.github.io")
        );
        assert_eq!(registrable_domain("co.uk"), None);
        assert_eq!(registrable_domain("192.168.0.1"), None);
        assert_eq!(registrable_domain("[::1]:80"), None);
        assert_eq!(registrable_domain(""), None);
    }

    #[test]
    fn locations_resolve_against_the_capture_url() {
        let base = "http://example.com/robots.txt";
        assert_eq!(
            resolve_location(base, "https://www.example.com/robots.txt").as_deref(),
            Some("https://www.example.com/robots.txt")
        );
        assert_eq!(
            resolve_location(base, "/new/robots.txt").as_deref(),
            Some("http://example.com/new/robots.txt")
        );
        assert_eq!(
            resolve_location(base, "other.txt").as_deref(),
            Some("http://example.com/other.txt")
        );
        assert_eq!(
            resolve_location(base, "//cdn.example.net/r.txt").as_deref(),
            Some("http://cdn.example.net/r.txt")
        );
        assert_eq!(resolve_location(base, "  "), None);
        assert_eq!(resolve_location("not a url", "/x"), None);
    }

    #[test]
    fn lookup_keys_are_whatwg_serialisations() {
        assert_eq!(
            lookup_key("HTTPS://Example.COM:443/robots.txt#x"),
            "https://example.com/robots.txt"
        );
        assert_eq!(lookup_key("no url"), "no url");
        for url in [
            "HTTPS://Example.COM:443/robots.txt#x",
            "http://a.example/x/../robots.txt?q=1#frag#more",
            "http://a.example/robots.txt#",
            "https://b.example:8443/r.txt",
        ] {
            let parsed = url::Url::parse(url).expect("a URL");
            assert_eq!(lookup_key_of(&parsed), lookup_key(url), "{url}");
        }
    }

    #[test]
    fn robots_urls_are_exactly_slash_robots_txt() {
        assert!(is_robots_url("https://example.com/robots.txt"));
        assert!(is_robots_url("http://example.com:8080/robots.txt"));
        assert!(!is_robots_url("https://example.com/robots.txt?x=1"));
        assert!(!is_robots_url("https://example.com/a/robots.txt"));
        assert!(!is_robots_url("https://example.com/ROBOTS.TXT"));
        assert!(!is_robots_url("ftp://example.com/robots.txt"));
    }

    #[test]
    fn hosts_are_whatwg_hosts() {
        assert_eq!(
            url_parts("HTTPS://User@WWW.Example.com:8080/robots.txt"),
            ("https".into(), "www.example.com".into(), Some(8080))
        );
        assert_eq!(
            url_host("http://Bücher.example/robots.txt").as_deref(),
            Some("xn--bcher-kva.example")
        );
        assert_eq!(url_parts("https://example.com:443/robots.txt").2, None);
        assert_eq!(url_authority("http://a.b:81?x").as_deref(), Some("a.b:81"));
        assert_eq!(url_host("/relative"), None);
    }

    /// The version string names the crate actually locked.
    #[test]
    fn psl_version_matches_cargo_lock() {
        let lock = include_str!("../../Cargo.lock");
        let locked = lock
            .split("[[package]]")
            .find(|p| p.contains("\nname = \"psl\"\n"))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .map(|v| v.trim_end_matches('"'));
        assert_eq!(
            Some(PSL_VERSION),
            locked.map(|v| format!("psl {v}")).as_deref()
        );
    }
}
