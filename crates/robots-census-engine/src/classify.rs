//! Two per-agent readings of a parsed robots.txt that published studies use, both
//! computed from the model (no re-parsing):
//!
//! - [`ProbeClass`], the "Somesite I Used To Crawl" study's (IMC 2025): ask robots.cc
//!   about `/`, about every path named in an allow/disallow line (one trailing `$`
//!   dropped) and about a dummy path; `/` allowed and some probe disallowed is
//!   partial, none disallowed is none; `/` disallowed and some probe allowed is
//!   partial, otherwise full.
//! - [`RuleSetClass`], Common Crawl's robotstxt-experiments': the exact set of
//!   (directive, value) rules of the groups that apply to the agent (those naming
//!   it, else the `*` groups) compared with `{Disallow: /}` (disallow all) and the
//!   rule sets that allow everything.

use std::collections::HashMap;

use super::model::{RobotsTxt, Rule, RuleKind};
use super::url::UrlPath;

/// The dummy path the Somesite study adds to its probes, so that a file allowing
/// only `/$` is not read as allowing everything.
pub(crate) const DUMMY_PROBE_PATH: &[u8] = b"/dummy-testing-path-54321";

/// The Somesite study's full / partial / none reading of one agent's verdicts.
///
/// ```
/// use robots_census_engine::{ProbeClass, RobotsTxt};
///
/// let doc = RobotsTxt::parse(b"User-agent: *\nDisallow: /private\n\nUser-agent: GPTBot\nDisallow: /\n");
/// let probes = doc.probes();
/// // (whether `/` is allowed, the class)
/// assert_eq!(doc.probe_class(b"GPTBot", &probes), (false, ProbeClass::Full));
/// assert_eq!(doc.probe_class(b"Googlebot", &probes), (true, ProbeClass::Partial));
/// assert_eq!(ProbeClass::Partial.as_str(), "partial");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeClass {
    /// `/` is disallowed and so is every probe.
    Full,
    /// Some probe is answered otherwise than `/`.
    Partial,
    /// `/` is allowed and so is every probe.
    None,
}

impl ProbeClass {
    /// Every class, in the order the census numbers them.
    pub const ALL: [ProbeClass; 3] = [ProbeClass::Full, ProbeClass::Partial, ProbeClass::None];

    /// `full`, `partial` or `none`, as the tables write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeClass::Full => "full",
            ProbeClass::Partial => "partial",
            ProbeClass::None => "none",
        }
    }
}

/// Common Crawl's exact-rule-set class of one agent.
///
/// ```
/// use robots_census_engine::{RobotsTxt, RuleSetClass};
///
/// let doc = RobotsTxt::parse(b"User-agent: CCBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n");
/// assert_eq!(doc.rule_set_class(b"CCBot"), RuleSetClass::DisallowAll);
/// assert_eq!(doc.rule_set_class(b"GPTBot"), RuleSetClass::AllowAll);
/// assert_eq!(RobotsTxt::parse(b"").rule_set_class(b"x"), RuleSetClass::NotAddressed);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSetClass {
    /// The applicable rules are exactly `{Disallow: /}`.
    DisallowAll,
    /// Exactly one of `{Allow: /}`, `{Allow: *}`, `{Allow: /*}`, `{Allow: }`,
    /// `{Disallow: }`, or no rule at all in the applicable groups.
    AllowAll,
    /// Any other rule set.
    AllowPart,
    /// No group names the agent and there is no `*` group.
    NotAddressed,
}

impl RuleSetClass {
    /// Every class, in the order the census numbers them.
    pub const ALL: [RuleSetClass; 4] = [
        RuleSetClass::DisallowAll,
        RuleSetClass::AllowAll,
        RuleSetClass::AllowPart,
        RuleSetClass::NotAddressed,
    ];

    /// `disallow_all`, `allow_all`, `allow_part` or `not_addressed`, as the tables
    /// write it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleSetClass::DisallowAll => "disallow_all",
            RuleSetClass::AllowAll => "allow_all",
            RuleSetClass::AllowPart => "allow_part",
            RuleSetClass::NotAddressed => "not_addressed",
        }
    }
}

/// Values whose single rule, as an Allow, allows everything (Common Crawl's list).
const ALLOW_ALL_VALUES: [&[u8]; 4] = [b"/", b"*", b"/*", b""];

/// The probe path of a rule's `pattern`: one trailing `$` dropped, appended to a site
/// root (`http://h`, built in `scratch`) and reduced as robots.cc reduces URLs. `None`
/// when nothing is left.
fn probe_path<'s>(scratch: &'s mut Vec<u8>, pattern: &[u8]) -> Option<UrlPath<'s>> {
    let value = pattern.strip_suffix(b"$").unwrap_or(pattern);
    if value.is_empty() {
        return None;
    }
    scratch.clear();
    scratch.extend_from_slice(b"http://h");
    scratch.extend_from_slice(value);
    Some(UrlPath::new(scratch))
}

/// The probe paths of one document, built the first time an agent needs them:
/// most agents are decided without probing. The paths live in one buffer, each
/// distinct path once, in file order.
pub struct Probes<'d, 'a> {
    doc: &'d RobotsTxt<'a>,
    paths: std::cell::OnceCell<ProbePaths>,
}

/// Distinct probe paths other than `/`, packed in one buffer.
struct ProbePaths {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl ProbePaths {
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, &e)| &self.bytes[s..e])
    }
}

/// The kinds of the rules a probe path comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RuleKinds {
    pub allow: bool,
    pub disallow: bool,
}

impl RuleKinds {
    fn has(self, kind: RuleKind) -> bool {
        match kind {
            RuleKind::Allow => self.allow,
            RuleKind::Disallow => self.disallow,
        }
    }
}

/// The kind of rule whose paths may get the opposite of `/`'s verdict first: a
/// `Disallow` path is nearly always disallowed, an `Allow` path allowed.
fn reversing(root_allowed: bool) -> RuleKind {
    if root_allowed {
        RuleKind::Disallow
    } else {
        RuleKind::Allow
    }
}

/// The order in which to ask a list of probes whether any differs from `/`: the
/// paths of the rules that would reverse `/`'s verdict first (a `Disallow` path under
/// an allowed `/`, an `Allow` path under a disallowed one), then the others in file
/// order. The answer is the same in any order; this one usually finds a differing
/// probe first.
#[derive(Debug, Default)]
pub(crate) struct ProbeOrders {
    under_allowed_root: Vec<u32>,
    under_disallowed_root: Vec<u32>,
}

impl ProbeOrders {
    pub(crate) fn new(kinds: impl Iterator<Item = RuleKinds> + Clone) -> ProbeOrders {
        let order = |root_allowed: bool| {
            let kind = reversing(root_allowed);
            let indexed = kinds.clone().enumerate().map(|(i, k)| (i as u32, k));
            let first = indexed.clone().filter(|(_, k)| k.has(kind));
            let rest = indexed.filter(|(_, k)| !k.has(kind));
            first.chain(rest).map(|(i, _)| i).collect()
        };
        ProbeOrders {
            under_allowed_root: order(true),
            under_disallowed_root: order(false),
        }
    }

    /// The probes' indices, in the order to ask them when `/` is `root_allowed`.
    pub(crate) fn under(&self, root_allowed: bool) -> &[u32] {
        if root_allowed {
            &self.under_allowed_root
        } else {
            &self.under_disallowed_root
        }
    }
}

impl Probes<'_, '_> {
    fn paths(&self) -> &ProbePaths {
        self.paths.get_or_init(|| {
            let doc = self.doc;
            // The same path as `probe_paths` gives, without an allocation per rule:
            // each rule's URL is built in one scratch buffer and only its path kept.
            let mut scratch = Vec::new();
            let mut all = ProbePaths {
                bytes: Vec::new(),
                ends: Vec::with_capacity(doc.rules.len() + 1),
            };
            let mut push = |path: &[u8]| {
                if path != b"/" {
                    all.bytes.extend_from_slice(path);
                    all.ends.push(all.bytes.len());
                }
            };
            for rule in &doc.rules {
                if let Some(path) = probe_path(&mut scratch, &rule.pattern) {
                    push(path.as_bytes());
                }
            }
            push(DUMMY_PROBE_PATH);
            // One verdict per distinct path (repeated rules, the same list under
            // several user-agent groups, are common), in file order: the first
            // rules usually settle the class, and the search stops there.
            let mut seen = std::collections::HashSet::with_capacity(all.ends.len());
            let mut distinct = ProbePaths {
                bytes: Vec::with_capacity(all.bytes.len()),
                ends: Vec::with_capacity(all.ends.len()),
            };
            for path in all.iter() {
                if seen.insert(path) {
                    distinct.bytes.extend_from_slice(path);
                    distinct.ends.push(distinct.bytes.len());
                }
            }
            distinct
        })
    }
}

impl<'a> RobotsTxt<'a> {
    /// The probe paths of the Somesite reading, the same for every agent, built the
    /// first time [`RobotsTxt::probe_class`] needs them: `/`, then each distinct
    /// non-empty allow/disallow path in file order (one trailing `$` dropped), then a
    /// dummy path. Each path is appended to a site root (`http://h`) and reduced as
    /// robots.cc reduces URLs, as the study did.
    ///
    /// The path probed is the rule's pattern as robots.cc escapes it (bytes >= 0x80 as
    /// `%XX`, `%xx` upper-cased), i.e. the URL a crawler requests for that path:
    /// `Disallow: /café/` blocks `/caf%C3%A9/`. Probing the value as written would ask
    /// robots.cc about `/café/`, a URL no HTTP client sends and that no pattern of the
    /// file matches, and read a file that restricts a real path as unrestricted.
    pub fn probes(&self) -> Probes<'_, 'a> {
        Probes {
            doc: self,
            paths: std::cell::OnceCell::new(),
        }
    }

    /// Every path of [`RobotsTxt::probes`], `/` and the dummy path included, in order:
    /// the reference the tests hold the packed paths to.
    #[cfg(test)]
    pub(crate) fn probe_paths(&self) -> Vec<UrlPath<'static>> {
        self.probe_paths_of_kinds()
            .into_iter()
            .map(|(path, _)| path)
            .collect()
    }

    /// The paths of [`RobotsTxt::probes`], each with the kinds of the rules it comes
    /// from (`/` and the dummy path from none, unless a rule repeats them).
    fn probe_paths_of_kinds(&self) -> Vec<(UrlPath<'static>, RuleKinds)> {
        let mut all: Vec<(UrlPath<'static>, Option<RuleKind>)> =
            Vec::with_capacity(self.rules.len() + 2);
        all.push((UrlPath::new(b"/"), None));
        let mut scratch = Vec::new();
        for rule in &self.rules {
            if let Some(path) = probe_path(&mut scratch, &rule.pattern) {
                all.push((path.into_owned(), Some(rule.kind)));
            }
        }
        all.push((UrlPath::new(DUMMY_PROBE_PATH), None));
        // Each distinct path is kept where it first comes, with the kinds of all the
        // rules it comes from; the map borrows the paths instead of copying each.
        let mut kinds: Vec<Option<RuleKinds>> = vec![None; all.len()];
        let mut first: HashMap<&[u8], usize, rustc_hash::FxBuildHasher> =
            HashMap::with_capacity_and_hasher(all.len(), rustc_hash::FxBuildHasher);
        for (i, (path, kind)) in all.iter().enumerate() {
            let at = *first.entry(path.as_bytes()).or_insert(i);
            let of = kinds[at].get_or_insert_with(RuleKinds::default);
            match kind {
                Some(RuleKind::Allow) => of.allow = true,
                Some(RuleKind::Disallow) => of.disallow = true,
                None => {}
            }
        }
        drop(first);
        all.into_iter()
            .zip(kinds)
            .filter_map(|((path, _), kinds)| Some((path, kinds?)))
            .collect()
    }

    /// [`RobotsTxt::probe_paths`] but `/`, each as a URL on the site root `http://h`:
    /// the probes other readings than robots.cc's are asked about.
    #[cfg(test)]
    pub(crate) fn probe_urls(&self) -> impl Iterator<Item = Vec<u8>> {
        self.probe_urls_of_kinds().into_iter().map(|(url, _)| url)
    }

    /// The paths of [`RobotsTxt::probes`] but `/`, each as a URL on the site root
    /// `http://h` (the probes other readings than robots.cc's are asked about), with
    /// the kinds of the rules it comes from: the order in which a reading had best ask
    /// them (see [`ProbeOrders`]).
    pub(crate) fn probe_urls_of_kinds(&self) -> Vec<(Vec<u8>, RuleKinds)> {
        self.probe_paths_of_kinds()
            .into_iter()
            .filter(|(path, _)| path.as_bytes() != b"/")
            .map(|(path, kinds)| ([b"http://h", path.as_bytes()].concat(), kinds))
            .collect()
    }

    /// Whether robots.cc allows `/` for `agent`, and the Somesite class over
    /// `probes` (the paths are built on first use; `/` among them is skipped).
    pub fn probe_class(&self, agent: &[u8], probes: &Probes<'_, '_>) -> (bool, ProbeClass) {
        let Some(rules) = self.applicable_rules(agent) else {
            // No group applies: everything is allowed.
            return (true, ProbeClass::None);
        };
        // The verdicts below are robots.cc's over the rules that apply to the agent,
        // collected once instead of walking every group for every probe.
        let rules: Vec<&Rule<'a>> = rules.collect();
        let root = self.allowed_by(&rules, b"/");
        // Shortcuts that need no probe (most files): nothing can be disallowed without
        // a non-empty disallow rule; nothing is allowed when a disallow rule matches
        // every path (all probes start with '/') and no non-empty allow rule exists.
        let (mut allow, mut disallow, mut everything) = (false, false, false);
        for rule in rules.iter().filter(|r| !r.pattern.is_empty()) {
            match rule.kind {
                RuleKind::Allow => allow = true,
                RuleKind::Disallow => {
                    disallow = true;
                    everything |= matches!(&*rule.pattern, b"/" | b"*" | b"/*");
                }
            }
        }
        if root && !disallow {
            return (root, ProbeClass::None);
        }
        if !root && !allow && everything {
            return (root, ProbeClass::Full);
        }
        // The agent's own rules' paths are the likeliest to differ from `/`: they are
        // probed first, each reduced in one scratch buffer, and only when none
        // differs are the probes of the whole file built (once per document). Among
        // them, the rules of the kind that would reverse `/`'s verdict go first
        // ([`reversing`]), so under an allowed `/` the answer usually comes from the
        // first one (on `cc.warc.gz`, 2.8 probes of about 71 rules each per agent in
        // file order, 1.1 this way). Only the order of the search changes, never its
        // result.
        let flips = reversing(root);
        let likeliest = rules.iter().filter(|rule| rule.kind == flips);
        let others = rules.iter().filter(|rule| rule.kind != flips);
        let mut scratch = Vec::new();
        let own_differs = likeliest.chain(others).any(|rule| {
            probe_path(&mut scratch, &rule.pattern).is_some_and(|path| {
                path.as_bytes() != b"/" && self.allowed_by(&rules, path.as_bytes()) != root
            })
        });
        let differs = own_differs
            || probes
                .paths()
                .iter()
                .any(|path| self.allowed_by(&rules, path) != root);
        let class = match (root, differs) {
            (_, true) => ProbeClass::Partial,
            (true, false) => ProbeClass::None,
            (false, false) => ProbeClass::Full,
        };
        (root, class)
    }

    /// The rules of the groups robots.cc applies to `agent`: those naming it
    /// (merged), else the `*` groups; `None` when no group applies.
    fn applicable_rules<'s>(
        &'s self,
        agent: &'s [u8],
    ) -> Option<impl Iterator<Item = &'s Rule<'a>> + 's> {
        let named = self.names_agent(agent);
        if !named && !self.has_star_group() {
            return None;
        }
        Some(
            self.groups_for(agent, named)
                .flat_map(|g| self.group_rules(g)),
        )
    }

    /// Common Crawl's exact-rule-set class of `agent`, over the groups robots.cc
    /// applies to it (groups naming it, merged; else the `*` groups). Repeated rules
    /// count once: the rule set is a set.
    pub fn rule_set_class(&self, agent: &[u8]) -> RuleSetClass {
        let Some(mut applicable) = self.applicable_rules(agent) else {
            return RuleSetClass::NotAddressed;
        };
        // Every class but allow_part is a set of at most one rule: the first rule
        // decides, unless another differs from it.
        let Some(first) = applicable.next() else {
            return RuleSetClass::AllowAll;
        };
        let only = (first.kind, first.value);
        if applicable.any(|r| (r.kind, r.value) != only) {
            return RuleSetClass::AllowPart;
        }
        match only {
            (RuleKind::Disallow, b"/") => RuleSetClass::DisallowAll,
            (RuleKind::Disallow, b"") => RuleSetClass::AllowAll,
            (RuleKind::Allow, v) if ALLOW_ALL_VALUES.contains(&v) => RuleSetClass::AllowAll,
            _ => RuleSetClass::AllowPart,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(body: &str, agent: &str) -> (bool, ProbeClass) {
        let doc = RobotsTxt::parse(body.as_bytes());
        doc.probe_class(agent.as_bytes(), &doc.probes())
    }

    #[test]
    fn probes_that_would_reverse_the_root_come_first() {
        let doc = RobotsTxt::parse(
            b"User-agent: *\nAllow: /a\nDisallow: /d\nAllow: /b\nDisallow: /a\nDisallow: /\n",
        );
        let probes = doc.probe_urls_of_kinds();
        let kinds = |allow, disallow| RuleKinds { allow, disallow };
        let expected: Vec<(Vec<u8>, RuleKinds)> = vec![
            (b"http://h/a".to_vec(), kinds(true, true)),
            (b"http://h/d".to_vec(), kinds(false, true)),
            (b"http://h/b".to_vec(), kinds(true, false)),
            (
                [b"http://h", DUMMY_PROBE_PATH].concat(),
                kinds(false, false),
            ),
        ];
        assert_eq!(probes, expected);
        let orders = ProbeOrders::new(probes.iter().map(|(_, k)| *k));
        assert_eq!(orders.under(true), [0, 1, 2, 3]);
        assert_eq!(orders.under(false), [0, 2, 1, 3]);
    }

    /// The Somesite class by its definition: every probe of the file asked through
    /// robots.cc's whole verdict, no shortcut and no order.
    fn probe_by_definition(doc: &RobotsTxt<'_>, agent: &[u8]) -> (bool, ProbeClass) {
        let root = doc.verdict(agent, b"http://h/").allowed;
        let differs = doc
            .probe_paths()
            .iter()
            .any(|path| doc.verdict_for_path(agent, path).allowed != root);
        let class = match (root, differs) {
            (_, true) => ProbeClass::Partial,
            (true, false) => ProbeClass::None,
            (false, false) => ProbeClass::Full,
        };
        (root, class)
    }

    /// A body of groups and rules from generated (kind, path) pairs: paths that repeat,
    /// with and without `*` and `$`, `/` itself, and several groups.
    fn generated_body(lines: &[(u8, u8)]) -> String {
        let mut body = String::new();
        for (kind, path) in lines {
            let line = match kind {
                0 => format!("Allow: /p{path}\n"),
                1 => format!("Disallow: /p{path}\n"),
                2 => format!("Disallow: /p{}*\n", path % 3),
                3 => ["Disallow: /\n", "Allow: /\n", "Allow: /*$\n", "Disallow:\n"]
                    [usize::from(path % 4)]
                .to_string(),
                4 => format!("Allow: /p{}$\n", path % 3),
                _ => ["User-agent: *\n", "User-agent: a\n", "User-agent: b\n"]
                    [usize::from(path % 3)]
                .to_string(),
            };
            body.push_str(&line);
        }
        body
    }

    /// `probe_paths_of_kinds` as first written, a copy of each path as the map's key:
    /// what the borrowing version is held to.
    fn probe_paths_of_kinds_by_copies(doc: &RobotsTxt<'_>) -> Vec<(UrlPath<'static>, RuleKinds)> {
        let mut seen = std::collections::HashMap::new();
        let mut probes: Vec<(UrlPath<'static>, RuleKinds)> = Vec::new();
        let mut push = |path: UrlPath<'static>, kind: Option<RuleKind>| {
            let at = *seen.entry(path.as_bytes().to_vec()).or_insert_with(|| {
                probes.push((path, RuleKinds::default()));
                probes.len() - 1
            });
            match kind {
                Some(RuleKind::Allow) => probes[at].1.allow = true,
                Some(RuleKind::Disallow) => probes[at].1.disallow = true,
                None => {}
            }
        };
        push(UrlPath::new(b"/"), None);
        let mut scratch = Vec::new();
        for rule in &doc.rules {
            if let Some(path) = probe_path(&mut scratch, &rule.pattern) {
                push(path.into_owned(), Some(rule.kind));
            }
        }
        push(UrlPath::new(DUMMY_PROBE_PATH), None);
        probes
    }

    proptest::proptest! {
        #[test]
        fn probe_paths_of_kinds_are_those_of_the_copying_version(
            lines in proptest::collection::vec((0..6u8, 0..8u8), 0..40),
        ) {
            let body = generated_body(&lines);
            let doc = RobotsTxt::parse(body.as_bytes());
            proptest::prop_assert_eq!(
                doc.probe_paths_of_kinds(),
                probe_paths_of_kinds_by_copies(&doc)
            );
        }
    }

    proptest::proptest! {
        /// The shortcuts and the order in which `probe_class` searches (the agent's own
        /// rules first, those that would reverse `/` before the others) give the class
        /// of probing every path of the file.
        #[test]
        fn probe_class_is_the_class_of_every_probe(
            lines in proptest::collection::vec((0..6u8, 0..8u8), 0..40),
        ) {
            let body = generated_body(&lines);
            let doc = RobotsTxt::parse(body.as_bytes());
            let probes = doc.probes();
            for agent in [&b"a"[..], b"b", b"c"] {
                proptest::prop_assert_eq!(
                    doc.probe_class(agent, &probes),
                    probe_by_definition(&doc, agent),
                    "agent {:?} of {:?}", String::from_utf8_lossy(agent), body
                );
            }
        }
    }

    #[test]
    fn somesite_probe_classes() {
        let all = "User-agent: GPTBot\nDisallow: /\n";
        assert_eq!(probe(all, "GPTBot"), (false, ProbeClass::Full));
        assert_eq!(probe(all, "CCBot"), (true, ProbeClass::None));
        let except = "User-agent: *\nDisallow: /\nAllow: /public\n";
        assert_eq!(probe(except, "GPTBot"), (false, ProbeClass::Partial));
        let part = "User-agent: *\nDisallow: /private/\n";
        assert_eq!(probe(part, "GPTBot"), (true, ProbeClass::Partial));
        // Allow wins the tie: nothing is disallowed for a probe.
        let tie = "User-agent: *\nDisallow: /x\nAllow: /x\n";
        assert_eq!(probe(tie, "GPTBot"), (true, ProbeClass::None));
        // Only `/$` allowed: the dummy path shows the rest is disallowed.
        let root_only = "User-agent: *\nAllow: /$\nDisallow: /\n";
        assert_eq!(probe(root_only, "GPTBot"), (true, ProbeClass::Partial));
        // No group applies: nothing is restricted.
        assert_eq!(
            probe("User-agent: CCBot\nDisallow: /\n", "GPTBot"),
            (true, ProbeClass::None)
        );
    }

    #[test]
    fn probes_are_the_escaped_paths_crawlers_request() {
        // robots.cc escapes the pattern to /caf%C3%A9/ and matches URLs as written:
        // `/café/` itself is allowed, the URL a crawler sends is not.
        let body = "User-agent: *\nDisallow: /café/\nDisallow: /a%2fb\n";
        let doc = RobotsTxt::parse(body.as_bytes());
        let paths: Vec<Vec<u8>> = doc
            .probe_paths()
            .iter()
            .map(|p| p.as_bytes().to_vec())
            .collect();
        let want: Vec<&[u8]> = vec![b"/", b"/caf%C3%A9/", b"/a%2Fb", DUMMY_PROBE_PATH];
        assert_eq!(paths, want);
        assert_eq!(probe(body, "GPTBot"), (true, ProbeClass::Partial));
    }

    #[test]
    fn packed_probes_are_probe_paths_without_the_root() {
        for body in [
            "User-agent: *\nDisallow: /a$\nAllow: /caf\u{e9}/\nDisallow: /a\nDisallow: *.php\n",
            "User-agent: x\nDisallow: /p?q\nUser-agent: y\nDisallow: /p?q\nDisallow: /\nAllow: $\n",
            "User-agent: *\nDisallow:\n",
            "Disallow: /before-any-group\nUser-agent: *\nDisallow: //x\nDisallow: /x#y\n",
        ] {
            let doc = RobotsTxt::parse(body.as_bytes());
            let probes = doc.probes();
            let packed: Vec<&[u8]> = probes.paths().iter().collect();
            let want: Vec<Vec<u8>> = doc
                .probe_paths()
                .iter()
                .map(|p| p.as_bytes().to_vec())
                .filter(|p| p != b"/")
                .collect();
            assert_eq!(packed, want, "{body:?}");
        }
    }

    #[test]
    fn probe_paths_drop_one_dollar_and_repeat_nothing() {
        let doc = RobotsTxt::parse(
            b"Disallow: /early\nUser-agent: *\nDisallow: /a$\nAllow: /a\nDisallow:\nDisallow: *.pdf\n",
        );
        let paths: Vec<Vec<u8>> = doc
            .probe_paths()
            .iter()
            .map(|p| p.as_bytes().to_vec())
            .collect();
        // `*.pdf` has no leading '/': appended to the root it is part of the host, so `/`.
        let want: Vec<&[u8]> = vec![b"/", b"/early", b"/a", DUMMY_PROBE_PATH];
        assert_eq!(paths, want);
    }

    #[test]
    fn common_crawl_rule_set_classes() {
        let class = |body: &str, agent: &str| {
            RobotsTxt::parse(body.as_bytes()).rule_set_class(agent.as_bytes())
        };
        assert_eq!(
            class("User-agent: GPTBot\nDisallow: /\n", "GPTBot"),
            RuleSetClass::DisallowAll
        );
        assert_eq!(
            class("User-agent: GPTBot\nDisallow: /\nDisallow: /\n", "GPTBot"),
            RuleSetClass::DisallowAll
        );
        assert_eq!(
            class("User-agent: GPTBot\nDisallow: /\nAllow: /a\n", "GPTBot"),
            RuleSetClass::AllowPart
        );
        for allow in ["Allow: /", "Allow: *", "Allow: /*", "Allow:", "Disallow:"] {
            let body = format!("User-agent: GPTBot\n{allow}\n");
            assert_eq!(class(&body, "GPTBot"), RuleSetClass::AllowAll, "{allow}");
        }
        assert_eq!(
            class("User-agent: *\nDisallow: /\n", "GPTBot"),
            RuleSetClass::DisallowAll
        );
        assert_eq!(
            class("User-agent: CCBot\nDisallow: /\n", "GPTBot"),
            RuleSetClass::NotAddressed
        );
        // A named group hides `*`, even an empty one...
        assert_eq!(
            class(
                "User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\n",
                "GPTBot"
            ),
            RuleSetClass::AllowAll
        );
        // ... but a crawl-delay does not end a run of user-agent lines: one group.
        assert_eq!(
            class(
                "User-agent: GPTBot\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /\n",
                "GPTBot"
            ),
            RuleSetClass::DisallowAll
        );
        // Groups naming the agent merge.
        assert_eq!(
            class(
                "User-agent: GPTBot\nDisallow: /\n\nUser-agent: GPTBot\nAllow: /x\n",
                "GPTBot"
            ),
            RuleSetClass::AllowPart
        );
    }
}
