-- Most frequently named user-agents (latest capture per host)
--
-- Question: which crawlers do robots.txt files address by name?
--
-- Result: one row per product token (groups.product_tokens: what robots.cc matches,
-- the User-agent value cut to [A-Za-z_-]* and lower-cased; '*' for the global
-- group), over hosts' latest captures that were parsed (rule:
-- latest_capture_per_host.sql), most hosts first:
--   product_token  the token ('' when the value starts with another character,
--                  e.g. "User-agent: 008": robots.cc can never match such a group)
--   hosts          hosts whose robots.txt has a group naming the token
--   hosts_pct      share of hosts with a parsed robots.txt, percent
--   groups         groups naming it (a file may name a token in several groups)
--   example_value  one User-agent value as written (the smallest), for context
--
-- Caveats: tokens, not full User-agent strings: "Googlebot/2.1" and "googlebot"
-- are one row. Counts only parsed robots.txt (2xx or CSV rows with a body).

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots\.txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
parsed AS (
    SELECT * FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
named AS (
    SELECT p.host, g.group_index,
           unnest(g.product_tokens) AS product_token,
           unnest(g.user_agents) AS user_agent
    FROM groups g
    JOIN parsed p USING (doc_id)
)
SELECT product_token,
       count(DISTINCT host) AS hosts,
       round(100.0 * CAST(count(DISTINCT host) AS DOUBLE) / (SELECT count(*) FROM parsed), 2) AS hosts_pct,
       count(DISTINCT (host, group_index)) AS groups,
       min(user_agent) AS example_value
FROM named
GROUP BY product_token
ORDER BY hosts DESC, product_token
LIMIT 100;
