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
//! Each family implements [`Family`] once, in its own module; `families!` below is the
//! one list that names them, and gives [`Profile`] its variants. Each family's sources
//! are in its module's doc and in `../shared/interpretations/README.md`. What a fetch's
//! HTTP status means per family is the census's, not the engine's.

mod ccbot;
mod common;
mod cpython;
mod family;
mod google;
mod protego;
mod robots_parser;
mod urllib;
mod yandex;

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

pub use common::Answer;
use family::{Ask, Document, Family, Reading, Selection};

use crate::classify::{ProbeClass, ProbeOrders, Probes};
use crate::model::{lossy_string, RobotsTxt};

/// The families, in [`Profile::ALL`] order: `Variant => its Family`. A family is added
/// here and in its own module, nowhere else.
macro_rules! families {
    ($($(#[$doc:meta])* $variant:ident => $family:ty,)*) => {
        /// A crawler family's reading of robots.txt.
        ///
        /// ```
        /// use robots_census_engine::Profile;
        ///
        /// assert_eq!(Profile::ALL[0], Profile::Google);
        /// assert_eq!(Profile::from_name("CCBot"), Some(Profile::Ccbot));
        /// assert_eq!(Profile::Urllib.name(), "urllib");
        /// assert_eq!(
        ///     Profile::parse_list("urllib,google").unwrap(),
        ///     [Profile::Google, Profile::Urllib]
        /// );
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Profile {
            $($(#[$doc])* $variant,)*
        }

        /// How many families there are.
        const FAMILIES: usize = [$(stringify!($variant),)*].len();

        impl Profile {
            /// Every profile, Google's first.
            pub const ALL: [Profile; FAMILIES] = [$(Profile::$variant,)*];

            /// The name used on the command line, in tables and in JSON.
            pub fn name(self) -> &'static str {
                match self {
                    $(Profile::$variant => <$family as Family>::NAME,)*
                }
            }

            /// What the family does that robots.cc does not, in a few words (the
            /// audit's "why").
            pub fn how_it_differs(self) -> &'static str {
                match self {
                    $(Profile::$variant => <$family as Family>::HOW_IT_DIFFERS,)*
                }
            }

            /// [`Family::reads_as_google`] of this profile's family.
            fn reads_as_google(self, agent: &str) -> bool {
                match self {
                    $(Profile::$variant => <$family as Family>::reads_as_google(agent),)*
                }
            }

            /// Whether some family has a rule of its own for `agent`
            /// ([`Family::has_own_rules`]).
            fn any_has_own_rules(agent: &str) -> bool {
                false $(|| <$family as Family>::has_own_rules(agent))*
            }
        }

        /// Every family's reading of one document, each built on its first question.
        #[allow(non_snake_case)] // a field per variant, named as the variant
        #[derive(Default)]
        struct Readings {
            $($variant: Reading<$family>,)*
        }

        impl Readings {
            fn of(&self, profile: Profile) -> &dyn Ask {
                match profile {
                    $(Profile::$variant => &self.$variant,)*
                }
            }
        }
    };
}

families! {
    /// robots.cc, Google's open-source parser, with the 500 KiB cut: the reference.
    Google => google::Google,
    /// Google's production crawlers beyond robots.cc: AdsBot-Google,
    /// AdsBot-Google-Mobile and APIs-Google ignore `*`; Googlebot-News and
    /// Googlebot-Image fall back to a Googlebot group.
    GoogleProduction => google::GoogleProduction,
    /// RFC 9309 read strictly where robots.cc differs: %-escapes decoded on both sides,
    /// `%2A`/`%24` literal, `/robots.txt` always allowed.
    Rfc9309 => google::Rfc9309,
    /// bingbot: a bingbot group, else msnbot, else `*`; crawl-delay from `*` too.
    Bing => google::Bing,
    /// Yandex: a blank line ends a group; `Yandex` groups serve every Yandex robot;
    /// a file over 500 KB allows everything.
    Yandex => yandex::YandexRobots,
    /// Applebot: an Applebot group, else the Googlebot group, else `*`.
    Applebot => google::Applebot,
    /// Baiduspider: the first matching Allow/Disallow line decides.
    Baidu => google::Baidu,
    /// CCBot: Nutch with crawler-commons' SimpleRobotRulesParser.
    Ccbot => ccbot::CcbotRobots,
    /// Python's `urllib.robotparser` as in CPython <= 3.12.
    Urllib => urllib::UrllibRobots,
    /// Scrapy's Protego 0.7.0.
    Protego => protego::ProtegoRobots,
    /// npm `robots-parser` 3.0.1 (Browsertrix crawler, Crawlee).
    RobotsParser => robots_parser::RobotsParserRobots,
}

impl Profile {
    /// The profile named `name` (any case), as [`Profile::name`] writes it.
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
///
/// ```
/// use robots_census_engine::{Interpretations, Profile, RobotsTxt, Scope};
///
/// // A blank line inside the group: Yandex and urllib end the group there, robots.cc does not.
/// let body = b"User-agent: GPTBot\n\nDisallow: /\n";
/// let doc = RobotsTxt::parse(body);
/// let reads = Interpretations::new(body, &doc);
/// let url = "https://example.com/page";
/// assert!(!reads.answer(Profile::Google, "GPTBot", url).allowed);
/// assert!(reads.answer(Profile::Yandex, "GPTBot", url).allowed);
/// let urllib = reads.answer(Profile::Urllib, "GPTBot", url);
/// assert!(urllib.allowed && urllib.scope == Scope::None);
/// ```
pub struct Interpretations<'d, 'a> {
    doc: Document<'d, 'a>,
    readings: Readings,
    may_disallow: OnceCell<bool>,
    agent_words: OnceCell<AgentWords>,
    google_probes: OnceCell<Probes<'d, 'a>>,
    /// The probe URLs but `/`, built on the first probe of a profile other than
    /// Google's, and the orders in which to ask them.
    probe_urls: OnceCell<(Vec<String>, ProbeOrders)>,
    /// Probe classes already computed, by profile and selection: agents a family
    /// answers from the same group (or entry, rule set) share them.
    classes: RefCell<HashMap<(Profile, Selection), (Answer, ProbeClass)>>,
}

impl<'d, 'a> Interpretations<'d, 'a> {
    /// `google` must be `RobotsTxt::parse(body)`.
    pub fn new(body: &'a [u8], google: &'d RobotsTxt<'a>) -> Self {
        Interpretations {
            doc: Document { body, google },
            readings: Readings::default(),
            may_disallow: OnceCell::new(),
            agent_words: OnceCell::new(),
            google_probes: OnceCell::new(),
            probe_urls: OnceCell::new(),
            classes: RefCell::new(HashMap::new()),
        }
    }

    /// The Google model the readings were built on.
    pub fn google(&self) -> &'d RobotsTxt<'a> {
        self.doc.google
    }

    /// May `agent` fetch `url` (absolute, as crawled) under `profile`?
    pub fn answer(&self, profile: Profile, agent: &str, url: &str) -> Answer {
        self.readings.of(profile).answer(self.doc, agent, url)
    }

    /// The crawl-delay (seconds) `profile`'s family applies to `agent`: `None` for the
    /// families that ignore the directive (Google, Baidu, Yandex since 2018) or when the
    /// file sets none.
    pub fn crawl_delay(&self, profile: Profile, agent: &str) -> Option<f64> {
        self.readings.of(profile).crawl_delay(self.doc, agent)
    }

    /// Whether the family's crawl-delay rule keeps `agent` off the site whatever the
    /// rules say: only Nutch (CCBot) has one, skipping hosts whose delay exceeds
    /// `fetcher.max.crawl.delay`.
    pub fn crawl_delay_blocks(&self, profile: Profile, agent: &str) -> bool {
        self.readings
            .of(profile)
            .crawl_delay_blocks(self.doc, agent)
    }

    /// Whether some family may read a group of this file as naming `agent` (or the
    /// agent has a family rule of its own, such as Applebot reading Googlebot's group).
    /// When not, every family reads the file for `agent` exactly as for any other such
    /// agent (the `*` groups, or none): callers may answer them once.
    pub fn addresses(&self, agent: &str) -> bool {
        if Profile::any_has_own_rules(agent) {
            return true;
        }
        let words = self
            .agent_words
            .get_or_init(|| AgentWords::of(self.doc.body));
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
        profile.reads_as_google(agent)
    }

    /// The Somesite study's full / partial / none reading under `profile`, over the
    /// same probes as `agents.probe_class` (`/`, each rule path of the file, the dummy
    /// path), with the answer at `/`.
    pub fn probe_class(&self, profile: Profile, agent: &str) -> (Answer, ProbeClass) {
        let Some(selection) = self.readings.of(profile).selection(self.doc, agent) else {
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

    /// [`Interpretations::probe_class`], computed.
    fn probe_class_of(&self, profile: Profile, agent: &str) -> (Answer, ProbeClass) {
        let root = self.answer(profile, agent, "http://h/");
        let google = self.doc.google;
        if profile == Profile::Google {
            // robots.cc's own probing, with its shortcuts and shared probe paths.
            let probes = self.google_probes.get_or_init(|| google.probes());
            return (root, google.probe_class(agent.as_bytes(), probes).1);
        }
        if !*self
            .may_disallow
            .get_or_init(|| may_disallow(self.doc.body))
        {
            return (root, ProbeClass::None);
        }
        let (urls, orders) = self.probe_urls.get_or_init(|| {
            let probes = google.probe_urls_of_kinds();
            let orders = ProbeOrders::new(probes.iter().map(|(_, kinds)| *kinds));
            let urls = probes
                .into_iter()
                .map(|(url, _)| lossy_string(url))
                .collect();
            (urls, orders)
        });
        // The probes are asked in the order likeliest to find one that differs from `/`
        // soon (robots.cc's reading of which rules they come from); each family
        // normalises each probe URL once per document and chooses the agent's group once.
        let order = orders.under(root.allowed);
        let differs =
            self.readings
                .of(profile)
                .any_differs(self.doc, agent, urls, order, root.allowed);
        let class = match (root.allowed, differs) {
            (_, true) => ProbeClass::Partial,
            (true, false) => ProbeClass::None,
            (false, false) => ProbeClass::Full,
        };
        (root, class)
    }
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

    /// `F`'s answers to `urls` by [`Family::allowed_paths`] over its request paths, held
    /// to the answers of [`Family::answer`] to the URLs themselves (returned, with the
    /// family's name).
    fn paths_answer_as_urls<F: Family>(
        doc: Document<'_, '_>,
        agent: &str,
        urls: &[String],
    ) -> (&'static str, Vec<bool>) {
        let family = F::read(doc);
        let paths: Vec<F::Path> = urls.iter().map(|u| family.request_path(u)).collect();
        let fast: Vec<bool> = family.allowed_paths(doc, agent, paths.iter()).collect();
        let slow: Vec<bool> = urls
            .iter()
            .map(|u| family.answer(doc, agent, u).allowed)
            .collect();
        assert_eq!(fast, slow, "{} {agent}", F::NAME);
        (F::NAME, slow)
    }

    #[test]
    fn prepared_probe_paths_answer_as_urls_do() {
        // Every family probes with paths normalised once per document: each answer must
        // be the one the URL itself gets.
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
            for agent in ["GPTBot", "CCBot", "x", "Applebot", "bingbot"] {
                let doc = Document { body, google: &doc };
                for (name, slow) in [
                    paths_answer_as_urls::<google::Google>(doc, agent, &urls),
                    paths_answer_as_urls::<google::GoogleProduction>(doc, agent, &urls),
                    paths_answer_as_urls::<google::Rfc9309>(doc, agent, &urls),
                    paths_answer_as_urls::<google::Bing>(doc, agent, &urls),
                    paths_answer_as_urls::<yandex::YandexRobots>(doc, agent, &urls),
                    paths_answer_as_urls::<google::Applebot>(doc, agent, &urls),
                    paths_answer_as_urls::<google::Baidu>(doc, agent, &urls),
                    paths_answer_as_urls::<ccbot::CcbotRobots>(doc, agent, &urls),
                    paths_answer_as_urls::<urllib::UrllibRobots>(doc, agent, &urls),
                    paths_answer_as_urls::<protego::ProtegoRobots>(doc, agent, &urls),
                    paths_answer_as_urls::<robots_parser::RobotsParserRobots>(doc, agent, &urls),
                ] {
                    // The dispatcher answers as the family does.
                    let profile = Profile::from_name(name).unwrap();
                    let dispatched: Vec<bool> = urls
                        .iter()
                        .map(|u| reads.answer(profile, agent, u).allowed)
                        .collect();
                    assert_eq!(dispatched, slow, "{name} {agent}");
                    disallowed += slow.iter().filter(|a| !**a).count();
                }
            }
        }
        assert!(disallowed > 5, "the bodies disallow something");
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
    fn special_agents_are_addressed_and_not_read_as_google() {
        // No word of this file is in these agents' names: only a family rule of their
        // own addresses them.
        let body = b"User-agent: Googlebot\nDisallow: /\n\nUser-agent: msnbot\nDisallow: /m\n";
        let doc = RobotsTxt::parse(body);
        let reads = Interpretations::new(body, &doc);
        for agent in ["Applebot", "bingbot", "AdsBot-Google", "APIs-Google"] {
            assert!(reads.addresses(agent), "{agent}");
        }
        assert!(!reads.addresses("GPTBot"));
        let as_google = |agent: &str| -> Vec<&str> {
            Profile::ALL
                .into_iter()
                .filter(|&p| reads.reads_as_google(p, agent))
                .map(Profile::name)
                .collect()
        };
        let google_model = ["google", "google-production", "bing", "applebot"];
        assert_eq!(as_google("GPTBot"), google_model);
        assert_eq!(
            as_google("Applebot"),
            ["google", "google-production", "bing"]
        );
        assert_eq!(
            as_google("bingbot"),
            ["google", "google-production", "applebot"]
        );
        assert_eq!(as_google("AdsBot-Google"), ["google", "bing", "applebot"]);
        assert_eq!(as_google("Googlebot-News"), ["google", "bing", "applebot"]);
    }

    #[test]
    fn each_family_reads_crawl_delay_its_own_way() {
        let body = b"User-agent: *\nCrawl-delay: 40\nDisallow: /x\n";
        let doc = RobotsTxt::parse(body);
        let reads = Interpretations::new(body, &doc);
        let got: Vec<(&str, Option<f64>, bool)> = Profile::ALL
            .iter()
            .map(|&p| {
                let (delay, blocks) = (
                    reads.crawl_delay(p, "CCBot"),
                    reads.crawl_delay_blocks(p, "CCBot"),
                );
                (p.name(), delay, blocks)
            })
            .collect();
        // Google, Baidu and Yandex ignore the directive; Nutch skips a host whose delay
        // is over 30 s.
        assert_eq!(
            got,
            [
                ("google", None, false),
                ("google-production", None, false),
                ("rfc9309", None, false),
                ("bing", Some(40.0), false),
                ("yandex", None, false),
                ("applebot", None, false),
                ("baidu", None, false),
                ("ccbot", Some(40.0), true),
                ("urllib", Some(40.0), false),
                ("protego", Some(40.0), false),
                ("robots-parser", Some(40.0), false),
            ]
        );
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
