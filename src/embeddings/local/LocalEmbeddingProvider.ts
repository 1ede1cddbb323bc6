import path from 'node:path';
import { AppError, ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { embedInBatches } from '../batching.js';
import type { EmbedderInfo, EmbeddingProvider } from '../EmbeddingProvider.js';
import { isDirectory, pickDtype, resolveModelSource, type LocalDtype, type ModelSource } from './modelSource.js';

/** Model used when `CAIRN_EMBEDDING_MODEL` is not set: 384-dimensional sentence embeddings, ~90 MB. */
export const DEFAULT_LOCAL_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** Settings for `LocalEmbeddingProvider`; mirrors the relevant `EmbeddingConfig` fields. */
export interface LocalEmbeddingOptions {
  /** Hub id (e.g. `Xenova/all-MiniLM-L6-v2`) or a folder path (absolute or starting with `./`); default `DEFAULT_LOCAL_MODEL`. */
  model?: string | undefined;
  /** Download cache for hub models (`CAIRN_MODEL_CACHE_DIR`); default transformers.js' own cache. */
  cacheDir?: string | undefined;
  /** Never touch the network (`CAIRN_OFFLINE=1`): hub models must already be in `cacheDir`. */
  offline?: boolean | undefined;
  /** Texts per inference call; default 32. */
  batchSize?: number | undefined;
  /** Receives a debug line when the model has loaded. */
  logger?: Logger | undefined;
}

/** The slice of a transformers.js feature-extraction pipeline this provider uses. */
interface FeatureExtractor {
  (texts: string[], options: { pooling: 'mean'; normalize: boolean }): Promise<{ data: unknown; dims: number[] }>;
  dispose(): Promise<void>;
}

/** Embeds in-process with an ONNX sentence-embedding model via @huggingface/transformers (mean pooling, L2-normalised). */
export class LocalEmbeddingProvider implements EmbeddingProvider {
  /** The model setting as configured (recorded in the store as-is). */
  readonly model: string;
  readonly #source: ModelSource;
  readonly #cacheDir: string | undefined;
  readonly #offline: boolean;
  readonly #batchSize: number;
  readonly #logger: Logger | undefined;
  #extractor: FeatureExtractor | undefined;
  #loading: Promise<void> | undefined;
  #dimensions: number | undefined;

  constructor(options: LocalEmbeddingOptions = {}) {
    this.model = options.model ?? DEFAULT_LOCAL_MODEL;
    this.#source = resolveModelSource(this.model);
    this.#cacheDir = options.cacheDir;
    this.#offline = options.offline ?? false;
    this.#batchSize = options.batchSize ?? 32;
    this.#logger = options.logger;
  }

  /** Vector length; 0 until `ready()` has loaded the model and probed it. */
  get dimensions(): number {
    return this.#dimensions ?? 0;
  }

  /** Provider, model and dimensions as recorded in the store. */
  get info(): EmbedderInfo {
    return { provider: 'local', model: this.model, dimensions: this.dimensions };
  }

  /** Stable identifier, e.g. `local:Xenova/all-MiniLM-L6-v2:384`. */
  get id(): string {
    return `local:${this.model}:${this.dimensions}`;
  }

  /** Loads the model once (downloading it unless offline) and probes its dimensions; throws `EMBEDDING_UNAVAILABLE` on failure. */
  async ready(): Promise<void> {
    // A failed load is forgotten so a later call can retry (e.g. after the network comes back).
    this.#loading ??= this.#load().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    await this.#loading;
  }

  /** Embeds texts in order, loading the model on first use. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    await this.ready();
    // One batch at a time: ONNX Runtime already uses every core for a single run.
    return embedInBatches(texts, { batchSize: this.#batchSize, concurrency: 1 }, (batch) => this.#run(batch));
  }

  /** Frees the ONNX session. */
  async close(): Promise<void> {
    const extractor = this.#extractor;
    this.#extractor = undefined;
    this.#loading = undefined;
    await extractor?.dispose();
  }

  async #load(): Promise<void> {
    if (this.#source.kind === 'folder' && !isDirectory(this.#source.path)) {
      throw this.#loadError(`the folder ${this.#source.path} does not exist`);
    }
    const extractor = await this.#createPipeline();
    this.#extractor = extractor;
    try {
      const [probe] = await this.#run(['ping']);
      this.#dimensions = probe?.length;
    } catch (error) {
      this.#extractor = undefined;
      await extractor.dispose().catch(() => undefined);
      throw this.#loadError(reasonOf(error), error);
    }
    this.#logger?.debug({ model: this.model, dimensions: this.#dimensions }, 'Local embedding model loaded');
  }

  async #createPipeline(): Promise<FeatureExtractor> {
    // Imported lazily: loading onnxruntime-node costs time and memory that hashing/openai set-ups never need.
    let transformers: typeof import('@huggingface/transformers');
    try {
      transformers = await import('@huggingface/transformers');
    } catch (error) {
      throw this.#loadError(`@huggingface/transformers could not be loaded (${reasonOf(error)})`, error);
    }
    const { env, LogLevel, pipeline } = transformers;
    // transformers.js settings are process-wide; every provider in a process shares one EmbeddingConfig.
    env.allowLocalModels = true;
    env.allowRemoteModels = !this.#offline;
    if (this.#cacheDir !== undefined) env.cacheDir = this.#cacheDir;
    env.logLevel = LogLevel.ERROR; // failures surface as our AppError instead of console noise

    const folder = this.#source.kind === 'folder';
    // A folder is passed as an absolute path: transformers.js reads it directly and, as it is no valid hub id, never downloads.
    const modelId = this.#source.kind === 'folder' ? this.#source.path : this.#source.id;
    const searched =
      this.#source.kind === 'folder'
        ? [this.#source.path]
        : [path.join(env.cacheDir ?? '', this.#source.id), path.join(env.localModelPath, this.#source.id)];
    const preferred = pickDtype(searched);
    // fp32 when present (or nothing is on disk yet); fall back to the quantized file when only that exists.
    const dtypes: LocalDtype[] = preferred === 'q8' ? ['q8'] : ['fp32', 'q8'];

    let lastError: unknown;
    for (const dtype of dtypes) {
      try {
        const extractor: FeatureExtractor = await pipeline('feature-extraction', modelId, {
          dtype,
          device: 'cpu',
          local_files_only: this.#offline || folder,
          ...(this.#cacheDir !== undefined ? { cache_dir: this.#cacheDir } : {}),
        });
        return extractor;
      } catch (error) {
        lastError = error;
      }
    }
    throw this.#loadError(reasonOf(lastError), lastError);
  }

  async #run(batch: string[]): Promise<Float32Array[]> {
    const extractor = this.#extractor;
    if (!extractor) throw this.#loadError('the model was closed');
    const output = await extractor(batch, { pooling: 'mean', normalize: true });
    const [rows, width] = output.dims;
    if (!isFloat32Array(output.data) || rows !== batch.length || width === undefined || width < 1) {
      throw new AppError(
        ErrorCode.EMBEDDING_UNAVAILABLE,
        `The local embedding model "${this.model}" returned an unexpected output of shape [${output.dims.join(', ')}] for ${batch.length} texts`,
        { model: this.model },
      );
    }
    const data = output.data;
    // Copied into this realm's Float32Array: onnxruntime-node may hand back arrays created by native code.
    return Array.from({ length: rows }, (_, i) => new Float32Array(data.subarray(i * width, (i + 1) * width)));
  }

  #loadError(reason: string, cause?: unknown): AppError {
    const where = this.#source.kind === 'folder' ? this.#source.path : this.model;
    const fix =
      this.#source.kind === 'folder'
        ? `point CAIRN_EMBEDDING_MODEL at a folder containing config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx`
        : `run once with network access${this.#offline ? ' (unset CAIRN_OFFLINE)' : ''} so it is downloaded` +
          `${this.#cacheDir ? ` into ${this.#cacheDir}` : ''}, or point CAIRN_EMBEDDING_MODEL at a local model folder`;
    return new AppError(
      ErrorCode.EMBEDDING_UNAVAILABLE,
      `Cannot load the local embedding model "${where}"${this.#offline ? ' (offline)' : ''}: ${reason}. ` +
        `To fix: ${fix}, or set CAIRN_EMBEDDING_PROVIDER=hashing (or openai).`,
      { model: this.model, offline: this.#offline, cacheDir: this.#cacheDir },
      cause === undefined ? undefined : { cause },
    );
  }
}

function isFloat32Array(value: unknown): value is Float32Array {
  return Object.prototype.toString.call(value) === '[object Float32Array]';
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
