import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectPath } from '../../src/paths.js';
import { runCliInProcess } from '../helpers/cli.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

// The README says importers turn files and folders into documents and graph nodes: the import summary and
// `cairn stats` show the graph's entities and relationships, what the import added, and where extraction of the
// imported documents stands (it runs in the background, so the summary says it is queued).

interface Summary {
  event: string;
  graph: { entityCount: number; relationshipCount: number; entitiesAdded: number; relationshipsAdded: number };
  extraction: { pending: number; running: number; done: number; failed: number } | null;
}

describe('import and stats show the graph', () => {
  let data: ScratchDatabase;
  const env = () => ({
    ...data.env,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXTRACTION_EXTRACTORS: 'structural',
  });
  beforeAll(async () => {
    data = await scratchPglite();
  });
  afterAll(() => data?.drop());

  it('an OpenAPI import reports the entities it wrote, and its documents queued for extraction', async () => {
    const spec = projectPath('test/fixtures/openapi/oai/v3.0/petstore.yaml');
    const json = await runCliInProcess(['import', 'openapi', spec, '--spec-id', 'pets', '--json'], env());
    expect(json.code).toBe(0);
    const summary = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as Summary;
    expect(summary.event).toBe('summary');
    expect(summary.graph.entitiesAdded).toBeGreaterThan(0);
    expect(summary.graph.entityCount).toBe(summary.graph.entitiesAdded);
    expect(summary.graph.relationshipsAdded).toBe(summary.graph.relationshipCount);
    // This one-shot command leaves extraction to the server: every document is queued.
    expect(summary.extraction).toEqual(expect.objectContaining({ done: 0, failed: 0 }));
    expect(summary.extraction!.pending).toBeGreaterThan(0);

    const again = await runCliInProcess(['import', 'openapi', spec, '--spec-id', 'pets'], env());
    expect(again.stderr).toContain(
      `Graph: ${summary.graph.entityCount} entities and ${summary.graph.relationshipCount} relationships (+0 and +0 during this import).`,
    );
    expect(again.stderr).toMatch(
      /Extraction: 0 of \d+ documents extracted \(0 entities, 0 relationships\); \d+ queued: the server extracts them/,
    );

    const stats = await runCliInProcess(['stats'], env());
    expect(stats.stdout).toContain(
      `Graph:     ${summary.graph.entityCount} entities, ${summary.graph.relationshipCount} relationships\n`,
    );
    expect(stats.stdout).toMatch(/\nEntities by type:\n {2}\w+/);
  }, 120_000);

  it('a folder import becomes graph nodes once extracted, and stats counts them', async () => {
    const before = JSON.parse((await runCliInProcess(['stats', '--json'], env())).stdout) as Summary;
    const folder = projectPath('test/fixtures/imports/handbook');
    expect((await runCliInProcess(['import', 'dir', folder], env())).code).toBe(0);
    expect((await runCliInProcess(['extract', '--all', '--extractors', 'structural'], env())).code).toBe(0);
    const after = JSON.parse((await runCliInProcess(['stats', '--json'], env())).stdout) as Summary;
    expect(after.graph.entityCount).toBeGreaterThan(before.graph.entityCount);
  }, 180_000);

  it('says when extraction is off', async () => {
    const off = await runCliInProcess(['import', 'dir', projectPath('test/fixtures/imports/handbook/runbooks')], {
      ...env(),
      CAIRN_EXTRACTION_EXTRACTORS: 'none',
    });
    expect(off.code).toBe(0);
    expect(off.stderr).toContain('Extraction is off (CAIRN_EXTRACTION_EXTRACTORS=none)');
  }, 120_000);
});
