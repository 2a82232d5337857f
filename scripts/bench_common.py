"""Shared helpers for the benchmark scripts: corpus discovery, WARC record framing, agents,
the study steps' result tables.

Everything here is deterministic. The corpus bodies are read from ``<shared>/corpus/robots``
(``../shared`` beside the repository) and never copied into the repository.
"""

import base64
import gzip
import hashlib
from pathlib import Path

# Google's production cap on a robots.txt body (robots.cc has none; Google cuts here).
GOOGLE_BODY_CAP = 512_000

# The 20 agents asked about every document, in the verdict benchmark and in the Python
# baseline. Search engines, AI crawlers and SEO tools: the questions a census asks.
BENCH_AGENTS = [
    "Googlebot", "Bingbot", "GPTBot", "ChatGPT-User", "OAI-SearchBot",
    "CCBot", "ClaudeBot", "anthropic-ai", "Google-Extended", "PerplexityBot",
    "Bytespider", "Amazonbot", "Applebot", "Applebot-Extended", "meta-externalagent",
    "YandexBot", "Baiduspider", "DuckDuckBot", "AhrefsBot", "SemrushBot",
]


def corpus_body_paths(shared):
    """All corpus bodies, ``<shared>/corpus/robots/**/*.txt``, in a stable order."""
    root = Path(shared) / "corpus" / "robots"
    paths = sorted(p for p in root.rglob("*.txt") if p.is_file())
    if not paths:
        raise SystemExit(f"no robots.txt bodies under {root}: is ../shared beside the repo?")
    return paths


def load_corpus(shared, cap=GOOGLE_BODY_CAP):
    """Return ``[(relative_path, body_bytes_capped)]`` for every corpus body."""
    root = Path(shared) / "corpus" / "robots"
    return [(str(p.relative_to(root)), p.read_bytes()[:cap]) for p in corpus_body_paths(shared)]


def sha1_base32(*chunks):
    """WARC digest form: ``sha1:`` and the base32 of the SHA-1 of the concatenated chunks."""
    h = hashlib.sha1()
    for chunk in chunks:
        h.update(chunk)
    return "sha1:" + base64.b32encode(h.digest()).decode("ascii")


def warc_header(fields):
    """Serialise ``[(name, value)]`` as a WARC/1.0 header block ending in the blank line."""
    lines = ["WARC/1.0"] + [f"{name}: {value}" for name, value in fields]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def gzip_member(data, level=6):
    """One gzip member with mtime 0, so output files are byte-for-byte reproducible."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def read_questions(path, shared, every, cap=None):
    """``(agents, [(body, [urls])])`` for every ``every``-th body of ``questions.tsv``
    (20 agents x 5 URLs per corpus body); bodies cut at ``cap`` bytes when given."""
    root = Path(shared) / "corpus" / "robots"
    lines = Path(path).read_text("utf-8").splitlines()
    agents = lines[0].split("\t")[1:]
    docs = []
    for i, line in enumerate(lines[1:]):
        if i % every:
            continue
        rel, *urls = line.split("\t")
        docs.append(((root / rel).read_bytes()[:cap], urls))
    return agents, docs


def ratio_table(heading, intro, rows):
    """A study-step bench section: HEADING, the INTRO lines, then one table row per
    result (captures, what, s, peak RSS, and the ratio to the `run ...` row of the same
    captures in the same bench run). No rows: no section."""
    if not rows:
        return []
    out = [heading, "", *intro, "",
           "| captures | what | s | µs per capture | peak RSS MiB | x run |",
           "|---|---|---|---|---|---|"]
    runs = {r["captures"]: r["seconds"] for r in rows if r["what"].startswith("run ")}
    for r in rows:
        base = runs.get(r["captures"])
        ratio = r["seconds"] / base if base else float("nan")
        per = r["seconds"] / r["n"] * 1e6 if r.get("n") else float("nan")
        out.append(f"| {r['captures']} | {r['what']} | {r['seconds']:.2f} | {per:.2f} "
                   f"| {r['rss_mib']:.0f} | {ratio:.2f} |")
    return out + [""]
