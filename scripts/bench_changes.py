"""`make bench` step `changes`: the changes step and the study steps on Spark SQL, side by
side in one run: wall time and peak RSS of

- `robots-census run CRAWL_A CRAWL_B` (the parse, for the ratio column),
- `robots-census sites OUT` (the Rust step) and `spark --step sites` (queries/steps/sites.sql
  on Spark SQL, local mode),
- `robots-census changes OUT --from A --to B` (the Rust step), at its default 1 GiB and in
  passes at `--memory-limit 256MiB`,
- queries/steps/changes.sql, the step as SQL, in the embedded engine (`robots-census
  query` at its default 1 GiB), in DuckDB (the Python package, through OUT/_views.sql)
  and on Spark SQL (`spark --step changes`, local mode),

on two generated CSV crawls of the same sites (scripts/make_sites_crawl.py: the second
with a seed, one capture in ten drawn again), N captures each, N from --changes-captures
(default 500,000: 250,000 sites per crawl). Each engine writes or fetches every row of
its result. The Spark rows run once whatever --reps says (a JVM start each; minutes).

DuckDB runs the file through bench_query.py's driver.
"""

import os
import subprocess
import sys
from pathlib import Path

from bench_common import ratio_table

REPO = Path(__file__).resolve().parent.parent
CRAWLS = ("CC-MAIN-2026-01", "CC-MAIN-2026-05")


def step_sql(dir_):
    """The step's SQL after the options view, as a file in DIR_."""
    Path(dir_).mkdir(parents=True, exist_ok=True)
    path = Path(dir_) / "changes-step.sql"
    path.write_text(
        f"CREATE OR REPLACE VIEW changes_options AS SELECT '{CRAWLS[0]}' AS from_crawl, "
        f"'{CRAWLS[1]}' AS to_crawl;\n" + (REPO / "queries/steps/changes.sql").read_text())
    return path


def spark_submit(binary):
    """spark-submit in local mode on this machine's two cores, as `make spark-demo` runs it
    (the venv's pyspark; needs a JRE, `make java`)."""
    venv_bin = Path(sys.executable).parent
    return [venv_bin / "spark-submit", "--master", "local[2]", "--driver-memory", "2g",
            "--conf", "spark.ui.enabled=false",
            "--conf", "spark.driver.bindAddress=127.0.0.1",
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.log.level=WARN",
            REPO / "spark/robots_census_spark.py", "--binary", binary]


def run(args, paths, results, timed, step):
    rows = results["changes"]
    binary = paths["robots-census"]
    size = int(args.changes_captures)
    label = f"2x{size / 1e6:g}M"
    crawls = [Path(args.out) / f"{c}.csv.gz" for c in CRAWLS]
    out = Path(args.out) / f"changes-dataset-{label}"
    sql = step_sql(Path(args.out))
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    def make():
        for crawl, seed in zip(crawls, ([], ["7"])):
            subprocess.run([sys.executable, REPO / "scripts/make_sites_crawl.py", str(size),
                            crawl, *seed], check=True)

    step(results, f"changes crawls {label}", make)

    def one(what, cmd, reps=args.reps):
        def go():
            rows.append({"captures": label, "what": what, **timed(cmd, reps)})
        step(results, f"changes {label}: {what}", go)

    one("run (documents, groups, rules, sitemaps, agents)",
        [binary, "run", *crawls, "--out", out, "--tables", "groups,rules,sitemaps,agents",
         "--overwrite", "--quiet"])
    # Spark's sites step first: the Rust step then writes the table the others compare.
    one("spark --step sites (sites.sql, local[2])",
        [*spark_submit(binary), "--step", "sites", out], reps=1)
    one("sites (Rust step)", [binary, "sites", out, "--quiet"])
    pair = ["--from", CRAWLS[0], "--to", CRAWLS[1]]
    one("changes (Rust step)", [binary, "changes", out, *pair])
    one("changes --memory-limit 256MiB (Rust step, in passes)",
        [binary, "changes", out, *pair, "--memory-limit", "256MiB"])
    one("changes.sql, robots-census query (1 GiB)",
        [binary, "query", out, sql, "--format", "csv"])
    one("changes.sql, DuckDB (Python)",
        [sys.executable, REPO / "scripts/bench_query.py", "duckdb", out, sql])
    one("spark --step changes (changes.sql, local[2])",
        [*spark_submit(binary), "--step", "changes", out, *pair], reps=1)


def render(rows):
    return ratio_table(
        "## The changes step, and the study steps on Spark SQL",
        ["Two generated CSV crawls of the same sites (scripts/make_sites_crawl.py, the second",
         "with one capture in ten drawn again). Ratios are to the `run` of both crawls in the",
         "same bench run. Spark rows: one run each, local[2], 2 GiB driver."], rows)


if __name__ == "__main__":
    sys.exit(__doc__)
