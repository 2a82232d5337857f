-- Agent blocking per crawl (all sites, ranked or not)
--
-- Question: per crawl and crawler, how many sites block it fully or partially, and do
-- they name it or only apply the '*' group? The report's "Agent blocking per crawl"
-- charts (robots-census report).
--
-- Needs: `robots-census sites OUT` (any options; the table records them).
--
-- Result: one row per crawl and agent (sites.agent), over sites with a capture:
--   crawl, agent
--   sites            sites with a capture (status class not "No robots.txt capture")
--   robots_sites     sites whose deciding capture is a robots.txt (status class
--                    "Robots.txt with rules" or "Robots.txt no rules", so sites.block
--                    is not null): the denominator
--   fully            block = 'full': a robots.txt whose Google verdict for the agent at
--                    '/' is disallowed
--   fully_named, fully_star        through a group naming the agent / the '*' group
--   partially        block = 'partial': a robots.txt, '/' allowed, some probed path
--                    disallowed (google_class = partial)
--   partially_named, partially_star
--   fully_pct, partially_pct       of robots_sites, percent
--
-- Caveats: the same definitions as agent_restrictions_by_crawl.sql, but over every
-- site rather than ranked sites only.

WITH c AS (
    SELECT crawl,
           agent,
           count(*) AS sites,
           count(block) AS robots_sites,
           count(*) FILTER (WHERE block = 'full') AS fully,
           count(*) FILTER (WHERE block = 'full' AND named) AS fully_named,
           count(*) FILTER (WHERE block = 'full' AND NOT named) AS fully_star,
           count(*) FILTER (WHERE block = 'partial') AS partially,
           count(*) FILTER (WHERE block = 'partial' AND named) AS partially_named,
           count(*) FILTER (WHERE block = 'partial' AND NOT named) AS partially_star
    FROM sites
    WHERE status_class <> 'No robots.txt capture'
    GROUP BY crawl, agent
)
SELECT crawl, agent, sites, robots_sites,
       fully, fully_named, fully_star,
       round(100.0 * CAST(fully AS DOUBLE) / nullif(robots_sites, 0), 2) AS fully_pct,
       partially, partially_named, partially_star,
       round(100.0 * CAST(partially AS DOUBLE) / nullif(robots_sites, 0), 2) AS partially_pct
FROM c
ORDER BY crawl, agent;
