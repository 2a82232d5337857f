"""`make bench` step `changes`: the changes step, side by side in one run: wall time and
peak RSS of

- `robots-census run CRAWL_A CRAWL_B` (the parse, for the ratio column),
- `robots-census sites OUT`,
- `robots-census changes OUT --from A --to B`, in memory (the default 1 GiB) and spilled
  to buckets at a small `--memory-limit` (each table still read once),

on two generated CSV crawls of the same sites (scripts/make_sites_crawl.py: the second
with a seed, one capture in ten drawn again), N captures each, N from --changes-captures
(default 2M: a million sites per crawl).
"""

import subprocess
import sys
from pathlib import Path

from bench_common import ratio_table

REPO = Path(__file__).resolve().parent.parent
CRAWLS = ("CC-MAIN-2026-01", "CC-MAIN-2026-05")
SMALL_LIMIT = "256MiB"


def run(args, paths, results, timed, step):
    rows = results["changes"]
    binary = paths["robots-census"]
    for size in [int(s) for s in args.changes_captures.split(",")]:
        label = f"2x{size / 1e6:g}M"
        crawls = [Path(args.out) / f"changes-{size}" / f"{c}.csv.gz" for c in CRAWLS]
        out = Path(args.out) / f"changes-dataset-{label}"

        def make(crawls=crawls, size=size):
            for crawl, seed in zip(crawls, ([], ["7"])):
                if not crawl.exists():
                    crawl.parent.mkdir(parents=True, exist_ok=True)
                    subprocess.run([sys.executable, REPO / "scripts/make_sites_crawl.py",
                                    str(size), crawl, *seed], check=True)

        step(results, f"changes crawls {label}", make)

        def one(what, cmd, label=label, size=size):
            def go():
                rows.append({"captures": label, "n": 2 * size, "what": what,
                             **timed(cmd, args.reps)})
            step(results, f"changes {label}: {what}", go)

        one("run (documents, groups, rules, sitemaps, agents)",
            [binary, "run", *crawls, "--out", out, "--tables", "groups,rules,sitemaps,agents",
             "--overwrite", "--quiet"])
        one("sites", [binary, "sites", out, "--quiet"])
        pair = ["--from", CRAWLS[0], "--to", CRAWLS[1], "--quiet"]
        one("changes", [binary, "changes", out, *pair])
        one(f"changes --memory-limit {SMALL_LIMIT} (spilled to buckets)",
            [binary, "changes", out, *pair, "--memory-limit", SMALL_LIMIT])


def render(rows):
    return ratio_table(
        "## The changes step",
        ["Two generated CSV crawls of the same sites (scripts/make_sites_crawl.py, the second",
         "with one capture in ten drawn again). Ratios are to the `run` of both crawls in the",
         "same bench run."], rows)


if __name__ == "__main__":
    sys.exit(__doc__)
