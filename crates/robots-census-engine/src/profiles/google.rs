//! The families that split lines and form groups as robots.cc does, answered from
//! the one Google model: other group selection, precedence or escaping over the
//! same groups and rules, never another parse.
//!
//! - `google`: robots.cc itself ([`RobotsTxt::verdict_for_path`]).
//! - `google-production`: Google Search Central, "Google's special-case crawlers":
//!   AdsBot-Google, AdsBot-Google-Mobile and APIs-Google "ignore the global user agent
//!   (`*`)"; and "Google's common crawlers" (Googlebot-News, Googlebot-Image): "if
//!   there's no specific group, the crawler falls back to Googlebot".
//! - `applebot`: Apple's "About Applebot": "If robots instructions don't mention
//!   Applebot but do mention Googlebot, the Apple robot will follow Googlebot
//!   instructions."
//! - `bing`: Bing Webmaster blog (2010-06 "bingbot is coming", 2012-05 "To crawl or
//!   not to crawl"): a `bingbot` group replaces `*`; `msnbot` is honoured when there is
//!   no bingbot group; crawl-delay is read from `*` when the bingbot group sets none.
//! - `baidu`: Baidu's robots help: "the first matching Allow or Disallow line
//!   decides" (rule order matters), `*` and `$` as Google.
//! - `rfc9309`: RFC 9309 read strictly where robots.cc differs (the
//!   `#[ignore = "robots.cc differs"]` cases of `tests/it/conformance.rs`): 2.2.2
//!   %-escapes decoded on both sides before comparing (and `:`, `/` matched encoded or
//!   not), 2.2.2 `/robots.txt` implicitly allowed, 2.2.3 `%2A` and `%24` matching a
//!   literal `*` and `$`. Parsing stops at 500 KiB as robots.cc does: 2.5 sets that as
//!   the minimum a parser must read, so the cut is within the RFC.

use super::common::Answer;
use super::family::{Document, Family, Selection};
use crate::model::{Group, RobotsTxt, Rule, RuleKind};
use crate::pattern::matches;
use crate::url::UrlPath;
use crate::{Scope, Verdict};

/// Google's special-case crawlers that obey only a group naming them.
const IGNORE_STAR: [&str; 3] = ["AdsBot-Google", "AdsBot-Google-Mobile", "APIs-Google"];
/// Google crawlers that read a Googlebot group when no group names them.
const GOOGLEBOT_FALLBACK: [&str; 2] = ["Googlebot-News", "Googlebot-Image"];

fn is_one_of(agent: &str, names: &[&str]) -> bool {
    names.iter().any(|n| n.eq_ignore_ascii_case(agent))
}

/// A family that reads the Google model: robots.cc's groups and rules, with its own
/// group selection or precedence. Its answer for one path is all it defines; the rest
/// of [`Family`] follows.
trait GoogleModel: Default {
    /// [`Family::NAME`].
    const NAME: &'static str;
    /// [`Family::HOW_IT_DIFFERS`].
    const HOW_IT_DIFFERS: &'static str;
    /// [`Family::READS_CRAWL_DELAY`].
    const READS_CRAWL_DELAY: bool = false;

    /// May `agent` fetch `path` (already reduced as robots.cc reduces URLs)?
    fn answer_path(doc: &RobotsTxt<'_>, agent: &str, path: &UrlPath<'_>) -> Answer;

    /// [`Family::crawl_delay`].
    fn crawl_delay(_doc: &RobotsTxt<'_>, _agent: &str) -> Option<f64> {
        None
    }

    /// [`Family::has_own_rules`].
    fn has_own_rules(_agent: &str) -> bool {
        false
    }

    /// [`Family::reads_as_google`]: every Google-model family but Baidu differs only
    /// for its own special agents.
    fn reads_as_google(agent: &str) -> bool {
        !Self::has_own_rules(agent)
    }
}

impl<T: GoogleModel> Family for T {
    const NAME: &'static str = <T as GoogleModel>::NAME;
    const HOW_IT_DIFFERS: &'static str = <T as GoogleModel>::HOW_IT_DIFFERS;
    const READS_CRAWL_DELAY: bool = <T as GoogleModel>::READS_CRAWL_DELAY;
    type Path = UrlPath<'static>;

    fn read(_doc: Document<'_, '_>) -> Self {
        T::default()
    }

    fn answer(&self, doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        T::answer_path(doc.google, agent, &UrlPath::new(url.as_bytes()))
    }

    fn crawl_delay(&self, doc: Document<'_, '_>, agent: &str) -> Option<f64> {
        <T as GoogleModel>::crawl_delay(doc.google, agent)
    }

    fn has_own_rules(agent: &str) -> bool {
        <T as GoogleModel>::has_own_rules(agent)
    }

    fn reads_as_google(agent: &str) -> bool {
        <T as GoogleModel>::reads_as_google(agent)
    }

    /// `None`: the answers of the special agents depend on their names.
    fn selection(&self, _doc: Document<'_, '_>, _agent: &str) -> Option<Selection> {
        None
    }

    fn request_path(&self, url: &str) -> UrlPath<'static> {
        UrlPath::new(url.as_bytes()).into_owned()
    }

    fn allowed_paths<'p>(
        &'p self,
        doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p UrlPath<'static>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        paths.map(move |path| T::answer_path(doc.google, agent, path).allowed)
    }
}

/// `google`: robots.cc itself ([`RobotsTxt::verdict_for_path`]).
#[derive(Default)]
pub(super) struct Google;

impl GoogleModel for Google {
    const NAME: &'static str = "google";
    const HOW_IT_DIFFERS: &'static str = "robots.cc itself";

    fn answer_path(doc: &RobotsTxt<'_>, agent: &str, path: &UrlPath<'_>) -> Answer {
        from_verdict(doc.verdict_for_path(agent.as_bytes(), path))
    }
}

/// `google-production`: AdsBot-Google and APIs-Google skip `*`; Googlebot-News and
/// Googlebot-Image fall back to a Googlebot group.
#[derive(Default)]
pub(super) struct GoogleProduction;

impl GoogleModel for GoogleProduction {
    const NAME: &'static str = "google-production";
    const HOW_IT_DIFFERS: &'static str =
        "AdsBot-Google and APIs-Google ignore '*'; Googlebot-News/-Image fall back to Googlebot";

    fn answer_path(doc: &RobotsTxt<'_>, agent: &str, path: &UrlPath<'_>) -> Answer {
        let named = doc.names_agent(agent.as_bytes());
        if !named && is_one_of(agent, &IGNORE_STAR) {
            Answer::no_rule(Scope::None)
        } else if !named && is_one_of(agent, &GOOGLEBOT_FALLBACK) && doc.names_agent(b"Googlebot") {
            fallback(doc, "Googlebot", path)
        } else {
            Google::answer_path(doc, agent, path)
        }
    }

    fn has_own_rules(agent: &str) -> bool {
        is_one_of(agent, &IGNORE_STAR) || is_one_of(agent, &GOOGLEBOT_FALLBACK)
    }
}

/// `bing`: a bingbot group, else msnbot, else `*`; crawl-delay from `*` too.
#[derive(Default)]
pub(super) struct Bing;

impl GoogleModel for Bing {
    const NAME: &'static str = "bing";
    const HOW_IT_DIFFERS: &'static str =
        "bingbot falls back to an msnbot group; crawl-delay also from '*'";
    const READS_CRAWL_DELAY: bool = true;

    fn answer_path(doc: &RobotsTxt<'_>, agent: &str, path: &UrlPath<'_>) -> Answer {
        if agent.eq_ignore_ascii_case("bingbot")
            && !doc.names_agent(agent.as_bytes())
            && doc.names_agent(b"msnbot")
        {
            fallback(doc, "msnbot", path)
        } else {
            Google::answer_path(doc, agent, path)
        }
    }

    fn crawl_delay(doc: &RobotsTxt<'_>, agent: &str) -> Option<f64> {
        bing_crawl_delay(doc, agent)
    }

    fn has_own_rules(agent: &str) -> bool {
        agent.eq_ignore_ascii_case("bingbot")
    }
}

/// `applebot`: an Applebot group, else the Googlebot group, else `*`.
#[derive(Default)]
pub(super) struct Applebot;

impl GoogleModel for Applebot {
    const NAME: &'static str = "applebot";
    const HOW_IT_DIFFERS: &'static str = "Applebot falls back to the Googlebot group";

    fn answer_path(doc: &RobotsTxt<'_>, agent: &str, path: &UrlPath<'_>) -> Answer {
        if agent.eq_ignore_ascii_case("Applebot")
            && !doc.names_agent(agent.as_bytes())
            && doc.names_agent(b"Googlebot")
        {
            fallback(doc, "Googlebot", path)
        } else {
            Google::answer_path(doc, agent, path)
        }
    }

    fn has_own_rules(agent: &str) -> bool {
        agent.eq_ignore_ascii_case("Applebot")
    }
}

/// `baidu`: the first matching Allow/Disallow line decides.
#[derive(Default)]
pub(super) struct Baidu;

impl GoogleModel for Baidu {
    const NAME: &'static str = "baidu";
    const HOW_IT_DIFFERS: &'static str = "the first matching line decides, not the longest";

    fn answer_path(doc: &RobotsTxt<'_>, agent: &str, path: &UrlPath<'_>) -> Answer {
        let named = doc.names_agent(agent.as_bytes());
        first_match(doc, agent, named, path.as_bytes())
    }

    fn reads_as_google(_agent: &str) -> bool {
        false
    }
}

fn from_verdict(verdict: Verdict<'_>) -> Answer {
    Answer {
        allowed: verdict.allowed,
        line: verdict.line,
        pattern: verdict
            .rule
            .map(|r| String::from_utf8_lossy(&r.pattern).into_owned()),
        directive: verdict.directive(),
        scope: verdict.scope,
    }
}

/// `rule` of the Google model decided.
fn decided_by(rule: &Rule<'_>, scope: Scope) -> Answer {
    let pattern = String::from_utf8_lossy(&rule.pattern).into_owned();
    Answer::decided(rule.kind, rule.line, pattern, scope)
}

/// robots.cc's verdict for `fallback` read as `agent`'s: the scope says so.
fn fallback(doc: &RobotsTxt<'_>, fallback: &str, path: &UrlPath<'_>) -> Answer {
    let mut answer = from_verdict(doc.verdict_for_path(fallback.as_bytes(), path));
    answer.scope = Scope::Fallback;
    answer
}

fn scope_of(doc: &RobotsTxt<'_>, named: bool) -> Scope {
    if named {
        Scope::Named
    } else if doc.has_star_group() {
        Scope::Star
    } else {
        Scope::None
    }
}

/// Baidu: among the groups robots.cc would apply, the first Allow/Disallow line in
/// file order whose pattern matches decides. An empty value matches nothing (it
/// allows everything, as in every reading).
fn first_match(doc: &RobotsTxt<'_>, agent: &str, named: bool, path: &[u8]) -> Answer {
    let scope = scope_of(doc, named);
    let decided = doc
        .groups_for(agent.as_bytes(), named)
        .flat_map(|g| doc.group_rules(g))
        .filter(|r| !r.pattern.is_empty())
        .find(|r| matches(r.pattern_kind, &r.pattern, path));
    match decided {
        Some(rule) => decided_by(rule, scope),
        None => Answer::no_rule(scope),
    }
}

/// Bing's crawl-delay: the bingbot (else msnbot) group's, else the `*` group's, even
/// when a bingbot group exists.
fn bing_crawl_delay(doc: &RobotsTxt<'_>, agent: &str) -> Option<f64> {
    let mut asked = agent;
    if agent.eq_ignore_ascii_case("bingbot")
        && !doc.names_agent(b"bingbot")
        && doc.names_agent(b"msnbot")
    {
        asked = "msnbot";
    }
    let named = doc.names_agent(asked.as_bytes());
    doc.groups_for(asked.as_bytes(), named)
        .find_map(|g| g.crawl_delay)
        .or_else(|| doc.groups_for(b"", false).find_map(|g| g.crawl_delay))
}

/// One pattern byte under RFC 9309's reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A byte compared literally (decoded from `%XX` when written so; `%2A` and `%24`
    /// are literal `*` and `$`).
    Byte(u8),
    /// `*`: any run of bytes.
    Star,
}

/// A rule's pattern decoded for RFC 9309 matching.
#[derive(Debug, Clone)]
struct RfcPattern {
    toks: Vec<Tok>,
    /// A final `$`: the path must end where the pattern ends.
    anchored: bool,
    /// The pattern's length in octets as written decoded: the precedence.
    priority: usize,
}

/// Every rule of a document compiled once for RFC 9309 matching, by rule index.
struct RfcPatterns(Vec<RfcPattern>);

/// The value of a hex digit.
fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Decodes every valid `%XX` of `bytes`, calling `out` with the byte and whether it
/// was escaped.
fn decode(bytes: &[u8], mut out: impl FnMut(u8, bool)) {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                out(h * 16 + l, true);
                i += 3;
                continue;
            }
        }
        out(bytes[i], false);
        i += 1;
    }
}

impl RfcPatterns {
    fn new(doc: &RobotsTxt<'_>) -> Self {
        RfcPatterns(doc.rules.iter().map(RfcPattern::of).collect())
    }
}

impl RfcPattern {
    fn of(rule: &Rule<'_>) -> Self {
        // robots.cc's escaped pattern: non-ASCII bytes are %XX there, as on the URL.
        let pattern: &[u8] = &rule.pattern;
        let (body, anchored) = match pattern.strip_suffix(b"$") {
            Some(body) => (body, true),
            None => (pattern, false),
        };
        let mut toks = Vec::with_capacity(body.len());
        decode(body, |b, escaped| {
            toks.push(if b == b'*' && !escaped {
                Tok::Star
            } else {
                Tok::Byte(b)
            })
        });
        let priority = toks.len() + usize::from(anchored);
        RfcPattern {
            toks,
            anchored,
            priority,
        }
    }

    fn matches(&self, path: &[u8]) -> bool {
        let mut pieces = self.toks.split(|t| *t == Tok::Star);
        let first = pieces.next().unwrap_or_default();
        let Some(mut rest) = strip_piece(path, first) else {
            return false;
        };
        let pieces: Vec<&[Tok]> = pieces.collect();
        let Some((last, middle)) = pieces.split_last() else {
            return !self.anchored || rest.is_empty();
        };
        for piece in middle {
            match find_piece(rest, piece) {
                Some(end) => rest = &rest[end..],
                None => return false,
            }
        }
        if self.anchored {
            rest.len() >= last.len() && piece_eq(&rest[rest.len() - last.len()..], last)
        } else {
            find_piece(rest, last).is_some()
        }
    }
}

fn piece_eq(bytes: &[u8], piece: &[Tok]) -> bool {
    bytes.len() == piece.len() && bytes.iter().zip(piece).all(|(b, t)| *t == Tok::Byte(*b))
}

fn strip_piece<'p>(path: &'p [u8], piece: &[Tok]) -> Option<&'p [u8]> {
    (path.len() >= piece.len() && piece_eq(&path[..piece.len()], piece))
        .then(|| &path[piece.len()..])
}

/// The end of the first occurrence of `piece` in `bytes`.
fn find_piece(bytes: &[u8], piece: &[Tok]) -> Option<usize> {
    if piece.is_empty() {
        return Some(0);
    }
    (0..=bytes.len().checked_sub(piece.len())?)
        .find(|&i| piece_eq(&bytes[i..i + piece.len()], piece))
        .map(|i| i + piece.len())
}

/// `rfc9309`: RFC 9309 read strictly where robots.cc differs, over robots.cc's groups;
/// every rule's pattern compiled once per document for RFC 9309 matching.
pub(super) struct Rfc9309(RfcPatterns);

impl Family for Rfc9309 {
    const NAME: &'static str = "rfc9309";
    const HOW_IT_DIFFERS: &'static str =
        "RFC 9309: %-escapes decoded on both sides, /robots.txt always allowed";
    type Path = Option<Vec<u8>>;

    fn read(doc: Document<'_, '_>) -> Self {
        Rfc9309(RfcPatterns::new(doc.google))
    }

    fn answer(&self, doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        rfc9309_answer(doc.google, &self.0, agent, url)
    }

    fn selection(&self, doc: Document<'_, '_>, agent: &str) -> Option<Selection> {
        let named = doc.google.names_agent(agent.as_bytes());
        let groups = doc.google.groups_for(agent.as_bytes(), named);
        Some(Selection::Several(
            std::iter::once(usize::from(named))
                .chain(groups.map(|g| std::ptr::from_ref(g) as usize))
                .collect(),
        ))
    }

    fn request_path(&self, url: &str) -> Option<Vec<u8>> {
        rfc9309_path(url)
    }

    fn allowed_paths<'p>(
        &'p self,
        doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p Option<Vec<u8>>> + 'p,
    ) -> impl Iterator<Item = bool> + 'p {
        rfc9309_allowed_paths(doc.google, &self.0, agent, paths)
    }
}

/// `rfc9309`: robots.cc's groups, RFC 9309's matching.
fn rfc9309_answer(doc: &RobotsTxt<'_>, patterns: &RfcPatterns, agent: &str, url: &str) -> Answer {
    let named = doc.names_agent(agent.as_bytes());
    let scope = scope_of(doc, named);
    let Some(decoded) = rfc9309_path(url) else {
        return Answer::no_rule(scope);
    };
    let groups = doc.groups_for(agent.as_bytes(), named);
    match rfc9309_best(doc, patterns, groups, &decoded) {
        Some(rule) => decided_by(rule, scope),
        None => Answer::no_rule(scope),
    }
}

/// What the RFC 9309 reading matches the rules against: `url`'s path and query,
/// %-decoded; none for `/robots.txt`, which 2.2.2 allows whatever the file says. The
/// same for every agent, so a caller asking many agents about one URL computes it once.
fn rfc9309_path(url: &str) -> Option<Vec<u8>> {
    let path = UrlPath::new(url.as_bytes());
    let mut decoded = Vec::with_capacity(path.as_bytes().len());
    decode(path.as_bytes(), |b, _| decoded.push(b));
    // 2.2.2: "The /robots.txt URI is implicitly allowed."
    (decoded != b"/robots.txt").then_some(decoded)
}

/// [`rfc9309_answer`]'s verdict for every path of `paths` ([`rfc9309_path`]s), the
/// groups chosen once for `agent`.
fn rfc9309_allowed_paths<'p>(
    doc: &'p RobotsTxt<'_>,
    patterns: &'p RfcPatterns,
    agent: &'p str,
    paths: impl IntoIterator<Item = &'p Option<Vec<u8>>> + 'p,
) -> impl Iterator<Item = bool> + 'p {
    let named = doc.names_agent(agent.as_bytes());
    let groups: Vec<&Group> = doc.groups_for(agent.as_bytes(), named).collect();
    paths.into_iter().map(move |path| match path {
        Some(path) => rfc9309_best(doc, patterns, groups.iter().copied(), path)
            .is_none_or(|r| r.kind == RuleKind::Allow),
        None => true,
    })
}

/// 2.2.2: the most specific match (most octets) among the rules of `groups` wins; Allow
/// on equal length.
fn rfc9309_best<'d, 'b>(
    doc: &'d RobotsTxt<'b>,
    patterns: &RfcPatterns,
    groups: impl IntoIterator<Item = &'d Group>,
    decoded: &[u8],
) -> Option<&'d Rule<'b>> {
    let mut best: Option<(usize, &'d Rule<'b>)> = None;
    for group in groups {
        for index in group.rules.clone() {
            let (rule, pattern) = (&doc.rules[index], &patterns.0[index]);
            if pattern.toks.is_empty() && !pattern.anchored {
                continue; // an empty value: no rule (2.2.2)
            }
            if !pattern.matches(decoded) {
                continue;
            }
            let better = match best {
                None => true,
                Some((priority, held)) => {
                    pattern.priority > priority
                        || (pattern.priority == priority
                            && rule.kind == RuleKind::Allow
                            && held.kind == RuleKind::Disallow)
                }
            };
            if better {
                best = Some((pattern.priority, rule));
            }
        }
    }
    best.map(|(_, rule)| rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::profiles::{Interpretations, Profile};

    fn ask(profile: Profile, body: &str, agent: &str, path: &str) -> Answer {
        let doc = RobotsTxt::parse(body.as_bytes());
        let url = format!("https://example.com{path}");
        Interpretations::new(body.as_bytes(), &doc).answer(profile, agent, &url)
    }

    #[test]
    fn google_production_special_case_crawlers_ignore_star() {
        // Search Central, "Google's special-case crawlers": AdsBot ignores `*`.
        let body = "User-agent: *\nDisallow: /\n";
        let a = ask(Profile::GoogleProduction, body, "AdsBot-Google", "/x");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::None);
        assert!(!ask(Profile::Google, body, "AdsBot-Google", "/x").allowed);
        let named = "User-agent: AdsBot-Google\nDisallow: /x\n";
        assert!(!ask(Profile::GoogleProduction, named, "AdsBot-Google", "/x").allowed);
    }

    #[test]
    fn google_production_news_and_image_fall_back_to_googlebot() {
        // Search Central, "Google's common crawlers": Googlebot-News falls back to
        // Googlebot when no group names it.
        let body = "User-agent: Googlebot\nDisallow: /news\n\nUser-agent: *\nAllow: /\n";
        let a = ask(Profile::GoogleProduction, body, "Googlebot-News", "/news/1");
        assert!(!a.allowed);
        assert_eq!((a.scope, a.line), (Scope::Fallback, 2));
        let google = ask(Profile::Google, body, "Googlebot-News", "/news/1");
        assert!(google.allowed);
        assert_eq!(google.scope, Scope::Star);
    }

    #[test]
    fn applebot_reads_the_googlebot_group_when_not_named() {
        // Apple, "About Applebot".
        let body = "User-agent: Googlebot\nDisallow: /g\n\nUser-agent: *\nDisallow: /\n";
        let a = ask(Profile::Applebot, body, "Applebot", "/page");
        assert!(a.allowed);
        assert_eq!(a.scope, Scope::Fallback);
        assert!(!ask(Profile::Applebot, body, "Applebot", "/g").allowed);
        let named = "User-agent: Applebot\nDisallow: /a\n\nUser-agent: Googlebot\nDisallow: /\n";
        assert!(ask(Profile::Applebot, named, "Applebot", "/page").allowed);
    }

    #[test]
    fn bing_honours_msnbot_without_a_bingbot_group_and_star_crawl_delay() {
        // Bing Webmaster blog, 2010-06: bingbot > msnbot > `*`.
        let body =
            "User-agent: msnbot\nDisallow: /m\n\nUser-agent: *\nDisallow: /\nCrawl-delay: 7\n";
        let a = ask(Profile::Bing, body, "bingbot", "/page");
        assert!(a.allowed && a.scope == Scope::Fallback);
        let doc = RobotsTxt::parse(
            b"User-agent: bingbot\nDisallow: /b\n\nUser-agent: *\nCrawl-delay: 5\n",
        );
        // Bing 2012-05: crawl-delay from `*` when the bingbot group has none.
        assert_eq!(bing_crawl_delay(&doc, "bingbot"), Some(5.0));
        assert_eq!(doc.crawl_delay(b"bingbot"), None);
    }

    #[test]
    fn baidu_first_matching_line_decides() {
        let body = "User-agent: *\nAllow: /a\nDisallow: /a/b\n";
        let a = ask(Profile::Baidu, body, "Baiduspider", "/a/b/c");
        assert!(a.allowed);
        assert_eq!(a.line, 2);
        // robots.cc: the longest match wins.
        assert!(!ask(Profile::Google, body, "Baiduspider", "/a/b/c").allowed);
        // An empty value decides nothing.
        let empty = "User-agent: *\nDisallow:\nDisallow: /x\n";
        assert!(!ask(Profile::Baidu, empty, "b", "/x").allowed);
    }

    #[test]
    fn rfc_2_2_2_unreserved_escapes_are_decoded() {
        let body = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar/%62%61%7A\n";
        let a = ask(Profile::Rfc9309, body, "FooBot", "/foo/bar/baz");
        assert!(a.allowed);
        assert_eq!(a.line, 3);
    }

    #[test]
    fn rfc_2_2_2_reserved_characters_match_encoded() {
        let body = "user-agent: FooBot\ndisallow: /\nallow: /foo/bar?baz=https://foo.bar\n";
        let a = ask(
            Profile::Rfc9309,
            body,
            "FooBot",
            "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        );
        assert!(a.allowed);
        assert_eq!(a.line, 3);
    }

    #[test]
    fn rfc_2_2_2_robots_txt_is_implicitly_allowed() {
        let a = ask(
            Profile::Rfc9309,
            "user-agent: *\ndisallow: /\n",
            "FooBot",
            "/robots.txt",
        );
        assert!(a.allowed);
        assert_eq!(a.line, 0);
    }

    #[test]
    fn rfc_2_2_3_escaped_star_and_dollar_are_literal() {
        let body = "user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\n";
        assert!(!ask(Profile::Rfc9309, body, "FooBot", "/path/file-with-a-*.html").allowed);
        assert!(!ask(Profile::Rfc9309, body, "FooBot", "/path/foo-$").allowed);
        // `%2A` is no wildcard.
        assert!(
            ask(
                Profile::Rfc9309,
                body,
                "FooBot",
                "/path/file-with-a-xyz.html"
            )
            .allowed
        );
    }

    #[test]
    fn rfc_wildcards_anchors_and_precedence() {
        let body = "user-agent: *\ndisallow: /*.pdf$\nallow: /docs/*\ndisallow: /docs/xy\n";
        assert!(!ask(Profile::Rfc9309, body, "b", "/a/b.pdf").allowed);
        assert!(ask(Profile::Rfc9309, body, "b", "/a/b.pdf?x").allowed);
        // `/docs/*` (7) beats `/*.pdf$` (7) on a tie: allow.
        assert!(ask(Profile::Rfc9309, body, "b", "/docs/a.pdf").allowed);
        assert!(!ask(Profile::Rfc9309, body, "b", "/docs/xy").allowed);
        assert!(ask(Profile::Rfc9309, "user-agent: *\ndisallow:\n", "b", "/").allowed);
    }
}
