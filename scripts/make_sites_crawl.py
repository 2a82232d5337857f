"""A generated CSV crawl for the sites benchmark: N robots.txt captures, two per site
(https:// and http:// of one host), 75% 200 with one of a few dozen bodies, 15% 404,
10% 301 with a `location` column: the http:// capture redirects to its site's https://
URL, the https:// one to another site's, far away in name order (so the sites step's
redirect chains cross the ranges of its passes). Deterministic (seeded).

Usage: python scripts/make_sites_crawl.py N OUT.csv.gz [SEED]

With SEED, a later crawl of the same sites: the rows of the default crawl, but one
capture in ten drawn again (status and body) from SEED, for the changes benchmark.
Name the files after their crawls (e.g. CC-MAIN-2026-01.csv.gz): `run` takes the crawl
from the path.
"""

import csv
import gzip
import random
import sys

AGENTS = ["GPTBot", "CCBot", "Googlebot", "Bingbot", "ClaudeBot", "Google-Extended", "*"]
PATHS = ["/", "/admin/", "/search", "/private/", "/*.pdf$", "/cart", "/tmp/"]


def bodies(rng, n=40):
    out = []
    for _ in range(n):
        lines = []
        for agent in rng.sample(AGENTS, rng.randint(1, 4)):
            lines.append(f"User-agent: {agent}")
            for path in rng.sample(PATHS, rng.randint(0, 4)):
                lines.append(f"{rng.choice(['Disallow', 'Allow'])}: {path}")
            lines.append("")
        if rng.random() < 0.5:
            lines.append("Sitemap: https://example.com/sitemap.xml")
        out.append("\n".join(lines) + "\n")
    return out


def main():
    n, path = int(sys.argv[1]), sys.argv[2]
    later = random.Random(int(sys.argv[3])) if len(sys.argv) > 3 else None
    rng = random.Random(20)
    texts = bodies(rng)
    with gzip.open(path, "wt", newline="", encoding="utf-8", compresslevel=1) as f:
        w = csv.writer(f)
        w.writerow(["url", "status", "location", "body"])
        sites = max(1, (n + 1) // 2)
        for i in range(n):
            site = i // 2
            scheme = "https" if i % 2 == 0 else "http"
            r = rng.random()
            status = 200 if r < 0.75 else (404 if r < 0.90 else 301)
            body = texts[rng.randrange(len(texts))] if status == 200 else ""
            if later is not None and later.random() < 0.1:
                r = later.random()
                status = 200 if r < 0.75 else (404 if r < 0.90 else 301)
                body = texts[later.randrange(len(texts))] if status == 200 else ""
            location = ""
            if status == 301:
                to = site if scheme == "http" else (site * 7919 + sites // 2) % sites
                location = f"https://site{to}.example/robots.txt"
            w.writerow([f"{scheme}://site{site}.example/robots.txt", status, location, body])


if __name__ == "__main__":
    main()
