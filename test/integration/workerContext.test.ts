import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { currentActor, runAs } from '../../src/audit/actor.js';
import { loadConfig } from '../../src/config.js';
import { currentSpaceScope, runInSpace } from '../../src/db/spaceScope.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

interface Seen {
  sql: string;
  actor: string;
  space: string | undefined;
}

// A write nudges the extraction worker, whose work serves every request: it must run as the worker, not as the
// request that happened to nudge it (its actor, its space scope, its read route would otherwise travel along).
describe('background work a request sets off', () => {
  let data: ScratchDatabase;
  let services: Services;
  const seen: Seen[] = [];
  beforeAll(async () => {
    data = await scratchPglite();
    services = await createServices(
      loadConfig({
        ...data.env,
        NODE_ENV: 'test',
        CAIRN_EMBEDDING_PROVIDER: 'hashing',
        CAIRN_EMBEDDING_DIMENSIONS: '64',
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
        CAIRN_EXTRACTION_EXTRACTORS: 'structural',
        CAIRN_EXTRACTION_POLL_MS: '0',
      }),
      silentLogger(),
      {
        onStatement: (sql) => void seen.push({ sql, actor: currentActor().name, space: currentSpaceScope()?.space }),
      },
    );
  });
  afterAll(async () => {
    await services?.close();
    await data?.drop();
  });

  it('runs the extraction the write queued outside the request', async () => {
    const writer = { keyId: 'key-1', name: 'writer' };
    await runAs(writer, () =>
      runInSpace('default', () =>
        services.documents.create({ id: 'ctx:1', title: 'Vite', content: '# Vite\n\nVite serves `server.port`.' }),
      ),
    );
    await services.extraction.drain();
    // The worker's claims (documents of every space are claimed together, then each is extracted in its space).
    const claims = seen.filter((s) => /^\s*WITH next AS \(|SET status = 'FAILED', locked_until = NULL/.test(s.sql));
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.filter((s) => s.actor === 'writer' || s.space !== undefined)).toEqual([]);
    expect((await services.extraction.documentState('ctx:1'))?.status).toBe('DONE');
  });
});
