-- Agents mentioned in robots.txt (the Web Almanac's count), per crawl and agent
--
-- Question: per crawl and agent of the run's list, what share of robots.txt files
-- mention the agent, as the Web Almanac counts it (HTTPArchive custom metric
-- robots_txt.js: a user-agent line whose value, lower-cased, is the token)? Beside it,
-- the share where a group applies to the agent by name (robots.cc's product-token
-- match, which also takes `GPTBot/1.0`).
--
-- Result: one row per (crawl, agent):
--   crawl
--   agent
--   hosts          hosts whose latest capture in the crawl is a parsed robots.txt
--   mentioned      of those, hosts whose file mentions the agent (agents.mentioned)
--   named          hosts where a group names the agent (agents.named)
--   mentioned_pct  mentioned / hosts, percent
--   named_pct      named / hosts, percent
--
-- Definition: latest capture per (crawl, host) as in ai_signals.sql. Caveat: the
-- Almanac counts HTTP Archive's page population (fetched by a browser, redirects
-- followed); this counts archived robots.txt captures.

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
counts AS (
    SELECT p.crawl, a.agent,
           count(*) AS hosts,
           count(*) FILTER (WHERE a.mentioned) AS mentioned,
           count(*) FILTER (WHERE a.named) AS named
    FROM agents a
    JOIN parsed p USING (doc_id)
    GROUP BY p.crawl, a.agent
)
SELECT crawl, agent, hosts, mentioned, named,
       round(100.0 * CAST(mentioned AS DOUBLE) / nullif(hosts, 0), 2) AS mentioned_pct,
       round(100.0 * CAST(named AS DOUBLE) / nullif(hosts, 0), 2) AS named_pct
FROM counts
ORDER BY crawl, mentioned DESC, agent;
