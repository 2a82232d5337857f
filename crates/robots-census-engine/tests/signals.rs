//! The AI-use signals against their specifications' own examples, each test citing
//! the section it reads:
//!
//! - draft-ietf-aipref-vocab and draft-ietf-aipref-attach as of ietf-wg-aipref/drafts
//!   commit 7ca0afc (tags draft-ietf-aipref-vocab-07 and draft-ietf-aipref-attach-05);
//!   earlier tags for the legacy labels;
//! - Cloudflare's Content Signals Policy (contentsignals.org, the policy comment quoted in
//!   google/robotstxt issue #80), its managed robots.txt (Cloudflare's docs page
//!   "Managed robots.txt", cloudflare-docs PR #26230) and `use=` (cloudflare-docs PR
//!   #31794, changelog 2026-08-31);
//!
//! then a generated test of the effective preferences against a reference written here.

use robots_census_engine::{
    license_target, Code, Labels, Pref, Problem, RobotsTxt, Signal, SignalKind, UrlPath, Usage,
    UseLevel,
};

/// The one signal of a file holding a single `Content-Usage` line in a `*` group.
fn usage_line(value: &str) -> Signal<'static> {
    let body = format!("User-agent: *\nContent-Usage: {value}\n");
    let body: &'static [u8] = Box::leak(body.into_bytes().into_boxed_slice());
    let doc = RobotsTxt::parse(body);
    assert_eq!(doc.signals.len(), 1, "{value}");
    doc.signals.into_iter().next().expect("one signal")
}

fn usage(value: &str) -> (Option<Pref>, Option<Pref>) {
    let u = usage_line(value).usage;
    (u.train_ai, u.search)
}

const Y: Option<Pref> = Some(Pref::Allow);
const N: Option<Pref> = Some(Pref::Disallow);

fn at(doc: &RobotsTxt<'_>, agent: &str, path: &str) -> Usage {
    doc.usage_for(agent.as_bytes(), &UrlPath::new(path.as_bytes()))
}

fn codes(body: &[u8]) -> Vec<(u32, Code)> {
    RobotsTxt::parse(body)
        .findings
        .iter()
        .map(|f| (f.line, f.code))
        .collect()
}

// ---- draft-ietf-aipref-vocab ------------------------------------------------------

#[test]
fn vocab_6_example_allows_training_and_disallows_search() {
    // §6 "Exemplary Serialization Format": `train-ai=y, search=n`.
    assert_eq!(usage("train-ai=y, search=n"), (Y, N));
    let line = usage_line("train-ai=y, search=n");
    assert!(line.is_valid());
    assert_eq!(line.labels, Some(Labels::Current));
}

#[test]
fn vocab_6_1_labels_are_case_sensitive() {
    // §6.1 "These tokens are case sensitive"; §6.5.1: keys with upper-case characters
    // fail the Dictionary parse, and every preference is unknown.
    let line = usage_line("Train-AI=n, search=n");
    assert_eq!((line.usage.train_ai, line.usage.search), (None, None));
    assert_eq!(line.problem(), Some(Problem::NotDictionary));
    assert_eq!(line.labels, None);
}

#[test]
fn vocab_6_2_only_the_tokens_y_and_n() {
    // §6.2 "Preference Labels": single-byte Tokens `y` and `n`.
    assert_eq!(usage("train-ai=n, search=y"), (N, Y));
    // §6.5: "values that are not Tokens, and Token values that are other than y or n"
    // are unknown, as is an absent key.
    assert_eq!(usage("train-ai=\"n\""), (None, None));
    assert_eq!(usage("train-ai=1"), (None, None));
    assert_eq!(usage("train-ai=(n)"), (None, None));
    assert_eq!(usage("train-ai"), (None, None));
    assert_eq!(usage("search=n"), (None, N));
    assert_eq!(
        usage_line("train-ai=\"n\"").problem(),
        Some(Problem::UnknownValue)
    );
    // yes/no are other Tokens: unknown, and a lint finding of their own.
    assert_eq!(usage("train-ai=no, search=yes"), (None, None));
    assert_eq!(
        usage_line("train-ai=no").problem(),
        Some(Problem::YesNoInContentUsage)
    );
}

#[test]
fn vocab_6_4_unknown_labels_and_parameters_are_ignored() {
    // §6.4 "Syntax Extensions": unknown labels MUST be ignored, unknown parameters too.
    assert_eq!(usage("train-ai=n, future-use=y"), (N, None));
    assert_eq!(
        usage_line("train-ai=n, future-use=y").problem(),
        Some(Problem::UnknownLabel)
    );
    assert_eq!(usage("train-ai=n;since=2026, search=y;x=\"z\""), (N, Y));
    assert!(usage_line("train-ai=n;since=2026").is_valid());
}

#[test]
fn vocab_6_5_1_a_repeated_key_takes_its_last_value() {
    // §6.5.1 "Multiple Preferences": "the following results in all preferences being
    // unknown": `train-ai=y, train-ai, search=n, search="n"`.
    assert_eq!(
        usage("train-ai=y, train-ai, search=n, search=\"n\""),
        (None, None)
    );
    assert_eq!(usage("train-ai=n, train-ai=y"), (Y, None));
    assert_eq!(usage("train-ai=y, train-ai=n"), (N, None));
}

#[test]
fn vocab_6_5_2_parameters_of_the_selected_value_only() {
    // §6.5.2 "Preference Parameters": `train-ai;allow=n, train-ai=y` carries no
    // parameters and allows the use.
    assert_eq!(usage("train-ai;allow=n, train-ai=y"), (Y, None));
    // "the following train-ai preference has parameters even though the preference is
    // unknown": `train-ai;has;parameters="?";` (its trailing `;` leaves no Dictionary
    // for RFC 9651's parser: unknown either way).
    assert_eq!(usage("train-ai;has;parameters=\"?\";"), (None, None));
    assert_eq!(usage("train-ai;has;parameters=\"?\""), (None, None));
}

#[test]
fn vocab_5_1_conflicting_statements_combine_most_restrictively() {
    // §5.1 "Combining Preferences": any disallow wins, else any allow, else unknown. Two
    // lines of one path are two statements (attach §3.1).
    let doc = RobotsTxt::parse(
        b"User-agent: *\nContent-Usage: train-ai=y, search=y\nContent-Usage: train-ai=n\n",
    );
    assert_eq!(
        at(&doc, "bot", "/x"),
        Usage {
            train_ai: N,
            search: Y
        }
    );
}

#[test]
fn legacy_labels_of_vocab_01_to_04_are_reported_and_ignored() {
    // Tags draft-ietf-aipref-vocab-01 (tdm, ai, genai, search, inference), -02 (all,
    // train-ai, train-genai, ai-use, search), -03 (bots, ...), -04 (bots, train-ai,
    // ai-output, search); -05 on: train-ai and search only.
    for label in robots_census_engine::LEGACY_LABELS {
        let line = usage_line(&format!("{label}=n"));
        assert_eq!(
            (line.usage.train_ai, line.usage.search),
            (None, None),
            "{label}"
        );
        assert_eq!(line.labels, Some(Labels::Legacy), "{label}");
        assert_eq!(line.problem(), Some(Problem::LegacyLabel), "{label}");
    }
    // nuxt-modules/robots emitted `ai=n`; a file mixing both sets.
    let mixed = usage_line("ai=n, train-ai=n, search=y");
    assert_eq!(
        (mixed.usage.train_ai, mixed.usage.search, mixed.labels),
        (N, Y, Some(Labels::Mixed))
    );
}

// ---- draft-ietf-aipref-attach -----------------------------------------------------

#[test]
fn attach_1_2_example_applies_to_every_crawler_of_the_group() {
    // §1.2 "Examples".
    let doc = RobotsTxt::parse(b"User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n");
    assert_eq!(at(&doc, "ExampleBot", "/").train_ai, N);
    assert_eq!(at(&doc, "ExampleBot", "/any/page").train_ai, N);
}

#[test]
fn attach_3_4_example_table() {
    // §3.4 "Example", Figure and Table "Sample of usage preferences for different paths".
    let doc = RobotsTxt::parse(
        b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n\
Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n",
    );
    // | /test | yes | train-ai=n |, | /never/test | no | N/A |, | /ai-ok/test | yes | train-ai=y |
    assert_eq!(at(&doc, "OtherBot", "/test").train_ai, N);
    assert_eq!(at(&doc, "OtherBot", "/never/test").train_ai, None);
    assert_eq!(at(&doc, "OtherBot", "/ai-ok/test").train_ai, Y);
    // "A crawler that identifies as ExampleBot uses the second group": y everywhere.
    for path in ["/test", "/never/test", "/ai-ok/test"] {
        assert_eq!(at(&doc, "ExampleBot", path).train_ai, Y, "{path}");
    }
    let paths: Vec<Option<&[u8]>> = doc.signals.iter().map(|s| s.path).collect();
    assert_eq!(paths, [None, Some(&b"/ai-ok/"[..]), None]);
}

#[test]
fn attach_3_path_is_separated_by_sp_or_htab() {
    // §3 ABNF `[ path-pattern 1*WS ] usage-pref`; §3.2: the path ends before the first
    // SP or HTAB, and a value not starting with `/` has no path.
    let line = usage_line("/a/b\ttrain-ai=n");
    assert_eq!((line.path, line.usage.train_ai), (Some(&b"/a/b"[..]), N));
    let line = usage_line("/a   search=y");
    assert_eq!((line.path, line.usage.search), (Some(&b"/a"[..]), Y));
    let line = usage_line("train-ai=n");
    assert_eq!(line.path, None);
    // A path and nothing else states nothing.
    assert_eq!(usage_line("/a").problem(), Some(Problem::EmptyValue));
}

#[test]
fn attach_3_1_longest_path_wins_and_ties_are_most_restrictive() {
    // §3.1: "the same path prefix matching rules as defined for Allow and Disallow",
    // path length in bytes of the encoded path; identical paths with conflicting
    // preferences combine per vocab §5.1, unlike Allow/Disallow ties.
    let doc = RobotsTxt::parse(
        b"User-agent: *\nContent-Usage: /a train-ai=n\nContent-Usage: /a/b train-ai=y, search=n\n\
Content-Usage: /c train-ai=y\nContent-Usage: /c train-ai=n\nContent-Usage: /d* train-ai=n\n\
Content-Usage: /d*x$ train-ai=y\nContent-Usage: /\xc3\xa9 search=n\n",
    );
    assert_eq!(at(&doc, "bot", "/a/x").train_ai, N);
    assert_eq!(
        at(&doc, "bot", "/a/b/x"),
        Usage {
            train_ai: Y,
            search: N
        }
    );
    assert_eq!(at(&doc, "bot", "/c").train_ai, N);
    // Wildcards and `$` as in Allow/Disallow.
    assert_eq!(at(&doc, "bot", "/dzzx").train_ai, Y);
    assert_eq!(at(&doc, "bot", "/dzzxy").train_ai, N);
    // The longest matching line decides the whole statement: its unknown search does
    // not fall back to a shorter line's.
    let doc2 =
        RobotsTxt::parse(b"User-agent: *\nContent-Usage: search=n\nContent-Usage: /p train-ai=y\n");
    assert_eq!(
        at(&doc2, "bot", "/p"),
        Usage {
            train_ai: Y,
            search: None
        }
    );
    // The path percent-encoded as robots.cc escapes patterns (`/é` is `/%C3%A9`), the
    // URL as crawled.
    assert_eq!(at(&doc, "bot", "/%C3%A9/x").search, N);
    assert_eq!(doc.signals[6].path, Some("/\u{e9}".as_bytes()));
}

#[test]
fn attach_3_1_disallowed_paths_have_no_preferences() {
    // §3.1: "Usage preferences apply only to those resources that can be crawled".
    let doc = RobotsTxt::parse(b"User-agent: *\nDisallow: /\nContent-Usage: train-ai=n\n");
    assert_eq!(at(&doc, "bot", "/").train_ai, None);
    let doc =
        RobotsTxt::parse(b"User-agent: *\nDisallow: /\nAllow: /open\nContent-Usage: train-ai=n\n");
    assert_eq!(at(&doc, "bot", "/open/x").train_ai, N);
}

#[test]
fn attach_3_1_rule_order_carries_no_meaning() {
    // §3.1: "The ordering of rules in a group carries no semantics."
    let a = RobotsTxt::parse(
        b"User-agent: *\nContent-Usage: /x train-ai=y\nContent-Usage: train-ai=n\nAllow: /\n",
    );
    let b = RobotsTxt::parse(
        b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nContent-Usage: /x train-ai=y\n",
    );
    for path in ["/", "/x", "/xy"] {
        assert_eq!(at(&a, "bot", path), at(&b, "bot", path), "{path}");
    }
}

#[test]
fn attach_3_groups_as_robots_cc_selects_them() {
    // §3.1: "Each group in the file applies to a set of crawlers, identified by product
    // token": a group naming the agent hides `*`, groups naming it merge.
    let doc = RobotsTxt::parse(
        b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n\nUser-agent: GPTBot\nAllow: /\n\n\
User-agent: CCBot\nDisallow: /x\nContent-Usage: train-ai=y\n\nUser-agent: ccbot\nDisallow: /y\nContent-Usage: search=n\n",
    );
    assert_eq!(at(&doc, "Googlebot", "/").train_ai, N);
    // GPTBot's own group says nothing.
    assert_eq!(at(&doc, "GPTBot", "/"), Usage::default());
    assert_eq!(
        at(&doc, "CCBot", "/"),
        Usage {
            train_ai: Y,
            search: N
        }
    );
}

#[test]
fn groups_are_robots_cc_s_so_content_usage_does_not_end_one() {
    // The groups are the ones robots.cc forms: only Allow and Disallow separate a run of
    // user-agent lines, so a Content-Usage line (a "rule" under attach §3's ABNF) does
    // not. GPTBot here joins the `*` group, as Google's matcher reads the file.
    let doc = RobotsTxt::parse(
        b"User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: GPTBot\nAllow: /\n",
    );
    assert_eq!(doc.groups.len(), 1);
    assert_eq!(at(&doc, "GPTBot", "/").train_ai, N);
}

#[test]
fn attach_3_a_rule_belongs_to_a_group() {
    // §3: "A Content-Usage rule is added to the set of potential rules that can be
    // included in a Group": before any user-agent line it applies to no crawler.
    let body = b"Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\n";
    let doc = RobotsTxt::parse(body);
    assert_eq!(doc.signals[0].problem(), Some(Problem::OutsideGroup));
    assert_eq!(at(&doc, "bot", "/").train_ai, None);
    assert!(codes(body).contains(&(1, Code::ContentUsageOutsideGroup)));
}

#[test]
fn attach_3_2_value_ends_at_an_octothorpe() {
    // §3.2: "The remainder of the line - up to either the first CR, LF, or octothorpe".
    let doc = RobotsTxt::parse(b"User-agent: *\nContent-Usage: /a train-ai=n # no training\n");
    let s = &doc.signals[0];
    assert_eq!((s.value, s.usage.train_ai), (&b"/a train-ai=n"[..], N));
}

// ---- Cloudflare's Content Signals Policy ------------------------------------------

/// contentsignals.org's example file, with the policy comment as google/robotstxt #80
/// quotes it.
const CONTENT_SIGNALS_ORG: &[u8] = b"\
# As a condition of accessing this website, you agree to abide by\n\
# the following content signals:\n\
# (a) If a content-signal = yes, you may collect content for the\n\
# corresponding use.\n\
# (b) If a content-signal = no, you may not collect content for\n\
# the corresponding use.\n\
# (c) If the website operator does not include a content signal\n\
# for a corresponding use, the website operator neither grants nor\n\
# restricts permission via content signal with respect to the\n\
# corresponding use.\n\
# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS\n\
# RESERVATIONS OF RIGHTS UNDER ARTICLE 4 OF THE EUROPEAN UNION\n\
# DIRECTIVE 2019/790 ON COPYRIGHT AND RELATED RIGHTS IN THE\n\
# DIGITAL SINGLE MARKET.\n\
User-Agent: *\n\
Content-Signal: ai-train=no, search=yes, ai-input=yes\n\
Allow: /\n";

#[test]
fn cloudflare_policy_example_file() {
    let doc = RobotsTxt::parse(CONTENT_SIGNALS_ORG);
    let cs = doc
        .signals
        .iter()
        .find(|s| s.kind == SignalKind::ContentSignal)
        .expect("the line");
    assert_eq!(cs.line, 16);
    assert!(cs.is_valid());
    // (a) yes: may collect; (b) no: may not.
    let s = cs.content_signals;
    assert_eq!(
        (s.ai_train, s.search, s.ai_input, s.use_level),
        (Some(false), Some(true), Some(true), None)
    );
    assert_eq!(doc.content_signals_for(b"AnyBot").ai_train, Some(false));
    // The reservation under Article 4 of Directive 2019/790: its two lines.
    let tdm: Vec<u32> = doc
        .signals
        .iter()
        .filter(|s| s.kind == SignalKind::TdmComment)
        .map(|s| s.line)
        .collect();
    assert_eq!(tdm, [12, 13]);
    assert!(!doc.signals.iter().any(|s| s.cloudflare_managed));
}

#[test]
fn cloudflare_policy_c_an_absent_signal_neither_grants_nor_restricts() {
    // (c): a use without a signal has none.
    let doc = RobotsTxt::parse(b"User-Agent: *\nContent-Signal: search=yes\nAllow: /\n");
    let s = doc.content_signals_for(b"bot");
    assert_eq!((s.search, s.ai_train, s.ai_input), (Some(true), None, None));
}

#[test]
fn cloudflare_managed_robots_txt() {
    // Cloudflare's "Managed robots.txt" docs page (cloudflare-docs PR #26230's diff):
    // the block it prepends, then the origin's own file.
    let body = b"# BEGIN Cloudflare Managed content\n\nUser-Agent: *\nContent-signal: search=yes,ai-train=no\nAllow: /\n\n\
User-agent: Amazonbot\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /\n\n# END Cloudflare Managed Content\n\n\
User-agent: *\nDisallow: /langtest\nContent-Signal: ai-train=yes\n";
    let doc = RobotsTxt::parse(body);
    let rows: Vec<(u32, SignalKind, bool)> = doc
        .signals
        .iter()
        .map(|s| (s.line, s.kind, s.cloudflare_managed))
        .collect();
    assert_eq!(
        rows,
        [
            (1, SignalKind::CloudflareManaged, true),
            (4, SignalKind::ContentSignal, true),
            (17, SignalKind::ContentSignal, false),
        ]
    );
    // Two `*` groups merge: their lines disagree on ai-train, and no wins.
    assert_eq!(doc.content_signals_for(b"Googlebot").ai_train, Some(false));
    // GPTBot's own group has no Content-Signal and none comes before the groups.
    assert_eq!(doc.content_signals_for(b"GPTBot").ai_train, None);
}

#[test]
fn cloudflare_use_levels() {
    // cloudflare-docs PR #31794: the managed file's `use=reference`; the /crawl
    // endpoint's changelog (2026-08-31) orders reference below full.
    let doc = RobotsTxt::parse(
        b"User-agent: *\nContent-Signal: search=yes,ai-train=no,use=reference\nAllow: /\n",
    );
    let s = &doc.signals[0];
    assert!(s.is_valid());
    assert_eq!(s.content_signals.use_level, Some(UseLevel::Reference));
    for (value, level) in [("immediate", UseLevel::Immediate), ("full", UseLevel::Full)] {
        let body = format!("User-agent: *\nContent-Signal: use={value}\n");
        let doc = RobotsTxt::parse(body.as_bytes());
        assert_eq!(doc.signals[0].content_signals.use_level, Some(level));
    }
    let doc = RobotsTxt::parse(b"User-agent: *\nContent-Signal: use=all\n");
    assert_eq!(doc.signals[0].problem(), Some(Problem::UnknownValue));
    // Two lines: the lower level.
    let doc = RobotsTxt::parse(b"Content-Signal: use=full\nUser-agent: *\nContent-Signal: use=reference\nContent-Signal: use=full\n");
    assert_eq!(
        doc.content_signals_for(b"x").use_level,
        Some(UseLevel::Reference)
    );
}

#[test]
fn content_signal_before_any_group_is_file_wide() {
    // crawler-commons reads it file-wide; some sites put it first (issue 60).
    let doc = RobotsTxt::parse(b"Content-Signal: ai-train=no\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n");
    assert_eq!(doc.signals[0].group, None);
    assert!(doc.signals[0].is_valid());
    assert_eq!(doc.content_signals_for(b"GPTBot").ai_train, Some(false));
    assert_eq!(doc.content_signals_for(b"Googlebot").ai_train, Some(false));
}

#[test]
fn content_signal_spellings_that_say_nothing() {
    let one = |value: &str| {
        let body = format!("User-agent: *\nContent-Signal: {value}\n");
        let doc = RobotsTxt::parse(body.as_bytes());
        (doc.signals[0].content_signals, doc.signals[0].problem())
    };
    let (s, p) = one("ai-train=n, search=y");
    assert_eq!(
        (s.ai_train, s.search, p),
        (None, None, Some(Problem::YNInContentSignal))
    );
    let (s, p) = one("ai_train=no");
    assert_eq!((s.ai_train, p), (None, Some(Problem::UnknownLabel)));
    let (s, p) = one("AI-Train=no");
    assert_eq!((s.ai_train, p), (None, Some(Problem::NotDictionary)));
    let (_, p) = one("");
    assert_eq!(p, Some(Problem::EmptyValue));
    // The plural spelling crawler-commons accepts is read the same.
    let doc = RobotsTxt::parse(b"User-agent: *\nContent-Signals: ai-train=no\n");
    assert_eq!(doc.signals[0].content_signals.ai_train, Some(false));
}

// ---- RSL, LLM-Policy, DisallowAITraining, comments ----------------------------------

#[test]
fn rsl_license_is_file_wide_and_may_be_off_host() {
    let doc = RobotsTxt::parse(
        b"License: https://rsl.example/license.xml\nUser-agent: *\nLicense: /license.xml\n",
    );
    assert!(doc.signals[0].is_valid());
    assert_eq!(doc.signals[1].problem(), Some(Problem::LicenseNotAbsolute));
    let robots = "https://www.example.com/robots.txt";
    let off = license_target(doc.signals[0].value, robots);
    assert_eq!(
        (off.url.as_deref(), off.same_host),
        (Some("https://rsl.example/license.xml"), Some(false))
    );
    let on = license_target(doc.signals[1].value, robots);
    assert_eq!(
        (on.url.as_deref(), on.same_host),
        (Some("https://www.example.com/license.xml"), Some(true))
    );
    assert_eq!(license_target(b"/l.xml", "not a url").same_host, None);
    assert!(codes(b"License: /license.xml\n").contains(&(1, Code::LicenseNotAbsolute)));
}

#[test]
fn llm_policy_and_disallow_ai_training() {
    let body = b"LLM-Policy: /llms.txt\nUser-agent: *\nDisallowAITraining: /private/\nAllow: /\n";
    let doc = RobotsTxt::parse(body);
    let kinds: Vec<SignalKind> = doc.signals.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [SignalKind::LlmPolicy, SignalKind::DisallowAiTraining]
    );
    assert_eq!(doc.signals[1].path, Some(&b"/private/"[..]));
    assert!(doc.signals.iter().all(|s| s.is_valid()));
    // robots.cc reads the key as Disallow (prefix match): /private/ is not crawled.
    assert!(!doc.verdict(b"bot", b"/private/x").allowed);
    assert!(codes(body).contains(&(3, Code::DisallowAiTrainingIsDisallow)));
}

#[test]
fn tdm_reservations_in_comments() {
    let doc = RobotsTxt::parse(
        b"# Rights reserved under Art. 4 of Directive (EU) 2019/790\nUser-agent: *\nDisallow: /x # TDM: article 4 opt-out\n# Article 40 of something\n# text and data mining allowed\n",
    );
    let tdm: Vec<(u32, &[u8], Option<u32>)> = doc
        .signals
        .iter()
        .map(|s| (s.line, s.value, s.group))
        .collect();
    assert_eq!(
        tdm,
        [
            (
                1,
                &b"Rights reserved under Art. 4 of Directive (EU) 2019/790"[..],
                None
            ),
            (3, &b"TDM: article 4 opt-out"[..], Some(0)),
        ]
    );
}

#[test]
fn a_parse_of_every_kind_lints_each_problem_once() {
    let body = b"Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: train-ai=yes\nContent-Usage: bots=n\n\
Content-Usage: Train-AI=n\nContent-Signal: ai-train=n\nContent-Signal: ai_train=no\nContent-Signal: use=most\nContent-Usage:\n";
    let found = codes(body);
    for (line, code) in [
        (1, Code::ContentUsageOutsideGroup),
        (3, Code::ContentUsageYesNo),
        (4, Code::ContentUsageLegacyLabel),
        (5, Code::SignalNotDictionary),
        (6, Code::ContentSignalYN),
        (7, Code::SignalUnknownLabel),
        (8, Code::SignalUnknownValue),
        (9, Code::SignalEmptyValue),
    ] {
        assert!(
            found.contains(&(line, code)),
            "line {line}: {code:?} in {found:?}"
        );
    }
    // Content-Usage and Content-Signal are robots.cc's known-but-unused keys.
    assert!(found.contains(&(3, Code::IgnoredDirective)));
}

#[test]
fn mentions_follow_the_web_almanac() {
    let doc = RobotsTxt::parse(b"User-agent: GPTBot\nUser-agent: ClaudeBot/1.0\nUser-agent: CCBot # crawler\nuseragent: meta-externalagent\nDisallow: /\n");
    assert!(doc.mentions_agent(b"gptbot"));
    assert!(!doc.mentions_agent(b"ClaudeBot"));
    assert!(doc.names_agent(b"ClaudeBot"));
    assert!(doc.mentions_agent(b"CCBot"));
    assert!(doc.mentions_agent(b"meta-externalagent"));
    assert!(!doc.mentions_agent(b"Bytespider"));
}

// ---- generated: the effective preferences against a reference ----------------------

mod generated {
    use super::*;
    use proptest::prelude::*;

    const PATHS: [&str; 5] = ["/", "/a", "/a/b", "/ab", "/b"];
    const QUERIES: [&str; 7] = ["/", "/a", "/a/b", "/a/b/c", "/ab", "/b", "/c"];
    const AGENTS: [&str; 3] = ["a", "b", "c"];

    #[derive(Debug, Clone)]
    enum Line {
        Allow(usize),
        Disallow(usize),
        /// Content-Usage: path (index or none), train-ai, search.
        Usage(Option<usize>, usize, usize),
        /// Content-Signal: ai-train.
        Signal(usize),
    }

    /// Values of a category: y, n, yes, a String, absent.
    const PREFS: [&str; 5] = ["y", "n", "yes", "\"n\"", ""];
    const SIGNALS: [&str; 4] = ["yes", "no", "y", ""];

    fn line() -> impl Strategy<Value = Line> {
        prop_oneof![
            (0..PATHS.len()).prop_map(Line::Allow),
            (0..PATHS.len()).prop_map(Line::Disallow),
            (
                proptest::option::of(0..PATHS.len()),
                0..PREFS.len(),
                0..PREFS.len()
            )
                .prop_map(|(p, t, s)| Line::Usage(p, t, s)),
            (0..SIGNALS.len()).prop_map(Line::Signal),
        ]
    }

    /// A group: its agents (indexes into ["a", "b", "*"]) and lines.
    fn group() -> impl Strategy<Value = (Vec<usize>, Vec<Line>)> {
        (
            proptest::collection::vec(0..3usize, 1..3),
            proptest::collection::vec(line(), 0..6),
        )
    }

    fn render(pre: &[Line], groups: &[(Vec<usize>, Vec<Line>)]) -> String {
        let mut body = String::new();
        let write = |body: &mut String, line: &Line| match line {
            Line::Allow(p) => body.push_str(&format!("Allow: {}\n", PATHS[*p])),
            Line::Disallow(p) => body.push_str(&format!("Disallow: {}\n", PATHS[*p])),
            Line::Usage(path, t, s) => {
                let mut parts = Vec::new();
                if !PREFS[*t].is_empty() {
                    parts.push(format!("train-ai={}", PREFS[*t]));
                }
                if !PREFS[*s].is_empty() {
                    parts.push(format!("search={}", PREFS[*s]));
                }
                let path = path.map(|p| format!("{} ", PATHS[p])).unwrap_or_default();
                body.push_str(&format!("Content-Usage: {path}{}\n", parts.join(", ")));
            }
            Line::Signal(v) => {
                let value = if SIGNALS[*v].is_empty() {
                    "search=yes".to_owned()
                } else {
                    format!("ai-train={}", SIGNALS[*v])
                };
                body.push_str(&format!("Content-Signal: {value}\n"));
            }
        };
        for line in pre {
            write(&mut body, line);
        }
        for (agents, lines) in groups {
            for a in agents {
                body.push_str(&format!("User-agent: {}\n", ["a", "b", "*"][*a]));
            }
            for line in lines {
                write(&mut body, line);
            }
            // A rule ends every group, so that the next user-agent line opens a new one
            // (robots.cc joins user-agent lines that no rule separates).
            body.push_str("Disallow: /zzz\n\n");
        }
        body
    }

    /// The reference: groups naming the agent (else the `*` groups); crawlable by the
    /// longest literal prefix, allow on ties; the longest Content-Usage path among
    /// theirs (none: length 0), equal lengths combined with n first; Content-Signal
    /// ai-train from the agent's groups, else from the lines before them.
    fn expected(
        pre: &[Line],
        groups: &[(Vec<usize>, Vec<Line>)],
        agent: &str,
        path: &str,
    ) -> (Option<&'static str>, Option<&'static str>, Option<bool>) {
        let names = |g: &(Vec<usize>, Vec<Line>)| g.0.iter().any(|a| ["a", "b", "*"][*a] == agent);
        let named = groups.iter().any(names);
        let applies: Vec<&(Vec<usize>, Vec<Line>)> = groups
            .iter()
            .filter(|g| if named { names(g) } else { g.0.contains(&2) })
            .collect();
        let lines: Vec<&Line> = applies.iter().flat_map(|g| g.1.iter()).collect();
        let (mut allow, mut disallow) = (-1i64, -1i64);
        for line in &lines {
            match line {
                Line::Allow(p) if path.starts_with(PATHS[*p]) => {
                    allow = allow.max(PATHS[*p].len() as i64)
                }
                Line::Disallow(p) if path.starts_with(PATHS[*p]) => {
                    disallow = disallow.max(PATHS[*p].len() as i64)
                }
                _ => {}
            }
        }
        // The groups' `Disallow: /zzz` matches none of the queries.
        let crawlable = disallow <= allow;
        let word = |v: &str| match v {
            "y" => Some("y"),
            "n" => Some("n"),
            _ => None,
        };
        let (mut train, mut search) = (None, None);
        if crawlable {
            let mut longest = -1i64;
            let mut chosen: Vec<(usize, usize)> = Vec::new();
            for line in &lines {
                if let Line::Usage(p, t, s) = line {
                    let length = match p {
                        None => 0,
                        Some(p) if path.starts_with(PATHS[*p]) => PATHS[*p].len() as i64,
                        Some(_) => continue,
                    };
                    if length > longest {
                        longest = length;
                        chosen.clear();
                    }
                    if length == longest {
                        chosen.push((*t, *s));
                    }
                }
            }
            let pick = |values: Vec<Option<&'static str>>| {
                if values.contains(&Some("n")) {
                    Some("n")
                } else if values.contains(&Some("y")) {
                    Some("y")
                } else {
                    None
                }
            };
            train = pick(chosen.iter().map(|(t, _)| word(PREFS[*t])).collect());
            search = pick(chosen.iter().map(|(_, s)| word(PREFS[*s])).collect());
        }
        let ai_train = |lines: Vec<&Line>| {
            let values: Vec<&str> = lines
                .iter()
                .filter_map(|l| match l {
                    Line::Signal(v) => Some(SIGNALS[*v]),
                    _ => None,
                })
                .collect();
            if values.contains(&"no") {
                Some(false)
            } else if values.contains(&"yes") {
                Some(true)
            } else {
                None
            }
        };
        let signal = ai_train(lines.clone()).or_else(|| ai_train(pre.iter().collect()));
        (train, search, signal)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// `usage_for` and `content_signals_for` answer as the reference on files of
        /// groups with conflicting lines, for every agent and path.
        #[test]
        fn effective_preferences_agree_with_the_reference(
            pre in proptest::collection::vec(
                prop_oneof![
                    (0..SIGNALS.len()).prop_map(Line::Signal),
                    (0..PREFS.len()).prop_map(|t| Line::Usage(None, t, 4)),
                ],
                0..3,
            ),
            groups in proptest::collection::vec(group(), 0..4),
        ) {
            let body = render(&pre, &groups);
            let doc = RobotsTxt::parse(body.as_bytes());
            for agent in AGENTS {
                for path in QUERIES {
                    let (train, search, signal) = expected(&pre, &groups, agent, path);
                    let got = doc.usage_for(agent.as_bytes(), &UrlPath::new(path.as_bytes()));
                    prop_assert_eq!(
                        (got.train_ai.map(Pref::as_str), got.search.map(Pref::as_str)),
                        (train, search),
                        "agent {} path {} in\n{}", agent, path, body
                    );
                    prop_assert_eq!(
                        doc.content_signals_for(agent.as_bytes()).ai_train,
                        signal,
                        "agent {} in\n{}", agent, body
                    );
                }
            }
        }
    }
}
