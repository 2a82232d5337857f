-- Input problems by code and source
--
-- Question: did every input read cleanly, and if not, what went wrong where?
--
-- Result: one row per (source, code) of errors.origin = 'input' (archive and CSV
-- reading; codes are the input layer's stable snake_case names, e.g.
-- gzip_truncated_member, warc_length_mismatch, http_bad_status_line):
--   source        input file as given to the run
--   code
--   problems      rows in errors
--   skipped       problems that made no document (doc_id null): records or bytes lost
--   on_documents  warnings on captures that still became documents (doc_id set)
--   first_offset  smallest byte offset in the input where the code was met
--   example       one message (the smallest), for context
--
-- Caveats: an empty result means every input was read without a problem. Every
-- offset is a byte of the input file (in a compressed input, the start of the
-- gzip member or zstd frame holding the problem; errors.stream_offset has the
-- decompressed position); an input that could not be opened or fetched at all is
-- one row with a null offset. Lint findings about
-- robots.txt content are in lint_findings.sql, not here.

SELECT source,
       code,
       count(*) AS problems,
       count(*) FILTER (WHERE doc_id IS NULL) AS skipped,
       count(*) FILTER (WHERE doc_id IS NOT NULL) AS on_documents,
       min(file_offset) AS first_offset,
       min(message) AS example
FROM errors
WHERE origin = 'input'
GROUP BY source, code
ORDER BY source, problems DESC, code;
