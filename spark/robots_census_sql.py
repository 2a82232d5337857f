"""The study steps on Spark SQL: `robots_census_spark.py --step sites` runs the file
queries/steps/sites.sql, the SQL the embedded engine and DuckDB run too, over a dataset's
run tables, and writes the `sites` table; `--step changes` runs queries/steps/changes.sql
over that table and writes one partition of the `changes` table.

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

    spark-submit ... spark/robots_census_spark.py --step changes [--binary PATH] OUT \\
        --from CRAWL --to CRAWL [--queries DIR]

compares two crawls of OUT's sites table (made from this state of the dataset, by either
step) as `robots-census changes OUT --from A --to B` does, with its checks and messages:
the run tables `groups`, `rules`, `sitemaps` and the sites table become views, then
queries/preamble/spark.sql, a one-row `changes_options` view and queries/steps/changes.sql
run, and the rows (in the file's order, as one file, as the binary writes them) replace
OUT/changes/from_crawl=A/to_crawl=B/part-0.parquet. OUT/changes/_state.json then lists
that file with the dataset state, beside the files it already vouched for.
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
    """The Spark schema of a table's files, from the Parquet footer of the first (read by
    pyarrow), with UUID (and any fixed-size binary) columns as BINARY, every field
    nullable. One footer, not one per file: every file of a table in one dataset state
    has the same columns (one format version and one set of flags per dataset; the
    changes table's files, from the binary or Spark, are all strings), and a crawl of
    90,000 tasks would otherwise cost the driver 90,000 footer reads per table."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import BinaryType, StructField, StructType

    schema = pq.read_schema(files[0])
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


# Functions the query files call by a name DuckDB and DataFusion have and Spark lacks,
# registered in the session as aliases of the Spark builtin of the same meaning. This
# cannot be done in SQL (preamble/spark.sql): Spark SQL's CREATE FUNCTION makes scalar
# or table functions, not generators, and the files call unnest in a select list.
#   unnest(list) in a select list: one row per element, none for an empty or null list;
#   Spark calls it explode. (Two unnests in one select list are zipped in DuckDB and
#   DataFusion, but in Spark they multiply: the files use one per select list.)
FUNCTION_ALIASES = {"unnest": "explode"}


def register_function_aliases(spark):
    """Register FUNCTION_ALIASES as session functions (system.session.<alias>)."""
    jvm = spark._jvm
    registry = spark._jsparkSession.sessionState().functionRegistry()
    ident = jvm.org.apache.spark.sql.catalyst.FunctionIdentifier
    for alias, builtin in FUNCTION_ALIASES.items():
        source = ident(builtin, jvm.scala.Some("builtin"), jvm.scala.Some("system"))
        info = registry.lookupFunction(source).get()
        builder = registry.lookupFunctionBuilder(source).get()
        registry.registerFunction(
            ident(alias, jvm.scala.Some("session"), jvm.scala.Some("system")), info, builder)


# ------------------------------------------------------------------ step arguments

QUERIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "queries")


def parse_step_args(step, args, options, flags, switches=None, refused=None):
    """(out, options) from a step's arguments: OUT, `--flag VALUE` / `--flag=VALUE` for
    FLAGS ({option: key of OPTIONS}), the options of SWITCHES ({option: key}) without a
    value (set to True), and those of REFUSED ({option: message}) refused with their
    message. OPTIONS holds the defaults and is filled in. OUT is required and must be a
    path on a shared file system; it is returned absolute."""
    switches, refused = switches or {}, refused or {}
    out, rest = None, list(args)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if name in refused:
            raise StepError(refused[name])
        if arg in switches:
            options[switches[arg]] = True
        elif name in flags:
            if not eq:
                if not rest:
                    raise StepError(f"{name} needs a value")
                value = rest.pop(0)
            options[flags[name]] = value
        elif arg.startswith("-"):
            raise StepError(f"unknown option {arg} for --step {step}")
        elif out is None:
            out = arg
        else:
            raise StepError(f"one dataset only (got {out} and {arg})")
    if out is None:
        raise StepError(f"--step {step} needs the dataset: --step {step} OUT [options]")
    if "://" in out:
        raise StepError(f"{out}: the Spark step writes derived tables on a shared file system only")
    return os.path.abspath(out), options


# ------------------------------------------------------------------ --step sites

def parse_sites_args(args):
    """(out, options) from the step's arguments."""
    out, options = parse_step_args(
        "sites", args,
        {"site_key": "host", "status_semantics": "rfc9309", "agents": None,
         "with_ranks": False, "queries": QUERIES},
        {"--site-key": "site_key", "--status-semantics": "status_semantics",
         "--agents": "agents", "--queries": "queries"},
        switches={"--with-ranks": "with_ranks"},
        refused={"--ranks": "--ranks: the Spark step does not parse a ranks file; run "
                            "`robots-census sites OUT --ranks FILE` once, then --with-ranks"})
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
    return out, options


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
    register_function_aliases(spark)
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


# ------------------------------------------------------------------ --step changes

def parse_changes_args(args):
    """(out, options) from the step's arguments."""
    out, options = parse_step_args(
        "changes", args, {"from": None, "to": None, "queries": QUERIES},
        {"--from": "from", "--to": "to", "--queries": "queries"})
    if options["from"] is None or options["to"] is None:
        raise StepError("--step changes needs two crawls:"
                        " --step changes OUT --from CRAWL --to CRAWL")
    return out, options


def sites_view(spark, out, state):
    """The view `sites` over OUT/sites/, made from this state of the dataset (by either
    step), with the binary's messages when it is missing or stale."""
    states = derived_table_states(out, "sites")
    if not states:
        raise StepError(f"{out} holds no sites table: run `robots-census sites {out}` first")
    for path, made_from in states.items():
        if made_from != state:
            raise StepError(f"{path} was made from another state of {out}"
                            f" ({made_from or 'none'}, now {state}): run"
                            f" `robots-census sites {out}` again")
    files = sorted(states)
    spark.read.schema(spark_schema(files)).parquet(*files).createOrReplaceTempView("sites")


def check_crawls(spark, crawl_from, crawl_to):
    """The binary's checks of --from and --to against the sites table
    (src/changes/mod.rs), with its messages."""
    options = {}
    for crawl, key, semantics in spark.sql(
            "SELECT DISTINCT crawl, site_key, status_semantics FROM sites").collect():
        options.setdefault(crawl, (key, semantics))
    have = ", ".join(sorted(options))
    for crawl in (crawl_from, crawl_to):
        if crawl not in options:
            raise StepError(f"crawl {json.dumps(crawl)} is not in the sites table (it has: {have})")
    if crawl_from == crawl_to:
        raise StepError(f"--from and --to name the same crawl {json.dumps(crawl_from)}")
    (key_a, sem_a), (key_b, sem_b) = options[crawl_from], options[crawl_to]
    if (key_a, sem_a) != (key_b, sem_b):
        raise StepError(f"the sites table of {crawl_from} was made with --site-key {key_a}"
                        f" --status-semantics {sem_a} and that of {crawl_to} with --site-key"
                        f" {key_b} --status-semantics {sem_b}: rerun `robots-census sites`")


def partition_dir(crawl):
    """`crawl=<crawl>` with every character but ASCII letters, digits, '.', '-' and '_' as
    '_', as src/output/dataset.rs (partition_dir) names a crawl's directory."""
    safe = "".join(c if (c.isascii() and c.isalnum()) or c in ".-_" else "_" for c in crawl)
    return f"crawl={safe}"


def record_state(table_dir, state, added):
    """Adds `added` (paths relative to table_dir) to table_dir/_state.json for `state`;
    entries recorded for another state, or whose file is gone, are dropped. Written
    under a temporary name and renamed, so a reader sees the old list or the new."""
    files = set()
    path = os.path.join(table_dir, STATE_FILE)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        if record.get("dataset_state") == state:
            files = {p for p in record.get("files", [])
                     if os.path.exists(os.path.join(table_dir, p))}
    files.update(added)
    tmp = os.path.join(table_dir, f".{STATE_FILE}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"dataset_state": state, "files": sorted(files)}, f)
    os.replace(tmp, path)


def changes_step(spark, binary, args):
    """Runs the changes step; returns a summary dict. Raises StepError on bad input."""
    out, options = parse_changes_args(args)
    if not os.path.exists(os.path.join(out, "_dataset.json")):
        raise StepError(f"{out} is not a robots-census dataset (no _dataset.json): run "
                        f"`robots-census run ... --out {out}` first")
    state = dataset_state(binary, out)
    sites_view(spark, out, state)
    check_crawls(spark, options["from"], options["to"])
    tables = run_table_files(out)
    for name in ("groups", "rules", "sitemaps"):
        if name not in tables:
            raise StepError(f"{out}: no {name} table: run `robots-census run` with the {name}"
                            " table (the default)")
        files = tables[name]
        spark.read.schema(spark_schema(files)).parquet(*files).createOrReplaceTempView(name)

    queries = options["queries"]
    with open(os.path.join(queries, "preamble", "spark.sql"), encoding="utf-8") as f:
        statements = split_statements(f.read())
    statements.append(
        "CREATE OR REPLACE TEMPORARY VIEW changes_options AS SELECT "
        f"{sql_string(options['from'])} AS from_crawl, {sql_string(options['to'])} AS to_crawl")
    with open(os.path.join(queries, "steps", "changes.sql"), encoding="utf-8") as f:
        step = split_statements(f.read())
    if len(step) != 1:
        raise StepError(f"{queries}/steps/changes.sql: one statement expected, found {len(step)}")
    register_function_aliases(spark)
    for statement in statements:
        spark.sql(statement)
    # One file in the statement's order, as the binary writes it: coalesce keeps the
    # sorted partitions in order.
    rows = spark.sql(step[0]).coalesce(1)

    table_dir = os.path.join(out, "changes")
    # Where the binary writes it (src/changes/write.rs).
    relative = (f"from_{partition_dir(options['from'])}/to_{partition_dir(options['to'])}"
                "/part-0.parquet")
    staging = os.path.join(out, f".changes.spark-{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        rows.write.option("compression", "zstd").parquet(staging)
        written = glob.glob(os.path.join(staging, "*.parquet"))
        if len(written) != 1:
            raise StepError(f"Spark wrote {len(written)} files for one partition of changes")
        final = os.path.join(table_dir, relative)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        os.replace(written[0], final)
        record_state(table_dir, state, [relative])
    finally:
        # Nothing half-written stays: on failure the partition is untouched.
        shutil.rmtree(staging, ignore_errors=True)
    views = subprocess.run([binary, "status", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if views.returncode != 0:
        print(f"robots_census_spark: {out}/_views.sql not rewritten (`robots-census status` exited"
              f" {views.returncode}: {views.stderr.decode('utf-8', 'replace').strip()})",
              file=sys.stderr)
    return {"step": "changes", "out": out, "dataset_state": state,
            "from_crawl": options["from"], "to_crawl": options["to"],
            "file": os.path.join(table_dir, relative),
            "rows": spark.read.parquet(os.path.join(table_dir, relative)).count()}


STEPS = {"sites": sites_step, "changes": changes_step}


def main_step(spark, binary, step, args):
    """`--step STEP ARGS` on the session `spark`: exit status 0, or 2 with one line on
    stderr."""
    if step not in STEPS:
        print(f"robots_census_spark: --step {step}: one of {', '.join(STEPS)}", file=sys.stderr)
        return USAGE
    try:
        summary = STEPS[step](spark, binary, args)
    except StepError as e:
        print(f"robots_census_spark: {e}", file=sys.stderr)
        return USAGE
    print(json.dumps(summary))
    return 0
