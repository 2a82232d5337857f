-- An independent reference of the `changes` step (src/changes/), for the tests only: one
-- row per change of a site between two crawls of the sites table (schemas/changes.json),
-- in the order the step writes them: sites in name order; within a site its
-- status-class change, then its block changes (agents in name order), the rule lines
-- removed then added (each in agent, directive, pattern order), the sitemaps removed
-- then added (in URL order). tests/it/changes.rs runs it in the embedded engine
-- (`robots-census query`) and requires the step's rows in the step's order. It is not a
-- product path: the step is written once, in Rust.
--
-- Reads, by name:
--   sites            site, agent, status_class, block, doc_id, crawl (the `sites` step's
--                    table; both crawls made with the same options)
--   groups, rules,   the rule lines and sitemaps of the deciding robots.txt files
--   sitemaps
--   changes_options  one row the test makes:
--                      from_crawl VARCHAR   --from, the earlier crawl
--                      to_crawl VARCHAR     --to, the later crawl
--
-- Meanings (src/changes/diff.rs):
--   present    a site whose status class is anything but 'No robots.txt capture'
--   block      sites.block, 'none' when null (a deciding capture that is not a
--              robots.txt file blocks no one); compared only for agents with a row in
--              both crawls
--   rule line  (product token of the group, allow|disallow, pattern or ''), one per
--              product token of the group; lines outside any group do not count.
--              Compared, like sitemaps, only when the site's deciding capture is a
--              robots.txt file in both crawls (a change to or from another class is a
--              status_class change, not the removal or addition of every line).

-- Shape: aggregations rather than self-joins, so that each engine reads the sites table
-- in few passes and every large operator can spill (sorts and grouped aggregations do in
-- DataFusion; its nested-loop and cross joins here only meet the one-row options).
WITH opts AS (
    SELECT from_crawl, to_crawl FROM changes_options
),
-- The rows of both crawls, with the options carried along (a final cross join with the
-- one-row options would cost DataFusion a batch per row).
site_rows AS (
    SELECT s.crawl, s.site, s.agent, s.status_class, s.doc_id, o.from_crawl, o.to_crawl,
           coalesce(s.block, 'none') AS block
    FROM sites s
    JOIN opts o ON s.crawl = o.from_crawl OR s.crawl = o.to_crawl
    WHERE s.status_class <> 'No robots.txt capture'
),
-- One row per (site, agent) present in either crawl: its block in each (NULL: absent).
pair AS (
    SELECT site, agent, from_crawl, to_crawl,
           max(CASE WHEN crawl = from_crawl THEN block END) AS block_a,
           max(CASE WHEN crawl = to_crawl THEN block END) AS block_b
    FROM site_rows
    GROUP BY site, agent, from_crawl, to_crawl
),
-- One row per site present in either crawl: its status class and deciding capture in
-- each (NULL: absent). Every row of a site in a crawl carries the same two.
site_pair AS (
    SELECT site, from_crawl, to_crawl,
           max(CASE WHEN crawl = from_crawl THEN status_class END) AS class_a,
           max(CASE WHEN crawl = to_crawl THEN status_class END) AS class_b,
           max(CASE WHEN crawl = from_crawl THEN doc_id END) AS doc_a,
           max(CASE WHEN crawl = to_crawl THEN doc_id END) AS doc_b
    FROM site_rows
    GROUP BY site, from_crawl, to_crawl
),
-- The deciding robots.txt files whose lines are compared, a row per site and side.
docs AS (
    SELECT p.site, p.from_crawl, p.to_crawl, 'a' AS side, p.from_crawl AS crawl,
           p.doc_a AS doc_id
    FROM site_pair p
    WHERE p.class_a IN ('Robots.txt with rules', 'Robots.txt no rules')
      AND p.class_b IN ('Robots.txt with rules', 'Robots.txt no rules')
      AND p.doc_a IS NOT NULL AND p.doc_b IS NOT NULL
    UNION ALL
    SELECT p.site, p.from_crawl, p.to_crawl, 'b' AS side, p.to_crawl AS crawl, p.doc_b AS doc_id
    FROM site_pair p
    WHERE p.class_a IN ('Robots.txt with rules', 'Robots.txt no rules')
      AND p.class_b IN ('Robots.txt with rules', 'Robots.txt no rules')
      AND p.doc_a IS NOT NULL AND p.doc_b IS NOT NULL
),
-- Rule lines (a line per product token of the group) and sitemaps of both crawls.
tokens AS (
    SELECT g.crawl, g.doc_id, g.group_index, unnest(g.product_tokens) AS agent
    FROM groups g JOIN opts o ON g.crawl = o.from_crawl OR g.crawl = o.to_crawl
),
lines AS (
    SELECT r.crawl, r.doc_id, 'rule' AS what, t.agent, r.directive,
           coalesce(r.pattern, '') AS value
    FROM rules r
    JOIN tokens t
      ON t.crawl = r.crawl AND t.doc_id = r.doc_id AND t.group_index = r.group_index
    WHERE r.directive IN ('allow', 'disallow') AND t.agent IS NOT NULL
    UNION ALL
    SELECT m.crawl, m.doc_id, 'sitemap', CAST(NULL AS STRING), CAST(NULL AS STRING), m.url
    FROM sitemaps m JOIN opts o ON m.crawl = o.from_crawl OR m.crawl = o.to_crawl
),
-- Each site's lines, and on which side they are (the sets compared: duplicates are one).
site_lines AS (
    SELECT d.site, d.from_crawl, d.to_crawl, l.what, l.agent, l.directive, l.value,
           max(CASE WHEN d.side = 'a' THEN 1 ELSE 0 END) AS in_a,
           max(CASE WHEN d.side = 'b' THEN 1 ELSE 0 END) AS in_b
    FROM docs d
    JOIN lines l ON l.crawl = d.crawl AND l.doc_id = d.doc_id
    GROUP BY d.site, d.from_crawl, d.to_crawl, l.what, l.agent, l.directive, l.value
),
-- Every change, with `kind` giving its place among a site's changes.
found AS (
    SELECT site,
           CASE WHEN class_a IS NULL THEN 'site_appeared'
                WHEN class_b IS NULL THEN 'site_disappeared'
                ELSE 'status_class' END AS change,
           0 AS kind,
           CAST(NULL AS STRING) AS agent, CAST(NULL AS STRING) AS directive,
           CAST(NULL AS STRING) AS value, class_a AS before, class_b AS after,
           from_crawl, to_crawl
    FROM site_pair
    WHERE class_a IS NULL OR class_b IS NULL OR class_a <> class_b
    UNION ALL
    SELECT site, 'block', 1, agent, NULL, NULL, block_a, block_b, from_crawl, to_crawl
    FROM pair
    WHERE block_a <> block_b
    UNION ALL
    SELECT site,
           CASE WHEN what = 'rule' AND in_a = 1 THEN 'rule_removed'
                WHEN what = 'rule' THEN 'rule_added'
                WHEN in_a = 1 THEN 'sitemap_removed'
                ELSE 'sitemap_added' END,
           CASE WHEN what = 'rule' THEN 2 ELSE 4 END + in_b,
           agent, directive, value, NULL, NULL, from_crawl, to_crawl
    FROM site_lines
    WHERE in_a <> in_b
)
SELECT site, change, agent, directive, value, before, after, from_crawl, to_crawl
FROM found
ORDER BY site, kind, agent, directive, value;
