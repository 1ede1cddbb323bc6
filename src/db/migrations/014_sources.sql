-- Sources: registered origins (git repositories, doc sites, spec URLs, local folders) that syncs keep documents in
-- step with. The sources module owns `sources` and `source_items`; the documents module owns `documents.source_id`.
CREATE TABLE sources (
  id                 text PRIMARY KEY,
  name               text NOT NULL UNIQUE,
  kind               text NOT NULL CHECK (kind IN ('GIT', 'SITE', 'OPENAPI', 'FOLDER')),
  -- Kind-specific settings (URL, branch, globs, path, page limit...), validated by the sources module.
  config             jsonb NOT NULL,
  tags               text[] NOT NULL DEFAULT '{}',
  document_type      text,
  -- 5-field cron or @hourly/@daily/@weekly; NULL syncs only on request.
  schedule           text,
  sync_timeout_ms    integer NOT NULL,
  status             text NOT NULL DEFAULT 'NEVER_SYNCED'
    CHECK (status IN ('NEVER_SYNCED', 'SYNCING', 'SUCCEEDED', 'PARTIAL', 'FAILED')),
  -- What the last complete sync reached (a git commit, a spec's hash), kept for the next one.
  state              jsonb NOT NULL DEFAULT '{}',
  last_job_id        text,
  last_run_at        timestamptz(3),
  last_finished_at   timestamptz(3),
  next_run_at        timestamptz(3),
  last_error         text,
  last_error_code    text,
  added_count        integer NOT NULL DEFAULT 0,
  updated_count      integer NOT NULL DEFAULT 0,
  removed_count      integer NOT NULL DEFAULT 0,
  unchanged_count    integer NOT NULL DEFAULT 0,
  skipped_count      integer NOT NULL DEFAULT 0,
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at         timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX sources_next_run_idx ON sources (next_run_at) WHERE next_run_at IS NOT NULL;

-- One row per item of a source (a file, a page, a spec) as its last finished import saw it, written as each item
-- finishes: an interrupted sync keeps what it did, and the next one imports only what changed since.
CREATE TABLE source_items (
  source_id    text NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  key          text NOT NULL,
  fingerprint  text NOT NULL,
  document_ids text[] NOT NULL DEFAULT '{}',
  -- Conditional-request validators and discovered links of a page, the commit and path of a file.
  state        jsonb NOT NULL DEFAULT '{}',
  synced_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, key)
);

-- The source a document belongs to; NULL for documents made by hand or by one-off imports. Set with the document's
-- own write, so a sync can never take over a document that is not its source's.
ALTER TABLE documents ADD COLUMN source_id text REFERENCES sources (id) ON DELETE SET NULL;
CREATE INDEX documents_source_id_idx ON documents (source_id) WHERE source_id IS NOT NULL;

-- A source's sync runs as an import job.
ALTER TABLE import_jobs DROP CONSTRAINT import_jobs_kind_check;
ALTER TABLE import_jobs ADD CONSTRAINT import_jobs_kind_check CHECK (kind IN ('url', 'openapi', 'upload', 'directory', 'source'));
CREATE INDEX import_jobs_source_idx ON import_jobs ((request->>'sourceId'), created_at DESC) WHERE kind = 'source';
