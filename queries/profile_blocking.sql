-- Blocking as each crawler family reads it (latest capture per host and crawl)
--
-- Question: for each agent, what share of hosts do other crawlers' parsers read as
-- blocking it fully or partly, beside Google's reading, and how many hosts does each
-- family class differently from Google?
--
-- Result: one row per (crawl, agent, profile) of a run with --profiles:
--   crawl, agent, profile   readings.profile: google, urllib, ccbot, ...
--   hosts            hosts whose latest capture in the crawl is a parsed robots.txt
--                    (readings has rows only for parsed bodies)
--   full, partial, none      hosts by readings.probe_class (the Somesite reading
--                    with the family's verdicts)
--   full_pct, partial_pct    of hosts, percent
--   differs_from_google      hosts whose probe_class under this profile is not the
--                    google profile's (null when the run did not ask google)
--
-- Caveats: "latest capture per host" as latest_capture_per_host.sql, per crawl. A
-- profile reads the body only; what a family makes of an error status is
-- `sites --status-semantics` (the sites table), not this query.

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
r AS (
    SELECT rd.*
    FROM readings rd
    JOIN latest USING (doc_id)
),
g AS (
    SELECT doc_id, agent, probe_class AS google_class FROM r WHERE profile = 'google'
)
SELECT r.crawl, r.agent, r.profile,
       count(*) AS hosts,
       count(*) FILTER (WHERE r.probe_class = 'full') AS full,
       count(*) FILTER (WHERE r.probe_class = 'partial') AS partial,
       count(*) FILTER (WHERE r.probe_class = 'none') AS none,
       round(100.0 * CAST(count(*) FILTER (WHERE r.probe_class = 'full') AS DOUBLE) / count(*), 2) AS full_pct,
       round(100.0 * CAST(count(*) FILTER (WHERE r.probe_class = 'partial') AS DOUBLE) / count(*), 2) AS partial_pct,
       CASE WHEN count(g.google_class) > 0
            THEN count(*) FILTER (WHERE r.probe_class <> g.google_class) END AS differs_from_google
FROM r
LEFT JOIN g USING (doc_id, agent)
GROUP BY r.crawl, r.agent, r.profile
ORDER BY r.crawl, r.agent, r.profile;
