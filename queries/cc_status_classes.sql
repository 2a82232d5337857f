-- Common Crawl's robots.txt status classes per crawl and top-k stratum
--
-- Question: of the ranked sites, how many had no robots.txt capture, were forbidden,
-- deferred, allowed all, ended on an unresolved redirect, served something that is not
-- a robots.txt, or a robots.txt without or with rules? The shape of Common Crawl's
-- robotstxt-experiments table `robotstxt-status-counts-topk.csv`
-- (../shared/reference/), computed from the `sites` table.
--
-- Needs: `robots-census sites OUT --ranks FILE --status-semantics ccbot` (site key
-- `host`, the default), as Common Crawl counts; other options give the same shape
-- under their definitions (the sites table's site_key and status_semantics columns
-- say which were used).
--
-- Result: one row per crawl and stratum (1k, 10k, 50k, 100k, 1M, 2M; cumulative:
-- rank <= k, 2M is every ranked site), the columns of Common Crawl's file:
--   crawl, top-k, No robots.txt capture, HTTP forbidden, HTTP defer visits,
--   HTTP allow all, HTTP redirect not resolved, MIME not a robots.txt,
--   Robots.txt no rules, Robots.txt with rules   distinct sites per class
--   dt    the Monday of the crawl's ISO week (CC-MAIN-YYYY-WW), as in Common Crawl's
--         file; null for other crawl names
--
-- Caveats: only ranked sites count (sites without a rank are not in any stratum);
-- "No robots.txt capture" is only known for ranked sites. See schemas/README.md for
-- every definition (deciding capture, redirects, precedence, MIME filter).

WITH ranked AS (
    SELECT DISTINCT crawl, site, status_class, rank
    FROM sites
    WHERE rank IS NOT NULL
),
crawls AS (
    SELECT DISTINCT crawl FROM sites
),
strata AS (
    SELECT * FROM (VALUES ('1k', 1000, 1), ('10k', 10000, 2), ('50k', 50000, 3),
                          ('100k', 100000, 4), ('1M', 1000000, 5),
                          ('2M', 9223372036854775807, 6)) AS t("top-k", k, pos)
),
weeks AS (
    SELECT crawl,
           CASE WHEN regexp_like(crawl, '^CC-MAIN-[0-9]{4}-[0-9]{2}$')
                THEN CAST(substr(crawl, 9, 4) AS INTEGER) END AS y,
           CASE WHEN regexp_like(crawl, '^CC-MAIN-[0-9]{4}-[0-9]{2}$')
                THEN CAST(substr(crawl, 14, 2) AS INTEGER) END AS w
    FROM crawls
),
counts AS (
    -- Counted per crawl and stratum before the crawl x stratum grid is joined on:
    -- grouping the grid (a DISTINCT subquery joined to the strata) by its crawl column
    -- makes DataFusion 55 take crawl for a unique key of the result and drop st.pos
    -- from the ORDER BY below.
    SELECT s.crawl,
           st.pos,
           count(s.site) FILTER (WHERE s.status_class = 'No robots.txt capture') AS no_capture,
           count(s.site) FILTER (WHERE s.status_class = 'HTTP forbidden') AS forbidden,
           count(s.site) FILTER (WHERE s.status_class = 'HTTP defer visits') AS defer_visits,
           count(s.site) FILTER (WHERE s.status_class = 'HTTP allow all') AS allow_all,
           count(s.site) FILTER (WHERE s.status_class = 'HTTP redirect not resolved') AS redirect,
           count(s.site) FILTER (WHERE s.status_class = 'MIME not a robots.txt') AS mime,
           count(s.site) FILTER (WHERE s.status_class = 'Robots.txt no rules') AS no_rules,
           count(s.site) FILTER (WHERE s.status_class = 'Robots.txt with rules') AS with_rules
    FROM ranked s
    JOIN strata st ON s.rank <= st.k
    GROUP BY s.crawl, st.pos
)
SELECT wk.crawl,
       st."top-k",
       coalesce(n.no_capture, 0) AS "No robots.txt capture",
       coalesce(n.forbidden, 0) AS "HTTP forbidden",
       coalesce(n.defer_visits, 0) AS "HTTP defer visits",
       coalesce(n.allow_all, 0) AS "HTTP allow all",
       coalesce(n.redirect, 0) AS "HTTP redirect not resolved",
       coalesce(n.mime, 0) AS "MIME not a robots.txt",
       coalesce(n.no_rules, 0) AS "Robots.txt no rules",
       coalesce(n.with_rules, 0) AS "Robots.txt with rules",
       -- ISO week w of year y starts (w - 1) weeks after the Monday of the week of January 4th
       -- (date_trunc('week', ...) is that Monday in all three engines; extract(dow ...)
       -- is not portable: Spark numbers the days 1 = Sunday .. 7, the others 0 .. 6).
       CAST(date_trunc('week', make_date(wk.y, 1, 4)) AS DATE) + (wk.w - 1) * 7 AS dt
FROM weeks wk
CROSS JOIN strata st
LEFT JOIN counts n ON n.crawl = wk.crawl AND n.pos = st.pos
ORDER BY wk.crawl, st.pos;
