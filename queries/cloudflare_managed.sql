-- Cloudflare's managed robots.txt: share per crawl
--
-- Question: per crawl, what share of robots.txt files carry Cloudflare's managed block
-- (between `# BEGIN Cloudflare Managed content` and `# END Cloudflare Managed
-- Content`), and how many of those carry a Content-Signal line in it?
--
-- Result: one row per crawl:
--   crawl
--   hosts                hosts whose latest capture in the crawl is a parsed robots.txt
--   managed              of those, hosts whose file has the block's BEGIN comment
--                        (a signals row of kind cloudflare-managed)
--   managed_with_signal  of managed, hosts with a Content-Signal line inside the block
--   managed_pct          managed / hosts, percent
--
-- Definition: latest capture per (crawl, host) as in ai_signals.sql. Read changes on
-- Cloudflare-fronted sites with this share in mind: Cloudflare rewrites the block for
-- every zone that turns it on.

WITH latest AS (
    SELECT doc_id, crawl, host, record_kind, http_status
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
parsed AS (
    SELECT doc_id, crawl, host
    FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
per_doc AS (
    SELECT doc_id,
           max(CASE WHEN kind = 'cloudflare-managed' THEN 1 ELSE 0 END) AS managed,
           max(CASE WHEN kind = 'content-signal' AND cloudflare_managed THEN 1 ELSE 0 END)
               AS with_signal
    FROM signals
    GROUP BY doc_id
),
counts AS (
    SELECT p.crawl,
           count(*) AS hosts,
           count(*) FILTER (WHERE d.managed = 1) AS managed,
           count(*) FILTER (WHERE d.managed = 1 AND d.with_signal = 1) AS managed_with_signal
    FROM parsed p
    LEFT JOIN per_doc d USING (doc_id)
    GROUP BY p.crawl
)
SELECT crawl, hosts, managed, managed_with_signal,
       round(100.0 * CAST(managed AS DOUBLE) / nullif(hosts, 0), 2) AS managed_pct
FROM counts
ORDER BY crawl;
