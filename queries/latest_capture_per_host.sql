-- Latest capture per host
--
-- Question: what is each host's robots.txt now, i.e. in its most recent capture?
-- Common Crawl fetches the same host several times per crawl (http and https,
-- re-fetches), so per-host shares must count one capture per host.
--
-- Rule (the same in every query that says "latest capture per host"):
--   * only captures of a robots.txt URL (http(s), path ending in /robots.txt, as the
--     WARC reader's own test; a wget WARC also holds pages and images) with a host;
--   * per host (documents.host: lower-cased authority, host[:port], so http and https
--     captures of a host are one host), the capture with the greatest fetch_time;
--     captures without fetch_time (CSV rows) come after any dated capture;
--   * ties (same fetch_time, or both null) go to the greatest doc_id: arbitrary but
--     deterministic.
-- Other queries inline the CTE `latest` below verbatim instead of depending on this
-- view, so every file runs on its own; change the rule in all of them together.
--
-- Result: one row per host, the documents columns most queries need:
--   host, doc_id, source, url, scheme, fetch_time, http_status, status_class,
--   record_kind, body_size, n_groups, n_sitemaps, n_findings, captures (how many
--   robots.txt captures the host has in the input).
--
-- Caveats: "host" is the authority as captured: www.example.com and example.com
-- are different hosts; a host whose latest capture is a redirect or an error is
-- counted as such even when an older capture had a robots.txt.

CREATE OR REPLACE VIEW latest_capture_per_host AS
WITH latest AS (
    SELECT *, count(*) OVER (PARTITION BY host) AS captures
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
)
SELECT host, doc_id, source, url, scheme, fetch_time, http_status, status_class,
       record_kind, body_size, n_groups, n_sitemaps, n_findings, captures
FROM latest;

SELECT * FROM latest_capture_per_host ORDER BY host;
