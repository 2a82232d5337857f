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
    FROM read_parquet('out/documents/*/*.parquet')
    WHERE host IS NOT NULL
      AND regexp_matches(url, '^https?://[^/?#]+/([^?#]*/)?robots\.txt([?#]|$)', 'i')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
parsed AS (
    SELECT * FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
delays AS (
    SELECT p.host, g.group_index, g.crawl_delay, g.product_tokens
    FROM read_parquet('out/groups/*/*.parquet') g
    JOIN parsed p USING (doc_id)
    WHERE g.crawl_delay IS NOT NULL
),
by_token AS (
    SELECT host, group_index, crawl_delay, unnest(list_distinct(product_tokens)) AS product_token
    FROM delays
    UNION ALL
    SELECT host, group_index, crawl_delay, '(any)' FROM delays
)
SELECT product_token,
       count(DISTINCT host) AS hosts,
       round(100.0 * count(DISTINCT host) / (SELECT count(*) FROM parsed), 2) AS hosts_pct,
       count(*) AS groups,
       min(crawl_delay) AS min_s,
       median(crawl_delay) AS median_s,
       quantile_cont(crawl_delay, 0.9) AS p90_s,
       max(crawl_delay) AS max_s,
       round(avg(crawl_delay), 3) AS avg_s,
       count(*) FILTER (WHERE crawl_delay <= 1) AS le_1s,
       count(*) FILTER (WHERE crawl_delay > 1 AND crawl_delay <= 5) AS le_5s,
       count(*) FILTER (WHERE crawl_delay > 5 AND crawl_delay <= 10) AS le_10s,
       count(*) FILTER (WHERE crawl_delay > 10 AND crawl_delay <= 60) AS le_60s,
       count(*) FILTER (WHERE crawl_delay > 60) AS over_60s
FROM by_token
GROUP BY product_token
ORDER BY product_token <> '(any)', hosts DESC, product_token;
