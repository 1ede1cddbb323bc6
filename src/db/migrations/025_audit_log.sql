-- Who changed what: one row per mutation of a document, an entity or a relationship, with a compact before/after.
-- Owned by src/audit/.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor_key_id text,
  actor_name text NOT NULL,
  operation text NOT NULL,
  target_kind text NOT NULL CHECK (target_kind IN ('DOCUMENT', 'ENTITY', 'RELATIONSHIP')),
  target_ids text[] NOT NULL,
  before jsonb,
  after jsonb,
  -- The entry this one undid, and the entry that undid this one.
  undoes bigint,
  undone_by bigint
);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_targets ON audit_log USING gin (target_ids);
