-- Queries the knowledge base could not answer well (best retrieval score below the threshold).
CREATE TABLE knowledge_gaps (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  query      text NOT NULL,
  normalized text NOT NULL,
  best_score real NOT NULL,
  filters    jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_gaps_normalized_idx ON knowledge_gaps (normalized, created_at);
