"""The dataset's tables as Spark reads them, for tests/queries/run_queries_spark.py: the
run tables from the manifests of finished tasks, the derived tables (sites, ranks,
changes) with the dataset state their footers record, the schema Spark gives their
Parquet files, and the SQL splitting and function aliases the runner needs. Test
tooling: the product's catalog is src/output/catalog.rs, and this follows it.
"""

import glob
import json
import os

# The footer key of robots-census's own derived tables (src/output/catalog.rs, STATE_KEY).
STATE_KEY = b"robots_census.dataset_state"


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
    OUT/<table>/ (a derived table), as src/output/catalog.rs reads it: the file's footer
    (STATE_KEY). Temporary files (a step's `.tmp` names) are not the table's."""
    import pyarrow.parquet as pq

    directory = os.path.join(out, table)
    states = {}
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.parquet"), recursive=True)):
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
