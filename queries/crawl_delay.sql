-- Crawl-delay usage and values, by product token (latest capture per host)
--
-- Question: how many hosts ask crawlers to slow down, which crawlers, and by how much?
--
-- Result: one row per product token of groups with a numeric crawl-delay (plus a
-- first row '(any)': hosts with a crawl-delay in any group), over hosts whose latest
-- capture (rule: latest_capture_per_host.sql) is a parsed robots.txt:
--   product_token   groups.product_tokens ('*' for the global group)
--   hosts           hosts with a crawl-delay for the token
--   hosts_pct       share of hosts with a parsed robots.txt, percent
--   groups          groups with a crawl-delay naming the token
--   min_s, median_s, p90_s, max_s, avg_s   the delay values, seconds (a host counts
--                   once per group: a file giving the token two delays adds two)
--   le_1s, le_5s, le_10s, le_60s, over_60s  groups by value bucket:
--                   (,1], (1,5], (5,10], (10,60], over 60 seconds
--
-- Caveats: groups.crawl_delay is the FIRST crawl-delay of a group that parses as a
-- number; non-numeric values ("Crawl-delay: ten") and crawl-delay lines before any
-- User-agent line are not here (they are in rules, directive = 'crawl-delay').
-- Google ignores crawl-delay; Bing and Yandex honour it.

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
delays AS (
    SELECT p.host, g.group_index, g.crawl_delay, g.product_tokens
    FROM groups g
    JOIN parsed p USING (doc_id)
    WHERE g.crawl_delay IS NOT NULL
),
by_token AS (
    SELECT host, group_index, crawl_delay, unnest(array_distinct(product_tokens)) AS product_token
    FROM delays
    UNION ALL
    SELECT host, group_index, crawl_delay, '(any)' FROM delays
),
ranked AS (
    -- For p90_s, DuckDB's quantile_cont(crawl_delay, 0.9) spelled out (DataFusion 55's
    -- percentile_cont / quantile_cont is approximate): over the n values of a token in
    -- ascending order, numbered from 0, position p = (n - 1) * 0.9; the value at floor(p)
    -- plus (p - floor(p)) times the step to the value at ceil(p).
    SELECT *,
           row_number() OVER (PARTITION BY product_token ORDER BY crawl_delay) - 1 AS i,
           CAST(count(*) OVER (PARTITION BY product_token) - 1 AS DOUBLE) * 0.9 AS p90_at
    FROM by_token
),
stats AS (
    SELECT product_token,
           count(DISTINCT host) AS hosts,
           round(100.0 * CAST(count(DISTINCT host) AS DOUBLE) / (SELECT count(*) FROM parsed), 2) AS hosts_pct,
           count(*) AS groups,
           min(crawl_delay) AS min_s,
           median(crawl_delay) AS median_s,
           max(CASE WHEN i = floor(p90_at) THEN crawl_delay END) AS p90_lo,
           max(CASE WHEN i = ceil(p90_at) THEN crawl_delay END) AS p90_hi,
           max(p90_at - floor(p90_at)) AS p90_frac,
           max(crawl_delay) AS max_s,
           round(avg(crawl_delay), 3) AS avg_s,
           count(*) FILTER (WHERE crawl_delay <= 1) AS le_1s,
           count(*) FILTER (WHERE crawl_delay > 1 AND crawl_delay <= 5) AS le_5s,
           count(*) FILTER (WHERE crawl_delay > 5 AND crawl_delay <= 10) AS le_10s,
           count(*) FILTER (WHERE crawl_delay > 10 AND crawl_delay <= 60) AS le_60s,
           count(*) FILTER (WHERE crawl_delay > 60) AS over_60s
    FROM ranked
    GROUP BY product_token
)
SELECT product_token, hosts, hosts_pct, groups, min_s, median_s,
       p90_lo + (p90_hi - p90_lo) * p90_frac AS p90_s,
       max_s, avg_s, le_1s, le_5s, le_10s, le_60s, over_60s
FROM stats
ORDER BY product_token <> '(any)' NULLS LAST, hosts DESC, product_token NULLS LAST;
