//! What a crawler family is to [`Interpretations`](super::Interpretations): the
//! [`Family`] trait each family implements once, in its own module, and the
//! per-document [`Reading`] that builds a family's parse on its first question and
//! keeps its probe paths.
//!
//! [`Interpretations`](super::Interpretations) asks every family the same questions
//! through [`Ask`], one `dyn` call away; the list of families (`families!` in
//! `mod.rs`) is the only place that names them all.

use std::cell::OnceCell;

use super::common::Answer;
use crate::model::RobotsTxt;

/// The document every family reads: the body, and Google's model of it.
#[derive(Clone, Copy)]
pub(crate) struct Document<'d, 'a> {
    pub(crate) body: &'a [u8],
    pub(crate) google: &'d RobotsTxt<'a>,
}

/// What a family's answers for an agent depend on besides the path (the group, entry or
/// rule set chosen for it, by address or index): equal selections, equal answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Selection {
    One(usize),
    Several(Vec<usize>),
}

/// One crawler family's reading of robots.txt: its parse of a document and the answers
/// it gives from it. Families that read the Google model build nothing of their own.
pub(crate) trait Family: Sized {
    /// The profile's name on the command line, in tables and in JSON.
    const NAME: &'static str;
    /// What the family does that robots.cc does not, in a few words (the audit's "why").
    const HOW_IT_DIFFERS: &'static str;
    /// Whether the family reads `Crawl-delay` at all. When not, its crawl-delay is
    /// `None` and blocks nothing, without building its parse.
    const READS_CRAWL_DELAY: bool = false;
    /// A probe URL as the family compares it with its rules (quoted, decoded, cut):
    /// the same for every agent, so computed once per document.
    type Path;

    /// The family's parse of `doc`, built on its first question about the document.
    fn read(doc: Document<'_, '_>) -> Self;

    /// May `agent` fetch `url` (absolute, as crawled)?
    fn answer(&self, doc: Document<'_, '_>, agent: &str, url: &str) -> Answer;

    /// The crawl-delay (seconds) the family applies to `agent` (asked only when
    /// [`Family::READS_CRAWL_DELAY`]).
    fn crawl_delay(&self, _doc: Document<'_, '_>, _agent: &str) -> Option<f64> {
        None
    }

    /// Whether the family's crawl-delay rule keeps `agent` off the site whatever the
    /// rules say (asked only when [`Family::READS_CRAWL_DELAY`]).
    fn crawl_delay_blocks(&self, _agent: &str) -> bool {
        false
    }

    /// Whether the family reads groups for `agent` that name another agent (a
    /// fallback), or skips `*` for it: a rule of its own for that agent.
    fn has_own_rules(_agent: &str) -> bool {
        false
    }

    /// Whether the family's verdicts for `agent` are robots.cc's by construction, so a
    /// caller may reuse Google's answers.
    fn reads_as_google(_agent: &str) -> bool {
        false
    }

    /// What the family's answers for `agent` depend on besides the URL; `None` when
    /// they also depend on the agent's name itself, and are not shared.
    fn selection(&self, doc: Document<'_, '_>, agent: &str) -> Option<Selection>;

    /// `url` as the family compares it with its rules.
    fn request_path(&self, url: &str) -> Self::Path;

    /// [`Family::answer`]'s `allowed` for every path of `paths`
    /// ([`Family::request_path`]s), the groups chosen once for `agent`.
    fn allowed_paths<'p>(
        &'p self,
        doc: Document<'p, '_>,
        agent: &'p str,
        paths: impl Iterator<Item = &'p Self::Path> + 'p,
    ) -> impl Iterator<Item = bool> + 'p;
}

/// One family's probe paths in one document, a cell per probe URL: a probing stops at
/// the first path whose answer differs from `/`'s, most often the first asked
/// (`ProbeOrders`), so most paths of a long file are never normalised.
type Lazily<T> = OnceCell<Vec<OnceCell<T>>>;

/// One family's reading of one document: its parse, built on the first question, and
/// the probe URLs as it compares them, each built on the first probe that asks it.
pub(crate) struct Reading<F: Family> {
    family: OnceCell<F>,
    paths: Lazily<F::Path>,
}

impl<F: Family> Default for Reading<F> {
    fn default() -> Self {
        Reading {
            family: OnceCell::new(),
            paths: OnceCell::new(),
        }
    }
}

impl<F: Family> Reading<F> {
    fn family(&self, doc: Document<'_, '_>) -> &F {
        self.family.get_or_init(|| F::read(doc))
    }
}

/// The questions [`Interpretations`](super::Interpretations) asks a [`Reading`],
/// whatever its family.
pub(crate) trait Ask {
    /// [`Family::answer`].
    fn answer(&self, doc: Document<'_, '_>, agent: &str, url: &str) -> Answer;
    /// [`Family::crawl_delay`], or `None` for a family that ignores the directive.
    fn crawl_delay(&self, doc: Document<'_, '_>, agent: &str) -> Option<f64>;
    /// [`Family::crawl_delay_blocks`], or `false` for a family that ignores crawl-delay.
    fn crawl_delay_blocks(&self, doc: Document<'_, '_>, agent: &str) -> bool;
    /// [`Family::selection`].
    fn selection(&self, doc: Document<'_, '_>, agent: &str) -> Option<Selection>;
    /// Whether some URL of `urls`, asked in `order`, is answered for `agent` otherwise
    /// than `root_allowed`.
    fn any_differs(
        &self,
        doc: Document<'_, '_>,
        agent: &str,
        urls: &[String],
        order: &[u32],
        root_allowed: bool,
    ) -> bool;
}

impl<F: Family> Ask for Reading<F> {
    fn answer(&self, doc: Document<'_, '_>, agent: &str, url: &str) -> Answer {
        self.family(doc).answer(doc, agent, url)
    }

    fn crawl_delay(&self, doc: Document<'_, '_>, agent: &str) -> Option<f64> {
        if !F::READS_CRAWL_DELAY {
            return None;
        }
        self.family(doc).crawl_delay(doc, agent)
    }

    fn crawl_delay_blocks(&self, doc: Document<'_, '_>, agent: &str) -> bool {
        F::READS_CRAWL_DELAY && self.family(doc).crawl_delay_blocks(agent)
    }

    fn selection(&self, doc: Document<'_, '_>, agent: &str) -> Option<Selection> {
        self.family(doc).selection(doc, agent)
    }

    fn any_differs(
        &self,
        doc: Document<'_, '_>,
        agent: &str,
        urls: &[String],
        order: &[u32],
        root_allowed: bool,
    ) -> bool {
        let family = self.family(doc);
        // Each probe URL is normalised once per document as the family does, kept for
        // the other agents.
        let cells = self
            .paths
            .get_or_init(|| urls.iter().map(|_| OnceCell::new()).collect());
        let paths = order.iter().map(|&i| {
            let i = i as usize;
            cells[i].get_or_init(|| family.request_path(&urls[i]))
        });
        family
            .allowed_paths(doc, agent, paths)
            .any(|allowed| allowed != root_allowed)
    }
}
