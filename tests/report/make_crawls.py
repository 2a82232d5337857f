"""Generate 20 Common Crawl-style robots.txt crawls, the size of a real study, for the report's layout test.

Twenty crawls with real Common Crawl names in time order (CC-MAIN-2024-10 ...
CC-MAIN-2025-43), each two robotstxt WARC files laid out as tests/sites/make_corpus.py
lays them out (a warcinfo record with `isPartOf: <CRAWL>`, then request/response pairs,
each record its own gzip member, under `crawl-data/<CRAWL>/segments/.../robotstxt/`).
About `--hosts` sites per crawl (400 by default): most of them in every crawl, some
appearing or disappearing on the way.

Each agent of the default list (src/verdicts/default_agents.txt) has its own curve of the
share of sites naming it in a `Disallow: /` group: GPTBot rising from about 2% to 35%,
ClaudeBot rising later, anthropic-ai and Claude-Web rising then falling (blocks removed),
CCBot rising then flat, Bytespider up then down, search engines rarely, some agents never.
A site blocks an agent in a crawl when its own fixed draw for that agent is under the
agent's curve, so blocks are added when a curve rises and removed when it falls; a few
agents also churn (a site drops or adds a block for one crawl). Beside that: a few
percent `User-agent: *` + `Disallow: /`, partial blocks, sitemaps, crawl-delays, 404,
5xx and 301 responses, and lint cases: a UTF-16LE body with its byte order mark, a
UTF-16BE one, gzip bytes served as text/plain, an HTML page served with 200, a body with
a Latin-1 byte, misspelled keys, rules outside a group, relative sitemaps.

Deterministic: the same arguments write the same bytes (`--seed` changes the draws).

Writes into OUT_DIR:
  crawl-data/...warc.gz  the inputs
  summary.json           the crawls, the number of sites and the number of sites naming
                         each agent in a full block, per crawl (as generated, to read
                         beside the report)

Usage: python tests/report/make_crawls.py OUT_DIR [--crawls 20] [--hosts 400] [--seed 23]
"""

import argparse
import datetime
import gzip
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sites"))
from make_corpus import member, rid  # noqa: E402  (the WARC record writer, shared)

CRAWLS = [
    "CC-MAIN-2024-10", "CC-MAIN-2024-18", "CC-MAIN-2024-22", "CC-MAIN-2024-26", "CC-MAIN-2024-30",
    "CC-MAIN-2024-33", "CC-MAIN-2024-38", "CC-MAIN-2024-42", "CC-MAIN-2024-46", "CC-MAIN-2024-51",
    "CC-MAIN-2025-05", "CC-MAIN-2025-08", "CC-MAIN-2025-13", "CC-MAIN-2025-18", "CC-MAIN-2025-21",
    "CC-MAIN-2025-26", "CC-MAIN-2025-30", "CC-MAIN-2025-33", "CC-MAIN-2025-38", "CC-MAIN-2025-43",
]


def ramp(start, end, first=0.0, last=1.0):
    """A smooth rise (or fall) from `start` to `end` between fractions `first` and `last` of the crawls."""
    def share(x):
        if x <= first:
            return start
        if x >= last:
            return end
        k = (x - first) / (last - first)
        return start + (end - start) * (0.5 - 0.5 * math.cos(math.pi * k))
    return share


def rise_fall(start, peak, end, at):
    """Up from `start` to `peak` at fraction `at`, then down to `end`."""
    up, down = ramp(start, peak, 0.0, at), ramp(peak, end, at, 1.0)
    return lambda x: up(x) if x <= at else down(x)


def flat(share):
    return lambda x: share


# Share of sites naming each agent in a full block, over x = 0 (first crawl) .. 1 (last).
CURVES = {
    # Search engines: rarely, flat (no blocks added or removed but by churn of sites).
    "Googlebot": flat(0.004),
    "Googlebot-Image": flat(0.012),
    "Googlebot-News": flat(0.0),
    "Bingbot": flat(0.006),
    "Slurp": flat(0.0),
    "DuckDuckBot": flat(0.0),
    "Baiduspider": ramp(0.035, 0.05),
    "YandexBot": ramp(0.03, 0.04, 0.3, 0.6),
    "Applebot": flat(0.003),
    # AI training and assistants.
    "GPTBot": ramp(0.02, 0.35),
    "ChatGPT-User": ramp(0.01, 0.14, 0.2, 1.0),
    "OAI-SearchBot": ramp(0.0, 0.07, 0.5, 1.0),
    "ClaudeBot": ramp(0.005, 0.26, 0.3, 1.0),
    "Claude-Web": rise_fall(0.02, 0.07, 0.035, 0.4),
    "anthropic-ai": rise_fall(0.03, 0.11, 0.06, 0.45),
    "CCBot": ramp(0.05, 0.21, 0.0, 0.45),
    "Google-Extended": ramp(0.03, 0.19, 0.05, 0.8),
    "PerplexityBot": ramp(0.005, 0.13, 0.4, 1.0),
    "Bytespider": rise_fall(0.03, 0.16, 0.10, 0.55),
    "Applebot-Extended": ramp(0.0, 0.09, 0.15, 0.7),
    "Meta-ExternalAgent": ramp(0.0, 0.11, 0.25, 0.9),
    "FacebookBot": flat(0.04),
    "Amazonbot": ramp(0.02, 0.07),
    "cohere-ai": ramp(0.01, 0.06, 0.1, 0.6),
    "Diffbot": ramp(0.015, 0.04),
    "omgili": flat(0.02),
    "ImagesiftBot": ramp(0.005, 0.03, 0.2, 0.5),
    "Timpibot": ramp(0.0, 0.02, 0.5, 0.8),
    "YouBot": flat(0.0),
}
# Agents whose blocks also churn: a site drops or adds its block for one crawl.
CHURN = {"GPTBot": 0.015, "CCBot": 0.01, "Bytespider": 0.02, "PerplexityBot": 0.01, "Amazonbot": 0.01}
# Crawls in which a few sites answer 503 for one crawl (elsewhere no transient errors, so
# flat agents show pairs of crawls without any change).
TRANSIENT_5XX = {4, 13}

PATHS = ["/admin/", "/cart/", "/checkout/", "/search", "/tmp/", "/private/", "/account/",
         "/*?sessionid=", "/*.pdf$", "/cgi-bin/", "/login", "/api/"]
WORDS = ["news", "shop", "blog", "forum", "wiki", "travel", "recipes", "daily", "tech", "music",
         "photo", "games", "sport", "health", "cars", "books", "maps", "learn", "homes", "jobs"]
TLDS = ["com", "org", "net", "de", "co.uk", "fr", "io", "info", "nl", "com.br"]

HTML = "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body><h1>Oops</h1></body></html>\n"
REASONS = {200: "OK", 301: "Moved Permanently", 404: "Not Found", 410: "Gone", 500: "Internal Server Error",
           503: "Service Unavailable"}


class Host:
    """One site: its fixed draws, decided once from the seed."""

    def __init__(self, seed, i, n_crawls):
        r = random.Random(f"{seed}-host-{i}")
        self.name = f"{r.choice(WORDS)}{i}.{r.choice(TLDS)}"
        self.scheme = "https" if r.random() < 0.85 else "http"
        self.u = {a: r.random() for a in CURVES}
        self.partial = {a: r.random() < 0.12 for a in CURVES}
        self.grouped = r.random() < 0.55
        self.star_block = r.random()
        self.paths = r.sample(PATHS, r.randint(0, 4))
        self.sitemap = r.random()
        self.delay = r.choice([1, 2, 5, 10, 30]) if r.random() < 0.08 else None
        self.bing_delay = r.random() < 0.03
        self.typo = r.random() < 0.03
        self.relative_sitemap = r.random() < 0.02
        self.redirects = r.random() < 0.015
        self.status = 404 if r.random() < 0.02 else (410 if r.random() < 0.005 else 200)
        # Lifetime: most sites in every crawl; some appear, some disappear, a few have a gap.
        kind = r.random()
        first, last, gap = 0, n_crawls - 1, None
        if kind < 0.07:
            first = r.randint(1, n_crawls - 2)
        elif kind < 0.12:
            last = r.randint(1, n_crawls - 2)
        elif kind < 0.14:
            g = r.randint(2, n_crawls - 3)
            gap = (g, g + 1)
        self.first, self.last, self.gap = first, last, gap
        self.late_robots = r.random() < 0.03  # 404 until a third of the way, then a file

    def present(self, t):
        return self.first <= t <= self.last and not (self.gap and self.gap[0] <= t <= self.gap[1])


def blocked(host, agent, t, n, seed):
    """Whether `host` names `agent` in a block in crawl t of n."""
    x = t / max(n - 1, 1)
    on = host.u[agent] < CURVES[agent](x)
    churn = CHURN.get(agent, 0.0)
    if churn and random.Random(f"{seed}-churn-{host.name}-{agent}-{t}").random() < churn:
        on = not on
    return on


def body_of(host, t, n, seed):
    """The robots.txt of `host` in crawl t: (text, named agents fully blocked)."""
    x = t / max(n - 1, 1)
    full = [a for a in CURVES if blocked(host, a, t, n, seed) and not host.partial[a]]
    part = [a for a in CURVES if blocked(host, a, t, n, seed) and host.partial[a]]
    lines = []
    if full:
        if host.grouped:
            lines += [f"User-agent: {a}" for a in full] + ["Disallow: /", ""]
        else:
            for a in full:
                lines += [f"User-agent: {a}", "Disallow: /", ""]
    for a in part:
        lines += [f"User-agent: {a}", "Disallow: /content/", "Disallow: /articles/", ""]
    if host.bing_delay:
        lines += ["User-agent: Bingbot", "Crawl-delay: 10", "Disallow: /search", ""]
    lines.append("User-agent: *")
    if host.star_block < 0.025 + 0.015 * x:
        lines.append("Disallow: /")
    else:
        for p in host.paths:
            lines.append(f"Disallow: {p}")
        if "/admin/" in host.paths:
            lines.append("Allow: /admin/public/")
        if host.typo:
            lines.append("Dissallow: /old/")
        if not host.paths:
            lines.append("Disallow:")
    if host.delay is not None:
        lines.append(f"Crawl-delay: {host.delay}")
    lines.append("")
    if host.sitemap < 0.45 + 0.2 * x:
        if host.relative_sitemap:
            lines.append("Sitemap: /sitemap.xml")
        else:
            lines.append(f"Sitemap: https://{host.name}/sitemap.xml")
            if host.sitemap < 0.15:
                lines.append(f"Sitemap: https://{host.name}/news-sitemap.xml")
    return "\n".join(lines) + "\n", full


def capture(url, status, body=b"", ctype="text/plain", ptype="text/plain", location=None):
    return {"url": url, "status": status, "body": body, "content_type": ctype,
            "payload_type": ptype, "location": location}


def lint_captures(t):
    """The fixed sites whose bodies are lint cases (the same in every crawl, some only in a few)."""
    c = [
        # UTF-16LE and UTF-16BE with their byte order marks: Google finds no rules.
        capture("https://utf16le-site.com/robots.txt", 200,
                b"\xff\xfe" + "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n".encode("utf-16-le")),
        capture("https://utf16be-site.org/robots.txt", 200,
                b"\xfe\xff" + "User-agent: *\nDisallow: /admin/\n".encode("utf-16-be")),
        # gzip bytes served as text/plain (a server that compressed twice).
        capture("https://double-gzip.net/robots.txt", 200,
                gzip.compress(b"User-agent: *\nDisallow: /cgi-bin/\n", mtime=0)),
        # An HTML page served with 200.
        capture("https://html-instead.com/robots.txt", 200, HTML.encode(), "text/html; charset=utf-8", "text/html"),
        # A Latin-1 byte (é as 0xE9).
        capture("https://latin1-site.fr/robots.txt", 200,
                b"User-agent: *\nDisallow: /caf\xe9/\nDisallow: /r\xe9sum\xe9s/\n"),
        # Rules before any group, an empty user-agent, two star groups, a bad crawl-delay.
        capture("https://messy-file.io/robots.txt", 200,
                b"Disallow: /early/\nUser-agent:\nDisallow: /x/\n\nUser-agent: *\nDisallow: /a/\n\n"
                b"User-agent: *\nDisallow: /b/\nCrawl-delay: fast\nSitemap: sitemap.xml\n"),
    ]
    if t % 5 == 2:
        # A UTF-8 byte order mark, now and then.
        c.append(capture("https://bom-site.de/robots.txt", 200, b"\xef\xbb\xbfUser-agent: *\nDisallow: /bom/\n"))
    return c


def captures_of(hosts, t, n, seed):
    """The captures of crawl t, in fetch order, and the named full blocks per agent."""
    caps, counts = [], {a: 0 for a in CURVES}
    for h in hosts:
        if not h.present(t):
            continue
        url = f"{h.scheme}://{h.name}/robots.txt"
        status = h.status
        if h.late_robots and t < n // 3:
            status = 404
        if status == 200 and t in TRANSIENT_5XX and random.Random(f"{seed}-5xx-{h.name}-{t}").random() < 0.01:
            status = 503
        if h.redirects:
            target = f"https://www.{h.name}/robots.txt"
            caps.append(capture(url, 301, b"<html>moved</html>", "text/html", "text/html", target))
            url = target
        if status == 200:
            text, full = body_of(h, t, n, seed)
            for a in full:
                counts[a] += 1
            caps.append(capture(url, 200, text.encode()))
        elif status in (404, 410):
            caps.append(capture(url, status, HTML.encode(), "text/html", "text/html"))
        else:
            caps.append(capture(url, status, b"", "text/html", "text/html"))
    caps.extend(lint_captures(t))
    return caps, counts


def http_head(cap):
    lines = [f"HTTP/1.1 {cap['status']} {REASONS[cap['status']]}"]
    if cap["content_type"]:
        lines.append(f"Content-Type: {cap['content_type']}")
    if cap["location"] is not None:
        lines.append(f"Location: {cap['location']}")
    lines.append(f"Content-Length: {len(cap['body'])}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def crawl_start(crawl):
    """The Monday of the crawl's ISO week (CC-MAIN-YYYY-WW)."""
    _, _, year, week = crawl.split("-")
    return datetime.datetime.combine(datetime.date.fromisocalendar(int(year), int(week), 1), datetime.time(),
                                     tzinfo=datetime.timezone.utc)


def write_crawl(out, crawl, caps):
    start = crawl_start(crawl)
    day = start.strftime("%Y%m%d")
    segment = f"{int(start.timestamp() * 1000)}.{CRAWLS.index(crawl) if crawl in CRAWLS else 0}"
    files = [bytearray(), bytearray()]
    paths = []
    for f in range(2):
        name = f"CC-MAIN-{day}000000-{f:05d}.warc.gz"
        paths.append(os.path.join(out, "crawl-data", crawl, "segments", segment, "robotstxt", name))
        info = f"isPartOf: {crawl}\r\nsoftware: make_crawls.py\r\n".encode()
        files[f] += member("warcinfo", [("WARC-Date", start.strftime("%Y-%m-%dT%H:%M:%SZ")),
                                        ("WARC-Record-ID", rid(crawl, name)), ("WARC-Filename", name),
                                        ("Content-Type", "application/warc-fields")], info)
    for i, cap in enumerate(caps):
        # Distinct fetch times, seven seconds apart, in the order listed.
        date = (start + datetime.timedelta(seconds=7 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        f = files[i % 2]
        req = f"GET /{cap['url'].split('/', 3)[3]} HTTP/1.1\r\nUser-Agent: CCBot\r\n\r\n"
        f += member("request", [("WARC-Date", date), ("WARC-Record-ID", rid(crawl, cap["url"], date, "q")),
                                ("WARC-Target-URI", cap["url"]), ("Content-Type", "application/http; msgtype=request")],
                    req.encode())
        headers = [("WARC-Date", date), ("WARC-Record-ID", rid(crawl, cap["url"], date, "r")),
                   ("WARC-Target-URI", cap["url"]), ("Content-Type", "application/http; msgtype=response")]
        if cap["payload_type"]:
            headers.append(("WARC-Identified-Payload-Type", cap["payload_type"]))
        f += member("response", headers, http_head(cap) + cap["body"])
    for path, data in zip(paths, files):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(bytes(data))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--crawls", type=int, default=20, help=f"how many crawls (at most {len(CRAWLS)})")
    p.add_argument("--hosts", type=int, default=400, help="sites per crawl, about")
    p.add_argument("--seed", default="23")
    args = p.parse_args()
    if not 1 <= args.crawls <= len(CRAWLS):
        p.error(f"--crawls must be 1..{len(CRAWLS)}")
    crawls = CRAWLS[:args.crawls]
    n = len(crawls)
    # About 10% of the pool is missing from any one crawl (late, gone or in a gap).
    hosts = [Host(args.seed, i, n) for i in range(round(args.hosts * 1.1))]
    summary = {"crawls": crawls, "sites": [], "named_full_blocks": {a: [] for a in CURVES}}
    for t, crawl in enumerate(crawls):
        caps, counts = captures_of(hosts, t, n, args.seed)
        write_crawl(args.out, crawl, caps)
        summary["sites"].append(sum(h.present(t) for h in hosts))
        for a, k in counts.items():
            summary["named_full_blocks"][a].append(k)
    with open(os.path.join(args.out, "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1)


if __name__ == "__main__":
    main()
