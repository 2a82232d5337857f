-- Agent restrictions per crawl: fully, partially, not restricted (the Somesite shape)
--
-- Question: per crawl and crawler, how many ranked sites restrict it fully, partially
-- or not at all, and how many had no robots.txt (404) or another error? The shape of
-- the "Somesite I Used To Crawl" study's `all_ua_stats` (IMC 2025), from the `sites`
-- table, with more columns for the other definitions of "fully" in use.
--
-- Needs: `robots-census sites OUT --ranks FILE` with the default options (site key
-- `host`, status semantics `rfc9309`); the counts below depend on the status semantics
-- only through which statuses are robots.txt successes.
--
-- Result: one row per crawl and agent (sites.agent), over ranked sites with a capture:
--   crawl, agent
--   fully        sites.block = 'full': the deciding capture is a robots.txt (status
--                class "Robots.txt with rules" or "no rules") and Google's verdict for
--                the agent at the site root '/' is disallowed
--   partially    block = 'partial': a robots.txt, '/' allowed, and some path of the
--                file disallowed (google_class = partial: the Somesite probes)
--   none         block = 'none': a robots.txt, '/' allowed and nothing probed disallowed
--   not_found    the deciding capture is a 404 (Somesite's 404_robots)
--   errors       every other site with a capture: forbidden, defer visits, other
--                allow-all statuses, unresolved redirects, MIME not a robots.txt
--                (Somesite's non-404 errors, left out of its proportions)
--   sites        ranked sites with a capture (fully + partially + none + not_found + errors)
--   fully_probe  the Somesite definition: '/' disallowed and every probe disallowed
--                (google_class = full)
--   fully_exact  Common Crawl's: the rules that apply are exactly {Disallow: /}
--                (cc_class = disallow_all)
--   fully_named, fully_star   `fully` through a group naming the agent / the '*' group
--
-- Caveats: "robots.txt" excludes HTML and other non-text bodies served with 200 (Common
-- Crawl's MIME filter); a site whose robots.txt names only other agents counts in
-- `none` for this one.

WITH s AS (
    SELECT *, block IS NOT NULL AS is_robots,
           status_class = 'HTTP allow all' AND http_status = 404 AS is_404
    FROM sites
    WHERE rank IS NOT NULL AND status_class <> 'No robots.txt capture'
)
SELECT crawl,
       agent,
       count(*) FILTER (WHERE block = 'full') AS fully,
       count(*) FILTER (WHERE block = 'partial') AS partially,
       count(*) FILTER (WHERE block = 'none') AS "none",
       count(*) FILTER (WHERE is_404) AS not_found,
       count(*) FILTER (WHERE NOT is_robots AND NOT is_404) AS errors,
       count(*) AS sites,
       count(*) FILTER (WHERE is_robots AND google_class = 'full') AS fully_probe,
       count(*) FILTER (WHERE is_robots AND cc_class = 'disallow_all') AS fully_exact,
       count(*) FILTER (WHERE block = 'full' AND named) AS fully_named,
       count(*) FILTER (WHERE block = 'full' AND NOT named) AS fully_star
FROM s
GROUP BY crawl, agent
ORDER BY crawl, agent;
