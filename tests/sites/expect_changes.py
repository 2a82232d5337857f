"""The expected `robots-census changes` output and `queries/changes_by_agent.sql` result
for the corpus of make_corpus.py, computed on their own: the sites rows of expect.py
(plain Python over the generator's ground truth, Google's parser for verdicts), and
rule lines and sitemaps read from the deciding bodies with Google's parser
(jwm-robotstxt's ParseRobotsTxt). Nothing here reads robots-census output.

Definitions (README.md "robots-census changes"), restated:
- a site is present in a crawl when its status class is not "No robots.txt capture";
- block state per (site, agent): full when the deciding capture is a robots.txt file
  (class "Robots.txt with rules" / "no rules") and '/' is disallowed; partial when it is
  one, '/' is allowed and the Somesite probe class is partial; none otherwise;
- rule lines, compared as sets of (product token, directive, pattern) over the groups of
  the two deciding captures, and sitemaps as sets of URLs, only when both are robots.txt
  files; product token: the user-agent value cut to [A-Za-z_-]* and lower-cased, '*'
  for the global group; pattern: percent-escaped as robots.cc escapes it.

Usage: expect_changes.py TRUTH_JSON SITE_KEY SEMANTICS ranks|noranks > expected.json
Output: {"pairs": {"A|B": {"changes": [[site, change, agent, directive, value, before,
after], ...], "summary": {...}}}, "query": {"columns": [...], "rows": [[...], ...]}}
"""

import json
import sys

import expect
import robots_cc

ROBOTS = ("Robots.txt with rules", "Robots.txt no rules")
NO_CAPTURE = "No robots.txt capture"


def lines_of(body):
    rules, agents, rule_seen, sitemaps = set(), [], False, set()
    for kind, _, value in robots_cc.events(body.encode()):
        if kind == "sitemap":
            sitemaps.add(value)
        elif kind == "ua":
            if rule_seen:
                agents, rule_seen = [], False
            agents.append("*" if expect.is_star(value) else expect.token(value))
        else:
            rule_seen = True
            for agent in agents:
                # robots.cc emits the value escaped already; escaping twice is a no-op.
                rules.add((agent, kind, robots_cc.escape(value)))
    return rules, sitemaps


def block(row):
    if row["status_class"] not in ROBOTS:
        return "none"
    if row["root_allowed"] is False:
        return "full"
    if row["root_allowed"] and row["google_class"] == "partial":
        return "partial"
    return "none"


def compare(rows, a, b):
    by = {}
    for r in rows:
        by.setdefault(r["crawl"], {}).setdefault(r["site"], {})[r["agent"]] = r
    x_sites, y_sites = by.get(a, {}), by.get(b, {})
    agents = sorted({r["agent"] for r in rows if r["crawl"] == a} & {r["agent"] for r in rows if r["crawl"] == b})
    per_agent = {ag: {"agent": ag, "blocks_added": 0, "blocks_removed": 0, "net": 0, "partial_added": 0,
                      "unblocked": 0} for ag in agents}
    s = {"from_crawl": a, "to_crawl": b, "site_key": rows[0]["site_key"],
         "status_semantics": rows[0]["status_semantics"], "sites_from": 0, "sites_to": 0, "sites_in_both": 0,
         "appeared": 0, "disappeared": 0, "status_changes": 0, "rules_added": 0, "rules_removed": 0,
         "sitemaps_added": 0, "sitemaps_removed": 0}
    changes = []

    def present(site_rows):
        if not site_rows:
            return None
        first = next(iter(site_rows.values()))
        return site_rows if first["status_class"] != NO_CAPTURE else None

    for site in sorted(set(x_sites) | set(y_sites)):
        x, y = present(x_sites.get(site)), present(y_sites.get(site))
        s["sites_from"] += x is not None
        s["sites_to"] += y is not None
        if x is None and y is None:
            continue
        if x is None:
            s["appeared"] += 1
            changes.append([site, "site_appeared", None, None, None, None, next(iter(y.values()))["status_class"]])
            continue
        if y is None:
            s["disappeared"] += 1
            changes.append([site, "site_disappeared", None, None, None, next(iter(x.values()))["status_class"], None])
            continue
        s["sites_in_both"] += 1
        cx, cy = next(iter(x.values())), next(iter(y.values()))
        if cx["status_class"] != cy["status_class"]:
            s["status_changes"] += 1
            changes.append([site, "status_class", None, None, None, cx["status_class"], cy["status_class"]])
        for ag in agents:
            was, now = block(x[ag]), block(y[ag])
            if was == now:
                continue
            p = per_agent[ag]
            p["blocks_added"] += now == "full"
            p["blocks_removed"] += was == "full"
            p["partial_added"] += now == "partial"
            p["unblocked"] += now == "none"
            p["net"] = p["blocks_added"] - p["blocks_removed"]
            changes.append([site, "block", ag, None, None, was, now])
        if cx["status_class"] in ROBOTS and cy["status_class"] in ROBOTS:
            rx, mx = lines_of(cx["_body"])
            ry, my = lines_of(cy["_body"])
            for kind, one, other in (("rule_removed", rx, ry), ("rule_added", ry, rx)):
                for agent, directive, pattern in sorted(one - other):
                    s["rules_added" if kind == "rule_added" else "rules_removed"] += 1
                    changes.append([site, kind, agent, directive, pattern, None, None])
            for kind, one, other in (("sitemap_removed", mx, my), ("sitemap_added", my, mx)):
                for url in sorted(one - other):
                    s["sitemaps_added" if kind == "sitemap_added" else "sitemaps_removed"] += 1
                    changes.append([site, kind, None, None, url, None, None])
    s["agents"] = [per_agent[ag] for ag in agents]
    return changes, s


def main():
    truth = json.load(open(sys.argv[1]))
    key, semantics, ranks = sys.argv[2], sys.argv[3], sys.argv[4] == "ranks"
    rows = expect.sites_table(truth, key, semantics, ranks)
    crawls = sorted(truth["crawls"])
    pairs, query = {}, []
    for a, b in zip(crawls, crawls[1:]):
        changes, summary = compare(rows, a, b)
        pairs[f"{a}|{b}"] = {"changes": changes, "summary": summary}
        for p in summary["agents"]:
            query.append([a, b, p["agent"], p["blocks_added"], p["blocks_removed"], p["net"]])
    # A non-consecutive pair too, for the command.
    a, b = crawls[0], crawls[-1]
    changes, summary = compare(rows, a, b)
    pairs[f"{a}|{b}"] = {"changes": changes, "summary": summary}
    columns = ["from_crawl", "to_crawl", "agent", "blocks_added", "blocks_removed", "net"]
    json.dump({"pairs": pairs, "query": {"columns": columns, "rows": query}}, sys.stdout, indent=0)


if __name__ == "__main__":
    main()
