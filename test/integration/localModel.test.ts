/**
 * @jest-environment ./test/fixtures/embeddings/onnx-jest-environment.cjs
 */
// The `local` provider with real weights: all-MiniLM-L6-v2 exported by `bash scripts/local-model.sh`, chosen by
// CAIRN_EMBEDDING_PROVIDER=auto offline, behind a real server. Questions and answers share no word
// stem, so keyword search cannot link them and no lexical embedder could either: only the model's semantics can.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { createEmbeddingProvider } from '../../src/embeddings/createEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const modelFolder = process.env.CAIRN_TEST_LOCAL_MODEL;
if (!modelFolder && process.env.CI) {
  throw new Error(
    'CI is set but CAIRN_TEST_LOCAL_MODEL is not: .ci/run must build the model with `bash scripts/local-model.sh`.',
  );
}
if (!modelFolder)
  console.warn(
    'Skipping the real-model suite: CAIRN_TEST_LOCAL_MODEL is not set (`bash scripts/local-model.sh` prints a folder).',
  );

const doc = (id: string, title: string, content: string) => ({ id, title, content, documentType: 'FAQ' });

const DOCUMENTS = [
  doc(
    'password-reset',
    'Credentials',
    'Forgot your password? Open Settings, choose Reset, and a recovery e-mail arrives within minutes.',
  ),
  doc('puppy-training', 'Canine behaviour', 'Teach a puppy to sit with treats, short sessions and consistent praise.'),
  doc(
    'invoice-late',
    'Accounts receivable',
    'Unpaid invoices accrue a fee after thirty days; the finance team sends reminders.',
  ),
  doc('ficus-care', 'Office plants', 'Water the ficus weekly and keep it away from cold drafts.'),
  doc('fire-drill', 'Safety', 'During an evacuation, leave by the stairs and gather at the car park.'),
];

/** Each question shares no stem with its answer (checked below through KEYWORD search). */
const QUESTIONS: [string, string][] = [
  ['I cannot remember my login secret', 'password-reset'],
  ['how do I get my young dog to obey commands?', 'puppy-training'],
  ['what happens if a bill is overdue', 'invoice-late'],
];

const SEARCH = `query($input: SearchInput!) { search(input: $input) { score chunk { id } document { id } } }`;

// The model's semantics do not depend on the store: one database (edgeTarget).
(modelFolder ? describe.each([edgeTarget()]) : describe.skip.each([edgeTarget()]))(
  'the local provider with a real model ($name)',
  (target) => {
    let t: TestServer;
    const search = async (query: string, mode: string, extra: Record<string, unknown> = {}) => {
      const res = await t.gql<{ search: { score: number; chunk: { id: string }; document: { id: string } }[] }>(
        SEARCH,
        { input: { query, mode, topK: 5, ...extra } },
      );
      expect(res.errors).toBeUndefined();
      return res.data!.search;
    };

    beforeAll(async () => {
      // As `npm start` configures it: auto, offline, the model given as a folder.
      const { embedding } = loadConfig({
        CAIRN_EMBEDDING_PROVIDER: 'auto',
        CAIRN_EMBEDDING_MODEL: modelFolder!,
        CAIRN_OFFLINE: '1',
      });
      t = await startTestServer(target, {}, await createEmbeddingProvider(embedding, silentLogger()));
      const res = await t.gql(
        `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { embeddedChunkCount } }`,
        {
          input: DOCUMENTS,
        },
      );
      expect(res.errors).toBeUndefined();
    }, 120_000);
    afterAll(async () => {
      await t?.close();
    });

    it('auto picks the model offline and the store records it with 384 dimensions', async () => {
      const res = await t.gql<{
        knowledgeStats: { embedder: { provider: string; model: string; dimensions: number } };
      }>('{ knowledgeStats { embedder { provider model dimensions } } }');
      expect(res.data?.knowledgeStats.embedder).toEqual({ provider: 'local', model: modelFolder, dimensions: 384 });
    });

    it.each(QUESTIONS)('VECTOR answers "%s" with %s, which KEYWORD cannot find', async (question, answer) => {
      expect((await search(question, 'KEYWORD')).map((h) => h.document.id)).not.toContain(answer);
      const hits = await search(question, 'VECTOR');
      expect(hits[0]?.document.id).toBe(answer);
      // A clear margin over the runner-up, not a tie broken by luck.
      expect(hits[0]!.score - hits[1]!.score).toBeGreaterThan(0.05);
    });

    it("LINEAR fusion weighs a model's vector lane 0.5 unless asked otherwise", async () => {
      const scores = async (weight?: number) =>
        (
          await search('forgot password reset e-mail', 'HYBRID', {
            fusion: 'LINEAR',
            ...(weight === undefined ? {} : { vectorWeight: weight }),
          })
        ).map((h) => [h.chunk.id, h.score]);
      expect(await scores()).toEqual(await scores(0.5));
      expect(await scores()).not.toEqual(await scores(0.2));
    });

    it('HYBRID keeps the semantic answer on top', async () => {
      for (const [question, answer] of QUESTIONS)
        expect((await search(question, 'HYBRID'))[0]?.document.id).toBe(answer);
    });
  },
);
