import { afterEach, describe, expect, it } from '@jest/globals';
import { EXAMPLE_TABS } from '../../web/graphiql/examples.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// GraphiQL's example tabs, sent as GraphiQL sends them, must run in any order and again, on a fresh or a used store:
// the first tab once failed with CONFLICT after the quick start's curl had written the same document.

/** The quick start's first request, as the README's curl sends it today. */
const QUICK_START_CREATE =
  'mutation { createDocument(input: {id: "runbook:ach-failures", title: "ACH failures", content: "ACH payments fail when the receiving bank rejects the transfer. Verify the routing number, then retry.", documentType: MANUAL, tags: ["payments", "ach"]}) { chunkCount embeddedChunkCount document { id } } }';
/** The same request as an upsert, which may run after the tabs (the form the docs give). */
const QUICK_START_UPSERT =
  'mutation { upsertDocuments(input: [{id: "runbook:ach-failures", title: "ACH failures", content: "ACH payments fail when the receiving bank rejects the transfer. Verify the routing number, then retry.", documentType: MANUAL, tags: ["payments", "ach"]}]) { chunkCount embeddedChunkCount document { id } } }';

describe('GraphiQL example tabs', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const runTabs = async (server: TestServer) => {
    for (const [i, tab] of EXAMPLE_TABS.entries()) {
      const res = await server.gql(
        tab.query,
        tab.variables ? (JSON.parse(tab.variables) as Record<string, unknown>) : undefined,
      );
      expect({ tab: i, errors: res.errors }).toEqual({ tab: i, errors: undefined });
    }
  };

  it("run after the quick start's createDocument, and again", async () => {
    t = await startTestServer(edgeTarget());
    expect((await t.gql(QUICK_START_CREATE)).errors).toBeUndefined();
    await runTabs(t);
    await runTabs(t);
    const doc = await t.gql<{ document: { title: string; tags: string[] } }>(
      '{ document(id: "runbook:ach-failures") { title tags } }',
    );
    expect(doc.data?.document).toEqual({ title: 'ACH failures', tags: ['payments', 'ach'] });
  }, 120_000);

  it('run on a fresh store, before and after the upserting quick-start request', async () => {
    t = await startTestServer(edgeTarget());
    await runTabs(t);
    const again = await t.gql<{ upsertDocuments: { embeddedChunkCount: number }[] }>(QUICK_START_UPSERT);
    expect(again.errors).toBeUndefined();
    expect(again.data?.upsertDocuments[0]?.embeddedChunkCount).toBe(0);
    await runTabs(t);
  }, 120_000);
});
