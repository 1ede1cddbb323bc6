-- Spaces: every document, chunk, entity, relationship, mention and entity name belongs to exactly one space. A fresh
-- install (and every store migrated to this version) has one space, `default`, which holds everything written so far.
CREATE TABLE spaces (
  id         text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name       text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
INSERT INTO spaces (id, name) VALUES ('default', 'Default');

ALTER TABLE documents ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE chunks ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE graph_entities ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE graph_relationships ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE entity_names ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);
ALTER TABLE mentions ADD COLUMN space_id text NOT NULL DEFAULT 'default' REFERENCES spaces (id);

-- Lookups that lead with the space: a space's documents newest first (documents' list), its entities by (name, id)
-- (entities' list), and a space's chunks (what deleting a space or counting its chunks reads).
CREATE INDEX documents_space_created_idx ON documents (space_id, created_at DESC, id DESC);
CREATE INDEX chunks_space_idx ON chunks (space_id);
CREATE INDEX graph_entities_space_name_idx ON graph_entities (space_id, name COLLATE "C", id COLLATE "C");
CREATE INDEX entity_names_space_idx ON entity_names (space_id);

-- A chunk lives in its document's space, and a relationship in its endpoints' space: the database derives both, so
-- no write path can put them elsewhere.
CREATE FUNCTION chunk_space() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT d.space_id INTO NEW.space_id FROM documents d WHERE d.id = NEW.document_id;
  RETURN NEW;
END $$;
CREATE TRIGGER chunks_space BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION chunk_space();

CREATE FUNCTION relationship_space() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  to_space text;
BEGIN
  SELECT e.space_id INTO NEW.space_id FROM graph_entities e WHERE e.id = NEW.from_id;
  SELECT e.space_id INTO to_space FROM graph_entities e WHERE e.id = NEW.to_id;
  IF to_space IS DISTINCT FROM NEW.space_id THEN
    RAISE EXCEPTION 'relationship % joins entities of different spaces', NEW.id USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER graph_relationships_space BEFORE INSERT ON graph_relationships
  FOR EACH ROW EXECUTE FUNCTION relationship_space();

-- A mention lives in its document's space; a mention of an entity of another space is never recorded (RETURN NULL
-- skips the row), so automatic linking by name cannot join two spaces whatever the name cache holds.
CREATE FUNCTION mention_space() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT d.space_id INTO NEW.space_id FROM documents d WHERE d.id = NEW.document_id;
  IF NOT EXISTS (SELECT 1 FROM entity_names n WHERE n.entity_id = NEW.entity_id AND n.space_id = NEW.space_id) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER mentions_space BEFORE INSERT ON mentions FOR EACH ROW EXECUTE FUNCTION mention_space();
