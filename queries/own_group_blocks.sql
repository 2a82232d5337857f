-- Blocked by its own group (HasData's AI Crawler Block Index rule), per crawl and agent
--
-- Question: per crawl and agent of the run's list, how many hosts block the agent with
-- a group of its own, the rule HasData's index counts ("blocked only when its own
-- user-agent group disallows the root; a global `*` Disallow doesn't count"), beside
-- every block of '/' (the `*` group's included)?
--
-- Result: one row per (crawl, agent):
--   crawl
--   agent
--   hosts              hosts whose latest capture in the crawl is a parsed robots.txt
--   own_group_blocks   of those, hosts where a group names the agent (agents.named, as
--                      robots.cc matches product tokens) and robots.cc disallows '/'
--   any_block          hosts where robots.cc disallows '/' for the agent, by its own
--                      group or by `*`
--   own_group_pct      own_group_blocks / hosts, percent
--   any_block_pct      any_block / hosts, percent
--
-- Definition: latest capture per (crawl, host) as in ai_signals.sql. "Disallows '/'"
-- is agents.root_allowed = false: robots.cc's verdict for '/', so an Allow that wins
-- over Disallow: / is no block. Caveat: HasData fetches live files; this counts
-- archived captures.

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
           count(*) FILTER (WHERE a.named AND NOT a.root_allowed) AS own_group_blocks,
           count(*) FILTER (WHERE NOT a.root_allowed) AS any_block
    FROM agents a
    JOIN parsed p USING (doc_id)
    GROUP BY p.crawl, a.agent
)
SELECT crawl, agent, hosts, own_group_blocks, any_block,
       round(100.0 * CAST(own_group_blocks AS DOUBLE) / nullif(hosts, 0), 2) AS own_group_pct,
       round(100.0 * CAST(any_block AS DOUBLE) / nullif(hosts, 0), 2) AS any_block_pct
FROM counts
ORDER BY crawl, own_group_blocks DESC, agent;
