//! `robots_census._native`: the robots-census engine for Python.
//!
//! A thin layer over the engine crate (`robots-census-engine`) alone: [`RobotsTxt`]
//! parses a body once (with the run's own parser, 500 KiB cut included) and answers
//! any number of questions from the parsed model; `check_many` answers bodies x agents
//! x URLs into one Arrow batch ([`verdicts`]) handed over through the Arrow PyCapsule
//! interface. The GIL is released while parsing and matching. `robots_census.run`
//! runs the CLI binary of the same wheel (`robots_census/__init__.py`). The typed
//! surface is `robots_census/__init__.pyi`.

mod verdicts;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyCapsule, PyString};

use robots_census_engine::{
    license_target, shown_excerpt, Answer, Interpretations, Pref, Profile, SignalKind,
    Verdict as EngineVerdict,
};

type Model<'a> = robots_census_engine::RobotsTxt<'a>;

self_cell::self_cell!(
    /// A body and the model parsed from it (the model borrows the body).
    struct Parsed {
        owner: Vec<u8>,
        #[covariant]
        dependent: Model,
    }
);

/// The bytes of a `bytes`, `bytearray` or `str` argument (a `str` as UTF-8).
fn bytes_of(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(array) = value.cast::<PyByteArray>() {
        return Ok(array.to_vec());
    }
    let kind = value.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{what} must be bytes or str, not {kind}"
    )))
}

/// A sequence argument of `bytes`/`str` items.
fn list_of(values: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Vec<u8>>> {
    if values.is_instance_of::<PyString>() || values.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a sequence of bytes or str, not a single value"
        )));
    }
    let mut items = Vec::new();
    for item in values
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a sequence of bytes or str")))?
    {
        items.push(bytes_of(&item?, &format!("an item of {what}"))?);
    }
    Ok(items)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One answer with the rule that decided it: the fields of `robots-census check --json`.
#[pyclass(frozen, get_all, module = "robots_census")]
#[derive(Clone)]
pub struct Verdict {
    agent: String,
    url: String,
    allowed: bool,
    /// The deciding rule's line; 0 when no rule decided.
    line: u32,
    /// The deciding rule's pattern, percent-escaped as robots.cc matches it.
    pattern: Option<String>,
    /// "allow" or "disallow"; None when no rule decided.
    directive: Option<String>,
    /// "named" (a group names the agent), "star" (the '*' group) or "none"; under a
    /// profile also "fallback" (a group the family falls back to).
    scope: String,
    /// The reading: "google" (robots.cc) or an interpretation profile.
    profile: String,
}

impl Verdict {
    fn of(agent: &[u8], url: &[u8], verdict: &EngineVerdict<'_>) -> Self {
        Verdict {
            agent: lossy(agent),
            url: lossy(url),
            allowed: verdict.allowed,
            line: verdict.line,
            pattern: verdict.pattern().map(lossy),
            directive: verdict.directive().map(|d| d.as_str().to_owned()),
            scope: verdict.scope.as_str().to_owned(),
            profile: Profile::Google.name().to_owned(),
        }
    }

    fn of_answer(agent: &str, url: &str, profile: Profile, answer: Answer) -> Self {
        Verdict {
            agent: agent.to_owned(),
            url: url.to_owned(),
            allowed: answer.allowed,
            line: answer.line,
            pattern: answer.pattern,
            directive: answer.directive.map(|d| d.as_str().to_owned()),
            scope: answer.scope.as_str().to_owned(),
            profile: profile.name().to_owned(),
        }
    }
}

/// `profile` as given to Python: `None` or a profile name.
fn profile_of(profile: Option<&str>) -> PyResult<Profile> {
    match profile {
        None => Ok(Profile::Google),
        Some(name) => Profile::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
            PyValueError::new_err(format!(
                "unknown profile {name:?} (known: {})",
                known.join(", ")
            ))
        }),
    }
}

#[pymethods]
impl Verdict {
    fn __repr__(&self) -> String {
        let opt = |v: &Option<String>| v.as_ref().map_or("None".to_owned(), |s| format!("{s:?}"));
        let allowed = if self.allowed { "True" } else { "False" };
        format!(
            "Verdict(agent={:?}, url={:?}, allowed={allowed}, line={}, directive={}, pattern={}, scope={:?})",
            self.agent,
            self.url,
            self.line,
            opt(&self.directive),
            opt(&self.pattern),
            self.scope
        )
    }
}

/// A group: user-agent lines and the rules after them.
#[pyclass(frozen, get_all, module = "robots_census")]
pub struct Group {
    first_line: u32,
    last_line: u32,
    /// The user-agent values as written.
    user_agents: Vec<String>,
    /// What robots.cc matches: each value cut to [A-Za-z_-]*, lower-cased; '*' for the global group.
    product_tokens: Vec<String>,
    has_star: bool,
    n_allow: usize,
    n_disallow: usize,
    /// The group's first numeric crawl-delay, in seconds.
    crawl_delay: Option<f64>,
}

#[pymethods]
impl Group {
    fn __repr__(&self) -> String {
        format!(
            "Group(first_line={}, user_agents={:?}, n_allow={}, n_disallow={})",
            self.first_line, self.user_agents, self.n_allow, self.n_disallow
        )
    }
}

/// A Sitemap line.
#[pyclass(frozen, get_all, module = "robots_census")]
pub struct Sitemap {
    line: u32,
    url: String,
}

#[pymethods]
impl Sitemap {
    fn __repr__(&self) -> String {
        format!("Sitemap(line={}, url={:?})", self.line, self.url)
    }
}

/// A lint finding: the fields of `robots-census lint --json`.
#[pyclass(frozen, get_all, module = "robots_census")]
pub struct Finding {
    line: u32,
    code: String,
    severity: String,
    message: String,
    excerpt: String,
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        format!(
            "Finding(line={}, severity={:?}, code={:?})",
            self.line, self.severity, self.code
        )
    }
}

/// An AI-use signal line or comment: the columns of the `signals` table that
/// describe one file (all but doc_id and crawl), with the same values.
#[pyclass(frozen, get_all, module = "robots_census")]
pub struct Signal {
    line: u32,
    /// content-usage, content-signal, license, llm-policy, disallow-ai-training,
    /// tdm-comment or cloudflare-managed.
    kind: &'static str,
    /// The user-agent values of the group the line lies in; empty before any group.
    agents: Vec<String>,
    /// content-usage: its path; disallow-ai-training: its pattern (as written).
    path: Option<String>,
    /// The value as written (a comment's text after '#', trimmed).
    value: String,
    valid: bool,
    /// The first problem when not valid (not_sf_dictionary, legacy_label, ...).
    problem: Option<&'static str>,
    /// content-usage: "y", "n" or None (unknown) under the current vocabulary.
    train_ai: Option<&'static str>,
    search: Option<&'static str>,
    /// content-usage: "current", "legacy" or "mixed".
    labels: Option<&'static str>,
    /// content-signal: "yes", "no" or None.
    ai_train: Option<&'static str>,
    ai_input: Option<&'static str>,
    search_signal: Option<&'static str>,
    /// content-signal: "immediate", "reference" or "full".
    #[pyo3(name = "use")]
    use_level: Option<&'static str>,
    /// license: the URL resolved against the robots.txt URL given to `signals`.
    license_url: Option<String>,
    /// license: its host is the robots.txt URL's; None when either has none.
    license_same_host: Option<bool>,
    cloudflare_managed: bool,
}

#[pymethods]
impl Signal {
    fn __repr__(&self) -> String {
        format!(
            "Signal(line={}, kind={:?}, value={:?}, valid={})",
            self.line,
            self.kind,
            self.value,
            if self.valid { "True" } else { "False" }
        )
    }
}

fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

/// The signals of `doc` as the `signals` table writes them; `url` is the robots.txt
/// URL License values resolve against ("" when not known: only absolute URLs resolve).
fn signal_rows(doc: &Model<'_>, url: &str) -> Vec<Signal> {
    doc.signals
        .iter()
        .map(|signal| {
            let agents = doc
                .signal_agents(signal)
                .iter()
                .map(|a| doc.text_of(a.value).into_owned())
                .collect();
            let usage = signal.kind == SignalKind::ContentUsage;
            let s = &signal.content_signals;
            let license =
                (signal.kind == SignalKind::License).then(|| license_target(signal.value, url));
            Signal {
                line: signal.line,
                kind: signal.kind.as_str(),
                agents,
                path: signal.path.map(|p| doc.text_of(p).into_owned()),
                value: doc.text_of(signal.value).into_owned(),
                valid: signal.is_valid(),
                problem: signal.problem().map(|p| p.as_str()),
                train_ai: signal.usage.train_ai.filter(|_| usage).map(Pref::as_str),
                search: signal.usage.search.filter(|_| usage).map(Pref::as_str),
                labels: signal.labels.map(|l| l.as_str()),
                ai_train: s.ai_train.map(yes_no),
                ai_input: s.ai_input.map(yes_no),
                search_signal: s.search.map(yes_no),
                use_level: s.use_level.map(|u| u.as_str()),
                license_url: license.as_ref().and_then(|l| l.url.clone()),
                license_same_host: license.and_then(|l| l.same_host),
                cloudflare_managed: signal.cloudflare_managed,
            }
        })
        .collect()
}

/// A robots.txt parsed once, exactly as Google's robots.cc reads it (and only the
/// first 500 KiB of it, as Google does); ask it any number of questions.
#[pyclass(frozen, module = "robots_census")]
pub struct RobotsTxt {
    parsed: Parsed,
}

#[pymethods]
impl RobotsTxt {
    /// Parses `body` (bytes, or str taken as UTF-8).
    #[new]
    fn new(py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<Self> {
        let body = bytes_of(body, "body")?;
        let parsed = py.detach(|| Parsed::new(body, |body| Model::parse(body)));
        Ok(RobotsTxt { parsed })
    }

    /// Whether `agent` (a product token such as "Googlebot") may fetch `url` (a URL
    /// or a path, matched as written: percent-encode it). `profile`: read as that
    /// crawler family does ("urllib", "ccbot", ... see `PROFILES`); None is Google's.
    #[pyo3(signature = (agent, url, profile=None))]
    fn allowed(
        &self,
        py: Python<'_>,
        agent: &Bound<'_, PyAny>,
        url: &Bound<'_, PyAny>,
        profile: Option<&str>,
    ) -> PyResult<bool> {
        if profile.is_some() {
            return Ok(self.explain(py, agent, url, profile)?.allowed);
        }
        let (agent, url) = (bytes_of(agent, "agent")?, bytes_of(url, "url")?);
        Ok(py.detach(|| self.parsed.borrow_dependent().verdict(&agent, &url).allowed))
    }

    /// The answer with the rule that decided it (as `robots-census check --json`, with
    /// `--profile` when `profile` is given). A profile other than the families read from
    /// Google's model (google, google-production, rfc9309, bing, applebot, baidu) parses
    /// the body again for its family on every call: for many questions, use `readings`.
    #[pyo3(signature = (agent, url, profile=None))]
    fn explain(
        &self,
        py: Python<'_>,
        agent: &Bound<'_, PyAny>,
        url: &Bound<'_, PyAny>,
        profile: Option<&str>,
    ) -> PyResult<Verdict> {
        let profile = profile_of(profile)?;
        let (agent, url) = (bytes_of(agent, "agent")?, bytes_of(url, "url")?);
        Ok(py.detach(|| {
            if profile == Profile::Google {
                let verdict = self.parsed.borrow_dependent().verdict(&agent, &url);
                return Verdict::of(&agent, &url, &verdict);
            }
            let (agent, url) = (lossy(&agent), lossy(&url));
            let reads =
                Interpretations::new(self.parsed.borrow_owner(), self.parsed.borrow_dependent());
            Verdict::of_answer(&agent, &url, profile, reads.answer(profile, &agent, &url))
        }))
    }

    /// Every (agent, URL, profile) answer, each family's parse of the body built once
    /// for the call: `profiles` None means all of them, in `PROFILES` order.
    #[pyo3(signature = (agents, urls, profiles=None))]
    fn readings(
        &self,
        py: Python<'_>,
        agents: Vec<String>,
        urls: Vec<String>,
        profiles: Option<Vec<String>>,
    ) -> PyResult<Vec<Verdict>> {
        let profiles = match profiles {
            None => Profile::ALL.to_vec(),
            Some(names) => names
                .iter()
                .map(|n| profile_of(Some(n)))
                .collect::<PyResult<Vec<_>>>()?,
        };
        Ok(py.detach(|| {
            let reads =
                Interpretations::new(self.parsed.borrow_owner(), self.parsed.borrow_dependent());
            let mut out = Vec::with_capacity(profiles.len() * agents.len() * urls.len());
            for &profile in &profiles {
                for agent in &agents {
                    for url in &urls {
                        out.push(Verdict::of_answer(
                            agent,
                            url,
                            profile,
                            reads.answer(profile, agent, url),
                        ));
                    }
                }
            }
            out
        }))
    }

    /// The crawl-delay in seconds the groups that apply to `agent` ask for (the first
    /// numeric one), or None. Google ignores crawl-delay; Bing and Yandex read it.
    fn crawl_delay(&self, agent: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
        let agent = bytes_of(agent, "agent")?;
        Ok(self.parsed.borrow_dependent().crawl_delay(&agent))
    }

    /// The groups, in file order.
    #[getter]
    fn groups(&self) -> Vec<Group> {
        let doc = self.parsed.borrow_dependent();
        doc.groups
            .iter()
            .map(|group| {
                let agents = doc.group_agents(group);
                let (n_allow, n_disallow) = doc.rule_counts(group);
                Group {
                    first_line: group.first_line,
                    last_line: group.last_line,
                    user_agents: agents
                        .iter()
                        .map(|a| doc.text_of(a.value).into_owned())
                        .collect(),
                    product_tokens: agents.iter().map(|a| doc.product_token(a)).collect(),
                    has_star: group.has_star,
                    n_allow,
                    n_disallow,
                    crawl_delay: group.crawl_delay,
                }
            })
            .collect()
    }

    /// The Sitemap lines, in file order.
    #[getter]
    fn sitemaps(&self) -> Vec<Sitemap> {
        let doc = self.parsed.borrow_dependent();
        doc.sitemaps
            .iter()
            .map(|s| Sitemap {
                line: s.line,
                url: doc.text_of(s.url).into_owned(),
            })
            .collect()
    }

    /// The lint findings (as `robots-census lint --json`).
    fn lint(&self) -> Vec<Finding> {
        self.parsed
            .borrow_dependent()
            .findings
            .iter()
            .map(|f| Finding {
                line: f.line,
                code: f.code.as_str().to_owned(),
                severity: f.code.severity().as_str().to_owned(),
                message: f.code.message().to_owned(),
                excerpt: shown_excerpt(f.excerpt).into_owned(),
            })
            .collect()
    }

    /// The AI-use signal lines and comments, in file order: the rows the `signals`
    /// table has for this body. `url`: the robots.txt URL, which License values
    /// resolve against (without it only absolute License URLs resolve, and
    /// `license_same_host` is None).
    #[pyo3(signature = (url=None))]
    fn signals(&self, url: Option<&str>) -> Vec<Signal> {
        signal_rows(self.parsed.borrow_dependent(), url.unwrap_or(""))
    }

    /// Bytes parsed: at most 512,000 (Google's cut).
    #[getter]
    fn parsed_size(&self) -> usize {
        self.parsed.borrow_dependent().facts.parsed_len
    }

    fn __repr__(&self) -> String {
        let doc = self.parsed.borrow_dependent();
        format!(
            "RobotsTxt({} bytes, {} groups, {} rules, {} sitemaps)",
            self.parsed.borrow_owner().len(),
            doc.groups.len(),
            doc.rules.len(),
            doc.sitemaps.len()
        )
    }
}

/// The answers of `check_many`: one Arrow record batch, read by `pyarrow.table(x)`,
/// `polars.DataFrame(x)` or DuckDB through the Arrow PyCapsule interface (no copy).
#[pyclass(frozen, module = "robots_census")]
pub struct VerdictBatch {
    batch: RecordBatch,
}

#[pymethods]
impl VerdictBatch {
    /// Rows: bodies x agents x URLs.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The Arrow C stream interface: a capsule holding an `ArrowArrayStream`.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is fixed; a consumer asking for another one casts after reading.
        let _ = requested_schema;
        let reader = RecordBatchIterator::new([Ok(self.batch.clone())], self.batch.schema());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "VerdictBatch({} rows: body, agent, url, allowed, line, directive, pattern, scope)",
            self.batch.num_rows()
        )
    }
}

/// Asks every agent every URL of every body, each body parsed once, the GIL released.
#[pyfunction]
fn check_many(
    py: Python<'_>,
    bodies: &Bound<'_, PyAny>,
    agents: &Bound<'_, PyAny>,
    urls: &Bound<'_, PyAny>,
) -> PyResult<VerdictBatch> {
    let bodies = list_of(bodies, "bodies")?;
    let agents = list_of(agents, "agents")?;
    let urls = list_of(urls, "urls")?;
    let batch = py
        .detach(|| verdicts::answer_all(&bodies, &agents, &urls))
        .map_err(PyRuntimeError::new_err)?;
    Ok(VerdictBatch { batch })
}

/// The interpretation profiles `explain`, `allowed` and `readings` take, Google's first.
#[pyfunction]
fn profiles() -> Vec<&'static str> {
    Profile::ALL.iter().map(|p| p.name()).collect()
}

/// The version of the robots-census release this module belongs to.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
mod _native {
    #[pymodule_export]
    use super::{
        check_many, profiles, version, Finding, Group, RobotsTxt, Signal, Sitemap, Verdict,
        VerdictBatch,
    };
}
