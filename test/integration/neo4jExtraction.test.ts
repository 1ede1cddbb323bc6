import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { Neo4jGraphStore } from '../../src/graph/neo4j/Neo4jGraphStore.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { EXTRACTION_ENV, runExtractionScenario } from '../helpers/extractionScenario.js';
import { neo4jTestSettings, wipeNeo4j } from '../helpers/graphStores.js';
import { runRejectionScenario } from '../helpers/rejectionScenario.js';
import { TextMarkupExtractor } from '../helpers/TextMarkupExtractor.js';

const settings = neo4jTestSettings();

// The scenario of extraction.test.ts with the graph in Neo4j. Documents and evidence live on one database (the server
// when there is one): extraction.test.ts runs the scenario on every database, and Neo4j is what is under test here.
(settings ? describe.each([edgeTarget()]) : describe.skip.each([edgeTarget()]))(
  'extraction into the Neo4j store ($name)',
  (target) => {
    let scratch: ScratchDatabase;
    let store: Neo4jGraphStore;
    let s: Services;
    beforeAll(async () => {
      store = new Neo4jGraphStore(settings as NonNullable<typeof settings>);
      await wipeNeo4j(settings as NonNullable<typeof settings>);
      scratch = await target.createDatabase();
      s = await createServices(loadConfig({ ...scratch.env, ...EXTRACTION_ENV }), silentLogger(), {
        embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
        extractors: [new TextMarkupExtractor()],
        importQueue: false,
        graphStore: store,
      });
    }, 120_000);
    afterAll(async () => {
      await s?.close();
      if (settings) await wipeNeo4j(settings).catch(() => undefined);
      await store?.close();
      await scratch?.drop();
    });

    it('extracts facts with evidence, and removes only those a changed or deleted document alone supported', async () => {
      await runExtractionScenario(s);
    });

    it('keeps rejected facts out of the graph until their rejection is undone', async () => {
      await runRejectionScenario(s);
    });
  },
);
