import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCliServer } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';
import { gqlAt, stopChild } from '../helpers/remoteServer.js';

// Fault: `cairn serve` on the embedded database (PGlite in a data folder) is killed with SIGKILL while idle — no
// shutdown hook, no checkpoint. Everything a mutation acknowledged must be there after a restart on the same folder,
// and searchable. (A server killed during an async import is covered by test/e2e/importCli.test.ts.)

const WORDS = [
  'amber',
  'basalt',
  'cobalt',
  'dolomite',
  'emerald',
  'feldspar',
  'garnet',
  'hematite',
  'jasper',
  'kyanite',
];

describe('fault: PGlite server killed with SIGKILL while idle', () => {
  let data: ScratchDatabase;
  let dataDir: string;
  const env = () => ({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_RATE_LIMIT_PER_SECOND: '0',
  });

  beforeAll(async () => {
    data = await scratchPglite(); // a copy of the migrated template
    dataDir = data.env.CAIRN_DATA_DIR!;
  });
  afterAll(async () => {
    await data?.drop();
  });

  it('keeps every acknowledged write across kill -9 and a restart on the same folder', async () => {
    const first = await startCliServer(env());
    const acknowledged: string[] = [];
    try {
      // Single writes, a batch, an update and a delete: each acknowledged before the kill.
      for (const [i, word] of WORDS.entries()) {
        const res = await gqlAt(
          first.url,
          `mutation($input: CreateDocumentInput!) { createDocument(input: $input) { document { id } } }`,
          {
            input: {
              id: `rock:${i}`,
              title: `Notes on ${word}`,
              content: `Field notes: the ${word} sample number ${i} was logged at the quarry.`,
            },
          },
        );
        expect(res.errors).toBeUndefined();
        acknowledged.push(`rock:${i}`);
      }
      const batch = Array.from({ length: 50 }, (_, i) => ({
        id: `batch:${i}`,
        title: `Batch ${i}`,
        content: `Batch entry ${i} mentions zirconium${i}.`,
      }));
      const upserted = await gqlAt(
        first.url,
        `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`,
        { input: batch },
      );
      expect(upserted.errors).toBeUndefined();
      acknowledged.push(...batch.map((d) => d.id));
      const updated = await gqlAt(
        first.url,
        `mutation { updateDocument(id: "rock:0", input: { content: "Rewritten: the amber sample was lost." }) { changed } }`,
      );
      expect(updated.errors).toBeUndefined();
      const deleted = await gqlAt<{ deleteDocument: { deleted: boolean } }>(
        first.url,
        `mutation { deleteDocument(id: "rock:9") { deleted } }`,
      );
      expect(deleted.data!.deleteDocument.deleted).toBe(true);
      acknowledged.splice(acknowledged.indexOf('rock:9'), 1);

      // Idle: no request in flight (each was acknowledged), and the server still answers (it has not been shut down).
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await stopChild(first.child, 'SIGKILL');
    }
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await startCliServer(env());
    try {
      const stats = await gqlAt<{ knowledgeStats: { documentCount: number } }>(
        second.url,
        `{ knowledgeStats { documentCount } }`,
      );
      expect(stats.data!.knowledgeStats.documentCount).toBe(acknowledged.length);
      const docs = await gqlAt<{ documents: { nodes: { id: string }[] } }>(
        second.url,
        `{ documents(first: 100) { nodes { id } } }`,
      );
      expect(docs.data!.documents.nodes.map((d) => d.id).sort()).toEqual([...acknowledged].sort());
      const rewritten = await gqlAt<{ document: { content: string } }>(
        second.url,
        `{ document(id: "rock:0") { content } }`,
      );
      expect(rewritten.data!.document.content).toBe('Rewritten: the amber sample was lost.');

      // Searchable: each document is found by its own rare word, through both rankings.
      for (const [i, word] of WORDS.entries()) {
        if (i === 0 || i === 9) continue;
        for (const mode of ['KEYWORD', 'VECTOR']) {
          const hits = await gqlAt<{ search: { document: { id: string } }[] }>(
            second.url,
            `query($q: String!, $m: SearchMode) { search(input: { query: $q, mode: $m, topK: 1 }) { document { id } } }`,
            { q: word, m: mode },
          );
          expect(hits.data!.search[0]?.document.id).toBe(`rock:${i}`);
        }
      }
      const batchHit = await gqlAt<{ search: { document: { id: string } }[] }>(
        second.url,
        `{ search(input: { query: "zirconium42", mode: KEYWORD, topK: 1 }) { document { id } } }`,
      );
      expect(batchHit.data!.search[0]?.document.id).toBe('batch:42');
      const goneHit = await gqlAt<{ search: { document: { id: string } }[] }>(
        second.url,
        `{ search(input: { query: "kyanite", mode: KEYWORD, topK: 5 }) { document { id } } }`,
      );
      expect(goneHit.data!.search.map((h) => h.document.id)).not.toContain('rock:9');

      // And it still writes.
      const after = await gqlAt(
        second.url,
        `mutation { createDocument(input: { id: "after", title: "After", content: "Written after the restart." }) { document { id } } }`,
      );
      expect(after.errors).toBeUndefined();
    } finally {
      await stopChild(second.child);
    }
  }, 180_000);
});
