//! Whether the report can be read at the size of a real study (issue 23): twenty
//! generated crawls (tests/report/make_crawls.py) run with the default agents (29
//! tokens), reported with `robots-census report`, rendered in headless Chromium at
//! 1280x900 with every `<details>` closed as shipped, and measured by
//! tests/report/measure.js in the page's DOM. The page must have no `<text>` outside its
//! `<svg>` (a clipped label), no two texts of one svg overlapping, no two line series of
//! one chart in the same stroke colour, and be at most 25 screens long. A failure lists
//! every violation by svg id and text or colour; screenshots of each top-level section
//! are written to `<scratch>/report-layout/sections/<id>.png` for review, pass or fail.
//!
//! A second test renders a small fixture page with one violation of each kind and checks
//! that measure.js reports each of them (and nothing in a clean chart, rotated labels
//! included, or in a closed `<details>`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{bin, chromium, python, repo, run_with_timeout, scratch};

/// The window the page is measured in: a laptop screen.
const SCREEN_W: u32 = 1280;
const SCREEN_H: u32 = 900;
/// The longest page allowed, in screens of `SCREEN_H`, with the appendices closed.
const MAX_SCREENS: f64 = 25.0;
/// The longest one Chromium run may take before it is killed.
const CHROMIUM_LIMIT: Duration = Duration::from_secs(45);
/// Section screenshots are cut at this height (a few MB of PNG; today's tallest sections
/// are about 30,000 px).
const MAX_SHOT_H: u32 = 16_000;
/// Screenshots taken at once (the machines have two cores).
const SHOTS_AT_ONCE: usize = 3;
/// Where measure.js writes its JSON.
const OUT_ID: &str = "robots-census-layout-measure";

/// `html` with `inject` inserted before the last `tag` (`</body>`, `</head>`), or at the
/// end when it has none.
fn inject_before(html: &str, tag: &str, inject: &str) -> String {
    match html.rfind(tag) {
        Some(at) => format!("{}{inject}{}", &html[..at], &html[at..]),
        None => format!("{html}{inject}"),
    }
}

/// The window height that gives Chromium a viewport `SCREEN_H` px high: headless
/// Chromium's `--dump-dom` lays pages out in the window less its (invisible) browser UI,
/// 143 px on Chromium 156, so the window is asked that much higher. Probed once with a
/// page that writes its `innerHeight`.
fn window_height(work: &Path) -> u32 {
    static HEIGHT: OnceLock<u32> = OnceLock::new();
    *HEIGHT.get_or_init(|| {
        let probe = work.join("probe.html");
        std::fs::write(
            &probe,
            "<!DOCTYPE html><html><body><script>const p = document.createElement('pre'); \
             p.id = 'inner'; p.textContent = String(innerHeight); \
             document.body.appendChild(p);</script></body></html>",
        )
        .expect("write probe.html");
        let mut cmd = chromium(&work.join("chromium-profile-probe"), SCREEN_H);
        cmd.arg("--dump-dom")
            .arg(format!("file://{}", probe.display()));
        let (ok, dom) = run_with_timeout(cmd, CHROMIUM_LIMIT);
        assert!(ok, "chromium --dump-dom of the probe failed or timed out");
        let dom = String::from_utf8_lossy(&dom);
        let inner: u32 = dom
            .split("<pre id=\"inner\">")
            .nth(1)
            .and_then(|s| s.split('<').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no innerHeight in the probe's DOM: {dom}"));
        assert!(
            inner > SCREEN_H / 2 && inner <= SCREEN_H,
            "viewport {inner} px high in a window of {SCREEN_H}"
        );
        2 * SCREEN_H - inner
    })
}

/// Renders a copy of `page` with measure.js in headless Chromium at 1280x900 and
/// returns the JSON the script wrote into the DOM.
fn measure(page: &Path, work: &Path) -> Value {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "/usr/bin/chromium missing: `make chromium` installs it"
    );
    let script = std::fs::read_to_string(repo().join("tests/report/measure.js"))
        .expect("read tests/report/measure.js");
    let html = std::fs::read_to_string(page).expect("read the page");
    let copy = work.join("measured.html");
    std::fs::write(
        &copy,
        inject_before(&html, "</body>", &format!("<script>{script}</script>")),
    )
    .expect("write the measured copy");
    let mut cmd = chromium(&work.join("chromium-profile-measure"), window_height(work));
    cmd.arg("--dump-dom")
        .arg(format!("file://{}", copy.display()));
    let (ok, dom) = run_with_timeout(cmd, CHROMIUM_LIMIT);
    assert!(
        ok,
        "chromium --dump-dom of {} failed or timed out",
        copy.display()
    );
    let dom = String::from_utf8_lossy(&dom);
    // measure.js escapes <, > and & in its JSON, so the dump holds it verbatim.
    // The last match: the script's own text precedes the element it appends.
    let json = dom
        .rsplit(&format!("<pre id=\"{OUT_ID}\">"))
        .next()
        .filter(|s| s.len() < dom.len())
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| {
            panic!(
                "no measurement in the DOM of {}: {}",
                copy.display(),
                &dom[..dom.len().min(500)]
            )
        });
    let measured: Value = serde_json::from_str(json).expect("measure.js JSON");
    if let Some(error) = measured.get("error") {
        panic!("measure.js failed on {}: {error}", copy.display());
    }
    let window = (
        &measured["page"]["window_width"],
        &measured["page"]["window_height"],
    );
    assert_eq!(
        window,
        (&Value::from(SCREEN_W), &Value::from(SCREEN_H)),
        "Chromium's window is not {SCREEN_W}x{SCREEN_H}"
    );
    measured
}

/// The violations of one measurement, check by check, each line naming its svg.
#[derive(Debug, Default)]
struct Violations {
    /// Texts reaching outside their svg: `svg: "text" at (x, y) is cut: left 12.3 px`.
    outside: Vec<String>,
    /// Overlapping pairs of texts: `svg: "a" at (x, y) and "b" at (x, y) overlap by 14.2 px²`.
    overlaps: Vec<String>,
    /// Line series sharing a stroke colour: `svg: rgb(...) drawn by ...`.
    colours: Vec<String>,
    /// The page height, when over `MAX_SCREENS`.
    height: Option<String>,
}

impl Violations {
    fn of(m: &Value) -> Violations {
        let list = |key: &str| m[key].as_array().cloned().unwrap_or_default();
        let svg = |v: &Value| v["svg"].as_str().unwrap_or("?").to_owned();
        // Where a text starts, in its svg's user units (its viewBox).
        let at = |v: &Value| format!("at ({}, {})", v[0], v[1]);
        let outside = list("outside")
            .iter()
            .map(|v| {
                let by: Vec<String> = v["by"]
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(side, px)| format!("{side} {px} px"))
                            .collect()
                    })
                    .unwrap_or_default();
                format!(
                    "{}: {} {} is cut: {}",
                    svg(v),
                    v["text"],
                    at(&v["at"]),
                    by.join(", ")
                )
            })
            .collect();
        let overlaps = list("overlaps")
            .iter()
            .map(|v| {
                format!(
                    "{}: {} {} and {} {} overlap by {} px²",
                    svg(v),
                    v["texts"][0],
                    at(&v["at"][0]),
                    v["texts"][1],
                    at(&v["at"][1]),
                    v["area"]
                )
            })
            .collect();
        let colours = list("colours")
            .iter()
            .map(|v| {
                format!(
                    "{}: {} is the stroke of {} series {}; texts in or beside it: {}",
                    svg(v),
                    v["colour"].as_str().unwrap_or("?"),
                    v["series"].as_array().map_or(0, Vec::len),
                    v["series"],
                    v["labels"]
                )
            })
            .collect();
        let height = m["page"]["height"].as_f64().expect("page height");
        let screens = height / f64::from(SCREEN_H);
        let height = (screens > MAX_SCREENS).then(|| {
            format!(
                "the page is {height} px high: {screens:.1} screens of {SCREEN_H} px, over {MAX_SCREENS}"
            )
        });
        Violations {
            outside,
            overlaps,
            colours,
            height,
        }
    }

    fn is_empty(&self) -> bool {
        self.outside.is_empty()
            && self.overlaps.is_empty()
            && self.colours.is_empty()
            && self.height.is_none()
    }

    /// Every violation, with counts per check and per svg first.
    fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} texts outside their svg, {} overlapping pairs of texts, {} stroke colours shared \
             by line series, {}",
            self.outside.len(),
            self.overlaps.len(),
            self.colours.len(),
            self.height
                .as_deref()
                .unwrap_or("the page height within bounds")
        );
        for (name, lines) in [
            ("texts outside their svg (clipped)", &self.outside),
            ("overlapping texts", &self.overlaps),
            ("line series sharing a stroke colour", &self.colours),
        ] {
            if lines.is_empty() {
                continue;
            }
            let mut per_svg = std::collections::BTreeMap::<&str, usize>::new();
            for l in lines {
                *per_svg
                    .entry(l.split(':').next().unwrap_or("?"))
                    .or_default() += 1;
            }
            let _ = writeln!(s, "\n{} {name} (per svg: {per_svg:?}):", lines.len());
            for l in lines {
                let _ = writeln!(s, "  {l}");
            }
        }
        if let Some(h) = &self.height {
            let _ = writeln!(s, "\n{h}");
        }
        s
    }
}

/// A screenshot of each top-level section `measured` lists, as `<dir>/sections/<id>.png`:
/// a copy of the page per section with everything else hidden, in a window as high as
/// the section (cut at `MAX_SHOT_H`). Returns the PNGs' paths.
fn section_screenshots(page: &Path, dir: &Path, measured: &Value) -> Vec<PathBuf> {
    let out = dir.join("sections");
    std::fs::create_dir_all(&out).expect("create sections/");
    let html = std::fs::read_to_string(page).expect("read the page");
    let mut jobs = Vec::new();
    for section in measured["sections"].as_array().expect("sections") {
        let id = section["id"].as_str().expect("section id");
        let height = section["height"].as_f64().expect("section height");
        let name: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // Everything but the section, its ancestors and its content hidden; no padding.
        let css = format!(
            "<style>body :not(:has([id=\"{id}\"])):not([id=\"{id}\"]):not([id=\"{id}\"] *) \
             {{ display: none !important; }} body {{ padding-top: 0 !important; \
             padding-bottom: 0 !important; }}</style>"
        );
        let copy = out.join(format!("{name}.html"));
        std::fs::write(&copy, inject_before(&html, "</head>", &css)).expect("write section copy");
        let h = (height.ceil() as u32 + 2).clamp(50, MAX_SHOT_H);
        jobs.push((name, copy, h));
    }
    let mut pngs = Vec::new();
    for batch in jobs.chunks(SHOTS_AT_ONCE) {
        let handles: Vec<_> = batch
            .iter()
            .map(|(name, copy, h)| {
                let png = out.join(format!("{name}.png"));
                let mut cmd = chromium(&dir.join(format!("chromium-profile-{name}")), *h);
                cmd.arg(format!("--screenshot={}", png.display()))
                    .arg(format!("file://{}", copy.display()));
                std::thread::spawn(move || (run_with_timeout(cmd, CHROMIUM_LIMIT).0, png))
            })
            .collect();
        for handle in handles {
            let (ok, png) = handle.join().expect("screenshot thread");
            assert!(
                ok,
                "chromium --screenshot {} failed or timed out",
                png.display()
            );
            let bytes = std::fs::read(&png).expect("screenshot written");
            assert!(
                bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
                "{} is not a PNG",
                png.display()
            );
            pngs.push(png);
        }
    }
    pngs
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Chromium (make chromium) and the venv's Python (tests/report/make_crawls.py): make test"
)]
fn report_of_20_crawls_and_the_default_agents_has_no_clipped_overlapping_or_confused_marks() {
    let dir = scratch("report-layout");
    let started = Instant::now();
    let corpus = dir.join("corpus");
    let made = Command::new(python())
        .arg(repo().join("tests/report/make_crawls.py"))
        .arg(&corpus)
        .output()
        .expect("run make_crawls.py");
    assert!(
        made.status.success(),
        "make_crawls.py: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let generated = started.elapsed();
    // The default agents: no --agents.
    let status = bin()
        .arg("run")
        .arg(corpus.join("crawl-data"))
        .args(["--quiet", "--out"])
        .arg(dir.join("out"))
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(0), "robots-census run");
    let page = dir.join("report.html");
    let output = bin()
        .arg("report")
        .arg(dir.join("out"))
        .arg("-o")
        .arg(&page)
        .output()
        .expect("run robots-census report");
    assert_eq!(
        output.status.code(),
        Some(0),
        "robots-census report: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reported = started.elapsed();
    let text = std::fs::read_to_string(&page).expect("read the page");
    for expected in ["CC-MAIN-2024-10", "CC-MAIN-2025-43", "GPTBot", "YouBot"] {
        assert!(text.contains(expected), "the page does not name {expected}");
    }
    let measured = measure(&page, &dir);
    let measured_at = started.elapsed();
    std::fs::write(
        dir.join("measured.json"),
        serde_json::to_string_pretty(&measured).expect("JSON"),
    )
    .expect("write measured.json");
    let pngs = section_screenshots(&page, &dir, &measured);
    assert!(!pngs.is_empty(), "no top-level <section id> on the page");
    let cut: Vec<&str> = measured["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .filter(|s| s["height"].as_f64().unwrap_or(0.0) > f64::from(MAX_SHOT_H))
        .map(|s| s["id"].as_str().unwrap_or("?"))
        .collect();
    eprintln!(
        "report_layout: generated in {:.1} s, run and report by {:.1} s, measured by {:.1} s, \
         {} section screenshots by {:.1} s: {} (cut at {MAX_SHOT_H} px: {cut:?})",
        generated.as_secs_f64(),
        reported.as_secs_f64(),
        measured_at.as_secs_f64(),
        pngs.len(),
        started.elapsed().as_secs_f64(),
        dir.join("sections").display()
    );
    let violations = Violations::of(&measured);
    assert!(
        violations.is_empty(),
        "the report of 20 crawls x the default agents ({}) at {SCREEN_W}x{SCREEN_H}, {} <details> \
         ({} open); measure.js's JSON in {}, screenshots in {}:\n{}",
        page.display(),
        measured["details"]["total"],
        measured["details"]["open"],
        dir.join("measured.json").display(),
        dir.join("sections").display(),
        violations.describe()
    );
}

/// A page with one violation of each kind in svg `bad`, none in svg `good` (rotated axis
/// labels whose axis-aligned boxes meet but whose glyph boxes do not, a grey axis path of
/// a series' colour), and a text outside its svg inside a closed `<details>`; 30 screens
/// high.
const FIXTURE: &str = r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>measure.js fixture</title>
<style>body { margin: 0; font: 14px sans-serif; } svg { display: block; font-size: 11px; }</style>
</head><body>
<section id="charts">
<svg id="bad" width="400" height="200" viewBox="0 0 400 200" xmlns="http://www.w3.org/2000/svg">
  <text x="360" y="20">Outside the box</text>
  <text x="40" y="80">Overlapping one</text>
  <text x="50" y="84">Overlapping two</text>
  <polyline data-series="GPTBot" fill="none" stroke="#0072B2" points="20,180 200,120 300,60"/>
  <polyline data-series="Bytespider" fill="none" stroke="#0072B2" points="20,170 200,150 300,140"/>
  <polyline data-series="CCBot" fill="none" stroke="#E69F00" points="20,160 200,100 300,100"/>
  <rect x="310" y="100" width="10" height="10" fill="#0072B2"/><text x="324" y="110">GPTBot</text>
</svg>
<svg id="good" width="600" height="200" viewBox="0 0 600 200" xmlns="http://www.w3.org/2000/svg">
  <text x="100" y="100" transform="rotate(-45 100 100)" text-anchor="end">CC-MAIN-2024-10</text>
  <text x="128" y="100" transform="rotate(-45 128 100)" text-anchor="end">CC-MAIN-2024-18</text>
  <text x="156" y="100" transform="rotate(-45 156 100)" text-anchor="end">CC-MAIN-2024-22</text>
  <text x="300" y="40">A label</text>
  <text x="300" y="60">Another label</text>
  <polyline data-series="GPTBot" fill="none" stroke="#0072B2" points="300,180 500,120"/>
  <path class="series" data-series="CCBot" fill="none" stroke="#E69F00" d="M300 170 L500 150"/>
  <path fill="none" stroke="#0072B2" d="M290 190 L590 190"/>
</svg>
<details><summary>Appendix</summary>
<svg id="hidden" width="100" height="50" xmlns="http://www.w3.org/2000/svg"><text x="90" y="20">Hidden outside</text></svg>
</details>
<div style="height: 27500px"></div>
</section>
</body></html>
"##;

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs Chromium (make chromium): make test"
)]
fn measure_js_reports_each_kind_of_violation_on_a_fixture() {
    let dir = scratch("report-layout-fixture");
    let page = dir.join("fixture.html");
    std::fs::write(&page, FIXTURE).expect("write the fixture");
    let m = measure(&page, &dir);
    let svgs: Vec<&str> = m["svgs"]
        .as_array()
        .expect("svgs")
        .iter()
        .map(|s| s["svg"].as_str().expect("svg id"))
        .collect();
    assert_eq!(
        svgs,
        ["bad", "good"],
        "the closed <details>' svg is skipped"
    );
    assert_eq!(m["details"], serde_json::json!({"total": 1, "open": 0}));

    // a. One text outside its svg, on the right.
    let outside = m["outside"].as_array().expect("outside");
    assert_eq!(outside.len(), 1, "{outside:?}");
    assert_eq!(outside[0]["svg"], "bad");
    assert_eq!(outside[0]["text"], "Outside the box");
    assert_eq!(outside[0]["at"][0], 360);
    let right = outside[0]["by"]["right"].as_f64().expect("right overflow");
    assert!(right > 10.0, "{outside:?}");

    // b. One overlapping pair (the rotated labels of `good` do not count).
    let overlaps = m["overlaps"].as_array().expect("overlaps");
    assert_eq!(overlaps.len(), 1, "{overlaps:?}");
    assert_eq!(overlaps[0]["svg"], "bad");
    assert_eq!(
        overlaps[0]["texts"],
        serde_json::json!(["Overlapping one", "Overlapping two"])
    );
    assert!(overlaps[0]["area"].as_f64().expect("area") > 1.0);

    // c. Two series of one colour, named, with the legend entry of that colour.
    let colours = m["colours"].as_array().expect("colours");
    assert_eq!(colours.len(), 1, "{colours:?}");
    assert_eq!(colours[0]["svg"], "bad");
    assert_eq!(colours[0]["colour"], "rgb(0, 114, 178)");
    assert_eq!(
        colours[0]["series"],
        serde_json::json!(["GPTBot", "Bytespider"])
    );
    assert_eq!(colours[0]["labels"], serde_json::json!(["GPTBot"]));

    // d. Over 30 screens.
    let height = m["page"]["height"].as_f64().expect("height");
    assert!(height >= 30.0 * f64::from(SCREEN_H), "page height {height}");

    // The sections, for screenshots.
    assert_eq!(m["sections"][0]["id"], "charts");

    // And the test's summary names each of the four.
    let v = Violations::of(&m);
    assert_eq!(v.outside.len(), 1);
    assert!(
        v.outside[0].starts_with(r#"bad: "Outside the box" at (360, "#)
            && v.outside[0].ends_with(&format!(") is cut: right {right} px")),
        "{}",
        v.outside[0]
    );
    assert_eq!(v.overlaps.len(), 1);
    assert!(
        v.overlaps[0].starts_with(r#"bad: "Overlapping one" at (40, "#)
            && v.overlaps[0].contains(r#") and "Overlapping two" at (50, "#),
        "{}",
        v.overlaps[0]
    );
    assert_eq!(v.colours.len(), 1);
    assert!(
        v.colours[0].starts_with(
            r#"bad: rgb(0, 114, 178) is the stroke of 2 series ["GPTBot","Bytespider"]"#
        ),
        "{}",
        v.colours[0]
    );
    assert!(v.height.as_deref().is_some_and(|h| h.contains("screens")));
    assert!(!v.is_empty());
    let described = v.describe();
    assert!(described.starts_with("1 texts outside"), "{described}");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/agents (ai.robots.txt's robots.json) and the venv's Python (scripts/agent_purposes.py): make test"
)]
fn agent_purposes_are_the_scripts_output_from_ai_robots_txt() {
    // src/report/purposes.tsv (the report's agent groups and colours) is made, not typed:
    // the committed file must be what scripts/agent_purposes.py writes from
    // ../shared/agents/ai.robots.txt/robots.json and the default agent list.
    let output = Command::new(python())
        .arg(repo().join("scripts/agent_purposes.py"))
        .arg(crate::support::shared())
        .output()
        .expect("run agent_purposes.py");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let committed =
        std::fs::read(repo().join("src/report/purposes.tsv")).expect("read purposes.tsv");
    assert!(
        output.stdout == committed,
        "src/report/purposes.tsv differs from the script's output: \
         python scripts/agent_purposes.py ../shared > src/report/purposes.tsv"
    );
}
