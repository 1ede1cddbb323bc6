-- A chunk's keyword vector, cheaper to derive and the same vector as before. Two costs dominated writing chunks of
-- identifier-dense text (an OpenAPI spec's operations): identifier_text ran four regexp_replace calls per identifier,
-- and every chunk re-derived its document's title parts (the title's vector, its identifier text and that text's
-- vector), although the title is the same for all the document's chunks.
--
-- identifier_text now joins a text's identifiers with commas (never inside one: the match allows . _ / : - { } only)
-- and rewrites them all with one call per rule, then pairs each identifier's parts with its joined form again. The
-- result is the same string.
CREATE OR REPLACE FUNCTION identifier_text(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    WITH found AS (
      SELECT string_agg(m[1], ',') AS ids
        FROM regexp_matches(coalesce(t, ''),
                            '([A-Za-z0-9]+(?:[._/:-]+[A-Za-z0-9{}]+)+|[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*)', 'g') AS m
    )
    SELECT coalesce((
      SELECT string_agg(x.parts || ' ' || x.joined, ' ' ORDER BY x.i)
        FROM found, unnest(
               string_to_array(regexp_replace(regexp_replace(regexp_replace(found.ids,
                 '([a-z0-9])([A-Z])', '\1 \2', 'g'), '([A-Z]+)([A-Z][a-z])', '\1 \2', 'g'), '[^A-Za-z0-9,]+', ' ', 'g'), ','),
               string_to_array(lower(regexp_replace(found.ids, '[^A-Za-z0-9,]+', '', 'g')), ',')
             ) WITH ORDINALITY AS x(parts, joined, i)), '')
  $$;

-- The title parts, derived once per document when its title is written.
ALTER TABLE documents
  ADD COLUMN keyword_title tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, ''))) STORED,
  ADD COLUMN title_identifiers text GENERATED ALWAYS AS (identifier_text(title)) STORED,
  ADD COLUMN keyword_title_identifiers tsvector
    GENERATED ALWAYS AS (to_tsvector('english', identifier_text(title))) STORED;

-- keyword_vector from a title's parts. identifier_text(title || ' ' || content) is the title's identifier text, a
-- space, then the content's: no identifier spans the space.
CREATE FUNCTION keyword_vector_of(title_vector tsvector, title_ids text, title_ids_vector tsvector, content text)
  RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT coalesce(title_vector, ''::tsvector) || to_tsvector('english', content)
        || coalesce(title_ids_vector, ''::tsvector)
        || to_tsvector('english', coalesce(title_ids, '') || ' ' || identifier_text(content))
  $$;

CREATE OR REPLACE FUNCTION keyword_vector(title text, content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT keyword_vector_of(to_tsvector('english', coalesce(title, '')), identifier_text(title),
                             to_tsvector('english', identifier_text(title)), content)
  $$;

CREATE OR REPLACE FUNCTION chunks_keyword_fill() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  title_vector tsvector;
  title_ids text;
  title_ids_vector tsvector;
  doc_expires timestamptz;
BEGIN
  SELECT d.keyword_title, d.title_identifiers, d.keyword_title_identifiers, d.expires_at
    INTO title_vector, title_ids, title_ids_vector, doc_expires
    FROM documents d WHERE d.id = NEW.document_id;
  NEW.keyword_tsv := keyword_vector_of(title_vector, title_ids, title_ids_vector, NEW.content);
  NEW.keyword_length := keyword_length(NEW.keyword_tsv);
  NEW.document_expires_at := doc_expires;
  RETURN NEW;
END $$;

-- A title changed: the generated title parts are already the new title's.
CREATE OR REPLACE FUNCTION documents_keyword_title() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM keyword_stats_apply(
    ARRAY(SELECT keyword_tsv FROM chunks WHERE document_id = NEW.id AND keyword_tsv IS NOT NULL),
    (SELECT sum(keyword_length) FROM chunks WHERE document_id = NEW.id AND keyword_tsv IS NOT NULL), -1);
  UPDATE chunks c SET keyword_tsv = x.v, keyword_length = keyword_length(x.v)
    FROM (SELECT id, keyword_vector_of(NEW.keyword_title, NEW.title_identifiers, NEW.keyword_title_identifiers,
                                       content) AS v
            FROM chunks WHERE document_id = NEW.id) x
   WHERE c.id = x.id;
  PERFORM keyword_stats_apply(
    ARRAY(SELECT keyword_tsv FROM chunks WHERE document_id = NEW.id),
    (SELECT sum(keyword_length) FROM chunks WHERE document_id = NEW.id), 1);
  RETURN NULL;
END $$;
