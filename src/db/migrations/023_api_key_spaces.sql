-- Keys are bound to spaces: a key reads and writes only in the spaces listed for it, or in every space with
-- all_spaces (admins may be). Keys made before spaces existed keep what they could do: admin keys every space, the
-- others `default`, which then held everything.
ALTER TABLE api_keys ADD COLUMN all_spaces boolean NOT NULL DEFAULT false;
UPDATE api_keys SET all_spaces = true WHERE role = 'admin';

CREATE TABLE api_key_spaces (
  key_id   text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  PRIMARY KEY (key_id, space_id)
);
INSERT INTO api_key_spaces (key_id, space_id) SELECT id, 'default' FROM api_keys WHERE role <> 'admin';
