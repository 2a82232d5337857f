-- AI opt-out signals and other non-standard directives (latest capture per host and crawl)
--
-- Question: how many hosts publish the AI-usage signals that sit beside the rules
-- (Content-Signal, Content-Usage, LLM-Policy, DisallowAITraining) and the Yandex-era
-- directives (Clean-param, Host), and what do they say?
--
-- Result: one row per (crawl, signal):
--   crawl
--   signal      the key, lower-cased (content-signal, content-signals, content-usage,
--               llm-policy, disallowaitraining, clean-param, host)
--   hosts       hosts whose latest capture in the crawl has at least one such line
--   lines       such lines in those captures
--   top_values  the 3 most frequent values (count), as written
--
-- Caveats: Google ignores every one of these lines (they decide no verdict); a value is
-- as written, not validated. Latest capture per host and crawl as in profile_blocking.sql.

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
s AS (
    SELECT l.crawl, l.host, lower(ru.key) AS signal, ru.value
    FROM rules ru
    JOIN latest l USING (doc_id)
    WHERE lower(ru.key) IN ('content-signal', 'content-signals', 'content-usage', 'llm-policy',
                            'disallowaitraining', 'clean-param', 'host')
),
v AS (
    -- k: the value's place by frequency (ties by value) within its crawl and signal.
    SELECT crawl, signal, value, count(*) AS n,
           row_number() OVER (PARTITION BY crawl, signal ORDER BY count(*) DESC, value) AS k
    FROM s
    GROUP BY crawl, signal, value
),
top AS (
    -- string_agg(value || ' (' || n || ')', '; ' ORDER BY n DESC, value) over the first
    -- three, spelled out: Spark has no ORDER BY inside string_agg (its WITHIN GROUP
    -- form is not in DuckDB or DataFusion). A missing 2nd / 3rd value makes its
    -- '; ' || ... null, and coalesce drops it.
    SELECT crawl, signal,
           max(CASE WHEN k = 1 THEN value || ' (' || n || ')' END)
           || coalesce('; ' || max(CASE WHEN k = 2 THEN value || ' (' || n || ')' END), '')
           || coalesce('; ' || max(CASE WHEN k = 3 THEN value || ' (' || n || ')' END), '')
               AS top_values
    FROM v
    WHERE k <= 3
    GROUP BY crawl, signal
),
counts AS (
    SELECT crawl, signal, count(DISTINCT host) AS hosts, count(*) AS lines
    FROM s
    GROUP BY crawl, signal
)
SELECT c.crawl, c.signal, c.hosts, c.lines, t.top_values
FROM counts c
JOIN top t ON t.crawl = c.crawl AND t.signal = c.signal
ORDER BY c.crawl, c.hosts DESC, c.signal;
