import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gqlAs } from '../helpers/auth.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// BM25 statistics are kept per space: what another space holds never moves a space's keyword scores or candidates,
// so a keyword search cannot tell whether a word occurs in another space (a ranking side channel). A space that reads
// another ranks over both, as it searches both.

const PROBE = 'orchard ledger zymurgy';

describe.each(dbTargets())('keyword statistics per space ($name)', (target) => {
  let t: TestServer;
  const keys = { admin: '', alpha: '', beta: '', betaAdmin: '' };
  const as = (key: string, query: string) => gqlAs<Record<string, unknown>>(t.server.url, key, query);
  const write = async (key: string, id: string, content: string) => {
    const res = await as(
      key,
      `mutation { createDocument(input: { id: "${id}", title: "${id}", content: "${content}" }) { document { id } } }`,
    );
    expect(res.body.errors).toBeUndefined();
  };
  /** Alpha's keyword hits for the probe: ids, scores and ranks, exactly. */
  const alphaRanking = async () => {
    const res = await as(
      keys.alpha,
      `{ search(input: { query: "${PROBE}", mode: KEYWORD, topK: 10 }) { document { id } score keywordRank } }`,
    );
    expect(res.body.errors).toBeUndefined();
    return (res.body.data as { search: unknown[] }).search;
  };

  beforeAll(async () => {
    t = await startTestServer(target);
    keys.admin = (await t.services.apiKeys.create('ops', 'admin')).key;
    for (const id of ['alpha', 'beta']) await t.services.spaces.create({ id });
    keys.alpha = (await t.services.apiKeys.create('alpha-bot', 'editor', { spaces: ['alpha'] })).key;
    keys.beta = (await t.services.apiKeys.create('beta-bot', 'editor', { spaces: ['beta'] })).key;
    keys.betaAdmin = (await t.services.apiKeys.create('beta-admin', 'admin', { spaces: ['beta'] })).key;
    await write(keys.alpha, 'a:ledger', 'The orchard ledger lists every apple tree and its yield.');
    await write(keys.alpha, 'a:orchard', 'Pruning in the orchard happens in late winter.');
    await write(keys.alpha, 'a:cellar', 'The cellar keeps cider barrels cool.');
  });
  afterAll(() => t?.close());

  it('ranks a space by its own chunks only, whatever another space writes or deletes', async () => {
    const before = await alphaRanking();
    expect(before.length).toBe(2);
    // Beta holds the probe's missing word, and many copies of its common ones: every statistic would move.
    await write(keys.beta, 'b:zymurgy', 'Zymurgy is the chemistry of fermentation.');
    for (let i = 0; i < 6; i++) await write(keys.beta, `b:orchard-${i}`, `Orchard ledger number ${i} of the orchard.`);
    expect(await alphaRanking()).toEqual(before);
    const deleted = await as(keys.betaAdmin, 'mutation { deleteDocument(id: "b:zymurgy") { id } }');
    expect(deleted.body.errors).toBeUndefined();
    expect(await alphaRanking()).toEqual(before);
  });

  it('ranks over both spaces once a space reads the other', async () => {
    const own = await alphaRanking();
    const allowed = await as(
      keys.admin,
      'mutation { allowSpaceRead(input: { space: "alpha", reads: "beta" }) { id } }',
    );
    expect(allowed.body.errors).toBeUndefined();
    const widened = (await alphaRanking()) as { document: { id: string }; score: number }[];
    expect(widened.map((h) => h.document.id)).toEqual(expect.arrayContaining(['a:ledger', 'b:orchard-0']));
    // Beta's chunks now count: the same chunk of alpha scores otherwise than over alpha alone.
    const ledger = (hits: unknown[]) =>
      (hits as { document: { id: string }; score: number }[]).find((h) => h.document.id === 'a:ledger')?.score;
    expect(ledger(widened)).not.toEqual(ledger(own));
  });
});
