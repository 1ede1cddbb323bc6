import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { loadConfig, type LlmExtractionConfig } from '../../../src/config.js';
import { AppError, ErrorCode } from '../../../src/errors.js';
import { LlmExtractor } from '../../../src/extraction/llm/index.js';
import { errorAnswer, jsonCompletion, OpenAiStub, stubDocument, type StubAnswer } from '../../helpers/openAiStub.js';

const SECRET = 'sk-test-SECRET-0123456789abcdef';

let stub: OpenAiStub | undefined;

afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const document = stubDocument;
const chunk = { id: 'chunk-1', ordinal: 0, content: 'Vite uses Rollup to bundle code for production.' };
const GOOD = {
  entities: [
    { name: 'Vite', type: 'Technology', description: 'A build tool.', aliases: [] },
    { name: 'Rollup', type: 'Technology', description: 'A bundler.', aliases: [] },
  ],
  relationships: [{ source: 'Vite', target: 'Rollup', type: 'USES', description: 'Vite bundles with Rollup.' }],
};

function llmConfig(env: Record<string, string>, overrides: Partial<LlmExtractionConfig> = {}): LlmExtractionConfig {
  return { ...loadConfig({ CAIRN_EXTRACTION_LLM_TIMEOUT_MS: '5000', ...env }).extraction.llm, ...overrides };
}

/** An extractor against a fresh stub, and the lines it logged. */
async function setup(answers: StubAnswer[], overrides: Partial<LlmExtractionConfig> = {}) {
  stub = await OpenAiStub.start(...answers);
  const lines: string[] = [];
  const sink = new Writable({ write: (data: Buffer, _enc, done) => void (lines.push(data.toString()), done()) });
  const config = llmConfig(
    {
      CAIRN_EXTRACTION_LLM_BASE_URL: stub.baseUrl,
      CAIRN_EXTRACTION_LLM_MODEL: 'stub-model',
      CAIRN_EXTRACTION_LLM_API_KEY: SECRET,
      CAIRN_EXTRACTION_LLM_MAX_RETRIES: '2',
    },
    overrides,
  );
  return { stub, lines, extractor: new LlmExtractor({ config, logger: pino({ level: 'debug' }, sink) }) };
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** Everything an error could show: message, details, cause and stack. */
function everythingShown(error: Error): string {
  return [error.message, error.stack, JSON.stringify(error), String(error.cause), JSON.stringify(error.cause)].join(
    '\n',
  );
}

describe('LlmExtractor: the endpoint fails', () => {
  it('retries a 429 at once when Retry-After is 0', async () => {
    const { stub, extractor } = await setup([
      errorAnswer(429, 'Rate limit reached', { 'retry-after': '0' }),
      jsonCompletion(GOOD),
    ]);
    const [result] = await extractor.extract(document, [chunk]);
    expect(stub.requests).toHaveLength(2);
    expect(result?.entities).toHaveLength(2);
  });

  it('waits as long as Retry-After says before retrying a 429', async () => {
    const { stub, extractor } = await setup([
      errorAnswer(429, 'Rate limit reached', { 'retry-after': '1' }),
      jsonCompletion(GOOD),
    ]);
    await extractor.extract(document, [chunk]);
    const [first, second] = stub.requests;
    expect(stub.requests).toHaveLength(2);
    // Without Retry-After the SDK would retry after 0.375 to 0.5 s.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('retries a 500 and succeeds', async () => {
    const { stub, extractor } = await setup([errorAnswer(500, 'model crashed'), jsonCompletion(GOOD)]);
    const [result] = await extractor.extract(document, [chunk]);
    expect(stub.requests).toHaveLength(2);
    expect(result?.relationships).toHaveLength(1);
  });

  it('gives up on a lasting 500 with EXTRACTION_UNAVAILABLE, counting the attempts', async () => {
    const { stub, extractor } = await setup([errorAnswer(500, 'model crashed'), errorAnswer(500, 'model crashed')], {
      maxRetries: 1,
    });
    const error = await failureOf(extractor.extract(document, [chunk]));
    expect(error.code).toBe(ErrorCode.EXTRACTION_UNAVAILABLE);
    expect(error.message).toMatch(/kept failing \(HTTP 500 after 2 attempts\): 500 model crashed/);
    expect(error.message).toContain(stub.baseUrl);
    expect(stub.requests).toHaveLength(2);
  });

  it('times out on an endpoint that never answers, naming the setting', async () => {
    const { stub, extractor } = await setup([{ hang: true }], { timeoutMs: 200, maxRetries: 0 });
    const error = await failureOf(extractor.extract(document, [chunk]));
    expect(error.code).toBe(ErrorCode.EXTRACTION_UNAVAILABLE);
    expect(error.message).toMatch(/request timed out after 200 ms/);
    expect(error.message).toContain('CAIRN_EXTRACTION_LLM_TIMEOUT_MS');
    expect(stub.requests).toHaveLength(1);
  });

  it('names CAIRN_EXTRACTION_LLM_BASE_URL when nothing listens there', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const config = llmConfig(
      { CAIRN_EXTRACTION_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, CAIRN_EXTRACTION_LLM_MODEL: 'm' },
      { maxRetries: 0 },
    );
    const error = await failureOf(new LlmExtractor({ config }).extract(document, [chunk]));
    expect(error.code).toBe(ErrorCode.EXTRACTION_UNAVAILABLE);
    expect(error.message).toMatch(/Cannot reach the LLM extraction endpoint .* connection failed \(ECONNREFUSED\)/);
    expect(error.message).toContain('CAIRN_EXTRACTION_LLM_BASE_URL');
  });

  it('names CAIRN_EXTRACTION_LLM_MODEL on a 404 and when no model is set', async () => {
    const { extractor } = await setup([errorAnswer(404, 'model "stub-model" not found, try pulling it first')]);
    const notServed = await failureOf(extractor.extract(document, [chunk]));
    expect(notServed.message).toContain('CAIRN_EXTRACTION_LLM_MODEL="stub-model"');
    const noModel = await failureOf(new LlmExtractor({ config: llmConfig({}) }).extract(document, [chunk]));
    expect(noModel.code).toBe(ErrorCode.CONFIG_INVALID);
    expect(noModel.message).toContain('set CAIRN_EXTRACTION_LLM_MODEL');
  });

  it("names CAIRN_EXTRACTION_LLM_API_KEY without a key for OpenAI's endpoint, sending nothing", async () => {
    const config = llmConfig({ CAIRN_EXTRACTION_LLM_MODEL: 'gpt-4o-mini' }, { apiKey: undefined });
    const error = await failureOf(new LlmExtractor({ config }).extract(document, [chunk]));
    expect(error.code).toBe(ErrorCode.CONFIG_INVALID);
    expect(error.message).toContain('CAIRN_EXTRACTION_LLM_API_KEY');
  });
});

describe('LlmExtractor: the API key', () => {
  it('is sent, but never appears in an error or a log line, even when the server repeats it', async () => {
    const echo = `Incorrect API key provided: ${SECRET}`;
    const { stub, lines, extractor } = await setup([
      errorAnswer(500, echo),
      errorAnswer(500, echo),
      errorAnswer(500, echo),
      errorAnswer(401, echo),
    ]);
    const lasting = await failureOf(extractor.extract(document, [chunk]));
    const rejected = await failureOf(extractor.extract(document, [chunk]));

    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(stub.requests).toHaveLength(4);
    expect(lasting.message).toContain('Incorrect API key provided: [hidden key]');
    expect(rejected.message).toContain('set CAIRN_EXTRACTION_LLM_API_KEY');
    for (const error of [lasting, rejected]) expect(everythingShown(error)).not.toContain(SECRET);
    // The SDK's retry notices were logged (two retries of the 500) and carry no key either.
    expect(lines.filter((l) => l.includes('LLM extraction request failed'))).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});
