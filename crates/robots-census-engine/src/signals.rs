//! AI-use signals: the lines and comments of a robots.txt that say what may be done
//! with a site's content, read during the parser's one pass over the tokenizer's lines
//! (nothing here splits the body again), and the preferences they give each agent.
//!
//! The kinds ([`SignalKind`]) and what each follows:
//!
//! - `Content-Usage` (IETF AIPREF: draft-ietf-aipref-vocab and -attach, at
//!   ietf-wg-aipref/drafts 7ca0afc). An optional path (a value starting with `/`, up to
//!   the first blank) and a statement of preference, an RFC 9651 Dictionary whose Tokens
//!   `y` and `n` allow or disallow a category; anything else leaves it unknown, and a
//!   value that is not a Dictionary leaves every category unknown. The line belongs to
//!   a group; its path is matched as Allow/Disallow paths are, longest first, and
//!   statements of equal length combine most restrictively (any `n` wins). The current
//!   labels are `train-ai` and `search`; earlier drafts' labels are reported as legacy
//!   and, as the vocabulary says of every unknown label, ignored.
//! - `Content-Signal` (Cloudflare's Content Signals Policy): `search`, `ai-input` and
//!   `ai-train` set to `yes` or `no`, and `use=immediate|reference|full`. The value is
//!   read with the same Dictionary parser (draft-romm-aipref-contentsignals maps these
//!   signals onto the AIPREF format). It applies inside its group, or to the whole file
//!   when it comes before any group.
//! - `License` (RSL 1.0): a file-wide URL, which should be absolute and may be on
//!   another host.
//! - `LLM-Policy` (crawler-commons' file-wide extension, pointing to an llms.txt or a
//!   similar policy) and `DisallowAITraining` (draft-canel-robots-ai-control-00, a path
//!   pattern inside a group). robots.cc reads a `DisallowAITraining` key as `Disallow`,
//!   since the key starts with it: the lint says so.
//! - Comments reserving rights under Article 4 of Directive (EU) 2019/790 (the
//!   text-and-data-mining opt-out): see [`is_tdm_reservation`].
//! - Cloudflare's managed block, from `# BEGIN Cloudflare Managed content` to
//!   `# END Cloudflare Managed Content`: one row for its start, and every signal inside
//!   it says so.
//!
//! Why `sfv` for the Dictionaries: RFC 9651's grammar (keys of lower-case letters,
//! digits and `_-.*`, Tokens, Strings, Booleans, parameters, inner lists) has enough
//! corners that a hand-written reader would drift from it, and the vocabulary's
//! "unknown" rests on exactly those corners (`train-ai` bare is a Boolean, `"n"` a
//! String, `Train-AI=n` no Dictionary at all). sfv is the maintained RFC 9651
//! implementation for Rust, tested against the httpwg test suite, and its visitor API
//! reads a value without building a map.

use std::borrow::Cow;
use std::convert::Infallible;

use sfv::visitor::{DictionaryVisitor, EntryVisitor, Ignored, InnerListVisitor, ItemVisitor};
use sfv::{BareItemFromInput, KeyRef};

use crate::lint::Code;
use crate::model::{AgentLine, RobotsTxt};
use crate::pattern::{matches, PatternKind};
use crate::tokenize::{escape_pattern, trim};
use crate::url::UrlPath;

/// What a signal row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalKind {
    /// A `Content-Usage` line (IETF AIPREF).
    ContentUsage,
    /// A `Content-Signal` line (Cloudflare), or its `Content-Signals` variant.
    ContentSignal,
    /// A `License` line (RSL).
    License,
    /// An `LLM-Policy` line.
    LlmPolicy,
    /// A `DisallowAITraining` line.
    DisallowAiTraining,
    /// A comment reserving text-and-data-mining rights ([`is_tdm_reservation`]).
    TdmComment,
    /// The `# BEGIN Cloudflare Managed content` comment opening Cloudflare's block.
    CloudflareManaged,
}

impl SignalKind {
    /// Every kind, in the order the census documents them.
    pub const ALL: [SignalKind; 7] = [
        SignalKind::ContentUsage,
        SignalKind::ContentSignal,
        SignalKind::License,
        SignalKind::LlmPolicy,
        SignalKind::DisallowAiTraining,
        SignalKind::TdmComment,
        SignalKind::CloudflareManaged,
    ];

    /// The kind as the `signals` table writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            SignalKind::ContentUsage => "content-usage",
            SignalKind::ContentSignal => "content-signal",
            SignalKind::License => "license",
            SignalKind::LlmPolicy => "llm-policy",
            SignalKind::DisallowAiTraining => "disallow-ai-training",
            SignalKind::TdmComment => "tdm-comment",
            SignalKind::CloudflareManaged => "cloudflare-managed",
        }
    }

    /// The kind of a line whose key (as written) is `key`, ASCII case-insensitively.
    pub(crate) fn of_key(key: &[u8]) -> Option<SignalKind> {
        const KEYS: [(&str, SignalKind); 6] = [
            ("content-usage", SignalKind::ContentUsage),
            ("content-signal", SignalKind::ContentSignal),
            ("content-signals", SignalKind::ContentSignal),
            ("license", SignalKind::License),
            ("llm-policy", SignalKind::LlmPolicy),
            ("disallowaitraining", SignalKind::DisallowAiTraining),
        ];
        // Most other keys are crawl-delay, host or noise: one length and first-byte test
        // settles them.
        if !matches!(key.len(), 7 | 10 | 13..=18) {
            return None;
        }
        KEYS.iter()
            .find(|(name, _)| key.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, kind)| *kind)
    }
}

/// An AIPREF preference for one category: `y` or `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pref {
    /// `y`: the use is allowed.
    Allow,
    /// `n`: the use is disallowed.
    Disallow,
}

impl Pref {
    /// `y` or `n`, as the vocabulary writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Pref::Allow => "y",
            Pref::Disallow => "n",
        }
    }
}

/// Which AIPREF label set a `Content-Usage` line used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Labels {
    /// Only labels of the current vocabulary (`train-ai`, `search`).
    Current,
    /// Only labels of earlier drafts ([`LEGACY_LABELS`]).
    Legacy,
    /// Both.
    Mixed,
}

impl Labels {
    /// `current`, `legacy` or `mixed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Labels::Current => "current",
            Labels::Legacy => "legacy",
            Labels::Mixed => "mixed",
        }
    }
}

/// The labels of draft-ietf-aipref-vocab-01 to -04 that -05 and later dropped
/// (`all`, `bots`, `train-genai`, `ai-use`, `ai-output`, `tdm`, `ai`, `genai`,
/// `inference`); still deployed by generators written against those drafts.
pub const LEGACY_LABELS: [&str; 9] = [
    "all",
    "bots",
    "train-genai",
    "ai-use",
    "ai-output",
    "tdm",
    "ai",
    "genai",
    "inference",
];

/// Content Signals' `use`: how much of the content may be reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UseLevel {
    /// `immediate`.
    Immediate,
    /// `reference`.
    Reference,
    /// `full`.
    Full,
}

impl UseLevel {
    /// `immediate`, `reference` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            UseLevel::Immediate => "immediate",
            UseLevel::Reference => "reference",
            UseLevel::Full => "full",
        }
    }
}

/// AIPREF preferences for the two categories of the current vocabulary; `None` is
/// unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// `train-ai`: AI model training.
    pub train_ai: Option<Pref>,
    /// `search`.
    pub search: Option<Pref>,
}

/// Content Signals' values; `None` where the line sets none (no preference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContentSignals {
    /// `search=yes|no`.
    pub search: Option<bool>,
    /// `ai-input=yes|no`.
    pub ai_input: Option<bool>,
    /// `ai-train=yes|no`.
    pub ai_train: Option<bool>,
    /// `use=immediate|reference|full`.
    pub use_level: Option<UseLevel>,
}

macro_rules! problems {
    ($($variant:ident => ($name:literal, $code:ident),)*) => {
        /// Why a signal line is not valid: each is also a lint finding. A line is valid
        /// when every part of it means something under its specification.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Problem { $(#[doc = $name] $variant,)* }

        impl Problem {
            /// Every problem, most telling first: [`Signal::problem`] names the first a
            /// line has.
            pub const ALL: &'static [Problem] = &[$(Problem::$variant,)*];

            /// The problem as the `signals` table writes it.
            pub fn as_str(self) -> &'static str {
                match self { $(Problem::$variant => $name,)* }
            }

            /// The lint finding it is reported as.
            pub fn code(self) -> Code {
                match self { $(Problem::$variant => Code::$code,)* }
            }
        }
    };
}

problems! {
    NotDictionary => ("not_sf_dictionary", SignalNotDictionary),
    EmptyValue => ("empty_value", SignalEmptyValue),
    OutsideGroup => ("outside_group", ContentUsageOutsideGroup),
    LicenseNotAbsolute => ("license_not_absolute", LicenseNotAbsolute),
    YesNoInContentUsage => ("yes_no_in_content_usage", ContentUsageYesNo),
    YNInContentSignal => ("y_n_in_content_signal", ContentSignalYN),
    LegacyLabel => ("legacy_label", ContentUsageLegacyLabel),
    UnknownLabel => ("unknown_label", SignalUnknownLabel),
    UnknownValue => ("unknown_value", SignalUnknownValue),
}

/// The problems of one line, a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Problems(u16);

impl Problems {
    fn add(&mut self, problem: Problem) {
        self.0 |= 1 << problem as u16;
    }

    /// Whether `problem` is in the set.
    pub fn contains(self, problem: Problem) -> bool {
        self.0 & (1 << problem as u16) != 0
    }

    /// The set is empty: the line is valid.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The problems, in [`Problem::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Problem> {
        Problem::ALL
            .iter()
            .copied()
            .filter(move |p| self.contains(*p))
    }
}

/// One signal line or comment.
#[derive(Debug, Clone)]
pub struct Signal<'a> {
    /// Line number, as robots.cc counts lines (from 1).
    pub line: u32,
    /// What it is.
    pub kind: SignalKind,
    /// The group open when the line was read (index into
    /// [`RobotsTxt::groups`](crate::RobotsTxt::groups)), if any.
    pub group: Option<u32>,
    /// The value as written (for a comment: its text after `#`, trimmed).
    pub value: &'a [u8],
    /// `Content-Usage`'s path and `DisallowAITraining`'s pattern, as written.
    pub path: Option<&'a [u8]>,
    /// The line lies in Cloudflare's managed block.
    pub cloudflare_managed: bool,
    /// `Content-Usage`: the preferences the line states under the current vocabulary.
    pub usage: Usage,
    /// `Content-Usage`: which label set it used; `None` when it used neither (no
    /// Dictionary, or only unknown labels).
    pub labels: Option<Labels>,
    /// `Content-Signal`: what it sets.
    pub content_signals: ContentSignals,
    /// What is wrong with the line; empty when it is valid.
    pub problems: Problems,
    /// `path` percent-escaped as robots.cc escapes Allow/Disallow patterns.
    pub(crate) pattern: Cow<'a, [u8]>,
    pub(crate) pattern_kind: PatternKind,
}

impl<'a> Signal<'a> {
    /// Reads one directive line of `kind`: `group` is the group open at the line.
    pub(crate) fn directive(
        line: u32,
        kind: SignalKind,
        group: Option<u32>,
        value: &'a [u8],
        cloudflare_managed: bool,
    ) -> Self {
        let mut signal = Signal::bare(line, kind, group, value, cloudflare_managed);
        match kind {
            SignalKind::ContentUsage => signal.read_content_usage(),
            SignalKind::ContentSignal => signal.read_content_signal(),
            SignalKind::License => {
                if value.is_empty() {
                    signal.problems.add(Problem::EmptyValue);
                } else if !is_absolute_url(value) {
                    signal.problems.add(Problem::LicenseNotAbsolute);
                }
            }
            SignalKind::LlmPolicy => {
                if value.is_empty() {
                    signal.problems.add(Problem::EmptyValue);
                }
            }
            SignalKind::DisallowAiTraining => {
                signal.set_path(value);
                if group.is_none() {
                    signal.problems.add(Problem::OutsideGroup);
                }
            }
            SignalKind::TdmComment | SignalKind::CloudflareManaged => {}
        }
        signal
    }

    /// A comment of `kind` (a reservation, or the start of Cloudflare's block).
    pub(crate) fn comment(
        line: u32,
        kind: SignalKind,
        group: Option<u32>,
        text: &'a [u8],
        cloudflare_managed: bool,
    ) -> Self {
        Signal::bare(line, kind, group, trim(text), cloudflare_managed)
    }

    fn bare(
        line: u32,
        kind: SignalKind,
        group: Option<u32>,
        value: &'a [u8],
        cloudflare_managed: bool,
    ) -> Self {
        Signal {
            line,
            kind,
            group,
            value,
            path: None,
            cloudflare_managed,
            usage: Usage::default(),
            labels: None,
            content_signals: ContentSignals::default(),
            problems: Problems::default(),
            pattern: Cow::Borrowed(&[]),
            pattern_kind: PatternKind::of(&[]),
        }
    }

    /// The problem the `signals` table names: the first of [`Problem::ALL`] the line has.
    pub fn problem(&self) -> Option<Problem> {
        self.problems.iter().next()
    }

    /// The line is valid: it has no [`Problem`].
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }

    fn set_path(&mut self, path: &'a [u8]) {
        self.path = Some(path);
        self.pattern = escape_pattern(path);
        self.pattern_kind = PatternKind::of(&self.pattern);
    }

    /// attach §3.2: a value starting with `/` has a path up to the first SP or HTAB;
    /// the rest is the statement of preference (vocab §6).
    fn read_content_usage(&mut self) {
        let mut statement = self.value;
        if self.value.first() == Some(&b'/') {
            let end = self
                .value
                .iter()
                .position(|b| matches!(b, b' ' | b'\t'))
                .unwrap_or(self.value.len());
            self.set_path(&self.value[..end]);
            statement = trim(&self.value[end..]);
        }
        if self.group.is_none() {
            self.problems.add(Problem::OutsideGroup);
        }
        let Some(entries) = self.dictionary(statement) else {
            return;
        };
        let (mut current, mut legacy) = (false, false);
        for (key, value) in last_values(&entries) {
            let slot = match key {
                "train-ai" => Some(&mut self.usage.train_ai),
                "search" => Some(&mut self.usage.search),
                _ => None,
            };
            let known = slot.is_some() || LEGACY_LABELS.contains(&key);
            if !known {
                self.problems.add(Problem::UnknownLabel);
                continue;
            }
            current |= slot.is_some();
            legacy |= slot.is_none();
            let pref = match value {
                Some("y") => Some(Pref::Allow),
                Some("n") => Some(Pref::Disallow),
                Some(t) if t.eq_ignore_ascii_case("yes") || t.eq_ignore_ascii_case("no") => {
                    self.problems.add(Problem::YesNoInContentUsage);
                    None
                }
                _ => {
                    self.problems.add(Problem::UnknownValue);
                    None
                }
            };
            if let Some(slot) = slot {
                *slot = pref;
            }
        }
        if legacy {
            self.problems.add(Problem::LegacyLabel);
        }
        self.labels = match (current, legacy) {
            (true, false) => Some(Labels::Current),
            (false, true) => Some(Labels::Legacy),
            (true, true) => Some(Labels::Mixed),
            (false, false) => None,
        };
    }

    fn read_content_signal(&mut self) {
        let Some(entries) = self.dictionary(self.value) else {
            return;
        };
        for (key, value) in last_values(&entries) {
            let signals = &mut self.content_signals;
            let slot = match key {
                "search" => &mut signals.search,
                "ai-input" => &mut signals.ai_input,
                "ai-train" => &mut signals.ai_train,
                "use" => {
                    signals.use_level = match value {
                        Some("immediate") => Some(UseLevel::Immediate),
                        Some("reference") => Some(UseLevel::Reference),
                        Some("full") => Some(UseLevel::Full),
                        _ => {
                            self.problems.add(Problem::UnknownValue);
                            None
                        }
                    };
                    continue;
                }
                _ => {
                    self.problems.add(Problem::UnknownLabel);
                    continue;
                }
            };
            *slot = match value {
                Some("yes") => Some(true),
                Some("no") => Some(false),
                Some(t) if t.eq_ignore_ascii_case("y") || t.eq_ignore_ascii_case("n") => {
                    self.problems.add(Problem::YNInContentSignal);
                    None
                }
                _ => {
                    self.problems.add(Problem::UnknownValue);
                    None
                }
            };
        }
    }

    /// `statement` as an RFC 9651 Dictionary: each entry's key and, when its value
    /// is a Token, the Token. `None` (and the problem noted) when it is empty or no
    /// Dictionary.
    fn dictionary(&mut self, statement: &'a [u8]) -> Option<Vec<(&'a str, Option<&'a str>)>> {
        if statement.is_empty() {
            self.problems.add(Problem::EmptyValue);
            return None;
        }
        match sfv::Parser::new(statement).parse_dictionary_with_visitor(Entries::default()) {
            Ok(entries) => Some(entries.0),
            Err(_) => {
                self.problems.add(Problem::NotDictionary);
                None
            }
        }
    }
}

/// The entries of a Dictionary in input order, duplicates kept: each key, and its
/// value when that is a Token (a Boolean, String, number or inner list is `None`).
/// Parameters are validated by the parser and otherwise ignored (vocab §6.5.2).
#[derive(Default)]
struct Entries<'de>(Vec<(&'de str, Option<&'de str>)>);

impl<'de> DictionaryVisitor<'de> for Entries<'de> {
    type Out = Self;
    type Error = Infallible;

    fn entry(&mut self, key: &'de KeyRef) -> Result<impl EntryVisitor<'de>, Self::Error> {
        self.0.push((key.as_str(), None));
        let last = self.0.len() - 1;
        Ok(TokenSlot(&mut self.0[last].1))
    }

    fn finish(self) -> Result<Self::Out, Self::Error> {
        Ok(self)
    }
}

/// Where an entry's Token goes.
struct TokenSlot<'s, 'de>(&'s mut Option<&'de str>);

impl<'de> EntryVisitor<'de> for TokenSlot<'_, 'de> {
    type Error = Infallible;

    fn item(self) -> Result<impl ItemVisitor<'de>, Self::Error> {
        Ok(move |bare: BareItemFromInput<'de>| {
            if let BareItemFromInput::Token(token) = bare {
                *self.0 = Some(token.as_str());
            }
            Ok::<_, Infallible>(Ignored)
        })
    }

    fn inner_list(self) -> Result<impl InnerListVisitor<'de>, Self::Error> {
        Ok(Ignored)
    }
}

/// Each key once with its last value: RFC 9651 §4.2.2 keeps the last of a repeated key
/// (vocab §6.5.1), in the order of those last occurrences.
fn last_values<'e, 'de>(
    entries: &'e [(&'de str, Option<&'de str>)],
) -> impl Iterator<Item = (&'de str, Option<&'de str>)> + 'e {
    entries
        .iter()
        .enumerate()
        .filter(|(i, (key, _))| !entries[i + 1..].iter().any(|(k, _)| k == key))
        .map(|(_, entry)| *entry)
}

/// An absolute URL: a scheme, `://` and a host (RSL asks for an absolute URL).
pub(crate) fn is_absolute_url(value: &[u8]) -> bool {
    std::str::from_utf8(value)
        .ok()
        .and_then(|text| url::Url::parse(text).ok())
        .is_some_and(|url| url.host().is_some())
}

/// Whether a comment reserves text-and-data-mining rights under Article 4 of Directive
/// (EU) 2019/790: its text (after `#`) contains the directive's number `2019/790`, or
/// `article` and `4` (ASCII case-insensitive, one or more blanks between) with no digit
/// after the `4`. Cloudflare's policy comment ("...RESERVATIONS OF RIGHTS UNDER
/// ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790...") counts once per line that
/// carries either. Mentions of "text and data mining" alone do not count: they also
/// appear in statements that grant it.
///
/// ```
/// use robots_census_engine::is_tdm_reservation;
/// assert!(is_tdm_reservation(b" rights reserved under Directive (EU) 2019/790"));
/// assert!(is_tdm_reservation(b" TDM opt-out per ARTICLE  4 DSM"));
/// assert!(!is_tdm_reservation(b" see article 42"));
/// assert!(!is_tdm_reservation(b" text and data mining welcome"));
/// ```
pub fn is_tdm_reservation(comment: &[u8]) -> bool {
    if memchr::memmem::find(comment, b"2019/790").is_some() {
        return true;
    }
    memchr::memchr2_iter(b'a', b'A', comment).any(|i| {
        let rest = &comment[i..];
        if rest.len() < 9 || !rest[..7].eq_ignore_ascii_case(b"article") {
            return false;
        }
        let after = &rest[7..];
        let blanks = after
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        blanks > 0
            && after.get(blanks) == Some(&b'4')
            && !after.get(blanks + 1).is_some_and(u8::is_ascii_digit)
    })
}

/// Cloudflare's markers around its managed block, compared ASCII case-insensitively
/// with a comment's trimmed text (Cloudflare writes `content` in one, `Content` in
/// the other).
pub(crate) enum Marker {
    Begin,
    End,
}

impl Marker {
    pub(crate) fn of(comment: &[u8]) -> Option<Marker> {
        let text = trim(comment);
        if text.eq_ignore_ascii_case(b"BEGIN Cloudflare Managed content") {
            Some(Marker::Begin)
        } else if text.eq_ignore_ascii_case(b"END Cloudflare Managed Content") {
            Some(Marker::End)
        } else {
            None
        }
    }
}

/// Most-restrictive combination of AIPREF statements (vocab §5.1): any `n` wins, else
/// any `y`, else unknown.
fn combine(a: Option<Pref>, b: Option<Pref>) -> Option<Pref> {
    match (a, b) {
        (Some(Pref::Disallow), _) | (_, Some(Pref::Disallow)) => Some(Pref::Disallow),
        (Some(Pref::Allow), _) | (_, Some(Pref::Allow)) => Some(Pref::Allow),
        (None, None) => None,
    }
}

/// The same for Content Signals' yes (`true`) and no (`false`).
fn combine_yes_no(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), _) | (_, Some(true)) => Some(true),
        (None, None) => None,
    }
}

impl RobotsTxt<'_> {
    /// Whether a signal of `kind` is in the file.
    pub fn has_signal(&self, kind: SignalKind) -> bool {
        self.signals.iter().any(|s| s.kind == kind)
    }

    /// The Web Almanac's "mentioned" (HTTPArchive/custom-metrics `robots_txt.js`, read by
    /// almanac.httparchive.org `sql/2025/seo/robots-txt-user-agent-usage-2025.sql`):
    /// some user-agent line's value, lower-cased, is the agent's token lower-cased.
    /// Unlike [`RobotsTxt::names_agent`] (robots.cc's product-token match), a value with
    /// a version or other text (`GPTBot/1.0`) is another user agent to the Almanac. The
    /// user-agent lines are robots.cc's (accepted typos such as `useragent:` included,
    /// the comment cut at any `#`), where the Almanac's metric takes only `user-agent:`
    /// and cuts a comment only at a `#` after a blank.
    ///
    /// ```
    /// let doc = robots_census_engine::RobotsTxt::parse(b"User-agent: gptbot\nUser-agent: CCBot/2.0\nDisallow: /\n");
    /// assert!(doc.mentions_agent(b"GPTBot"));
    /// assert!(!doc.mentions_agent(b"CCBot") && doc.names_agent(b"CCBot"));
    /// ```
    pub fn mentions_agent(&self, agent: &[u8]) -> bool {
        self.agents
            .iter()
            .any(|a| a.value.eq_ignore_ascii_case(agent))
    }

    /// The user-agent lines of the group `signal` was read in: none for a line outside
    /// any group (the `signals.agents` column, the audit's and Python's `agents`).
    ///
    /// ```
    /// let doc = robots_census_engine::RobotsTxt::parse(b"Content-Signal: ai-train=no\nUser-agent: GPTBot\nUser-agent: CCBot\nContent-Usage: train-ai=n\n");
    /// let agents = |i: usize| doc.signal_agents(&doc.signals[i]).iter().map(|a| a.value).collect::<Vec<_>>();
    /// assert!(agents(0).is_empty());
    /// assert_eq!(agents(1), [&b"GPTBot"[..], &b"CCBot"[..]]);
    /// ```
    pub fn signal_agents(&self, signal: &Signal<'_>) -> &[AgentLine<'_>] {
        signal
            .group
            .and_then(|g| self.groups.get(g as usize))
            .map_or(&[], |group| self.group_agents(group))
    }

    /// Whether group `index` is one robots.cc applies to the agent (`named`: some group
    /// names it, [`RobotsTxt::names_agent`]).
    fn group_applies(&self, index: u32, agent: &[u8], named: bool) -> bool {
        self.groups.get(index as usize).is_some_and(|group| {
            if named {
                self.group_agents(group).iter().any(|a| a.names(agent))
            } else {
                group.has_star
            }
        })
    }

    /// What AIPREF's robots.txt rules (attach §3.1) give `agent` for `path`: the
    /// `Content-Usage` lines of the groups robots.cc applies to the agent (those naming
    /// it, else the `*` groups), the one whose path matches `path` longest (a line
    /// without a path matches every path, with length 0), lines of equal length
    /// combined most restrictively. A path the agent may not crawl has no preferences:
    /// both unknown.
    ///
    /// ```
    /// use robots_census_engine::{Pref, RobotsTxt, UrlPath};
    ///
    /// let doc = RobotsTxt::parse(b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n");
    /// let at = |path: &[u8]| doc.usage_for(b"AnyBot", &UrlPath::new(path)).train_ai;
    /// assert_eq!(at(b"/test"), Some(Pref::Disallow));
    /// assert_eq!(at(b"/ai-ok/test"), Some(Pref::Allow));
    /// assert_eq!(at(b"/never/test"), None);
    /// ```
    pub fn usage_for(&self, agent: &[u8], path: &UrlPath<'_>) -> Usage {
        // No Content-Usage line, no preference: most files, decided without a verdict.
        if !self.has_signal(SignalKind::ContentUsage) || !self.verdict_for_path(agent, path).allowed
        {
            return Usage::default();
        }
        let named = self.names_agent(agent);
        let path = path.as_bytes();
        let mut longest = -1i64;
        let mut usage = Usage::default();
        for signal in &self.signals {
            if signal.kind != SignalKind::ContentUsage {
                continue;
            }
            let Some(group) = signal.group else { continue };
            if !self.group_applies(group, agent, named) {
                continue;
            }
            let pattern = &signal.pattern;
            if !pattern.is_empty() && !matches(signal.pattern_kind, pattern, path) {
                continue;
            }
            let length = pattern.len() as i64;
            if length > longest {
                longest = length;
                usage = Usage::default();
            }
            if length == longest {
                usage.train_ai = combine(usage.train_ai, signal.usage.train_ai);
                usage.search = combine(usage.search, signal.usage.search);
            }
        }
        usage
    }

    /// The Content Signals that apply to `agent`: for each signal, what the
    /// `Content-Signal` lines of the groups robots.cc applies to the agent set, else what
    /// the lines before any group set; lines that disagree combine most restrictively
    /// (`no` wins, the lowest `use`).
    ///
    /// ```
    /// let doc = robots_census_engine::RobotsTxt::parse(
    ///     b"Content-Signal: ai-train=yes, search=yes\nUser-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n",
    /// );
    /// let star = doc.content_signals_for(b"Googlebot");
    /// assert_eq!((star.ai_train, star.search), (Some(false), Some(true)));
    /// assert_eq!(doc.content_signals_for(b"GPTBot").ai_train, Some(true));
    /// ```
    pub fn content_signals_for(&self, agent: &[u8]) -> ContentSignals {
        if !self.has_signal(SignalKind::ContentSignal) {
            return ContentSignals::default();
        }
        let named = self.names_agent(agent);
        let (mut own, mut file) = (ContentSignals::default(), ContentSignals::default());
        for signal in &self.signals {
            if signal.kind != SignalKind::ContentSignal {
                continue;
            }
            let into = match signal.group {
                None => &mut file,
                Some(group) if self.group_applies(group, agent, named) => &mut own,
                Some(_) => continue,
            };
            let s = &signal.content_signals;
            into.search = combine_yes_no(into.search, s.search);
            into.ai_input = combine_yes_no(into.ai_input, s.ai_input);
            into.ai_train = combine_yes_no(into.ai_train, s.ai_train);
            into.use_level = match (into.use_level, s.use_level) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        ContentSignals {
            search: own.search.or(file.search),
            ai_input: own.ai_input.or(file.ai_input),
            ai_train: own.ai_train.or(file.ai_train),
            use_level: own.use_level.or(file.use_level),
        }
    }
}

/// Where a `License` URL points, against the robots.txt URL it was served at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LicenseTarget {
    /// The URL resolved against the robots.txt URL; `None` when it does not parse.
    pub url: Option<String>,
    /// Its host is the robots.txt URL's (WHATWG parsing: lower-cased, IDNA as
    /// punycode); `None` when either has no host.
    pub same_host: Option<bool>,
}

/// Resolves a `License` value (RSL: one URL, which should be absolute and may be on
/// another host) against `robots_url`, the URL the robots.txt was fetched from.
///
/// ```
/// use robots_census_engine::license_target;
/// let t = license_target(b"/license.xml", "https://www.example.com/robots.txt");
/// assert_eq!(t.url.as_deref(), Some("https://www.example.com/license.xml"));
/// assert_eq!(t.same_host, Some(true));
/// assert_eq!(license_target(b"https://rsl.example/l.xml", "https://www.example.com/robots.txt").same_host, Some(false));
/// ```
pub fn license_target(value: &[u8], robots_url: &str) -> LicenseTarget {
    let base = url::Url::parse(robots_url).ok();
    let text = std::str::from_utf8(value).ok();
    let resolved = text.and_then(|t| match &base {
        Some(base) => base.join(t).ok(),
        None => url::Url::parse(t).ok(),
    });
    let same_host = match (&resolved, &base) {
        (Some(target), Some(base)) => match (target.host_str(), base.host_str()) {
            (Some(a), Some(b)) => Some(a == b),
            _ => None,
        },
        _ => None,
    };
    LicenseTarget {
        url: resolved.map(String::from),
        same_host,
    }
}
