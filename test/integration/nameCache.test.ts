import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';

// Two server instances on one database: names one writes reach the other's query linking within a second, and the
// other's document writes link them at once.
const servers = dbTargets().filter((t) => t.name === 'postgres');
const suite = servers.length > 0 ? describe.each(servers) : describe.skip.each([{ name: 'postgres' as const }]);

suite('entity names across server instances ($name)', (target) => {
  let scratch: ScratchDatabase;
  let a: Services;
  let b: Services;
  beforeAll(async () => {
    scratch = await (target as (typeof servers)[number]).createDatabase();
    const config = loadConfig({ ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' });
    const open = () => createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: 64 }) });
    a = await open();
    b = await open();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await scratch?.drop();
  });

  it('sees names written elsewhere within a second in queries, and at once in document writes', async () => {
    await b.graph.upsertGraph([{ id: 'svc:ledger', type: 'Service', name: 'Ledger' }], []);
    expect((await a.graph.linker.entitiesInQuery('why is Ledger slow')).exact).toEqual(['svc:ledger']);

    await b.graph.upsertGraph([{ id: 'svc:billing-gateway', type: 'Service', name: 'Billing Gateway' }], []);
    // A document written through `a` right away links the new name: writes never use a stale cache.
    await a.documents.create({ id: 'doc:1', title: 'Runbook', content: 'Restart the Billing Gateway first.', documentType: 'manual', source: null, tags: [], metadata: {}, expiresAt: null });
    const { rows } = await a.db.query<{ entity_id: string }>("SELECT DISTINCT entity_id FROM mentions WHERE document_id = 'doc:1'");
    expect(rows.map((r) => r.entity_id)).toEqual(['svc:billing-gateway']);

    await new Promise((r) => setTimeout(r, 1100));
    expect((await a.graph.linker.entitiesInQuery('the billing gateway times out')).exact).toEqual(['svc:billing-gateway']);
  });
});
