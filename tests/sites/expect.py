"""The expected `sites` tables and query results for the corpus of make_corpus.py,
computed on their own: plain Python over the generator's ground truth (truth.json),
with Google's parser (jwm-robotstxt, robots.cc) for every verdict. Nothing here reads
robots-census output.

Definitions (README.md, schemas/README.md), restated independently:
- per crawl, the latest capture per URL (revisit records left out);
- a site's robots.txt URLs: path exactly /robots.txt, no query; site = host name,
  host name without www., or the registrable domain (truth.json, by construction);
- redirects: Location joined to the URL (urllib.parse.urljoin), looked up among the
  crawl's latest captures, at most 5 hops;
- per site the best chain by (precedence, MIME, latest end capture, fewer hops,
  latest start capture);
- Common Crawl's eight classes, its MIME regex, the Somesite probe classes, the
  exact rule-set classes.

Usage: expect.py TRUTH_JSON > expected.json
Output: {"documents": [...], "sites": {"<key>|<semantics>|<ranks|noranks>": [rows]},
         "queries": {name: {"columns": [...], "rows": [[...]]}}}
"""

import datetime
import json
import re
import sys
from urllib.parse import urldefrag, urljoin, urlsplit

from jwm.robotstxt import googlebot

import robots_cc

KEYS = ["host", "host-nowww", "registrable-domain"]
SEMANTICS = ["rfc9309", "ccbot"]
CLASSES = ["No robots.txt capture", "HTTP forbidden", "HTTP defer visits", "HTTP allow all",
           "HTTP redirect not resolved", "MIME not a robots.txt", "Robots.txt no rules",
           "Robots.txt with rules"]
STRATA = [("1k", 1_000), ("10k", 10_000), ("50k", 50_000), ("100k", 100_000),
          ("1M", 1_000_000), ("2M", 10**18)]
PRECEDENCE = {"success": 0, "allow": 1, "forbidden": 2, "defer": 3, "redirect": 4}
DUMMY = "/dummy-testing-path-54321"
ROBOTS_CLASSES = ("Robots.txt with rules", "Robots.txt no rules")


def parse(body):
    """robots.cc's groups: a user-agent line after a rule starts a new group."""
    groups, cur, rule_seen, values = [], None, False, []
    for kind, _, value in robots_cc.events(body.encode()):
        if kind == "sitemap":
            continue
        if kind == "ua":
            if cur is None or rule_seen:
                cur = {"agents": [], "rules": []}
                groups.append(cur)
                rule_seen = False
            cur["agents"].append(value)
        else:
            values.append(value)
            if cur is not None:
                cur["rules"].append((kind, value))
                rule_seen = True
    return groups, values


def token(value):
    m = re.match(r"[A-Za-z_-]*", value)
    return m.group(0).lower()


def is_star(value):
    return value == "*" or (value.startswith("*") and value[1:2].isspace())


def cc_class(groups, agent):
    named = [g for g in groups if any(not is_star(a) and token(a) == agent.lower() for a in g["agents"])]
    star = [g for g in groups if any(is_star(a) for a in g["agents"])]
    applying = named or star
    if not applying:
        return "not_addressed"
    rules = {r for g in applying for r in g["rules"]}
    if rules == {("disallow", "/")}:
        return "disallow_all"
    if not rules or rules == {("disallow", "")} or (
            len(rules) == 1 and next(iter(rules))[0] == "allow" and next(iter(rules))[1] in ("/", "*", "/*", "")):
        return "allow_all"
    return "allow_part"


def allowed(body, agent, url):
    m = googlebot.RobotsMatcher()
    ok = m.OneAgentAllowedByRobots(body.encode(), agent, url)
    return ok, m.ever_seen_specific_agent()


def agent_facts(body, agent):
    groups, values = parse(body)
    root, named = allowed(body, agent, "http://h/")
    # The study's probes: each path named in an allow/disallow line, one trailing `$`
    # dropped, as robots.cc escapes it (the values arrive escaped): the URL a crawler
    # requests for that path.
    probes = ["http://h" + (v[:-1] if v.endswith("$") else v) for v in values]
    probes = [p for p in probes if p != "http://h"] + ["http://h" + DUMMY]
    answers = [allowed(body, agent, p)[0] for p in probes]
    if root:
        probe = "partial" if not all(answers) else "none"
    else:
        probe = "partial" if any(answers) else "full"
    return {"root_allowed": root, "named": named, "google_class": probe, "cc_class": cc_class(groups, agent)}


def has_rules(body):
    groups, _ = parse(body)
    return any(g["rules"] for g in groups)


def mime_ok(ptype, ctype):
    """Common Crawl's is_robotstxt_mime_type, restated."""
    if ptype:
        d = ptype.split(";")[0].strip().lower()
        return (d.startswith("text/") and d != "text/html") or d in ("message/rfc822", "plain/text")
    if not ctype:
        return True
    return re.search(r"text(?!/html)", ctype, re.IGNORECASE) is not None


def fetch(status, semantics):
    if status is None:
        return "success"
    if (semantics == "rfc9309" and 200 <= status < 300) or (semantics == "ccbot" and status == 200):
        return "success"
    if 300 <= status < 400:
        return "redirect"
    if semantics == "ccbot" and status == 403:
        return "forbidden"
    # RFC 9309 2.3.1.3: 429 is a 4xx, so allow all; Common Crawl defers on it.
    if (status == 429 and semantics == "ccbot") or 500 <= status < 600:
        return "defer"
    return "allow"


def class_of(kind, cap):
    if kind == "success":
        if not mime_ok(cap["payload_type"], cap["content_type"]):
            return "MIME not a robots.txt"
        return "Robots.txt with rules" if has_rules(cap["body"]) else "Robots.txt no rules"
    return {"allow": "HTTP allow all", "forbidden": "HTTP forbidden", "defer": "HTTP defer visits",
            "redirect": "HTTP redirect not resolved"}[kind]


def is_robots_url(url):
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and parts.path == "/robots.txt" and not parts.query


def site_of(key, host, registrable):
    if key == "host":
        return host
    if key == "host-nowww":
        return host[4:] if host.startswith("www.") else host
    return registrable[host]


def top_k(rank):
    return next(label for label, k in STRATA if rank <= k)


def when(cap):
    """Fetch time in seconds since the epoch."""
    return datetime.datetime.fromisoformat(cap["date"].replace("Z", "+00:00")).timestamp()


def sites_table(truth, key, semantics, with_ranks):
    ranks = {}
    if with_ranks:
        for rank, host in truth["ranks"]:
            site = site_of(key, host, truth["registrable"])
            ranks[site] = min(rank, ranks.get(site, rank))
    rows = []
    for crawl in truth["crawls"]:
        latest = {}
        for cap in truth["captures"]:
            if cap["crawl"] == crawl and cap["kind"] != "revisit":
                if cap["url"] not in latest or when(cap) > when(latest[cap["url"]]):
                    latest[cap["url"]] = cap
        by_site = {}
        for url, cap in latest.items():
            if is_robots_url(url):
                site = site_of(key, urlsplit(url).hostname, truth["registrable"])
                by_site.setdefault(site, []).append(cap)
        decided = {}
        for site, starts in by_site.items():
            chains = []
            for start in starts:
                end, hops = start, 0
                while fetch(end["status"], semantics) == "redirect" and hops < 5:
                    if end["location"] is None:
                        break
                    target = latest.get(urljoin(end["url"], end["location"]))
                    if target is None:
                        break
                    end, hops = target, hops + 1
                kind = fetch(end["status"], semantics)
                mime_last = kind == "success" and not mime_ok(end["payload_type"], end["content_type"])
                order = (PRECEDENCE[kind], mime_last, -when(end), hops, -when(start))
                chains.append((order, start, end, hops, kind))
            chains.sort(key=lambda c: c[0])
            decided[site] = (chains[0], len(starts))
        for site in sorted(set(decided) | set(ranks)):
            rank = ranks.get(site)
            base = {"crawl": crawl, "site": site, "rank": rank, "top_k": top_k(rank) if rank else None,
                    "site_key": key, "status_semantics": semantics}
            for agent in sorted(truth["agents"]):
                row = dict(base, agent=agent)
                if site not in decided:
                    row.update(status_class="No robots.txt capture", google_class=None, root_allowed=None,
                               cc_class=None, named=False, url=None, start_url=None, http_status=None,
                               redirect_hops=0, captures=0)
                else:
                    (_, start, end, hops, kind), n = decided[site]
                    cls = class_of(kind, end)
                    row.update(status_class=cls, url=end["url"], start_url=start["url"],
                               http_status=end["status"], redirect_hops=hops, captures=n)
                    if kind == "success":
                        row.update(agent_facts(end["body"], agent))
                    else:
                        row.update(google_class={"HTTP allow all": "none", "HTTP redirect not resolved": "none",
                                                 "HTTP forbidden": "full", "HTTP defer visits": "full"}[cls],
                                   root_allowed=None, cc_class=None, named=False)
                    row["_body"] = end["body"] if kind == "success" and cls in ROBOTS_CLASSES else None
                rows.append(row)
    return rows


def iso_monday(crawl):
    m = re.fullmatch(r"CC-MAIN-(\d{4})-(\d{2})", crawl)
    return datetime.date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1).isoformat() if m else None


def cc_status_classes(rows):
    out = []
    crawls = sorted({r["crawl"] for r in rows})
    for crawl in crawls:
        sites = {(r["site"], r["status_class"], r["rank"]) for r in rows if r["crawl"] == crawl and r["rank"]}
        for label, k in STRATA:
            counts = [sum(1 for s in sites if s[2] <= k and s[1] == cls) for cls in CLASSES]
            out.append([crawl, label] + counts + [iso_monday(crawl)])
    return {"columns": ["crawl", "top-k"] + CLASSES + ["dt"], "rows": out}


def agent_restrictions(rows):
    out = []
    keys = sorted({(r["crawl"], r["agent"]) for r in rows})
    for crawl, agent in keys:
        rs = [r for r in rows if r["crawl"] == crawl and r["agent"] == agent and r["rank"]
              and r["status_class"] != "No robots.txt capture"]
        robots = [r for r in rs if r["status_class"] in ROBOTS_CLASSES]
        fully = [r for r in robots if r["root_allowed"] is False]
        partially = [r for r in robots if r["root_allowed"] and r["google_class"] == "partial"]
        none = [r for r in robots if r["root_allowed"] and r["google_class"] == "none"]
        not_found = [r for r in rs if r["status_class"] == "HTTP allow all" and r["http_status"] == 404]
        errors = len(rs) - len(robots) - len(not_found)
        out.append([crawl, agent, len(fully), len(partially), len(none), len(not_found), errors, len(rs),
                    sum(1 for r in robots if r["google_class"] == "full"),
                    sum(1 for r in robots if r["cc_class"] == "disallow_all"),
                    sum(1 for r in fully if r["named"]), sum(1 for r in fully if not r["named"])])
    columns = ["crawl", "agent", "fully", "partially", "none", "not_found", "errors", "sites",
               "fully_probe", "fully_exact", "fully_named", "fully_star"]
    return {"columns": columns, "rows": out}


def agents_named_by_year(rows):
    named = {}  # (year, stratum, useragent) -> set of sites
    for r in rows:
        if r.get("_body") is None:
            continue
        year = int(r["crawl"][8:12])
        groups, _ = parse(r["_body"])
        agents = {a.lower() for g in groups for a in g["agents"]}
        strata = [label for label, k in STRATA if r["rank"] and r["rank"] <= k] + ["all"]
        for stratum in strata:
            for ua in agents:
                named.setdefault((year, stratum, ua), set()).add(r["site"])
    order = {label: i for i, (label, _) in enumerate(STRATA + [("all", 0)])}
    out = [[y, s, ua, len(sites)] for (y, s, ua), sites in named.items()]
    out.sort(key=lambda x: (x[0], order[x[1]], -x[3], x[2]))
    return {"columns": ["year", "top-k", "useragent", "cnt"], "rows": out}


def documents(truth):
    out = []
    for cap in truth["captures"]:
        host = urlsplit(cap["url"]).hostname
        location = None
        if 300 <= cap["status"] < 400 and cap["location"] is not None and cap["kind"] != "revisit":
            location = urljoin(cap["url"], cap["location"])
        # The columns run writes for a SQL sites step. The generator writes URLs in
        # WHATWG's serialised form without fragments, so the lookup keys are the URLs;
        # a revisit record carries no WARC-Identified-Payload-Type (make_corpus.py).
        payload = cap["payload_type"] if cap["kind"] != "revisit" else None
        out.append({"crawl": cap["crawl"], "url": cap["url"], "date": cap["date"], "location": location,
                    "registrable_domain": truth["registrable"][host], "is_robots_url": is_robots_url(cap["url"]),
                    "url_key": urldefrag(cap["url"]).url,
                    "location_key": None if location is None else urldefrag(location).url,
                    "host_name": host.rstrip("."), "robots_mime": mime_ok(payload, cap["content_type"])})
    return out


def main():
    truth = json.load(open(sys.argv[1]))
    tables = {}
    for key in KEYS:
        for semantics in SEMANTICS:
            for with_ranks in (True, False):
                rows = sites_table(truth, key, semantics, with_ranks)
                tables[f"{key}|{semantics}|{'ranks' if with_ranks else 'noranks'}"] = rows
    queries = {
        "cc_status_classes": cc_status_classes(tables["host|ccbot|ranks"]),
        "agents_named_by_year": agents_named_by_year(tables["host|ccbot|ranks"]),
        "agent_restrictions_by_crawl": agent_restrictions(tables["host|rfc9309|ranks"]),
    }
    for rows in tables.values():
        for r in rows:
            r.pop("_body", None)
    json.dump({"documents": documents(truth), "sites": tables, "queries": queries}, sys.stdout, indent=0)


if __name__ == "__main__":
    main()
