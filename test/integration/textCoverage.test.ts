// The knowledge-gap check's word coverage (KeywordSearch.textCoverage): Postgres derives the lexemes, this process
// compares them. It must give what the whole comparison in SQL gave, on PGlite and the real server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KeywordSearch, lexemeCoverage } from '../../src/retrieval/KeywordSearch.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** The comparison done entirely in SQL: the reference the split must agree with. */
const IN_SQL = `SELECT t.i::int AS i, avg((l = ANY(v.lexemes) OR (length(l) >= 4 AND EXISTS (
                SELECT 1 FROM unnest(v.lexemes) p
                 WHERE length(p) >= 4 AND (left(p, length(l)) = l OR left(l, length(p)) = p))))::int)::float8 AS coverage
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(title, body, i)
        CROSS JOIN LATERAL (SELECT tsvector_to_array(keyword_vector(t.title, t.body)) AS lexemes OFFSET 0) v
        CROSS JOIN unnest(tsvector_to_array(keyword_vector('', $1))) AS l
        GROUP BY t.i ORDER BY t.i`;

const TEXTS = [
  { title: 'Failover runbook', text: 'When the primary fails over, the replica takes the writes.' },
  { title: 'listCoreV1NamespacedPod', text: 'Lists pods of a namespace through /api/v1/namespaces/{ns}/pods.' },
  { title: 'Café notes', text: 'Crème brûlée and naïve résumé writers; 🚀 launches at dawn.' },
  { title: '', text: 'Nothing of the question here.' },
  { title: 'Vitamin D', text: 'Vitamin D deficiency is associated with mortality in elderly patients.' },
];
const QUERIES = [
  'why does failover fail over to the replica?',
  'list core v1 namespaced pods',
  'crème brûlée résumé',
  'vitamin deficiency mortality elderly',
  'the and of', // stop words only: no lexemes
  '🚀 launch',
];

describe.each(dbTargets())('text coverage for the gap check ($name)', (target) => {
  let t: TestServer;
  let keywords: KeywordSearch;
  beforeAll(async () => {
    t = await startTestServer(target);
    keywords = new KeywordSearch(t.services.db);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(QUERIES)('agrees with the comparison in SQL: %s', async (query) => {
    const { rows } = await t.services.db.query<{ coverage: number }>(IN_SQL, [
      query,
      TEXTS.map((x) => x.title),
      TEXTS.map((x) => x.text),
    ]);
    expect(await keywords.textCoverage(query, TEXTS)).toEqual(rows.map((r) => Number(r.coverage)));
  });

  it('is empty without texts or without query lexemes', async () => {
    expect(await keywords.textCoverage('failover', [])).toEqual([]);
    expect(await keywords.textCoverage('the and of', TEXTS)).toEqual([]);
  });
});

describe('lexemeCoverage', () => {
  it('counts exact lexemes and prefixes of at least 4 characters either way', () => {
    expect(lexemeCoverage(['fail', 'over', 'replica'], ['failov', 'replic'])).toBeCloseTo(2 / 3);
    expect(lexemeCoverage(['failov'], ['fail'])).toBe(1);
    // Under 4 characters only an exact lexeme counts.
    expect(lexemeCoverage(['pod'], ['pods'])).toBe(0);
    expect(lexemeCoverage(['pods'], ['pod'])).toBe(0);
    // Length in characters, not UTF-16 units: "🚀ab" is 3 characters.
    expect(lexemeCoverage(['🚀ab'], ['🚀abc'])).toBe(0);
    expect(lexemeCoverage(['éééé'], ['éééééé'])).toBe(1);
  });
});
