//! Interpretation profiles: how each crawler family reads the same robots.txt.
//!
//! Google's reading (robots.cc, [`RobotsTxt`]) is the reference; the others answer
//! beside it. Families whose line splitting agrees with robots.cc answer from the one
//! Google model (`google`, `google-production`, `rfc9309`, `bing`, `applebot`, `baidu`:
//! other group selection, precedence or escaping over the same groups and rules).
//! The others tokenise differently and get one parse of their own, built the first
//! time a question needs it and kept for every later question about the document:
//!
//! ```text
//! body ──RobotsTxt::parse──> Google model ──> google, google-production, rfc9309,
//!   │                                          bing, applebot, baidu   (google.rs)
//!   ├── blank lines end groups ──────────> yandex          (yandex.rs)
//!   ├── CPython 3.11 robotparser ────────> urllib          (urllib.rs, cpython.rs)
//!   ├── Scrapy's Protego 0.7.0 ──────────> protego         (protego/, cpython.rs)
//!   ├── npm robots-parser 3.0.1 ─────────> robots-parser   (robots_parser.rs)
//!   └── crawler-commons + Nutch ─────────> ccbot           (ccbot/)
//! ```
//!
//! Each family's sources are in its module's doc and in
//! `../shared/interpretations/README.md`. What a fetch's HTTP status means per family
//! is the census's (`census::site_classes`), not the engine's.

mod ccbot;
pub mod common;
mod cpython;
mod google;
mod protego;
mod robots_parser;
mod urllib;
mod yandex;

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

pub use common::Answer;

use super::classify::{ProbeClass, ProbeOrders, Probes};
use super::model::{lossy_string, lossy_text, RobotsTxt};

/// A crawler family's reading of robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// robots.cc, Google's open-source parser, with the 500 KiB cut: the reference.
    Google,
    /// Google's production crawlers beyond robots.cc: AdsBot-Google,
    /// AdsBot-Google-Mobile and APIs-Google ignore `*`; Googlebot-News and
    /// Googlebot-Image fall back to a Googlebot group.
    GoogleProduction,
    /// RFC 9309 read strictly where robots.cc differs: %-escapes decoded on both sides,
    /// `%2A`/`%24` literal, `/robots.txt` always allowed.
    Rfc9309,
    /// bingbot: a bingbot group, else msnbot, else `*`; crawl-delay from `*` too.
    Bing,
    /// Yandex: a blank line ends a group; `Yandex` groups serve every Yandex robot;
    /// a file over 500 KB allows everything.
    Yandex,
    /// Applebot: an Applebot group, else the Googlebot group, else `*`.
    Applebot,
    /// Baiduspider: the first matching Allow/Disallow line decides.
    Baidu,
    /// CCBot: Nutch with crawler-commons' SimpleRobotRulesParser.
    Ccbot,
    /// Python's `urllib.robotparser` as in CPython <= 3.12.
    Urllib,
    /// Scrapy's Protego 0.7.0.
    Protego,
    /// npm `robots-parser` 3.0.1 (Browsertrix crawler, Crawlee).
    RobotsParser,
}

impl Profile {
    /// Every profile, Google's first.
    pub const ALL: [Profile; 11] = [
        Profile::Google,
        Profile::GoogleProduction,
        Profile::Rfc9309,
        Profile::Bing,
        Profile::Yandex,
        Profile::Applebot,
        Profile::Baidu,
        Profile::Ccbot,
        Profile::Urllib,
        Profile::Protego,
        Profile::RobotsParser,
    ];

    /// The name used on the command line, in tables and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Google => "google",
            Profile::GoogleProduction => "google-production",
            Profile::Rfc9309 => "rfc9309",
            Profile::Bing => "bing",
            Profile::Yandex => "yandex",
            Profile::Applebot => "applebot",
            Profile::Baidu => "baidu",
            Profile::Ccbot => "ccbot",
            Profile::Urllib => "urllib",
            Profile::Protego => "protego",
            Profile::RobotsParser => "robots-parser",
        }
    }

    /// What the family does that robots.cc does not, in a few words (the audit's "why").
    pub fn how_it_differs(self) -> &'static str {
        match self {
            Profile::Google => "robots.cc itself",
            Profile::GoogleProduction => {
                "AdsBot-Google and APIs-Google ignore '*'; Googlebot-News/-Image fall back to Googlebot"
            }
            Profile::Rfc9309 => "RFC 9309: %-escapes decoded on both sides, /robots.txt always allowed",
            Profile::Bing => "bingbot falls back to an msnbot group; crawl-delay also from '*'",
            Profile::Yandex => "a blank line ends a group; Yandex groups serve every Yandex robot",
            Profile::Applebot => "Applebot falls back to the Googlebot group",
            Profile::Baidu => "the first matching line decides, not the longest",
            Profile::Ccbot => {
                "crawler-commons: exact agent name, escapes normalised, wildcards without backtracking"
            }
            Profile::Urllib => {
                "agent matched as a substring, first matching line, no wildcards, a blank line ends a group"
            }
            Profile::Protego => "agent found inside the crawler's name; crawl-delay and unknown keys end a group",
            Profile::RobotsParser => "exact agent name cut at '/'; rules escaped with encodeURI",
        }
    }

    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// A comma-separated list of names, or `all`, in [`Profile::ALL`] order without
    /// repeats. The error names the first unknown entry.
    pub fn parse_list(list: &str) -> Result<Vec<Profile>, String> {
        let mut chosen = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name.eq_ignore_ascii_case("all") {
                chosen.extend(Profile::ALL);
                continue;
            }
            let profile = Profile::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown profile {name:?} (known: all, {})",
                    known.join(", ")
                )
            })?;
            chosen.push(profile);
        }
        if chosen.is_empty() {
            return Err("no profile named".into());
        }
        chosen.sort();
        chosen.dedup();
        Ok(chosen)
    }
}

/// One document read by every family asked about it: the Google model, borrowed, and
/// each other family's parse, built on its first question.
pub struct Interpretations<'d, 'a> {
    body: &'a [u8],
    google: &'d RobotsTxt<'a>,
    rfc9309: OnceCell<google::RfcPatterns>,
    yandex: OnceCell<yandex::YandexRobots>,
    urllib: OnceCell<urllib::UrllibRobots>,
    protego: OnceCell<protego::ProtegoRobots>,
    robots_parser: OnceCell<robots_parser::RobotsParserRobots>,
    ccbot: OnceCell<ccbot::CcbotRobots>,
    may_disallow: OnceCell<bool>,
    agent_words: OnceCell<AgentWords>,
    google_probes: OnceCell<Probes<'d, 'a>>,
    /// The probe URLs but `/`, built on the first probe of a profile other than
    /// Google's, and the orders in which to ask them.
    probe_urls: OnceCell<(Vec<String>, ProbeOrders)>,
    /// The probe URLs as each family compares them, built on its first probe.
    paths: FamilyPaths,
    /// Probe classes already computed, by profile and selection: agents a family
    /// answers from the same group (or entry, rule set) share them.
    classes: RefCell<HashMap<(Profile, Selection), (Answer, ProbeClass)>>,
}

/// What a family's answers for an agent depend on besides the path (the group, entry or
/// rule set chosen for it, by address or index): equal selections, equal answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Selection {
    One(usize),
    Several(Vec<usize>),
}

/// The probe URLs as each family with a path of its own compares them with the rules
/// (quoted, decoded, cut), each computed once per document for all agents, on the first
/// probe that asks it.
#[derive(Default)]
struct FamilyPaths {
    rfc9309: Lazily<Option<Vec<u8>>>,
    yandex: Lazily<Vec<u8>>,
    urllib: Lazily<String>,
    ccbot: Lazily<String>,
    protego: Lazily<Option<String>>,
    robots_parser: Lazily<Option<String>>,
}

/// One family's probe paths, a cell per probe URL: a probing stops at the first path
/// whose answer differs from `/`'s, most often the first asked (`ProbeOrders`), so
/// most paths of a long file are never normalised.
type Lazily<T> = OnceCell<Vec<OnceCell<T>>>;

impl<'d, 'a> Interpretations<'d, 'a> {
    /// `google` must be `RobotsTxt::parse(body)`.
    pub fn new(body: &'a [u8], google: &'d RobotsTxt<'a>) -> Self {
        Interpretations {
            body,
            google,
            rfc9309: OnceCell::new(),
            yandex: OnceCell::new(),
            urllib: OnceCell::new(),
            protego: OnceCell::new(),
            robots_parser: OnceCell::new(),
            ccbot: OnceCell::new(),
            may_disallow: OnceCell::new(),
            agent_words: OnceCell::new(),
            google_probes: OnceCell::new(),
            probe_urls: OnceCell::new(),
            paths: FamilyPaths::default(),
            classes: RefCell::new(HashMap::new()),
        }
    }

    pub fn google(&self) -> &'d RobotsTxt<'a> {
        self.google
    }

    fn urllib(&self) -> &urllib::UrllibRobots {
        // CPython's `read()` decodes strictly and raises on invalid UTF-8: such a file
        // is never parsed at all. We read it decoded with U+FFFD instead, the nearest
        // answer that still says something (noted in the README's profile table).
        self.urllib
            .get_or_init(|| urllib::UrllibRobots::parse(&lossy_text(self.body)))
    }

    fn protego(&self) -> &protego::ProtegoRobots {
        // Scrapy's `decode_robotstxt`: UTF-8 with errors ignored.
        self.protego
            .get_or_init(|| protego::ProtegoRobots::parse(&utf8_ignoring_errors(self.body)))
    }

    fn robots_parser(&self) -> &robots_parser::RobotsParserRobots {
        // fetch's `Response.text()`: UTF-8 with U+FFFD for invalid sequences.
        self.robots_parser
            .get_or_init(|| robots_parser::RobotsParserRobots::parse(&lossy_text(self.body)))
    }

    fn ccbot(&self) -> &ccbot::CcbotRobots {
        self.ccbot
            .get_or_init(|| ccbot::CcbotRobots::parse(self.body))
    }

    fn yandex(&self) -> &yandex::YandexRobots {
        self.yandex
            .get_or_init(|| yandex::YandexRobots::parse(self.body))
    }

    /// May `agent` fetch `url` (absolute, as crawled) under `profile`?
    pub fn answer(&self, profile: Profile, agent: &str, url: &str) -> Answer {
        match profile {
            Profile::Google
            | Profile::GoogleProduction
            | Profile::Bing
            | Profile::Applebot
            | Profile::Baidu => google::answer(self.google, profile, agent, url),
            Profile::Rfc9309 => {
                let patterns = self
                    .rfc9309
                    .get_or_init(|| google::RfcPatterns::new(self.google));
                google::rfc9309_answer(self.google, patterns, agent, url)
            }
            Profile::Yandex => self.yandex().answer(agent, url),
            Profile::Ccbot => self.ccbot().answer(agent, url),
            Profile::Urllib => self.urllib().answer(agent, url),
            Profile::Protego => self.protego().answer(agent, url),
            Profile::RobotsParser => self.robots_parser().answer(agent, url),
        }
    }

    /// The crawl-delay (seconds) `profile`'s family applies to `agent`: `None` for the
    /// families that ignore the directive (Google, Baidu, Yandex since 2018) or when the
    /// file sets none.
    pub fn crawl_delay(&self, profile: Profile, agent: &str) -> Option<f64> {
        match profile {
            Profile::Google
            | Profile::GoogleProduction
            | Profile::Rfc9309
            | Profile::Applebot
            | Profile::Baidu
            | Profile::Yandex => None,
            Profile::Bing => google::bing_crawl_delay(self.google, agent),
            Profile::Ccbot => self.ccbot().crawl_delay(agent),
            Profile::Urllib => self.urllib().crawl_delay(agent),
            Profile::Protego => self.protego().crawl_delay(agent),
            Profile::RobotsParser => self.robots_parser().crawl_delay(agent),
        }
    }

    /// Whether the family's crawl-delay rule keeps `agent` off the site whatever the
    /// rules say: only Nutch (CCBot) has one, skipping hosts whose delay exceeds
    /// `fetcher.max.crawl.delay`.
    pub fn crawl_delay_blocks(&self, profile: Profile, agent: &str) -> bool {
        profile == Profile::Ccbot && self.ccbot().crawl_delay_blocks(agent)
    }

    /// Whether some family may read a group of this file as naming `agent` (or the
    /// agent has a family rule of its own, such as Applebot reading Googlebot's group).
    /// When not, every family reads the file for `agent` exactly as for any other such
    /// agent (the `*` groups, or none): callers may answer them once.
    pub fn addresses(&self, agent: &str) -> bool {
        if google::has_own_rules(agent) {
            return true;
        }
        let words = self.agent_words.get_or_init(|| AgentWords::of(self.body));
        words.all || {
            let agent = agent.to_ascii_lowercase();
            words
                .words
                .iter()
                .any(|w| agent.contains(w.as_str()) || w.contains(agent.as_str()))
        }
    }

    /// Whether `profile`'s verdicts for `agent` are robots.cc's by construction (a
    /// Google-model family asked about an agent it has no special rule for), so a
    /// caller may reuse Google's answers.
    pub fn reads_as_google(&self, profile: Profile, agent: &str) -> bool {
        google::same_as_google(profile, agent)
    }

    /// The Somesite study's full / partial / none reading under `profile`, over the
    /// same probes as `agents.probe_class` (`/`, each rule path of the file, the dummy
    /// path), with the answer at `/`.
    pub fn probe_class(&self, profile: Profile, agent: &str) -> (Answer, ProbeClass) {
        let Some(selection) = self.selection(profile, agent) else {
            return self.probe_class_of(profile, agent);
        };
        let key = (profile, selection);
        if let Some(known) = self.classes.borrow().get(&key) {
            return known.clone();
        }
        let class = self.probe_class_of(profile, agent);
        self.classes.borrow_mut().insert(key, class.clone());
        class
    }

    /// What `profile`'s answers for `agent` depend on besides the URL; `None` for the
    /// families whose answers also depend on the agent's name itself (the Google-model
    /// families' special crawlers), which are not shared.
    fn selection(&self, profile: Profile, agent: &str) -> Option<Selection> {
        Some(match profile {
            Profile::Rfc9309 => {
                let named = self.google.names_agent(agent.as_bytes());
                let groups = self.google.groups_for(agent.as_bytes(), named);
                Selection::Several(
                    std::iter::once(usize::from(named))
                        .chain(groups.map(|g| std::ptr::from_ref(g) as usize))
                        .collect(),
                )
            }
            Profile::Yandex => Selection::Several(self.yandex().selection_id(agent)),
            Profile::Urllib => Selection::One(self.urllib().selection_id(agent)),
            Profile::Ccbot => Selection::One(self.ccbot().selection_id(agent)),
            Profile::Protego => Selection::One(self.protego().selection_id(agent)),
            Profile::RobotsParser => Selection::One(self.robots_parser().selection_id(agent)),
            Profile::Google
            | Profile::GoogleProduction
            | Profile::Bing
            | Profile::Applebot
            | Profile::Baidu => return None,
        })
    }

    /// [`Interpretations::probe_class`], computed.
    fn probe_class_of(&self, profile: Profile, agent: &str) -> (Answer, ProbeClass) {
        let root = self.answer(profile, agent, "http://h/");
        if profile == Profile::Google {
            // robots.cc's own probing, with its shortcuts and shared probe paths.
            let probes = self.google_probes.get_or_init(|| self.google.probes());
            return (root, self.google.probe_class(agent.as_bytes(), probes).1);
        }
        if !*self.may_disallow.get_or_init(|| may_disallow(self.body)) {
            return (root, ProbeClass::None);
        }
        let (urls, orders) = self.probe_urls.get_or_init(|| {
            let probes = self.google.probe_urls_of_kinds();
            let orders = ProbeOrders::new(probes.iter().map(|(_, kinds)| *kinds));
            let urls = probes
                .into_iter()
                .map(|(url, _)| lossy_string(url))
                .collect();
            (urls, orders)
        });
        // Each probe URL is normalised once per document as the family does, and the
        // agent's group chosen once; the Google-model families answer URL by URL. The
        // probes are asked in the order likeliest to find one that differs from `/`
        // soon (robots.cc's reading of which rules they come from).
        let order = orders.under(root.allowed);
        fn ordered<'p, T>(order: &'p [u32], paths: &'p [T]) -> impl Iterator<Item = &'p T> + 'p {
            order.iter().map(move |&i| &paths[i as usize])
        }
        let paths = &self.paths;
        let differs = |mut allowed: Box<dyn Iterator<Item = bool> + '_>| {
            allowed.any(|allowed| allowed != root.allowed)
        };
        let differs = match profile {
            Profile::Rfc9309 => {
                let patterns = self
                    .rfc9309
                    .get_or_init(|| google::RfcPatterns::new(self.google));
                let paths = normalised(&paths.rfc9309, urls, order, google::rfc9309_path);
                differs(Box::new(google::rfc9309_allowed_paths(
                    self.google,
                    patterns,
                    agent,
                    paths,
                )))
            }
            Profile::Yandex => {
                let paths = normalised(
                    &paths.yandex,
                    urls,
                    order,
                    yandex::YandexRobots::request_path,
                );
                differs(Box::new(self.yandex().allowed_paths(agent, paths)))
            }
            Profile::Urllib => {
                let paths = normalised(
                    &paths.urllib,
                    urls,
                    order,
                    urllib::UrllibRobots::request_path,
                );
                differs(Box::new(self.urllib().allowed_paths(agent, paths)))
            }
            Profile::Ccbot => {
                let paths = normalised(&paths.ccbot, urls, order, ccbot::CcbotRobots::request_path);
                differs(Box::new(self.ccbot().allowed_paths(agent, paths)))
            }
            Profile::Protego => {
                let paths = normalised(
                    &paths.protego,
                    urls,
                    order,
                    protego::ProtegoRobots::request_path,
                );
                differs(Box::new(self.protego().allowed_paths(agent, paths)))
            }
            Profile::RobotsParser => {
                let family = self.robots_parser();
                let paths = normalised(&paths.robots_parser, urls, order, |u| {
                    family.request_path(u)
                });
                differs(Box::new(family.allowed_paths(agent, paths)))
            }
            Profile::Google
            | Profile::GoogleProduction
            | Profile::Bing
            | Profile::Applebot
            | Profile::Baidu => differs(Box::new(
                ordered(order, urls).map(|url| self.answer(profile, agent, url).allowed),
            )),
        };
        let class = match (root.allowed, differs) {
            (_, true) => ProbeClass::Partial,
            (true, false) => ProbeClass::None,
            (false, false) => ProbeClass::Full,
        };
        (root, class)
    }
}

/// `urls` in `order` as one family compares them with its rules: `normalise` applied to
/// each URL on its first use in the document, kept in `cells` for the other agents.
fn normalised<'c, T>(
    cells: &'c Lazily<T>,
    urls: &'c [String],
    order: &'c [u32],
    normalise: impl Fn(&str) -> T + 'c,
) -> impl Iterator<Item = &'c T> + 'c {
    let cells = cells.get_or_init(|| urls.iter().map(|_| OnceCell::new()).collect());
    order.iter().map(move |&i| {
        let i = i as usize;
        cells[i].get_or_init(|| normalise(&urls[i]))
    })
}

/// What any family could take for a user-agent name in a body: every word (run of
/// ASCII letters and digits, lower-cased) after each `agent` (any case) up to the end of
/// its line, each family's line breaks counted. Every family's user-agent key
/// (`user-agent`, `useragent`, `user agent` ...) contains `agent`, and each family
/// matches a group to an agent by equality, prefix, leading token or substring of such
/// words, so an agent sharing no word in either direction is named by no group.
struct AgentWords {
    /// A line after `agent` with no word that is no `*` line (an empty value names every
    /// agent to urllib), or text this scan does not model (`%`-escapes, which urllib
    /// decodes; non-ASCII, which lower-cases differently per family).
    all: bool,
    words: Vec<String>,
}

impl AgentWords {
    fn of(body: &[u8]) -> AgentWords {
        let mut found = AgentWords {
            all: false,
            words: Vec::new(),
        };
        let lower = body.to_ascii_lowercase();
        for start in memchr::memmem::find_iter(&lower, b"agent") {
            let rest = &lower[start + 5..];
            // \n \r VT FF FS GS RS, U+0085 (C2 85), U+2028/9 (E2 80 A8/A9).
            let end = rest
                .iter()
                .position(|&b| matches!(b, b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e | 0xc2 | 0xe2))
                .unwrap_or(rest.len());
            let value = &rest[..end];
            if value.iter().any(|&b| b == b'%' || b >= 0x80) {
                found.all = true;
                continue;
            }
            let before = found.words.len();
            for word in value
                .split(|b| !b.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
            {
                found.words.push(String::from_utf8_lossy(word).into_owned());
            }
            if found.words.len() == before && !value.contains(&b'*') {
                found.all = true;
            }
        }
        found.words.sort();
        found.words.dedup();
        found
    }
}

/// Whether any family could read a disallow rule in `body`: every parser here needs a
/// key spelled `disallow` or one of robots.cc's accepted misspellings (`dissallow`,
/// `dissalow`, `disalow`, `diasllow`, `disallaw`), all of which start `disa`, `diss`
/// or `dias` in any case. Without one, every reading allows every path, so no probe
/// can differ from `/`.
fn may_disallow(body: &[u8]) -> bool {
    memchr::memchr2_iter(b'd', b'D', body).any(|i| {
        let next = |k: usize| body.get(i + k).map(u8::to_ascii_lowercase);
        next(1) == Some(b'i')
            && matches!(
                (next(2), next(3)),
                (Some(b's'), Some(b'a' | b's')) | (Some(b'a'), Some(b's'))
            )
    })
}

/// `bytes` as UTF-8 with every invalid sequence dropped (Python's `errors="ignore"`):
/// borrowed when there is none, as in most bodies (`from_utf8` checks them faster than
/// the chunks do).
fn utf8_ignoring_errors(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_lists_parse() {
        for p in Profile::ALL {
            assert_eq!(Profile::from_name(p.name()), Some(p));
        }
        assert_eq!(
            Profile::parse_list("urllib, google,urllib").unwrap(),
            vec![Profile::Google, Profile::Urllib]
        );
        assert_eq!(Profile::parse_list("all").unwrap(), Profile::ALL.to_vec());
        let err = Profile::parse_list("google,bingo").unwrap_err();
        assert!(
            err.contains("\"bingo\"") && err.contains("robots-parser"),
            "{err}"
        );
        assert!(Profile::parse_list(" , ").is_err());
    }

    #[test]
    fn may_disallow_finds_every_spelling_in_any_case() {
        for body in [
            "Disallow: /",
            "DISSALOW: /",
            "x\ndiasllow /",
            "disalow:/",
            "DisAllaw: /",
        ] {
            assert!(may_disallow(body.as_bytes()), "{body}");
        }
        for body in ["Allow: /", "User-agent: dis", "# discuss", ""] {
            assert!(!may_disallow(body.as_bytes()), "{body}");
        }
    }

    #[test]
    fn addresses_only_agents_sharing_a_word_with_a_user_agent_line() {
        let body = b"User-agent: *\nDisallow: /x\n\nUser-agent: Googlebot/2.1\nUser-agent: bot\nDisallow: /\n";
        let doc = RobotsTxt::parse(body);
        let reads = Interpretations::new(body, &doc);
        // `bot` is a substring of GPTBot (urllib, protego), `googlebot` a prefix of
        // Googlebot-Image (google-production), ...
        for agent in ["GPTBot", "Googlebot", "Googlebot-Image", "googlebot", "g"] {
            assert!(reads.addresses(agent), "{agent}");
        }
        assert!(!reads.addresses("Slurp"));
        // A family rule of its own: Applebot reads the Googlebot group.
        assert!(reads.addresses("Applebot"));
        for body in [
            &b"User-agent:\nDisallow: /\n"[..],
            b"User-agent: G%50TBot\n",
            b"User-agent: caf\xc3\xa9\n",
        ] {
            let doc = RobotsTxt::parse(body);
            assert!(Interpretations::new(body, &doc).addresses("CCBot"));
        }
    }

    #[test]
    fn prepared_probe_paths_answer_as_urls_do() {
        // urllib and ccbot probe with paths normalised once per document: each answer
        // must be the one the URL itself gets.
        let bodies: [&[u8]; 3] = [
            b"User-agent: *\nDisallow: /a%7e/\nAllow: /a%7e/b\nDisallow: /*.pdf$\nDisallow: /q?x=1\n",
            b"User-agent: GPTBot\nDisallow: /\nAllow: /index.html\n\nUser-agent: *\nDisallow: /private;p\n",
            b"User-agent: ccbot\nCrawl-delay: 40\nDisallow: /caf\xc3\xa9/\nAllow: /$\n",
        ];
        let mut disallowed = 0;
        for body in bodies {
            let doc = RobotsTxt::parse(body);
            let reads = Interpretations::new(body, &doc);
            let urls: Vec<String> = doc
                .probe_urls()
                .map(lossy_string)
                .chain(["http://h/".to_owned(), "http://h/robots.txt".to_owned()])
                .collect();
            for agent in ["GPTBot", "CCBot", "x"] {
                let paths: Vec<String> = urls
                    .iter()
                    .map(|u| urllib::UrllibRobots::request_path(u))
                    .collect();
                let fast: Vec<bool> = reads.urllib().allowed_paths(agent, &paths).collect();
                let slow: Vec<bool> = urls
                    .iter()
                    .map(|u| reads.answer(Profile::Urllib, agent, u).allowed)
                    .collect();
                assert_eq!(fast, slow, "urllib {agent}");
                let paths: Vec<String> = urls
                    .iter()
                    .map(|u| ccbot::CcbotRobots::request_path(u))
                    .collect();
                let fast: Vec<bool> = reads.ccbot().allowed_paths(agent, &paths).collect();
                let slow: Vec<bool> = urls
                    .iter()
                    .map(|u| reads.answer(Profile::Ccbot, agent, u).allowed)
                    .collect();
                assert_eq!(fast, slow, "ccbot {agent}");
                disallowed += slow.iter().filter(|a| !**a).count();
            }
        }
        assert!(disallowed > 5, "the bodies disallow something");
    }

    #[test]
    fn ignoring_errors_drops_invalid_bytes() {
        assert_eq!(utf8_ignoring_errors(b"a\xffb\xc3\xa9"), "ab\u{e9}");
    }

    #[test]
    fn each_family_answers_one_file_its_own_way() {
        // A blank line inside the GPTBot group: Yandex and urllib end the group there,
        // robots.cc does not.
        let body = b"User-agent: GPTBot\n\nDisallow: /\n";
        let doc = RobotsTxt::parse(body);
        let reads = Interpretations::new(body, &doc);
        let url = "https://example.com/page";
        assert!(!reads.answer(Profile::Google, "GPTBot", url).allowed);
        assert!(reads.answer(Profile::Yandex, "GPTBot", url).allowed);
        assert!(reads.answer(Profile::Urllib, "GPTBot", url).allowed);
    }

    #[test]
    fn agents_sharing_a_selection_share_probe_classes_and_no_other() {
        // Stacked agents, the `*` group, a Yandex fallback, a `*` line inside a named
        // group, agents named only by substring: each (profile, agent) class asked after
        // many others on one document must equal the class asked first on a fresh one.
        let bodies: [&[u8]; 4] = [
            b"User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\nAllow: /private/ok\n",
            b"User-agent: Yandex\nDisallow: /y\n\nUser-agent: *\nUser-agent: bot\nDisallow: /\nAllow: /open\n",
            b"User-agent: *\nDisallow: /a\n\nUser-agent: Googlebot\nAllow: /\nDisallow: /a/b\n",
            b"User-agent: bingbot\nCrawl-delay: 5\nDisallow: /%7Ex\n\nUser-agent: *\nDisallow:\n",
        ];
        let agents = [
            "GPTBot",
            "CCBot",
            "ClaudeBot",
            "YandexBot",
            "YandexImages",
            "Googlebot",
            "Googlebot-Image",
            "bingbot",
            "bot",
            "Bytespider",
            "*",
        ];
        for body in bodies {
            let doc = RobotsTxt::parse(body);
            let shared = Interpretations::new(body, &doc);
            for profile in Profile::ALL {
                for agent in agents {
                    let fresh = Interpretations::new(body, &doc).probe_class(profile, agent);
                    assert_eq!(
                        shared.probe_class(profile, agent),
                        fresh,
                        "{profile:?} {agent} on {:?}",
                        String::from_utf8_lossy(body)
                    );
                }
            }
            // Some answers were shared: fewer classes kept than questions asked.
            let kept = shared.classes.borrow().len();
            assert!(kept < 6 * agents.len(), "{kept} classes kept");
        }
    }

    #[test]
    fn probe_class_under_a_profile_uses_its_own_verdicts() {
        // Baidu: the first matching line decides, so `Allow: /` first allows all.
        let body = b"User-agent: *\nAllow: /\nDisallow: /private\n";
        let doc = RobotsTxt::parse(body);
        let reads = Interpretations::new(body, &doc);
        assert_eq!(
            reads.probe_class(Profile::Google, "x").1,
            ProbeClass::Partial
        );
        assert_eq!(reads.probe_class(Profile::Baidu, "x").1, ProbeClass::None);
    }
}
