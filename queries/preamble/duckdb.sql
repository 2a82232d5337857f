-- DuckDB preamble for queries/*.sql: macros only (no views, no settings).
--
-- The query files are written in the SQL that Apache DataFusion (the engine embedded in
-- robots-census) understands, and run unchanged in DuckDB once these macros exist.
-- Each macro gives DuckDB a function DataFusion has under a name DuckDB lacks, with the
-- same result on every input the queries pass it.

-- regexp_like(s, pattern): true when pattern matches anywhere in s (not a full match),
-- null when s is null. DataFusion (and Spark) have it; DuckDB calls it regexp_matches.
-- The queries pass case-insensitivity inline, '(?i)...', which RE2 (DuckDB) and the Rust
-- regex crate (DataFusion) read alike, so no flags argument is needed.
CREATE OR REPLACE MACRO regexp_like(s, pattern) AS regexp_matches(s, pattern);
