import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { ErrorCode } from '../../../../src/errors.js';
import {
  OpenAIEmbeddingProvider,
  type OpenAIEmbeddingOptions,
} from '../../../../src/embeddings/openai/OpenAIEmbeddingProvider.js';
import { closedPort, fakeVector, FakeOpenAIServer, type FakeServerOptions } from './fakeOpenAIServer.js';
import { failureOf } from '../../../helpers/failureOf.js';

let server: FakeOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(serverOptions: FakeServerOptions = {}, providerOptions: OpenAIEmbeddingOptions = {}) {
  server = await FakeOpenAIServer.start(serverOptions);
  const provider = new OpenAIEmbeddingProvider({
    baseUrl: server.baseUrl,
    model: 'test-embed',
    dimensions: 16,
    timeoutMs: 5_000,
    ...providerOptions,
  });
  return { server, provider };
}

function normalised(values: number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
}

function expectClose(actual: Float32Array, expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((v, i) => expect(actual[i]).toBeCloseTo(v, 5));
}

/** Resolves to the thrown error so its code, message and details can be checked. */
describe('OpenAIEmbeddingProvider', () => {
  it('batches requests and keeps input order across batches (even if the server reorders data)', async () => {
    const { server, provider } = await setup({ reverseOrder: true }, { batchSize: 3, concurrency: 2 });
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);

    const vectors = await provider.embed(texts);

    expect(server.requests).toHaveLength(4);
    expect(server.requests.map((r) => r.input.length).sort()).toEqual([1, 3, 3, 3]);
    expect(server.requests.every((r) => r.encoding_format === 'float' && r.model === 'test-embed')).toBe(true);
    expect(vectors).toHaveLength(10);
    texts.forEach((text, i) => expectClose(vectors[i] as Float32Array, normalised(fakeVector(text, 16))));
  });

  it('returns L2-normalised Float32Arrays that depend on the input', async () => {
    const { provider } = await setup();
    const [a, b] = await provider.embed(['alpha', 'beta']);
    expect(a).toBeInstanceOf(Float32Array);
    expect(Math.hypot(...(a as Float32Array))).toBeCloseTo(1, 5);
    expect(Array.from(a as Float32Array)).not.toEqual(Array.from(b as Float32Array));
    expect(await provider.embed([])).toEqual([]);
  });

  it('never has more than `concurrency` requests in flight', async () => {
    const { server, provider } = await setup({ delayMs: 30 }, { batchSize: 1, concurrency: 3 });
    await provider.embed(Array.from({ length: 12 }, (_, i) => `t${i}`));
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight).toBe(3);
  });

  it('waits for Retry-After on 429 and then succeeds', async () => {
    const { server, provider } = await setup({ failures: [{ status: 429, headers: { 'retry-after': '1' } }] });
    const started = Date.now();
    const [vector] = await provider.embed(['hello']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
    expectClose(vector as Float32Array, normalised(fakeVector('hello', 16)));
  });

  it('retries a 500 and then succeeds, warning once per retry', async () => {
    let logged = '';
    const logger = pino(
      { level: 'warn' },
      new Writable({ write: (chunk: Buffer, _enc, done) => ((logged += chunk.toString()), done()) }),
    );
    const { server, provider } = await setup({ failures: [{ status: 500 }, { status: 503 }] }, { logger });
    const [vector] = await provider.embed(['hello']);
    expect(server.requests).toHaveLength(3);
    const warnings = logged
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; url: string; model: string });
    expect(warnings.map((w) => w.msg)).toEqual([
      expect.stringMatching(/status 500 .*retrying/),
      expect.stringMatching(/status 503 .*retrying/),
    ]);
    expect(warnings[0]).toMatchObject({ url: `${server.baseUrl}/embeddings`, model: 'test-embed' });
    expectClose(vector as Float32Array, normalised(fakeVector('hello', 16)));
  });

  it('gives up with EMBEDDING_UNAVAILABLE after maxRetries on persistent 500s', async () => {
    const failures = Array.from({ length: 10 }, () => ({ status: 500 }));
    const { server, provider } = await setup({ failures }, { maxRetries: 2 });
    const error = await failureOf(provider.embed(['hello']));
    expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
    expect(error.message).toContain(`${server.baseUrl}/embeddings`);
    expect(error.message).toContain('test-embed');
    expect(error.message).toContain('HTTP 500 after 3 attempts');
    expect(error.details).toMatchObject({
      url: `${server.baseUrl}/embeddings`,
      model: 'test-embed',
      status: 500,
      attempts: 3,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('reports an unreachable endpoint with its URL, the model and how to fix it', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const provider = new OpenAIEmbeddingProvider({ baseUrl, model: 'nomic-embed-text', maxRetries: 1 });

    for (const attempt of [() => provider.embed(['hello']), () => provider.ready()]) {
      const error = await failureOf(attempt());
      expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
      expect(error.message).toContain(`${baseUrl}/embeddings`);
      expect(error.message).toContain('nomic-embed-text');
      expect(error.message).toContain('CAIRN_EMBEDDING_BASE_URL');
      expect(error.message).toContain('CAIRN_EMBEDDING_PROVIDER=hashing');
      expect(error.details).toMatchObject({ url: `${baseUrl}/embeddings`, model: 'nomic-embed-text' });
    }
  });

  it('retries timeouts and then reports them', async () => {
    const { server, provider } = await setup({ delayMs: 400 }, { timeoutMs: 50, maxRetries: 1 });
    const error = await failureOf(provider.embed(['slow']));
    expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
    expect(error.message).toContain('request timed out after 50 ms');
    // Attempts as the client made them: on a busy machine an attempt may time out before its request reaches the server.
    expect(error.details).toMatchObject({ attempts: 2 });
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
  });

  it('maps 401 to EMBEDDING_UNAVAILABLE about the API key, without retrying', async () => {
    const { server, provider } = await setup({ failures: [{ status: 401 }] }, { apiKey: 'wrong' });
    const error = await failureOf(provider.embed(['hello']));
    expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
    expect(error.message).toMatch(/API key/);
    expect(error.message).toContain('CAIRN_EMBEDDING_API_KEY');
    expect(server.requests).toHaveLength(1);
  });

  it('requires an API key only for the default OpenAI endpoint (and fails without a request)', async () => {
    const provider = new OpenAIEmbeddingProvider({});
    const error = await failureOf(provider.ready());
    expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
    expect(error.message).toContain('https://api.openai.com/v1/embeddings');
    expect(error.message).toContain('CAIRN_EMBEDDING_API_KEY');
    expect(provider.info).toEqual({ provider: 'openai', model: 'text-embedding-3-small', dimensions: 1536 });
  });

  it('probes the dimensions of an unknown model in ready() and does not send `dimensions`', async () => {
    const { server, provider } = await setup(
      { defaultDimensions: 12 },
      { model: 'nomic-embed-text', dimensions: undefined },
    );
    expect(provider.dimensions).toBe(0);

    await provider.ready();

    expect(provider.dimensions).toBe(12);
    expect(provider.info).toEqual({ provider: 'openai', model: 'nomic-embed-text', dimensions: 12 });
    expect(provider.id).toBe('openai:nomic-embed-text:12');
    expect(server.requests).toEqual([{ model: 'nomic-embed-text', input: ['ping'], encoding_format: 'float' }]);
    const [vector] = await provider.embed(['x']);
    expect(vector).toHaveLength(12);
  });

  it('probes lazily when embed() is called before ready()', async () => {
    const { provider } = await setup({ defaultDimensions: 7 }, { model: 'mxbai', dimensions: undefined });
    const vectors = await provider.embed(['a', 'b', 'c']);
    expect(vectors.map((v) => v.length)).toEqual([7, 7, 7]);
  });

  it('knows text-embedding-3 sizes and sends `dimensions` only when configured', async () => {
    const { server, provider } = await setup({}, { model: 'text-embedding-3-small', dimensions: undefined });
    expect(provider.dimensions).toBe(1536);
    const [full] = await provider.embed(['a']);
    expect(full).toHaveLength(1536);
    expect(server.requests[0]).not.toHaveProperty('dimensions');

    const reduced = new OpenAIEmbeddingProvider({
      baseUrl: server.baseUrl,
      model: 'text-embedding-3-large',
      dimensions: 256,
    });
    const [short] = await reduced.embed(['a']);
    expect(short).toHaveLength(256);
    expect(server.requests[1]).toMatchObject({ model: 'text-embedding-3-large', dimensions: 256 });
  });

  it('rejects vectors of the wrong length, naming expected and actual sizes', async () => {
    const { provider } = await setup({ forceLength: 10 }, { dimensions: 16 });
    for (const attempt of [() => provider.ready(), () => provider.embed(['hello'])]) {
      const error = await failureOf(attempt());
      expect(error.code).toBe(ErrorCode.EMBEDDING_UNAVAILABLE);
      expect(error.message).toMatch(/length 10 .*expected 16/);
      expect(error.details).toMatchObject({ expected: 16, got: 10 });
    }
  });
});
