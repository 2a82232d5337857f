"""`make bench` step `query`: files of queries/ over one dataset, in the embedded engine
(`robots-census query`, DataFusion) and in DuckDB (the Python package, through the
dataset's `_views.sql`), side by side in one run: wall time and peak RSS.

The dataset is made once per bench run from `--query-input` (in --out; default the
100,000-capture cc.warc.gz) with every default table. Each engine writes every row of
the result (CSV to /dev/null for the binary; DuckDB fetches every row).

Also a driver: `python scripts/bench_query.py duckdb OUT FILE.sql` runs one file in DuckDB
as the step times it.
"""

import subprocess
import sys
from pathlib import Path

QUERIES = ["status_distribution", "ai_agent_blocking", "latest_capture_per_host",
           "top_user_agents", "crawl_delay"]
REPO = Path(__file__).resolve().parent.parent


def duckdb_driver(out, file):
    import duckdb
    con = duckdb.connect()
    for statement in con.extract_statements(Path(out, "_views.sql").read_text()):
        con.execute(statement)
    statements = con.extract_statements(Path(file).read_text())
    for statement in statements[:-1]:
        con.execute(statement)
    rows = con.execute(statements[-1].query).fetchall()
    print(len(rows))


def run(args, paths, results, timed, step):
    rows = results["query"]
    binary = paths["robots-census"]
    source = Path(args.out) / args.query_input
    out = Path(args.out) / "query-dataset"

    def make():
        subprocess.run([binary, "run", source, "--out", out, "--overwrite", "--quiet"],
                       check=True)

    def one(name, engine, cmd):
        # Each (query, engine) is a step of its own: one that fails is listed under
        # "Not run or failed" and the others still run.
        def go():
            rows.append({"query": name, "engine": engine, **timed(cmd, args.reps)})
        step(results, f"query {name} ({engine})", go)

    def bench():
        for name in QUERIES:
            sql = REPO / "queries" / f"{name}.sql"
            for limit in ("1GiB", "256MiB"):
                one(name, f"robots-census query --memory-limit {limit}",
                    [binary, "query", out, sql, "--format", "csv", "--memory-limit", limit])
            one(name, "DuckDB (Python, _views.sql)",
                [sys.executable, Path(__file__), "duckdb", out, sql])

    step(results, "query (dataset)", make)
    bench()


def render(rows):
    if not rows:
        return []
    out = ["## Queries: the embedded engine and DuckDB on one dataset", "",
           "`robots-census query OUT queries/<file>.sql --format csv` against DuckDB's Python",
           "package reading the same files through `OUT/_views.sql`; the dataset is",
           "`run` over the `query` input with the default tables.", "",
           "| query | engine | s | peak RSS MiB | x DuckDB's time |", "|---|---|---|---|---|"]
    duck = {r["query"]: r["seconds"] for r in rows if r["engine"].startswith("DuckDB")}
    for r in rows:
        ratio = r["seconds"] / duck[r["query"]] if duck.get(r["query"]) else float("nan")
        out.append(f"| {r['query']} | {r['engine']} | {r['seconds']:.2f} | {r['rss_mib']:.0f} | {ratio:.2f} |")
    return out + [""]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "duckdb":
        # Exit 2 on any failure: the bench reads exit 1 as "finished, some input skipped".
        try:
            duckdb_driver(sys.argv[2], sys.argv[3])
        except Exception as exc:  # noqa: BLE001 - reported, and the step fails
            print(f"duckdb: {exc}", file=sys.stderr)
            sys.exit(2)
    else:
        sys.exit(__doc__)
