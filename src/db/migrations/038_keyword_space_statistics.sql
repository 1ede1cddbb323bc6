-- BM25 statistics per space: a space's document frequencies and average chunk length count its own chunks only, so
-- no keyword score, and no choice of candidate lexemes, moves with what another space holds (a query reads the sum
-- over its space and the spaces it may read). Rows are derived data: they go with their space.
ALTER TABLE keyword_terms ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id) ON DELETE CASCADE;
ALTER TABLE keyword_stats ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id) ON DELETE CASCADE;
ALTER TABLE keyword_terms DROP CONSTRAINT keyword_terms_pkey;
ALTER TABLE keyword_terms ADD PRIMARY KEY (lexeme, space_id, shard);
ALTER TABLE keyword_stats DROP CONSTRAINT keyword_stats_pkey;
ALTER TABLE keyword_stats ADD PRIMARY KEY (space_id, shard);

-- Adds (sign 1) or removes (sign -1) chunks' vectors from `space`'s statistics in this backend's shard, the shard's
-- stats row locked first as before, so writers of one space and shard take turns and never deadlock on terms.
CREATE FUNCTION keyword_space_stats_apply(space text, vectors tsvector[], total_length bigint, sign integer)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s smallint := (pg_backend_pid() % 16)::smallint;
  lex text[];
  cnt integer[];
BEGIN
  IF coalesce(cardinality(vectors), 0) = 0 THEN RETURN; END IF;
  INSERT INTO keyword_stats AS k (space_id, shard, chunk_count, total_length)
    VALUES (space, s, sign * cardinality(vectors), sign * coalesce(total_length, 0))
    ON CONFLICT (space_id, shard) DO UPDATE
      SET chunk_count = k.chunk_count + EXCLUDED.chunk_count, total_length = k.total_length + EXCLUDED.total_length;
  SELECT array_agg(l ORDER BY l), array_agg(n ORDER BY l) INTO lex, cnt
    FROM (SELECT l COLLATE "C" AS l, count(*)::integer AS n
            FROM unnest(vectors) AS v, unnest(tsvector_to_array(v)) AS l GROUP BY 1) x;
  IF lex IS NULL THEN RETURN; END IF;
  INSERT INTO keyword_terms AS t (lexeme, space_id, shard, df)
    SELECT x.l, space, s, sign * x.n FROM unnest(lex, cnt) AS x(l, n) ORDER BY x.l
    ON CONFLICT (lexeme, space_id, shard) DO UPDATE SET df = t.df + EXCLUDED.df;
  IF sign < 0 THEN
    DELETE FROM keyword_terms WHERE shard = s AND space_id = space AND lexeme = ANY(lex) AND df = 0;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION chunks_keyword_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sp text;
BEGIN
  FOR sp IN SELECT DISTINCT space_id FROM new_rows ORDER BY 1 LOOP
    PERFORM keyword_space_stats_apply(sp, ARRAY(SELECT keyword_tsv FROM new_rows WHERE space_id = sp),
                                      (SELECT sum(keyword_length) FROM new_rows WHERE space_id = sp), 1);
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION chunks_keyword_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sp text;
BEGIN
  FOR sp IN SELECT DISTINCT space_id FROM old_rows ORDER BY 1 LOOP
    PERFORM keyword_space_stats_apply(
      sp, ARRAY(SELECT keyword_tsv FROM old_rows WHERE space_id = sp AND keyword_tsv IS NOT NULL),
      (SELECT sum(keyword_length) FROM old_rows WHERE space_id = sp AND keyword_tsv IS NOT NULL), -1);
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION chunks_keyword_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.keyword_tsv IS NOT DISTINCT FROM NEW.keyword_tsv AND OLD.space_id = NEW.space_id THEN RETURN NULL; END IF;
  IF OLD.keyword_tsv IS NOT NULL THEN
    PERFORM keyword_space_stats_apply(OLD.space_id, ARRAY[OLD.keyword_tsv], OLD.keyword_length, -1);
  END IF;
  PERFORM keyword_space_stats_apply(NEW.space_id, ARRAY[NEW.keyword_tsv], NEW.keyword_length, 1);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION documents_keyword_title() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM keyword_space_stats_apply(
    NEW.space_id, ARRAY(SELECT keyword_tsv FROM chunks WHERE document_id = NEW.id AND keyword_tsv IS NOT NULL),
    (SELECT sum(keyword_length) FROM chunks WHERE document_id = NEW.id AND keyword_tsv IS NOT NULL), -1);
  UPDATE chunks c SET keyword_tsv = x.v, keyword_length = keyword_length(x.v)
    FROM (SELECT id, keyword_vector_of(NEW.keyword_title, NEW.title_identifiers, NEW.keyword_title_identifiers,
                                       content) AS v
            FROM chunks WHERE document_id = NEW.id) x
   WHERE c.id = x.id;
  PERFORM keyword_space_stats_apply(
    NEW.space_id, ARRAY(SELECT keyword_tsv FROM chunks WHERE document_id = NEW.id),
    (SELECT sum(keyword_length) FROM chunks WHERE document_id = NEW.id), 1);
  RETURN NULL;
END $$;

DROP FUNCTION keyword_stats_apply(tsvector[], bigint, integer);

-- Recount every space's statistics from its chunks.
DELETE FROM keyword_terms;
DELETE FROM keyword_stats;
INSERT INTO keyword_stats (space_id, shard, chunk_count, total_length)
  SELECT space_id, 0, count(*), coalesce(sum(keyword_length), 0) FROM chunks GROUP BY space_id;
INSERT INTO keyword_terms (lexeme, space_id, shard, df)
  SELECT l, space_id, 0, count(*) FROM chunks, unnest(tsvector_to_array(keyword_tsv)) AS l GROUP BY l, space_id;
