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
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots\.txt([?#]|$)')
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
    SELECT crawl, signal, value, count(*) AS n
    FROM s
    GROUP BY crawl, signal, value
    QUALIFY row_number() OVER (PARTITION BY crawl, signal ORDER BY n DESC, value) <= 3
)
SELECT s.crawl, s.signal,
       count(DISTINCT s.host) AS hosts,
       count(*) AS lines,
       (SELECT string_agg(v.value || ' (' || v.n || ')', '; ' ORDER BY v.n DESC, v.value)
        FROM v WHERE v.crawl = s.crawl AND v.signal = s.signal) AS top_values
FROM s
GROUP BY s.crawl, s.signal
ORDER BY s.crawl, hosts DESC, s.signal;
