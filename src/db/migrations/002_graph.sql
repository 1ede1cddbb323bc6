-- The knowledge graph on Postgres (embedded default), plus what both graph stores share in Postgres:
-- entity names for mention linking, mentions themselves, and the outbox that feeds Neo4j.

CREATE TABLE graph_entities (
  id          text PRIMARY KEY,
  type        text NOT NULL,
  name        text NOT NULL,
  aliases     text[] NOT NULL DEFAULT '{}',
  description text,
  properties  jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX graph_entities_type_idx ON graph_entities (type);
CREATE INDEX graph_entities_name_idx ON graph_entities (name COLLATE "C", id COLLATE "C");

CREATE TABLE graph_relationships (
  id         text PRIMARY KEY,
  type       text NOT NULL,
  from_id    text NOT NULL REFERENCES graph_entities (id) ON DELETE CASCADE,
  to_id      text NOT NULL REFERENCES graph_entities (id) ON DELETE CASCADE,
  properties jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT graph_relationships_unique UNIQUE (from_id, type, to_id)
);
CREATE INDEX graph_relationships_to_idx ON graph_relationships (to_id, type);
CREATE INDEX graph_relationships_from_idx ON graph_relationships (from_id, type);

-- Names and aliases of every entity, whichever store holds the graph: mention linking reads them here so that
-- document writes never depend on Neo4j being up.
CREATE TABLE entity_names (
  entity_id  text PRIMARY KEY,
  name       text NOT NULL,
  aliases    text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Which chunks mention which entities. source: 'auto' (name found in text) or 'explicit' (entityIds, linkDocumentEntities).
CREATE TABLE mentions (
  entity_id   text NOT NULL REFERENCES entity_names (entity_id) ON DELETE CASCADE,
  document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  chunk_id    bigint REFERENCES chunks (id) ON DELETE CASCADE,
  source      text NOT NULL CHECK (source IN ('auto', 'explicit')),
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX mentions_unique ON mentions (entity_id, document_id, COALESCE(chunk_id, 0), source);
CREATE INDEX mentions_document_idx ON mentions (document_id);
CREATE INDEX mentions_chunk_idx ON mentions (chunk_id);

-- Graph writes caused by document writes, queued in the same transaction and applied to Neo4j by a worker.
CREATE TABLE graph_outbox (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  op         jsonb NOT NULL,
  attempts   integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  done_at    timestamptz(3)
);
CREATE INDEX graph_outbox_pending_idx ON graph_outbox (id) WHERE done_at IS NULL;
