-- Deleting a space is a durable job: a space being deleted is marked (requests can no longer name it), and its
-- deletion's row records progress and a lease, so that another instance, or this one after a restart, resumes it.
-- The row has no foreign key: it outlives the space, to report how the deletion ended.
ALTER TABLE spaces ADD COLUMN deleting_at timestamptz(3);

CREATE TABLE space_deletions (
  space_id     text PRIMARY KEY,
  status       text NOT NULL CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
  done         integer NOT NULL DEFAULT 0,
  total        integer NOT NULL DEFAULT 0,
  error        text,
  requested_at timestamptz(3) NOT NULL DEFAULT now(),
  finished_at  timestamptz(3),
  locked_until timestamptz(3)
);
