/** Which embedder built an index: stored with the index and compared at start-up. */
export interface EmbedderInfo {
  provider: EmbeddingProviderName;
  model: string;
  dimensions: number;
}

/** The configurable embedding back-ends. */
export type EmbeddingProviderName = 'openai' | 'local' | 'hashing';

/** Turns texts into unit-length vectors of a fixed dimension. */
export interface EmbeddingProvider {
  /** Stable identifier, e.g. `hashing:hashing-v1:1024`. */
  readonly id: string;
  /** Provider, model and dimensions, as recorded in the store. */
  readonly info: EmbedderInfo;
  /** Length of every vector returned by `embed`. */
  readonly dimensions: number;
  /** Embeds texts in order; batches and bounds concurrency internally. Throws `EMBEDDING_UNAVAILABLE` when the back-end cannot be reached. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Resolves when the provider can embed (model loaded, endpoint reachable); throws `EMBEDDING_UNAVAILABLE` otherwise. */
  ready(): Promise<void>;
  /** Releases resources (model sessions, sockets). */
  close?(): Promise<void>;
}

/** Formats an `EmbedderInfo` for messages and logs. */
export function describeEmbedder(info: EmbedderInfo): string {
  return `${info.provider}/${info.model} (${info.dimensions} dimensions)`;
}
