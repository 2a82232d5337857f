"""Run queries/*.sql with Spark SQL (PySpark, local mode) and print each result as JSON.

Usage: python tests/queries/run_queries_spark.py [--preamble FILE] OUT QUERY.sql [...]

OUT is a dataset written by `robots-census run` (and `sites`, `changes`). One local Spark
session is started (local[2], bound to 127.0.0.1, no UI, session time zone UTC, an
in-memory catalog) and every table of OUT is registered in it by name over exactly its
files:

- a run table (documents, groups, rules, sitemaps, errors, verdicts, agents, readings):
  the `files` entries (paths relative to OUT) of every OUT/_manifests/*.json whose
  `fingerprint` and `format_version` equal OUT/_dataset.json's, i.e. the files of the
  dataset's current run;
- a derived table (sites, ranks, changes): every *.parquet under OUT/<table>/, when each
  was made from the dataset's current state (its footer says so).

A table with no files is not registered (a query naming it fails). Each table is an
external Parquet table of the session's catalog over a temporary directory of links to
its files (register_tables says why not a temporary view), so Spark adds no partition
columns from the `crawl=...` path segments (the crawl columns are physical columns of
the files).

Spark cannot read the Parquet UUID logical type (doc_id): its schema inference fails
with PARQUET_TYPE_ILLEGAL. The schema is therefore taken from the files' footers with
pyarrow and given to Spark explicitly, doc_id as BINARY (its 16 bytes; ordered and
compared bytewise, as DuckDB orders UUIDs and DataFusion FixedSizeBinary(16)).

Then, for each query file: the Spark preamble (preamble/spark.sql next to the query file,
or --preamble FILE) and the file's statements are run in order (split on ';' outside
quotes and comments), and the last statement's result is printed. Views a
file creates are dropped before the next file, so files do not see each other's views.
`unnest` is registered as an alias of Spark's explode first (register_function_aliases:
the one part of the Spark dialect the SQL preamble cannot give).

Output: one JSON object per line, {"file": ..., "columns": [...], "rows": [[...], ...]},
as tests/queries/run_queries.py prints DuckDB's: values as JSON numbers, strings,
booleans or null; timestamps as ISO 8601 text in UTC; doc_id (16-byte binary) as the
8-4-4-4-12 UUID text; decimals as floats; arrays as JSON arrays.
"""

import datetime
import decimal
import hashlib
import json
import os
import shutil
import sys
import tempfile
import uuid


# Tables written after the run (`robots-census sites`, `changes`), which no manifest
# lists; every other table is a run table, listed by the manifests.
DERIVED_TABLES = ["sites", "ranks", "changes"]

# The dataset tables as Spark reads them, the SQL splitting and the function aliases.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spark_tables import (  # noqa: E402
    derived_table_states, finished_manifests, register_function_aliases, run_table_files,
    spark_schema, split_statements)


# ------------------------------------------------------------------ dataset tables

def table_files(out):
    """{table: [absolute file path, ...]} of the dataset OUT (tables with files only),
    as src/output/catalog.rs finds them: run tables from the manifests of finished tasks,
    derived tables only when made from the dataset's current state (else not registered,
    and stderr says why)."""
    files = run_table_files(out)
    with open(os.path.join(out, "_dataset.json"), encoding="utf-8") as f:
        fingerprint = json.load(f)["fingerprint"]
    # The dataset state: fingerprint / finished tasks / the first 4 bytes of SHA-1 over
    # their names, each followed by a newline (DatasetState::stamp), computed here
    # independently of the binary.
    done = sorted(m["task"] for m in finished_manifests(out))
    digest = hashlib.sha1("".join(t + "\n" for t in done).encode()).hexdigest()[:8]
    state = f"{fingerprint}/{len(done)}/{digest}"
    for table in DERIVED_TABLES:
        states = derived_table_states(out, table)
        stale = [f for f, made_from in states.items() if made_from != state]
        if stale:
            print(f"run_queries_spark: {stale[0]} was made from another state of {out}: "
                  f"table {table} not registered", file=sys.stderr)
        elif states:
            files[table] = sorted(states)
    return files


def register_tables(spark, out, link_root):
    """Register every table of OUT in the session catalog; returns the table names.

    Each table is an external Parquet table (in Spark's in-memory catalog, gone with the
    session) over a directory of LINK_ROOT holding one symbolic link per file of the
    table. Not a temporary view over spark.read...parquet(*files): Spark refuses a
    (persistent) CREATE VIEW over a temporary view, and latest_capture_per_host.sql
    creates a view with the statement DuckDB and DataFusion accept, CREATE OR REPLACE
    VIEW (DataFusion has no CREATE TEMPORARY VIEW). The links sit in one flat
    directory, so Spark infers no partition column from `crawl=...` directories."""
    tables = table_files(out)
    for table, files in tables.items():
        spark.sql(f"DROP TABLE IF EXISTS `{table}`")
        directory = os.path.join(link_root, table)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        for i, path in enumerate(files):
            os.symlink(os.path.abspath(path),
                       os.path.join(directory, f"{i:06d}-{os.path.basename(path)}"))
        columns = ", ".join(f"`{f.name}` {f.dataType.simpleString()}"
                            for f in spark_schema(files).fields)
        location = directory.replace("'", "\\'")
        spark.sql(f"CREATE TABLE `{table}` ({columns}) USING parquet LOCATION '{location}'")
    return sorted(tables)


# ------------------------------------------------------------------ function aliases

# ------------------------------------------------------------------ results as JSON

def plain(value):
    """A JSON value for one Spark result value."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        # doc_id: the only binary column of the tables, 16 bytes -> UUID text.
        b = bytes(value)
        return str(uuid.UUID(bytes=b)) if len(b) == 16 else b.hex()
    if isinstance(value, datetime.datetime):
        # PySpark's collect() turns a TIMESTAMP (an instant) into a naive datetime in the
        # Python process's local time zone (not the session's); astimezone() reads a
        # naive datetime as local time, so this gives the instant back, in UTC.
        return value.astimezone(datetime.timezone.utc).isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if hasattr(value, "asDict"):      # a struct (a Row, which is also a tuple)
        return {k: plain(v) for k, v in value.asDict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


# ------------------------------------------------------------------ main

def start_spark(work_dir):
    """A local Spark session; WORK_DIR holds its warehouse (nothing is written there: the
    tables are external) and is where register_tables puts its links."""
    from pyspark.sql import SparkSession
    # Bind everything (driver, block manager) to the loopback interface.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder
             .master("local[2]")
             .appName("robots-census-queries")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.ui.enabled", "false")
             # The tables live in the session's in-memory catalog; no spark-warehouse/
             # or metastore_db/ in the current directory.
             .config("spark.sql.catalogImplementation", "in-memory")
             .config("spark.sql.warehouse.dir", os.path.join(work_dir, "warehouse"))
             # Timestamps (documents.fetch_time) are instants; read and print them in UTC.
             .config("spark.sql.session.timeZone", "UTC")
             # Small data, two cores: Spark's default of 200 shuffle partitions makes
             # every query hundreds of tiny tasks. (Results do not depend on it: every
             # file orders its rows totally.)
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    register_function_aliases(spark)
    return spark


def run_file(spark, path, preamble=None):
    """(columns, rows) of the last statement of the query file PATH."""
    if preamble is None:
        candidate = os.path.join(os.path.dirname(os.path.abspath(path)), "preamble", "spark.sql")
        preamble = candidate if os.path.exists(candidate) else None
    statements = []
    if preamble:
        with open(preamble, encoding="utf-8") as f:
            statements += split_statements(f.read())
    with open(path, encoding="utf-8") as f:
        body = split_statements(f.read())
    if not body:
        raise ValueError(f"{path}: no statement")
    statements += body
    before = {(t.name, t.isTemporary) for t in spark.catalog.listTables()}
    try:
        df = None
        for statement in statements:
            df = spark.sql(statement)
        columns = df.columns
        rows = [[plain(v) for v in row] for row in df.collect()]
        return columns, rows
    finally:
        # Drop the views the file made (latest_capture_per_host.sql makes one), so the
        # next file sees only the dataset's tables. (The preamble's functions are made
        # again, with CREATE OR REPLACE, before each file.)
        for t in spark.catalog.listTables():
            if (t.name, t.isTemporary) not in before:
                spark.sql(f"DROP VIEW IF EXISTS `{t.name}`")


def main(argv):
    preamble = None
    if "--preamble" in argv:
        i = argv.index("--preamble")
        preamble = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, files = argv[0], argv[1:]
    work_dir = tempfile.mkdtemp(prefix="run-queries-spark-")
    spark = start_spark(work_dir)
    try:
        register_tables(spark, os.path.abspath(out), os.path.join(work_dir, "tables"))
        for path in files:
            columns, rows = run_file(spark, path, preamble)
            print(json.dumps({"file": os.path.basename(path), "columns": columns,
                              "rows": rows}), flush=True)
    finally:
        spark.stop()
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
