"""Build the benchmark inputs from the shared robots.txt corpus, deterministically.

Writes, into the output directory (``bench-out`` by default):

- ``cc.warc.gz``      a Common Crawl robotstxt-style WARC: one ``warcinfo`` record, then a
                      ``request``/``response`` pair per capture, every record its own gzip
                      member, WARC/1.0 headers in Common Crawl's order, HTTP headers with the
                      original ``Content-Encoding``/``Content-Length``/``Transfer-Encoding``
                      renamed ``X-Crawler-...``, bodies over 1 MiB cut and marked
                      ``WARC-Truncated: length``.
- ``cc-small.warc.gz`` the first ``--small`` captures of the same stream (for the slow
                      Python baseline, which cannot do 100,000 captures in a short run).
- ``cc.csv``, ``cc.csv.gz``  the same captures as ``url,status,body`` (body bytes kept exact).
- ``questions.tsv``   the verdict benchmark: a header line with the 20 agents, then one line
                      per corpus body: its path under corpus/robots and 5 URLs to ask about.
- ``corpus.json``     what was written (counts, sizes, seed).

Status mix per capture: ~75% 200 with a corpus body, ~15% 404/403/410 with a small HTML
page, ~5% 5xx, ~5% 301/302 with an HTML body. Hosts are ``www.site<N>.example`` over http
and https, drawn so that hosts repeat (re-fetches, both schemes), as in a real crawl.

Usage: make_bench_corpus.py [--shared ../shared] [--out bench-out] [--responses 100000]
"""

import argparse
import csv
import gzip
import json
import random
import shutil
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench_common import BENCH_AGENTS, corpus_body_paths, gzip_member, sha1_base32, warc_header

CC_TRUNCATE = 1 << 20  # Common Crawl cuts stored payloads at 1 MiB.
CRAWL = "CC-MAIN-2026-47"
START = datetime(2026, 11, 10, 3, 0, 0, tzinfo=timezone.utc)

REASONS = {
    200: "OK", 301: "Moved Permanently", 302: "Found", 403: "Forbidden", 404: "Not Found",
    410: "Gone", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
}
# (cumulative probability, status)
STATUS_MIX = [
    (0.75, 200),
    (0.84, 404), (0.885, 403), (0.90, 410),
    (0.92, 500), (0.935, 502), (0.95, 503),
    (0.98, 301), (1.00, 302),
]
SERVERS = ["nginx", "Apache", "cloudflare", "Microsoft-IIS/10.0", "LiteSpeed", "openresty"]
SYNTHETIC_PATHS = [
    "/", "/index.html", "/search?q=robots", "/wp-admin/admin-ajax.php", "/products/item-42.html",
    "/cgi-bin/test.cgi", "/%E3%83%86%E3%82%B9%E3%83%88/", "/user/login?next=/", "/api/v1/items",
    "/static/css/site.css", "/blog/2024/05/hello-world", "/tag/news/page/3/",
]


def pick_status(rng):
    x = rng.random()
    for bound, status in STATUS_MIX:
        if x < bound:
            return status
    return 200


def error_page(status, host):
    reason = REASONS[status]
    return (
        f"<!DOCTYPE html>\n<html><head><title>{status} {reason}</title></head>\n"
        f"<body><h1>{reason}</h1><p>{status} {reason}: /robots.txt on {host}.</p>"
        f"<hr><address>Server at {host} Port 443</address></body></html>\n"
    ).encode("ascii")


def looks_html(body):
    head = body[:512].lstrip().lower()
    return head.startswith(b"<!doctype") or head.startswith(b"<html") or b"<html" in head


class Capture:
    """One synthetic fetch of /robots.txt: what the request and response records carry."""

    def __init__(self, rng, index, n_hosts, bodies, order):
        self.status = pick_status(rng)
        self.scheme = "https" if rng.random() < 0.6 else "http"
        self.host = f"www.site{rng.randrange(n_hosts)}.example"
        self.url = f"{self.scheme}://{self.host}/robots.txt"
        self.date = START + timedelta(seconds=index * 3 + rng.randrange(3))
        self.ip = f"{rng.choice(['192.0.2', '198.51.100', '203.0.113'])}.{rng.randrange(1, 255)}"
        self.request_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        self.response_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        self.server = rng.choice(SERVERS)
        self.gzip_on_wire = rng.random() < 0.4
        self.chunked = rng.random() < 0.2
        self.location = None
        if self.status == 200:
            self.body = bodies[order[index % len(order)]]
            self.mime = "text/html" if looks_html(self.body) else "text/plain"
        elif self.status in (301, 302):
            self.location = f"https://{self.host}/robots.txt" if self.scheme == "http" else (
                f"https://{self.host.removeprefix('www.')}/robots.txt")
            self.body = (
                f"<html><head><title>{self.status} {REASONS[self.status]}</title></head><body>"
                f"<p>The document has moved <a href=\"{self.location}\">here</a>.</p>"
                "</body></html>\n").encode("ascii")
            self.mime = "text/html"
        elif self.status >= 500 and rng.random() < 0.3:
            self.body = b""
            self.mime = "application/octet-stream"
        else:
            self.body = error_page(self.status, self.host)
            self.mime = "text/html"
        self.truncated = len(self.body) > CC_TRUNCATE
        self.payload = self.body[:CC_TRUNCATE]

    def http_date(self):
        return self.date.strftime("%a, %d %b %Y %H:%M:%S GMT")

    def warc_date(self):
        return self.date.strftime("%Y-%m-%dT%H:%M:%SZ")

    def request_block(self):
        return (
            "GET /robots.txt HTTP/1.1\r\n"
            "User-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)\r\n"
            "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
            "Accept-Language: en-US,en;q=0.5\r\n"
            "Accept-Encoding: br,gzip\r\n"
            f"Host: {self.host}\r\n"
            "Connection: Keep-Alive\r\n\r\n"
        ).encode("ascii")

    def response_head(self):
        lines = [f"HTTP/1.1 {self.status} {REASONS[self.status]}", f"Date: {self.http_date()}",
                 f"Server: {self.server}"]
        charset = "; charset=utf-8" if self.mime.startswith("text/") else ""
        lines.append(f"Content-Type: {self.mime}{charset}")
        if self.location:
            lines.append(f"Location: {self.location}")
        if self.status == 503:
            lines.append("Retry-After: 3600")
        # Common Crawl stores the payload decoded and renames the transport headers.
        if self.chunked:
            lines.append("X-Crawler-Transfer-Encoding: chunked")
        elif self.gzip_on_wire:
            lines.append(f"X-Crawler-Content-Length: {len(self.body) // 4 + 20}")
        else:
            lines.append(f"X-Crawler-Content-Length: {len(self.body)}")
        if self.gzip_on_wire:
            lines.append("X-Crawler-Content-Encoding: gzip")
        lines.append(f"Content-Length: {len(self.payload)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")

    def records(self, warcinfo_id):
        """The request and response records, WARC headers in Common Crawl's order."""
        req = self.request_block()
        req_head = warc_header([
            ("WARC-Type", "request"), ("WARC-Date", self.warc_date()),
            ("WARC-Record-ID", f"<urn:uuid:{self.request_id}>"),
            ("Content-Length", len(req)),
            ("Content-Type", "application/http; msgtype=request"),
            ("WARC-Warcinfo-ID", f"<urn:uuid:{warcinfo_id}>"),
            ("WARC-IP-Address", self.ip), ("WARC-Target-URI", self.url),
            ("WARC-Block-Digest", sha1_base32(req)),
        ])
        head = self.response_head()
        fields = [
            ("WARC-Type", "response"), ("WARC-Date", self.warc_date()),
            ("WARC-Record-ID", f"<urn:uuid:{self.response_id}>"),
            ("Content-Length", len(head) + len(self.payload)),
            ("Content-Type", "application/http; msgtype=response"),
            ("WARC-Warcinfo-ID", f"<urn:uuid:{warcinfo_id}>"),
            ("WARC-Concurrent-To", f"<urn:uuid:{self.request_id}>"),
            ("WARC-IP-Address", self.ip), ("WARC-Target-URI", self.url),
            ("WARC-Payload-Digest", sha1_base32(self.payload)),
            ("WARC-Block-Digest", sha1_base32(head, self.payload)),
        ]
        if self.truncated:
            fields.append(("WARC-Truncated", "length"))
        fields.append(("WARC-Identified-Payload-Type", self.mime))
        return (req_head + req + b"\r\n\r\n", warc_header(fields) + head + self.payload + b"\r\n\r\n")


def warcinfo_record(rng, filename):
    info_id = uuid.UUID(int=rng.getrandbits(128), version=4)
    block = (
        f"isPartOf: {CRAWL}\r\npublisher: Common Crawl\r\n"
        "description: Synthetic robots.txt captures for robots-census benchmarks\r\n"
        "operator: Common Crawl Admin (info@commoncrawl.org)\r\n"
        "hostname: bench.example\r\n"
        "software: Apache Nutch 1.20 (modified, https://github.com/commoncrawl/nutch/)\r\n"
        "robots: checked via crawler-commons 1.5 (https://github.com/crawler-commons/crawler-commons)\r\n"
        "format: WARC File Format 1.1\r\n"
        "conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
    ).encode("ascii")
    head = warc_header([
        ("WARC-Type", "warcinfo"), ("WARC-Date", START.strftime("%Y-%m-%dT%H:%M:%SZ")),
        ("WARC-Filename", filename), ("WARC-Record-ID", f"<urn:uuid:{info_id}>"),
        ("Content-Type", "application/warc-fields"), ("Content-Length", len(block)),
    ])
    return info_id, head + block + b"\r\n\r\n"


def write_captures(args, bodies):
    """Stream the WARCs and the CSV; return counts for the manifest."""
    rng = random.Random(args.seed)
    order = list(range(len(bodies)))
    rng.shuffle(order)
    n_hosts = max(1, int(args.responses * 0.8))
    out = Path(args.out)
    statuses = {}
    with open(out / "cc.warc.gz", "wb") as warc, open(out / "cc-small.warc.gz", "wb") as small, \
            open(out / "cc.csv", "w", encoding="latin-1", newline="") as csv_file:
        # latin-1 maps bytes 0..255 to code points 0..255, so the CSV keeps body bytes exact.
        writer = csv.writer(csv_file)
        writer.writerow(["url", "status", "body"])
        info_id, info = warcinfo_record(rng, "cc.warc.gz")
        member = gzip_member(info)
        warc.write(member)
        small.write(member)
        for i in range(args.responses):
            cap = Capture(rng, i, n_hosts, bodies, order)
            statuses[cap.status] = statuses.get(cap.status, 0) + 1
            for record in cap.records(info_id):
                member = gzip_member(record)
                warc.write(member)
                if i < args.small:
                    small.write(member)
            writer.writerow([cap.url, cap.status, cap.payload.decode("latin-1")])
    return statuses


def gzip_file(src, dst):
    with open(src, "rb") as fin, open(dst, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)


def write_questions(args, rel_paths, rng):
    """5 URLs per corpus body: real page URLs of its host when the corpus has them."""
    urls_dir = Path(args.shared) / "corpus" / "urls" / "anubhavp28"
    with open(Path(args.out) / "questions.tsv", "w", encoding="utf-8", newline="\n") as out:
        out.write("#agents\t" + "\t".join(BENCH_AGENTS) + "\n")
        for rel in rel_paths:
            host = Path(rel).stem
            known = urls_dir / f"{host}.txt"
            pool = []
            if known.is_file():
                pool = [u for u in known.read_text("utf-8", "replace").splitlines()
                        if u.startswith("http") and "\t" not in u and u.isascii()]
            if len(pool) >= 5:
                urls = rng.sample(pool, 5)
            else:
                urls = pool + [f"https://{host}{p}" for p in rng.sample(SYNTHETIC_PATHS, 5 - len(pool))]
            out.write(rel + "\t" + "\t".join(urls) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)

    paths = corpus_body_paths(args.shared)
    root = Path(args.shared) / "corpus" / "robots"
    rel_paths = [str(p.relative_to(root)) for p in paths]
    bodies = [p.read_bytes() for p in paths]

    statuses = write_captures(args, bodies)
    out = Path(args.out)
    gzip_file(out / "cc.csv", out / "cc.csv.gz")
    write_questions(args, rel_paths, random.Random(args.seed + 1))

    manifest = {
        "seed": args.seed, "responses": args.responses, "small_responses": min(args.small, args.responses),
        "corpus_bodies": len(bodies), "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "files": {name: (out / name).stat().st_size for name in
                  ["cc.warc.gz", "cc-small.warc.gz", "cc.csv", "cc.csv.gz", "questions.tsv"]},
    }
    (out / "corpus.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
