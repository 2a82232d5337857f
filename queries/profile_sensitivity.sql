-- Sites whose verdict for an agent depends on the crawler's parser (latest capture per
-- host and crawl)
--
-- Question: for each agent, what share of hosts would crawlers read differently
-- depending on the parser they use, and does Google's reading of '/' then block the
-- agent where another family's lets it in, or the other way round?
--
-- Needs: documents, readings (`run --profiles LIST`; google among the profiles for the
-- open_elsewhere and closed_elsewhere columns).
--
-- Result: one row per (crawl, agent) of the run's agents (all of them: the report
-- groups them by purpose itself):
--   crawl, agent
--   hosts             hosts whose latest capture in the crawl is a parsed robots.txt
--                     (readings has rows only for parsed bodies)
--   sensitive         of those, hosts whose latest capture the run's profiles read
--                     differently for the agent (readings.interpretation_sensitive:
--                     root_allowed or probe_class differs between two profiles)
--   sensitive_pct     of hosts, percent (null when hosts is 0)
--   open_elsewhere    hosts where Google's profile disallows '/' for the agent but at
--                     least one other profile of the run allows it
--   closed_elsewhere  hosts where Google's profile allows '/' but at least one other
--                     profile disallows it (both null when the run did not ask google)
--   profiles          readings compared per host: the profiles the run asked (readings
--                     has one row per document, agent and profile)
--
-- Caveats: "latest capture per host" as latest_capture_per_host.sql, per crawl. With
-- google asked, a sensitive host is open_elsewhere or closed_elsewhere unless every
-- profile reads '/' alike and they differ on the other probe paths (probe_class only).
-- A profile reads the body only; what a family makes of an error status is
-- `sites --status-semantics` (the sites table), not this query.

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
-- One row per (host, agent): its latest capture's readings folded together.
per_host AS (
    SELECT l.crawl, r.agent, r.doc_id,
           count(*) AS readings,
           count(*) FILTER (WHERE r.interpretation_sensitive) AS sensitive,
           count(*) FILTER (WHERE r.profile = 'google') AS google,
           count(*) FILTER (WHERE r.profile = 'google' AND NOT r.root_allowed) AS google_blocks,
           count(*) FILTER (WHERE r.profile = 'google' AND r.root_allowed) AS google_allows,
           count(*) FILTER (WHERE r.profile <> 'google' AND r.root_allowed) AS others_allow,
           count(*) FILTER (WHERE r.profile <> 'google' AND NOT r.root_allowed) AS others_block
    FROM readings r
    JOIN latest l USING (doc_id)
    GROUP BY l.crawl, r.agent, r.doc_id
),
per_agent AS (
    SELECT crawl, agent,
           count(*) AS hosts,
           count(*) FILTER (WHERE sensitive > 0) AS sensitive,
           count(*) FILTER (WHERE google > 0) AS google_hosts,
           count(*) FILTER (WHERE google_blocks > 0 AND others_allow > 0) AS open_elsewhere,
           count(*) FILTER (WHERE google_allows > 0 AND others_block > 0) AS closed_elsewhere,
           max(readings) AS profiles
    FROM per_host
    GROUP BY crawl, agent
)
SELECT crawl, agent, hosts, sensitive,
       round(100.0 * CAST(sensitive AS DOUBLE) / nullif(hosts, 0), 2) AS sensitive_pct,
       CASE WHEN google_hosts > 0 THEN open_elsewhere END AS open_elsewhere,
       CASE WHEN google_hosts > 0 THEN closed_elsewhere END AS closed_elsewhere,
       profiles
FROM per_agent
ORDER BY crawl, agent;
