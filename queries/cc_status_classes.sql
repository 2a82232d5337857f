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

WITH sites AS (
    SELECT DISTINCT crawl, site, status_class, rank
    FROM read_parquet('out/sites/*/*.parquet')
    WHERE rank IS NOT NULL
),
crawls AS (
    SELECT DISTINCT crawl FROM read_parquet('out/sites/*/*.parquet')
),
strata AS (
    SELECT * FROM (VALUES ('1k', 1000, 1), ('10k', 10000, 2), ('50k', 50000, 3),
                          ('100k', 100000, 4), ('1M', 1000000, 5),
                          ('2M', 9223372036854775807, 6)) AS t("top-k", k, pos)
),
weeks AS (
    SELECT crawl,
           TRY_CAST(regexp_extract(crawl, '^CC-MAIN-(\d{4})-(\d{2})$', 1) AS INTEGER) AS y,
           TRY_CAST(regexp_extract(crawl, '^CC-MAIN-(\d{4})-(\d{2})$', 2) AS INTEGER) AS w
    FROM crawls
)
SELECT c.crawl,
       st."top-k",
       count(s.site) FILTER (WHERE s.status_class = 'No robots.txt capture') AS "No robots.txt capture",
       count(s.site) FILTER (WHERE s.status_class = 'HTTP forbidden') AS "HTTP forbidden",
       count(s.site) FILTER (WHERE s.status_class = 'HTTP defer visits') AS "HTTP defer visits",
       count(s.site) FILTER (WHERE s.status_class = 'HTTP allow all') AS "HTTP allow all",
       count(s.site) FILTER (WHERE s.status_class = 'HTTP redirect not resolved') AS "HTTP redirect not resolved",
       count(s.site) FILTER (WHERE s.status_class = 'MIME not a robots.txt') AS "MIME not a robots.txt",
       count(s.site) FILTER (WHERE s.status_class = 'Robots.txt no rules') AS "Robots.txt no rules",
       count(s.site) FILTER (WHERE s.status_class = 'Robots.txt with rules') AS "Robots.txt with rules",
       -- ISO week w of year y starts (w - 1) weeks after the Monday of the week of January 4th.
       any_value(make_date(wk.y, 1, 4) - CAST(isodow(make_date(wk.y, 1, 4)) - 1 AS INTEGER) + (wk.w - 1) * 7) AS dt
FROM crawls c
JOIN weeks wk USING (crawl)
CROSS JOIN strata st
LEFT JOIN sites s ON s.crawl = c.crawl AND s.rank <= st.k
GROUP BY c.crawl, st."top-k", st.pos
ORDER BY c.crawl, st.pos;
