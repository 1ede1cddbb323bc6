-- Import jobs, sources and uploads belong to a space: the space of the request that made them. A job writes its
-- documents there, a source's syncs run there, and an upload is imported there only. Rows made before were all made
-- in `default`, which then held everything.
ALTER TABLE import_jobs ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE sources ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE uploads ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);

-- A source's name is unique within its space: another space's names neither collide nor show through a CONFLICT.
ALTER TABLE sources DROP CONSTRAINT sources_name_key;
CREATE UNIQUE INDEX sources_space_name_idx ON sources (space_id, name);

-- A space's jobs newest first (importJobs' list).
CREATE INDEX import_jobs_space_created_idx ON import_jobs (space_id, created_at DESC, id DESC);
