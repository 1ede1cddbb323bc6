-- Admins' merges of two entities: what the merge changed, so that it can be undone (undoMerge). The snapshot holds
-- the merged entity, the kept entity before the merge, the merged entity's relationships, explicit mentions and
-- evidence, and what the merge wrote in their place.
CREATE TABLE entity_merges (
  id         text PRIMARY KEY,
  keep_id    text NOT NULL,
  merged_id  text NOT NULL,
  snapshot   jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  undone_at  timestamptz(3)
);
CREATE INDEX entity_merges_keep_idx ON entity_merges (keep_id);
