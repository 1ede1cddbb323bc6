-- Chunks carry a copy of their document's expiry. A search with no filter but expiry then tests the chunk itself,
-- instead of looking up every candidate's document (a third of the keyword lane's cost, measured on SciFact).
-- The copy is set when a chunk is written and follows every change of the document's expiry, by triggers, so every
-- write path keeps it current. Adding a column without a default rewrites nothing; only chunks of documents that
-- expire are back-filled.
ALTER TABLE chunks ADD COLUMN document_expires_at timestamptz;
UPDATE chunks c SET document_expires_at = d.expires_at
  FROM documents d
 WHERE d.id = c.document_id AND d.expires_at IS NOT NULL;

-- One documents lookup per new chunk gives both its title (for the keyword vector) and its expiry.
CREATE OR REPLACE FUNCTION chunks_keyword_fill() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  doc_title text;
  doc_expires timestamptz;
BEGIN
  SELECT d.title, d.expires_at INTO doc_title, doc_expires FROM documents d WHERE d.id = NEW.document_id;
  NEW.keyword_tsv := keyword_vector(doc_title, NEW.content);
  NEW.keyword_length := keyword_length(NEW.keyword_tsv);
  NEW.document_expires_at := doc_expires;
  RETURN NEW;
END $$;

CREATE FUNCTION documents_expiry_to_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chunks SET document_expires_at = NEW.expires_at WHERE document_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER documents_expiry_to_chunks AFTER UPDATE OF expires_at ON documents
  FOR EACH ROW WHEN (OLD.expires_at IS DISTINCT FROM NEW.expires_at) EXECUTE FUNCTION documents_expiry_to_chunks();
