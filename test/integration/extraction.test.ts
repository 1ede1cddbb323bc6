import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { CONFIG, doc, EXTRACTION_ENV, GUIDE, runExtractionScenario } from '../helpers/extractionScenario.js';
import { runRejectionScenario } from '../helpers/rejectionScenario.js';
import { TextMarkupExtractor } from '../helpers/TextMarkupExtractor.js';
import { RejectionRepository } from '../../src/extraction/RejectionRepository.js';

describe.each(dbTargets())('extraction from document writes ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  let extractor: TextMarkupExtractor;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    extractor = new TextMarkupExtractor();
    s = await createServices(loadConfig({ ...scratch.env, ...EXTRACTION_ENV }), silentLogger(), {
      embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
      extractors: [extractor],
      importQueue: false,
    });
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('extracts facts with evidence, and removes only those a changed or deleted document alone supported', async () => {
    await runExtractionScenario(s);
  });

  it('extracts an unchanged chunk once, and rejected names never', async () => {
    const calls = extractor.calls;
    await s.extraction.enqueue([CONFIG.id as string]);
    await s.extraction.drain();
    expect(extractor.calls).toBe(calls);
    await new RejectionRepository(s.db).add('Webpack');
    await s.documents.upsertMany([
      doc('doc:w', 'Bundlers', 'w.md', 'Compare [[Webpack|Technology]] with [[esbuild|Technology]].'),
    ]);
    await s.extraction.drain();
    expect(extractor.calls).toBe(calls + 1);
    expect((await s.graph.getEntities(['x:technology:webpack', 'x:technology:esbuild'])).map((e) => e.id)).toEqual([
      'x:technology:esbuild',
    ]);
  });

  it('keeps rejected facts out of the graph until their rejection is undone', async () => {
    await runRejectionScenario(s);
  });

  it('links a specific page entity to its home and by name, and makes none of a generic heading', async () => {
    await s.documents.upsertMany([
      doc('doc:features', 'Features', 'features.md', 'What it does.'),
      doc('doc:ssr', 'Server Side Rendering', 'ssr.md', 'How it renders.'),
    ]);
    await s.extraction.drain();
    const { rows } = await s.db.query<{ entity_id: string; link_by_name: boolean; origin: string }>(
      `SELECT entity_id, link_by_name, origin FROM entity_names WHERE entity_id IN ('x:topic:feature', 'x:topic:server-side-rendering') ORDER BY 1`,
    );
    expect(rows).toEqual([{ entity_id: 'x:topic:server-side-rendering', link_by_name: true, origin: 'EXTRACTED' }]);
    const homes = await s.graph.documentIdsByEntity(['x:topic:server-side-rendering'], 5);
    expect(homes.get('x:topic:server-side-rendering')).toEqual(['doc:ssr']);
  });

  it('queues nothing for an unchanged document', async () => {
    await s.documents.upsertMany([GUIDE]);
    await s.extraction.drain();
    await s.documents.upsertMany([GUIDE]);
    expect((await s.extraction.documentState(GUIDE.id as string))?.status).toBe('DONE');
  });
});
