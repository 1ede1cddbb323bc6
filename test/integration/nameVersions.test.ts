import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { Queryable } from '../../src/db/Db.js';
import type { DocumentInput } from '../../src/documents/types.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { MentionLinker } from '../../src/graph/mentions/MentionLinker.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

// Document writes learn whether their cached names are current from the names' version (one row), never by reading
// the name table, and see every name change: their own process's, another process's, renames and deletions.

const NAMES = 2000;

const doc = (id: string, content: string): DocumentInput => ({
  id,
  title: id,
  content,
  documentType: 'manual',
  source: null,
  tags: [],
  metadata: {},
  expiresAt: null,
});

const open = (scratch: ScratchDatabase) =>
  createServices(
    loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
    silentLogger(),
    {
      embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
    },
  );

async function mentioned(s: Services, documentId: string): Promise<string[]> {
  const { rows } = await s.db.query<{ entity_id: string }>(
    'SELECT DISTINCT entity_id FROM mentions WHERE document_id = $1 ORDER BY 1',
    [documentId],
  );
  return rows.map((r) => r.entity_id);
}

/** Rows of entity_names this transaction read so far: table scans, index entries and heap fetches. */
async function nameRowsRead(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ n: string }>(
    `SELECT (coalesce((SELECT seq_tup_read + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
                        WHERE relid = 'entity_names'::regclass), 0)
           + coalesce((SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) FROM pg_index
                        WHERE indrelid = 'entity_names'::regclass), 0))::text AS n`,
  );
  return Number(rows[0]?.n ?? 0);
}

describe.each(dbTargets())('entity name versions ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    s = await open(scratch);
    const entities = Array.from({ length: NAMES }, (_, i) => ({ id: `part:${i}`, type: 'Part', name: `Part ${i}` }));
    await s.graph.upsertGraph(entities, []);
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  /** Runs the mention hooks of a write of `documentId` as a document write does, in a transaction of its own. */
  async function linkedWrite(linker: MentionLinker, documentId: string): Promise<{ read: number; ids: string[] }> {
    const { rows } = await s.db.query<{ id: string; content: string }>(
      'SELECT id::text AS id, content FROM chunks WHERE document_id = $1 ORDER BY id',
      [documentId],
    );
    return s.db.transaction(async (tx) => {
      await linker.beforeWrite(tx, [{ documentId, explicitEntityIds: [] }]);
      const before = await nameRowsRead(tx);
      await linker.afterWrite(tx, [
        { documentId, title: documentId, changed: true, chunks: rows, explicitEntityIds: [] },
      ]);
      const read = (await nameRowsRead(tx)) - before;
      const found = await tx.query<{ entity_id: string }>(
        'SELECT DISTINCT entity_id FROM mentions WHERE document_id = $1 ORDER BY 1',
        [documentId],
      );
      return { read, ids: found.rows.map((r) => r.entity_id) };
    });
  }

  it('reads the version, not the name table, when a write links mentions', async () => {
    await s.documents.create(doc('doc:parts', 'Replace Part 7 before Part 1999.'));
    const linker = new MentionLinker(s.db, false);
    // The first write loads every name once.
    expect((await linkedWrite(linker, 'doc:parts')).ids).toEqual(['part:1999', 'part:7']);
    // Later writes read one version row, then per matched name (never per stored name): the space check of the
    // matches, their linking flag and the mention rows' foreign-key checks. 2,000 names are stored.
    const warm = await linkedWrite(linker, 'doc:parts');
    expect(warm.ids).toEqual(['part:1999', 'part:7']);
    expect(warm.read).toBeLessThanOrEqual(1 + 4 * warm.ids.length);
    // After a name change, only the changed name is read.
    await s.graph.upsertGraph([{ id: 'part:new', type: 'Part', name: 'Part 7 before' }], []);
    const changed = await linkedWrite(linker, 'doc:parts');
    expect(changed.ids).toEqual(['part:1999', 'part:7', 'part:new']);
    expect(changed.read).toBeLessThanOrEqual(2 + 4 * changed.ids.length);
  });

  it('stops linking a deleted entity and links a renamed one by its new name', async () => {
    await s.graph.upsertGraph(
      [
        { id: 'svc:quartz', type: 'Service', name: 'Quartz Ledger' },
        { id: 'svc:pay', type: 'Service', name: 'Billing Gateway' },
      ],
      [],
    );
    await s.documents.create(doc('doc:svc', 'The Quartz Ledger calls the Billing Gateway.'));
    expect(await mentioned(s, 'doc:svc')).toEqual(['svc:pay', 'svc:quartz']);
    await s.graph.deleteEntity('svc:quartz');
    await s.graph.upsertGraph([{ id: 'svc:pay', type: 'Service', name: 'Payment Gateway' }], []);
    await s.documents.create(doc('doc:svc2', 'The Quartz Ledger calls the Billing Gateway, now the Payment Gateway.'));
    expect(await mentioned(s, 'doc:svc2')).toEqual(['svc:pay']);
    const inQuery = await s.graph.entitiesInQuery('is the Quartz Ledger or the Payment Gateway down?');
    expect(inQuery.filter((e) => e.exact).map((e) => e.entityId)).toEqual(['svc:pay']);
  });
});

// Two processes (two Services) on one database: names either changes reach the other's next document write.
const servers = dbTargets().filter((t) => t.name === 'postgres');
const shared = servers.length > 0 ? describe.each(servers) : describe.skip.each([{ name: 'postgres' as const }]);

shared('entity name changes across processes ($name)', (target) => {
  let scratch: ScratchDatabase;
  let a: Services;
  let b: Services;
  beforeAll(async () => {
    scratch = await (target as (typeof servers)[number]).createDatabase();
    a = await open(scratch);
    b = await open(scratch);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await scratch?.drop();
  });

  it('links names another process added, renamed or deleted in the next write, with a warm cache', async () => {
    await b.graph.upsertGraph([{ id: 'svc:old', type: 'Service', name: 'Ticket Desk' }], []);
    await a.documents.create(doc('doc:1', 'Open the Ticket Desk.'));
    expect(await mentioned(a, 'doc:1')).toEqual(['svc:old']);

    await b.graph.upsertGraph([{ id: 'svc:new', type: 'Service', name: 'Refund Queue' }], []);
    await b.graph.deleteEntity('svc:old');
    await a.documents.create(doc('doc:2', 'Open the Ticket Desk, then drain the Refund Queue.'));
    expect(await mentioned(a, 'doc:2')).toEqual(['svc:new']);

    await b.graph.upsertGraph([{ id: 'svc:new', type: 'Service', name: 'Chargeback Queue' }], []);
    await a.documents.create(doc('doc:3', 'Drain the Refund Queue and the Chargeback Queue.'));
    expect(await mentioned(a, 'doc:3')).toEqual(['svc:new']);
    expect(a.graph.nameCacheStats()?.builds).toBe(1);
  });
});
