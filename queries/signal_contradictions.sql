-- Signals that contradict the rules, per crawl and training crawler
--
-- Question: per crawl, for GPTBot, ClaudeBot and CCBot, how many sites say in their
-- signals that training is refused while their rules let the crawler in, and how many
-- say training is allowed while their rules keep it out?
--
-- Result: one row per (crawl, agent), for the agents GPTBot, ClaudeBot and CCBot when
-- the run asked about them:
--   crawl
--   agent
--   hosts              hosts whose latest capture in the crawl is a parsed robots.txt
--   refuse_training    of those, hosts whose signals refuse training to the agent:
--                      agents.usage_train_ai = 'n' (AIPREF) or agents.signal_ai_train =
--                      'no' (Content-Signal)
--   refuse_but_crawl   of refuse_training, hosts whose rules let the agent crawl '/'
--                      (agents.root_allowed)
--   allow_but_block    hosts whose Content-Signal allows training to the agent
--                      (signal_ai_train = 'yes') while robots.cc disallows '/' for it
--   refuse_but_crawl_pct  refuse_but_crawl / refuse_training, percent
--
-- Definition: latest capture per (crawl, host) as in ai_signals.sql. An AIPREF
-- preference does not apply where the path may not be crawled (draft-ietf-aipref-attach),
-- so agents.usage_train_ai is null when '/' is disallowed and allow_but_block can only
-- come from Content-Signal. "Refuse but crawl" is no contradiction in the drafts' terms
-- (a site may welcome crawling for search and refuse training); it is the count
-- researchers publish as one.

WITH latest AS (
    SELECT doc_id, crawl, host, record_kind, http_status
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
),
parsed AS (
    SELECT doc_id, crawl, host
    FROM latest
    WHERE record_kind <> 'revisit' AND (http_status IS NULL OR http_status BETWEEN 200 AND 299)
),
per_agent AS (
    SELECT p.crawl, a.agent, a.root_allowed,
           (a.usage_train_ai = 'n' OR a.signal_ai_train = 'no') AS refuses,
           a.signal_ai_train = 'yes' AS allows
    FROM agents a
    JOIN parsed p USING (doc_id)
    WHERE a.agent IN ('GPTBot', 'ClaudeBot', 'CCBot')
),
counts AS (
    SELECT crawl, agent,
           count(*) AS hosts,
           count(*) FILTER (WHERE refuses) AS refuse_training,
           count(*) FILTER (WHERE refuses AND root_allowed) AS refuse_but_crawl,
           count(*) FILTER (WHERE allows AND NOT root_allowed) AS allow_but_block
    FROM per_agent
    GROUP BY crawl, agent
)
SELECT crawl, agent, hosts, refuse_training, refuse_but_crawl, allow_but_block,
       round(100.0 * CAST(refuse_but_crawl AS DOUBLE) / nullif(refuse_training, 0), 2)
           AS refuse_but_crawl_pct
FROM counts
ORDER BY crawl, agent;
