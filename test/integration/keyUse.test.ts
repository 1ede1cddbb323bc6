import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// A key's first use in a while records `last_used_at`. That write happens after the answer, outside the request: a
// request never waits for it. Shown with the key's row locked by another connection (a real server only: PGlite has
// one connection, which the lock would hold for every statement).
const target = dbTargets().find((d) => d.name === 'postgres'); // throws under CI without the server

(target ? describe : describe.skip)('an API key use (postgres)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(target!);
    await t.services.apiKeys.create('admin', 'admin'); // turns authentication on
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is recorded without the request waiting for the write', async () => {
    const { apiKey, key } = await t.services.apiKeys.create('usage', 'reader');
    const lastUsed = async () =>
      (
        await t.services.db.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE id = $1', [
          apiKey.id,
        ])
      ).rows[0]?.at ?? null;
    let answered: { status: number; code: string | undefined } | undefined;
    await t.services.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM api_keys WHERE id = $1 FOR UPDATE', [apiKey.id]);
      // The touch now waits for this lock; the request must answer all the same.
      const res = await gqlAs(t.server.url, key, '{ documents { totalCount } }');
      answered = { status: res.status, code: codeOf(res) };
    });
    expect(answered).toEqual({ status: 200, code: undefined });
    await t.services.apiKeys.settle();
    expect(await lastUsed()).toBeInstanceOf(Date);
  });
});
