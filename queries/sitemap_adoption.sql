-- Sitemap adoption (latest capture per host)
--
-- Question: what share of hosts announce a sitemap in robots.txt, and are the
-- sitemap URLs usable (absolute) and on the same host?
--
-- Result: one row per measure, over hosts whose latest capture (rule:
-- latest_capture_per_host.sql) is a parsed robots.txt (2xx, or CSV with a body):
--   measure
--     robots_hosts        hosts with a parsed robots.txt (the denominator)
--     any_sitemap         hosts with >= 1 Sitemap line
--     absolute            hosts with >= 1 absolute sitemap URL (http(s)/ftp with a host)
--     only_not_absolute   hosts with Sitemap lines, none absolute (relative paths,
--                         junk: search engines ignore them)
--     same_host           hosts with >= 1 absolute sitemap on the robots.txt's host
--     cross_host          hosts with >= 1 absolute sitemap on another host (CDN,
--                         www vs bare domain, another site)
--     only_cross_host     hosts whose absolute sitemaps are all on other hosts
--   hosts      hosts meeting the measure
--   hosts_pct  share of robots_hosts, percent
--   sitemap_lines  Sitemap lines behind the measure (robots_hosts: all lines)
--
-- Caveats: same_host compares authorities exactly: www.example.com and example.com
-- differ, http and https do not (the scheme is not part of the host). Sitemap lines
-- in a file cut at 500 KiB are only counted up to the cut.

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
per_host AS (
    SELECT p.host,
           count(s.line) AS lines,
           count(s.line) FILTER (WHERE s.is_absolute) AS absolute,
           count(s.line) FILTER (WHERE s.is_absolute AND s.same_host) AS same_host,
           count(s.line) FILTER (WHERE s.is_absolute AND NOT s.same_host) AS cross_host
    FROM parsed p
    LEFT JOIN sitemaps s USING (doc_id)
    GROUP BY p.host
),
-- Every measure in one aggregation over per_host, then one row per measure by a join
-- with their names: DataFusion computes a CTE again at each reference, and a UNION of
-- seven aggregations over per_host ran the latest-capture window eight times.
totals AS (
    SELECT count(*) AS robots_hosts,
           sum(lines) AS robots_lines,
           count(*) FILTER (WHERE lines > 0) AS any_hosts,
           sum(lines) FILTER (WHERE lines > 0) AS any_lines,
           count(*) FILTER (WHERE absolute > 0) AS absolute_hosts,
           sum(absolute) FILTER (WHERE absolute > 0) AS absolute_lines,
           count(*) FILTER (WHERE lines > 0 AND absolute = 0) AS not_absolute_hosts,
           sum(lines) FILTER (WHERE lines > 0 AND absolute = 0) AS not_absolute_lines,
           count(*) FILTER (WHERE same_host > 0) AS same_hosts,
           sum(same_host) FILTER (WHERE same_host > 0) AS same_lines,
           count(*) FILTER (WHERE cross_host > 0) AS cross_hosts,
           sum(cross_host) FILTER (WHERE cross_host > 0) AS cross_lines,
           count(*) FILTER (WHERE cross_host > 0 AND same_host = 0) AS only_cross_hosts,
           sum(cross_host) FILTER (WHERE cross_host > 0 AND same_host = 0) AS only_cross_lines
    FROM per_host
),
names(o, measure) AS (
    VALUES (1, 'robots_hosts'), (2, 'any_sitemap'), (3, 'absolute'), (4, 'only_not_absolute'),
           (5, 'same_host'), (6, 'cross_host'), (7, 'only_cross_host')
),
measures AS (
    SELECT n.o,
           n.measure,
           CASE n.o WHEN 1 THEN t.robots_hosts WHEN 2 THEN t.any_hosts
                    WHEN 3 THEN t.absolute_hosts WHEN 4 THEN t.not_absolute_hosts
                    WHEN 5 THEN t.same_hosts WHEN 6 THEN t.cross_hosts
                    ELSE t.only_cross_hosts END AS hosts,
           CASE n.o WHEN 1 THEN t.robots_lines WHEN 2 THEN t.any_lines
                    WHEN 3 THEN t.absolute_lines WHEN 4 THEN t.not_absolute_lines
                    WHEN 5 THEN t.same_lines WHEN 6 THEN t.cross_lines
                    ELSE t.only_cross_lines END AS sitemap_lines,
           t.robots_hosts
    FROM names n
    CROSS JOIN totals t
)
SELECT measure,
       hosts,
       round(100.0 * CAST(hosts AS DOUBLE) / nullif(robots_hosts, 0), 2) AS hosts_pct,
       coalesce(sitemap_lines, 0) AS sitemap_lines
FROM measures
ORDER BY o;
