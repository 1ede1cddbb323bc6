import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { codeOf, gqlAs } from '../helpers/auth.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** A well-formed key that no database holds (`cairn_<16 hex>_<43 base64url>`). */
const unknownKey = () => `cairn_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;

// The limit does not depend on the store: one database.
const store = edgeTarget();
const BUDGET = 12; // per minute: one more every 5 s once spent, so none comes back during the 200 requests below

describe('failed API keys are limited per client address before the key lookup', () => {
  let t: TestServer;
  // The rate limits' clock, in seconds: it stands still unless a test moves it.
  let now = 0;
  beforeAll(async () => {
    t = await startTestServer(
      store,
      {
        CAIRN_AUTH: 'required',
        CAIRN_RATE_LIMIT_PER_SECOND: '1000',
        CAIRN_RATE_LIMIT_BURST: '1000',
        CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: String(BUDGET),
      },
      undefined,
      undefined,
      () => now,
    );
  });
  afterAll(async () => {
    await t?.close();
  });
  const ask = (key: string) => gqlAs(t.server.url, key, '{ __typename }');
  /** Moves the keys table away, so that any key lookup fails (500) instead of answering. */
  const hideKeysTable = () => t.services.db.exec('ALTER TABLE api_keys RENAME TO api_keys_hidden');
  const restoreKeysTable = () => t.services.db.exec('ALTER TABLE api_keys_hidden RENAME TO api_keys');

  it('answers RATE_LIMITED without a database query once an address spent its budget; known keys still pass', async () => {
    const good = (await t.services.apiKeys.create('good', 'reader')).key;
    const fresh = (await t.services.apiKeys.create('fresh', 'reader')).key;
    expect((await ask(good)).status).toBe(200);

    // A lookup really happens while the budget lasts: with the table gone, an unknown key is an internal error.
    await hideKeysTable();
    expect((await ask(unknownKey())).status).toBe(500);
    await restoreKeysTable();

    const statuses: number[] = [];
    for (let i = 0; i < BUDGET; i++) statuses.push((await ask(unknownKey())).status);
    expect(new Set(statuses)).toEqual(new Set([401]));

    // Past the budget nothing is looked up: the answer is the same with the table gone.
    await hideKeysTable();
    try {
      for (let i = 0; i < 200; i++) {
        const res = await ask(unknownKey());
        expect(res.status).toBe(429);
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(5);
        expect(res.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: retryAfter });
        expect(res.body.errors?.[0]?.message).toContain('CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE');
      }
      // A malformed key and a garbled header count alike.
      expect(codeOf(await ask('cairn_nope'))).toBe('RATE_LIMITED');
    } finally {
      await restoreKeysTable();
    }

    // A key this server accepted before keeps working from the same address, under its own bucket.
    expect((await ask(good)).status).toBe(200);
    // One it has never seen waits for the address's budget like an unknown one, then works.
    const waiting = await ask(fresh);
    expect(waiting.status).toBe(429);
    now += Number(waiting.headers.get('retry-after')) + 0.2;
    expect((await ask(fresh)).status).toBe(200);
    expect((await ask(fresh)).status).toBe(200);
  });

  it('counts a revoked key as a failure again', async () => {
    const revoked = await t.services.apiKeys.create('soon-revoked', 'reader');
    expect(await t.services.apiKeys.verify(revoked.key)).not.toBeNull();
    expect(t.services.apiKeys.acceptedRecently(revoked.key)).toBe(true);
    await t.services.apiKeys.revoke(revoked.apiKey.id);
    expect(await t.services.apiKeys.verify(revoked.key)).toBeNull();
    expect(t.services.apiKeys.acceptedRecently(revoked.key)).toBe(false);
  });
});

describe('the failed-key budget follows the rate limit switch', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is off when the rate limit is off', async () => {
    t = await startTestServer(store, {
      CAIRN_AUTH: 'required',
      CAIRN_RATE_LIMIT_PER_SECOND: '0',
      CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: '2',
    });
    const url = t.server.url;
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => gqlAs(url, unknownKey(), '{ __typename }').then((r) => r.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
  });

  it('is off when set to 0, leaving refused requests to the address bucket', async () => {
    t = await startTestServer(store, { CAIRN_AUTH: 'required', CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: '0' });
    const url = t.server.url;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await gqlAs(url, unknownKey(), '{ __typename }')).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
  });
});
