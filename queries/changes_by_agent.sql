-- Blocks added and removed per agent between consecutive crawls
--
-- Question: between each crawl and the next, how many sites started fully blocking
-- each crawler, and how many stopped? (Which sites started blocking GPTBot, and when;
-- which stopped, perhaps after a licensing deal.) The per-agent summary of
-- `robots-census changes`, over every consecutive pair of crawls of the sites table.
--
-- Needs: `robots-census sites OUT` over a dataset of two or more crawls (any options;
-- every crawl of the table is made with the same ones).
--
-- Result: one row per consecutive pair of crawls (in crawl-name order, which for
-- Common Crawl's CC-MAIN-YYYY-WW names is time order) and agent:
--   from_crawl, to_crawl   the earlier and the later crawl
--   agent                  sites.agent
--   blocks_added           sites present in both crawls that fully block the agent in
--                          to_crawl and did not in from_crawl
--   blocks_removed         sites present in both that fully blocked it in from_crawl
--                          and do not in to_crawl
--   net                    blocks_added - blocks_removed
-- "Fully" is that of agent_restrictions_by_crawl.sql: the deciding capture is a
-- robots.txt file (status class "Robots.txt with rules" or "no rules") and Google's
-- verdict for the agent at '/' is disallowed. A site is present in a crawl when its
-- status class there is anything but "No robots.txt capture".
--
-- Caveats: every site counts, ranked or not (filter on `rank` for a top-k view); a site
-- whose robots.txt turns into a 5xx or an HTML page stops "fully" blocking in this sense
-- (RFC 9309 would still keep the crawler out of a 5xx site): `robots-census changes`
-- lists the status-class change beside it.

WITH s AS (
    SELECT crawl, site, agent,
           coalesce(status_class IN ('Robots.txt with rules', 'Robots.txt no rules')
                    AND NOT root_allowed, false) AS fully
    FROM sites
    WHERE status_class <> 'No robots.txt capture'
),
crawls AS (
    SELECT crawl AS from_crawl, lead(crawl) OVER (ORDER BY crawl) AS to_crawl
    FROM (SELECT DISTINCT crawl FROM sites) AS d
),
pairs AS (
    -- Grouped by a.crawl and b.crawl (equal to c.from_crawl and c.to_crawl by the joins):
    -- grouping by the DISTINCT subquery's column makes DataFusion 55 take from_crawl for a
    -- unique key of the result and drop `agent` from the ORDER BY below.
    SELECT a.crawl AS from_crawl,
           b.crawl AS to_crawl,
           a.agent,
           count(*) FILTER (WHERE b.fully AND NOT a.fully) AS blocks_added,
           count(*) FILTER (WHERE a.fully AND NOT b.fully) AS blocks_removed
    FROM crawls c
    JOIN s a ON a.crawl = c.from_crawl
    JOIN s b ON b.crawl = c.to_crawl AND b.site = a.site AND b.agent = a.agent
    GROUP BY a.crawl, b.crawl, a.agent
)
SELECT from_crawl, to_crawl, agent, blocks_added, blocks_removed,
       blocks_added - blocks_removed AS net
FROM pairs
ORDER BY from_crawl, agent;
