-- User agents named per year (Common Crawl's user-agents table)
--
-- Question: how many distinct sites name each user-agent in their robots.txt, per
-- year and top-k stratum? E.g. Common Crawl counts gptbot in the top-10k: 0 (2016),
-- 698 (2023), 1,010 (2024), 1,229 (2025).
--
-- Needs: `robots-census sites OUT` (with --ranks for the strata; any site key and
-- status semantics) and the groups table of the same run.
--
-- Result: one row per year, stratum and user-agent named by at least one site:
--   year        the YYYY of the crawl name CC-MAIN-YYYY-WW (null for other crawl names)
--   top-k       1k, 10k, 50k, 100k, 1M, 2M (ranked sites, rank <= k, 2M every rank),
--               and `all`: every site of the sites table, ranked or not
--   useragent   a User-agent value as written in the file, lower-cased (as Common
--               Crawl counts them: no product-token cut, so `mj12bot` stays `mj12bot`),
--               `*` included
--   cnt         distinct sites whose deciding capture is a robots.txt with a group
--               naming it, in any crawl of the year (the union of the year's crawls)
--
-- Caveats: a user-agent named only in a crawl where the site's deciding capture was not
-- a robots.txt (an error status, an HTML page) is not counted for that crawl.

WITH s AS (
    SELECT DISTINCT crawl, site, doc_id, rank
    FROM sites
    WHERE status_class IN ('Robots.txt with rules', 'Robots.txt no rules')
),
named AS (
    SELECT DISTINCT s.crawl, s.site, s.rank, lower(g.ua) AS useragent
    FROM s
    JOIN (SELECT doc_id, unnest(user_agents) AS ua
          FROM groups) g USING (doc_id)
),
strata AS (
    SELECT * FROM (VALUES ('1k', 1000, 1), ('10k', 10000, 2), ('50k', 50000, 3),
                          ('100k', 100000, 4), ('1M', 1000000, 5),
                          ('2M', 9223372036854775807, 6), ('all', NULL, 7)) AS t("top-k", k, pos)
)
SELECT CASE WHEN regexp_like(n.crawl, '^CC-MAIN-[0-9]{4}-[0-9]{2}$')
            THEN CAST(substr(n.crawl, 9, 4) AS INTEGER) END AS year,
       st."top-k",
       n.useragent,
       count(DISTINCT n.site) AS cnt
FROM named n
JOIN strata st ON st.k IS NULL OR n.rank <= st.k
GROUP BY year, st."top-k", st.pos, n.useragent
ORDER BY year NULLS LAST, st.pos, cnt DESC, n.useragent NULLS LAST;
