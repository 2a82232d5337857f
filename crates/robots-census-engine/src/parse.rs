//! The single pass: lines from the tokenizer in, a [`RobotsTxt`] model out.
//!
//! Group formation follows robots.cc's matcher state: a user-agent line opens a
//! new group only after a rule line (sitemap, unknown keys and crawl-delay do not
//! close a run of user-agent lines); rules before any user-agent line belong to no
//! group. Lint checks run on each line as it passes, and on each group at the end.

use crate::limits::{MAX_FINDINGS_PER_CODE, ROBOTS_PARSE_CAP};

use super::agent;
use super::lint::{self, Code, Finding};
use super::model::{
    AgentLine, BodyFacts, Group, LineCounts, Other, OtherKey, RobotsTxt, Rule, RuleKind, Sitemap,
};
use super::pattern::PatternKind;
use super::signals::{is_tdm_reservation, Marker, Signal, SignalKind};
use super::tokenize::{bom_len, Directive, Key, KeySpelling, Line, LineKind, Lines};

impl<'a> RobotsTxt<'a> {
    /// Parses `body` as Google does: only its first 512,000 bytes (cut even
    /// mid-line), then robots.cc's lexing, grouping and escaping. Never fails.
    pub fn parse(body: &'a [u8]) -> RobotsTxt<'a> {
        let parsed = &body[..body.len().min(ROBOTS_PARSE_CAP)];
        // The body's facts: a UTF-8 check, a NUL search and an HTML sniff of `parsed`.
        count_work!(parsed.len());
        let mut builder = Builder::new(body, parsed);
        for line in Lines::new(parsed) {
            builder.line(line);
        }
        builder.finish()
    }
}

struct Builder<'a> {
    doc: RobotsTxt<'a>,
    /// robots.cc's `seen_separator_`: a rule followed the current group's agents.
    after_rule: bool,
    /// Inside Cloudflare's managed block (after its BEGIN comment, before its END).
    in_cloudflare_block: bool,
    codes: Vec<Code>,
    /// Findings kept per code, indexed by the code's discriminant.
    per_code: [u16; Code::COUNT],
}

fn body_facts<'a>(body: &[u8], parsed: &'a [u8]) -> (BodyFacts, Option<&'a str>) {
    let utf8 = std::str::from_utf8(parsed);
    // At the 512,000-byte cut a character may straddle the cut: the parsed bytes then end
    // in an incomplete sequence (no invalid byte), which says nothing against the body.
    let cut = body.len() > parsed.len();
    let valid_utf8 = match &utf8 {
        Ok(_) => true,
        Err(e) => cut && e.error_len().is_none(),
    };
    let text = utf8.ok();
    let facts = BodyFacts {
        body_len: body.len(),
        parsed_len: parsed.len(),
        cut_at_cap: body.len() > parsed.len(),
        utf8_bom: bom_len(parsed) == 3,
        utf16_bom: parsed.starts_with(&[0xFF, 0xFE]) || parsed.starts_with(&[0xFE, 0xFF]),
        valid_utf8,
        has_nul: memchr::memchr(0, parsed).is_some(),
        looks_like_html: lint::looks_like_html(parsed),
    };
    (facts, text)
}

impl<'a> Builder<'a> {
    fn new(body: &'a [u8], parsed: &'a [u8]) -> Self {
        let (facts, text) = body_facts(body, parsed);
        let doc = RobotsTxt {
            facts,
            text,
            lines: LineCounts::default(),
            groups: Vec::new(),
            agents: Vec::new(),
            rules: Vec::new(),
            sitemaps: Vec::new(),
            others: Vec::new(),
            signals: Vec::new(),
            findings: Vec::new(),
        };
        let mut builder = Builder {
            doc,
            after_rule: false,
            in_cloudflare_block: false,
            codes: Vec::new(),
            per_code: [0; Code::COUNT],
        };
        builder.body_findings(parsed);
        builder
    }

    fn body_findings(&mut self, parsed: &'a [u8]) {
        let facts = self.doc.facts;
        let excerpt = &parsed[..parsed.len().min(crate::limits::EXCERPT_LEN)];
        let checks = [
            (facts.cut_at_cap, Code::BodyOver500Kib),
            (facts.utf16_bom, Code::Utf16Body),
            (facts.looks_like_html, Code::HtmlBody),
            (facts.utf8_bom, Code::Utf8Bom),
        ];
        for (hit, code) in checks {
            if hit {
                self.push(0, code, excerpt);
            }
        }
    }

    fn push(&mut self, line: u32, code: Code, excerpt: &'a [u8]) {
        let seen = &mut self.per_code[code as usize];
        if usize::from(*seen) < MAX_FINDINGS_PER_CODE {
            *seen += 1;
            self.doc.findings.push(Finding {
                line,
                code,
                excerpt,
            });
        }
    }

    fn line(&mut self, line: Line<'a>) {
        count_work!(1);
        self.doc.lines.lines = line.number;
        self.line_findings(&line);
        if line.has_comment {
            self.comment(line.number, line.comment);
        }
        let counts = &mut self.doc.lines;
        match line.kind {
            LineKind::Empty => counts.empty += 1,
            LineKind::Comment => counts.comment += 1,
            LineKind::Unparsed => {
                counts.unparsed += 1;
                self.push(line.number, Code::UnparsedLine, line.text);
            }
            LineKind::Directive(ref d) => {
                counts.directive += 1;
                self.directive(line.number, line.text, d);
            }
        }
    }

    fn line_findings(&mut self, line: &Line<'a>) {
        if line.too_long {
            self.push(line.number, Code::LineTooLong, line.text);
        }
        if line.has_nul {
            self.push(line.number, Code::NulByte, line.text);
        }
        if self.doc.text.is_none() && std::str::from_utf8(line.text).is_err() {
            self.push(line.number, Code::InvalidUtf8, line.text);
        }
    }

    fn directive(&mut self, number: u32, text: &'a [u8], d: &Directive<'a>) {
        let mut codes = std::mem::take(&mut self.codes);
        codes.clear();
        if d.missing_colon {
            codes.push(Code::MissingColon);
        }
        match d.spelling {
            KeySpelling::Exact => {}
            KeySpelling::AcceptedTypo => codes.push(Code::MisspelledKey),
            KeySpelling::Prefix => codes.push(Code::KeyPrefixOnly),
        }
        match d.key {
            Key::UserAgent => self.user_agent(number, text, d.value, &mut codes),
            Key::Allow => self.rule(number, text, RuleKind::Allow, d, &mut codes),
            Key::Disallow => self.rule(number, text, RuleKind::Disallow, d, &mut codes),
            Key::Sitemap => {
                let is_absolute = lint::is_absolute_sitemap_url(d.value);
                if !is_absolute {
                    codes.push(Code::SitemapNotAbsolute);
                }
                self.doc.sitemaps.push(Sitemap {
                    line: number,
                    url: d.value,
                    is_absolute,
                });
            }
            Key::Unknown => self.other(number, d, &mut codes),
        }
        for code in codes.drain(..) {
            self.push(number, code, text);
        }
        self.codes = codes;
    }

    /// The group open at the current line, if any.
    fn open_group(&self) -> Option<u32> {
        self.doc.groups.len().checked_sub(1).map(|g| g as u32)
    }

    /// A comment: Cloudflare's markers, or a text-and-data-mining reservation.
    fn comment(&mut self, number: u32, text: &'a [u8]) {
        let kind = match Marker::of(text) {
            Some(Marker::Begin) => {
                self.in_cloudflare_block = true;
                SignalKind::CloudflareManaged
            }
            Some(Marker::End) => {
                self.in_cloudflare_block = false;
                return;
            }
            None if is_tdm_reservation(text) => SignalKind::TdmComment,
            None => return,
        };
        let group = self.open_group();
        let signal = Signal::comment(number, kind, group, text, self.in_cloudflare_block);
        self.doc.signals.push(signal);
    }

    /// A signal directive: its row, and its problems as findings.
    fn signal(&mut self, number: u32, kind: SignalKind, value: &'a [u8], codes: &mut Vec<Code>) {
        let group = self.open_group();
        let signal = Signal::directive(number, kind, group, value, self.in_cloudflare_block);
        codes.extend(signal.problems.iter().map(|p| p.code()));
        self.doc.signals.push(signal);
    }

    fn user_agent(&mut self, number: u32, text: &'a [u8], value: &'a [u8], codes: &mut Vec<Code>) {
        if self.after_rule || self.doc.groups.is_empty() {
            let (agents, rules) = (self.doc.agents.len(), self.doc.rules.len());
            self.doc.groups.push(Group {
                first_line: number,
                last_line: number,
                agents: agents..agents,
                rules: rules..rules,
                has_star: false,
                crawl_delay: None,
            });
            self.after_rule = false;
        }
        lint::check_user_agent(value, codes);
        let is_star = agent::is_star(value);
        let group_index = self.doc.groups.len() - 1;
        let token = if is_star {
            &value[..0]
        } else {
            agent::product_token(value)
        };
        self.doc.agents.push(AgentLine {
            line: number,
            text,
            value,
            token,
            is_star,
            group: group_index as u32,
        });
        if let Some(group) = self.doc.groups.last_mut() {
            group.agents.end += 1;
            group.has_star |= is_star;
            group.last_line = number;
        }
    }

    fn rule(
        &mut self,
        number: u32,
        text: &'a [u8],
        kind: RuleKind,
        d: &Directive<'a>,
        codes: &mut Vec<Code>,
    ) {
        lint::check_pattern(d.value, codes);
        let group = self.open_group();
        if group.is_none() {
            codes.push(Code::RuleOutsideGroup);
        }
        // draft-canel-robots-ai-control's key starts with `Disallow`, and robots.cc
        // matches keys by prefix: Google reads the line as a Disallow rule.
        if d.spelling == KeySpelling::Prefix
            && SignalKind::of_key(d.key_text) == Some(SignalKind::DisallowAiTraining)
        {
            codes.push(Code::DisallowAiTrainingIsDisallow);
            self.signal(number, SignalKind::DisallowAiTraining, d.value, codes);
        }
        let index_prefix = match kind {
            RuleKind::Allow => index_htm_prefix(&d.pattern),
            RuleKind::Disallow => None,
        };
        self.doc.rules.push(Rule {
            line: number,
            text,
            kind,
            group,
            value: d.value,
            pattern_kind: PatternKind::of(&d.pattern),
            pattern: d.pattern.clone(),
            index_prefix,
        });
        if let Some(g) = self.doc.groups.last_mut() {
            g.rules.end = self.doc.rules.len();
            g.last_line = number;
            self.after_rule = true;
        }
    }

    fn other(&mut self, number: u32, d: &Directive<'a>, codes: &mut Vec<Code>) {
        let key = OtherKey::of(d.key_text);
        codes.push(if key == OtherKey::Unknown {
            Code::UnknownKey
        } else {
            Code::IgnoredDirective
        });
        let group = self.open_group();
        if let Some(kind) = SignalKind::of_key(d.key_text) {
            self.signal(number, kind, d.value, codes);
        }
        if key == OtherKey::CrawlDelay {
            match lint::parse_crawl_delay(d.value) {
                Some(seconds) => {
                    if let Some(g) = self.doc.groups.last_mut() {
                        g.crawl_delay.get_or_insert(seconds);
                    }
                }
                None => codes.push(Code::CrawlDelayNotNumber),
            }
        }
        if let Some(g) = self.doc.groups.last_mut() {
            g.last_line = number;
        }
        self.doc.others.push(Other {
            line: number,
            key,
            key_text: d.key_text,
            value: d.value,
            group,
        });
    }

    fn finish(mut self) -> RobotsTxt<'a> {
        if self.doc.text.is_none()
            && !self
                .doc
                .findings
                .iter()
                .any(|f| f.code == Code::InvalidUtf8)
        {
            // The invalid bytes sit where no line keeps them (after a NUL or the line cut).
            let excerpt = &[][..];
            self.push(0, Code::InvalidUtf8, excerpt);
        }
        self.group_findings();
        self.doc.findings.sort_by_key(|f| f.line);
        self.doc
    }

    fn group_findings(&mut self) {
        let mut found = Vec::new();
        let mut star_groups = self.doc.groups.iter().filter(|g| g.has_star);
        if let (Some(_), Some(second)) = (star_groups.next(), star_groups.next()) {
            let line = self
                .doc
                .group_agents(second)
                .iter()
                .find(|a| a.is_star)
                .map_or(second.first_line, |a| a.line);
            found.push((line, Code::MultipleStarGroups));
        }
        let mut hashed = Vec::new();
        for group in &self.doc.groups {
            lint::check_group(group, self.doc.group_rules(group), &mut hashed, &mut found);
        }
        for (line, code) in found {
            let excerpt = self.line_text(line);
            self.push(line, code, excerpt);
        }
    }

    /// The text of a user-agent or rule line, for group-level findings. Both lists
    /// are in line order, so this is a binary search.
    fn line_text(&self, line: u32) -> &'a [u8] {
        let (rules, agents) = (&self.doc.rules, &self.doc.agents);
        let rule = rules
            .binary_search_by_key(&line, |r| r.line)
            .ok()
            .map(|i| rules[i].text);
        let agent = || {
            agents
                .binary_search_by_key(&line, |a| a.line)
                .ok()
                .map(|i| agents[i].text)
        };
        rule.or_else(agent).unwrap_or_default()
    }
}

/// robots.cc's index.htm rule: an Allow whose last '/'-segment starts with
/// `index.htm` also allows the directory (`prefix$`). Returns the prefix length.
fn index_htm_prefix(pattern: &[u8]) -> Option<usize> {
    let slash = memchr::memrchr(b'/', pattern)?;
    pattern[slash..]
        .starts_with(b"/index.htm")
        .then_some(slash + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::ROBOTS_PARSE_CAP;

    #[test]
    fn a_character_straddling_the_cut_keeps_the_body_valid_utf8() {
        // Issue 22: 'é' (2 bytes) starting at byte 511,999 was cut in two and the body
        // counted as not UTF-8.
        let mut body = b"User-agent: *\n# ".to_vec();
        body.resize(ROBOTS_PARSE_CAP - 1, b'x');
        body.extend_from_slice("é\n".as_bytes());
        let doc = RobotsTxt::parse(&body);
        assert!(doc.facts.cut_at_cap);
        assert!(doc.facts.valid_utf8);
        // An invalid byte before the cut still counts.
        body[20] = 0xff;
        assert!(!RobotsTxt::parse(&body).facts.valid_utf8);
        // And an incomplete character at the end of an uncut body is invalid.
        assert!(!RobotsTxt::parse(b"Disallow: /\xc3").facts.valid_utf8);
    }
}
