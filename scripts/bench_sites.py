"""`make bench` step `sites`: the sites step, side by side in one run: wall time and peak
RSS of

- `robots-census run CRAWL --tables agents` (the parse the step is measured against),
- `robots-census sites OUT`: in memory (the default 1 GiB), on one thread, and spilled to
  buckets at a small `--memory-limit` (each table still read once),

on generated CSV crawls of N captures (scripts/make_sites_crawl.py: two per site, 10%
redirects with a location, half of them to another site, 15% 404), N from --sites-sizes
(default 2M and 10M), with a ranked list of 1,100 hosts (100 without a capture). The
rows give the time per capture, so a crawl of Common Crawl's size can be modelled from
them (SCALING.md).
"""

import gzip
import subprocess
import sys
from pathlib import Path

from bench_common import ratio_table

REPO = Path(__file__).resolve().parent.parent
# The ranked list every variant is given: 1,000 hosts of the crawl and 100 it lacks.
RANKED, UNCAPTURED = 1000, 100
# A limit small enough to spill the 2M crawl to several buckets.
SMALL_LIMIT = "256MiB"


def run(args, paths, results, timed, step):
    rows = results["sites"]
    binary = paths["robots-census"]
    for size in [int(s) for s in args.sites_sizes.split(",")]:
        label = f"{size / 1e6:g}M"
        crawl = Path(args.out) / f"sites-crawl-{label}.csv.gz"
        out = Path(args.out) / f"sites-dataset-{label}"

        def make(crawl=crawl, size=size):
            # A crawl made before the generator wrote a location column is made again.
            if not crawl.exists() or b"location" not in gzip.open(crawl).readline():
                subprocess.run([sys.executable, REPO / "scripts/make_sites_crawl.py", str(size),
                                crawl], check=True)

        step(results, f"sites crawl {label}", make)

        def one(what, cmd, label=label, size=size):
            def go():
                rows.append({"captures": label, "n": size, "what": what,
                             **timed(cmd, args.reps)})
            step(results, f"sites {label}: {what}", go)

        one("run --tables agents",
            [binary, "run", crawl, "--out", out, "--tables", "agents", "--overwrite", "--quiet"])
        ranks = Path(args.out) / "sites-ranks.csv"
        ranks.write_text("".join(f"{i + 1},site{i}.example\n" for i in range(RANKED)) + "".join(
            f"{RANKED + i + 1},absent{i}.example\n" for i in range(UNCAPTURED)))
        one("sites --ranks", [binary, "sites", out, "--quiet", "--ranks", ranks])
        # The same step on one thread (the step's rayon pool follows RAYON_NUM_THREADS).
        one("sites --ranks, 1 thread",
            ["env", "RAYON_NUM_THREADS=1", binary, "sites", out, "--quiet", "--ranks", ranks])
        one(f"sites --ranks --memory-limit {SMALL_LIMIT} (spilled to buckets)",
            [binary, "sites", out, "--quiet", "--ranks", ranks, "--memory-limit", SMALL_LIMIT])


def render(rows):
    return ratio_table(
        "## The sites step",
        ["Generated CSV crawls (scripts/make_sites_crawl.py). Ratios are to `run --tables",
         "agents` on the same crawl in the same bench run."], rows)


if __name__ == "__main__":
    sys.exit(__doc__)
