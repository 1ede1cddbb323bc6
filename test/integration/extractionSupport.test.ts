import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { doc, EXTRACTION_ENV, expectSupportKeptRight } from '../helpers/extractionScenario.js';
import { TextMarkupExtractor } from '../helpers/TextMarkupExtractor.js';
import type { ChunkForExtraction, DocumentForExtraction } from '../../src/extraction/types.js';
import { EvidenceRepository } from '../../src/extraction/EvidenceRepository.js';

/** The markup extractor as `offline`, blind to Vite: its rows and the structural ones differ within a chunk. */
class BlindToVite extends TextMarkupExtractor {
  constructor() {
    super('offline');
  }

  override async extract(document: DocumentForExtraction, chunks: readonly ChunkForExtraction[]) {
    const found = await super.extract(document, chunks);
    return found.map((r) => ({ ...r, entities: r.entities.filter((e) => e.name.toLowerCase() !== 'vite') }));
  }
}

/** A paragraph long enough that a document of several spans several chunks (500 characters each). */
const filler = (n: number) => ` Plain words about nothing in particular, number ${n}, to fill a chunk.`.repeat(8);

/** Documents naming shared things, with quotes repeated across documents and chunks, in one or several chunks. */
function corpus(version: number) {
  const shared = '[[Rollup|Technology]] and [[Vite|Technology]] are named together. <<Vite|USES|Rollup>>';
  return [
    doc('s:a', 'Alpha Page', 'a.md', `${shared} {{bundle}} ${filler(1)}\n\n${shared} ${filler(2)}`),
    doc('s:b', 'Beta Page', 'b.md', `${shared} {{bundle}} [[esbuild|Technology]]. [a](a.md)`),
    doc(
      's:c',
      'Gamma Page',
      'c.md',
      version === 0
        ? `[[Vite|Technology]] with [[esbuild|Technology]] {{bundle}}. ${filler(3)}\n\n${shared}`
        : `[[VITE|Technology]] alone. {{bundles}} ${filler(4)}\n\n[[esbuild|Technology]] elsewhere.`,
    ),
  ];
}

// Support counts are kept by difference as evidence comes and goes: after every kind of change they must equal a
// recount from the evidence rows (documents, chunks, distinct quotes, extractors and the facts' forms).
describe.each(dbTargets())('extraction support kept by difference ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    s = await createServices(
      loadConfig({ ...scratch.env, ...EXTRACTION_ENV, CAIRN_EXTRACTION_EXTRACTORS: 'structural,offline' }),
      silentLogger(),
      {
        embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
        // Two extractors finding mostly the same facts in the same chunks: rows differ by extractor only.
        extractors: [new TextMarkupExtractor('structural'), new BlindToVite()],
        importQueue: false,
      },
    );
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('equals a recount after writes, updates, deletes, a merge and its undo', async () => {
    await s.documents.upsertMany(corpus(0));
    await s.extraction.drain();
    const evidence = new EvidenceRepository(s.db);
    const vite = (await evidence.supportOf(['e:x:technology:vite'])).get('e:x:technology:vite');
    expect(vite).toMatchObject({ documents: 3, extractors: ['structural'] });
    const rollup = (await evidence.supportOf(['e:x:technology:rollup'])).get('e:x:technology:rollup');
    expect(rollup?.extractors).toEqual(['offline', 'structural']);
    expect(vite?.chunks).toBeGreaterThan(3);
    await expectSupportKeptRight(s);

    await s.documents.upsertMany(corpus(1));
    await s.extraction.drain();
    await expectSupportKeptRight(s);

    const merge = await s.curation.mergeEntities('x:technology:vite', 'x:technology:esbuild');
    await expectSupportKeptRight(s);
    await s.curation.undoMerge(merge.id);
    await expectSupportKeptRight(s);

    await s.documents.delete('s:a');
    await s.extraction.drain();
    await expectSupportKeptRight(s);
    await s.documents.upsertMany(corpus(0));
    await s.extraction.drain();
    await expectSupportKeptRight(s);

    for (const d of corpus(0)) await s.documents.delete(d.id as string);
    await s.extraction.drain();
    await expectSupportKeptRight(s);
    expect(await evidence.supportedFactKeys()).toEqual([]);
  });

  // A statement whose documents had no rows before, or have none after, is counted without a look-up per group;
  // these statements mix such documents with documents that keep other rows, within one statement too.
  it('equals a recount after statements that touch part of a document, or several kinds of documents at once', async () => {
    await s.documents.upsertMany(corpus(0));
    await s.extraction.drain();
    const copy = (where: string, document: string, extractor: string) =>
      s.db.query(
        `INSERT INTO extraction_evidence (fact_key, fact, document_id, chunk_id, extractor, quote, confidence)
         SELECT fact_key, fact, ${document}, chunk_id, ${extractor}, quote, confidence FROM extraction_evidence
          WHERE ${where}`,
      );
    // More rows for a document that has some: a new extractor's, in chunks it has rows in already.
    await copy(`document_id = 's:b' AND extractor = 'structural'`, 'document_id', `'llm'`);
    await expectSupportKeptRight(s);
    // One statement: a document new to the table and rows added to one that has some.
    await copy(
      `document_id = 's:a'`,
      `CASE extractor WHEN 'offline' THEN 's:z' ELSE 's:b' END`,
      `CASE extractor WHEN 'offline' THEN 'llm' ELSE 'llm2' END`,
    );
    await expectSupportKeptRight(s);
    // Part of a document's rows, then one statement emptying documents and leaving another with rows.
    await s.db.query(
      `DELETE FROM extraction_evidence WHERE document_id = 's:b' AND extractor = 'llm' AND fact_key LIKE 'r:%'`,
    );
    await expectSupportKeptRight(s);
    await s.db.query(
      `DELETE FROM extraction_evidence WHERE document_id = 's:z' OR (document_id = 's:b' AND extractor = 'llm')`,
    );
    await expectSupportKeptRight(s);
    await s.db.query(`UPDATE extraction_evidence SET quote = quote || ' (edited)' WHERE document_id = 's:c'`);
    await expectSupportKeptRight(s);
    await s.db.query(`DELETE FROM extraction_evidence WHERE document_id = 's:b' AND extractor = 'llm2'`);
    await expectSupportKeptRight(s);
    for (const d of corpus(0)) await s.documents.delete(d.id as string);
    await s.extraction.drain();
    expect(await new EvidenceRepository(s.db).supportedFactKeys()).toEqual([]);
  });

  it('finds the mentions of new extracted names in older chunks in a deferred pass, and loses no request', async () => {
    await s.documents.upsertMany([doc('s:old', 'Old Notes', 'old.md', 'We moved to the Zanzibar Protocol last year.')]);
    await s.extraction.drain();
    const [oldChunk] = (await s.documents.manyWithChunks(['s:old']))[0]!.chunks;
    await s.documents.upsertMany([doc('s:new', 'New Notes', 'new.md', 'About [[Zanzibar Protocol|Technology]].')]);
    // Extracted without the worker: its names are in, their backfill only requested.
    await s.extraction.extractNow('s:new');
    const id = 'x:technology:zanzibar-protocol';
    expect(await s.graph.mentionBackfillBacklog()).toBeGreaterThan(0);
    expect((await s.graph.entityIdsByChunk([oldChunk!.id])).get(oldChunk!.id) ?? []).not.toContain(id);
    await s.extraction.drain();
    expect(await s.graph.mentionBackfillBacklog()).toBe(0);
    expect((await s.graph.entityIdsByChunk([oldChunk!.id])).get(oldChunk!.id)).toContain(id);
  });
});

// A quote cut at 200 characters may end inside a surrogate pair (an emoji): JSON can only escape the half left, and
// jsonb refuses that escape, so the document was never extracted. It is stored as U+FFFD, as text parameters store it.
describe.each(dbTargets())('extraction of text whose quotes cut an emoji in half ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    s = await createServices(
      loadConfig({ ...scratch.env, ...EXTRACTION_ENV, CAIRN_EXTRACTION_EXTRACTORS: 'offline' }),
      silentLogger(),
      { embedder: new HashingEmbeddingProvider({ dimensions: 64 }), importQueue: false },
    );
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.drop();
  });

  it('extracts the document and stores the cut half as a replacement character', async () => {
    // A sentence over 200 characters: its quote starts 60 characters before the name, inside the emoji run.
    const content = `Some words ${'😀'.repeat(40)} the Zanzibar Protocol was adopted by many teams in Northern Europe because it made permission checks consistent across services and regions over years.`;
    await s.documents.upsertMany([doc('s:emoji', 'Emoji Notes', 'emoji.md', content)]);
    await s.extraction.drain();
    expect(await s.extraction.documentState('s:emoji')).toMatchObject({ status: 'DONE', error: null });
    const rows = await new EvidenceRepository(s.db).rowsOf('s:emoji');
    const quote = rows.find((r) => r.factKey === 'e:x:concept:zanzibar-protocol')?.quote ?? '';
    expect(quote).toMatch(/^…\uFFFD😀/u);
  });
});
