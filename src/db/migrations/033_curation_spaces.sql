-- The audit log, merges and rejections belong to a space: the space of the request (or job) that made them. Undo,
-- undoMerge and the audit log then see their own space's entries only, and a name rejected in one space is still
-- extracted in another. Rows made before were all made in `default`, which then held everything.
ALTER TABLE audit_log ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
CREATE INDEX audit_log_space ON audit_log (space_id, id DESC);

ALTER TABLE entity_merges ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);

ALTER TABLE extraction_rejections ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE extraction_rejections DROP CONSTRAINT extraction_rejections_pkey;
ALTER TABLE extraction_rejections ADD PRIMARY KEY (space_id, name_key);

ALTER TABLE extraction_relationship_rejections ADD COLUMN space_id text NOT NULL DEFAULT 'default'
  REFERENCES spaces (id);

-- A document's extraction runs in its document's space; the row keeps it, since a deleted document's clean-up
-- (REMOVED) outlives the document.
ALTER TABLE extraction_documents ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
