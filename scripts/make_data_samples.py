"""Build the small real inputs of data-samples/ from licensed bodies in ../shared.

Writes (deterministically, seed 2026):
  data-samples/cc-robotstxt-sample.warc.gz  Common Crawl-style robotstxt WARC: a warcinfo
      record, then request/response pairs, every record its own gzip member,
      X-Crawler- renamed headers, WARC-Identified-Payload-Type; 240 robots.txt bodies
      from scrapy/protego's test data (BSD-3-Clause) served with status 200 on http and
      https hosts (some hosts twice, as re-fetches), plus 404/403 HTML pages, 503s and
      301 redirects, one body over 500 KiB.
  data-samples/robots-dump.csv.gz           a CSV dump (url,status,body) of the ropensci
      (MIT) and texting_robots (MIT/Apache-2.0) bodies, multi-line quoted bodies.
  data-samples/urls.txt                     generated page URLs for the sample hosts
      (paths taken from each body's own rules), to demonstrate --urls.

Usage: python3 scripts/make_data_samples.py [SHARED_DIR]
"""

import csv
import gzip
import hashlib
import io
import os
import random
import re
import sys
import uuid

SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared")
OUT = os.path.join(os.path.dirname(__file__), "..", "data-samples")
ROBOTS = os.path.join(SHARED, "corpus", "robots")
rng = random.Random(2026)


def record(warc_type, headers, block):
    lines = [b"WARC/1.0", b"WARC-Type: " + warc_type.encode()]
    lines += [k.encode() + b": " + v.encode() for k, v in headers]
    lines.append(b"Content-Length: " + str(len(block)).encode())
    data = b"\r\n".join(lines) + b"\r\n\r\n" + block + b"\r\n\r\n"
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as g:
        g.write(data)
    return buf.getvalue()


def rid(*parts):
    return "<urn:uuid:" + str(uuid.UUID(bytes=hashlib.md5("|".join(parts).encode()).digest())) + ">"


def http_response(status, reason, ctype, body):
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\n"
        f"X-Crawler-Content-Length: {len(body)}\r\nContent-Length: {len(body)}\r\n"
        f"X-Crawler-Content-Encoding: gzip\r\nServer: nginx\r\n\r\n"
    )
    return head.encode() + body


def pair(out, url, date, status, reason, ctype, body, payload_type, warcinfo_id):
    req_id, resp_id = rid("req", url, date), rid("resp", url, date)
    host = re.sub(r"^https?://([^/]+)/.*$", r"\1", url)
    request = f"GET /robots.txt HTTP/1.1\r\nHost: {host}\r\nUser-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)\r\n\r\n".encode()
    out.write(record("request", [("WARC-Date", date), ("WARC-Record-ID", req_id), ("Content-Type", "application/http; msgtype=request"),
                                 ("WARC-Warcinfo-ID", warcinfo_id), ("WARC-IP-Address", "192.0.2.1"), ("WARC-Target-URI", url)], request))
    block = http_response(status, reason, ctype, body)
    headers = [("WARC-Date", date), ("WARC-Record-ID", resp_id), ("Content-Type", "application/http; msgtype=response"),
               ("WARC-Warcinfo-ID", warcinfo_id), ("WARC-Concurrent-To", req_id), ("WARC-IP-Address", "192.0.2.1"),
               ("WARC-Target-URI", url), ("WARC-Payload-Digest", "sha1:" + hashlib.sha1(body).hexdigest().upper()),
               ("WARC-Block-Digest", "sha1:" + hashlib.sha1(block).hexdigest().upper()),
               ("WARC-Identified-Payload-Type", payload_type)]
    out.write(record("response", headers, block))


HTML_404 = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body><h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p></body></html>\n"
HTML_403 = b"<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n</body>\r\n</html>\r\n"
HTML_301 = b"<html><head><title>301 Moved Permanently</title></head><body>Moved</body></html>"


def main():
    os.makedirs(OUT, exist_ok=True)
    protego = sorted(f for f in os.listdir(os.path.join(ROBOTS, "protego")) if f.endswith(".txt"))
    picked = rng.sample([f for f in protego if os.path.getsize(os.path.join(ROBOTS, "protego", f)) < 60_000], 238)
    picked += ["www.hermes.com.txt", "docs.oracle.com.txt"]  # over 500 KiB
    picked.sort()
    hosts, urls = [], []
    warcinfo_id = rid("warcinfo")
    path = os.path.join(OUT, "cc-robotstxt-sample.warc.gz")
    with open(path, "wb") as out:
        info = b"software: robots-census scripts/make_data_samples.py\r\nformat: WARC File Format 1.0\r\nisPartOf: CC-MAIN-2026-48\r\ndescription: Common Crawl-style robotstxt sample built from scrapy/protego test bodies (BSD-3-Clause)\r\n"
        out.write(record("warcinfo", [("WARC-Date", "2026-11-01T00:00:00Z"), ("WARC-Record-ID", warcinfo_id), ("WARC-Filename", "cc-robotstxt-sample.warc.gz"), ("Content-Type", "application/warc-fields")], info))
        for i, name in enumerate(picked):
            host = name[:-4]
            with open(os.path.join(ROBOTS, "protego", name), "rb") as f:
                body = f.read()
            scheme = "https" if i % 3 else "http"
            date = f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(7 * i) % 60:02d}Z"
            pair(out, f"{scheme}://{host}/robots.txt", date, 200, "OK", "text/plain", body, "text/plain", warcinfo_id)
            hosts.append((scheme, host, body))
            if i % 10 == 0:  # a later re-fetch of the same host
                pair(out, f"https://{host}/robots.txt", date.replace("2026-11", "2026-12"), 200, "OK", "text/plain", body, "text/plain", warcinfo_id)
        for i in range(40):
            host = f"www.site{i}.example"
            kind = i % 4
            if kind == 0:
                pair(out, f"https://{host}/robots.txt", "2026-11-03T10:00:00Z", 404, "Not Found", "text/html", HTML_404, "text/html", warcinfo_id)
            elif kind == 1:
                pair(out, f"https://{host}/robots.txt", "2026-11-03T10:00:01Z", 403, "Forbidden", "text/html", HTML_403, "text/html", warcinfo_id)
            elif kind == 2:
                pair(out, f"https://{host}/robots.txt", "2026-11-03T10:00:02Z", 503, "Service Unavailable", "text/html", b"", "application/octet-stream", warcinfo_id)
            else:
                pair(out, f"http://{host}/robots.txt", "2026-11-03T10:00:03Z", 301, "Moved Permanently", "text/html", HTML_301, "text/html", warcinfo_id)
    rule = re.compile(rb"^\s*(?:dis)?allow\s*:\s*(/[^\s#*$]*)", re.I | re.M)
    for scheme, host, body in hosts[:120]:
        paths = sorted(set(rule.findall(body)))[:6]
        urls.append(f"{scheme}://{host}/")
        for p in paths:
            urls.append(f"{scheme}://{host}{p.decode('latin-1')}page.html")
    with open(os.path.join(OUT, "urls.txt"), "w") as f:
        f.write("\n".join(urls) + "\n")
    rows = []
    for source, site in [("ropensci", None), ("texting_robots", None), ("t1gor", None)]:
        for name in sorted(os.listdir(os.path.join(ROBOTS, source))):
            with open(os.path.join(ROBOTS, source, name), "rb") as f:
                body = f.read()
            host = re.sub(r"[^a-z0-9]+", "-", name[:-4].lower()).strip("-") + ".example"
            rows.append((f"https://{host}/robots.txt", "200", body.decode("utf-8", "replace")))
    with gzip.open(os.path.join(OUT, "robots-dump.csv.gz"), "wt", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url", "status", "body"])
        w.writerows(rows)
    print(f"wrote {len(picked)} robots bodies + 40 error responses, {len(rows)} CSV rows, {len(urls)} URLs")


if __name__ == "__main__":
    main()
