"""The robots_census Python module, installed from the wheel `make wheel` builds.

Run by tests/it/python.rs with the wheel installed under PYTHONPATH and
ROBOTS_CENSUS_SHARED (../shared), ROBOTS_CENSUS_CLI (the wheel's robots-census) set.
Every answer is checked against an independent source: Google's parser
(jwm-robotstxt) for verdicts and matching lines, the CLI's `check --json`,
`lint --json` and `run` for the rest.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import robots_census
from robots_census import RobotsTxt

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ["ROBOTS_CENSUS_SHARED"])
CLI = os.environ["ROBOTS_CENSUS_CLI"]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
import answers  # noqa: E402  (the differential test's question builder)

CORPUS = SHARED / "corpus" / "robots"
URLS = SHARED / "corpus" / "urls" / "anubhavp28"


def corpus_files():
    return sorted(p for p in CORPUS.glob("*/*.txt"))


@pytest.fixture(scope="session")
def oracle():
    """robots.cc's answers for every corpus body: the JSON lines of
    tests/oracle/answers.py, computed once per test run and shared with the Rust
    differential test (ROBOTS_CENSUS_ORACLE_ANSWERS)."""
    with open(os.environ["ROBOTS_CENSUS_ORACLE_ANSWERS"]) as f:
        return [json.loads(line) for line in f]


def test_every_corpus_answer_equals_googles_parser(oracle):
    questions = mismatches = 0
    examples = []
    for record in oracle:
        body = (CORPUS / record["file"]).read_bytes()
        # The whole body: the module cuts at 500 KiB itself (the oracle was given the cut).
        robots = RobotsTxt(body)
        agents = [bytes.fromhex(a) for a in record["agents"]]
        urls = [bytes.fromhex(u) for u in record["urls"]]
        i = 0
        for agent in agents:
            for url in urls:
                verdict = robots.explain(agent, url)
                want_allowed = record["allowed"][i] == "1"
                want_line = record["lines"][i]
                if verdict.allowed != want_allowed or verdict.line != want_line or robots.allowed(agent, url) != want_allowed:
                    mismatches += 1
                    if len(examples) < 10:
                        examples.append((record["file"], agent, url, verdict, want_allowed, want_line))
                questions += 1
                i += 1
    assert len(oracle) == len(corpus_files()) and questions > 100_000, (len(oracle), questions)
    assert mismatches == 0, examples


def sample_files(n):
    files = corpus_files()
    return files[:: max(1, len(files) // n)][:n]


def test_explain_equals_check_json():
    agents = [a.decode() for a in answers.AGENTS if a and b"/" not in a]
    compared = 0
    for path in sample_files(60):
        body = path.read_bytes()
        urls = [u.decode("utf-8", "replace") for u in answers.FIXED_URLS if b"\x00" not in u]
        urls = [u for u in urls if "\ufffd" not in u]
        args = [CLI, "check", "--json", str(path)]
        for agent in agents:
            args += ["--agent", agent]
        out = subprocess.run(args + urls, capture_output=True, check=False)
        assert out.returncode in (0, 1), out.stderr
        robots = RobotsTxt(body)
        for line in out.stdout.decode().splitlines():
            want = json.loads(line)
            got = robots.explain(want["agent"], want["url"])
            assert (got.agent, got.url, got.allowed, got.line, got.pattern, got.directive, got.scope) == (
                want["agent"], want["url"], want["allowed"], want["line"], want["pattern"], want["directive"], want["scope"],
            ), (path, want)
            compared += 1
    assert compared > 5_000, compared


def test_lint_equals_lint_json():
    findings = 0
    for path in sample_files(200):
        out = subprocess.run([CLI, "lint", "--json", str(path)], capture_output=True, check=False)
        assert out.returncode in (0, 1), out.stderr
        want = [json.loads(line) for line in out.stdout.decode().splitlines()]
        got = [
            {"line": f.line, "severity": f.severity, "code": f.code, "message": f.message, "excerpt": f.excerpt}
            for f in RobotsTxt(path.read_bytes()).lint()
        ]
        assert got == want, path
        findings += len(got)
    assert findings > 100, findings


def test_check_many_is_the_per_call_answers_as_arrow():
    files = sample_files(40)
    bodies = [p.read_bytes() for p in files]
    agents = ["Googlebot", "GPTBot", "CCBot", "*", ""]
    urls = ["/", "/private/x", "https://example.com/search?q=1", b"/caf\xc3\xa9"]
    table = pa.table(robots_census.check_many(bodies, agents, urls))
    assert table.num_rows == len(bodies) * len(agents) * len(urls)
    assert table.column_names == ["body", "agent", "url", "allowed", "line", "directive", "pattern", "scope"]
    rows = iter(table.to_pylist())
    for index, body in enumerate(bodies):
        robots = RobotsTxt(body)
        for agent in agents:
            for url in urls:
                row = next(rows)
                v = robots.explain(agent, url)
                assert row == {
                    "body": index, "agent": agent, "url": v.url, "allowed": v.allowed, "line": v.line,
                    "directive": v.directive, "pattern": v.pattern, "scope": v.scope,
                }


def test_groups_sitemaps_and_crawl_delay_read_the_model():
    robots = RobotsTxt(
        "User-agent: *\nDisallow: /x\nCrawl-delay: 10\n\nUser-agent: Bingbot\nUser-agent: msnbot/2\n"
        "Allow: /\nCrawl-delay: 2.5\nSitemap: https://example.com/s.xml\n"
    )
    groups = robots.groups
    assert [(g.first_line, g.user_agents, g.product_tokens, g.has_star) for g in groups] == [
        (1, ["*"], ["*"], True),
        (5, ["Bingbot", "msnbot/2"], ["bingbot", "msnbot"], False),
    ]
    assert [(g.n_allow, g.n_disallow, g.crawl_delay) for g in groups] == [(0, 1, 10.0), (1, 0, 2.5)]
    assert [(s.line, s.url) for s in robots.sitemaps] == [(9, "https://example.com/s.xml")]
    assert robots.crawl_delay("bingbot") == 2.5
    assert robots.crawl_delay("Googlebot") == 10.0


def test_the_500_kib_cut_and_odd_bytes_behave_as_in_the_cli():
    body = b"User-agent: *\n" + b"#" * 600_000 + b"\nDisallow: /\n"
    robots = RobotsTxt(body)
    assert robots.parsed_size == 512_000
    assert robots.allowed("Googlebot", "/")  # the Disallow is past the cut
    assert "body_over_500kib" in [f.code for f in robots.lint()]
    # NUL ends a line, Latin-1 bytes are percent-escaped: as Google's parser reads them.
    from jwm.robotstxt import googlebot

    odd_body = b"User-agent: *\nDisallow: /a\x00b\nDisallow: /caf\xe9\nAllow: /\xff*$\n"
    odd = RobotsTxt(odd_body)
    for url in [b"/a", b"/ab", b"/b", b"/caf\xe9/menu", b"/caf%E9", b"/\xffx", b"/%FFx"]:
        matcher = googlebot.RobotsMatcher()
        want = matcher.OneAgentAllowedByRobots(odd_body, b"x", b"https://e.com" + url)
        assert odd.allowed("x", b"https://e.com" + url) == want, url
        assert odd.explain("x", b"https://e.com" + url).line == matcher.matching_line(), url


def test_wrong_argument_types_raise_type_error():
    with pytest.raises(TypeError, match="body must be bytes or str, not int"):
        RobotsTxt(5)
    robots = RobotsTxt("")
    with pytest.raises(TypeError, match="agent must be bytes or str, not NoneType"):
        robots.allowed(None, "/")
    with pytest.raises(TypeError, match="bodies must be a sequence"):
        robots_census.check_many(b"User-agent: *", ["a"], ["/"])
    with pytest.raises(TypeError):
        robots_census.check_many([1], ["a"], ["/"])


def test_run_is_the_cli_run(tmp_path):
    sample = REPO / "data-samples" / "cc-robotstxt-sample.warc.gz"
    module_out, cli_out = tmp_path / "module", tmp_path / "cli"
    code = robots_census.run([sample], module_out, quiet=True, threads=2, tables=["agents", "verdicts"])
    cli = subprocess.run(
        [CLI, "run", str(sample), "--out", str(cli_out), "--quiet", "--threads", "2", "--tables", "agents,verdicts"],
        check=False,
    )
    assert code == cli.returncode and code in (0, 1)
    for table in ("documents", "errors", "agents", "verdicts"):
        mine = sorted((module_out / table).rglob("*.parquet"))
        theirs = sorted((cli_out / table).rglob("*.parquet"))
        assert [p.relative_to(module_out) for p in mine] == [p.relative_to(cli_out) for p in theirs]
        for a, b in zip(mine, theirs):
            assert a.read_bytes() == b.read_bytes(), a
        assert sum(pq.read_metadata(p).num_rows for p in mine) > 0
    # The same output again: the CLI's refusal, raised with its message and exit code.
    with pytest.raises(robots_census.RunError) as refused:
        robots_census.run([sample], module_out, quiet=True)
    message, exit_code = refused.value.args
    assert exit_code == 2 and "already holds tables" in message
    with pytest.raises(robots_census.RunError, match="--threads must be at least 1"):
        robots_census.run([sample], tmp_path / "x", threads=0)
    with pytest.raises(ValueError, match="--no-such-flag"):
        robots_census.run([sample], tmp_path / "y", no_such_flag=1)
    with pytest.raises(TypeError):
        robots_census.run(str(sample), tmp_path / "z")


def test_run_finds_the_binary_of_its_wheel(monkeypatch):
    from robots_census import _cli

    # pip install --target: the binary in <target>/bin, beside the package; found there
    # whatever PATH says.
    assert os.path.samefile(_cli.find_bin(), CLI)
    monkeypatch.setenv("PATH", "")
    assert os.path.samefile(_cli.find_bin(), CLI)


def test_run_without_its_binary_says_where_it_looked(monkeypatch, tmp_path):
    from robots_census import _cli

    monkeypatch.setattr(_cli, "_candidate_dirs", lambda: [str(tmp_path)])
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        robots_census.run([REPO / "data-samples" / "robots-dump.csv.gz"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_run_reads_how_the_binary_ended(monkeypatch, tmp_path, capsys):
    """A stand-in binary prints what the CLI prints and exits as it does."""
    from robots_census import _cli

    fake = tmp_path / _cli._EXE
    monkeypatch.setattr(_cli, "_candidate_dirs", lambda: [str(tmp_path)])

    def binary(script):
        fake.write_text("#!/bin/sh\n" + script)
        fake.chmod(0o755)

    binary(
        "echo 'robots-census: warning: not walked: x' >&2\n"
        "echo 'robots-census: cannot write out/: Permission denied' >&2\n"
        "echo '  (os error 13)' >&2\nexit 2\n"
    )
    with pytest.raises(robots_census.RunError) as failed:
        robots_census.run(["a"], "out")
    assert failed.value.args == ("cannot write out/: Permission denied\n  (os error 13)", 2)
    # What the binary printed reached sys.stderr, warning first.
    assert capsys.readouterr().err.startswith("robots-census: warning: not walked: x\n")
    binary("echo \"error: unexpected argument '--x' found\" >&2\necho >&2\necho 'Usage: robots-census run' >&2\nexit 2\n")
    with pytest.raises(ValueError, match="(?s)unexpected argument '--x'.*Usage:"):
        robots_census.run(["a"], "out", x=1)
    binary("echo 'tasks: 1 (0 resumed)' >&2\nexit 2\n")
    assert robots_census.run(["a"], "out", strict=True) == 2
    binary("kill -9 $$\n")
    with pytest.raises(robots_census.RunError) as killed:
        robots_census.run(["a"], "out")
    assert killed.value.args == ("robots-census was ended by signal 9", 137)
    binary("exit 75\n")
    assert robots_census.run(["a"], "out") == 75


def test_run_returns_the_exit_code_of_a_run_that_skipped_something(tmp_path):
    # A missing input is skipped (exit 1); --strict makes that 2, returned as the CLI
    # returns it, not raised.
    missing = tmp_path / "missing.warc.gz"
    assert robots_census.run([missing], tmp_path / "lenient", quiet=True) == 1
    assert robots_census.run([missing], tmp_path / "strict", quiet=True, strict=True) == 2


def test_the_stub_types_the_module(tmp_path):
    site = os.environ["PYTHONPATH"]
    good = tmp_path / "good.py"
    good.write_text(
        "import robots_census\n"
        "r = robots_census.RobotsTxt(b'User-agent: *\\nDisallow: /')\n"
        "ok: bool = r.allowed('a', '/')\n"
        "line: int = r.explain('a', '/').line\n"
        "delay: 'float | None' = r.crawl_delay('a')\n"
        "n: int = robots_census.check_many([b''], ['a'], ['/']).num_rows\n"
        "code: int = robots_census.run(['x'], 'out', threads=2)\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text("import robots_census\nx: str = robots_census.RobotsTxt(b'').allowed('a', '/')\n")
    env = dict(os.environ, MYPYPATH=site)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.11"]
    checked = subprocess.run(mypy + [str(good)], capture_output=True, text=True, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = subprocess.run(mypy + [str(bad)], capture_output=True, text=True, env=env)
    assert refused.returncode == 1 and "Incompatible types" in refused.stdout, refused.stdout


def test_profiles_answer_as_the_libraries():
    """`explain(..., profile=)` and `readings` against urllib.robotparser and Protego,
    asked as those libraries' fetch paths ask them, on corpus bodies."""
    import urllib.robotparser

    from protego import Protego

    assert robots_census.PROFILES[0] == "google" and "urllib" in robots_census.PROFILES
    agents = ["GPTBot", "Googlebot", "CCBot", "bingbot"]
    compared = 0
    for path in sample_files(40):
        body = path.read_bytes()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            continue
        robots = RobotsTxt(body)
        rp = urllib.robotparser.RobotFileParser()
        rp.parse(text.splitlines())
        pr = Protego.parse(text)
        urls = ["https://example.com/", "https://example.com/private/x", "https://example.com/a?b=1"]
        readings = robots.readings(agents, urls, ["urllib", "protego", "google"])
        assert len(readings) == 3 * len(agents) * len(urls)
        by_key = {(v.profile, v.agent, v.url): v for v in readings}
        for agent in agents:
            for url in urls:
                assert by_key[("urllib", agent, url)].allowed == rp.can_fetch(agent, url), (path, agent, url)
                assert by_key[("protego", agent, url)].allowed == pr.can_fetch(url, agent), (path, agent, url)
                google = robots.explain(agent, url)
                assert google.profile == "google"
                assert by_key[("google", agent, url)].allowed == google.allowed
                assert robots.allowed(agent, url, profile="urllib") == rp.can_fetch(agent, url)
                one = robots.explain(agent, url, profile="protego")
                assert (one.profile, one.allowed) == ("protego", pr.can_fetch(url, agent))
                compared += 1
    assert compared > 300, compared
    try:
        RobotsTxt(b"").explain("a", "/", profile="bingo")
    except ValueError as e:
        assert "bingo" in str(e)
    else:
        raise AssertionError("an unknown profile is a ValueError")


# Bodies with every kind of AI-use signal, valid and not, inside and outside groups
# and Cloudflare's managed block.
SIGNAL_BODIES = {
    "https://signals.example/robots.txt": (
        "# BEGIN Cloudflare Managed content\n"
        "# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF RIGHTS UNDER "
        "ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790\n"
        "User-agent: *\n"
        "Content-Signal: search=yes, ai-train=no, use=reference\n"
        "Allow: /\n"
        "# END Cloudflare Managed Content\n"
        "Content-Usage: train-ai=n\n"
        "User-agent: GPTBot\n"
        "Content-Usage: /blog/ train-ai=y, search=n\n"
        "Content-Usage: all=n\n"
        "Content-Usage: train-ai=yes\n"
        "Content-Usage: Train-AI=n\n"
        "Content-Signal: ai-input=y\n"
        "DisallowAITraining: /private/\n"
        "Disallow: /x\n"
        "License: https://rsl.example/license.xml\n"
        "License: /license.xml\n"
        "LLM-Policy: https://signals.example/llms.txt\n"
    ),
    "https://before.example/robots.txt": (
        "Content-Signal: ai-train=yes, search=yes, ai-input=no, use=full\n"
        "Content-Usage: train-ai=n\n"
        "License:\n"
        "User-agent: CCBot\n"
        "Disallow: /\n"
        "Content-Usage: search=y, foo=n\n"
    ),
    "https://none.example/robots.txt": "User-agent: *\nDisallow: /tmp/\n",
}

SIGNAL_FIELDS = [
    "line", "kind", "agents", "path", "value", "valid", "problem", "train_ai", "search", "labels",
    "ai_train", "ai_input", "search_signal", "use", "license_url", "license_same_host",
    "cloudflare_managed",
]


def test_signals_are_the_rows_of_the_signals_table(tmp_path):
    import csv

    dump = tmp_path / "signals.csv"
    with open(dump, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["url", "status", "body"])
        for url, body in SIGNAL_BODIES.items():
            writer.writerow([url, "200", body])
    out = tmp_path / "out"
    ran = subprocess.run([CLI, "run", str(dump), "--out", str(out), "--quiet", "--tables", "signals"], check=False)
    assert ran.returncode == 0
    documents = pa.concat_tables(pq.read_table(p) for p in sorted((out / "documents").rglob("*.parquet")))
    url_of = {row["doc_id"]: row["url"] for row in documents.to_pylist()}
    signals = pa.concat_tables(pq.read_table(p) for p in sorted((out / "signals").rglob("*.parquet")))
    table = {}
    for row in signals.to_pylist():
        table.setdefault(url_of[row["doc_id"]], []).append({k: row[k] for k in SIGNAL_FIELDS})
    compared = 0
    for url, body in SIGNAL_BODIES.items():
        want = sorted(table.get(url, []), key=lambda r: (r["line"], r["kind"]))
        got = [{k: getattr(s, k) for k in SIGNAL_FIELDS} for s in RobotsTxt(body).signals(url)]
        assert got == want, url
        compared += len(got)
    assert compared == 17, compared
    # Every kind, valid and not, is among the rows compared.
    kinds = {s.kind for b in SIGNAL_BODIES.values() for s in RobotsTxt(b).signals()}
    assert kinds == {"content-usage", "content-signal", "license", "llm-policy", "disallow-ai-training",
                     "tdm-comment", "cloudflare-managed"}
    # Without the robots.txt URL only an absolute License URL resolves.
    licenses = [s for s in RobotsTxt(SIGNAL_BODIES["https://signals.example/robots.txt"]).signals() if s.kind == "license"]
    assert [(s.license_url, s.license_same_host) for s in licenses] == [
        ("https://rsl.example/license.xml", None), (None, None)]
    assert RobotsTxt(SIGNAL_BODIES["https://none.example/robots.txt"]).signals() == []
