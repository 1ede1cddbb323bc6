-- Whether documents and queries that contain an entity's name (or alias) are linked to it automatically. Generic
-- names that importers create (an OpenAPI spec's "Error" schema or "pets" tag) linked every document mentioning an
-- error or pets, in every spec and note, and their backfill scanned much of the store; such entities keep only their
-- explicit links. Existing entities keep linking by name.
ALTER TABLE entity_names ADD COLUMN IF NOT EXISTS link_by_name boolean NOT NULL DEFAULT true;
