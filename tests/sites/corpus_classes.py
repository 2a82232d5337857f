"""The agents table's per-agent readings of every real body in ../shared/corpus/robots,
computed with Google's parser (jwm-robotstxt, robots.cc) for tests/it/sites.rs:

- root: robots.cc's verdict for `/`;
- probe: the Somesite study's class (full / partial / none), probing `/`, every
  allow/disallow value of the file (one trailing `$` dropped) appended to the site root,
  and `/dummy-testing-path-54321`, one robots.cc question each, with the study's early
  exits;
- cc: Common Crawl's exact rule-set class over the groups robots.cc applies to the
  agent (robots.cc's own parse callbacks, grouped here: a user-agent line after a rule
  starts a new group).

Bodies are cut at 512,000 bytes as Google does. Bodies with more than MAX_RULES
allow/disallow lines are left out (each probe re-parses the body in robots.cc).

Usage: corpus_classes.py SHARED_DIR OUT_FILE
Output: JSON lines {"file", "agents", "root": "0101", "probe": [...], "cc": [...],
"values": [escaped allow/disallow values as robots.cc reports them]}.
"""

import json
import os
import re
import sys

from jwm.robotstxt import googlebot

import robots_cc

CAP = 512_000
MAX_RULES = 150
AGENTS = ["GPTBot", "CCBot", "Googlebot", "UnknownBot"]
DUMMY = b"/dummy-testing-path-54321"


def token(value):
    return re.match(r"[A-Za-z_-]*", value).group(0).lower()


def is_star(value):
    return value == "*" or (value.startswith("*") and value[1:2].isspace())


def classes(body, events, agent):
    groups, cur, rule_seen = [], None, False
    for kind, value in events:
        if kind == "ua":
            if cur is None or rule_seen:
                cur = {"agents": [], "rules": []}
                groups.append(cur)
                rule_seen = False
            cur["agents"].append(value)
        elif cur is not None:
            cur["rules"].append((kind, value))
            rule_seen = True
    named = [g for g in groups if any(not is_star(a) and token(a) == agent.lower() for a in g["agents"])]
    applying = named or [g for g in groups if any(is_star(a) for a in g["agents"])]
    if not applying:
        cc = "not_addressed"
    else:
        rules = {r for g in applying for r in g["rules"]}
        if rules == {("disallow", "/")}:
            cc = "disallow_all"
        elif not rules or rules == {("disallow", "")} or (
                len(rules) == 1 and next(iter(rules))[0] == "allow" and next(iter(rules))[1] in ("/", "*", "/*", "")):
            cc = "allow_all"
        else:
            cc = "allow_part"

    def allowed(url):
        return googlebot.RobotsMatcher().OneAgentAllowedByRobots(body, agent, url)

    root = allowed(b"http://h/")
    probes = []
    for kind, value in events:
        if kind != "ua":
            v = value.encode()
            v = v[:-1] if v.endswith(b"$") else v
            if v:
                probes.append(b"http://h" + v)
    probes.append(b"http://h" + DUMMY)
    # The study's loop: stop at the first probe that disagrees with `/`.
    contrary = any(allowed(p) != root for p in probes)
    probe = "partial" if contrary else ("none" if root else "full")
    return root, probe, cc


def main():
    shared, out = sys.argv[1], sys.argv[2]
    base = os.path.join(shared, "corpus", "robots")
    files = []
    for root, _, names in os.walk(base):
        files += [os.path.relpath(os.path.join(root, n), base) for n in names if n.endswith(".txt")]
    with open(out, "w") as fh:
        for file in sorted(files):
            with open(os.path.join(base, file), "rb") as f:
                body = f.read()[:CAP]
            try:
                events = [(k, v) for k, _, v in robots_cc.events(body) if k != "sitemap"]
            except Exception:
                continue  # a value that is not UTF-8 reaches Python as an error
            values = [v for k, v in events if k != "ua"]
            if len(values) > MAX_RULES:
                continue
            results = [classes(body, events, a) for a in AGENTS]
            fh.write(json.dumps({"file": file, "agents": AGENTS,
                                 "root": "".join("1" if r else "0" for r, _, _ in results),
                                 "probe": [p for _, p, _ in results], "cc": [c for _, _, c in results],
                                 "values": values}) + "\n")


if __name__ == "__main__":
    main()
