"""Questions per second in one Python process: the robots_census module against the
Python robots.txt libraries, on the same bodies and questions, parse included.

The questions are ``questions.tsv`` (20 agents x 5 URLs per corpus body, see
bench_common.py). Each engine parses each body once, the way it is meant to be used,
then answers every question of the body; Google's parser (``jwm-robotstxt``) can only
answer with one parse per question. Only every ``--every``-th body is asked, so the
slowest engine finishes in seconds; every engine gets the same sample. The allowed
counts show how far each one's answers are from Google's.

Engines: robots_census (``RobotsTxt.allowed``, and ``check_many`` in one batch call),
jwm-robotstxt, protego, urllib.robotparser, fastrobots. The module is imported from the
wheel ``make wheel`` built (installed into ``<out>/python-site``). One JSON line per
engine, read by bench.py.

Usage: bench_python.py --site DIR [--shared ../shared] [--questions Q] [--reps 3] [--every 5]
"""

import argparse
import json
import statistics
import sys
import time
import urllib.robotparser
from pathlib import Path

from bench_common import GOOGLE_BODY_CAP, read_questions


def parse_once(parse, ask):
    """An engine used as meant: each body parsed once, then every question asked."""

    def run(docs, agents):
        allowed = 0
        for body, urls in docs:
            robots = parse(body)
            for url in urls:
                for agent in agents:
                    allowed += ask(robots, agent, url)
        return allowed

    return run


def text(body):
    return body.decode("utf-8", "replace")


def ours(robots_census):
    return parse_once(robots_census.RobotsTxt, lambda r, agent, url: r.allowed(agent, url))


def ours_batch(robots_census):
    import pyarrow as pa

    def run(docs, agents):
        allowed = 0
        for body, urls in docs:
            batch = robots_census.check_many([body], agents, urls)
            allowed += pa.table(batch).column("allowed").to_pylist().count(True)
        return allowed

    return run


def google(_):
    from jwm.robotstxt import googlebot

    def run(docs, agents):
        matcher = googlebot.RobotsMatcher()
        agents_b = [a.encode() for a in agents]
        allowed = 0
        for body, urls in docs:
            cut = body[:GOOGLE_BODY_CAP]
            for url in urls:
                url_b = url.encode()
                for agent in agents_b:
                    allowed += matcher.OneAgentAllowedByRobots(cut, agent, url_b)
        return allowed

    return run


def protego(_):
    from protego import Protego

    return parse_once(lambda b: Protego.parse(text(b)), lambda r, agent, url: r.can_fetch(url, agent))


def urllib_parser(_):
    def parse(body):
        robots = urllib.robotparser.RobotFileParser()
        robots.parse(text(body).splitlines())
        return robots

    return parse_once(parse, lambda r, agent, url: r.can_fetch(agent, url))


def fastrobots(_):
    import fastrobots as fr

    return parse_once(lambda b: fr.Robots.parse(text(b)), lambda r, agent, url: r.allowed(url, agent))


# (name, factory): the factory imports its library (inside the per-engine error handling)
# and returns the function that answers every question.
ENGINES = [
    ("robots_census RobotsTxt.allowed (parse once)", ours),
    ("robots_census check_many (one call per body)", ours_batch),
    ("jwm-robotstxt (Google's parser, one parse per question)", google),
    ("protego 0.7.0 (parse once)", protego),
    ("urllib.robotparser (parse once)", urllib_parser),
    ("fastrobots 0.3.0 (parse once)", fastrobots),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", required=True, help="where the wheel is installed")
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--questions", default="bench-out/questions.tsv")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, args.site)
    import robots_census

    agents, docs = read_questions(args.questions, args.shared, args.every)
    questions = sum(len(urls) for _, urls in docs) * len(agents)
    for name, factory in ENGINES:
        try:
            fn = factory(robots_census)
            times, allowed = [], None
            for _ in range(args.reps):
                start = time.perf_counter()
                allowed = fn(docs, agents)
                times.append(time.perf_counter() - start)
        except Exception as exc:  # an engine that cannot run is reported, not hidden
            print(json.dumps({"engine": name, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
            continue
        print(json.dumps({"engine": name, "docs": len(docs), "questions": questions,
                          "allowed": int(allowed), "seconds": statistics.median(times),
                          "reps": args.reps, "every": args.every}), flush=True)


if __name__ == "__main__":
    main()
