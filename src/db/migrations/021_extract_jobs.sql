-- extractGraph runs as an import job whose items are documents: a new job kind, the model tokens the job spent (its
-- per-job cap is CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB) and, for a dry run, what the extraction would cost.
ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_kind_check;
ALTER TABLE import_jobs ADD CONSTRAINT import_jobs_kind_check
  CHECK (kind IN ('url', 'openapi', 'upload', 'directory', 'source', 'extract'));
ALTER TABLE import_jobs ADD COLUMN extraction_tokens integer NOT NULL DEFAULT 0;
ALTER TABLE import_jobs ADD COLUMN extraction_estimate jsonb;

-- The extractors a source's documents are extracted with (structural, offline, llm); NULL: the configured ones.
ALTER TABLE sources ADD COLUMN extractors text[];
