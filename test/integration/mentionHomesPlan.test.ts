// An entity's home documents are read per entity on every enrichContext (the bridges' entities and the evidence). They
// must come from mentions_home_idx by entity: served from mentions_chunk_idx ("chunk_id IS NULL"), as a planner with
// stale statistics chose after a bulk load, each entity read every chunkless mention of the corpus.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db, QueryResult } from '../../src/db/Db.js';
import type { DocumentInput } from '../../src/documents/types.js';
import { ChunkEntityReader } from '../../src/graph/mentions/ChunkEntityReader.js';
import { MentionRepository } from '../../src/graph/mentions/MentionRepository.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const doc = (id: string, content: string, entityIds: string[] = []): DocumentInput => ({
  id,
  title: id,
  content,
  documentType: 'other',
  source: null,
  tags: [],
  metadata: {},
  expiresAt: null,
  entityIds,
});

/** A Db whose statements are explained (with index scans preferred, as on a large corpus) instead of run. */
function explaining(db: Db, plans: string[]): Db {
  const query = async <R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const plan = await db.transaction(async (tx) => {
      await tx.exec('SET LOCAL enable_seqscan = off');
      return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    });
    plans.push(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
    return { rows: [], rowCount: 0 };
  };
  return { ...db, query } as Db;
}

describe.each(dbTargets())('home documents by index ($name)', (target) => {
  let t: TestServer;
  let chunkIds: string[];
  beforeAll(async () => {
    t = await startTestServer(target);
    await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
      input: {
        entities: [
          { id: 'svc:ledger', type: 'Service', name: 'Ledger' },
          { id: 'svc:payments', type: 'Service', name: 'Payments' },
        ],
      },
    });
    await t.services.documents.upsertMany([
      doc('ledger-home', 'The Ledger keeps balances.', ['svc:ledger']),
      doc('payments-home', 'Payments moves money.', ['svc:payments']),
      ...Array.from({ length: 20 }, (_, i) => doc(`note:${i}`, `Note ${i}: the Ledger and Payments agree.`)),
    ]);
    const { rows } = await t.services.db.query<{ id: string }>(
      `SELECT c.id::text AS id FROM chunks c WHERE c.document_id LIKE 'note:%' ORDER BY c.id`,
    );
    chunkIds = rows.map((r) => r.id);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('the bridges read each entity home documents through mentions_home_idx', async () => {
    const plans: string[] = [];
    await new ChunkEntityReader(explaining(t.services.db, plans)).read(chunkIds, 64);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('mentions_home_idx');
    expect(plans[0]).not.toMatch(/Index Cond: \(chunk_id IS NULL\)/);
  });

  it('the evidence reads each entity home documents through mentions_home_idx', async () => {
    const plans: string[] = [];
    await new MentionRepository(explaining(t.services.db, plans)).evidence(['svc:ledger', 'svc:payments'], {
      queryVector: null,
      filter: {},
      homeChunks: 2,
      perEntity: 4,
      scanPerEntity: 32,
      countCap: 64,
    });
    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('mentions_home_idx');
    expect(plans[0]).not.toMatch(/Index Cond: \(chunk_id IS NULL\)/);
  });
});
