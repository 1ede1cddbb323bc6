-- Keyword search (BM25) inside Postgres: every chunk gets a tsvector over its document's title and its own content,
-- plus its length in tokens; triggers on `chunks` keep document frequencies and corpus totals in the same transaction
-- as the chunk writes, so every server instance ranks with the same statistics and no application hook is needed.
-- A chunk's title never goes stale through DocumentService: chunk hashes cover the title, so a new title replaces
-- every chunk row. The trigger on documents below covers title changes made by any other path.

CREATE FUNCTION keyword_vector(title text, content text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector('english', coalesce(title, '')) || to_tsvector('english', content) $$;

-- Tokens in a vector: each lexeme counts once per position.
CREATE FUNCTION keyword_length(v tsvector) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::integer FROM unnest(v) $$;

ALTER TABLE chunks ADD COLUMN keyword_tsv tsvector;
ALTER TABLE chunks ADD COLUMN keyword_length integer;
-- Keep the vector in the row (rows already hold an inline embedding): ranking reads it for every candidate, and a
-- TOAST fetch per candidate would dominate the query.
ALTER TABLE chunks ALTER COLUMN keyword_tsv SET STORAGE MAIN;

-- Statistics are split into shards (by server backend) so that concurrent writers rarely wait on the same rows;
-- readers sum the shards. A shard's counts may go negative when another shard wrote what it deletes.
CREATE TABLE keyword_terms (
  lexeme text COLLATE "C" NOT NULL,
  shard  smallint NOT NULL,
  df     integer NOT NULL,
  PRIMARY KEY (lexeme, shard)
);
CREATE TABLE keyword_stats (
  shard        smallint PRIMARY KEY,
  chunk_count  bigint NOT NULL,
  total_length bigint NOT NULL
);

-- Adds (sign 1) or removes (sign -1) chunks' vectors from the statistics of this backend's shard. The shard's
-- stats row is locked first, so writers of one shard take turns and their term updates never deadlock.
CREATE FUNCTION keyword_stats_apply(vectors tsvector[], total_length bigint, sign integer) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  s smallint := (pg_backend_pid() % 16)::smallint;
  lex text[];
  cnt integer[];
BEGIN
  IF coalesce(cardinality(vectors), 0) = 0 THEN RETURN; END IF;
  INSERT INTO keyword_stats AS k (shard, chunk_count, total_length)
    VALUES (s, sign * cardinality(vectors), sign * coalesce(total_length, 0))
    ON CONFLICT (shard) DO UPDATE
      SET chunk_count = k.chunk_count + EXCLUDED.chunk_count, total_length = k.total_length + EXCLUDED.total_length;
  SELECT array_agg(l ORDER BY l), array_agg(n ORDER BY l) INTO lex, cnt
    FROM (SELECT l COLLATE "C" AS l, count(*)::integer AS n
            FROM unnest(vectors) AS v, unnest(tsvector_to_array(v)) AS l GROUP BY 1) x;
  IF lex IS NULL THEN RETURN; END IF;
  INSERT INTO keyword_terms AS t (lexeme, shard, df)
    SELECT x.l, s, sign * x.n FROM unnest(lex, cnt) AS x(l, n) ORDER BY x.l
    ON CONFLICT (lexeme, shard) DO UPDATE SET df = t.df + EXCLUDED.df;
  IF sign < 0 THEN
    DELETE FROM keyword_terms WHERE shard = s AND lexeme = ANY(lex) AND df = 0;
  END IF;
END $$;

-- Backfill chunks written before this migration, before any trigger exists.
UPDATE chunks c SET keyword_tsv = x.v, keyword_length = keyword_length(x.v)
  FROM (SELECT c2.id, keyword_vector(d.title, c2.content) AS v
          FROM chunks c2 JOIN documents d ON d.id = c2.document_id) x
 WHERE x.id = c.id;
INSERT INTO keyword_stats (shard, chunk_count, total_length)
  SELECT 0, count(*), coalesce(sum(keyword_length), 0) FROM chunks;
INSERT INTO keyword_terms (lexeme, shard, df)
  SELECT l, 0, count(*) FROM chunks, unnest(tsvector_to_array(keyword_tsv)) AS l GROUP BY l;

CREATE INDEX chunks_keyword_gin ON chunks USING gin (keyword_tsv);

CREATE FUNCTION chunks_keyword_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.keyword_tsv := keyword_vector((SELECT d.title FROM documents d WHERE d.id = NEW.document_id), NEW.content);
  NEW.keyword_length := keyword_length(NEW.keyword_tsv);
  RETURN NEW;
END $$;
CREATE TRIGGER chunks_keyword_fill BEFORE INSERT OR UPDATE OF content, document_id ON chunks
  FOR EACH ROW EXECUTE FUNCTION chunks_keyword_fill();

CREATE FUNCTION chunks_keyword_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM keyword_stats_apply(ARRAY(SELECT keyword_tsv FROM new_rows), (SELECT sum(keyword_length) FROM new_rows), 1);
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_keyword_inserted AFTER INSERT ON chunks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_keyword_inserted();

CREATE FUNCTION chunks_keyword_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM keyword_stats_apply(
    ARRAY(SELECT keyword_tsv FROM old_rows WHERE keyword_tsv IS NOT NULL),
    (SELECT sum(keyword_length) FROM old_rows WHERE keyword_tsv IS NOT NULL), -1);
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_keyword_deleted AFTER DELETE ON chunks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_keyword_deleted();

-- Content rewritten in place (no application path does this): swap the row's old vector for its new one.
CREATE FUNCTION chunks_keyword_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.keyword_tsv IS NOT DISTINCT FROM NEW.keyword_tsv THEN RETURN NULL; END IF;
  IF OLD.keyword_tsv IS NOT NULL THEN PERFORM keyword_stats_apply(ARRAY[OLD.keyword_tsv], OLD.keyword_length, -1); END IF;
  PERFORM keyword_stats_apply(ARRAY[NEW.keyword_tsv], NEW.keyword_length, 1);
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_keyword_updated AFTER UPDATE OF content, document_id ON chunks
  FOR EACH ROW EXECUTE FUNCTION chunks_keyword_updated();

-- A title changed: re-derive the vectors of the document's chunks, three statements per document (not per chunk).
-- Through DocumentService those chunks are replaced right after, since their hashes cover the title.
CREATE FUNCTION documents_keyword_title() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM keyword_stats_apply(
    ARRAY(SELECT keyword_tsv FROM chunks WHERE document_id = NEW.id AND keyword_tsv IS NOT NULL),
    (SELECT sum(keyword_length) FROM chunks WHERE document_id = NEW.id AND keyword_tsv IS NOT NULL), -1);
  UPDATE chunks c SET keyword_tsv = x.v, keyword_length = keyword_length(x.v)
    FROM (SELECT id, keyword_vector(NEW.title, content) AS v FROM chunks WHERE document_id = NEW.id) x
   WHERE c.id = x.id;
  PERFORM keyword_stats_apply(
    ARRAY(SELECT keyword_tsv FROM chunks WHERE document_id = NEW.id),
    (SELECT sum(keyword_length) FROM chunks WHERE document_id = NEW.id), 1);
  RETURN NULL;
END $$;
CREATE TRIGGER documents_keyword_title AFTER UPDATE OF title ON documents
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION documents_keyword_title();

CREATE FUNCTION chunks_keyword_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM keyword_terms;
  DELETE FROM keyword_stats;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_keyword_truncated AFTER TRUNCATE ON chunks
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_keyword_truncated();
