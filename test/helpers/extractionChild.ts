// A Cairn instance that only extracts (no HTTP), for the kill -9 test: run with `node --import tsx`. Its extractor
// hangs on chunks containing HANG after writing the marker file named by CAIRN_TEST_HANG_MARKER.
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { TextMarkupExtractor } from './TextMarkupExtractor.js';

const marker = process.env.CAIRN_TEST_HANG_MARKER ?? '';
await createServices(loadConfig(process.env), silentLogger(), {
  embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
  extractors: [new TextMarkupExtractor('structural', { text: 'HANG', marker })],
});
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
