-- One full-text vector per chunk. `tsv` (content only, generated) predates `keyword_tsv` (title + content, filled by
-- trigger): every chunk write computed both vectors and kept two GIN indexes current. Name backfill now takes its
-- candidates from `keyword_tsv`, a superset (the matcher confirms each match in the content).
DROP INDEX IF EXISTS chunks_tsv_gin;
ALTER TABLE chunks DROP COLUMN IF EXISTS tsv;
