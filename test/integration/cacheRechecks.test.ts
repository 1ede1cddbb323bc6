import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateApiKey } from '../../src/auth/apiKey.js';
import { ApiKeyRepository } from '../../src/auth/ApiKeyRepository.js';
import { loadConfig } from '../../src/config.js';
import type { RecheckTimers } from '../../src/db/BackgroundRecheck.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { EntityNameRepository } from '../../src/graph/mentions/EntityNameRepository.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { countStatement, countStatements } from '../helpers/statementCounter.js';

// The caches a request reads (whether any API key exists, the entity names) never expire by the clock: they are
// rechecked in the background, so a request sends the same statements however long since the one before it, and a
// change another process made (its notification missed) still arrives with the next recheck.

/** Interval timers that run only when the test fires them, as if their interval had passed. */
function manualTimers(): RecheckTimers & { fire(): Promise<void> } {
  const due = new Map<number, () => Promise<void>>();
  let next = 0;
  return {
    setInterval: (fn) => {
      due.set(++next, fn);
      return next;
    },
    clearInterval: (handle) => void due.delete(handle as number),
    fire: async () => {
      await Promise.all([...due.values()].map((fn) => fn()));
    },
  };
}

describe.each(dbTargets())('caches rechecked in the background ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  const timers = manualTimers();
  beforeAll(async () => {
    scratch = await target.createDatabase();
    const config = loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env, CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0' });
    s = await createServices(config, silentLogger(), {
      embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
      onStatement: countStatement,
      recheckTimers: timers,
    });
    await s.graph.upsertGraph([{ id: 'svc:ledger', type: 'Service', name: 'Ledger' }], []);
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('answers whether any API key exists from memory, and sees a key made elsewhere after a recheck', async () => {
    await s.apiKeys.anyActive(); // the first answer is read
    await timers.fire(); // the interval passes: the recheck reads in the background
    expect(await countStatements(() => s.apiKeys.anyActive())).toMatchObject({ value: false, statements: 0 });
    // Another process writes a key and its notification is lost: requests keep the answer they had.
    const { id, keyHash } = generateApiKey();
    await new ApiKeyRepository(s.db).insert({ id, name: 'elsewhere', role: 'admin', keyHash, spaces: null });
    expect(await countStatements(() => s.apiKeys.anyActive())).toMatchObject({ value: false, statements: 0 });
    await timers.fire();
    expect(await countStatements(() => s.apiKeys.anyActive())).toMatchObject({ value: true, statements: 0 });
  });

  it('links a query by cached names, with the same statements after an interval, until a recheck finds a change', async () => {
    const ask = () => s.graph.entitiesInQuery('is the Ledger or the Quill Relay down?');
    await ask(); // the names load on the first query
    const before = await countStatements(ask);
    await timers.fire();
    const after = await countStatements(ask);
    expect(after.statements).toBe(before.statements);
    expect(after.value.map((e) => e.entityId)).toEqual(['svc:ledger']);
    // Another process adds a name and its notification is lost.
    await s.db.transaction((tx) =>
      new EntityNameRepository(s.db).upsertNames(tx, [{ entityId: 'svc:quill', name: 'Quill Relay', aliases: [] }]),
    );
    expect((await countStatements(ask)).statements).toBe(before.statements);
    await timers.fire();
    // The next query reads the version, the change log since its own and the changed name, then links it.
    const changed = await countStatements(ask);
    expect(changed.value.map((e) => e.entityId).sort()).toEqual(['svc:ledger', 'svc:quill']);
    expect(changed.statements).toBe(before.statements + 3);
    expect((await countStatements(ask)).statements).toBe(before.statements);
  });
});
