"""Run queries/*.sql with DuckDB (the PyPI package) and print each result as JSON.

Usage: python tests/queries/run_queries.py OUT/_views.sql QUERY.sql [QUERY.sql ...]

OUT/_views.sql is the file `robots-census run` writes: the dataset's tables as views
by name, then the DuckDB preamble of queries/. Each query file may hold several
statements (e.g. CREATE VIEW then SELECT); the result of the last one is printed (timestamps with time zone as text,
so pytz is not needed). Output: one JSON object per line,
{"file": ..., "columns": [...], "rows": [[...], ...]}, values as JSON numbers,
strings, booleans or null (decimals as floats, other types as strings).
"""

import datetime
import decimal
import json
import os
import sys

import duckdb


def plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return str(value)


def main():
    views_path, files = sys.argv[1], sys.argv[2:]
    with open(views_path, encoding="utf-8") as f:
        views = f.read()
    for path in files:
        con = duckdb.connect()
        for statement in con.extract_statements(views):
            con.execute(statement)
        with open(path, encoding="utf-8") as f:
            sql = f.read()
        statements = con.extract_statements(sql)
        for statement in statements[:-1]:
            con.execute(statement)
        rel = con.sql(statements[-1].query)
        # Timestamps with a time zone as text: fetching them as Python objects needs pytz.
        rel = rel.project(", ".join(
            f'"{c}"::VARCHAR AS "{c}"' if "TIME ZONE" in str(t) else f'"{c}"'
            for c, t in zip(rel.columns, rel.types)))
        columns = rel.columns
        rows = [[plain(v) for v in row] for row in rel.fetchall()]
        print(json.dumps({"file": os.path.basename(path), "columns": columns, "rows": rows}))
        con.close()


if __name__ == "__main__":
    main()
