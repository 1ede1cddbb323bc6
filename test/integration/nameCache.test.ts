import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { runInSpace } from '../../src/db/spaceScope.js';
import { MentionLinker } from '../../src/graph/mentions/MentionLinker.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

// Two server instances on one database: names one writes reach the other's query linking once it rechecks them (on
// the writer's notification, or periodically), and the other's document writes link them at once.
const servers = dbTargets().filter((t) => t.name === 'postgres');
const suite = servers.length > 0 ? describe.each(servers) : describe.skip.each([{ name: 'postgres' as const }]);

suite('entity names across server instances ($name)', (target) => {
  let scratch: ScratchDatabase;
  let a: Services;
  let b: Services;
  beforeAll(async () => {
    scratch = await (target as (typeof servers)[number]).createDatabase();
    const config = loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' });
    const open = () =>
      createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: 64 }) });
    a = await open();
    b = await open();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await scratch?.drop();
  });

  it('sees names written elsewhere in document writes at once', async () => {
    await b.graph.upsertGraph([{ id: 'svc:ledger', type: 'Service', name: 'Ledger' }], []);
    expect(exactIds(await a.graph.entitiesInQuery('why is Ledger slow'))).toEqual(['svc:ledger']);

    await b.graph.upsertGraph([{ id: 'svc:billing-gateway', type: 'Service', name: 'Billing Gateway' }], []);
    // A document written through `a` right away links the new name: writes never use a stale cache.
    await a.documents.create({
      id: 'doc:1',
      title: 'Runbook',
      content: 'Restart the Billing Gateway first.',
      documentType: 'manual',
      source: null,
      tags: [],
      metadata: {},
      expiresAt: null,
    });
    const { rows } = await a.db.query<{ entity_id: string }>(
      "SELECT DISTINCT entity_id FROM mentions WHERE document_id = 'doc:1'",
    );
    expect(rows.map((r) => r.entity_id)).toEqual(['svc:billing-gateway']);
  });

  it('answers queries from cached names however long ago they were read, until a recheck finds them changed', async () => {
    const linker = new MentionLinker(a.db, false);
    expect(exactIds(await linker.entitiesInQuery('the ticket desk is down'))).toEqual([]);
    await b.graph.upsertGraph([{ id: 'svc:ticket-desk', type: 'Service', name: 'Ticket Desk' }], []);
    // No clock: this linker listens for no notification, so only its recheck (run in the background) sees the change.
    expect(exactIds(await linker.entitiesInQuery('the ticket desk is down'))).toEqual([]);
    await linker.recheckNames();
    expect(exactIds(await linker.entitiesInQuery('the ticket desk is down'))).toEqual(['svc:ticket-desk']);
  });
});

const exactIds = (list: { entityId: string; exact: boolean }[]) => list.filter((e) => e.exact).map((e) => e.entityId);

describe.each(dbTargets())('query linking by name similarity ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    s = await createServices(
      loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' }),
      silentLogger(),
      {
        embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
      },
    );
    await s.graph.upsertGraph(
      [
        { id: 'svc:gw', type: 'Service', name: 'Gateway' },
        { id: 'svc:pay', type: 'Service', name: 'Payment Gateway Service' },
        { id: 'svc:arch', type: 'Service', name: 'Archive Gateway' },
        { id: 'svc:ledger', type: 'Service', name: 'Ledger Archive Service' },
        { id: 'svc:queue', type: 'Service', name: 'Message Queue' },
      ],
      [],
    );
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('finds names in the query, then names sharing at least half their words, best overlap first', async () => {
    const linked = async (q: string) =>
      (await s.graph.entitiesInQuery(q)).map((e) => `${e.exact ? '=' : '~'}${e.entityId}`);
    expect(await linked('why is the payment gateway down?')).toEqual(['=svc:gw', '~svc:pay', '~svc:arch']);
    expect(await linked('ledger service archive export')).toEqual(['~svc:ledger', '~svc:arch']);
    expect(await linked('nothing related here')).toEqual([]);
  });

  it('keeps each space’s names to itself: another space’s names neither link nor crowd out its own', async () => {
    for (const id of ['crowd', 'quiet']) await s.spaces.create({ id });
    // More near names in `crowd` than a query keeps (20), each as close to the query as quiet's own and sorting first.
    const crowd = Array.from({ length: 25 }, (_, i) => ({
      id: `ent:a-${String(i).padStart(2, '0')}`,
      type: 'Service',
      name: `Lilac Relay Cluster C${i}`,
    }));
    await runInSpace('crowd', () => s.graph.upsertGraph(crowd, []));
    await runInSpace('quiet', async () => {
      await s.graph.upsertGraph([{ id: 'ent:z', type: 'Service', name: 'Lilac Relay Cluster Zeta' }], []);
      await s.documents.create({
        id: 'doc:quiet',
        title: 'Relay notes',
        content: 'The Lilac Relay Cluster Zeta restarts nightly; Lilac Relay Cluster C1 is not ours.',
        documentType: 'manual',
        source: null,
        tags: [],
        metadata: {},
        expiresAt: null,
      });
    });
    const linked = await runInSpace('quiet', () => s.graph.entitiesInQuery('why did the lilac relay cluster fail?'));
    expect(linked.map((e) => e.entityId)).toEqual(['ent:z']);
    const { rows } = await s.db.query<{ entity_id: string }>(
      "SELECT DISTINCT entity_id FROM mentions WHERE document_id = 'doc:quiet'",
    );
    expect(rows.map((r) => r.entity_id)).toEqual(['ent:z']);
  });
});
