-- Agent blocking (latest capture per host)
--
-- Question: for each crawler (AI crawlers such as GPTBot, ClaudeBot, CCBot, and the
-- search crawlers of the run's agent list), what share of hosts disallow it fully or
-- partially, and do they name it explicitly or only through the '*' group?
--
-- Result: one row per agent of the run's agent list (agents.agent; the bundled
-- default list or --agents), over hosts' latest captures (rule:
-- latest_capture_per_host.sql):
--   agent                 crawler product token as asked
--   hosts                 all hosts
--   robots_hosts          hosts whose latest capture is a parsed robots.txt (2xx):
--                         the denominator of the _pct columns
--   full_disallow         hosts disallowing '/' with no allow rule for the agent
--   full_named            ... through a group naming the agent
--   full_star             ... through the '*' group only
--   partial_disallow      hosts with some disallow rule for the agent (or '/'
--                         disallowed with allow exceptions)
--   partial_named, partial_star   split as above
--   named                 hosts whose robots.txt names the agent at all
--   full_disallow_pct, partial_disallow_pct, named_pct   of robots_hosts, percent
--   unreachable_hosts     hosts whose latest capture is 5xx/429: Google reads both
--                         as disallow-all (RFC 9309: 5xx only), not counted in
--                         full_disallow
--
-- Caveats: classification is robots.cc's reading (agents.classification): a
-- partial disallow can be as small as one path. Product tokens are matched as
-- robots.cc matches them ("GPTBot/1.0" in a file names GPTBot). Only the agents
-- given to the run are in the table.

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
a AS (
    SELECT ag.*
    FROM agents ag
    JOIN latest USING (doc_id)
),
counts AS (
    SELECT agent,
           count(*) AS hosts,
           count(*) FILTER (WHERE classification IN ('full_disallow', 'partial_disallow', 'allowed')
                              AND root_allowed IS NOT NULL) AS robots_hosts,
           count(*) FILTER (WHERE classification = 'full_disallow') AS full_disallow,
           count(*) FILTER (WHERE classification = 'full_disallow' AND named) AS full_named,
           count(*) FILTER (WHERE classification = 'full_disallow' AND NOT named) AS full_star,
           count(*) FILTER (WHERE classification = 'partial_disallow') AS partial_disallow,
           count(*) FILTER (WHERE classification = 'partial_disallow' AND named) AS partial_named,
           count(*) FILTER (WHERE classification = 'partial_disallow' AND NOT named) AS partial_star,
           count(*) FILTER (WHERE named) AS named,
           count(*) FILTER (WHERE classification = 'unreachable') AS unreachable_hosts
    FROM a
    GROUP BY agent
)
SELECT agent, hosts, robots_hosts,
       full_disallow, full_named, full_star,
       partial_disallow, partial_named, partial_star,
       named,
       round(100.0 * CAST(full_disallow AS DOUBLE) / nullif(robots_hosts, 0), 2) AS full_disallow_pct,
       round(100.0 * CAST(partial_disallow AS DOUBLE) / nullif(robots_hosts, 0), 2) AS partial_disallow_pct,
       round(100.0 * CAST(named AS DOUBLE) / nullif(robots_hosts, 0), 2) AS named_pct,
       unreachable_hosts
FROM counts
ORDER BY full_disallow DESC, partial_disallow DESC, agent;
