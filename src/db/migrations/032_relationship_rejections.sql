-- Extracted relationships an admin rejected (rejectRelationship): extraction never writes one with this id again,
-- until the rejection is undone. The id is relationshipId(from, type, to).
CREATE TABLE extraction_relationship_rejections (
  relationship_id text PRIMARY KEY,
  from_id         text NOT NULL,
  type            text NOT NULL,
  to_id           text NOT NULL,
  rejected_at     timestamptz(3) NOT NULL DEFAULT now()
);
