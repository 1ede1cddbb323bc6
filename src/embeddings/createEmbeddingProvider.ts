import type { EmbeddingConfig } from '../config.js';
import { AppError, ErrorCode, isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  describeEmbedder,
  type EmbedderInfo,
  type EmbeddingProvider,
  type EmbeddingProviderName,
} from './EmbeddingProvider.js';
import { HashingEmbeddingProvider } from './hashing/HashingEmbeddingProvider.js';
import { DEFAULT_LOCAL_MODEL, LocalEmbeddingProvider } from './local/LocalEmbeddingProvider.js';

/** Vector size of the hashing embedder when `CAIRN_EMBEDDING_DIMENSIONS` is not set. */
export const DEFAULT_HASHING_DIMENSIONS = 1024;

const CHOOSE_HINT = 'To choose another, set CAIRN_EMBEDDING_PROVIDER=openai|local|hashing';

/**
 * Builds the configured embedder. `auto` reuses the embedder an existing store was built with (`recorded`), else
 * tries the local model and falls back to hashing. Local models are loaded here (loading is their readiness);
 * OpenAI-compatible endpoints are not contacted, so the server can start and report not-ready while they are down.
 * Logs one info line naming the choice and the reason.
 */
export async function createEmbeddingProvider(
  config: EmbeddingConfig,
  logger: Logger,
  recorded?: EmbedderInfo,
): Promise<EmbeddingProvider> {
  if (config.provider !== 'auto') {
    const provider = await build(config.provider, config, logger);
    announce(logger, provider, `CAIRN_EMBEDDING_PROVIDER=${config.provider}`, 'configured');
    return provider;
  }

  if (recorded) {
    const provider = await build(recorded.provider, config, logger, recorded).catch((error: unknown) => {
      throw withContext(
        error,
        `The existing store was built with ${describeEmbedder(recorded)}, which CAIRN_EMBEDDING_PROVIDER=auto keeps using`,
      );
    });
    announce(
      logger,
      provider,
      'CAIRN_EMBEDDING_PROVIDER=auto keeps the embedder the existing store was built with',
      'recorded',
      'To switch, set CAIRN_EMBEDDING_PROVIDER=openai|local|hashing and rebuild the index with `cairn reindex`',
    );
    return provider;
  }

  const local = localProvider(config, logger, config.model ?? DEFAULT_LOCAL_MODEL);
  try {
    await local.ready();
    announce(logger, local, 'CAIRN_EMBEDDING_PROVIDER=auto and the local model loaded', 'auto-local');
    return local;
  } catch (error) {
    const hashing = new HashingEmbeddingProvider({ dimensions: config.dimensions ?? DEFAULT_HASHING_DIMENSIONS });
    const reason = error instanceof Error ? error.message : String(error);
    announce(
      logger,
      hashing,
      `CAIRN_EMBEDDING_PROVIDER=auto and the local model "${local.model}" could not be loaded` +
        `${config.offline ? ' while offline (CAIRN_OFFLINE=1)' : ''}; hashing embeddings match words, not meaning`,
      'auto-fallback',
      `${CHOOSE_HINT} (local needs the model downloaded once, or CAIRN_EMBEDDING_MODEL pointing at a model folder)`,
      { localModel: local.model, localError: reason },
    );
    return hashing;
  }
}

/** Builds one provider; `recorded` pins model and dimensions to what a store was built with. */
async function build(
  name: EmbeddingProviderName,
  config: EmbeddingConfig,
  logger: Logger,
  recorded?: EmbedderInfo,
): Promise<EmbeddingProvider> {
  switch (name) {
    case 'hashing':
      return new HashingEmbeddingProvider({
        dimensions: recorded?.dimensions ?? config.dimensions ?? DEFAULT_HASHING_DIMENSIONS,
      });
    case 'openai': {
      // Loaded only when chosen: the OpenAI SDK is hundreds of modules the other embedders never use.
      const { DEFAULT_OPENAI_MODEL, OpenAIEmbeddingProvider } = await import('./openai/OpenAIEmbeddingProvider.js');
      return new OpenAIEmbeddingProvider({
        model: recorded?.model ?? config.model ?? DEFAULT_OPENAI_MODEL,
        dimensions: recorded?.dimensions ?? config.dimensions,
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        batchSize: config.batchSize,
        concurrency: config.concurrency,
        timeoutMs: config.timeoutMs,
        maxRetries: config.maxRetries,
        logger,
      });
    }
    case 'local': {
      const local = localProvider(config, logger, recorded?.model ?? config.model ?? DEFAULT_LOCAL_MODEL);
      await local.ready();
      if (recorded && local.dimensions !== recorded.dimensions) {
        throw new AppError(
          ErrorCode.EMBEDDER_MISMATCH,
          `The local model "${local.model}" now produces ${local.dimensions} dimensions, but the store was built with ${recorded.dimensions}: rebuild the index with \`cairn reindex\``,
          { recorded, actual: local.info },
        );
      }
      return local;
    }
    default: {
      const unknown: never = name;
      throw new AppError(ErrorCode.CONFIG_INVALID, `Unknown embedding provider "${String(unknown)}"`, {
        provider: unknown,
      });
    }
  }
}

function localProvider(config: EmbeddingConfig, logger: Logger, model: string): LocalEmbeddingProvider {
  return new LocalEmbeddingProvider({
    model,
    cacheDir: config.cacheDir,
    offline: config.offline,
    batchSize: config.batchSize,
    logger,
  });
}

/** The single info line that says which embedder was chosen, why, and how to pick another. */
function announce(
  logger: Logger,
  provider: EmbeddingProvider,
  why: string,
  reason: string,
  hint: string = CHOOSE_HINT,
  extra: Record<string, unknown> = {},
): void {
  const info = provider.info;
  const what =
    info.dimensions > 0 ? describeEmbedder(info) : `${info.provider}/${info.model} (dimensions probed on first use)`;
  const url = 'url' in provider && typeof provider.url === 'string' ? { url: provider.url } : {};
  logger.info({ embedder: info, reason, ...url, ...extra }, `Embedding with ${what}: ${why}. ${hint}.`);
}

/** Prefixes an AppError's message with context, keeping its code and details. */
function withContext(error: unknown, context: string): unknown {
  if (!isAppError(error)) return error;
  return new AppError(error.code, `${context}: ${error.message}`, error.details, { cause: error });
}
