-- Sites per status class and crawl (all sites, ranked or not)
--
-- Question: per crawl, how many sites had each of Common Crawl's eight status classes?
-- The report's "Status classes per crawl" chart (robots-census report).
--
-- Needs: `robots-census sites OUT` (any options: the sites table's site_key and
-- status_semantics columns say which were used).
--
-- Result: one row per crawl and status class that occurs:
--   crawl, status_class   one of the eight classes (schemas/README.md)
--   sites                 distinct sites of the crawl in that class
--
-- Caveats: unlike cc_status_classes.sql, unranked sites count too; "No robots.txt
-- capture" only occurs for ranked sites (sites --ranks).

SELECT crawl,
       status_class,
       count(DISTINCT site) AS sites
FROM sites
GROUP BY crawl, status_class
ORDER BY crawl, status_class;
