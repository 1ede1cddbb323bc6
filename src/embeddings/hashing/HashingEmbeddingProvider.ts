import type { EmbedderInfo, EmbeddingProvider } from '../EmbeddingProvider.js';
import { FeatureHasher } from './FeatureHasher.js';

/** Options for the hashing embedder. */
export interface HashingEmbeddingOptions {
  /** Vector length; default 1024. */
  dimensions?: number;
}

/** Model name recorded with indexes; bump it whenever the featurisation changes, since old vectors become stale. */
export const HASHING_MODEL = 'hashing-v1';

/** Default vector length of the hashing embedder. */
export const HASHING_DEFAULT_DIMENSIONS = 1024;

// Texts embedded between yields to the event loop, so a large batch does not stall a server.
const YIELD_EVERY = 256;

/**
 * Dependency-free, deterministic embedder: feature-hashed unigrams and bigrams (see `FeatureHasher`). Needs no model
 * or network, so it is the offline default and the test embedder. A text without word tokens embeds to the all-zero
 * vector, which scores 0 against everything.
 */
export class HashingEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly info: EmbedderInfo;
  readonly dimensions: number;
  private readonly hasher: FeatureHasher;

  constructor(options: HashingEmbeddingOptions = {}) {
    this.dimensions = options.dimensions ?? HASHING_DEFAULT_DIMENSIONS;
    this.hasher = new FeatureHasher(this.dimensions);
    this.info = { provider: 'hashing', model: HASHING_MODEL, dimensions: this.dimensions };
    this.id = `hashing:${HASHING_MODEL}:${this.dimensions}`;
  }

  /** Embeds texts in order. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (const text of texts) {
      if (vectors.length > 0 && vectors.length % YIELD_EVERY === 0)
        await new Promise<void>((resolve) => setImmediate(resolve));
      vectors.push(this.hasher.embed(text));
    }
    return vectors;
  }

  /** Embeds one text synchronously (same vectors as `embed`). */
  embedOne(text: string): Float32Array {
    return this.hasher.embed(text);
  }

  /** Always ready: there is nothing to load or reach. */
  async ready(): Promise<void> {}
}
