-- Entity resolution for extraction, whichever store holds the graph: entity_names (which lists every entity) also
-- records each entity's type, origin and normalised name keys (its name's and aliases', see src/extraction/nameKey.ts),
-- so extracted names find the entity they mean by one index lookup, and extraction knows which entities people wrote.
ALTER TABLE entity_names ADD COLUMN type text;
ALTER TABLE entity_names ADD COLUMN origin text NOT NULL DEFAULT 'MANUAL'
  CHECK (origin IN ('MANUAL', 'IMPORTED', 'EXTRACTED'));
ALTER TABLE entity_names ADD COLUMN name_keys text[] NOT NULL DEFAULT '{}';
-- Existing rows: the Postgres store's type and origin, and an approximate key (lower case, punctuation as spaces) until
-- the entity is written again.
UPDATE entity_names n SET type = g.type, origin = g.origin FROM graph_entities g WHERE g.id = n.entity_id;
UPDATE entity_names SET name_keys = ARRAY(
  SELECT DISTINCT k FROM unnest(array_prepend(name, aliases)) AS a,
       LATERAL trim(regexp_replace(lower(a), '[^[:alnum:]]+', ' ', 'g')) AS k WHERE k <> '');
CREATE INDEX entity_names_keys_idx ON entity_names USING gin (name_keys);
-- Fuzzy matching compares a name only with names sharing its key's first three characters.
CREATE INDEX entity_names_key_prefix_idx ON entity_names ((left(name_keys[1], 3)));

-- The facts extraction wrote into the graph store: only these may it delete again (a relationship a person wrote
-- before extraction found it too stays theirs).
CREATE TABLE extraction_facts (
  fact_key        text PRIMARY KEY,
  materialized_at timestamptz(3) NOT NULL DEFAULT now()
);
