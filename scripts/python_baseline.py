"""The Python baseline: a robots.txt census the way a researcher would write it.

warcio's ArchiveIterator over the WARC, Google's parser from PyPI (``jwm-robotstxt``) for
rules and verdicts, pyarrow for the Parquet output. Rows are collected in lists and
written once at the end. Three tables, in ``--out``:

- ``documents.parquet``  one row per response: url, host, scheme, status, bytes, sha1,
                         number of rules, parse error (the binding raises on non-UTF-8 values)
- ``rules.parquet``      one row per user-agent/allow/disallow/sitemap/other line of a 200 body
- ``verdicts.parquet``   one row per (200 body, agent): is the agent allowed at the site root
                         ``/``, and which line decided, for the 20 agents of bench_common

Bodies are cut at 512,000 bytes before parsing, as Google does, so the verdicts agree
with robots-census. The whole run is single-threaded, as such scripts usually are.

Usage: python_baseline.py INPUT.warc.gz --out DIR
"""

import argparse
import hashlib
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.parquet as pq
from jwm.robotstxt import googlebot
from warcio.archiveiterator import ArchiveIterator

from bench_common import BENCH_AGENTS, GOOGLE_BODY_CAP


class RuleCollector(googlebot.RobotsParseHandler):
    """Appends one row per directive of one body to the shared ``rules`` columns."""

    def __init__(self, rules, url):
        super().__init__()
        self.rules = rules
        self.url = url
        self.count = 0

    def add(self, line, directive, value):
        self.rules["url"].append(self.url)
        self.rules["line"].append(line)
        self.rules["directive"].append(directive)
        self.rules["value"].append(value)
        self.count += 1

    def HandleRobotsStart(self):
        pass

    def HandleRobotsEnd(self):
        pass

    def HandleUserAgent(self, line, value):
        self.add(line, "user-agent", value)

    def HandleAllow(self, line, value):
        self.add(line, "allow", value)

    def HandleDisallow(self, line, value):
        self.add(line, "disallow", value)

    def HandleSitemap(self, line, value):
        self.add(line, "sitemap", value)

    def HandleUnknownAction(self, line, action, value):
        self.add(line, action.lower(), value)

    def ReportLineMetadata(self, line, metadata):
        pass


def columns(*names):
    return {name: [] for name in names}


def census(path):
    documents = columns("url", "host", "scheme", "status", "bytes", "sha1", "n_rules", "parse_error")
    rules = columns("url", "line", "directive", "value")
    verdicts = columns("url", "agent", "path", "allowed", "line")
    matcher = googlebot.RobotsMatcher()
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response":
                continue
            url = record.rec_headers.get_header("WARC-Target-URI")
            status = int(record.http_headers.get_statuscode())
            body = record.content_stream().read()
            parts = urlsplit(url)
            n_rules, error = 0, None
            if status == 200:
                body = body[:GOOGLE_BODY_CAP]
                collector = RuleCollector(rules, url)
                try:
                    googlebot.ParseRobotsTxt(body, collector)
                except UnicodeDecodeError as exc:
                    error = str(exc)
                n_rules = collector.count
                root = f"{parts.scheme}://{parts.netloc}/"
                for agent in BENCH_AGENTS:
                    allowed = matcher.OneAgentAllowedByRobots(body, agent, root)
                    verdicts["url"].append(url)
                    verdicts["agent"].append(agent)
                    verdicts["path"].append("/")
                    verdicts["allowed"].append(allowed)
                    verdicts["line"].append(matcher.matching_line())
            documents["url"].append(url)
            documents["host"].append(parts.hostname)
            documents["scheme"].append(parts.scheme)
            documents["status"].append(status)
            documents["bytes"].append(len(body))
            documents["sha1"].append(hashlib.sha1(body).hexdigest())
            documents["n_rules"].append(n_rules)
            documents["parse_error"].append(error)
    return {"documents": documents, "rules": rules, "verdicts": verdicts}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    start = time.perf_counter()
    tables = census(args.input)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = {}
    for name, cols in tables.items():
        pq.write_table(pa.table(cols), out / f"{name}.parquet", compression="zstd")
        rows[name] = len(next(iter(cols.values())))
    rows["seconds"] = round(time.perf_counter() - start, 3)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
