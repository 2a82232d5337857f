-- HTTP status distribution of robots.txt captures
--
-- Question: which HTTP statuses do robots.txt fetches get?
--
-- Result: one row per (status_class, http_status):
--   status_class  2xx, 3xx, 4xx, 5xx, other, or none (revisit records, CSV rows
--                 without a status column)
--   http_status   the code (null for class none)
--   captures      robots.txt captures with that status
--   captures_pct  share of all robots.txt captures, in percent
--   hosts         distinct hosts among those captures
--   latest_hosts  hosts whose latest capture (rule: latest_capture_per_host.sql) has
--                 that status; sums to the number of hosts
--
-- Caveats: captures counts every fetch (a host fetched over http and https counts
-- twice); use latest_hosts for per-host shares. Only robots.txt URLs are counted
-- (same URL test as latest_capture_per_host.sql). A CSV dump without a status column
-- puts every row in class none.

WITH docs AS (
    SELECT *
    FROM documents
    WHERE regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
),
latest AS (
    SELECT *
    FROM docs
    WHERE host IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
)
SELECT d.status_class,
       d.http_status,
       count(*) AS captures,
       round(100.0 * CAST(count(*) AS DOUBLE) / sum(count(*)) OVER (), 2) AS captures_pct,
       count(DISTINCT d.host) AS hosts,
       count(l.doc_id) AS latest_hosts
FROM docs d
LEFT JOIN latest l USING (doc_id)
GROUP BY d.status_class, d.http_status
ORDER BY d.status_class, d.http_status NULLS LAST;
