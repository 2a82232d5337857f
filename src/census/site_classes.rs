//! The values of the `sites` table's classes, each definition from its source: what
//! a status means (`sites --status-semantics`), Common Crawl's MIME filter and its
//! eight status classes with their precedence, and the top-k strata of a rank.

use crate::census::status::StatusOutcome;

/// What HTTP statuses of robots.txt fetches mean (`sites --status-semantics`), per
/// crawler family (`../shared/interpretations/README.md`, "Status of the fetch").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum StatusSemantics {
    /// RFC 9309 section 2.3.1: 2xx success; 3xx redirect; 5xx unreachable (disallow
    /// all, 2.3.1.4); every 4xx, 429 included (2.3.1.3), unavailable (allow all).
    #[default]
    Rfc9309,
    /// Google ("How Google interprets the robots.txt specification"): as RFC 9309, but
    /// 429 is treated as a server error (disallow all) like 5xx, and so is any code
    /// outside 2xx-5xx (an invalid response).
    Google,
    /// Common Crawl's crawler and robotstxt-experiments: 200 success; 3xx redirect;
    /// 403 forbidden (keep out); 429 and 5xx defer visits; every other status
    /// (400, 401, 404, 410, other 2xx ...) allow all.
    Ccbot,
    /// Yandex (webmaster help, robots-txt): 200 success; 3xx followed; any other answer,
    /// 5xx included, allows everything.
    Yandex,
    /// Python's urllib.robotparser (CPython <= 3.12, `read()`): 2xx success; 3xx
    /// followed; 401 and 403 disallow all; other 4xx allow all; 5xx leave nothing
    /// read, and `can_fetch` then answers no to everything.
    Urllib,
    /// Browsertrix crawler with npm robots-parser: 200 success; 3xx followed; any other
    /// status allows everything.
    RobotsParser,
}

impl StatusSemantics {
    pub fn as_str(self) -> &'static str {
        match self {
            StatusSemantics::Rfc9309 => "rfc9309",
            StatusSemantics::Google => "google",
            StatusSemantics::Ccbot => "ccbot",
            StatusSemantics::Yandex => "yandex",
            StatusSemantics::Urllib => "urllib",
            StatusSemantics::RobotsParser => "robots-parser",
        }
    }

    /// What a capture's status means. No status (a CSV row of bodies) is a success.
    /// Google's meaning is [`StatusOutcome::google`], the definition `agents` uses too.
    pub fn fetch(self, status: Option<u16>) -> Fetch {
        use StatusSemantics::*;
        if self == Google {
            return match StatusOutcome::google(status) {
                StatusOutcome::Parse => Fetch::Success,
                StatusOutcome::Redirect => Fetch::Redirect,
                StatusOutcome::NoRobots => Fetch::AllowAll,
                StatusOutcome::Unreachable | StatusOutcome::Unknown => Fetch::Defer,
            };
        }
        let Some(status) = status else {
            return Fetch::Success;
        };
        match (self, status) {
            (Rfc9309 | Urllib, 200..=299) => Fetch::Success,
            (Ccbot | Yandex | RobotsParser, 200) => Fetch::Success,
            (_, 300..=399) => Fetch::Redirect,
            (Ccbot, 403) | (Urllib, 401 | 403) => Fetch::Forbidden,
            (Ccbot, 429) => Fetch::Defer,
            (Rfc9309 | Ccbot | Urllib, 500..=599) => Fetch::Defer,
            _ => Fetch::AllowAll,
        }
    }
}

/// A fetch outcome, in Common Crawl's order of precedence between the captures
/// of one site: success > allow all > forbidden > defer > redirect not resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fetch {
    Success,
    AllowAll,
    Forbidden,
    Defer,
    Redirect,
}

impl Fetch {
    /// Every outcome, in order of precedence (`ALL[f as usize] == f`).
    pub const ALL: [Fetch; 5] = [
        Fetch::Success,
        Fetch::AllowAll,
        Fetch::Forbidden,
        Fetch::Defer,
        Fetch::Redirect,
    ];

    /// The outcome at `index` in [`Fetch::ALL`].
    pub fn from_index(index: u8) -> Option<Fetch> {
        Fetch::ALL.get(usize::from(index)).copied()
    }
}

/// Common Crawl's eight status classes of a site, under their published names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StatusClass {
    NoCapture,
    Forbidden,
    Defer,
    AllowAll,
    RedirectNotResolved,
    MimeNotRobots,
    NoRules,
    WithRules,
}

// `ALL` lists the classes in declaration order, so `index` (the discriminant) is a
// position in it; and an `ALL` that missed a class would not have the length of the
// exhaustive match below.
const _: () = {
    let mut i = 0;
    while i < StatusClass::COUNT {
        assert!(StatusClass::ALL[i] as usize == i);
        i += 1;
    }
    assert!(StatusClass::WithRules as usize + 1 == StatusClass::COUNT);
};

/// One value per [`StatusClass`], indexed by [`StatusClass::index`].
pub type PerClass<T> = [T; StatusClass::COUNT];

impl StatusClass {
    /// The number of classes.
    pub const COUNT: usize = StatusClass::ALL.len();

    /// Every class, in declaration order (so `ALL[c.index()] == c`).
    pub const ALL: [StatusClass; 8] = [
        StatusClass::NoCapture,
        StatusClass::Forbidden,
        StatusClass::Defer,
        StatusClass::AllowAll,
        StatusClass::RedirectNotResolved,
        StatusClass::MimeNotRobots,
        StatusClass::NoRules,
        StatusClass::WithRules,
    ];

    /// The position of the class in [`StatusClass::ALL`] (and in a [`PerClass`]).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The column names of Common Crawl's `robotstxt-status-counts-topk.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            StatusClass::NoCapture => "No robots.txt capture",
            StatusClass::Forbidden => "HTTP forbidden",
            StatusClass::Defer => "HTTP defer visits",
            StatusClass::AllowAll => "HTTP allow all",
            StatusClass::RedirectNotResolved => "HTTP redirect not resolved",
            StatusClass::MimeNotRobots => "MIME not a robots.txt",
            StatusClass::NoRules => "Robots.txt no rules",
            StatusClass::WithRules => "Robots.txt with rules",
        }
    }

    /// The class named `text` (an [`StatusClass::as_str`] value).
    pub fn parse(text: &str) -> Option<StatusClass> {
        StatusClass::ALL.into_iter().find(|c| c.as_str() == text)
    }

    /// The deciding capture is a robots.txt file whose lines count.
    pub fn is_robots(self) -> bool {
        matches!(self, StatusClass::WithRules | StatusClass::NoRules)
    }

    /// The class of a resolved fetch (a redirect here is one that was not resolved).
    pub fn of(fetch: Fetch, mime_ok: bool, has_rules: bool) -> StatusClass {
        match fetch {
            Fetch::Success if !mime_ok => StatusClass::MimeNotRobots,
            Fetch::Success if has_rules => StatusClass::WithRules,
            Fetch::Success => StatusClass::NoRules,
            Fetch::AllowAll => StatusClass::AllowAll,
            Fetch::Forbidden => StatusClass::Forbidden,
            Fetch::Defer => StatusClass::Defer,
            Fetch::Redirect => StatusClass::RedirectNotResolved,
        }
    }

    /// What a status that was not parsed means for every agent (`sites.google_class`):
    /// allow all and unresolved redirects (RFC 9309 section 2.3.1.2: after five
    /// hops the file may be taken as unavailable) allow everything; forbidden and
    /// defer visits keep the crawler out.
    pub fn status_meaning(self) -> Option<&'static str> {
        match self {
            StatusClass::AllowAll | StatusClass::RedirectNotResolved => Some("none"),
            StatusClass::Forbidden | StatusClass::Defer => Some("full"),
            _ => None,
        }
    }
}

/// How a site's deciding capture restricts one agent: the `sites.block` column, which
/// `changes`, the queries and the report read instead of deciding it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Block {
    /// A robots.txt file that restricts nothing probed.
    None,
    /// A robots.txt file, `/` allowed, some path disallowed (`google_class = partial`).
    Partial,
    /// A robots.txt file disallowing `/`.
    Full,
}

impl Block {
    pub fn as_str(self) -> &'static str {
        match self {
            Block::None => "none",
            Block::Partial => "partial",
            Block::Full => "full",
        }
    }

    /// The value `as_str` gives, back.
    pub fn parse(text: &str) -> Option<Block> {
        [Block::None, Block::Partial, Block::Full]
            .into_iter()
            .find(|b| b.as_str() == text)
    }

    /// The block of an agent on a site of `class` whose deciding capture has
    /// `root_allowed` and `google_class` for it: `None` when the capture is not a
    /// robots.txt file whose lines count (status classes "Robots.txt with rules" and
    /// "Robots.txt no rules"): a status that allows or forbids everything is not a
    /// robots.txt restricting anyone.
    pub fn of(
        class: StatusClass,
        root_allowed: Option<bool>,
        google_class: Option<&str>,
    ) -> Option<Block> {
        if !class.is_robots() {
            return None;
        }
        Some(match (root_allowed, google_class) {
            (Some(false), _) => Block::Full,
            (Some(true), Some("partial")) => Block::Partial,
            _ => Block::None,
        })
    }
}

/// Common Crawl's MIME filter for a successful robots.txt fetch
/// (robotstxt-experiments `is_robotstxt_mime_type`): the detected MIME type
/// (WARC-Identified-Payload-Type) must start with `text/` but not be `text/html`,
/// or be `message/rfc822` or `plain/text`; without one, the Content-Type must
/// contain `text` not followed by `/html` (or be absent).
pub fn robots_mime(detected: Option<&str>, content_type: Option<&str>) -> bool {
    let detected = detected
        .map(|d| {
            d.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|d| !d.is_empty());
    if let Some(d) = detected {
        return (d.starts_with("text/") && d != "text/html")
            || d == "message/rfc822"
            || d == "plain/text";
    }
    let Some(content_type) = content_type.filter(|c| !c.trim().is_empty()) else {
        return true;
    };
    let lower = content_type.to_ascii_lowercase();
    lower
        .match_indices("text")
        .any(|(i, _)| !lower[i + 4..].starts_with("/html"))
}

/// The top-k strata of Common Crawl's study, as (label, largest rank).
pub const STRATA: [(&str, i64); 6] = [
    ("1k", 1_000),
    ("10k", 10_000),
    ("50k", 50_000),
    ("100k", 100_000),
    ("1M", 1_000_000),
    ("2M", i64::MAX),
];

/// The smallest stratum holding `rank`. "2M" holds every rank above 1M: Common
/// Crawl's 2M stratum is its whole list of 2,042,066 hosts.
pub fn top_k(rank: i64) -> &'static str {
    STRATA
        .iter()
        .find(|(_, k)| rank <= *k)
        .map_or("2M", |(label, _)| label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_differ_only_where_the_definitions_do() {
        use Fetch::*;
        use StatusSemantics as S;
        // (status, rfc9309, google, ccbot, yandex, urllib, robots-parser)
        let cases = [
            (
                Some(200),
                [Success, Success, Success, Success, Success, Success],
            ),
            (
                Some(204),
                [Success, Success, AllowAll, AllowAll, Success, AllowAll],
            ),
            (Some(301), [Redirect; 6]),
            (Some(304), [Redirect; 6]),
            (Some(400), [AllowAll; 6]),
            (
                Some(401),
                [AllowAll, AllowAll, AllowAll, AllowAll, Forbidden, AllowAll],
            ),
            (
                Some(403),
                [AllowAll, AllowAll, Forbidden, AllowAll, Forbidden, AllowAll],
            ),
            (Some(404), [AllowAll; 6]),
            (Some(410), [AllowAll; 6]),
            // RFC 9309 2.3.1.3: 429 is a 4xx (allow); Google treats it as 5xx.
            (
                Some(429),
                [AllowAll, Defer, Defer, AllowAll, AllowAll, AllowAll],
            ),
            (Some(500), [Defer, Defer, Defer, AllowAll, Defer, AllowAll]),
            (Some(503), [Defer, Defer, Defer, AllowAll, Defer, AllowAll]),
            // Not an HTTP status: Google takes an invalid response for a server error.
            (
                Some(999),
                [AllowAll, Defer, AllowAll, AllowAll, AllowAll, AllowAll],
            ),
            (None, [Success; 6]),
        ];
        let all = [
            S::Rfc9309,
            S::Google,
            S::Ccbot,
            S::Yandex,
            S::Urllib,
            S::RobotsParser,
        ];
        for (status, want) in cases {
            for (semantics, want) in all.iter().zip(want) {
                assert_eq!(semantics.fetch(status), want, "{semantics:?} {status:?}");
            }
        }
        for semantics in all {
            let name = clap::ValueEnum::to_possible_value(&semantics).expect("a value");
            assert_eq!(name.get_name(), semantics.as_str());
        }
    }

    #[test]
    fn precedence_is_common_crawls() {
        let mut order = [
            Fetch::Redirect,
            Fetch::Defer,
            Fetch::AllowAll,
            Fetch::Success,
            Fetch::Forbidden,
        ];
        order.sort();
        assert_eq!(
            order,
            [
                Fetch::Success,
                Fetch::AllowAll,
                Fetch::Forbidden,
                Fetch::Defer,
                Fetch::Redirect
            ]
        );
    }

    #[test]
    fn mime_filter() {
        assert!(robots_mime(Some("text/plain"), Some("text/html")));
        assert!(robots_mime(Some("text/x-robots"), None));
        assert!(!robots_mime(Some("text/html"), Some("text/plain")));
        assert!(!robots_mime(
            Some("application/octet-stream"),
            Some("text/plain")
        ));
        assert!(robots_mime(Some("message/rfc822"), None));
        assert!(robots_mime(None, Some("text/plain; charset=utf-8")));
        assert!(!robots_mime(None, Some("Text/HTML; charset=utf-8")));
        assert!(!robots_mime(None, Some("application/json")));
        assert!(robots_mime(None, None));
        assert!(robots_mime(Some(""), Some("")));
    }

    #[test]
    fn classes_and_strata() {
        assert_eq!(
            StatusClass::of(Fetch::Success, false, true),
            StatusClass::MimeNotRobots
        );
        assert_eq!(
            StatusClass::of(Fetch::Success, true, false),
            StatusClass::NoRules
        );
        assert_eq!(
            StatusClass::of(Fetch::Redirect, true, true),
            StatusClass::RedirectNotResolved
        );
        assert_eq!(top_k(1), "1k");
        assert_eq!(top_k(1_000), "1k");
        assert_eq!(top_k(1_001), "10k");
        assert_eq!(top_k(1_000_000), "1M");
        assert_eq!(top_k(2_042_066), "2M");
        assert_eq!(top_k(5_000_000), "2M");
    }
}
