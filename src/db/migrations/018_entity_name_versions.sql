-- Versions of the entity names, so that a document write learns whether its cached names are current by reading one
-- row instead of fingerprinting the whole name table, and a process refreshes only the names changed since its copy.
--
-- entity_names_version holds one counter. Every statement that writes entity_names bumps it once (a statement-level
-- trigger) and records the entities it touched in entity_name_changes under the new value: one row per entity, the
-- latest change only, deletions included (the row outlives the name, so other processes learn it is gone). Bumping
-- locks the counter row until commit, so name-writing transactions commit in version order: whoever reads version N
-- finds every change numbered N or less already visible.

CREATE TABLE entity_names_version (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version   bigint NOT NULL
);
INSERT INTO entity_names_version (version) VALUES (1);

CREATE TABLE entity_name_changes (
  entity_id text PRIMARY KEY,
  version   bigint NOT NULL
);
CREATE INDEX entity_name_changes_version_idx ON entity_name_changes (version);
INSERT INTO entity_name_changes (entity_id, version) SELECT entity_id, 1 FROM entity_names;

CREATE FUNCTION entity_names_record_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched text[];
  next_version bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT entity_id) INTO touched FROM gone_rows;
  ELSE
    SELECT array_agg(DISTINCT entity_id) INTO touched FROM changed_rows;
  END IF;
  -- A statement that touched nothing changes nothing (and takes no lock).
  IF touched IS NULL THEN
    RETURN NULL;
  END IF;
  UPDATE entity_names_version SET version = version + 1 RETURNING version INTO next_version;
  INSERT INTO entity_name_changes (entity_id, version) SELECT unnest(touched), next_version
    ON CONFLICT (entity_id) DO UPDATE SET version = EXCLUDED.version;
  RETURN NULL;
END $$;

-- Transition tables allow one event per trigger, hence three.
CREATE TRIGGER entity_names_inserted AFTER INSERT ON entity_names REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION entity_names_record_changes();
CREATE TRIGGER entity_names_updated AFTER UPDATE ON entity_names REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION entity_names_record_changes();
CREATE TRIGGER entity_names_deleted AFTER DELETE ON entity_names REFERENCING OLD TABLE AS gone_rows
  FOR EACH STATEMENT EXECUTE FUNCTION entity_names_record_changes();
