-- Spark SQL preamble for queries/*.sql: session settings and SQL functions only (no
-- views).
--
-- The query files are written in the SQL that DuckDB (after preamble/duckdb.sql) and
-- Apache DataFusion (the engine embedded in robots-census) both run. Spark SQL (PySpark
-- 4.3, as requirements.txt pins it) runs the same text after these statements, plus one
-- function alias that SQL cannot make (see the end). tests/queries/run_queries_spark.py
-- does both. Each function below gives Spark one that DuckDB and DataFusion have under
-- that name, with the same result on every input the queries pass it. (Temporary SQL
-- functions need Spark 4; they take the argument types written, not any type.)

-- "..." is an identifier, as in DuckDB and DataFusion (the columns "top-k" of
-- cc_status_classes.sql and agents_named_by_year.sql, "none" of
-- agent_restrictions_by_crawl.sql, ...): Spark reads "..." as a string literal unless
-- this is on. It needs ANSI mode, Spark 4's default, set too in case a session turned it off.
SET spark.sql.ansi.enabled = true;
SET spark.sql.ansi.doubleQuotedIdentifiers = true;

-- array_extract(list, i): the i-th element, 1-based, null when i is out of range (DuckDB's
-- and DataFusion's list[i]); Spark's list[i] is 0-based, its element_at fails out of range
-- under ANSI mode, try_element_at does not. Used by top_user_agents.sql. (Spark refuses
-- a SQL function as the argument of unnest / explode, or over a higher-order function's
-- result such as array_sort's: the files keep them apart.)
CREATE OR REPLACE TEMPORARY FUNCTION array_extract(a ARRAY<STRING>, i BIGINT)
RETURNS STRING
RETURN try_element_at(a, CAST(i AS INT));

-- generate_series(a, b): the list [a, a + 1, ..., b], empty when b < a (DuckDB's and
-- DataFusion's scalar form); Spark's sequence(a, b) counts down when b < a. Used by
-- top_user_agents.sql.
CREATE OR REPLACE TEMPORARY FUNCTION generate_series(a BIGINT, b BIGINT)
RETURNS ARRAY<BIGINT>
RETURN CASE WHEN b < a THEN CAST(array() AS ARRAY<BIGINT>) ELSE sequence(a, b) END;

-- Not made here: unnest(list) in a select list (one row per element; Spark calls it
-- explode). Spark's CREATE FUNCTION cannot define a generator, so run_queries_spark.py
-- registers `unnest` in the session's function registry as explode's builder
-- (register_function_aliases). Used by agents_named_by_year.sql, crawl_delay.sql and
-- top_user_agents.sql. Note: two unnests in one select list are zipped by DuckDB and
-- DataFusion but multiplied by Spark, so a file uses at most one per select list.
