"""Time Google's reference parser (``jwm-robotstxt``, robots.cc via pybind11), one thread.

Two measurements, each repeated and reported as the median, one JSON line per result:

``parse``    every corpus body, cut at 512,000 bytes as Google does, parsed once:
             (a) ``googlebot.ParseRobotsTxt(body, handler)`` with a no-op handler subclass:
                 every directive crosses into Python, so this measures the binding too, and
                 it raises on the few bodies whose values are not UTF-8 (counted as errors);
             (b) ``RobotsMatcher().OneAgentAllowedByRobots(body, "Googlebot", "/")``: the
                 same C++ parse with the C++ matcher as handler, no Python per line. This is
                 the fair "robots.cc speed" number.
``verdicts`` the questions in ``questions.tsv`` (20 agents x 5 URLs per body), asked the
             only per-agent-correct way the reference offers: ``OneAgentAllowedByRobots``,
             which re-parses the body for every question. Only every ``--every``-th body is
             asked (the rate is what matters; all bodies would take minutes).

Usage: bench_reference.py parse|verdicts [--shared ../shared] [--questions bench-out/questions.tsv]
"""

import argparse
import json
import statistics
import time
from pathlib import Path

from jwm.robotstxt import googlebot

from bench_common import GOOGLE_BODY_CAP, load_corpus, read_questions


class NoOpHandler(googlebot.RobotsParseHandler):
    """Receives every parse callback and does nothing: the cost of the parse plus the binding."""

    def HandleRobotsStart(self):
        pass

    def HandleRobotsEnd(self):
        pass

    def HandleUserAgent(self, line_num, value):
        pass

    def HandleAllow(self, line_num, value):
        pass

    def HandleDisallow(self, line_num, value):
        pass

    def HandleSitemap(self, line_num, value):
        pass

    def HandleUnknownAction(self, line_num, action, value):
        pass

    def ReportLineMetadata(self, line_num, metadata):
        pass


def median_time(fn, reps):
    times = []
    result = None
    for _ in range(reps):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def bench_parse(args):
    bodies = [body for _, body in load_corpus(args.shared)]
    total = sum(len(b) for b in bodies)

    def with_handler():
        handler = NoOpHandler()
        errors = 0
        for body in bodies:
            try:
                googlebot.ParseRobotsTxt(body, handler)
            except UnicodeDecodeError:
                errors += 1
        return errors

    def with_matcher():
        matcher = googlebot.RobotsMatcher()
        for body in bodies:
            matcher.OneAgentAllowedByRobots(body, "Googlebot", "https://example.com/")
        return 0

    for name, fn in [("reference ParseRobotsTxt + no-op Python handler", with_handler),
                     ("reference OneAgentAllowedByRobots, once per body", with_matcher)]:
        seconds, errors = median_time(fn, args.reps)
        emit({"bench": "parse", "engine": name, "docs": len(bodies), "bytes": total,
              "seconds": seconds, "errors": errors, "reps": args.reps})


def bench_verdicts(args):
    agents, docs = read_questions(args.questions, args.shared, args.every, GOOGLE_BODY_CAP)
    agents_b = [a.encode() for a in agents]

    def ask_all():
        matcher = googlebot.RobotsMatcher()
        allowed = 0
        for body, urls in docs:
            for url in urls:
                url_b = url.encode()
                for agent in agents_b:
                    allowed += matcher.OneAgentAllowedByRobots(body, agent, url_b)
        return allowed

    seconds, allowed = median_time(ask_all, args.reps)
    n = sum(len(urls) for _, urls in docs) * len(agents)
    emit({"bench": "verdicts", "engine": "reference OneAgentAllowedByRobots per question",
          "set": f"sample (every {args.every}th body)", "docs": len(docs), "bytes": sum(len(b) for b, _ in docs), "verdicts": n,
          "allowed": allowed, "seconds": seconds, "reps": args.reps, "every": args.every})


def emit(record):
    print(json.dumps(record), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["parse", "verdicts"])
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--questions", default="bench-out/questions.tsv")
    parser.add_argument("--every", type=int, default=20, help="ask every N-th body (verdicts)")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    bench_parse(args) if args.what == "parse" else bench_verdicts(args)


if __name__ == "__main__":
    main()
