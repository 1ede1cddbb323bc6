-- Knowledge gaps belong to a space: the space of the request whose query the store answered poorly. Gaps recorded
-- before were all recorded in `default`, which then held everything.
ALTER TABLE knowledge_gaps ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
DROP INDEX knowledge_gaps_normalized_idx;
CREATE INDEX knowledge_gaps_space_normalized_idx ON knowledge_gaps (space_id, normalized, created_at);
