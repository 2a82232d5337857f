-- Google's reading against another family's, class by class (Data-Provenance-Initiative
-- issue #203's comparison)
--
-- Question: the Consent-in-Crisis numbers moved 10-30% when the parser changed. For each
-- agent and profile, how many hosts does Google's reading put in each class, and where
-- does the other family's reading put them?
--
-- Result: one row per (crawl, agent, profile, google_class, profile_class) with hosts:
--   crawl, agent, profile    every profile of the run but google
--   google_class             readings.probe_class under the google profile
--   profile_class            readings.probe_class under this profile
--   hosts                    hosts (latest capture per host and crawl) in both classes
-- The diagonal (google_class = profile_class) is agreement; summing rows by
-- google_class gives Google's class counts, by profile_class the family's.
--
-- Caveats: needs a run with --profiles including google (`--profiles all`).

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
r AS (
    SELECT rd.*
    FROM readings rd
    JOIN latest USING (doc_id)
)
SELECT p.crawl, p.agent, p.profile,
       g.probe_class AS google_class,
       p.probe_class AS profile_class,
       count(*) AS hosts
FROM r p
JOIN r g ON g.doc_id = p.doc_id AND g.agent = p.agent AND g.profile = 'google'
WHERE p.profile <> 'google'
GROUP BY ALL
ORDER BY p.crawl, p.agent, p.profile, google_class, profile_class;
