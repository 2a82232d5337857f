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
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
parsed AS (
    SELECT * FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
named AS (
    -- product_tokens[i] is the token of user_agents[i]: one row per position i (the
    -- lists are equally long; a missing element would be null, as two unnests in one
    -- select list pair them in DuckDB and DataFusion; Spark would multiply them).
    -- The positions are a column of an inner select, not unnest's argument: Spark
    -- refuses a SQL function (generate_series, preamble/spark.sql) inside a generator.
    -- The elements are taken before the join, so that only they (not both lists, once
    -- per position) are sorted for it.
    SELECT p.host, g.group_index, g.product_token, g.user_agent
    FROM (SELECT doc_id, group_index,
                 array_extract(product_tokens, i) AS product_token,
                 array_extract(user_agents, i) AS user_agent
          FROM (SELECT doc_id, group_index, product_tokens, user_agents, unnest(positions) AS i
                FROM (SELECT *,
                             generate_series(1, CAST(greatest(cardinality(product_tokens),
                                                              cardinality(user_agents)) AS BIGINT))
                                 AS positions
                      FROM groups) AS gp) AS gu) g
    JOIN parsed p USING (doc_id)
),
-- One row per (token, host, group), then per (token, host): plain GROUP BYs, which
-- every engine spills to disk, where count(DISTINCT ...) of a pair keeps one hash set
-- per token in memory (DataFusion ran out of it at 100k captures).
per_group AS (
    SELECT product_token, host, group_index, min(user_agent) AS user_agent
    FROM named
    GROUP BY product_token, host, group_index
),
per_host AS (
    SELECT product_token, host, count(*) AS n_groups, min(user_agent) AS user_agent
    FROM per_group
    GROUP BY product_token, host
)
SELECT product_token,
       count(*) AS hosts,
       round(100.0 * CAST(count(*) AS DOUBLE) / (SELECT count(*) FROM parsed), 2) AS hosts_pct,
       CAST(sum(n_groups) AS BIGINT) AS groups,
       min(user_agent) AS example_value
FROM per_host
GROUP BY product_token
ORDER BY hosts DESC, product_token NULLS LAST
LIMIT 100;
