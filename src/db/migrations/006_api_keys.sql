-- API keys: only a SHA-256 of each key is kept; the key itself is shown once, when created.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  name         text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'editor', 'agent', 'reader')),
  key_hash     text NOT NULL UNIQUE,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  -- Written at most once a minute per key and process, so reads stay cheap.
  last_used_at timestamptz(3),
  revoked_at   timestamptz(3)
);
-- "Does any usable key exist?" decides whether authentication is on; answered from this index.
CREATE INDEX api_keys_active_idx ON api_keys (created_at) WHERE revoked_at IS NULL;
