import { describe, expect, it } from '@jest/globals';
import type { Db, Queryable, QueryResult } from '../../../src/db/Db.js';
import { VectorSearch } from '../../../src/retrieval/vectorSearch.js';

/** A fake server whose approximate (index) scan returns `approximate` rows and whose exact scan returns `exact` rows. */
function fakeServer(approximate: number, exact: number): { db: Db; log: string[] } {
  const log: string[] = [];
  let exactMode = false;
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i + 1), document_id: `d${i + 1}`, distance: i / 10 }));
  const q: Queryable = {
    async query<R>(): Promise<QueryResult<R>> {
      log.push(exactMode ? 'exact' : 'approximate');
      const r = rows(exactMode ? exact : approximate) as R[];
      return { rows: r, rowCount: r.length };
    },
    async exec(sql: string) {
      log.push(sql);
      if (sql.includes('enable_indexscan = off')) exactMode = true;
    },
  };
  const db: Db = {
    kind: 'postgres',
    ...q,
    statementCount: 0,
    transaction: async (fn) => {
      try {
        return await fn(q);
      } finally {
        exactMode = false;
      }
    },
    withLock: (_k, fn) => fn(q),
    close: async () => undefined,
  };
  return { db, log };
}

describe('VectorSearch on a server', () => {
  it('falls back to an exact scan when the approximate index comes back short (a selective filter)', async () => {
    const { db, log } = fakeServer(1, 4);
    const hits = await new VectorSearch(db).search(new Float32Array([1, 0]), { tagGroups: [['needle']] }, 4);
    expect(hits.map((h) => h.chunkId)).toEqual(['1', '2', '3', '4']);
    expect(log).toEqual(['approximate', 'SET LOCAL enable_indexscan = off', 'exact']);
    expect(hits[0]!.score).toBe(1);
  });

  it('widens ef_search for large limits and skips the fallback when enough rows came back', async () => {
    const { db, log } = fakeServer(100, 100);
    await new VectorSearch(db).search(new Float32Array([1, 0]), {}, 100);
    expect(log).toEqual(['SET LOCAL hnsw.ef_search = 100', 'approximate']);
  });
});
