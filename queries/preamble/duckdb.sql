-- DuckDB preamble for queries/*.sql: macros only (no views, no settings).
--
-- The query files are written in the SQL that Apache DataFusion (the engine embedded in
-- robots-census) and Spark SQL (after preamble/spark.sql) understand, and run unchanged
-- in DuckDB once these macros exist. Each macro gives DuckDB a function DataFusion has
-- under a name DuckDB lacks, with the same result on every input the queries pass it.

-- regexp_like(s, pattern): true when pattern matches anywhere in s (not a full match),
-- null when s is null. DataFusion (and Spark) have it; DuckDB calls it regexp_matches.
-- The queries pass case-insensitivity inline, '(?i)...', which RE2 (DuckDB), the Rust
-- regex crate (DataFusion) and Java (Spark) read alike, so no flags argument is needed.
CREATE OR REPLACE MACRO regexp_like(s, pattern) AS regexp_matches(s, pattern);

-- array_join(list, sep): the list's elements joined with sep, as DataFusion and Spark
-- name it; DuckDB calls it array_to_string. A DuckDB macro rather than a Spark function
-- named array_to_string: Spark refuses a SQL function over array_sort's result, which
-- profile_disagreements.sql joins.
CREATE OR REPLACE MACRO array_join(l, sep) AS array_to_string(l, sep);
