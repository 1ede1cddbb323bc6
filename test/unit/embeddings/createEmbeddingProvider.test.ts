/**
 * @jest-environment ./test/fixtures/embeddings/onnx-jest-environment.cjs
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env } from '@huggingface/transformers';
import { pino } from 'pino';
import type { EmbeddingConfig } from '../../../src/config.js';
import { ErrorCode } from '../../../src/errors.js';
import type { EmbeddingProvider } from '../../../src/embeddings/EmbeddingProvider.js';
import { createEmbeddingProvider } from '../../../src/embeddings/createEmbeddingProvider.js';
import { HashingEmbeddingProvider } from '../../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { LocalEmbeddingProvider } from '../../../src/embeddings/local/LocalEmbeddingProvider.js';
import { OpenAIEmbeddingProvider } from '../../../src/embeddings/openai/OpenAIEmbeddingProvider.js';
import { failureOf } from '../../helpers/failureOf.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/embeddings/tiny-bert', import.meta.url));

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
  [key: string]: unknown;
}

let tmp: string;
const fetchCalls: string[] = [];
const originalFetch = env.fetch;
const created: EmbeddingProvider[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'cairn-embed-factory-'));
  env.fetch = async (input: string | URL) => {
    fetchCalls.push(String(input));
    throw new Error(`network access attempted: ${String(input)}`);
  };
});

afterEach(async () => {
  await Promise.all(created.splice(0).map((p) => p.close?.()));
  expect(fetchCalls).toEqual([]);
});

afterAll(async () => {
  env.fetch = originalFetch;
  await rm(tmp, { recursive: true, force: true });
});

function config(overrides: Partial<EmbeddingConfig> = {}): EmbeddingConfig {
  return {
    provider: 'auto',
    model: undefined,
    dimensions: undefined,
    baseUrl: undefined,
    apiKey: undefined,
    batchSize: 16,
    concurrency: 2,
    timeoutMs: 1_000,
    maxRetries: 0,
    offline: true,
    cacheDir: path.join(tmp, 'models'),
    ...overrides,
  };
}

/** A real pino logger writing JSON lines into an array. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

async function create(cfg: EmbeddingConfig, recorded?: Parameters<typeof createEmbeddingProvider>[2]) {
  const { logger, lines } = capturingLogger();
  const provider = await createEmbeddingProvider(cfg, logger, recorded);
  created.push(provider);
  return { provider, lines };
}

describe('createEmbeddingProvider', () => {
  it('auto, offline, no local model: falls back to 1024-dim hashing and logs one explanatory line', async () => {
    const { provider, lines } = await create(config());
    expect(provider).toBeInstanceOf(HashingEmbeddingProvider);
    expect(provider.info).toMatchObject({ provider: 'hashing', dimensions: 1024 });
    expect(lines).toHaveLength(1);
    const [line] = lines as [LogLine];
    expect(line.level).toBe(30);
    expect(line.reason).toBe('auto-fallback');
    expect(line.msg).toContain('hashing');
    expect(line.msg).toContain('Xenova/all-MiniLM-L6-v2');
    expect(line.msg).toContain('CAIRN_OFFLINE=1');
    expect(line.msg).toContain('CAIRN_EMBEDDING_PROVIDER=openai|local|hashing');
    expect((await provider.embed(['hello']))[0]).toHaveLength(1024);
  });

  it('auto picks the local model when it loads', async () => {
    const { provider, lines } = await create(config({ model: FIXTURE }));
    expect(provider).toBeInstanceOf(LocalEmbeddingProvider);
    expect(provider.info).toEqual({ provider: 'local', model: FIXTURE, dimensions: 8 });
    expect(lines.map((l) => l.reason)).toEqual(['auto-local']);
    expect(lines[0]?.msg).toContain('CAIRN_EMBEDDING_PROVIDER=openai|local|hashing');
  });

  it('auto with a recorded embedder uses exactly that provider, model and dimensions', async () => {
    const recorded = { provider: 'openai' as const, model: 'nomic-embed-text', dimensions: 768 };
    const { provider, lines } = await create(config({ baseUrl: 'http://127.0.0.1:9/v1', model: 'ignored' }), recorded);
    expect(provider).toBeInstanceOf(OpenAIEmbeddingProvider);
    expect(provider.info).toEqual(recorded);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.reason).toBe('recorded');
    expect(lines[0]?.msg).toContain('cairn reindex');

    const hashing = await create(config({ dimensions: 64 }), {
      provider: 'hashing',
      model: 'whatever',
      dimensions: 512,
    });
    expect(hashing.provider.info).toMatchObject({ provider: 'hashing', dimensions: 512 });

    const local = await create(config(), { provider: 'local', model: FIXTURE, dimensions: 8 });
    expect(local.provider.info).toEqual({ provider: 'local', model: FIXTURE, dimensions: 8 });
  });

  it('auto with a recorded local model that cannot be used fails instead of silently switching', async () => {
    const missing = await failureOf(
      createEmbeddingProvider(config(), pino({ level: 'silent' }), {
        provider: 'local',
        model: 'org/not-here',
        dimensions: 384,
      }),
    );
    expect(missing.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
    expect(missing.message).toContain('The existing store was built with local/org/not-here (384 dimensions)');

    const resized = await failureOf(
      createEmbeddingProvider(config(), pino({ level: 'silent' }), {
        provider: 'local',
        model: FIXTURE,
        dimensions: 16,
      }),
    );
    expect(resized.code).toBe(ErrorCode.EMBEDDER_MISMATCH);
  });

  it('explicit hashing honours the configured dimensions (default 1024)', async () => {
    const sized = await create(config({ provider: 'hashing', dimensions: 256 }));
    expect(sized.provider).toBeInstanceOf(HashingEmbeddingProvider);
    expect(sized.provider.dimensions).toBe(256);
    expect(sized.lines.map((l) => l.reason)).toEqual(['configured']);
    expect((await create(config({ provider: 'hashing' }))).provider.dimensions).toBe(1024);
  });

  it('explicit local loads the model folder, and fails loudly when it cannot', async () => {
    const { provider } = await create(config({ provider: 'local', model: FIXTURE }));
    expect(provider).toBeInstanceOf(LocalEmbeddingProvider);
    expect(provider.dimensions).toBe(8);
    expect(await provider.embed(['a', 'b'])).toHaveLength(2);

    const error = await failureOf(createEmbeddingProvider(config({ provider: 'local' }), pino({ level: 'silent' })));
    expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
    expect(error.message).toContain('Xenova/all-MiniLM-L6-v2');
  });

  it('explicit openai is built without contacting the endpoint', async () => {
    const { provider, lines } = await create(config({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1' }));
    expect(provider).toBeInstanceOf(OpenAIEmbeddingProvider);
    expect(provider.info).toEqual({ provider: 'openai', model: 'text-embedding-3-small', dimensions: 1536 });
    expect(lines[0]).toMatchObject({ reason: 'configured', url: 'http://127.0.0.1:9/v1/embeddings' });
    const error = await failureOf(provider.ready());
    expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
  });
});
