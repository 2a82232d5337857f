-- AI-use signals: adoption per crawl, by what the lines say and whether they are valid
--
-- Question: in each crawl, how many hosts publish each kind of AI-use signal (the
-- signals table: content-usage, content-signal, license, llm-policy,
-- disallow-ai-training, tdm-comment, cloudflare-managed), what do the lines say, and
-- are they valid?
--
-- Result: one row per (crawl, kind, says, valid):
--   crawl
--   kind       signals.kind
--   says       what the line states:
--                content-usage   'train-ai=<y|n|unknown> search=<y|n|unknown>' (AIPREF's
--                                current vocabulary; unknown covers legacy labels,
--                                yes/no and values that are no dictionary)
--                content-signal  'ai-train=<yes|no|unset> search=<...> ai-input=<...>
--                                use=<immediate|reference|full|unset>'
--                license         'same-host', 'other-host' or 'unresolved'
--                other kinds     ''
--   valid      signals.valid (problem is null)
--   hosts      hosts whose latest capture in the crawl has such a line
--   lines      such lines in those captures
--   hosts_pct  hosts as a share of the crawl's hosts whose latest capture is a parsed
--              robots.txt (2xx, or a CSV row with a body), percent
--
-- Definition: latest capture per (crawl, host) as in ai_signals.sql. A host with two
-- lines that say different things counts in both rows.

WITH latest AS (
    SELECT doc_id, crawl, host, record_kind, http_status
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
parsed AS (
    SELECT doc_id, crawl, host
    FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
per_crawl AS (
    SELECT crawl, count(*) AS parsed_hosts
    FROM parsed
    GROUP BY crawl
),
said AS (
    SELECT p.crawl, p.host, s.kind, s.valid,
           CASE s.kind
               WHEN 'content-usage' THEN
                   'train-ai=' || coalesce(s.train_ai, 'unknown')
                   || ' search=' || coalesce(s.search, 'unknown')
               WHEN 'content-signal' THEN
                   'ai-train=' || coalesce(s.ai_train, 'unset')
                   || ' search=' || coalesce(s.search_signal, 'unset')
                   || ' ai-input=' || coalesce(s.ai_input, 'unset')
                   || ' use=' || coalesce(s."use", 'unset')
               WHEN 'license' THEN
                   CASE WHEN s.license_same_host THEN 'same-host'
                        WHEN NOT s.license_same_host THEN 'other-host'
                        ELSE 'unresolved' END
               ELSE ''
           END AS says
    FROM signals s
    JOIN parsed p USING (doc_id)
),
counts AS (
    SELECT crawl, kind, says, valid, count(DISTINCT host) AS hosts, count(*) AS lines
    FROM said
    GROUP BY crawl, kind, says, valid
)
SELECT c.crawl, c.kind, c.says, c.valid, c.hosts, c.lines,
       round(100.0 * CAST(c.hosts AS DOUBLE) / nullif(t.parsed_hosts, 0), 2) AS hosts_pct
FROM counts c
JOIN per_crawl t ON t.crawl = c.crawl
ORDER BY c.crawl, c.kind, c.hosts DESC, c.says, c.valid;
