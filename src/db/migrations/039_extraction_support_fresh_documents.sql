-- Keeping extraction support by difference (migration 026) looked up, for every (fact, document, chunk) and (fact,
-- document) a statement touched, how many evidence rows are there now: two index probes per group, three quarters of
-- what writing a batch's evidence cost. Extraction replaces a document's evidence whole, so nearly every statement
-- inserts all rows of documents that had none, or deletes all rows of documents: counted once per document, such a
-- document ("fresh": no rows before; "emptied": none after) needs no probe, its groups' counts follow from the
-- statement alone. Other documents are probed as before. The deletes of groups at zero run only where a count fell.

CREATE OR REPLACE FUNCTION extraction_support_apply(
  d_fact_key text[], d_document_id text[], d_chunk bigint[], d_extractor text[], d_quote text[], d_fact jsonb[],
  d_sign integer[]
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  touched text[];
  fell boolean;
  fresh_documents text[];
  emptied_documents text[];
BEGIN
  PERFORM pg_advisory_xact_lock(2020832624); -- "xsup"
  SELECT array_agg(DISTINCT k) INTO touched FROM unnest(d_fact_key) AS k WHERE k LIKE 'e:%' OR k LIKE 'r:%';
  IF touched IS NULL THEN
    RETURN;
  END IF;
  fell := -1 = ANY(d_sign);

  -- Rows of a document before the statement: those there now minus the statement's net change (all its rows count).
  SELECT array_agg(x.document_id) FILTER (WHERE n.now = x.net), array_agg(x.document_id) FILTER (WHERE n.now = 0 AND n.now <> x.net)
    INTO fresh_documents, emptied_documents
    FROM (SELECT document_id, sum(sign) AS net FROM unnest(d_document_id, d_sign) AS u(document_id, sign) GROUP BY 1) x
    CROSS JOIN LATERAL (SELECT count(*) AS now FROM extraction_evidence e WHERE e.document_id = x.document_id) n;

  WITH state AS (
    SELECT document_id, true AS fresh FROM unnest(fresh_documents) AS document_id
    UNION ALL
    SELECT document_id, false FROM unnest(emptied_documents) AS document_id
  ), per_chunk AS (
    SELECT g.fact_key, g.document_id, g.net, st.fresh,
           CASE WHEN st.fresh THEN g.net WHEN NOT st.fresh THEN 0 ELSE
           (SELECT count(*) FROM extraction_evidence e
             WHERE e.fact_key = g.fact_key AND e.document_id = g.document_id AND COALESCE(e.chunk_id, 0) = g.chunk) END AS now
      FROM (SELECT fact_key, document_id, chunk, sum(sign) AS net
              FROM unnest(d_fact_key, d_document_id, d_chunk, d_sign) AS x(fact_key, document_id, chunk, sign)
             WHERE x.fact_key LIKE 'e:%' OR x.fact_key LIKE 'r:%'
             GROUP BY 1, 2, 3) g
      LEFT JOIN state st ON st.document_id = g.document_id
     WHERE g.net <> 0
  ), per_document AS (
    SELECT c.fact_key, c.document_id, sum(c.net) AS net, sum((c.now > 0)::int - (c.now - c.net > 0)::int) AS chunks,
           CASE WHEN bool_and(c.fresh) THEN sum(c.net) WHEN NOT bool_and(c.fresh) THEN 0 ELSE
           (SELECT count(*) FROM extraction_evidence e
             WHERE e.fact_key = c.fact_key AND e.document_id = c.document_id) END AS now
      FROM per_chunk c GROUP BY c.fact_key, c.document_id
  ), per_fact AS (
    SELECT fact_key, sum((now > 0)::int - (now - net > 0)::int) AS documents, sum(chunks) AS chunks
      FROM per_document GROUP BY fact_key
  )
  INSERT INTO extraction_support AS s (fact_key, documents, chunks)
  SELECT fact_key, documents, chunks FROM per_fact WHERE documents <> 0 OR chunks <> 0 ORDER BY fact_key
  ON CONFLICT (fact_key) DO UPDATE SET documents = s.documents + EXCLUDED.documents, chunks = s.chunks + EXCLUDED.chunks;
  IF fell THEN
    DELETE FROM extraction_support WHERE fact_key = ANY(touched) AND documents <= 0;
  END IF;

  INSERT INTO extraction_support_forms AS f (fact_key, extractor, form, fact, rows)
  SELECT fact_key, extractor, md5(fact::text), (array_agg(fact))[1], sum(sign)
    FROM unnest(d_fact_key, d_extractor, d_fact, d_sign) AS x(fact_key, extractor, fact, sign)
   WHERE x.fact_key LIKE 'e:%' OR x.fact_key LIKE 'r:%'
   GROUP BY fact_key, extractor, md5(fact::text) HAVING sum(sign) <> 0
   ORDER BY 1, 2, 3
  ON CONFLICT (fact_key, extractor, form) DO UPDATE SET rows = f.rows + EXCLUDED.rows;
  IF fell THEN
    DELETE FROM extraction_support_forms WHERE fact_key = ANY(touched) AND rows <= 0;
  END IF;

  -- Distinct quotes span documents: a quote is new or gone by the rows of every document, so these are probed.
  WITH per_quote AS (
    SELECT g.fact_key, g.extractor, g.net,
           (SELECT count(*) FROM extraction_evidence e
             WHERE e.fact_key LIKE 'r:%' AND e.fact_key = g.fact_key AND e.extractor = g.extractor
               AND e.quote = g.quote) AS now
      FROM (SELECT fact_key, extractor, quote, sum(sign) AS net
              FROM unnest(d_fact_key, d_extractor, d_quote, d_sign) AS x(fact_key, extractor, quote, sign)
             WHERE x.fact_key LIKE 'r:%' GROUP BY 1, 2, 3) g
     WHERE g.net <> 0
  ), per_extractor AS (
    SELECT fact_key, extractor, sum((now > 0)::int - (now - net > 0)::int) AS quotes
      FROM per_quote GROUP BY fact_key, extractor
  )
  INSERT INTO extraction_support_quotes AS q (fact_key, extractor, quotes)
  SELECT fact_key, extractor, quotes FROM per_extractor WHERE quotes <> 0 ORDER BY 1, 2
  ON CONFLICT (fact_key, extractor) DO UPDATE SET quotes = q.quotes + EXCLUDED.quotes;
  IF fell THEN
    DELETE FROM extraction_support_quotes WHERE fact_key = ANY(touched) AND quotes <= 0;
  END IF;
END $$;
