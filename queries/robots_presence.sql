-- Robots.txt presence per host (latest capture per host)
--
-- Question: what share of hosts serve a robots.txt, and what do the others answer?
--
-- Result: one row per outcome of the host's latest capture (rule:
-- latest_capture_per_host.sql), following RFC 9309 section 2.3.1 as the pipeline
-- does (agents.classification):
--   outcome   robots_txt   2xx, or no status with a body (CSV): parsed
--             no_robots    4xx except 429: no robots.txt, crawlers may crawl all
--             unreachable  5xx and 429: Google assumes disallow-all (RFC 9309
--                          2.3.1.3 counts 429 as a 4xx: allow all)
--             redirect     3xx: the robots.txt is elsewhere (target not followed)
--             unknown      revisit records (no body), other status codes
--   hosts     hosts with that outcome
--   hosts_pct share of all hosts, in percent
--   robots_txt_html  (robots_txt only) hosts whose 2xx body looks like HTML: a
--                    soft-404 page served as robots.txt
--   robots_txt_empty (robots_txt only) hosts whose 2xx body has no group
--
-- Caveats: a redirect is not followed, so a host that redirects to a robots.txt on
-- another host counts as redirect, not robots_txt.

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
outcomes AS (
    SELECT *,
           CASE
               WHEN record_kind = 'revisit' THEN 'unknown'
               WHEN http_status IS NULL THEN 'robots_txt'
               WHEN http_status BETWEEN 200 AND 299 THEN 'robots_txt'
               WHEN http_status BETWEEN 300 AND 399 THEN 'redirect'
               WHEN http_status = 429 THEN 'unreachable'
               WHEN http_status BETWEEN 400 AND 499 THEN 'no_robots'
               WHEN http_status BETWEEN 500 AND 599 THEN 'unreachable'
               ELSE 'unknown'
           END AS outcome
    FROM latest
)
SELECT outcome,
       count(*) AS hosts,
       round(100.0 * CAST(count(*) AS DOUBLE) / sum(count(*)) OVER (), 2) AS hosts_pct,
       count(*) FILTER (WHERE outcome = 'robots_txt' AND looks_like_html) AS robots_txt_html,
       count(*) FILTER (WHERE outcome = 'robots_txt' AND n_groups = 0) AS robots_txt_empty
FROM outcomes
GROUP BY outcome
ORDER BY hosts DESC, outcome;
