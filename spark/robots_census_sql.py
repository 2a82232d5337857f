"""The study steps on Spark SQL: `robots_census_spark.py --step sites` runs the file
queries/steps/sites.sql, the SQL the embedded engine and DuckDB run too, over a dataset's
run tables, and writes the `sites` table.

    spark-submit [--files target/release/robots-census] spark/robots_census_spark.py \\
        --step sites [--binary PATH] OUT [--site-key host|host-nowww|registrable-domain] \\
        [--status-semantics rfc9309|google|ccbot|yandex|urllib|robots-parser] \\
        [--agents LIST] [--with-ranks] [--queries DIR]

OUT is a dataset `robots-census run` wrote, on a file system the driver and every
executor share (derived tables are not read from s3:// yet). The options mean what they
mean to `robots-census sites`; the ranked list is parsed by robots-census only:
`--with-ranks` uses the ranks table `robots-census sites OUT --ranks FILE` wrote (made
from this state of the dataset, else exit 2), as that step's --ranks does. What it does:

1. `robots-census status OUT --json` gives the state of the run's tables (its
   `dataset_state`): the stamp the new table records.
2. The run tables `documents` and `agents` are registered as temporary views over the
   files of the finished tasks (the manifests of this run: `run_table_files`), with the
   schema of their Parquet footers (doc_id, a Parquet UUID Spark cannot read, as BINARY).
3. The checks the binary makes before its step, with its messages: documents present,
   agents rows for every crawl, every --agents token in every crawl.
4. queries/preamble/spark.sql, a one-row `sites_options` view, then queries/steps/sites.sql;
   the result is written as Parquet (zstd) under OUT/.sites.spark-<pid>.tmp/, which gets
   `_state.json` (the dataset state and the files it vouches for: Spark cannot put it in
   the files' footers, src/output/catalog.rs reads either) and then replaces OUT/sites/.
   As with the binary's step, OUT/changes/ (made from the replaced table) is removed,
   and `robots-census status OUT` writes `_views.sql` again.

The rows equal the binary's step's (tests/it/spark.rs compares them row by row); the
files differ (Spark's names, row groups and encodings; doc_id as BINARY, which the
readers of robots-census accept).
"""

import glob
import json
import os
import shutil
import subprocess
import sys

USAGE = 2
SITE_KEYS = ("host", "host-nowww", "registrable-domain")
STATUS_SEMANTICS = ("rfc9309", "google", "ccbot", "yandex", "urllib", "robots-parser")
STATE_FILE = "_state.json"
# The footer key of robots-census's own derived tables (src/output/catalog.rs, STATE_KEY).
STATE_KEY = b"robots_census.dataset_state"


class StepError(Exception):
    """A usage or dataset error: one line, exit 2."""


# ------------------------------------------------------------------ dataset tables

def finished_manifests(out):
    """The manifests of the finished tasks of the dataset OUT: every
    OUT/_manifests/*.json of this run (same `fingerprint` and `format_version` as
    OUT/_dataset.json), as src/output/catalog.rs counts them, in name order."""
    with open(os.path.join(out, "_dataset.json"), encoding="utf-8") as f:
        meta = json.load(f)
    found = []
    for manifest in sorted(glob.glob(os.path.join(out, "_manifests", "*.json"))):
        with open(manifest, encoding="utf-8") as f:
            m = json.load(f)
        if m.get("fingerprint") == meta["fingerprint"] and m.get("format_version") == meta["format_version"]:
            found.append(m)       # else a task of an earlier run, not of this dataset
    return found


def run_table_files(out):
    """{table: [absolute file path, ...]} of the run tables of the dataset OUT: the
    `files` entries of its finished tasks' manifests."""
    files = {}
    for m in finished_manifests(out):
        for entry in m.get("files", []):
            files.setdefault(entry["table"], set()).add(os.path.join(out, entry["path"]))
    return {t: sorted(fs) for t, fs in files.items() if fs}


def spark_schema(files):
    """The Spark schema of a table's files, from their Parquet footers (read by pyarrow),
    with UUID (and any fixed-size binary) columns as BINARY, every field nullable."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import BinaryType, StructField, StructType

    schema = pa.unify_schemas([pq.read_schema(f) for f in files])
    fields = []
    for field in schema:
        typ = field.type
        if isinstance(typ, pa.BaseExtensionType):
            typ = typ.storage_type        # arrow.uuid -> fixed_size_binary(16)
        if pa.types.is_fixed_size_binary(typ):
            fields.append(StructField(field.name, BinaryType(), True))
        else:
            fields.append(StructField(field.name, from_arrow_type(typ), True))
    return StructType(fields)


def derived_table_states(out, table):
    """{path: the dataset state it was made from, or None} for every *.parquet under
    OUT/<table>/ (a derived table), as src/output/catalog.rs reads it: the table's
    _state.json when it lists the file, else the file's footer (STATE_KEY)."""
    import pyarrow.parquet as pq

    directory = os.path.join(out, table)
    vouched = {}
    if os.path.exists(os.path.join(directory, STATE_FILE)):
        with open(os.path.join(directory, STATE_FILE), encoding="utf-8") as f:
            record = json.load(f)
        vouched = {os.path.join(directory, p): record["dataset_state"] for p in record["files"]}
    states = {}
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.parquet"), recursive=True)):
        if path in vouched:
            states[path] = vouched[path]
        else:
            stamp = (pq.read_metadata(path).metadata or {}).get(STATE_KEY)
            states[path] = stamp.decode() if stamp is not None else None
    return states


# ------------------------------------------------------------------ SQL text

def split_statements(sql):
    """Split on ';' outside '...' strings, "..." / `...` identifiers and -- / /* */
    comments. Returns the non-empty statements (comment-only pieces dropped)."""
    out, cur, i, n = [], [], 0, len(sql)
    has_code = False
    while i < n:
        c = sql[i]
        if c == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            cur.append(sql[i:j]); i = j; continue
        if c == "/" and sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            cur.append(sql[i:j]); i = j; continue
        if c in ("'", '"', "`"):
            j = i + 1
            while j < n:
                if sql[j] == c:
                    if j + 1 < n and sql[j + 1] == c:   # doubled quote
                        j += 2; continue
                    break
                j += 1
            cur.append(sql[i:j + 1]); i = j + 1; has_code = True; continue
        if c == ";":
            if has_code:
                out.append("".join(cur).strip())
            cur, has_code = [], False
            i += 1; continue
        if not c.isspace():
            has_code = True
        cur.append(c); i += 1
    if has_code:
        out.append("".join(cur).strip())
    return out


def sql_string(value):
    """A SQL string literal (Spark, ANSI mode)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# ------------------------------------------------------------------ --step sites

def parse_sites_args(args):
    """(out, options) from the step's arguments."""
    options = {"site_key": "host", "status_semantics": "rfc9309", "agents": None,
               "with_ranks": False,
               "queries": os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "queries")}
    flags = {"--site-key": "site_key", "--status-semantics": "status_semantics",
             "--agents": "agents", "--queries": "queries"}
    out, rest = None, list(args)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if name == "--ranks":
            raise StepError("--ranks: the Spark step does not parse a ranks file; run "
                            "`robots-census sites OUT --ranks FILE` once, then --with-ranks")
        if arg == "--with-ranks":
            options["with_ranks"] = True
            continue
        if name in flags:
            if not eq:
                if not rest:
                    raise StepError(f"{name} needs a value")
                value = rest.pop(0)
            options[flags[name]] = value
        elif arg.startswith("-"):
            raise StepError(f"unknown option {arg} for --step sites")
        elif out is None:
            out = arg
        else:
            raise StepError(f"one dataset only (got {out} and {arg})")
    if out is None:
        raise StepError("--step sites needs the dataset: --step sites OUT [options]")
    if "://" in out:
        raise StepError(f"{out}: the Spark step writes derived tables on a shared file system only")
    if options["site_key"] not in SITE_KEYS:
        raise StepError(f"--site-key {options['site_key']}: one of {', '.join(SITE_KEYS)}")
    if options["status_semantics"] not in STATUS_SEMANTICS:
        raise StepError(f"--status-semantics {options['status_semantics']}: one of "
                        + ", ".join(STATUS_SEMANTICS))
    if options["agents"] is not None:
        tokens = [t.strip() for t in options["agents"].split(",") if t.strip()]
        if not tokens:
            raise StepError("--agents: no agent tokens given")
        options["agents"] = tokens
    return os.path.abspath(out), options


def dataset_state(binary, out):
    """The `dataset_state` of `robots-census status OUT --json` (which also writes
    _SUCCESS when every task is done)."""
    proc = subprocess.run([binary, "status", out, "--json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    try:
        report = json.loads(proc.stdout.decode("utf-8"))
        return report["dataset_state"]
    except (ValueError, KeyError, TypeError):
        raise StepError(f"`robots-census status {out}` gave no dataset state:"
                        f" {proc.stderr.decode('utf-8', 'replace').strip()}") from None


def check_inputs(spark, out, agents):
    """The binary's checks before its step (src/sites/mod.rs), with its messages."""
    crawls = [r[0] for r in spark.sql(
        "SELECT DISTINCT crawl FROM documents WHERE crawl IS NOT NULL AND url IS NOT NULL"
        " ORDER BY crawl").collect()]
    have = {}
    for crawl, agent in spark.sql(
            "SELECT DISTINCT crawl, agent FROM agents WHERE agent IS NOT NULL").collect():
        have.setdefault(crawl, set()).add(agent)
    for crawl in crawls:
        if not have.get(crawl):
            raise StepError(f"{out}: no agents table for crawl {crawl}: run `robots-census run`"
                            " with the agents table (the default)")
        for token in agents or []:
            if token not in have[crawl]:
                raise StepError(f"--agents: {json.dumps(token)} is not in the agents table of crawl"
                                f" {crawl} (it has: {','.join(sorted(have[crawl]))})")


def ranks_view(spark, out, state):
    """The view `ranks` over OUT/ranks/, which `robots-census sites OUT --ranks FILE`
    wrote from this state of the dataset (its files' footers say so: else StepError)."""
    states = derived_table_states(out, "ranks")
    if not states:
        raise StepError(f"{out} has no ranks table: run `robots-census sites {out} --ranks FILE`"
                        " first (it parses the ranked list), then --with-ranks")
    for path, made_from in states.items():
        if made_from != state:
            raise StepError(f"{path} was made from another state of {out}"
                            f" ({made_from or 'none'}, now {state}): run"
                            f" `robots-census sites {out} --ranks FILE` again")
    spark.read.parquet(*states).createOrReplaceTempView("ranks")


def commit_table(out, table, staging, state):
    """Records `state` for the files of `staging` and puts it in place of OUT/<table>."""
    files = sorted(
        os.path.relpath(os.path.join(d, f), staging).replace(os.sep, "/")
        for d, _, names in os.walk(staging) for f in names if f.endswith(".parquet"))
    with open(os.path.join(staging, STATE_FILE), "w", encoding="utf-8") as f:
        json.dump({"dataset_state": state, "files": files}, f)
    final = os.path.join(out, table)
    old = os.path.join(out, f".{table}.old-{os.getpid()}.tmp")
    if os.path.exists(final):
        os.rename(final, old)
    os.rename(staging, final)
    shutil.rmtree(old, ignore_errors=True)
    return files


def sites_step(spark, binary, args):
    """Runs the sites step; returns a summary dict. Raises StepError on bad input."""
    out, options = parse_sites_args(args)
    if not os.path.exists(os.path.join(out, "_dataset.json")):
        raise StepError(f"{out} is not a robots-census dataset (no _dataset.json): run "
                        f"`robots-census run ... --out {out}` first")
    state = dataset_state(binary, out)
    tables = run_table_files(out)
    if "documents" not in tables:
        raise StepError(f"{out} holds no documents table: run `robots-census run ... --out {out}` first")
    if "agents" not in tables:
        raise StepError(f"{out}: no agents table: run `robots-census run` with the agents"
                        " table (the default)")
    for name in ("documents", "agents"):
        files = tables[name]
        spark.read.schema(spark_schema(files)).parquet(*files).createOrReplaceTempView(name)
    check_inputs(spark, out, options["agents"])

    queries = options["queries"]
    with open(os.path.join(queries, "preamble", "spark.sql"), encoding="utf-8") as f:
        statements = split_statements(f.read())
    agents = "CAST(NULL AS STRING)" if options["agents"] is None else sql_string(",".join(options["agents"]))
    statements.append(
        "CREATE OR REPLACE TEMPORARY VIEW sites_options AS SELECT "
        f"{sql_string(options['site_key'])} AS site_key, "
        f"{sql_string(options['status_semantics'])} AS status_semantics, "
        f"{agents} AS agents, {'true' if options['with_ranks'] else 'false'} AS with_ranks")
    if options["with_ranks"]:
        ranks_view(spark, out, state)
    else:
        # The file names the view even when with_ranks is false (it reads none of it).
        statements.append(
            "CREATE OR REPLACE TEMPORARY VIEW ranks AS SELECT CAST(NULL AS BIGINT) AS rank,"
            " CAST(NULL AS STRING) AS host, CAST(NULL AS STRING) AS host_name,"
            " CAST(NULL AS STRING) AS registrable_domain WHERE false")
    with open(os.path.join(queries, "steps", "sites.sql"), encoding="utf-8") as f:
        step = split_statements(f.read())
    if len(step) != 1:
        raise StepError(f"{queries}/steps/sites.sql: one statement expected, found {len(step)}")
    for statement in statements:
        spark.sql(statement)
    rows = spark.sql(step[0])

    staging = os.path.join(out, f".sites.spark-{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        rows.write.option("compression", "zstd").parquet(staging)
        files = commit_table(out, "sites", staging, state)
    finally:
        # Nothing half-written stays: on failure the old table is untouched.
        shutil.rmtree(staging, ignore_errors=True)
    # The changes table compared the table just replaced (as the binary's step does).
    if os.path.exists(os.path.join(out, "changes")):
        shutil.rmtree(os.path.join(out, "changes"))
    # `status` writes _views.sql again, now with this sites table (only for a complete
    # dataset: else the old file stays, and that is said).
    views = subprocess.run([binary, "status", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if views.returncode != 0:
        print(f"robots_census_spark: {out}/_views.sql not rewritten (`robots-census status` exited"
              f" {views.returncode}: {views.stderr.decode('utf-8', 'replace').strip()})",
              file=sys.stderr)
    return {"step": "sites", "out": out, "dataset_state": state, "files": len(files),
            "rows": spark.read.parquet(os.path.join(out, "sites")).count()}


def main_step(spark, binary, step, args):
    """`--step STEP ARGS` on the session `spark`: exit status 0, or 2 with one line on
    stderr."""
    if step != "sites":
        print(f"robots_census_spark: --step {step}: only `sites` runs on Spark SQL so far",
              file=sys.stderr)
        return USAGE
    try:
        summary = sites_step(spark, binary, args)
    except StepError as e:
        print(f"robots_census_spark: {e}", file=sys.stderr)
        return USAGE
    print(json.dumps(summary))
    return 0
