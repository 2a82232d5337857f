"""Generate a multi-crawl robots.txt corpus for the `sites` step, with its ground truth.

Three crawls (CC-MAIN-2023-50, CC-MAIN-2024-10, CC-MAIN-2024-33), each two Common
Crawl-style robotstxt WARC files (a warcinfo record with `isPartOf: <CRAWL>`, then
request/response pairs, each record its own gzip member), under
`crawl-data/<CRAWL>/segments/.../robotstxt/` as Common Crawl lays them out. The same hosts
appear in every crawl, with: rules added and removed between crawls; http and https
captures; refetches whose latest capture differs; 301 chains of 1, 5 and 6 hops; a
cross-host redirect to www.; a redirect to a URL never captured; a redirect loop; a 3xx
without Location; a relative Location; 204, 401, 403, 404, 410, 429 and 503 responses;
HTML served with 200; a port; a revisit record; subdomains under one registrable domain
(example.com, example.co.uk, example.org, example.info); a site that appears in the second
crawl and changes its rules and sitemap in the third; one that disappears (xcrawl.org).

Writes into OUT_DIR:
  crawl-data/...warc.gz  the inputs
  ranks.csv              a Tranco-style `rank,host` list (no header)
  truth.json             every capture as generated (crawl, url, date, status, headers,
                         body, record type), the registrable domain of every host (by
                         construction, not computed), the ranks, the crawls and agents.

Usage: python tests/sites/make_corpus.py OUT_DIR
"""

import gzip
import hashlib
import io
import json
import os
import sys
import uuid

CRAWLS = [
    ("CC-MAIN-2023-50", "2023-11-28", "1700000000000.1"),
    ("CC-MAIN-2024-10", "2024-02-20", "1708000000000.2"),
    ("CC-MAIN-2024-33", "2024-08-05", "1722000000000.3"),
]
AGENTS = ["CCBot", "ClaudeBot", "GPTBot", "Googlebot"]

STAR_PRIVATE = "User-agent: *\nDisallow: /private/\n"
GPT_BLOCK = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
ALL_BLOCK = "User-agent: *\nDisallow: /\n"
EXCEPT = "User-agent: *\nDisallow: /\nAllow: /public/\n"
CC_ALLOW = "User-agent: CCBot\nAllow: /\n\nUser-agent: *\nDisallow: /tmp/\n"
NO_RULES = "# nothing to see\nSitemap: https://norules.org/sitemap.xml\n"
OTHER_BOT = "User-agent: SomeBot\nDisallow: /\n"
ROOT_ONLY = "User-agent: *\nAllow: /$\nDisallow: /\n"
TIE = "User-agent: GPTBot\nDisallow: /x\nAllow: /x\n"
CLAUDE = "User-agent: ClaudeBot\nAllow: /*\n\nUser-agent: Googlebot\nDisallow:\n\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /*.pdf$\n"
NAMED_ALL = "User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
FRESH = ["User-agent: *\nDisallow: /old/\nSitemap: https://fresh.org/a.xml\n",
         "User-agent: GPTBot\nDisallow: /café/\n\nUser-agent: *\nDisallow: /old/\nDisallow: /new/\n"
         "Sitemap: https://fresh.org/b.xml\n"]
HTML = "<!DOCTYPE html>\n<html><body><p>User-agent: * is not here</p></body></html>\n"

# The registrable domain of every host, written by hand (Public Suffix List rules:
# co.uk is a public suffix, so example.co.uk is registrable).
REGISTRABLE = {
    "changing.example.com": "example.com",
    "www.example.com": "example.com",
    "example.com": "example.com",
    "refetch.example.org": "example.org",
    "missing.example.org": "example.org",
    "nocapture.example.org": "example.org",
    "chain1.example.net": "example.net",
    "example.net": "example.net",
    "www.example.net": "example.net",
    "chain5.example.net": "example.net",
    "chain6.example.net": "example.net",
    "status204.org": "status204.org",
    "status401.com": "status401.com",
    "status403.com": "status403.com",
    "status404.com": "status404.com",
    "status410.com": "status410.com",
    "status429.com": "status429.com",
    "status503.com": "status503.com",
    "mixed.example.info": "example.info",
    "porty.example.info": "example.info",
    "htmlpage.org": "htmlpage.org",
    "shop.example.co.uk": "example.co.uk",
    "blog.example.co.uk": "example.co.uk",
    "example.co.uk": "example.co.uk",
    "norules.org": "norules.org",
    "otherbot.org": "otherbot.org",
    "xcrawl.org": "xcrawl.org",
    "loop.org": "loop.org",
    "noloc.org": "noloc.org",
    "revisit.org": "revisit.org",
    "unranked.org": "unranked.org",
    "named.org": "named.org",
    "ghost.net": "ghost.net",
    "fresh.org": "fresh.org",
}
for i in range(1, 7):
    REGISTRABLE[f"hop{i}.chain5.example.net"] = "example.net"
    REGISTRABLE[f"hop{i}.chain6.example.net"] = "example.net"

RANKS = [
    (1, "changing.example.com"), (2, "refetch.example.org"), (3, "chain1.example.net"),
    (4, "www.example.com"), (6, "example.com"),
    (10, "status401.com"), (11, "status403.com"), (12, "status404.com"),
    (13, "status429.com"), (14, "status503.com"), (15, "htmlpage.org"),
    (16, "status410.com"), (17, "status204.org"),
    (30, "shop.example.co.uk"), (31, "blog.example.co.uk"), (32, "example.co.uk"),
    (40, "porty.example.info"), (41, "norules.org"), (42, "otherbot.org"),
    (43, "xcrawl.org"), (44, "loop.org"), (45, "revisit.org"), (46, "noloc.org"),
    (47, "mixed.example.info"), (48, "named.org"),
    (100, "nocapture.example.org"),
    (5000, "chain5.example.net"), (20000, "chain6.example.net"),
    (70000, "example.net"), (500000, "missing.example.org"), (1500000, "ghost.net"),
]


def capture(url, status, body="", ctype="text/plain", ptype="text/plain", location=None, kind="response"):
    return {"url": url, "status": status, "body": body, "content_type": ctype,
            "payload_type": ptype, "location": location, "kind": kind}


def redirect(url, location, status=301):
    return capture(url, status, "<html>moved</html>", "text/html", "text/html", location)


def chain(name, hops):
    """A chain of `hops` redirects from https://<name>/robots.txt to a 200."""
    urls = [f"https://{name}/robots.txt"] + [f"https://hop{i}.{name}/r{i}.txt" for i in range(1, hops)]
    urls.append(f"https://hop{hops}.{name}/robots-final.txt")
    caps = [redirect(urls[i], urls[i + 1]) for i in range(hops)]
    caps.append(capture(urls[-1], 200, ALL_BLOCK))
    return caps


def captures_of(n):
    """The captures of crawl number n (0, 1, 2), in fetch order."""
    c = []
    # Rules added (crawl 1) and removed again (crawl 2); http redirects to https.
    c.append(redirect("http://changing.example.com/robots.txt", "https://changing.example.com/robots.txt"))
    c.append(capture("https://changing.example.com/robots.txt", 200, GPT_BLOCK if n == 1 else STAR_PRIVATE))
    c.append(capture("https://www.example.com/robots.txt", 200, ROOT_ONLY))
    c.append(capture("https://example.com/robots.txt", 404, HTML, "text/html", "text/html"))
    # Refetches whose latest capture differs.
    if n == 0:
        c.append(capture("https://refetch.example.org/robots.txt", 200, GPT_BLOCK))
        c.append(capture("http://refetch.example.org/robots.txt", 503, "", "text/html", "text/html"))
        c.append(capture("https://refetch.example.org/robots.txt", 200, ALL_BLOCK))
    elif n == 1:
        c.append(capture("http://refetch.example.org/robots.txt", 200, STAR_PRIVATE))
        c.append(capture("https://refetch.example.org/robots.txt", 200, GPT_BLOCK))
        c.append(capture("https://refetch.example.org/robots.txt", 503, "", "text/html", "text/html"))
    else:
        c.append(capture("https://refetch.example.org/robots.txt", 503, "", "text/html", "text/html"))
        c.append(capture("https://refetch.example.org/robots.txt", 200, NAMED_ALL))
    # One hop, relative Location, to a URL that is not a /robots.txt.
    c.append(redirect("http://chain1.example.net/robots.txt", "/robots-v2.txt"))
    c.append(capture("http://chain1.example.net/robots-v2.txt", 200, EXCEPT))
    # Five hops (followed) and six (the sixth is not).
    c.extend(chain("chain5.example.net", 5))
    c.extend(chain("chain6.example.net", 6))
    # Cross-host redirect to www.
    c.append(redirect("http://example.net/robots.txt", "https://www.example.net/robots.txt"))
    c.append(capture("https://www.example.net/robots.txt", 200, GPT_BLOCK))
    # A redirect to a URL never captured.
    c.append(redirect("https://missing.example.org/robots.txt", "https://missing.example.org/robots-new.txt", 302))
    # Statuses.
    c.append(capture("https://status204.org/robots.txt", 204, ""))
    c.append(capture("https://status401.com/robots.txt", 401, HTML, "text/html", "text/html"))
    c.append(capture("https://status403.com/robots.txt", 403, HTML, "text/html", "text/html"))
    if n < 2:
        c.append(capture("https://status404.com/robots.txt", 404, HTML, "text/html", "text/html"))
    else:
        c.append(capture("https://status404.com/robots.txt", 200, CC_ALLOW))
    c.append(capture("https://status410.com/robots.txt", 410, ""))
    c.append(capture("https://status429.com/robots.txt", 429, ""))
    c.append(capture("https://status503.com/robots.txt", 503, HTML, "text/html", "text/html"))
    c.append(capture("http://mixed.example.info/robots.txt", 503, ""))
    c.append(capture("https://mixed.example.info/robots.txt", 404, ""))
    # HTML served with 200 (detected type text/html), and a text/plain body without a
    # detected type (the Content-Type decides).
    c.append(capture("https://htmlpage.org/robots.txt", 200, HTML, "text/html; charset=utf-8", "text/html"))
    c.append(capture("https://norules.org/robots.txt", 200, NO_RULES, "text/plain; charset=utf-8", None))
    # Subdomains under example.co.uk.
    c.append(capture("https://shop.example.co.uk/robots.txt", 200, STAR_PRIVATE))
    c.append(capture("https://blog.example.co.uk/robots.txt", 404, HTML, "text/html", "text/html"))
    c.append(capture("https://example.co.uk/robots.txt", 200, CC_ALLOW))
    # A port, and allow winning a tie.
    c.append(capture("http://porty.example.info:8080/robots.txt", 503, ""))
    c.append(capture("https://porty.example.info/robots.txt", 200, TIE))
    c.append(capture("https://otherbot.org/robots.txt", 200, OTHER_BOT))
    # The redirect target is captured only in the first crawl.
    if n == 0:
        c.append(capture("https://xcrawl.org/robots.txt", 200, ALL_BLOCK))
    if n < 2:
        c.append(redirect("http://xcrawl.org/robots.txt", "https://xcrawl.org/robots.txt"))
    # A loop, and a redirect without a Location.
    c.append(redirect("http://loop.org/robots.txt", "https://loop.org/robots.txt"))
    c.append(redirect("https://loop.org/robots.txt", "http://loop.org/robots.txt", 302))
    c.append(redirect("https://noloc.org/robots.txt", None, 302))
    if n == 0:
        c.append(capture("https://revisit.org/robots.txt", 200, "", kind="revisit"))
    c.append(capture("https://unranked.org/robots.txt", 200, CLAUDE))
    c.append(capture("https://named.org/robots.txt", 200, NAMED_ALL if n != 1 else CLAUDE))
    # Appears in the second crawl; its sitemap and rules change in the third.
    if n >= 1:
        c.append(capture("https://fresh.org/robots.txt", 200, FRESH[n - 1], "text/plain; charset=utf-8"))
    return c


REASONS = {200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found", 401: "Unauthorized",
           403: "Forbidden", 404: "Not Found", 410: "Gone", 429: "Too Many Requests",
           503: "Service Unavailable"}


def rid(*parts):
    return "<urn:uuid:" + str(uuid.UUID(bytes=hashlib.md5("|".join(parts).encode()).digest())) + ">"


def member(warc_type, headers, block):
    lines = [b"WARC/1.0", b"WARC-Type: " + warc_type.encode()]
    lines += [k.encode() + b": " + v.encode() for k, v in headers]
    lines.append(b"Content-Length: " + str(len(block)).encode())
    data = b"\r\n".join(lines) + b"\r\n\r\n" + block + b"\r\n\r\n"
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as g:
        g.write(data)
    return buf.getvalue()


def http_head(cap):
    body = cap["body"].encode()
    lines = [f"HTTP/1.1 {cap['status']} {REASONS[cap['status']]}"]
    if cap["content_type"]:
        lines.append(f"Content-Type: {cap['content_type']}")
    if cap["location"] is not None:
        lines.append(f"Location: {cap['location']}")
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode(), body


def write_crawl(out, crawl, day, segment, caps):
    files = [bytearray(), bytearray()]
    paths = []
    for f in range(2):
        name = f"CC-MAIN-{day.replace('-', '')}000000-{f:05d}.warc.gz"
        path = os.path.join(out, "crawl-data", crawl, "segments", segment, "robotstxt", name)
        paths.append(path)
        info = f"isPartOf: {crawl}\r\nsoftware: make_corpus.py\r\n".encode()
        files[f] += member("warcinfo", [("WARC-Date", f"{day}T00:00:00Z"), ("WARC-Record-ID", rid(crawl, name)),
                                        ("WARC-Filename", name), ("Content-Type", "application/warc-fields")], info)
    for i, cap in enumerate(caps):
        head, body = http_head(cap)
        f = files[i % 2]
        date = cap["date"]
        if cap["kind"] == "revisit":
            f += member("revisit", [("WARC-Date", date), ("WARC-Record-ID", rid(crawl, cap["url"], date, "v")),
                                    ("WARC-Target-URI", cap["url"]),
                                    ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
                                    ("Content-Type", "application/http; msgtype=response")], head)
            continue
        req = "GET /robots.txt HTTP/1.1\r\nUser-Agent: CCBot\r\n\r\n"
        f += member("request", [("WARC-Date", date), ("WARC-Record-ID", rid(crawl, cap["url"], date, "q")),
                                ("WARC-Target-URI", cap["url"]), ("Content-Type", "application/http; msgtype=request")],
                    req.encode())
        headers = [("WARC-Date", date), ("WARC-Record-ID", rid(crawl, cap["url"], date, "r")),
                   ("WARC-Target-URI", cap["url"]), ("Content-Type", "application/http; msgtype=response")]
        if cap["payload_type"]:
            headers.append(("WARC-Identified-Payload-Type", cap["payload_type"]))
        f += member("response", headers, head + body)
    for path, data in zip(paths, files):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(bytes(data))


def main():
    out = sys.argv[1]
    truth = {"crawls": [c for c, _, _ in CRAWLS], "agents": AGENTS, "registrable": REGISTRABLE,
             "ranks": RANKS, "captures": []}
    for n, (crawl, day, segment) in enumerate(CRAWLS):
        caps = captures_of(n)
        for i, cap in enumerate(caps):
            # Distinct times, one minute apart, in the order listed: a later entry is a later fetch.
            cap["date"] = f"{day}T{1 + i // 60:02d}:{i % 60:02d}:00Z"
            cap["crawl"] = crawl
        write_crawl(out, crawl, day, segment, caps)
        truth["captures"].extend(caps)
    with open(os.path.join(out, "ranks.csv"), "w") as fh:
        fh.writelines(f"{r},{h}\n" for r, h in RANKS)
    with open(os.path.join(out, "truth.json"), "w") as fh:
        json.dump(truth, fh, indent=1)


if __name__ == "__main__":
    main()
