import { expect } from '@jest/globals';
import type { DocumentInput } from '../../src/documents/types.js';
import type { Services } from '../../src/services.js';
import { EvidenceRepository } from '../../src/extraction/EvidenceRepository.js';
import { relationshipId } from '../../src/graph/validateGraphInput.js';

/** Environment for services that extract with TextMarkupExtractor (as `structural`), only when told (drain). */
export const EXTRACTION_ENV = {
  CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
  CAIRN_EXTRACTION_EXTRACTORS: 'structural',
  CAIRN_EXTRACTION_POLL_MS: '0',
  CAIRN_EXTRACTION_CONCURRENCY: '1',
  CAIRN_EXTRACTION_TERM_MIN_DOCUMENTS: '2',
  CAIRN_EXTRACTION_COOCCURRENCE_MIN_CHUNKS: '2',
};

/** A document written by hand with the markup TextMarkupExtractor reads. */
export function doc(id: string, title: string, source: string, content: string): DocumentInput {
  return { id, title, content, documentType: 'reference', source, tags: [], metadata: {}, expiresAt: null };
}

export const GUIDE = doc(
  'doc:guide',
  'Vite Guide',
  'guide/intro.md',
  'Vite Guide uses [[Hot Module Replacement|Technology|HMR]] with [[Rollup|Technology]] to {{bundle}} code. ' +
    '<<Vite Guide|USES|Hot Module Replacement>> See [the config](../config.md#server) for options.',
);
export const CONFIG = doc(
  'doc:config',
  'Config Reference',
  'config.md',
  'Options of [[Rollup|Technology]] and [[HMR|Technology]] decide how {{bundles}} are made.',
);
export const CONFIG_EDITED = doc(
  'doc:config',
  'Config Reference',
  'config.md',
  'Only [[server.port|ConfigOption]] is left.',
);

export const ids = {
  guidePage: 'x:topic:vite-guide',
  configPage: 'x:topic:config-reference',
  hmr: 'x:technology:hot-module-replacement',
  rollup: 'tool:rollup',
  bundle: 'x:concept:bundle',
  port: 'x:configoption:server.port',
};
export const rel = {
  uses: relationshipId(ids.guidePage, 'USES', ids.hmr),
  cooccurs: relationshipId(ids.rollup, 'RELATED_TO', ids.hmr), // ordered by id
  links: relationshipId(ids.guidePage, 'LINKS_TO', ids.configPage),
  manual: relationshipId(ids.rollup, 'DEPENDS_ON', 'tool:node'),
};

/** The ids among `wanted` that the graph store holds. */
export async function entitiesIn(s: Services, wanted: readonly string[]): Promise<string[]> {
  return (await s.graph.getEntities(wanted)).map((e) => e.id).sort();
}

/** The ids among `wanted` that the graph store holds. */
export async function relationshipsIn(s: Services, wanted: readonly string[]): Promise<string[]> {
  return (await s.graph.getRelationships(wanted)).map((r) => r.id).sort();
}

/**
 * Checks that the support counts kept by difference (extraction_support*) equal a recount from the evidence rows, for
 * every fact either side knows.
 */
export async function expectSupportKeptRight(s: Services): Promise<void> {
  const evidence = new EvidenceRepository(s.db);
  const keys = await evidence.supportedFactKeys();
  const [kept, recounted] = await Promise.all([evidence.supportOf(keys), evidence.recountSupport(keys)]);
  const sorted = (m: Map<string, unknown>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  expect(sorted(kept)).toEqual(sorted(recounted));
}

/**
 * Writes, updates and deletes documents and checks that extraction follows: facts with evidence, only the facts a
 * document alone supported disappear, and facts written by hand survive. `s` extracts only when drained.
 */
export async function runExtractionScenario(s: Services): Promise<void> {
  await s.graph.upsertGraph(
    [
      { id: 'tool:rollup', type: 'Tool', name: 'Rollup' },
      { id: 'tool:node', type: 'Tool', name: 'Node.js' },
    ],
    [{ fromId: 'tool:rollup', type: 'DEPENDS_ON', toId: 'tool:node' }],
  );
  await s.documents.upsertMany([GUIDE]);
  await s.documents.upsertMany([CONFIG]);
  expect((await s.extraction.documentState(GUIDE.id as string))?.status).toBe('PENDING');
  expect(await s.extraction.statusCounts()).toEqual({ pending: 2, running: 0, done: 0, failed: 0 });

  await s.extraction.drain();
  expect(await s.extraction.statusCounts()).toEqual({ pending: 0, running: 0, done: 2, failed: 0 });
  const all = Object.values(ids);
  expect(await entitiesIn(s, all)).toEqual([ids.guidePage, ids.configPage, ids.hmr, ids.rollup, ids.bundle].sort());
  const [hmr] = await s.graph.getEntities([ids.hmr]);
  expect(hmr?.aliases).toEqual(['HMR']);
  const [rollup] = await s.graph.getEntities([ids.rollup]);
  expect(rollup).toMatchObject({ type: 'Tool', name: 'Rollup' });
  expect(await relationshipsIn(s, Object.values(rel))).toEqual([rel.uses, rel.cooccurs, rel.links, rel.manual].sort());
  const [cooccurs] = await s.graph.getRelationships([rel.cooccurs]);
  expect(cooccurs?.properties).toEqual({ weight: 2 });
  const evidence = await new EvidenceRepository(s.db).rowsOf(CONFIG.id as string);
  expect(evidence.filter((r) => r.factKey === `e:${ids.hmr}`)).toEqual([
    expect.objectContaining({ extractor: 'structural', quote: '[[HMR|Technology]]' }),
  ]);
  await expectSupportKeptRight(s);
  // The page entity's home is its document.
  expect((await s.graph.documentIdsByEntity([ids.guidePage], 5)).get(ids.guidePage)).toEqual([GUIDE.id]);

  await s.documents.upsertMany([CONFIG_EDITED]);
  await s.extraction.drain();
  // The term now has one document, the co-occurrence one chunk: both go; what the guide supports stays.
  expect(await entitiesIn(s, all)).toEqual([ids.guidePage, ids.configPage, ids.hmr, ids.rollup, ids.port].sort());
  expect(await relationshipsIn(s, Object.values(rel))).toEqual([rel.uses, rel.links, rel.manual].sort());
  await expectSupportKeptRight(s);

  await s.documents.delete(GUIDE.id as string);
  expect((await s.extraction.documentState(GUIDE.id as string))?.status).toBe('REMOVED');
  await s.extraction.drain();
  expect(await s.extraction.documentState(GUIDE.id as string)).toBeUndefined();
  expect(await entitiesIn(s, all)).toEqual([ids.configPage, ids.rollup, ids.port].sort());
  expect(await entitiesIn(s, ['tool:node'])).toEqual(['tool:node']);
  expect(await relationshipsIn(s, Object.values(rel))).toEqual([rel.manual]);
  expect(await new EvidenceRepository(s.db).factKeysOf(GUIDE.id as string)).toEqual([]);
  await expectSupportKeptRight(s);
}
