import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig, type LlmExtractionConfig } from '../../../src/config.js';
import { LlmExtractor, type Wait } from '../../../src/extraction/llm/index.js';
import { ChunkExtractionError } from '../../../src/extraction/types.js';
import {
  chatCompletion,
  errorAnswer,
  jsonCompletion,
  OpenAiStub,
  stubDocument,
  type StubAnswer,
} from '../../helpers/openAiStub.js';

let stub: OpenAiStub | undefined;

afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const document = stubDocument;
const PASSAGE =
  'Vite uses Rollup to bundle code for production. Hot Module Replacement (HMR) updates modules in place.';
const chunk = { id: 'chunk-1', ordinal: 0, content: PASSAGE };

const GOOD = {
  entities: [
    { name: 'Vite', type: 'Technology', description: 'A build tool.', aliases: [] },
    { name: 'Rollup', type: 'Technology', description: 'A bundler.', aliases: [] },
    { name: 'Hot Module Replacement', type: 'Concept', description: 'Live module updates.', aliases: ['HMR'] },
  ],
  relationships: [{ source: 'Vite', target: 'Rollup', type: 'USES', description: 'Vite bundles with Rollup.' }],
};

async function setup(
  answers: StubAnswer[],
  overrides: Partial<LlmExtractionConfig> = {},
  time: { clock?: () => number; wait?: Wait } = {},
) {
  stub = await OpenAiStub.start(...answers);
  const env = {
    CAIRN_EXTRACTION_EXTRACTORS: 'structural,offline,llm',
    CAIRN_EXTRACTION_LLM_BASE_URL: stub.baseUrl,
    CAIRN_EXTRACTION_LLM_MODEL: 'stub-model',
    CAIRN_EXTRACTION_LLM_MAX_RETRIES: '2',
    CAIRN_EXTRACTION_LLM_TIMEOUT_MS: '5000',
  };
  const config = { ...loadConfig(env).extraction.llm, ...overrides };
  const extractor = new LlmExtractor({ config, ...time });
  return { stub, extractor };
}

/** The last user message of a recorded request. */
function lastUserMessage(request: { body: { messages: { role: string; content: string }[] } } | undefined): string {
  return request?.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

describe('LlmExtractor against an OpenAI-compatible stub', () => {
  it('sends the passage with a strict json_schema and maps a valid answer to candidates', async () => {
    const { stub, extractor } = await setup([jsonCompletion(GOOD, { promptTokens: 321, completionTokens: 54 })]);
    const [result] = await extractor.extract(document, [chunk]);

    expect(stub.requests).toHaveLength(1);
    const body = stub.requests[0]?.body;
    expect(body?.model).toBe('stub-model');
    expect(body?.temperature).toBe(0);
    expect(body?.response_format?.type).toBe('json_schema');
    expect(body?.response_format?.json_schema?.strict).toBe(true);
    expect(JSON.stringify(body?.response_format?.json_schema?.schema)).toContain('"ConfigOption"');
    expect(lastUserMessage(stub.requests[0])).toContain('Document: Vite guide');
    expect(lastUserMessage(stub.requests[0])).toContain(PASSAGE);

    expect(result?.entities.map((e) => [e.name, e.type, e.kind, e.confidence])).toEqual([
      ['Vite', 'Technology', 'name', 0.8],
      ['Rollup', 'Technology', 'name', 0.8],
      ['Hot Module Replacement', 'Concept', 'name', 0.8],
    ]);
    expect(result?.entities[2]?.aliases).toEqual(['HMR']);
    expect(result?.relationships).toEqual([
      {
        from: 'Vite',
        to: 'Rollup',
        type: 'USES',
        description: 'Vite bundles with Rollup.',
        quote: 'Vite uses Rollup to bundle code for production.',
        confidence: 0.7,
      },
    ]);
    expect(result?.warnings).toEqual([]);
    expect(result?.usage).toEqual({ promptTokens: 321, completionTokens: 54 });
  });

  it('is deterministic for an identical answer, and the fingerprint follows model, types and prompt', async () => {
    const { extractor } = await setup([jsonCompletion(GOOD), jsonCompletion(GOOD)]);
    const first = await extractor.extract(document, [chunk]);
    const second = await extractor.extract(document, [chunk]);
    expect(second).toEqual(first);
    const config = loadConfig({ CAIRN_EXTRACTION_LLM_MODEL: 'a' }).extraction.llm;
    const fingerprint = (c: LlmExtractionConfig) => new LlmExtractor({ config: c }).fingerprint;
    expect(fingerprint(config)).toBe(fingerprint({ ...config }));
    expect(fingerprint(config)).toContain('llm-extract-1');
    expect(fingerprint({ ...config, model: 'b' })).not.toBe(fingerprint(config));
    expect(fingerprint({ ...config, entityTypes: ['Person'] })).not.toBe(fingerprint(config));
    expect(extractor.contextKey(document)).toBe('Vite guide');
  });

  it('retries invalid JSON, quoting the parse error, and adds up the usage of both answers', async () => {
    const { stub, extractor } = await setup([
      chatCompletion('{"entities": [ {"name": "Vite"', { promptTokens: 100, completionTokens: 10 }),
      jsonCompletion(GOOD, { promptTokens: 150, completionTokens: 40 }),
    ]);
    const [result] = await extractor.extract(document, [chunk]);
    expect(stub.requests).toHaveLength(2);
    expect(lastUserMessage(stub.requests[1])).toMatch(/not valid JSON/);
    const retried = stub.requests[1]?.body.messages ?? [];
    expect(retried.find((m) => m.role === 'assistant')?.content).toBe('{"entities": [ {"name": "Vite"');
    expect(result?.entities).toHaveLength(3);
    expect(result?.usage).toEqual({ promptTokens: 250, completionTokens: 50 });
  });

  it('retries a wrong schema, quoting the validation error back to the model', async () => {
    const { stub, extractor } = await setup([
      jsonCompletion({ entities: [{ title: 'Vite', type: 'Technology' }] }),
      jsonCompletion(GOOD),
    ]);
    const [result] = await extractor.extract(document, [chunk]);
    expect(stub.requests).toHaveLength(2);
    expect(lastUserMessage(stub.requests[1])).toContain('entities[0].name');
    expect(result?.entities.map((e) => e.name)).toEqual(['Vite', 'Rollup', 'Hot Module Replacement']);
  });

  it('fails the chunk with the reason after two retries', async () => {
    const bad = jsonCompletion({ nodes: [] });
    const { stub, extractor } = await setup([bad, bad, bad]);
    const error = await extractor.extract(document, [chunk]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChunkExtractionError);
    expect((error as ChunkExtractionError).chunkId).toBe('chunk-1');
    expect((error as Error).message).toMatch(/stayed invalid after 2 retries: .*entities/);
    expect(stub.requests).toHaveLength(3);
  });

  it('repairs <think> blocks and fenced JSON with prose around it without a retry', async () => {
    const { stub, extractor } = await setup([
      chatCompletion(`<think>They want {"entities"}… let me list them.</think>\n${JSON.stringify(GOOD)}`),
      chatCompletion(`Here is the graph:\n\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\`\nAnything else? {}`),
    ]);
    const [thought] = await extractor.extract(document, [chunk]);
    const [fenced] = await extractor.extract(document, [chunk]);
    expect(stub.requests).toHaveLength(2);
    expect(thought?.entities).toHaveLength(3);
    expect(fenced).toEqual(thought);
  });

  it('reports an answer cut at max_tokens and an empty answer as warnings', async () => {
    const { extractor } = await setup([
      jsonCompletion(GOOD, { finishReason: 'length' }),
      jsonCompletion({ entities: [], relationships: [] }),
    ]);
    const [cut] = await extractor.extract(document, [chunk]);
    expect(cut?.entities).toHaveLength(3);
    expect(cut?.warnings).toEqual([
      expect.stringMatching(/cut at max_tokens \(CAIRN_EXTRACTION_LLM_MAX_OUTPUT_TOKENS=/),
    ]);
    const [empty] = await extractor.extract(document, [chunk]);
    expect(empty?.entities).toEqual([]);
    expect(empty?.warnings).toEqual(['the model found no entity in chunk 0']);
  });

  it('falls back to json_object when the endpoint rejects json_schema, and remembers it', async () => {
    const { stub, extractor } = await setup([
      errorAnswer(400, "Invalid value for 'response_format.type': json_schema is not supported"),
      jsonCompletion(GOOD),
      jsonCompletion(GOOD),
    ]);
    const [first] = await extractor.extract(document, [chunk]);
    await extractor.extract(document, [chunk]);
    expect(stub.requests.map((r) => r.body.response_format?.type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ]);
    expect(first?.entities).toHaveLength(3);
  });

  it("adapts to a model that refuses max_tokens and temperature (OpenAI's reasoning models)", async () => {
    const { stub, extractor } = await setup([
      errorAnswer(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      ),
      errorAnswer(400, "Unsupported value: 'temperature' does not support 0 with this model."),
      jsonCompletion(GOOD),
      jsonCompletion(GOOD),
    ]);
    await extractor.extract(document, [chunk]);
    await extractor.extract(document, [chunk]);
    const shapes = stub.requests.map(({ body }) => [body.max_tokens, body.max_completion_tokens, body.temperature]);
    expect(shapes).toEqual([
      [2000, undefined, 0],
      [undefined, 2000, 0],
      [undefined, 2000, undefined],
      [undefined, 2000, undefined],
    ]);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const slow = { ...jsonCompletion(GOOD), delayMs: 40 };
    const { stub, extractor } = await setup([slow, slow, slow, slow, slow], { concurrency: 2 });
    const chunks = Array.from({ length: 5 }, (_, i) => ({ ...chunk, id: `c${i}`, ordinal: i }));
    const results = await extractor.extract(document, chunks);
    expect(results).toHaveLength(5);
    expect(stub.requests).toHaveLength(5);
    expect(stub.maxInFlight).toBeLessThanOrEqual(2);
  });

  it('waits for the requests-per-minute budget on the injected clock', async () => {
    const time = { now: 0, waits: [] as number[] };
    const { stub, extractor } = await setup(
      [jsonCompletion(GOOD), jsonCompletion(GOOD), jsonCompletion(GOOD)],
      { requestsPerMinute: 2, concurrency: 1 },
      { clock: () => time.now, wait: async (ms) => void ((time.now += ms), time.waits.push(ms)) },
    );
    const chunks = [0, 1, 2].map((i) => ({ ...chunk, id: `c${i}`, ordinal: i }));
    await extractor.extract(document, chunks);
    expect(stub.requests).toHaveLength(3);
    // Two requests at time 0, so the third waits a whole minute of the fake clock (nothing sleeps).
    expect(time.waits).toEqual([60_000]);
  });
});
