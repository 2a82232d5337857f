-- Body size distribution
--
-- Question: how big are robots.txt files, and how many exceed Google's 500 KiB
-- (512,000 bytes) limit, past which Google ignores the rest?
--
-- Result: one row per size bucket of documents.body_size (decoded payload bytes):
--   bucket           0 B; 1 B-1 KiB; 1-10 KiB; 10-100 KiB; 100 KiB-500 KiB
--                    (up to 512,000 bytes, Google's limit); over 500 KiB
--   min_bytes, max_bytes   bucket bounds, inclusive (max null: unbounded)
--   captures         robots.txt captures with a body (not revisits), any status
--   parsed_captures  of which 2xx / CSV rows: the robots.txt files proper
--   latest_hosts     hosts whose latest capture (rule: latest_capture_per_host.sql)
--                    is a parsed robots.txt in the bucket
--   lower_bound      captures whose size is a lower bound (decoding stopped at the
--                    cap, or the crawler truncated the body: warc_truncated)
--
-- Caveats: 1 KiB = 1024 bytes, but the 500 KiB limit is 512,000 bytes as Google
-- states it (documents.cut_at_500kib). Common Crawl cuts bodies at 1 MiB
-- (warc_truncated = 'length'): their body_size is the stored size, not the served one.

WITH docs AS (
    SELECT *
    FROM documents
    WHERE regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
      AND record_kind <> 'revisit'
),
latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
buckets(o, bucket, min_bytes, max_bytes) AS (
    VALUES (1, '0 B', 0, 0),
           (2, '1 B-1 KiB', 1, 1024),
           (3, '1-10 KiB', 1025, 10240),
           (4, '10-100 KiB', 10241, 102400),
           (5, '100 KiB-500 KiB', 102401, 512000),
           (6, 'over 500 KiB', 512001, NULL)
),
parsed_latest AS (
    SELECT * FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
-- Each bucket's counts by a join on its bounds (DataFusion 55 cannot run the correlated
-- subqueries this query used, whose correlation is not an equality).
capture_counts AS (
    SELECT b.o,
           count(d.doc_id) AS captures,
           count(d.doc_id) FILTER (WHERE d.http_status IS NULL OR d.http_status BETWEEN 200 AND 299) AS parsed_captures,
           count(d.doc_id) FILTER (WHERE d.body_size_is_lower_bound OR d.warc_truncated IS NOT NULL) AS lower_bound
    FROM buckets b
    LEFT JOIN docs d
      ON d.body_size >= b.min_bytes AND (b.max_bytes IS NULL OR d.body_size <= b.max_bytes)
    GROUP BY b.o
),
latest_counts AS (
    SELECT b.o, count(d.doc_id) AS latest_hosts
    FROM buckets b
    LEFT JOIN parsed_latest d
      ON d.body_size >= b.min_bytes AND (b.max_bytes IS NULL OR d.body_size <= b.max_bytes)
    GROUP BY b.o
)
SELECT b.bucket, b.min_bytes, b.max_bytes,
       c.captures, c.parsed_captures, l.latest_hosts, c.lower_bound
FROM buckets b
JOIN capture_counts c ON c.o = b.o
JOIN latest_counts l ON l.o = b.o
ORDER BY b.o;
