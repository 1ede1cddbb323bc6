-- The support of every extracted fact, kept up to date by difference as evidence rows come and go, so that
-- reconciling a fact reads a few rows instead of recounting all of its evidence (a common name's support grows with
-- the corpus, and every batch that names it would recount it whole).
--
-- Statement-level triggers on extraction_evidence apply each statement's rows (+1 inserted, −1 deleted, both for an
-- update) set-wise. A distinct count (documents, chunks, quotes) changes where a group of rows (one fact in one
-- document, in one chunk, or one quote of one extractor) goes from none to some or back: "before" is the rows there
-- now minus the statement's net change. Writers of evidence serialise on an advisory lock ("xsup"), taken by the
-- trigger at the latest, so that "now" includes every committed change. Only 'e:' and 'r:' facts are counted.

-- Distinct documents and (document, chunk) pairs (a row without a chunk counts as chunk 0) supporting a fact.
CREATE TABLE extraction_support (
  fact_key  text PRIMARY KEY,
  documents integer NOT NULL,
  chunks    integer NOT NULL
);

-- Each distinct form of a fact (its jsonb), per extractor, with its number of evidence rows.
CREATE TABLE extraction_support_forms (
  fact_key  text NOT NULL,
  extractor text NOT NULL,
  form      text NOT NULL, -- md5 of the fact's jsonb text (jsonb prints one canonical text per value)
  fact      jsonb NOT NULL,
  rows      integer NOT NULL,
  PRIMARY KEY (fact_key, extractor, form)
);

-- Distinct quotes per relationship and extractor (a co-occurrence needs distinct passages).
CREATE TABLE extraction_support_quotes (
  fact_key  text NOT NULL,
  extractor text NOT NULL,
  quotes    integer NOT NULL,
  PRIMARY KEY (fact_key, extractor)
);

-- Finds a relationship's rows with one quote, to tell whether a quote is new or gone.
CREATE INDEX extraction_evidence_quote_idx ON extraction_evidence (fact_key, extractor, quote) WHERE fact_key LIKE 'r:%';

INSERT INTO extraction_support (fact_key, documents, chunks)
SELECT fact_key, count(DISTINCT document_id), count(DISTINCT (document_id, COALESCE(chunk_id, 0)))
  FROM extraction_evidence WHERE fact_key LIKE 'e:%' OR fact_key LIKE 'r:%' GROUP BY fact_key;
INSERT INTO extraction_support_forms (fact_key, extractor, form, fact, rows)
SELECT fact_key, extractor, md5(fact::text), (array_agg(fact))[1], count(*)
  FROM extraction_evidence WHERE fact_key LIKE 'e:%' OR fact_key LIKE 'r:%' GROUP BY fact_key, extractor, md5(fact::text);
INSERT INTO extraction_support_quotes (fact_key, extractor, quotes)
SELECT fact_key, extractor, count(DISTINCT quote) FROM extraction_evidence WHERE fact_key LIKE 'r:%'
 GROUP BY fact_key, extractor;

CREATE FUNCTION extraction_support_apply(
  d_fact_key text[], d_document_id text[], d_chunk bigint[], d_extractor text[], d_quote text[], d_fact jsonb[],
  d_sign integer[]
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  touched text[];
BEGIN
  PERFORM pg_advisory_xact_lock(2020832624); -- "xsup"
  SELECT array_agg(DISTINCT k) INTO touched FROM unnest(d_fact_key) AS k WHERE k LIKE 'e:%' OR k LIKE 'r:%';
  IF touched IS NULL THEN
    RETURN;
  END IF;

  WITH per_chunk AS (
    SELECT g.fact_key, g.document_id, g.net,
           (SELECT count(*) FROM extraction_evidence e
             WHERE e.fact_key = g.fact_key AND e.document_id = g.document_id AND COALESCE(e.chunk_id, 0) = g.chunk) AS now
      FROM (SELECT fact_key, document_id, chunk, sum(sign) AS net FROM (SELECT * FROM unnest(d_fact_key, d_document_id, d_chunk, d_extractor, d_quote, d_fact, d_sign)
                      AS x(fact_key, document_id, chunk, extractor, quote, fact, sign) WHERE x.fact_key LIKE 'e:%' OR x.fact_key LIKE 'r:%') d
             GROUP BY 1, 2, 3) g
     WHERE g.net <> 0
  ), per_document AS (
    SELECT c.fact_key, c.document_id, sum(c.net) AS net, sum((c.now > 0)::int - (c.now - c.net > 0)::int) AS chunks,
           (SELECT count(*) FROM extraction_evidence e
             WHERE e.fact_key = c.fact_key AND e.document_id = c.document_id) AS now
      FROM per_chunk c GROUP BY c.fact_key, c.document_id
  ), per_fact AS (
    SELECT fact_key, sum((now > 0)::int - (now - net > 0)::int) AS documents, sum(chunks) AS chunks
      FROM per_document GROUP BY fact_key
  )
  INSERT INTO extraction_support AS s (fact_key, documents, chunks)
  SELECT fact_key, documents, chunks FROM per_fact WHERE documents <> 0 OR chunks <> 0 ORDER BY fact_key
  ON CONFLICT (fact_key) DO UPDATE SET documents = s.documents + EXCLUDED.documents, chunks = s.chunks + EXCLUDED.chunks;
  DELETE FROM extraction_support WHERE fact_key = ANY(touched) AND documents <= 0;

  INSERT INTO extraction_support_forms AS f (fact_key, extractor, form, fact, rows)
  SELECT fact_key, extractor, md5(fact::text), (array_agg(fact))[1], sum(sign)
    FROM (SELECT * FROM unnest(d_fact_key, d_document_id, d_chunk, d_extractor, d_quote, d_fact, d_sign)
                      AS x(fact_key, document_id, chunk, extractor, quote, fact, sign) WHERE x.fact_key LIKE 'e:%' OR x.fact_key LIKE 'r:%') d
   GROUP BY fact_key, extractor, md5(fact::text) HAVING sum(sign) <> 0
   ORDER BY 1, 2, 3
  ON CONFLICT (fact_key, extractor, form) DO UPDATE SET rows = f.rows + EXCLUDED.rows;
  DELETE FROM extraction_support_forms WHERE fact_key = ANY(touched) AND rows <= 0;

  WITH per_quote AS (
    SELECT g.fact_key, g.extractor, g.net,
           (SELECT count(*) FROM extraction_evidence e
             WHERE e.fact_key LIKE 'r:%' AND e.fact_key = g.fact_key AND e.extractor = g.extractor
               AND e.quote = g.quote) AS now
      FROM (SELECT fact_key, extractor, quote, sum(sign) AS net FROM (SELECT * FROM unnest(d_fact_key, d_document_id, d_chunk, d_extractor, d_quote, d_fact, d_sign)
                      AS x(fact_key, document_id, chunk, extractor, quote, fact, sign) WHERE x.fact_key LIKE 'e:%' OR x.fact_key LIKE 'r:%') d
             WHERE fact_key LIKE 'r:%' GROUP BY 1, 2, 3) g
     WHERE g.net <> 0
  ), per_extractor AS (
    SELECT fact_key, extractor, sum((now > 0)::int - (now - net > 0)::int) AS quotes
      FROM per_quote GROUP BY fact_key, extractor
  )
  INSERT INTO extraction_support_quotes AS q (fact_key, extractor, quotes)
  SELECT fact_key, extractor, quotes FROM per_extractor WHERE quotes <> 0 ORDER BY 1, 2
  ON CONFLICT (fact_key, extractor) DO UPDATE SET quotes = q.quotes + EXCLUDED.quotes;
  DELETE FROM extraction_support_quotes WHERE fact_key = ANY(touched) AND quotes <= 0;
END $$;

CREATE FUNCTION extraction_evidence_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM extraction_support_apply(array_agg(fact_key), array_agg(document_id), array_agg(COALESCE(chunk_id, 0)),
                                   array_agg(extractor), array_agg(quote), array_agg(fact), array_agg(1))
     FROM added_rows;
  RETURN NULL;
END $$;

CREATE FUNCTION extraction_evidence_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM extraction_support_apply(array_agg(fact_key), array_agg(document_id), array_agg(COALESCE(chunk_id, 0)),
                                   array_agg(extractor), array_agg(quote), array_agg(fact), array_agg(-1))
     FROM gone_rows;
  RETURN NULL;
END $$;

CREATE FUNCTION extraction_evidence_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM extraction_support_apply(array_agg(fact_key), array_agg(document_id), array_agg(chunk), array_agg(extractor),
                                   array_agg(quote), array_agg(fact), array_agg(sign))
     FROM (SELECT fact_key, document_id, COALESCE(chunk_id, 0) AS chunk, extractor, quote, fact, -1 AS sign FROM gone_rows
           UNION ALL
           SELECT fact_key, document_id, COALESCE(chunk_id, 0), extractor, quote, fact, 1 FROM added_rows) d;
  RETURN NULL;
END $$;

-- Transition tables allow one event per trigger, hence three.
CREATE TRIGGER extraction_evidence_support_inserted AFTER INSERT ON extraction_evidence
  REFERENCING NEW TABLE AS added_rows FOR EACH STATEMENT EXECUTE FUNCTION extraction_evidence_inserted();
CREATE TRIGGER extraction_evidence_support_deleted AFTER DELETE ON extraction_evidence
  REFERENCING OLD TABLE AS gone_rows FOR EACH STATEMENT EXECUTE FUNCTION extraction_evidence_deleted();
CREATE TRIGGER extraction_evidence_support_updated AFTER UPDATE ON extraction_evidence
  REFERENCING OLD TABLE AS gone_rows NEW TABLE AS added_rows
  FOR EACH STATEMENT EXECUTE FUNCTION extraction_evidence_updated();

-- Entities whose names extraction wrote and whose mentions in the chunks stored before them are still to be found
-- (a backfill pass matches many of them in one read of the chunks). A row is deleted once its pass committed; `seq`
-- changes when the names are written again meanwhile, so that such a row stays for the next pass.
CREATE SEQUENCE mention_backfill_seq;
CREATE TABLE mention_backfill (
  entity_id text PRIMARY KEY REFERENCES entity_names (entity_id) ON DELETE CASCADE,
  seq       bigint NOT NULL DEFAULT nextval('mention_backfill_seq')
);
