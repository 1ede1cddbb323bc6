import { isReadOnlyStatement } from '../../../src/db/readRoute.js';

describe('isReadOnlyStatement (which statements a read replica may run)', () => {
  it.each([
    'SELECT id FROM documents WHERE id = $1',
    '  with hits AS (SELECT 1) SELECT * FROM hits',
    'SELECT updated_at, last_update_id FROM documents',
  ])('reads: %s', (sql) => {
    expect(isReadOnlyStatement(sql)).toBe(true);
  });

  it.each([
    'INSERT INTO knowledge_gaps (query) VALUES ($1)',
    'WITH moved AS (UPDATE jobs SET state = $1 RETURNING id) SELECT * FROM moved',
    'WITH gone AS (DELETE FROM x RETURNING id) SELECT count(*) FROM gone',
    'SELECT id FROM jobs WHERE state = $1 FOR UPDATE SKIP LOCKED',
    'SELECT id FROM jobs FOR NO KEY UPDATE',
    'SELECT id FROM sources FOR SHARE',
    "SELECT nextval('documents_seq')",
    'SELECT pg_notify($1, $2)',
    'SELECT pg_try_advisory_lock($1) AS ok',
    'SELECT pg_advisory_unlock($1)',
    "SELECT set_config('app.x', $1, false)",
    'UPDATE api_keys SET last_used_at = now()',
    'CREATE INDEX x ON y (z)',
  ])('goes to the primary: %s', (sql) => {
    expect(isReadOnlyStatement(sql)).toBe(false);
  });
});
