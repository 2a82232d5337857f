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
-- "Fully" is sites.block = 'full': the deciding capture is a robots.txt file (status
-- class "Robots.txt with rules" or "no rules") and Google's verdict for the agent at
-- '/' is disallowed. A site is present in a crawl when its
-- status class there is anything but "No robots.txt capture".
--
-- Caveats: every site counts, ranked or not (filter on `rank` for a top-k view); a site
-- whose robots.txt turns into a 5xx or an HTML page stops "fully" blocking in this sense
-- (RFC 9309 would still keep the crawler out of a 5xx site): `robots-census changes`
-- lists the status-class change beside it.

-- Counted without joining the two crawls' rows of every (site, agent): a site's status
-- class is the same on each of its agents' rows, so "present" is a set of sites, and
-- blocks_added = (fully blocked in to_crawl and present in from_crawl)
--              - (fully blocked in both), blocks_removed likewise. Only the fully blocked
-- rows and one row per present site are joined (2x faster, half the memory of the join
-- of every row in the embedded engine, same rows). A pair of crawls with sites in common
-- gets a row for every agent of the table, as the join of every row gave.
WITH present AS (
    SELECT DISTINCT crawl, site
    FROM sites
    WHERE status_class <> 'No robots.txt capture'
),
fully AS (
    SELECT crawl, site, agent
    FROM sites
    WHERE block = 'full'
),
crawls AS (
    SELECT crawl AS from_crawl, lead(crawl) OVER (ORDER BY crawl) AS to_crawl
    FROM (SELECT DISTINCT crawl FROM sites) AS d
),
common AS (
    -- Grouped by the sites table's columns, not the DISTINCT subquery's: grouping by
    -- those makes DataFusion 55 take from_crawl for a unique key of the result and drop
    -- `agent` from the ORDER BY below.
    SELECT a.crawl AS from_crawl, b.crawl AS to_crawl
    FROM crawls c
    JOIN present a ON a.crawl = c.from_crawl
    JOIN present b ON b.crawl = c.to_crawl AND b.site = a.site
    GROUP BY a.crawl, b.crawl
),
agents AS (
    SELECT DISTINCT agent FROM sites
),
blocked_then_present AS (
    SELECT f.crawl AS from_crawl, p.crawl AS to_crawl, f.agent, count(*) AS n
    FROM crawls c
    JOIN fully f ON f.crawl = c.from_crawl
    JOIN present p ON p.crawl = c.to_crawl AND p.site = f.site
    GROUP BY f.crawl, p.crawl, f.agent
),
present_then_blocked AS (
    SELECT p.crawl AS from_crawl, f.crawl AS to_crawl, f.agent, count(*) AS n
    FROM crawls c
    JOIN present p ON p.crawl = c.from_crawl
    JOIN fully f ON f.crawl = c.to_crawl AND f.site = p.site
    GROUP BY p.crawl, f.crawl, f.agent
),
blocked_in_both AS (
    SELECT f.crawl AS from_crawl, g.crawl AS to_crawl, f.agent, count(*) AS n
    FROM crawls c
    JOIN fully f ON f.crawl = c.from_crawl
    JOIN fully g ON g.crawl = c.to_crawl AND g.site = f.site AND g.agent = f.agent
    GROUP BY f.crawl, g.crawl, f.agent
),
pairs AS (
    SELECT m.from_crawl, m.to_crawl, a.agent,
           coalesce(pb.n, 0) - coalesce(bb.n, 0) AS blocks_added,
           coalesce(bp.n, 0) - coalesce(bb.n, 0) AS blocks_removed
    FROM common m
    CROSS JOIN agents a
    LEFT JOIN present_then_blocked pb
        ON pb.from_crawl = m.from_crawl AND pb.to_crawl = m.to_crawl AND pb.agent = a.agent
    LEFT JOIN blocked_then_present bp
        ON bp.from_crawl = m.from_crawl AND bp.to_crawl = m.to_crawl AND bp.agent = a.agent
    LEFT JOIN blocked_in_both bb
        ON bb.from_crawl = m.from_crawl AND bb.to_crawl = m.to_crawl AND bb.agent = a.agent
)
SELECT from_crawl, to_crawl, agent, blocks_added, blocks_removed,
       blocks_added - blocks_removed AS net
FROM pairs
ORDER BY from_crawl, agent;
