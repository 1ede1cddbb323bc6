-- Import jobs: every import is recorded, so an accepted request is never lost and an interrupted one can resume.
CREATE TABLE import_jobs (
  id                   text PRIMARY KEY,
  kind                 text NOT NULL CHECK (kind IN ('url', 'openapi', 'upload', 'directory')),
  status               text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'PARTIAL', 'INTERRUPTED')),
  -- The validated request: enough to run (or resume) the job with no other state.
  request              jsonb NOT NULL,
  progress_done        integer NOT NULL DEFAULT 0,
  progress_total       integer NOT NULL DEFAULT 0,
  chunk_count          integer NOT NULL DEFAULT 0,
  embedded_chunk_count integer NOT NULL DEFAULT 0,
  warnings             jsonb NOT NULL DEFAULT '[]',
  runner_id            text,
  heartbeat_at         timestamptz(3),
  created_at           timestamptz(3) NOT NULL DEFAULT now(),
  started_at           timestamptz(3),
  finished_at          timestamptz(3)
);
CREATE INDEX import_jobs_created_idx ON import_jobs (created_at DESC, id DESC);
CREATE INDEX import_jobs_open_idx ON import_jobs (status, created_at) WHERE status IN ('QUEUED', 'RUNNING');

-- One row per source of a job (a URL, a file, a spec); a resumed job runs only the items not yet done.
CREATE TABLE import_job_items (
  job_id       text NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
  ordinal      integer NOT NULL,
  label        text NOT NULL,
  status       text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  document_ids text[] NOT NULL DEFAULT '{}',
  error_code   text,
  error        text,
  finished_at  timestamptz(3),
  PRIMARY KEY (job_id, ordinal)
);

-- Files sent to POST /v1/uploads, kept until imported or expired.
CREATE TABLE uploads (
  id           text PRIMARY KEY,
  file_name    text NOT NULL,
  content_type text,
  byte_size    integer NOT NULL,
  sha256       text NOT NULL,
  content      bytea NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  expires_at   timestamptz(3) NOT NULL
);
CREATE INDEX uploads_expires_idx ON uploads (expires_at);
