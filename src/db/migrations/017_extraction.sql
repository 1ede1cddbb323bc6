-- The graph builds itself: extraction state per document (its pending rows are the durable queue), a cache of what
-- each extractor found in a chunk, the evidence that supports every extracted fact, and names admins rejected.

-- Where each fact came from: MANUAL (written through the API), IMPORTED (an importer, e.g. an OpenAPI spec),
-- EXTRACTED (built from document text). Extraction never changes or removes MANUAL and IMPORTED facts.
ALTER TABLE graph_entities ADD COLUMN origin text NOT NULL DEFAULT 'MANUAL'
  CHECK (origin IN ('MANUAL', 'IMPORTED', 'EXTRACTED'));
ALTER TABLE graph_relationships ADD COLUMN origin text NOT NULL DEFAULT 'MANUAL'
  CHECK (origin IN ('MANUAL', 'IMPORTED', 'EXTRACTED'));
CREATE INDEX graph_entities_origin_idx ON graph_entities (origin) WHERE origin <> 'MANUAL';

-- One row per document that was written since extraction existed. PENDING and REMOVED rows (and RUNNING rows whose
-- lease ran out) are the queue: REMOVED means the document was deleted and the facts it alone supported must go;
-- the row is deleted once that is done. No foreign key: the row must outlive a deleted document.
CREATE TABLE extraction_documents (
  document_id        text PRIMARY KEY,
  status             text NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'DONE', 'FAILED', 'REMOVED')),
  requested_at       timestamptz(3) NOT NULL DEFAULT now(),
  locked_until       timestamptz(3),
  attempts           integer NOT NULL DEFAULT 0,
  job_id             text,
  -- the extractors an extractGraph request chose for this document; null: the configured ones
  extractors         text[],
  error              text,
  warnings           jsonb NOT NULL DEFAULT '[]',
  entity_count       integer NOT NULL DEFAULT 0,
  relationship_count integer NOT NULL DEFAULT 0,
  extracted_at       timestamptz(3)
);
CREATE INDEX extraction_documents_queue_idx ON extraction_documents (requested_at, document_id)
  WHERE status IN ('PENDING', 'RUNNING', 'REMOVED');
CREATE INDEX extraction_documents_job_idx ON extraction_documents (job_id) WHERE job_id IS NOT NULL;

-- What one extractor found in one chunk text, keyed by a hash of (chunk text, extractor, its settings, model, prompt
-- version): an unchanged chunk is never extracted twice, and a second run over the same text sends no request.
CREATE TABLE extraction_cache (
  key               text PRIMARY KEY,
  extractor         text NOT NULL,
  result            jsonb NOT NULL,
  prompt_tokens     integer NOT NULL DEFAULT 0,
  completion_tokens integer NOT NULL DEFAULT 0,
  created_at        timestamptz(3) NOT NULL DEFAULT now()
);

-- The support of extracted facts: one row per (fact, chunk, extractor). fact_key is 'e:<entity id>' or
-- 'r:<relationship id>'; fact holds what materialises it (entity: id, type, name, aliases, description, kind;
-- relationship: fromId, type, toId, description). A fact is in the graph while its support meets its rule, and an
-- EXTRACTED fact with no support left is removed.
CREATE TABLE extraction_evidence (
  fact_key    text NOT NULL,
  fact        jsonb NOT NULL,
  document_id text NOT NULL,
  chunk_id    bigint,
  extractor   text NOT NULL,
  quote       text NOT NULL,
  confidence  real NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX extraction_evidence_unique ON extraction_evidence (fact_key, document_id, COALESCE(chunk_id, 0), extractor);
CREATE INDEX extraction_evidence_document_idx ON extraction_evidence (document_id);

-- Names an admin rejected: extraction never creates an entity with this normalised name again.
CREATE TABLE extraction_rejections (
  name_key    text PRIMARY KEY,
  name        text NOT NULL,
  rejected_at timestamptz(3) NOT NULL DEFAULT now()
);
