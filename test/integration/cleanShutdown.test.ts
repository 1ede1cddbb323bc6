import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCliServer } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

// A server stopped with SIGTERM (Ctrl-C sends SIGINT, handled alike) gives its leader lock up on purpose: nothing in
// its log may read like a fault. A lock that is really lost still warns (test/integration/leadership.test.ts).
describe('a clean shutdown of cairn serve', () => {
  let data: ScratchDatabase;
  beforeAll(async () => {
    data = await scratchPglite();
  });
  afterAll(() => data?.drop());

  it('exits 0 and logs no warning about the leader lock', async () => {
    const server = await startCliServer({ ...data.env, CAIRN_EMBEDDING_PROVIDER: 'hashing' });
    const exited = new Promise<number | null>((resolve) => server.child.once('close', (code) => resolve(code)));
    expect(server.logs()).toContain('this process is the leader');
    server.child.kill('SIGTERM');
    const code = await exited;
    const logs = server.logs();
    expect({ code, logs }).toEqual({ code: 0, logs: expect.any(String) }); // the logs say why when it is not 0
    expect(logs).toContain('shutting down');
    expect(logs).not.toContain('lost the leader lock');
    // Nothing at warn (40) or above once the shutdown began.
    const stopping = logs.slice(logs.indexOf('shutting down'));
    const alarming = stopping
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 40);
    expect(alarming).toEqual([]);
  }, 90_000);
});
