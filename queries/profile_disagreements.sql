-- Files where crawler families disagree about an AI agent
--
-- Question: which robots.txt files would an AI crawler read differently depending on
-- the parser it uses, and how does each family read them?
--
-- Result: one row per (crawl, host, agent) whose latest capture in the crawl is read
-- differently by the run's profiles (readings.interpretation_sensitive), for the AI
-- agents below:
--   crawl, host, agent, doc_id
--   readings     profile=probe_class for every profile, in profile order, the root
--                verdict after a slash (e.g. "google=full/disallow, yandex=none/allow")
--   profiles_full, profiles_none   how many profiles read full, none
--
-- Caveats: the AI agents are a fixed list (edit it to ask about others); only agents
-- the run asked about (--agents) can appear. Latest capture per host and crawl as in
-- profile_blocking.sql.

WITH latest AS (
    SELECT *
    FROM documents
    WHERE host IS NOT NULL
      AND regexp_like(url, '(?i)^https?://[^/?#]+/([^?#]*/)?robots[.]txt([?#]|$)')
    QUALIFY row_number() OVER (
        PARTITION BY crawl, host ORDER BY fetch_time DESC NULLS LAST, doc_id DESC) = 1
)
SELECT l.crawl, l.host, r.agent, r.doc_id,
       -- string_agg(profile || '=' || ..., ', ' ORDER BY profile) spelled out (Spark has no
       -- ORDER BY inside string_agg): each entry is written with chr(1) after the profile,
       -- which sorts below every character of a profile name, so sorting the entries as
       -- strings orders them by profile (one reading per profile here); then '='.
       replace(array_join(array_sort(array_agg(
                   r.profile || chr(1) || r.probe_class || '/'
                   || CASE WHEN r.root_allowed THEN 'allow' ELSE 'disallow' END)), ', '),
               chr(1), '=') AS readings,
       count(*) FILTER (WHERE r.probe_class = 'full') AS profiles_full,
       count(*) FILTER (WHERE r.probe_class = 'none') AS profiles_none
FROM readings r
JOIN latest l USING (doc_id)
WHERE r.interpretation_sensitive
  AND r.agent IN ('GPTBot', 'ChatGPT-User', 'OAI-SearchBot', 'ClaudeBot', 'Claude-Web',
                  'anthropic-ai', 'CCBot', 'Google-Extended', 'PerplexityBot', 'Bytespider',
                  'Applebot-Extended', 'Meta-ExternalAgent', 'FacebookBot', 'Amazonbot',
                  'cohere-ai', 'Diffbot', 'omgili', 'ImagesiftBot', 'Timpibot', 'YouBot')
GROUP BY l.crawl, l.host, r.agent, r.doc_id
ORDER BY l.crawl, l.host, r.agent;
