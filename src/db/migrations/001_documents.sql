-- Documents, their chunks and the store's own metadata (which embedder built the index).
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE cairn_meta (
  key        text PRIMARY KEY,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
  id            text PRIMARY KEY,
  title         text NOT NULL,
  content       text NOT NULL,
  document_type text NOT NULL DEFAULT 'other'
    CHECK (document_type IN ('manual', 'tutorial', 'api_spec', 'faq', 'policy', 'reference', 'other')),
  source        text,
  tags          text[] NOT NULL DEFAULT '{}',
  metadata      jsonb NOT NULL DEFAULT '{}',
  content_hash  text NOT NULL,
  -- Millisecond precision, like JavaScript dates, so keyset cursors round-trip exactly.
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  expires_at    timestamptz(3)
);
CREATE INDEX documents_tags_gin ON documents USING gin (tags);
CREATE INDEX documents_type_idx ON documents (document_type);
CREATE INDEX documents_source_idx ON documents (source);
CREATE INDEX documents_expires_idx ON documents (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX documents_created_idx ON documents (created_at, id);

-- The embedding column gets its dimension (and, on a server, its HNSW index) when an embedder is registered.
CREATE TABLE chunks (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id  text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  ordinal      integer NOT NULL,
  content      text NOT NULL,
  char_start   integer NOT NULL,
  char_end     integer NOT NULL,
  content_hash text NOT NULL,
  embedding    vector,
  tsv          tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
  CONSTRAINT chunks_document_ordinal UNIQUE (document_id, ordinal) DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT chunks_offsets CHECK (char_start >= 0 AND char_end >= char_start)
);
CREATE INDEX chunks_document_idx ON chunks (document_id);
CREATE INDEX chunks_tsv_gin ON chunks USING gin (tsv);

