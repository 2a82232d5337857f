-- Lint findings by code and severity
--
-- Question: which robots.txt mistakes are common, and how many files have them?
--
-- Result: one row per (code, severity) of the engine's lint findings
-- (errors.origin = 'lint'; codes are listed in schemas/README.md):
--   code, severity   error, warning or info
--   documents        robots.txt captures with at least one finding of the code
--   findings         total findings of the code
--   hosts            distinct hosts among those captures
--   latest_hosts     hosts whose latest capture (rule: latest_capture_per_host.sql)
--                    has the finding
--   example          one excerpt (the smallest), for context
--
-- Caveats: documents/findings count every capture (a host fetched twice counts
-- twice); latest_hosts counts hosts once. At most 100 findings per code are kept
-- per document (documents.n_findings), so findings is a lower bound for files that
-- repeat a mistake hundreds of times. Only parsed captures (2xx or CSV with a body)
-- are linted; only robots.txt URLs are counted.

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
SELECT e.code,
       e.severity,
       count(DISTINCT e.doc_id) AS documents,
       count(*) AS findings,
       count(DISTINCT d.host) AS hosts,
       count(DISTINCT l.host) AS latest_hosts,
       min(e.excerpt) AS example
FROM errors e
JOIN docs d USING (doc_id)
LEFT JOIN latest l USING (doc_id)
WHERE e.origin = 'lint'
GROUP BY e.code, e.severity
ORDER BY CASE e.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END,
         documents DESC, e.code;
