-- Spaces readable by other spaces: a request working in `reader_space` also reads `read_space`'s documents, chunks
-- and graph, as read-only context (docs/security.md#reading-other-spaces). Declared by an admin; not transitive.
-- Deleting either space removes the declaration with it.
CREATE TABLE space_reads (
  reader_space text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  read_space   text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (reader_space, read_space),
  CHECK (reader_space <> read_space)
);
CREATE INDEX space_reads_read_idx ON space_reads (read_space);
