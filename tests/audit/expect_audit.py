"""Expected values of `robots-census audit` for one robots.txt, computed on their own
with Google's parser (jwm-robotstxt, robots.cc): per (agent, URL) the verdict, the
deciding line, its directive and escaped pattern, and the scope (named group, '*'
group, no group); per crawler the groups robots.cc applies (their first lines) and
their allow / disallow line counts. Nothing here reads robots-census output.

Usage: expect_audit.py ROBOTS_FILE AGENTS(comma) URLS(space-separated, as one arg) CRAWLERS(comma)
Output: {"verdicts": [{agent, url, allowed, line, directive, pattern, scope}],
         "crawlers": [{agent, scope, groups, allow, disallow}]}
"""

import json
import re
import sys

from jwm.robotstxt import googlebot

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/sites")
from robots_cc import escape, events  # noqa: E402  (robots.cc's lines and escaping)


def is_star(value):
    return value == "*" or (value.startswith("*") and value[1:2].isspace())


def token(value):
    return re.match(r"[A-Za-z_-]*", value).group(0).lower()


def main():
    body = open(sys.argv[1], "rb").read()
    agents = sys.argv[2].split(",")
    urls = sys.argv[3].split(" ")
    crawlers = sys.argv[4].split(",")
    rules_by_line, groups, cur, rule_seen = {}, [], None, False
    for kind, line, value in events(body):
        if kind == "sitemap":
            continue
        if kind == "ua":
            if cur is None or rule_seen:
                cur = {"first": line, "agents": [], "allow": 0, "disallow": 0}
                groups.append(cur)
                rule_seen = False
            cur["agents"].append(value)
        elif cur is not None:
            rules_by_line[line] = (kind, escape(value))
            cur[kind] += 1
            rule_seen = True
    has_star = any(is_star(a) for g in groups for a in g["agents"])
    verdicts = []
    for agent in agents:
        for url in urls:
            m = googlebot.RobotsMatcher()
            allowed = m.OneAgentAllowedByRobots(body, agent, url)
            line = m.matching_line()
            directive, pattern = rules_by_line.get(line, (None, None))
            scope = "named" if m.ever_seen_specific_agent() else ("star" if has_star else "none")
            verdicts.append({"agent": agent, "url": url, "allowed": allowed, "line": line,
                             "directive": directive, "pattern": pattern, "scope": scope})
    rows = []
    for agent in crawlers:
        named = [g for g in groups if any(not is_star(a) and token(a) == agent.lower() for a in g["agents"])]
        star = [g for g in groups if any(is_star(a) for a in g["agents"])]
        applying, scope = (named, "named") if named else ((star, "star") if star else ([], "none"))
        rows.append({"agent": agent, "scope": scope, "groups": [g["first"] for g in applying],
                     "allow": sum(g["allow"] for g in applying),
                     "disallow": sum(g["disallow"] for g in applying)})
    json.dump({"verdicts": verdicts, "crawlers": rows}, sys.stdout)


if __name__ == "__main__":
    main()
