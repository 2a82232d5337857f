"""`make bench` step `sites`: the sites step at the sizes of issue 20, side by side in one
run: wall time and peak RSS of

- `robots-census run CRAWL --tables agents` (the parse the step is measured against),
- `robots-census sites OUT` (the Rust step), on all cores and on one thread, and at
  `--memory-limit 256MiB` (the crawl decided in passes over ranges of site names),
- queries/steps/sites.sql, the step as SQL, in the embedded engine (`robots-census
  query`, at the default 1 GiB and at 256 MiB) and in DuckDB (the Python package,
  through OUT/_views.sql),

on generated CSV crawls of N captures (scripts/make_sites_crawl.py: two per site, 10%
redirects with a location, half of them to another site, 15% 404), N from --sites-sizes
(default 1M and 2M), with a ranked list of 1,100 hosts (100 without a capture). Each
engine writes or fetches every row of the result. `--sites-variants rust` leaves out the
SQL rows (they take over 20 minutes).

DuckDB runs the file through bench_query.py's driver.
"""

import gzip
import subprocess
import sys
from pathlib import Path

from bench_common import ratio_table

REPO = Path(__file__).resolve().parent.parent
OPTIONS = ("CREATE OR REPLACE VIEW sites_options AS SELECT 'host' AS site_key, "
           "'rfc9309' AS status_semantics, CAST(NULL AS STRING) AS agents, "
           "true AS with_ranks;\n")
# The ranked list every variant is given: 1,000 hosts of the crawl and 100 it lacks.
RANKED, UNCAPTURED = 1000, 100


def step_sql(dir_):
    """The step's SQL after the options view, as a file in DIR_."""
    path = Path(dir_) / "sites-step.sql"
    path.write_text(OPTIONS + (REPO / "queries/steps/sites.sql").read_text())
    return path


def run(args, paths, results, timed, step):
    rows = results["sites"]
    binary = paths["robots-census"]
    sql = step_sql(Path(args.out))
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

        def one(what, cmd, label=label):
            def go():
                rows.append({"captures": label, "what": what, **timed(cmd, args.reps)})
            step(results, f"sites {label}: {what}", go)

        one("run --tables agents",
            [binary, "run", crawl, "--out", out, "--tables", "agents", "--overwrite", "--quiet"])
        ranks = Path(args.out) / "sites-ranks.csv"
        ranks.write_text("".join(f"{i + 1},site{i}.example\n" for i in range(RANKED)) + "".join(
            f"{RANKED + i + 1},absent{i}.example\n" for i in range(UNCAPTURED)))
        variants = args.sites_variants.split(",")
        if "rust" in variants:
            one("sites --ranks (Rust step)", [binary, "sites", out, "--quiet", "--ranks", ranks])
            # The same step on one thread (the step's rayon pool follows RAYON_NUM_THREADS).
            one("sites --ranks (Rust step), 1 thread",
                ["env", "RAYON_NUM_THREADS=1", binary, "sites", out, "--quiet", "--ranks", ranks])
            one("sites --ranks --memory-limit 256MiB (Rust step, in passes)",
                [binary, "sites", out, "--quiet", "--ranks", ranks, "--memory-limit", "256MiB"])
        if "sql" not in variants:
            continue
        for limit in ("1GiB", "256MiB"):
            one(f"sites.sql, robots-census query --memory-limit {limit}",
                [binary, "query", out, sql, "--format", "csv", "--memory-limit", limit])
        one("sites.sql, DuckDB (Python)",
            [sys.executable, REPO / "scripts/bench_query.py", "duckdb", out, sql])


def render(rows):
    return ratio_table(
        "## The sites step: Rust, and its SQL in the embedded engine and DuckDB",
        ["Generated CSV crawls (scripts/make_sites_crawl.py). Ratios are to `run --tables",
         "agents` on the same crawl in the same bench run."], rows)


if __name__ == "__main__":
    sys.exit(__doc__)
