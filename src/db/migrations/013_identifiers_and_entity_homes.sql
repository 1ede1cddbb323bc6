-- Keyword search finds code identifiers. Postgres's parser keeps `chat.postMessage` and `/v1/chat/completions` whole
-- and `listCoreV1NamespacedPod` as one word, so a question naming a part, or writing the identifier another way, found
-- nothing. Every identifier-like token (with . _ / : - between word characters, or a lower-to-upper case change) now
-- also adds its parts ("list core v1 namespaced pod") and its joined form ("listcorev1namespacedpod") to the chunk's
-- vector; queries get the same treatment (keyword_vector of the query), so both match whichever way they are written.
-- Identifiers in the title count twice: a title that is an operation's path or id says what the document is.
CREATE FUNCTION identifier_text(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT coalesce(string_agg(
             regexp_replace(regexp_replace(regexp_replace(m[1], '([a-z0-9])([A-Z])', '\1 \2', 'g'),
                                           '([A-Z]+)([A-Z][a-z])', '\1 \2', 'g'), '[^A-Za-z0-9]+', ' ', 'g')
             || ' ' || lower(regexp_replace(m[1], '[^A-Za-z0-9]+', '', 'g')), ' '), '')
      FROM regexp_matches(coalesce(t, ''),
                          '([A-Za-z0-9]+(?:[._/:-]+[A-Za-z0-9{}]+)+|[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*)', 'g') AS m
  $$;

CREATE OR REPLACE FUNCTION keyword_vector(title text, content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT to_tsvector('english', coalesce(title, '')) || to_tsvector('english', content)
        || to_tsvector('english', identifier_text(title)) || to_tsvector('english', identifier_text(coalesce(title, '') || ' ' || content))
  $$;

-- Rebuild every chunk's vector and the statistics with the new function (the triggers fire on content changes only).
UPDATE chunks c SET keyword_tsv = x.v, keyword_length = keyword_length(x.v)
  FROM (SELECT c2.id, keyword_vector(d.title, c2.content) AS v FROM chunks c2 JOIN documents d ON d.id = c2.document_id) x
 WHERE x.id = c.id;
DELETE FROM keyword_terms;
DELETE FROM keyword_stats;
INSERT INTO keyword_stats (shard, chunk_count, total_length)
  SELECT 0, count(*), coalesce(sum(keyword_length), 0) FROM chunks;
INSERT INTO keyword_terms (lexeme, shard, df)
  SELECT l, 0, count(*) FROM chunks, unnest(tsvector_to_array(keyword_tsv)) AS l GROUP BY l;

-- An entity's home documents (graph evidence of enrichContext) include documents titled with its name.
CREATE INDEX documents_title_lower_idx ON documents (lower(title));
