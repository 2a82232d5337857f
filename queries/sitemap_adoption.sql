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
measures AS (
    SELECT 1 AS o, 'robots_hosts' AS measure, count(*) AS hosts, sum(lines) AS sitemap_lines FROM per_host
    UNION ALL
    SELECT 2, 'any_sitemap', count(*), sum(lines) FROM per_host WHERE lines > 0
    UNION ALL
    SELECT 3, 'absolute', count(*), sum(absolute) FROM per_host WHERE absolute > 0
    UNION ALL
    SELECT 4, 'only_not_absolute', count(*), sum(lines) FROM per_host WHERE lines > 0 AND absolute = 0
    UNION ALL
    SELECT 5, 'same_host', count(*), sum(same_host) FROM per_host WHERE same_host > 0
    UNION ALL
    SELECT 6, 'cross_host', count(*), sum(cross_host) FROM per_host WHERE cross_host > 0
    UNION ALL
    SELECT 7, 'only_cross_host', count(*), sum(cross_host) FROM per_host WHERE cross_host > 0 AND same_host = 0
)
SELECT measure,
       hosts,
       round(100.0 * CAST(hosts AS DOUBLE) / nullif((SELECT count(*) FROM per_host), 0), 2) AS hosts_pct,
       coalesce(sitemap_lines, 0) AS sitemap_lines
FROM measures
ORDER BY o;
