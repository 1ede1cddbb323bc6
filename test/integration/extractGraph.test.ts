import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServerClient } from '../../src/cli/ServerClient.js';
import { edgeTarget } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { tokensOf, WordExtractor } from '../helpers/wordExtractor.js';

// extractGraph through the real HTTP server: validation, a job run to the end with progress over importJobUpdated,
// the per-job token cap, and dryRun. The extractor is the small real one of test/helpers/wordExtractor.ts.

const JOB = `id kind status progress { done total } warnings errors { item code message } extractionTokens
  extraction { pending running done failed entities relationships }
  extractionEstimate { documents chunks cachedChunks estimatedInputTokens estimatedOutputTokens estimatedCostUsd }`;
const EXTRACT = `mutation($input: ExtractGraphInput!) { extractGraph(input: $input) { ${JOB} } }`;

interface Job {
  id: string;
  kind: string;
  status: string;
  progress: { done: number; total: number };
  warnings: string[];
  errors: { item: string; code: string; message: string }[];
  extractionTokens: number;
  extraction: Record<string, number> | null;
  extractionEstimate: Record<string, number | null> | null;
}

/** Two paragraphs of the same length: each costs tokensOf(PARAGRAPH) on the LLM budget. */
const PARAGRAPH = 'Alice met Bob in Paris to talk about Graphs and Lanes.';
const TEXT = `${PARAGRAPH}\n\n${PARAGRAPH.replace('Alice', 'Carol')}`;
const PER_DOCUMENT = 2 * tokensOf(PARAGRAPH);

// The API and its jobs do not depend on the store: one database (edgeTarget); extraction.test.ts runs both.
describe.each([edgeTarget()])('extractGraph ($name)', (target) => {
  let t: TestServer;
  let extractor: WordExtractor | undefined;
  const ids = ['x-1', 'x-2', 'x-3'];

  beforeAll(async () => {
    t = await startTestServer(
      target,
      {
        // Extraction is on, so extractGraph takes requests; no extractor runs behind the job's back (extractors: []).
        CAIRN_EXTRACTION_EXTRACTORS: 'structural,offline',
        CAIRN_EXTRACTION_LLM_MODEL: 'stub-model',
        // Room for one document and a bit: the second one takes it over the cap, the third is left.
        CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB: String(PER_DOCUMENT + 1),
      },
      undefined,
      undefined,
      undefined,
      { documentExtractor: ({ documents }) => (extractor = new WordExtractor(documents)), extractors: [] },
    );
    const input = ids.map((id, i) => ({ id, title: `Doc ${i}`, content: TEXT, tags: i === 2 ? ['odd'] : ['even'] }));
    const written = await t.gql(
      'mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { document { id } } }',
      {
        input,
      },
    );
    expect(written.errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function extract(input: Record<string, unknown>) {
    return t.gql<{ extractGraph: Job }>(EXTRACT, { input });
  }

  /** Follows the job over importJobUpdated until it has finished; returns every state seen, the last one final. */
  async function follow(id: string): Promise<Job[]> {
    const seen: Job[] = [];
    await new ServerClient(t.server.url, undefined).subscribe<{ importJobUpdated: Job }>(
      `subscription($id: ID!) { importJobUpdated(id: $id) { ${JOB} } }`,
      { id },
      (data) => seen.push(data.importJobUpdated),
    );
    return seen;
  }

  it('refuses input that does not say exactly which documents, or asks for the LLM badly', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /exactly one of documentIds and filter/],
      [{ documentIds: ['x-1'], filter: {} }, /exactly one of documentIds and filter/],
      [{ documentIds: [] }, /input\.documentIds: give at least one document id/],
      [{ filter: { tags: 'missing' } }, /input\.filter: selects no document/],
      [{ documentIds: ['x-1'], extractors: [] }, /input\.extractors: name at least one extractor/],
    ];
    for (const [input, message] of cases) {
      const res = await extract(input);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toMatch(message);
    }
    const unknown = await extract({ documentIds: ['x-1', 'nope'] });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(unknown.errors?.[0]?.message).toMatch(/input\.documentIds: no document has the id "nope"/);
  });

  it('runs a job to SUCCEEDED, with progress over importJobUpdated and the counts of its documents', async () => {
    const res = await extract({ filter: { tags: 'even' }, extractors: ['STRUCTURAL', 'OFFLINE'] });
    expect(res.errors).toBeUndefined();
    const started = res.data!.extractGraph;
    expect(started.kind).toBe('EXTRACT');
    const states = await follow(started.id);
    const last = states.at(-1)!;
    expect(last).toMatchObject({ status: 'SUCCEEDED', progress: { done: 2, total: 2 }, extractionTokens: 0 });
    // Per document: Alice, Bob, Paris, Graphs, Lanes, Carol; four neighbour pairs, and Carol->Bob.
    expect(last.extraction).toEqual({ pending: 0, running: 0, done: 2, failed: 0, entities: 12, relationships: 10 });
    expect(extractor!.requests).toBe(0); // no LLM asked for
  });

  it('stops PARTIAL at the token cap, keeps what it extracted, and resumes with a fresh budget', async () => {
    const before = extractor!.requests;
    const res = await extract({ documentIds: ids, extractors: ['LLM'] });
    expect(res.errors).toBeUndefined();
    const last = (await follow(res.data!.extractGraph.id)).at(-1)!;
    // x-1 takes PER_DOCUMENT; x-2's first paragraph takes the job over its cap, so x-2 stops half-way and x-3 waits.
    expect(last.status).toBe('PARTIAL');
    expect(last.extractionTokens).toBe(PER_DOCUMENT + tokensOf(PARAGRAPH));
    expect(last.progress).toEqual({ done: 1, total: 3 });
    expect(last.warnings.join('\n')).toMatch(
      /token cap of \d+ tokens per job \(CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB\).*2 document\(s\) not extracted yet/,
    );
    // x-1 whole and x-2's first paragraph (Alice, Bob, Paris, Graphs, Lanes) are kept.
    expect(last.extraction).toMatchObject({ done: 1, pending: 1, failed: 0, entities: 6 + 5 });
    expect(extractor!.requests - before).toBe(3);

    const resume = async () => {
      const resumed = await t.gql<{ resumeImportJob: { job: Job } }>(
        `mutation($id: ID!) { resumeImportJob(id: $id) { job { ${JOB} } } }`,
        { id: last.id },
      );
      expect(resumed.errors).toBeUndefined();
      return resumed.data!.resumeImportJob.job;
    };
    // Each resume has a fresh budget: x-2 whole, then x-3 half; then x-3 whole.
    expect(await resume()).toMatchObject({ status: 'PARTIAL', progress: { done: 2, total: 3 } });
    expect(await resume()).toMatchObject({
      status: 'SUCCEEDED',
      progress: { done: 3, total: 3 },
      extraction: { done: 3, pending: 0, entities: 18 },
    });
  });

  it('dryRun sends nothing and finishes at once with the estimate', async () => {
    const before = extractor!.requests;
    const res = await extract({ documentIds: ['x-1', 'x-2'], extractors: ['LLM'], dryRun: true });
    expect(res.errors).toBeUndefined();
    expect(res.data!.extractGraph).toMatchObject({
      status: 'SUCCEEDED',
      progress: { done: 2, total: 2 },
      extractionTokens: 0,
      extractionEstimate: {
        documents: 2,
        chunks: 4,
        cachedChunks: 0,
        estimatedInputTokens: 2 * PER_DOCUMENT,
        estimatedCostUsd: null,
      },
    });
    expect(extractor!.requests).toBe(before);
  });

  it('fails the documents that fail and reports them as errors', async () => {
    const bad = await t.gql(
      'mutation { createDocument(input: { id: "x-bad", title: "Bad", content: "EXPLODE now" }) { document { id } } }',
    );
    expect(bad.errors).toBeUndefined();
    const res = await extract({ documentIds: ['x-bad', 'x-1'] });
    const last = (await follow(res.data!.extractGraph.id)).at(-1)!;
    expect(last.status).toBe('PARTIAL');
    expect(last.errors).toEqual([{ item: 'x-bad', code: 'EXTRACTION_FAILED', message: 'the text asked to fail' }]);
    expect(last.extraction).toMatchObject({ done: 1, failed: 1 });
  });
});

describe('extractGraph without a model', () => {
  it('refuses LLM naming CAIRN_EXTRACTION_LLM_MODEL', async () => {
    const t = await startTestServer(edgeTarget(), {}, undefined, undefined, undefined, {
      documentExtractor: ({ documents }) => new WordExtractor(documents),
    });
    try {
      const res = await t.gql<{ extractGraph: Job }>(EXTRACT, {
        input: { filter: {}, extractors: ['STRUCTURAL', 'LLM'] },
      });
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toMatch(/input\.extractors: .*CAIRN_EXTRACTION_LLM_MODEL/);
    } finally {
      await t.close();
    }
  });
});
