-- An independent reference of the `sites` step (src/sites/), for the tests only: one row
-- per (crawl, site, agent), the capture that decides for the site in that crawl and what
-- it says (schemas/sites.json), as plain SQL over the run's tables. tests/it/sites.rs
-- runs it in the embedded engine (`robots-census query`) on generated crawls and
-- requires the step's rows, column by column with their types. It is not a product
-- path: it holds a crawl in memory and is slow; the step is written once, in Rust.
--
-- Reads, by name:
--   documents      with the columns `run` writes for the step: url_key, location_key,
--                  robots_mime, host_name.
--   agents         doc_id, agent, named, root_allowed, probe_class, cc_class, crawl.
--   ranks          rank, host_name, registrable_domain (only when with_ranks).
--   sites_options  one row the test makes:
--                    site_key VARCHAR          'host' | 'host-nowww' | 'registrable-domain'
--                    status_semantics VARCHAR  'rfc9309' | 'google' | 'ccbot' | 'yandex'
--                                              | 'urllib' | 'robots-parser'
--                    agents VARCHAR            NULL: every agent, else tokens joined by ','
--                    with_ranks BOOLEAN        the ranks table is the one just written
--
-- Fetch outcome codes (column `outcome`, site_classes::Fetch, in Common Crawl's precedence):
--   0 success, 1 allow all, 2 forbidden, 3 defer visits, 4 redirect (not resolved).

WITH opts AS (
    SELECT site_key, status_semantics, agents, with_ranks FROM sites_options
),
-- The crawl's captures, revisit records and rows without a URL left out, the latest
-- capture per URL (lookup_key form): greatest fetch_time (unknown times last), then
-- greatest doc_id.
latest AS (
    SELECT d.crawl, d.doc_id, d.url, d.url_key, d.location_key, d.fetch_time,
           d.host, d.host_name, d.registrable_domain, d.is_robots_url,
           d.robots_mime, d.n_allow, d.n_disallow,
           -- a status that is not a u16 is no status (read.rs)
           CASE WHEN d.http_status BETWEEN 0 AND 65535 THEN d.http_status END AS status
    FROM documents d
    WHERE d.url IS NOT NULL
      AND d.crawl IS NOT NULL
      AND coalesce(d.record_kind, '') <> 'revisit'
      -- a status cell that did not parse: no status and no parse, nothing to decide with
      AND NOT (d.http_status IS NULL AND d.parsed_size IS NULL)
    QUALIFY row_number() OVER (
        PARTITION BY d.crawl, d.url_key
        ORDER BY d.fetch_time DESC NULLS LAST, d.doc_id DESC) = 1
),
caps AS (
    SELECT l.crawl, l.doc_id, l.url, l.url_key, l.location_key, l.fetch_time, l.status,
           l.robots_mime AS mime_ok,
           (coalesce(l.n_allow, 0) > 0 OR coalesce(l.n_disallow, 0) > 0) AS has_rules,
           CASE
               WHEN l.status IS NULL THEN 0
               WHEN o.status_semantics IN ('rfc9309', 'google', 'urllib')
                    AND l.status BETWEEN 200 AND 299 THEN 0
               WHEN o.status_semantics IN ('ccbot', 'yandex', 'robots-parser')
                    AND l.status = 200 THEN 0
               WHEN l.status BETWEEN 300 AND 399 THEN 4
               WHEN o.status_semantics = 'ccbot' AND l.status = 403 THEN 2
               WHEN o.status_semantics = 'urllib' AND l.status IN (401, 403) THEN 2
               WHEN o.status_semantics IN ('google', 'ccbot') AND l.status = 429 THEN 3
               WHEN o.status_semantics IN ('rfc9309', 'google', 'ccbot', 'urllib')
                    AND l.status BETWEEN 500 AND 599 THEN 3
               -- Google: a code outside 2xx-5xx is an invalid response, a server error
               WHEN o.status_semantics = 'google'
                    AND (l.status < 200 OR l.status > 599) THEN 3
               ELSE 1
           END AS outcome,
           -- the site of a starting point (a /robots.txt URL with a host)
           CASE
               WHEN NOT coalesce(l.is_robots_url, false) OR l.host IS NULL THEN NULL
               WHEN o.site_key = 'host' THEN l.host_name
               WHEN o.site_key = 'host-nowww' THEN
                   CASE WHEN substr(l.host_name, 1, 4) = 'www.'
                        THEN substr(l.host_name, 5) ELSE l.host_name END
               ELSE coalesce(l.registrable_domain, l.host_name)
           END AS site
    FROM latest l
    CROSS JOIN opts o
),
-- From every starting point, redirects followed inside the crawl for up to 5 hops
-- (limits::MAX_REDIRECT_HOPS), each hop to the capture whose URL is the Location.
chains AS (
    SELECT s.crawl, s.site, s.doc_id AS start_doc, s.url AS start_url,
           s.fetch_time AS start_time,
           CASE WHEN h5.doc_id IS NOT NULL THEN 5
                WHEN h4.doc_id IS NOT NULL THEN 4
                WHEN h3.doc_id IS NOT NULL THEN 3
                WHEN h2.doc_id IS NOT NULL THEN 2
                WHEN h1.doc_id IS NOT NULL THEN 1
                ELSE 0 END AS hops,
           coalesce(h5.url_key, h4.url_key, h3.url_key, h2.url_key, h1.url_key,
                    s.url_key) AS end_key
    FROM caps s
    LEFT JOIN caps h1
           ON s.outcome = 4 AND h1.crawl = s.crawl AND h1.url_key = s.location_key
    LEFT JOIN caps h2
           ON h1.outcome = 4 AND h2.crawl = h1.crawl AND h2.url_key = h1.location_key
    LEFT JOIN caps h3
           ON h2.outcome = 4 AND h3.crawl = h2.crawl AND h3.url_key = h2.location_key
    LEFT JOIN caps h4
           ON h3.outcome = 4 AND h4.crawl = h3.crawl AND h4.url_key = h3.location_key
    LEFT JOIN caps h5
           ON h4.outcome = 4 AND h5.crawl = h4.crawl AND h5.url_key = h4.location_key
    WHERE s.site IS NOT NULL
),
-- Per site the best chain: precedence, a success passing the MIME filter first, the
-- latest end capture, the fewest hops, the latest start (decide.rs `sites`).
decided AS (
    SELECT c.crawl, c.site, c.start_url, c.hops,
           e.doc_id, e.url, e.status, e.outcome, e.mime_ok, e.has_rules,
           count(*) OVER (PARTITION BY c.crawl, c.site) AS captures
    FROM chains c
    JOIN caps e ON e.crawl = c.crawl AND e.url_key = c.end_key
    QUALIFY row_number() OVER (
        PARTITION BY c.crawl, c.site
        ORDER BY e.outcome,
                 CASE WHEN e.outcome = 0 AND NOT e.mime_ok THEN 1 ELSE 0 END,
                 e.fetch_time DESC NULLS LAST, e.doc_id DESC,
                 c.hops, c.start_time DESC NULLS LAST, c.start_doc DESC) = 1
),
classed AS (
    SELECT d.*,
           CASE
               WHEN d.outcome = 0 AND NOT d.mime_ok THEN 'MIME not a robots.txt'
               WHEN d.outcome = 0 AND d.has_rules THEN 'Robots.txt with rules'
               WHEN d.outcome = 0 THEN 'Robots.txt no rules'
               WHEN d.outcome = 1 THEN 'HTTP allow all'
               WHEN d.outcome = 2 THEN 'HTTP forbidden'
               WHEN d.outcome = 3 THEN 'HTTP defer visits'
               ELSE 'HTTP redirect not resolved'
           END AS status_class
    FROM decided d
),
-- The best rank of each site's hosts (ranks.rs by_site).
ranked AS (
    SELECT site, min(rank) AS rank
    FROM (
        SELECT CASE
               WHEN o.site_key = 'host' THEN r.host_name
               WHEN o.site_key = 'host-nowww' THEN
                   CASE WHEN substr(r.host_name, 1, 4) = 'www.'
                        THEN substr(r.host_name, 5) ELSE r.host_name END
               ELSE coalesce(r.registrable_domain, r.host_name)
           END AS site,
           r.rank
    FROM ranks r
    CROSS JOIN opts o
    WHERE o.with_ranks
    ) AS t
    GROUP BY site
),
crawls AS (
    SELECT DISTINCT crawl FROM documents WHERE crawl IS NOT NULL
),
-- The agents reported per crawl: every agent of the crawl's agents rows, or those of
-- --agents.
crawl_agents AS (
    SELECT DISTINCT a.crawl, a.agent
    FROM agents a
    CROSS JOIN opts o
    WHERE a.agent IS NOT NULL
      AND (o.agents IS NULL
           OR instr(concat(',', o.agents, ','), concat(',', a.agent, ',')) > 0)
),
-- Sites with a capture, and ranked sites without one ("No robots.txt capture").
site_list AS (
    SELECT crawl, site FROM decided
    UNION
    SELECT c.crawl, r.site FROM crawls c CROSS JOIN ranked r
)
SELECT s.site,
       a.agent,
       coalesce(d.status_class, 'No robots.txt capture') AS status_class,
       CASE
           WHEN d.site IS NULL THEN NULL
           WHEN d.outcome = 0 THEN f.probe_class
           WHEN d.outcome IN (1, 4) THEN 'none'
           ELSE 'full'
       END AS google_class,
       f.root_allowed,
       f.cc_class,
       coalesce(f.named, false) AS named,
       CASE
           WHEN d.status_class NOT IN ('Robots.txt with rules', 'Robots.txt no rules')
                OR d.status_class IS NULL THEN NULL
           WHEN NOT f.root_allowed THEN 'full'
           WHEN f.probe_class = 'partial' THEN 'partial'
           ELSE 'none'
       END AS block,
       d.doc_id,
       d.url,
       d.start_url,
       CAST(d.status AS INTEGER) AS http_status,
       CAST(coalesce(d.hops, 0) AS INTEGER) AS redirect_hops,
       CAST(coalesce(d.captures, 0) AS INTEGER) AS captures,
       CAST(r.rank AS BIGINT) AS rank,
       CASE
           WHEN r.rank IS NULL THEN NULL
           WHEN r.rank <= 1000 THEN '1k'
           WHEN r.rank <= 10000 THEN '10k'
           WHEN r.rank <= 50000 THEN '50k'
           WHEN r.rank <= 100000 THEN '100k'
           WHEN r.rank <= 1000000 THEN '1M'
           ELSE '2M'
       END AS top_k,
       o.site_key,
       o.status_semantics,
       s.crawl
FROM site_list s
CROSS JOIN opts o
JOIN crawl_agents a ON a.crawl = s.crawl
LEFT JOIN classed d ON d.crawl = s.crawl AND d.site = s.site
LEFT JOIN ranked r ON r.site = s.site
-- the agents row of the deciding capture, read only when it is a success
LEFT JOIN agents f
       ON d.outcome = 0 AND f.doc_id = d.doc_id AND f.agent = a.agent
ORDER BY s.crawl, s.site, a.agent
